"""Wrong-world checks for the GPU claims (cuda / cudnn / amp / dist). Most need a CUDA GPU:
without one they skip with the reason; the spec run they start uses `-m gpu` and names the
spec file, so no other serial benchmark is pulled in. Checks of timing claims run the
benchmark itself and declare needs(serial=True) too.

    scatter_add_ on CUDA made deterministic      -> cuda.seed-reproducible red
    TF32 never used by float32 matmuls            -> cudnn.tf32-speed-precision red
                                                     (a convolution that declines TF32 is inconclusive by design)
    GradScaler whose CUDA scale never backs off   -> amp.update-adjusts-scale red
    CUDA autocast that stays in float32           -> amp.float16-half red
    get_device_name that is not the driver's      -> cuda.version-info red
    torch.cuda.synchronize that returns at once   -> cuda.synchronize red
    convolutions that differ from run to run      -> cudnn.deterministic-repro red
      whatever the flags (fresh processes: patched through sitecustomize)
    a consumer of a non_blocking copy that does not wait for it (the copy on another stream)
                                                  -> dtype.to-non-blocking-semantics red
    a matmul that starts on another stream while the add it reads is still running (no wait)
                                                  -> cuda.pipelined-dependency red
    DataParallel on three GPUs that talks to no other GPU (its communication does not grow)
                                                  -> dist.dp-comm-scaling red (three GPUs)
    DDP ranks that lose 10 ms per forward          -> dist.ddp-faster failed or inconclusive, never
                                                     holds (two GPUs)
    NCCL that lets two ranks share one GPU, as gloo does (fresh processes)
                                                  -> cuda.device-count-rank red
    is_available() that says True with no GPU visible (CPU, shown red here; fresh processes)
                                                  -> cuda.is-available red
    DataLoader batches of CUDA TensorDataset tensors that come back on the CPU (the fetcher
      moves each batch)                           -> data.tensordataset-device red
    DataParallel whose scatter sends the whole batch to device_ids[0] only
                                                  -> dist.dp-auto-split red (two GPUs)
    SyncBatchNorm inside DataParallel that normalizes with the whole batch's statistics, as
      the note says (the whole batch on device_ids[0])
                                                  -> dist.syncbn-with-dp red (two GPUs)
    DDP whose buffer broadcast lands on the running statistics a forward saved for backward
      (plain BatchNorm always hits the in-place error, as the note says; NCCL spawn world,
      fresh processes; its gloo case goes red on CPU too, supporting evidence)
                                                  -> dist.bn-inplace-error red (two GPUs)
    a command-line CUDA_VISIBLE_DEVICES=... prefix that beats the script's export in every
      Python the script starts (fresh processes)  -> cuda.visible-devices-priority red

Not covered: dist.dp-low-utilization (a DataParallel that keeps both GPUs busy cannot be
made by patching Python; doing less work instead would make the check depend on how GEMM
time scales with rows).
"""
import pytest

from spec_runner import assert_goes_red, assert_not_holding, wrong_world
from worlds import AMP_NO_BACKOFF_WORLD as NO_BACKOFF
from worlds import autocast_left_in_float32

GPU = pytest.mark.needs(gpus=1)

DETERMINISTIC_SCATTER_ADD = """
import torch

_scatter_add_ = torch.Tensor.scatter_add_


def scatter_add_(self, dim, index, src):
    if not self.is_cuda:
        return _scatter_add_(self, dim, index, src)
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(True)  # a world where CUDA atomics always add in one order
    try:
        return _scatter_add_(self, dim, index, src)
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])


torch.Tensor.scatter_add_ = scatter_add_
"""

TF32_NEVER_USED = """
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

CUDA_AUTOCAST_IN_FLOAT32 = autocast_left_in_float32("cuda")

GENERIC_DEVICE_NAME = """
import torch

torch.cuda.get_device_name = lambda device=None: "CUDA GPU"
"""

SYNCHRONIZE_AT_ONCE = """
import torch

torch.cuda.synchronize = lambda device=None: None
"""

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

DEPENDENT_MATMUL_DOES_NOT_WAIT = """
import torch

_add = torch.Tensor.add
_matmul = torch.Tensor.__matmul__
_side = {}


def add(self, *args, **kwargs):
    out = _add(self, *args, **kwargs)
    if out.is_cuda:  # remember when the producer's output is complete
        out._wrong_world_producer = torch.cuda.Event()
        out._wrong_world_producer.record()
    return out


