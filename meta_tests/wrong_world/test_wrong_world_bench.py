"""Wrong-world checks for the benchmark claims (tests/test_benchmarks_cpu.py, test_benchmarks_gpu.py).

A benchmark claim must not hold in a world where the stated speed-up is absent: there its
verdict is inconclusive (the sides are as fast) or failed (the opposite measured, or the
memory half broken), never holds. The spec runs serially (-p no:xdist), as pytest-benchmark
needs. The GPU checks need a GPU, like the tests they check; here they skip with that reason.
A refuted speed-up claim is checked the other way too: in the world the note describes
(cudnn.benchmark making a fixed-shape network clearly faster) it reads failed.
"""
import pytest

from spec_runner import assert_goes_red, assert_not_holding, site_wide

SERIAL = ("-p", "no:xdist")

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

# float32 matmul computed in float64 and rounded back: float32 can only be slower.
FLOAT32_VIA_FLOAT64 = """
import torch

_matmul = torch.Tensor.__matmul__


def matmul(self, other):
    if self.dtype == torch.float32:
        return _matmul(self.double(), other.double()).float()
    return _matmul(self, other)


torch.Tensor.__matmul__ = matmul
"""

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


def test_no_grad_that_records_the_graph_does_not_hold(run_spec):
    run = run_spec("--claim", "autograd.no-grad-speed-memory", "tests/test_benchmarks_cpu.py", *SERIAL,
                   patch=NO_GRAD_RECORDS)
    assert_not_holding(run, "autograd.no-grad-speed-memory", "failed")
    # the exact memory half is checked first, so it is what catches this world, on every machine
    # (the timing half would only see the patched side's call overhead, inconclusive or "fails" by chance)
    assert "under no_grad the forward kept" in (run.claim("autograd.no-grad-speed-memory")["reason"] or "")


def test_float32_matmul_routed_through_float64_does_not_hold(run_spec):
    run = run_spec("--claim", "dtype.float-faster-than-double", "tests/test_benchmarks_cpu.py", *SERIAL,
                   patch=FLOAT32_VIA_FLOAT64)
    assert_not_holding(run, "dtype.float-faster-than-double", "inconclusive", "failed")


@pytest.mark.needs(gpus=1)
def test_tf32_that_is_never_used_does_not_hold(run_spec):
    run = run_spec("--claim", "cudnn.tf32-speed-precision", "tests/test_benchmarks_gpu.py", *SERIAL,
                   patch=TF32_NEVER_USED, timeout=600)
    assert_not_holding(run, "cudnn.tf32-speed-precision", "inconclusive")
    assert "not used" in (run.claim("cudnn.tf32-speed-precision")["reason"] or "")


@pytest.mark.needs(gpus=1)
def test_cudnn_benchmark_that_never_autotunes_does_not_hold(run_spec):
    run = run_spec("--claim", "cudnn.benchmark-speedup", "tests/test_benchmarks_gpu.py", *SERIAL,
                   patch=BENCHMARK_NEVER_AUTOTUNES, timeout=600)
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
