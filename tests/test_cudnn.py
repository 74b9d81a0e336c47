"""cuDNN and TF32 flags: their defaults per torch version, what cudnn.deterministic does to
run-to-run repeatability, and what TF32 does to float32 precision.

Notes: 002_d3afcdbaa9416717.txt › cuDNN benchmark 模式 (benchmark "默认False");
000_03e1e7bc9bbd04f1.txt › 2. 随机种子 (cudnn.deterministic + benchmark);
004_79576bb56bce5aea.txt › cuda (matmul.allow_tf32 and cudnn.allow_tf32 "defaults to True" since 1.7).

cudnn.deterministic-repro compares the note's two flags with a control (deterministic off,
benchmark on), each side in fresh processes: cuDNN caches the algorithm it picked per process,
so only separate runs show run-to-run differences.

Version boundaries:
- torch 1.12 turned TF32 for matmul off by default (torch.backends.cuda.matmul.allow_tf32 False,
  torch.get_float32_matmul_precision() "highest"); cuDNN convolutions keep TF32 on by default.
- torch 2.9 added the fp32_precision API (torch.backends.cuda.matmul.fp32_precision,
  torch.backends.cudnn.conv/rnn.fp32_precision) beside the allow_tf32 flags; 2.8 lacks it.

The speed side of TF32 is measured in test_benchmarks_gpu.py; the precision side is here.

Allowing TF32 permits it, it does not force it: cuDNN may still pick a kernel that computes in
full float32 (and, with TF32 off, an FFT or Winograd kernel with its own, larger error). The
precision tests therefore record the CUDA kernels that ran (torch.profiler) and classify them:
TF32 allowed but no TF32 kernel ran is inconclusive, not failed; so is a float32 side computed
by FFT/Winograd. cuBLAS does use TF32 tensor cores for a large float32 matmul when allowed on
Ampere or later, so there "TF32 not used" is a failure.
"""
import contextlib
import json
import re
import sys

import pytest
import torch

from fixtures import procs
from fixtures.boundaries import MATMUL_TF32_OFF_SINCE
from fixtures.gpu import relative_error, run_and_kernels, sm_name, tf32_hardware, used_tf32
from fixtures.state_guard import FP32_PRECISION_API_SINCE  # torch 2.9 release: torch.backends.*.fp32_precision
from fixtures.versions import torch_at_least


@contextlib.contextmanager
def float32_matmul_precision(value):
    """Use under the precision_flags fixture, which restores every related flag at teardown."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(value)
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


FFT_OR_WINOGRAD_KERNEL = re.compile(r"fft|winograd", re.IGNORECASE)


# --- cudnn.benchmark-default ------------------------------------------------------------


@pytest.mark.claim("cudnn.benchmark-default")
def test_cudnn_benchmark_defaults_to_false():
    assert torch.backends.cudnn.benchmark is False, (
        f"torch.backends.cudnn.benchmark = {torch.backends.cudnn.benchmark}, expected the default False"
    )
    # its companion flag from the seeding recipe is off by default too
    assert torch.backends.cudnn.deterministic is False


# --- cudnn.deterministic-repro --------------------------------------------------------------------


# One "training run" of convolutions, forward and backward, on shapes whose weight gradient
# reduces over many rows (where cuDNN has atomic-add algorithms to choose from). It prints a
# hash of each result per repeat: repeats inside a run reuse the cached algorithm, separate runs
# pick it again (with benchmark=True by timing, which can differ from run to run).
CONV_RUN = r"""
import hashlib, json, sys
import torch
from torch import nn

