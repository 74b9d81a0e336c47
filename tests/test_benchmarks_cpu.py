"""Timing claims on the CPU, measured with pytest-benchmark (fixtures/bench.py).

Notes: 000_03e1e7bc9bbd04f1.txt › 4. 张量 › 数据类型转换 and 002_d3afcdbaa9416717.txt ›
数据类型转换 (FloatTensor much faster than DoubleTensor); 001_eaed12e493b64ab2.txt ›
@torch.no_grad() 和 model.eval() (no_grad speeds up computation and saves memory).

pytest-benchmark disables itself under xdist, so these tests declare needs(serial=True) and
run in a serial step of their own:

    pytest -m "cpu and benchmark" -p no:xdist [--benchmark-json FILE]

Each test is one comparison: both sides are pytest-benchmark benchmarks in a group named
after the claim, timed in interleaved rounds on one intra-op thread; the claim holds only
when the noise band of the time ratio clears the claim's threshold, and is inconclusive (not
failed) when noise cannot decide. The memory half of the no_grad claim is measured here too;
test_autograd.py keeps a plain check of it as supporting evidence.
"""
import pytest
import torch
from torch import nn

from fixtures.tensors import SavedTensorBytes
from fixtures.threads import one_thread

pytestmark = [pytest.mark.benchmark, pytest.mark.needs(serial=True)]


# --- autograd.no-grad-speed-memory ---------------------------------------------------------


@pytest.mark.claim("autograd.no-grad-speed-memory")
def test_no_grad_forward_is_faster_and_keeps_no_activations(bench, claim_figure):
    net = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(64, 64), nn.Tanh())])
    x = torch.randn(32, 64)

    def recording():
        return net(x)

    def not_recording():
        with torch.no_grad():
            return net(x)

    # the memory half is exact, so it is checked before the timing half
    exclude = list(net.parameters()) + [x]
    with SavedTensorBytes(exclude) as saved:
        recording()
    kept = saved.bytes
    with SavedTensorBytes(exclude) as saved_no_grad:
        not_recording()
    kept_no_grad = saved_no_grad.bytes
    claim_figure("activation bytes the graph keeps for backward (recording forward)", kept, unit="bytes",
                 under_no_grad=kept_no_grad)
    # each of the six blocks keeps at least one 32x64 float32 activation for backward
    assert kept >= 6 * 32 * 64 * 4, f"the recording forward kept {kept} bytes, expected >= {6 * 32 * 64 * 4}"
    assert kept_no_grad == 0, f"under no_grad the forward kept {kept_no_grad} bytes for backward, expected 0"

    with one_thread():
        result = bench.compare(
            "autograd.no-grad-speed-memory",
            bench.side("recording", recording),
            bench.side("no_grad", not_recording),
            rounds=51, calls=2, blocks=3, warmup_rounds=3,
        )
    result.decide("forward time recording / under no_grad (6 x Linear(64)+Tanh, batch 32, 1 thread)",
                  holds_above=1.03, fails_below=0.97)


# --- dtype.float-faster-than-double -------------------------------------------------------


@pytest.mark.claim("dtype.float-faster-than-double")
def test_float32_matmul_is_faster_than_float64(bench):
    n = 192  # about 0.2 ms (float32) and 0.6 ms (float64) per product on one core
    a32, b32 = torch.randn(n, n), torch.randn(n, n)
    a64, b64 = a32.double(), b32.double()
    with one_thread():
        result = bench.compare(
            "dtype.float-faster-than-double",
            bench.side("float64", lambda: a64 @ b64),
            bench.side("float32", lambda: a32 @ b32),
            rounds=31, calls=2, blocks=3, warmup_rounds=2,
        )
    # "much faster": the whole noise band above 1.25x; a clear float64 win fails the test
    result.decide(f"float64 / float32 matmul time ({n}x{n}, 1 thread)", holds_above=1.25, fails_below=0.8)
