"""Evidence is tied to what produced it (harness/provenance.py): a test's source hash, its claims'
hashes, and the verdicts of evidence that no longer matches them (stale: decides nothing)."""
import json
import os
import pathlib
import textwrap

import pytest

from harness import evidence_files, inventory, provenance, report

MODULE = '''
    import pytest

    P = 0.5
    CASES = [1, 2]


    def helper(x):
        return x * P


    @pytest.fixture
    def thing():
        return 3


    def unrelated():
        return 0


    @pytest.mark.parametrize("n", CASES)
    def test_uses_helper(n, thing):
        assert helper(n) < thing


    def test_other():
        assert unrelated() == 0


    class TestGroup:
        def test_method(self):
            assert helper(2) == 1
'''


def _hashes(tmp_path, source):
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "tests" / "test_m.py").write_text(textwrap.dedent(source))
    return {name: provenance.test_hash(tmp_path, f"tests/test_m.py::{name}")
            for name in ("test_uses_helper[1]", "test_other", "TestGroup::test_method")}


@pytest.mark.parametrize(
    "edit, changes",
    [
        pytest.param(("assert helper(n) < thing", "assert helper(n) <= thing"), {"test_uses_helper[1]"},
                     id="test-body"),
        pytest.param(("return x * P", "return x * P * 1"), {"test_uses_helper[1]", "TestGroup::test_method"},
                     id="helper-it-calls"),
        pytest.param(("P = 0.5", "P = 0.25"), {"test_uses_helper[1]", "TestGroup::test_method"},
                     id="constant-a-helper-reads"),
        pytest.param(("return 3", "return 4"), {"test_uses_helper[1]"}, id="fixture-named-by-parameter"),
        pytest.param(("CASES = [1, 2]", "CASES = [1, 3]"), {"test_uses_helper[1]"}, id="parametrize-list"),
        pytest.param(("return 0", "return 0 + 0"), {"test_other"}, id="unrelated-helper"),
        pytest.param(("import pytest\n", "import pytest\n    import os\n"), set(), id="an-unused-import"),
    ],
)
def test_a_test_hash_moves_exactly_when_code_it_uses_moves(tmp_path, edit, changes):
    before = _hashes(tmp_path, MODULE)
    after = _hashes(tmp_path, MODULE.replace(*edit))
    assert None not in before.values()
    moved = {name for name in before if before[name] != after[name]}
    assert moved == changes, f"edit {edit!r}: hashes moved for {sorted(moved)}, expected {sorted(changes)}"


def test_parametrize_ids_share_one_hash_and_a_gone_test_has_none(tmp_path):
    _hashes(tmp_path, MODULE)
    one = provenance.test_hash(tmp_path, "tests/test_m.py::test_uses_helper[1]")
    assert one == provenance.test_hash(tmp_path, "tests/test_m.py::test_uses_helper[2]")
    assert one == provenance.test_hash(tmp_path, "tests/test_m.py::test_uses_helper[[::-1]]"), "an id with ::"
    assert provenance.test_hash(tmp_path, "tests/test_m.py::test_renamed") is None
    assert provenance.test_hash(tmp_path, "tests/test_gone.py::test_x") is None


