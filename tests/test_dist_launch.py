"""The launchers: what `python -m torch.distributed.launch` and `torchrun` hand their workers.

Notes: 000_03e1e7bc9bbd04f1.txt › DDP使用 (world size / rank / local_rank, spawn or
launch) and › torch.distributed.launch (usage, --help options); 004_79576bb56bce5aea.txt
› 多GPU并行训练 (the torch 1.6 launch.py source: defaults, env variables, --use_env,
--local_rank, -m, --no_python, OMP_NUM_THREADS, CalledProcessError).

Three launches serve every claim here (each runs once per session, shared across xdist
workers), with torch-free workers (fixtures/dist_workers/record.py) that write down
their argv and environment:

    nodes    two "machines" on 127.0.0.1, --nnodes 2 --nproc_per_node 2 --master_addr/--master_port:
             node 0: python -m torch.distributed.launch --node_rank 0 -m <record> --lr 0.2 --layers 34
                     (no --use_env; OMP_NUM_THREADS unset)
             node 1: torchrun --node_rank 1 --no_python <executable> --lr 0.2 --layers 34
                     (OMP_NUM_THREADS=3 already set)
    use_env  python -m torch.distributed.launch --use_env --no_python <executable> --init-group --exit-code 3
             (one worker, the launcher's defaults, no master options where the launcher then
             picks a free port itself; it forms a gloo group, then fails)
    hostname python -m torch.distributed.launch --master_addr localhost --master_port <free> --use_env
             --no_python <executable> (one worker: node 0's address given as a host name)

The parser checks (--help, defaults, the ValueErrors) run in this process.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import sys
import warnings

import pytest

from fixtures import procs
from fixtures.boundaries import DASHED_SINCE, ELASTIC_LAUNCHER_SINCE, FREE_MASTER_PORT_SINCE
from fixtures.needs import gpu_count
from fixtures.versions import torch_at_least

NPROC = 2
SCRIPT_ARGS = ["--lr", "0.2", "--layers", "34"]  # the note's example
NOTE_HELP_OPTIONS = ["-h", "--nnodes", "--node_rank", "--nproc_per_node", "--master_addr", "--master_port",
                     "--use_env", "-m", "--no_python"]
OMP_NOTICE = "Setting OMP_NUM_THREADS environment variable for each process to be 1"
LAUNCHER_VARS = ["MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK"]  # what the note's launcher sets
# what the launcher makes of --nproc_per_node 3 and --nproc_per_node gpu, as `result`
NPROC_GPU_VALUE = """
from torch.distributed import run
try:
    gpu = run.determine_local_world_size("gpu")
except ValueError as e:
    gpu = f"ValueError: {e}"
