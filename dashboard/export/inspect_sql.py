"""The SQL of `judgeboard export --to inspect`: people's current ratings on the responses
imported from one Inspect log (found by the sample uuids kept in each response's metadata)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dashboard.store.connection import Connection
from dashboard.store.rows import fetch


@dataclass(frozen=True)
class PersonLabel:
    """A person's current rating of a response that came from an Inspect sample's epoch."""

    inspect_uuid: str
    rubric: str
    value: float
    scale_low: float
    scale_high: float
    rater: str
    comment: str | None


def person_labels(con: Connection, uuids: Sequence[str]) -> list[PersonLabel]:
    """People's current ratings (with a value) of the responses of these samples, oldest
    first (so that the newest label of a sample's score is its last edit)."""
    return fetch(
        con.execute(
            """
            WITH r AS (
                SELECT response_id,
                       json_extract_string(metadata, '$.inspect_uuid') AS inspect_uuid
                FROM responses
            )
            SELECT r.inspect_uuid, c.rubric, c.value, c.scale_low, c.scale_high, c.rater,
                   c.comment
            FROM current_ratings c
            JOIN r USING (response_id)
            WHERE c.rater_kind = 'human' AND c.value IS NOT NULL
              AND r.inspect_uuid IN (SELECT unnest($uuids::VARCHAR[]))
            ORDER BY c.created_utc, c.rating_id
            """,
            {"uuids": list(uuids)},
        ),
        PersonLabel,
    )
