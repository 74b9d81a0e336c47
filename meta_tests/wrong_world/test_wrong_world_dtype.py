"""Wrong-world checks for the dtype claims: in a torch patched so that the claim's stated behaviour
differs, the claim's tests must go red, for the reason their assertions give.

    the note's world for the image recipes: fromarray takes H x W x 1 as grayscale,
      permute(2, 0, 1) of an H x W tensor reads it as H x W x 1, to_tensor scales every image
                                                          -> dtype.pil-from-tensor, dtype.to-pil-image-equivalence,
                                                             dtype.pil-to-tensor-manual, dtype.to-tensor-func red
    Tensor.to whose non_blocking defaults to True         -> dtype.to-non-blocking-default red
    a consumer of a non_blocking copy that does not wait for it (the copy on another stream;
      needs a CUDA GPU, skips without one)                -> dtype.to-non-blocking-semantics red
    float32 matmul computed in float64 (benchmark, serial spec run)
                                                          -> dtype.float-faster-than-double inconclusive or failed
    the partly claims' world: one patch of many functions breaks the holding half of every CPU
      partly claim (whatever its topic; most are dtype ones), one spec run; each claim must then
      be failed, never partly on its failing half alone (the optional-library ones are in
      test_wrong_world_lib.py):
      - autograd.retain-graph (holds; run in the same world): backward keeps the graph unless told
        otherwise (retain_graph defaults to True).
      - tensor.normal-size-tensor-args: with size, torch.normal rejects every tensor mean / std.
      - the deprecated-but-working claims (docs/verdict-rules.md, rule 3): set_default_tensor_type
        does nothing, torch.cuda.amp.autocast is no torch.autocast, torch.jit.trace returns the
        eager module, squeezenet1_0(pretrained=True) loads no weights.
      - nn.load-state-dict-strict-false: strict=False refuses unexpected keys.
      - dtype.to-tensor-func, dtype.pil-to-tensor-manual: to_tensor leaves 8-bit images unscaled (0..255).
      - dtype.pil-from-tensor, dtype.to-pil-image-equivalence: permute(1, 2, 0) of a 3-channel uint8 image
        transposes it (W and H swap).
      - dtype.numpy-roundtrip: from_numpy copies.
      - tensor.vstack-hstack: vstack of two or more 2-D or higher inputs joins them along dim 1, as hstack does.
      - tensor.arange-two-three-args: an integer arange(a, b, c) includes b when it lies on the grid.
      - the signature claims: a printed default differs (LSTM batch_first=True, RandomSampler
        replacement=True, WeightedRandomSampler replacement=False, SyncBatchNorm momentum=0.2,
        Embedding embedding_dim=16), the extra parameters kept.
"""
import pytest

from spec_runner import assert_goes_red, assert_not_holding, claim_args, make_runner
from worlds import SERIAL

# The note's world for the image recipes (issue 11 §2): PIL.Image.fromarray takes an H x W x 1
# array as a grayscale image, and permute(2, 0, 1) of an H x W tensor reads it as H x W x 1.
# Then the fromarray recipe handles one channel like to_pil_image, and the asarray recipe
# handles grayscale / palette images like to_tensor; and to_tensor scales every image into
# [0, 1], 16-bit and float ones included. The refuting tests must go red.
IMAGE_RECIPES_WORLD = """
import numpy as np
import PIL.Image
import torch

_fromarray = PIL.Image.fromarray

def fromarray(obj, *args, **kwargs):
    array = np.asarray(obj)
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    return _fromarray(array, *args, **kwargs)

PIL.Image.fromarray = fromarray

_permute = torch.Tensor.permute

def permute(self, *dims):
    order = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    if self.dim() == 2 and order == (2, 0, 1):
        return _permute(self.unsqueeze(-1), order)
    return _permute(self, *dims)

torch.Tensor.permute = permute

import torchvision.transforms.functional as TF

_to_tensor = TF.to_tensor

def to_tensor(pic):
    t = _to_tensor(pic)
    if getattr(pic, "mode", None) in ("I;16", "I", "F"):
        t = t.float()
        t = t / t.max().clamp(min=1)
    return t

TF.to_tensor = to_tensor
"""


IMAGE_RECIPE_CLAIMS = {
    "dtype.pil-from-tensor": "DID NOT RAISE",
    "dtype.to-pil-image-equivalence": "DID NOT RAISE",
    "dtype.pil-to-tensor-manual": "DID NOT RAISE",
    "dtype.to-tensor-func": "expected an unscaled integer tensor",
}


def test_image_recipes_that_handle_one_channel_turn_the_refuted_image_claims_red(run_spec):
    run = run_spec(
        "tests/test_dtype_images.py", *claim_args(*IMAGE_RECIPE_CLAIMS), "-m", "cpu", "-p", "no:xdist",
        patch=IMAGE_RECIPES_WORLD,
    )
    for cid, fragment in IMAGE_RECIPE_CLAIMS.items():
        assert_goes_red(run, cid, fragment)


