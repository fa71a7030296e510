"""`pip install .` without `-e` gives a working app.

The wheel is built from a copy of the checkout (so no `build/` folder is left in, or reused
from, the repository), installed into a fresh venv outside the repository, and every command is
run from an empty folder with PYTHONPATH unset, so only the installed package can be imported.
The installed package must hold the rubrics, panels, sample and pages as they are in `data/` and
`pages/`; the commands must run on them; and `judgeboard serve` must load the bundled sample on
first start and serve pages that open in Debian's Chromium without an exception.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    STEP_TIMEOUT_MS,
    VIEWPORT,
    free_port,
    go,
    log_tail,
    settled,
    stop,
    wait_for_health,
)
from tests.paths import REPO_ROOT

pytestmark = [pytest.mark.wheel, pytest.mark.browser]

# What a checkout holds that is not part of the source: never copied into the build.
NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    "test-artifacts",
    "*.duckdb",
    "*.duckdb.wal",
    "*.duckdb.pending",
)
# The sidebar's navigation, in order (dashboard/app.py).
NAV_TITLES = (
    "Overview",
    "Failures",
    "Annotate",
    "Pairwise",
    "Campaigns",
    "Review",
    "Calibration",
    "Judge QA",
    "Judge lab",
    "Run judges",
    "Data",
)
STEP_TIMEOUT_S = 300
# First start: import the sample and rate it with the baseline judge, from a venv whose modules
# are not byte-compiled yet.
SERVE_START_S = 240

# Run inside the fresh venv: what the installed package holds, found through importlib.resources.
CONTENTS = """
import hashlib, json, sys
from importlib.resources import files
from pathlib import Path

import dashboard
import scoring
from dashboard import settings

root = Path(str(files("dashboard")))
modules = [Path(dashboard.__file__).parent, Path(scoring.__file__).parent]


def tree(folder, pattern):
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob(pattern))
        if p.is_file() and "__pycache__" not in p.parts
    }


