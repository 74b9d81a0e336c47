"""Wrong-world checks for the loss claims (one spec run for both patches).

    cross_entropy without log-softmax                     -> loss.ce-includes-softmax red
    builtin label smoothing computed as the note's recipe -> loss.label-smoothing-manual-vs-builtin red
"""
import pytest

from spec_runner import assert_goes_red, make_runner

# cross_entropy without log-softmax, and builtin label smoothing as the note's recipe.
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
def loss_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("loss"))
    claims = ["loss.ce-includes-softmax", "loss.label-smoothing-manual-vs-builtin"]
    return run("tests/test_loss.py", "--claim", ",".join(claims), "-m", "cpu", "-p", "no:xdist", patch=LOSS_WORLD)


def test_cross_entropy_without_log_softmax_turns_includes_softmax_red(loss_run):
    assert_goes_red(loss_run, "loss.ce-includes-softmax", "not close")


def test_builtin_smoothing_as_the_notes_recipe_turns_manual_vs_builtin_red(loss_run):
    assert_goes_red(loss_run, "loss.label-smoothing-manual-vs-builtin", "not close")
