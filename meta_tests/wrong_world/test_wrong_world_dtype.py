"""Wrong-world checks for the dtype claims: in a torch patched so that the claim's stated behaviour
differs, the claim's tests must go red, for the reason their assertions give.

    the note's world for the image recipes: fromarray takes H x W x 1 as grayscale,
      permute(2, 0, 1) of an H x W tensor reads it as H x W x 1, to_tensor scales every image
                                                          -> dtype.pil-from-tensor, dtype.to-pil-image-equivalence,
                                                             dtype.pil-to-tensor-manual, dtype.to-tensor-func red
    Tensor.to whose non_blocking defaults to True         -> dtype.to-non-blocking-default red
    torch.tensor(..., requires_grad=True) that allocates .grad at creation, integers made floating
                                                          -> dtype.tensor-requires-grad red
    a consumer of a non_blocking copy that does not wait for it (the copy on another stream;
      needs a CUDA GPU, skips without one)                -> dtype.to-non-blocking-semantics red
    float32 matmul computed in float64 (benchmark, serial spec run)
                                                          -> dtype.float-faster-than-double inconclusive or failed
    the partly claims' world: one patch of many functions breaks the holding half of every CPU
      partly claim (whatever its topic; most are dtype ones), one spec run; each claim must then
      be failed, never partly on its failing half alone (the optional-library ones are in
      test_wrong_world_lib.py):
      - autograd.retain-graph (holds; run in the same world): backward keeps the graph unless told
        otherwise (retain_graph defaults to True).
      - tensor.normal-size-tensor-args: with size, torch.normal rejects every tensor mean / std.
      - the deprecated-but-working claims (docs/verdict-rules.md, rule 3): set_default_tensor_type
        does nothing, torch.cuda.amp.autocast is no torch.autocast, torch.jit.trace returns the
        eager module, squeezenet1_0(pretrained=True) loads no weights.
      - nn.load-state-dict-strict-false: strict=False refuses unexpected keys.
      - dtype.to-tensor-func, dtype.pil-to-tensor-manual: to_tensor leaves 8-bit images unscaled (0..255).
      - dtype.pil-from-tensor, dtype.to-pil-image-equivalence: permute(1, 2, 0) of a 3-channel uint8 image
        transposes it (W and H swap).
      - dtype.numpy-roundtrip: from_numpy copies.
      - tensor.vstack-hstack: vstack of two or more 2-D or higher inputs joins them along dim 1, as hstack does.
      - tensor.arange-two-three-args: an integer arange(a, b, c) includes b when it lies on the grid.
      - the signature claims: a printed default differs (LSTM batch_first=True, RandomSampler
        replacement=True, WeightedRandomSampler replacement=False, SyncBatchNorm momentum=0.2,
        Embedding embedding_dim=16), the extra parameters kept.
      - autograd.inplace-check: an in-place add inside a graph escapes the version check.
      - autograd.requires-grad-false-semantics: SGD's weight decay reaches frozen parameters.
      - loss.mse-reduction: MSELoss(reduction='none') of one output per sample is no per-sample vector.
      - dist.launch-help-options: torch.distributed.launch refuses the note's --use_env spelling.
"""
import pytest

from spec_runner import (
    SERIAL,
    assert_goes_red,
    assert_holding_half_goes_red,
    assert_not_holding,
    claim_args,
    make_runner,
)

IMAGE_RECIPE_CLAIMS = {
    "dtype.pil-from-tensor": "DID NOT RAISE",
    "dtype.to-pil-image-equivalence": "DID NOT RAISE",
    "dtype.pil-to-tensor-manual": "DID NOT RAISE",
    "dtype.to-tensor-func": "expected an unscaled integer tensor",
}


def test_image_recipes_that_handle_one_channel_turn_the_refuted_image_claims_red(run_spec):
    run = run_spec(
        "tests/test_dtype_images.py", *claim_args(*IMAGE_RECIPE_CLAIMS), "-m", "cpu", "-p", "no:xdist",
        world="image_recipes_handle_one_channel",
    )
    for cid, fragment in IMAGE_RECIPE_CLAIMS.items():
        assert_goes_red(run, cid, fragment)


