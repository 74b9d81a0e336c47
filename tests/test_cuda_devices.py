"""Choosing GPUs: device strings, CUDA_VISIBLE_DEVICES, set_device vs .cuda(i), versions, ranks.

Notes: 000_03e1e7bc9bbd04f1.txt › 1. 指定GPU; 002_d3afcdbaa9416717.txt › 检查PyTorch版本,
› 指定程序在特定的GPU上运行, › 判断是否有cuda支持; 004_79576bb56bce5aea.txt › 杂录 (torch.version.cuda);
003_df07c2a5da61a567.txt › 在多个 GPU 上训练神经网络 (device_count, rank).

Environment-variable claims run in a fresh process (the parent has usually initialised CUDA,
after which CUDA_VISIBLE_DEVICES no longer matters). Devices are identified across processes by
their UUID; an outer CUDA_VISIBLE_DEVICES is respected by numbering from the parent's view, and
a child that uses one GPU gets this xdist worker's GPU (fixtures.procs.worker_gpus), not GPU 0.
The GPU model that torch reports is checked against the CUDA driver API (libcuda via ctypes),
a source independent of torch's device-properties cache.
"""
import ctypes
import ctypes.util
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
import torch
from torch import nn

from fixtures import procs
from fixtures.boundaries import DEVICE_COUNT_ASKS_RUNTIME_AFTER_INIT_SINCE, DEVICE_UUID_SINCE
from fixtures.gpu import worker_cuda_index
from fixtures.versions import torch_at_least

CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75  # cuda.h CUdevice_attribute values
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76


