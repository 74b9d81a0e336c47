"""Wrong-world checks for the cudnn claims (cuDNN / TF32 flags, their defaults and their speed-ups).
All but the defaults' check need a CUDA GPU, like the tests they check (the `gpu` marker selects
them): without one they skip with the reason. The benchmark ones run the spec serially
(-p no:xdist), as pytest-benchmark needs; a benchmark claim must not hold in a world where the
stated speed-up is absent (inconclusive or failed, never holds), and a refuted speed-up claim is
checked the other way too: in the world the note describes it reads failed.

    flag defaults flipped (benchmark on, TF32 on for matmul, off for cuDNN)
                                                          -> cudnn.benchmark-default, cudnn.tf32-matmul-default,
                                                             cudnn.tf32-cudnn-default red
    TF32 never used by float32 matmuls                    -> cudnn.tf32-speed-precision red
      (a convolution that declines TF32 is inconclusive by design)
    convolutions that differ from run to run whatever the flags (fresh processes: patched
      through sitecustomize)                              -> cudnn.deterministic-repro red
    TF32 switches that never reach cuBLAS / cuDNN (benchmark) -> cudnn.tf32-speed-precision inconclusive
    cudnn.benchmark that never autotunes (benchmark)      -> cudnn.benchmark-speedup inconclusive or failed
    cudnn.benchmark that makes a fixed-shape network clearly faster, as the note says (benchmark)
                                                          -> cudnn.benchmark-speedup red
    the same world, on one row of the cudnn.benchmark panel (a padded 3x3 layer, batch 256)
                                                          -> cudnn.benchmark-speedup red
"""
import pytest

from spec_runner import SERIAL, assert_goes_red, assert_not_holding, claim_args


def test_flipped_flag_defaults_turn_the_cudnn_default_claims_red(run_spec):
    ids = ["cudnn.benchmark-default", "cudnn.tf32-matmul-default", "cudnn.tf32-cudnn-default"]
    run = run_spec(*claim_args(*ids), "-m", "cpu", world="flipped_cudnn_flag_defaults")
    assert_goes_red(run, "cudnn.benchmark-default", "expected the default False")
    assert_goes_red(run, "cudnn.tf32-matmul-default", "matmul.allow_tf32 defaults to True")
    assert_goes_red(run, "cudnn.tf32-cudnn-default", "expected the default True")


@pytest.mark.needs(gpus=1)
def test_tf32_that_is_never_used_turns_tf32_speed_precision_red(run_spec):
    run = run_spec("tests/test_cudnn.py", "--claim", "cudnn.tf32-speed-precision", "-m", "gpu",
                   "-k", "matmul_error", world="matmul_ignores_allow_tf32")
    assert_goes_red(run, "cudnn.tf32-speed-precision", "no TF32 kernel ran")


@pytest.mark.needs(gpus=1)
def test_convolutions_that_vary_per_run_turn_deterministic_repro_red(run_spec):
    run = run_spec("tests/test_cudnn.py", "--claim", "cudnn.deterministic-repro", "-m", "gpu",
                   world="conv_noise_per_run", timeout=600)
    assert_goes_red(run, "cudnn.deterministic-repro", "different results")


@pytest.mark.needs(gpus=1)
def test_tf32_that_is_never_used_does_not_hold(run_spec):
    run = run_spec("--claim", "cudnn.tf32-speed-precision", "tests/test_benchmarks_gpu.py", *SERIAL,
                   world="tf32_never_used", timeout=600)
    assert_not_holding(run, "cudnn.tf32-speed-precision", "inconclusive")
    assert "not used" in (run.claim("cudnn.tf32-speed-precision")["reason"] or "")


@pytest.mark.needs(gpus=1)
def test_cudnn_benchmark_that_never_autotunes_does_not_hold(run_spec):
    # the two conv-net comparisons: the panel's rows (fixed shapes) add nothing to this world's check
    run = run_spec("--claim", "cudnn.benchmark-speedup", "tests/test_benchmarks_gpu.py", *SERIAL,
                   "-k", "not panel", world="cudnn_benchmark_never_autotunes", timeout=600)
    claim = run.claim("cudnn.benchmark-speedup")
    assert claim["verdict"] in ("inconclusive", "failed"), (
        f"{claim['verdict']}: {claim.get('reason')}\n{run.output[-2000:]}")
    # no autotuning, no cost on a new shape: the comparison that shows the cost must not hold
    # (the fixed-shape one holds here as in the real world: no speed-up either way)
    changing = [f["verdict"] for f in claim.get("figures", []) if f["name"].startswith("first-step time")]
    assert changing, f"the new-shape comparison: {changing}"
    assert "holds" not in changing, f"the new-shape comparison: {changing}"


@pytest.mark.needs(gpus=1)
def test_cudnn_benchmark_that_speeds_up_fixed_shapes_turns_benchmark_speedup_red(run_spec):
    run = run_spec("--claim", "cudnn.benchmark-speedup", "tests/test_benchmarks_gpu.py", *SERIAL,
                   "-k", "fixed_shape", world="cudnn_benchmark_speeds_up_fixed_shapes", timeout=600)
    assert_goes_red(run, "cudnn.benchmark-speedup", "measured the opposite of the claim")


@pytest.mark.needs(gpus=1)
def test_cudnn_benchmark_that_speeds_up_a_panel_layer_turns_benchmark_speedup_red(run_spec):
    run = run_spec("--claim", "cudnn.benchmark-speedup", "tests/test_benchmarks_gpu.py", *SERIAL,
                   "-k", "panel and 256", world="cudnn_benchmark_speeds_up_fixed_shapes", timeout=600)
    assert_goes_red(run, "cudnn.benchmark-speedup", "measured the opposite of the claim")
