"""Wrong-world checks for tensor and dtype claims: in a torch patched so that the claim's
stated behaviour differs, the claim's tests must go red, for the reason their assertions give.

Patches whose tests do not touch each other's functions share one spec run.
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