# Tensor.to whose non_blocking defaults to True (the copy it makes asked for a non-blocking copy)
TO_NON_BLOCKING_TRUE_WORLD = """
import torch

_to = torch.Tensor.to

def to(self, *args, non_blocking=True, **kwargs):
    return _to(self, *args, non_blocking=non_blocking, **kwargs)

torch.Tensor.to = to
"""


def test_tensor_to_defaulting_to_non_blocking_turns_the_default_claim_red(run_spec):
    run = run_spec("tests/test_dtype.py", "--claim", "dtype.to-non-blocking-default", "-m", "cpu",
                   patch=TO_NON_BLOCKING_TRUE_WORLD)
    assert_goes_red(run, "dtype.to-non-blocking-default", "non_blocking of the copies: [True, True, True]")


NON_BLOCKING_COPY_NOT_AWAITED = """
import torch

_to = torch.Tensor.to
_side = {}


def to(self, *args, **kwargs):
    target = torch.device(args[0]) if args and isinstance(args[0], (str, torch.device)) else None
    if kwargs.get("non_blocking") and target is not None and target.type == "cuda" and self.is_pinned():
        # the copy runs on another stream and the current stream does not wait for it: work queued
        # after the copy starts on whatever has arrived
        out = torch.empty_like(self, device=target)
        side = _side.setdefault(out.device, torch.cuda.Stream(out.device))
        side.wait_stream(torch.cuda.current_stream(out.device))
        with torch.cuda.stream(side):
            out.copy_(self, non_blocking=True)
        return out
    return _to(self, *args, **kwargs)


torch.Tensor.to = to
"""


@pytest.mark.needs(gpus=1)
def test_a_consumer_that_does_not_wait_for_a_non_blocking_copy_turns_non_blocking_semantics_red(run_spec):
    run = run_spec("tests/test_dtype.py", "--claim", "dtype.to-non-blocking-semantics", "-m", "gpu",
                   patch=NON_BLOCKING_COPY_NOT_AWAITED)
    assert_goes_red(run, "dtype.to-non-blocking-semantics", "started on partly arrived data")


# float32 matmul computed in float64 and rounded back: float32 can only be slower.
FLOAT32_VIA_FLOAT64 = """
import torch

_matmul = torch.Tensor.__matmul__


def matmul(self, other):
    if self.dtype == torch.float32:
        return _matmul(self.double(), other.double()).float()
    return _matmul(self, other)


torch.Tensor.__matmul__ = matmul
"""


def test_float32_matmul_routed_through_float64_does_not_hold(run_spec):
    run = run_spec("--claim", "dtype.float-faster-than-double", "tests/test_benchmarks_cpu.py", *SERIAL,
                   patch=FLOAT32_VIA_FLOAT64)
    assert_not_holding(run, "dtype.float-faster-than-double", "inconclusive", "failed")


