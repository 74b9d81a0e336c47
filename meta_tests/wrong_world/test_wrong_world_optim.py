"""Wrong-world checks for the optim claims: each patch puts torch into a world where a claim's stated
behaviour is different (or, for a refuted claim, where the note would be right); the claim's tests
must go red there, for the reason their assertions give.

    Optimizer.zero_grad that does nothing                 -> optim.zero-grad-clears red
    Module.zero_grad that still zeros (set_to_none=False) -> optim.model-zero-grad-zeros red
    the note's world, where a gradient that is not cleared turns into random values, and a world
      where backward() overwrites .grad instead of adding to it
                                                          -> optim.no-zero-grad red
    SGD that climbs (x <- x + lr * grad)                  -> optim.sgd-update red
    optimizers with grad_zero as an alias of zero_grad    -> optim.grad-zero-typo red
      (both in the spec run shared with autograd and init: conftest.py, optim_autograd_init_run)
"""
import pytest

from spec_runner import assert_goes_red

OPTIMIZER_ZERO_GRAD_DOES_NOTHING = """
import torch
torch.optim.Optimizer.zero_grad = lambda self, set_to_none=True: None
"""


MODULE_ZERO_GRAD_STILL_ZEROS = """
import torch
_zero_grad = torch.nn.Module.zero_grad
def zero_grad(self, set_to_none: bool = False):
    return _zero_grad(self, set_to_none=set_to_none)
torch.nn.Module.zero_grad = zero_grad
"""


CASES = [
    pytest.param("test_optim_zero_grad.py", "optim.zero-grad-clears", OPTIMIZER_ZERO_GRAD_DOES_NOTHING,
                 "grads left", id="zero-grad-noop"),
    pytest.param("test_optim_zero_grad.py", "optim.model-zero-grad-zeros", MODULE_ZERO_GRAD_STILL_ZEROS,
                 "assert False is True", id="zero-grad-zeros"),
]


@pytest.mark.parametrize("test_file, claim, patch, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, patch, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", patch=patch)
    assert_goes_red(run, claim, reason)


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


def test_sgd_that_adds_lr_times_grad_turns_sgd_update_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "optim.sgd-update", "Tensor-likes are not close")


def test_optimizers_with_grad_zero_turn_the_typo_test_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "optim.grad-zero-typo", "DID NOT RAISE")