def test_a_file_that_does_not_parse_keeps_its_tests_evidence_as_stale_and_a_deleted_one_drops_it(tmp_path):
    """A test file caught mid-edit with a syntax error is not gone: a run's merge, the matrix's
    gather and rekey keep its tests' evidence (stale until the file parses again), while the
    evidence of a file that was deleted is dropped. Red in a world where "no hash" is read as
    "gone": a report merged or a matrix built while a file is half-edited then deletes that file's
    evidence, GPU columns included."""
    from harness.matrix import column_evidence, model

    inv = _inventory(tmp_path, "refuted")
    _hashes(tmp_path, MODULE)
    (tmp_path / "tests" / "test_gone.py").write_text("def test_x():\n    pass\n")
    kept, dropped = "tests/test_m.py::test_other", "tests/test_gone.py::test_x"
    tests = {n: {"claims": ["t.a"], "outcome": "passed", "reason": None, "figures": [], "kind": {}, "run": 0,
                 **provenance.stamp(tmp_path, inv, n, ["t.a"])} for n in (kept, dropped)}
    (tmp_path / "tests" / "test_m.py").write_text(textwrap.dedent(MODULE) + "\ndef broken(:\n")
    (tmp_path / "tests" / "test_gone.py").unlink()
    env = {"torch": "2.14.1", "fingerprint": "fp", "device": "cpu"}
    doc = {"schema": report.SCHEMA, "environment": env, "runs": [{"args": [], "finished": "2026-01-01T00:00:00"}],
           "tests": tests}
    merged, _ = report.merge(doc, {}, collected=set(), rootdir=tmp_path)
    gathered = column_evidence.gather([model.Report(tmp_path / "r.json", doc)], rootdir=tmp_path)
    assert (sorted(merged), sorted(gathered.tests), gathered.dropped) == ([kept], [kept], 1), (
        f"merge kept {sorted(merged)}, gather kept {sorted(gathered.tests)} and dropped {gathered.dropped}; "
        f"expected only {kept} kept, {dropped} dropped")
    built = report.build(inv, tests=merged, environment=env, runs=doc["runs"], rootdir=tmp_path)
    assert (built["claims"][0]["verdict"], built["summary"]["stale_tests"]) == ("not-run", 1), built["claims"][0]
    found = provenance.rekey_tests(tmp_path, json.loads(json.dumps(tests)))
    assert (found["stale"], found["gone"]) == ([kept], [dropped]), found


def test_warming_the_cache_stamps_as_the_files_are_when_the_report_is_written(tmp_path):
    """The xdist controller hashes the collected tests while they run (provenance.warm): the report's
    stamps are then read from the cache, and still follow each file as it is at the end: an edit
    made after warming moves the hash. Red in a world where warm() computes nothing, or where its
    cache ignores a later edit."""
    names = ["tests/test_m.py::test_uses_helper[1]", "tests/test_m.py::test_other"]
    (tmp_path / "tests").mkdir()
    edited = tmp_path / "tests" / "test_m.py"
    edited.write_text(textwrap.dedent(MODULE))
    provenance.warm(tmp_path, names)
    hits = provenance.hash_cache_info().hits
    warmed = [provenance.test_hash(tmp_path, n) for n in names]
    assert provenance.hash_cache_info().hits - hits == len(names), "the stamps after warm() were computed again"
    edited.write_text(edited.read_text().replace("return 0", "return 0 + 0"))
    stat = edited.stat()
    os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later mtime, whatever the clock
    after = [provenance.test_hash(tmp_path, n) for n in names]
    assert (after[0] == warmed[0], after[1] != warmed[1]) == (True, True), (
        f"after an edit of the helper test_other uses: hashes {warmed} -> {after}; expected only the second to move")


def _inventory(tmp_path, standing, correction="the truth", text="c"):
    d = tmp_path / "claims"
    d.mkdir(exist_ok=True)
    body = (f'topic = "t"\n[[claim]]\nid = "t.a"\nsource = ["n › s"]\nclaim = "{text}"\nchecklist_needs = ["cpu"]\n'
            f'decided_by = "cpu"\nstanding = "{standing}"\n' + (f'correction = "{correction}"\n' if correction else ""))
    (d / "t.toml").write_text(body)
    return inventory.load(d)


def test_claim_hash_covers_statement_and_standing_not_the_correction_text(tmp_path):
    base = provenance.claim_hash(_inventory(tmp_path, "refuted")["t.a"])
    assert provenance.claim_hash(_inventory(tmp_path, "refuted", correction="said better")["t.a"]) == base
    assert provenance.claim_hash(_inventory(tmp_path, "holds", correction=None)["t.a"]) != base
    assert provenance.claim_hash(_inventory(tmp_path, "refuted", text="other words")["t.a"]) != base


