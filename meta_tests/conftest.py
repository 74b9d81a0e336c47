"""Fixtures for the harness's own tests (see spec_runner.py for the wrong-world runner)."""
import pytest

from spec_runner import make_runner

pytest_plugins = ["pytester"]


@pytest.fixture
def run_spec(tmp_path):
    """run_spec(*pytest_args, world=None, timeout=120) -> SpecRun, from the project root."""
    return make_runner(tmp_path)
