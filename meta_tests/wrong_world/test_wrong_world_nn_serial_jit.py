"""Wrong-world checks for nn, serialization and TorchScript claims: each patch makes torch
behave as the claim's wrong (or drifted) version would, and the claim's tests must go red.

The patches of one run are independent of each other's claims, so one spec run covers them.
"""
from spec_runner import assert_goes_red

# torch.load as before 2.6 (weights_only defaulting to False), and a torch.load that ignores
# map_location: the serialization boundaries most likely to drift between versions.
LOAD_WITHOUT_SAFETY_OR_MAP_LOCATION = """
import torch
_load = torch.load
def load(f, map_location=None, pickle_module=None, *, weights_only=None, **kwargs):
    if weights_only is None:
        weights_only = False
    return _load(f, weights_only=weights_only, **kwargs)
torch.load = load
"""

# nn.Linear that ignores its bias, and an nn.ModuleList that keeps its layers unregistered.
LINEAR_WITHOUT_BIAS_AND_UNREGISTERED_MODULELIST = """
import torch
import torch.nn.functional as F
_linear = F.linear
F.linear = lambda input, weight, bias=None: _linear(input, weight)

class ModuleList(torch.nn.Module):
    def __init__(self, modules=None):
        super().__init__()
        object.__setattr__(self, "_items", list(modules or []))
    def __iter__(self):
        return iter(self._items)
    def __getitem__(self, i):
        return self._items[i]
    def __len__(self):
        return len(self._items)
torch.nn.ModuleList = ModuleList
"""

# a tracer that keeps control flow: it scripts instead.
TRACE_THAT_SCRIPTS = """
import torch
torch.jit.trace = lambda func, example_inputs=None, *args, **kwargs: torch.jit.script(func)
"""


def test_serialization_claims_go_red_when_torch_load_drifts(run_spec):
    run = run_spec(
        "--claim", "serial.save-load-checkpoint-module", "--claim", "serial.map-location-cpu",
        "-m", "cpu", "tests/test_serialization.py", patch=LOAD_WITHOUT_SAFETY_OR_MAP_LOCATION,
    )
    assert_goes_red(run, "serial.save-load-checkpoint-module", "DID NOT RAISE")
    assert_goes_red(run, "serial.map-location-cpu", "Attempting to deserialize object on a CUDA device")


def test_nn_claims_go_red_for_a_bias_free_linear_and_an_unregistering_modulelist(run_spec):
    run = run_spec(
        "--claim", "nn.linear-weight-orientation", "--claim", "nn.modulelist-registers",
        "-m", "cpu", "tests/test_nn_layers.py", "tests/test_nn_modules.py",
        patch=LINEAR_WITHOUT_BIAS_AND_UNREGISTERED_MODULELIST,
    )
    assert_goes_red(run, "nn.linear-weight-orientation", "Mismatched elements")
    assert_goes_red(run, "nn.modulelist-registers", "layers.0.weight")


def test_trace_control_flow_goes_red_for_a_tracer_that_keeps_branches(run_spec):
    run = run_spec("--claim", "jit.trace-control-flow", "-m", "cpu", "tests/test_jit.py", patch=TRACE_THAT_SCRIPTS)
    assert_goes_red(run, "jit.trace-control-flow")
    reason = run.claim("jit.trace-control-flow")["reason"]
    assert "DID NOT WARN" in reason or "the trace kept the 'x' branch" in reason or "3 rows" in reason, reason
