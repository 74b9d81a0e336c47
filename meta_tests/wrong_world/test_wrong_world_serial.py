"""Wrong-world check for the serialization claims.

    torch.load as before 2.6 (weights_only defaulting to False) that also ignores map_location
                                      -> serial.save-load-checkpoint-module, serial.map-location-cpu red
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


def test_serialization_claims_go_red_when_torch_load_drifts(run_spec):
    run = run_spec(
        "--claim", "serial.save-load-checkpoint-module", "--claim", "serial.map-location-cpu",
        "-m", "cpu", "tests/test_serial.py", patch=LOAD_WITHOUT_SAFETY_OR_MAP_LOCATION,
    )
    assert_goes_red(run, "serial.save-load-checkpoint-module", "DID NOT RAISE")
    assert_goes_red(run, "serial.map-location-cpu", "Attempting to deserialize object on a CUDA device")
