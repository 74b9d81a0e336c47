"""The claims x torch-version matrix (fixtures/matrix.py), on small claims reports written here.

The builder needs no torch and these tests use none (the suite's conftest still loads the
spec plugins): each test writes a few reports like the ones
`pytest --claims-report` writes on a given torch (schema 2, and schema 1 of older committed runs),
merges them and reads both renderings. The page in a real browser: test_matrix_browser.py.
"""
from __future__ import annotations

import html
import json
import re

import pytest

from fixtures import matrix

TITLES = {"optim": "Optimizers & zero_grad", "serial": "Serialization"}


def write_report(tmp_path, name, torch, claims, *, torchvision="0.0.0", python="3.11.7", generated=None,
                 schema=1, device=None):
    """A claims report for one torch version: claims maps ID -> verdict or a dict of entry fields.

    schema=2 writes the current layout (decided_by, test roles and devices, environment.device,
    runs); device names the GPU model of a GPU run (None: a CPU run)."""
    entries = []
    for cid, spec in claims.items():
        fields = {"verdict": spec} if isinstance(spec, str) else dict(spec)
        fields.setdefault("reason", None)
        fields.setdefault("correction", "the truth" if fields["verdict"] == "refuted" else None)
        entries.append({
            "id": cid,
            "topic": cid.split(".", 1)[0],
            "claim": f"text of {cid}",
            "tests": [{"nodeid": f"tests/test_x.py::test_{cid}", "outcome": "passed", "reason": None}],
            "figures": [],
            **fields,
        })
        if schema == 2:
            entries[-1].setdefault("decided_by", "cpu")
            entries[-1].setdefault("supporting", None)
            for t in entries[-1]["tests"]:
                t.setdefault("role", "deciding")
                t.setdefault("device", "cuda" if device else "cpu")
    env = {"torch": torch, "torchvision": torchvision, "numpy": "1.26.4", "python": python,
           "gpu_count": 1 if device else 0}
    doc = {
        "schema": schema,
        "generated": generated or "2026-01-01T00:00:00+00:00",
        "environment": env,
        "run": {"args": ["-m", "cpu"], "markexpr": "cpu", "claims": []},
        "titles": TITLES,
        "summary": {},
        "claims": entries,
    }
    if schema == 2:
        env.update(gpu_names=[device] if device else [], device=device or "cpu", cuda_available=bool(device))
        doc["runs"] = [doc.pop("run")]
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def merged(*paths):
    return matrix.merge([matrix.load(p) for p in paths])


def row(m, cid):
    return next(r for r in m.rows if r.id == cid)


def cells(m, cid):
    return {c.label: cell.verdict for c, cell in zip(m.columns, row(m, cid).cells)}


def changes(m, cid):
    return [t.describe() for t in row(m, cid).transitions]


def build(tmp_path, *paths):
    out = tmp_path / "out"
    m = matrix.build(list(paths), out, today="2026-02-03")
    return m, (out / "claims-matrix.md").read_text(encoding="utf-8"), (out / "claims-matrix.html").read_text(encoding="utf-8")


def test_columns_are_ordered_by_version_not_by_file_name(tmp_path):
    # file names sort as 2.10 < 2.9 < 1.13 would not: versions must be compared as numbers
    paths = [
        write_report(tmp_path, "torch-2.10.0.json", "2.10.0+cu128", {"optim.a": "holds"}),
        write_report(tmp_path, "a-torch-2.9.1.json", "2.9.1", {"optim.a": "holds"}),
        write_report(tmp_path, "z-torch-1.13.1.json", "1.13.1+cu117", {"optim.a": "holds"}),
    ]
    m = merged(*paths)
    assert [c.release for c in m.columns] == ["1.13.1", "2.9.1", "2.10.0"]


def test_a_change_is_a_range_from_the_last_old_to_the_first_new_version(tmp_path):
    paths = [
        write_report(tmp_path, "r1.json", "1.13.1", {"optim.zero": "holds", "optim.same": "holds"}),
        write_report(tmp_path, "r2.json", "2.0.1", {"optim.zero": "refuted", "optim.same": "holds"}),
        write_report(tmp_path, "r3.json", "2.3.1", {"optim.zero": "refuted", "optim.same": "holds"}),
    ]
    m = merged(*paths)
    assert changes(m, "optim.zero") == ["holds \u2192 refuted: changed between 1.13.1 and 2.0.1"]
    assert changes(m, "optim.same") == []


