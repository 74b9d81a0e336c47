"""Wrong-world check for the serialization claims.

    torch.load as before 2.6 (weights_only defaulting to False) that also ignores map_location
                                      -> serial.save-load-checkpoint-module, serial.map-location-cpu red
"""
from spec_runner import assert_goes_red


def test_serialization_claims_go_red_when_torch_load_drifts(run_spec):
    run = run_spec(
        "--claim", "serial.save-load-checkpoint-module", "--claim", "serial.map-location-cpu",
        "-m", "cpu", "tests/test_serial.py", world="load_without_safety_or_map_location",
    )
    assert_goes_red(run, "serial.save-load-checkpoint-module", "DID NOT RAISE")
    assert_goes_red(run, "serial.map-location-cpu", "Attempting to deserialize object on a CUDA device")
