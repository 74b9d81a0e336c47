"""Wrong-world checks for the autograd claims: in each world torch behaves as a wrong version of the
claim would (for a refuted claim: as the note says), and the claim's tests must go red there, for
the reason their assertions give.

    detach() that copies                                  -> autograd.detach-shared red
    backward() that overwrites .grad instead of adding    -> autograd.backward-accumulates red
    autograd.grad that divides grad_outputs by their sum (a weighted mean)
                                                          -> autograd.grad-ones-per-sample red (its holding half)
    jacrev that lays its result out input-first             -> autograd.jacrev-same-as-jacobian red
    jacrev that, given several argnums, differentiates only the first listed
                                                          -> autograd.jacrev-argnums red (argnums=(0, 2),
                                                             the case re-judging added)
    four worlds where the note would be right, in one spec run (notes_right_run):
      a write through .numpy() seen by the version counter -> autograd.inplace-check red (failing half)
      a frozen layer always recorded (F.linear attaches a graph when nothing requires grad)
                                                          -> autograd.requires-grad-false-semantics red
                                                             (failing half)
      nn.LSTM's constructor exactly the note's six parameters -> nn.lstm-signature red
      strict=False that also skips keys whose shape differs -> nn.load-state-dict-strict-false red
        (that claim now holds: for it this world is one where the note is wrong)
    clip_grad_norm_ that rescales every gradient to max_norm -> autograd.clip-grad-norm-explode-only red
    require_grad as an alias of requires_grad             -> autograd.require-grad-typo red
      (both in the spec run shared with optim and init: conftest.py, optim_autograd_init_run)
    backpropagating through a layer that is not frozen asks for retain_graph=True
                                                          -> autograd.layer-requires-grad-false red
    torch.no_grad() that records the graph anyway (benchmark, serial spec run)
                                                          -> autograd.no-grad-speed-memory failed
    the notes' world for five refuted claims, and autograd.grad as the note reads grad_outputs, in
      one spec run (notes_refuted_run):
      tensor.detach.clone()() that works                   -> autograd.detach-clone-typo red
      a detached tensor that never shows a .grad           -> autograd.detach-never-grad red
      tensor.data() callable                              -> autograd.data-is-function red
      backward that keeps the graph (retain_graph defaults to True)
                                                          -> autograd.backward-twice-same-graph red
      a detach() inside forward() that makes the next backward raise
                                                          -> autograd.detach-in-forward red
      grad_outputs times each element's (sample's) own derivative, never summed
                                                          -> autograd.grad-outputs-no-sum,
                                                             autograd.grad-ones-per-sample red (failing halves)
"""
import pytest

from fixtures.boundaries import TORCH_FUNC
from spec_runner import (
    SERIAL,
    assert_failing_half_goes_red,
    assert_goes_red,
    assert_not_holding,
    make_runner,
    red_tests,
)

CASES = [
    pytest.param("test_autograd_detach_clone.py", "autograd.detach-shared", "detach_that_copies",
                 "share the source's storage", id="detach-copies"),
    pytest.param("test_autograd_detach_clone.py", "autograd.backward-accumulates", "backward_overwrites_grad",
                 "Mismatched elements", id="backward-overwrites"),
    pytest.param("test_autograd_functional.py", "autograd.grad-ones-per-sample", "grad_outputs_as_a_weighted_mean",
                 "each sample's own derivative", id="grad-outputs-weighted-mean"),
    pytest.param("test_autograd_functional.py", "autograd.jacrev-same-as-jacobian", "jacrev_transposed",
                 "torch.Size([3, 4]) == torch.Size([4, 3])", id="jacrev-transposed"),
]


@pytest.mark.parametrize("test_file, claim, world, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, world, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", world=world)
    assert_goes_red(run, claim, reason)


CLAIMS = {
    "autograd.inplace-check": "the write was seen",
    "autograd.requires-grad-false-semantics": "the frozen layer's output was recorded",
    "nn.lstm-signature": "parameters after the note's six",
    "nn.load-state-dict-strict-false": "DID NOT RAISE",
}


FILES = ["tests/test_autograd.py", "tests/test_nn_rnn.py", "tests/test_nn_modules.py"]
WORLDS = ("numpy_write_seen_by_version_counter", "frozen_layer_recorded", "lstm_with_the_notes_signature",
          "strict_false_skips_shape_mismatch")


