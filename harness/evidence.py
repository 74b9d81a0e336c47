"""The evidence model: the values that travel from a test's outcome to a cell of the matrix.

- `TestRecord`: one claim-linked test's evidence, as the plugin records it (record()) and as
  reports/claims.json and docs/matrix/reports/*.json store it under `tests`;
- `Run`: one pytest run of a report (`runs`), and `Selection`: what that run selected, described
  once for every text that names it;
- `TestEntry` and `ClaimEntry`: a claim of a built report (`claims`), with its tests' rows;
- `Environment`: the machine and libraries a report's runs had (harness/probe.py);
- `ClaimsReport`: the whole claims report (harness/report.py's build());
- replaces(): the one rule by which later evidence of a test replaces earlier evidence, used
  where a run is added to its report (report.merge) and where the matrix merges the reports of a
  column (harness/matrix/column_evidence.py);
- `Note`: one labelled part of the text behind a verdict ("correction", "not run", ...), kept
  apart until it is rendered;
- the words of a record's outcome (RED, EXECUTED, SKIPPED, STALE) and the reason stale evidence
  gives (STALE_REASON), which harness/verdicts.py and harness/provenance.py use from here.

The types are TypedDicts: the JSON on disk is these dicts, key for key (report.SCHEMA). This is the
floor of harness/: it imports nothing from it (meta_tests/pipeline/test_harness_units.py reads every
import of the package and holds its graph to one way)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

# a test record's outcome
RED = {"failed", "error", "xfailed", "xpassed"}
EXECUTED = RED | {"passed"}
SKIPPED = {"skipped", "deselected", None}
STALE = "stale"  # an executed test whose source or claim changed since it ran (harness/provenance.py)
STALE_REASON = "evidence from an older version of the test or claim: rerun"

SCHEMA = 3  # the layout of a claims report (harness/report.py's docstring)
MERGEABLE_SCHEMAS = (2, SCHEMA)  # older schemas whose evidence records this one still reads


class Kind(TypedDict, total=False):
    """What a test needs: the report tells deciding from supporting evidence by it."""
    gpus: int
    processes: bool
    benchmark: bool
    libs: list[str]
    network: bool


class Figure(TypedDict, total=False):
    """A measured figure (the claim_figure fixture): name, value, and optionally spread, unit, rule."""
    name: str
    value: float
    spread: float
    unit: str
    rule: str


class TestRecord(TypedDict, total=False):
    claims: list[str]  # the claim IDs the test is linked to
    outcome: str | None  # passed, failed, error, skipped, xfailed, xpassed, deselected
    reason: str | None  # a skip's or failure's one line
    figures: list[Figure]
    inconclusive: str | None  # why a benchmark's two sides could not be told apart
    kind: Kind
    halves: dict[str, str]  # claim ID -> "holding" / "failing"
    decides: dict[str, str]  # claim ID -> the declared role (harness/roles.py)
    warnings: list[dict[str, str]]  # [{"category", "message"}] the test raised and did not assert
    run: int  # index of the run (in the report's `runs`) that recorded it
    source_hash: str | None  # provenance (harness/provenance.py)
    claims_hash: dict[str, str]


class Run(TypedDict, total=False):
    args: list[str]
    markexpr: str
    claims: list[str]  # the --claim IDs
    keyword: str  # -k, when given
    finished: str  # ISO time
    executed: int
    skipped: int
    exitstatus: int
    complete: bool
    incomplete: str  # why and where it stopped, when not complete
    environment: str  # the fingerprint of its environment (the matrix's merged evidence)


class TestEntry(TypedDict, total=False):
    """A test's row in a claim of a built report (`half` and `decides` only where set)."""
    nodeid: str
    outcome: str | None
    reason: str | None
    role: str  # deciding / supporting
    device: str
    half: str
    decides: str


class ClaimEntry(TypedDict, total=False):
    """A claim of a built report; every key is written by report.build(), and a report of an
    earlier layout may lack one (`causes`), so readers use .get() for those."""
    id: str
    topic: str
    claim: str
    added: bool
    split_from: str | None
    source: list[str]
    says: list[dict]  # [{"at": "Note 003, lines 140–144", "says": the note's lines in English}]
    checklist_needs: list[str]
    decided_by: str
    verdict: str
    standing: str | None
    correction: str | None
    history: str | None
    causes: list[dict]  # [{"range": "refuted from torch 2.0", "cause": ...}]
    reason: str | None
    supporting: str | None
    tests: list[TestEntry]
    figures: list[dict]  # Figure with "test": its node ID


class Environment(TypedDict, total=False):
    """The environment of a report's runs (harness/probe.py's environment()); same fingerprint,
    same environment: the runs add up in one report."""
    torch: str
    torchvision: str | None
    numpy: str
    python: str
    platform: str
    machine: str
    cuda_available: bool
    gpu_count: int
    gpu_names: list[str]
    cuda_version: str | None
    cuda_status: str
    device: str
    libraries: dict[str, str]  # optional module -> its distribution's version
    gpu_preflight: dict[str, Any]  # GPU machines only: driver, compute and MIG mode, clocks, ...
    cudnn_version: str | None  # GPU machines only
    nccl_version: str | None  # GPU machines only
    fingerprint: str


