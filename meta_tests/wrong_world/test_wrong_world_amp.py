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


def test_unscale_that_decrements_the_scale_turns_get_scale_after_unscale_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.get-scale-after-unscale", "-m", "cpu",
                   world="unscale_decrements_the_scale")
    assert_goes_red(run, "amp.get-scale-after-unscale", "65535")


# the CPU case (the CPU GradScaler of torch >= 2.3 runs the same torch._amp_update_scale_ as the
# CUDA one); the CUDA case of the same world is the next test
@pytest.mark.needs(min_torch="2.3")
def test_a_cpu_scale_that_never_backs_off_turns_update_adjusts_scale_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.update-adjusts-scale", "-m", "cpu",
                   "-p", "no:xdist", world="grad_scaler_never_backs_off")
    assert_goes_red(run, "amp.update-adjusts-scale", "expected 16 * 0.5")


@pytest.mark.needs(gpus=1)
def test_a_cuda_scale_that_never_backs_off_turns_update_adjusts_scale_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.update-adjusts-scale", "-m", "gpu",
                   world="grad_scaler_never_backs_off")
    assert_goes_red(run, "amp.update-adjusts-scale", "expected 16 * 0.5")


def test_cpu_autocast_left_in_float32_and_a_lenient_device_parser_turn_claims_red(run_spec):
    run = run_spec("--claim", "amp.gpu-only", "--claim", "cuda.device-string-multi", "-m", "cpu",
                   world=("cpu_autocast_in_float32", "lenient_device_parser"))
    assert_goes_red(run, "amp.gpu-only", "CPU autocast left the linear layer in torch.float32")
    assert_goes_red(run, "cuda.device-string-multi", "DID NOT RAISE")


@pytest.mark.needs(gpus=1)
def test_cuda_autocast_left_in_float32_turns_float16_half_red(run_spec):
    run = run_spec("tests/test_amp_autocast.py", "--claim", "amp.float16-half", "-m", "gpu",
                   world="cuda_autocast_in_float32")
    assert_goes_red(run, "amp.float16-half", "torch.float32")
