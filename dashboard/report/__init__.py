"""The HTML report: one self-contained file for reviews, built from the same numbers as
`judgeboard metrics --json`.

    request = MetricsRequest(dataset="eo-rag")             # what `judgeboard metrics` takes
    html = build_report(store, request)                    # str
    write_report(store, "report.html", request)            # Path

It holds a summary table with intervals, rating histograms, calibration against people,
pairwise win rates and Bradley–Terry ratings, the worst-rated answers with what the judges
said, and a methods section. It opens offline in any browser: plotly.js is inline, nothing is
fetched, and every piece of text from the data is escaped (see `page.py` for the CSP).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from dashboard.auth.roles import require_admin
from dashboard.auth.users import User
from dashboard.metrics.output import MetricsRequest
from dashboard.metrics.panels import panel_text
from dashboard.partials import clear_stale, partial_path
from dashboard.report import corrected, judge_qa, methods, sections, standings, tags
from dashboard.report.gather import DEFAULT_WORST, ReportData, gather
from dashboard.report.html import esc, json_block, tag
from dashboard.report.page import page
from dashboard.store import Store
from dashboard.store.errors import os_fault

__all__ = ["DEFAULT_WORST", "ReportData", "build_report", "gather", "render", "write_report"]

METRICS_ELEMENT_ID = "judgeboard-metrics"
_NAV = (
    ("summary", "Summary"),
    ("corrected", "Corrected"),
    ("histograms", "Histograms"),
    ("calibration", "Calibration"),
    ("bias", "Judge bias"),
    (judge_qa.CONSISTENCY_ANCHOR, "Self-consistency"),
    ("pairwise", "Pairwise"),
    ("worst", "Worst answers"),
    ("methods", "Methods"),
)


def _nav(data: ReportData) -> tuple[tuple[str, str], ...]:
    found: tuple[tuple[str, str], ...] = _NAV
    if data.metrics.get("notes", {}).get("judge_cards"):  # the section is there only then
        found = (*found[:5], (judge_qa.CARDS_ANCHOR, "Judge cards"), *found[5:])
    if not data.slices:
        return found
    by = (standings.SLICES_ANCHOR, f"By {data.slices[0].slice.field}")
    at = len(found) - 3  # before Pairwise, as the sections come
    return (*found[:at], by, *found[at:])


def _header(data: ReportData) -> str:
    scope = data.selection.dataset or "all datasets"
    rubric = data.selection.rubric or "no rubric"
    verdicts = data.selection.preference_rubric or "every rubric"
    pooled = (
        " (and pooled over people and judges)" if data.metrics["selection"]["pool_raters"] else ""
    )
    meta = (
        f"{scope} · ratings of rubric {rubric} · pairwise verdicts of {verdicts}{pooled} · "
        f"panel {panel_text(data.selection)} · "
        f"{len(data.overview.systems)} systems · generated "
        f"{data.generated_utc:%Y-%m-%d %H:%M} UTC"
    )
    links = "".join(tag("a", esc(label), href=f"#{anchor}") for anchor, label in _nav(data))
    return (
        tag("h1", esc(f"judgeboard report: {scope}"))
        + tag("p", esc(meta), class_="meta")
        + tag("nav", links)
    )


def render(data: ReportData) -> str:
    """The report's HTML for data already gathered."""
    body = "".join(
        part(data)
        for part in (
            sections.summary,
            corrected.corrected,
            sections.histograms,
            sections.calibration,
            judge_qa.bias,
            judge_qa.cards,
            judge_qa.consistency,
            standings.pairwise,
            standings.slices,
            tags.tags,
            sections.worst,
            methods.methods,
        )
    )
    footer = (
        "Built by judgeboard. The numbers in this report are those of "
        "<code>judgeboard metrics --json</code>, which this file also holds, as JSON, "
        f"in the element <code>#{METRICS_ELEMENT_ID}</code>."
    )
    body += json_block(data.metrics, METRICS_ELEMENT_ID)
    return page(
        title=f"judgeboard report: {data.selection.dataset or 'all datasets'}",
        header=_header(data),
        body=body,
        footer=footer,
    )


def build_report(
    store: Store,
    request: MetricsRequest | None = None,
    *,
    worst_n: int = DEFAULT_WORST,
    generated_utc: datetime | None = None,
    actor: User | None = None,
) -> str:
    """The report of the numbers `request` asks for (None: every dataset; a section per
    slice of the items with `by`), with the `worst_n` worst-rated answers. An admin's
    (`actor`): it shows every person's labels."""
    require_admin(actor, "download the report")
    return render(gather(store, request, worst_n=worst_n, generated_utc=generated_utc))


def write_report(
    store: Store,
    path: str | os.PathLike[str],
    request: MetricsRequest | None = None,
    *,
    worst_n: int = DEFAULT_WORST,
    generated_utc: datetime | None = None,
) -> Path:
    """Build the report (see `build_report`) and write it to `path` (UTF-8); return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    html = build_report(store, request, worst_n=worst_n, generated_utc=generated_utc)
    clear_stale(target)
    partial = partial_path(target)
    try:
        partial.write_text(html, encoding="utf-8")
        os.replace(partial, target)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise os_fault(OSError(error.errno, error.strerror, str(target))) from error
    return target
