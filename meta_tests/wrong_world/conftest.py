"""The spec run that wrong worlds of several topic files share: one run in four worlds that patch
different functions, asserted on by test_wrong_world_optim.py, test_wrong_world_autograd.py and
test_wrong_world_init.py."""
import pytest

from spec_runner import make_runner


@pytest.fixture(scope="session")
def optim_autograd_init_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("optim_autograd_init"))
    claims = [
        "optim.sgd-update",
        "autograd.clip-grad-norm-explode-only",
        "init.kaiming-conv",
        "init.bn-constant",
        "init.constant-bias-zero",
        "autograd.require-grad-typo",
        "optim.grad-zero-typo",
    ]
    files = ["tests/test_optim.py", "tests/test_autograd.py", "tests/test_init.py"]
    worlds = ("sgd_that_climbs", "clip_grad_norm_rescales_every_gradient", "kaiming_normal_on_fan_in",
              "notes_typo_aliases", "constant_that_skips_zero")
    return run(*files, "--claim", ",".join(claims), "-m", "cpu", "-p", "no:xdist", world=worlds)
