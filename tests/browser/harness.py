"""Shared browser harness: serve the built book on 127.0.0.1 and drive Debian's chromium.

Used by the browser tests (conftest.py), screenshot.py and measure.py. The browser is
Debian's /usr/bin/chromium (Playwright's own browser download does not work here), each
test in new contexts of its own (a context shares no cookies, storage or cache); every
request that does not go to 127.0.0.1 is aborted and recorded.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("MHA_BOOK_HTML", ROOT / "_build" / "html"))
CHROMIUM = os.environ.get("MHA_CHROMIUM", "/usr/bin/chromium")
# How long a page may take to load, settle or answer before a test gives up (Playwright's
# default is 30 s): limits on waiting for a condition, never a measure of speed; generous,
# since the machine may be busy with other work.
TIMEOUT_MS = 90_000
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def ensure_chromium() -> str:
    """Return the chromium path; install Debian's package when root and it is missing."""
    if Path(CHROMIUM).is_file():
        return CHROMIUM
    if os.geteuid() == 0 and shutil.which("apt-get") and CHROMIUM == "/usr/bin/chromium":
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium"],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        if Path(CHROMIUM).is_file():
            return CHROMIUM
    raise RuntimeError(f"{CHROMIUM} is missing: as root run `apt-get install -y chromium`")


def book_pages(site: Path = SITE) -> list[str]:
    """Pages of the current build: Sphinx's docnames (from searchindex.js) plus the
    generated genindex/search pages and the root redirect. Stale files that an earlier build
    left in _build/html are not pages of this build."""
    index = site / "searchindex.js"
    if not index.is_file():
        return []
    text = index.read_text(encoding="utf-8")
    data = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    found = [f"{d}.html" for d in data["docnames"]]
    found += [p for p in ("genindex.html", "search.html", "index.html") if (site / p).is_file()]
    return sorted(set(found))


def or_missing(pages: list[str], what: str = "page") -> list[str]:
    """``pages``, or when there are none one placeholder in parentheses that says why, so that
    a test parametrized over them FAILS (conftest.py fails every such ``rel``) where pytest
    would skip an empty parametrization."""
    if pages:
        return pages
    if not book_pages():
        return [f"(no book built in {SITE}: run make book)"]
    return [f"(no {what} in the book built in {SITE}: run make book)"]


def missing(rel: str) -> str | None:
    """What an :func:`or_missing` placeholder says is missing, else None."""
    return rel[1:-1] if rel.startswith("(") and rel.endswith(")") else None


def is_redirect(site: Path, rel: str) -> str | None:
    """The target of a ``<meta http-equiv="refresh">`` page, else None."""
    m = re.search(
        r'<meta http-equiv="refresh" content="\d+;\s*url=([^"]+)"',
        (site / rel).read_text(encoding="utf-8"),
        re.IGNORECASE,
    )
    return m.group(1) if m else None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@contextlib.contextmanager
