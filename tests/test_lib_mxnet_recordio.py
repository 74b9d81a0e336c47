"""mxnet RecordIO: the .rec/.idx file formats, MXRecordIO, MXIndexedRecordIO, pack/unpack, im2rec.

Notes: 004_79576bb56bce5aea.txt › mxnet › recordio, mx.recordio.MXRecordIO,
mx.recordio.MXIndexedRecordIO, mx.recordio.pack/unpack/pack_img/unpack_img, 工具.

Every test writes real files under tmp_path with mxnet and reads the bytes back by hand.
mxnet 1.9.1 needs numpy < 1.24: run these with `tox -e lib-mxnet` (requirements-lib-mxnet.txt).
"""
import inspect
import io
import pathlib
import struct
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.needs(libs=["mxnet"])

# dmlc-core's RecordIO (what MXRecordIO writes): every chunk starts with this uint32 ...
MAGIC = 0xCED7230A
# ... then a uint32 "lrecord": payload length in the lower 29 bits, continuation flag in the upper 3
LENGTH_BITS = 29
# the note's three record sizes and its .idx offsets (keys 1, 2, 3, 4)
NOTE_SIZES = (5760, 6742, 6773)
NOTE_OFFSETS = (0, 5768, 12520, 19304)


@pytest.fixture
def mx():
    import torch

    # importing mxnet (its OpenMP runtime) drops torch's intra-op thread count to 1
    threads = torch.get_num_threads()
    import mxnet

    yield mxnet
    torch.set_num_threads(threads)


def write_records(mx, path, payloads):
    rec = mx.recordio.MXRecordIO(str(path), "w")
    for p in payloads:
        rec.write(p)
    rec.close()


def read_all(mx, path):
    rec = mx.recordio.MXRecordIO(str(path), "r")
    out = []
    while (item := rec.read()) is not None:
        out.append(item)
    rec.close()
    return out


def parse_chunks(data: bytes):
    """[(offset, magic, cflag, length, payload, padding)] of a .rec file's raw bytes."""
    __tracebackhide__ = True
    chunks, pos = [], 0
    while pos < len(data):
        magic, lrecord = struct.unpack_from("<II", data, pos)
        cflag, length = lrecord >> LENGTH_BITS, lrecord & ((1 << LENGTH_BITS) - 1)
        padded = (length + 3) // 4 * 4
        body = data[pos + 8 : pos + 8 + padded]
        chunks.append((pos, magic, cflag, length, body[:length], body[length:]))
        pos += 8 + padded
    assert pos == len(data), f"chunks end at byte {pos}, file has {len(data)}"
    return chunks


@pytest.mark.claim("lib.mx-recordio-write-str", decides="wrong")
def test_note_snippet_writing_str_raises_typeerror_on_python3(mx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    snippet = (
        "record = mx.recordio.MXRecordIO('tmp.rec', 'w')\n"
        "for i in range(3):\n"
        "    record.write('record_%d'%i)\n"
        "record.close()\n"
    )
    ns = {"mx": mx}
    with pytest.raises(TypeError, match="bytes or integer address expected instead of str instance"):
        exec(compile(snippet, "<note>", "exec"), ns)
    ns["record"].close()
    assert (tmp_path / "tmp.rec").read_bytes() == b"", "the failed str write must not have written a record"


@pytest.mark.claim("lib.mx-recordio-write-str", decides="wrong")
def test_write_idx_of_str_raises_the_same_typeerror(mx, tmp_path):
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / "tmp.idx"), str(tmp_path / "tmp.rec"), "w")
    with pytest.raises(TypeError, match="bytes or integer address expected instead of str instance"):
        rec.write_idx(0, "record_0")
    rec.close()
    assert (tmp_path / "tmp.idx").read_text() == "", "no index line for a record that was not written"