def __matmul__(a, b):
    producer = getattr(a, "_wrong_world_producer", None)
    if a.is_cuda and producer is not None and not producer.query():
        # the consumer starts while its producer still runs: another stream, no wait on either side
        if a.device not in _side:
            _side[a.device] = torch.cuda.Stream(a.device)
        with torch.cuda.stream(_side[a.device]):
            return _matmul(a, b)
    return _matmul(a, b)


torch.Tensor.add = add
torch.Tensor.__matmul__ = __matmul__
"""

NON_BLOCKING_COPY_NOT_AWAITED = """
import torch

_to = torch.Tensor.to
_side = {}


def to(self, *args, **kwargs):
    target = torch.device(args[0]) if args and isinstance(args[0], (str, torch.device)) else None
    if kwargs.get("non_blocking") and target is not None and target.type == "cuda" and self.is_pinned():
        # the copy runs on another stream and the current stream does not wait for it: work queued
        # after the copy starts on whatever has arrived
        out = torch.empty_like(self, device=target)
        side = _side.setdefault(out.device, torch.cuda.Stream(out.device))
        side.wait_stream(torch.cuda.current_stream(out.device))
        with torch.cuda.stream(side):
            out.copy_(self, non_blocking=True)
        return out
    return _to(self, *args, **kwargs)


torch.Tensor.to = to
"""

DATAPARALLEL_QUIET_ON_THREE_GPUS = """
import torch

_forward = torch.nn.DataParallel.forward


def forward(self, *inputs, **kwargs):
    if len(self.device_ids) > 2:  # the main GPU talks to no other one: no replicate, scatter or gather
        return self.module(*inputs, **kwargs)
    return _forward(self, *inputs, **kwargs)


