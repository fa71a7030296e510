"""Where the shipped files are found: through the package, which in a checkout reaches the
repository's data/ and pages/ through two committed symlinks (tests/test_wheel.py checks an
installed wheel)."""

from __future__ import annotations

import os

from dashboard import settings
from tests.pages.helpers import PAGES
from tests.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "dashboard"


def test_the_package_reaches_data_and_pages_through_relative_symlinks() -> None:
    # Relative, so that they hold in any clone; the wheel holds copies.
    assert os.readlink(PACKAGE / "data") == "../data"
    assert os.readlink(PACKAGE / "app_pages") == "../pages"
    assert settings.package_dir() == PACKAGE
    assert settings.data_dir().resolve() == REPO_ROOT / "data"
    assert settings.rubrics_dir().resolve() == REPO_ROOT / "data" / "rubrics"
    assert settings.panels_dir().resolve() == REPO_ROOT / "data" / "panels"
    assert settings.sample_manifest().resolve() == REPO_ROOT / "data" / "sample" / "manifest.toml"
    assert settings.pages_dir().resolve() == REPO_ROOT / "pages"
    assert settings.app_script() == PACKAGE / "app.py"


def test_every_page_file_is_a_page_of_the_app() -> None:
    assert sorted(p.stem for p in settings.pages_dir().glob("*.py")) == sorted(PAGES)
    app = settings.app_script().read_text(encoding="utf-8")
    assert all(f'PAGES / "{name}.py"' in app for name in PAGES)


def test_no_pages_folder_beside_the_app() -> None:
    # Streamlit would read a `pages/` folder next to the entry script as legacy pages.
    assert not (settings.app_script().parent / "pages").exists()
