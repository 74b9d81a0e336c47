"""torch.arange with one, two and three arguments.

Notes: 003_df07c2a5da61a567.txt › 3 tensor 数据类型 (`torch.arange(a)` gives
`Tensor[0, 1, ..., [a]]`; `torch.arange(a, b)` and `torch.arange(a, b, c)` stop while
`a + nc < b`).
"""
import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from fixtures.strategies import SPACE


@pytest.mark.claim("tensor.arange-one-arg", decides="wrong")
@SPACE
@given(a=st.integers(1, 50))
def test_arange_of_an_integer_stops_before_it(a):
    out = torch.arange(a)
    assert out[-1].item() == a - 1, f"arange({a}) ends at {out[-1].item()}, expected {a - 1}: a itself is excluded"
    assert out.tolist() == list(range(a))
    assert out.dtype == torch.int64


@pytest.mark.claim("tensor.arange-one-arg")
@SPACE
@given(a=st.floats(0.01, 50).filter(lambda a: a != int(a)))
def test_arange_of_a_fraction_ends_at_its_integer_part(a):
    out = torch.arange(a)
    assert out.dtype == torch.get_default_dtype()
    assert out.tolist() == [float(i) for i in range(math.ceil(a))]
    assert out[-1].item() == math.floor(a)


@pytest.mark.claim("tensor.arange-two-three-args", half="holding")
@SPACE
@given(a=st.integers(-20, 20), length=st.integers(0, 30), c=st.integers(1, 7))
def test_integer_arange_yields_a_plus_n_c_while_below_b(a, length, c):
    b = a + length
    two, three = torch.arange(a, b), torch.arange(a, b, c)
    assert two.tolist() == list(range(a, b)), f"arange({a}, {b})"
    assert three.tolist() == list(range(a, b, c)), f"arange({a}, {b}, {c})"
    # every element is below b and the next step would not be
    for out, step in ((two, 1), (three, c)):
        if out.numel():
            assert out.max().item() < b <= out[-1].item() + step
        else:
            assert a >= b


@pytest.mark.claim("tensor.arange-two-three-args", half="failing")
def test_fractional_step_can_reach_past_the_end_bound():
    out = torch.arange(1, 1.3, 0.1, dtype=torch.float64)
    # (1.3 - 1) / 0.1 is 3.0000000000000004 in floating point: the length rounds up to 4
    assert out.numel() == 4, f"arange(1, 1.3, 0.1) has {out.numel()} elements"
    assert out[-1].item() >= 1.3, f"last element {out[-1].item()!r} is not below the end 1.3"
    # an integer step (or integer arguments scaled afterwards) has no such surprise
    assert torch.equal(torch.arange(10, 13) / 10, torch.tensor([1.0, 1.1, 1.2], dtype=torch.float32))