result = {"number": run.determine_local_world_size("3"), "gpu": gpu}
"""


def _port_args(port: int) -> list[str]:
    # never let a launch fall back to the fixed 29500: before FREE_MASTER_PORT_SINCE the default
    # single-node launch would use it, from then on it picks a free port itself
    return [] if torch_at_least(FREE_MASTER_PORT_SINCE) else ["--master_port", str(port)]


def _producer(make_commands):
    """produce(folder): run the launch that make_commands(port, env, wrapper) describes, keep what it left."""

    def produce(folder):
        records = folder / "records"
        records.mkdir()
        wrapper = procs.executable_wrapper(folder)

        def make(port):
            env = procs.clean_env(**{procs.RECORD_DIR_VAR: str(records), "TMPDIR": str(folder)})
            return make_commands(port, env, wrapper)

        port, results = procs.run_with_free_port(make, folder=folder, timeout=procs.LAUNCH_TIMEOUT)
        return {"port": port, "procs": [vars(r) for r in results], "records": procs.read_records(records),
                "env_given": {name: env for name, _, env in make(port)}}

    return produce


def _use_env_commands(port, env, wrapper):
    cmd = procs.launch_module_cmd("--use_env", "--no_python", *_port_args(port),
                                  wrapper, "--init-group", "--exit-code", "3")
    return [("launch-use-env", cmd, env)]


def _nodes_commands(port, env, wrapper):
    common = ["--nnodes", "2", "--nproc_per_node", NPROC, "--master_addr", "127.0.0.1", "--master_port", port]
    node0 = procs.launch_module_cmd(*common, "--node_rank", "0", "-m", "fixtures.dist_workers.record",
                                    *SCRIPT_ARGS, "--from", "node0")
    node1 = procs.torchrun_cmd(*common, "--node_rank", "1", "--no_python", wrapper, *SCRIPT_ARGS, "--from", "node1")
    return [("launch-node0", node0, env), ("torchrun-node1", node1, {**env, "OMP_NUM_THREADS": "3"})]


def _hostname_commands(port, env, wrapper):
    # the note's "IP/host name" of node 0, given as a host name this time
    cmd = procs.launch_module_cmd("--master_addr", "localhost", "--master_port", port,
                                  "--use_env", "--no_python", wrapper)
    return [("launch-hostname", cmd, env)]


procs.register("launch-use-env", _producer(_use_env_commands), fixture="use_env")
procs.register("launch-nodes", _producer(_nodes_commands), fixture="nodes")
procs.register("launch-hostname", _producer(_hostname_commands), fixture="hostname")


@pytest.fixture(scope="session")
def use_env(tmp_path_factory):
    doc = procs.shared(tmp_path_factory, "launch-use-env")
    procs.require_ok(doc, expect_rc={"launch-use-env": 1})
    return doc


@pytest.fixture(scope="session")
def nodes(tmp_path_factory):
    doc = procs.shared(tmp_path_factory, "launch-nodes")
    procs.require_ok(doc)
    return doc


@pytest.fixture(scope="session")
def hostname(tmp_path_factory):
    doc = procs.shared(tmp_path_factory, "launch-hostname")
    procs.require_ok(doc)
    return doc


def workers(doc: dict, count: int) -> list[dict]:
    """The launch's worker records, ordered by RANK; fails unless exactly `count` wrote one."""
    __tracebackhide__ = True
    recs = doc["records"]
    if len(recs) != count:
        tails = "\n".join(r.describe() for r in procs.results_of(doc))
        pytest.fail(f"{len(recs)} workers recorded, expected {count}\n{tails}", pytrace=False)
    return sorted(recs, key=lambda r: int(r["env"].get("RANK", -1)))


def stderr_of(doc: dict, name: str | None = None) -> str:
    return "\n".join(r.stderr for r in procs.results_of(doc) if name in (None, r.name))


def node_of(record: dict) -> int:
    """Which launcher started this worker: the script argument --from nodeN says it."""
    return int(record["argv"][record["argv"].index("--from") + 1][len("node"):])


def on_node(doc: dict, node: int) -> list[dict]:
    return [r for r in workers(doc, 2 * NPROC) if node_of(r) == node]


def run_launch_main(argv: list[str]):
    """torch.distributed.launch.main(argv) in this process; (SystemExit code or None, stdout, warnings)."""
    import torch
    import torch.distributed.launch as launch

    mp = torch.multiprocessing
    thread_name = mp._get_thread_name() if hasattr(mp, "_get_thread_name") else None  # run() renames it
    out = io.StringIO()
    code = None
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
            warnings.simplefilter("always")
            try:
                launch.main(argv)
            except SystemExit as e:
                code = e.code
    finally:
        if thread_name is not None:
            mp._set_thread_name(thread_name)
    return code, out.getvalue(), caught


def nproc_values(env: dict, folder) -> dict:
    """NPROC_GPU_VALUE's result in a child process with env (the procs harness: hard timeout, no leftovers)."""
    code = NPROC_GPU_VALUE + "import json\nprint(json.dumps(result))\n"
    proc = procs.run("nproc", [sys.executable, "-c", code], env=env, folder=folder, timeout=120)
    assert proc.ok, proc.describe()
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- world size, rank, local rank --------------------------------------------------------