def test_tensor_to_defaulting_to_non_blocking_turns_the_default_claim_red(run_spec):
    run = run_spec("tests/test_dtype.py", "--claim", "dtype.to-non-blocking-default", "-m", "cpu",
                   world="to_non_blocking_by_default")
    assert_goes_red(run, "dtype.to-non-blocking-default", "non_blocking of the copies: [True, True, True]")


def test_a_tensor_that_allocates_its_gradient_at_creation_turns_tensor_requires_grad_red(run_spec):
    run = run_spec("tests/test_dtype.py", "--claim", "dtype.tensor-requires-grad", "-m", "cpu",
                   world="requires_grad_allocates_a_gradient")
    # both halves of the world: .grad allocated at creation, and a list of integers made floating
    assert_goes_red(run, "dtype.tensor-requires-grad", "expected None", "DID NOT RAISE RuntimeError")


@pytest.mark.needs(gpus=1)
def test_a_consumer_that_does_not_wait_for_a_non_blocking_copy_turns_non_blocking_semantics_red(run_spec):
    run = run_spec("tests/test_dtype.py", "--claim", "dtype.to-non-blocking-semantics", "-m", "gpu",
                   world="non_blocking_copy_not_awaited")
    assert_goes_red(run, "dtype.to-non-blocking-semantics", "started on partly arrived data")


def test_float32_matmul_routed_through_float64_does_not_hold(run_spec):
    run = run_spec("--claim", "dtype.float-faster-than-double", "tests/test_benchmarks_cpu.py", *SERIAL,
                   world="float32_matmul_via_float64")
    assert_not_holding(run, "dtype.float-faster-than-double", "inconclusive", "failed")


CLAIMS = [
    "tensor.normal-size-tensor-args", "nn.load-state-dict-strict-false", "dtype.to-tensor-func",
    "dtype.pil-to-tensor-manual",
    "dtype.pil-from-tensor", "dtype.to-pil-image-equivalence", "dtype.numpy-roundtrip", "tensor.vstack-hstack",
    "tensor.arange-two-three-args", "nn.lstm-signature", "data.random-sampler-signature",
    "data.weighted-random-sampler", "dist.syncbn-signature", "nn.embedding-shape",
    "dtype.set-default-tensor-type", "amp.cuda-amp-namespace", "jit.script-trace-not-deprecated",
    "tv.models-pretrained-kwarg", "autograd.inplace-check", "autograd.requires-grad-false-semantics",
    "loss.mse-reduction", "dist.launch-help-options", "autograd.grad-ones-per-sample",
]


def test_every_cpu_partly_claim_has_a_world_here():
    from harness import inventory

    inv = inventory.load()
    partly = {cid for cid, c in inv.claims.items() if c.ever_partly and c.decided_by == "cpu"}
    # dist.launch-is-current's holding half runs launched workers: its world is in test_wrong_world_dist.py;
    # serial.save-load-checkpoint-module is partly on torch 2.4-2.5 only, where its holding half runs
    # (max_torch 2.6): on a torch without it, its world is in test_wrong_world_serial.py
    assert partly == set(CLAIMS) | {"dist.launch-is-current", "serial.save-load-checkpoint-module"}


@pytest.fixture(scope="module")
def partly_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("partly"))
    # the gloo process-group test of dist.syncbn-signature (convert_sync_batchnorm) is no half: left out
    return run("--claim", ",".join(CLAIMS + ["autograd.retain-graph"]), "-m", "cpu", "-p", "no:xdist",
               "-k", "not convert_sync_batchnorm",
               world="partly_holding_halves_broken", timeout=300)


@pytest.mark.parametrize("cid", CLAIMS)
def test_a_partly_claim_leaves_partly_when_its_holding_half_breaks(partly_run, cid):
    assert_holding_half_goes_red(partly_run, cid)


def test_retain_graph_goes_red_where_backward_keeps_every_graph(partly_run):
    assert_goes_red(partly_run, "autograd.retain-graph", "DID NOT RAISE")
