"""A labeller without a browser: Streamlit's own WebSocket protocol, spoken from Python.

The browser's part of a session is small: it opens `/_stcore/stream` (subprotocol
"streamlit"), sends `BackMsg.rerun_script` with the page, the query string and the widget
states it changed, and draws the `ForwardMsg`s that come back until `script_finished`. This
client does the same with the `websockets` package and Streamlit's own protobuf messages
(`streamlit.proto`), and reads from the deltas only what a labeller needs: the widget ids of
the Annotate page's rating form, its alerts, and the open answer (the `item` of the query
string the page writes). Each labeller is its own session with its own identity (the
`annotator` of the query string, as a link with no sign-in gives it) and so its own queue
(with `seed`, in a random order of its own), or its share of a campaign (`campaign`: the
campaign's queue, where a save beyond the campaign's k is refused and the page says so).

    async with AnnotateSession(base_url, "kim", dataset="eo-rag") as session:
        saved = await session.save_and_next("4")   # one round trip, timed

Behind the proxy, `cookie` pins the session to one replica (the proxy hashes it), as a
browser's cookie does.
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

PAGE = "annotate"
RUBRIC = "likert-rag"
SAVED = "Saved your rating"
NOTHING_LEFT = "Nothing left to label here"
REFUSED = "was not saved"  # a campaign refused the label (its k reached, the hold ended)
VALUE_KEY = "annotate_value_"
SAVE_KEY = "annotate_save_"
ROUND_TRIP_TIMEOUT_S = 120.0


class ProtocolError(RuntimeError):
    """The page did not answer as a labeller expects (no form, an exception, no save)."""


@dataclass(frozen=True)
class Save:
    """One save-and-next: the answer saved and the seconds from the message sent to the end
    of the run that drew the next answer."""

    response_id: str
    seconds: float
    waited: bool = False  # the next answer came only after the page had waited (a busy file)
    refused: bool = False  # the campaign refused the label: nothing saved, the next answer shown


@dataclass
class _Run:
    """What one script run drew: widget ids by their key, alerts and exceptions."""

    widgets: dict[str, str] = field(default_factory=dict)  # user key -> widget id
    alerts: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)


def _element_of(msg: ForwardMsg) -> Any | None:
    delta = msg.delta
    if delta.WhichOneof("type") != "new_element":
        return None
    return delta.new_element


def _read(run: _Run, element: Any) -> None:
    kind = element.WhichOneof("type")
    if kind == "alert":
        run.alerts.append(element.alert.body)
    elif kind == "exception":
        run.exceptions.append(f"{element.exception.type}: {element.exception.message}")
    elif kind in ("radio", "button"):
        widget_id = getattr(element, kind).id
        user_key = widget_id.rsplit("-", 1)[-1]  # "$$ID-<hash>-<key>"
        run.widgets[user_key] = widget_id


class AnnotateSession:
    """One labeller's session on the Annotate page (see the module's docstring)."""

    def __init__(
        self,
        base_url: str,
        annotator: str,
        *,
        dataset: str,
        seed: int | None = None,
        cookie: str | None = None,
        campaign: str | None = None,
    ) -> None:
        self.url = base_url.replace("http://", "ws://", 1) + "/_stcore/stream"
        self.cookie = cookie
        query = {"annotator": annotator, "dataset": dataset, "rubric": RUBRIC}
        if seed is not None:  # a queue of its own: random order, this seed
            query |= {"order": "random", "seed": str(seed)}
        if campaign is not None:  # the campaign's queue (the order is the campaign's)
            query["campaign"] = campaign
        self.query_string = urllib.parse.urlencode(query)
        self.page_hash = ""
        self.socket: Any = None
        self.run = _Run()
        self.auto_reruns: dict[str, float] = {}  # fragment id -> seconds between its runs

    async def __aenter__(self) -> AnnotateSession:
        headers = {"Cookie": f"judgeboard_replica={self.cookie}"} if self.cookie else None
        self.socket = await websockets.connect(
            self.url,
            subprotocols=["streamlit"],  # type: ignore[list-item]  # a plain string is valid
            additional_headers=headers,
            max_size=None,
            open_timeout=ROUND_TRIP_TIMEOUT_S,
        )
        await self.rerun([])
        await self._until_drawn(time.perf_counter() + ROUND_TRIP_TIMEOUT_S)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.socket.close()

    @property
    def item(self) -> str | None:
        """The open answer, as the page wrote it in the query string (None: nothing left)."""
        return urllib.parse.parse_qs(self.query_string).get("item", [None])[0]

    async def rerun(self, states: list[Any], *, fragment_id: str = "") -> bool:
        """Send a rerun with `states` (WidgetState messages), of the page or of one fragment
        (as the browser does every `interval` for a fragment that runs by itself); read until
        that run has finished. True if the whole page ran."""
        msg = BackMsg()
        client = msg.rerun_script
        client.query_string = self.query_string
        client.page_script_hash = self.page_hash
        client.page_name = PAGE if not self.page_hash else ""
        client.fragment_id = fragment_id
        client.widget_states.widgets.extend(states)
        await self.socket.send(msg.SerializeToString())
        self.run = _Run()
        whole = await asyncio.wait_for(self._until_finished(), ROUND_TRIP_TIMEOUT_S)
        if self.run.exceptions:
            raise ProtocolError(f"the page raised {self.run.exceptions[0]}")
        return whole

    async def _until_drawn(self, deadline: float) -> bool:
        """Until a run of the whole page has drawn the rating form (or said nothing is
        left): while the page waits (for a busy file, a slow read), run its self-running
        fragments as the browser would. True if it had to wait."""
        waited = False
        while not self._has(VALUE_KEY) and not any(NOTHING_LEFT in a for a in self.run.alerts):
            if not self.auto_reruns or time.perf_counter() > deadline:
                raise ProtocolError(f"no rating form on the page; alerts: {self.run.alerts}")
            waited = True
            fragment, interval = next(iter(self.auto_reruns.items()))
            await asyncio.sleep(interval)
            await self.rerun([], fragment_id=fragment)
        return waited

    def _has(self, prefix: str) -> bool:
        return any(key.startswith(prefix) for key in self.run.widgets)

    async def _until_finished(self) -> bool:
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await self.socket.recv())
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = msg.new_session.page_script_hash or self.page_hash
            elif kind == "navigation":
                self.page_hash = msg.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query_string = msg.page_info_changed.query_string
            elif kind == "delta" and (element := _element_of(msg)) is not None:
                _read(self.run, element)
            elif kind == "auto_rerun":
                self.auto_reruns[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
            elif kind == "script_finished":
                status = msg.script_finished
                if status == ForwardMsg.FINISHED_SUCCESSFULLY:
                    return True
                if status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                    return False
                if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    raise ProtocolError("the page did not compile")

    def _widget(self, prefix: str) -> str:
        found = [wid for key, wid in self.run.widgets.items() if key.startswith(prefix)]
        if len(found) != 1:
            raise ProtocolError(
                f"expected one {prefix}* widget on the page, found {len(found)}; "
                f"alerts: {self.run.alerts}"
            )
        return found[0]

    async def save_and_next(self, value: str) -> Save:
        """Pick the point of the scale shown as `value` (a radio's state is its option's
        text) and submit the form, as Enter does in a browser; the answer saved and the
        round trip's seconds (a label the campaign refused comes back `refused`)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        answer = self.item
        if answer is None:
            raise ProtocolError(f"no answer is open; alerts: {self.run.alerts}")
        picked, submit = WidgetState(), WidgetState()
        picked.id = self._widget(VALUE_KEY)
        picked.string_value = value
        submit.id = self._widget(SAVE_KEY)
        submit.trigger_value = True
        started = time.perf_counter()
        self.auto_reruns.clear()  # the page's run registers its waiting fragments again
        await self.rerun([picked, submit])
        refused = not any(SAVED in alert for alert in self.run.alerts)
        if refused and not any(REFUSED in alert for alert in self.run.alerts):
            raise ProtocolError(f"no save confirmed for {answer}; alerts: {self.run.alerts}")
        waited = await self._until_drawn(started + ROUND_TRIP_TIMEOUT_S)
        return Save(answer, time.perf_counter() - started, waited, refused)