def _report(tmp_path, inv, record_extra):
    _hashes(tmp_path, MODULE)
    nodeid = "tests/test_m.py::test_other"
    record = {"claims": ["t.a"], "outcome": "passed", "reason": None, "figures": [], "kind": {},
              "decides": {"t.a": "wrong"}, **record_extra(nodeid)}
    doc = report.build(inv, tests={nodeid: record}, environment={"torch": "2.14.1"}, runs=[], rootdir=tmp_path)
    return doc["claims"][0], doc["summary"]


def test_fresh_evidence_decides(tmp_path):
    inv = _inventory(tmp_path, "refuted")
    claim, summary = _report(tmp_path, inv, lambda n: provenance.stamp(tmp_path, inv, n, ["t.a"]))
    assert (claim["verdict"], summary["stale_tests"]) == ("refuted", 0)


@pytest.mark.parametrize(
    "record_extra",
    [
        pytest.param(lambda inv, tmp, n: {}, id="no-provenance-recorded"),
        pytest.param(lambda inv, tmp, n: {**provenance.stamp(tmp, inv, n, ["t.a"]), "source_hash": "0" * 16},
                     id="test-source-changed"),
        pytest.param(lambda inv, tmp, n: {**provenance.stamp(tmp, inv, n, ["t.a"]), "claims_hash": {"t.a": "0"}},
                     id="standing-changed"),
    ],
)
def test_stale_evidence_decides_nothing_and_is_counted(tmp_path, record_extra):
    inv = _inventory(tmp_path, "refuted")
    claim, summary = _report(tmp_path, inv, lambda n: record_extra(inv, tmp_path, n))
    assert claim["verdict"] == "not-run", claim
    assert claim["reason"].startswith(provenance.STALE_REASON), claim["reason"]
    assert summary["stale_tests"] == 1


def test_a_stale_failure_is_not_a_failure_of_this_code(tmp_path):
    inv = _inventory(tmp_path, "refuted")
    _hashes(tmp_path, MODULE)
    nodeid = "tests/test_m.py::test_other"
    record = {"claims": ["t.a"], "outcome": "failed", "reason": "call: boom", "figures": [], "kind": {},
              "source_hash": "0" * 16, "claims_hash": {"t.a": provenance.claim_hash(inv["t.a"])}}
    doc = report.build(inv, tests={nodeid: record}, environment={"torch": "2.14.1"}, runs=[], rootdir=tmp_path)
    assert doc["claims"][0]["verdict"] == "not-run"


DECORATED = '''
    import pytest

    pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


    @pytest.mark.claim("t.a", half="holding")
    @pytest.mark.needs(gpus=1)
    @pytest.mark.parametrize("n", [pytest.param(1, id="one"), 2])
    def test_decorated(n):
        """What the test checks."""
        # why the bound is 3
        assert n < 3, (n, 3)
'''


@pytest.mark.parametrize(
    "edit, moves",
    [
        pytest.param(('claim("t.a"', 'claim("t.b"'), True, id="claim-id"),
        pytest.param(('half="holding"', 'half="failing"'), True, id="half-label"),
        pytest.param(("needs(gpus=1)", "needs(gpus=2)"), True, id="needs"),
        pytest.param(('id="one"', 'id="uno"'), True, id="parametrize-id"),
        pytest.param(("pytest.param(1,", "pytest.param(0,"), True, id="parametrize-value"),
        pytest.param(('"ignore::UserWarning"', '"error"'), True, id="module-pytestmark"),
        pytest.param(("(n, 3)", "(n, 4)"), True, id="assertion-message"),
        pytest.param(("# why the bound is 3", "# the bound: 3, see the note"), False, id="comment"),
        pytest.param(('"""What the test checks."""', '"""What it checks, said better."""'), False, id="docstring"),
        pytest.param(("assert n < 3, (n, 3)", "assert n < 3, (\n            n,\n            3,\n        )"), False,
                     id="formatting"),
        pytest.param(('half="holding"', "half='holding'"), False, id="quotes"),
        pytest.param(('half="holding")', 'half="holding", decides="cpu")'), False, id="declaring-a-role"),
    ],
)
def test_a_decorator_edit_stales_evidence_and_a_comment_or_a_role_does_not(tmp_path, edit, moves):
    """The hash is the syntax tree of the whole decorated definition, less the claim marker's
    `decides=`: red in a world that hashes the text from the `def` line (the decorator edits do not
    move it, the comment does) or that hashes `decides=` (declaring a role would stale evidence)."""
    (tmp_path / "tests").mkdir()
    module = tmp_path / "tests" / "test_m.py"
    module.write_text(textwrap.dedent(DECORATED))
    before = provenance.test_hash(tmp_path, "tests/test_m.py::test_decorated[one]")
    edited = module.read_text().replace(*edit)
    assert edited != module.read_text(), f"edit {edit!r} changed nothing in the module"
    module.write_text(edited)
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    after = provenance.test_hash(tmp_path, "tests/test_m.py::test_decorated[one]")
    assert before is not None
    assert (after != before) == moves, f"edit {edit!r}: hash {before} -> {after}, expected it to " + (
        "move" if moves else "stay")


