"""Every claim of the inventory can be decided: the suite links at least one test to it whose
needs meet the claim's `decided_by` (a GPU test for a GPU claim, a benchmark for a speed-up...),
and a claim that is partly in some version has such a test for each half."""
import functools
import json
import os
import pathlib
import tempfile
import textwrap

import fork_server
from harness import inventory, provenance, verdicts
from spec_runner import ROOT

# A plugin for one collection of the whole spec (no test runs): it writes, per claim-linked test,
# its claims, needs and halves to the file named by PROBE_OUT.
PROBE = textwrap.dedent(
    """
    import json, os
    import pytest
    from harness import inventory
    from harness.session import claim_halves, claim_ids, evidence_kind

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(items):
        inv = inventory.load()
        rows = [[i.nodeid, claim_ids(i), evidence_kind(i), claim_halves(i, inv)] for i in items if claim_ids(i)]
        with open(os.environ["PROBE_OUT"], "w") as fh:
            json.dump(rows, fh)
    """
)


@functools.lru_cache(maxsize=1)  # one collection of the suite per process, for the three tests
def collected_tests():
    with tempfile.TemporaryDirectory(prefix="collect-probe-") as folder:
        scratch = pathlib.Path(folder)
        (scratch / "collect_probe.py").write_text(PROBE)
        out = scratch / "rows.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        env.update(PROBE_OUT=str(out), PYTHONPATH=os.pathsep.join(filter(None, [folder, env.get("PYTHONPATH")])))
        proc = fork_server.run_pytest(["tests", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                                       "-p", "collect_probe", f"--claims-report={scratch / 'claims.json'}"],
                                      cwd=ROOT, env=env, timeout=300, scratch=scratch, path=[folder])
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert out.exists(), f"the probe wrote no rows:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        return json.loads(out.read_text())


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
