"""Every claim is pinned to the note's lines it tests and renders them literally (harness/notes.py).

Read against the notes themselves (../shared/seeds, or $CLAIMS_NOTES_DIR), at test time, nothing
copied: each locator exists and lies in the section its `source` names; each cited range's digest
is the one pinned in tests/claims/note_lines.json (a changed note turns this red); the claim text
writes no name or number that each cited note does not write (unless the claim lists it as the
project's own, `project_terms`); every hedge and date the lines write is rendered in `says` and
carried by the claim text. The wrong-world checks below turn each rule red on a scratch claim: a
dropped hedge, an added number, a note cited whose lines do not state the claim.
"""
from __future__ import annotations

import dataclasses
import re

import pytest

from harness import inventory, notes

NOTES = notes.Notes()
needs_notes = pytest.mark.skipif(not NOTES, reason=f"the notes are not at {NOTES.folder} "
                                 f"(set {notes.SEEDS_ENV} to their folder): nothing to check the claims against")


@pytest.fixture(scope="module")
def inv():
    return inventory.load()


@pytest.fixture(scope="module")
def sections(inv):
    return notes.cited_sections(inv, NOTES)


def problems_of(claim, inv, sections) -> list[str]:
    return notes.problems(claim, NOTES, notes.load_pins(), sections)


def test_every_claim_names_its_lines_and_renders_them(inv):
    lacking = [cid for cid, c in inv.claims.items() if not c.at or len(c.says) != len(c.at)]
    assert not lacking, f"{len(lacking)} claims without `at` and one `says` per locator: {lacking[:10]}"


@needs_notes
def test_every_claim_reads_true_to_its_lines(inv):
    found = notes.check(inv, NOTES)
    shown = "\n".join(f"{cid}: {p}" for cid, ps in list(found.items())[:15] for p in ps)
    assert not found, f"{len(found)} claims (python -m harness.notes check):\n{shown}"


@needs_notes
def test_the_pinned_digests_are_those_of_the_cited_lines_and_nothing_else(inv):
    assert notes.load_pins() == notes.pin(inv, NOTES), \
        "tests/claims/note_lines.json is not the digests of the cited ranges: python -m harness.notes pin"


def _hedged_claim(inv, sections):
    """A real claim whose lines write a hedge, and which passes every check as it is."""
    for claim in inv.claims.values():
        cited = "\n".join(NOTES.cited(notes.parse(a)) for a in claim.at)
        hedges = [m for m in notes.markers(cited) if not m.startswith("torch ")
                  and m not in {u.split(":", 1)[0] for u in claim.unhedged}]
        if hedges and not problems_of(claim, inv, sections):
            return claim, hedges[0]
    pytest.fail("no claim renders a hedge of its note: nothing to drop")


@needs_notes
def test_a_claim_that_drops_its_notes_hedge_goes_red(inv, sections):
    claim, marker = _hedged_claim(inv, sections)
    strip = re.compile(notes.HEDGES[marker], re.IGNORECASE)
    scratch = dataclasses.replace(claim, text=strip.sub("", claim.text),
                                  says=tuple(strip.sub("", s) for s in claim.says))
    found = problems_of(scratch, inv, sections)
    assert any(marker in p and "says does not render it" in p for p in found), (claim.id, marker, found)
    assert any(marker in p and "claim text does not carry it" in p for p in found), (claim.id, marker, found)


@needs_notes
def test_a_claim_that_adds_a_number_goes_red(inv, sections):
    claim = next(c for c in inv.claims.values() if c.at and not problems_of(c, inv, sections))
    scratch = dataclasses.replace(claim, text=claim.text + " The default port is 29517.")
    found = problems_of(scratch, inv, sections)
    assert any("'29517'" in p and "project_terms" in p for p in found), (claim.id, found)
    allowed = dataclasses.replace(scratch, project_terms=claim.project_terms + ("29517",))
    assert problems_of(allowed, inv, sections) == [], "listed as the project's term, the number is allowed"