def run_python(code: str, **env) -> dict:
    """Run `code` in a fresh interpreter with env overrides; it prints one JSON line last."""
    full_env = {**os.environ, **env}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full_env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def driver_device(index: int) -> dict:
    """Name and compute capability of device `index` from the CUDA driver API (libcuda), not from torch."""
    lib = ctypes.CDLL(ctypes.util.find_library("cuda") or "libcuda.so.1")

    def check(status, call):
        assert status == 0, f"{call} returned CUresult {status}"

    check(lib.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(lib.cuDeviceGet(ctypes.byref(dev), index), "cuDeviceGet")
    name = ctypes.create_string_buffer(256)
    check(lib.cuDeviceGetName(name, 256, dev), "cuDeviceGetName")
    cc = []
    for attribute in (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR):
        value = ctypes.c_int()
        check(lib.cuDeviceGetAttribute(ctypes.byref(value), attribute, dev), "cuDeviceGetAttribute")
        cc.append(value.value)
    return {"name": name.value.decode(), "capability": tuple(cc)}


def uuid_of(index: int) -> str:
    return str(torch.cuda.get_device_properties(index).uuid)


# --- cuda.visible-devices-code --------------------------------------------------------------

CHILD_SETS_VISIBLE_THEN_USES_CUDA = """
    import json, os
    import torch
    os.environ["CUDA_VISIBLE_DEVICES"] = {value!r}   # in code, before any CUDA call
    n = torch.cuda.device_count()
    print(json.dumps({{"count": n, "available": torch.cuda.is_available(),
                      "uuids": [str(torch.cuda.get_device_properties(i).uuid) for i in range(n)]}}))
"""


@pytest.mark.claim("cuda.visible-devices-code", half="holding")
@pytest.mark.claim("cuda.is-available")
@pytest.mark.needs(gpus=1, min_torch=DEVICE_UUID_SINCE)
def test_visible_devices_set_in_code_before_cuda_starts_restricts_the_process():
    mine = procs.worker_gpus(1)  # this worker's GPU, as CUDA_VISIBLE_DEVICES names it
    one = run_python(CHILD_SETS_VISIBLE_THEN_USES_CUDA.format(value=mine))
    assert one["count"] == 1 and one["uuids"] == [uuid_of(worker_cuda_index())], one
    none = run_python(CHILD_SETS_VISIBLE_THEN_USES_CUDA.format(value=""))
    assert none == {"count": 0, "available": False, "uuids": []}, none


@pytest.mark.claim("cuda.visible-devices-code", half="failing")
@pytest.mark.needs(gpus=1)
def test_visible_devices_set_in_code_after_cuda_starts_changes_nothing():
    child = run_python("""
        import json, os
        import torch
        before = torch.cuda.device_count()
        torch.zeros(1, device="cuda")                  # CUDA is initialised now
        os.environ["CUDA_VISIBLE_DEVICES"] = ""        # too late
        x = torch.ones(1, device="cuda") * 2
        print(json.dumps({"before": before, "after": torch.cuda.device_count(),
                          "available": torch.cuda.is_available(), "value": x.item()}))
    """, CUDA_VISIBLE_DEVICES=procs.worker_gpus(1))  # the child sees (and uses) this worker's GPU
    # the CUDA runtime keeps the GPU it started with either way; only device_count() differs by version
    after = 1 if torch_at_least(DEVICE_COUNT_ASKS_RUNTIME_AFTER_INIT_SINCE) else 0
    expected = {"before": 1, "after": after, "available": True, "value": 2.0}
    assert child == expected, f"actual {child}, expected {expected} (torch {torch.__version__})"


# --- cuda.visible-devices-command-line ----------------------------------------------------------


@pytest.mark.claim("cuda.visible-devices-command-line", decides="holds")
@pytest.mark.needs(gpus=1, min_torch=DEVICE_UUID_SINCE)
def test_visible_devices_on_the_command_line_restrict_the_program_to_the_listed_gpus(tmp_path):
    ids = procs.visible_gpu_ids()
    listed = procs.worker_gpus(min(2, len(ids))).split(",")  # the note's 0,1 where two GPUs are visible
    probe = (f'"{sys.executable}" -c "import json, torch; n = torch.cuda.device_count(); '
             f'print(json.dumps([str(torch.cuda.get_device_properties(i).uuid) for i in range(n)]))"')
    seen = json.loads(run_sh_script(tmp_path, f"CUDA_VISIBLE_DEVICES={','.join(listed)} {probe}\n"))
    expected = [uuid_of(ids.index(gpu)) for gpu in listed]
    assert seen == expected, f"the program saw {seen}, the command line listed {listed} = {expected}"
    hidden = json.loads(run_sh_script(tmp_path, f"CUDA_VISIBLE_DEVICES= {probe}\n"))
    assert hidden == [], f"an empty CUDA_VISIBLE_DEVICES on the command line left {hidden} visible"


# --- cuda.visible-devices-priority -----------------------------------------------------------


def run_sh_script(tmp_path, body: str, **env) -> str:
    script = tmp_path / "run.sh"
    script.write_text(body)
    proc = subprocess.run(["sh", str(script)], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.claim("cuda.visible-devices-priority", decides="wrong")
def test_an_export_in_the_script_overrides_the_command_line_prefix(tmp_path):
    """Shell semantics only (supporting evidence): what the training command is handed."""
    # `CUDA_VISIBLE_DEVICES=0,1 sh run.sh` with run.sh doing `export CUDA_VISIBLE_DEVICES=3 && train`
    seen = run_sh_script(tmp_path, 'export CUDA_VISIBLE_DEVICES=3 && printenv CUDA_VISIBLE_DEVICES\n',
                         CUDA_VISIBLE_DEVICES="0,1")
    assert seen == "3", f"the training command saw {seen!r}; the note ranks the command line above the script"
    # and a prefix on the command itself beats an earlier export: the last assignment wins
    seen = run_sh_script(tmp_path, 'export CUDA_VISIBLE_DEVICES=3\n'
                                   'CUDA_VISIBLE_DEVICES=0,1 printenv CUDA_VISIBLE_DEVICES\n')
    assert seen == "0,1", seen


@pytest.mark.claim("cuda.visible-devices-priority", decides="wrong")
@pytest.mark.needs(gpus=1, min_torch=DEVICE_UUID_SINCE)
def test_torch_sees_the_last_assignment_before_cuda_starts(tmp_path):
    first = procs.worker_gpus(1)
    count = f'"{sys.executable}" -c "import torch; print(torch.cuda.device_count())"'
    # the prefix hides every GPU, the script exports one: the script wins
    seen = run_sh_script(tmp_path, f"export CUDA_VISIBLE_DEVICES='{first}' && {count}\n", CUDA_VISIBLE_DEVICES="")
    assert seen == "1", f"device_count under the script's export: {seen}"
    # the environment hides every GPU, the code sets one before CUDA starts: the code wins
    child = run_python(CHILD_SETS_VISIBLE_THEN_USES_CUDA.format(value=first), CUDA_VISIBLE_DEVICES="")
    assert child["count"] == 1, child


# --- cuda.single-index-one-device ---------------------------------------------------------------


@pytest.mark.claim("cuda.single-index-one-device", decides="holds")
@pytest.mark.parametrize("gpu_id", [0, 1, 3])
def test_a_single_gpu_id_names_one_device_and_several_ids_are_refused(gpu_id):
    device = torch.device("cuda", gpu_id)  # what .cuda(gpu_id) and set_device(gpu_id) resolve it to
    assert (device.type, device.index) == ("cuda", gpu_id), device
    several = [gpu_id, gpu_id + 1]
    with pytest.raises(TypeError, match=r"cuda\(\): argument 'device' \(position 1\) must be torch.device, not list"):
        nn.Linear(2, 2).cuda(several)  # rejected while parsing the argument, before any GPU is touched
    with pytest.raises(TypeError, match="must be torch.device, not tuple"):
        torch.zeros(1).cuda(tuple(several))
    with pytest.raises(ValueError, match=re.escape(f"Expected a torch.device with a specified index or an integer, "
                                                   f"but got:{several}")):
        torch.cuda.set_device(several)


@pytest.mark.claim("cuda.single-index-one-device")
@pytest.mark.needs(gpus=1)
def test_model_cuda_and_set_device_with_one_gpu_id_use_that_one_gpu():
    gpu_id = worker_cuda_index()
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).cuda(gpu_id)
    placed = {t.device for t in [*model.parameters(), *model.buffers()]}
    assert placed == {torch.device("cuda", gpu_id)}, f"model.cuda({gpu_id}) placed it on {placed}"
    previous = torch.cuda.current_device()
    try:
        torch.cuda.set_device(gpu_id)
        assert torch.cuda.current_device() == gpu_id
        assert torch.zeros(1).cuda().device == torch.device("cuda", gpu_id)
    finally:
        torch.cuda.set_device(previous)


# --- cuda.device-string-multi / cuda.set-device-multi ------------------------------------------

MULTI_INDEX_STRINGS = [
    pytest.param("cuda:1,2", id="cuda:1,2"),
    pytest.param("cuda:" + str([1, 2]), id="cuda:+str(list)"),
    pytest.param("cuda:" + str((1, 2)), id="cuda:+str(tuple)"),
]


@pytest.mark.claim("cuda.device-string-multi", "cuda.set-device-multi", decides="wrong")
@pytest.mark.parametrize("text", MULTI_INDEX_STRINGS)
def test_a_device_string_with_several_indices_is_invalid(text):
    with pytest.raises(RuntimeError, match=re.escape(f"Invalid device string: '{text}'")):
        torch.device(text)


@pytest.mark.claim("cuda.device-string-multi", "cuda.set-device-multi")
@pytest.mark.parametrize(
    "text, index",
    [pytest.param("cuda", None, id="cuda"), pytest.param("cuda:0", 0, id="cuda:0"),
     pytest.param("cuda:1", 1, id="cuda:1"), pytest.param("cuda:12", 12, id="cuda:12")],
)
def test_a_device_string_names_one_device(text, index):
    device = torch.device(text)  # parsing needs no GPU
    assert (device.type, device.index) == ("cuda", index)


@pytest.mark.claim("cuda.device-string-multi", decides="wrong")
def test_module_cuda_with_several_indices_raises_before_any_copy():
    model = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match=re.escape("Invalid device string: 'cuda:1,2'")):
        model.cuda("cuda:1,2")
    assert model.weight.device.type == "cpu"


