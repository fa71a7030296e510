"""Bring a part of the page into view: an answer's detail opened under a long table would
otherwise be drawn below the window, with nothing visibly changed where the person looks.

As `keys` does, a same-origin `st.iframe` runs a script on the app's document; it waits for
the element (found by its Streamlit key's CSS class) to be drawn, then scrolls it to the top.
"""

from __future__ import annotations

import json

import streamlit as st

_SCRIPT = """<script>
const selector = %(selector)s;  // %(why)s
let tries = 0;
const bring = () => {
  const found = window.parent.document.querySelector(selector);
  if (found) { found.scrollIntoView({block: "start"}); }
  else if (tries++ < 100) { setTimeout(bring, 50); }
};
bring();
</script>"""


def into_view(key: str, *, why: str) -> None:
    """Scroll the container of Streamlit key `key` into view once, this run; `why` (say the
    opened answer's id) makes each request a new script, run even if the last was the same."""
    selector = json.dumps(f".st-key-{key}")
    st.iframe(_SCRIPT % {"selector": selector, "why": why.replace("*/", "")}, height=1)
