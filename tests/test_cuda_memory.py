"""GPU memory statistics, empty_cache, and asynchronous execution (synchronize, non_blocking, streams).

Notes: 004_79576bb56bce5aea.txt › 杂录 (max_memory_allocated, reset_max_memory_allocated);
002_d3afcdbaa9416717.txt › 清除GPU存储 (empty_cache after Ctrl-C);
003_df07c2a5da61a567.txt › 3 tensor 数据类型 (synchronize, printing waits, parallel devices,
dependent operations).

Memory is measured as deltas of this process (memory_allocated is per process), so the tests
hold when several xdist workers share a GPU. The synchronize and non_blocking claims are checked
by stream order, not by clocks: a long torch.cuda._sleep kernel (GPU clock cycles, calibrated
with CUDA events) is queued first, and CUDA events say whether it was still running when a call
returned; other workers' kernels can only make the sleep longer. The two claims that are about
durations (a dependent product after its producer, against the same kernels on two streams; two
GPUs at once) are timing tests: they
declare needs(serial=True) and the benchmark marker, skip under xdist, and run in the serial
benchmark step (`pytest -m "gpu and benchmark" -p no:xdist`).
"""
import gc
import time

import pytest
import torch

from fixtures.gpu import sleep_cycles_for

MiB = 2**20
BLOCK = 256 * MiB  # a multiple of the allocator's 2 MiB rounding: its size is counted exactly
SLEEP_MS = 200


def allocated(device):
    return torch.cuda.memory_allocated(device)


def reserved(device):
    return torch.cuda.memory_reserved(device)


def block(device):
    return torch.empty(BLOCK, dtype=torch.uint8, device=device)


# --- cuda.empty-cache -------------------------------------------------------------------------


@pytest.mark.claim("cuda.empty-cache", decides="wrong")
@pytest.mark.needs(gpus=1)
def test_empty_cache_returns_cached_blocks_but_not_live_tensors(cuda_device):
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    a0 = allocated(cuda_device)
    x = block(cuda_device)
    assert allocated(cuda_device) == a0 + BLOCK
    del x
    assert allocated(cuda_device) == a0, "a freed tensor no longer counts as allocated"
    cached = reserved(cuda_device)
    assert cached >= a0 + BLOCK, "the caching allocator keeps the freed block reserved"
    torch.cuda.empty_cache()
    assert reserved(cuda_device) <= cached - BLOCK, "empty_cache hands the cached block back"

    live = block(cuda_device)
    torch.cuda.empty_cache()
    assert allocated(cuda_device) == a0 + BLOCK, "empty_cache must not free a live tensor"
    assert reserved(cuda_device) >= a0 + BLOCK
    del live


@pytest.mark.claim("cuda.empty-cache", decides="wrong")
@pytest.mark.needs(gpus=1)
def test_an_interrupted_frame_keeps_its_tensors_through_empty_cache(cuda_device):
    def training_step():
        activations = block(cuda_device)  # noqa: F841 - alive in this frame
        raise KeyboardInterrupt  # Ctrl-C in the middle of the step

    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    a0 = allocated(cuda_device)
    try:
        training_step()
    except KeyboardInterrupt as exc:
        interrupted = exc  # what a REPL or notebook keeps as the last traceback
    torch.cuda.empty_cache()
    assert allocated(cuda_device) == a0 + BLOCK, "the traceback's frame still holds the tensor"
    interrupted = None
    gc.collect()
    torch.cuda.empty_cache()
    assert allocated(cuda_device) == a0, "dropping the traceback frees it"


# --- cuda.max-memory-allocated / cuda.reset-max-memory -----------------------------------------


