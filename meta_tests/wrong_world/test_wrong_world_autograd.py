"""Wrong-world checks for the autograd claims: in each world torch behaves as a wrong version of the
claim would (for a refuted claim: as the note says), and the claim's tests must go red there, for
the reason their assertions give.

    detach() that copies                                  -> autograd.detach-shared red
    backward() that overwrites .grad instead of adding    -> autograd.backward-accumulates red
    the claim audit's world (issue 11 §2), four patches of different functions in one spec run:
      a write through .numpy() seen by the version counter -> autograd.inplace-check red
      a frozen layer always recorded (F.linear attaches a graph when nothing requires grad)
                                                          -> autograd.requires-grad-false-semantics red
      nn.LSTM's constructor exactly the note's six parameters -> nn.lstm-signature red
      strict=False that also skips keys whose shape differs -> nn.load-state-dict-strict-false red
    clip_grad_norm_ that rescales every gradient to max_norm -> autograd.clip-grad-norm-explode-only red
    require_grad as an alias of requires_grad             -> autograd.require-grad-typo red
      (both in the spec run shared with optim and init: conftest.py, optim_autograd_init_run)
    backpropagating through a layer that is not frozen asks for retain_graph=True
                                                          -> autograd.layer-requires-grad-false red
    torch.no_grad() that records the graph anyway (benchmark, serial spec run)
                                                          -> autograd.no-grad-speed-memory failed
"""
import pytest

from spec_runner import assert_goes_red, assert_not_holding, make_runner
from worlds import SERIAL

DETACH_THAT_COPIES = """
import torch
_detach = torch.Tensor.detach
torch.Tensor.detach = lambda self: _detach(self).clone()
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
    pytest.param("test_autograd_detach_clone.py", "autograd.detach-shared", DETACH_THAT_COPIES,
                 "share the source's storage", id="detach-copies"),
    pytest.param("test_autograd_detach_clone.py", "autograd.backward-accumulates", BACKWARD_THAT_OVERWRITES,
                 "Mismatched elements", id="backward-overwrites"),
]


@pytest.mark.parametrize("test_file, claim, patch, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, patch, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", patch=patch)
    assert_goes_red(run, claim, reason)


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
"""


CLAIMS = {
    "autograd.inplace-check": "the write was seen",
    "autograd.requires-grad-false-semantics": "the frozen layer's output was recorded",
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


def test_clip_grad_norm_that_scales_up_turns_explode_only_red(optim_autograd_init_run):
    assert_goes_red(
        optim_autograd_init_run, "autograd.clip-grad-norm-explode-only", "<= max_norm, yet the gradient changed"
    )


def test_require_grad_as_an_alias_turns_the_typo_test_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "autograd.require-grad-typo", "the real flag did not change")


# The note's world for a layer used as weights: backpropagating through a layer that is not frozen
# fails and asks for retain_graph=True, however its output is used (the note's reason: backward
# "tries to update the layer's weights"). Made with a hook on every output of an nn.Linear that has a
# trainable parameter.
UNFROZEN_LAYER_NEEDS_RETAIN_GRAPH = """
import torch

_forward = torch.nn.Linear.forward


def forward(self, x):
    out = _forward(self, x)
    if any(p.requires_grad for p in self.parameters()) and out.requires_grad:
        def refuse(grad):
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved "
                               "tensors after they have already been freed); specify retain_graph=True")
        out.register_hook(refuse)
    return out


torch.nn.Linear.forward = forward
"""


def test_a_layer_that_must_be_frozen_to_backpropagate_turns_layer_requires_grad_false_red(run_spec):
    run = run_spec("tests/test_autograd.py", "--claim", "autograd.layer-requires-grad-false", "-p", "no:xdist",
                   patch=UNFROZEN_LAYER_NEEDS_RETAIN_GRAPH)
    assert_goes_red(run, "autograd.layer-requires-grad-false", "Trying to backward through the graph a second time")


# torch.no_grad() that records the graph anyway, for the spec module's own calls (torch's own
# internals, nn.init included, keep the real no_grad).
NO_GRAD_RECORDS = """
import sys

import torch

_no_grad = torch.no_grad


def no_grad(*args, **kwargs):
    if sys._getframe(1).f_globals.get("__name__", "").endswith("test_benchmarks_cpu"):
        return torch.enable_grad()
    return _no_grad(*args, **kwargs)


torch.no_grad = no_grad
"""


def test_no_grad_that_records_the_graph_does_not_hold(run_spec):
    run = run_spec("--claim", "autograd.no-grad-speed-memory", "tests/test_benchmarks_cpu.py", *SERIAL,
                   patch=NO_GRAD_RECORDS)
    assert_not_holding(run, "autograd.no-grad-speed-memory", "failed")
    # the exact memory half is checked first, so it is what catches this world, on every machine
    # (the timing half would only see the patched side's call overhead, inconclusive or "fails" by chance)
    assert "under no_grad the forward kept" in (run.claim("autograd.no-grad-speed-memory")["reason"] or "")
