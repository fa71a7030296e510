"""Every figure, built once with plotly for both the dashboard and the report.

Functions take the records of `dashboard.metrics` and `dashboard.calibration` and return a
`plotly.graph_objects.Figure`; pages pass it to `st.plotly_chart`, the report inlines it with
`figure_div` and one copy of `plotly_js()`. This is the only module that imports plotly.
"""

from __future__ import annotations

import html
import math
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache

import plotly.graph_objects as go
import plotly.offline
from plotly.subplots import make_subplots

from dashboard.metrics.calibration import Confusion
from dashboard.metrics.overview import HeadToHead, Histogram, Standing

_LAYOUT = {
    "template": "plotly_white",
    "margin": {"l": 40, "r": 20, "t": 50, "b": 40},
    "font": {"size": 12},
}
PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6", "#9D755D")


def plain(name: str) -> str:
    """A name (a judge's, a system's) as plotly shows it: plotly reads a subset of HTML in
    titles, legends, tick labels and hover labels (<a href>, <b>, <span style>), and %{...}
    as a template in hover texts; with < > & as entities and % as &#37; the name is shown as
    written and nothing in it is markup. Names enter a hover template only as `customdata`."""
    return html.escape(name, quote=False).replace("%", "&#37;")


def _rater_label(h: Histogram) -> str:
    return "people" if h.rater_kind == "human" else h.rater


def rating_histograms(
    histograms: Sequence[Histogram], *, scale: tuple[float, float] | None
) -> go.Figure:
    """One panel per judge and one for people (pooled), bars per system, side by side."""
    panels: dict[str, dict[str, dict[float, int]]] = defaultdict(lambda: defaultdict(dict))
    for h in histograms:
        counts = panels[_rater_label(h)][h.system]
        for value, count in zip(h.values, h.counts):
            counts[value] = counts.get(value, 0) + count
    names = sorted(panels, key=lambda n: (n == "people", n))
    systems = sorted({s for p in panels.values() for s in p})
    fig = make_subplots(
        rows=1,
        cols=max(1, len(names)),
        subplot_titles=[plain(n) for n in names] or ["no ratings"],
        shared_yaxes=True,
    )
    ticks = list(range(int(scale[0]), int(scale[1]) + 1)) if scale else None
    for col, name in enumerate(names, start=1):
        for index, system in enumerate(systems):
            counts = panels[name].get(system, {})
            fig.add_bar(
                x=list(counts),
                y=list(counts.values()),
                name=plain(system),
                marker_color=PALETTE[index % len(PALETTE)],
                legendgroup=plain(system),
                showlegend=col == 1,
                row=1,
                col=col,
                customdata=[[plain(system), plain(name)]] * len(counts),
                hovertemplate="%{customdata[0]}<br>rating %{x}: %{y}"
                "<extra>%{customdata[1]}</extra>",
            )
        fig.update_xaxes(tickvals=ticks, title_text="rating", row=1, col=col)
    fig.update_yaxes(title_text="responses", row=1, col=1)
    fig.update_layout(barmode="group", height=320, legend_title_text="system", **_LAYOUT)
    return fig


def confusion_heatmap(confusion: Confusion, *, judge: str) -> go.Figure:
    """Judge's rating (rows) against the person's (columns); the diagonal is agreement."""
    labels = [f"{v:g}" for v in confusion.labels]
    fig = go.Figure(
        go.Heatmap(
            z=confusion.counts,
            x=labels,
            y=labels,
            colorscale="Blues",
            showscale=False,
            text=confusion.counts,
            texttemplate="%{text}",
            hovertemplate="judge %{y}, person %{x}: %{z}<extra></extra>",
        )
    )
    fig.update_layout(title=f"{plain(judge)} against people", height=300, width=340, **_LAYOUT)
    fig.update_xaxes(title_text="person", type="category")
    fig.update_yaxes(title_text=plain(judge), type="category", autorange="reversed")
    return fig


def _titled(title: str, raters: str | None) -> str:
    return f"{title}: {plain(raters)}" if raters else title


def win_rate_matrix(head_to_head: Sequence[HeadToHead], *, raters: str | None = None) -> go.Figure:
    """Row system's win rate over the column system (a tie counts half); `raters` names
    whose verdicts they are, in the title."""
    systems = sorted({h.system_a for h in head_to_head} | {h.system_b for h in head_to_head})
    lookup = {(h.system_a, h.system_b): h.win_rate for h in head_to_head}
    z = [[lookup[(a, b)].value if (a, b) in lookup else None for b in systems] for a in systems]
    text = [[f"{v:.2f}" if v is not None and not math.isnan(v) else "" for v in row] for row in z]
    # Tick and hover labels are the escaped names (the hover template shows %{x} and %{y}).
    labels = [plain(s) for s in systems]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            zmin=0,
            zmax=1,
            colorscale="RdBu",
            text=text,
            texttemplate="%{text}",
            colorbar={"title": "win rate"},
            hovertemplate="%{y} over %{x}: %{z:.3f}<extra></extra>",
        )
    )
    fig.update_layout(title=_titled("Win rate of row over column", raters), height=340, **_LAYOUT)
    fig.update_yaxes(autorange="reversed")
    return fig


def bradley_terry_ratings(standings: Sequence[Standing], *, raters: str | None = None) -> go.Figure:
    """Elo-scale ratings with their bootstrap intervals, best first; `raters` names whose
    battles they were fitted to, in the title."""
    shown = [s for s in standings if not math.isnan(s.rating)]
    fig = go.Figure(
        go.Scatter(
            x=[s.rating for s in shown],
            y=[plain(s.system) for s in shown],
            mode="markers",
            marker={"size": 10, "color": PALETTE[0]},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [s.high - s.rating for s in shown],
                "arrayminus": [s.rating - s.low for s in shown],
            },
            hovertemplate="%{y}: %{x:.0f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=_titled("Bradley–Terry rating (Elo scale, mean 1000)", raters),
        height=120 + 40 * len(shown),
        **_LAYOUT,
    )
    fig.update_yaxes(autorange="reversed")
    return fig


def figure_div(fig: go.Figure, div_id: str) -> str:
    """A figure as a div and its plotting script, without plotly.js itself. Plotly escapes
    < > / in the figure's JSON, so no name inside it can close the script."""
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config={"displaylogo": False, "responsive": True},
    )


@lru_cache(maxsize=1)
def plotly_js() -> str:
    """plotly.js as shipped with the installed plotly package (about 4.8 MB)."""
    return plotly.offline.get_plotlyjs()