@pytest.mark.claim("cuda.set-device-multi", decides="wrong")
def test_set_device_with_several_indices_raises():
    gpu_ids = [1, 2]
    with pytest.raises(RuntimeError, match="Invalid device string"):
        torch.cuda.set_device("cuda:" + str(gpu_ids))
    with pytest.raises(RuntimeError, match="Invalid device string"):
        torch.cuda.set_device("cuda:1,2")


# --- cuda.cuda-over-set-device ------------------------------------------------------------------


@pytest.mark.claim("cuda.cuda-over-set-device")
@pytest.mark.needs(gpus=2)
def test_explicit_cuda_index_wins_over_set_device():
    previous = torch.cuda.current_device()
    try:
        for current, explicit in ((0, 1), (1, 0)):
            torch.cuda.set_device(current)
            assert torch.zeros(1).cuda().device == torch.device("cuda", current)  # default follows set_device
            assert torch.zeros(1).cuda(explicit).device == torch.device("cuda", explicit)
            assert nn.Linear(2, 2).cuda(explicit).weight.device == torch.device("cuda", explicit)
            assert torch.zeros(1, device=f"cuda:{explicit}").device.index == explicit
    finally:
        torch.cuda.set_device(previous)


# --- cuda.visible-renumbering -----------------------------------------------------------------


