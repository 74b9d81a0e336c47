"""Wrong-world checks for the cuda claims. Most need a CUDA GPU, like the tests they check (the `gpu`
marker selects them): without one they skip with the reason. The spec run they start uses `-m gpu`
and names the spec file, so no other serial benchmark is pulled in; the timing one declares
needs(serial=True) too.

    scatter_add_ on CUDA made deterministic               -> cuda.seed-reproducible red (its failing half)
    get_device_name that is not the driver's              -> cuda.version-info red
    torch.cuda.synchronize that returns at once           -> cuda.synchronize red
    max_memory_allocated that reports the reserved peak, the memory the program occupies, as the
      note says                                           -> cuda.max-memory-allocated red
    a GPU kernel launch that waits for the kernel (the CPU cannot work meanwhile)
                                                          -> cuda.parallel-devices red (one GPU)
    a matmul that starts on another stream while the add it reads is still running (no wait)
                                                          -> cuda.pipelined-dependency red
    NCCL that lets two ranks share one GPU, as gloo does (fresh processes)
                                                          -> cuda.device-count-rank red (its holding half)
    is_available() that says True with no GPU visible (CPU, shown red here; fresh processes)
                                                          -> cuda.is-available red
    a command-line CUDA_VISIBLE_DEVICES=... prefix that beats the script's export in every
      Python the script starts (fresh processes)          -> cuda.visible-devices-priority red
    the notes' CUDA memory calls: empty_cache() that also frees what a Ctrl-C'd frame holds,
      reset_max_memory_allocated() that sets the peak to 0 (one spec run)
                                                          -> cuda.empty-cache, cuda.reset-max-memory red
    a command-line CUDA_VISIBLE_DEVICES=... that the program does not heed (fresh processes)
                                                          -> cuda.visible-devices-command-line red
    device_count() and is_available() that read CUDA_VISIBLE_DEVICES on every call, so setting it
      in code after CUDA started still hides the GPU (fresh processes)
                                                          -> cuda.visible-devices-code red (its failing half)
    the note's ranks as GPU indices: a gloo group refuses more ranks than visible GPUs (fresh
      processes)                                          -> cuda.device-count-rank red (its failing half)
    the note's world for several GPUs at once: set_device, Module.cuda and Tensor.cuda take
      several indices, and torch.device takes 'cuda:1,2' (CPU)
                                                          -> cuda.set-device-multi red,
                                                             cuda.single-index-one-device red

cuda.device-string-multi is checked with amp.gpu-only (test_wrong_world_amp.py).
"""
import pytest

from spec_runner import assert_failing_half_goes_red, assert_goes_red, assert_holding_half_goes_red


@pytest.mark.needs(gpus=1)
def test_deterministic_cuda_scatter_add_turns_seed_reproducible_red(run_spec):
    run = run_spec("tests/test_cuda_seeds.py", "--claim", "cuda.seed-reproducible", "-m", "gpu",
                   world="deterministic_cuda_scatter_add")
    assert_failing_half_goes_red(run, "cuda.seed-reproducible", "agreed bit for bit")


@pytest.mark.needs(gpus=1)
def test_a_device_name_that_is_not_the_drivers_turns_version_info_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.version-info", "-m", "gpu",
                   world="generic_device_name")
    assert_goes_red(run, "cuda.version-info", "the CUDA driver")


@pytest.mark.needs(gpus=1)
def test_a_synchronize_that_returns_at_once_turns_synchronize_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.synchronize", "-m", "gpu",
                   world="synchronize_returns_at_once")
    assert_goes_red(run, "cuda.synchronize", "synchronize() returned while")


@pytest.mark.needs(gpus=1)
def test_a_peak_that_counts_the_reserved_memory_turns_max_memory_allocated_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.max-memory-allocated", "-m", "gpu",
                   world="peak_is_the_reserved_memory")
    assert_goes_red(run, "cuda.max-memory-allocated", "peak allocated")