@pytest.mark.claim("dist.world-size-meaning", decides="wrong")
@pytest.mark.needs(processes=True)
def test_world_size_counts_processes_not_machines_or_gpus(nodes, use_env):
    sizes = {r["env"]["WORLD_SIZE"] for r in workers(nodes, 2 * NPROC)}
    assert sizes == {str(2 * NPROC)}, f"two machines x {NPROC} processes: WORLD_SIZE {sizes}, expected {2 * NPROC}"
    (one,) = workers(use_env, 1)
    assert one["env"]["WORLD_SIZE"] == "1", f"one machine, one process, {gpu_count()} GPUs: {one['env']['WORLD_SIZE']}"


@pytest.mark.claim("dist.rank-meaning", decides="wrong")
@pytest.mark.needs(processes=True)
def test_rank_is_the_global_process_index_and_group_rank_the_machine(nodes):
    recs = workers(nodes, 2 * NPROC)
    by_node = {n: sorted(int(r["env"]["RANK"]) for r in on_node(nodes, n)) for n in (0, 1)}
    assert by_node == {0: [0, 1], 1: [2, 3]}, f"RANK per machine {by_node}: one rank per process, not per machine"
    group_ranks = {r["env"]["RANK"]: r["env"]["GROUP_RANK"] for r in recs}
    assert group_ranks == {"0": "0", "1": "0", "2": "1", "3": "1"}, f"the machine index is GROUP_RANK: {group_ranks}"


@pytest.mark.claim("dist.local-rank-meaning", decides="holds")
@pytest.mark.claim("dist.local-rank-generally", decides="holds")
@pytest.mark.needs(processes=True)
def test_local_rank_is_the_process_index_within_its_machine(nodes):
    for r in workers(nodes, 2 * NPROC):
        rank, local = int(r["env"]["RANK"]), int(r["env"]["LOCAL_RANK"])
        assert local == rank - NPROC * node_of(r), f"RANK {rank} on node {node_of(r)} has LOCAL_RANK {local}"
    per_node = {n: sorted(r["env"]["LOCAL_RANK"] for r in on_node(nodes, n)) for n in (0, 1)}
    # numbered per machine, on a machine with no GPU at all: a process index, not a GPU index
    assert per_node == {0: ["0", "1"], 1: ["0", "1"]}, f"{per_node}, found {gpu_count()} GPUs"


@pytest.mark.claim("dist.local-rank-meaning", decides="left-out")
@pytest.mark.needs(processes=True)
def test_local_rank_is_assigned_to_processes_that_have_no_gpu_of_their_own(nodes):
    """The case the note leaves out: more processes on a machine than GPUs (here NPROC per node on
    a machine with fewer GPUs, none on a CPU runner): LOCAL_RANK still runs 0..NPROC-1, so some
    local ranks name no GPU: it indexes the processes, not GPUs."""
    if gpu_count() >= NPROC:
        pytest.skip(f"{gpu_count()} GPUs: every local rank of {NPROC} processes names a GPU here")
    locals_ = sorted({int(r["env"]["LOCAL_RANK"]) for r in workers(nodes, 2 * NPROC)})
    assert locals_ == list(range(NPROC)), f"LOCAL_RANK values {locals_}, expected 0..{NPROC - 1}"
    beyond = [n for n in locals_ if n >= gpu_count()]
    assert beyond, f"LOCAL_RANK values {locals_} all name one of the {gpu_count()} GPUs"


@pytest.mark.claim("dist.spawn-and-launch", decides="holds")
@pytest.mark.claim("dist.launch-is-current", half="holding")
@pytest.mark.needs(processes=True)
def test_a_launched_worker_forms_a_process_group_from_the_launcher_env(use_env):
    (rec,) = workers(use_env, 1)
    assert rec["group"] == {"rank": 0, "world_size": 1, "all_reduce_sum": 1.0}, rec["group"]


# every claim whose stated use runs `python -m torch.distributed.launch` (rule 3, scope): the
# launch still works (each claim's holds test) but the module is deprecated in favour of torchrun