def test_versions_that_measured_nothing_widen_the_range(tmp_path):
    # not-run, untested and absent say nothing about the behaviour: the range spans them
    paths = [
        write_report(tmp_path, "r1.json", "1.13.1", {"serial.load": "holds"}),
        write_report(tmp_path, "r2.json", "2.0.1", {"serial.load": {"verdict": "not-run", "reason": "needs torch >= 2.1 (found 2.0.1)"}}),
        write_report(tmp_path, "r3.json", "2.3.1", {"serial.load": "untested"}),
        write_report(tmp_path, "r4.json", "2.4.1", {}),
        write_report(tmp_path, "r5.json", "2.6.0", {"serial.load": "refuted"}),
        write_report(tmp_path, "r6.json", "2.14.1", {"serial.load": "refuted"}),
    ]
    m = merged(*paths)
    assert cells(m, "serial.load") == {
        "1.13.1": "holds", "2.0.1": "not-run", "2.3.1": "untested", "2.4.1": "absent", "2.6.0": "refuted",
        "2.14.1": "refuted",
    }
    assert changes(m, "serial.load") == ["holds \u2192 refuted: changed between 1.13.1 and 2.6.0"]


def test_a_change_back_and_a_changed_correction_are_transitions_too(tmp_path):
    paths = [
        write_report(tmp_path, "r1.json", "1.13.1", {"optim.x": {"verdict": "refuted", "correction": "old truth"}}),
        write_report(tmp_path, "r2.json", "2.0.1", {"optim.x": {"verdict": "refuted", "correction": "new truth"}}),
        write_report(tmp_path, "r3.json", "2.3.1", {"optim.x": "holds"}),
        write_report(tmp_path, "r4.json", "2.6.0", {"optim.x": {"verdict": "refuted", "correction": "new truth"}}),
    ]
    m = merged(*paths)
    assert changes(m, "optim.x") == [
        "refuted \u2192 refuted (the correction changed): changed between 1.13.1 and 2.0.1",
        "refuted \u2192 holds: changed between 2.0.1 and 2.3.1",
        "holds \u2192 refuted: changed between 2.3.1 and 2.6.0",
    ]


def test_failed_entries_are_shown_and_listed_with_their_reason(tmp_path):
    reason = "test_zero_grad_sets_none: call: AssertionError: grad is tensor([0.]), expected None"
    paths = [
        write_report(tmp_path, "r1.json", "1.13.1", {"optim.zero": {"verdict": "failed", "reason": reason}}),
        write_report(tmp_path, "r2.json", "2.0.1", {"optim.zero": "holds"}),
    ]
    m, md, page = build(tmp_path, *paths)
    assert cells(m, "optim.zero") == {"1.13.1": "failed", "2.0.1": "holds"}
    assert changes(m, "optim.zero") == ["failed \u2192 holds: changed between 1.13.1 and 2.0.1"]
    failures = md.split("## Failures to look at", 1)
    assert len(failures) == 2, "the Markdown lists no failures"
    assert "`optim.zero` | 1.13.1 |" in failures[1] and "expected None" in failures[1]
    assert re.search(r'class="v v-failed" data-claim="optim.zero" title="torch 1\.13\.1: failed \| failure: '
                     r'test_zero_grad_sets_none', page)


def test_two_reports_for_one_version_that_disagree_give_a_conflict_cell(tmp_path):
    paths = [
        write_report(tmp_path, "torch-2.3.1.json", "2.3.1+cu121", {"optim.a": "holds", "optim.b": "holds"}),
        write_report(tmp_path, "torch-2.3.1-cpu.json", "2.3.1+cpu",
                     {"optim.a": {"verdict": "failed", "reason": "boom"}, "optim.b": "holds"}),
        write_report(tmp_path, "torch-2.6.0.json", "2.6.0", {"optim.a": "refuted", "optim.b": "holds"}),
    ]
    m, md, page = build(tmp_path, *paths)
    assert [c.release for c in m.columns] == ["2.3.1", "2.6.0"], "builds of one release share a column"
    assert cells(m, "optim.a")["2.3.1"] == "conflict"
    assert cells(m, "optim.b")["2.3.1"] == "holds", "reports that agree are not a conflict"
    conflict = row(m, "optim.a").cells[0]
    assert matrix.cell_word(conflict) == "conflict (holds / failed)"
    note = matrix.cell_note(conflict, "2.3.1")
    assert "torch-2.3.1.json (2.3.1+cu121): holds" in note and "torch-2.3.1-cpu.json (2.3.1+cpu): failed" in note
    assert "2 reports agree" in matrix.cell_note(row(m, "optim.b").cells[0], "2.3.1")
    # a conflict says nothing certain about the behaviour: no transition is inferred from it
    assert changes(m, "optim.a") == []
    assert "**conflict (holds / failed)**" in md
    assert "2.3.1+cu121, 2.3.1+cpu" in md, "the Versions table names both builds"


