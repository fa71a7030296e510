"""Query results as named rows (`dashboard.store.rows`): filled by column name, converted by
name, and a window that carries the length of the whole list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import pytest

from dashboard.store import Store
from dashboard.store.rows import Window, fetch, fetch_one, fetch_window, scalar, window_sql

LETTERS = "SELECT * FROM (VALUES ('a', 1, [1, 2]), ('b', 2, [3]), ('c', 3, [])) t(name, n, xs)"


@dataclass(frozen=True)
class Letter:
    name: str
    n: int
    xs: tuple[int, ...] = ()


class Pair(NamedTuple):
    name: str
    n: int


def test_rows_fill_records_by_name_and_convert_by_name(store: Store) -> None:
    with store.connection() as con:
        # The columns come in another order than the fields: names decide, not positions.
        rows = fetch(
            con.execute(f"SELECT xs, n, name FROM ({LETTERS})"), Letter, convert={"xs": tuple}
        )
        assert rows == [Letter("a", 1, (1, 2)), Letter("b", 2, (3,)), Letter("c", 3, ())]
        assert fetch(con.execute(f"SELECT n, name FROM ({LETTERS}) WHERE n = 2"), Pair) == [
            Pair("b", 2)
        ]
        assert fetch_one(con.execute(f"SELECT name, n FROM ({LETTERS}) WHERE n > 5"), Pair) is None
        assert scalar(con.execute(f"SELECT count(*) FROM ({LETTERS})")) == 3


def test_a_query_and_its_record_that_drifted_apart_fail(store: Store) -> None:
    with store.connection() as con:
        with pytest.raises(TypeError, match=r"not fields \['xs'\]"):
            fetch(con.execute(LETTERS), Pair)
        with pytest.raises(TypeError, match=r"not returned \['n'\]"):
            fetch(con.execute(f"SELECT name FROM ({LETTERS})"), Pair)
        with pytest.raises(TypeError, match="cannot convert"):
            fetch(con.execute(f"SELECT name, n FROM ({LETTERS})"), Pair, convert={"xs": tuple})
        with pytest.raises(LookupError):
            scalar(con.execute(f"SELECT n FROM ({LETTERS}) WHERE n > 5"))


def test_a_window_carries_the_total_of_the_whole_list(store: Store) -> None:
    query = window_sql(LETTERS, order="n", columns="name, n")
    with store.connection() as con:
        assert fetch_window(con.execute(query, {"limit": 2, "offset": 1}), Pair) == Window(
            (Pair("b", 2), Pair("c", 3)), 3
        )
        assert fetch_window(con.execute(query, {"limit": 2, "offset": 5}), Pair) == Window((), None)
        with pytest.raises(TypeError, match="no 'total' column"):
            fetch_window(con.execute(f"SELECT name, n FROM ({LETTERS})"), Pair)
