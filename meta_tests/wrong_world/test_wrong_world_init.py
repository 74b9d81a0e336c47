"""Wrong-world check for the init claims.

    kaiming_normal_ that ignores mode and always uses fan_in -> init.kaiming-conv red
      (in the spec run shared with optim and autograd: conftest.py, optim_autograd_init_run)
"""
from spec_runner import assert_goes_red


def test_kaiming_normal_on_fan_in_turns_kaiming_conv_red(optim_autograd_init_run):
    assert_goes_red(optim_autograd_init_run, "init.kaiming-conv", "sample std")
