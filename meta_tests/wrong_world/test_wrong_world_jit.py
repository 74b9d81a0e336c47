"""Wrong-world checks for the TorchScript claims.

    torch.jit.trace that keeps control flow (it scripts)  -> jit.trace-control-flow red
    torch.jit.script that takes whatever trace takes      -> jit.script-not-superset-of-trace red
    torch.jit.script / trace / load that do not warn (TorchScript not deprecated, as the notes
      knew it): one run, the failing half of every claim partly for the deprecation alone
                                                          -> JIT_DEPRECATION_CLAIMS red on their left-out tests
    a torch.jit.load that also reads torch.save files     -> jit.cpp-import-needs-torchscript red on its
                                                             holding half
"""
import pytest

from spec_runner import assert_failing_half_goes_red, assert_goes_red, assert_holding_half_goes_red, make_runner

# partly from torch 2.10 for the deprecation alone: each declares the one left-out test
# test_the_notes_script_trace_and_load_calls_warn_and_the_warning_names_torch_not_the_caller
JIT_DEPRECATION_CLAIMS = [
    "jit.script-standalone", "jit.script-save-load", "jit.trace-control-flow", "jit.trace-script-usage",
    "jit.nested-example", "jit.nested-preserves-control-flow", "jit.script-not-superset-of-trace",
    "jit.script-trace-not-deprecated", "jit.cpp-import-needs-torchscript",
]


def test_trace_control_flow_goes_red_for_a_tracer_that_keeps_branches(run_spec):
    run = run_spec("--claim", "jit.trace-control-flow", "-m", "cpu", "tests/test_jit.py", world="trace_that_scripts")
    assert_goes_red(run, "jit.trace-control-flow")
    reason = run.claim("jit.trace-control-flow")["reason"]
    assert "DID NOT WARN" in reason or "the trace kept the 'x' branch" in reason or "3 rows" in reason, reason


def test_a_script_that_covers_trace_turns_not_superset_red(run_spec):
    run = run_spec("--claim", "jit.script-not-superset-of-trace", "-m", "cpu", "tests/test_jit.py",
                   world="script_covers_trace")
    assert_goes_red(run, "jit.script-not-superset-of-trace", "DID NOT RAISE")


@pytest.fixture(scope="module")
def quiet_torchscript_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("jit-quiet"))
    return run("tests/test_jit.py", "--claim", ",".join(JIT_DEPRECATION_CLAIMS), "-m", "cpu", "-p", "no:xdist",
               world="torchscript_without_deprecation_warnings", timeout=300)


@pytest.mark.parametrize("cid", JIT_DEPRECATION_CLAIMS)
def test_torchscript_that_does_not_warn_turns_the_deprecation_half_red(quiet_torchscript_run, cid):
    assert_failing_half_goes_red(quiet_torchscript_run, cid, "torch.jit.script gave no warning")
    red = {t["nodeid"].split("::")[-1] for t in quiet_torchscript_run.claim(cid)["tests"]
           if t["outcome"] in ("failed", "error")}
    assert all("warn" in name for name in red), f"{cid}: tests red that do not check the warning: {red}"


def test_a_jit_load_that_reads_torch_save_files_turns_cpp_import_red(run_spec):
    run = run_spec("tests/test_jit.py", "--claim", "jit.cpp-import-needs-torchscript", "-m", "cpu",
                   world="jit_load_reads_torch_save_files")
    assert_holding_half_goes_red(run, "jit.cpp-import-needs-torchscript", "DID NOT RAISE")
