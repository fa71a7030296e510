"""Keyboard shortcuts for the labelling pages: one small listener on the page's document.

`st.iframe` runs an HTML string in a same-origin iframe, so its script can listen on the
app's document (`window.parent.document`). It is installed once per browser tab; each run
replaces the key map. A key clicks the element it is bound to, found by the Streamlit key's
CSS class (`st-key-<key>`, a prefix: the labelling widgets' keys carry the answer's id):
a button (`click`), or the radio option whose text is the key (`pick`). Keys typed into a
text box are left alone (Enter there submits the form, as Streamlit does by itself).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import streamlit as st

_SCRIPT = """<script>
const top = window.parent;
top.__jbKeys = %(keys)s;
if (!top.__jbKeysInstalled) {
  top.__jbKeysInstalled = true;
  top.document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target && (target.tagName === "TEXTAREA" || target.isContentEditable ||
      (target.tagName === "INPUT" && !["radio", "checkbox"].includes(target.type)));
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const bound = top.__jbKeys[event.key.length === 1 ? event.key.toLowerCase() : event.key];
    if (!bound) return;
    const doc = top.document;
    const box = doc.querySelector(`[class*="st-key-${bound.key}"]`);
    if (!box) return;
    let element = null;
    if (bound.pick !== undefined) {
      element = Array.from(box.querySelectorAll("label")).find(
        (label) => label.innerText.trim() === bound.pick);
    } else {
      element = box.querySelector("button");
    }
    if (!element || element.disabled) return;
    event.preventDefault();
    element.click();
  });
}
</script>"""


def click(key: str) -> dict[str, str]:
    """Bind a key to the button with this Streamlit key (prefix)."""
    return {"key": key}


def pick(key: str, option: str) -> dict[str, str]:
    """Bind a key to the option (by its shown text) of the radio with this key (prefix)."""
    return {"key": key, "pick": option}


def listen(bindings: Mapping[str, Mapping[str, str]]) -> None:
    """Install (once) and update the page's key map: key -> `click(...)` or `pick(...)`."""
    st.iframe(_SCRIPT % {"keys": json.dumps(dict(bindings))}, height=1)
