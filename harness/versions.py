"""Version parsing and comparison, without importing torch at module import time.

Versions are compared on their release numbers only: "2.14.1+cu130" and "2.14.1" are
equal, "2.0.0a0" counts as 2.0.0. Boundaries in the inventory and in `needs` markers are
written as "2.0" or "2.3.1".
"""
from __future__ import annotations

import re

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")


def parse(version: str) -> tuple[int, ...]:
    """Release tuple of a version string, padded to three numbers: "2.1" -> (2, 1, 0)."""
    m = _RELEASE.match(str(version))
    if not m:
        raise ValueError(f"not a version: {version!r}")
    parts = tuple(int(p) for p in m.group(1).split("."))
    return (parts + (0, 0, 0))[: max(3, len(parts))]


def in_range(version: str, since: str | None = None, before: str | None = None) -> bool:
    """True when since <= version < before (either bound may be absent)."""
    v = parse(version)
    if since is not None and v < parse(since):
        return False
    if before is not None and v >= parse(before):
        return False
    return True
