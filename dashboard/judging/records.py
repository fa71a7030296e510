"""Rows the runner and `reparse` write: judge calls, and the ratings or preferences read from
their raw output. Parsing is `scoring.judge`'s; an output it cannot read is stored unscored with
its reason and raw text, never turned into a grade.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.ids import content_id, utc_now
from dashboard.judging.rubrics import Rubric, RubricError
from dashboard.judging.targets import SWAPPED, Target
from dashboard.store.writes import record_row
from dashboard.types import JudgeCall, Preference, Probe, Rating
from scoring.judge import parse_preference, parse_rating_result

EXPLANATION_MAX_CHARS = 4000
_EXPLANATION_LABEL = re.compile(r"(?i)[\"']?explanation[\"']?\s*[:=]\s*[\"']?")
_MARKER_LINE = re.compile(
    r"(?i)^\s*[\"'{]*\s*(?:final\s+)?(?:rating|score|grade|verdict)[\"']?\s*[:=]"
    r"|^\s*\[\[[^\]]*\]\]\s*$"
)


@dataclass(frozen=True)
class Parsed:
    """A rating value or a canonical verdict, or None with the reason it is unscored."""

    value: float | None = None
    verdict: str | None = None
    reason: str | None = None

    @property
    def scored(self) -> bool:
        return self.reason is None


def explanation_of(text: str | None) -> str | None:
    """The judge's reasoning: what follows "Explanation:", without the rating or verdict line."""
    if not text:
        return None
    label = _EXPLANATION_LABEL.search(text)
    body = text[label.end() :] if label else text
    lines = [line for line in body.splitlines() if not _MARKER_LINE.search(line)]
    explanation = "\n".join(lines).strip().strip("\"',{} ").strip()
    return explanation[:EXPLANATION_MAX_CHARS] or None


def scale_of(rubric: Rubric) -> tuple[float, float]:
    """A rating rubric's [low, high]. `rubric_from_toml` never makes a rating rubric without
    one; a Rubric built in code without one is refused here, not given a made-up scale."""
    if rubric.scale_low is None or rubric.scale_high is None:
        raise RubricError(
            f"rubric {rubric.name!r} v{rubric.version} rates answers but has no "
            "scale; give it scale = [low, high]"
        )
    return float(rubric.scale_low), float(rubric.scale_high)


def parse_output(rubric: Rubric, text: str | None, *, shown_first: str | None = None) -> Parsed:
    """Read a rating (on the rubric's scale) or a verdict, mapped from the order shown to the
    canonical order (`shown_first` "B" swaps A and B)."""
    if rubric.is_pairwise:
        found = parse_preference(text)
        if found.verdict is None:
            return Parsed(reason=found.reason or "no verdict")
        verdict = found.verdict if shown_first == "A" else SWAPPED[found.verdict]
        return Parsed(verdict=verdict)
    low, high = scale_of(rubric)
    result = parse_rating_result(text, low=low, high=high)
    if result.value is None:
        return Parsed(reason=result.reason or "no rating")
    return Parsed(value=result.value)


def result_row(
    target: Target,
    parsed: Parsed,
    *,
    rubric: Rubric,
    rater: str,
    call_id: str,
    raw_output: str | None,
    suffix: str = "",
) -> dict[str, Any]:
    """The rating or preference row of one target; its id derives from the call (and
    `suffix` for a reparse), so writing it twice is harmless."""
    explanation = explanation_of(raw_output)
    if target.kind == "rating":
        low, high = scale_of(rubric)
        return record_row(
            Rating(
                rating_id=content_id(call_id, target.response_id, suffix),
                response_id=target.response_id or "",
                rater_kind="llm",
                rater=rater,
                rubric=rubric.name,
                rubric_version=rubric.version,
                value=parsed.value,
                scale_low=low,
                scale_high=high,
                unscored_reason=parsed.reason,
                explanation=explanation,
                raw_output=raw_output,
                call_id=call_id,
                source="judge",
            )
        )
    return record_row(
        Preference(
            preference_id=content_id(
                call_id, target.response_a, target.response_b, target.shown_first, suffix
            ),
            item_id=target.item_id,
            response_a=target.response_a or "",
            response_b=target.response_b or "",
            rater_kind="llm",
            rater=rater,
            rubric=rubric.name,
            rubric_version=rubric.version,
            verdict=parsed.verdict,
            shown_first=target.shown_first or "A",
            unscored_reason=parsed.reason,
            explanation=explanation,
            raw_output=raw_output,
            call_id=call_id,
            source="judge",
        )
    )


def probe_row(kind: str, row: dict[str, Any], *, item_id: str) -> dict[str, Any]:
    """A probe's result: the rating or preference row `result_row` made, kept apart (its
    own id, in `probes`) so that no system metric reads it."""
    result_id = row.get("rating_id") or row.get("preference_id")
    return record_row(
        Probe(
            probe_id=content_id("probe", kind, result_id),
            kind=kind,
            judge=row["rater"],
            rubric=row["rubric"],
            rubric_version=row["rubric_version"],
            item_id=item_id,
            call_id=row["call_id"],
            response_id=row.get("response_id"),
            response_a=row.get("response_a"),
            response_b=row.get("response_b"),
            shown_first=row.get("shown_first"),
            value=row.get("value"),
            verdict=row.get("verdict"),
            unscored_reason=row.get("unscored_reason"),
        )
    )


def call_row(
    *,
    call_id: str,
    cache_key: str,
    run_id: str,
    judge: str,
    model: str,
    rubric: Rubric,
    prompt_hash: str,
    targets: Sequence[Target],
    ok: bool,
    raw_output: str | None,
    error: str | None,
    attempts: int,
    latency_ms: float | None,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    cost_usd: float | None,
    model_version: str | None = None,
    epoch: int = 0,
) -> dict[str, Any]:
    """The judge_calls row of one call; it names its first target (others share the prompt)."""
    first = targets[0]
    return record_row(
        JudgeCall(
            call_id=call_id,
            cache_key=cache_key,
            run_id=run_id,
            judge=judge,
            model=model,
            rubric=rubric.name,
            rubric_version=rubric.version,
            prompt_hash=prompt_hash,
            target_kind=first.kind,
            status="ok" if ok else "failed",
            response_id=first.response_id,
            item_id=first.item_id,
            response_a=first.response_a,
            response_b=first.response_b,
            shown_first=first.shown_first,
            error=error,
            raw_output=raw_output,
            attempts=attempts,
            latency_ms=latency_ms,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=cost_usd,
            created_utc=utc_now(),
            model_version=model_version,
            epoch=epoch,
        )
    )
