"""DataParallel and DistributedDataParallel.

Notes: 000_03e1e7bc9bbd04f1.txt › 4. torch.nn.DataParallel & DistributedDataParallel (threads
vs processes, one machine, speed, communication), › DP使用 (gather on the main GPU, low
utilization, the one-line wrap), › DDP使用 (same seed, synchronized loss);
003_df07c2a5da61a567.txt › 在多个 GPU 上训练神经网络 (DataParallel splits the batch, averaged
gradients, DDP(model.to(rank), device_ids=[rank]), load after wrapping, model.module.fc).

DDP is measured in the spawn world of two ranks (fixtures/dist_workers/spawn_world.py):
every rank seeds its model differently, wraps it, trains one step on its own data and
records parameters and gradients; the checkpoint cases load a constant-0.25 state dict
before or after wrapping, on rank 0 alone. DataParallel runs in this process; what it
does across GPUs needs two of them (not-run here, naming the count found); the wrapping error
needs only one. DataParallel on a single device skips replicate/scatter/gather altogether, so
"its communication grows with the number of GPUs" compares two and three GPUs, both really
parallel.
"""
from __future__ import annotations

import inspect
import json
import os
import sys
import threading
import time

import pytest
import torch
from torch import nn
from torch.testing import assert_close

from fixtures import procs
from fixtures.gpu import ratio_stats, report, speed_verdict
from fixtures.procs import world_section

LR = 0.1  # the world's SGD step


