"""einops.rearrange on torch tensors, against the equivalent permute/reshape.

Notes: 000_03e1e7bc9bbd04f1.txt › 1.2 einops.rearrange (rearrange(element, pattern): a pattern
string drives the tensor transformation; the note names no concrete pattern, so the usual
deep-learning ones are checked here).

Run with einops installed: `tox -e lib` (requirements-lib-einops.txt).
"""
import importlib
import inspect

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from fixtures import signatures
from fixtures.tensors import assert_same

pytestmark = pytest.mark.needs(libs=["einops"])

dims = st.integers(min_value=0, max_value=4)  # size-0 and size-1 axes included
small = st.integers(min_value=1, max_value=3)


# the note's printed signature (a signature claim, fixtures/signatures.py)
NOTE_REARRANGE = [("element", signatures.EMPTY), ("pattern", signatures.EMPTY)]
SIGNATURES = {"lib.einops-rearrange": (
    lambda: signatures.signature_parameters(importlib.import_module("einops").rearrange), NOTE_REARRANGE)}


@pytest.mark.claim("lib.einops-rearrange", decides="wrong")
def test_rearrange_signature_is_tensor_pattern_and_axis_sizes_not_element_pattern():
    import einops

    params = [(p.name, p.kind.name, p.default) for p in inspect.signature(einops.rearrange).parameters.values()]
    empty = inspect.Parameter.empty
    assert params == [
        ("tensor", "POSITIONAL_OR_KEYWORD", empty),
        ("pattern", "POSITIONAL_OR_KEYWORD", empty),
        ("axes_lengths", "VAR_KEYWORD", empty),
    ], f"rearrange{params}"
    wrong, _ = signatures.compare(signatures.signature_parameters(einops.rearrange), NOTE_REARRANGE)
    assert wrong == [(("element", empty), ("tensor", empty))], f"printed vs installed: {wrong}"
    with pytest.raises(TypeError):  # the note's parameter name is not accepted
        einops.rearrange(element=torch.zeros(2, 3), pattern="a b -> b a")


@pytest.mark.claim("lib.einops-rearrange")
@given(b=dims, c=dims, h=dims, w=dims)
def test_rearrange_axis_order_is_permute(b, c, h, w):
    import einops

    x = torch.randn(b, c, h, w)
    assert_same(einops.rearrange(x, "b c h w -> b h w c"), x.permute(0, 2, 3, 1), "'b c h w -> b h w c'")
    assert_same(einops.rearrange(x, "b c h w -> w h c b"), x.permute(3, 2, 1, 0), "'b c h w -> w h c b'")


@pytest.mark.claim("lib.einops-rearrange")
@given(b=dims, c=dims, h=dims, w=dims)
def test_rearrange_grouping_on_the_right_is_flatten_in_that_order(b, c, h, w):
    import einops

    x = torch.randn(b, c, h, w)
    assert_same(einops.rearrange(x, "b c h w -> b (c h w)"), x.reshape(b, c * h * w), "'b c h w -> b (c h w)'")
    assert_same(
        einops.rearrange(x, "b c h w -> b (h w c)"),
        x.permute(0, 2, 3, 1).reshape(b, h * w * c),
        "'b c h w -> b (h w c)'",
    )


@pytest.mark.claim("lib.einops-rearrange")
@given(b=dims, h=small, w=small, p1=small, p2=small, c=small)
def test_rearrange_decomposition_on_the_left_splits_axes_row_major(b, h, w, p1, p2, c):
    """The ViT patch pattern: '(h p1)' is an axis of size h*p1 with h the outer factor."""
    import einops

    x = torch.randn(b, h * p1, w * p2, c)
    pattern = "b (h p1) (w p2) c -> b (h w) (p1 p2 c)"
    expected = x.reshape(b, h, p1, w, p2, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h * w, p1 * p2 * c)
    assert_same(einops.rearrange(x, pattern, p1=p1, p2=p2), expected, repr(pattern))
    back = "b (h w) (p1 p2 c) -> b (h p1) (w p2) c"
    assert_same(einops.rearrange(expected, back, h=h, p1=p1, p2=p2), x, f"{back!r} (inverse)")


@pytest.mark.claim("lib.einops-rearrange")
def test_rearrange_keeps_dtype_device_and_gradient():
    import einops

    x = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4).requires_grad_()
    y = einops.rearrange(x, "a b c -> c (a b)")
    assert y.dtype == torch.float64 and y.device == x.device
    (y * torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape)).sum().backward()
    expected = torch.arange(24, dtype=torch.float64).reshape(4, 2, 3).permute(1, 2, 0)
    assert torch.equal(x.grad, expected), "gradient must flow back through the same permutation"


@pytest.mark.claim("lib.einops-rearrange")
@pytest.mark.parametrize(
    "shape, pattern, sizes, fragment",
    [
        pytest.param((2, 3, 4), "b c h w -> b h w c", {}, "Wrong shape", id="pattern-rank-4-tensor-rank-3"),
        pytest.param((2, 6), "b (c k) -> b c k", {"k": 4}, "Shape mismatch", id="group-not-divisible"),
        pytest.param((2, 6), "b (c k) -> b c k", {}, "Could not infer sizes", id="two-unknowns-in-a-group"),
        pytest.param((2, 3), "b c -> b", {}, "Identifiers only on one side", id="axis-dropped"),
    ],
)
def test_rearrange_rejects_patterns_that_do_not_fit(shape, pattern, sizes, fragment):
    import einops

    with pytest.raises(einops.EinopsError, match=fragment):
        einops.rearrange(torch.zeros(shape), pattern, **sizes)
