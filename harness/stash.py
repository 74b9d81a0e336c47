"""What the fixtures and the claims plugin (harness/claims_plugin.py) share: where the `needs`
marker (fixtures/needs.py) leaves, on each test item, the test's requirements and, for a test it
skipped, the reason; and the first words of a failed process's headline (fixtures/procs), the
line the report records as that failure's summary."""
from __future__ import annotations

import pytest

NEEDS_KEY = pytest.StashKey[dict]()
SKIP_REASON_KEY = pytest.StashKey[str]()
PROCESS_HEADLINE = "process failure: "