@pytest.mark.claim("lib.mx-recordio-write-str", decides="wrong")
def test_bytes_records_read_back_as_bytes_in_order_then_none(mx, tmp_path, capsys):
    path = tmp_path / "tmp.rec"
    write_records(mx, path, [b"record_%d" % i for i in range(3)])
    rec = mx.recordio.MXRecordIO(str(path), "r")
    for i in range(3):
        print(rec.read())
    assert rec.read() is None, "read() past the last record returns None"
    rec.close()
    printed = capsys.readouterr().out.splitlines()
    # the note prints record_0 ..., Python 3 prints the bytes repr
    assert printed == ["b'record_0'", "b'record_1'", "b'record_2'"], printed


@pytest.mark.claim("lib.mx-recordio-format", decides="wrong")
@pytest.mark.parametrize("size", [0, 1, 7, 8, 13, 100, 5760])
def test_record_header_is_magic_then_length_not_an_8_byte_count(mx, tmp_path, size):
    payload = bytes((7 * i + 3) % 256 for i in range(size))
    path = tmp_path / "r.rec"
    write_records(mx, path, [payload])
    data = path.read_bytes()
    magic, lrecord = struct.unpack_from("<II", data, 0)
    assert magic == MAGIC, f"first 4 bytes {data[:4].hex()}, expected the magic {MAGIC:#x} (little-endian)"
    assert lrecord == size, f"second uint32 {lrecord}, expected the payload length {size} (flag 0)"
    assert data[8 : 8 + size] == payload
    as_count = int.from_bytes(data[:8], "little")
    assert as_count != size, "the 8 header bytes read as one count would give the length"
    assert read_all(mx, path) == [payload]


@pytest.mark.claim("lib.mx-recordio-format")
def test_payload_containing_the_magic_is_split_into_flagged_chunks(mx, tmp_path):
    magic_bytes = struct.pack("<I", MAGIC)
    payload = b"abcd" + magic_bytes + b"efghij"  # the magic at a 4-byte boundary of the payload
    path = tmp_path / "m.rec"
    write_records(mx, path, [payload, b"x" * 12])
    chunks = parse_chunks(path.read_bytes())
    # the upper 3 bits: 0 whole record, 1 first part, 3 last part; the magic itself is dropped
    # from the stored data and put back by the reader
    got = [(cflag, length, body) for _, magic, cflag, length, body, _ in chunks]
    assert got == [(1, 4, b"abcd"), (3, 6, b"efghij"), (0, 12, b"x" * 12)], got
    assert all(magic == MAGIC for _, magic, *_ in chunks)
    assert read_all(mx, path) == [payload, b"x" * 12]


@pytest.mark.claim("lib.mx-recordio-align8", decides="left-out")
@pytest.mark.parametrize("size", range(0, 17))
def test_payload_is_padded_to_a_multiple_of_4_not_8(mx, tmp_path, size):
    path = tmp_path / "p.rec"
    write_records(mx, path, [b"\xff" * size])
    data = path.read_bytes()
    padding = len(data) - 8 - size
    assert padding == -size % 4, f"{size}-byte payload: {padding} padding bytes, expected {-size % 4}"
    assert data[8 + size :] == b"\x00" * padding, "padding bytes are zeros"
    if size % 8 in (1, 2, 3, 4):  # where 8-byte alignment would differ
        assert padding != -size % 8


@pytest.mark.claim("lib.mx-recordio-align8", "lib.mx-idx-format", decides="holds")
def test_note_sizes_reproduce_the_note_paddings_and_idx_offsets(mx, tmp_path):
    idx, rec_path = tmp_path / "data.idx", tmp_path / "data.rec"
    rec = mx.recordio.MXIndexedRecordIO(str(idx), str(rec_path), "w")
    for key, size in enumerate((*NOTE_SIZES, 8), start=1):
        rec.write_idx(key, b"\x01" * size)
    rec.close()
    chunks = parse_chunks(rec_path.read_bytes())
    paddings = [len(pad) for *_, pad in chunks[:3]]
    # the note's 0, 2, 3: the same under 4- and 8-byte alignment for these three sizes
    assert paddings == [0, 2, 3], paddings
    lines = idx.read_text().splitlines()
    assert lines == [f"{k}\t{off}" for k, off in enumerate(NOTE_OFFSETS, start=1)], lines


