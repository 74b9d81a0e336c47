"""Comparison, matrix products, broadcasting, reductions, clamp.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 张量基本操作 (allclose/equal, mm, bmm, `*`,
matmul example); 002_d3afcdbaa9416717.txt › 判断两个张量是否相等, › 矩阵乘法,
› 计算两组数据两两欧氏距离, › 与PIL.Image转换 (torch.clamp);
003_df07c2a5da61a567.txt › 3 tensor 数据类型 (mm/bmm/matmul, broadcasting, sum, max).

Products are checked on small integer-valued float64 tensors, where every result is exact,
against numpy or an explicit loop. Shapes are drawn by hypothesis, size-0 axes included.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from fixtures.strategies import SPACE, dim_of, shapes
from fixtures.tensors import assert_same

# The note's pairwise-distance line as printed (with its ':.' typo).
NOTE_PAIRWISE_LINE = "dist = torch.sqrt(torch.sum((X1[:. None, :]-X2)))"

side = st.integers(0, 4)


def ints(shape, seed=0):
    """Small integer values as float64: sums and products of them are exact."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-5, 6, shape, generator=g).double()


# -- allclose vs equal ---------------------------------------------------------------


@pytest.mark.claim("tensor.allclose-vs-equal")
def test_float_results_need_a_tolerance_integers_an_exact_test():
    # the same real number reached two ways differs in the last bit
    x = torch.tensor([0.1], dtype=torch.float64) + torch.tensor([0.2], dtype=torch.float64)
    y = torch.tensor([0.3], dtype=torch.float64)
    assert not torch.equal(x, y), "0.1 + 0.2 == 0.3 exactly in float64?"
    assert torch.allclose(x, y)
    # for integers a relative tolerance hides real differences; equal does not
    big, next_one = torch.tensor([10**9]), torch.tensor([10**9 + 1])
    assert torch.allclose(big, next_one), "rtol=1e-5 of 1e9 should absorb a difference of 1"
    assert not torch.equal(big, next_one)
    assert torch.equal(big, big.clone())


# -- mm / bmm / mul / matmul ---------------------------------------------------------


@pytest.mark.claim("tensor.mm-shapes")
@SPACE
@given(m=side, n=side, p=side)
def test_mm_of_m_by_n_and_n_by_p_is_m_by_p(m, n, p):
    a, b = ints((m, n), 1), ints((n, p), 2)
    assert_same(torch.mm(a, b), a.numpy() @ b.numpy(), f"mm {m}x{n} @ {n}x{p}")


@pytest.mark.claim("tensor.mm-shapes")
def test_mm_refuses_mismatched_inner_sizes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x2\)"):
        torch.mm(torch.ones(2, 3), torch.ones(4, 2))


@pytest.mark.claim("tensor.bmm-shapes")
@pytest.mark.claim("tensor.bmm-leading-dims", decides="holds")  # one remaining (batch) dim, bmm's documented input
@SPACE
@given(b=side, m=side, n=side, p=side)
def test_bmm_multiplies_matching_batches(b, m, n, p):
    x, y = ints((b, m, n), 1), ints((b, n, p), 2)
    out = torch.bmm(x, y)
    assert out.shape == (b, m, p), f"bmm gave {tuple(out.shape)}, expected {(b, m, p)}"
    for i in range(b):
        assert torch.equal(out[i], torch.mm(x[i], y[i]))


@pytest.mark.claim("tensor.mul-elementwise")
@pytest.mark.claim("tensor.star-elementwise", decides="holds")
@SPACE
@given(shape=shapes())
def test_star_and_torch_mul_are_the_same_elementwise_product(shape):
    a, b = ints(shape, 1), ints(shape, 2)
    assert_same(a * b, a.numpy() * b.numpy(), f"a * b on {shape}")
    assert torch.equal(torch.mul(a, b), a * b)


@pytest.mark.claim("tensor.matmul-broadcast-example")
def test_note_matmul_example_gives_2_5_3_2_of_fours():
    c = torch.matmul(torch.ones(2, 1, 3, 4), torch.ones(5, 4, 2))
    assert c.shape == (2, 5, 3, 2), f"matmul shape {tuple(c.shape)}"
    assert torch.equal(c, torch.full((2, 5, 3, 2), 4.0)), "each entry sums 4 products of ones"


