"""`--replace`: one import per file (its name and content) and dataset. The same file imported
again with another column mapping or --system (its name and content the same, its items or
responses not) is refused, since keeping both would hold the file twice, unless the import
replaces the earlier one."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from dashboard.ingest import imports_sql
from dashboard.ingest.errors import IngestError, Remedy
from dashboard.ingest.plan import FilePlan
from dashboard.store.connection import Connection

_REMEDY = Remedy(
    "pass --replace to replace the earlier import with this one, or --dataset NAME to import "
    "it into another dataset",
    "tick 'Replace an earlier import of this file' to replace it, or type another Dataset",
)


@dataclass(frozen=True)
class Replaced:
    """What replacing earlier imports of a file removed."""

    imports: int = 0
    items: int = 0
    responses: int = 0
    ratings: int = 0
    preferences: int = 0


def file_sha256(plan: FilePlan) -> str:
    with open(plan.path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _mapping_text(plan: FilePlan) -> str:
    """The options that change what a file's records become: --map and --system."""
    system = [f"--system '{plan.system}'"] if plan.system else []
    return " ".join([*(f"--map '{m.spec()}'" for m in plan.mapping.values()), *system])


def _doubled(plan: FilePlan, dataset: str, earlier: imports_sql.EarlierImport) -> IngestError:
    how = f"as {earlier.format}" + (f" with {earlier.mapping}" if earlier.mapping else "")
    options = _mapping_text(plan)
    now = f"as {plan.fmt}" + (f" with {options}" if options else "")
    return IngestError(
        f"this file, the same content, was imported into dataset {dataset!r} on "
        f"{earlier.created_utc:%Y-%m-%d %H:%M} UTC ({how}), giving "
        f"{earlier.items:,} items and {earlier.responses:,} responses; imported now ({now}) it "
        f"gives {earlier.new_items:,} items and {earlier.new_responses:,} responses that import "
        "did not, and keeping both would hold the file twice",
        file=plan.path,
        remedy=_REMEDY,
    )


def _refuse_later_work(plan: FilePlan, work: list[imports_sql.LaterWork]) -> IngestError:
    listed = ", ".join(f"{w.n:,} rows of {w.table}" for w in work)
    return IngestError(
        f"cannot replace the earlier import of this content: since then, people or judges "
        f"added {listed} on the answers it would remove",
        file=plan.path,
        remedy=Remedy(
            "export them first (judgeboard export), or import the file into another dataset "
            "with --dataset NAME",
            "export them first, or type another Dataset",
        ),
    )


def track(con: Connection, plan: FilePlan, datasets: tuple[str, ...]) -> Replaced:
    """After a file's rows are written (its ids in `_file_rows`): refuse it when an earlier
    import of the same content into its datasets gave other items or responses, or with
    `plan.replace` remove that import's rows; then record this import."""
    sha256 = file_sha256(plan)
    names = list(datasets)
    earlier = imports_sql.differing_imports(con, plan.path.name, sha256, names)
    if earlier and not plan.replace:
        raise _doubled(plan, names[0] if len(names) == 1 else ", ".join(names), earlier[0])
    removed = []
    for old in earlier:
        work = imports_sql.later_work(con, old.import_id)
        if work:
            raise _refuse_later_work(plan, work)
        removed.append(imports_sql.remove_import(con, old.import_id))
    if earlier or not imports_sql.same_import_in_force(con, plan.path.name, sha256, names):
        imports_sql.record_import(
            con,
            file_name=plan.path.name,
            sha256=sha256,
            fmt=plan.fmt,
            mapping=_mapping_text(plan),
            datasets=names,
            replaces=[old.import_id for old in earlier] or None,
        )
    return Replaced(
        len(removed),
        sum(r.items for r in removed),
        sum(r.responses for r in removed),
        sum(r.ratings for r in removed),
        sum(r.preferences for r in removed),
    )