def test_a_role_corrected_after_the_run_decides_without_a_rerun(tmp_path):
    """decides= is left out of the hash so that correcting a role needs no rerun: the role the test
    declares now decides, not the one its evidence recorded. Red in a world where the recorded role
    wins: a claim refuted by a test now declared decides="wrong" stays not-run under the old "holds"."""
    inv = _inventory(tmp_path, "refuted")
    (tmp_path / "tests").mkdir()
    module = tmp_path / "tests" / "test_m.py"
    module.write_text('import pytest\n\n\n@pytest.mark.claim("t.a", decides="holds")\ndef test_x():\n    pass\n')
    nodeid = "tests/test_m.py::test_x"
    record = {"claims": ["t.a"], "outcome": "passed", "reason": None, "figures": [], "kind": {},
              "decides": {"t.a": "holds"}, **provenance.stamp(tmp_path, inv, nodeid, ["t.a"])}
    module.write_text(module.read_text().replace('decides="holds"', 'decides="wrong"'))
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    doc = report.build(inv, tests={nodeid: record}, environment={"torch": "2.14.1"}, runs=[], rootdir=tmp_path)
    claim = doc["claims"][0]
    assert (claim["verdict"], claim["tests"][0]["decides"]) == ("refuted", "wrong"), claim


def test_every_spec_test_hashes_the_same_after_its_comments_and_docstrings_are_removed(tmp_path):
    """What a linter's fixes and a formatter change (comments, docstrings, spacing, line breaks) leaves
    every test of the spec with its hash, so ruff's fixes in tests/ stale no evidence: each spec module is
    written again from its syntax tree (ast.unparse: no comments, other quotes and line breaks,
    docstrings dropped) and every test function must hash as before."""
    import ast
    root = pathlib.Path(__file__).resolve().parents[2]
    (tmp_path / "tests").mkdir()
    checked = 0
    for path in sorted((root / "tests").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if (isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and body
                    and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str) and len(body) > 1):
                node.body = body[1:]
        (tmp_path / "tests" / path.name).write_text(ast.unparse(tree), encoding="utf-8")
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
        for name in names:
            nodeid = f"tests/{path.name}::{name}"
            assert provenance.test_hash(tmp_path, nodeid) == provenance.test_hash(root, nodeid), nodeid
            checked += 1
    assert checked > 300, f"only {checked} spec tests were checked"