found = {
    name: str(getattr(settings, name)())
    for name in ("data_dir", "rubrics_dir", "panels_dir", "sample_manifest", "pages_dir",
                 "app_script")
}
print(json.dumps({
    "package": str(Path(dashboard.__file__).parent),
    "root": str(root),
    "sys_path": sys.path,
    "data": tree(root / "data", "*"),
    "pages": tree(root / "app_pages", "*.py"),
    "modules": sorted(
        p.relative_to(top.parent).as_posix()
        for top in modules
        for p in top.rglob("*.py")
        if "app_pages" not in p.parts
    ),
    "settings": found,
    "symlinks": [str(p) for p in root.rglob("*") if p.is_symlink()],
}))
"""


@dataclass(frozen=True)
class Installed:
    """A venv holding only the wheel and its dependencies, and the environment to run it in."""

    venv: Path
    env: dict[str, str]

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def judgeboard(self) -> Path:
        return self.venv / "bin" / "judgeboard"

    def run(self, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        return _run(args, cwd=cwd, env=self.env)


def _run(
    command: Sequence[str | Path], *, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, command))} exited with {done.returncode}:\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


def _tree(folder: Path, pattern: str) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob(pattern))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    assert not root.resolve().is_relative_to(REPO_ROOT)
    source, wheelhouse, venv = root / "source", root / "wheelhouse", root / "venv"
    shutil.copytree(REPO_ROOT, source, symlinks=True, ignore=NOT_SOURCE)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", ".", "-w", wheelhouse], cwd=source)
    (wheel,) = wheelhouse.glob("judgeboard-*.whl")
    # No pip of its own: this one (the dev venv's) installs into it. Nothing is byte-compiled
    # ahead: a fresh install would spend most of its time compiling modules never imported.
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=root)
    pip: list[str | Path] = [sys.executable, "-m", "pip", "--python", venv / "bin" / "python"]
    _run([*pip, "install", "--no-compile", "--disable-pip-version-check", "-q", wheel], cwd=root)
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}
        and not name.startswith("JUDGEBOARD_")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return Installed(venv=venv, env=env)


def test_the_installed_package_holds_the_data_and_the_pages(
    installed: Installed, tmp_path: Path
) -> None:
    found = json.loads(installed.run(installed.python, "-c", CONTENTS, cwd=tmp_path).stdout)
    package = Path(found["package"])
    # The installed copy is imported, never the repository.
    assert package.is_relative_to(installed.venv), package
    assert not any(p and Path(p).resolve().is_relative_to(REPO_ROOT) for p in found["sys_path"]), (
        found["sys_path"]
    )
    assert Path(found["root"]) == package
    # The symlinks of the repository are copies in the wheel, identical to data/ and pages/.
    assert found["symlinks"] == []
    assert found["data"] == _tree(REPO_ROOT / "data", "*")
    assert found["pages"] == _tree(REPO_ROOT / "pages", "*.py")
    assert {"rubrics/likert-rag.toml", "panels/offline.toml", "sample/manifest.toml"} <= set(
        found["data"]
    )
    assert len(found["pages"]) == len(NAV_TITLES)
    # packages.find found every package: each module of the checkout is installed.
    modules = [p for top in ("dashboard", "scoring") for p in (REPO_ROOT / top).rglob("*.py")]
    assert found["modules"] == sorted(p.relative_to(REPO_ROOT).as_posix() for p in modules)
    for name, path in found["settings"].items():
        assert Path(path).is_relative_to(package) and Path(path).exists(), (name, path)


def test_the_commands_run_from_an_empty_folder(installed: Installed, tmp_path: Path) -> None:
    where = "import json; from dashboard import settings; "
    where += "print(json.dumps(str(settings.sample_manifest().parent)))"
    sample = Path(json.loads(installed.run(installed.python, "-c", where, cwd=tmp_path).stdout))
    assert sample.is_relative_to(installed.venv), sample

    def judgeboard(*args: str | Path) -> str:
        return installed.run(installed.judgeboard, "--db", "x.duckdb", *args, cwd=tmp_path).stdout

    imported = judgeboard("import", sample / "eo_rag", "--dataset", "eo-rag", "--no-progress")
    assert "scored 120 responses" in imported, imported
    judged = judgeboard("judge", "--panel", "offline", "--rubric", "likert-rag")
    assert "baseline" in judged, judged
    judgeboard("report", "--out", "r.html")
    report = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "eo-rag-large" in report and "baseline" in report
    judgeboard("export", "--out", "e.parquet")  # writes e.ratings.parquet (no preferences)
    ratings = pq.read_table(tmp_path / "e.ratings.parquet").column("rater").to_pylist()
    assert ratings == ["baseline"] * 120
    metrics = json.loads(judgeboard("metrics", "--json"))["metrics"]
    assert metrics["systems.eo-rag-large.judge.baseline"]["n"] == 40, metrics


def _open_every_page(url: str) -> None:
    """The Overview, then every page of the sidebar, each drawn with no exception."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=VIEWPORT)
            context.set_default_timeout(STEP_TIMEOUT_MS)
            page = context.new_page()
            page.goto(url)
            expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(
                timeout=STEP_TIMEOUT_MS
            )
            settled(page)
            # The histograms sit below the score tables, under the fold at 1400 x 1000;
            # plotly draws a chart once it is scrolled to.
            page.get_by_test_id("stPlotlyChart").first.scroll_into_view_if_needed()
            expect(
                page.locator(".js-plotly-plot").get_by_text("baseline", exact=True).first
            ).to_be_visible(timeout=STEP_TIMEOUT_MS)
            links = page.get_by_test_id("stSidebarNav").get_by_role("link")
            expect(links).to_have_count(len(NAV_TITLES))
            for title in (*NAV_TITLES[1:], NAV_TITLES[0]):
                go(page, title)
        finally:
            browser.close()


def test_serve_loads_the_sample_and_every_page_opens(installed: Installed, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path.parent / f"{tmp_path.name}-serve.log"  # the server starts in an empty folder
    command = [str(installed.judgeboard), "--db", "y.duckdb", "serve", "--port", str(port)]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, cwd=tmp_path, env=installed.env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log, timeout_s=SERVE_START_S)
        # Playwright's sync API will not start on a thread whose event loop another session
        # holds (tests/report keeps one browser for the whole run), so this one gets a thread.
        with ThreadPoolExecutor(max_workers=1) as thread:
            thread.submit(_open_every_page, url).result()
    finally:
        stop(process)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "loading the bundled sample" in text and "sample loaded: datasets" in text, text
    served = (tmp_path / "y.duckdb").resolve()
    assert f"serving {served} on http://127.0.0.1:{port}" in text, text
    assert "Traceback" not in text, log_tail(log)
