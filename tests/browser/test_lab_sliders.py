"""In JupyterLab, a slider is announced by its name and by the value it shows.

ipywidgets draws a slider as a noUiSlider handle (role="slider") with no accessible name,
whose aria-valuetext is the handle's position: for a SelectionSlider over (1, 3, 9) showing
3, a screen reader heard "1.00". The book's extension lab/mha-lab-sliders (installed by
lab/install) runs book/_ext/static/mha-slider-names.js in JupyterLab, as the site does: the
handle is labelled by the slider's description and its aria-valuetext follows the readout.
A notebook of one such slider is run in a temporary folder and read in chromium, before
and after an arrow key.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat
import pytest

from tests.browser import harness
from tests.browser.lab import serve_lab

SLIDER = """\
import ipywidgets as widgets
widgets.SelectionSlider(options=[1, 3, 9], value=3, description="heads h")
"""
WAIT_MS = 180_000  # a limit on waiting (never a measure of speed): the machine may be busy
# The handle of the notebook's slider: its accessible name (the text of the element that
# labels it), its aria-valuetext and the readout shown; null until the widget is drawn.
HANDLE_JS = """
() => {
  const handle = document.querySelector('.jp-OutputArea .widget-slider .noUi-handle');
  if (!handle) return null;
  const slider = handle.closest('.widget-slider');
  const by = handle.getAttribute('aria-labelledby');
  const label = by && document.getElementById(by);
  return {name: label ? label.textContent.trim() : null,
          valuetext: handle.getAttribute('aria-valuetext'),
          readout: slider.querySelector('.widget-readout').textContent.trim()};
}
"""


@pytest.mark.usefixtures("site")
def test_a_slider_is_announced_by_name_and_shown_value(playwright) -> None:
    nb = nbformat.v4.new_notebook()
    spec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["kernelspec"] = spec
    nb.cells.append(nbformat.v4.new_code_cell(SLIDER))
    with (
        tempfile.TemporaryDirectory(prefix="mha-sliders-") as folder,
        serve_lab(root=Path(folder)) as lab,
        harness.browser_context(playwright) as ctx,
    ):
        nbformat.write(nb, Path(folder) / "slider.ipynb")
        page = ctx.new_page()
        page.goto(lab.page("lab"))
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started")
        page.evaluate("() => window.jupyterapp.restored.then(() => null)")
        page.evaluate(
            "() => window.jupyterapp.commands.execute('docmanager:open',"
            " {path: 'slider.ipynb', factory: 'Notebook'}).then(() => null)"
        )
        page.wait_for_function(
            "() => { const w = window.jupyterapp.shell.currentWidget;"
            " return w && w.context && w.context.path === 'slider.ipynb'"
            " && w.sessionContext.isReady; }",
            timeout=WAIT_MS,
        )
        page.evaluate(
            "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); return null; }"
        )
        page.wait_for_function(
            f"() => {{ const h = ({HANDLE_JS})(); return h && h.readout === '3'; }}",
            timeout=WAIT_MS,
            polling=200,
        )
        assert page.evaluate(HANDLE_JS) == {"name": "heads h", "valuetext": "3", "readout": "3"}
        page.focus(".jp-OutputArea .widget-slider .noUi-handle")
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            f"() => ({HANDLE_JS})().readout === '9'", timeout=WAIT_MS, polling=200
        )
        assert page.evaluate(HANDLE_JS) == {"name": "heads h", "valuetext": "9", "readout": "9"}
