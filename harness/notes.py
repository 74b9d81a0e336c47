"""The notes' own lines behind each claim: locators, digests, sections, hedges and terms.

    python -m harness.notes check [TOPIC ...]   what each claim's locators and wording lack
    python -m harness.notes pin                 record the digest of every cited line range
    python -m harness.notes show ID             a claim's cited lines, numbered, beside its `says`
    python -m harness.notes uncovered [NOTE]    the non-blank lines no claim cites and no _uncited_*.toml lists

Torch-free. A claim names, per note it cites, the lines it tests (`at = ["003:140-144"]`, 1-based
and inclusive) and renders each range literally in English (`says`, one entry per locator). The
notes themselves are not part of this repository: they are read from ../shared/seeds at test time
(every developer machine and CI has them) and never copied; `tests/claims/note_lines.json` keeps
a digest of each cited range, so a changed note shows as a changed digest.

The checks against the original (`problems`), each of which meta_tests/pipeline/test_note_lines.py
runs over every claim:

- every locator names an existing note and lines inside it, and lies in the section the claim's
  `source` names for that note (the nearest cited section heading at or above the range's first
  line is that section or one of its subsections);
- every note in `source` has a locator, and every locator's note is in `source`;
- every identifier and number of the claim text (`terms`) occurs in the cited lines of *each*
  note the claim cites, or is listed in the claim's `project_terms` (the project's words, shown
  as such): a claim cannot carry a name, default or number its note does not write, and cannot
  charge a second note with the first one's words;
- every hedge or date marker in the cited lines (`HEDGES`, a torch version) has its English
  counterpart in `says` and in the claim text, or the claim's `unhedged` says why that marker
  does not govern the statement ("可能: the hedge is on the next sentence, about X").

Every non-blank line of the five notes is cited by a claim or listed in a tests/claims/_uncited_<topic>.toml
with the reason it states nothing a claim could test (a restatement of cited lines, pure Python,
an opinion, conda usage, a heading): `uncovered` finds the lines that are neither.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import re
import sys
from dataclasses import dataclass

from harness import inventory
from harness.note_order import SEP, offset

ROOT = pathlib.Path(__file__).resolve().parent.parent
PINS = ROOT / "tests" / "claims" / "note_lines.json"
SEEDS_ENV = "CLAIMS_NOTES_DIR"  # where the notes are, when not ../shared/seeds beside the checkout


def seeds_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get(SEEDS_ENV) or ROOT.parent / "shared" / "seeds")


LOCATOR = re.compile(r"^(\d{3}):(\d+)(?:-(\d+))?$")


@dataclass(frozen=True, order=True)
class Locator:
    note: str  # the note's number, "003"
    first: int
    last: int

    def __str__(self) -> str:
        return f"{self.note}:{self.first}" + (f"-{self.last}" if self.last != self.first else "")

    @property
    def label(self) -> str:
        """How a reader sees it: "Note 003, lines 140–144"."""
        if self.first == self.last:
            return f"Note {self.note}, line {self.first}"
        return f"Note {self.note}, lines {self.first}\u2013{self.last}"


def parse(text: str) -> Locator:
    m = LOCATOR.match(text.strip())
    if not m:
        raise ValueError(f"locator {text!r} is not NNN:FIRST or NNN:FIRST-LAST (e.g. '003:140-144')")
    first = int(m.group(2))
    last = int(m.group(3) or first)
    if first < 1 or last < first:
        raise ValueError(f"locator {text!r}: lines run from 1 and FIRST <= LAST")
    return Locator(m.group(1), first, last)


def note_number(source: str) -> str:
    """The note a `source` entry names: "003_df07c2a5da61a567.txt › 4 torch 神经网络" -> "003"."""
    return source.split(SEP)[0].strip()[:3]


def rendered(claim) -> list[tuple[str, str]]:
    """[(label, says)] in locator order: what the report and the pages print above a verdict."""
    out = []
    for at, says in zip(claim.at, claim.says, strict=False):
        try:
            label = parse(at).label
        except ValueError:
            label = at
        out.append((label, says))
    return out


# -- the notes -----------------------------------------------------------------------------------

class Notes:
    """The five notes, read once: their lines by number."""

    def __init__(self, folder: pathlib.Path | None = None) -> None:
        self.folder = folder or seeds_dir()
        self.files = {p.name[:3]: p for p in sorted(self.folder.glob("[0-9][0-9][0-9]_*.txt"))}
        self._text: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self.files)

    def text(self, note: str) -> str:
        if note not in self._text:
            self._text[note] = self.files[note].read_text(encoding="utf-8")
        return self._text[note]

    def lines(self, note: str) -> list[str]:
        return self.text(note).splitlines()

    def cited(self, loc: Locator) -> str:
        return "\n".join(self.lines(loc.note)[loc.first - 1:loc.last])

    def section_line(self, source: str) -> int:
        """The 1-based line where a `source` entry's section starts (0: not found)."""
        note, _, section = source.partition(SEP)
        text = self.text(note_number(note))
        at = offset(text, section)
        return text.count("\n", 0, at) + 1 if at >= 0 else 0


