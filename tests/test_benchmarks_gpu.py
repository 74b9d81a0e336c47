"""Timing claims on the GPU: cudnn.benchmark and TF32. The measured ratios land in the claims
report (reports/claims.json / .md, "figures" of each test).

Notes: 002_d3afcdbaa9416717.txt › cuDNN benchmark 模式; 004_79576bb56bce5aea.txt › cuda (TF32).

Run serially: pytest -m benchmark -p no:xdist (under xdist these tests skip with a reason).
Both sides are timed with CUDA events in interleaved rounds; a speed-up is reported as the
median over rounds with half the inter-quartile range as spread. "X is faster" holds only when
every round clears the margin; otherwise the claim is reported inconclusive, never failed on
an absolute time.

cuDNN caches the algorithm it chose per convolution shape and per deterministic/TF32 flags, but
not per benchmark flag: in one process the side that meets a shape first decides the algorithm
for both. The cudnn.benchmark comparison therefore runs each side in a worker process of its
own, and the parent alternates the rounds between the two workers.
"""
import subprocess
import sys
import tempfile

import pytest
import torch

from fixtures.gpu import describe, interleaved_ms, ratio_stats, report, speed_verdict

pytestmark = [pytest.mark.benchmark, pytest.mark.needs(gpus=1, serial=True)]

ROUNDS = 7
BENCHMARK_MARGIN = 0.05  # cudnn.benchmark must win every round by more than 5 %
NEW_SHAPE_MARGIN = 0.25  # a first call per new shape must cost 25 % more in every pair
TF32_MARGIN = 0.5  # "much faster": every round at least 1.5x
NEW_SIZES = (33, 37, 41, 45, 49, 53, 57)  # spatial sizes neither worker has seen before

CONV_WORKER = r"""
import sys, time
import torch
from torch import nn

index, benchmark = int(sys.argv[1]), sys.argv[2] == "1"
torch.cuda.set_device(index)
torch.backends.cudnn.benchmark = benchmark
torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
    nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(),
    nn.Conv2d(128, 128, 3, padding=1), nn.ReLU(),
).cuda()


def step(x):
    net.zero_grad(set_to_none=True)
    net(x).sum().backward()


fixed = torch.randn(32, 64, 56, 56, device="cuda")
for _ in range(5):
    step(fixed)  # warm-up; the benchmark worker autotunes here
torch.cuda.synchronize()
print("ready", flush=True)
for line in sys.stdin:
    command, arg = line.split()
    if command == "steady":  # ms per training step on the fixed shape
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(int(arg)):
            step(fixed)
        end.record()
        end.synchronize()
        print(start.elapsed_time(end) / int(arg), flush=True)
    elif command == "new":  # ms of the first training step on a shape never seen before
        x = torch.randn(8, 64, int(arg), int(arg), device="cuda")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step(x)
        torch.cuda.synchronize()
        print((time.perf_counter() - t0) * 1e3, flush=True)
"""


