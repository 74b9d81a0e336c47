"""The inventory's signature claims and partly claims, against the test files that decide them.

- Every claim with `signature = true` is tested through fixtures/signatures.py: a test module
  that links it lists it in SIGNATURES (installed parameters, printed parameters), and its standing
  for this torch is what the three-way rule gives (signatures.rule: exact -> holds, printed right
  but parameters missing -> partly, a printed parameter wrong -> refuted).
- Every claim with a partly standing has a test of each half (claim(ID, half="holding") and
  half="failing", or the same roles as decides="holds" and decides="left-out"); the report decides
  partly only when a deciding test of each half passed.
"""
from __future__ import annotations

import ast
import importlib.util
import sys

import pytest
import torch

from fixtures import signatures
from harness import inventory, roles, verdicts
from spec_runner import ROOT

INV = inventory.load()
LIBRARIES = {"lib.ft-": "fast_transformers", "lib.einops-": "einops"}  # the module each library claim imports
SIGNATURE_CLAIMS = sorted(cid for cid, c in INV.claims.items() if c.signature)


def _claim_markers(tree):
    """(test name, claim ID, half= or None, decides= or None) for each claim marker on a test function."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            if isinstance(dec, ast.Call) and ast.unparse(dec.func) == "pytest.mark.claim":
                kwargs = {k.arg: ast.literal_eval(k.value) for k in dec.keywords}
                for arg in dec.args:
                    yield node.name, ast.literal_eval(arg), kwargs.get("half"), kwargs.get("decides")


MARKERS = {path: list(_claim_markers(ast.parse(path.read_text(encoding="utf-8"))))
           for path in sorted((ROOT / "tests").glob("test_*.py"))}


def _module(path):
    name = f"_signature_claims_{path.stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_the_signature_list_is_the_reviewed_one_and_the_readme_names_it():
    assert SIGNATURE_CLAIMS == [
        "data.batch-sampler", "data.random-sampler-signature", "data.sequential-sampler",
        "data.weighted-random-sampler", "dist.syncbn-signature", "lib.einops-rearrange", "lib.ft-decoder-layer",
        "lib.ft-encoder-layer", "lib.ft-masks", "lib.ft-recurrent-decoder", "lib.ft-recurrent-encoder",
        "loss.ce-signature", "nn.embedding-shape", "nn.lstm-signature",
    ]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [cid for cid in SIGNATURE_CLAIMS if f"`{cid}`" not in readme] == []


@pytest.mark.parametrize("cid", SIGNATURE_CLAIMS)
def test_a_signature_claim_follows_the_three_way_rule(cid):
    files = [p for p, marks in MARKERS.items() if any(m[1] == cid for m in marks)]
    listing = [p for p in files if "SIGNATURES" in p.read_text(encoding="utf-8")
               and "fixtures.signatures" in p.read_text(encoding="utf-8").replace("from fixtures import signatures",
                                                                                 "fixtures.signatures")]
    assert listing, f"{cid}: no test file that links it uses fixtures/signatures.py and lists SIGNATURES: {files}"
    entries = [m.SIGNATURES[cid] for m in map(_module, listing) if cid in getattr(m, "SIGNATURES", {})]
    assert len(entries) == 1, f"{cid}: listed in SIGNATURES of {len(entries)} of {listing}"
    claim = INV[cid]
    if claim.decided_by == "external-lib":
        lib = next(name for prefix, name in LIBRARIES.items() if cid.startswith(prefix))
        if importlib.util.find_spec(lib) is None:
            pytest.skip(f"needs the optional library {lib} to read the installed signature")
    by_rule, wrong, missing = signatures.entry_rule(entries[0])
    standing = claim.standing_for(torch.__version__).verdict
    assert standing == by_rule, (
        f"{cid}: standing {standing}, the rule gives {by_rule} (wrong {wrong}, missing {missing})")


PARTLY = sorted(cid for cid, c in INV.claims.items() if c.ever_partly)


@pytest.mark.parametrize("cid", PARTLY)
def test_a_partly_claim_has_a_test_of_each_half(cid):
    # a half is spelt half="holding" / "failing", or as its role, decides="holds" / "left-out"
    halves = {m[2] or roles.ROLE_HALF.get(m[3]) for marks in MARKERS.values() for m in marks if m[1] == cid}
    assert set(verdicts.HALVES) <= halves, f"{cid}: tests of the halves {sorted(h for h in halves if h)}"


def test_halves_are_only_on_claims_that_are_partly_in_some_version():
    bad = sorted({m[1] for marks in MARKERS.values() for m in marks if m[2] and not INV[m[1]].ever_partly})
    assert bad == []
