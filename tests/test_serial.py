"""torch.save / torch.load: tensors, checkpoints, state_dicts, weights_only, map_location.

Notes: 003_df07c2a5da61a567.txt › 3 tensor 数据类型 (torch.save/torch.load of a tensor and of a
{"model": net, ...} checkpoint, load_state_dict(checkpoint['model'].state_dict()));
004_79576bb56bce5aea.txt › load and save (state_dict round trip); 001_eaed12e493b64ab2.txt ›
torch.load(参数文件, map_location='cpu'); 002_d3afcdbaa9416717.txt › 保存模型.

Every file is written under tmp_path.
"""
import pickle
import warnings
import zipfile

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures.boundaries import WEIGHTS_ONLY_DEFAULT_SINCE, WEIGHTS_ONLY_WARNING_SINCE
from fixtures.versions import torch_at_least

# torch.save pickles with protocol 2, where a str is BINUNICODE: b"X" + 4-byte length + bytes.
CPU_TAG = b"X\x03\x00\x00\x00cpu"
CUDA_TAG = b"X\x06\x00\x00\x00cuda:0"


def make_net():
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def retag_as_cuda(src, dst):
    """Copy a torch.save archive, retagging every storage's location 'cpu' -> 'cuda:0'.

    The result is the file a CUDA run would have written: the same archive layout, with the
    location string that torch.save records for CUDA storages.
    """
    retagged = 0  # how many location strings were rewritten
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("data.pkl"):
                retagged = data.count(CPU_TAG)
                data = data.replace(CPU_TAG, CUDA_TAG)
            zout.writestr(info.filename, data)
    return retagged


def storage_locations(path):
    """The location tags torch.load sees, collected through a map_location callable."""
    seen = []
    torch.load(path, map_location=lambda storage, location: seen.append(location) or storage)
    return seen


# --- tensors -------------------------------------------------------------------------


TENSORS = [
    pytest.param(lambda: torch.randn(3, 4), id="float32"),
    pytest.param(lambda: torch.arange(10, dtype=torch.int64), id="int64"),
    pytest.param(lambda: torch.tensor(2.5, dtype=torch.float64), id="0-d-float64"),
    pytest.param(lambda: torch.tensor([True, False]), id="bool"),
    pytest.param(lambda: torch.randn(4, 5).t()[1:3], id="non-contiguous-view"),
    pytest.param(lambda: torch.empty(0, 3), id="empty"),
]


@pytest.mark.claim("serial.save-load-tensor")
@pytest.mark.parametrize("make", TENSORS)
def test_save_then_load_returns_an_equal_tensor(tmp_path, make):
    t = make()
    torch.save(t, tmp_path / "t.pt")
    loaded = torch.load(tmp_path / "t.pt")
    assert loaded.dtype == t.dtype and loaded.shape == t.shape
    assert torch.equal(loaded, t)
    assert t.numel() == 0 or loaded.data_ptr() != t.data_ptr(), "the loaded tensor is a new copy"


# --- whole-module checkpoints and weights_only ----------------------------------------


@pytest.mark.claim("serial.save-load-checkpoint-module", half="holding")
@pytest.mark.needs(max_torch=WEIGHTS_ONLY_DEFAULT_SINCE)
def test_before_2_6_plain_load_unpickles_the_whole_module(tmp_path):
    net = make_net()
    torch.save({"model": net, "loss": 0.25}, tmp_path / "ckpt.pth")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checkpoint = torch.load(tmp_path / "ckpt.pth")
    assert isinstance(checkpoint["model"], nn.Sequential) and checkpoint["loss"] == 0.25
    warned = [w for w in caught if "weights_only" in str(w.message)]
    if torch_at_least(WEIGHTS_ONLY_WARNING_SINCE):
        assert warned and warned[0].category is FutureWarning, [str(w.message) for w in caught]
    else:
        assert warned == []


