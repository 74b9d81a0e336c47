"""Wrong-world checks for the amp claims: each patch makes autocast or GradScaler behave as a wrong
version of the claim would, and the claim's tests must go red, for the reason their assertions give.

    unscale_ that decrements the scale (the note's 65535)  -> amp.get-scale-after-unscale red
    GradScaler whose scale never backs off after an inf/NaN step (CPU, torch >= 2.3; and CUDA)
                                                          -> amp.update-adjusts-scale red
    CPU autocast that stays in float32, with a device parser that takes 'cuda:1,2' as 'cuda:1'
                                                          -> amp.gpu-only, cuda.device-string-multi red
    CUDA autocast that stays in float32 (needs a GPU)     -> amp.float16-half red
    torch.cuda.amp's autocast and GradScaler undeprecated (no FutureWarning, as before 2.4), with an
      update() that returns quietly from READY             -> the failing halves of amp.cuda-amp-namespace,
                                                             amp.default-scale-grad, amp.enabled-false-noop
                                                             and amp.state-transitions red; amp.float16-half's
                                                             (needs a GPU) in a run of its own
    a GradScaler that refuses the CPU (CUDA only)         -> amp.cpu-gradscaler red
    a step() that unscales again after a manual unscale_ (divides twice), and an update() that refuses
      an optimizer left UNSCALED                          -> amp.step-unscales red (its unscale_-then-step
                                                             case), amp.state-transitions's holding half red
                                                             (its update-from-UNSCALED case)

The CUDA checks need a CUDA GPU, like the tests they check (the `gpu` marker selects them):
without one they skip with the reason.
"""
import pytest

from spec_runner import (
    assert_failing_half_goes_red,
    assert_goes_red,
    assert_holding_half_goes_red,
    claim_args,
    red_tests,
)


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


# the partly claims: (claim, reason its failing-half test gives where the note is right)
UNDEPRECATED_CUDA_AMP = {
    "amp.cuda-amp-namespace": "DID NOT WARN",
    "amp.default-scale-grad": "DID NOT WARN",
    "amp.enabled-false-noop": "assert [] == ['`torch.cuda",
    "amp.state-transitions": "DID NOT RAISE AssertionError",
}


@pytest.mark.needs(min_torch="2.4")  # the deprecation the failing halves assert
def test_an_undeprecated_torch_cuda_amp_and_a_quiet_update_turn_the_failing_halves_red(run_spec):
    run = run_spec(*claim_args(*UNDEPRECATED_CUDA_AMP), "-m", "cpu",
                   world=("cuda_amp_names_not_deprecated", "update_from_ready_returns_quietly"))
    for cid, fragment in UNDEPRECATED_CUDA_AMP.items():
        assert_failing_half_goes_red(run, cid, fragment)


@pytest.mark.needs(gpus=1, min_torch="2.4")
def test_an_undeprecated_torch_cuda_amp_autocast_turns_the_failing_half_of_float16_half_red(run_spec):
    run = run_spec("tests/test_amp_autocast.py", "--claim", "amp.float16-half", "-m", "gpu",
                   world="cuda_amp_names_not_deprecated")
    assert_failing_half_goes_red(run, "amp.float16-half", "DID NOT WARN")


@pytest.mark.needs(min_torch="2.3")
def test_a_gradscaler_for_cuda_only_turns_cpu_gradscaler_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", "--claim", "amp.cpu-gradscaler", "-m", "cpu",
                   world="gradscaler_cuda_only")
    assert_goes_red(run, "amp.cpu-gradscaler", "this world: GradScaler is CUDA only")




# the cases added to the two claims, each red in a world of its own, stacked in one spec run: the
# worlds change only step() and update() from UNSCALED, and the claims' other tests stay green in
# both (the stage test steps from UNSCALED but reads stages only), so the fragment is the added case's
@pytest.mark.needs(min_torch="2.3")
def test_a_step_that_unscales_twice_and_an_update_that_refuses_unscaled_turn_the_added_cases_red(run_spec):
    run = run_spec("tests/test_amp_gradscaler.py", *claim_args("amp.step-unscales", "amp.state-transitions"),
                   "-m", "cpu", world=("step_unscales_a_second_time", "update_from_unscaled_raises"))
    assert_goes_red(run, "amp.step-unscales", "Tensor-likes are not close")
    assert red_tests(run, "amp.step-unscales") == [
        "test_step_unscales_once_then_steps_like_a_plain_unscaled_step[unscale_-then-step-cpu]"]
    assert_holding_half_goes_red(run, "amp.state-transitions", "this world: update() after unscale_() without step()")
    assert red_tests(run, "amp.state-transitions") == [
        "test_update_from_unscaled_returns_to_ready_and_keeps_the_scale[cpu]"]
