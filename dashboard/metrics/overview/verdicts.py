"""A rater's verdict on a pair from the rows of `selection_sql.PREFERENCE_PAIRS`: each row
says, per presentation order, whether the rater judged it and the verdict it gave (None when
it did not parse). `scoring.pairwise.pair_verdict` makes the pair's verdict of them, the one
rule behind win rates, Bradley-Terry and calibration.
"""

from __future__ import annotations

from typing import Protocol

from scoring import pairwise


class JudgedOrders(Protocol):
    """A row of one rater's verdicts on one pair, in each presentation order."""

    @property
    def shown_a_first(self) -> str | None: ...
    @property
    def judged_a_first(self) -> bool: ...
    @property
    def shown_b_first(self) -> str | None: ...
    @property
    def judged_b_first(self) -> bool: ...


def order_states(row: JudgedOrders) -> tuple[str | None, str | None]:
    """(A shown first, B shown first) as `scoring.pairwise` reads them: a verdict, None when
    judged but unparsed, or NOT_JUDGED."""
    return (
        pairwise.order_state(row.shown_a_first, judged=row.judged_a_first),
        pairwise.order_state(row.shown_b_first, judged=row.judged_b_first),
    )


def pair_verdict_of(row: JudgedOrders) -> str | None:
    """The rater's verdict on the pair; None (unscored) when an order it judged did not
    parse, whatever the other order says."""
    return pairwise.pair_verdict(*order_states(row))
