"""Text from the data on a page, safely: model and user text as plain text, and any name or
message inside Markdown escaped so that nothing in it becomes a link, an image or HTML."""

from __future__ import annotations

import re

import streamlit as st


def show_text(text: str | None, *, label: str | None = None, height: int | None = None) -> None:
    """Model or user text, shown as plain text: never Markdown, never HTML, so an image or a
    link inside an answer loads nothing."""
    if label:
        st.caption(label)
    st.code(text if text else "(empty)", language=None, wrap_lines=True, height=height)


# Markdown (and Streamlit's extensions: :icons:, :color[...], $math$) reads these; a
# backslash makes each one a literal character. < > & become entities, so no HTML tag,
# autolink or entity survives.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~$:@.])")
_LINE_START = re.compile(r"(?m)^(\s*)([-=])")
# A bare URL, www. address or e-mail is made a link after the escapes are resolved (GFM's
# autolink literals match the parsed text), so a backslash does not stop it: an invisible
# WORD JOINER (U+2060) inside "://", after "www" and before "@" does. Seen in Chromium:
# an escaped "http\://127\.0\.0\.1/" in an expander's label still became a link.
_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)(://|www(?=\.)|@)")


def md_escape(text: object) -> str:
    """`text` (a name, a file name, an error message) made safe to put inside a Markdown
    string given to Streamlit (st.caption, st.info, st.error...): it renders as the same
    characters (an invisible word joiner in "://", "www." and before "@"), and nothing in it
    becomes a link, an image, HTML or formatting."""
    joined = _AUTOLINK.sub(lambda m: _join(m.group(1)), str(text))
    escaped = _MD_SPECIAL.sub(r"\\\1", joined)
    escaped = escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), escaped)


def _join(found: str) -> str:
    if found == "://":
        return ":" + _JOINER + "//"
    return _JOINER + found if found == "@" else found + _JOINER