@needs_notes
def test_a_claim_that_cites_a_note_whose_lines_do_not_state_it_goes_red(inv, sections):
    """One note's words charged to a second note: the second note's lines lack the claim's terms."""
    one_note = [c for c in inv.claims.values() if len(c.at) == 1 and notes.terms(c.text)
                and not problems_of(c, inv, sections)]
    for claim in one_note:
        own = notes.parse(claim.at[0]).note
        for other in inv.claims.values():
            loc = notes.parse(other.at[0]) if other.at else None
            if loc is None or loc.note == own:
                continue
            cited = NOTES.cited(loc)
            if all(notes.written_in(t, cited) for t in notes.terms(claim.text)):
                continue  # that note happens to write every term: not a wrong note for this claim
            scratch = dataclasses.replace(claim, source=claim.source + other.source[:1],
                                          at=claim.at + (other.at[0],), says=claim.says + other.says[:1])
            found = problems_of(scratch, inv, sections)
            assert any(f"note {loc.note}'s cited lines do not write" in p for p in found), (claim.id, found)
            return
    pytest.fail("found no pair of claims to charge one note with another's words")


@needs_notes
def test_a_locator_outside_its_section_or_its_note_goes_red(inv, sections):
    claim = next(c for c in inv.claims.values() if c.at and not problems_of(c, inv, sections))
    loc = notes.parse(claim.at[0])
    beyond = dataclasses.replace(claim, at=(f"{loc.note}:{len(NOTES.lines(loc.note)) + 1}",) + claim.at[1:])
    assert any("has" in p and "lines" in p for p in problems_of(beyond, inv, sections))
    own = [line for line, src in sections[loc.note] if src in claim.source]
    elsewhere = next(line for line, src in sections[loc.note] if line > max(own) + 1)
    moved = dataclasses.replace(claim, at=(f"{loc.note}:{elsewhere}",) + claim.at[1:])
    assert any("lies in section" in p for p in problems_of(moved, inv, sections)), problems_of(moved, inv, sections)


def test_terms_are_the_names_and_numbers_a_claim_text_writes():
    assert notes.terms("tensor.detach() shares storage (grad_fn None, requires_grad False); "
                       "CrossEntropyLoss(label_smoothing=0.1) and port 29500 on rank 0") == \
        ["tensor.detach()", "grad_fn", "requires_grad", "label_smoothing", "CrossEntropyLoss", "0.1", "29500"]
    assert notes.written_in("tensor.item()", "Tensor.item() 取值"), "names without regard to case"
    assert not notes.written_in("Tensor.item()", "Torch.item() 取值"), "every part of a dotted name"
    assert not notes.written_in("29500", "port 295001")


def test_a_locator_reads_as_a_reader_sees_it():
    assert notes.parse("003:140-144").label == "Note 003, lines 140\u2013144"
    assert notes.parse("003:7").label == "Note 003, line 7"
    for bad in ("3:140", "003:144-140", "003:0", "003:a-b"):
        with pytest.raises(ValueError, match="locator"):
            notes.parse(bad)


def test_hedge_and_date_markers_and_their_renderings():
    assert notes.markers("local_rank 一般是 0; 在 torch 1.6 中") == ["一般", "torch 1.6"]
    assert notes.rendered_by("一般", "local_rank is generally 0")
    assert not notes.rendered_by("一般", "local_rank is 0")
    assert notes.rendered_by("torch 1.6", "in the torch 1.6 source")


@needs_notes
def test_every_line_of_the_notes_is_cited_by_a_claim_or_left_out_with_its_reason(inv):
    listed = notes.left_out()
    open_runs = {note: runs for note in sorted(NOTES.files)
                 for runs in [notes.uncovered(inv, NOTES, note, listed)] if runs}
    shown = {note: [f"{note}:{a}-{b}" for a, b in runs[:8]] for note, runs in open_runs.items()}
    assert not open_runs, ("lines no claim cites and no tests/claims/_uncited_*.toml lists "
                           f"(python -m harness.notes uncovered): {shown}")


@needs_notes
def test_a_line_left_out_is_cited_by_no_claim_and_lies_in_its_note(inv):
    cited = {(notes.parse(a).note, n) for c in inv.claims.values() for a in c.at
             for n in range(notes.parse(a).first, notes.parse(a).last + 1)}
    for entry in notes.left_out():
        assert entry.at.note in NOTES.files, entry
        assert entry.at.last <= len(NOTES.lines(entry.at.note)), entry
        both = [n for n in range(entry.at.first, entry.at.last + 1) if (entry.at.note, n) in cited]
        assert not both, f"{entry.at} is listed as stating nothing testable, yet claims cite lines {both}"
