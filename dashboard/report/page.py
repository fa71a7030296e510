"""The page around the sections: one self-contained HTML file that makes no network request.

plotly.js is inlined once in <head>. A Content-Security-Policy lets the page run only the
scripts it was built with (each named by its SHA-256), blocks every fetch, and allows only
inline styles and data: images. So even if some text slipped past escaping, a <script> or
an onerror= inside it would not run, and an <img> pointing elsewhere would not load.
"""

from __future__ import annotations

import base64
import hashlib
import re

from dashboard.charts import plotly_js
from dashboard.report.html import esc

_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.DOTALL)

STYLE = """
:root { --ink: #1f2933; --muted: #616e7c; --line: #d9e2ec; --soft: #f5f7fa; --accent: #4C78A8; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       margin: 0; background: #fff; }
header, main, footer { max-width: 1280px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; border-bottom: 1px solid var(--line); }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 8px; }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
.meta { color: var(--muted); font-weight: normal; }
table.grid { border-collapse: collapse; margin: 12px 0 20px; }
table.grid th, table.grid td { border-bottom: 1px solid var(--line); padding: 4px 8px;
                               text-align: left; vertical-align: top; }
table.grid thead th { background: var(--soft); font-weight: 600; }
table.grid caption { text-align: left; font-weight: 600; padding: 4px 0; }
table.wide { width: 100%; }
td.num, span.num { font-variant-numeric: tabular-nums; }
.ci { color: var(--muted); white-space: nowrap; }
.scroll { overflow-x: auto; }
td.na, span.na { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
/* A grid, not a flexbox: plotly sizes a figure when its script runs, while the page is
   still being parsed, so a column's width must not depend on the figures that follow. */
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr));
           gap: 12px; }
.figures.two { grid-template-columns: repeat(2, minmax(0, 1fr)); }
.figure { min-width: 0; }
article.answer { border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px;
                 margin: 12px 0; background: #fff; }
article.answer .label { color: var(--muted); font-size: 12px; text-transform: uppercase;
                        letter-spacing: .04em; margin-top: 6px; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
ul.ratings { margin: 8px 0 0; padding-left: 18px; }
ul.ratings .text { color: var(--muted); }
.note { color: var(--muted); }
footer { color: var(--muted); padding: 24px; border-top: 1px solid var(--line); margin-top: 32px; }
/* On paper a table cannot scroll: it wraps instead (an interval under its value, long
   headers on several lines), in a smaller type, on a landscape page. */
@page { size: A4 landscape; margin: 10mm; }
@media print {
  header, main, footer { max-width: none; padding: 0; }
  nav { display: none; }
  .scroll { overflow: visible; }
  table.grid { width: 100%; table-layout: fixed; font-size: 9px; }
  table.grid th, table.grid td { padding: 2px 3px; overflow-wrap: anywhere; }
  .ci { white-space: normal; display: block; }
  h2 { break-after: avoid; }
  tr, article.answer, .figure { break-inside: avoid; }
}
"""


def _digest(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(scripts: list[str]) -> str:
    """Only these exact scripts run; nothing is fetched; styles inline, images data: only."""
    allowed = " ".join(dict.fromkeys(_digest(s) for s in scripts))
    return (
        "default-src 'none'; "
        f"script-src {allowed}; "
        "style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )


def executable_scripts(body: str) -> list[str]:
    """The bodies of the scripts in `body` a browser would run (not JSON data blocks). The
    body holds only markup this package wrote around escaped text, so this finds exactly the
    scripts it added."""
    return [
        m.group("body")
        for m in _SCRIPT.finditer(body)
        if "application/json" not in m.group("attrs")
    ]


def page(*, title: str, header: str, body: str, footer: str) -> str:
    """The whole document; `header`, `body` and `footer` must already be safe HTML."""
    library = plotly_js()
    policy = content_security_policy([library, *executable_scripts(body)])
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(policy)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n"
        f"<script>{library}</script>\n</head>\n<body>\n"
        f"<header>{header}</header>\n<main>{body}</main>\n<footer>{footer}</footer>\n"
        "</body>\n</html>\n"
    )