@pytest.mark.claim("cuda.visible-renumbering")
@pytest.mark.needs(gpus=2, min_torch=DEVICE_UUID_SINCE)
def test_visible_devices_are_renumbered_from_zero():
    ids = procs.visible_gpu_ids()
    rotated = ids[1:] + ids[:1]  # e.g. "2,3,4,5" for the note, here the parent's list rotated by one
    child = run_python("""
        import json
        import torch
        t = torch.ones(1).cuda(1)                    # the note's .cuda(1)
        print(json.dumps({"index": t.device.index,
                          "uuid": str(torch.cuda.get_device_properties(t.device).uuid),
                          "uuid0": str(torch.cuda.get_device_properties(0).uuid)}))
    """, CUDA_VISIBLE_DEVICES=",".join(rotated))
    # the child's cuda:k is the k-th id of its list: cuda:0 is the parent's device 1,
    # cuda:1 the parent's device 2 % n
    n = len(ids)
    assert child == {"index": 1, "uuid": uuid_of(2 % n), "uuid0": uuid_of(1)}, child


# --- cuda.version-info / cuda.version-cuda-var / cuda.is-available ---------------------------------


@pytest.mark.claim("cuda.version-info", "cuda.version-cuda-var")
def test_version_attributes_name_the_torch_cuda_and_cudnn_builds():
    assert re.match(r"^\d+\.\d+\.\d+", torch.__version__), torch.__version__
    cuda = torch.version.cuda
    local = torch.__version__.partition("+")[2]
    if cuda is None:  # a CPU-only build
        assert not local.startswith("cu"), (torch.__version__, cuda)
        return
    assert re.fullmatch(r"\d+\.\d+", cuda), f"torch.version.cuda = {cuda!r}"
    if local.startswith("cu"):  # e.g. 2.14.1+cu130 was built with CUDA 13.0
        digits = local[2:]
        assert cuda == f"{int(digits[:-1])}.{digits[-1]}", (torch.__version__, cuda)
    cudnn = torch.backends.cudnn.version()
    assert cudnn is None or (isinstance(cudnn, int) and cudnn > 0), f"cudnn.version() = {cudnn!r}"


@pytest.mark.claim("cuda.version-info")
@pytest.mark.needs(gpus=1)
def test_get_device_name_is_the_gpu_model_the_driver_reports():
    for index in range(torch.cuda.device_count()):
        driver = driver_device(index)
        got = {"name": torch.cuda.get_device_name(index), "capability": torch.cuda.get_device_capability(index)}
        assert got == driver, f"cuda:{index}: torch reports {got}, the CUDA driver {driver}"


@pytest.mark.claim("cuda.version-info")
@pytest.mark.needs(gpus=1)
def test_cuda_and_cudnn_versions_are_those_of_the_libraries_in_use():
    driver_version = ctypes.c_int()  # the newest CUDA the driver supports, 1000 * major + 10 * minor
    lib = ctypes.CDLL(ctypes.util.find_library("cuda") or "libcuda.so.1")
    assert lib.cuDriverGetVersion(ctypes.byref(driver_version)) == 0
    driver_major = driver_version.value // 1000
    runtime_major = int(torch.version.cuda.split(".")[0])
    # torch.version.cuda is the toolkit torch was built with; the driver must support its major
    # version (CUDA minor-version compatibility runs a 12.x build on a 12.0 driver)
    assert driver_major >= runtime_major, (
        f"driver supports CUDA {driver_version.value}, torch.version.cuda = {torch.version.cuda}")
    version = torch.backends.cudnn.version()  # e.g. 91002 for cuDNN 9.10.2: the loaded library's
    x = torch.randn(1, 1, 8, 8, device="cuda")
    torch.nn.functional.conv2d(x, torch.randn(1, 1, 3, 3, device="cuda"))  # cuDNN really loads and runs
    assert isinstance(version, int) and version >= 7000, f"cudnn.version() = {version!r}"


@pytest.mark.claim("cuda.is-available")
def test_is_available_is_false_and_cuda_tensors_fail_when_no_gpu_is_visible(no_gpu_python):
    child = no_gpu_python("""
        import torch
        try:
            torch.zeros(1, device="cuda")
            made = "made"
        except (RuntimeError, AssertionError) as e:  # no GPU / no driver; a CPU-only build asserts
            made = type(e).__name__
        result = {"available": torch.cuda.is_available(), "count": torch.cuda.device_count(), "made": made}
    """)
    assert child["available"] is False and child["count"] == 0, child
    assert child["made"] in ("RuntimeError", "AssertionError"), child


