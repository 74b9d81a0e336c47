"""Wrong-world checks for the tensor claims: in a torch patched so that the claim's stated behaviour
differs, the claim's tests must go red, for the reason their assertions give. Patches whose tests
do not touch each other's functions share one spec run.

    flatten with an exclusive end_dim, squeeze that ignores its dim, cat that stacks; with them
      F.one_hot whose default num_classes is max(t), and from_numpy that copies
                                                          -> tensor.flatten-range, tensor.squeeze-dim,
                                                             tensor.cat-vs-stack, dtype.one-hot-default,
                                                             dtype.from-numpy-copy, dtype.numpy-roundtrip red
    arange(a) that includes a, and set_default_tensor_type whose deprecation (PyTorch 2.1) is flipped
                                                          -> tensor.arange-one-arg, dtype.set-default-tensor-type red
    vstack that concatenates 1-d inputs along dim 0       -> tensor.vstack-hstack red
"""
from fixtures.versions import torch_at_least
from spec_runner import assert_goes_red, claim_args

# flatten with an exclusive end_dim; squeeze that ignores its dim; F.one_hot whose default
# num_classes is max(t) (the top class dropped); from_numpy that copies; cat that stacks.
SHAPE_AND_CONVERSION_WORLD = """
import torch
import torch.nn.functional as F

_flatten = torch.flatten

def flatten(input, start_dim=0, end_dim=-1):
    nd = max(input.dim(), 1)
    s, e = start_dim % nd, end_dim % nd
    return _flatten(input, s, e - 1 if s < e else e)

torch.flatten = flatten
torch.Tensor.flatten = flatten

_squeeze = torch.Tensor.squeeze
torch.Tensor.squeeze = lambda self, *args, **kwargs: _squeeze(self)

_one_hot = F.one_hot

def one_hot(tensor, num_classes=-1):
    if num_classes == -1:
        n = int(tensor.max())
        return _one_hot(tensor, n + 1)[..., :n]
    return _one_hot(tensor, num_classes)

F.one_hot = one_hot

torch.from_numpy = lambda array: torch.tensor(array)

torch.cat = lambda tensors, dim=0, **kwargs: torch.stack(tensors, dim)
"""


SHAPE_AND_CONVERSION_CLAIMS = {
    "tensor.flatten-range": "flatten(",
    "tensor.squeeze-dim": "squeeze(",
    "dtype.one-hot-default": "classes, max is",
    "dtype.from-numpy-copy": "does not share nd's memory",
    "dtype.numpy-roundtrip": "from_numpy(a) does not share a's memory",
    "tensor.cat-vs-stack": "cat(dim=",
}


# arange(a) that includes a; set_default_tensor_type whose deprecation (PyTorch 2.1) is
# flipped: silent where the real one warns, warning where the real one is silent.
ARANGE_AND_DEFAULT_TYPE_WORLD = """
import warnings

import torch

from fixtures.versions import torch_at_least

_arange = torch.arange

def arange(*args, **kwargs):
    if len(args) == 1 and isinstance(args[0], int):
        return _arange(args[0] + 1, **kwargs)
    return _arange(*args, **kwargs)

torch.arange = arange

def set_default_tensor_type(t):
    if not torch_at_least("2.1"):
        warnings.warn("torch.set_default_tensor_type() is deprecated, use torch.set_default_dtype()", UserWarning)
    torch.set_default_dtype(torch.float64 if "Double" in str(t) else torch.float32)

torch.set_default_tensor_type = set_default_tensor_type
"""


# vstack that concatenates 1-d inputs along dim 0 instead of making rows.
VSTACK_WORLD = """
import torch

torch.vstack = lambda tensors, **kwargs: torch.cat(tensors, 0)
"""


def test_shape_and_conversion_claims_go_red_in_a_world_that_breaks_them(run_spec):
    run = run_spec(*claim_args(*SHAPE_AND_CONVERSION_CLAIMS), "-m", "cpu", patch=SHAPE_AND_CONVERSION_WORLD)
    for cid, fragment in SHAPE_AND_CONVERSION_CLAIMS.items():
        assert_goes_red(run, cid, fragment)


def test_arange_including_its_end_and_a_silent_set_default_tensor_type_go_red(run_spec):
    run = run_spec(
        "--claim", "tensor.arange-one-arg", "--claim", "dtype.set-default-tensor-type", "-m", "cpu",
        patch=ARANGE_AND_DEFAULT_TYPE_WORLD,
    )
    assert_goes_red(run, "tensor.arange-one-arg", "a itself is excluded")
    expected = "no deprecation warning" if torch_at_least("2.1") else "deprecation warning before 2.1"
    assert_goes_red(run, "dtype.set-default-tensor-type", expected)


def test_vstack_that_concatenates_vectors_turns_vstack_hstack_red(run_spec):
    run = run_spec("--claim", "tensor.vstack-hstack", "-m", "cpu", patch=VSTACK_WORLD)
    assert_goes_red(run, "tensor.vstack-hstack", "vstack of 1-d")
