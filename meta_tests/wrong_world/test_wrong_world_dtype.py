"""Wrong-world checks for the dtype claims: in a torch patched so that the claim's stated behaviour
differs, the claim's tests must go red, for the reason their assertions give.

    the note's world for the image recipes: fromarray takes H x W x 1 as grayscale,
      permute(2, 0, 1) of an H x W tensor reads it as H x W x 1, to_tensor scales every image
                                                          -> the failing halves of dtype.pil-from-tensor,
                                                             dtype.to-pil-image-equivalence,
                                                             dtype.pil-to-tensor-manual, dtype.to-tensor-func red
    the note's world for arange and numpy(): arange(5, requires_grad=True) makes a float tensor with its
      gradient allocated; numpy() / from_numpy take grad, bfloat16 and negatively strided data
                                                          -> dtype.arange-requires-grad red, and
                                                             dtype.numpy-roundtrip's failing half red
    CUDA arithmetic that refuses a 0-dim CPU tensor, and Tensor.cuda() that returns the CPU tensor
      (needs a CUDA GPU, skips without one)               -> dtype.cuda-cpu-mix's failing half red,
                                                             dtype.cuda-cpu-methods red (it holds)
    CUDA arithmetic that moves any CPU operand over (needs a CUDA GPU)
                                                          -> dtype.cuda-cpu-mix's holding half red
    Tensor.to whose non_blocking defaults to True         -> dtype.to-non-blocking-default red
    torch.tensor(..., requires_grad=True) that allocates .grad at creation, integers made floating
                                                          -> dtype.tensor-requires-grad red
    a consumer of a non_blocking copy that does not wait for it (the copy on another stream;
      needs a CUDA GPU, skips without one)                -> dtype.to-non-blocking-semantics red
    to_tensor that drops an RGBA image's alpha channel    -> dtype.pil-to-tensor-manual's holding half red
                                                             (its RGBA case)
    to_tensor that converts every 8-bit image to RGB first -> dtype.to-tensor-func's holding half red
                                                             (its RGBA, L and P cases)
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
      - the torch.cuda.amp claims' scaler: a fresh GradScaler starts at 2**15 (amp.default-scale-grad), a
        disabled one still scales the loss (amp.enabled-false-noop), update() leaves each optimizer in its
        stage (amp.state-transitions).
      - autograd.grad-outputs-no-sum: grad_outputs as a weighted mean (the world of grad-ones-per-sample).
      - data.samplers-base: BatchSampler does not derive from Sampler.
      - dist.launch-defaults: the parser's default node_rank is 1; dist.launch-no-python-needs-use-env:
        the launcher refuses --use_env (above), so --no_python misuse raises no ValueError.
      - the torch.jit claims (partly from 2.10): torch.jit.script hands back the eager module (with
        trace above), so nothing scripted saves, loads or refuses.
      - nn.named-modules-add-module: a plain Module's add_module stores a copy of the layer.
      - nn.rnn-defaults, nn.rnn-output-vs-hn: nn.RNN defaults to relu, and its h_n is off by one.
      - optim.yolo-param-groups: a bias-free Conv2d carries a zero bias that is no parameter of the model.
      - tensor.bmm-leading-dims: bmm is off by one; tensor.matmul-general: matmul does not broadcast batch
        dims; tensor.normal-tensor-mean: normal(tensor mean) loses the mean's shape;
        tensor.image-layout-convention: to_tensor unscaled (above); tensor.masked-fill: a non-bool
        mask is taken as truthiness (from 2.1, where the claim holds).
      - tv.make-grid-3ch: make_grid of 1-channel images keeps 1 channel.
      nn.load-state-dict-strict-false now holds: its world (strict=False refusing unexpected keys) is in
      test_wrong_world_nn.py.
"""
import pytest

