"""Shared Streamlit glue: the store resource, the sidebar, cached reads, safe text.

Pages import this module and `dashboard.charts`; they never touch the store or run SQL. A page
reads through `ui.cached(fn, ...)` (`fn(store, ...)`, cached until the database changes) and
writes through `ui.write(fn, ...)`, so the next reads see the write. The pieces:

- `session.py`: the store every session shares, the script run's lifecycle, cached reads
  (`cached`, `cached_recent`, `soon`), writes and the faults of the database file;
- `sidebar.py`: the dataset filter and who labels (`filters()`), `actor` (who asks for an
  admin's work), `labeller_name` and `may_administer`;
- `text.py`: text from the data shown as plain text (`show_text`), or escaped for Markdown
  (`md_escape`).

The other modules of this folder are the pages' own glue (pickers, links, widgets, ...).
"""

from dashboard.ui.session import (
    FINGERPRINT_WAIT_S as FINGERPRINT_WAIT_S,
    LARGE_DATABASE as LARGE_DATABASE,
    SPOOL_WAIT_S as SPOOL_WAIT_S,
    WAIT_S as WAIT_S,
    after_write as after_write,
    begin_run as begin_run,
    cached as cached,
    cached_recent as cached_recent,
    call as call,
    dataset_names as dataset_names,
    dataset_summaries as dataset_summaries,
    dataset_systems as dataset_systems,
    delete_dataset as delete_dataset,
    earlier_note as earlier_note,
    end_run as end_run,
    get_store as get_store,
    labelling_rubrics as labelling_rubrics,
    page_run as page_run,
    poll_until_ready as poll_until_ready,
    rubrics as rubrics,
    show_fault as show_fault,
    soon as soon,
    write as write,
)
from dashboard.ui.sidebar import (
    ALL as ALL,
    ANNOTATOR_KEY as ANNOTATOR_KEY,
    DATASET_KEY as DATASET_KEY,
    DATASET_LINK as DATASET_LINK,
    Filters as Filters,
    actor as actor,
    filters as filters,
    labeller_name as labeller_name,
    may_administer as may_administer,
    may_review as may_review,
    show_sidebar as show_sidebar,
)
from dashboard.ui.text import md_escape as md_escape, show_text as show_text