torch.nn.DataParallel.forward = forward
"""

SLOW_DDP_FORWARD = wrong_world(
    "torch.nn.parallel.distributed",
    '''
import time

original = module.DistributedDataParallel.forward

def forward(self, *args, **kwargs):
    time.sleep(0.01)  # every DDP step loses 10 ms
    return original(self, *args, **kwargs)

module.DistributedDataParallel.forward = forward
''',
)

NCCL_SHARES_A_GPU = wrong_world(
    "torch.distributed.distributed_c10d",
    '''
original = module.init_process_group

def init_process_group(backend=None, *args, **kwargs):
    if backend == "nccl":
        backend = "gloo"  # a world whose NCCL lets two ranks share one GPU, as gloo does
    return original(backend, *args, **kwargs)

module.init_process_group = init_process_group
''',
)

# in the children, and here: where this torch sees no GPU, no_gpu_python runs its code in the
# pytest process itself
IS_AVAILABLE_ALWAYS = wrong_world("torch.cuda", "module.is_available = lambda: True",
                                  in_process="import torch.cuda\ntorch.cuda.is_available = lambda: True\n")


@GPU
def test_deterministic_cuda_scatter_add_turns_seed_reproducible_red(run_spec):
    run = run_spec("tests/test_seeds.py", "--claim", "cuda.seed-reproducible", "-m", "gpu",
                   patch=DETERMINISTIC_SCATTER_ADD)
    assert_goes_red(run, "cuda.seed-reproducible", "agreed bit for bit")


@GPU
def test_tf32_that_is_never_used_turns_tf32_speed_precision_red(run_spec):
    run = run_spec("tests/test_cudnn_tf32.py", "--claim", "cudnn.tf32-speed-precision", "-m", "gpu",
                   "-k", "matmul_error", patch=TF32_NEVER_USED)
    assert_goes_red(run, "cudnn.tf32-speed-precision", "no TF32 kernel ran")


@GPU
def test_a_cuda_scale_that_never_backs_off_turns_update_adjusts_scale_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.update-adjusts-scale", "-m", "gpu",
                   patch=NO_BACKOFF)
    assert_goes_red(run, "amp.update-adjusts-scale", "expected 16 * 0.5")


@GPU
def test_cuda_autocast_left_in_float32_turns_float16_half_red(run_spec):
    run = run_spec("tests/test_amp_autocast.py", "--claim", "amp.float16-half", "-m", "gpu",
                   patch=CUDA_AUTOCAST_IN_FLOAT32)
    assert_goes_red(run, "amp.float16-half", "torch.float32")


@GPU
def test_a_device_name_that_is_not_the_drivers_turns_version_info_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.version-info", "-m", "gpu",
                   patch=GENERIC_DEVICE_NAME)
    assert_goes_red(run, "cuda.version-info", "the CUDA driver")


@GPU
def test_a_synchronize_that_returns_at_once_turns_synchronize_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.synchronize", "-m", "gpu",
                   patch=SYNCHRONIZE_AT_ONCE)
    assert_goes_red(run, "cuda.synchronize", "synchronize() returned while")


@GPU
def test_convolutions_that_vary_per_run_turn_deterministic_repro_red(run_spec):
    run = run_spec("tests/test_seeds.py", "--claim", "cudnn.deterministic-repro", "-m", "gpu",
                   patch=CONV_NOISE_PER_RUN, timeout=600)
    assert_goes_red(run, "cudnn.deterministic-repro", "different results")


@GPU
def test_a_consumer_that_does_not_wait_for_a_non_blocking_copy_turns_non_blocking_semantics_red(run_spec):
    run = run_spec("tests/test_dtype.py", "--claim", "dtype.to-non-blocking-semantics", "-m", "gpu",
                   patch=NON_BLOCKING_COPY_NOT_AWAITED)
    assert_goes_red(run, "dtype.to-non-blocking-semantics", "started on partly arrived data")


@pytest.mark.needs(gpus=1, serial=True)
def test_a_dependent_matmul_that_does_not_wait_turns_pipelined_dependency_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.pipelined-dependency", "-m", "gpu",
                   "-k", "dependent_kernel", patch=DEPENDENT_MATMUL_DOES_NOT_WAIT)
    assert_goes_red(run, "cuda.pipelined-dependency", "overlapped its producer")


@pytest.mark.needs(gpus=3, serial=True)
def test_dataparallel_quiet_on_three_gpus_turns_comm_scaling_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-comm-scaling", "-m", "gpu and benchmark",
                   "-k", "grows_from_two_to_three", patch=DATAPARALLEL_QUIET_ON_THREE_GPUS, timeout=300)
    # pinned to "the opposite": the three-GPU side is a single-GPU pass here, so it talks less by construction
    assert_goes_red(run, "dist.dp-comm-scaling", "measured the opposite of the claim")


@pytest.mark.needs(gpus=2, processes=True, serial=True)
def test_ddp_ranks_that_lose_time_every_step_do_not_hold_ddp_faster(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.ddp-faster", "-m", "gpu and benchmark",
                   "-k", "ddp_steps_faster", patch=SLOW_DDP_FORWARD, timeout=500)
    # 10 ms more per forward may only cancel DDP's real lead (inconclusive), or reverse it (failed)
    assert_not_holding(run, "dist.ddp-faster", "failed", "inconclusive")


@pytest.mark.needs(gpus=1, processes=True)
def test_nccl_that_lets_two_ranks_share_a_gpu_turns_device_count_rank_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.device-count-rank", "-m", "gpu",
                   "-k", "nccl_refuses", patch=NCCL_SHARES_A_GPU, timeout=300)
    assert_goes_red(run, "cuda.device-count-rank", "Duplicate GPU detected")


def test_is_available_true_without_a_gpu_turns_is_available_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.is-available", "-m", "cpu",
                   "-k", "no_gpu_is_visible", patch=IS_AVAILABLE_ALWAYS)
    assert_goes_red(run, "cuda.is-available", "'available': True")


# --- data.tensordataset-device, dist.dp-auto-split, dist.syncbn-with-dp, dist.bn-inplace-error,
# --- cuda.visible-devices-priority

BATCHES_BACK_ON_THE_CPU = """
import torch
from torch.utils.data._utils import fetch

_fetch = fetch._MapDatasetFetcher.fetch


def _cpu(batch):
    if isinstance(batch, torch.Tensor):
        return batch.cpu()
    if isinstance(batch, (list, tuple)):
        return type(batch)(_cpu(b) for b in batch)
    return batch


def fetch_on_cpu(self, *args, **kwargs):
    return _cpu(_fetch(self, *args, **kwargs))  # every batch leaves the loader on the CPU


fetch._MapDatasetFetcher.fetch = fetch_on_cpu
"""

DATAPARALLEL_DOES_NOT_SPLIT = """
from torch import nn

_scatter = nn.DataParallel.scatter


def scatter(self, inputs, kwargs, device_ids):
    return _scatter(self, inputs, kwargs, list(device_ids)[:1])  # the whole batch to device_ids[0]


nn.DataParallel.scatter = scatter
"""

SYNCBN_SYNCED_UNDER_DATAPARALLEL = """
from torch import nn

_forward = nn.DataParallel.forward


