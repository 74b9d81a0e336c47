"""Root conftest: loads the harness plugins, seeds every test, sets hypothesis profiles."""
from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["fixtures.needs", "fixtures.claims_plugin", "fixtures.state_guard", "fixtures.images"]

# "ci" is derandomized: the claims report must not depend on the luck of the draw.
settings.register_profile(
    "ci", derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _seed_everything():
    """Every test starts from the same RNG state, whatever ran before it on this worker."""
    import numpy
    import torch

    random.seed(0)
    numpy.random.seed(0)
    torch.manual_seed(0)  # seeds the CUDA generators too
    yield
