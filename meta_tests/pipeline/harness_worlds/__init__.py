"""Worlds for the harness's own tests, not wrong worlds of a claim: a spec run whose torchvision
fails to load, one that gets stuck, one that records what a background thread imports. They follow
the world modules' shape (meta_tests/wrong_world/worlds/__init__.py) and a test names one by its
module path: run_spec(..., world="pipeline.harness_worlds.stuck_run"). What a world needs to know
from its test (a file to write) comes in an environment variable the test sets."""
