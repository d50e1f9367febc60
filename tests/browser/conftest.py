"""Fixtures of the browser tests: the built site served on 127.0.0.1, one chromium.

The site is ``_build/html`` (``make test`` builds it first; ``MHA_BOOK_HTML`` points
elsewhere). These tests never skip for a missing browser or site: they fail, with one line
saying what to run.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser import a11y, harness


@pytest.fixture(autouse=True)
def _no_placeholder(request) -> None:
    """A test parametrized over no page (harness.or_missing's placeholder) fails."""
    callspec = getattr(request.node, "callspec", None)
    rel = callspec.params.get("rel") if callspec else None
    why = harness.missing(rel) if isinstance(rel, str) else None
    if why:
        pytest.fail(why, pytrace=False)


@pytest.fixture(scope="session")
def site() -> Path:
    if not (harness.SITE / "searchindex.js").is_file():
        pytest.fail(f"{harness.SITE} holds no built book: run `make book` first", pytrace=False)
    return harness.SITE


@pytest.fixture(scope="session")
def base_url(site):
    with harness.serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """One chromium for the session (launched once; a launch takes seconds): every test opens
    its pages in contexts of its own (harness.browser_context), which share no cookies,
    storage or cache. (One Playwright per process: a second one fails once one runs.)"""
    try:
        harness.ensure_chromium()
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, harness.launch(pw) as browser:
        yield browser


@pytest.fixture(scope="session")
def context(browser):
    with harness.browser_context(browser, viewport={"width": 1280, "height": 900}) as ctx:
        harness.guard(ctx)
        yield ctx


@pytest.fixture(scope="session")
def small_screens(browser):
    """{name: context} for a11y.SMALL_SCREENS (a phone, 200 % zoom): a context each."""
    with contextlib.ExitStack() as stack:
        contexts = {
            name: stack.enter_context(harness.browser_context(browser, **args))
            for name, args in a11y.SMALL_SCREENS.items()
        }
        for ctx in contexts.values():
            harness.guard(ctx)
        yield contexts


@dataclass
class Loaded:
    page: object
    log: harness.PageLog
    rel: str


@pytest.fixture
def open_page(site, base_url, context):
    """open_page(rel) -> Loaded: the page loaded and its widgets rendered."""
    opened = []

    def _open(rel: str) -> Loaded:
        page = context.new_page()
        opened.append(page)
        log = harness.watch(page)
        harness.goto(page, base_url, rel, site)
        return Loaded(page, log, rel)

    yield _open
    for p in opened:  # the next test's pages read no state this test's pages left behind
        harness.forget(p)
        p.close()
