"""Wrong-world checks for the loss claims (one spec run for both patches).

    cross_entropy without log-softmax                     -> loss.ce-includes-softmax red
    builtin label smoothing computed as the note's recipe -> loss.label-smoothing-manual-vs-builtin red
"""
import pytest

from spec_runner import assert_goes_red, make_runner


@pytest.fixture(scope="module")
def loss_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("loss"))
    claims = ["loss.ce-includes-softmax", "loss.label-smoothing-manual-vs-builtin"]
    return run("tests/test_loss.py", "--claim", ",".join(claims), "-m", "cpu", "-p", "no:xdist",
               world="cross_entropy_without_softmax_and_notes_smoothing")


def test_cross_entropy_without_log_softmax_turns_includes_softmax_red(loss_run):
    assert_goes_red(loss_run, "loss.ce-includes-softmax", "not close")


def test_builtin_smoothing_as_the_notes_recipe_turns_manual_vs_builtin_red(loss_run):
    assert_goes_red(loss_run, "loss.label-smoothing-manual-vs-builtin", "not close")