def digest(text: str) -> str:
    body = "\n".join(line.rstrip() for line in text.splitlines())
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def load_pins(path: pathlib.Path = PINS) -> dict[str, str]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


# -- hedges and dates ----------------------------------------------------------------------------

# A hedge or date marker the notes write, and the English words that render it. `says` and the
# claim text must both carry a counterpart: a hedged statement is judged as hedged.
HEDGES: dict[str, str] = {
    "一般": r"generally|usually|in general|typically|normally|as a rule|commonly|general",
    "通常": r"generally|usually|typically|normally|as a rule|commonly",
    "猜测": r"guess|conjectur|speculat|presumably",
    "大概": r"roughly|about|approximately|probably|presumably|likely|around",
    "大致": r"rough|approximately|broadly|about",
    "可能": r"\bmay\b|might|\bcan\b|cannot|can't|could|possibl|perhaps|likely|probabl|impossible",
    "应该": r"should|ought|supposed|presumably|probably|expected",
    "似乎": r"seem|appear|apparently",
    "好像": r"seem|appear|apparently|as if|looks like",
    "也许": r"maybe|perhaps|possibly|might|\bmay\b",
}
VERSION = re.compile(r"(?i)(?:py)?torch\s*(?:版本\s*)?v?(\d+\.\d+(?:\.\d+)?)")


def markers(text: str) -> list[str]:
    """The hedge and date markers in `text`: hedge words, then "torch X.Y" for each version."""
    found = [m for m in HEDGES if m in text]
    found += [f"torch {v}" for v in dict.fromkeys(VERSION.findall(text))]
    return found


def rendered_by(marker: str, english: str) -> bool:
    if marker.startswith("torch "):
        return marker.split()[1] in english
    return re.search(HEDGES[marker], english, re.IGNORECASE) is not None


# -- terms ---------------------------------------------------------------------------------------

_BACKTICK = re.compile(r"`([^`]+)`")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\(\))?(?:\.[A-Za-z_]\w*(?:\(\))?)+")
_CALL = re.compile(r"\b[A-Za-z_]\w*\(\)")
_SNAKE = re.compile(r"\b[A-Za-z]\w*_\w+\b")
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\w*\b|\b[a-z]+[A-Z]\w*\b")
_ABBREVIATION = re.compile(r"\b(?:[A-Za-z]\.){2,}")  # "e.g.", "i.e.", "w.r.t.": English, not a dotted name
_NUMBER = re.compile(r"(?<![\w.])(?:\d+\.\d+|\d{2,})(?!\w|\.\d)")


def terms(claim_text: str) -> list[str]:
    """The identifiers and numbers of a claim text that its note must write: backticked spans,
    dotted names and calls (`tensor.detach().clone()`), snake_case and CamelCase names, and
    numbers of two or more characters (a single digit, "dim 0", is left to the reader)."""
    found: list[str] = []
    rest = claim_text
    for m in _BACKTICK.finditer(claim_text):
        found.append(m.group(1))
    rest = _BACKTICK.sub(" ", rest)
    rest = _ABBREVIATION.sub(" ", rest)
    for pattern in (_DOTTED, _CALL, _SNAKE, _CAMEL):
        for m in pattern.finditer(rest):
            found.append(m.group(0))
        rest = pattern.sub(" ", rest)
    found += _NUMBER.findall(rest)
    return list(dict.fromkeys(t.strip() for t in found if t.strip()))


def _words(term: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z_]\w*|\d+(?:\.\d+)?", term)]


def written_in(term: str, cited: str) -> bool:
    """A term is written in the cited lines when each of its names and numbers is (names without
    regard to case: the notes write `Torch.item()` for Tensor.item; numbers as whole numbers)."""
    cited = cited.replace("\\_", "_")  # the notes' Markdown escapes: FEATURE\_DIM is FEATURE_DIM
    low = cited.lower()
    for word in _words(term):
        if word[0].isdigit():
            if not re.search(rf"(?<![\d.]){re.escape(word)}(?![\d]|\.\d)", cited):
                return False
        elif word.lower() not in low:
            return False
    return True


