"""The benchmark's protocol client (bench/streamlit_client.py) against a real dashboard: one
labeller without a browser opens the Annotate page over Streamlit's WebSocket, saves two
answers, and each save is exactly one row of that person on the answer that was open."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.streamlit_client import AnnotateSession, Save
from dashboard.store import Store
from tests.browser.support import start_server, stop

PERSON = "protocol-kim"


async def _two_saves(url: str) -> tuple[list[Save], str | None]:
    async with AnnotateSession(url, PERSON, dataset="eo-rag", seed=7) as session:
        saves = [await session.save_and_next("4"), await session.save_and_next("2")]
        return saves, session.item


def test_one_labeller_saves_through_the_protocol(sample_store: Store, tmp_path: Path) -> None:
    process, url = start_server(sample_store.url, tmp_path / "log.txt")
    try:
        saves, still_open = asyncio.run(_two_saves(url))
    finally:
        stop(process)
    with sample_store.connection() as con:
        rows = con.execute(
            "SELECT response_id, value, blind FROM ratings WHERE rater = ? ORDER BY created_utc",
            [PERSON],
        ).fetchall()
    assert rows == [(saves[0].response_id, 4.0, True), (saves[1].response_id, 2.0, True)]
    # save-and-next: each save opened another answer
    assert len({saves[0].response_id, saves[1].response_id, still_open}) == 3
    assert all(save.seconds > 0 for save in saves)
