"""Data: the datasets with their counts; import a file (the CLI's importer); delete a dataset;
export the ratings and preferences."""

import streamlit as st

from dashboard import ui
from dashboard.ingest import ALL_FORMATS, uploads
from dashboard.ingest.adapters import ADAPTERS
from dashboard.metrics import qa_rules, reference
from dashboard.ui import downloads, imports, pickers

FLASH_KEY, PICK_KEY, CONFIRM_KEY = "jb_data_flash", "jb_delete_pick", "jb_delete_confirm"
DETECT = "detect from the columns"


def _done(
    kind: str, headline: str, lines: list[str], rejects: tuple[str, str] | None = None
) -> None:
    """Say what happened after the rerun that shows the new list (and the new sidebar)."""
    st.session_state[FLASH_KEY] = (kind, headline, lines, rejects)
    st.rerun()


st.title("Data")
if flash := st.session_state.pop(FLASH_KEY, None):
    kind, headline, lines, rejects = flash
    (st.success if kind == "success" else st.info)(headline)
    if lines:  # the importer's report names files and datasets: plain text, never Markdown
        st.text("\n".join(lines))
    if rejects:
        st.download_button(
            "Download the bad records",
            rejects[1],
            file_name=rejects[0],
            mime="application/jsonl",
            key="jb_rejects_download",
        )

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
        "JSON, JSONL, CSV or Parquet, or an eval tool's file (an Inspect log, promptfoo "
        "results, lm-eval samples), read by the same importer as `judgeboard import`: the "
        "format is detected from the file, and a bad record stops the import with nothing "
        "written, unless you choose to skip bad records. For files over the upload limit, use "
        "the command line."
    )
    if (uploaded := imports.upload()) is not None:
        staged, preview = uploaded
        imports.show_preview(staged, preview)
        left, middle, right = st.columns(3)
        dataset = left.text_input("Dataset", placeholder=uploads.dataset_hint(staged))
        system = imports.system_input(middle, preview)
        detected = f"{DETECT} ({preview.detected or 'none found'})"
        if preview.tool is not None:  # as `judgeboard import` reads it: no format to choose
            right.text_input("Format", preview.tool.title, disabled=True, key="jb_upload_tool")
            fmt_choice, fmt, mapping = detected, None, {}
        else:
            fmt_choice = right.selectbox("Format", [detected, *ALL_FORMATS], key="jb_upload_format")
            fmt = preview.detected if fmt_choice == detected else fmt_choice
            mapping = imports.field_pickers(staged, preview, fmt) if fmt else {}
        if fmt in ADAPTERS:
            st.caption("A published set's file is imported as published: no column to pick.")
        elif fmt is None and preview.tool is None:
            st.info("Choose the file's format to pick a column for each of its fields.")
        if mapping:
            st.caption("The same import on the command line:")
            st.code(" ".join(["judgeboard import", staged.name, *uploads.cli_options(mapping)]))
        skip = st.checkbox(
            "Skip bad records",
            key="jb_upload_skip",
            help="Import the good records; the bad ones, with what is wrong with each, are "
            "offered for download.",
        )
        replace = st.checkbox(
            "Replace an earlier import of this file",
            key="jb_upload_replace",
            help="When this file was imported before with other columns picked, remove what "
            "that import brought instead of keeping both (the command line's --replace).",
        )
        if st.button("Import", type="primary", key="jb_upload_import"):
            bar = st.progress(0.0, text=f"importing {ui.md_escape(staged.name)}")
            try:
                result = ui.write(
                    uploads.import_staged,
                    staged,
                    dataset=dataset,
                    system=system,
                    fmt=None if fmt_choice == detected else fmt_choice,
                    mapping=mapping,
                    on_error="skip" if skip else "fail",
                    replace=replace,
                    actor=ui.actor(),
                    on_progress=lambda stage, f: bar.progress(
                        f if f is not None else 1.0, text=ui.md_escape(stage)
                    ),
                )
            except uploads.UploadError as error:
                bar.empty()
                st.error("The file was not imported; nothing was written.")
                ui.show_text(str(error), label="what the importer says")
            else:
                rejects = (
                    (f"{staged.name}.rejects.jsonl", result.rejects) if result.rejects else None
                )
                imports.done()
                _done("success", "Imported.", result.report.lines(names_only=True), rejects)

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
    if ui.may_administer("export the labels (they hold every person's)"):
        downloads.export_download_buttons(ui.filters().dataset)

# How EM and F1 combine several references, per dataset (dashboard.metrics.reference).
rules = ui.cached(reference.reference_rules)
if rules and ui.may_administer("change a dataset's reference rule"):
    st.subheader("Reference rule (EM and F1)")
    st.caption(
        "With several references, open QA (SQuAD, NQ-open, RAG) takes the maximum over them; "
        "conversational QA (CoQA, TopiOCQA) the leave-one-out mean. Changing a dataset's rule "
        "rescores its EM and F1."
    )
    pickers.table(
        [
            {"dataset": r.dataset, "rule": r.label, "source": r.source, "chosen": r.chosen}
            for r in rules
        ]
    )
    with st.form("jb_reference_rule"):
        left, right = st.columns(2)
        rule_dataset = left.selectbox("Dataset", [r.dataset for r in rules], key="jb_rule_dataset")
        rule_names = [*qa_rules.REFERENCE_RULES, reference.DEFAULT]
        rule = right.selectbox(
            "Rule",
            rule_names,
            format_func=lambda n: (
                qa_rules.REFERENCE_RULES[n].label
                if n in qa_rules.REFERENCE_RULES
                else "the task's default"
            ),
            key="jb_rule_choice",
        )
        if st.form_submit_button("Apply and rescore", key="jb_rule_apply"):
            rescored = ui.write(reference.set_reference_rule, rule_dataset, rule, actor=ui.actor())
            _done("success", f"EM and F1 by {rule}: rescored {rescored:,} responses.", [])
