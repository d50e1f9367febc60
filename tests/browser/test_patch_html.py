"""patchHtml (src/mha/views/static/view_html.mjs), which redraws a view on each control step
by changing only what differs, in chromium: the result is the HTML asked for, node for node,
and the nodes that did not change are the same nodes as before (so the browser restyles, lays
out and paints only the rest). Both of its ways: the first patch of a page's nodes (from a
parse) and the later ones (from the tree it keeps), and the fall-back to the first way where
HTML is not as el() writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import harness

MODULE = Path(__file__).parents[2] / "src" / "mha" / "views" / "static" / "view_html.mjs"

# Each case: the HTML before, the HTML after, and the selectors of elements that must be the
# very same nodes after the patch (kept, not rebuilt).
CASES = {
    "a number changes": (
        '<table><tbody><tr><td id="a" data-value="1">1</td><td id="b">2</td></tr></tbody></table>',
        '<table><tbody><tr><td id="a" data-value="3">3</td><td id="b">2</td></tr></tbody></table>',
        ["#a", "#b", "table"],
    ),
    "a table the parser adds a tbody to": (
        '<table><tr><td id="a" data-value="1">1</td><td id="b">2</td></tr></table>',
        '<table><tr><td id="a" data-value="3">3</td><td id="b">2</td></tr></table>',
        ["#a", "#b", "table"],
    ),
    "escaped text and attributes": (
        '<p id="p" title="a &lt; b">x &amp; y</p>',
        '<p id="p" title="&quot;a&quot; &amp; &#x27;b&#x27;">x &lt; y &gt; z</p>',
        ["#p"],
    ),
    "rows come and go in a table": (
        '<table id="t"><tbody id="b"><tr id="r"><td>1</td></tr></tbody></table>',
        '<table id="t"><tbody id="b"><tr id="r"><td>1</td></tr>'
        "<tr><td>2</td><td>3</td></tr></tbody></table>",
        ["#t", "#b", "#r"],
    ),
    "attributes come and go": (
        '<div id="a" class="x" style="width:10px">t</div>',
        '<div id="a" title="new" style="width:20px">t</div>',
        ["#a"],
    ),
    "more children, then fewer": (
        '<ul id="l"><li id="one">1</li></ul>',
        '<ul id="l"><li id="one">1</li><li>2</li><li>3</li></ul>',
        ["#l", "#one"],
    ),
    "fewer children": (
        '<ul id="l"><li id="one">1</li><li>2</li><li>3</li></ul>',
        '<ul id="l"><li id="one">1</li></ul>',
        ["#l", "#one"],
    ),
    "another element in its place": (
        '<div id="k"><span id="s">a</span><b>b</b></div>',
        '<div id="k"><span id="s">a</span><i>b</i></div>',
        ["#k", "#s"],
    ),
    "a form control that differs is replaced": (
        '<p id="p"><input type="checkbox" checked></p>',
        '<p id="p"><input type="checkbox"></p>',
        ["#p"],
    ),
}

# How the page's nodes were made before the patch under test: by innerHTML (so this patch is
# the first: from a parse) or by a first patch (so this one can use the kept tree).
FIRST = {"innerHTML": "host.innerHTML = before;", "patch": "window.patchHtml(host, before);"}
# The way the patch under test must take, for each case made by a first patch: from the tree,
# except where the browser's parser adds a node that the HTML does not have.
WAY = {case: "dom" if "tbody to" in case else "tree" for case in CASES}

PATCH_JS = """([before, after, kept]) => {
  const host = document.createElement('div');
  document.body.replaceChildren(host);
  FIRST
  const nodes = kept.map((s) => host.querySelector(s));
  const input = host.querySelector('input');
  if (input) input.checked = true;  // a reader's click: the property, not the attribute
  const way = window.patchHtml(host, after);
  const fresh = document.createElement('div');
  fresh.innerHTML = after;
  const same = kept.filter((s, i) => host.querySelector(s) === nodes[i]);
  const again = host.querySelector('input');
  return {equal: host.isEqualNode(fresh), html: host.innerHTML, same, way,
          checked: again ? again.checked : null};
}"""


@pytest.fixture(scope="module")
def page(browser):
    with harness.browser_context(browser, viewport={"width": 800, "height": 600}) as ctx:
        page = ctx.new_page()
        page.set_content("<!doctype html><body></body>")
        source = MODULE.read_text(encoding="utf-8")
        page.add_script_tag(content=source + "\nwindow.patchHtml = patchHtml;", type="module")
        page.wait_for_function("() => typeof window.patchHtml === 'function'")
        yield page


@pytest.mark.parametrize("first", FIRST)
@pytest.mark.parametrize("case", CASES)
def test_patch_gives_the_html_and_keeps_what_did_not_change(page, case, first):
    before, after, kept = CASES[case]
    r = page.evaluate(PATCH_JS.replace("FIRST", FIRST[first]), [before, after, kept])
    assert r["way"] == ("dom" if first == "innerHTML" else WAY[case])
    assert r["equal"], r["html"]
    assert r["same"] == kept
    if r["checked"] is not None:  # the replaced control shows what the HTML says
        assert r["checked"] is False


def test_a_node_changed_behind_the_patch_is_not_trusted(page):
    """A view's nodes changed by other code after a patch (the kept tree no longer mirrors
    them at the top): the next patch parses again, and gives the HTML asked for."""
    r = page.evaluate("""() => {
      const host = document.createElement('div');
      document.body.replaceChildren(host);
      window.patchHtml(host, '<b>1</b><i>2</i>');
      host.firstChild.remove();
      const way = window.patchHtml(host, '<b>3</b><i>4</i>');
      return {way, html: host.innerHTML};
    }""")
    assert r == {"way": "dom", "html": "<b>3</b><i>4</i>"}
