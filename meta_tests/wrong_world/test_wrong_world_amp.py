"""Wrong-world checks for the amp claims: each patch makes autocast or GradScaler behave as a wrong
version of the claim would, and the claim's tests must go red, for the reason their assertions give.

    unscale_ that decrements the scale (the note's 65535)  -> amp.get-scale-after-unscale red
    GradScaler whose scale never backs off after an inf/NaN step (CPU, torch >= 2.3; and CUDA)
                                                          -> amp.update-adjusts-scale red
    CPU autocast that stays in float32, with a device parser that takes 'cuda:1,2' as 'cuda:1'
                                                          -> amp.gpu-only, cuda.device-string-multi red
    CUDA autocast that stays in float32 (needs a GPU)     -> amp.float16-half red

The CUDA checks need a CUDA GPU, like the tests they check (the `gpu` marker selects them):
without one they skip with the reason.
"""
import pytest

from spec_runner import assert_goes_red

UNSCALE_THAT_DECREMENTS_THE_SCALE = """
import torch
_unscale = torch.amp.GradScaler.unscale_
def unscale_(self, optimizer):
    _unscale(self, optimizer)
    self._scale -= 1  # the note's 65535
torch.amp.GradScaler.unscale_ = unscale_
"""


CASES = [
    pytest.param("test_amp_gradscaler.py", "amp.get-scale-after-unscale", UNSCALE_THAT_DECREMENTS_THE_SCALE,
                 "65535", id="unscale-changes-scale"),
]


@pytest.mark.parametrize("test_file, claim, patch, reason", CASES)
def test_claim_goes_red_in_the_wrong_world(run_spec, test_file, claim, patch, reason):
    run = run_spec(f"tests/{test_file}", "--claim", claim, "-m", "cpu", patch=patch)
    assert_goes_red(run, claim, reason)


# A GradScaler whose scale never backs off after an inf/NaN step: torch._amp_update_scale_ with a
# backoff factor of 1 (the CUDA GradScaler, and the CPU one of torch >= 2.3, run it).
AMP_NO_BACKOFF_WORLD = """
import torch

_update = torch._amp_update_scale_


def _amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    return _update(scale, growth_tracker, found_inf, growth_factor, 1.0, growth_interval)


torch._amp_update_scale_ = _amp_update_scale_
"""


# the CPU case (the CPU GradScaler of torch >= 2.3 runs the same torch._amp_update_scale_ as the
# CUDA one); the CUDA case of the same world is the next test
@pytest.mark.needs(min_torch="2.3")
def test_a_cpu_scale_that_never_backs_off_turns_update_adjusts_scale_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.update-adjusts-scale", "-m", "cpu",
                   "-p", "no:xdist", patch=AMP_NO_BACKOFF_WORLD)
    assert_goes_red(run, "amp.update-adjusts-scale", "expected 16 * 0.5")


@pytest.mark.needs(gpus=1)
def test_a_cuda_scale_that_never_backs_off_turns_update_adjusts_scale_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.update-adjusts-scale", "-m", "gpu",
                   patch=AMP_NO_BACKOFF_WORLD)
    assert_goes_red(run, "amp.update-adjusts-scale", "expected 16 * 0.5")


def autocast_left_in_float32(device_type: str) -> str:
    """Patch code: torch.autocast (and torch.amp.autocast) that silently stays disabled, so in
    float32, for `device_type` ("cuda", "cpu"); other device types autocast as usual."""
    return f"""
import torch

_Autocast = torch.autocast


class autocast(_Autocast):
    def __init__(self, device_type, *args, **kwargs):
        super().__init__(device_type, *args, **kwargs)
        if device_type == {device_type!r}:
            self._enabled = False


torch.autocast = autocast
torch.amp.autocast = autocast
"""


# CPU autocast that silently stays in float32, and a device parser that takes 'cuda:1,2' as 'cuda:1'.
NO_CPU_AUTOCAST_LENIENT_DEVICE = autocast_left_in_float32("cpu") + """
import torch

_Device = torch.device


class _LenientDeviceType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _Device)

    def __call__(cls, *args, **kwargs):
        if args and isinstance(args[0], str) and "," in args[0]:
            args = (args[0].split(",")[0],) + args[1:]
        return _Device(*args, **kwargs)


class device(metaclass=_LenientDeviceType):
    pass


torch.device = device
"""


def test_cpu_autocast_left_in_float32_and_a_lenient_device_parser_turn_claims_red(run_spec):
    run = run_spec("--claim", "amp.gpu-only", "--claim", "cuda.device-string-multi", "-m", "cpu",
                   patch=NO_CPU_AUTOCAST_LENIENT_DEVICE)
    assert_goes_red(run, "amp.gpu-only", "CPU autocast left the linear layer in torch.float32")
    assert_goes_red(run, "cuda.device-string-multi", "DID NOT RAISE")


CUDA_AUTOCAST_IN_FLOAT32 = autocast_left_in_float32("cuda")


@pytest.mark.needs(gpus=1)
def test_cuda_autocast_left_in_float32_turns_float16_half_red(run_spec):
    run = run_spec("tests/test_amp_autocast.py", "--claim", "amp.float16-half", "-m", "gpu",
                   patch=CUDA_AUTOCAST_IN_FLOAT32)
    assert_goes_red(run, "amp.float16-half", "torch.float32")
