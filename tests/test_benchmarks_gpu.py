"""Timing claims on the GPU, measured with pytest-benchmark (fixtures/bench.py): cudnn.benchmark
(one conv net, then a panel of layer types), TF32, and float32 against float64 GEMM.

Notes: 002_d3afcdbaa9416717.txt › cuDNN benchmark 模式; 004_79576bb56bce5aea.txt › cuda (TF32);
000_03e1e7bc9bbd04f1.txt › 4. 张量 › 数据类型转换 (FloatTensor much faster than DoubleTensor).

Run serially: pytest -m "gpu and benchmark" -p no:xdist (under xdist these tests skip with a
reason). Each test is one comparison: both sides are pytest-benchmark benchmarks in a group
named after the claim, timed in interleaved rounds, every timed call synchronised with the
GPU; the claim holds only when the noise band of the time ratio clears the claim's
threshold, and is inconclusive (not failed) when noise cannot decide.

cuDNN caches the algorithm it chose per convolution shape and per deterministic/TF32 flags, but
not per benchmark flag: in one process the side that meets a shape first decides the algorithm
for both. The cudnn.benchmark comparison therefore runs each side in a worker process of its
own (fixtures.procs.workers.LineWorker: every answer under a hard timeout); pytest-benchmark times, in
this process, each request up to the worker's synchronised answer. The changing-shapes
comparison gives every round (warm-up included) a shape neither worker has seen, so each
measured round pays the one-off cost the claim is about.

Allowing TF32 permits it, it does not force it. The TF32 tests check that TF32 really ran on
the TF32 side, two ways: the CUDA kernels' names (torch.profiler, one more call) and the numbers
of the last timed call itself (its output matches a float64 computation on inputs rounded to
TF32's 10-bit mantissa far better than one on the exact inputs). TF32 not used is inconclusive,
not failed.

The cudnn.benchmark panel (rule 7: a speed claim is refuted only on measurements that cover the
case the note states, "networks with fixed input shapes", whose outcome depends on the layers):
one training step of each layer type, timed with the flag off and on, each side in a worker
process of its own that serves every row of the panel in turn (two workers for the whole panel,
started once: the cuDNN algorithm cache is per layer shape, so the rows do not disturb each
other). The inventory's `covered_by` names the panel: until every row ran, the claim reads
inconclusive with the figures of what ran. A row that clears the speed-up threshold fails here,
as long as the standing is refuted: then the claim is partly, that row its holding half (add it
to SPEEDS_UP and make the standing partly, with the correction naming the row and its ratio).
"""
import json

import pytest
import torch
from torch import nn

from fixtures import gpu as gpu_helpers  # worker_cuda_index, for the panel's module-scoped workers
from fixtures.bench import cuda_synced
from fixtures.gpu import relative_error, run_and_kernels, sm_name, tf32_hardware, used_tf32
from fixtures.procs import line_workers

pytestmark = [pytest.mark.benchmark, pytest.mark.needs(gpus=1, serial=True)]

WORKER_START_S = 180  # torch import, CUDA context, warm-up (cuDNN autotuning on the benchmark side)
WORKER_ANSWER_S = 60  # one command: a few training steps, or a first step on a new shape
STEADY_STEPS = 10  # training steps per timed request on the fixed shape
NEW_SIZES = (33, 37, 41, 45, 49, 53, 61, 65, 69, 73)  # spatial sizes neither worker has seen before (fixed: 56)

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


