"""The HTML matrix (harness/matrix/html.py and its templates/) in a real browser: Debian's Chromium,
headless, driven by Playwright (`pip install -r requirements-matrix.txt`, `apt-get install
chromium`; Playwright never downloads a browser here: it starts /usr/bin/chromium, or the one
CHROMIUM names).

The page is built from claims reports made here by the real builder from evidence: the real claim
inventory (tests/claims/*.toml, so IDs and texts have their real lengths, with standings that change
at known versions) on the torch releases of tox.ini (its EXPECT_TORCH lines) and one GPU column.
Checked: the page loads from file:// with no console error, the search filters rows, a claim's
detail opens, the range cells say what the JSON reports say, and at 1366x768 the range view needs
no horizontal scrolling; search by every word in any order, the "By note" reading order, and
the layout at 800, 1366 and 1920 px (bounding boxes: IDs never cut, the
Text column keeps a minimum width, headers never overlap).
MATRIX_SCREENSHOTS=docs/matrix refreshes the committed screenshot-<width>.png pictures. Without
Playwright or Chromium every test skips, naming what is missing.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import re
import shutil

import pytest

from harness import inventory, matrix, note_order, probe, provenance, rendering, report, storage
from spec_runner import ROOT
from tox_reader import tox_torch_releases

RELEASES = list(tox_torch_releases().values())  # the CPU columns; the GPU column runs the newest
GPU = "NVIDIA H100 80GB HBM3"
GPU_DECIDED = ("gpu", "multi-gpu", "benchmark-gpu")


def _verdict(claim, release: str, device: str) -> dict:
    """A made-up but stable verdict per claim and column, changing at a version chosen by the ID."""
    h = int(hashlib.sha256(claim.id.encode()).hexdigest(), 16)
    if device == "cpu" and claim.decided_by in GPU_DECIDED:
        return {"verdict": "not-run", "reason": "needs a CUDA GPU (found 0)",
                "supporting": "supporting evidence ran: test_claim[cpu] passed" if h % 2 else None}
    if claim.decided_by in ("multi-gpu", "external-lib", "network") or (device != "cpu" and claim.decided_by == "cpu"):
        return {"verdict": "not-run", "reason": f"needs what {claim.decided_by} names"}
    change = RELEASES[h % len(RELEASES)]
    before = ("holds", "refuted")[h % 3 == 0]
    after = ("holds", "refuted", "failed")[h % 5 % 3]
    i, c = RELEASES.index(release), RELEASES.index(change)
    if h % 7 == 0 and i == c - 1:
        return {"verdict": "not-run", "reason": f"needs torch >= {change} (found {release})"}
    verdict = before if i < c else after
    out = {"verdict": verdict}
    if verdict == "refuted":
        out["correction"] = f"the real behaviour of {claim.id} (since {change if i >= c else RELEASES[0]})"
    if verdict == "failed":
        out["reason"] = "test_x: AssertionError: expected 1, got 2"
    return out


# a test kind that decides a claim of each decided_by (harness/report.py DECIDERS)
KINDS = {"cpu": {"gpus": 0}, "gpu": {"gpus": 1}, "multi-gpu": {"gpus": 2}, "multi-process": {"processes": True},
         "benchmark-cpu": {"benchmark": True}, "benchmark-gpu": {"benchmark": True, "gpus": 1},
         "external-lib": {"libs": ["x"]}, "network": {"network": True}}


def _standings(claim) -> tuple:
    """Standings (version ranges) that give the verdicts _verdict() makes up: the page's inventory."""
    ranges = []
    for release in RELEASES:
        v = _verdict(claim, release, "cpu" if claim.decided_by not in GPU_DECIDED else GPU)
        state = (v["verdict"], v.get("correction"))
        if v["verdict"] in ("holds", "refuted") and (not ranges or (ranges[-1][0], ranges[-1][1]) != state):
            ranges.append([v["verdict"], v.get("correction"), release])
    if not ranges:
        return ()
    out = []
    for k, (verdict, correction, since) in enumerate(ranges):
        before = ranges[k + 1][2] if k + 1 < len(ranges) else None
        out.append(inventory.Standing(verdict, correction, since if k else None, before))
    return tuple(out)