@pytest.mark.claim("dist.spawn-and-launch", decides="left-out")
@pytest.mark.claim("dist.launch-help-options", decides="left-out")
@pytest.mark.claim("dist.launch-master-defaults", decides="left-out")
@pytest.mark.claim("dist.launch-master-node0", decides="left-out")
@pytest.mark.claim("dist.launch-use-env", decides="left-out")
@pytest.mark.claim("dist.launch-local-rank-arg", decides="left-out")
@pytest.mark.claim("dist.launch-module", decides="left-out")
@pytest.mark.claim("dist.launch-no-python-needs-use-env", decides="left-out")
@pytest.mark.claim("dist.launch-no-python-runs-the-program", decides="left-out")
@pytest.mark.claim("dist.launch-nnodes-node-rank", decides="left-out")
@pytest.mark.claim("dist.launch-defaults", decides="left-out")
@pytest.mark.claim("dist.launch-script-args", decides="left-out")
@pytest.mark.claim("dist.launch-env-vars", decides="left-out")
@pytest.mark.claim("dist.launch-omp-threads", decides="left-out")
@pytest.mark.needs(processes=True, min_torch=ELASTIC_LAUNCHER_SINCE)
def test_every_launch_through_the_module_warns_that_it_is_deprecated_for_torchrun(nodes, use_env):
    """Both launches the claims run through `python -m torch.distributed.launch` (node 0 of the
    two-node launch: -m, no --use_env; the one-worker launch: --use_env --no_python) print the
    module's FutureWarning, which names torchrun; the same options given to torchrun do not."""
    for doc, name in ((nodes, "launch-node0"), (use_env, "launch-use-env")):
        err = stderr_of(doc, name)
        assert "FutureWarning" in err and "torch.distributed.launch is deprecated" in err and "Use torchrun" in err, (
            f"{name}: no deprecation warning in stderr:\n{err[-2000:]}")
    assert "torch.distributed.launch is deprecated" not in stderr_of(nodes, "torchrun-node1")
    # in-process: the FutureWarning category, raised by the module's entry point itself
    _, _, caught = run_launch_main(["--help"])
    assert any(issubclass(w.category, FutureWarning) and "Use torchrun" in str(w.message) for w in caught), (
        [f"{w.category.__name__}: {w.message}" for w in caught])


# --- the launcher itself ----------------------------------------------------------------------


@pytest.mark.claim("dist.launch-is-current", half="failing")
def test_torch_distributed_launch_is_deprecated_in_favour_of_torchrun():
    code, _, caught = run_launch_main(["--help"])
    assert code == 0
    future = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    assert any("torch.distributed.launch is deprecated" in m and "Use torchrun" in m for m in future), (
        f"warnings: {[f'{w.category.__name__}: {w.message}' for w in caught]}"
    )
    from torch.distributed.run import main as torchrun_main  # the module behind the torchrun command

    assert callable(torchrun_main)


@pytest.mark.claim("dist.launch-is-current", half="failing")
@pytest.mark.needs(processes=True)
def test_launching_through_the_module_prints_the_deprecation(nodes, use_env):
    assert "torch.distributed.launch is deprecated" in stderr_of(nodes, "launch-node0") + stderr_of(use_env)
    assert "torch.distributed.launch is deprecated" not in stderr_of(nodes, "torchrun-node1")


def help_options() -> set[str]:
    """The options `python -m torch.distributed.launch --help` lists, as spelled there."""
    code, text, _ = run_launch_main(["--help"])
    assert code == 0
    return set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", re.split(r"\n(?:options|optional arguments):", text)[-1]))


@pytest.mark.claim("dist.launch-help-options", half="holding")
def test_help_lists_every_option_the_note_prints():
    listed = help_options()
    missing = [o for o in NOTE_HELP_OPTIONS if o not in listed and o.replace("_", "-") not in listed]
    assert not missing, f"the note's options absent from --help (in either spelling): {missing}"