@pytest.mark.claim("cuda.max-memory-allocated", decides="wrong")
@pytest.mark.needs(gpus=1)
def test_max_memory_allocated_is_the_peak_of_tensor_memory_not_of_what_the_program_occupies(cuda_device,
                                                                                          claim_figure):
    """"The peak GPU memory the program occupied": the value is the peak of the memory its tensors
    occupied (since the start, or the last reset); the program occupies more, the caching
    allocator's reserved blocks (max_memory_reserved) and the CUDA context besides."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()  # no cached block of this process can serve the allocations below
    a0, r0 = allocated(cuda_device), reserved(cuda_device)
    torch.cuda.reset_peak_memory_stats(cuda_device)
    x = block(cuda_device)
    del x  # freed, but its segment stays reserved: the program still occupies it
    y = torch.empty(BLOCK + BLOCK // 2, dtype=torch.uint8, device=cuda_device)  # too big for that segment
    peak_allocated = torch.cuda.max_memory_allocated(cuda_device) - a0
    peak_reserved = torch.cuda.max_memory_reserved(cuda_device) - r0
    del y
    claim_figure("peak GPU memory after a freed 256 MiB block and a 384 MiB one: max_memory_allocated",
                 peak_allocated / MiB, unit="MiB", max_memory_reserved_mib=peak_reserved / MiB)
    # the part that holds: the peak of tensor memory, kept after the tensors are gone
    assert peak_allocated == BLOCK + BLOCK // 2, f"peak allocated {peak_allocated}, the larger tensor {1.5 * BLOCK}"
    assert torch.cuda.max_memory_allocated(cuda_device) - a0 == peak_allocated, "the peak stays after del"
    # the note's quantity: the memory the program occupied peaked at both segments
    assert peak_reserved >= peak_allocated + BLOCK, (
        f"occupied (reserved) peak {peak_reserved / MiB:.0f} MiB, max_memory_allocated {peak_allocated / MiB:.0f} MiB")


@pytest.mark.claim("cuda.reset-max-memory", decides="wrong")
@pytest.mark.needs(gpus=1)
def test_reset_max_memory_allocated_resets_the_peak_to_current_usage_not_zero(cuda_device):
    keep = block(cuda_device)
    gone = block(cuda_device)
    del gone
    assert torch.cuda.max_memory_allocated(cuda_device) >= allocated(cuda_device) + BLOCK
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats"):
        torch.cuda.reset_max_memory_allocated(cuda_device)
    peak = torch.cuda.max_memory_allocated(cuda_device)
    assert peak == allocated(cuda_device) >= BLOCK > 0, f"peak after reset {peak}, allocated {allocated(cuda_device)}"
    # the current name does the same, without the warning
    extra = block(cuda_device)
    del extra
    torch.cuda.reset_peak_memory_stats(cuda_device)
    assert torch.cuda.max_memory_allocated(cuda_device) == allocated(cuda_device)
    del keep


# --- cuda.synchronize -------------------------------------------------------------------------


def queued_sleep(cycles) -> torch.cuda.Event:
    """Queue a sleep kernel on the current stream; the returned event completes when it ends."""
    torch.cuda._sleep(cycles)
    done = torch.cuda.Event()
    done.record()
    return done


@pytest.mark.claim("cuda.synchronize")
@pytest.mark.needs(gpus=1, async_launch=True)
def test_a_kernel_launch_returns_at_once_and_synchronize_waits_for_it(cuda_device):
    cycles = sleep_cycles_for(SLEEP_MS)
    torch.cuda.synchronize()
    done = queued_sleep(cycles)
    still_running = not done.query()  # the launch call has returned: is the GPU still at it?
    torch.cuda.synchronize()
    finished = done.query()  # the moment synchronize returned
    assert still_running, "the GPU had already finished when the launch call returned"
    assert finished, "synchronize() returned while the queued kernel was still running"


@pytest.mark.claim("cuda.synchronize")
@pytest.mark.needs(gpus=1, async_launch=True)
def test_printing_a_result_waits_for_the_gpu(cuda_device, capsys):
    cycles = sleep_cycles_for(SLEEP_MS)
    x = torch.ones(1, device=cuda_device)
    torch.cuda.synchronize()
    done = queued_sleep(cycles)
    y = x + 1  # queued behind the sleep
    queued = not done.query()
    print(y)
    printed_after = done.query()  # print copied y to the host, behind the sleep
    assert "2." in capsys.readouterr().out
    assert queued, "the sleep was over before print was called: nothing to wait for"
    assert printed_after, "print returned while the GPU was still computing its value"


@pytest.mark.claim("cuda.synchronize")
@pytest.mark.needs(gpus=1, async_launch=True)
def test_non_blocking_copy_from_pinned_memory_returns_before_the_copy_is_done(cuda_device):
    cycles = sleep_cycles_for(SLEEP_MS)
    src = torch.arange(BLOCK // 4, dtype=torch.float32).pin_memory()
    dst = torch.empty_like(src, device=cuda_device)
    dst.copy_(src)  # warm-up
    torch.cuda.synchronize()
    done = queued_sleep(cycles)  # the copies below queue behind this
    dst.copy_(src, non_blocking=False)
    blocking_waited = done.query()
    dst.zero_()
    torch.cuda.synchronize()
    done = queued_sleep(cycles)
    dst.copy_(src, non_blocking=True)
    non_blocking_returned_early = not done.query()
    torch.cuda.synchronize()
    assert blocking_waited, "a blocking copy returned before the work queued ahead of it was done"
    assert non_blocking_returned_early, "non_blocking=True waited for the stream"
    assert torch.equal(dst.cpu(), src), "after synchronize the copy is complete"
    moved = src.to(cuda_device, non_blocking=True)  # the .to() spelling of the note
    torch.cuda.synchronize()
    assert torch.equal(moved.cpu(), src)


# --- cuda.parallel-devices / cuda.pipelined-dependency -------------------------------------------


@pytest.mark.claim("cuda.parallel-devices")
@pytest.mark.benchmark
@pytest.mark.needs(gpus=2, serial=True)
def test_independent_work_on_two_gpus_runs_at_the_same_time():
    cycles = []
    for i in (0, 1):
        with torch.cuda.device(i):
            cycles.append(sleep_cycles_for(SLEEP_MS))

    def one_after_the_other():
        for i in (0, 1):
            with torch.cuda.device(i):
                torch.cuda._sleep(cycles[i])
            torch.cuda.synchronize(i)

    def both_launched_then_waited():
        for i in (0, 1):
            with torch.cuda.device(i):
                torch.cuda._sleep(cycles[i])
        for i in (0, 1):
            torch.cuda.synchronize(i)

    def seconds(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    serial = min(seconds(one_after_the_other) for _ in range(2))
    parallel = min(seconds(both_launched_then_waited) for _ in range(2))
    assert parallel < 0.75 * serial, f"two GPUs: {parallel * 1e3:.0f} ms together vs {serial * 1e3:.0f} ms in turn"


def cpu_work_for(ms: float):
    """A CPU computation (float32 matmuls on one intra-op thread) of about `ms` milliseconds."""
    a = torch.randn(256, 256)

    def work(n):
        for _ in range(n):
            a @ a

    t0 = time.perf_counter()
    work(20)
    per_call = (time.perf_counter() - t0) / 20
    n = max(1, int(ms / 1e3 / per_call))
    return lambda: work(n)


@pytest.mark.claim("cuda.parallel-devices")
@pytest.mark.benchmark
@pytest.mark.needs(gpus=1, serial=True, async_launch=True)
def test_independent_work_on_the_cpu_and_a_gpu_runs_at_the_same_time(cuda_device):
    """The note's section calls CPU and GPU both devices: a GPU kernel queued, then CPU work with
    no wait between them, overlap; the same two with the GPU waited for first take the sum."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cycles = sleep_cycles_for(SLEEP_MS)
        cpu_work = cpu_work_for(SLEEP_MS)

        def seconds(fn):
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0

        def one_after_the_other():
            torch.cuda._sleep(cycles)
            torch.cuda.synchronize(cuda_device)
            cpu_work()

        def both_then_waited():
            torch.cuda._sleep(cycles)  # returns at once: the kernel runs while the CPU works
            cpu_work()
            torch.cuda.synchronize(cuda_device)

        gpu_alone = min(seconds(lambda: (torch.cuda._sleep(cycles), torch.cuda.synchronize(cuda_device)))
                        for _ in range(2))
        cpu_alone = min(seconds(cpu_work) for _ in range(2))
        serial = min(seconds(one_after_the_other) for _ in range(2))
        parallel = min(seconds(both_then_waited) for _ in range(2))
    finally:
        torch.set_num_threads(threads)
    assert parallel < 0.75 * serial, (
        f"CPU and GPU: {parallel * 1e3:.0f} ms together vs {serial * 1e3:.0f} ms in turn "
        f"(GPU alone {gpu_alone * 1e3:.0f} ms, CPU alone {cpu_alone * 1e3:.0f} ms)")


