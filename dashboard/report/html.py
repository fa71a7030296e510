"""Small HTML builders. Every piece of text that comes from data (model answers, questions,
explanations, comments, system, judge and rubric names) goes through `esc`; the only markup
is the literal tags written in this package.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dashboard import charts
from dashboard.metrics.tables import number_text

EMPTY = "—"


def esc(text: object) -> str:
    """Text as inert HTML: <, >, &, " and ' are escaped."""
    return html.escape("" if text is None else str(text), quote=True)


def tag(name: str, body: str = "", **attributes: object) -> str:
    """<name a="v">body</name>; `body` must already be safe HTML. A trailing underscore in
    an attribute name is dropped (class_ -> class), and other underscores become dashes."""
    attrs = "".join(
        f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"'
        for k, v in attributes.items()
        if v is not None
    )
    return f"<{name}{attrs}>{body}</{name}>"


def number(value: float | None, style: str) -> str:
    """A metric's number as the report writes it: scores and differences with 3 decimals."""
    return number_text(value, style, digits=3)


def _parts(entry: Mapping[str, Any] | None, style: str) -> tuple[str, str]:
    """(value, "[low, high]" or "") of one metric as written in the report."""
    if entry is None or entry.get("value") is None:
        return EMPTY, ""
    interval = ""
    if style != "count" and entry.get("low") is not None and entry.get("high") is not None:
        interval = f"[{number(entry['low'], style)}, {number(entry['high'], style)}]"
    return number(entry["value"], style), interval


def metric_text(entry: Mapping[str, Any] | None, style: str) -> str:
    """'0.691 [0.631, 0.744]'; the value alone when there is no interval; a dash for none."""
    value, interval = _parts(entry, style)
    return f"{value} {interval}" if interval else value


def metric_cell(metrics: Mapping[str, Any], name: str, style: str, *, element: str = "td") -> str:
    """A table cell showing one metric of the metrics JSON, tagged with its name and exact
    value so that a reader (or a test) can match the report against `judgeboard metrics`."""
    entry = metrics.get(name)
    if entry is None:
        return tag(element, EMPTY, class_="na")
    value, interval = _parts(entry, style)
    body = esc(value) + (" " + tag("span", esc(interval), class_="ci") if interval else "")
    exact = json.dumps(entry["value"])  # the JSON's own spelling: 40, 0.690625, null
    return tag(element, body, class_="num", data_metric=name, data_value=exact)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    caption: str = "",
    class_: str = "grid",
) -> str:
    """A table; `headers` are plain text, each row's cells are finished <td> elements."""
    head = "".join(tag("th", esc(h), scope="col") for h in headers)
    body = "".join(tag("tr", "".join(cells)) for cells in rows)
    cap = tag("caption", esc(caption)) if caption else ""
    # A wide table scrolls inside its own box instead of widening the page.
    return tag(
        "div",
        tag("table", f"{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody>", class_=class_),
        class_="scroll",
    )


# At a 1400-px window the report's text is 1232 px wide (main's 1280 less its padding); a
# metric's cell needs about 120 px with its interval under its value, a row's name about 90
# (measured in Chromium): nine columns besides the name fit.
COLUMNS_PER_TABLE = 9


def split_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    caption: str = "",
    class_: str = "grid",
    lead: int = 1,
    per_table: int = COLUMNS_PER_TABLE,
) -> str:
    """`table`, as several tables one under the other when it has more than `per_table`
    columns besides its first `lead`: each led by those, the others shared out evenly in
    their order, so that no table scrolls sideways at 1400 px."""
    cells = [list(row) for row in rows]
    rest = len(headers) - lead
    if rest <= per_table:
        return table(headers, cells, caption=caption, class_=class_)
    size = math.ceil(rest / math.ceil(rest / per_table))  # the tables as even as can be
    parts = []
    for start in range(lead, len(headers), size):
        keep = [*range(lead), *range(start, min(start + size, len(headers)))]
        parts.append(
            table(
                [headers[i] for i in keep],
                ([row[i] for i in keep] for row in cells),
                caption=caption if start == lead or not caption else f"{caption} (continued)",
                class_=class_,
            )
        )
    return "".join(parts)


def td(text: object, *, class_: str | None = None) -> str:
    return tag("td", esc(text), class_=class_)


def th_row(text: object) -> str:
    return tag("th", esc(text), scope="row")


def paragraph(text: str, *, class_: str | None = None) -> str:
    return tag("p", esc(text), class_=class_)


def section(anchor: str, title: str, body: str) -> str:
    return tag("section", tag("h2", esc(title)) + body, id=anchor)


def figure(fig: Any, div_id: str) -> str:
    """A plotly figure as a div and its plotting script; plotly.js itself is inlined once by
    the page."""
    return tag("div", charts.figure_div(fig, div_id), class_="figure")


def json_block(data: Any, element_id: str) -> str:
    """Data for machines, inert: a script of type application/json is never run, and < > &
    are escaped so that no text inside can end the element."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'
