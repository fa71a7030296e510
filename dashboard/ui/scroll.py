"""Bring a part of the page into view: an answer's detail opened under a long table would
otherwise be drawn below the window, with nothing visibly changed where the person looks.

As `keys` does, a same-origin `st.iframe` runs a script on the app's document; it waits for
the element (found by its Streamlit key's CSS class) to be drawn, then scrolls it to the top,
again while the page's drawing moves it away, until it stays or the person takes over.
"""

from __future__ import annotations

import json

import streamlit as st

_SCRIPT = """<script>
const selector = %(selector)s;  // %(why)s
const doc = window.parent.document;
const view = window.parent;
// The page may still be drawing (a table above growing, the detail drawn late): bring the
// element into view until it has stayed in one place for half a second (in view, or as near
// as the page lets it come: a sticky header or the page's end can keep it a little off), for
// at most 20 s, and stop as soon as the person scrolls, types or clicks.
let tries = 0, still = 0, stopped = false, last = null;
const events = ["wheel", "touchmove", "keydown", "mousedown", "pointerdown"];
const stop = () => { stopped = true; };
events.forEach((e) => doc.addEventListener(e, stop, true));
const done = () => events.forEach((e) => doc.removeEventListener(e, stop, true));
const bring = () => {
  if (stopped) { done(); return; }
  const found = doc.querySelector(selector);
  if (found) {
    const top = found.getBoundingClientRect().top;
    const moved = last === null || Math.abs(top - last) > 2;
    if (moved && (top < -2 || top > view.innerHeight / 2)) {
      found.scrollIntoView({block: "start"});
      still = 0;
    } else if (++still >= 10) { done(); return; }
    last = found.getBoundingClientRect().top;
  }
  if (tries++ < 400) { setTimeout(bring, 50); } else { done(); }
};
bring();
</script>"""


def into_view(key: str, *, why: str) -> None:
    """Scroll the container of Streamlit key `key` into view once, this run; `why` (say the
    opened answer's id) makes each request a new script, run even if the last was the same."""
    selector = json.dumps(f".st-key-{key}")
    st.iframe(_SCRIPT % {"selector": selector, "why": why.replace("*/", "")}, height=1)