def serve(site: Path = SITE) -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 (a free port) in a thread; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def launch(playwright) -> Iterator[object]:
    """Debian's chromium, launched by ``playwright`` (headless, :data:`CHROMIUM_ARGS`); the
    browser tests share one for the session (conftest.py), each test in its own contexts."""
    browser = playwright.chromium.launch(
        executable_path=ensure_chromium(), headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield browser
    finally:
        browser.close()


@contextlib.contextmanager
def browser_context(browser, **context_args):
    """A new context of ``browser`` (from :func:`launch`): its own cookies, storage and cache,
    shared with no other context, closed after."""
    context = browser.new_context(service_workers="block", **context_args)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        context.close()


@contextlib.contextmanager
def site_browser(site: Path = SITE, **context_args) -> Iterator[tuple[object, str]]:
    """``site`` served on 127.0.0.1 and a guarded chromium context: yield (context, base URL).

    ``context_args`` go to Playwright's context (viewport, device_scale_factor, is_mobile...).
    """
    from playwright.sync_api import sync_playwright

    with (
        serve(site) as base,
        sync_playwright() as pw,
        launch(pw) as browser,
        browser_context(browser, **context_args) as ctx,
    ):
        guard(ctx)
        yield ctx, base


# The schemes a page of the site may load from: served over http (127.0.0.1 only), or opened
# from file:// (its own files, and what its scripts make: data: and blob: URLs).
SCHEMES_OF_THE_SITE = {"http": {"http"}, "file": {"file", "data", "blob"}}


def confine(ctx, scheme: str) -> list[str]:
    """Abort every request of ``ctx`` that leaves the site opened by ``scheme`` ("http" or
    "file"); returns the list of their URLs, which grows as the pages make them."""
    left: list[str] = []
    allowed = SCHEMES_OF_THE_SITE[scheme]

    def route(r):
        parts = urlsplit(r.request.url)
        local = parts.scheme != "http" or parts.hostname == "127.0.0.1"
        if parts.scheme in allowed and local:
            r.continue_()
        else:
            left.append(r.request.url)
            r.abort("blockedbyclient")

    ctx.route("**/*", route)
    return left


@contextlib.contextmanager
def confined_page(
    browser, base_url: str, site: Path, rel: str, scheme: str, fragment: str = ""
) -> Iterator[tuple[object, PageLog, list[str]]]:
    """Page ``rel`` of the site (with the URL fragment ``fragment``) opened over http at
    ``base_url`` or from ``file://`` (``scheme``) in a fresh 1280 x 900 context confined to the
    site (:func:`confine`), its widgets rendered and its requests done: yield (page, its log
    of errors, the requests that left the site)."""
    with browser_context(browser, viewport={"width": 1280, "height": 900}) as ctx:
        left = confine(ctx, scheme)
        page = ctx.new_page()
        log = watch(page)
        url = base_url + rel if scheme == "http" else (site / rel).as_uri()
        page.goto(url + fragment, wait_until="load")
        settle(page)
        log.requests.wait_quiet(page)
        yield page, log, left


def chapter_fixture(pages):
    """A pytest fixture for a test module, parametrized over each page of ``pages`` opened
    over http and from ``file://`` by :func:`confined_page`: it yields (rel, page, log of
    errors, the requests that left the site). A module assigns it: ``chapter = ...``."""
    import pytest

    @pytest.fixture(params=[(rel, scheme) for rel in pages for scheme in ("http", "file")], ids=str)
    def chapter(request, browser, base_url, site):
        rel, scheme = request.param
        with confined_page(browser, base_url, site, rel, scheme) as (page, log, left):
            yield rel, page, log, left

    return chapter


def takeovers(page, hosts: str) -> list[str | None]:
    """How each live view that the selector ``hosts`` finds took over from its static first
    view: its widget subarea's ``data-mha-takeover`` ("exact": the static copy handed over
    unchanged; book/_ext/static/mha-anywidget-host.js), in page order."""
    return page.evaluate(
        "(hosts) => Array.from(document.querySelectorAll(hosts))"
        ".map((v) => v.closest('.widget-subarea').getAttribute('data-mha-takeover'))",
        hosts,
    )


def goto(page, base: str, rel: str, site: Path = SITE) -> None:
    """Load page ``rel`` of the site served at ``base`` (following the root's redirect) and
    wait until its widgets are rendered (:func:`settle`). (Its math is already typeset: the
    book typesets it at build time, book/_ext/build_math.py.)"""
    page.goto(base + rel, wait_until="load")
    target = is_redirect(site, rel.split("?")[0])
    if target:
        page.wait_for_url(re.compile(re.escape(target.split("#")[0]) + "$"))
        page.wait_for_load_state("load")
    settle(page)


def forget(page) -> None:
    """Clear what ``page`` stored for its origin (localStorage, sessionStorage, cookies), which
    every page of the same site in the same context would otherwise read: e.g. the search page
    stores its terms, and the next page opened highlights them in its text."""
    if not page.is_closed() and page.url.startswith("http"):
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    page.context.clear_cookies()


@dataclass
class PageLog:
    """What one page did that a reader would call broken."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    requests: Requests | None = None  # open requests, set by watch()

    def problems(self) -> list[str]:
        return [
            *(f"console error: {m}" for m in self.console_errors),
            *(f"page error: {m}" for m in self.page_errors),
            *(f"failed request: {m}" for m in self.failed_requests),
            *(f"request leaving 127.0.0.1: {m}" for m in self.external_requests),
        ]


def guard(context) -> None:
    """Abort every request of ``context`` that is not to 127.0.0.1 (recorded per page)."""

    def route(r):
        if urlsplit(r.request.url).hostname == "127.0.0.1" or r.request.url.startswith("data:"):
            r.continue_()
        else:
            log = getattr(r.request.frame.page, "_mha_log", None)
            if log is not None:
                log.external_requests.append(r.request.url)
            r.abort("blockedbyclient")

    context.route("**/*", route)


class Requests:
    """The requests ``page`` has started and not yet finished (or failed), by URL, and when
    the last one started or ended, and every URL it requested (``urls``). Playwright's own
    ``networkidle`` wait timed out after 90 s on a page whose requests had all been answered
    (seen in CI, not reproducible by hand; microsoft/playwright#19835 reports the same), so
    the tests count requests themselves."""

    def __init__(self, page) -> None:
        self.pending: dict[object, str] = {}
        self.urls: list[str] = []
        self.last = time.monotonic()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request) -> None:
        self.pending[request] = request.url
        self.urls.append(request.url)
        self.last = time.monotonic()

    def _ended(self, request) -> None:
        self.pending.pop(request, None)
        self.last = time.monotonic()

    def wait_quiet(self, page, quiet_ms: int = 500, timeout_ms: int = TIMEOUT_MS) -> None:
        """Return once no request of ``page`` has been open for ``quiet_ms``; fail naming the
        open ones after ``timeout_ms``. Events reach Python while Playwright waits, so the
        loop polls with ``page.wait_for_timeout``: a wait for a condition, not a fixed sleep."""
        deadline = time.monotonic() + timeout_ms / 1000
        while self.pending or time.monotonic() - self.last < quiet_ms / 1000:
            if time.monotonic() > deadline:
                open_ = sorted(self.pending.values())
                raise AssertionError(f"{page.url}: requests open after {timeout_ms} ms: {open_}")
            page.wait_for_timeout(50)


def watch(page) -> PageLog:
    """Record console errors, page errors and failed requests of ``page``."""
    log = PageLog()
    log.requests = Requests(page)
    page._mha_log = log
    page.on(
        "console",
        lambda m: (
            log.console_errors.append(f"{m.text} ({m.location.get('url')})")
            if m.type == "error"
            else None
        ),
    )
    page.on("pageerror", lambda e: log.page_errors.append(str(e)))

    def failed(req):
        if urlsplit(req.url).hostname == "127.0.0.1":  # external ones are logged by guard
            log.failed_requests.append(f"{req.url}: {req.failure}")

    page.on("requestfailed", failed)
    page.on(
        "response",
        lambda r: (
            log.failed_requests.append(f"{r.url}: HTTP {r.status}") if r.status >= 400 else None
        ),
    )
    return log


# JavaScript run in the page ---------------------------------------------------------------

# Resolves when every widget view script has been rendered by the site's anywidget host (if
# the page has widgets).
SETTLE_JS = """
async (timeoutMs) => {
  const t0 = performance.now();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const views = () => document.querySelectorAll(
      'script[type="application/vnd.jupyter.widget-view+json"]');
  // The live widget drawn by the anywidget host, and the static first view it replaces
  // (book/_ext/static_widgets.py) gone.
  const rendered = () => Array.from(views()).every((s) => {
    const sub = s.previousElementSibling;
    return sub && sub.classList.contains('widget-subarea')
        && !sub.classList.contains('mha-static-widget') && sub.childElementCount > 0;
  }) && !document.querySelector('.mha-static-widget');
  while (views().length && !rendered()) {
    if (performance.now() - t0 > timeoutMs) return 'widgets did not render';
    await sleep(25);
  }
  return 'ok';
}
"""

# The data-* attributes and number cells of every visible .mha-view (inside ``root``).
VISIBLE_VIEWS_JS = """
(root) => {
  root = root || document;
  const out = [];
  for (const v of root.querySelectorAll('.mha-view')) {
    if (!v.checkVisibility()) continue;
    const attrs = {};  // data-* attributes, names without "data-"
    for (const a of v.attributes) if (a.name.startsWith('data-')) attrs[a.name.slice(5)] = a.value;
    const cells = [];
    v.querySelectorAll('[data-value]').forEach((c, i) => {
      cells.push({key: c.dataset.key || c.dataset.cell || String(i), value: c.dataset.value});
    });
    out.push({attrs, cells});
  }
  return out;
}
"""


# The visible views' attributes and numbers as one string; whether they differ from ``before``
# (such a string): to wait until a control's move has redrawn the views.
VIEWS_SIGNATURE_JS = (
    "() => JSON.stringify((" + VISIBLE_VIEWS_JS + ")(null).map((v) => [v.attrs, v.cells]))"
)
VIEWS_CHANGED_JS = (
    "(before) => JSON.stringify(("
    + VISIBLE_VIEWS_JS
    + ")(null).map((v) => [v.attrs, v.cells])) !== before"
)


# Resolves once the page's fonts have loaded, MathJax has started where a page runs it (not
# the book's pages, typeset at build time; JupyterLab's, test_plain_lab) and two frames were
# drawn.
PAINTED_JS = """
async () => {
  await document.fonts.ready;
  if (window.MathJax && window.MathJax.startup) await window.MathJax.startup.promise;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return null;
}
"""


def press(page, locator, key: str, timeout_ms: int = 15_000) -> None:
    """Focus ``locator`` and press ``key``; wait until the visible views' numbers or
    attributes change (:data:`VIEWS_CHANGED_JS`)."""
    before = page.evaluate(VIEWS_SIGNATURE_JS)
    locator.focus()
    page.keyboard.press(key)
    page.wait_for_function(VIEWS_CHANGED_JS, arg=before, timeout=timeout_ms, polling="raf")


def link_becomes(page, want: str, prefix: bool = False, timeout_ms: int = 5_000) -> None:
    """Wait until the page's URL fragment is ``want`` (starts with it, if ``prefix``): a view
    writes its permalink once the reader pauses (view_link.mjs's LINK_DELAY_MS)."""
    test = "h.startsWith(want)" if prefix else "h === want"
    try:
        page.wait_for_function(
            f"(want) => {{ const h = location.hash; return {test}; }}", arg=want, timeout=timeout_ms
        )
    except Exception as e:  # playwright's timeout: say what the fragment was
        got = page.evaluate("() => location.hash")
        raise AssertionError(f"URL fragment {got!r}, expected {want!r}") from e


def link_stays(page, want: str, delay_ms: int = 150) -> None:
    """Assert that the URL fragment is ``want`` and still is after twice the time a view
    waits before writing its permalink (view_link.mjs's LINK_DELAY_MS, ``delay_ms``)."""
    page.wait_for_timeout(2 * delay_ms)
    got = page.evaluate("() => location.hash")
    assert got == want, f"URL fragment {got!r}, expected {want!r}"


def live_view(page, selector: str, key: str, value: str, timeout_ms: int = 30_000) -> None:
    """Wait until the view at ``selector`` is the live one (its module has run: not the static
    first copy drawn at build time) and its ``data-<key>`` is ``value``."""
    page.wait_for_function(
        "([sel, key, value]) => { const v = document.querySelector(sel);"
        " return !!v && !v.closest('.mha-static-widget') && v.dataset[key] === value; }",
        arg=[selector, key, value],
        timeout=timeout_ms,
    )


def painted(page) -> None:
    """Wait until ``page`` is drawn as it will stay (:data:`PAINTED_JS`): before a picture."""
    page.evaluate(PAINTED_JS)


def box_in_view(locator, frames: int = 60) -> dict:
    """Scroll ``locator`` to the middle of the window; return its bounding box once it stays
    put from one painted frame to the next (fonts and live views that arrive late can still
    move what is below them)."""
    to_view = "(e) => e.scrollIntoView({block: 'center'})"
    locator.evaluate(to_view)
    box = locator.bounding_box()
    for _ in range(frames):
        painted(locator.page)
        locator.evaluate(to_view)
        again = locator.bounding_box()
        if again == box:
            return box
        box = again
    raise AssertionError(f"{locator} kept moving for {frames} frames")


def settle(page, timeout_ms: int = TIMEOUT_MS) -> None:
    state = page.evaluate(SETTLE_JS, timeout_ms)
    if state != "ok":
        raise AssertionError(f"{page.url}: {state} within {timeout_ms} ms")


def visible_views(page, root=None) -> list[dict]:
    return page.evaluate(VISIBLE_VIEWS_JS, root)