def _records(claim, release: str, device: str, root, inv) -> dict:
    """The evidence of one claim in one column: records as the plugin writes them, stamped."""
    v = _verdict(claim, release, device)
    nodeid = f"tests/test_spec.py::test_claim[{claim.id}]"
    kind = dict(KINDS[claim.decided_by])
    rec = {"claims": [claim.id], "reason": v.get("reason"), "figures": [], "inconclusive": None, "kind": kind, "run": 0}
    out = {}
    if v["verdict"] in ("holds", "refuted", "failed"):
        rec["outcome"] = "passed" if v["verdict"] != "failed" else "failed"
        if claim.decided_by.startswith("benchmark") and v["verdict"] != "failed":
            x = 1.2 + (RELEASES.index(release) % 5) * 0.1
            rec["figures"] = [{"name": "slow / fast time", "value": round(x, 3), "spread": 0.04, "unit": "x"}]
    else:
        rec["outcome"] = "skipped"
        if v.get("supporting"):  # the CPU case of a GPU-decided claim passed
            out[f"tests/test_spec.py::test_claim[{claim.id}-cpu]"] = {**rec, "outcome": "passed", "reason": None,
                                                                      "kind": {"gpus": 0}}
    out[nodeid] = rec
    for n, r in out.items():
        if r["outcome"] != "skipped":
            r.update(provenance.stamp(root, inv, n, [claim.id]))
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(page path, {(release, device): {claim ID: verdict}}, report paths): reports made by the
    real builder (report.build) from evidence written here, under the real inventory's claims with
    standings that change at known versions; the matrix recomputes every cell from that evidence."""
    real = inventory.load()
    tmp = tmp_path_factory.mktemp("matrix-page")
    (tmp / "tests").mkdir()
    (tmp / "tests" / "test_spec.py").write_text("def test_claim():\n    assert True\n", encoding="utf-8")
    inv = inventory.Inventory({cid: dataclasses.replace(c, standings=_standings(c)) for cid, c in real.claims.items()},
                              dict(real.titles))
    columns = [(r, "cpu") for r in RELEASES] + [(RELEASES[-1], GPU)]
    expected: dict[tuple[str, str], dict[str, str]] = {}
    paths = []
    for release, device in columns:
        tests = {}
        for cid, claim in inv.claims.items():
            tests.update(_records(claim, release, device, tmp, inv))
            expected.setdefault((release, device), {})[cid] = _verdict(claim, release, device)["verdict"]
        env = {"torch": release + ("+cu130" if device != "cpu" else ""), "torchvision": "0.0.0", "numpy": "2.2.6",
               "python": "3.11.7", "machine": "m", "gpu_count": int(device != "cpu"),
               "gpu_names": [device] if device != "cpu" else [], "device": device}
        env["fingerprint"] = probe.fingerprint(env)
        runs = [{"args": ["-m", "gpu" if device != "cpu" else "cpu"], "markexpr": "cpu", "claims": [],
                 "finished": "2026-01-01T00:00:00+00:00"}]
        path = tmp / f"torch-{release}-{'gpu' if device != 'cpu' else 'cpu'}.json"
        doc = report.build(inv, tests=tests, environment=env, runs=runs, rootdir=tmp)
        storage.write(doc, path, rendering.render_markdown(doc))
        paths.append(path)
    matrix.build(paths, tmp / "out", inv=inv, rootdir=tmp)
    return tmp / "out" / "claims-matrix.html", expected, paths


def visible_rows(pg) -> list[str]:
    return pg.eval_on_selector_all("#ranges tr.claim", "rs => rs.filter(r => !r.hidden && r.offsetParent !== null)"
                                                      ".map(r => r.dataset.id)")


def test_the_page_loads_from_file_with_no_console_error(built, page):
    path, expected, _ = built
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert page.title() == "Claims \u00d7 torch version matrix"
    assert page.errors == []
    n = len(next(iter(expected.values())))
    assert len(visible_rows(page)) == n
    assert page.text_content("#count") == f"{n} of {n} claims"


def test_the_search_filters_rows_by_claim_id_and_by_words(built, page):
    path, expected, _ = built
    ids = list(next(iter(expected.values())))
    page.goto(path.as_uri())
    target = "optim.model-zero-grad-zeros" if "optim.model-zero-grad-zeros" in ids else ids[0]
    page.fill("#search", target)
    rows = visible_rows(page)
    assert target in rows, rows
    assert all(target in r for r in rows), rows
    inv = inventory.load()
    words = " ".join(inv[target].text.split()[:3]).lower()
    page.fill("#search", words)
    rows = visible_rows(page)
    assert target in rows
    assert 0 < len(rows) < len(ids)
    page.fill("#search", "zzqx qqzx")
    assert visible_rows(page) == []
    assert page.text_content("#count") == f"0 of {len(ids)} claims"
    assert page.eval_on_selector_all("#ranges tbody.topic", "ts => ts.every(t => t.hidden)"), "empty topics hide"
    page.fill("#search", "")
    assert len(visible_rows(page)) == len(ids)
    assert page.errors == []


def test_a_claims_detail_opens_with_text_source_verdicts_and_evidence(built, page):
    path, expected, _ = built
    inv = inventory.load()
    cid = next(c for c, claim in inv.claims.items() if claim.decided_by == "benchmark-gpu"
               and expected[(RELEASES[-1], GPU)][c] in ("holds", "refuted"))
    page.goto(path.as_uri())
    page.fill("#search", cid)
    page.click(f'#ranges button.open[data-claim="{cid}"]')
    dialog = page.locator("dialog#detail")
    assert dialog.is_visible()
    text = dialog.inner_text()
    assert cid in text
    assert inv[cid].text[:40] in text
    assert inv[cid].source[0] in text
    assert "Decided by: benchmark-gpu" in text
    assert "Verdict per version and device" in text
    assert GPU in text
    assert "Evidence" in text
    assert f"test_claim[{cid}]" in text
    assert "Benchmark figures" in text
    newest = 1.2 + ((len(RELEASES) - 1) % 5) * 0.1  # the GPU column's figure, as _records writes it
    assert f"{newest:.1f}x \u00b1 0.04" in text
    assert dialog.locator(".svgplot svg").count() == 1, "the benchmark plot (inline SVG)"
    page.click("#detail-close")
    assert not dialog.is_visible()
    # a range cell opens its claim too
    other = next(c for c in inv.claims if c.startswith("nn."))
    page.fill("#search", other)
    page.click(f'#ranges tr[data-id="{other}"] td.seg >> nth=0')
    assert dialog.is_visible()
    assert other in dialog.inner_text()
    assert page.errors == []


def test_the_range_cells_say_what_the_json_reports_say(built, page):
    path, _, paths = built
    page.goto(path.as_uri())
    columns = page.eval_on_selector_all("#ranges thead th.ver", "hs => hs.map(h => h.firstChild.textContent)")
    lanes = page.eval_on_selector_all("#ranges thead th.lane", "hs => hs.map(h => [h.title, h.colSpan])")
    devices = [dev for dev, span in lanes for _ in range(span)]
    assert len(columns) == len(devices) == len(RELEASES) + 1  # and the GPU column
    segs = page.eval_on_selector_all(
        "#ranges tr.claim", "rs => rs.map(r => [r.dataset.id, Array.from(r.querySelectorAll('td.seg')).map("
        "td => [td.dataset.verdict, td.dataset.device, td.dataset.first, td.dataset.last, td.colSpan])])")
    # what the reports say, read from the JSON files themselves
    truth: dict[tuple[str, str], dict[str, str]] = {}
    for p in paths:
        doc = json.loads(p.read_text(encoding="utf-8"))
        key = (doc["environment"]["torch"].split("+")[0], doc["environment"]["device"])
        truth[key] = {c["id"]: c["verdict"] for c in doc["claims"]}
    assert len(segs) == len(next(iter(truth.values())))
    for cid, cells in segs:
        i = 0
        previous = None
        for verdict, device, first, last, span in cells:
            assert columns[i] == first, (cid, first, last, span)
            assert columns[i + span - 1] == last, (cid, first, last, span)
            assert set(devices[i:i + span]) == {device}
            for k in range(i, i + span):
                assert truth[(columns[k], devices[k])][cid] == verdict, (cid, columns[k], devices[k])
            if previous and previous[1] == device:
                assert previous[0] != verdict or verdict == "refuted", f"{cid}: two ranges of {verdict} side by side"
            previous = (verdict, device)
            i += span
        assert i == len(columns), f"{cid}: the range cells span {i} of {len(columns)} columns"


def _shoot(page, path: pathlib.Path, out: pathlib.Path) -> None:
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    width = page.evaluate("document.scrollingElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    assert width <= inner, f"the range view scrolls sideways at 1366x768: scrollWidth {width} > innerWidth {inner}"
    page.screenshot(path=str(out))
    assert out.stat().st_size > 10_000


def test_the_range_view_fits_a_1366x768_screen_without_horizontal_scrolling(built, page, tmp_path):
    path, _, _ = built
    _shoot(page, path, tmp_path / "screenshot-1366x768.png")
    # the full grid is one click away, and it may scroll inside its own box, never the page
    page.click("#show-grid")
    assert page.locator("#grid").is_visible()
    assert not page.locator("#ranges").is_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    page.click("#show-ranges")
    assert page.locator("#ranges").is_visible()
    assert page.errors == []


def test_the_committed_matrix_page_fits_1366x768_and_loads_cleanly(page, tmp_path):
    committed = ROOT / "docs" / "matrix" / "claims-matrix.html"
    if not committed.exists() or 'id="ranges"' not in committed.read_text(encoding="utf-8"):
        pytest.skip("docs/matrix/claims-matrix.html is not a range-view page yet (rebuild: tox -e matrix)")
    _shoot(page, committed, tmp_path / "screenshot-1366x768.png")
    assert page.errors == []


# --- finding claims, reading order, layout at every width -------------------------------------

WIDTHS = (800, 1366, 1920)
SCREENSHOTS = os.environ.get("MATRIX_SCREENSHOTS")  # a folder: write screenshot-<width>.png there


def test_search_matches_every_word_in_any_order_with_stems_and_synonyms(built, page):
    path, _, _ = built
    page.goto(path.as_uri())
    page.fill("#search", "memory shares detach")
    assert "autograd.detach-shared" in visible_rows(page), "any order, 'shares' ~ 'sharing', 'memory' ~ 'storage'"
    page.fill("#search", "detach zzqx")
    closest = visible_rows(page)
    assert closest, "no claim matches every word: the closest ones are shown"
    assert all("detach" in r for r in closest[:3]), closest
    assert "no claim matches every word; closest:" in page.inner_text("#ranges tbody.results th")
    page.fill("#search", "detach")
    rows = visible_rows(page)
    first_other = next(i for i, r in enumerate(rows) if "detach" not in r)
    assert all("detach" in r for r in rows[:first_other]), \
        f"ID matches rank before matches in text or correction: {rows}"
    assert len(rows) > first_other, f"no match in text or correction after the ID matches: {rows}"


def test_by_note_order_lists_each_notes_claims_in_the_notes_order(built, page):
    path, _, _ = built
    inv = inventory.load()
    page.goto(path.as_uri())
    page.click("#order-note")
    notes = page.eval_on_selector_all("#ranges tbody.note:not([hidden])", "ts => ts.map(t => [t.dataset.note, "
                                      "Array.from(t.querySelectorAll('tr.claim')).map(r => r.dataset.id)])")
    assert page.eval_on_selector_all("#ranges tbody.topic", "ts => ts.every(t => t.hidden)")
    cited: dict[str, set] = {}
    for cid, claim in inv.claims.items():
        for source in claim.source:
            cited.setdefault(source.split(" \u203a ")[0].strip(), set()).add(cid)
    assert {n for n, _ in notes} == set(cited)
    order = note_order.load()
    for note, ids in notes:
        assert set(ids) == cited[note], note
        places = [min(order[s][1] for s in inv[c].source if s.startswith(note)) for c in dict.fromkeys(ids)]
        assert places == sorted(places), f"{note}: claims out of the note's order"
    n = len(inv.claims)
    assert page.text_content("#count") == f"{n} of {n} claims", "a claim under two notes counts once"
    page.fill("#search", "detach shares memory")
    shown = page.eval_on_selector_all("#ranges tbody.note tr.claim",
                                      "rs => rs.filter(r => !r.hidden).map(r => r.dataset.id)")
    assert "autograd.detach-shared" in shown
    page.fill("#search", "")
    page.click("#order-topic")
    assert page.eval_on_selector_all("#ranges tbody.note", "ts => ts.every(t => t.hidden)")
    assert len(visible_rows(page)) == n
    assert page.errors == []


GEOMETRY = """() => {
  const r = e => e.getBoundingClientRect();
  const rows = Array.from(document.querySelectorAll('#ranges tr.claim')).filter(t => !t.hidden);
  const cut = rows.map(t => t.querySelector('button.open')).filter(b => {
    const td = b.closest('td, th');
    return b.scrollWidth > b.clientWidth + 1 || r(b).right > r(td).right + 1 || r(b).bottom > r(td).bottom + 1;
  }).map(b => b.dataset.claim);
  const heads = Array.from(document.querySelectorAll('#ranges thead tr:last-child th, #ranges thead th[rowspan]'))
    .map(h => ({text: h.textContent, left: r(h).left, right: r(h).right, top: r(h).top,
                over: h.scrollWidth > h.clientWidth + 1}));
  const text = document.querySelector('#ranges thead th:nth-child(2)');
  return {cut, heads, textWidth: r(text).width, scroll: document.scrollingElement.scrollWidth, inner: innerWidth};
}"""


def _committed_page() -> pathlib.Path:
    committed = ROOT / "docs" / "matrix" / "claims-matrix.html"
    if not committed.exists() or 'id="order-note"' not in committed.read_text(encoding="utf-8"):
        pytest.skip("docs/matrix/claims-matrix.html was built before the layout for every width "
                    "(rebuild: tox -e matrix)")
    return committed


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["built", "committed"])
def test_the_range_view_reads_at_every_width(built, browser, width, which, tmp_path):
    """IDs never cut (they wrap), the Text column keeps its minimum width, headers never overlap
    or overflow, and the page itself never scrolls sideways (the table scrolls in its own box):
    on the page built here, and on the committed page once it is built by this builder.
    MATRIX_SCREENSHOTS=docs/matrix writes docs/matrix/screenshot-<width>.png from the committed
    page (from the page built here when the committed one is older)."""
    path = built[0] if which == "built" else _committed_page()
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(path.as_uri())
        pg.wait_for_load_state("load")
        g = pg.evaluate(GEOMETRY)
        assert g["cut"] == [], f"{width}px: IDs cut off: {g['cut'][:10]}"
        assert g["textWidth"] >= 150, f"{width}px: the Text column is {g['textWidth']:.0f}px wide"
        heads = sorted((h for h in g["heads"]), key=lambda h: (h["top"], h["left"]))
        for a, b in zip(heads, heads[1:], strict=False):
            if abs(a["top"] - b["top"]) < 1:
                assert a["right"] <= b["left"] + 1, f"{width}px: header {a['text']!r} overlaps {b['text']!r}"
        assert not [h["text"] for h in heads if h["over"]], f"{width}px: header text overflows its cell"
        assert g["scroll"] <= g["inner"], f"{width}px: the page scrolls sideways ({g['scroll']} > {g['inner']})"
        out = tmp_path / f"screenshot-{width}.png"
        pg.screenshot(path=str(out))
        committed = ROOT / "docs" / "matrix" / "claims-matrix.html"
        current = committed.exists() and 'id="order-note"' in committed.read_text(encoding="utf-8")
        if SCREENSHOTS and (which == "committed" or not current):
            shutil.copyfile(out, pathlib.Path(SCREENSHOTS) / out.name)
        assert errors == []
    finally:
        context.close()


PARTLY_INVENTORY = """topic = "optim"
title = "Optimizers"