def test_a_claim_missing_from_a_report_is_absent_there(tmp_path):
    paths = [
        write_report(tmp_path, "old.json", "1.13.1", {"optim.a": "holds"}),
        write_report(tmp_path, "new.json", "2.14.1", {"optim.a": "holds", "optim.added": "refuted"}),
    ]
    m, md, page = build(tmp_path, *paths)
    assert cells(m, "optim.added") == {"1.13.1": "absent", "2.14.1": "refuted"}
    assert changes(m, "optim.added") == []
    assert "| `optim.added` text of optim.added | absent | refuted |" in md
    assert ('class="v v-absent" data-claim="optim.added" title="torch 1.13.1: the claim is not in this '
            'version&#x27;s report') in page


def test_rows_follow_the_inventory_order_of_the_newest_report_grouped_by_topic(tmp_path):
    paths = [
        write_report(tmp_path, "a.json", "2.0.1", {"serial.b": "holds", "optim.z": "holds"}),
        write_report(tmp_path, "b.json", "2.6.0", {"optim.z": "holds", "optim.a": "holds", "serial.b": "holds"}),
    ]
    m = merged(*paths)
    assert [r.id for r in m.rows] == ["optim.z", "optim.a", "serial.b"]
    assert m.topics() == ["optim", "serial"]


def test_reasons_are_escaped_in_the_html_and_in_markdown_tables(tmp_path):
    evil = '<script>alert("x")</script> & a|b'
    path = write_report(tmp_path, "r.json", "2.6.0", {
        "optim.a": {"verdict": "refuted", "correction": evil},
        "optim.b": {"verdict": "not-run", "reason": evil},
    })
    _, md, page = build(tmp_path, path)
    assert "<script>alert" not in page
    assert page.count("<script>") == 1, "only the page's own filter script"
    assert html.escape(evil, quote=True) in page
    assert 'title="torch 2.6.0: refuted | correction: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; a|b' in page
    assert "<script>" not in md and "a\\|b" in md


def test_both_renderings_say_generated_do_not_edit_and_name_date_and_versions(tmp_path):
    paths = [
        write_report(tmp_path, "r1.json", "1.13.1+cu117", {"optim.a": "holds"}, torchvision="0.14.1", python="3.10.13"),
        write_report(tmp_path, "r2.json", "2.14.1+cu130", {"optim.a": "holds"}, torchvision="0.29.1", python="3.11.7"),
    ]
    _, md, page = build(tmp_path, *paths)
    for text in (md, page):
        assert "do not edit" in text
        assert "2026-02-03" in text
        for exact in ("1.13.1+cu117", "0.14.1", "3.10.13", "2.14.1+cu130", "0.29.1", "3.11.7"):
            assert exact in text


def test_the_html_page_is_self_contained_with_a_topic_filter(tmp_path):
    path = write_report(tmp_path, "r.json", "2.6.0", {"optim.a": "holds", "serial.b": "refuted"})
    _, _, page = build(tmp_path, path)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "no external assets"
    assert re.findall(r"<link[^>]*>", page) == ['<link rel="icon" href="data:,">'], "only an inline (empty) icon"
    assert "@import" not in page and "url(" not in page
    assert '<select id="topic">' in page and '<option value="serial">' in page
    assert '<tr class="claim" data-id="serial.b" data-topic="serial" data-changed="0"' in page
    assert ".v-holds{background-color:" in page and 'class="v v-refuted"' in page


