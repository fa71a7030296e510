"""Fixtures for judge tests: a real DuckDB file, the loopback judge server, real LiteLLM.

Seeded answers carry `<rate=N>` markers, so the scripted judges know the correct rating of
every response and a test can check each stored rating against it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from dashboard.ids import content_id
from dashboard.judging import BackgroundLoop
from dashboard.judging.panel import Judge, Panel
from dashboard.store import Store
from dashboard.types import Item, Response
from tests.support.judge_server import JudgeServer

KEY_ENV = "JUDGEBOARD_TEST_KEY"
# No "sk-" shape: a pattern cannot find it, only knowing which variables hold keys can.
SECRET_KEY = "plain-SECRETKEY-0123456789abcdef"


@dataclass(frozen=True)
class Seeded:
    items: tuple[Item, ...]
    responses: tuple[Response, ...]
    expected: dict[str, float]  # response_id -> the rating its marker encodes

    def system(self, name: str) -> list[Response]:
        return [r for r in self.responses if r.system == name]


def seed(
    store: Store,
    *,
    n_items: int = 10,
    systems: Sequence[str] = ("alpha", "beta"),
    dataset: str = "demo",
    low: int = 1,
    high: int = 5,
) -> Seeded:
    """`n_items` questions answered by every system; ratings cycle through the scale, and the
    systems' ratings differ on each item so that pairs have a winner."""
    items, responses, expected = [], [], {}
    span = high - low + 1
    for i in range(n_items):
        question = f"Question number {i}: what is the value of item {i}?"
        item = Item(
            content_id(dataset, question),
            dataset,
            "open_qa_context",
            question,
            (f"The value of item {i} is {i * 7}.",),
            f"Item {i} has the value {i * 7}.",
        )
        items.append(item)
        for s, system in enumerate(systems):
            rating = low + (i + s) % span
            answer = f"System {system} says item {i} is {i * 7 + s}. <rate={rating}>"
            response = Response(
                content_id(item.item_id, system),
                item.item_id,
                dataset,
                system,
                answer,
                (f"passage about item {i}",),
            )
            responses.append(response)
            expected[response.response_id] = float(rating)
    store.add_items(items, responses)
    return Seeded(tuple(items), tuple(responses), expected)


def judge(name: str, server: JudgeServer, **options: object) -> Judge:
    """A judge on the loopback server, with fast retries and short timeouts for tests."""
    settings: dict[str, object] = {
        "name": name,
        "model": f"openai/{name}",
        "api_base": server.url,
        "api_key_env": KEY_ENV,
        "timeout_s": 2.0,
        "concurrency": 8,
        "max_attempts": 4,
        "retry_base_s": 0.01,
        "retry_max_s": 1.0,
        **options,
    }
    return Judge(**settings)  # type: ignore[arg-type]


def panel(*judges: Judge) -> Panel:
    return Panel("test", tuple(judges))


@pytest.fixture(scope="session")
def server() -> Iterator[JudgeServer]:
    with JudgeServer() as running:
        yield running


@pytest.fixture(scope="session")
def loop() -> Iterator[BackgroundLoop]:
    """One event loop for the whole session, as the Streamlit process has."""
    background = BackgroundLoop(name="test-judges")
    yield background
    background.close()


@pytest.fixture(autouse=True)
def _test_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET_KEY)


@pytest.fixture
def store(tmp_path: object) -> Store:
    return Store(tmp_path / "judge.duckdb", wait_s=20.0)  # type: ignore[operator]


def stored_text(store: Store) -> str:
    """Everything the judge tables hold, as one string to search for a leaked key."""
    with store.connection() as con:
        return "".join(
            str(con.execute(f"SELECT * FROM {table}").fetchall())
            for table in ("judge_calls", "judge_runs", "ratings", "preferences")
        )


def query(store: Store, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The rows of a query as dicts (column name -> value)."""
    with store.connection() as con:
        cursor = con.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]