# -- the checks ----------------------------------------------------------------------------------

def problems(claim, notes: Notes, pins: dict[str, str], cited_sections: dict[str, list[tuple[int, str]]]
             ) -> list[str]:
    """What the claim's locators and wording lack against the notes (empty: nothing)."""
    out: list[str] = []
    if not claim.at:
        return ["no locator: add at = [\"NNN:FIRST-LAST\"] per note it cites, and says"]
    if len(claim.says) != len(claim.at):
        out.append(f"says has {len(claim.says)} entries for {len(claim.at)} locators: one rendering per locator")
    locs: list[Locator] = []
    for raw in claim.at:
        try:
            locs.append(parse(raw))
        except ValueError as e:
            out.append(str(e))
    source_notes = {note_number(s): s for s in claim.source}
    for loc in locs:
        if loc.note not in notes.files:
            out.append(f"{loc}: no note {loc.note} in {notes.folder}")
            continue
        count = len(notes.lines(loc.note))
        if loc.last > count:
            out.append(f"{loc}: note {loc.note} has {count} lines")
            continue
        if loc.note not in source_notes:
            out.append(f"{loc}: note {loc.note} is not in source")
            continue
        out += _section_problems(claim, loc, notes, cited_sections)
        pinned = pins.get(str(loc))
        now = digest(notes.cited(loc))
        if pinned is None:
            out.append(f"{loc}: no digest in {PINS.name} (python -m harness.notes pin)")
        elif pinned != now:
            out.append(f"{loc}: the note's lines changed since they were pinned ({pinned} -> {now}): "
                       "re-read the claims that cite them, then python -m harness.notes pin")
    for note in source_notes:
        if not any(loc.note == note for loc in locs):
            out.append(f"source cites note {note} but no locator names its lines")
    if out:
        return out
    per_note: dict[str, str] = {}
    for loc in locs:
        per_note[loc.note] = per_note.get(loc.note, "") + "\n" + notes.cited(loc)
    allowed = set(claim.project_terms)
    for note, cited in per_note.items():
        missing = [t for t in terms(claim.text) if t not in allowed and not written_in(t, cited)]
        if missing:
            out.append(f"claim text has {missing} that note {note}'s cited lines do not write: "
                       "cite the lines that do, or list them in project_terms")
    written = [t for t in claim.project_terms if t not in terms(claim.text)
               or all(written_in(t, cited) for cited in per_note.values())]
    if written:
        out.append(f"project_terms {written} are not the project's words: the claim text does not use them, "
                   "or every cited note writes them (drop them)")
    exempt = {u.split(":", 1)[0].strip() for u in claim.unhedged}
    says = " ".join(claim.says)
    for marker in dict.fromkeys(m for cited in per_note.values() for m in markers(cited)):
        if marker in exempt:
            continue
        if not rendered_by(marker, says):
            out.append(f"the cited lines write {marker!r} and says does not render it")
        if not rendered_by(marker, claim.text):
            out.append(f"the cited lines write {marker!r} and the claim text does not carry it")
    return out


def _section_problems(claim, loc: Locator, notes: Notes, cited_sections: dict[str, list[tuple[int, str]]]
                      ) -> list[str]:
    sources = [s for s in claim.source if note_number(s) == loc.note]
    starts = cited_sections.get(loc.note, [])
    before = [(line, src) for line, src in starts if line <= loc.first]
    if not before:
        return [f"{loc}: lies before every cited section of note {loc.note}"]
    nearest = max(line for line, _ in before)
    at_nearest = {src for line, src in before if line == nearest}
    for src in sources:
        start = notes.section_line(src)
        if start and start <= loc.first and any(s == src or s.startswith(src + SEP) or _same_start(s, src, notes)
                                                for s in at_nearest):
            return []
    return [f"{loc}: lies in section {sorted(at_nearest)[0]!r} (line {nearest}), not in {sources}"]


def _same_start(a: str, b: str, notes: Notes) -> bool:
    return notes.section_line(a) == notes.section_line(b)


def cited_sections(inv, notes: Notes) -> dict[str, list[tuple[int, str]]]:
    """{note: [(start line, source)]} for every section the inventory cites."""
    out: dict[str, list[tuple[int, str]]] = {}
    for claim in inv.claims.values():
        for src in claim.source:
            note = note_number(src)
            if note in notes.files:
                line = notes.section_line(src)
                if line and (line, src) not in out.setdefault(note, []):
                    out[note].append((line, src))
    for v in out.values():
        v.sort()
    return out


