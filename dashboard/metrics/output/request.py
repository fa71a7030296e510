"""What `judgeboard metrics` and the HTML report are asked for: the options they share, as
one record that the command line builds, the report passes on and `metrics_json.numbers`
computes."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.metrics.corrected import TARGET_HALF_WIDTH
from dashboard.metrics.selection import Selection


@dataclass(frozen=True, kw_only=True)
class MetricsRequest:
    """The numbers of `dataset` (None: every dataset) under `rubric` (None: the ratings of the
    rubric with the most ratings and the verdicts of every rubric), with the panel numbers of
    `panel` (None: the default panel, `metrics.panels`); the standings pooled over people and
    judges too when `pool_raters`; every number again per slice of the items by the field
    `by`; the paired comparisons resampling the item field `cluster` (None: each item, the
    conversation for conversational QA); the random labels needed for a corrected score's
    95% half-width of `target_half_width`; and calibration against every person's label or
    the adjudicated labels (`human_reference`)."""

    dataset: str | None = None
    rubric: str | None = None
    panel: str | None = None
    pool_raters: bool = False
    by: str | None = None
    cluster: str | None = None
    target_half_width: float = TARGET_HALF_WIDTH
    human_reference: str = "all_labels"  # calibration.HUMAN_REFERENCES

    @property
    def selection(self) -> Selection:
        return Selection(self.dataset, self.rubric, panel=self.panel)
