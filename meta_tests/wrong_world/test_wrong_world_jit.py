"""Wrong-world check for the TorchScript claims.

    torch.jit.trace that keeps control flow (it scripts)  -> jit.trace-control-flow red
    torch.jit.script that takes whatever trace takes      -> jit.script-not-superset-of-trace red
"""
from spec_runner import assert_goes_red


def test_trace_control_flow_goes_red_for_a_tracer_that_keeps_branches(run_spec):
    run = run_spec("--claim", "jit.trace-control-flow", "-m", "cpu", "tests/test_jit.py", world="trace_that_scripts")
    assert_goes_red(run, "jit.trace-control-flow")
    reason = run.claim("jit.trace-control-flow")["reason"]
    assert "DID NOT WARN" in reason or "the trace kept the 'x' branch" in reason or "3 rows" in reason, reason


def test_a_script_that_covers_trace_turns_not_superset_red(run_spec):
    run = run_spec("--claim", "jit.script-not-superset-of-trace", "-m", "cpu", "tests/test_jit.py",
                   world="script_covers_trace")
    assert_goes_red(run, "jit.script-not-superset-of-trace", "DID NOT RAISE")
