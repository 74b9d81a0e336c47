"""Wrong-world checks for claims re-audited against their notes (issue 11): optim, data, tv.

Each patch puts the library into the world the note describes, or another plausible wrong
one; the claim's tests must go red there, for the reason their assertions give. Each run
collects only the test file of its claims.

- optim.no-zero-grad: the note's world, where a gradient that is not cleared turns into
  random values, and a world where backward() overwrites .grad instead of adding to it.
"""
from spec_runner import assert_goes_red

# Walks the autograd graph of the tensor backward() is called on, to the leaves it will
# write a gradient into (the AccumulateGrad nodes).
LEAVES = """
import torch

_backward = torch.Tensor.backward

def _leaves(tensor):
    seen, stack, leaves = set(), [tensor.grad_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if getattr(fn, "variable", None) is not None:
            leaves.append(fn.variable)
        stack.extend(next_fn for next_fn, _ in fn.next_functions)
    return leaves
"""

# the note's world: without zero_grad the gradients become random values (of the size the
# accumulated gradient would have had, so that training still oscillates at a high level)
UNCLEARED_GRAD_IS_NOISE = LEAVES + """
def backward(self, *args, **kwargs):
    stale = [p for p in _leaves(self) if p.grad is not None]
    _backward(self, *args, **kwargs)
    with torch.no_grad():
        for p in stale:
            p.grad = torch.randn_like(p.grad) * p.grad.abs().max()

torch.Tensor.backward = backward
"""

# backward() that overwrites .grad: no accumulation, so zero_grad would not be needed at all
BACKWARD_OVERWRITES_GRAD = LEAVES + """
def backward(self, *args, **kwargs):
    for p in _leaves(self):
        p.grad = None
    _backward(self, *args, **kwargs)

torch.Tensor.backward = backward
"""


def test_uncleared_gradients_turning_into_noise_turn_optim_no_zero_grad_red(run_spec):
    run = run_spec("tests/test_optim_zero_grad.py", "-m", "cpu", "--claim", "optim.no-zero-grad",
                   patch=UNCLEARED_GRAD_IS_NOISE)
    assert_goes_red(run, "optim.no-zero-grad", "is not the previous .grad plus this step's own gradient")


def test_backward_overwriting_grad_turns_optim_no_zero_grad_red(run_spec):
    run = run_spec("tests/test_optim_zero_grad.py", "-m", "cpu", "--claim", "optim.no-zero-grad",
                   patch=BACKWARD_OVERWRITES_GRAD)
    assert_goes_red(run, "optim.no-zero-grad", "is not the previous .grad plus this step's own gradient")
