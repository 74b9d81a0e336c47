"""The text of a claims report (harness/report.py builds it): the terminal summary
(summary_lines()), a line per asked claim (claim_lines()), and claims.md (render_markdown()),
with the one formatter of measured figures (figure_text(), figures_text()) that the matrix uses too."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.evidence import still_incomplete
from harness.verdicts import SKIPPED, WITH_CORRECTION, named_tests, shown_text, test_name


def summary_lines(doc: Mapping[str, Any]) -> list[str]:
    s = doc["summary"]
    parts = [f"{s['decided']} decided ({s['holds']} holds, {s.get('partly', 0)} partly, {s['refuted']} refuted"
             + (f", {s['inconclusive']} inconclusive" if s.get("inconclusive") else "") + ")",
             f"{s['not-run']} not run", f"{s['failed']} failed", f"{s['untested']} untested"]
    if s.get("stale_tests"):
        parts.append(f"{s['stale_tests']} stale test{'s' if s['stale_tests'] != 1 else ''} (rerun them)")
    env = doc["environment"]
    runs = doc.get("runs") or []
    lines = [f"claims: {', '.join(parts)}  (torch {env.get('torch')}, {env.get('cuda_status', env.get('gpu_count'))}"
             f"; {len(runs)} run{'s' if len(runs) != 1 else ''} in this report)"]
    why: dict[str, int] = {}
    for c in doc["claims"]:
        if c["verdict"] == "not-run":
            why[c["reason"]] = why.get(c["reason"], 0) + 1
    for reason, n in sorted(why.items(), key=lambda kv: (-kv[1], kv[0]))[:10]:
        lines.append(f"  not run ({n}): {reason}")
    if len(why) > 10:
        lines.append(f"  not run: {len(why) - 10} more reason{'s' if len(why) - 10 > 1 else ''} in the report")
    failed = [c["id"] for c in doc["claims"] if c["verdict"] == "failed"]
    if failed:
        lines.append("  failed: " + ", ".join(failed))
    for i in still_incomplete(runs, doc.get("tests") or {}):
        stopped = runs[i].get("incomplete") or "did not run to its end"
        lines.append(f"  incomplete run {i + 1} of {len(runs)}: {stopped}")
    return lines


CLAIM_LINES_MAX = 5  # a run that executed tests of at most this many claims prints a line for each


def claim_lines(doc: Mapping[str, Any], ids: list[str]) -> list[str]:
    """Per claim of `ids`: what the note says, line range by line range ("x.y · Note 003, lines
    140–144: “…”"), then one line with ID, verdict, the correction or the reason, and the tests
    that decided it by name (what a user who asked `--claim ID` wants to read)."""
    by_id = {c["id"]: c for c in doc["claims"]}
    out = []
    for cid in ids:
        c = by_id.get(cid)
        if c is None:
            continue
        parts = [f"correction: {c['correction']}"] if c["verdict"] == "refuted" and c.get("correction") else []
        if c["verdict"] == "partly" and c.get("correction"):
            parts.append(f"right in one case, wrong in another; the correction names both halves: {c['correction']}")
        parts += [c[k] for k in ("reason", "supporting") if c.get(k)]
        out += [f"  {cid} \u00b7 {s['at']}: \u201c{s['says']}\u201d" for s in c.get("says") or []]
        out.append(f"  {cid}: {c['verdict'].upper()}" + (" — " + " — ".join(parts) if parts else ""))
        if c["verdict"] == "partly":
            out += _halves(c)
    return out


def _halves(claim: dict) -> list[str]:
    """The tests that decided each half of a partly claim: what holds, and where the note fails."""
    out = []
    for half, what in (("holding", "the case the note states"), ("failing", "where the note fails")):
        names = [test_name(t["nodeid"]) for t in claim.get("tests") or []
                 if t.get("half") == half and t.get("outcome") == "passed" and t.get("role") != "supporting"]
        if names:
            out.append(f"    {half} half ({what}): {', '.join(names)} passed")
    return out


def _cell(text) -> str:
    return str(text or "").replace("|", "\\|").replace("\n", " ")


def figure_text(f: dict) -> str:
    """One benchmark figure as every output writes it: "1.91x ± 0.05" (a ratio), "12.3 ms ± 0.4"."""
    unit = f.get("unit") or ""
    text = f"{f['value']:.4g}" + (unit if unit == "x" else f" {unit}" if unit else "")
    if isinstance(f.get("spread"), (int, float)):
        text += f" ± {f['spread']:.2g}"
    return text


def numeric_figures(c: Mapping[str, Any] | None) -> list[dict]:
    """The figures of a claim entry that have a number to show (a bool is not a measurement)."""
    return [f for f in (c or {}).get("figures") or []
            if isinstance(f.get("value"), (int, float)) and not isinstance(f.get("value"), bool)]


def figures_text(c: Mapping[str, Any] | None) -> str:
    """A claim's measured figures in one line: "float64 / float32 time = 1.91x ± 0.05; ..."."""
    return "; ".join(f"{f.get('name')} = {figure_text(f)}" for f in numeric_figures(c))


def _evidence(c: dict) -> str:
    """The tests that ran, by name, grouped by role and outcome: "deciding passed: test_a[cpu], test_b"."""
    groups: dict[str, list[dict]] = {}
    for t in c["tests"]:
        if t["outcome"] not in SKIPPED:
            groups.setdefault(f"{t['role']} {t['outcome']}", []).append(t)
    return "; ".join(f"{k}: {named_tests(ts)}" for k, ts in groups.items()) or "none ran"


def render_markdown(doc: Mapping[str, Any]) -> str:
    env = doc["environment"]
    runs = doc.get("runs") or []
    stopped = still_incomplete(runs, doc.get("tests") or {})
    out = [
        "# Claims report",
        "",
        f"Generated {doc['generated']} from {len(runs)} run(s) in one environment:",
        "",
        *[f"- `pytest {' '.join(r.get('args', []))}` ({r.get('executed', '?')} claim-linked tests executed, "
          f"finished {r.get('finished', '?')})"
          + (f" **incomplete**: {r.get('incomplete') or 'did not run to its end'}" if i in stopped
             else " (stopped early; a later run replaced all of its evidence)" if r.get("complete") is False
             else "") for i, r in enumerate(runs)],
        "",
        f"torch {env.get('torch')} · torchvision {env.get('torchvision')} · Python {env.get('python')} · "
        f"{env.get('platform')} · machine {env.get('machine')} · device: {env.get('device')} "
        f"({env.get('cuda_status')})",
        "",
        summary_lines(doc)[0],
        "",
        "A claim is decided by the tests that its `decided_by` names (CPU, a GPU, several GPUs, real processes,",
        "a serial benchmark run, an optional library); other linked tests are supporting evidence only.",
        "",
    ]
    by_topic: dict[str, list[dict]] = {}
    for c in doc["claims"]:
        by_topic.setdefault(c["topic"], []).append(c)
    for topic, claims in by_topic.items():
        out += [f"## {doc.get('titles', {}).get(topic, topic)} (`{topic}.*`)", ""]
        out += ["| ID | The note says | Claim tested | Verdict | Correction or reason | Evidence (decided by) |",
                "|---|---|---|---|---|---|"]
        for c in claims:
            note = c["correction"] if c["verdict"] in WITH_CORRECTION else c["reason"]
            if c["verdict"] in WITH_CORRECTION and c["reason"]:
                note = f"{note} ({c['reason']})"
            figs = figures_text(c)
            if figs:
                note = f"{note + ' · ' if note else ''}measured: {figs}"
            for why in c.get("causes") or []:  # reports written before causes existed have none
                note = f"{note + ' · ' if note else ''}{why['range']}, why: {why['cause']}"
            evidence = f"{_evidence(c)} (decided by {c['decided_by']})"
            text = shown_text(c["claim"], bool(c.get("added")), c.get("split_from"))
            says = "<br>".join(f"{s['at']}: \u201c{s['says']}\u201d" for s in c.get("says") or [])
            out.append(f"| `{c['id']}` | {_cell(says)} | {_cell(text)} | **{c['verdict']}** | {_cell(note)} "
                       f"| {_cell(evidence)} |")
        out.append("")
    return "\n".join(out)
