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
    a matmul that starts on another stream while the matmul it reads is still running (no wait)
                                                  -> cuda.pipelined-dependency red
    DataParallel on three GPUs that talks to no other GPU (its communication does not grow)
                                                  -> dist.dp-comm-scaling red (three GPUs)
    DDP ranks that lose 10 ms per forward          -> dist.ddp-faster red (two GPUs)
    is_available() that says True with no GPU visible (CPU, shown red here; fresh processes)
                                                  -> cuda.is-available red

Not covered: dist.dp-low-utilization (a DataParallel that keeps both GPUs busy cannot be
made by patching Python; doing less work instead would make the check depend on how GEMM
time scales with rows).
"""
import pytest

from spec_runner import assert_goes_red
from test_wrong_world_autograd_optim import AMP_NO_BACKOFF_WORLD as NO_BACKOFF
from test_wrong_world_dist import wrong_world

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

CUDA_AUTOCAST_IN_FLOAT32 = """
import torch

_Autocast = torch.autocast


class autocast(_Autocast):
    def __init__(self, device_type, *args, **kwargs):
        super().__init__(device_type, *args, **kwargs)
        if device_type == "cuda":
            self._enabled = False


torch.autocast = autocast
torch.amp.autocast = autocast
"""

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

_matmul = torch.Tensor.__matmul__
_side = {}


def __matmul__(a, b):
    producer = getattr(a, "_wrong_world_producer", None)
    if a.is_cuda and producer is not None and not producer.query():
        # the consumer starts while its producer still runs: another stream, no wait on either side
        if a.device not in _side:
            _side[a.device] = torch.cuda.Stream(a.device)
        with torch.cuda.stream(_side[a.device]):
            return _matmul(a, b)
    out = _matmul(a, b)
    if isinstance(out, torch.Tensor) and out.is_cuda:
        out._wrong_world_producer = torch.cuda.Event()
        out._wrong_world_producer.record()
    return out


torch.Tensor.__matmul__ = __matmul__
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

IS_AVAILABLE_ALWAYS = wrong_world("torch.cuda", "module.is_available = lambda: True")


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


@pytest.mark.needs(gpus=1, serial=True)
def test_a_dependent_matmul_that_does_not_wait_turns_pipelined_dependency_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.pipelined-dependency", "-m", "gpu",
                   "-k", "dependent_kernel", patch=DEPENDENT_MATMUL_DOES_NOT_WAIT)
    assert_goes_red(run, "cuda.pipelined-dependency", "overlapped the first")


@pytest.mark.needs(gpus=3, serial=True)
def test_dataparallel_quiet_on_three_gpus_turns_comm_scaling_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.dp-comm-scaling", "-m", "gpu and benchmark",
                   "-k", "grows_from_two_to_three", patch=DATAPARALLEL_QUIET_ON_THREE_GPUS, timeout=300)
    assert_goes_red(run, "dist.dp-comm-scaling", "measured the opposite of the claim")


@pytest.mark.needs(gpus=2, processes=True, serial=True)
def test_ddp_ranks_that_lose_time_every_step_turn_ddp_faster_red(run_spec):
    run = run_spec("tests/test_dist_ddp.py", "--claim", "dist.ddp-faster", "-m", "gpu and benchmark",
                   "-k", "ddp_steps_faster", patch=SLOW_DDP_FORWARD, timeout=500)
    assert_goes_red(run, "dist.ddp-faster", "measured the opposite of the claim")


def test_is_available_true_without_a_gpu_turns_is_available_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.is-available", "-m", "cpu",
                   "-k", "no_gpu_is_visible", patch=IS_AVAILABLE_ALWAYS)
    assert_goes_red(run, "cuda.is-available", "'available': True")
