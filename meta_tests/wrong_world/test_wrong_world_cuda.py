"""Wrong-world checks for the cuda claims. Most need a CUDA GPU, like the tests they check (the `gpu`
marker selects them): without one they skip with the reason. The spec run they start uses `-m gpu`
and names the spec file, so no other serial benchmark is pulled in; the timing one declares
needs(serial=True) too.

    scatter_add_ on CUDA made deterministic               -> cuda.seed-reproducible red
    get_device_name that is not the driver's              -> cuda.version-info red
    torch.cuda.synchronize that returns at once           -> cuda.synchronize red
    max_memory_allocated that reports the reserved peak, the memory the program occupies, as the
      note says                                           -> cuda.max-memory-allocated red
    a GPU kernel launch that waits for the kernel (the CPU cannot work meanwhile)
                                                          -> cuda.parallel-devices red (one GPU)
    a matmul that starts on another stream while the add it reads is still running (no wait)
                                                          -> cuda.pipelined-dependency red
    NCCL that lets two ranks share one GPU, as gloo does (fresh processes)
                                                          -> cuda.device-count-rank red
    is_available() that says True with no GPU visible (CPU, shown red here; fresh processes)
                                                          -> cuda.is-available red
    a command-line CUDA_VISIBLE_DEVICES=... prefix that beats the script's export in every
      Python the script starts (fresh processes)          -> cuda.visible-devices-priority red

cuda.device-string-multi is checked with amp.gpu-only (test_wrong_world_amp.py).
"""
import pytest

from spec_runner import assert_goes_red, wrong_world

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


@pytest.mark.needs(gpus=1)
def test_deterministic_cuda_scatter_add_turns_seed_reproducible_red(run_spec):
    run = run_spec("tests/test_cuda_seeds.py", "--claim", "cuda.seed-reproducible", "-m", "gpu",
                   patch=DETERMINISTIC_SCATTER_ADD)
    assert_goes_red(run, "cuda.seed-reproducible", "agreed bit for bit")


GENERIC_DEVICE_NAME = """
import torch

torch.cuda.get_device_name = lambda device=None: "CUDA GPU"
"""


@pytest.mark.needs(gpus=1)
def test_a_device_name_that_is_not_the_drivers_turns_version_info_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.version-info", "-m", "gpu",
                   patch=GENERIC_DEVICE_NAME)
    assert_goes_red(run, "cuda.version-info", "the CUDA driver")


SYNCHRONIZE_AT_ONCE = """
import torch

torch.cuda.synchronize = lambda device=None: None
"""


@pytest.mark.needs(gpus=1)
def test_a_synchronize_that_returns_at_once_turns_synchronize_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.synchronize", "-m", "gpu",
                   patch=SYNCHRONIZE_AT_ONCE)
    assert_goes_red(run, "cuda.synchronize", "synchronize() returned while")


# The world the note describes: max_memory_allocated() is the peak of what the program occupies,
# the caching allocator's reserved memory.
PEAK_IS_THE_RESERVED_MEMORY = """
import torch

torch.cuda.max_memory_allocated = torch.cuda.max_memory_reserved
"""


@pytest.mark.needs(gpus=1)
def test_a_peak_that_counts_the_reserved_memory_turns_max_memory_allocated_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.max-memory-allocated", "-m", "gpu",
                   patch=PEAK_IS_THE_RESERVED_MEMORY)
    assert_goes_red(run, "cuda.max-memory-allocated", "peak allocated")


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


@pytest.mark.needs(gpus=1, serial=True)
def test_a_dependent_matmul_that_does_not_wait_turns_pipelined_dependency_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.pipelined-dependency", "-m", "gpu",
                   "-k", "dependent_kernel", patch=DEPENDENT_MATMUL_DOES_NOT_WAIT)
    assert_goes_red(run, "cuda.pipelined-dependency", "overlapped its producer")


# Kernel launches that return only once the kernel is done: the spec's sleep kernel synchronises.
SLEEP_THAT_WAITS = """
import torch

_sleep = torch.cuda._sleep


def _sleep_and_wait(cycles):
    _sleep(cycles)
    torch.cuda.synchronize()


torch.cuda._sleep = _sleep_and_wait
"""


@pytest.mark.needs(gpus=1, serial=True)
def test_a_launch_that_waits_for_its_kernel_turns_parallel_devices_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.parallel-devices", "-m", "gpu",
                   "-p", "no:xdist", "-k", "cpu_and_a_gpu", patch=SLEEP_THAT_WAITS)
    assert_goes_red(run, "cuda.parallel-devices", "together vs")


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


@pytest.mark.needs(gpus=1, processes=True)
def test_nccl_that_lets_two_ranks_share_a_gpu_turns_device_count_rank_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.device-count-rank", "-m", "gpu",
                   "-k", "nccl_refuses", patch=NCCL_SHARES_A_GPU, timeout=300)
    assert_goes_red(run, "cuda.device-count-rank", "Duplicate GPU detected")


# in the children, and here: where this torch sees no GPU, no_gpu_python runs its code in the
# pytest process itself
IS_AVAILABLE_ALWAYS = wrong_world("torch.cuda", "module.is_available = lambda: True",
                                  in_process="import torch.cuda\ntorch.cuda.is_available = lambda: True\n")


def test_is_available_true_without_a_gpu_turns_is_available_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.is-available", "-m", "cpu",
                   "-k", "no_gpu_is_visible", patch=IS_AVAILABLE_ALWAYS)
    assert_goes_red(run, "cuda.is-available", "'available': True")


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


@pytest.mark.needs(gpus=1, min_torch="2.5")
def test_a_command_line_prefix_that_beats_the_export_turns_visible_devices_priority_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.visible-devices-priority", "-m", "gpu",
                   patch=COMMAND_LINE_PREFIX_BEATS_EXPORT)
    assert_goes_red(run, "cuda.visible-devices-priority", "device_count under the script's export: 0")
