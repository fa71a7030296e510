"""Steps the page tests share: open a page as a user would, read what it shows."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def open_page(app: AppTest, page: str, *, dataset: str | None = None,
              annotator: str | None = None) -> AppTest:
    """Run the app, pick the sidebar's dataset and annotator, then switch to `page`
    (a path relative to dashboard/app.py) and run it; fail on any exception."""
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
