"""The judge workbench (issue 31; docs/judge-qa.md): a seeded dev/test split of people's
labels (`split.py`), rubric versions in the database (`versions.py`), a version run on the
labelled answers only (`run.py`), its agreement on test and a paired comparison with the
adopted version (`agreement.py`), adoption and the judge card (`cards.py`); `lab.py` holds
the actions the Judge lab page and `judgeboard align` call. Each reads through its own
`*_sql.py`."""