@pytest.mark.claim("tensor.matmul-general", decides="holds")
@SPACE
@given(batch=shapes(max_dims=3), m=side, n=side, p=side, data=st.data())
def test_matmul_of_2d_and_higher_multiplies_last_two_dims_and_broadcasts_the_rest(batch, m, n, p, data):
    # the second operand's batch dims: a suffix of the first's, some sizes replaced by 1
    keep = data.draw(st.integers(0, len(batch)), label="batch dims kept")
    other = tuple(1 if data.draw(st.booleans(), label="size 1") else s for s in batch[len(batch) - keep :])
    if data.draw(st.booleans(), label="swap"):
        batch, other = other, batch
    a, b = ints(batch + (m, n), 1), ints(other + (n, p), 2)
    out = torch.matmul(a, b)
    full = torch.broadcast_shapes(batch, other)
    assert out.shape == full + (m, p), f"matmul {tuple(a.shape)} @ {tuple(b.shape)} gave {tuple(out.shape)}"
    ae, be = a.expand(full + (m, n)), b.expand(full + (n, p))
    for idx in np.ndindex(*full):
        assert torch.equal(out[idx], torch.mm(ae[idx], be[idx]))


@pytest.mark.claim("tensor.matmul-general", decides="left-out")
def test_matmul_treats_1d_arguments_as_vectors_not_matrices():
    v, w, mat = ints((3,), 1), ints((3,), 2), ints((2, 3), 3)
    dot = torch.matmul(v, w)
    assert dot.shape == () and dot.item() == float(v @ w), "1-D @ 1-D is a dot product (0-dim)"
    assert torch.matmul(mat, v).shape == (2,), "matrix @ vector drops the vector's axis"
    assert torch.matmul(ints((4,), 4), ints((5, 4, 2), 5)).shape == (5, 2), "a 1 is prepended, then removed"
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        torch.matmul(torch.tensor(2.0), torch.ones(2))


@pytest.mark.claim("tensor.mm-vector", decides="wrong")
def test_mm_refuses_a_vector_and_mv_takes_it():
    mat, v = ints((2, 3), 1), ints((3,), 2)
    with pytest.raises(RuntimeError, match="mat2 must be a matrix"):
        torch.mm(mat, v)
    assert_same(torch.mv(mat, v), mat.numpy() @ v.numpy(), "mv")
    assert_same(torch.mm(mat, v[:, None])[:, 0], mat.numpy() @ v.numpy(), "mm with an n×1 column")


@pytest.mark.claim("tensor.bmm-leading-dims", decides="left-out")
def test_bmm_takes_exactly_one_batch_dim():
    a, b = ints((2, 2, 3, 4), 1), ints((2, 2, 4, 5), 2)
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        torch.bmm(a, b)
    # matmul is the one that handles several leading dims
    out = torch.matmul(a, b)
    assert_same(out, torch.bmm(a.reshape(4, 3, 4), b.reshape(4, 4, 5)).reshape(2, 2, 3, 5), "matmul 4-D")


# -- pairwise distances --------------------------------------------------------------


@pytest.mark.claim("tensor.pairwise-dist-snippet", decides="wrong")
def test_note_pairwise_distance_line_is_a_syntax_error():
    with pytest.raises(SyntaxError):
        compile(NOTE_PAIRWISE_LINE, "<note>", "exec")


@pytest.mark.claim("tensor.pairwise-dist-snippet", decides="wrong")
def test_note_pairwise_distance_with_typo_fixed_is_a_scalar_not_distances():
    # X1 sits far from X2 so that the signed sum below is positive and its sqrt is real
    X1, X2 = torch.randn(3, 2, dtype=torch.float64) + 5, torch.randn(4, 2, dtype=torch.float64)
    namespace = {"torch": torch, "X1": X1, "X2": X2}
    exec(compile(NOTE_PAIRWISE_LINE.replace(":.", ":,"), "<fixed>", "exec"), namespace)
    dist = namespace["dist"]
    assert dist.shape == (), f"the fixed line gives shape {tuple(dist.shape)}: one number, not 3×4"
    # it is the square root of the plain (signed) sum of all coordinate differences
    torch.testing.assert_close(dist, torch.sqrt((X1[:, None, :] - X2).sum()))
    # pairwise Euclidean distances need the squares summed over the last axis only
    pairwise = torch.sqrt(((X1[:, None, :] - X2) ** 2).sum(-1))
    assert pairwise.shape == (3, 4)
    torch.testing.assert_close(pairwise, torch.cdist(X1, X2))


# -- broadcasting --------------------------------------------------------------------