def test_command_line_expands_patterns_and_fails_clearly(tmp_path, capsys):
    (tmp_path / "reports").mkdir()
    write_report(tmp_path / "reports", "torch-2.0.1.json", "2.0.1", {"optim.a": "holds"})
    write_report(tmp_path / "reports", "torch-1.13.1.json", "1.13.1", {"optim.a": "refuted"})
    out = tmp_path / "docs"
    assert matrix.main([str(tmp_path / "reports" / "torch-*.json"), "--out", str(out)]) == 0
    assert "refuted \u2192 holds: changed between 1.13.1 and 2.0.1" in (out / "claims-matrix.md").read_text()
    assert (out / "claims-matrix.html").exists()

    assert matrix.main([str(tmp_path / "nothing-*.json"), "--out", str(out)]) == 2
    assert "no report matches" in capsys.readouterr().err

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": 1, "environment": {}, "claims": []}))
    assert matrix.main([str(bad), "--out", str(out)]) == 2
    assert "names no torch version" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    pytest.param("{not json", "cannot read a claims report", id="not-json"),
    pytest.param(json.dumps({"schema": 3, "environment": {"torch": "2.0.1"}}), "not a claims report of schema 1 or 2",
                 id="other-schema"),
    pytest.param(json.dumps({"schema": 1, "environment": {"torch": "nightly"}}), "unreadable torch version", id="bad-version"),
])
def test_unmergeable_reports_are_refused_with_the_file_name(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(matrix.MatrixError, match=re.escape(message)) as info:
        matrix.load(path)
    assert "r.json" in str(info.value)


def test_a_partial_run_is_flagged_in_the_header_and_on_stderr(tmp_path, capsys):
    whole = write_report(tmp_path, "torch-2.0.1.json", "2.0.1", {"optim.a": "holds"})
    part = write_report(tmp_path, "torch-2.3.1.json", "2.3.1", {"optim.a": "holds"})
    doc = json.loads(part.read_text())
    doc["run"] = {"args": ["--claim", "optim.a", "-q"], "markexpr": "", "claims": ["optim.a"]}
    part.write_text(json.dumps(doc))
    assert matrix.load(whole).partial is None
    assert matrix.load(part).partial == "--claim optim.a"
    assert matrix.main([str(whole), str(part), "--out", str(tmp_path / "out")]) == 0
    assert "torch-2.3.1.json is a partial run (--claim optim.a)" in capsys.readouterr().err
    md = (tmp_path / "out" / "claims-matrix.md").read_text()
    assert "| selection | -m cpu | --claim optim.a -q (PARTIAL RUN: --claim optim.a) |" in md


# --- schema 2: devices, decided_by, ranges, benchmark figures ---------------------------------

H100 = "NVIDIA H100 80GB HBM3"


def test_a_gpu_run_is_its_own_column_and_never_conflicts_with_the_cpu_run(tmp_path):
    gpu_claim = {"verdict": "refuted", "correction": "on CUDA it is not", "decided_by": "gpu"}
    paths = [
        write_report(tmp_path, "torch-2.11.0.json", "2.11.0+cu128", schema=2,
                     claims={"optim.a": "holds", "optim.g": {"verdict": "not-run", "decided_by": "gpu",
                                                             "reason": "needs a CUDA GPU (found 0)"}}),
        write_report(tmp_path, "torch-2.11.0-gpu.json", "2.11.0+cu128", schema=2, device=H100,
                     claims={"optim.a": "holds", "optim.g": gpu_claim}),
        write_report(tmp_path, "torch-2.10.0.json", "2.10.0", schema=2, claims={"optim.a": "holds"}),
    ]
    m, md, page = build(tmp_path, *paths)
    assert [c.label for c in m.columns] == ["2.10.0", "2.11.0", f"2.11.0 \u00b7 {H100}"]
    assert [c.device for c in m.columns] == ["cpu", "cpu", H100]
    assert list(cells(m, "optim.g").values()) == ["absent", "not-run", "refuted"]
    assert "conflict" not in cells(m, "optim.a").values()
    assert f"| 2.10.0 | 2.11.0 | 2.11.0 \u00b7 {H100} |" in md
    assert f'<th class="lane" colspan="1" title="{H100}">{H100}</th>' in page


def test_a_column_without_gpus_never_decides_a_gpu_claim(tmp_path):
    # an old schema-1 CPU report called a GPU claim holds on its CPU case; the newest report
    # (schema 2) says the claim is decided by a GPU: the CPU column shows not-run with the reason
    old = write_report(tmp_path, "torch-2.0.1.json", "2.0.1", {
        "cuda.x": {"verdict": "holds", "tests": [
            {"nodeid": "tests/test_cuda.py::test_x[cpu]", "outcome": "passed", "reason": None},
            {"nodeid": "tests/test_cuda.py::test_x[cuda]", "outcome": "skipped", "reason": "needs a CUDA GPU (found 0)"}]},
    })
    new = write_report(tmp_path, "torch-2.6.0.json", "2.6.0", schema=2, claims={
        "cuda.x": {"verdict": "not-run", "decided_by": "gpu", "reason": "needs a CUDA GPU (found 0)",
                   "supporting": "supporting evidence ran: the CPU test (1) passed",
                   "tests": [{"nodeid": "tests/test_cuda.py::test_x[cpu]", "outcome": "passed", "reason": None,
                              "role": "supporting", "device": "cpu"},
                             {"nodeid": "tests/test_cuda.py::test_x[cuda]", "outcome": "skipped",
                              "reason": "needs a CUDA GPU (found 0)", "role": "deciding", "device": "cuda"}]},
    })
    gpu = write_report(tmp_path, "torch-2.6.0-gpu.json", "2.6.0", schema=2, device=H100,
                       claims={"cuda.x": {"verdict": "holds", "decided_by": "gpu"}})
    m, md, page = build(tmp_path, old, new, gpu)
    assert list(cells(m, "cuda.x").values()) == ["not-run", "not-run", "holds"]
    old_cell, new_cell, _ = row(m, "cuda.x").cells
    assert "decided by gpu evidence (needs a CUDA GPU): this column ran without a GPU" in old_cell.entry["reason"]
    assert "the report said holds" in old_cell.entry["reason"]
    assert old_cell.supporting == "supporting evidence ran: 1 CPU test passed"
    assert new_cell.supporting == "supporting evidence ran: the CPU test (1) passed"
    assert changes(m, "cuda.x") == [], "a not-run CPU column and a GPU column make no transition"
    note = matrix.cell_note(new_cell, "2.6.0")
    assert "not run: needs a CUDA GPU (found 0)" in note and "supporting evidence ran" in note
    assert "supporting evidence ran: the CPU test (1) passed" in page


def test_consecutive_versions_with_the_same_verdict_collapse_into_one_range_cell(tmp_path):
    spec = [("1.13.1", "holds"), ("2.0.1", "holds"), ("2.1.2", "not-run"), ("2.2.2", "refuted"),
            ("2.3.1", {"verdict": "refuted", "correction": "another truth"}), ("2.4.1", "refuted")]
    paths = [write_report(tmp_path, f"torch-{v}.json", v, {"optim.a": verdict, "optim.b": "holds"}, schema=2)
             for v, verdict in spec]
    paths.append(write_report(tmp_path, "gpu.json", "2.4.1", {"optim.a": "holds", "optim.b": "holds"}, schema=2,
                              device=H100))
    m, md, page = build(tmp_path, *paths)
    segs = [(s.device, s.first, s.last, s.verdict, s.span) for s in row(m, "optim.a").segments]
    assert segs == [("cpu", "1.13.1", "2.0.1", "holds", 2), ("cpu", "2.1.2", "2.1.2", "not-run", 1),
                    ("cpu", "2.2.2", "2.2.2", "refuted", 1), ("cpu", "2.3.1", "2.3.1", "refuted", 1),
                    ("cpu", "2.4.1", "2.4.1", "refuted", 1), (H100, "2.4.1", "2.4.1", "holds", 1)], \
        "a changed correction starts a new range"
    assert [(s.first, s.last, s.span) for s in row(m, "optim.b").segments] == [("1.13.1", "2.4.1", 6), ("2.4.1", "2.4.1", 1)]
    assert ('<td class="seg v-holds" colspan="6" data-claim="optim.b" data-verdict="holds" data-device="cpu" '
            'data-first="1.13.1" data-last="2.4.1"') in page
    assert changes(m, "optim.a") == [
        "holds \u2192 refuted: changed between 2.0.1 and 2.2.2",
        "refuted \u2192 refuted (the correction changed): changed between 2.2.2 and 2.3.1",
        "refuted \u2192 refuted (the correction changed): changed between 2.3.1 and 2.4.1",
    ]


def test_benchmark_claims_show_their_figures_per_version_in_both_renderings(tmp_path):
    def bench(value, spread):
        return {"verdict": "holds", "decided_by": "benchmark-cpu", "figures": [
            {"test": "tests/test_b.py::test_f", "name": "float64 / float32 time", "value": value, "spread": spread,
             "unit": "x"}, {"test": "tests/test_b.py::test_f", "name": "not a number", "value": "n/a"}]}
    paths = [write_report(tmp_path, "a.json", "2.0.1", {"optim.bench": bench(1.93, 0.05)}, schema=2),
             write_report(tmp_path, "b.json", "2.6.0", {"optim.bench": bench(2.41, 0.11)}, schema=2)]
    m, md, page = build(tmp_path, *paths)
    assert row(m, "optim.bench").benchmark
    assert "## Benchmark figures" in md
    assert "| `optim.bench` | float64 / float32 time | \u2713 holds: 1.93 \u00b1 0.05x | \u2713 holds: 2.41 \u00b1 0.11x |" in md
    detail = re.search(r'<template id="detail-optim.bench">(.*?)</template>', page, re.S).group(1)
    assert "<td>2.0.1</td><td>cpu</td>" in detail and "1.93 \u00b1 0.05x" in detail and "2.41 \u00b1 0.11x" in detail
    assert "n/a" not in detail, "only numeric figures are shown"


def test_the_benchmark_plot_is_an_inline_svg_drawn_by_matplotlib(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (requirements-matrix.txt) draws the benchmark plots")
    paths = [write_report(tmp_path, f"{v}.json", v, {"optim.bench": {
        "verdict": "holds", "decided_by": "benchmark-cpu",
        "figures": [{"test": "t", "name": "ratio", "value": x, "spread": 0.1, "unit": "x"}]}}, schema=2)
        for v, x in (("2.0.1", 1.5), ("2.6.0", 1.7), ("2.14.1", 1.6))]
    _, _, page = build(tmp_path, *paths)
    detail = re.search(r'<template id="detail-optim.bench">(.*?)</template>', page, re.S).group(1)
    svg = re.search(r'<div class="svgplot"[^>]*>(<svg.*?</svg>)', detail, re.S)
    assert svg, "no inline SVG plot in the benchmark claim's detail"
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    for label in ("2.0.1", "2.6.0", "2.14.1", "optim.bench"):
        assert label in svg.group(1)
    assert not re.search(r"""(xlink:)?href=["']https?:""", svg.group(1))
    # the same input gives the same page (no dates or random ids in the SVG)
    again = build(tmp_path, *paths)[2]
    assert again == page


def test_each_claim_has_a_detail_with_source_decided_by_evidence_and_roles(tmp_path):
    path = write_report(tmp_path, "r.json", "2.6.0", schema=2, claims={"optim.a": {
        "verdict": "refuted", "correction": "really it does X", "source": ["004_x.txt \u203a what is it"],
        "tests": [{"nodeid": "tests/test_o.py::test_a[cpu]", "outcome": "passed", "reason": None, "role": "deciding",
                   "device": "cpu"},
                  {"nodeid": "tests/test_o.py::test_a[cuda]", "outcome": "skipped", "role": "supporting",
                   "device": "cuda", "reason": "needs a CUDA GPU (found 0)"}]}})
    _, _, page = build(tmp_path, path)
    detail = re.search(r'<template id="detail-optim.a">(.*?)</template>', page, re.S).group(1)
    for text in ("004_x.txt \u203a what is it", "<b>Decided by:</b> cpu", "really it does X",
                 "tests/test_o.py::test_a[cuda]", "supporting", "needs a CUDA GPU (found 0)", "deciding"):
        assert html.escape(text, quote=False) in detail or text in detail, text
    assert 'data-search="optim.a text of optim.a optim cpu 004_x.txt \u203a what is it really it does x"' in page


def test_schema_1_and_schema_2_reports_merge_into_one_matrix(tmp_path):
    paths = [write_report(tmp_path, "old.json", "1.13.1", {"optim.a": "holds"}),
             write_report(tmp_path, "new.json", "2.14.1", {"optim.a": "refuted"}, schema=2)]
    m, md, _ = build(tmp_path, *paths)
    assert [r.schema for c in m.columns for r in c.reports] == [1, 2]
    assert "old.json (schema 1)" in md and "new.json (schema 2)" in md
    assert changes(m, "optim.a") == ["holds \u2192 refuted: changed between 1.13.1 and 2.14.1"]
