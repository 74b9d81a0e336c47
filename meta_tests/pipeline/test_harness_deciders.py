"""Every claim of the inventory can be decided: the suite links at least one test to it whose
needs meet the claim's `decided_by` (a GPU test for a GPU claim, a benchmark for a speed-up...),
and a claim that is partly in some version has such a test for each half."""
import functools
import json
import subprocess
import sys
import textwrap

from harness import inventory, provenance, verdicts
from spec_runner import ROOT

# Collects the whole spec (no test runs) and prints, per claim-linked test, its claims and needs.
PROBE = textwrap.dedent(
    """
    import json, sys
    import pytest
    from harness.claims_plugin import claim_halves, claim_ids, evidence_kind

    class Probe:
        rows = []

        @pytest.hookimpl(trylast=True)
        def pytest_collection_modifyitems(self, items):
            self.rows += [[i.nodeid, claim_ids(i), evidence_kind(i), claim_halves(i)] for i in items if claim_ids(i)]

    probe = Probe()
    code = pytest.main(["tests", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"], plugins=[probe])
    print("ROWS=" + json.dumps(probe.rows))
    sys.exit(int(code))
    """
)


@functools.lru_cache(maxsize=1)  # one collection of the suite per process, for both tests
def collected_tests():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("ROWS="))
    return json.loads(line[len("ROWS="):])


def test_every_claim_has_a_test_that_can_decide_it():
    inv = inventory.load()
    deciders = {cid: [] for cid in inv.claims}
    linked = {cid: [] for cid in inv.claims}
    for nodeid, claims, kind, _halves in collected_tests():
        for cid in claims:
            linked[cid].append(nodeid)
            if verdicts.role_of(inv[cid], kind) == "deciding":
                deciders[cid].append(nodeid)
    untested = sorted(cid for cid, tests in linked.items() if not tests)
    assert not untested, f"claims with no test: {untested}"
    undecidable = {cid: f"decided_by {inv[cid].decided_by}, tests: {linked[cid]}"
                   for cid, tests in deciders.items() if not tests}
    assert not undecidable, "claims whose linked tests can never decide them:\n" + "\n".join(
        f"  {cid}: {why}" for cid, why in sorted(undecidable.items()))


def test_every_claim_linked_test_has_a_source_hash():
    """Evidence without provenance is stale the moment it is written (harness/provenance.py): the
    hasher must find the source of every test the suite collects."""
    unhashed = [nodeid for nodeid, *_ in collected_tests() if provenance.test_hash(ROOT, nodeid) is None]
    assert not unhashed, f"tests whose source the provenance hasher cannot find: {unhashed}"


def test_every_partly_claim_has_a_deciding_test_of_each_half():
    inv = inventory.load()
    halves = {cid: set() for cid, c in inv.claims.items() if c.ever_partly}
    for _nodeid, _claims, kind, marked in collected_tests():
        for cid, half in marked.items():
            if cid in halves and verdicts.role_of(inv[cid], kind) == "deciding":
                halves[cid].add(half)
    lacking = {cid: sorted(set(verdicts.HALVES) - got) for cid, got in halves.items() if set(verdicts.HALVES) - got}
    assert not lacking, f"partly claims without a deciding test of these halves: {lacking}"
