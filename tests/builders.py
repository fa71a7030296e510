"""Small hand-built datasets for tests that need exact, hand-checkable numbers."""

from __future__ import annotations

from datetime import datetime, timedelta

from dashboard.ids import content_id
from dashboard.store import Store
from dashboard.types import Item, Preference, Rating, Response

T0 = datetime(2026, 1, 1)


def item(
    dataset: str,
    n: int,
    *,
    task_type: str = "open_qa",
    refs: tuple[str, ...] = ("paris",),
    **fields: object,
) -> Item:
    return Item(content_id(dataset, str(n)), dataset, task_type, f"question {n}?", refs, **fields)


def response(it: Item, system: str, answer: str) -> Response:
    return Response(content_id(it.item_id, system, answer), it.item_id, it.dataset, system, answer)


def rating(
    resp: Response,
    rater: str,
    value: float | None,
    *,
    kind: str = "llm",
    rubric: str = "likert-rag",
    low: float = 1,
    high: float = 5,
    minutes: int = 0,
    **fields: object,
) -> Rating:
    reason = None if value is not None else "no rating marker found"
    return Rating(
        content_id(resp.response_id, kind, rater, rubric, str(value), str(minutes)),
        resp.response_id,
        kind,
        rater,
        rubric,
        "1",
        value,
        low,
        high,
        created_utc=T0 + timedelta(minutes=minutes),
        unscored_reason=reason,
        **fields,
    )


def preference(
    it: Item,
    a: Response,
    b: Response,
    rater: str,
    verdict: str | None,
    *,
    kind: str = "llm",
    shown_first: str = "A",
    minutes: int = 0,
    rubric: str = "pairwise",
) -> Preference:
    reason = None if verdict is not None else "no verdict marker found"
    return Preference(
        content_id(
            a.response_id,
            b.response_id,
            kind,
            rater,
            shown_first,
            str(verdict),
            str(minutes),
            *([rubric] if rubric != "pairwise" else []),  # the ids of older tests stay
        ),
        it.item_id,
        a.response_id,
        b.response_id,
        kind,
        rater,
        rubric,
        "1",
        verdict,
        shown_first,
        created_utc=T0 + timedelta(minutes=minutes),
        unscored_reason=reason,
    )


def two_systems(store: Store) -> dict[str, list]:
    """Three items answered by systems "good" and "bad"; judges j1, j2 and the person ana.

    Ratings on 1-5 (normalized (v - 1) / 4):
        item   good: j1 j2 ana      bad: j1 j2   ana
        0          5  4   5              2  None  1
        1          4  4   -              1  2     -
        2          5  5   4              3  3     3
    """
    items = [item("toy", n) for n in range(3)]
    good = [response(it, "good", f"paris {n}") for n, it in enumerate(items)]
    bad = [response(it, "bad", f"london {n}") for n, it in enumerate(items)]
    store.add_items(items, good + bad)
    table = {
        "good": ([5, 4, 5], [4, 4, 5], [5, None, 4]),
        "bad": ([2, 1, 3], [None, 2, 3], [1, None, 3]),
    }
    ratings = []
    for system, responses in (("good", good), ("bad", bad)):
        j1, j2, ana = table[system]
        for resp, a, b, h in zip(responses, j1, j2, ana):
            ratings += [rating(resp, "j1", a), rating(resp, "j2", b)]
            if h is not None:
                ratings.append(rating(resp, "ana", h, kind="human"))
    store.add_ratings(ratings)
    return {"items": items, "good": good, "bad": bad}


# Text people and models write, with Markdown and bare URLs in it: it must show as typed.
CAMPAIGN_NAME = "**bold** [x](http://127.0.0.1/)"
URL_ANSWER = "Paris, see http://127.0.0.1:9/answer or www.example.org or ana@example.org"
URL_CONTEXT = "Paris is the capital of France, see http://127.0.0.1:9/context and **here**."
URL_DATASET = "links"


def user_text(store: Store) -> None:
    """A dataset whose questions, answers and contexts carry bare URLs and Markdown, and a
    campaign over it named with Markdown (CAMPAIGN_NAME)."""
    from dashboard.campaigns import campaigns
    from dashboard.judging.rubrics import load_rubric

    items = [
        item(
            URL_DATASET,
            n,
            refs=("Paris capital France",),
            reference_context=URL_CONTEXT,
            document=f"http://127.0.0.1:9/d{n}",
        )
        for n in range(2)
    ]
    answers = [
        Response(
            content_id(it.item_id, "sys"), it.item_id, it.dataset, "sys", URL_ANSWER, (URL_CONTEXT,)
        )
        for it in items
    ]
    store.add_items(items, answers)
    campaigns.create_campaign(
        store,
        CAMPAIGN_NAME,
        load_rubric("likert-rag"),
        dataset=URL_DATASET,
        rule="random",
        size=2,
        created_by="ada",
    )