def ms(fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


fixed = torch.randn(32, 64, 56, 56, device="cuda")
for _ in range(5):
    step(fixed)  # warm-up; the benchmark worker autotunes the fixed shape here
torch.cuda.synchronize()
print("ready", flush=True)
prepared = None
for line in sys.stdin:
    command, *arg = line.split()
    if command == "steady":  # N training steps on the fixed shape, synchronised
        print(ms(lambda: [step(fixed) for _ in range(int(arg[0]))]), flush=True)
    elif command == "prepare":  # an input of a shape never seen before (not timed)
        prepared = torch.randn(8, 64, int(arg[0]), int(arg[0]), device="cuda")
        torch.cuda.synchronize()
        print("ok", flush=True)
    elif command == "first":  # the first training step on the prepared shape, synchronised
        print(ms(lambda: step(prepared)), flush=True)
    else:
        print("unknown command " + line.strip(), flush=True)
"""


@pytest.fixture
def conv_workers(cuda_device):
    """{"off": worker, "on": worker}: cudnn.benchmark off / on, each in a process of its own."""
    specs = [((f"cudnn.benchmark={name}", CONV_WORKER, (cuda_device.index, flag)), {"timeout": WORKER_ANSWER_S})
             for name, flag in (("off", 0), ("on", 1))]
    with line_workers(*specs, ready_timeout=WORKER_START_S) as (off, on):
        yield {"off": off, "on": on}


# --- cudnn.benchmark-speedup ------------------------------------------------------------------


@pytest.mark.claim("cudnn.benchmark-speedup", decides="wrong")
def test_cudnn_benchmark_does_not_speed_up_a_fixed_shape_conv_net(bench, conv_workers):
    def side(name):
        return bench.side(name, lambda: conv_workers[name].ask(f"steady {STEADY_STEPS}"), steps=STEADY_STEPS)

    result = bench.compare("cudnn.benchmark-speedup: fixed shape", side("off"), side("on"),
                           rounds=11, blocks=2, warmup_rounds=2)
    # the truth measured (H100, cuDNN 9.19): no speed-up worth the name. The whole band under 1.05
    # holds; the whole band over it (a clear win of 5 % or more, as the note says) fails
    result.decide("training-step time cudnn.benchmark off / on, fixed-shape conv net (32x64x56x56)",
                  holds_below=1.05, fails_above=1.05)


@pytest.mark.claim("cudnn.benchmark-speedup")
def test_cudnn_benchmark_pays_autotuning_on_every_new_input_shape(bench, conv_workers):
    sizes = {name: iter(NEW_SIZES) for name in conv_workers}

    def side(name):
        worker = conv_workers[name]

        def prepare():
            assert worker.ask(f"prepare {next(sizes[name])}") == "ok"

        return bench.side(name, lambda: worker.ask("first"), setup=prepare)

    # one warm-up round on a new shape too: it absorbs lazy one-off costs that are not per shape
    result = bench.compare("cudnn.benchmark-speedup: changing shapes", side("off"), side("on"),
                           rounds=len(NEW_SIZES) - 1, warmup_rounds=1)
    # below 1: the first step on a new shape is slower with cudnn.benchmark on
    result.decide("first-step time on a new shape, cudnn.benchmark off / on", holds_below=0.8, fails_above=1.25)


# the panel: (id, layer, input shape, channels_last with float16, training steps per timed request)
PANEL = [
    ("depthwise", "nn.Conv2d(128, 128, 3, padding=1, groups=128)", (32, 128, 56, 56), False, 10),
    ("grouped", "nn.Conv2d(128, 128, 3, padding=1, groups=8)", (32, 128, 56, 56), False, 10),
    ("dilated", "nn.Conv2d(64, 64, 3, padding=2, dilation=2)", (32, 64, 56, 56), False, 10),
    ("stem-7x7-stride-2", "nn.Conv2d(3, 64, 7, stride=2, padding=3)", (32, 3, 224, 224), False, 10),
    ("odd-channels-37-to-91", "nn.Conv2d(37, 91, 3, padding=1)", (32, 37, 56, 56), False, 10),
    ("conv-transpose-4x4-stride-2", "nn.ConvTranspose2d(64, 32, 4, stride=2, padding=1)", (32, 64, 56, 56), False, 10),
    ("channels-last-fp16", "nn.Conv2d(64, 128, 3, padding=1)", (32, 64, 56, 56), True, 10),
    ("batch-1", "nn.Conv2d(64, 64, 3, padding=1)", (1, 64, 56, 56), False, 50),
    ("batch-256", "nn.Conv2d(64, 64, 3, padding=1)", (256, 64, 56, 56), False, 5),
    ("conv3d", "nn.Conv3d(32, 32, 3, padding=1)", (8, 32, 16, 56, 56), False, 10),
]
# rows measured to train faster with cudnn.benchmark on (the claim's holding half, once it is partly)
SPEEDS_UP = frozenset()
BENCHMARK_SPEEDUP = 1.05  # "speeds up": the whole noise band of off / on above 1.05, as for the conv net

PANEL_WORKER = r"""
import json, sys, time
import torch
from torch import nn

index, benchmark = int(sys.argv[1]), sys.argv[2] == "1"
torch.cuda.set_device(index)
torch.backends.cudnn.benchmark = benchmark
layer = x = None


def step():
    layer.zero_grad(set_to_none=True)
    layer(x).sum().backward()


print("ready", flush=True)
for line in sys.stdin:
    command, _, arg = line.strip().partition(" ")
    if command == "use":  # build a row's layer and input, then warm up (the benchmark side autotunes)
        layer = x = None
        torch.cuda.empty_cache()
        row = json.loads(arg)
        torch.manual_seed(0)
        dtype = torch.float16 if row["channels_last_fp16"] else torch.float32
        layer = eval(row["layer"]).cuda().to(dtype)
        x = torch.randn(row["shape"], device="cuda", dtype=dtype)
        if row["channels_last_fp16"]:
            layer = layer.to(memory_format=torch.channels_last)
            x = x.contiguous(memory_format=torch.channels_last)
        x.requires_grad_(row["shape"][1] != 3)  # an inner layer passes a gradient on; the stem's image does not
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        print("ok", flush=True)
    elif command == "steps":  # N training steps on the row's fixed shape, synchronised
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(int(arg)):
            step()
        torch.cuda.synchronize()
        print((time.perf_counter() - t0) * 1e3, flush=True)
    else:
        print("unknown command " + line.strip(), flush=True)
"""


@pytest.fixture(scope="module")
def panel_workers():
    """{"off": worker, "on": worker}, cudnn.benchmark off / on, serving every row of the panel."""
    specs = [((f"panel cudnn.benchmark={name}", PANEL_WORKER, (gpu_helpers.worker_cuda_index(), flag)),
              {"timeout": WORKER_ANSWER_S}) for name, flag in (("off", 0), ("on", 1))]
    with line_workers(*specs, ready_timeout=WORKER_START_S) as (off, on):
        yield {"off": off, "on": on}


def panel_rows():
    """PANEL as parameters; once a row is in SPEEDS_UP (the standing then partly) every row
    declares its half: a row that speeds up holds, the others are the case the note leaves out."""
    rows = []
    for row_id, layer, shape, half_cl, steps in PANEL:
        marks = []
        if SPEEDS_UP:
            half = "holding" if row_id in SPEEDS_UP else "failing"
            marks.append(pytest.mark.claim("cudnn.benchmark-speedup", half=half))
        rows.append(pytest.param(row_id, layer, shape, half_cl, steps, id=row_id, marks=marks))
    return rows


@pytest.mark.claim("cudnn.benchmark-speedup")
@pytest.mark.parametrize("row_id, layer, shape, channels_last_fp16, steps", panel_rows())
def test_cudnn_benchmark_panel_of_layer_types(row_id, layer, shape, channels_last_fp16, steps, bench, panel_workers):
    row = json.dumps({"layer": layer, "shape": list(shape), "channels_last_fp16": channels_last_fp16})
    for worker in panel_workers.values():
        assert worker.ask(f"use {row}") == "ok"

    def side(name):
        return bench.side(name, lambda: panel_workers[name].ask(f"steps {steps}"), steps=steps)

    result = bench.compare(f"cudnn.benchmark-speedup: panel, {row_id}", side("off"), side("on"),
                           rounds=7, blocks=2, warmup_rounds=1)
    figure = f"training-step time cudnn.benchmark off / on, {row_id}: {layer} on {'x'.join(map(str, shape))}" + (
        ", float16 channels_last" if channels_last_fp16 else "")
    if row_id in SPEEDS_UP:
        result.decide(figure, holds_above=BENCHMARK_SPEEDUP, fails_below=BENCHMARK_SPEEDUP, panel_row=row_id)
    else:  # a clear speed-up fails: the claim is then partly, with this row as its holding half
        result.decide(figure, holds_below=BENCHMARK_SPEEDUP, fails_above=BENCHMARK_SPEEDUP, panel_row=row_id)


# --- cudnn.tf32-speed-precision ----------------------------------------------------------------

TF32_SPEEDUP = 1.5  # "much faster": the whole noise band at least 1.5x


def tf32_rounded(t, nearest):
    """t with TF32's 10-bit mantissa: the low 13 bits cleared, after rounding to nearest or not."""
    bits = t.view(torch.int32)
    if nearest:
        bits = bits + 0x1000
    return (bits & -0x2000).view(torch.float32)


def kept(last: dict, name: str, fn):
    """fn, timed as it is, keeping its latest output in last[name] (the TF32 check reads it)."""
    def run():
        last[name] = fn()
        return last[name]
    return run


def tf32_evidence(out, compute, *inputs):
    """How `out` = compute(*inputs) was computed: its relative error against float64 on the exact
    inputs and against float64 on TF32-rounded inputs (the better of truncation and round-to-nearest)."""
    exact = relative_error(out, compute(*[t.double() for t in inputs]))
    emulated = min(relative_error(out, compute(*[tf32_rounded(t, nearest).double() for t in inputs]))
                   for nearest in (False, True))
    return {"error": exact, "error_vs_tf32_inputs": emulated}


def decide_tf32(bench, sides, compute, inputs, last, group, figure):
    """Time the sides; decide only when the TF32 side really ran TF32 and the FP32 side did not.
    last[name]: the output of that side's last timed call (sides built with `kept`)."""
    result = bench.compare(group, sides["fp32"], sides["tf32"], rounds=9, calls=3, warmup_rounds=2)
    evidence, kernels = {}, {}
    for name in ("fp32", "tf32"):
        evidence[name] = tf32_evidence(last[name], compute, *inputs)
        sides[name].setup()
        _, kernels[name] = run_and_kernels(lambda: compute(*inputs))
    by_name = {name: used_tf32(kernels[name]) for name in kernels}
    by_numbers = {name: e["error_vs_tf32_inputs"] < e["error"] / 4 for name, e in evidence.items()}
    extra = {"kernels": kernels, "tf32_error": float(f"{evidence['tf32']['error']:.3g}"),
             "fp32_error": float(f"{evidence['fp32']['error']:.3g}"),
             "tf32_by_kernel_name": by_name, "tf32_by_numbers": by_numbers}
    if not tf32_hardware():
        return result.inconclusive(figure, f"GPU {sm_name()} has no TF32 units", **extra)
    if not (by_name["tf32"] or by_numbers["tf32"]):
        return result.inconclusive(figure, f"TF32 was allowed but not used (kernels {kernels['tf32']}, "
                                           f"errors {evidence['tf32']})", **extra)
    if by_name["fp32"] or by_numbers["fp32"]:
        return result.inconclusive(figure, f"the float32 side ran TF32 too (kernels {kernels['fp32']}, "
                                           f"errors {evidence['fp32']})", **extra)
    if not evidence["tf32"]["error"] > 10 * evidence["fp32"]["error"]:
        return result.inconclusive(figure, f"the float32 side's own error {evidence['fp32']['error']:.2e} is not "
                                           f"far below TF32's {evidence['tf32']['error']:.2e}", **extra)
    return result.decide(figure, holds_above=TF32_SPEEDUP, fails_below=0.95, **extra)


@pytest.mark.claim("cudnn.tf32-speed-precision")
@pytest.mark.parametrize("switch", ["allow_tf32", "set_float32_matmul_precision"])
def test_tf32_makes_float32_matmul_much_faster_and_less_precise(switch, bench, cuda_device, precision_flags):
    n = 8192
    a = torch.randn(n, n, device=cuda_device)
    b = torch.randn(n, n, device=cuda_device)

    def use_tf32(on):
        if switch == "allow_tf32":
            torch.backends.cuda.matmul.allow_tf32 = on
        else:
            torch.set_float32_matmul_precision("high" if on else "highest")

    last = {}
    sides = {name: bench.side(name, cuda_synced(kept(last, name, lambda: a @ b)), setup=lambda on=on: use_tf32(on))
             for name, on in (("fp32", False), ("tf32", True))}
    decide_tf32(bench, sides, torch.matmul, (a, b), last, f"cudnn.tf32-speed-precision: matmul via {switch}",
                f"FP32 / TF32 matmul time, {n}x{n} via {switch}")


@pytest.mark.claim("cudnn.tf32-speed-precision")
def test_tf32_makes_float32_convolution_much_faster_and_less_precise(bench, cuda_device, precision_flags):
    x = torch.randn(32, 128, 64, 64, device=cuda_device)
    w = torch.randn(128, 128, 3, 3, device=cuda_device)

    def conv(inp, weight):
        return nn.functional.conv2d(inp, weight, padding=1)

    def use_tf32(on):
        torch.backends.cudnn.allow_tf32 = on

    last = {}
    sides = {name: bench.side(name, cuda_synced(kept(last, name, lambda: conv(x, w))), setup=lambda on=on: use_tf32(on))
             for name, on in (("fp32", False), ("tf32", True))}
    decide_tf32(bench, sides, conv, (x, w), last, "cudnn.tf32-speed-precision: conv2d",
                "FP32 / TF32 conv2d time, 32x128x64x64, 3x3, 128 filters, via cudnn.allow_tf32")


# --- dtype.float-faster-than-double (supporting: the note's FloatTensor / DoubleTensor are CPU types) ---


@pytest.mark.claim("dtype.float-faster-than-double")
def test_float32_against_float64_gemm_on_the_gpu(bench, cuda_device, precision_flags):
    """The note names torch.FloatTensor and torch.DoubleTensor, CPU tensor types: the CPU benchmark
    decides the claim (tests/test_benchmarks_cpu.py) and this GPU figure supports it. Hopper's
    FP64 tensor cores reach about the FP32 (non-tensor) peak, so the GPU may show no gap: that is
    inconclusive, not failed; float64 clearly faster fails, as on the CPU."""
    torch.backends.cuda.matmul.allow_tf32 = False  # plain FP32 against FP64, no TF32
    n = 8192
    a32, b32 = torch.randn(n, n, device=cuda_device), torch.randn(n, n, device=cuda_device)
    a64, b64 = a32.double(), b32.double()
    result = bench.compare("dtype.float-faster-than-double: GPU GEMM",
                           bench.side("float64", cuda_synced(lambda: a64 @ b64)),
                           bench.side("float32", cuda_synced(lambda: a32 @ b32)),
                           rounds=9, calls=3, warmup_rounds=2)
    result.decide(f"float64 / float32 GEMM time on {torch.cuda.get_device_name(cuda_device)} ({n}x{n}, no TF32)",
                  holds_above=1.25, fails_below=0.8, sm=sm_name(cuda_device))
