"""Wrong-world checks for autograd, init, loss and optim claims.

Each patch puts torch into a world where a claim's stated behaviour is different (or, for a
refuted claim, where the note would be right); the claim's tests must go red there, for the
reason their assertions give. Patches that do not interact share one spec run; each run
collects only the test files of these claims.
"""
import pytest

from spec_runner import assert_goes_red, make_runner
from worlds import AMP_NO_BACKOFF_WORLD

# Run 1: independent patches of SGD, clip_grad_norm_, kaiming_normal_, Tensor and Optimizer.
OPTIM_AUTOGRAD_INIT_WORLD = """
import sys

import torch
import torch.nn.init
import torch.nn.utils
import torch.optim.sgd

# SGD that climbs: x <- x + lr * grad
_sgd_module = sys.modules["torch.optim.sgd"]
_sgd = _sgd_module.sgd

def sgd(*args, **kwargs):
    kwargs["lr"] = -kwargs["lr"]
    return _sgd(*args, **kwargs)

_sgd_module.sgd = sgd

# clip_grad_norm_ that rescales every gradient to max_norm, small ones included
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, *args, **kwargs):
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = torch.cat([g.flatten() for g in grads]).norm(norm_type)
    for g in grads:
        g.mul_(max_norm / (total + 1e-6))
    return total

torch.nn.utils.clip_grad_norm_ = clip_grad_norm_

# kaiming_normal_ that ignores mode and always uses fan_in
_kaiming_normal_ = torch.nn.init.kaiming_normal_

def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", *args, **kwargs):
    return _kaiming_normal_(tensor, a, "fan_in", nonlinearity, *args, **kwargs)

torch.nn.init.kaiming_normal_ = kaiming_normal_

# the note's world: require_grad is an alias of requires_grad, grad_zero of zero_grad
torch.Tensor.require_grad = property(lambda t: t.requires_grad, lambda t, v: t.requires_grad_(v))
torch.optim.Optimizer.grad_zero = torch.optim.Optimizer.zero_grad
"""

# Run 2: cross_entropy without log-softmax, and builtin label smoothing as the note's recipe.
LOSS_WORLD = """
import torch
import torch.nn.functional as F

def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    if label_smoothing:  # the note's recipe: 1 - eps on the true class, eps / (C - 1) elsewhere
        n, c = input.shape
        smoothed = torch.full_like(input, label_smoothing / (c - 1))
        smoothed.scatter_(1, target.unsqueeze(1), 1 - label_smoothing)
        return -(F.log_softmax(input, dim=1) * smoothed).sum() / n
    return F.nll_loss(input, target, weight, None, ignore_index, None, reduction)  # no log_softmax

F.cross_entropy = cross_entropy
"""


@pytest.fixture(scope="module")
def optim_autograd_init_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("optim_autograd_init"))
    claims = [
        "optim.sgd-update",
        "autograd.clip-grad-norm-explode-only",
        "init.kaiming-conv",
        "autograd.require-grad-typo",
        "optim.grad-zero-typo",
    ]
    files = ["tests/test_optim.py", "tests/test_autograd.py", "tests/test_init.py"]
    return run(*files, "--claim", ",".join(claims), "-m", "cpu", "-p", "no:xdist", patch=OPTIM_AUTOGRAD_INIT_WORLD)


@pytest.fixture(scope="module")
def loss_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("loss"))
    claims = ["loss.ce-includes-softmax", "loss.label-smoothing-manual-vs-builtin"]
    return run("tests/test_loss.py", "--claim", ",".join(claims), "-m", "cpu", "-p", "no:xdist", patch=LOSS_WORLD)


def test_sgd_that_adds_lr_times_grad_turns_sgd_update_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "optim.sgd-update", "Tensor-likes are not close")


def test_clip_grad_norm_that_scales_up_turns_explode_only_red(optim_autograd_init_run):
    assert_goes_red(
        optim_autograd_init_run, "autograd.clip-grad-norm-explode-only", "<= max_norm, yet the gradient changed"
    )


def test_kaiming_normal_on_fan_in_turns_kaiming_conv_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "init.kaiming-conv", "sample std")


def test_require_grad_as_an_alias_turns_the_typo_test_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "autograd.require-grad-typo", "the real flag did not change")


def test_optimizers_with_grad_zero_turn_the_typo_test_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "optim.grad-zero-typo", "DID NOT RAISE")


def test_cross_entropy_without_log_softmax_turns_includes_softmax_red(loss_run):
    assert_goes_red(loss_run, "loss.ce-includes-softmax", "not close")


def test_builtin_smoothing_as_the_notes_recipe_turns_manual_vs_builtin_red(loss_run):
    assert_goes_red(loss_run, "loss.label-smoothing-manual-vs-builtin", "not close")


# AMP: a GradScaler whose scale never backs off after an inf/NaN step (the CPU GradScaler of
# torch >= 2.3 runs the same torch._amp_update_scale_ as the CUDA one; the CUDA case of the same
# world is in test_wrong_world_gpu.py).
@pytest.mark.needs(min_torch="2.3")
def test_a_cpu_scale_that_never_backs_off_turns_update_adjusts_scale_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.update-adjusts-scale", "-m", "cpu",
                   "-p", "no:xdist", patch=AMP_NO_BACKOFF_WORLD)
    assert_goes_red(run, "amp.update-adjusts-scale", "expected 16 * 0.5")


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
