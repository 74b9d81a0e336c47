"""The browser fixtures of the matrix page's tests: Debian's Chromium driven headless by Playwright
(which never downloads a browser of its own here). Without Playwright or Chromium they skip,
naming what is missing; CHROMIUM names another executable."""
from __future__ import annotations

import contextlib
import os
import pathlib
import shutil

import pytest

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed "
                                   "(pip install -r requirements-matrix.txt)")
    if not pathlib.Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CHROMIUM)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@contextlib.contextmanager
def open_page(browser, width: int, height: int):
    """A page of `width` x `height` px in a context of its own, that collects console errors, page
    errors and failed requests in .errors; the context is closed after."""
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    pg.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
    pg.errors = errors
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture(scope="module")
def page_at(browser):
    """page_at(width, height): open_page() in this module's browser, for a fixture that loads its own page."""
    return lambda width, height: open_page(browser, width, height)


@pytest.fixture
def page(page_at):
    """A 1366x768 page (open_page())."""
    with page_at(1366, 768) as pg:
        yield pg
