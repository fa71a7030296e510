"""Keyboard shortcuts for the labelling pages: one small listener on the page's document.

`st.iframe` runs an HTML string in a same-origin iframe, so its script can listen on the
app's document (`window.parent.document`). It is installed once per browser tab; each run
replaces the key map. A key clicks the element it is bound to, found by the Streamlit key's
CSS class (`st-key-<key>`, a prefix: the labelling widgets' keys carry the answer's id;
the one not marked stale while a run redraws the page): a button (`click`), or the radio
option whose text is the key (`pick`). Keys typed into a text box are left alone. Enter is
bound as the others are (a `click` on the Save button); the listener hears keys in the
capture phase, before Streamlit's own handlers can keep them from the document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import streamlit as st

# Runs in the app's own document (a script element added to it), not in the iframe: Streamlit
# may remount the iframe, and a listener made in a removed iframe's realm never runs again.
_LISTENER = """
window.addEventListener("keydown", (event) => {
  const target = event.target;
  // Enter in the sidebar's name box saves the name and leaves the box, so that the digit
  // typed next rates the answer instead of joining the name ("carol4").
  if (event.key === "Enter" && target && target.closest &&
      target.closest('[class*="st-key-jb_annotator"]')) {
    setTimeout(() => target.blur(), 0);
    return;
  }
  const typing = target && (target.tagName === "TEXTAREA" || target.isContentEditable ||
    (target.tagName === "INPUT" && !["radio", "checkbox"].includes(target.type)));
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const name = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const bound = (window.__jbKeys || {})[name];
  if (!bound) return;
  // While a run redraws the page, the old answer's widgets may stay beside the new ones,
  // marked stale: the key goes to the one that is not.
  const boxes = Array.from(document.querySelectorAll(`[class*="st-key-${bound.key}"]`));
  const box = boxes.find((b) => !b.closest('[data-stale="true"]')) || boxes[0];
  if (!box) return;
  const element = bound.pick === undefined
    ? box.querySelector("button")
    : Array.from(box.querySelectorAll("label")).find((l) => l.innerText.trim() === bound.pick);
  if (!element || element.disabled) return;
  event.preventDefault();
  element.click();
}, true);
"""
_SCRIPT = """<script>
const host = window.parent;
host.__jbKeys = host.JSON.parse(%(keys)s);
if (!host.__jbKeysInstalled) {
  host.__jbKeysInstalled = true;
  const script = host.document.createElement("script");
  script.textContent = %(listener)s;
  host.document.head.appendChild(script);
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
    keys = json.dumps(json.dumps(dict(bindings)))  # a JS string literal, parsed in the app
    st.iframe(_SCRIPT % {"keys": keys, "listener": json.dumps(_LISTENER)}, height=1)
