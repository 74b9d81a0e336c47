"""Where the `needs` marker (fixtures/needs.py) leaves, on each test item, what the claims plugin
(harness/claims_plugin.py) reads: the test's requirements and, for a test it skipped, the reason."""
from __future__ import annotations

import pytest

NEEDS_KEY = pytest.StashKey[dict]()
SKIP_REASON_KEY = pytest.StashKey[str]()
