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

from spec_runner import assert_goes_red, assert_not_holding, claim_args, site_wide, wrong_world
from worlds import SERIAL

# Flag defaults flipped: benchmark on, TF32 on for matmul (the pre-1.12 default), off for cuDNN.
FLIPPED_DEFAULTS = """
import torch

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = not torch.backends.cuda.matmul.allow_tf32
torch.backends.cudnn.allow_tf32 = False
"""


def test_flipped_flag_defaults_turn_the_cudnn_default_claims_red(run_spec):
    ids = ["cudnn.benchmark-default", "cudnn.tf32-matmul-default", "cudnn.tf32-cudnn-default"]
    run = run_spec(*claim_args(*ids), "-m", "cpu", patch=FLIPPED_DEFAULTS)
    assert_goes_red(run, "cudnn.benchmark-default", "expected the default False")
    assert_goes_red(run, "cudnn.tf32-matmul-default", "matmul.allow_tf32 defaults to True")
    assert_goes_red(run, "cudnn.tf32-cudnn-default", "expected the default True")


MATMUL_IGNORES_ALLOW_TF32 = """
import torch

_matmul = torch.Tensor.__matmul__


def __matmul__(a, b):
    flag = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # the flag is accepted, and ignored
    try:
        return _matmul(a, b)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = flag


torch.Tensor.__matmul__ = __matmul__
"""


@pytest.mark.needs(gpus=1)
def test_tf32_that_is_never_used_turns_tf32_speed_precision_red(run_spec):
    run = run_spec("tests/test_cudnn.py", "--claim", "cudnn.tf32-speed-precision", "-m", "gpu",
                   "-k", "matmul_error", patch=MATMUL_IGNORES_ALLOW_TF32)
    assert_goes_red(run, "cudnn.tf32-speed-precision", "no TF32 kernel ran")


CONV_NOISE_PER_RUN = wrong_world(
    "torch.nn.modules.conv",
    '''
import os

original = module.Conv2d._conv_forward

def _conv_forward(self, input, weight, bias):
    return original(self, input, weight, bias) + (os.getpid() % 997 + 1) * 1e-6  # differs per process

module.Conv2d._conv_forward = _conv_forward
''',
)


@pytest.mark.needs(gpus=1)
def test_convolutions_that_vary_per_run_turn_deterministic_repro_red(run_spec):
    run = run_spec("tests/test_cudnn.py", "--claim", "cudnn.deterministic-repro", "-m", "gpu",
                   patch=CONV_NOISE_PER_RUN, timeout=600)
    assert_goes_red(run, "cudnn.deterministic-repro", "different results")


# TF32 switches that are remembered but never reach cuBLAS / cuDNN: TF32 is never used.
TF32_NEVER_USED = """
import torch
from torch.backends import ContextProp

_C = torch._C
_state = {"cublas": _C._get_cublas_allow_tf32(), "precision": _C._get_float32_matmul_precision(),
          "cudnn": _C._get_cudnn_allow_tf32()}
_C._set_cublas_allow_tf32(False)
_C._set_float32_matmul_precision("highest")
_C._set_cudnn_allow_tf32(False)
_C._get_cublas_allow_tf32 = lambda: _state["cublas"]
_C._set_cublas_allow_tf32 = lambda v: _state.__setitem__("cublas", bool(v))
_C._get_float32_matmul_precision = lambda: _state["precision"]
_C._set_float32_matmul_precision = lambda v: _state.__setitem__("precision", v)
type(torch.backends.cudnn).allow_tf32 = ContextProp(lambda: _state["cudnn"],
                                                    lambda v: _state.__setitem__("cudnn", bool(v)))
"""


# cudnn.benchmark that is remembered but never reaches cuDNN: in this process, and at start-up in
# every Python process the spec starts (the conv workers). Not spec_runner.wrong_world's
# after-import hook: torch.backends.cudnn replaces itself in sys.modules with a CudnnModule (whose
# class holds the benchmark property) while it executes, so that hook would patch the module
# object that import then discards.
NEVER_AUTOTUNES = """
import torch
from torch.backends import ContextProp

_state = {"on": torch._C._get_cudnn_benchmark()}
torch._C._set_cudnn_benchmark(False)
type(torch.backends.cudnn).benchmark = ContextProp(lambda: _state["on"], lambda v: _state.__setitem__("on", bool(v)))
"""


BENCHMARK_NEVER_AUTOTUNES = site_wide(NEVER_AUTOTUNES, in_process=NEVER_AUTOTUNES)


# The world the note describes: with cudnn.benchmark on, a fixed-shape network trains clearly
# faster. Made by skipping the convolutions' work while the flag is on (zeros plus the bias, the
# shape of the spec's padded 3x3 convolutions), in every Python process the spec starts (the conv
# workers set the flag after start-up). A quarter of the batch was not enough on an H100: the
# step's element-wise work and its noise left the comparison inconclusive.
BENCHMARK_MAKES_FIXED_SHAPES_FASTER = site_wide("""
import torch

_forward = torch.nn.Conv2d.forward


def forward(self, x):
    if torch.backends.cudnn.benchmark and x.dim() == 4 and self.padding == (1, 1) and self.stride == (1, 1):
        n, _, h, w = x.shape
        return x.new_zeros(n, self.out_channels, h, w) + self.bias.view(1, -1, 1, 1)
    return _forward(self, x)


torch.nn.Conv2d.forward = forward
""")


@pytest.mark.needs(gpus=1)
def test_tf32_that_is_never_used_does_not_hold(run_spec):
    run = run_spec("--claim", "cudnn.tf32-speed-precision", "tests/test_benchmarks_gpu.py", *SERIAL,
                   patch=TF32_NEVER_USED, timeout=600)
    assert_not_holding(run, "cudnn.tf32-speed-precision", "inconclusive")
    assert "not used" in (run.claim("cudnn.tf32-speed-precision")["reason"] or "")


@pytest.mark.needs(gpus=1)
def test_cudnn_benchmark_that_never_autotunes_does_not_hold(run_spec):
    # the two conv-net comparisons: the panel's rows (fixed shapes) add nothing to this world's check
    run = run_spec("--claim", "cudnn.benchmark-speedup", "tests/test_benchmarks_gpu.py", *SERIAL,
                   "-k", "not panel", patch=BENCHMARK_NEVER_AUTOTUNES, timeout=600)
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
                   "-k", "fixed_shape", patch=BENCHMARK_MAKES_FIXED_SHAPES_FASTER, timeout=600)
    assert_goes_red(run, "cudnn.benchmark-speedup", "measured the opposite of the claim")


@pytest.mark.needs(gpus=1)
def test_cudnn_benchmark_that_speeds_up_a_panel_layer_turns_benchmark_speedup_red(run_spec):
    run = run_spec("--claim", "cudnn.benchmark-speedup", "tests/test_benchmarks_gpu.py", *SERIAL,
                   "-k", "panel and 256", patch=BENCHMARK_MAKES_FIXED_SHAPES_FASTER, timeout=600)
    assert_goes_red(run, "cudnn.benchmark-speedup", "measured the opposite of the claim")
