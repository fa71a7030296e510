"""The sidebar every page shares: the dataset filter and who labels (the signed-in person, or
a name typed in), kept across pages and in the address bar; and what a labeller may not do."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.auth.users import User
from dashboard.ui import auth, links
from dashboard.ui.session import dataset_names

ALL = "All datasets"
DATASET_KEY = "jb_dataset"
ANNOTATOR_KEY = "jb_annotator"
DATASET_LINK = links.Link(DATASET_KEY, links.DATASET_PARAM, default=ALL)
# Without sign-in, the name typed in is in the URL too, so that a reload keeps it.
ANNOTATOR_LINK = links.Link(ANNOTATOR_KEY, "annotator", default="")


@dataclass(frozen=True)
class Filters:
    """What the sidebar holds; it persists across pages. `annotator` is the signed-in
    person's name, or (with no sign-in) the name typed in the sidebar; `signed_in` says which."""

    dataset: str | None
    annotator: str
    signed_in: bool = False


def show_sidebar() -> Filters:
    """Render the dataset filter and who labels; call once per run, from app.py."""
    options = [ALL, *dataset_names()]
    user = auth.current_user()
    # A signed-in person's name is theirs, never the URL's.
    kept = [DATASET_LINK] if user is not None else [DATASET_LINK, ANNOTATOR_LINK]
    links.restore(kept)
    if st.session_state.get(DATASET_KEY) not in options:
        st.session_state[DATASET_KEY] = ALL
    with st.sidebar:
        st.selectbox(
            "Dataset",
            options,
            key=DATASET_KEY,
            help=f"{ALL}: each system's answers pooled across every dataset it answered in "
            "(one row per system, its metrics over all of them).",
        )
        if user is None:
            st.text_input(
                "Annotator",
                key=ANNOTATOR_KEY,
                placeholder="your name, then Enter",
                help="Stored with every rating and vote you give, and kept in the page's "
                "address. Enter (or Tab) leaves the box, so that the next digit rates.",
            )
        auth.show_identity(user)
    links.publish([DATASET_LINK, ANNOTATOR_LINK])
    return filters()


def filters() -> Filters:
    dataset = st.session_state.get(DATASET_KEY, ALL)
    user = auth.current_user()
    return Filters(
        None if dataset in (None, ALL) else dataset,
        user.name if user else (st.session_state.get(ANNOTATOR_KEY) or "").strip(),
        signed_in=user is not None,
    )


def actor() -> User | None:
    """Who asks for the work, for the functions that refuse a labeller (`dashboard.auth.roles`):
    the signed-in person, or None with no sign-in."""
    return auth.current_user()


def labeller_name() -> str | None:
    """The signed-in labeller's name: they see only their own labels where a page lists
    people's (other people's labels are an admin's to see); None for an admin or no sign-in."""
    user = auth.current_user()
    return None if user is None or user.is_admin else user.name


def may_administer(what: str) -> bool:
    """True for an admin, or with no sign-in; otherwise says that a labeller may not do
    `what` (e.g. "import or delete data")."""
    user = auth.current_user()
    if user is None or user.is_admin:
        return True
    st.info(f"Signed in as a {user.role}: only an admin may {what}.")
    return False


def may_review(what: str) -> bool:
    """True for a reviewer or an admin, or with no sign-in; otherwise says that a labeller
    may not do `what` (e.g. "adjudicate")."""
    user = auth.current_user()
    if user is None or user.is_reviewer:
        return True
    st.info(f"Signed in as a {user.role}: only a reviewer or an admin may {what}.")
    return False