def on_streams(*work) -> float:
    """ms from a start event to the last end event: (stream, fn) pairs, every stream waiting for
    the start, fn queued on its stream, an end event recorded on every stream."""
    start = torch.cuda.Event(enable_timing=True)
    start.record()
    ends = []
    for stream, fn in work:
        stream.wait_event(start)
        with torch.cuda.stream(stream):
            fn()
        end = torch.cuda.Event(enable_timing=True)
        end.record(stream)
        ends.append(end)
    torch.cuda.synchronize()
    return max(start.elapsed_time(end) for end in ends)


@pytest.mark.claim("cuda.pipelined-dependency", decides="wrong")
@pytest.mark.benchmark
@pytest.mark.needs(gpus=1, serial=True)
def test_a_dependent_kernel_starts_only_after_its_producer_finishes(cuda_device):
    """The producer leaves most of the GPU idle: a one-block sleep kernel, then a short write of
    its output. The consumer, a GEMM, reads that output. The same two kernels without the
    dependency, on two streams, overlap (the control): a sum on one stream is then the
    dependency's order, not a GPU with no room for both."""
    n = 4096
    x, w = torch.randn(n, n, device=cuda_device), torch.randn(n, n, device=cuda_device)
    main, side = torch.cuda.current_stream(), torch.cuda.Stream(cuda_device)

    def best(*work):
        return min(on_streams(*work) for _ in range(5))

    gemm = best((main, lambda: x @ w))
    cycles = sleep_cycles_for(gemm)

    def produce():
        torch.cuda._sleep(cycles)
        return x.add(1)  # the producer's output, written once the sleep is over

    producer = best((main, produce))
    independent = best((main, produce), (side, lambda: x @ w))
    chained = best((main, lambda: produce() @ w))
    apart = producer + gemm
    assert independent <= 0.75 * apart, (
        f"control: independent producer and GEMM on two streams took {independent:.2f} ms, not clearly "
        f"below {producer:.2f} + {gemm:.2f} ms: this GPU shows no overlap, so the chain says nothing")
    assert chained >= 0.85 * apart, (
        f"chain {chained:.2f} ms < {producer:.2f} + {gemm:.2f} ms: the GEMM overlapped its producer"
    )
    assert torch.equal(produce() @ w, x.add(1) @ w), "the dependent product sees the complete first result"