def broadcast_by_rule(a, b):
    """The note's rule: compare from the last axis backwards; equal sizes or one of them 1."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


@pytest.mark.claim("tensor.broadcast-rule")
@SPACE
@given(a=shapes(max_side=3), data=st.data())
def test_elementwise_ops_broadcast_exactly_when_the_rule_allows(a, data):
    # b: a suffix of a, each size kept, set to 1, or changed (often incompatible)
    b = tuple(
        data.draw(st.sampled_from([s, 1, (s + 1) % 4]), label="size")
        for s in a[len(a) - data.draw(st.integers(0, len(a))) :]
    )
    if data.draw(st.booleans(), label="swap"):
        a, b = b, a
    x, y = ints(a, 1), ints(b, 2) + 10  # no zero divisors
    expected = broadcast_by_rule(a, b)
    for name, op in [("+", torch.add), ("-", torch.sub), ("*", torch.mul), ("/", torch.div)]:
        if expected is None:
            with pytest.raises(RuntimeError, match="must match the size of tensor b"):
                op(x, y)
            continue
        out = op(x, y)
        assert out.shape == expected, f"{a} {name} {b} gave {tuple(out.shape)}, rule says {expected}"
        assert torch.equal(out, op(x.expand(expected), y.expand(expected)))


# -- reductions ----------------------------------------------------------------------


@pytest.mark.claim("tensor.sum-dim")
@SPACE
@given(shape=shapes(min_dims=1), data=st.data())
def test_sum_over_dims_matches_numpy(shape, data):
    t = ints(shape)
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True), label="dims")
    dims = tuple(d - len(shape) if data.draw(st.booleans(), label="negative") else d for d in dims)
    expected = t.numpy().sum(axis=tuple(d % len(shape) for d in dims))
    assert_same(torch.sum(t, dims), expected, f"sum over {dims} of {shape}")
    assert_same(torch.sum(t, dims[0]), t.numpy().sum(axis=dims[0] % len(shape)), f"sum over {dims[0]}")


@pytest.mark.claim("tensor.max-no-dim")
@SPACE
@given(shape=shapes(min_dims=0).filter(lambda s: math.prod(s) > 0))
def test_max_without_dim_is_the_largest_element(shape):
    t = ints(shape)
    m = torch.max(t)
    assert m.shape == (), f"torch.max(t) has shape {tuple(m.shape)}, expected a 0-dim tensor"
    assert m.item() == max(t.flatten().tolist())


@pytest.mark.claim("tensor.max-no-dim")
def test_max_without_dim_refuses_an_empty_tensor():
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        torch.max(torch.ones(0))


@pytest.mark.claim("tensor.max-with-dim")
@SPACE
@given(shape=shapes(min_dims=1).filter(lambda s: math.prod(s) > 0), data=st.data())
def test_max_with_dim_returns_values_and_their_indices(shape, data):
    t = ints(shape)
    d = data.draw(dim_of(len(shape)), label="dim")
    result = torch.max(t, d)
    assert isinstance(result, tuple) and len(result) == 2
    values, indices = result
    assert values is result.values and indices is result.indices
    assert_same(values, t.numpy().max(axis=d), f"max values over dim {d}")
    assert indices.dtype == torch.int64
    # each index points at an element equal to the maximum
    assert torch.equal(t.gather(d, indices.unsqueeze(d)).squeeze(d), values)


# -- clamp ---------------------------------------------------------------------------


@pytest.mark.claim("tensor.clamp")
@SPACE
@given(
    values=st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=20),
    bounds=st.tuples(st.floats(-1e3, 1e3, width=32), st.floats(-1e3, 1e3, width=32)).map(sorted),
)
def test_clamp_clips_every_element_into_min_max(values, bounds):
    lo, hi = bounds
    x = torch.tensor(values)
    out = torch.clamp(x, min=lo, max=hi)
    assert_same(out, [min(max(v, lo), hi) for v in values], f"clamp to [{lo}, {hi}]")


@pytest.mark.claim("tensor.clamp")
def test_clamp_edge_cases_nan_stays_and_one_sided_bounds():
    x = torch.tensor([-300.0, 12.5, 300.0, float("nan")])
    out = torch.clamp(x, min=0, max=255)
    assert torch.equal(out[:3], torch.tensor([0.0, 12.5, 255.0]))
    assert out[3].isnan(), "NaN is not clipped: it stays NaN"
    assert torch.equal(torch.clamp(x[:3], min=0), torch.tensor([0.0, 12.5, 300.0]))
    assert torch.equal(torch.clamp(x[:3], max=0), torch.tensor([-300.0, 0.0, 0.0]))
