"""Wrong-world checks for the headline claims: each patch makes torch behave as a wrong
version of the claim would, and the claim's real spec tests must go red."""
import pytest

from spec_runner import assert_goes_red

DROPOUT_WITHOUT_RESCALE = """
import torch.nn.functional as F
_dropout = F.dropout
def dropout(input, p=0.5, training=True, inplace=False):
    out = _dropout(input, p, training, inplace)
    return out * (1 - p) if training else out
F.dropout = dropout
"""

DETACH_THAT_COPIES = """
import torch
_detach = torch.Tensor.detach
torch.Tensor.detach = lambda self: _detach(self).clone()
"""

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

UNSCALE_THAT_DECREMENTS_THE_SCALE = """
import torch
_unscale = torch.amp.GradScaler.unscale_
def unscale_(self, optimizer):
    _unscale(self, optimizer)
    self._scale -= 1  # the note's 65535
torch.amp.GradScaler.unscale_ = unscale_
"""

BACKWARD_THAT_OVERWRITES = """
import torch
_backward = torch.Tensor.backward
def backward(self, *args, **kwargs):
    leaves, seen, stack = [], set(), [self.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if hasattr(fn, "variable"):
            leaves.append(fn.variable)
        stack.extend(f for f, _ in fn.next_functions)
    for leaf in leaves:
        leaf.grad = None
    return _backward(self, *args, **kwargs)
torch.Tensor.backward = backward
"""

CASES = [
    pytest.param("test_nn_dropout.py", "nn.dropout-train-eval", DROPOUT_WITHOUT_RESCALE,
                 "Mismatched elements", id="dropout-without-rescale"),
    pytest.param("test_autograd_detach_clone.py", "autograd.detach-shared", DETACH_THAT_COPIES,
                 "share the source's storage", id="detach-copies"),
    pytest.param("test_optim_zero_grad.py", "optim.zero-grad-clears", OPTIMIZER_ZERO_GRAD_DOES_NOTHING,
                 "grads left", id="zero-grad-noop"),
    pytest.param("test_optim_zero_grad.py", "optim.model-zero-grad-zeros", MODULE_ZERO_GRAD_STILL_ZEROS,
                 "assert False is True", id="zero-grad-zeros"),
    pytest.param("test_amp_gradscaler.py", "amp.get-scale-after-unscale", UNSCALE_THAT_DECREMENTS_THE_SCALE,
                 "65535", id="unscale-changes-scale"),
    pytest.param("test_autograd_detach_clone.py", "autograd.backward-accumulates", BACKWARD_THAT_OVERWRITES,
                 "Mismatched elements", id="backward-overwrites"),
]


@pytest.mark.parametrize("test_file, claim, patch, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, patch, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", patch=patch)
    assert_goes_red(run, claim, reason)
