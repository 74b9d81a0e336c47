"""Wrong-world checks for the autograd and nn claims whose standing the claim audit changed
(issue 11 §2): in each world the note would be right, and the claim's tests must go red there,
for the reason their assertions give.

- autograd.inplace-check: a world where a write through .numpy() is seen by the version
  counter (numpy() bumps the counter of the tensor it exposes).
- autograd.requires-grad-false-semantics: a world where a frozen layer is always recorded
  (F.linear attaches a graph even when nothing requires grad).
- autograd.retain-graph: a world where every second backward through the same output raises
  unless the first passed retain_graph=True, whether or not the graph saved tensors.
- nn.lstm-signature: a world where nn.LSTM's constructor is exactly the note's six parameters.
- nn.load-state-dict-strict-false: a world where strict=False also skips keys whose shape differs.

The five patches touch different functions and share one spec run.
"""
import pytest

from spec_runner import assert_goes_red, make_runner

AUDIT_CORE_WORLD = """
import torch
import torch.nn.functional as F
from torch import nn

_numpy = torch.Tensor.numpy

def numpy(self, *args, **kwargs):
    array = _numpy(self, *args, **kwargs)
    if self.is_floating_point():
        with torch.no_grad():
            self.add_(0)  # the note's world: autograd sees the coming write through the array
    return array

torch.Tensor.numpy = numpy

_linear = F.linear

def linear(input, weight, bias=None):
    if torch.is_grad_enabled() and not any(t is not None and t.requires_grad for t in (input, weight, bias)):
        weight = weight.detach().requires_grad_()  # record the frozen layer anyway
    return _linear(input, weight, bias)

F.linear = linear

class NoteLSTM(nn.LSTM):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout)

nn.LSTM = NoteLSTM

_load_state_dict = nn.Module.load_state_dict

def load_state_dict(self, state_dict, strict=True, *args, **kwargs):
    if not strict:
        own = self.state_dict()
        state_dict = {k: v for k, v in state_dict.items() if k not in own or own[k].shape == v.shape}
    return _load_state_dict(self, state_dict, strict, *args, **kwargs)

nn.Module.load_state_dict = load_state_dict

_backward = torch.Tensor.backward
_freed = []  # grad_fn nodes already backpropagated without retain_graph (kept alive: ids stay unique)

def backward(self, gradient=None, retain_graph=None, *args, **kwargs):
    node = self.grad_fn
    if node is not None and any(node is seen for seen in _freed):
        raise RuntimeError("Trying to backward through the graph a second time (every graph, in this world)")
    result = _backward(self, gradient, retain_graph, *args, **kwargs)
    if node is not None and not retain_graph:
        _freed.append(node)
    return result

torch.Tensor.backward = backward
"""

CLAIMS = {
    "autograd.inplace-check": "the write was seen",
    "autograd.requires-grad-false-semantics": "the frozen layer's output was recorded",
    "autograd.retain-graph": "every graph, in this world",
    "nn.lstm-signature": "parameters after the note's six",
    "nn.load-state-dict-strict-false": "DID NOT RAISE",
}
FILES = ["tests/test_autograd.py", "tests/test_nn_rnn.py", "tests/test_nn_modules.py"]


@pytest.fixture(scope="module")
def audit_core_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("audit_core"))
    return run(*FILES, "--claim", ",".join(CLAIMS), "-m", "cpu", "-p", "no:xdist", patch=AUDIT_CORE_WORLD)


@pytest.mark.parametrize("cid", CLAIMS)
def test_audited_claim_goes_red_where_the_note_would_be_right(audit_core_run, cid):
    assert_goes_red(audit_core_run, cid, CLAIMS[cid])

