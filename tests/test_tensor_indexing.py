"""Indexing: negative steps and flipping, scatter one-hot, nonzero, masked_fill, list+None.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 张量基本操作 (negative step, horizontal flip);
002_d3afcdbaa9416717.txt › 将整数转换为one-hot, › 得到非零/零元素;
003_df07c2a5da61a567.txt › 3 tensor 数据类型 (`Tensor.nonzero()`, `masked_fill`);
004_79576bb56bce5aea.txt › 杂录 (`x[[0, 2], None]`).
"""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from fixtures.boundaries import NON_BOOL_MASKS_REJECTED
from fixtures.strategies import SPACE, shapes

# The note's lines, as written.
NOTE_FLIP = "tensor = tensor[:,:,:,torch.arange(tensor.size(3) - 1, -1, -1).long()]"
NOTE_ONE_HOT = """
N = tensor.size(0)
one_hot = torch.zeros(N, num_classes).long()
one_hot.scatter_(dim=1, index=torch.unsqueeze(tensor, dim=1), src=torch.ones(N, num_classes).long())
"""
NOTE_NONZERO_SIZES = "counts = (torch.nonzero(tensor).size(), torch.nonzero(tensor==0).size())"
NOTE_LIST_NONE = """
x = torch.tensor([1, 2, 3])
y = x[[0, 2], None]
"""


def run_note(code, **names):
    namespace = {"torch": torch, **names}
    exec(compile(code, "<note>", "exec"), namespace)
    return namespace


def sparse_ints(shape, seed=0):
    """Values in {0, 1, 2}: about a third of the entries are zero."""
    return torch.randint(0, 3, shape, generator=torch.Generator().manual_seed(seed))


# -- negative steps and flipping -----------------------------------------------------


@pytest.mark.claim("tensor.negative-step-unsupported")
@pytest.mark.parametrize("index", [slice(None, None, -1), slice(3, 0, -2)], ids=["[::-1]", "[3:0:-2]"])
def test_slicing_with_a_negative_step_raises(index):
    t = torch.arange(5)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[index]
    # numpy, by contrast, accepts it
    assert len(np.arange(5)[index]) > 0


@pytest.mark.claim("tensor.flip-via-index")
@SPACE
@given(shape=st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 3), st.integers(0, 4)))
def test_note_reverse_arange_index_flips_the_width_axis(shape):
    original = torch.arange(math.prod(shape)).reshape(shape)
    flipped = run_note(NOTE_FLIP, tensor=original)["tensor"]
    assert flipped.shape == shape
    assert torch.equal(flipped, torch.flip(original, [3])), f"index-flip differs from torch.flip on {shape}"
    np.testing.assert_array_equal(flipped.numpy(), original.numpy()[..., ::-1])


# -- one-hot by scatter --------------------------------------------------------------


@pytest.mark.claim("tensor.one-hot-scatter")
@SPACE
@given(num_classes=st.integers(1, 5), data=st.data())
def test_note_scatter_recipe_builds_the_one_hot_matrix(num_classes, data):
    labels = data.draw(st.lists(st.integers(0, num_classes - 1), max_size=6), label="labels")
    tensor = torch.tensor(labels, dtype=torch.long)
    one_hot = run_note(NOTE_ONE_HOT, tensor=tensor, num_classes=num_classes)["one_hot"]
    expected = torch.tensor([[int(c == y) for c in range(num_classes)] for y in labels], dtype=torch.long)
    assert torch.equal(one_hot, expected.reshape(len(labels), num_classes)), f"labels {labels}"
    assert torch.equal(one_hot, F.one_hot(tensor, num_classes))


# -- nonzero -------------------------------------------------------------------------


@pytest.mark.claim("tensor.nonzero-indices")
@SPACE
@given(shape=shapes(min_dims=1))
def test_nonzero_lists_the_indices_of_nonzero_and_of_zero_elements(shape):
    t = sparse_ints(shape)
    np.testing.assert_array_equal(torch.nonzero(t).numpy().reshape(-1, len(shape)), np.argwhere(t.numpy() != 0))
    np.testing.assert_array_equal(torch.nonzero(t == 0).numpy().reshape(-1, len(shape)), np.argwhere(t.numpy() == 0))


@pytest.mark.claim("tensor.nonzero-size-count", decides="wrong")
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2)], ids=str)
def test_note_nonzero_size_is_the_index_matrix_shape_not_a_count(shape):
    tensor = sparse_ints(shape)
    nonzero_size, zero_size = run_note(NOTE_NONZERO_SIZES, tensor=tensor)["counts"]
    n_nonzero = int((tensor != 0).sum())
    assert type(nonzero_size) is torch.Size, f"size() returned {type(nonzero_size).__name__}"
    assert nonzero_size == (n_nonzero, tensor.dim()), f"nonzero(t).size() = {nonzero_size}"
    assert zero_size == (tensor.numel() - n_nonzero, tensor.dim())
    # the count is the first entry
    assert torch.nonzero(tensor).size(0) == n_nonzero == int(torch.count_nonzero(tensor))


