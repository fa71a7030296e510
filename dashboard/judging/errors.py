"""A failed judge call said in one readable line, for the pages and the CLI's summary.

The call's full error text (keys removed) stays in `judge_calls.error` for whoever debugs the
provider; a person sees what went wrong and what to do, never a raw exception: "the server
refused the key (HTTP 401): check the key variable", not "AuthenticationError: litellm.Auth…".
"""

from __future__ import annotations

import re

from dashboard.store import Store
from dashboard.store.errors import DiskFull, StoreError

_GAVE_UP = re.compile(r"\(gave up after (\d+) attempts\)")
_RETRY_AFTER = re.compile(r"\(Retry-After [^)]*\)")
_STATUS = re.compile(r"(?:status[_ ]code[=: ]*|HTTP |Error code: )(\d{3})", re.IGNORECASE)
# LiteLLM's "litellm.XError: XError: OpenAIException - " prefixes, however many.
_PREFIX = re.compile(r"^(?:\s*(?:litellm\.)?\w*(?:Error|Exception)\s*[:-]\s*)+")
MAX_LINE = 200

# (what the text contains, case-insensitive) -> the line; the first match wins.
_KNOWN: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("missing credentials", "api_key client option must be set", "no api key"),
        "no API key: set the judge's key variable, or use hosted_vllm/ for a server "
        "that needs none",
    ),
    (
        ("authenticationerror", "401", "invalid api key", "incorrect api key"),
        "the provider refused the key (HTTP 401): check the judge's key variable",
    ),
    (("permissiondenied", "403"), "the provider refused access (HTTP 403)"),
    (("notfounderror", "404", "does not exist"), "no such model at this endpoint (HTTP 404)"),
    (("ratelimit", "429"), "rate limited by the provider (HTTP 429)"),
    (("timeout", "timed out"), "no answer within the judge's timeout_s"),
    (
        ("connection refused", "connection error", "cannot connect", "apiconnectionerror"),
        "could not reach the server: check api_base and that the server is up",
    ),
    (("malformed completion",), "the server's reply was not a valid completion"),
    (("contextwindowexceeded", "context length"), "the prompt is longer than the model takes"),
    (("badrequest", "400"), "the provider rejected the request (HTTP 400)"),
    (("internalservererror", "500", "502", "503", "504"), "the server failed (HTTP 5xx)"),
)


def error_line(text: str | None) -> str:
    """One readable line for a stored call error (already free of keys)."""
    if not text:
        return "failed (no error text)"
    lowered = text.lower()
    line = next(
        (line for needles, line in _KNOWN if any(n in lowered for n in needles)),
        None,
    )
    if line is None:
        status = _STATUS.search(text)
        first = text.strip().splitlines()[0]
        # The exception's own words without LiteLLM's "litellm.XError: XError:" prefixes.
        first = _PREFIX.sub("", first).strip()
        line = (f"HTTP {status.group(1)}: " if status else "") + (first or "failed")
    if (retry := _RETRY_AFTER.search(text)) is not None:
        line += f" {retry.group(0)}"
    if (gave_up := _GAVE_UP.search(text)) is not None and gave_up.group(1) != "1":
        line += f" (gave up after {gave_up.group(1)} attempts)"
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"


def stopping_fault(
    fault: StoreError | None, store: Store, *, journaled: int, lost: int
) -> StoreError | None:
    """The fault that stopped a judge run on `store` (None: none), saying where its paid
    calls are: `journaled` kept, `lost` not."""
    db_path, journal_dir = store.location, store.spool.directory
    if fault is None:
        return None
    if not isinstance(fault, DiskFull):
        return fault
    where = f"in the database, or in the journal {journal_dir} until there is space"
    if lost:  # only when the disk filled past the journal's reserve
        kept = (
            f" (the judge run stopped: {journaled} paid calls are kept ({where}) "
            f"and are not paid for again; {lost} more could not be kept"
        )
    else:
        kept = (
            f" (the judge run stopped after {journaled} paid calls, all kept: "
            f"{where}; a rerun does not pay for them again"
        )
    return DiskFull(db_path, kept=kept + ")")