@pytest.mark.needs(gpus=1, serial=True)
def test_a_dependent_matmul_that_does_not_wait_turns_pipelined_dependency_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.pipelined-dependency", "-m", "gpu",
                   "-k", "dependent_kernel", world="dependent_matmul_does_not_wait")
    assert_goes_red(run, "cuda.pipelined-dependency", "overlapped its producer")


@pytest.mark.needs(gpus=1, serial=True)
def test_a_launch_that_waits_for_its_kernel_turns_parallel_devices_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.parallel-devices", "-m", "gpu",
                   "-p", "no:xdist", "-k", "cpu_and_a_gpu", world="kernel_launch_waits")
    assert_goes_red(run, "cuda.parallel-devices", "together vs")


@pytest.mark.needs(gpus=1, processes=True)
def test_nccl_that_lets_two_ranks_share_a_gpu_turns_device_count_rank_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.device-count-rank", "-m", "gpu",
                   "-k", "nccl_refuses", world="nccl_shares_a_gpu", timeout=300)
    assert_holding_half_goes_red(run, "cuda.device-count-rank", "Duplicate GPU detected")


def test_is_available_true_without_a_gpu_turns_is_available_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.is-available", "-m", "cpu",
                   "-k", "no_gpu_is_visible", world="is_available_always")
    assert_goes_red(run, "cuda.is-available", "'available': True")


@pytest.mark.needs(gpus=1, min_torch="2.5")
def test_a_command_line_prefix_that_beats_the_export_turns_visible_devices_priority_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.visible-devices-priority", "-m", "gpu",
                   world="command_line_prefix_beats_export")
    assert_goes_red(run, "cuda.visible-devices-priority", "device_count under the script's export: 0")


def test_cuda_calls_that_take_several_gpus_turn_set_device_multi_and_single_index_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.set-device-multi",
                   "--claim", "cuda.single-index-one-device", "-m", "cpu",
                   world=("cuda_calls_take_several_gpus", "lenient_device_parser"))
    assert_goes_red(run, "cuda.set-device-multi",
                    "test_set_device_with_several_indices_raises: call: Failed: DID NOT RAISE")
    assert_goes_red(run, "cuda.single-index-one-device", "DID NOT RAISE TypeError")


@pytest.mark.needs(gpus=1)
def test_memory_calls_as_the_notes_say_turn_empty_cache_and_reset_max_memory_red(run_spec):
    run = run_spec("tests/test_cuda_memory.py", "--claim", "cuda.empty-cache", "--claim", "cuda.reset-max-memory",
                   "-m", "gpu", world="cuda_memory_calls_as_the_notes_say")
    assert_goes_red(run, "cuda.empty-cache", "the traceback's frame still holds the tensor")
    assert_goes_red(run, "cuda.reset-max-memory", "peak after reset 0")


@pytest.mark.needs(gpus=1, min_torch="2.5")
def test_a_command_line_list_the_program_ignores_turns_visible_devices_command_line_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.visible-devices-command-line", "-m", "gpu",
                   world="command_line_visible_devices_ignored")
    # with one GPU the listed one is all there is: the empty list is what shows it
    assert_goes_red(run, "cuda.visible-devices-command-line", "CUDA_VISIBLE_DEVICES on the command line left")


@pytest.mark.needs(gpus=1, processes=True)
def test_ranks_that_must_be_gpus_turn_device_count_ranks_failing_half_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.device-count-rank", "-m", "gpu",
                   "-k", "ranks_number_processes", world="ranks_are_gpus", timeout=300)
    assert_failing_half_goes_red(run, "cuda.device-count-rank", "no GPU of its own")


@pytest.mark.needs(gpus=1)
def test_visible_devices_heeded_after_cuda_starts_turns_visible_devices_codes_failing_half_red(run_spec):
    run = run_spec("tests/test_cuda_devices.py", "--claim", "cuda.visible-devices-code", "-m", "gpu",
                   "-k", "after_cuda_starts", world="visible_devices_read_on_every_call")
    assert_failing_half_goes_red(run, "cuda.visible-devices-code", "'available': False")