def test_rekey_gives_evidence_under_the_earlier_hash_the_new_one_only_where_the_test_is_unchanged(tmp_path):
    """Evidence recorded under the earlier (text) hash keeps deciding once re-keyed, where that hash
    still matches the test; evidence of a test that changed since stays stale and a gone test's is
    counted gone (red in a world where rekey re-keys everything, or nothing)."""
    (tmp_path / "tests").mkdir()
    module = tmp_path / "tests" / "test_m.py"
    module.write_text(textwrap.dedent(MODULE))
    ids = ["tests/test_m.py::test_uses_helper[1]", "tests/test_m.py::test_other", "tests/test_m.py::test_renamed",
           "tests/test_m.py::TestGroup::test_method"]
    tests = {n: {"claims": ["t.a"], "outcome": "passed", "source_hash": provenance.legacy_test_hash(tmp_path, n)}
             for n in ids}
    tests["tests/test_m.py::test_renamed"]["source_hash"] = "f" * 16
    tests["tests/test_m.py::test_other"]["source_hash"] = "0" * 16  # ran as another version of the test
    tests["tests/test_m.py::TestGroup::test_method"]["source_hash"] = provenance.test_hash(
        tmp_path, "tests/test_m.py::TestGroup::test_method")
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps({"about": "a column", "schema": 3, "tests": tests}))
    found = evidence_files.rekey_file(tmp_path, path)
    assert {k: v for k, v in found.items() if v} == {
        "rekeyed": [ids[0]], "stale": [ids[1]], "gone": [ids[2]], "current": [ids[3]]}
    after = json.loads(path.read_text())["tests"]
    assert after[ids[0]]["source_hash"] == provenance.test_hash(tmp_path, ids[0]) != tests[ids[0]]["source_hash"]
    assert after[ids[1]]["source_hash"] == "0" * 16
    assert path.read_text().count("\n") > len(ids), "the evidence file keeps its one-line-per-test layout"
    assert evidence_files.rekey_file(tmp_path, path)["rekeyed"] == [], "a second re-key finds nothing to do"


def _stamped(root, nodeids):
    return {n: {"claims": ["t.a"], "outcome": "passed", "source_hash": provenance.test_hash(root, n)} for n in nodeids}


def test_rename_moves_a_renamed_files_evidence_and_its_hashes_stay_valid(tmp_path, capsys):
    """`rename OLD NEW` after `git mv`: the file's records move to the new node IDs, other files'
    records stay, and every moved hash matches the test at its new path (the hash names no path).
    Red in a world where rename moves nothing, moves another file's records (a bare prefix match:
    tests/test_m.py is a prefix of tests/test_m.pyx), or where the hash depends on the path."""
    (tmp_path / "tests").mkdir()
    before = tmp_path / "tests" / "test_m.py"
    before.write_text(textwrap.dedent(MODULE))
    (tmp_path / "tests" / "test_m.pyx").write_text(textwrap.dedent(MODULE))
    ids = ["tests/test_m.py::test_uses_helper[1]", "tests/test_m.py::test_other",
           "tests/test_m.py::TestGroup::test_method"]
    tests = dict(sorted(_stamped(tmp_path, ids + ["tests/test_m.pyx::test_other"]).items()))
    path = tmp_path / "evidence.json"
    disagreements = [{"nodeid": ids[1]}]
    path.write_text(json.dumps({"about": "a column", "schema": 3, "disagreements": disagreements, "tests": tests}))
    before.rename(tmp_path / "tests" / "test_n.py")
    assert evidence_files.main(["rename", "tests/test_m.py", "tests/test_n.py", str(path)]) == 0
    assert "moved 3 record(s)" in capsys.readouterr().out
    doc = json.loads(path.read_text())
    new_ids = [n.replace("test_m.py", "test_n.py") for n in ids]
    assert sorted(doc["tests"]) == sorted(new_ids + ["tests/test_m.pyx::test_other"]), sorted(doc["tests"])
    assert list(doc["tests"]) == sorted(doc["tests"]), "committed evidence stays sorted by node ID"
    assert doc["disagreements"] == [{"nodeid": new_ids[1]}]
    for old, new in zip(ids, new_ids, strict=True):
        assert doc["tests"][new]["source_hash"] == tests[old]["source_hash"] == provenance.test_hash(tmp_path, new), (
            f"{old} -> {new}: hash {doc['tests'][new]['source_hash']}, now {provenance.test_hash(tmp_path, new)}")
    assert path.read_text().count("\n") > len(ids), "the evidence file keeps its one-line-per-test layout"