def check(inv=None, notes: Notes | None = None, topics: list[str] | None = None) -> dict[str, list[str]]:
    inv = inv or inventory.load()
    notes = notes or Notes()
    pins = load_pins()
    sections = cited_sections(inv, notes)
    return {cid: p for cid, c in inv.claims.items() if not topics or c.topic in topics
            for p in [problems(c, notes, pins, sections)] if p}


def pin(inv=None, notes: Notes | None = None) -> dict[str, str]:
    inv = inv or inventory.load()
    notes = notes or Notes()
    out = {}
    for claim in inv.claims.values():
        for raw in claim.at:
            loc = parse(raw)
            if loc.note in notes.files and loc.last <= len(notes.lines(loc.note)):
                out[str(loc)] = digest(notes.cited(loc))
    return dict(sorted(out.items(), key=lambda kv: parse(kv[0])))


LEFT_OUT = ROOT / "tests" / "claims"  # _uncited_<topic>.toml files: no topic, inventory.load skips "_*.toml"


@dataclass(frozen=True)
class LeftOut:
    """Lines of a note that state no library behaviour a claim could test, and why."""
    at: Locator
    why: str


def left_out(folder: pathlib.Path = LEFT_OUT) -> list[LeftOut]:
    """tests/claims/_uncited_<topic>.toml: [[lines]] at = "003:1-20", why = "..." (every non-blank
    line of the notes is cited by a claim or listed there with its reason)."""
    out = []
    for path in sorted(folder.glob("_uncited*.toml")):
        with path.open("rb") as fh:
            doc = inventory.tomllib.load(fh)
        for entry in doc.get("lines", []):
            if not isinstance(entry.get("why"), str) or not entry["why"].strip():
                raise inventory.InventoryError(f"{path.name}: {entry.get('at')!r} needs a reason (why)")
            out.append(LeftOut(parse(entry["at"]), entry["why"]))
    return out


def uncovered(inv, notes: Notes, note: str, listed: list[LeftOut] | None = None) -> list[tuple[int, int]]:
    """Runs of non-blank lines of `note` that no locator cites (and, given `listed`, that no
    entry of the _uncited_*.toml files names either)."""
    cited: set[int] = set()
    for claim in inv.claims.values():
        for raw in claim.at:
            loc = parse(raw)
            if loc.note == note:
                cited.update(range(loc.first, loc.last + 1))
    for entry in listed or []:
        if entry.at.note == note:
            cited.update(range(entry.at.first, entry.at.last + 1))
    runs: list[tuple[int, int]] = []
    for n, line in enumerate(notes.lines(note), start=1):
        if n in cited or not line.strip() or line.strip() == "```":
            continue
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.notes", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("topics", nargs="*")
    sub.add_parser("pin")
    s = sub.add_parser("show")
    s.add_argument("id")
    u = sub.add_parser("uncovered")
    u.add_argument("note", nargs="?")
    args = ap.parse_args(argv)
    notes = Notes()
    if not notes:
        print(f"no notes at {notes.folder}: set {SEEDS_ENV} to the folder of the notes", file=sys.stderr)
        return 2
    inv = inventory.load()
    if args.cmd == "check":
        found = check(inv, notes, args.topics)
        for cid, ps in found.items():
            print(cid)
            for p in ps:
                print(f"  - {p}")
        print(f"{len(found)} claims with problems")
        return 1 if found else 0
    if args.cmd == "pin":
        doc = pin(inv, notes)
        tmp = PINS.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(doc, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
        os.replace(tmp, PINS)
        print(f"{PINS}: {len(doc)} line ranges pinned")
        return 0
    if args.cmd == "show":
        claim = inv[args.id]
        print(f"{claim.id}: {claim.text}")
        for raw, says in zip(claim.at, claim.says, strict=False):
            loc = parse(raw)
            print(f"\n{loc.label}  says: {says}")
            for n in range(loc.first, loc.last + 1):
                print(f"  {n:4d} | {notes.lines(loc.note)[n - 1]}")
        print(f"\nterms: {terms(claim.text)}")
        return 0
    listed = left_out()
    for note in [args.note] if args.note else sorted(notes.files):
        runs = uncovered(inv, notes, note, listed)
        print(f"note {note}: {len(runs)} runs neither cited by a claim nor listed in _uncited_*.toml")
        for a, b in runs:
            print(f"  {note}:{a}-{b}" if b != a else f"  {note}:{a}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
