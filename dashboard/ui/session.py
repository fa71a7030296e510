"""A session's way to the store: the store shared by every session, the script run's
lifecycle (`page_run`, `begin_run`, `end_run`), cached reads and writes.

Reads go through `cached(...)`, whose cache key includes the database's fingerprint, so a write
from any process (this session, another session, the CLI) shows on the next rerun, and a write
made here (`write(...)`) clears the cache at once. On a large database that another process
keeps changing (a judge run, an import), a read made before shows its result of a moment ago
while it is read again in the background, and the page says so (`ui.earlier`); the next run
shows the new figures.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, TimeoutError as FutureTimeout
from contextlib import contextmanager, nullcontext
from typing import Any, TypeVar, cast

import streamlit as st

from dashboard.judging import Rubric, list_rubrics
from dashboard.review import imported_rubrics
from dashboard.settings import KEEP_WARM_S, resolve_db_path
from dashboard.store import Store, StoreBusy, StoreError, reads
from dashboard.types import DatasetSummary
from dashboard.ui import auth, earlier
from dashboard.ui.text import md_escape

T = TypeVar("T")

# The dashboard never holds the file for long: a short wait, then the page says it is busy.
WAIT_S = 10.0
# A save that cannot get the file at once goes to the journal: the person is told at once
# that it is saved and applied when the file is free.
SPOOL_WAIT_S = 0.1
# While another process holds the file, a run shows what was read last rather than waiting.
FINGERPRINT_WAIT_S = 0.1


# One store per address, shared by every session of the process. A plain dict rather than
# `st.cache_resource`: a page run asks for the store a few dozen times, and each of Streamlit's
# cached calls hashed its arguments and read the function's signature (about 2 % of a save's
# CPU on the Annotate page).
_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()


def get_store() -> Store:
    """The store named by JUDGEBOARD_DB (set by `judgeboard serve`), shared by all sessions."""
    path = str(resolve_db_path())
    store = _STORES.get(path)
    if store is None:
        with _STORES_LOCK:
            store = _STORES.get(path)
            if store is None:
                store = _STORES[path] = Store(
                    path, wait_s=WAIT_S, spool_wait_s=SPOOL_WAIT_S, keep_warm_s=KEEP_WARM_S
                )
    return store


FINGERPRINT_KEY = "jb_fingerprint"
BUSY_KEY = "jb_busy"
WROTE_KEY = "jb_wrote"  # this session wrote during this run: its reads are fresh
EARLIER_KEY = "jb_earlier"  # when the oldest figure of a moment ago on the page was read
LAST_FINGERPRINT_KEY = "jb_last_fingerprint"
RUBRICS_KEY = "jb_rubrics"


@contextmanager
def page_run() -> Iterator[None]:
    """The block of one script run (app.py): the reads it makes that miss the cache share
    one open database, so a page waits for the file at most once, even while a judge run
    merges its results every 1.5 s; a run that reads only cached results opens nothing."""
    with get_store().kept_open():
        try:
            yield
        finally:
            auth.forget_run()  # also when the run stops early (a rerun, st.stop, an error)


def begin_run() -> None:
    """Start of a script run (app.py): the database's fingerprint and the rubric files are
    read again, once."""
    st.session_state.pop(FINGERPRINT_KEY, None)
    st.session_state.pop(BUSY_KEY, None)
    st.session_state.pop(RUBRICS_KEY, None)
    st.session_state.pop(EARLIER_KEY, None)
    auth.remember_for_run()


def end_run() -> None:
    """End of a script run that ran to its end (app.py): reads may again show earlier figures."""
    st.session_state.pop(WROTE_KEY, None)


def _read_version(store: Store, known: tuple | None) -> tuple:
    """The path and row counts; when another process holds the file and this session has
    read them before, the last ones, so that the page shows the cached reads instead of
    waiting (a write made meanwhile waits in the spool; applying it changes the counts)."""
    try:
        # The path is in the key too: two databases with equal row counts still differ.
        return (store.location, *store.fingerprint(wait_s=FINGERPRINT_WAIT_S if known else None))
    except StoreBusy:
        if known is None:
            raise
        st.session_state[BUSY_KEY] = True
        return known


def _version(store: Store) -> tuple:
    """The database's path and fingerprint, read once per script run and after each write."""
    version = st.session_state.get(FINGERPRINT_KEY)
    if version is None or version[0] != store.location:
        last = st.session_state.get(LAST_FINGERPRINT_KEY)
        version = _read_version(store, last if last and last[0] == store.location else None)
        st.session_state[FINGERPRINT_KEY] = st.session_state[LAST_FINGERPRINT_KEY] = version
    return version


