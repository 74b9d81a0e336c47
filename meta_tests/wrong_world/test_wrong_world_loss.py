"""Wrong-world checks for the loss claims (one spec run per world).

    cross_entropy without log-softmax                     -> loss.ce-includes-softmax red
    builtin label smoothing computed as the note's recipe -> loss.label-smoothing-manual-vs-builtin red
    MSELoss(reduction='none') that gives one cost per sample, and the label-smoothing loop whose
      typos resolve (it runs as printed)                  -> loss.mse-reduction red on its left-out test,
                                                             loss.label-smoothing-snippet-typos red
"""
import pytest

from spec_runner import assert_failing_half_goes_red, assert_goes_red, make_runner


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


@pytest.fixture(scope="module")
def notes_loss_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("loss-notes"))
    claims = ["loss.mse-reduction", "loss.label-smoothing-snippet-typos"]
    return run("tests/test_loss.py", "--claim", ",".join(claims), "-m", "cpu", "-p", "no:xdist",
               world="mse_per_sample_and_smoothing_typos_that_resolve")


def test_mse_that_gives_one_cost_per_sample_turns_the_failing_half_of_mse_reduction_red(notes_loss_run):
    assert_failing_half_goes_red(notes_loss_run, "loss.mse-reduction", "reduction='none' gave shape (")


def test_a_label_smoothing_loop_that_runs_as_printed_turns_snippet_typos_red(notes_loss_run):
    assert_goes_red(notes_loss_run, "loss.label-smoothing-snippet-typos", "DID NOT RAISE")
    red = [t for t in notes_loss_run.claim("loss.label-smoothing-snippet-typos")["tests"] if t["outcome"] == "failed"]
    assert len(red) == 3, red  # one per typo
    assert all(t.get("decides") == "wrong" for t in red), red
