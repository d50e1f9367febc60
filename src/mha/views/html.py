"""The views' shared style sheet, :data:`STYLE`: the CSS of every view's HTML.

The views' HTML itself is written by their JavaScript modules (``static/view_html.mjs``
holds the shared pieces: the root element, numbers that tests can read, tables, bars);
:mod:`mha.views.anywidgets` hands this sheet to every widget (its ``view_css`` trait).
"""

STYLE = """<style>
.mha-view{font-family:system-ui,sans-serif;font-size:13px;line-height:1.35;max-width:100%;overflow-x:auto}
.mha-view .mha-heads{display:flex;flex-wrap:wrap;gap:14px}
.mha-view .mha-head{border:1px solid #8888;border-radius:6px;padding:6px 8px}
.mha-view .mha-head h3{margin:0 0 4px 0;font-size:13px}
.mha-view table.mha-heat{border-collapse:collapse;margin-top:6px}
.mha-view table.mha-heat td{width:38px;text-align:center;padding:2px 0}
.mha-view table.mha-heat th{font-weight:normal;padding:1px 4px;font-size:12px}
.mha-view table.mha-heat tr.mha-hl td{outline:2px solid #d55e00;outline-offset:-2px}
.mha-view .mha-bar{display:flex;align-items:center;gap:6px;height:18px}
.mha-view .mha-bar-word{flex:none;min-width:5.5em;text-align:right;white-space:nowrap}
.mha-view .mha-bar-track{display:inline-block;width:120px;height:12px;background:#8883}
.mha-view .mha-bar-fill{display:block;height:12px}
.mha-view .mha-costs td,.mha-view .mha-costs th{padding:1px 8px;text-align:right}
.mha-view .mha-note{margin:4px 0}
</style>"""
