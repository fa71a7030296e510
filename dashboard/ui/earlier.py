"""Reads of a large database that show the figures of a moment ago while it changes.

A judge run merges its results into the file every 1.5 s, and an import writes for minutes.
Each change of the database's fingerprint makes every cached read miss, so on a million
responses every page would read everything again on each run, for seconds, as long as the
run goes on. Here, on a large database, a read made before at an earlier fingerprint gives
that earlier result at once and is read again in the background (one read of each at a
time, in the dashboard's one background thread); the page says its figures are of a moment
ago (`ui.earlier_note`). A read this process has not made yet is made at once, as ever, and
a session that has just written reads fresh (`ui.after_write`): a person's own label always
shows.

Results are kept pickled, as Streamlit's data cache keeps them, so that no two sessions
share one object; the newest `MAX_KEPT` reads are kept.
"""

from __future__ import annotations

import logging
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

MAX_KEPT = 512


@dataclass(frozen=True)
class Kept:
    """A read's result (pickled) at a fingerprint, and when that read began."""

    version: tuple
    pickled: bytes
    read_at: float

    def result(self) -> Any:
        return pickle.loads(self.pickled)


_LOCK = threading.Lock()
_KEPT: OrderedDict[Hashable, Kept] = OrderedDict()
_RUNNING: set[Hashable] = set()


def key_of(name: str, path: str, args: tuple, kwargs: tuple) -> Hashable | None:
    """The read's key across fingerprints; None when its arguments cannot be hashed (such a
    read is simply always made fresh)."""
    key = (name, path, args, kwargs)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def kept(key: Hashable) -> Kept | None:
    with _LOCK:
        found = _KEPT.get(key)
        if found is not None:
            _KEPT.move_to_end(key)
        return found


def keep(key: Hashable, version: tuple, result: Any, read_at: float) -> None:
    """Keep a result read at `version`, unless a read begun later is kept already."""
    try:
        pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an unpicklable result is just not kept
        return
    with _LOCK:
        found = _KEPT.get(key)
        if found is not None and found.read_at > read_at:
            return
        _KEPT[key] = Kept(version, pickled, read_at)
        _KEPT.move_to_end(key)
        while len(_KEPT) > MAX_KEPT:
            _KEPT.popitem(last=False)


def refresh(key: Hashable, version: tuple, read: Callable[[], Any], pool: Executor) -> None:
    """Read again in the background and keep the result, unless that read is under way."""
    with _LOCK:
        if key in _RUNNING:
            return
        _RUNNING.add(key)

    def run() -> None:
        read_at = time.time()
        try:
            keep(key, version, read(), read_at)
        except Exception as error:  # noqa: BLE001 - the earlier result stays; a later run tries again
            log.warning("a background read failed: %s", error)
        finally:
            with _LOCK:
                _RUNNING.discard(key)

    try:
        pool.submit(run)
    except RuntimeError:  # the pool is shut down (the server is stopping)
        with _LOCK:
            _RUNNING.discard(key)


def running() -> int:
    """How many background reads are under way or waiting (for tests and the note)."""
    with _LOCK:
        return len(_RUNNING)


def forget() -> None:
    """Drop every kept result (a test starting cold, as a freshly started server)."""
    with _LOCK:
        _KEPT.clear()
