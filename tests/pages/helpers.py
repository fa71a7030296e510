"""Steps the page tests share: open a page as a user would, read what it shows."""

from __future__ import annotations

from collections.abc import Iterator

from streamlit.testing.v1 import AppTest

from dashboard.settings import app_script, pages_dir

# The Streamlit entry script the page tests run, found as `judgeboard serve` finds it.
APP = app_script()
# Every page dashboard/app.py registers, by file name.
PAGES = (
    "overview",
    "failures",
    "annotate",
    "pairwise",
    "campaigns",
    "review",
    "calibration",
    "judge_qa",
    "judge_lab",
    "run_judges",
    "data",
)


def page_path(name: str) -> str:
    """A page's file as `AppTest.switch_page` takes it: relative to the app script, inside the
    package (`settings.pages_dir`), where dashboard/app.py registers it."""
    return (pages_dir() / f"{name}.py").relative_to(APP.parent).as_posix()


def open_page(
    app: AppTest, page: str, *, dataset: str | None = None, annotator: str | None = None
) -> AppTest:
    """Run the app, pick the sidebar's dataset and annotator, then switch to `page`
    (see `page_path`) and run it; fail on any exception."""
    app.run()
    if dataset is not None:
        app.selectbox(key="jb_dataset").set_value(dataset)
    if annotator is not None:
        app.text_input(key="jb_annotator").set_value(annotator)
    app.switch_page(page).run()
    assert not app.exception, app.exception
    return app


def texts(app: AppTest, kind: str) -> list[str]:
    """The values of every element of one kind (e.g. "code", "markdown") on the page."""
    return [element.value for element in getattr(app, kind)]


def markdown_texts(app: AppTest) -> list[str]:
    """Every text of the page that Streamlit renders as Markdown: markdown, captions,
    titles and headers, alerts, and the labels (widgets, expanders, tabs), radio options,
    help and placeholders."""
    kinds = (
        "markdown",
        "caption",
        "title",
        "header",
        "subheader",
        "info",
        "success",
        "warning",
        "error",
        "toast",
    )
    found = [str(e.value) for kind in kinds for e in app.get(kind)]
    for node in _nodes(app):
        proto = getattr(node, "proto", None)
        for field in ("label", "help", "placeholder"):
            value = getattr(proto, field, None)
            if isinstance(value, str) and value:
                found.append(value)
        if getattr(node, "type", None) == "radio":  # radio options are Markdown too
            found.extend(str(o) for o in node.options)
    return found


def _nodes(app: AppTest) -> Iterator[object]:
    """Every element of the page, containers included, depth first."""
    stack = [app._tree]
    while stack:
        node = stack.pop()
        yield node
        children = getattr(node, "children", None) or {}
        stack.extend(children.values())
