"""Wrong-world check for the TorchScript claims.

    torch.jit.trace that keeps control flow (it scripts)  -> jit.trace-control-flow red
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