@pytest.mark.claim("dist.launch-help-options", half="failing")
@pytest.mark.needs(min_torch=ELASTIC_LAUNCHER_SINCE)
def test_help_lists_many_more_options_than_the_note():
    note_names = {o.replace("_", "-") for o in NOTE_HELP_OPTIONS}
    others = sorted({o.replace("_", "-") for o in help_options()} - note_names)
    # the elastic launcher adds rendezvous, restart, logging options...
    assert {"--rdzv-backend", "--max-restarts"} <= set(others), others
    assert len(others) >= 10, f"--help lists only these beyond the note's: {others}"


@pytest.mark.claim("dist.launch-help-options", half="holding")
@pytest.mark.parametrize("spelling", ["underscore", "dash"])
def test_which_option_spellings_the_launcher_accepts(spelling):
    import torch.distributed.launch as launch

    words = ["--nnodes", "1", "--node_rank", "0", "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
             "--master_port", "1234", "--use_env", "--no_python", "script.py"]
    if spelling == "dash":
        words = [w.replace("_", "-") if w.startswith("--") else w for w in words]
    accepted = True
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            args = launch.parse_args(words)
        except SystemExit:  # argparse: unrecognized arguments
            accepted = False
    expected = spelling == "underscore" or torch_at_least(DASHED_SINCE)
    assert accepted == expected, f"{spelling} spellings accepted: {accepted}, expected {expected}"
    if accepted:
        assert (args.node_rank, str(args.nproc_per_node), args.master_port, args.use_env) == (0, "2", 1234, True)


@pytest.mark.claim("dist.launch-nnodes-node-rank", decides="holds")
@pytest.mark.needs(processes=True)
def test_nnodes_counts_the_nodes_and_node_rank_names_this_one(nodes):
    """--nnodes 2: the launch forms one group of two nodes; --node_rank N: every worker the
    launcher of node N starts is on node N (GROUP_RANK), whichever launcher started it."""
    recs = workers(nodes, 2 * NPROC)
    got = {(node_of(r), r["env"].get("GROUP_RANK"), r["env"].get("GROUP_WORLD_SIZE")) for r in recs}
    assert got == {(0, "0", "2"), (1, "1", "2")}, f"(--node_rank given, GROUP_RANK, GROUP_WORLD_SIZE): {sorted(got)}"


@pytest.mark.claim("dist.launch-nproc-gpus", decides="holds")
@pytest.mark.needs(processes=True)
def test_nproc_per_node_is_the_number_of_processes_whatever_the_gpus(nodes):
    for node in (0, 1):
        recs = on_node(nodes, node)
        assert len({r["pid"] for r in recs}) == NPROC, f"node {node}: {len(recs)} processes, found {gpu_count()} GPUs"
        assert {r["env"]["LOCAL_WORLD_SIZE"] for r in recs} == {str(NPROC)}


@pytest.mark.claim("dist.launch-nproc-gpus", decides="left-out")
@pytest.mark.needs(processes=True)
def test_nproc_per_node_starts_processes_beyond_the_gpus_there_are(nodes):
    """The case the note leaves out: a value other than the node's GPU count (here NPROC on a
    machine with fewer GPUs, none on a CPU runner) starts that many processes all the same."""
    if gpu_count() >= NPROC:
        pytest.skip(f"{gpu_count()} GPUs: {NPROC} processes per node is at most one per GPU here")
    for node in (0, 1):
        started = len({r["pid"] for r in on_node(nodes, node)})
        assert started == NPROC > gpu_count(), f"node {node}: {started} processes on {gpu_count()} GPUs"


@pytest.mark.claim("dist.launch-nproc-gpus", decides="left-out")
def test_only_the_special_value_gpu_means_one_process_per_gpu(no_gpu_python):
    # a launcher process that sees no GPU, whatever this machine has
    got = no_gpu_python(NPROC_GPU_VALUE)
    assert got["number"] == 3, got
    assert "Cuda is not available" in str(got["gpu"]), got