def test_rename_of_one_test_moves_its_records_and_a_test_moved_without_its_helper_reads_stale(tmp_path):
    """`rename FILE::TEST FILE2::TEST` moves that test's records (each parametrized case) and its
    claims' node IDs in a report; a test moved beside another helper of the same name no longer
    matches its hash (stale), one moved with its helper does. Red in a world where a node-ID rename
    also moves test_uses_helper_more (a prefix), or where the records move without their claims' IDs."""
    (tmp_path / "tests").mkdir()
    source = textwrap.dedent(MODULE) + "\n\ndef test_uses_helper_more():\n    assert helper(4) == 2\n"
    (tmp_path / "tests" / "test_m.py").write_text(source)
    ids = ["tests/test_m.py::test_uses_helper[1]", "tests/test_m.py::test_uses_helper[2]",
           "tests/test_m.py::test_uses_helper_more"]
    tests = _stamped(tmp_path, ids)
    doc = {"schema": 3, "claims": [{"id": "t.a", "tests": [{"nodeid": n} for n in ids], "figures": [{"test": ids[0]}]}],
           "tests": tests}
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc))
    moved = evidence_files.rename_file(path, "tests/test_m.py::test_uses_helper", "tests/test_o.py::test_uses_helper")
    assert moved == ids[:2]
    after = json.loads(path.read_text())
    new = [n.replace("test_m.py", "test_o.py") for n in ids[:2]]
    assert sorted(after["tests"]) == sorted(new + ids[2:])
    assert [t["nodeid"] for t in after["claims"][0]["tests"]] == new + ids[2:]
    assert after["claims"][0]["figures"] == [{"test": new[0]}]
    (tmp_path / "tests" / "test_o.py").write_text(source)  # moved with its helpers: the same hash
    assert provenance.test_hash(tmp_path, new[0]) == tests[ids[0]]["source_hash"]
    (tmp_path / "tests" / "test_o.py").write_text(source.replace("return x * P", "return x * P * 2"))
    assert provenance.stale(after["tests"][new[0]], provenance.stamp(tmp_path, {}, new[0], []), "t.a"), (
        "a test moved beside a different helper must read stale")


def test_rename_refuses_to_overwrite_evidence_under_the_new_name(tmp_path, capsys):
    ids = ["tests/test_m.py::test_other", "tests/test_n.py::test_other"]
    path = tmp_path / "evidence.json"
    text = json.dumps({"about": "a column", "schema": 3, "tests": {n: {"outcome": "passed"} for n in ids}})
    path.write_text(text)
    assert evidence_files.main(["rename", "tests/test_m.py", "tests/test_n.py", str(path)]) == 1
    assert "exist under the new name already" in capsys.readouterr().err
    assert path.read_text() == text, "nothing is written when a record would be lost"
    assert evidence_files.main(["rename", "tests/test_m.py", "tests/test_n.py::test_other", str(path)]) == 2


@pytest.mark.parametrize("command", ["rename", "rekey"])
def test_rename_and_rekey_wait_for_a_runs_lock_on_the_report(tmp_path, command):
    """A pytest run holds the report's lock (storage.locked) while it reads, merges and writes it;
    a rename or rekey of the same report takes that lock too, so it starts only after the run wrote,
    and neither drops the other's records. Red in a world where they rewrite the file unlocked:
    they then finish while the run still holds the lock."""
    import threading

    from harness import storage

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_m.py").write_text(textwrap.dedent(MODULE))
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"schema": 3, "claims": [],
                                "tests": _stamped(tmp_path, ["tests/test_m.py::test_other"])}))
    done = threading.Event()

    def rewrite():
        if command == "rename":
            evidence_files.rename_file(path, "tests/test_m.py", "tests/test_n.py")
        else:
            evidence_files.rekey_file(tmp_path, path)
        done.set()

    with storage.locked(path):
        worker = threading.Thread(target=rewrite)
        worker.start()
        assert not done.wait(1.0), f"{command} rewrote the report while a run held its lock"
    worker.join(30)
    assert done.is_set(), f"{command} did not finish once the lock was released"
