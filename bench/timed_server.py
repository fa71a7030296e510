"""The dashboard's server with the server's part of each script run written down (benchmarks).

    python -m bench.timed_server TIMINGS run dashboard/app.py --server.port ...

is `python -m streamlit run dashboard/app.py ...` (the same arguments) that also appends one
line to TIMINGS for each script run a browser asked for: when the server read the request
(the rerun message of a click, a key or a save), when the run started, and when it queued
the run's end for the browser, all on this machine's monotonic clock (`time.monotonic()`,
which every process here shares), how the run ended (a run stopped for a newer request
counts until the run that follows it ends), and whether the page or only a fragment asked
for it. The browser's own time (sending the click, drawing what arrives) is not in it: the
labelling benchmark sets the two side by side.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple


def install(timings: Path) -> None:
    """Wrap Streamlit's session so that each run a browser asked for is written to `timings`."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.scriptrunner import ScriptRunnerEvent

    lock = threading.Lock()
    asked: dict[str, float] = {}  # session id -> when its pending rerun was read
    kinds: dict[str, str] = {}  # session id -> "page", or "fragment" if only fragments asked
    began: dict[str, float] = {}  # session id -> when the run for it started
    handle_backmsg = AppSession.handle_backmsg
    enqueue = AppSession._enqueue_forward_msg
    on_event = AppSession._on_scriptrunner_event

    def timed_backmsg(self: AppSession, msg: Any) -> None:
        if msg.WhichOneof("type") == "rerun_script":
            kind = "fragment" if msg.rerun_script.fragment_id else "page"
            with lock:
                asked.setdefault(self.id, time.monotonic())
                if kinds.get(self.id) != "page":
                    kinds[self.id] = kind
        handle_backmsg(self, msg)

    def timed_event(self: AppSession, sender: Any, event: Any, *args: Any, **kw: Any) -> None:
        if event == ScriptRunnerEvent.SCRIPT_STARTED:
            with lock:
                if self.id in asked:
                    began.setdefault(self.id, time.monotonic())
        on_event(self, sender, event, *args, **kw)

    def timed_enqueue(self: AppSession, msg: ForwardMsg) -> None:
        enqueue(self, msg)
        if msg.WhichOneof("type") != "script_finished":
            return
        if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            return  # stopped for the next run, which ends this request's wait
        with lock:
            read, started = asked.pop(self.id, None), began.pop(self.id, None)
            kind = kinds.pop(self.id, "page")
        if read is not None:
            status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
            times = f"{read:.6f}\t{started or read:.6f}\t{time.monotonic():.6f}"
            with open(timings, "a", encoding="utf-8") as out:
                out.write(f"{self.id}\t{times}\t{status}\t{kind}\n")

    AppSession.handle_backmsg = timed_backmsg  # type: ignore[method-assign]
    AppSession._enqueue_forward_msg = timed_enqueue  # type: ignore[method-assign]
    AppSession._on_scriptrunner_event = timed_event  # type: ignore[method-assign]


class Run(NamedTuple):
    """One run as the server wrote it; `kind` is "page", or "fragment" for a fragment's own
    run, such as the once-a-second look of a page waiting for the file."""

    session: str
    asked: float  # the request read
    started: float
    ended: float  # the run's end queued
    status: str  # how it ended
    kind: str


def read(timings: Path) -> list[Run]:
    """The runs written so far."""
    if not timings.exists():
        return []
    rows = []
    for line in timings.read_text(encoding="utf-8").splitlines():
        session, asked, started, ended, status, kind = line.split("\t")
        rows.append(Run(session, float(asked), float(started), float(ended), status, kind))
    return rows


def main() -> None:
    from streamlit.web import cli

    timings = Path(sys.argv[1])
    install(timings)
    sys.argv = ["streamlit", *sys.argv[2:]]
    cli.main()


if __name__ == "__main__":
    main()