@pytest.mark.claim("dist.launch-nproc-gpus", decides="left-out")
@pytest.mark.needs(gpus=1)
def test_the_special_value_gpu_counts_the_visible_gpus(tmp_path):
    assert nproc_values(procs.clean_env(gpus=1), tmp_path / "one") == {"number": 3, "gpu": 1}
    assert nproc_values(procs.clean_env(), tmp_path / "all") == {"number": 3, "gpu": gpu_count()}


@pytest.mark.claim("dist.launch-master-defaults", decides="holds")
@pytest.mark.needs(max_torch=FREE_MASTER_PORT_SINCE)
def test_before_2_12_the_parser_defaults_to_127_0_0_1_and_29500():
    import torch.distributed.launch as launch

    args = launch.parse_args(["script.py"])
    assert (args.master_addr, args.master_port) == ("127.0.0.1", 29500), (
        f"--master_addr / --master_port defaults {args.master_addr!r} / {args.master_port!r}, "
        "expected 127.0.0.1 / 29500")


@pytest.mark.claim("dist.launch-master-defaults", decides="wrong")
@pytest.mark.needs(min_torch=FREE_MASTER_PORT_SINCE)
def test_since_2_12_master_port_has_no_default_in_the_parser():
    import torch.distributed.launch as launch
    from torch.distributed.run import get_args_parser

    args = launch.parse_args(["script.py"])
    assert args.master_addr == "127.0.0.1", f"--master_addr default {args.master_addr!r}"
    assert args.master_port is None, f"--master_port default {args.master_port!r}, expected None (unset)"
    help_text = next(a.help for a in get_args_parser()._actions if "--master_port" in a.option_strings)
    assert "29500" in help_text, help_text  # still the documented default for static rendezvous


@pytest.mark.claim("dist.launch-master-defaults", decides="by-version")
@pytest.mark.claim("dist.launch-master-node0", decides="holds")
@pytest.mark.needs(processes=True)
def test_what_workers_get_with_and_without_master_options(use_env, nodes):
    (rec,) = workers(use_env, 1)
    addr, port = rec["env"]["MASTER_ADDR"], rec["env"]["MASTER_PORT"]
    if torch_at_least(FREE_MASTER_PORT_SINCE):
        # no master options on one node: a c10d rendezvous on a free port, announced under the
        # node's fully qualified host name (the rendezvous' own address), not 127.0.0.1:29500
        assert (addr, port != "29500") == (socket.getfqdn(), True), \
            f"MASTER_ADDR {addr!r}, MASTER_PORT {port!r}; expected {socket.getfqdn()!r} and a free port"
    else:
        # the launch gave --master_port (a free one, never the fixed default) and no address
        assert (addr, port) == ("127.0.0.1", str(use_env["port"])), f"MASTER_ADDR {addr!r}, MASTER_PORT {port!r}"
    # explicit options (the two-node launch): every worker gets exactly the given address and port
    two = workers(nodes, 2 * NPROC)
    seen = {(r["env"]["MASTER_ADDR"], r["env"]["MASTER_PORT"]) for r in two}
    assert seen == {("127.0.0.1", str(nodes["port"]))}, f"workers got {seen}, expected 127.0.0.1:{nodes['port']}"


@pytest.mark.claim("dist.launch-master-node0", decides="holds")
@pytest.mark.needs(processes=True)
def test_a_master_addr_given_as_a_host_name_reaches_the_workers(hostname):
    """The note's other spelling of node 0's address, a host name: the worker gets it as given and
    forms its group through it."""
    (rec,) = workers(hostname, 1)
    got = (rec["env"]["MASTER_ADDR"], rec["env"]["MASTER_PORT"])
    assert got == ("localhost", str(hostname["port"])), (
        f"MASTER_ADDR / MASTER_PORT {got}, expected localhost:{hostname['port']}")



