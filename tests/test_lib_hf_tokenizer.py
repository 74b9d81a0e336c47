"""Hugging Face RobertaTokenizer: from_pretrained / save_pretrained / __call__ / decode, offline.

Notes: 003_df07c2a5da61a567.txt › tokenizer.

No hub access: each test writes a tiny byte-level BPE tokenizer (a generated vocab.json and
merges.txt: the 256 byte symbols, RoBERTa's special tokens and a few merges) under tmp_path.
Run with transformers installed: `tox -e lib` (requirements-lib-hf.txt).
"""
import json

import pytest
import torch

from fixtures import versions
from fixtures.boundaries import BLANK_TOKENIZER_SINCE

pytestmark = pytest.mark.needs(libs=["transformers"])

HUB_ID = "FacebookAI/roberta-base"
SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0..3 as in RoBERTa; <mask> comes last
MERGES = ["h e", "l l", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "l d", "Ġwor ld"]


def byte_symbols():
    """GPT-2's byte -> printable character table (byte-level BPE's alphabet)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = iter(range(256, 512))
    return {b: chr(b if b in keep else next(shifted)) for b in range(256)}


def write_tiny_bpe(directory):
    """vocab.json + merges.txt of a 270-token byte-level BPE: 'hello' and 'Ġworld' are single tokens."""
    vocab = {tok: i for i, tok in enumerate(SPECIALS)}
    for symbol in byte_symbols().values():
        vocab.setdefault(symbol, len(vocab))
    for merge in MERGES:
        vocab.setdefault(merge.replace(" ", ""), len(vocab))
    vocab["<mask>"] = len(vocab)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "vocab.json").write_text(json.dumps(vocab))
    (directory / "merges.txt").write_text("#version: 0.2\n" + "\n".join(MERGES) + "\n")
    return vocab


@pytest.fixture
def offline(monkeypatch):
    """HF_HUB_OFFLINE=1 as a process would see it: the hub reads the variable at import."""
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


@pytest.fixture
def tiny(tmp_path, offline):
    from transformers import RobertaTokenizer

    vocab = write_tiny_bpe(tmp_path / "tiny-bpe")
    tokenizer = RobertaTokenizer.from_pretrained(str(tmp_path / "tiny-bpe"), local_files_only=True)
    return tokenizer, vocab


def transformers_at_least(version):
    import transformers

    return versions.parse(transformers.__version__) >= versions.parse(version)


@pytest.mark.claim("lib.hf-from-pretrained")
def test_from_pretrained_local_dir_with_local_files_only_loads_those_files(tiny):
    tokenizer, vocab = tiny
    assert len(tokenizer) == len(vocab) == 270
    assert tokenizer.tokenize("hello world") == ["hello", "Ġworld"], "the local merges must be in use"
    assert tokenizer("hello world")["input_ids"] == [0, vocab["hello"], vocab["Ġworld"], 2]


@pytest.mark.claim("lib.hf-from-pretrained")
def test_from_pretrained_hub_id_with_local_files_only_reads_the_local_cache(tmp_path, offline):
    from transformers import RobertaTokenizer

    # the hub cache layout of a model downloaded earlier: refs/main names the snapshot
    cache = tmp_path / "hub-cache"
    repo = cache / ("models--" + HUB_ID.replace("/", "--"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    vocab = write_tiny_bpe(repo / "snapshots" / commit)
    tokenizer = RobertaTokenizer.from_pretrained(HUB_ID, local_files_only=True, cache_dir=str(cache))
    assert len(tokenizer) == len(vocab), "the cached snapshot's vocabulary, not roberta-base's 50265"
    assert tokenizer.tokenize("hello world") == ["hello", "Ġworld"]


@pytest.mark.claim("lib.hf-from-pretrained")
def test_from_pretrained_uncached_hub_id_with_local_files_only_does_not_download(tmp_path, offline):
    from transformers import RobertaTokenizer

    cache = tmp_path / "empty-hub-cache"
    if transformers_at_least(BLANK_TOKENIZER_SINCE):
        tokenizer = RobertaTokenizer.from_pretrained(HUB_ID, local_files_only=True, cache_dir=str(cache))
        # nothing fetched: an empty byte-level BPE with only the five special tokens,
        # which maps any text to nothing but <s> </s>
        assert sorted(tokenizer.get_vocab()) == sorted([*SPECIALS, "<mask>"]), tokenizer.get_vocab()
        assert tokenizer("hello world")["input_ids"] == [tokenizer.bos_token_id, tokenizer.eos_token_id]
    else:
        with pytest.raises((OSError, ImportError, TypeError)):
            RobertaTokenizer.from_pretrained(HUB_ID, local_files_only=True, cache_dir=str(cache))
    assert not any(p.is_file() for p in cache.rglob("*")), "local_files_only must not write the cache"


@pytest.mark.claim("lib.hf-from-pretrained")
def test_from_pretrained_of_a_missing_local_dir_takes_it_for_an_invalid_hub_id(tmp_path, offline):
    from transformers import RobertaTokenizer

    missing = tmp_path / "no" / "such" / "dir"
    # a path that does not exist is taken for a hub id, and a path is not a valid one
    with pytest.raises(OSError, match="Repo id must be in the form 'repo_name' or 'namespace/repo_name'"):
        RobertaTokenizer.from_pretrained(str(missing), local_files_only=True)


@pytest.mark.claim("lib.hf-from-pretrained")
@pytest.mark.needs(network=True)
def test_from_pretrained_hub_id_downloads_the_tokenizer(tmp_path):
    from transformers import RobertaTokenizer

    tokenizer = RobertaTokenizer.from_pretrained(HUB_ID, cache_dir=str(tmp_path / "hub"))
    assert len(tokenizer) == 50265, "roberta-base's vocabulary"
    assert any(p.name == "vocab.json" or p.name == "tokenizer.json" for p in (tmp_path / "hub").rglob("*"))
    cached = RobertaTokenizer.from_pretrained(HUB_ID, local_files_only=True, cache_dir=str(tmp_path / "hub"))
    assert cached("hello world")["input_ids"] == tokenizer("hello world")["input_ids"]


@pytest.mark.claim("lib.hf-save-pretrained")
def test_save_pretrained_writes_a_directory_from_pretrained_reloads(tiny, tmp_path):
    from transformers import RobertaTokenizer

    tokenizer, _ = tiny
    written = tokenizer.save_pretrained(str(tmp_path / "saved"))
    names = sorted(p.split("/")[-1] for p in written)
    assert "tokenizer_config.json" in names and all((tmp_path / "saved" / n).is_file() for n in names), names
    reloaded = RobertaTokenizer.from_pretrained(str(tmp_path / "saved"), local_files_only=True)
    texts = ["hello world", "héllo, wörld! 123", ""]
    assert [reloaded(t)["input_ids"] for t in texts] == [tokenizer(t)["input_ids"] for t in texts]
    assert reloaded.get_vocab() == tokenizer.get_vocab()


@pytest.mark.claim("lib.hf-call-returns", decides="left-out")
def test_call_returns_a_mapping_of_ids_and_mask_as_lists(tiny):
    from collections.abc import Mapping

    tokenizer, vocab = tiny
    enc = tokenizer("hello world")
    # a dict in use, but a BatchEncoding (collections.UserDict), not a dict instance
    assert isinstance(enc, Mapping) and not isinstance(enc, dict), (
        f"tokenizer() returned {type(enc).__mro__}, expected a BatchEncoding (a mapping, no dict)"
    )
    assert list(enc.keys()) == ["input_ids", "attention_mask"]
    assert enc["input_ids"] == [0, vocab["hello"], vocab["Ġworld"], 2]
    assert enc["attention_mask"] == [1, 1, 1, 1]


@pytest.mark.claim("lib.hf-call-returns", decides="holds")
def test_return_tensors_pt_gives_long_tensors_batch_first(tiny):
    tokenizer, _ = tiny
    enc = tokenizer(["hello world", "hello"], return_tensors="pt", padding=True, truncation=True, max_length=16)
    assert list(enc.keys()) == ["input_ids", "attention_mask"]
    for key in enc:
        assert isinstance(enc[key], torch.Tensor) and enc[key].dtype == torch.int64, (key, enc[key])
    assert torch.equal(enc["attention_mask"], torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]]))
    assert enc["input_ids"][1, 3].item() == tokenizer.pad_token_id == 1
    single = tokenizer("hello", return_tensors="pt")
    assert single["input_ids"].shape == (1, 3), "a single string still gets a batch dimension"


@pytest.mark.claim("lib.hf-padding-max-length", decides="wrong")
@pytest.mark.parametrize(
    "padding, texts, expected_len",
    [
        pytest.param(True, ["hello"], 3, id="padding-True-short-text-stays-short"),
        pytest.param(True, ["hello", "hello world"], 4, id="padding-True-pads-to-longest-in-batch"),
        pytest.param(True, ["hello world " * 10], 8, id="padding-True-long-text-truncated-to-max_length"),
        pytest.param("max_length", ["hello"], 8, id="padding-max_length-pads-to-max_length"),
        pytest.param("max_length", ["hello world " * 10], 8, id="padding-max_length-truncates-too"),
    ],
)
def test_padding_true_pads_to_the_longest_not_to_max_length(tiny, padding, texts, expected_len):
    tokenizer, _ = tiny
    enc = tokenizer(texts, return_tensors="pt", padding=padding, truncation=True, max_length=8)
    assert enc["input_ids"].shape == (len(texts), expected_len), (
        f"padding={padding!r}, truncation=True, max_length=8: shape {tuple(enc['input_ids'].shape)}"
    )


@pytest.mark.claim("lib.hf-decode")
def test_decode_returns_a_string_with_special_tokens_unless_skipped(tiny):
    tokenizer, _ = tiny
    ids = tokenizer("hello world", return_tensors="pt", padding="max_length", max_length=5)["input_ids"][0]
    text = tokenizer.decode(ids)
    assert isinstance(text, str)
    assert text == "<s>hello world</s><pad>", repr(text)
    assert tokenizer.decode(ids, skip_special_tokens=True) == "hello world"
    assert tokenizer.decode(ids.tolist()) == text, "a list of ids decodes like the tensor"
    assert tokenizer.decode(tokenizer("héllo, wörld!")["input_ids"], skip_special_tokens=True) == "héllo, wörld!"
