"""Shape manipulation: flatten, None-indexing, unsqueeze/squeeze, reshape, permute,
cat/stack, vstack/hstack, growing an empty tensor.

Notes: 000_03e1e7bc9bbd04f1.txt › 1. 常用库函数 (torch.flatten);
002_d3afcdbaa9416717.txt › 张量拼接 (cat vs stack);
003_df07c2a5da61a567.txt › 3 tensor 数据类型 (`Tensor[:, ..., None]`, unsqueeze, squeeze,
reshape, permute/transpose, vstack/hstack, `torch.tensor([]).reshape(...)`).

Shapes are drawn by hypothesis, with size-0 and size-1 axes and negative dims included.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from fixtures.strategies import SPACE, dim_of, new_dim_of, shapes
from fixtures.tensors import assert_same


def numbered(shape, dtype=torch.float32):
    """A tensor whose entries are 0, 1, 2, ... in row-major order: every value says where it came from."""
    return torch.arange(math.prod(shape), dtype=dtype).reshape(shape)


# -- flatten ---------------------------------------------------------------------------


@pytest.mark.claim("tensor.flatten-range")
@SPACE
@given(shape=shapes(max_dims=5), data=st.data())
def test_flatten_merges_start_dim_through_end_dim_inclusive(shape, data):
    t = numbered(shape)
    ndim = max(len(shape), 1)  # a 0-d tensor flattens like a 1-d one
    start = data.draw(dim_of(ndim), label="start_dim")
    end = data.draw(dim_of(ndim), label="end_dim")
    s, e = start % ndim, end % ndim
    if s > e:
        with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
            torch.flatten(t, start, end)
        return
    full = shape or (1,)
    expected_shape = full[:s] + (math.prod(full[s : e + 1]),) + full[e + 1 :]
    out = torch.flatten(t, start_dim=start, end_dim=end)
    # same elements in the same (row-major) order, only the axes s..e merged
    assert_same(out, t.reshape(expected_shape), f"flatten({shape}, {start}, {end})")


@pytest.mark.claim("tensor.flatten-range")
@SPACE
@given(shape=shapes(max_dims=5))
def test_flatten_with_defaults_is_one_dimensional(shape):
    t = numbered(shape)
    out = torch.flatten(t)
    assert_same(out, torch.arange(t.numel(), dtype=t.dtype), f"flatten({shape})")
    assert torch.equal(t.flatten(), out), "Tensor.flatten and torch.flatten disagree"


# -- cat and stack ---------------------------------------------------------------------


@pytest.mark.claim("tensor.cat-vs-stack")
def test_note_example_three_10x5_tensors():
    parts = [torch.randn(10, 5) for _ in range(3)]
    assert torch.cat(parts, dim=0).shape == (30, 5)
    assert torch.stack(parts, dim=0).shape == (3, 10, 5)


@pytest.mark.claim("tensor.cat-vs-stack")
@SPACE
@given(shape=shapes(min_dims=1), k=st.integers(1, 4), data=st.data())
def test_cat_grows_an_existing_axis_while_stack_adds_a_new_one(shape, k, data):
    parts = [numbered(shape) + 100 * i for i in range(k)]
    d = data.draw(dim_of(len(shape)), label="cat dim")
    pos = d % len(shape)
    cat = torch.cat(parts, dim=d)
    assert cat.shape == shape[:pos] + (k * shape[pos],) + shape[pos + 1 :], f"cat(dim={d}) gave {tuple(cat.shape)}"
    for i, p in enumerate(parts):
        assert torch.equal(cat.narrow(pos, i * shape[pos], shape[pos]), p)

    s = data.draw(new_dim_of(len(shape)), label="stack dim")
    spos = s if s >= 0 else s + len(shape) + 1
    stacked = torch.stack(parts, dim=s)
    assert stacked.shape == shape[:spos] + (k,) + shape[spos:], f"stack(dim={s}) gave {tuple(stacked.shape)}"
    for i, p in enumerate(parts):
        assert torch.equal(stacked.select(spos, i), p)


# -- None indexing and unsqueeze -------------------------------------------------------


@pytest.mark.claim("tensor.none-index")
@SPACE
@given(shape=shapes(), data=st.data())
def test_none_after_n_colons_inserts_a_size_1_axis_at_n(shape, data):
    t = numbered(shape)
    n = data.draw(st.integers(0, len(shape)), label="n")
    out = t[(slice(None),) * n + (None,)]
    assert out.shape == shape[:n] + (1,) + shape[n:], f"t[{':, ' * n}None] on {shape} gave {tuple(out.shape)}"
    assert torch.equal(out.reshape(shape), t)
    # several None entries insert several axes
    twice = t[(slice(None),) * n + (None, None)]
    assert twice.shape == shape[:n] + (1, 1) + shape[n:]


@pytest.mark.claim("tensor.none-index")
def test_a_literal_ellipsis_before_none_puts_the_new_axis_last():
    # the note's "..." stands for more ':' entries; typed as Python's Ellipsis it means
    # "all remaining axes", so None lands at the end whatever comes before it
    t = numbered((2, 3, 4))
    assert t[:, ..., None].shape == (2, 3, 4, 1)
    assert t[:, None].shape == (2, 1, 3, 4)


@pytest.mark.claim("tensor.unsqueeze-equiv")
@SPACE
@given(shape=shapes(), data=st.data())
def test_unsqueeze_equals_indexing_with_colons_then_none(shape, data):
    t = numbered(shape)
    d = data.draw(new_dim_of(len(shape)), label="dim")
    pos = d if d >= 0 else d + len(shape) + 1
    out = t.unsqueeze(d)
    assert out.shape == shape[:pos] + (1,) + shape[pos:], f"unsqueeze({d}) on {shape} gave {tuple(out.shape)}"
    assert_same(out, t[(slice(None),) * pos + (None,)], f"unsqueeze({d}) vs indexing")
    assert out.data_ptr() == t.data_ptr(), "unsqueeze should return a view"


@pytest.mark.claim("tensor.unsqueeze-equiv")
@pytest.mark.parametrize("d", [-4, 3], ids=lambda d: f"dim={d}")
def test_unsqueeze_rejects_dims_outside_minus_ndim_minus_1_to_ndim(d):
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.zeros(2, 3).unsqueeze(d)


# -- squeeze ---------------------------------------------------------------------------


@pytest.mark.claim("tensor.squeeze-dim", decides="holds")
@SPACE
@given(shape=shapes(min_dims=1, max_side=2), data=st.data())
def test_squeeze_dim_removes_that_axis_only_when_its_size_is_1(shape, data):
    t = numbered(shape)
    d = data.draw(dim_of(len(shape)), label="dim")
    out = t.squeeze(d)
    pos = d % len(shape)
    expected = shape[:pos] + shape[pos + 1 :] if shape[pos] == 1 else shape
    assert out.shape == expected, f"squeeze({d}) on {shape} gave {tuple(out.shape)}, expected {expected}"
    assert torch.equal(out.reshape(shape), t)


@pytest.mark.claim("tensor.squeeze-dim", decides="holds")
@SPACE
@given(shape=shapes(max_side=2))
def test_squeeze_without_dim_removes_every_size_1_axis(shape):
    out = numbered(shape).squeeze()
    assert out.shape == tuple(n for n in shape if n != 1), f"squeeze() on {shape} gave {tuple(out.shape)}"


@pytest.mark.claim("tensor.squeeze-dim", decides="holds")
def test_squeeze_with_dim_left_at_its_default_none_removes_every_size_1_axis():
    # Notation (rule 1): the note's "dim is None" is the parameter's default, the call squeeze();
    # an explicit squeeze(None) is a spelling the note does not write (it raises: see tensor.toml)
    t = torch.zeros(1, 2, 1, 3, 1)
    assert t.squeeze().shape == (2, 3), f"Tensor.squeeze() gave {tuple(t.squeeze().shape)}"
    assert torch.squeeze(t).shape == (2, 3), f"torch.squeeze(t) gave {tuple(torch.squeeze(t).shape)}"
    assert torch.equal(t.squeeze(), t.reshape(2, 3))


# -- reshape ---------------------------------------------------------------------------


@pytest.mark.claim("tensor.reshape-numel")
@SPACE
@given(shape=shapes(max_dims=4, max_side=4), data=st.data())
def test_reshape_to_any_shape_with_the_same_numel_keeps_row_major_order(shape, data):
    t = numbered(shape)
    # the same multiset of sizes, shuffled, with some extra 1s: always the same numel
    target = data.draw(st.permutations(list(shape) + [1] * data.draw(st.integers(0, 2))), label="target")
    out = t.reshape(target)
    assert_same(out.flatten(), t.flatten(), f"reshape {shape} -> {tuple(target)}")
    assert out.shape == tuple(target)


@pytest.mark.claim("tensor.reshape-numel")
@SPACE
@given(shape=shapes(min_dims=1, max_side=4), target=shapes(min_dims=1, max_side=4))
def test_reshape_to_a_different_numel_is_refused(shape, target):
    if math.prod(shape) == math.prod(target):
        return
    with pytest.raises(RuntimeError, match=rf"shape '\[{', '.join(map(str, target))}\]' is invalid for input of size"):
        numbered(shape).reshape(target)


@pytest.mark.claim("tensor.reshape-numel")
def test_reshape_minus_one_is_inferred_only_when_it_divides_evenly():
    t = numbered((2, 3))
    assert t.reshape(-1, 2).shape == (3, 2)
    with pytest.raises(RuntimeError, match=r"shape '\[-1, 4\]' is invalid for input of size 6"):
        t.reshape(-1, 4)


# -- permute and transpose --------------------------------------------------------------


@pytest.mark.claim("tensor.permute-transpose")
@SPACE
@given(shape=shapes(min_dims=1, max_dims=4), data=st.data())
def test_permute_reorders_all_axes_like_numpy_transpose(shape, data):
    t = numbered(shape)
    order = data.draw(st.permutations(range(len(shape))), label="order")
    # negative entries name the same axes counted from the end
    order = [o - len(shape) if data.draw(st.booleans(), label="negative") else o for o in order]
    out = t.permute(*order)
    np.testing.assert_array_equal(out.numpy(), np.transpose(t.numpy(), order))
    assert out.data_ptr() == t.data_ptr(), "permute should return a view"


@pytest.mark.claim("tensor.permute-transpose")
@SPACE
@given(shape=shapes(min_dims=1, max_dims=4), data=st.data())
def test_transpose_swaps_exactly_two_axes(shape, data):
    t = numbered(shape)
    d0 = data.draw(dim_of(len(shape)), label="dim0")
    d1 = data.draw(dim_of(len(shape)), label="dim1")
    order = list(range(len(shape)))
    order[d0 % len(shape)], order[d1 % len(shape)] = order[d1 % len(shape)], order[d0 % len(shape)]
    assert_same(t.transpose(d0, d1), t.permute(*order), f"transpose({d0}, {d1}) on {shape}")


@pytest.mark.claim("tensor.permute-transpose")
def test_permute_needs_every_axis_exactly_once():
    t = torch.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="number of dim"):
        t.permute(1, 0)
    with pytest.raises(RuntimeError, match="duplicate dims|repeated dim"):
        t.permute(0, 0, 1)


# -- vstack and hstack -----------------------------------------------------------------


@pytest.mark.claim("tensor.vstack-hstack", half="holding")
@SPACE
@given(rest=shapes(min_dims=1, max_dims=3), sizes=st.lists(st.integers(0, 3), min_size=1, max_size=3))
def test_vstack_and_hstack_join_2d_and_higher_inputs_along_dims_0_and_1(rest, sizes):
    rows = [numbered((n,) + rest) for n in sizes]
    assert_same(torch.vstack(rows), torch.cat(rows, dim=0), "vstack")
    cols = [numbered(rest[:1] + (n,) + rest[1:]) for n in sizes]
    assert_same(torch.hstack(cols), torch.cat(cols, dim=1), "hstack")


@pytest.mark.claim("tensor.vstack-hstack", half="holding")
def test_vstack_and_hstack_refuse_a_mismatch_outside_their_axis():
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        torch.vstack([torch.zeros(2, 3), torch.zeros(2, 4)])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 1"):
        torch.hstack([torch.zeros(2, 3), torch.zeros(3, 3)])


@pytest.mark.claim("tensor.vstack-hstack", half="failing")
def test_one_dimensional_inputs_vstack_into_rows_and_hstack_along_dim_0():
    a, b = torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6])
    # vstack first makes each 1-d input a 1×n row: a new axis, not cat along dim 0
    assert_same(torch.vstack([a, b]), torch.tensor([[1, 2, 3], [4, 5, 6]]), "vstack of 1-d")
    # hstack of 1-d inputs has no dim 1: it joins them end to end along dim 0
    assert_same(torch.hstack([a, b[:2]]), torch.tensor([1, 2, 3, 4, 5]), "hstack of 1-d")


# -- growing an empty tensor -----------------------------------------------------------


@pytest.mark.claim("tensor.empty-reshape-accumulate")
@pytest.mark.parametrize("k", [1, 3])
def test_empty_tensor_reshaped_to_0_by_k_accumulates_rows(k):
    acc = torch.tensor([]).reshape((0, k))
    assert acc.shape == (0, k) and acc.dtype == torch.get_default_dtype()
    rows = [torch.full((1, k), float(i)) for i in range(4)]
    for row in rows:
        acc = torch.cat([acc, row], dim=0)
    assert_same(acc, torch.cat(rows, dim=0), "rows accumulated in a loop")