@pytest.mark.claim("serial.save-load-checkpoint-module", half="failing")
@pytest.mark.needs(min_torch=WEIGHTS_ONLY_WARNING_SINCE, max_torch=WEIGHTS_ONLY_DEFAULT_SINCE)
def test_from_2_4_to_2_6_plain_load_of_a_module_warns_that_the_default_will_refuse_it(tmp_path):
    # rule 3: the stated use still works (the test above) but is deprecated: the warning names the
    # weights_only default that will flip, the change that makes the same call fail from 2.6
    torch.save({"model": make_net(), "loss": 0.25}, tmp_path / "ckpt.pth")
    with pytest.warns(FutureWarning, match=r"weights_only(.|\n)*flipped to .?True"):
        torch.load(tmp_path / "ckpt.pth")


@pytest.mark.claim("serial.save-load-checkpoint-module", decides="wrong")
@pytest.mark.needs(min_torch=WEIGHTS_ONLY_DEFAULT_SINCE)
def test_since_2_6_plain_load_refuses_a_pickled_module(tmp_path):
    net = make_net()
    torch.save({"model": net, "loss": 0.25}, tmp_path / "ckpt.pth")
    with pytest.raises(pickle.UnpicklingError, match=r"Weights only load failed(.|\n)*Unsupported global"):
        torch.load(tmp_path / "ckpt.pth")
    checkpoint = torch.load(tmp_path / "ckpt.pth", weights_only=False)  # trusted file: opt out
    assert isinstance(checkpoint["model"], nn.Sequential) and checkpoint["loss"] == 0.25


UNPICKLED = []


def record_unpickling(tag):
    UNPICKLED.append(tag)
    return tag


class Payload:
    """Any pickled object can name a callable to run while it is unpickled."""

    def __reduce__(self):
        return (record_unpickling, ("code ran during torch.load",))


@pytest.mark.claim("serial.save-load-checkpoint-module", decides="wrong")
@pytest.mark.needs(min_torch=WEIGHTS_ONLY_DEFAULT_SINCE)
def test_weights_only_default_blocks_code_that_weights_only_false_runs(tmp_path):
    UNPICKLED.clear()
    try:
        torch.save({"weights": torch.ones(2), "extra": Payload()}, tmp_path / "evil.pth")
        assert UNPICKLED == []
        with pytest.raises(pickle.UnpicklingError, match=r"Weights only load failed(.|\n)*record_unpickling"):
            torch.load(tmp_path / "evil.pth")
        assert UNPICKLED == [], "the default refused before running anything"
        loaded = torch.load(tmp_path / "evil.pth", weights_only=False)
        assert UNPICKLED == ["code ran during torch.load"], "weights_only=False ran the pickled call"
        assert loaded["extra"] == "code ran during torch.load"
    finally:
        UNPICKLED.clear()


@pytest.mark.claim("serial.checkpoint-state-dict-load")
def test_state_dict_of_the_checkpointed_module_restores_a_fresh_model(tmp_path):
    net = make_net()
    net.train()(torch.randn(8, 3))  # move BN's running stats away from their initial values
    torch.save({"model": net, "loss": 0.25}, tmp_path / "ckpt.pth")
    checkpoint = torch.load(tmp_path / "ckpt.pth", weights_only=False)
    model = make_net()
    assert not torch.equal(model[0].weight, net[0].weight)
    model.load_state_dict(checkpoint["model"].state_dict())
    for (key, got), want in zip(model.state_dict().items(), net.state_dict().values()):
        assert torch.equal(got, want), key
    x = torch.randn(5, 3)
    assert torch.equal(model.eval()(x), net.eval()(x))


# --- state_dict round trip ----------------------------------------------------------


