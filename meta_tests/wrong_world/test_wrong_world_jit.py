"""Wrong-world check for the TorchScript claims.

    torch.jit.trace that keeps control flow (it scripts)  -> jit.trace-control-flow red
    torch.jit.script that takes whatever trace takes      -> jit.script-not-superset-of-trace red
"""
from spec_runner import assert_goes_red

# a tracer that keeps control flow: it scripts instead.
TRACE_THAT_SCRIPTS = """
import torch
torch.jit.trace = lambda func, example_inputs=None, *args, **kwargs: torch.jit.script(func)
"""


def test_trace_control_flow_goes_red_for_a_tracer_that_keeps_branches(run_spec):
    run = run_spec("--claim", "jit.trace-control-flow", "-m", "cpu", "tests/test_jit.py", patch=TRACE_THAT_SCRIPTS)
    assert_goes_red(run, "jit.trace-control-flow")
    reason = run.claim("jit.trace-control-flow")["reason"]
    assert "DID NOT WARN" in reason or "the trace kept the 'x' branch" in reason or "3 rows" in reason, reason


# a script that covers trace: what it cannot compile it hands back unchanged, as a traced module runs
SCRIPT_COVERS_TRACE = """
import torch
_script = torch.jit.script

def script(obj, *args, **kwargs):
    try:
        return _script(obj, *args, **kwargs)
    except torch.jit.frontend.NotSupportedError:
        return obj

torch.jit.script = script
"""


def test_a_script_that_covers_trace_turns_not_superset_red(run_spec):
    run = run_spec("--claim", "jit.script-not-superset-of-trace", "-m", "cpu", "tests/test_jit.py",
                   patch=SCRIPT_COVERS_TRACE)
    assert_goes_red(run, "jit.script-not-superset-of-trace", "DID NOT RAISE")