class ConvWorkers:
    """Two worker processes, cudnn.benchmark off and on, answering timing commands in turn."""

    def __init__(self, device_index: int):
        self.procs = {}
        for name, flag in (("off", "0"), ("on", "1")):
            log = tempfile.TemporaryFile(mode="w+")
            proc = subprocess.Popen([sys.executable, "-c", CONV_WORKER, str(device_index), flag],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
            self.procs[name] = (proc, log)
        for name in self.procs:
            assert self._read(name) == "ready"

    def _read(self, name) -> str:
        proc, log = self.procs[name]
        line = proc.stdout.readline()
        if not line:
            log.seek(0)
            raise AssertionError(f"cudnn.benchmark={name} worker died:\n{log.read()[-2000:]}")
        return line.strip()

    def ask(self, name, command) -> float:
        proc, _ = self.procs[name]
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        return float(self._read(name))

    def close(self):
        for proc, log in self.procs.values():
            proc.stdin.close()
            proc.wait(timeout=60)
            log.close()


@pytest.fixture
def conv_workers(cuda_device):
    workers = ConvWorkers(cuda_device.index)
    yield workers
    workers.close()


def tf32_hardware():
    return torch.cuda.get_device_capability() >= (8, 0)  # Ampere and later


# --- cudnn.benchmark-speedup ------------------------------------------------------------------


@pytest.mark.claim("cudnn.benchmark-speedup")
def test_cudnn_benchmark_speeds_up_a_fixed_shape_conv_net(conv_workers, claim_figure, claim_inconclusive):
    off, on = [], []
    for _ in range(ROUNDS):
        off.append(conv_workers.ask("off", "steady 20"))
        on.append(conv_workers.ask("on", "steady 20"))
    stats = ratio_stats(off, on)
    report(claim_figure, "cudnn.benchmark on vs off, fixed-shape conv net training step", stats,
           off_ms=round(sorted(off)[ROUNDS // 2], 3), on_ms=round(sorted(on)[ROUNDS // 2], 3))
    verdict = speed_verdict(stats, BENCHMARK_MARGIN)
    assert verdict != "slower", f"cudnn.benchmark made the fixed-shape net slower: {describe(stats)}"
    if verdict == "inconclusive":
        claim_inconclusive(f"cudnn.benchmark fixed-shape {describe(stats)}: within the {BENCHMARK_MARGIN:.0%} margin")


@pytest.mark.claim("cudnn.benchmark-speedup")
def test_cudnn_benchmark_pays_autotuning_on_every_new_input_shape(conv_workers, claim_figure, claim_inconclusive):
    off, on = [], []
    for size in NEW_SIZES:
        off.append(conv_workers.ask("off", f"new {size}"))
        on.append(conv_workers.ask("on", f"new {size}"))
    stats = ratio_stats(off, on)  # below 1: the benchmark worker is slower on a new shape
    report(claim_figure, "cudnn.benchmark on vs off, first step on a new input shape", stats,
           off_ms=[round(t, 2) for t in off], on_ms=[round(t, 2) for t in on])
    verdict = speed_verdict(stats, NEW_SHAPE_MARGIN)
    assert verdict != "faster", f"a new shape was cheaper with cudnn.benchmark on: {describe(stats)}"
    if verdict == "inconclusive":
        claim_inconclusive(f"first call on a new shape, benchmark on vs off: {describe(stats)}")


# --- cudnn.tf32-speed-precision ----------------------------------------------------------------


def relative_error(result, reference):
    return ((result.double() - reference).norm() / reference.norm()).item()


def decide_tf32(stats, name, claim_inconclusive):
    if not tf32_hardware():
        claim_inconclusive(f"{name}: GPU sm_{''.join(map(str, torch.cuda.get_device_capability()))} has no TF32 units")
        return
    verdict = speed_verdict(stats, TF32_MARGIN)
    assert verdict != "slower", f"{name}: TF32 was slower, {describe(stats)}"
    if verdict == "inconclusive":
        claim_inconclusive(f"{name}: {describe(stats)}, not clearly above {1 + TF32_MARGIN:.1f}x")


@pytest.mark.claim("cudnn.tf32-speed-precision")
@pytest.mark.parametrize("switch", ["allow_tf32", "set_float32_matmul_precision"])
def test_tf32_makes_float32_matmul_much_faster_and_less_precise(
    switch, cuda_device, precision_flags, claim_figure, claim_inconclusive
):
    n = 8192
    a = torch.randn(n, n, device=cuda_device)
    b = torch.randn(n, n, device=cuda_device)

    def use_tf32(on):
        if switch == "allow_tf32":
            torch.backends.cuda.matmul.allow_tf32 = on
        else:
            torch.set_float32_matmul_precision("high" if on else "highest")

    def side(on):
        def run():
            use_tf32(on)
            return a @ b
        return run

    times = interleaved_ms({"fp32": side(False), "tf32": side(True)}, rounds=ROUNDS, iters=5)
    stats = ratio_stats(times["fp32"], times["tf32"])
    reference = a[:1024].double() @ b.double()
    errors = {}
    for on in (False, True):
        use_tf32(on)
        errors[on] = relative_error(a[:1024] @ b, reference)
    report(claim_figure, f"TF32 vs FP32 matmul {n}x{n} via {switch}", stats,
           fp32_rel_error=float(f"{errors[False]:.3g}"), tf32_rel_error=float(f"{errors[True]:.3g}"))
    if tf32_hardware():
        assert errors[True] > 50 * errors[False], f"TF32 error {errors[True]:.2e} vs FP32 {errors[False]:.2e}"
    decide_tf32(stats, f"matmul via {switch}", claim_inconclusive)


@pytest.mark.claim("cudnn.tf32-speed-precision")
def test_tf32_makes_float32_convolution_much_faster_and_less_precise(
    cuda_device, precision_flags, claim_figure, claim_inconclusive
):
    x = torch.randn(32, 128, 64, 64, device=cuda_device)
    w = torch.randn(128, 128, 3, 3, device=cuda_device)

    def side(on):
        def run():
            torch.backends.cudnn.allow_tf32 = on
            return torch.nn.functional.conv2d(x, w, padding=1)
        return run

    times = interleaved_ms({"fp32": side(False), "tf32": side(True)}, rounds=ROUNDS, iters=5)
    stats = ratio_stats(times["fp32"], times["tf32"])
    reference = torch.nn.functional.conv2d(x[:2].double(), w.double(), padding=1)
    errors = {}
    for on in (False, True):
        torch.backends.cudnn.allow_tf32 = on
        errors[on] = relative_error(torch.nn.functional.conv2d(x[:2], w, padding=1), reference)
    report(claim_figure, "TF32 vs FP32 conv2d 32x128x64x64, 3x3, 128 filters", stats,
           fp32_rel_error=float(f"{errors[False]:.3g}"), tf32_rel_error=float(f"{errors[True]:.3g}"))
    if tf32_hardware():
        assert errors[True] > 50 * errors[False], f"TF32 error {errors[True]:.2e} vs FP32 {errors[False]:.2e}"
    decide_tf32(stats, "conv2d via cudnn.allow_tf32", claim_inconclusive)