@pytest.mark.claim("serial.state-dict-roundtrip")
def test_state_dict_save_and_load_restores_parameters_and_buffers(tmp_path):
    net = make_net()
    net.train()(torch.randn(8, 3))
    torch.save(net.state_dict(), tmp_path / "xxx.pth")
    model = make_net()
    result = model.load_state_dict(torch.load(tmp_path / "xxx.pth"))
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    assert model[1].num_batches_tracked.item() == 1
    assert_close(model[1].running_mean, net[1].running_mean, rtol=0, atol=0)
    x = torch.randn(5, 3)
    assert torch.equal(model.eval()(x), net.eval()(x))


# --- map_location ---------------------------------------------------------------------


@pytest.fixture
def cuda_checkpoint(tmp_path):
    """(path, model): a state_dict file whose storages are tagged 'cuda:0', and its model."""
    model = nn.Linear(3, 2)
    torch.save(model.state_dict(), tmp_path / "cpu.pth")
    # pickle memoizes the string: one 'cpu' in data.pkl serves both weight and bias
    assert retag_as_cuda(tmp_path / "cpu.pth", tmp_path / "model.pth") >= 1
    return tmp_path / "model.pth", model


@pytest.mark.claim("serial.map-location-cpu")
def test_the_retagged_file_is_a_cuda_checkpoint(cuda_checkpoint):
    path, _ = cuda_checkpoint
    assert storage_locations(path) == ["cuda:0", "cuda:0"]


@pytest.mark.claim("serial.map-location-cpu")
def test_plain_load_of_a_cuda_checkpoint_needs_cuda(cuda_checkpoint, no_gpu_python):
    path, model = cuda_checkpoint
    message = no_gpu_python(f"""
        import torch
        try:
            torch.load({str(path)!r})
            result = None
        except RuntimeError as e:
            result = str(e)
    """)
    assert message is not None, "a CUDA checkpoint loaded without any visible GPU"
    assert "Attempting to deserialize object on a CUDA device" in message
    assert "torch.cuda.is_available() is False" in message
    assert "map_location" in message


@pytest.mark.claim("serial.map-location-cpu")
@pytest.mark.needs(gpus=1)
def test_plain_load_of_a_cuda_checkpoint_restores_it_on_the_gpu(cuda_checkpoint):
    path, model = cuda_checkpoint
    loaded = torch.load(path)  # a GPU machine restores the storages where they were saved
    assert {str(t.device) for t in loaded.values()} == {"cuda:0"}, {k: t.device for k, t in loaded.items()}
    for key, value in model.state_dict().items():
        assert torch.equal(loaded[key].cpu(), value), key


@pytest.mark.claim("serial.map-location-cpu")
@pytest.mark.needs(gpus=1)
def test_a_checkpoint_saved_from_the_gpu_is_tagged_cuda_and_map_location_cpu_brings_it_to_the_cpu(
        tmp_path, cuda_device):
    model = nn.Linear(3, 2).to(cuda_device)
    path = tmp_path / "saved_on_gpu.pt"
    torch.save(model.state_dict(), path)
    assert storage_locations(path) == [f"cuda:{cuda_device.index}"] * 2
    state = torch.load(path, map_location="cpu")
    assert {str(t.device) for t in state.values()} == {"cpu"}, {k: t.device for k, t in state.items()}
    for key, value in model.state_dict().items():
        assert torch.equal(state[key], value.cpu()), key


@pytest.mark.claim("serial.map-location-cpu")
@pytest.mark.parametrize("where", ["cpu", torch.device("cpu")], ids=["str", "torch.device"])
def test_map_location_cpu_loads_a_cuda_checkpoint_on_the_cpu(cuda_checkpoint, where):
    path, model = cuda_checkpoint
    state = torch.load(path, map_location=where)
    assert {t.device.type for t in state.values()} == {"cpu"}
    fresh = nn.Linear(3, 2)
    fresh.load_state_dict(torch.load(path, map_location=where))  # the note's line
    for key, value in model.state_dict().items():
        assert torch.equal(state[key], value), key
        assert torch.equal(fresh.state_dict()[key], value), key