@pytest.mark.claim("dist.launch-use-env", decides="holds")
@pytest.mark.needs(processes=True)
def test_use_env_drops_the_argument_and_local_rank_is_in_the_env_either_way(use_env, nodes):
    (rec,) = workers(use_env, 1)
    assert not any(a.startswith(("--local-rank", "--local_rank")) for a in rec["argv"]), rec["argv"]
    assert rec["env"]["LOCAL_RANK"] == "0"
    for r in on_node(nodes, 0):  # without --use_env: the argument, and LOCAL_RANK as well
        assert r["env"]["LOCAL_RANK"] == r["argv"][1].split("=")[1], r["argv"]
    for r in on_node(nodes, 1):  # torchrun behaves as if --use_env were given
        assert r["argv"][1:] == [*SCRIPT_ARGS, "--from", "node1"], r["argv"]


@pytest.mark.claim("dist.launch-local-rank-arg", decides="holds")
@pytest.mark.needs(processes=True, max_torch=DASHED_SINCE)
def test_before_2_0_without_use_env_the_launcher_appends_the_underscore_local_rank_flag(nodes):
    for r in on_node(nodes, 0):
        expected = f"--local_rank={r['env']['LOCAL_RANK']}"
        assert r["argv"][1] == expected, f"argv {r['argv']}: expected {expected} right after the script"


@pytest.mark.claim("dist.launch-local-rank-arg", decides="wrong")
@pytest.mark.needs(processes=True, min_torch=DASHED_SINCE)
def test_since_2_0_without_use_env_the_launcher_appends_the_dashed_local_rank_flag(nodes):
    for r in on_node(nodes, 0):
        expected = f"--local-rank={r['env']['LOCAL_RANK']}"
        assert r["argv"][1] == expected, f"argv {r['argv']}: expected {expected} (dash) right after the script"


@pytest.mark.claim("dist.launch-module", decides="holds")
@pytest.mark.needs(processes=True)
def test_dash_m_runs_the_worker_as_a_module(nodes):
    for r in on_node(nodes, 0):
        assert r["main_module"] == "fixtures.dist_workers.record", r["main_module"]
        assert r["orig_argv"][1:4] == ["-u", "-m", "fixtures.dist_workers.record"], r["orig_argv"]


@pytest.mark.claim("dist.launch-module", decides="holds")
@pytest.mark.parametrize("spelling", ["-m", "--module"])
def test_both_spellings_of_the_module_option_set_module(spelling):
    """The note's source adds the option as -m and --module: each sets `module` (default False)."""
    import torch.distributed.launch as launch

    assert launch.parse_args([spelling, "pkg.train"]).module is True, f"{spelling} did not set module"
    assert launch.parse_args(["pkg.train"]).module is False


@pytest.mark.claim("dist.launch-no-python-needs-use-env", decides="holds")
@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(["--no_python", "x"], r"--no[-_]python' flag, you must also set the '--use[-_]env' flag",
                     id="no_python-without-use_env"),
        pytest.param(["--use_env", "--no_python", "-m", "x"],
                     r"Don't use both the '--no[-_]python' flag and the '--module' flag", id="no_python-with-module"),
    ],
)
def test_no_python_misuse_raises_value_error(argv, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        run_launch_main(["--log_dir", str(tmp_path), *argv])


@pytest.mark.claim("dist.launch-no-python-needs-use-env", decides="holds")
@pytest.mark.claim("dist.launch-no-python-runs-the-program", decides="holds")
@pytest.mark.needs(processes=True)
def test_no_python_executes_the_program_itself(use_env, nodes):
    for r in [*workers(use_env, 1), *on_node(nodes, 1)]:
        # the kernel ran the file through its shebang: no "python -u" prepended by the launcher
        assert r["orig_argv"][1] == r["argv"][0] and "-u" not in r["orig_argv"], r["orig_argv"]


@pytest.mark.claim("dist.launch-defaults", decides="holds")
def test_parser_defaults():
    import torch.distributed.launch as launch
    from torch.distributed.run import parse_min_max_nnodes

    a = launch.parse_args(["script.py"])
    got = {"nnodes": parse_min_max_nnodes(a.nnodes), "node_rank": a.node_rank, "nproc_per_node": int(a.nproc_per_node),
           "use_env": a.use_env, "module": a.module, "no_python": a.no_python}
    assert got == {"nnodes": (1, 1), "node_rank": 0, "nproc_per_node": 1, "use_env": False, "module": False,
                   "no_python": False}


@pytest.mark.claim("dist.launch-defaults", decides="holds")
@pytest.mark.needs(processes=True)
def test_a_launch_with_default_sizes_starts_one_worker_of_rank_zero(use_env):
    (rec,) = workers(use_env, 1)
    got = {k: rec["env"][k] for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "GROUP_RANK")}
    assert got == {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "GROUP_RANK": "0"}


