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

import dataclasses
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
    ("矩阵乘法", frozenset({"tensor.mm-shapes", "tensor.bmm-shapes", "tensor.mm-vector", "tensor.bmm-leading-dims",
                        "tensor.matmul-broadcast-example"})),  # a term of several claims: any of them
    ("复制张量", "autograd.clone-in-graph"),
    ("交叉熵", "loss.ce-includes-softmax"),
    ("多卡同步", "dist.syncbn-with-dp"),
    ("预训练模型", "tv.models-pretrained-kwarg"),
]




@dataclasses.dataclass(frozen=True)
class Names:
    """A target of a bare term of the notes (梯度, gradient): each of the top 3 names one of `words`
    in its ID or text: any claim about it is the right answer, and none is the one."""
    words: tuple[str, ...]


def ANY(*ids: str) -> frozenset:  # noqa: N802 (reads as a target)
    """A target of a query several claims answer equally: any of them in the top 3."""
    return frozenset(ids)


# (what a learner types, its target): at least 40 more, English phrasings (the issue's: "loss scaling
# fp16", "dropout scale factor", "inverted dropout", "dataloader multiprocessing", "reproducibility"),
# typos and the notes' Chinese terms; none of the words the ranking reads (synonyms.json,
# glossary.json, the fallback to the closest claims) names a claim of this list
LEARNER_QUERIES = [
    ("loss scaling fp16", ANY("amp.scale-equals-multiply", "amp.update-adjusts-scale", "amp.default-scale-grad",
                              "amp.direct-step-uses-scaled")),
    ("dropout scale factor", "nn.dropout-train-eval"),
    ("inverted dropout", "nn.dropout-train-eval"),
    ("dataloader multiprocessing", Names(("worker",))),
    ("reproducibility", ANY("cuda.seed-reproducible", "cudnn.deterministic-repro")),
    ("droput", "nn.dropout-train-eval"),
    ("gradient acumulation", "autograd.backward-accumulates"),
    ("optimzer zero grad", Names(("zero_grad", "zero-grad"))),
    ("nograd speed", "autograd.no-grad-speed-memory"),
    ("reproducable seed", "cuda.seed-reproducible"),
    ("pin memroy", "data.pin-memory"),
    ("deterministc cudnn", "cudnn.deterministic-repro"),
    ("crossentropy sofmax", "loss.ce-includes-softmax"),
    ("lable smoothing", ANY("loss.label-smoothing-manual-vs-builtin", "loss.label-smoothing-snippet-typos")),
    ("detatch shares memory", "autograd.detach-shared"),
    ("embeding shape", "nn.embedding-shape"),
    ("learning rate of a param group", "optim.param-groups-lr"),
    ("fine tune with a different learning rate", "optim.param-groups-lr"),
    ("save model weights", "serial.state-dict-roundtrip"),
    ("load gpu checkpoint on cpu", "serial.map-location-cpu"),
    ("clip gradients", ANY("autograd.clip-grad-norm-explode-only", "amp.clip-joint-vs-separate",
                           "amp.unscale-clip-pair")),
    ("one hot encoding", ANY("dtype.one-hot-default", "dtype.one-hot-shape", "tensor.one-hot-scatter")),
    ("batch matrix multiplication", "tensor.bmm-shapes"),
    ("deterministic convolution", "cudnn.deterministic-repro"),
    ("same seed in every process", "dist.ddp-same-seed"),
    ("shuffle every epoch distributed", "dist.sampler-set-epoch"),
    ("local rank environment variable", "dist.launch-use-env"),
    ("he initialization", "init.kaiming-conv"),
    ("eval mode still computes gradients", "autograd.eval-still-grads"),
    ("in place operation breaks backward", "autograd.inplace-check"),
    ("imbalanced classes sampler", "data.weighted-random-sampler"),
    ("max memory allocated", "cuda.max-memory-allocated"),
    ("to_tensor scale", "dtype.to-tensor-func"),
    ("seed numpy and torch", "cuda.numpy-seed-separate"),
    ("grad scaler unscale twice", "amp.unscale-twice-error"),
    ("worker init function", "data.worker-init-fn"),
    ("data loader workers", Names(("worker",))),
    ("torch load weights only", "serial.save-load-checkpoint-module"),
    ("requires grad false freeze layer", "autograd.layer-requires-grad-false"),
    ("broadcast from rank 0", "dist.broadcast"),
    ("drop last batch", "data.drop-last"),
    ("混合精度", Names(("amp", "autocast", "gradscaler", "precision"))),
    ("梯度", Names(("grad",))),
    ("多卡", Names(("dp", "dataparallel", "gpus", "multi", "several"))),
    ("环境变量", ANY("dist.launch-env-vars", "dist.launch-use-env", "cuda.visible-devices-code")),
    ("梯度裁剪", ANY("autograd.clip-grad-norm-explode-only", "amp.clip-joint-vs-separate", "amp.unscale-clip-pair")),
    ("学习率", Names(("lr", "learning rate"))),
    ("随机种子 复现", "cuda.seed-reproducible"),
    ("权重初始化", Names(("init",))),
    ("多进程", Names(("process", "spawn", "worker"))),
    ("半精度", "amp.float16-half"),
    ("加载预训练模型", "tv.models-pretrained-kwarg"),
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
  const ids = rows.map(tr => tr.querySelector('.id').getBoundingClientRect());
  const out = {scrolledDown: box.scrollTop, scrolledRight: box.scrollLeft, wide: box.scrollWidth - box.clientWidth,
    boxTop: b.top + box.clientTop, boxLeft: b.left + box.clientLeft, headTop: head.top, headBottom: head.bottom,
    versionsInView: vers.length, versionTops: vers.map(r => r.top), rowsInView: rows.length,
    idLefts: ids.map(r => r.left),
    atLeft: rows.length ? document.elementFromPoint(b.left + 8, ids[0].top + 4).closest('.id') !== null : false};
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


ID_BREAKS = """() => Array.from(document.querySelectorAll('#ranges tbody.topic .id button.open')).flatMap(b => {
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
        found = [rows.index(c) + 1 for c in ({cid} if isinstance(cid, str) else cid) if c in rows]
        ranks[query] = (min(found) if found else None, rows[:3])
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


def _found(target, rows: list[str], texts: dict[str, str]) -> bool:
    """Whether the top 3 `rows` hold the target (a claim ID, ANY of several, or Names)."""
    top = rows[:3]
    if isinstance(target, Names):
        return len(top) == 3 and all(any(w in f"{r} {texts[r]}".lower() for w in target.words) for r in top)
    return bool(({target} if isinstance(target, str) else set(target)) & set(top))


def test_forty_learner_queries_phrasings_typos_and_chinese_find_their_claim_in_the_top_3(reader, built):
    pg, width = reader
    _, m = built
    texts = {r.id: r.claim for r in m.rows}
    assert len(LEARNER_QUERIES) >= 40
    assert len(dict(LEARNER_QUERIES)) == len(LEARNER_QUERIES)
    assert sum(bool(re.search("[\u3400-\u9fff]", q)) for q, _ in LEARNER_QUERIES) >= 10, "the notes' Chinese terms"
    for _, target in LEARNER_QUERIES:
        ids = [target] if isinstance(target, str) else [] if isinstance(target, Names) else list(target)
        assert set(ids) <= set(texts), f"no such claim: {set(ids) - set(texts)}"
    missed = {}
    for query, target in LEARNER_QUERIES:
        pg.fill("#search", query)
        rows = visible_rows(pg)
        if not _found(target, rows, texts):
            missed[query] = rows[:3]
    pg.fill("#search", "")
    assert not missed, f"{width}px: queries whose claim is not in the top 3 (top 3): {missed}"
    assert pg.errors == []


def test_a_query_no_claim_matches_in_every_word_shows_the_closest_with_the_matched_words_marked(reader):
    """Never an empty table for a learner's words: when every-word matching finds nothing, the best
    partial and fuzzy matches, under "no claim matches every word; closest:", the words that
    matched marked in the claim's text; the count says so too. Words that match nothing at all
    still find nothing."""
    pg, width = reader
    pg.fill("#search", "inverted dropout")
    rows = visible_rows(pg)
    assert 0 < len(rows) <= 10, rows
    assert rows[0] == "nn.dropout-train-eval", rows
    head = pg.inner_text("#ranges tbody.results th")
    assert "no claim matches every word; closest:" in head, head
    assert pg.text_content("#count").startswith("no claim matches every word; "), pg.text_content("#count")
    marked = pg.eval_on_selector_all('#ranges tbody.results tr.claim[data-id="nn.dropout-train-eval"] td.claim mark',
                                     "ms => ms.map(m => m.textContent.toLowerCase())")
    assert marked, "the matched words are marked"
    assert set(marked) <= {"dropout"}, marked
    pg.fill("#search", "droput")  # a typo: the close spelling is found and marked
    assert "nn.dropout-train-eval" in visible_rows(pg)[:3]
    assert "closest" in pg.inner_text("#ranges tbody.results th")
    pg.fill("#search", "dropout eval")  # every word matches: no fallback, the words marked still
    assert "closest" not in pg.inner_text("#ranges tbody.results th")
    assert pg.eval_on_selector_all('#ranges tr.claim[data-id="nn.dropout-train-eval"] td.claim mark', "ms => ms.length")
    pg.fill("#search", "load gpu checkpoint on cpu")  # fewer than 3 match every word: they come first, then the closest
    rows = visible_rows(pg)
    assert rows[0] == "serial.map-location-cpu", rows
    assert len(rows) >= 3, rows
    assert "every word, then the closest:" in pg.inner_text("#ranges tbody.results th")
    pg.fill("#search", "zzqx qqzx")
    assert visible_rows(pg) == []
    pg.fill("#search", "")
    assert pg.eval_on_selector_all("#ranges td.claim mark", "ms => ms.length") == 0, "no mark left after a search"
    assert pg.errors == []


def test_the_by_note_headers_show_the_notes_title_beside_its_file_name(reader):
    pg, width = reader
    from harness.matrix.html import note_titles

    pg.click("#order-note")
    heads = pg.eval_on_selector_all("#ranges tbody.note", "ts => ts.map(t => [t.dataset.note, "
                                    "t.querySelector('th').innerText.replace(/\\s+/g, ' ').trim()])")
    pg.click("#order-topic")
    titles = note_titles()
    assert heads, "the By note order lists the notes"
    for note, text in heads:
        assert text == f"Note {note}: {titles[note]}", f"{width}px: {text!r}"
    assert pg.errors == []


GRID = """() => {
  const box = document.querySelector('#grid-view .scroll');
  box.scrollIntoView();
  box.scrollTop = 3000; box.scrollLeft = 3000;
  const b = box.getBoundingClientRect(), head = document.querySelector('#grid thead').getBoundingClientRect();
  const out = {down: box.scrollTop, right: box.scrollLeft, wide: box.scrollWidth - box.clientWidth,
    boxTop: b.top + box.clientTop, headTop: head.top, boxBottom: b.bottom, inner: innerHeight,
    hasScrollbar: box.offsetHeight - box.clientHeight > 0 || box.scrollWidth <= box.clientWidth,
    idLeft: document.querySelector('#grid tbody tr.claim .id').getBoundingClientRect().left - b.left};
  box.scrollTop = 0; box.scrollLeft = 0; window.scrollTo(0, 0);
  return out;
}"""


def test_the_full_grid_keeps_its_header_on_top_and_its_sideways_scrollbar_in_view(reader):
    pg, width = reader
    pg.click("#show-grid")
    try:
        g = pg.evaluate(GRID)
    finally:
        pg.click("#show-ranges")
    assert g["down"] > 1000, f"{width}px: the grid did not scroll down in its own box: {g}"
    assert abs(g["headTop"] - g["boxTop"]) <= 1, f"{width}px: the grid's header did not stay on top: {g}"
    assert g["boxBottom"] <= g["inner"] + 1, f"{width}px: the grid's box (and its scrollbar) ends below the window: {g}"
    assert g["wide"] > 0, f"{width}px: the full grid is expected wider than the window: {g}"
    assert g["right"] > 0, f"{width}px: the grid did not scroll sideways: {g}"
    assert g["hasScrollbar"], f"{width}px: no sideways scrollbar in the grid's box: {g}"
    assert abs(g["idLeft"]) <= 2, f"{width}px: the claim column did not stay at the left: {g}"
    assert pg.errors == []


CHINESE_TEXT = """() => {
  const out = [], cjk = /[\\u3400-\\u9fff]/;
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!cjk.test(n.textContent) || el.closest('script, style, template')) continue;
    const lang = (el.closest('[lang]') || {}).lang || '';
    if (!lang.startsWith('zh')) out.push(n.textContent.trim().slice(0, 60));
  }
  return out;
}"""


def test_headings_row_headers_an_announced_count_and_lang_on_chinese_text(reader, built):
    """Accessibility: headings for the page's parts (not one heading), each claim row headed by its
    ID (th scope=row) in the range view and the full grid, the results count a live region that
    a screen reader announces, and every Chinese text the page shows marked lang="zh" (the detail's
    note sections, the By note sections, a Chinese query's results heading)."""
    pg, width = reader
    _, m = built
    heads = pg.eval_on_selector_all("h1, h2", "hs => hs.map(h => h.tagName + ' ' + h.textContent)")
    assert len(heads) >= 5, heads
    for part in ("What the cells say", "Claims by torch version", "Changes between versions", "Compare two columns"):
        assert any(part in h for h in heads), (part, heads)
    rows = pg.eval_on_selector_all("#ranges tbody.topic tr.claim, #grid tr.claim",
                                   "rs => rs.filter(r => !(r.cells[0].tagName === 'TH' && r.cells[0].scope === 'row'))"
                                   ".map(r => r.dataset.id)")
    assert rows == [], f"claim rows without a row header: {rows[:5]}"
    assert pg.get_attribute("#count", "aria-live") == "polite"
    assert pg.get_attribute("#count", "role") == "status"
    pg.fill("#search", "dropout")
    assert pg.text_content("#count") != f"{len(m.rows)} of {len(m.rows)} claims", "the count follows the search"
    pg.fill("#search", "混合精度")
    assert pg.evaluate(CHINESE_TEXT) == [], "a Chinese query in the results heading"
    pg.fill("#search", "")
    cid = next(r.id for r in m.rows if any(re.search("[\u3400-\u9fff]", s) for s in r.source))
    pg.evaluate(f"() => document.getElementById('detail-body').replaceChildren("
                f"document.getElementById('detail-{cid}').content.cloneNode(true))")
    pg.click("#order-note")
    try:
        missing = pg.evaluate(CHINESE_TEXT)
    finally:
        pg.click("#order-topic")
        pg.evaluate("() => document.getElementById('detail-body').replaceChildren()")
    assert missing == [], f"{width}px: Chinese text without lang=zh: {missing[:8]}"
    assert pg.errors == []
