"""Masking API keys in any text that is stored, logged or shown.

A key reaches error text by several routes: a provider echoes it back ("Incorrect API key
provided: …"), LiteLLM or an HTTP library quotes a header, an exception repeats a URL with a
password in it. Keys come only from the environment (see `panel.py`), so `scrub_secrets` masks
- the value of every environment variable that can hold one: LiteLLM's provider defaults
  (OPENAI_API_KEY, ANTHROPIC_API_KEY, MISTRAL_API_KEY, GROQ_API_KEY, TOGETHERAI_API_KEY,
  AZURE_API_KEY, COHERE_API_KEY, GEMINI_API_KEY, HUGGINGFACE_API_KEY, HF_TOKEN, …) and, more
  generally, any variable whose name ends in KEY, KEY_ID, TOKEN, SECRET, PASSWORD, PASSWD or
  CREDENTIAL(S);
- the value of the variables the caller names, whatever their names: a judge's `api_key_env`
  and the `os.environ/NAME` references of its Router model list (`Judge.key_env_names`);
- whatever is shaped like a key, wherever it came from: bearer tokens, `api_key=…` pairs,
  `sk-…` strings and the password of a URL.

The environment is read on every call, so a key set after start-up is masked too.
"""

from __future__ import annotations

import logging
import os
import re
import traceback
from collections.abc import Iterable

MASK = "***"
# A value this short is no key, and masking it would garble ordinary text ("1", "true").
MIN_SECRET_CHARS = 8
# A variable the caller names explicitly holds a key whatever its length; still, masking a
# 1-3 character value would garble the text more than it protects.
MIN_NAMED_CHARS = 4
_SECRET_NAME = re.compile(
    r"(?:KEY|KEY_ID|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE
)
_SHAPES = (
    re.compile(r"(?i)(bearer\s+)[^\s'\"]+"),
    re.compile(
        r"(?i)((?:api[_-]?key|x-api-key|authorization|token)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s'\",}]+"
    ),
    re.compile(r"\b(sk-[A-Za-z0-9_-]{2})[A-Za-z0-9_-]{6,}"),
    re.compile(r"(://[^/\s:@]+:)[^/\s@]+(?=@)"),  # https://user:password@host
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name is taken to hold a key."""
    return bool(_SECRET_NAME.search(name))


def _secret_values(env_names: Iterable[str]) -> list[str]:
    named = set(env_names)
    values = {
        value
        for name, value in os.environ.items()
        if (name in named and len(value) >= MIN_NAMED_CHARS)
        or (len(value) >= MIN_SECRET_CHARS and is_secret_name(name))
    }
    # Longest first, so that a key containing another key is masked whole.
    return sorted(values, key=len, reverse=True)


def scrub_secrets(text: str, *, env_names: Iterable[str] = ()) -> str:
    """`text` with every key masked as "***": the values of the key variables of the
    environment (see the module docstring), of the variables in `env_names`, and anything
    shaped like a key."""
    for value in _secret_values(env_names):
        text = text.replace(value, MASK)
    for shape in _SHAPES:
        text = shape.sub(lambda m: m.group(1) + MASK, text)
    return text


class SecretFilter(logging.Filter):
    """A logging filter that scrubs a record's message and traceback in place.

    Attached to a library's loggers (LiteLLM's Router logs a failed call's exception, with the
    provider's message, at INFO), it runs before their handlers and before the record
    propagates, so no handler sees the key."""

    def __init__(self, env_names: Iterable[str] = ()) -> None:
        super().__init__()
        self.env_names = tuple(env_names)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed call: a filter must not raise
            message = str(record.msg)
        record.msg = scrub_secrets(message, env_names=self.env_names)
        record.args = ()
        if record.exc_info:
            formatted = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            record.exc_text = scrub_secrets(formatted, env_names=self.env_names)
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = scrub_secrets(record.exc_text, env_names=self.env_names)
        if record.stack_info:
            record.stack_info = scrub_secrets(record.stack_info, env_names=self.env_names)
        return True