@pytest.mark.claim("dist.launch-script-args", decides="holds")
@pytest.mark.needs(processes=True)
def test_script_arguments_pass_through_unchanged(use_env, nodes):
    for r in workers(nodes, 2 * NPROC):
        passed = r["argv"][2:] if node_of(r) == 0 else r["argv"][1:]  # node 0: after --local-rank
        assert passed == [*SCRIPT_ARGS, "--from", f"node{node_of(r)}"], r["argv"]
    (rec,) = workers(use_env, 1)
    assert rec["argv"][1:] == ["--init-group", "--exit-code", "3"], rec["argv"]


@pytest.mark.claim("dist.launch-env-vars", decides="holds")
@pytest.mark.needs(processes=True)
def test_every_worker_gets_master_world_size_rank_and_local_rank(nodes):
    recs = workers(nodes, 2 * NPROC)
    for r in recs:
        given = nodes["env_given"][["launch-node0", "torchrun-node1"][node_of(r)]]
        added = sorted(k for k in r["env"] if given.get(k) != r["env"][k])
        missing = [k for k in LAUNCHER_VARS if k not in r["env"]]
        assert not missing, f"worker {r['argv']} lacks {missing}; the launcher set {added}"
        node, local = node_of(r), int(r["env"]["LOCAL_RANK"])
        assert r["env"]["WORLD_SIZE"] == str(NPROC * 2)
        assert r["env"]["RANK"] == str(NPROC * node + local), f"node {node} local {local}: RANK {r['env']['RANK']}"
        # beyond the note's five: the node index and the number of local workers, among others
        assert {"GROUP_RANK", "LOCAL_WORLD_SIZE"} <= set(added), added
    assert len({(r["env"]["MASTER_ADDR"], r["env"]["MASTER_PORT"]) for r in recs}) == 1


@pytest.mark.claim("dist.launch-omp-threads", decides="holds")
@pytest.mark.needs(processes=True)
def test_omp_num_threads_is_set_to_one_only_for_several_processes_when_unset(use_env, nodes):
    # node 0: two processes, OMP_NUM_THREADS unset -> 1, with a notice
    assert {r["env"].get("OMP_NUM_THREADS") for r in on_node(nodes, 0)} == {"1"}
    assert OMP_NOTICE in stderr_of(nodes, "launch-node0"), procs.results_of(nodes)[0].describe()
    # node 1: already set -> kept, no notice
    assert {r["env"].get("OMP_NUM_THREADS") for r in on_node(nodes, 1)} == {"3"}
    assert OMP_NOTICE not in stderr_of(nodes, "torchrun-node1")
    # a single process: left alone
    (one,) = workers(use_env, 1)
    assert "OMP_NUM_THREADS" not in one["env"] and OMP_NOTICE not in stderr_of(use_env)


@pytest.mark.claim("dist.launch-failure", decides="by-version")
@pytest.mark.needs(processes=True)
def test_a_failing_worker_makes_the_launcher_raise_child_failed_error(use_env):
    (result,) = procs.results_of(use_env)
    assert result.returncode == 1, result.describe()  # the launcher's own status, not the worker's 3
    raised = [ln.split(":")[0] for ln in result.stderr.splitlines() if re.match(r"[\w.]+(Error|Exception):", ln)]
    if torch_at_least(ELASTIC_LAUNCHER_SINCE):
        assert raised == ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError"], result.describe()
        assert re.search(r"exitcode\s*:\s*3\b", result.stderr), result.describe()  # the worker's status, reported
    else:
        assert raised == ["subprocess.CalledProcessError"], result.describe()
