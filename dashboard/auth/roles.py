"""What a labeller (and a reviewer) may not do, enforced where the work is done.

Every action that costs money (judge runs, probes, few-shot versions), changes data other
people see (imports, deletions, anchors, a dataset's reference rule, campaigns) or reveals
other people's labels (exports, the HTML report) is an admin's. The function doing it takes
the person asking as `actor` and calls `require_admin` first, so that hiding a button is
never the only guard. A reviewer labels like a labeller and may also adjudicate: see the
labels of an answer a campaign's people disagree on and set its label (`require_reviewer`).
`actor` None is the single-user local mode (no users file) or the command line, run by
whoever holds the database file: both may do everything, as before.
"""

from __future__ import annotations

from dashboard.auth.users import User as User


class RoleError(PermissionError):
    """A labeller asked for an admin's or a reviewer's action; nothing was done."""


def may_administer(actor: User | None) -> bool:
    """True for an admin, and with no sign-in (`actor` None)."""
    return actor is None or actor.is_admin


def require_admin(actor: User | None, what: str) -> None:
    """Refuse `what` (e.g. "run judges") to a signed-in labeller with a RoleError."""
    if actor is not None and not actor.is_admin:
        raise RoleError(
            f"{actor.name} is signed in as a {actor.role}: only an admin may {what}. "
            "Ask an admin, or for the admin role (`judgeboard users role NAME admin`)."
        )


def may_review(actor: User | None) -> bool:
    """True for a reviewer or an admin, and with no sign-in (`actor` None)."""
    return actor is None or actor.is_reviewer


def require_reviewer(actor: User | None, what: str) -> None:
    """Refuse `what` (e.g. "adjudicate") to a signed-in labeller with a RoleError."""
    if actor is not None and not actor.is_reviewer:
        raise RoleError(
            f"{actor.name} is signed in as a {actor.role}: only a reviewer or an admin may "
            f"{what}. Ask an admin for the reviewer role "
            "(`judgeboard users role NAME reviewer`)."
        )
