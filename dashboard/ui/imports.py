"""The Data page's import form: the upload kept for the session, its preview, and a picker per
field of the chosen format (a column, a constant, or nothing; and the values of a fixed-value
field mapped one by one). It builds the same mapping `judgeboard import --map` takes."""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard import ui
from dashboard.ingest import uploads
from dashboard.ingest.mapping import FieldMap
from dashboard.ingest.tools import TOOLS
from dashboard.ingest.uploads import Preview, StagedUpload, TargetField

STAGED_KEY = "jb_upload_staged"  # (file id, StagedUpload, Preview) of the current upload
UPLOADER_KEY = "jb_upload_round"  # bumped after an import, so the uploader empties
PREVIEW_KEY = "jb_upload_preview"  # the preview's container (class st-key-<key>)
NOTHING = "— nothing —"
CONSTANT = "— a constant —"
NOT_MAPPED = "— not mapped —"


def _uploader_key() -> str:
    return f"jb_upload_{st.session_state.get(UPLOADER_KEY, 0)}"


def upload() -> tuple[StagedUpload, Preview] | None:
    """The file uploader; the upload, written to a private folder and previewed once."""
    found = st.file_uploader("File", type=list(uploads.EXTENSIONS), key=_uploader_key())
    kept = st.session_state.get(STAGED_KEY)
    if found is None or (kept and kept[0] != found.file_id):
        if kept:
            uploads.discard(kept[1])
        st.session_state.pop(STAGED_KEY, None)
        kept = None
    if found is None:
        return None
    if kept is None:
        staged = uploads.stage_upload(found.name, found)
        try:
            preview = uploads.preview(staged)
        except uploads.UploadError as error:
            uploads.discard(staged)
            st.error(ui.md_escape(str(error)))
            return None
        kept = st.session_state[STAGED_KEY] = (found.file_id, staged, preview)
    return kept[1], kept[2]


def done() -> None:
    """After an import: forget the upload and empty the uploader."""
    kept = st.session_state.pop(STAGED_KEY, None)
    if kept:
        uploads.discard(kept[1])
    st.session_state[UPLOADER_KEY] = st.session_state.get(UPLOADER_KEY, 0) + 1


def show_preview(staged: StagedUpload, preview: Preview) -> None:
    if preview.tool is not None and preview.counts is not None:
        counts = preview.counts
        st.caption(
            ui.md_escape(
                f"{staged.name}: {preview.tool.title}, read by its reader; a dry run of the "
                f"import: {counts.records:,} records, {counts.items:,} items, "
                f"{counts.responses:,} responses, {counts.ratings:,} ratings; its first "
                f"{len(preview.rows)} records"
            )
        )
    else:
        st.caption(
            ui.md_escape(
                f"{staged.name}: its first {len(preview.rows)} rows and {len(preview.columns)} "
                "columns, as the importer reads them"
            )
        )
    with st.container(key=PREVIEW_KEY):
        st.dataframe(list(preview.rows), hide_index=True, width="stretch")


def system_input(cell: Any, preview: Preview) -> str:
    """The System box: the model for lm-eval samples (their folder's name, which an upload
    loses), none for another tool's file (its systems are in it), else a default."""
    if preview.tool is TOOLS["lm_eval"]:
        return str(
            cell.text_input(
                "System (the model)",
                placeholder="required: the model, e.g. EleutherAI/pythia-160m",
                key="jb_upload_system",
            )
        )
    if preview.tool is not None:
        cell.text_input("System", "from the file", disabled=True, key="jb_upload_system_fixed")
        return ""
    return str(
        cell.text_input("System", placeholder="default: from the file", key="jb_upload_system")
    )


def _values_of(staged: StagedUpload, column: str) -> list[str]:
    cache = st.session_state.setdefault(f"{STAGED_KEY}_values", {})
    key = (str(staged.path), column)
    if key not in cache:
        cache[key] = uploads.column_values(staged, column)
    return cache[key]


def _value_map(staged: StagedUpload, field: TargetField, column: str, key: str) -> FieldMap | None:
    """Each value of the column, mapped to one of the field's values."""
    values = _values_of(staged, column)
    options = [NOT_MAPPED, *field.values, NOTHING]
    chosen: dict[str, str | None] = {}
    unmapped = []
    with st.container(border=True):
        st.caption(ui.md_escape(f"The values of column {column} as {field.name}"))
        if len(values) >= uploads.VALUES_SHOWN:
            st.caption(f"The {uploads.VALUES_SHOWN} most frequent values.")
        for n, raw in enumerate(values):
            default = uploads.default_target(field, raw)
            picked = st.selectbox(
                ui.md_escape(f"{column} = {raw}"),
                options,
                index=options.index(default) if default else 0,
                key=f"{key}_value_{n}",
            )
            if picked == NOT_MAPPED:
                unmapped.append(raw)
            else:
                chosen[raw] = None if picked == NOTHING else picked
    return uploads.value_mapping(field, column, chosen, unmapped=unmapped)


def _picker(
    staged: StagedUpload, preview: Preview, fmt: str, field: TargetField
) -> FieldMap | None:
    """One field's picker; its FieldMap, or None to read the file as it is."""
    columns = list(preview.column_names)
    own = field.name in columns  # read by its own name unless another pick is made
    options = [*columns, CONSTANT] if own else [NOTHING, CONSTANT, *columns]
    key = f"jb_pick_{fmt}_{field.name}"
    label = field.name + (" (required)" if field.required else "")
    picked = st.selectbox(label, options, index=options.index(field.name) if own else 0, key=key)
    if picked == CONSTANT:
        text = st.text_input(f"{field.name}: the constant", key=f"{key}_constant")
        return FieldMap(field.name, constant=text)
    if picked == NOTHING:
        return None
    if field.values:
        found = _value_map(staged, field, picked, key)
        if found is not None:
            return found
    return None if picked == field.name else FieldMap(field.name, source=picked)


def field_pickers(staged: StagedUpload, preview: Preview, fmt: str) -> dict[str, FieldMap]:
    """A picker for each field of the format; the mapping they make."""
    fields = uploads.target_fields(fmt)
    mapping: dict[str, FieldMap] = {}
    required = [f for f in fields if f.required]
    optional = [f for f in fields if not f.required]
    for group, title in ((required, "Required fields"), (optional, "Optional fields")):
        if not group:
            continue
        with st.expander(title, expanded=group is required or fmt == "pairwise"):
            cells = st.columns(3)
            for n, field in enumerate(group):
                with cells[n % 3]:
                    found = _picker(staged, preview, fmt, field)
                if found is not None:
                    mapping[field.name] = found
    return mapping