deterministic, benchmark = sys.argv[1] == "1", sys.argv[2] == "1"
torch.backends.cudnn.deterministic = deterministic
torch.backends.cudnn.benchmark = benchmark
torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
layers = [nn.Conv2d(64, 128, 3, padding=1), nn.Conv2d(16, 32, 5, padding=2), nn.Conv2d(3, 64, 7, stride=2)]
inputs = [(64, 64, 14, 14), (256, 16, 28, 28), (32, 3, 64, 64)]
hashes = []
for _ in range(3):
    digest = hashlib.sha256()
    for conv, shape in zip(layers, inputs):
        conv = conv.cuda()
        conv.zero_grad()
        torch.manual_seed(1)
        x = torch.randn(*shape, device="cuda", requires_grad=True)
        out = conv(x)
        out.square().sum().backward()
        for t in (out, x.grad, conv.weight.grad, conv.bias.grad):
            digest.update(t.detach().cpu().numpy().tobytes())
    hashes.append(digest.hexdigest())
print(json.dumps({"hashes": hashes, "flags": [torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark]}))
"""
RUNS_PER_SIDE = 3


def conv_runs(tmp_path, deterministic: bool, benchmark: bool) -> list:
    """RUNS_PER_SIDE fresh processes (side by side, on this worker's GPU); their hashes in run order."""
    script = tmp_path / "conv_run.py"
    script.write_text(CONV_RUN)
    side = f"det{int(deterministic)}-bench{int(benchmark)}"
    commands = [(f"{side}-run{i}", [sys.executable, script, int(deterministic), int(benchmark)],
                 procs.clean_env(gpus=1))
                for i in range(RUNS_PER_SIDE)]
    results = procs.run_group(commands, folder=tmp_path / side, timeout=240)
    for r in results:
        assert r.ok, r.describe()
    docs = [json.loads(r.stdout.strip().splitlines()[-1]) for r in results]
    assert all(d["flags"] == [deterministic, benchmark] for d in docs), docs
    return [d["hashes"] for d in docs]


@pytest.mark.claim("cudnn.deterministic-repro")
@pytest.mark.needs(gpus=1, processes=True)
def test_cudnn_deterministic_without_benchmark_repeats_runs_that_the_default_flags_may_not(
    tmp_path, claim_inconclusive
):
    recipe = conv_runs(tmp_path, deterministic=True, benchmark=False)  # the note's two lines
    control = conv_runs(tmp_path, deterministic=False, benchmark=True)  # the opposite of both
    distinct = {h for run in recipe for h in run}
    assert len(distinct) == 1, (
        f"with deterministic=True, benchmark=False the convolutions gave {len(distinct)} different results "
        f"over {RUNS_PER_SIDE} runs x 3 repeats: {recipe}"
    )
    control_distinct = {h for run in control for h in run}
    if len(control_distinct) == 1:
        # allowed: with the flags off cuDNN may still pick deterministic kernels on this GPU
        claim_inconclusive(
            f"the control (deterministic=False, benchmark=True) repeated too over {RUNS_PER_SIDE} runs: this "
            "GPU/cuDNN picked deterministic algorithms either way, so the flags' effect was not visible"
        )


# --- cudnn.tf32-matmul-default / cudnn.tf32-cudnn-default --------------------------------


@pytest.mark.claim("cudnn.tf32-matmul-default", decides="by-version")
def test_matmul_tf32_default_is_false_since_torch_1_12():
    expected = not torch_at_least(MATMUL_TF32_OFF_SINCE)
    actual = torch.backends.cuda.matmul.allow_tf32
    assert actual is expected, (
        f"torch {torch.__version__}: matmul.allow_tf32 defaults to {actual}, expected {expected} "
        f"(True from 1.7, False since {MATMUL_TF32_OFF_SINCE})"
    )
    if torch_at_least(MATMUL_TF32_OFF_SINCE):  # set_float32_matmul_precision arrived with the change
        assert torch.get_float32_matmul_precision() == "highest"


@pytest.mark.claim("cudnn.tf32-matmul-default", "cudnn.tf32-cudnn-default")
def test_fp32_precision_api_exists_from_torch_2_9():
    # asked of torch.backends: on torch 1.13 hasattr(torch.backends.cuda.matmul, ...) raises
    present = hasattr(torch.backends, "fp32_precision")
    assert present == torch_at_least(FP32_PRECISION_API_SINCE), (
        f"torch {torch.__version__}: fp32_precision API present = {present}, "
        f"expected only from {FP32_PRECISION_API_SINCE}"
    )


@pytest.mark.claim("cudnn.tf32-matmul-default", "cudnn.tf32-cudnn-default")
@pytest.mark.needs(min_torch=FP32_PRECISION_API_SINCE)
def test_fp32_precision_api_reports_tf32_off_for_matmul_and_on_for_cudnn():
    b = torch.backends
    assert b.cuda.matmul.fp32_precision != "tf32", f"matmul: {b.cuda.matmul.fp32_precision!r}"
    assert b.cudnn.conv.fp32_precision == "tf32", f"cudnn.conv: {b.cudnn.conv.fp32_precision!r}"
    assert b.cudnn.rnn.fp32_precision == "tf32", f"cudnn.rnn: {b.cudnn.rnn.fp32_precision!r}"


@pytest.mark.claim("cudnn.tf32-matmul-default")
@pytest.mark.needs(min_torch=MATMUL_TF32_OFF_SINCE)
def test_matmul_allow_tf32_and_float32_matmul_precision_are_one_setting(precision_flags):
    """The legacy flag and torch.set_float32_matmul_precision move together ('high' = TF32)."""
    flag, precision = torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()
    assert flag is (precision != "highest"), f"allow_tf32={flag} but float32 matmul precision {precision!r}"
    with float32_matmul_precision("high"):
        assert torch.backends.cuda.matmul.allow_tf32 is True
    with float32_matmul_precision("highest"):
        assert torch.backends.cuda.matmul.allow_tf32 is False
    torch.backends.cuda.matmul.allow_tf32 = not flag
    assert torch.get_float32_matmul_precision() == ("highest" if flag else "high")


@pytest.mark.claim("cudnn.tf32-cudnn-default")
def test_cudnn_tf32_default_is_true():
    assert torch.backends.cudnn.allow_tf32 is True, (
        f"cudnn.allow_tf32 = {torch.backends.cudnn.allow_tf32}, expected the default True"
    )


# --- cudnn.tf32-speed-precision: precision (speed: test_benchmarks_gpu.py) ---------------


def assert_tf32_error_scale(errors, kernels, device, claim_inconclusive, *, tf32_may_be_declined):
    """errors / kernels = {tf32_flag: relative error vs float64 / CUDA kernel names}:
    TF32 ~1e-3, FP32 orders of magnitude below. `tf32_may_be_declined`: the library may pick a
    non-TF32 kernel although TF32 is allowed (cuDNN), which makes the comparison inconclusive."""
    __tracebackhide__ = True
    seen = f"errors {errors}; kernels with TF32 allowed {kernels[True]}, with TF32 off {kernels[False]}"
    if not tf32_hardware(device):
        assert errors[True] < 1e-4, f"no TF32 units, yet the flag cost precision: {seen}"
        claim_inconclusive(f"GPU {sm_name()} has no TF32 units")
        return
    assert not used_tf32(kernels[False]), f"TF32 is off, yet a TF32 kernel ran: {seen}"
    tf32_ran = used_tf32(kernels[True])
    # TF32 keeps 10 mantissa bits: input rounding alone gives ~2^-11 relative error per product
    tf32_scale = 1e-4 < errors[True] < 3e-3
    if not tf32_ran and not tf32_scale:
        if tf32_may_be_declined:
            claim_inconclusive(f"TF32 was allowed but not used (no TF32 kernel, float32-sized error): {seen}")
            return
        pytest.fail(f"TF32 allowed on {sm_name()}, yet no TF32 kernel ran and the error stayed at float32 "
                    f"size: {seen}", pytrace=False)
    assert tf32_scale, f"TF32 relative error {errors[True]:.2e}, expected ~1e-3..1e-4: {seen}"
    if errors[False] >= errors[True] / 100 and any(FFT_OR_WINOGRAD_KERNEL.search(n) for n in kernels[False]):
        claim_inconclusive(f"the float32 side ran an FFT/Winograd kernel, whose own error "
                           f"{errors[False]:.2e} hides the gap to TF32's {errors[True]:.2e}: {seen}")
        return
    assert errors[False] < errors[True] / 100, f"FP32 error {errors[False]:.2e} vs TF32 {errors[True]:.2e}: {seen}"


@pytest.mark.claim("cudnn.tf32-speed-precision")
@pytest.mark.needs(gpus=1)
def test_tf32_matmul_error_is_about_1e_3_while_fp32_is_orders_smaller(cuda_device, precision_flags, claim_inconclusive):
    a = torch.randn(2048, 2048, device=cuda_device)
    b = torch.randn(2048, 2048, device=cuda_device)
    reference = a.double() @ b.double()  # exact products of the same float32 inputs
    errors, kernels = {}, {}
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a @ b  # warm-up: cuBLAS handles and workspaces are set up outside the profiled window
        product, kernels[tf32] = run_and_kernels(lambda: a @ b)
        errors[tf32] = relative_error(product, reference)
    assert_tf32_error_scale(errors, kernels, cuda_device, claim_inconclusive, tf32_may_be_declined=False)


@pytest.mark.claim("cudnn.tf32-speed-precision")
@pytest.mark.needs(gpus=1)
def test_tf32_conv_error_is_about_1e_3_while_fp32_is_orders_smaller(cuda_device, precision_flags, claim_inconclusive):
    x = torch.randn(16, 128, 32, 32, device=cuda_device)
    w = torch.randn(128, 128, 3, 3, device=cuda_device)
    reference = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
    errors, kernels = {}, {}
    for tf32 in (False, True):
        torch.backends.cudnn.allow_tf32 = tf32
        torch.nn.functional.conv2d(x, w, padding=1)  # warm-up: cuDNN picks and caches the plan here
        out, kernels[tf32] = run_and_kernels(lambda: torch.nn.functional.conv2d(x, w, padding=1))
        errors[tf32] = relative_error(out, reference)
    assert_tf32_error_scale(errors, kernels, cuda_device, claim_inconclusive, tf32_may_be_declined=True)


@pytest.mark.claim("cudnn.tf32-speed-precision")
@pytest.mark.needs(gpus=1, min_torch=MATMUL_TF32_OFF_SINCE)
def test_float32_matmul_precision_high_switches_matmul_to_tf32_but_not_convolutions(cuda_device, precision_flags):
    a = torch.randn(1024, 1024, device=cuda_device)
    b = torch.randn(1024, 1024, device=cuda_device)
    x = torch.randn(4, 32, 16, 16, device=cuda_device)
    w = torch.randn(32, 32, 3, 3, device=cuda_device)
    torch.backends.cudnn.allow_tf32 = False
    mm_ref = a.double() @ b.double()
    conv_ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
    with float32_matmul_precision("highest"):
        mm_highest = relative_error(a @ b, mm_ref)
        conv_highest = relative_error(torch.nn.functional.conv2d(x, w, padding=1), conv_ref)
    with float32_matmul_precision("high"):
        mm_high = relative_error(a @ b, mm_ref)
        conv_high = relative_error(torch.nn.functional.conv2d(x, w, padding=1), conv_ref)
    if tf32_hardware(cuda_device):
        assert mm_high > 50 * mm_highest, f"'high' matmul error {mm_high:.2e} vs 'highest' {mm_highest:.2e}"
    # the matmul setting leaves cuDNN alone: the convolution keeps full float32 precision
    assert conv_high == conv_highest, f"conv error moved with the matmul setting: {conv_highest:.2e} -> {conv_high:.2e}"
