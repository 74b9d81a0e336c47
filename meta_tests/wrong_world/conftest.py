"""The spec run that wrong worlds of several topic files share: one run for independent patches of
different functions (the patch in worlds.py), asserted on by test_wrong_world_optim.py,
test_wrong_world_autograd.py and test_wrong_world_init.py."""
import pytest

from spec_runner import make_runner
from worlds import OPTIM_AUTOGRAD_INIT_WORLD


@pytest.fixture(scope="session")
def optim_autograd_init_run(tmp_path_factory):
    run = make_runner(tmp_path_factory.mktemp("optim_autograd_init"))
    claims = [
        "optim.sgd-update",
        "autograd.clip-grad-norm-explode-only",
        "init.kaiming-conv",
        "autograd.require-grad-typo",
        "optim.grad-zero-typo",
    ]
    files = ["tests/test_optim.py", "tests/test_autograd.py", "tests/test_init.py"]
    return run(*files, "--claim", ",".join(claims), "-m", "cpu", "-p", "no:xdist", patch=OPTIM_AUTOGRAD_INIT_WORLD)