@pytest.mark.claim("lib.mx-recordio-sequential")
def test_mxrecordio_reads_in_order_and_only_rewinds(mx, tmp_path):
    path = tmp_path / "s.rec"
    payloads = [b"r%d" % i * (i + 1) for i in range(5)]
    write_records(mx, path, payloads)
    rec = mx.recordio.MXRecordIO(str(path), "r")
    assert [rec.read() for _ in range(3)] == payloads[:3]
    rec.reset()  # the only way to move: back to the start
    assert rec.read() == payloads[0]
    rec.close()
    public = {m for m in dir(mx.recordio.MXRecordIO) if not m.startswith("_")}
    assert public == {"close", "open", "read", "reset", "write"}, public
    indexed = {m for m in dir(mx.recordio.MXIndexedRecordIO) if not m.startswith("_")}
    assert {"seek", "read_idx", "write_idx", "tell"} <= indexed - public


@pytest.mark.claim("lib.mx-idx-format")
def test_idx_is_tab_separated_key_and_byte_offset_per_written_record(mx, tmp_path):
    idx, rec_path = tmp_path / "tmp.idx", tmp_path / "tmp.rec"
    keys = [7, 3, 11, 0]  # keys are free; lines follow the write order
    rec = mx.recordio.MXIndexedRecordIO(str(idx), str(rec_path), "w")
    for k in keys:
        rec.write_idx(k, b"record_%d" % k * (k + 1))
    rec.close()
    text = idx.read_text()
    assert text.endswith("\n") and "\t" in text and " " not in text, repr(text)
    parsed = [tuple(int(f) for f in line.split("\t")) for line in text.splitlines()]
    offsets = [off for off, *_ in parse_chunks(rec_path.read_bytes())]
    assert parsed == list(zip(keys, offsets)), f".idx lines {parsed}, record offsets {offsets}"