[[claim]]
id = "optim.half-right"
source = ["001_note.txt \u203a s"]
claim = "right for the case it states"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "partly"
correction = "right for x; wrong for y"

[[claim]]
id = "optim.right"
source = ["001_note.txt \u203a s"]
claim = "right"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"
"""


@pytest.fixture(scope="module")
def partly_page(tmp_path_factory):
    """A page of two claims on one column: one partly (a passed test of each half), one holds."""
    tmp = tmp_path_factory.mktemp("matrix-partly")
    (tmp / "tests" / "claims").mkdir(parents=True)
    (tmp / "tests" / "claims" / "optim.toml").write_text(PARTLY_INVENTORY, encoding="utf-8")
    (tmp / "tests" / "test_spec.py").write_text(
        "".join(f"def test_{n}():\n    assert True\n\n\n" for n in ("holding", "failing", "right")), encoding="utf-8")
    inv = inventory.load(tmp / "tests" / "claims")
    tests = {}
    for name, cid, halves in (("holding", "optim.half-right", {"optim.half-right": "holding"}),
                              ("failing", "optim.half-right", {"optim.half-right": "failing"}),
                              ("right", "optim.right", {})):
        nodeid = f"tests/test_spec.py::test_{name}"
        tests[nodeid] = {"claims": [cid], "halves": halves, "outcome": "passed", "reason": None, "figures": [],
                         "inconclusive": None, "kind": {"gpus": 0}, "run": 0,
                         **provenance.stamp(tmp, inv, nodeid, [cid])}
    env = {"torch": RELEASES[-1], "torchvision": "0.0.0", "numpy": "2.2.6", "python": "3.11.7", "machine": "m",
           "gpu_count": 0, "gpu_names": [], "device": "cpu"}
    env["fingerprint"] = probe.fingerprint(env)
    path = tmp / f"torch-{RELEASES[-1]}.json"
    runs = [{"args": ["-m", "cpu"], "markexpr": "cpu", "claims": [], "finished": "2026-01-01T00:00:00+00:00"}]
    doc = report.build(inv, tests=tests, environment=env, runs=runs, rootdir=tmp)
    storage.write(doc, path, rendering.render_markdown(doc))
    matrix.build([path], tmp / "out", inv=inv, rootdir=tmp)
    return tmp / "out" / "claims-matrix.html"


def test_a_partly_cell_has_its_symbol_and_legend_and_the_verdict_filter_finds_it(partly_page, page):
    page.goto(partly_page.as_uri())
    assert page.text_content('#ranges td.seg[data-claim="optim.half-right"]').strip().startswith("\u25d0")
    assert page.get_attribute('#ranges td.seg[data-claim="optim.half-right"]', "data-verdict") == "partly"
    assert "partly" in page.text_content(".legend")
    assert "\u25d0" in page.text_content(".legend")
    assert visible_rows(page) == ["optim.half-right", "optim.right"]
    page.select_option("#verdict", "partly")
    assert visible_rows(page) == ["optim.half-right"]
    assert page.text_content("#count") == "1 of 2 claims"
    page.select_option("#verdict", "holds")
    assert visible_rows(page) == ["optim.right"]
    page.select_option("#verdict", "")
    assert len(visible_rows(page)) == 2
    assert page.errors == []


def _luminance(rgb) -> float:
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(x) for x in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _rgba(text: str) -> list[tuple[float, ...]]:
    return [tuple(float(x) for x in m.split(",")) + ((1.0,) if m.count(",") == 2 else ())
            for m in re.findall(r"rgba?\(([^)]*)\)", text)]


def test_every_verdicts_text_keeps_4_5_to_1_contrast_on_its_darkest_pattern_pixel(built, page):
    """Measured in the browser: each legend swatch's computed text colour against its background
    colour under the darkest stop of every gradient of its pattern (where hatchings cross, all of
    them): at least 4.5:1 (WCAG AA), the failed pattern included."""
    path, _, _ = built
    page.goto(path.as_uri())
    styles = page.eval_on_selector_all(".legend .sw", "ss => ss.map(s => [s.className, getComputedStyle(s).color, "
                                       "getComputedStyle(s).backgroundColor, getComputedStyle(s).backgroundImage])")
    assert {c.split()[1] for c, *_ in styles} >= {f"v-{v}" for v in matrix.model.VERDICTS}, styles
    low = {}
    for cls, color, bg, image in styles:
        (r, g, b, _), = _rgba(bg)
        shade = [r, g, b]
        for gradient in image.split("gradient(")[1:]:
            stops = _rgba(gradient)
            if stops:
                *over, a = max(stops, key=lambda s: s[3])
                shade = [o * a + x * (1 - a) for x, o in zip(shade, over, strict=True)]
        text = _rgba(color)[0]
        hi, lo = sorted((_luminance(text), _luminance(shade)), reverse=True)
        low[cls] = round((hi + 0.05) / (lo + 0.05), 2)
    assert all(r >= 4.5 for r in low.values()), f"contrast below 4.5:1: {low}"


def test_a_partly_cell_is_not_half_dark(partly_page, page, tmp_path):
    """A partly cell's pattern covers it evenly: its left and right halves are equally dark (a
    half-dark cell reads as a version boundary inside the range)."""
    from PIL import Image, ImageStat

    page.goto(partly_page.as_uri())
    out = tmp_path / "partly.png"
    page.locator('#ranges td.seg[data-claim="optim.half-right"]').screenshot(path=str(out))
    img = Image.open(out).convert("L")
    w, h = img.size
    left = ImageStat.Stat(img.crop((2, 2, w // 3, h - 2))).mean[0]
    right = ImageStat.Stat(img.crop((2 * w // 3, 2, w - 2, h - 2))).mean[0]
    assert abs(left - right) < 3, f"left third {left:.1f}, right third {right:.1f}: the cell is half dark"
