"""The matrix page as a reader uses it, in a real browser (Debian's Chromium, headless, driven by
Playwright, as in test_matrix_browser.py), on the page built here from the committed evidence
(docs/matrix/reports/) and the real inventory: real claim texts, corrections and columns.

One page load per width (800, 1366 and 1920 px), reused by every test of that width: the release
header and the claim column stay in view after scrolling 5,000 px down and right; a long claim's
full text is readable in place; IDs break only after "." and "-"; the table says when it scrolls
sideways; the top row counts each column's verdicts; the diff view of 2.5.1 -> 2.6.0 lists what
model.diff() finds; and 20 phrasings a learner would type find their claim in the top 3.
Without Playwright or Chromium every browser test skips, naming what is missing.
"""
from __future__ import annotations

import re
import shutil

import pytest

from harness import matrix
from harness.matrix import texts as mt
from spec_runner import ROOT

WIDTHS = [800, 1366, 1920]

# (what a learner types, the claim it must find in the top 3)
PHRASINGS = [
    ("DDP environment variables", "dist.launch-env-vars"),
    ("weights_only", "serial.save-load-checkpoint-module"),
    ("zero_grad set_to_none", "optim.model-zero-grad-zeros"),
    ("does detach share memory", "autograd.detach-shared"),
    ("dropout scaling in eval mode", "nn.dropout-train-eval"),
    ("retain_graph", "autograd.retain-graph"),
    ("no_grad decorator", "autograd.no-grad-decorator"),
    ("cudnn benchmark default", "cudnn.benchmark-default"),
    ("num_workers default", "data.num-workers-default"),
    ("pin memory dataloader", "data.pin-memory"),
    ("SyncBN with DataParallel", "dist.syncbn-with-dp"),
    ("BN parameters and buffers", "nn.bn-params-vs-buffers"),
    ("AMP only on GPU", "amp.gpu-only"),
    ("gradscaler unscale clip grad", "amp.unscale-clip-pair"),
    ("cross entropy softmax logits", "loss.ce-includes-softmax"),
    ("load_state_dict strict false", "nn.load-state-dict-strict-false"),
    ("set_epoch shuffle every epoch", "dist.sampler-set-epoch"),
    ("lstm signature", "nn.lstm-signature"),
    ("permute vs transpose", "tensor.permute-transpose"),
    ("is DDP faster than DP", "dist.ddp-faster"),
]

# (the notes' own Chinese terms, as a learner reading them types them; the claim to find in the top
# 3): read through harness/matrix/templates/glossary.json and the claims' renderings (`says`)
CHINESE_QUERIES = [
    ("梯度累加", "autograd.backward-accumulates"),
    ("混合精度", "amp.cuda-amp-namespace"),
    ("环境变量", "dist.launch-env-vars"),
    ("随机种子", "cuda.seed-reproducible"),
    ("标签平滑", "loss.label-smoothing-manual-vs-builtin"),
    ("矩阵乘法", "tensor.mm-shapes"),
    ("复制张量", "autograd.clone-in-graph"),
    ("交叉熵", "loss.ce-includes-softmax"),
    ("多卡同步", "dist.syncbn-with-dp"),
    ("预训练模型", "tv.models-pretrained-kwarg"),
]


def readme_search_examples() -> list[tuple[str, str]]:
    """("query", claim ID) pairs that README gives as search examples: "words" (claim.id)."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    section = text.split("Search ranks claims with", 1)[1][:2500]
    return re.findall(r'"([^"]+)" \(([a-z_]+\.[a-z0-9.-]+)\)', section)


def test_readme_search_examples_are_phrasings_the_browser_test_holds():
    examples = readme_search_examples()
    assert len(examples) >= 3, examples
    assert not set(examples) - set(PHRASINGS), f"README examples not checked here: {set(examples) - set(PHRASINGS)}"
    assert len(set(PHRASINGS)) == len(PHRASINGS) == 20


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(page path, matrix) built from a copy of the committed evidence by the real builder."""
    committed = ROOT / "docs" / "matrix" / "reports"
    if not any(committed.glob("*.json")):
        pytest.skip(f"no committed evidence in {committed}")
    tmp = tmp_path_factory.mktemp("reader")
    shutil.copytree(committed, tmp / "evidence")
    m = matrix.build([], tmp / "out", evidence_dir=tmp / "evidence", known=ROOT / "docs" / "known-failures.toml")
    return tmp / "out" / "claims-matrix.html", m


