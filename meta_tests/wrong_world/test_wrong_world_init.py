"""Wrong-world check for the init claims.

    kaiming_normal_ that ignores mode and always uses fan_in -> init.kaiming-conv red
    constant_ that leaves a tensor as it is when asked for zeros -> init.bn-constant and
      init.constant-bias-zero red
      (in the spec run shared with optim and autograd: conftest.py, optim_autograd_init_run)
    xavier_uniform_ that initializes a 1-D bias as the note does -> init.xavier-bias red
"""
import pytest

from spec_runner import assert_goes_red


def test_kaiming_normal_on_fan_in_turns_kaiming_conv_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "init.kaiming-conv", "sample std")


@pytest.mark.parametrize("cid, reason", [("init.bn-constant", "bn.bias after constant_(bias, 0.0)"),
                                         ("init.constant-bias-zero", "bias after constant_(bias, 0.0)")])
def test_constant_that_skips_zero_turns_the_zero_bias_claims_red(optim_autograd_init_run, cid, reason):
    assert_goes_red(optim_autograd_init_run, cid, reason)


def test_xavier_uniform_that_takes_a_bias_turns_xavier_bias_red(run_spec):
    run = run_spec("tests/test_init.py", "--claim", "init.xavier-bias", "-m", "cpu",
                   world="xavier_uniform_takes_a_bias")
    assert_goes_red(run, "init.xavier-bias", "DID NOT RAISE ValueError")