@pytest.fixture(scope="module")
def notes_right_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("notes_right"))
    return run(*FILES, "--claim", ",".join(CLAIMS), "-m", "cpu", "-p", "no:xdist", world=WORLDS)


@pytest.mark.parametrize("cid", CLAIMS)
def test_audited_claim_goes_red_where_the_note_would_be_right(notes_right_run, cid):
    # the two autograd claims are partly: their failing half (the case the note leaves out) must be among the red
    check = assert_failing_half_goes_red if cid.startswith("autograd.") else assert_goes_red
    check(notes_right_run, cid, CLAIMS[cid])


def test_clip_grad_norm_that_scales_up_turns_explode_only_red(optim_autograd_init_run):
    assert_goes_red(
        optim_autograd_init_run, "autograd.clip-grad-norm-explode-only", "<= max_norm, yet the gradient changed"
    )


def test_require_grad_as_an_alias_turns_the_typo_test_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "autograd.require-grad-typo", "the real flag did not change")


def test_a_layer_that_must_be_frozen_to_backpropagate_turns_layer_requires_grad_false_red(run_spec):
    run = run_spec("tests/test_autograd.py", "--claim", "autograd.layer-requires-grad-false", "-p", "no:xdist",
                   world="unfrozen_layer_needs_retain_graph")
    assert_goes_red(run, "autograd.layer-requires-grad-false", "Trying to backward through the graph a second time")


def test_no_grad_that_records_the_graph_does_not_hold(run_spec):
    run = run_spec("--claim", "autograd.no-grad-speed-memory", "tests/test_benchmarks_cpu.py", *SERIAL,
                   world="no_grad_records_the_graph")
    assert_not_holding(run, "autograd.no-grad-speed-memory", "failed")
    # the exact memory half is checked first, so it is what catches this world, on every machine
    # (the timing half would only see the patched side's call overhead, inconclusive or "fails" by chance)
    assert "under no_grad the forward kept" in (run.claim("autograd.no-grad-speed-memory")["reason"] or "")


REFUTED = {
    "autograd.detach-clone-typo": "DID NOT RAISE",
    "autograd.detach-never-grad": "the note says a detached tensor never gets .grad",
    "autograd.data-is-function": "DID NOT RAISE",
    "autograd.backward-twice-same-graph": "DID NOT RAISE",
    "autograd.detach-in-forward": "detach() was called in the forward pass",
}
FAILING_HALVES = {
    "autograd.grad-outputs-no-sum": "Tensor-likes are not close",
    "autograd.grad-ones-per-sample": "grad with ones is not the gradient of sum(y)",
}


@pytest.fixture(scope="module")
def notes_refuted_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("notes_refuted"))
    files = ["tests/test_autograd.py", "tests/test_autograd_detach_clone.py", "tests/test_autograd_functional.py"]
    return run(*files, "--claim", ",".join([*REFUTED, *FAILING_HALVES]), "-m", "cpu", "-p", "no:xdist",
               world=("detach_data_and_backward_as_the_notes_say", "grad_outputs_multiply_each_own_derivative"))


@pytest.mark.parametrize("cid", REFUTED)
def test_a_refuted_claim_goes_red_where_the_note_is_right(notes_refuted_run, cid):
    assert_goes_red(notes_refuted_run, cid, REFUTED[cid])


@pytest.mark.parametrize("cid", FAILING_HALVES)
def test_a_partly_claims_failing_half_goes_red_where_the_note_is_right(notes_refuted_run, cid):
    assert_failing_half_goes_red(notes_refuted_run, cid, FAILING_HALVES[cid])




# the case re-judging added to autograd.jacrev-argnums (argnums=(0, 2)) goes red; the cases it had
# before (argnums=(1,) and argnums=0, one input each) stay green, so the fragment is the added case's
@pytest.mark.needs(min_torch=TORCH_FUNC)  # torch.func.jacrev
def test_jacrev_that_differentiates_the_first_argnum_only_turns_the_several_argnums_case_red(run_spec):
    run = run_spec("tests/test_autograd_functional.py", "--claim", "autograd.jacrev-argnums", "-m", "cpu",
                   world="jacrev_differentiates_the_first_argnum_only")
    assert_goes_red(run, "autograd.jacrev-argnums", "1 derivatives for argnums=(0, 2)")
    assert red_tests(run, "autograd.jacrev-argnums") == [
        "test_jacrev_with_several_argnums_differentiates_each_listed_input_and_only_those"]
