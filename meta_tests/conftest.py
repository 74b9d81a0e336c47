"""Fixtures for the harness's own tests (see spec_runner.py for the wrong-world runner)."""
import pytest
# pytester's in-process runs drop from sys.modules whatever was first imported inside them. Once
# imported, torch._dynamo wraps torch.manual_seed, and its import registers C++ operator libraries
# that cannot be registered twice: a later re-import after such a drop fails ("Only a single
# TORCH_LIBRARY ..."). Importing it here, once per worker, keeps it out of every in-process run.
import torch._dynamo  # noqa: F401

from spec_runner import make_runner

pytest_plugins = ["pytester"]


@pytest.fixture
def run_spec(tmp_path):
    """run_spec(*pytest_args, patch=None, timeout=120) -> SpecRun, from the project root."""
    return make_runner(tmp_path)
