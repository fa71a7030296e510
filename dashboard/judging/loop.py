"""One asyncio event loop in a background thread, for a process that is not async itself.

The Streamlit process holds one `BackgroundLoop` in `st.cache_resource` and submits every judge
run to it (`loop.submit(run_plan(store, plan, on_progress=progress))`, polling a
RunProgress): when several sessions each call `asyncio.run`, LiteLLM's logging worker, bound to
the first loop, floods stderr with "bound to a different event loop". The CLI may simply use
`asyncio.run`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class RunProgress:
    """A thread-safe `on_progress` target that another thread polls, and the run's controls.

    `on_progress` runs on the loop's thread, where Streamlit calls are not allowed; the page
    passes a RunProgress instead and redraws `st.progress(progress.fraction)` while the
    future is not done. The runner reports each failed call to `failed` (one readable line)
    as it happens, and checks `cancel_event` between calls (`cancel()` sets it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = 0
        self._total = 0
        self._failures: list[tuple[str, str]] = []
        self.cancel_event = threading.Event()

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            self._done, self._total = done, total

    def failed(self, judge: str, line: str) -> None:
        with self._lock:
            self._failures.append((judge, line))

    @property
    def failures(self) -> list[tuple[str, str]]:
        """(judge, readable error line) of every failed call so far, in order."""
        with self._lock:
            return list(self._failures)

    def cancel(self) -> None:
        self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    @property
    def counts(self) -> tuple[int, int]:
        with self._lock:
            return self._done, self._total

    @property
    def fraction(self) -> float:
        done, total = self.counts
        return done / total if total else 1.0


class BackgroundLoop:
    """A daemon thread running an event loop; thread-safe `submit` and `run`."""

    def __init__(self, *, name: str = "judgeboard-judges") -> None:
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._ready.set)
        self._loop.run_forever()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._loop.is_closed()

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule on the loop; the caller polls or waits on the returned future."""
        if not self.running:
            coroutine.close()
            raise RuntimeError("the background loop is closed")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def run(self, coroutine: Coroutine[Any, Any, T], *, timeout_s: float | None = None) -> T:
        """Run to completion and return the result (or raise its exception)."""
        return self.submit(coroutine).result(timeout=timeout_s)

    def close(self) -> None:
        """Stop the loop after cancelling what still runs on it."""
        if not self.running:
            return

        async def _cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(_cancel_all(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()