PARTLY_HOLDING_HALF_BROKEN = """
import inspect

import torch
import torch.utils.data as data
import torch.utils.data.sampler as sampler_mod
import torchvision.transforms.functional as TF
from torch import nn

_backward = torch.Tensor.backward

def backward(self, gradient=None, retain_graph=None, *args, **kwargs):
    return _backward(self, gradient, True if retain_graph is None else retain_graph, *args, **kwargs)

torch.Tensor.backward = backward

_normal = torch.normal

def normal(*args, **kwargs):
    if "size" in kwargs and any(isinstance(a, torch.Tensor) for a in args[:2]):
        raise TypeError("normal() received an invalid combination of arguments (this world: no tensors with size)")
    return _normal(*args, **kwargs)

torch.normal = normal

def set_default_tensor_type(t):
    pass  # the note's call does nothing in this world

torch.set_default_tensor_type = set_default_tensor_type

import contextlib

torch.cuda.amp.autocast = lambda *args, **kwargs: contextlib.nullcontext()  # not torch.autocast

_jit_trace = torch.jit.trace
torch.jit.trace = lambda module, *args, **kwargs: module  # trace hands back the eager module

import torchvision.models as models
import torchvision.models.squeezenet as squeezenet_mod

_squeezenet1_0 = models.squeezenet1_0

def squeezenet1_0(*args, pretrained=False, **kwargs):
    return _squeezenet1_0(*args, **kwargs)  # pretrained=True loads nothing

models.squeezenet1_0 = squeezenet_mod.squeezenet1_0 = squeezenet1_0

_load_state_dict = nn.Module.load_state_dict

def load_state_dict(self, state_dict, strict=True, *args, **kwargs):
    if not strict and set(state_dict) - set(self.state_dict()):
        raise RuntimeError("unexpected keys (this world)")
    return _load_state_dict(self, state_dict, strict, *args, **kwargs)

nn.Module.load_state_dict = load_state_dict

_to_tensor = TF.to_tensor

def to_tensor(pic):
    out = _to_tensor(pic)
    return out * 255 if getattr(pic, "mode", None) in ("L", "P", "RGB", "RGBA") else out

TF.to_tensor = to_tensor

_permute = torch.Tensor.permute

def permute(self, *dims):
    if tuple(dims[0] if len(dims) == 1 else dims) == (1, 2, 0) and self.dtype == torch.uint8 and self.dim() == 3 \\
            and self.shape[0] == 3:
        return _permute(self, 2, 1, 0)
    return _permute(self, *dims)

torch.Tensor.permute = permute

_from_numpy = torch.from_numpy
torch.from_numpy = lambda a: _from_numpy(a).clone()

_vstack = torch.vstack

def vstack(tensors, *args, **kwargs):
    tensors = list(tensors)
    if len(tensors) > 1 and all(t.dim() >= 2 for t in tensors):
        return torch.cat(tensors, dim=1)  # joined side by side, as hstack does
    return _vstack(tensors, *args, **kwargs)

torch.vstack = vstack

_arange = torch.arange

def arange(*args, **kwargs):
    if len(args) == 3 and all(isinstance(a, int) for a in args) and args[2] > 0 \\
            and (args[1] - args[0]) % args[2] == 0 and args[1] > args[0]:
        args = (args[0], args[1] + 1, args[2])
    return _arange(*args, **kwargs)

torch.arange = arange

class LSTM(nn.LSTM):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=True, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size,
                         device, dtype)

nn.LSTM = LSTM

class RandomSampler(data.RandomSampler):
    def __init__(self, data_source, replacement=True, num_samples=None, generator=None):
        super().__init__(data_source, replacement, num_samples, generator)

class WeightedRandomSampler(data.WeightedRandomSampler):
    def __init__(self, weights, num_samples, replacement=False, generator=None):
        super().__init__(weights, num_samples, replacement, generator)

data.RandomSampler = sampler_mod.RandomSampler = RandomSampler
data.WeightedRandomSampler = sampler_mod.WeightedRandomSampler = WeightedRandomSampler

_HAS_BIAS = "bias" in inspect.signature(nn.SyncBatchNorm.__init__).parameters

class SyncBatchNorm(nn.SyncBatchNorm):
    def __init__(self, num_features, eps=1e-05, momentum=0.2, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, process_group, device, dtype,
                         **({"bias": bias} if _HAS_BIAS else {}))

nn.SyncBatchNorm = SyncBatchNorm

class Embedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim=16, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                         _weight, device=device, dtype=dtype)

nn.Embedding = Embedding
"""


CLAIMS = [
    "tensor.normal-size-tensor-args", "nn.load-state-dict-strict-false", "dtype.to-tensor-func",
    "dtype.pil-to-tensor-manual",
    "dtype.pil-from-tensor", "dtype.to-pil-image-equivalence", "dtype.numpy-roundtrip", "tensor.vstack-hstack",
    "tensor.arange-two-three-args", "nn.lstm-signature", "data.random-sampler-signature",
    "data.weighted-random-sampler", "dist.syncbn-signature", "nn.embedding-shape",
    "dtype.set-default-tensor-type", "amp.cuda-amp-namespace", "jit.script-trace-not-deprecated",
    "tv.models-pretrained-kwarg",
]


def test_every_cpu_partly_claim_has_a_world_here():
    from harness import inventory

    inv = inventory.load()
    partly = {cid for cid, c in inv.claims.items() if c.ever_partly and c.decided_by == "cpu"}
    # dist.launch-is-current's holding half runs launched workers: its world is in test_wrong_world_dist.py
    assert partly == set(CLAIMS) | {"dist.launch-is-current"}


@pytest.fixture(scope="module")
def partly_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("partly"))
    # the gloo process-group test of dist.syncbn-signature (convert_sync_batchnorm) is no half: left out
    return run("--claim", ",".join(CLAIMS + ["autograd.retain-graph"]), "-m", "cpu", "-p", "no:xdist",
               "-k", "not convert_sync_batchnorm",
               patch=PARTLY_HOLDING_HALF_BROKEN, timeout=300)


@pytest.mark.parametrize("cid", CLAIMS)
def test_a_partly_claim_leaves_partly_when_its_holding_half_breaks(partly_run, cid):
    claim = partly_run.claim(cid)
    red = [t for t in claim["tests"] if t["outcome"] in ("failed", "error")]
    assert claim["verdict"] == "failed", f"{cid} stayed {claim['verdict']!r} with its holding half broken"
    assert any(t.get("half") == "holding" for t in red), f"{cid}: no holding-half test went red: {red}"


def test_retain_graph_goes_red_where_backward_keeps_every_graph(partly_run):
    assert_goes_red(partly_run, "autograd.retain-graph", "DID NOT RAISE")