# -- masked_fill ---------------------------------------------------------------------


@pytest.mark.claim("tensor.masked-fill", decides="holds")
@SPACE
@given(shape=shapes(), data=st.data())
def test_masked_fill_writes_the_value_where_the_mask_is_true(shape, data):
    t = sparse_ints(shape).float()
    mask = sparse_ints(shape, seed=1) == 0
    # the mask may also have fewer axes: it broadcasts against t
    drop = data.draw(st.integers(0, len(shape)), label="mask axes dropped")
    mask = mask[(0,) * drop] if drop and math.prod(shape[:drop]) > 0 else mask
    before = t.clone()
    out = t.masked_fill(mask, -7.5)
    expected = np.where(np.broadcast_to(mask.numpy(), shape), -7.5, t.numpy())
    np.testing.assert_array_equal(out.numpy(), expected)
    assert torch.equal(t, before), "masked_fill (no underscore) must leave its input alone"


@pytest.mark.claim("tensor.masked-fill", decides="holds")  # runs from 2.1, where the claim holds
@pytest.mark.needs(min_torch=NON_BOOL_MASKS_REJECTED)
@pytest.mark.parametrize("mask_dtype", [torch.int64, torch.uint8, torch.float32], ids=str)
def test_masked_fill_refuses_a_non_bool_mask(mask_dtype):
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        torch.zeros(2, 2).masked_fill(torch.eye(2, dtype=mask_dtype), 1.0)


@pytest.mark.claim("tensor.masked-fill", decides="left-out")  # runs before 2.1, where the claim is partly
@pytest.mark.needs(max_torch=NON_BOOL_MASKS_REJECTED)
def test_masked_fill_took_non_bool_masks_before_2_1():
    t, eye = torch.zeros(2, 2), torch.eye(2)
    # an integer mask fills where it is non-zero, like the bool mask
    assert torch.equal(t.masked_fill(eye.long(), 1.0), eye)
    # a uint8 mask does the same, with a deprecation warning (made visible however often it fired)
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="mask with dtype torch.uint8, this behavior is now deprecated"):
            assert torch.equal(t.masked_fill(eye.byte(), 1.0), eye)
    finally:
        torch.set_warn_always(warn_always)
    # a float mask is accepted and silently fills nothing
    assert torch.equal(t.masked_fill(eye, 1.0), t)


@pytest.mark.claim("tensor.masked-fill", decides="holds")
def test_masked_fill_value_is_a_number_or_a_0_dim_tensor():
    t, mask = torch.zeros(2, 2), torch.eye(2, dtype=torch.bool)
    assert torch.equal(t.masked_fill(mask, torch.tensor(3.0)), 3 * torch.eye(2))
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        t.masked_fill(mask, torch.tensor([3.0]))


# -- a row of nonzero() as an index ----------------------------------------------------


@pytest.mark.claim("tensor.nonzero-index-rows", decides="wrong")
def test_a_nonzero_row_used_as_an_index_selects_along_dim_0():
    t = torch.tensor([[0, 1, 2], [3, 0, 0]])
    rows = t.nonzero()
    v = rows[0]  # tensor([0, 1]): the position of the 1
    picked = t[v]
    assert picked.shape == (2, 3), f"t[v] has shape {tuple(picked.shape)}: rows 0 and 1, not one element"
    assert torch.equal(picked, t[[0, 1]])
    # the element needs the row as a tuple of per-axis indices
    assert t[tuple(v)].item() == 1
    assert all(t[tuple(r)].item() != 0 for r in rows)
    assert torch.equal(t[t.nonzero(as_tuple=True)], torch.tensor([1, 2, 3]))


@pytest.mark.claim("tensor.nonzero-index-rows")
def test_for_a_1d_tensor_each_nonzero_row_does_pick_a_nonzero_element():
    t = torch.tensor([0, 5, 0, 7])
    picked = [t[v] for v in t.nonzero()]
    assert [p.shape for p in picked] == [(1,), (1,)]
    assert [p.item() for p in picked] == [5, 7]


# -- list index followed by None ---------------------------------------------------------


@pytest.mark.claim("tensor.index-list-none")
def test_note_list_index_then_none_is_a_column():
    ns = run_note(NOTE_LIST_NONE)
    x, y = ns["x"], ns["y"]
    assert y.shape == (2, 1), f"x[[0, 2], None] has shape {tuple(y.shape)}"
    assert torch.equal(y, torch.tensor([[1], [3]]))
    assert torch.equal(y, x[[0, 2]].view(-1, 1))