@st.cache_data(show_spinner=False, max_entries=256)
def _cached_call(
    _fn: Callable[..., T], name: str, fingerprint: tuple, args: tuple, kwargs: tuple
) -> T:
    return _fn(get_store(), *args, **dict(kwargs))


def cached(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(store, *args, **kwargs)`, cached until the database changes; on a large database
    that changes under the page, the result of a moment ago meanwhile (`ui.earlier`)."""
    store = get_store()
    name = f"{fn.__module__}.{fn.__qualname__}"
    version = _version(store)
    kw = tuple(sorted(kwargs.items()))
    key = earlier.key_of(name, version[0], args, kw) if _large(version) else None
    if (found := _kept(key, version, lambda: fn(store, *args, **kwargs))) is not None:
        return cast(T, found.result())
    # Another process holds the file: a read this session has not made before says so at
    # once (app.py shows the busy line and Retry) rather than after the full wait.
    waits = store.waiting(FINGERPRINT_WAIT_S) if st.session_state.get(BUSY_KEY) else nullcontext()
    read_at = time.time()
    with waits:
        result = _cached_call(fn, name, version, args, kw)
    if key is not None:
        earlier.keep(key, version, result, read_at)
    return result


def _kept(key: Hashable | None, version: tuple, read: Callable[[], Any]) -> earlier.Kept | None:
    """A kept result of the read (`ui.earlier`): of this version; or of an earlier one, read
    again in the background meanwhile (noted for the page). None: read it now."""
    found = earlier.kept(key) if key is not None and not st.session_state.get(WROTE_KEY) else None
    if found is not None and found.version != version:
        earlier.refresh(key, version, read, _background()[0])
        shown = st.session_state.get(EARLIER_KEY)
        st.session_state[EARLIER_KEY] = min(shown or found.read_at, found.read_at)
    return found


def _large(version: tuple) -> bool:
    return reads.Fingerprint(*version[1:]).n_responses >= LARGE_DATABASE


def earlier_note() -> str | None:
    """What the page says when some of its figures are of a moment ago (app.py shows it)."""
    shown = st.session_state.pop(EARLIER_KEY, None)
    if shown is None:
        return None
    at = time.strftime("%H:%M:%S", time.localtime(shown))
    return (
        f"Some figures are as of {at}: the database is changing (a judge run or an import is "
        "writing to it); they are being read again, and a later run of the page (any click) "
        "shows the new ones."
    )


def cached_recent(fn: Callable[..., T], *args: Any, every_s: float = 60.0, **kwargs: Any) -> T:
    """`fn(store, *args, **kwargs)`, read again at most every `every_s` seconds rather than
    after every write: for a slow summary beside a page where people write often (a save on
    Annotate must not wait for the corrected estimates of a million responses)."""
    store = get_store()
    name = f"{fn.__module__}.{fn.__qualname__}"
    bucket = (store.location, "every", every_s, int(time.time() // every_s))
    waits = store.waiting(FINGERPRINT_WAIT_S) if st.session_state.get(BUSY_KEY) else nullcontext()
    with waits:
        return _cached_call(fn, name, bucket, args, tuple(sorted(kwargs.items())))


@st.cache_resource(show_spinner=False)
def _background() -> tuple[ThreadPoolExecutor, OrderedDict[tuple, Future], dict[tuple, Any]]:
    """One worker thread for slow reads, shared by every session; their results by key (the
    newest 32); and, for reads that may be a little old (`every_s`), the last one finished."""
    return ThreadPoolExecutor(1, thread_name_prefix="judgeboard-read"), OrderedDict(), {}


# From this many responses on, a slow summary is read in the background (`soon`).
LARGE_DATABASE = 100_000


def soon(
    fn: Callable[..., T],
    *args: Any,
    wait_s: float = 1.0,
    every_s: float | None = None,
    **kwargs: Any,
) -> T | None:
    """`fn(store, *args, **kwargs)` as `cached` gives it (with `every_s`: as `cached_recent`
    does); on a database of `LARGE_DATABASE` responses or more, read in a background thread:
    None while it is still being read after `wait_s` seconds, so that the rest of the page
    shows at once (`poll_until_ready` shows a line and runs the page again when it is done).
    With `every_s`, the last result read stands in meanwhile; without, a result of an earlier
    fingerprint does, as in `cached`. Its fault, if any, is raised here, as `cached` would
    raise it."""
    store = get_store()
    version = _version(store)
    if reads.Fingerprint(*version[1:]).n_responses < LARGE_DATABASE:  # quick: no thread
        if every_s is not None:
            return cached_recent(fn, *args, every_s=every_s, **kwargs)
        return cached(fn, *args, **kwargs)
    call = (f"{fn.__module__}.{fn.__qualname__}", args, tuple(sorted(kwargs.items())))
    kept_key = earlier.key_of(call[0], version[0], *call[1:]) if every_s is None else None
    if (kept := _kept(kept_key, version, lambda: fn(store, *args, **kwargs))) is not None:
        return cast(T, kept.result())
    stamp = version if every_s is None else (version[0], int(time.time() // every_s))
    read_at = time.time()
    pool, futures, last = _background()
    key = (*call, stamp)
    found = futures.get(key)
    if found is None:
        found = futures[key] = pool.submit(fn, store, *args, **kwargs)
        while len(futures) > 32:
            futures.popitem(last=False)
    try:
        result = found.result(timeout=wait_s)
    except FutureTimeout:
        return last.get((*call, version[0])) if every_s is not None else None
    except BaseException:
        futures.pop(key, None)  # a later run tries again
        raise
    if every_s is not None:
        last[(*call, version[0])] = result
    elif kept_key is not None:
        earlier.keep(kept_key, version, result, read_at)
    return result


def poll_until_ready(ready: Callable[[], bool], message: str, *, every_s: float = 1.0) -> None:
    """While a `soon` read is still running: `message`, and the page runs again once
    `ready()` says it is done."""

    @st.fragment(run_every=every_s)
    def waiting() -> None:
        if ready():
            st.rerun()
        st.info(message)

    waiting()


def write(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(store, *args, **kwargs)` for a write; the next reads see it (`after_write`). A
    result with `pending` True waits in the journal and shows once it is applied."""
    result = fn(get_store(), *args, **kwargs)
    after_write(pending=bool(getattr(result, "pending", False)))
    return result


def show_fault(error: StoreError) -> None:
    """A fault of the disk, the database file or its journal, as its one line (app.py shows
    it in place of the page)."""
    if isinstance(error, StoreBusy):
        st.warning(md_escape(error))
        st.button("Retry")
        _retry_when_free()
    else:
        st.error(md_escape(error))


@st.fragment(run_every=1.0)
def _retry_when_free() -> None:
    """While another process holds the file: every second, look whether it is free, and run
    the page again once it is (a save kept in the journal meanwhile is then applied)."""
    try:
        get_store().fingerprint(wait_s=FINGERPRINT_WAIT_S)
    except StoreError:  # still held (or another fault, whose line is on the page)
        return
    st.rerun()


def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(store, *args, **kwargs)`, not cached: work a page asks for once (a plan)."""
    return fn(get_store(), *args, **kwargs)


def after_write(*, pending: bool = False) -> None:
    """Read the fingerprint again once this session has written: the write changed it, so
    every cached read misses and is recomputed (other sessions see it on their next run). A
    write kept in the spool (`pending`) changed nothing yet: the counts change when it is
    applied, and that alone refreshes the reads, while the cached ones keep the page usable
    as the file is busy."""
    if not pending:
        st.session_state.pop(FINGERPRINT_KEY, None)
    st.session_state.pop(BUSY_KEY, None)
    st.session_state[WROTE_KEY] = True  # until the run ends (`end_run`)


def dataset_names() -> list[str]:
    """The datasets' names, for the pickers (cached until the database changes)."""
    return cached(Store.dataset_names)


def dataset_systems(dataset: str | None) -> list[str]:
    """The systems that answered in the dataset (None: in any dataset)."""
    return cached(Store.dataset_systems, dataset)


def dataset_summaries() -> list[DatasetSummary]:
    """Every dataset with its counts (the Data page)."""
    return cached(Store.list_datasets)


def delete_dataset(name: str) -> None:
    """Delete a dataset and everything of it; the next reads see it gone."""
    get_store().delete_dataset(name, actor=auth.current_user())
    after_write()


def rubrics() -> list[Rubric]:
    """The rubric files, read once per script run (several pickers use them)."""
    found = st.session_state.get(RUBRICS_KEY)
    if found is None:
        found = st.session_state[RUBRICS_KEY] = list_rubrics()
    return found


def labelling_rubrics() -> tuple[Rubric, ...]:
    """The rating rubrics people label on: the rubric files', then the imported scorers' that
    no file defines (`review.imported_rubrics`), each with the scale of its ratings."""
    files = rubrics()
    found = cached(imported_rubrics.imported_scales, known=tuple(r.name for r in files))
    return imported_rubrics.labelling_rubrics(files, found)