@pytest.mark.claim("cuda.is-available")
@pytest.mark.needs(gpus=1)
def test_is_available_is_true_and_cuda_tensors_work_with_a_gpu(cuda_device):
    # needs(gpus=1) already took is_available() and device_count() >= 1 (harness/probe.py
    # cuda_status counts GPUs only when is_available() is True): a CUDA tensor must work
    x = torch.ones(3, device=cuda_device) * 2
    assert x.is_cuda and x.sum().item() == 6.0


# --- cuda.device-count-rank ----------------------------------------------------------------------


@pytest.mark.claim("cuda.device-count-rank", decides="holds")
@pytest.mark.needs(gpus=1)
def test_every_index_below_device_count_is_usable_and_the_next_is_not():
    n = torch.cuda.device_count()
    for i in range(n):
        assert torch.ones(1, device=f"cuda:{i}").device.index == i
    with pytest.raises(RuntimeError, match="(?i)invalid device ordinal|out of range"):
        torch.ones(1, device=f"cuda:{n}")


RANKS_SCRIPT = """
import json, os, sys
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world_size, store, backend, queue):
    dist.init_process_group(backend, init_method="file://" + store, rank=rank, world_size=world_size)
    torch.cuda.set_device(0)                      # both ranks on the one GPU this child sees
    total = torch.full((1024,), float(rank), device="cuda")   # the collective's data lives on the GPU
    record = {"rank": dist.get_rank(), "device": str(total.device), "pid": os.getpid(),
              "gpus_seen": torch.cuda.device_count()}
    try:
        dist.all_reduce(total)                    # gloo reduces CUDA tensors too (staged via the host)
        torch.cuda.synchronize()
    except RuntimeError as e:                     # NCCL refuses two ranks on one GPU: the measured outcome
        queue.put({**record, "error": str(e)})
        os._exit(0)                               # no teardown of a communicator that never formed
    queue.put({**record, "error": None, "sum": total[0].item(), "allocated": torch.cuda.memory_allocated(0)})
    dist.destroy_process_group()


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    mp.spawn(worker, args=(2, sys.argv[1], sys.argv[2], queue), nprocs=2, join=True)
    workers = sorted((queue.get() for _ in range(2)), key=lambda w: w["rank"])
    print(json.dumps({"parent_pid": os.getpid(), "parent_has_rank": dist.is_initialized(),
                      "parent_used_cuda": torch.cuda.is_initialized(), "workers": workers}))
"""


def two_ranks_on_one_gpu(tmp_path, backend: str) -> dict:
    script = tmp_path / "ranks.py"
    script.write_text(RANKS_SCRIPT)
    # the harness: a hard deadline that kills the driver *and* its spawned ranks; the child sees
    # exactly one GPU, this worker's
    result = procs.run("ranks", [sys.executable, script, tmp_path / "store", backend], env=procs.clean_env(gpus=1),
                       folder=tmp_path / "procs", timeout=120)
    assert result.ok, result.describe()
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.claim("cuda.device-count-rank", decides="left-out")
@pytest.mark.needs(gpus=1, processes=True)
def test_ranks_number_processes_not_gpus(tmp_path):
    out = two_ranks_on_one_gpu(tmp_path, "gloo")
    workers = out["workers"]
    assert [w["rank"] for w in workers] == [0, 1] and all(
        w["error"] is None and w["sum"] == 1.0 for w in workers), workers
    # both ranks computed on the one visible GPU: two ranks, one GPU, so a rank is not a GPU
    assert {w["gpus_seen"] for w in workers} == {1}, workers
    assert {w["device"] for w in workers} == {"cuda:0"}, workers
    assert all(w["allocated"] >= 1024 * 4 for w in workers), f"a rank held no GPU memory: {workers}"
    assert len({w["pid"] for w in workers}) == 2, "one process per rank"
    assert out["parent_pid"] not in {w["pid"] for w in workers} and not out["parent_has_rank"], (
        "rank 0 is one of the spawned workers, not the launching process"
    )


@pytest.mark.claim("cuda.device-count-rank", decides="holds")
@pytest.mark.needs(gpus=1, processes=True)
def test_nccl_refuses_two_ranks_on_one_gpu(tmp_path):
    """Several ranks per GPU is a gloo world's freedom: NCCL wants one GPU per rank."""
    workers = two_ranks_on_one_gpu(tmp_path, "nccl")["workers"]
    assert [w["rank"] for w in workers] == [0, 1], workers
    errors = [w["error"] or "" for w in workers]
    assert all("Duplicate GPU detected" in e for e in errors), (
        f"actual: {errors}; expected every rank's all_reduce to fail with NCCL's 'Duplicate GPU detected'")
