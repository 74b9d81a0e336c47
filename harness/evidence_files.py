"""The claims reports and column evidence files, changed in place by provenance's two tools
(`python -m harness.evidence_files rekey|rename`), each under the lock a pytest run holds while it
merges into the report (storage.locked) and written atomically in the file's own layout.

Re-keying (`python -m harness.evidence_files rekey REPORT...`): evidence stamped with the text hash
(`provenance.legacy_test_hash()`: the text of the undecorated definition and of what it uses, the stamp of
reports written before the syntax-tree hash) is given the syntax-tree hash where the text hash
still matches the test as it is, so evidence that cannot be measured again at will (a GPU column)
keeps deciding; evidence that matches neither stays stale, and evidence of a test that no longer
exists is counted as gone.

Renaming (`python -m harness.evidence_files rename OLD NEW REPORT...`): the records of a renamed test
file (or of one test moved to another file) move to their new node IDs with their hashes, which
name no path: a test moved with what it uses still matches them, and one that changed reads stale.

A file that is missing, truncated or no report is one line and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from harness import rendering, storage
from harness.provenance import rekey_tests, rename_tests


def rekey_file(rootdir, path: pathlib.Path, write: bool = True) -> dict[str, list[str]]:
    """rekey_tests() on one claims report (reports/*.json) or committed column evidence
    (docs/matrix/reports/*.json), written back atomically in the file's own layout when a record
    changed. Gone tests' records are counted, not removed (the report's merge and the matrix
    drop them from what they show; the evidence file loses them at the next matrix build).
    It holds the lock a pytest run holds while it merges into a claims report (storage.locked):
    a rewrite here and a run's merge never interleave, so neither loses the other's records."""
    with storage.locked(_existing(path)):
        doc = _read_evidence(path)
        found = rekey_tests(rootdir, doc.get("tests") or {})
        if write and found["rekeyed"]:
            if "about" in doc:  # a column's committed evidence: one line per test
                out = storage.dump_evidence(doc)
            else:
                out = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
            storage.write_atomic(path, out)
    return found


class UnreadableEvidence(ValueError):
    """A file given to rekey or rename that is no claims report or column evidence."""


def _existing(path: pathlib.Path) -> pathlib.Path:
    """`path`, when it is a file (taking its lock would create its folder and a .lock file)."""
    if not path.is_file():
        raise UnreadableEvidence("no such file" if not path.exists() else "not a file")
    return path


def _read_evidence(path: pathlib.Path) -> dict:
    """A claims report or a column's committed evidence, read as JSON with its `tests`."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a truncated file, not UTF-8, unreadable
        raise UnreadableEvidence(f"cannot be read as JSON ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("tests", {}), dict):
        raise UnreadableEvidence("is no claims report or column evidence (no `tests` of evidence records)")
    return doc


def rename_file(path: pathlib.Path, old: str, new: str, write: bool = True) -> list[str]:
    """rename_tests() on one claims report (its Markdown beside it rendered again) or one column's
    committed evidence (in its own layout), written atomically when a record moved, under the
    report's lock as rekey_file()."""
    with storage.locked(_existing(path)):
        doc = _read_evidence(path)
        moved = rename_tests(doc, old, new)
        if write and moved:
            if "about" in doc:  # a column's committed evidence: one line per test
                storage.write_atomic(path, storage.dump_evidence(doc))
            elif path.with_suffix(".md").exists():
                storage.write(doc, path, rendering.render_markdown(doc))
            else:
                storage.write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return moved


def _rename_main(args) -> int:
    for name in (args.old, args.new):
        if not name.split("::", 1)[0].endswith(".py") or "[" in name:
            print(f"python -m harness.evidence_files rename: {name!r} is neither a test file (tests/test_x.py) nor a "
                  "test's node ID without parameters (tests/test_x.py::test_y)", file=sys.stderr)
            return 2
    if ("::" in args.old) != ("::" in args.new):
        print("python -m harness.evidence_files rename: OLD and NEW must both be files or both be node IDs",
              file=sys.stderr)
        return 2
    total = 0
    for path in args.reports:
        try:
            moved = rename_file(path, args.old, args.new, write=not args.dry_run)
        except (UnreadableEvidence, OSError) as exc:
            print(f"python -m harness.evidence_files rename: {path}: {exc}", file=sys.stderr)
            return 2
        except ValueError as exc:
            print(f"python -m harness.evidence_files rename: {path}: {exc}; nothing written to it", file=sys.stderr)
            return 1
        total += len(moved)
        print(f"{path}: {len(moved)} record(s) moved")
    print(("would move" if args.dry_run else "moved") + f" {total} record(s) from {args.old} to {args.new} in "
          f"{len(args.reports)} file(s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.evidence_files",
        description="Re-key evidence stamped with the text source hash to the syntax-tree hash, where the "
                    "text hash still matches the test as it is in this checkout (rekey); move evidence "
                    "to a renamed test file's node IDs (rename).")
    sub = parser.add_subparsers(dest="command", required=True)
    rk = sub.add_parser("rekey", help="re-key claims reports and committed column evidence in place")
    rk.add_argument("reports", nargs="+", type=pathlib.Path,
                    help="JSON files (reports/*.json, docs/matrix/reports/*.json)")
    rk.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                    help="the checkout the tests live in (default: this one)")
    rk.add_argument("--dry-run", action="store_true", help="count, write nothing")
    rk.add_argument("--list", action="store_true", help="name the stale and gone tests of each file")
    rn = sub.add_parser("rename", help="move the evidence of a renamed test file, or of one test moved to "
                                       "another file, to its new node IDs")
    rn.add_argument("old", metavar="OLD", help="the file (tests/test_a.py) or node ID (tests/test_a.py::test_x) before")
    rn.add_argument("new", metavar="NEW", help="the same after")
    rn.add_argument("reports", nargs="+", type=pathlib.Path,
                    help="JSON files (reports/*.json, docs/matrix/reports/*.json)")
    rn.add_argument("--dry-run", action="store_true", help="count, write nothing")
    args = parser.parse_args(argv)
    if args.command == "rename":
        return _rename_main(args)
    totals: dict[str, int] = {}
    for path in args.reports:
        try:
            found = rekey_file(args.root, path, write=not args.dry_run)
        except (UnreadableEvidence, OSError) as exc:
            print(f"python -m harness.evidence_files rekey: {path}: {exc}", file=sys.stderr)
            return 2
        for k, v in found.items():
            totals[k] = totals.get(k, 0) + len(v)
        print(f"{path}: " + ", ".join(f"{len(v)} {k}" for k, v in found.items() if v))
        if args.list:
            for k in ("stale", "gone"):
                for nodeid in found[k]:
                    print(f"  {k}: {nodeid}")
    print(("would re-key" if args.dry_run else "re-keyed") + f" {totals.get('rekeyed', 0)} record(s) in "
          f"{len(args.reports)} file(s); " + ", ".join(f"{v} {k}" for k, v in totals.items() if v and k != "rekeyed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