@pytest.fixture(scope="module", params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def reader(request, page_at, built):
    """(page, width): the built page loaded once per width; each test leaves it as it found it."""
    path, _ = built
    with page_at(request.param, 900) as pg:
        pg.goto(path.as_uri())
        pg.wait_for_load_state("load")
        yield pg, request.param


def visible_rows(pg) -> list[str]:
    return pg.eval_on_selector_all("#ranges tr.claim", "rs => rs.filter(r => !r.hidden && r.offsetParent !== null)"
                                                      ".map(r => r.dataset.id)")


STICKY = """() => {
  const box = document.getElementById('range-view');
  box.scrollIntoView();
  box.scrollTop = 5000; box.scrollLeft = 5000;
  const b = box.getBoundingClientRect(), head = document.querySelector('#ranges thead').getBoundingClientRect();
  const vers = Array.from(document.querySelectorAll('#ranges th.ver')).map(th => th.getBoundingClientRect())
    .filter(r => r.right > b.left && r.left < b.right);
  const rows = Array.from(document.querySelectorAll('#ranges tr.claim')).filter(tr => {
    const r = tr.getBoundingClientRect(); return r.top >= head.bottom && r.bottom <= b.bottom; });
  const ids = rows.map(tr => tr.querySelector('td.id').getBoundingClientRect());
  const out = {scrolledDown: box.scrollTop, scrolledRight: box.scrollLeft, wide: box.scrollWidth - box.clientWidth,
    boxTop: b.top + box.clientTop, boxLeft: b.left + box.clientLeft, headTop: head.top, headBottom: head.bottom,
    versionsInView: vers.length, versionTops: vers.map(r => r.top), rowsInView: rows.length,
    idLefts: ids.map(r => r.left),
    atLeft: rows.length ? document.elementFromPoint(b.left + 8, ids[0].top + 4).closest('td.id') !== null : false};
  box.scrollTop = 0; box.scrollLeft = 0; window.scrollTo(0, 0);
  return out;
}"""


def test_the_release_header_and_the_claim_column_stay_after_scrolling_5000px_down_and_right(reader):
    pg, width = reader
    g = pg.evaluate(STICKY)
    assert g["scrolledDown"] > 1000, f"{width}px: the table did not scroll down in its box: {g}"
    if g["wide"] > 0:
        assert g["scrolledRight"] > 0, f"{width}px: the table is wider than its box and did not scroll right: {g}"
    assert abs(g["headTop"] - g["boxTop"]) <= 1, \
        f"{width}px: the header's top is at {g['headTop']:.0f}, the box's at {g['boxTop']:.0f}: it did not stay"
    assert g["versionsInView"] >= 3, f"{width}px: {g['versionsInView']} release headers in view after scrolling"
    assert g["rowsInView"] >= 3, f"{width}px: {g['rowsInView']} claim rows in view below the header"
    assert all(abs(x - g["boxLeft"]) <= 1 for x in g["idLefts"]), \
        f"{width}px: claim cells at x={sorted(set(round(x) for x in g['idLefts']))}, box at {g['boxLeft']:.0f}"
    assert g["atLeft"], f"{width}px: the point at the box's left edge is not a claim cell after scrolling right"
    assert pg.errors == []


LONGEST = """() => {
  const cells = Array.from(document.querySelectorAll('#ranges tbody.topic td.claim'));
  const td = cells.reduce((a, b) => b.textContent.length > a.textContent.length ? b : a);
  td.scrollIntoView({block: 'center'});
  const c = td.getBoundingClientRect(), range = document.createRange();
  range.selectNodeContents(td);
  const out = Array.from(range.getClientRects()).filter(r => r.width > 0 &&
    (r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 || r.bottom > c.bottom + 1));
  const res = {text: td.textContent, id: td.closest('tr').dataset.id, lines: range.getClientRects().length,
               outside: out.length,
               clipped: td.scrollWidth > td.clientWidth + 1 || td.scrollHeight > td.clientHeight + 1};
  document.getElementById('range-view').scrollTop = 0; window.scrollTo(0, 0);
  return res;
}"""


def test_a_long_claims_full_text_is_readable_in_place(reader, built):
    pg, width = reader
    g = pg.evaluate(LONGEST)
    _, m = built
    longest = max(m.rows, key=lambda r: len(r.claim))
    assert (g["id"], g["text"]) == (longest.id, longest.claim), "the cell holds the claim's whole text"
    assert (g["outside"], g["clipped"]) == (0, False), f"{width}px: the text of {g['id']} runs out of its cell: {g}"
    assert g["lines"] > 1, f"{width}px: the text of {g['id']} ({len(g['text'])} chars) is not wrapped"


ID_BREAKS = """() => Array.from(document.querySelectorAll('#ranges tbody.topic td.id button.open')).flatMap(b => {
  const text = b.textContent, bad = [];
  let top = null, at = 0;
  for (const node of b.childNodes) {
    if (node.nodeType !== 3) continue;
    for (let i = 0; i < node.length; i++, at++) {
      const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
      const t = r.getBoundingClientRect().top;
      if (top !== null && t > top + 2 && !'.-'.includes(text[at - 1])) {
        bad.push(text.slice(0, at) + '|' + text.slice(at));
      }
      top = t;
    }
  }
  return bad;
})"""


def test_ids_break_only_after_a_dot_or_a_dash(reader):
    pg, width = reader
    bad = pg.evaluate(ID_BREAKS)
    assert bad == [], f"{width}px: IDs broken inside a word: {bad[:8]}"


def test_the_table_says_when_it_scrolls_sideways(reader):
    pg, width = reader
    g = pg.evaluate("""() => { const box = document.getElementById('range-view');
      const hint = document.querySelector('#range-wrap .scroll-hint');
      return {wide: box.scrollWidth > box.clientWidth + 1, hint: getComputedStyle(hint).visibility === 'visible'}; }""")
    assert g["hint"] == g["wide"], f"{width}px: table wider than its box: {g['wide']}, sign shown: {g['hint']}"


def test_the_top_row_counts_each_columns_verdicts(reader, built):
    pg, width = reader
    _, m = built
    cells = pg.eval_on_selector_all("#ranges thead tr.counts td.count", "ts => ts.map(t => Array.from("
                                    "t.querySelectorAll('span')).map(s => s.textContent).join(''))")
    want = ["".join(f"{mt.SYMBOLS[v]}{n[v]}" for v in mt.SUMMARY_ORDER if n.get(v))
            for n in matrix.summary(m)]
    assert cells == want, f"{width}px: counts row {cells[:3]}..., expected {want[:3]}..."
    under = pg.evaluate("""() => { document.getElementById('range-view').scrollTop = 0;
      return document.querySelector('#ranges thead tr.counts').getBoundingClientRect().bottom <=
        document.querySelector('#ranges tbody.topic tr.claim').getBoundingClientRect().top + 1; }""")
    assert under, "the counts row sits above the first claim"
    # the column the optional-library reports join says how many of its counts are lib.* claims
    libs = pg.eval_on_selector_all("#ranges thead tr.counts td.count", "ts => ts.map(t => "
                                   "(t.querySelector('small.lib') || {}).textContent || '')")
    lib_counts = matrix.summary(m, mt.lib_rows(m))
    for col, shown, n in zip(m.columns, libs, lib_counts, strict=True):
        want_lib = ("lib.*:" + "".join(f" {mt.SYMBOLS[v]}{n[v]}" for v in mt.SUMMARY_ORDER if n.get(v))
                    if mt.joined(col) else "")
        assert shown == want_lib, f"{col.label}: {shown!r}, expected {want_lib!r}"
    assert any(libs), "the committed evidence has a column that the optional-library reports join"


def test_the_diff_view_of_2_5_1_to_2_6_0_shows_what_model_diff_finds(reader, built):
    pg, width = reader
    _, m = built
    _, _, want = matrix.diff(m, "2.5.1", "2.6.0")
    assert want, "the committed evidence has claims that changed between 2.5.1 and 2.6.0"
    pg.click("#diff > summary")
    pg.select_option("#diff-a", label="2.5.1")
    pg.select_option("#diff-b", label="2.6.0")
    got = pg.eval_on_selector_all("#diff-table tr.diff", "ts => ts.map(t => [t.dataset.id, "
                                  "Array.from(t.cells).map(c => c.textContent)])")
    assert [g[0] for g in got] == [d.id for d in want], f"{width}px: the diff view lists {got}"
    for (cid, texts), d in zip(got, want, strict=True):
        assert (texts[1][:len(d.old.verdict)], texts[2][:len(d.new.verdict)]) == (d.old.verdict, d.new.verdict), texts
        for cell in (d.old, d.new):
            if cell.correction and cell.verdict in ("partly", "refuted"):
                assert cell.correction in " ".join(texts), f"{cid}: the correction is shown"
    assert pg.inner_text("#diff-out").startswith(f"2.5.1 \u2192 2.6.0: {len(want)} claim")
    fits = pg.evaluate("() => document.getElementById('diff-table').getBoundingClientRect().right <= innerWidth")
    assert fits, f"{width}px: the diff view is wider than the window"
    pg.click("#diff > summary")
    assert pg.errors == []


def ranks_of(pg, queries) -> dict:
    """{query: (rank of its claim or None, the top 3)} as the page's search ranks them."""
    ranks = {}
    for query, cid in queries:
        pg.fill("#search", query)
        rows = visible_rows(pg)
        ranks[query] = (rows.index(cid) + 1 if cid in rows else None, rows[:3])
    pg.fill("#search", "")
    return ranks


def test_the_notes_chinese_terms_find_their_claim_in_the_top_3(reader):
    pg, width = reader
    ranks = ranks_of(pg, CHINESE_QUERIES)
    missed = {q: r for q, r in ranks.items() if r[0] is None or r[0] > 3}
    assert not missed, f"{width}px: Chinese queries whose claim is not in the top 3 (rank, top 3): {missed}"
    assert len(CHINESE_QUERIES) == len(dict(CHINESE_QUERIES)) == 10
    assert pg.errors == []


def test_twenty_learner_phrasings_find_their_claim_in_the_top_3(reader):
    pg, width = reader
    ranks = {}
    for query, cid in PHRASINGS:
        pg.fill("#search", query)
        rows = visible_rows(pg)
        ranks[query] = (rows.index(cid) + 1 if cid in rows else None, rows[:3])
    pg.fill("#search", "")
    missed = {q: r for q, r in ranks.items() if r[0] is None or r[0] > 3}
    assert not missed, f"{width}px: phrasings whose claim is not in the top 3 (rank, top 3): {missed}"
    assert len(visible_rows(pg)) == len(pg.eval_on_selector_all("#ranges tbody.topic tr.claim", "t => t")), \
        "an empty query shows every claim again"
    assert pg.errors == []


def test_the_gpu_columns_say_how_old_they_are_and_show_what_the_cpu_decided(reader, built):
    """Each GPU column's header states when and on which torch it ran and how many of its tests
    changed since; its stale cells read "rerun", never "untested"; a claim the CPU decides and its
    run did not shows the CPU verdict of the same torch, muted, "decided on CPU"; the detail of a
    claim refuted by the inventory opens its correction with the correction, never with "none"."""
    pg, width = reader
    _, m = built
    gpus = [i for i, c in enumerate(m.columns) if c.gpu]
    assert gpus, "the committed evidence has GPU columns"
    heads = pg.eval_on_selector_all("#ranges thead th.ver", "hs => hs.map(h => h.innerText.replace(/\\s+/g, ' '))")
    for i in gpus:
        age = mt.column_age(m.columns[i], m.rows, i)
        assert re.search(rf"measured {age['date']} on torch {re.escape(age['torch'])}; {age['stale']} tests changed "
                         r"since.*: rerun \.ci/gpu", heads[i]), f"{width}px: {heads[i]!r}"
    shown = pg.eval_on_selector_all("#ranges td.seg", "ts => ts.map(t => [t.dataset.claim, t.dataset.device, "
                                    "t.dataset.shown, t.innerText.replace(/\\s+/g, ' ').trim(), "
                                    "getComputedStyle(t).filter])")
    by = {(c, d): (s, text, f) for c, d, s, text, f in shown}
    zero = next(r for r in m.rows if r.id == "optim.model-zero-grad-zeros")
    for i in gpus:
        col = m.columns[i]
        for r in m.rows:
            cell = r.cells[i]
            s, text, f = by[(r.id, col.device)]
            if cell.cpu is not None:
                assert (s, text) == (cell.cpu.verdict, f"{mt.SYMBOLS[s]} {s} decided on CPU"), (r.id, s, text)
                assert "saturate" in f, f"{r.id}: the borrowed CPU verdict is not muted ({f})"
            elif cell.rerun:
                assert (s, text) == ("rerun", "\u21bb rerun"), (r.id, s, text)
            assert "untested" not in text or not cell.rerun, (r.id, text)
        assert (zero.cells[i].cpu is not None, by[(zero.id, col.device)][0]) == (True, "refuted"), \
            "optim.model-zero-grad-zeros: refuted on the CPU of the same torch, decided nothing on the GPU"
    pg.evaluate("() => { const t = document.getElementById('detail-cuda.max-memory-allocated');"
                " document.getElementById('detail-body').replaceChildren(t.content.cloneNode(true)); }")
    text = pg.inner_text("#detail-body")
    correction = text.split("Correction", 1)[1].strip()
    assert not correction.lower().startswith("none"), correction[:200]
    assert correction.startswith("max_memory_allocated()"), correction[:200]
    pg.evaluate("() => document.getElementById('detail-body').replaceChildren()")
    assert pg.errors == []


def test_the_compare_view_says_what_it_cannot_tell_and_keeps_library_rows_apart(reader, built):
    """After the differing claims: how many are decided in only one of the two columns and in
    neither, by reason, as `diff` prints them; lib.* rows come after torch's, under their own
    heading; every cause's URL is a link (compare view and Changes list)."""
    pg, width = reader
    _, m = built
    pg.click("#diff > summary")
    for a, b in (("2.5.1", "2.6.0"), ("2.11.0", "2.14.1")):
        pg.select_option("#diff-a", label=a)
        pg.select_option("#diff-b", label=b)
        old, new, want = matrix.diff(m, a, b)
        lines = mt.limits_lines(old, new, matrix.model.limits(m, a, b))
        got = pg.inner_text("#diff-limits").splitlines()
        assert [x.strip() for x in got if x.strip()] == [x.strip() for x in lines if x.strip()], f"{width}px: {got}"
        rows = pg.eval_on_selector_all("#diff-table tr.diff", "ts => ts.map(t => [t.dataset.id, "
                                       "t.parentNode.className])")
        assert [r[0] for r in rows] == [d.id for d in want]
        assert [r[1] == "lib" for r in rows] == [d.lib for d in want], rows
        if any(d.lib for d in want):
            assert pg.inner_text("#diff-table tbody.lib th").startswith(f"lib.* claims ({sum(d.lib for d in want)})")
        links = pg.eval_on_selector_all("#diff-table a", "as => as.map(a => a.href)")
        urls = [u for d in want for c in d.causes for u in re.findall(r"https?://\S+", c)]
        assert len(links) == len(urls), f"{a} -> {b}: the causes' URLs are links: {links} vs {urls}"
    pg.click("#diff > summary")
    causes = [t.cause for r in m.rows for t in r.transitions if t.cause and "http" in t.cause]
    assert causes, "the committed matrix has causes with URLs"
    n = pg.eval_on_selector_all("details#changes .cause", "cs => cs.filter(c => c.querySelector('a[href^=\"http\"]'))"
                                ".length")
    assert n == len(causes), f"{width}px: {n} of {len(causes)} causes in the Changes list are links"
    assert pg.errors == []
