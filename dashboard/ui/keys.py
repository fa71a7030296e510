"""Keyboard shortcuts for the labelling pages: one small listener on the page's document.

`st.iframe` runs an HTML string in a same-origin iframe, so its script can listen on the
app's document (`window.parent.document`). It is installed once per browser tab; each run
replaces the key map. A key clicks the element it is bound to, found by the Streamlit key's
CSS class (`st-key-<key>`, a prefix: the labelling widgets' keys carry the answer's id;
the one not marked stale while a run redraws the page): a button (`click`), or the radio
option whose text is the key (`pick`). Keys typed into a text box are left alone. Enter is
bound as the others are (a `click` on the Save button); the listener hears keys in the
capture phase, before Streamlit's own handlers can keep them from the document.

A form of several questions (a campaign's rubrics, its pass/fail checks, its tags, a comment)
gives the listener its `questions` in order: a digit answers the question in focus (picks the
option of that text, or ticks the tag of that number), Tab and Shift+Tab move the focus (on to
the comment box, where typing goes; Tab leaves it, Enter in it saves), and the question in
focus is outlined. A new form (another `form` token) starts on the first question.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import streamlit as st

# Runs in the app's own document (a script element added to it), not in the iframe: Streamlit
# may remount the iframe, and a listener made in a removed iframe's realm never runs again.
_LISTENER = """
// While a run redraws the page, the old answer's widgets may stay beside the new ones,
// marked stale: a key goes to the one that is not.
const __jbBox = (key) => {
  const boxes = Array.from(document.querySelectorAll(`[class*="st-key-${key}"]`));
  return boxes.find((b) => !b.closest('[data-stale="true"]')) || boxes[0];
};
const __jbQuestionOf = (element) => {
  const questions = (window.__jbQuestions || {}).list || [];
  if (!element || !element.closest) return -1;
  return questions.findIndex((q) => element.closest(`[class*="st-key-${q.key}"]`));
};
window.__jbPaint = () => {
  let style = document.getElementById("jb-question-focus");
  if (!style) {
    style = document.createElement("style");
    style.id = "jb-question-focus";
    document.head.appendChild(style);
  }
  const questions = (window.__jbQuestions || {}).list || [];
  const at = questions[window.__jbFocus || 0];
  style.textContent = questions.length > 1 && at
    ? `[class*="st-key-${at.key}"] { outline: 2px solid #ff4b4b; outline-offset: 4px; }`
    : "";
};
// A click (or a focus) on a question moves the keys' focus there.
window.addEventListener("focusin", (event) => {
  const at = __jbQuestionOf(event.target);
  if (at >= 0 && at !== window.__jbFocus) {
    window.__jbFocus = at;
    window.__jbPaint();
  }
}, true);
window.__jbPaint();
window.addEventListener("keydown", (event) => {
  const target = event.target;
  // Enter in the sidebar's name box saves the name and leaves the box, so that the digit
  // typed next rates the answer instead of joining the name ("carol4").
  if (event.key === "Enter" && target && target.closest &&
      target.closest('[class*="st-key-jb_annotator"]')) {
    setTimeout(() => target.blur(), 0);
    return;
  }
  let typing = target && (target.tagName === "TEXTAREA" || target.isContentEditable ||
    (target.tagName === "INPUT" && !["radio", "checkbox"].includes(target.type)));
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const questions = (window.__jbQuestions || {}).list || [];
  // Only while the form is on the page: another page keeps the last page's map until it
  // listens itself, and its Tab and digits must stay its own.
  if (questions.length && __jbBox(questions[0].key)) {
    const at = __jbQuestionOf(target);
    const inText = typing && at >= 0 && questions[at].kind === "text";
    if (event.key === "Tab" && (at >= 0 || !typing && target === document.body)) {
      event.preventDefault();
      event.stopPropagation();
      if (inText) target.blur();
      const n = questions.length;
      window.__jbFocus = ((window.__jbFocus || 0) + (event.shiftKey ? n - 1 : 1)) % n;
      const next = questions[window.__jbFocus];
      const box = __jbBox(next.key);
      if (next.kind === "text" && box && box.querySelector("input")) {
        box.querySelector("input").focus();
      }
      window.__jbPaint();
      return;
    }
    if (event.key === "Enter" && inText) {
      event.preventDefault();
      event.stopPropagation();
      target.blur();  // commits the comment to the form before the save below
      typing = false;
    } else if (!typing && /^[0-9]$/.test(event.key)) {
      const question = questions[window.__jbFocus || 0] || questions[0];
      const box = __jbBox(question.key);
      let element = null;
      if (box && question.kind === "pick") {
        element = Array.from(box.querySelectorAll("label"))
          .find((l) => l.innerText.trim().split(" ")[0] === event.key);
      } else if (box && question.kind === "tick") {
        element = box.querySelectorAll('input[type="checkbox"]')[Number(event.key) - 1];
      }
      if (element && !element.disabled) {
        event.preventDefault();
        element.click();
      }
      return;
    }
  }
  if (typing) return;
  const name = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const bound = (window.__jbKeys || {})[name];
  if (!bound) return;
  const box = __jbBox(bound.key);
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
const questions = host.JSON.parse(%(questions)s);
if (!host.__jbQuestions || host.__jbQuestions.form !== questions.form) host.__jbFocus = 0;
host.__jbQuestions = questions;
if (host.__jbPaint) host.__jbPaint();
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


def question(key: str, kind: str) -> dict[str, str]:
    """A question of a form of several, by its Streamlit key (prefix): "pick" (a radio: a
    digit picks the option whose text starts with it), "tick" (checkboxes: a digit ticks the
    one of that number) or "text" (a box that Tab enters and leaves)."""
    if kind not in ("pick", "tick", "text"):
        raise ValueError(f"unknown question kind {kind!r}")
    return {"key": key, "kind": kind}


def listen(
    bindings: Mapping[str, Mapping[str, str]],
    *,
    questions: Sequence[Mapping[str, str]] = (),
    form: str = "",
) -> None:
    """Install (once) and update the page's key map: key -> `click(...)` or `pick(...)`; with
    `questions` (`question(...)`, in order), digits answer the one in focus and Tab moves on;
    `form` names the form they belong to (a new one starts on the first question)."""
    keys = json.dumps(json.dumps(dict(bindings)))  # a JS string literal, parsed in the app
    asked = json.dumps(json.dumps({"form": form, "list": [dict(q) for q in questions]}))
    script = _SCRIPT % {"keys": keys, "questions": asked, "listener": json.dumps(_LISTENER)}
    st.iframe(script, height=1)