@pytest.mark.claim("lib.mx-read-returns-bytes")
def test_mxrecordio_read_returns_the_next_record_as_bytes_per_call(mx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # the note's data.idx / data.rec: three records of its sizes, written with their index
    payloads = [bytes([key]) * size for key, size in enumerate(NOTE_SIZES, start=1)]
    writer = mx.recordio.MXIndexedRecordIO("data.idx", "data.rec", "w")
    for key, payload in enumerate(payloads, start=1):
        writer.write_idx(key, payload)
    writer.close()
    record = mx.recordio.MXRecordIO("data.rec", 'r')  # the note's lines
    got = []
    for _ in range(3):
        x = record.read()
        assert type(x) is bytes, f"read() returned {type(x).__name__}, the note says bytes"
        got.append(x)
    assert record.read() is None, "read() past the last record returns None"
    record.close()
    assert [len(x) for x in got] == [5760, 6742, 6773], [len(x) for x in got]
    assert got == payloads, "records come back in the order written, padding stripped"


@pytest.mark.claim("lib.mx-indexed-read")
def test_indexed_record_io_opened_on_idx_and_rec_reads_any_record_directly(mx, tmp_path):
    idx, rec_path = str(tmp_path / "tmp.idx"), str(tmp_path / "tmp.rec")
    record = mx.recordio.MXIndexedRecordIO(idx, rec_path, "w")  # as the note opens it: (.idx, .rec, flag)
    for i in range(5):
        record.write_idx(i, b"record_%d" % i)
    record.close()
    # the first path got the text index, the second the records
    assert (tmp_path / "tmp.idx").read_text().splitlines()[0].startswith("0\t0")
    assert [c[4] for c in parse_chunks((tmp_path / "tmp.rec").read_bytes())][3] == b"record_3"
    record = mx.recordio.MXIndexedRecordIO(idx, rec_path, "r")
    assert record.read_idx(3) == b"record_3"
    assert [record.read_idx(i) for i in (4, 0, 2)] == [b"record_4", b"record_0", b"record_2"]
    assert record.read() == b"record_3", "read() continues sequentially after the last read_idx"
    assert record.keys == [0, 1, 2, 3, 4]
    record.close()


@pytest.mark.claim("lib.mx-write-idx-str", decides="wrong")
def test_note_write_idx_of_str_raises_and_read_idx_of_bytes_records_shows_bytes(mx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record = mx.recordio.MXIndexedRecordIO('tmp.idx', 'tmp.rec', 'w')
    snippet = "for i in range(5):\n    record.write_idx(i, 'record_%d'%i)\n"  # the note's lines
    with pytest.raises(TypeError, match="bytes or integer address expected instead of str instance"):
        exec(compile(snippet, "<note>", "exec"), {"record": record})
    record.close()
    assert (tmp_path / "tmp.rec").read_bytes() == b"" and (tmp_path / "tmp.idx").read_text() == "", (
        "the str write stored something")
    # written as bytes, the records read back as bytes
    record = mx.recordio.MXIndexedRecordIO('tmp.idx', 'tmp.rec', 'w')
    for i in range(5):
        record.write_idx(i, b'record_%d' % i)
    record.close()
    record = mx.recordio.MXIndexedRecordIO('tmp.idx', 'tmp.rec', 'r')
    shown = repr(record.read_idx(3))  # what the interpreter shows for the note's record.read_idx(3)
    record.close()
    assert shown == "b'record_3'", f"read_idx(3) shows {shown}, the note shows record_3"


@pytest.mark.claim("lib.mx-pack-signatures")
def test_pack_unpack_signatures_match_the_note(mx):
    sig = {n: str(inspect.signature(getattr(mx.recordio, n))) for n in ("pack", "unpack", "pack_img", "unpack_img")}
    assert sig == {
        "pack": "(header, s)",
        "unpack": "(s)",
        "pack_img": "(header, img, quality=95, img_fmt='.jpg')",
        "unpack_img": "(s, iscolor=-1)",
    }, sig


@pytest.mark.claim("lib.mx-pack-signatures")
def test_pack_then_unpack_returns_header_and_payload(mx, tmp_path):
    header = mx.recordio.IRHeader(0, 4.0, 2574, 0)
    s = mx.recordio.pack(header, b"raw image bytes")
    assert isinstance(s, bytes) and len(s) == 24 + len(b"raw image bytes")  # struct 'IfQQ'
    path = tmp_path / "p.rec"
    write_records(mx, path, [s])
    got_header, got_s = mx.recordio.unpack(read_all(mx, path)[0])
    assert got_header == header and got_s == b"raw image bytes", (got_header, got_s)


@pytest.mark.claim("lib.mx-pack-signatures")
@pytest.mark.needs(libs=["cv2"])
def test_pack_img_takes_bgr_hwc_arrays_and_unpack_img_returns_them(mx):
    from PIL import Image

    img = np.zeros((4, 6, 3), np.uint8)
    img[..., 0] = 255  # channel 0 full: blue in BGR, red in RGB
    img[1, 2] = (10, 20, 30)
    s = mx.recordio.pack_img(mx.recordio.IRHeader(0, 1.0, 1, 0), img, quality=3, img_fmt=".png")
    header, decoded = mx.recordio.unpack_img(s)
    assert decoded.shape == (4, 6, 3) and decoded.dtype == np.uint8
    assert np.array_equal(decoded, img), "PNG round trip must be lossless"
    # the encoded image seen by an RGB decoder: channel 0 of the array was blue
    _, png = mx.recordio.unpack(s)
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert tuple(rgb[0, 0]) == (0, 0, 255), f"pixel decodes as RGB {tuple(rgb[0, 0])}, expected blue"
    assert np.array_equal(rgb[..., ::-1], img)
    jpg_header, jpg = mx.recordio.unpack_img(mx.recordio.pack_img(header, img))  # default .jpg, quality 95
    assert jpg.shape == (4, 6, 3) and jpg_header == header


@pytest.mark.claim("lib.mx-irheader")
def test_irheader_is_the_note_namedtuple(mx):
    IRHeader = mx.recordio.IRHeader
    assert IRHeader.__name__ == "HEADER" and IRHeader._fields == ("flag", "label", "id", "id2")
    assert issubclass(IRHeader, tuple)


@pytest.mark.claim("lib.mx-irheader", decides="wrong")
@pytest.mark.parametrize(
    "flag, label, expected_flag",
    [
        pytest.param(7, 3.0, 0, id="scalar-label-flag-7-stored-as-0"),
        pytest.param(0, [1.5, 2.0, 3.0], 3, id="array-label-flag-0-stored-as-3"),
        pytest.param(99, [0.5], 1, id="one-element-array-flag-99-stored-as-1"),
    ],
)
def test_pack_overwrites_flag_with_the_label_count(mx, flag, label, expected_flag):
    header = mx.recordio.IRHeader(flag, label, 123456789012, 0)
    packed = mx.recordio.pack(header, b"payload")
    stored_flag = struct.unpack_from("<I", packed)[0]
    assert stored_flag == expected_flag, f"flag {flag} with label {label}: stored {stored_flag}"
    got, s = mx.recordio.unpack(packed)
    assert got.flag == expected_flag and got.id == 123456789012 and got.id2 == 0
    assert s == b"payload", "unpack uses the flag to cut the label array off the payload"
    np.testing.assert_array_equal(np.asarray(got.label, np.float32), np.asarray(label, np.float32))


@pytest.mark.claim("lib.mx-irheader")
def test_label_is_stored_as_float32(mx):
    got, _ = mx.recordio.unpack(mx.recordio.pack(mx.recordio.IRHeader(0, 0.1, 1, 0), b""))
    assert got.label == float(np.float32(0.1)) and got.label != 0.1, got.label


@pytest.mark.claim("lib.mx-im2rec")
@pytest.mark.needs(libs=["cv2"])
@pytest.mark.slow
def test_pip_package_ships_tools_im2rec_that_builds_rec_and_idx(mx, tmp_path):
    from PIL import Image

    script = pathlib.Path(mx.__file__).parent / "tools" / "im2rec.py"
    assert script.is_file(), f"{script} is not in the mxnet package"
    root = tmp_path / "images"
    for label, color in enumerate(["red", "green"]):
        (root / f"class{label}").mkdir(parents=True)
        Image.new("RGB", (5, 4), color).save(root / f"class{label}" / "a.png")
    prefix = str(tmp_path / "data")

    def im2rec(*args):
        return subprocess.run(
            [sys.executable, str(script), *args], capture_output=True, text=True, timeout=60, check=True
        )

    im2rec("--list", "--recursive", "--no-shuffle", prefix, str(root))
    lst = (tmp_path / "data.lst").read_text().splitlines()
    assert [line.split("\t") for line in lst] == [
        ["0", "0.000000", "class0/a.png"],
        ["1", "1.000000", "class1/a.png"],
    ], lst
    im2rec("--encoding", ".png", "--num-thread", "1", prefix, str(root))
    assert (tmp_path / "data.rec").is_file() and (tmp_path / "data.idx").is_file()
    record = mx.recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "r")
    header, img = mx.recordio.unpack_img(record.read_idx(1))
    record.close()
    assert header.label == 1.0 and header.id == 1
    assert img.shape == (4, 5, 3) and tuple(img[0, 0]) == (0, 128, 0), "green, as BGR"
