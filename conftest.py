"""Root conftest: loads the harness plugins, seeds every test, sets hypothesis profiles."""
from __future__ import annotations

import gc
import os
import random

import pytest
from hypothesis import HealthCheck, settings

# fixtures.procs is a package: its modules that hold fixtures or session hooks are plugins, named one
# by one. Importing the first imports the package, whose __init__ imports the others: the package is
# marked for assertion rewriting before that, as a listed plugin module would be
pytest.register_assert_rewrite("fixtures.procs")
pytest_plugins = ["fixtures.needs", "harness.claims_plugin", "fixtures.state_guard", "fixtures.images", "fixtures.gpu",
                  "fixtures.threads", "fixtures.procs.session", "fixtures.procs.workers", "fixtures.procs.worlds",
                  "fixtures.bench"]

# "ci" is derandomized: the claims report must not depend on the luck of the draw.
settings.register_profile(
    "ci", derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config):
    """xdist workers use one intra-op thread each: with -n N on N cores, two threads per worker
    oversubscribe the cores, and OpenMP's barrier then makes small convolutions 10-50x slower.
    An explicit OMP_NUM_THREADS wins."""
    if hasattr(config, "workerinput") and "OMP_NUM_THREADS" not in os.environ:
        import torch

        torch.set_num_threads(1)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """The last thing a pytest process of the suite does: freeze the garbage collector's view of
    the heap. The interpreter's final collection would walk torch's and torchvision's whole object
    graph, most of the time a process that imported them takes to exit (the controller, each xdist
    worker and the serial benchmark step would pay it). Reports and logs are written and closed by
    then; objects are still released as the modules are torn down, only cyclic garbage left at exit
    is not collected."""
    gc.freeze()


@pytest.fixture(autouse=True)
def _seed_everything():
    """Every test starts from the same RNG state, whatever ran before it on this worker."""
    import numpy
    import torch

    random.seed(0)
    numpy.random.seed(0)
    torch.manual_seed(0)  # seeds the CUDA generators too