class ClaimsReport(TypedDict):
    """reports/claims.json as report.build() writes it (its layout: harness/report.py's docstring)."""
    schema: int
    generated: str
    environment: Environment
    runs: list[Run]
    titles: dict[str, str]
    summary: dict[str, int]
    claims: list[ClaimEntry]
    tests: dict[str, TestRecord]


def record(claims: list[str], kind: Kind, *, outcome: str | None = None, reason: str | None = None,
           halves: dict | None = None, decides: dict | None = None) -> TestRecord:
    """A test's evidence as the plugin starts it: no figures, not inconclusive; `halves` and
    `decides` only where the test's markers give them."""
    rec = TestRecord(claims=claims, outcome=outcome, reason=reason, figures=[], inconclusive=None, kind=kind)
    if halves:
        rec["halves"] = halves
    if decides:
        rec["decides"] = decides
    return rec


# --- the replacement rule ----------------------------------------------------------------------


def rank(outcome: str | None) -> int:
    """How much a record says: an executed result beats a skip, a skip beats a deselection."""
    return 2 if outcome in EXECUTED else 1 if outcome == "skipped" else 0


def replaces(new: TestRecord, old: TestRecord | None) -> bool:
    """Whether `new` (evidence laid down later) replaces `old` (earlier evidence of the same test):
    an executed result replaces anything; a skip replaces only a skip or a deselection (a serial
    benchmark run is not undone by a later xdist run that skips it); a deselection only fills a gap."""
    return old is None or rank(new.get("outcome")) >= rank(old.get("outcome"))


# --- what a run selected -----------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """What one run selected: its pytest arguments, -m expression, --claim IDs and -k."""
    args: tuple[str, ...] = ()
    markexpr: str = ""
    claims: tuple[str, ...] = ()
    keyword: str = ""

    @classmethod
    def of(cls, run: Run) -> Selection:
        return cls(tuple(str(a) for a in run.get("args") or ()), run.get("markexpr") or "",
                   tuple(run.get("claims") or ()), run.get("keyword") or "")

    def options(self) -> str:
        """The selecting options ("-m 'cpu' --claim a,b -k 'x'"), else the whole command."""
        words = ([f"-m {self.markexpr!r}"] if self.markexpr else []) + (
            ["--claim " + ",".join(self.claims)] if self.claims else []) + (
            [f"-k {self.keyword!r}"] if self.keyword else [])
        return " ".join(words) or "pytest " + " ".join(self.args)

    def partial(self) -> str | None:
        """Why the run is not a whole-suite run (--claim, -k, named tests), or None."""
        why = []
        if self.claims:
            why.append("--claim " + ",".join(self.claims))
        if any(a.startswith("-k") for a in self.args):
            why.append("-k")
        if any(a.endswith(".py") or "::" in a or a.startswith("tests/") for a in self.args):
            why.append("named tests")
        return ", ".join(why) or None

    def shown_args(self) -> str:
        """The pytest arguments without where the report went (--claims-report)."""
        args = self.args
        kept = [a for i, a in enumerate(args)
                if not (a.startswith("--claims-report") or (i and args[i - 1] == "--claims-report"))]
        return " ".join(kept) or "(all)"


def still_incomplete(runs: list[Run], tests: dict[str, TestRecord]) -> list[int]:
    """The indices of the runs recorded as stopped before their end (`"complete": false`) whose
    evidence still stands: a run every record of which a later run replaced (a complete rerun)
    leaves nothing behind that it did not reach, and no longer makes the report incomplete."""
    standing = {t.get("run") for t in tests.values()}
    return [i for i, r in enumerate(runs) if r.get("complete") is False and i in standing]


def not_selected(runs: list[Run]) -> str:
    """Why a deselected test did not run, the same whichever run came last: the selections of all
    the runs in the report (not only the run that deselected it)."""
    chosen = sorted(dict.fromkeys(Selection.of(r).options() for r in runs))
    return f"not selected by the {'run' if len(runs) == 1 else 'runs'} in this report ({'; '.join(chosen)})"


# --- the text behind a verdict -----------------------------------------------------------------


class Note(NamedTuple):
    """One part of what lies behind a verdict: ("correction", text), ("not run", reason), or an
    unlabelled sentence (label None)."""
    label: str | None
    text: str

    def __str__(self) -> str:
        return f"{self.label}: {self.text}" if self.label else self.text


def joined_notes(notes: list[Note]) -> str:
    """Notes as one line of text ("correction: ... | tests: 3 passed"), for a title or a table cell."""
    return " | ".join(map(str, notes))