def forward(self, *inputs, **kwargs):
    if len(self.device_ids) < 2 or not any(isinstance(m, nn.SyncBatchNorm) for m in self.module.modules()):
        return _forward(self, *inputs, **kwargs)
    # the replicas' SyncBatchNorm layers agree on one set of statistics, those of the whole
    # batch: the same as running the whole batch through the module on device_ids[0]
    ids = self.device_ids
    self.device_ids = ids[:1]
    try:
        return _forward(self, *inputs, **kwargs)
    finally:
        self.device_ids = ids


nn.DataParallel.forward = forward
"""

BUFFER_BROADCAST_HITS_SAVED_STATS = wrong_world(
    "torch.nn.parallel.distributed",
    '''
original = module.DistributedDataParallel.forward

def forward(self, *inputs, **kwargs):
    import torch

    out = original(self, *inputs, **kwargs)
    if self.broadcast_buffers:  # rank 0's buffers land in place after the forward saved them
        with torch.no_grad():
            for buffer in self.module.buffers():
                buffer.add_(0)
    return out

module.DistributedDataParallel.forward = forward
''',
)

# Python processes that a script starts see the CUDA_VISIBLE_DEVICES=... prefix the script was run
# with, whatever the script exported in between (the note's ranking: command line over script).
COMMAND_LINE_PREFIX_BEATS_EXPORT = wrong_world(
    "torch.cuda",
    '''
import os

prefix = os.environ.get("WRONG_WORLD_PREFIX_CUDA_VISIBLE_DEVICES")
if prefix is not None:  # set before CUDA starts: it decides what this process sees
    os.environ["CUDA_VISIBLE_DEVICES"] = prefix
''',
    in_process='''
import subprocess

_popen_init = subprocess.Popen.__init__

def _popen_with_prefix(self, args, *rest, **kwargs):
    env = kwargs.get("env")
    if isinstance(args, (list, tuple)) and args and args[0] == "sh" and env and "CUDA_VISIBLE_DEVICES" in env:
        kwargs["env"] = {**env, "WRONG_WORLD_PREFIX_CUDA_VISIBLE_DEVICES": env["CUDA_VISIBLE_DEVICES"]}
    _popen_init(self, args, *rest, **kwargs)

subprocess.Popen.__init__ = _popen_with_prefix
''',
)


@GPU
def test_loader_batches_back_on_the_cpu_turn_tensordataset_device_red(run_spec):
    run = run_spec("tests/test_data_loader.py", "--claim", "data.tensordataset-device", "-m", "gpu",
                   patch=BATCHES_BACK_ON_THE_CPU)
    assert_goes_red(run, "data.tensordataset-device", "device(type='cpu'), device(type='cpu')")


@pytest.mark.needs(gpus=2)
def test_dataparallel_that_does_not_split_turns_dp_auto_split_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-auto-split", "-m", "gpu",
                   "-k", "scatters_from_wherever", patch=DATAPARALLEL_DOES_NOT_SPLIT)
    assert_goes_red(run, "dist.dp-auto-split", "('cuda:0', 8, ")


# min_torch 2.0: before, SyncBatchNorm without a process group raises in the DataParallel replicas
# (get_world_size of an uninitialized default group), in the real world as in this one
@pytest.mark.needs(gpus=2, min_torch="2.0")
def test_syncbn_synced_across_dataparallel_replicas_turns_syncbn_with_dp_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.syncbn-with-dp", "-m", "gpu",
                   patch=SYNCBN_SYNCED_UNDER_DATAPARALLEL)
    assert_goes_red(run, "dist.syncbn-with-dp", "not per-replica statistics")


@pytest.mark.needs(gpus=2, processes=True)
def test_a_buffer_broadcast_that_hits_saved_stats_turns_bn_inplace_error_red(run_spec):
    run = run_spec("tests/test_dist_sampler_syncbn.py", "--claim", "dist.bn-inplace-error", "-m", "gpu",
                   "-k", "inplace_error_needs_two_forwards", patch=BUFFER_BROADCAST_HITS_SAVED_STATS, timeout=300)
    assert_goes_red(run, "dist.bn-inplace-error", "default/train_loop", "modified by an inplace operation")


@pytest.mark.needs(gpus=1, min_torch="2.5")
def test_a_command_line_prefix_that_beats_the_export_turns_visible_devices_priority_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.visible-devices-priority", "-m", "gpu",
                   patch=COMMAND_LINE_PREFIX_BEATS_EXPORT)
    assert_goes_red(run, "cuda.visible-devices-priority", "device_count under the script's export: 0")
