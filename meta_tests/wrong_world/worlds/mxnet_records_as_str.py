"""mxnet's RecordIO as note 004 shows it (Python 2): MXRecordIO.write (and so write_idx) takes a str,
and read (and so read_idx) hands back a str.

Makes the note right about lib.mx-recordio-write-str and lib.mx-write-idx-str (refuted: their wrong
tests go red), and lib.mx-read-returns-bytes wrong (it holds: its test goes red).
"""
import mxnet.recordio as recordio

_write, _read = recordio.MXRecordIO.write, recordio.MXRecordIO.read


def write(self, buf):
    return _write(self, buf.encode() if isinstance(buf, str) else buf)


def read(self):
    out = _read(self)
    try:
        return out.decode("ascii") if isinstance(out, bytes) else out
    except UnicodeDecodeError:
        return out


def apply():
    recordio.MXRecordIO.write = write
    recordio.MXRecordIO.read = read
