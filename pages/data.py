"""Data: the datasets with their counts; import a file (the CLI's importer); delete a dataset;
export the ratings and preferences."""

import streamlit as st

from dashboard import ui
from dashboard.ingest import ALL_FORMATS, uploads
from dashboard.ui import downloads, pickers

FLASH_KEY, PICK_KEY, CONFIRM_KEY = "jb_data_flash", "jb_delete_pick", "jb_delete_confirm"
DETECT = "detect from the columns"


def _done(kind: str, headline: str, lines: list[str]) -> None:
    """Say what happened after the rerun that shows the new list (and the new sidebar)."""
    st.session_state[FLASH_KEY] = (kind, headline, lines)
    st.rerun()


st.title("Data")
if flash := st.session_state.pop(FLASH_KEY, None):
    kind, headline, lines = flash
    (st.success if kind == "success" else st.info)(headline)
    if lines:  # the importer's report names files and datasets: plain text, never Markdown
        st.text("\n".join(lines))

datasets = ui.dataset_summaries()
if not datasets:
    st.info("The database is empty. Import a file below, or run `judgeboard import PATH`.")
else:
    pickers.table(
        [
            {
                "dataset": d.name,
                "items": d.n_items,
                "responses": d.n_responses,
                "ratings": d.n_ratings,
                "preferences": d.n_preferences,
                "tasks": ", ".join(d.task_types),
                "systems": ", ".join(d.systems),
            }
            for d in datasets
        ]
    )

# Importing and deleting are an admin's (with sign-in); a labeller sees the datasets only.
if ui.may_administer("import or delete data"):
    st.subheader("Import a file")
    st.caption(
        "JSON, JSONL, CSV or Parquet, read by the same importer as `judgeboard import`: the "
        "format is detected from the columns, and a bad record stops the import with "
        "nothing written. For files over the upload limit, use the command line."
    )
    with st.form("jb_upload"):
        upload = st.file_uploader("File", type=list(uploads.EXTENSIONS))
        left, middle, right = st.columns(3)
        dataset = left.text_input("Dataset", placeholder="default: the file's name")
        system = middle.text_input("System", placeholder="default: from the file")
        fmt = right.selectbox("Format", [DETECT, *ALL_FORMATS])
        mapping = st.text_area(
            "Column mapping",
            placeholder="question=prompt\nanswer=output",
            help="One TARGET=SOURCE a line, like `--map`: read column SOURCE as field TARGET.",
        )
        submitted = st.form_submit_button("Import", type="primary")
    if submitted and upload is None:
        st.warning("Choose a file first.")
    elif submitted and upload is not None:
        bar = st.progress(0.0, text=f"importing {ui.md_escape(upload.name)}")
        try:
            report = ui.write(
                uploads.import_upload,
                upload.name,
                upload,
                dataset=dataset,
                system=system,
                fmt=None if fmt == DETECT else fmt,
                mapping=mapping,
                on_progress=lambda stage, f: bar.progress(
                    f if f is not None else 1.0, text=ui.md_escape(stage)
                ),
            )
        except uploads.UploadError as error:
            bar.empty()
            st.error("The file was not imported; nothing was written.")
            ui.show_text(str(error), label="what the importer says")
        else:
            _done("success", "Imported.", report.lines(names_only=True))

    st.subheader("Delete a dataset")
    names = [d.name for d in datasets]
    name = st.selectbox("Dataset", names, index=None, key=PICK_KEY, placeholder="choose one")
    if name is not None:
        chosen = next(d for d in datasets if d.name == name)
        st.warning(
            f"This deletes {ui.md_escape(name)} with its {chosen.n_items:,} items, "
            f"{chosen.n_responses:,} responses, {chosen.n_ratings:,} ratings, "
            f"{chosen.n_preferences:,} preferences and its judge calls. It cannot be undone."
        )
        confirm = st.text_input("Type the dataset's name to confirm", key=CONFIRM_KEY)
        if st.button("Delete", disabled=confirm.strip() != name, key="jb_delete_button"):
            ui.delete_dataset(name)
            del st.session_state[PICK_KEY], st.session_state[CONFIRM_KEY]
            _done("info", f"Deleted {ui.md_escape(name)}.", [])

if datasets:
    st.subheader("Export")
    downloads.export_download_buttons(ui.filters().dataset)