from spec_runner import (
    SERIAL,
    assert_failing_half_goes_red,
    assert_goes_red,
    assert_holding_half_goes_red,
    assert_not_holding,
    claim_args,
    make_runner,
    red_tests,
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
        assert_failing_half_goes_red(run, cid, fragment)


def test_arange_that_allocates_a_gradient_and_a_free_numpy_conversion_turn_the_dtype_claims_red(run_spec):
    run = run_spec("tests/test_dtype.py", *claim_args("dtype.arange-requires-grad", "dtype.numpy-roundtrip"),
                   "-m", "cpu", world=("arange_requires_grad_allocates_a_gradient", "numpy_conversion_always_free"))
    assert_goes_red(run, "dtype.arange-requires-grad", "DID NOT RAISE RuntimeError",
                    "requires_grad only marks the tensor; nothing is allocated yet")
    assert_failing_half_goes_red(run, "dtype.numpy-roundtrip", "DID NOT RAISE RuntimeError")


@pytest.mark.needs(gpus=1)
def test_a_cuda_add_that_refuses_cpu_scalars_and_a_cuda_that_stays_on_the_cpu_turn_claims_red(run_spec):
    run = run_spec("tests/test_dtype.py", *claim_args("dtype.cuda-cpu-mix", "dtype.cuda-cpu-methods"), "-m", "gpu",
                   world=("cpu_scalar_refused_on_cuda", "cuda_returns_the_cpu_tensor"))
    assert_failing_half_goes_red(run, "dtype.cuda-cpu-mix", "this world: a 0-dim CPU tensor too")
    assert_goes_red(run, "dtype.cuda-cpu-methods", "cuda() put the tensor on cpu")


@pytest.mark.needs(gpus=1)
def test_cpu_and_cuda_tensors_that_mix_turn_the_holding_half_of_cuda_cpu_mix_red(run_spec):
    run = run_spec("tests/test_dtype.py", "--claim", "dtype.cuda-cpu-mix", "-m", "gpu",
                   world="cpu_and_cuda_tensors_mix")
    assert_holding_half_goes_red(run, "dtype.cuda-cpu-mix", "DID NOT RAISE RuntimeError")


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




# the cases added to the two to_tensor claims, each in a world of its own (both worlds patch to_tensor,
# so they run apart): the RGB case (and each claim's failing half) stays green, the fragment is the
# added cases'
@pytest.mark.needs(libs=["torchvision"])
def test_a_to_tensor_that_drops_alpha_turns_the_rgba_case_of_pil_to_tensor_manual_red(run_spec):
    run = run_spec("tests/test_dtype_images.py", "--claim", "dtype.pil-to-tensor-manual", "-m", "cpu",
                   "-p", "no:xdist", world="to_tensor_drops_alpha")
    assert_holding_half_goes_red(run, "dtype.pil-to-tensor-manual", "the recipe and to_tensor disagree")
    assert red_tests(run, "dtype.pil-to-tensor-manual") == ["test_asarray_recipe_equals_to_tensor_bit_for_bit[RGBA]"]


@pytest.mark.needs(libs=["torchvision"])
def test_a_to_tensor_that_makes_every_image_rgb_turns_the_rgba_l_and_p_cases_of_to_tensor_func_red(run_spec):
    run = run_spec("tests/test_dtype_images.py", "--claim", "dtype.to-tensor-func", "-m", "cpu",
                   "-p", "no:xdist", world="to_tensor_converts_to_rgb_first")
    assert_holding_half_goes_red(run, "dtype.to-tensor-func", "((3, 48, 80), torch.float32)")
    assert red_tests(run, "dtype.to-tensor-func") == [
        f"test_to_tensor_gives_c_h_w_float_scaled_into_0_1[{case}]" for case in ("RGBA", "grayscale", "palette")]


def test_float32_matmul_routed_through_float64_does_not_hold(run_spec):
    run = run_spec("--claim", "dtype.float-faster-than-double", "tests/test_benchmarks_cpu.py", *SERIAL,
                   world="float32_matmul_via_float64")
    assert_not_holding(run, "dtype.float-faster-than-double", "inconclusive", "failed")


# each CPU partly claim, and the reason a test of its holding half gives in the partly claims' world
CLAIMS = {
    "tensor.normal-size-tensor-args": "this world: no tensors with size",
    "dtype.to-tensor-func": "255.0 <= 1.0",
    "dtype.pil-to-tensor-manual": "the recipe and to_tensor disagree",
    "dtype.pil-from-tensor": "PIL size (48, 80), expected (W, H) = (80, 48)",
    "dtype.to-pil-image-equivalence": "(80, 48) == (48, 80)",
    "dtype.numpy-roundtrip": "does not share a's memory",
    "tensor.vstack-hstack": "DID NOT RAISE RuntimeError",
    "tensor.arange-two-three-args": "arange(0, 1, 1)",
    "nn.lstm-signature": "('batch_first', False), ('batch_first', True)",
    "data.random-sampler-signature": "('replacement', False), ('replacement', True)",
    "data.weighted-random-sampler": "('replacement', True), ('replacement', False)",
    "dist.syncbn-signature": "('momentum', 0.1), ('momentum', 0.2)",
    "nn.embedding-shape": "('embedding_dim', 16)",
    "dtype.set-default-tensor-type": "torch.float32 != torch.float64",
    "amp.cuda-amp-namespace": "contextlib.nullcontext",
    "jit.script-trace-not-deprecated": "torch.jit._script.ScriptModule",
    "tv.models-pretrained-kwarg": "was not loaded from the cached checkpoint",
    "autograd.inplace-check": "DID NOT RAISE RuntimeError",
    "autograd.requires-grad-false-semantics": "step() changed a requires_grad=False parameter",
    "loss.mse-reduction": "gave shape (6, 1), expected (6,)",
    "dist.launch-help-options": "underscore spellings accepted: False",
    "autograd.grad-ones-per-sample": "each sample's own derivative",
    "amp.default-scale-grad": "assert 32768.0 == 65536.0",
    "amp.enabled-false-noop": "enabled=False training differs from plain training",
    "amp.state-transitions": "assert 'STEPPED' == 'READY'",
    "autograd.grad-outputs-no-sum": "!= grad_outputs * own derivative",
    "data.samplers-base": "BatchSampler does not derive from torch.utils.data.Sampler",
    "dist.launch-defaults": "{'node_rank': 1} != {'node_rank': 0}",
    "dist.launch-no-python-needs-use-env": "DID NOT RAISE ValueError",
    "jit.cpp-import-needs-torchscript": "'Cell' object has no attribute 'save'",
    "jit.nested-example": "'MyRNNLoop' object has no attribute 'code'",
    "jit.nested-preserves-control-flow": "'MyRNNLoop' object has no attribute 'code'",
    "jit.script-not-superset-of-trace": "DID NOT RAISE NotSupportedError",
    "jit.script-save-load": "'MyModule' object has no attribute 'save'",
    "jit.script-standalone": "'Gate' object has no attribute 'save'",
    "jit.trace-control-flow": "the trace summed the example's 3 rows only",
    "jit.trace-script-usage": "isinstance(Cell(",
    "nn.named-modules-add-module": "get_submodule('0')",
    "nn.rnn-defaults": "'relu' != 'tanh'",
    "nn.rnn-output-vs-hn": "Tensor-likes are not close",
    "optim.yolo-param-groups": "<not the model's>",
    "tensor.bmm-leading-dims": "tensor([[1.]], dtype=torch.float64), tensor([[0.]]",
    "tensor.image-layout-convention": "to_tensor: values span [0.0, 255.0], expected [0, 1]",
    "tensor.masked-fill": "DID NOT RAISE RuntimeError",
    "tensor.matmul-general": "this world: matmul does not broadcast batch dims",
    "tensor.normal-tensor-mean": "tensor mean, number std",
    "tv.make-grid-3ch": "1-channel input gave (1, 26, 30)",
}


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
    # and the dist.launch tests that launch workers (their holding halves' in-process tests go red)
    return run("--claim", ",".join([*CLAIMS, "autograd.retain-graph"]), "-m", "cpu", "-p", "no:xdist",
               "-k", "not convert_sync_batchnorm and not launch_through_the_module and not starts_one_worker"
               " and not executes_the_program_itself",
               world="partly_holding_halves_broken", timeout=300)


@pytest.mark.parametrize("cid", CLAIMS)
def test_a_partly_claim_leaves_partly_when_its_holding_half_breaks(partly_run, cid):
    assert_holding_half_goes_red(partly_run, cid, CLAIMS[cid])
    # the reason is a holding-half test's own, not only the failing half's
    holding = [t.get("reason") or "" for t in partly_run.claim(cid)["tests"]
               if t["outcome"] in ("failed", "error") and t.get("half") == "holding"]
    assert any(CLAIMS[cid] in r for r in holding), f"{cid}: no holding-half test failed for {CLAIMS[cid]!r}: {holding}"


def test_retain_graph_goes_red_where_backward_keeps_every_graph(partly_run):
    assert_goes_red(partly_run, "autograd.retain-graph", "DID NOT RAISE")