def t(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


class Probe(nn.Module):
    """Records (device, rows, thread, pid) of every forward call; replicas share the list."""

    def __init__(self, width: int = 4):
        super().__init__()
        self.lin = nn.Linear(width, 2)
        self.seen: list = []

    def forward(self, x):
        self.seen.append((str(x.device), x.shape[0], threading.get_ident(), os.getpid()))
        return self.lin(x)


def step_ms(fn, steps: int = 20, warmup: int = 5) -> float:
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / steps * 1e3


def mlp(width: int, depth: int) -> nn.Module:
    return nn.Sequential(*[m for _ in range(depth) for m in (nn.Linear(width, width), nn.ReLU())])


# --- DataParallel vs DDP ------------------------------------------------------------------


@pytest.mark.claim("dist.dp-threads-ddp-procs")
@pytest.mark.needs(gpus=2, processes=True)
def test_dataparallel_uses_threads_of_one_process_ddp_separate_processes(gloo_world):
    probe = Probe().to("cuda:0")
    nn.DataParallel(probe, device_ids=[0, 1])(torch.randn(8, 4))
    pids = {pid for _, _, _, pid in probe.seen}
    threads = {tid for _, _, tid, _ in probe.seen}
    assert pids == {os.getpid()} and len(threads) == 2, f"DataParallel replicas ran in {probe.seen}"
    ranks = world_section(gloo_world, "spawn")
    assert len({r["pid"] for r in ranks}) == procs.WORLD_SIZE, "DDP: one process per rank"


@pytest.mark.claim("dist.dp-single-node")
@pytest.mark.needs(processes=True)
def test_dataparallel_has_only_local_devices_ddp_a_process_group(gloo_world):
    dp_params = list(inspect.signature(nn.DataParallel.__init__).parameters)[1:]
    assert dp_params == ["module", "device_ids", "output_device", "dim"], dp_params  # no address, no group
    ddp_params = inspect.signature(nn.parallel.DistributedDataParallel.__init__).parameters
    assert "process_group" in ddp_params
    # DDP's replicas are separate processes that only share a TCP rendezvous (MASTER_ADDR:PORT)
    ddp = world_section(gloo_world, "ddp")
    assert len({r["pid"] for r in world_section(gloo_world, "spawn")}) == procs.WORLD_SIZE
    assert ddp[0]["after_step"] == ddp[1]["after_step"]


@pytest.mark.claim("dist.ddp-faster")
@pytest.mark.benchmark
@pytest.mark.slow
@pytest.mark.needs(gpus=2, processes=True, serial=True)
def test_ddp_steps_faster_than_dataparallel(tmp_path, claim_figure, claim_inconclusive):
    width, depth, batch = 1024, 6, 256

    def make(port):
        cmd = [sys.executable, "-m", "fixtures.dist_workers.ddp_bench", "--out", tmp_path / "ddp.json",
               "--port", port, "--width", width, "--depth", depth, "--batch", batch]
        return [("ddp-bench", cmd, procs.clean_env(gpus=2))]

    _, (result,) = procs.run_with_free_port(make, folder=tmp_path, timeout=procs.WORLD_TIMEOUT)
    assert result.ok, result.describe()
    ddp_ms = json.loads((tmp_path / "ddp.json").read_text())["ms_per_step"]
    torch.manual_seed(0)
    dp = nn.DataParallel(mlp(width, depth).to("cuda:0"), device_ids=[0, 1])
    opt = torch.optim.SGD(dp.parameters(), lr=0.01)
    x = torch.randn(2 * batch, width, device="cuda:0")

    def dp_step():
        opt.zero_grad()
        dp(x).pow(2).mean().backward()
        opt.step()

    dp_ms = step_ms(dp_step)
    ratio = dp_ms / ddp_ms
    claim_figure("DataParallel / DDP time per step (2 GPUs)", round(ratio, 3), unit="x")
    if 0.9 < ratio < 1.1:
        claim_inconclusive(f"DP {dp_ms:.2f} ms vs DDP {ddp_ms:.2f} ms per step: within noise")
    else:
        assert ratio > 1, f"DataParallel {dp_ms:.2f} ms/step, DDP {ddp_ms:.2f} ms/step"


COMM_ROWS_PER_GPU = 4  # weak scaling: the same tiny compute per GPU, so the step is communication
COMM_ROUNDS = 7
COMM_MARGIN = 0.05  # three GPUs must cost more than two by 5 % in every round


@pytest.mark.claim("dist.dp-comm-scaling")
@pytest.mark.benchmark
@pytest.mark.needs(gpus=3, serial=True)
def test_dataparallel_step_time_grows_from_two_to_three_gpus(claim_figure, claim_inconclusive):
    # parameter-heavy, compute-light: each step replicates 4 x 2048^2 weights from the main GPU to
    # every other one and reduces their gradients back; both sides really run DataParallel's
    # replicate/scatter/gather (on one device it skips them, so one GPU is no baseline)
    model = mlp(2048, 4).to("cuda:0")
    sides = {}
    for n in (2, 3):
        dp = nn.DataParallel(model, device_ids=list(range(n)))
        x = torch.randn(COMM_ROWS_PER_GPU * n, 2048, device="cuda:0")
        sides[n] = (lambda dp=dp, x=x: dp(x).sum().backward())
    times = {n: [] for n in sides}
    for _ in range(COMM_ROUNDS):  # interleaved: drift and neighbours hit both sides alike
        for n, fn in sides.items():
            times[n].append(step_ms(fn, steps=10, warmup=2))
    stats = ratio_stats(times[2], times[3])  # > 1 would mean three GPUs are faster
    growth = ratio_stats(times[3], times[2])  # time with 3 / time with 2, per round
    report(claim_figure, "DataParallel step time, 3 GPUs / 2 GPUs (same rows per GPU)", growth)
    verdict = speed_verdict(stats, COMM_MARGIN)
    if verdict == "inconclusive":
        claim_inconclusive(f"3 GPUs / 2 GPUs step time {growth['median']:.3f}x "
                           f"(rounds {growth['min']:.3f}..{growth['max']:.3f}): no growth beyond noise")
        return
    assert verdict == "slower", (
        f"three GPUs stepped faster than two ({growth['median']:.3f}x the time): DataParallel's overhead did not grow")


@pytest.mark.claim("dist.dp-gather-main")
@pytest.mark.needs(gpus=2)
def test_dataparallel_gathers_on_the_main_gpu_and_keeps_one_model():
    probe = Probe().to("cuda:0")
    dp = nn.DataParallel(probe, device_ids=[0, 1])
    out = dp(torch.randn(8, 4, device="cuda:0"))
    assert sorted(d for d, _, _, _ in probe.seen) == ["cuda:0", "cuda:1"], probe.seen
    assert out.device == torch.device("cuda:0") and out.shape[0] == 8
    out.sum().backward()
    # the gradients of both replicas end up on the one model that lives on the main GPU
    assert {str(p.grad.device) for p in dp.module.parameters()} == {"cuda:0"}
    assert [str(p.device) for p in dp.parameters()] == [str(p.device) for p in probe.parameters()]


@pytest.mark.claim("dist.dp-low-utilization")
@pytest.mark.benchmark
@pytest.mark.needs(gpus=2, serial=True)
def test_dataparallel_scales_worse_than_two_independent_gpus(claim_figure, claim_inconclusive):
    model = mlp(2048, 4).to("cuda:0")
    batch = 512
    half = torch.randn(batch // 2, 2048, device="cuda:0")
    full = torch.randn(batch, 2048, device="cuda:0")
    single_ms = step_ms(lambda: model(half).sum().backward())
    dp = nn.DataParallel(model, device_ids=[0, 1])
    dp_ms = step_ms(lambda: dp(full).sum().backward())
    efficiency = single_ms / dp_ms  # 1.0: the second GPU is fully used
    claim_figure("DataParallel scaling efficiency on 2 GPUs", round(efficiency, 3))
    if 0.8 <= efficiency < 0.95:
        claim_inconclusive(f"efficiency {efficiency:.2f}: neither clearly low nor full")
    else:
        assert efficiency < 0.8, f"efficiency {efficiency:.2f}: DataParallel kept both GPUs busy"


@pytest.mark.claim("dist.dp-wrap-one-line")
@pytest.mark.needs(gpus=1)
def test_wrapping_alone_fails_until_the_model_is_on_device_ids_0(cuda_device):
    # the note's line with one id: the device check is the same for one GPU as for three
    main = cuda_device.index
    model = nn.Linear(4, 2)
    net = nn.DataParallel(model, device_ids=[main])
    with pytest.raises(RuntimeError, match=rf"parameters and buffers on device cuda:{main} \(device_ids\[0\]\)"):
        net(torch.randn(8, 4))
    net = nn.DataParallel(model.to(cuda_device), device_ids=[main])
    assert net(torch.randn(8, 4)).shape == (8, 2)


DP_WITHOUT_GPUS = """
import json, torch
from torch import nn
seen = []
class Probe(nn.Linear):
    def forward(self, x):
        seen.append([str(x.device), x.shape[0]])
        return super().forward(x)
dp = nn.DataParallel(Probe(4, 2))          # device_ids default: every visible GPU, here none
out = dp(torch.randn(8, 4))
print(json.dumps({"device_ids": dp.device_ids, "calls": seen, "out": list(out.shape)}))
"""


@pytest.mark.claim("dist.dp-auto-split")
def test_without_a_visible_gpu_dataparallel_just_calls_the_module():
    """Supporting evidence (the note speaks of several GPUs): no GPU, no split."""
    import subprocess

    proc = subprocess.run([sys.executable, "-c", DP_WITHOUT_GPUS], env=procs.clean_env(CUDA_VISIBLE_DEVICES=""),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"device_ids": [], "calls": [["cpu", 8]], "out": [8, 2]}, got


@pytest.mark.claim("dist.dp-auto-split")
@pytest.mark.needs(gpus=1)
def test_with_one_gpu_dataparallel_moves_the_whole_batch_there(cuda_device):
    """Supporting evidence: with one device DataParallel moves the CPU input, whole, to it."""
    probe = Probe().to(cuda_device)
    out = nn.DataParallel(probe, device_ids=[cuda_device.index])(torch.randn(8, 4))
    assert [(d, n) for d, n, _, _ in probe.seen] == [(str(cuda_device), 8)], probe.seen
    assert out.device == cuda_device


@pytest.mark.claim("dist.dp-auto-split")
@pytest.mark.needs(gpus=2)
@pytest.mark.parametrize("source", ["cpu", "cuda:1"])
def test_dataparallel_scatters_from_wherever_the_input_is(source):
    probe = Probe().to("cuda:0")
    out = nn.DataParallel(probe, device_ids=[0, 1])(torch.randn(8, 4, device=source))
    assert sorted((d, n) for d, n, _, _ in probe.seen) == [("cuda:0", 4), ("cuda:1", 4)], probe.seen
    assert out.device == torch.device("cuda:0")


# --- DDP ------------------------------------------------------------------------------------


@pytest.mark.claim("dist.ddp-same-seed")
@pytest.mark.needs(processes=True)
def test_ddp_makes_differently_seeded_replicas_identical_at_construction(world):
    ddp = world_section(world, "ddp")
    assert ddp[0]["own_init"] != ddp[1]["own_init"], "the ranks were seeded differently"
    for rank, s in enumerate(ddp):
        assert s["after_wrap"] == ddp[0]["own_init"], f"rank {rank} kept its own weights after DDP(...)"
    assert ddp[0]["after_step"] == ddp[1]["after_step"], "replicas diverged after one step"


@pytest.mark.claim("dist.ddp-grad-average")
@pytest.mark.needs(processes=True)
def test_ddp_averages_gradients_and_leaves_each_loss_local(world):
    ddp = world_section(world, "ddp")
    mean = torch.stack([t(s["alone_grad"]) for s in ddp]).mean(0)
    total = torch.stack([t(s["alone_grad"]) for s in ddp]).sum(0)
    for rank, s in enumerate(ddp):
        assert_close(t(s["grad"]), mean, msg=lambda m: f"rank {rank}: DDP gradient is not the mean\n{m}")
        assert not torch.allclose(t(s["grad"]), total), "summed, not averaged"
        assert_close(t(s["after_step"]), t(s["after_wrap"]) - LR * t(s["grad"]))
        assert s["loss"] == s["alone_loss"], "the loss a rank sees is computed on its own data only"
    assert ddp[0]["loss"] != ddp[1]["loss"], "losses are not synchronized across ranks"


@pytest.mark.claim("dist.ddp-load-after-wrap")
@pytest.mark.needs(processes=True)
def test_checkpoint_loading_before_and_after_wrapping(world):
    ckpt = world_section(world, "load_after_wrap")
    for rank, s in enumerate(ckpt):
        # before wrapping, rank 0 alone: the constructor's broadcast gives everyone the checkpoint
        assert set(s["rank0_loads_before_wrap"]) == {0.25}, f"rank {rank}: {s['rank0_loads_before_wrap'][:4]}"
        err = s["plain_checkpoint_into_wrapper"] or ""
        assert "Missing key(s)" in err and '"module.fc.weight"' in err and "Unexpected key(s)" in err, err
        assert set(s["prefixed_checkpoint_into_wrapper"]) == {0.25}
    # after wrapping, rank 0 alone: never propagated, not even by a training step
    loaded = [t(s["rank0_loads_after_wrap"]) for s in ckpt]
    stepped = [t(s["rank0_loads_after_wrap_then_step"]) for s in ckpt]
    assert set(loaded[0].tolist()) == {0.25} and 0.25 not in set(loaded[1].tolist()), "rank 1 kept its own weights"
    # both ranks apply the same averaged gradient, so the gap between them stays as it was
    assert_close(stepped[0] - stepped[1], loaded[0] - loaded[1])
    assert not torch.equal(stepped[0], stepped[1])


@pytest.mark.claim("dist.ddp-device-ids")
@pytest.mark.needs(gpus=2, processes=True)
def test_each_rank_wraps_the_model_on_its_own_gpu(nccl_world):
    for rank, s in enumerate(world_section(nccl_world, "ddp")):
        assert s["device_ids"] == [rank] and s["param_device"] == f"cuda:{rank}", s


@pytest.mark.claim("dist.ddp-module-attr")
@pytest.mark.needs(processes=True)
def test_model_module_fc_is_the_wrapped_models_layer(world):
    for s in world_section(world, "ddp"):
        assert s["module_is_model"] and s["module_fc_is_fc"]
        assert "has no attribute 'fc'" in (s["wrapper_fc_error"] or ""), s["wrapper_fc_error"]
        assert s["wrapper_keys"] == ["module." + k for k in s["model_keys"]]
