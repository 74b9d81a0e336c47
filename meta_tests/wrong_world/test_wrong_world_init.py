"""Wrong-world check for the init claims.

    kaiming_normal_ that ignores mode and always uses fan_in -> init.kaiming-conv red
    constant_ that leaves a tensor as it is when asked for zeros -> init.bn-constant and
      init.constant-bias-zero red
      (in the spec run shared with optim and autograd: conftest.py, optim_autograd_init_run)
    xavier_uniform_ that initializes a 1-D bias as the note does -> init.xavier-bias red
    Module.modules() that stops at the direct children  -> init.kaiming-conv red (the nested Conv2d
      re-judging added keeps its default init)
"""
import pytest

from spec_runner import assert_goes_red, red_tests


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




def test_an_init_loop_that_reaches_only_top_level_convs_turns_the_nested_conv_case_of_kaiming_conv_red(run_spec):
    # the note's loop walks model.modules(): where that stops at the direct children, the second Conv2d
    # (nested, 128 -> 48, 5x5: fan_out 1200, std sqrt(2 / 1200) = 0.04082) keeps its default init, while
    # the flat model of the case the claim had before (std 0.04167) is initialized as before
    run = run_spec("tests/test_init.py", "--claim", "init.kaiming-conv", "-m", "cpu",
                   world="modules_stop_at_direct_children")
    assert_goes_red(run, "init.kaiming-conv", "expected 0.04082")
    assert red_tests(run, "init.kaiming-conv") == ["test_the_note_loop_gives_every_conv_layer_its_own_fan_out_std"]
