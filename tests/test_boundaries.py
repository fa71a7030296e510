"""The layout rules of STYLE.md, checked by walking every module's imports (its AST).

- Dependencies point one way: pages -> dashboard -> scoring, and no module of dashboard/ or
  scoring/ takes part in an import cycle (imports inside functions and under TYPE_CHECKING
  count too).
- Pages never touch the store: they reach the data through dashboard.ui.
- Each heavy library has one home: duckdb in the store's connection module, litellm in the
  judge panel's LLM module, plotly in charts.py, streamlit in pages/, app.py and dashboard/ui/;
  authlib nowhere (Streamlit's sign-in imports it).
- scoring/ is pure: numpy and the standard library, no I/O.
- Library code logs; only the command line (dashboard/cli/) prints.
- Modules stay under about 400 lines; the schema's migrations are one ordered list in one file,
  whatever its length (`UNCAPPED`).
- Outside a folder with a front door (dashboard/metrics, each metrics family, dashboard/ui),
  code imports the face or a module it names; a `*_sql.py` module is imported only from its
  own folder, but for the few shared SQL definitions named in `SHARED_SQL`.
- Shipped files are found through the package (importlib.resources), never through __file__.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

PACKAGES = ("dashboard", "pages", "scoring")
HOMES = {
    # The file store's opener, and the PostgreSQL store's (DuckDB with the server attached).
    "duckdb": {"dashboard/store/connection.py", "dashboard/store/server.py"},
    "duckdb_extension_postgres": {"dashboard/store/server.py"},
    # What DuckDB's postgres extension cannot express: advisory locks, SKIP LOCKED claims, and
    # the sign-in accounts' transactions under a lock (read by every page run, without DuckDB).
    "psycopg": {"dashboard/store/claims.py", "dashboard/store/accounts.py"},
    "litellm": {"dashboard/judging/llm.py"},
    "plotly": {"dashboard/charts.py"},
    # Streamlit's OIDC sign-in (st.login) imports it; the dashboard never does.
    "authlib": set(),
}


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (REPO_ROOT / package).rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(REPO_ROOT).as_posix()


def _imports(path: Path) -> set[str]:
    """Top-level package names a module imports, lazily or not."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _allowed_streamlit(name: str) -> bool:
    return (
        name.startswith("pages/") or name == "dashboard/app.py" or name.startswith("dashboard/ui/")
    )


def test_there_are_modules_to_check() -> None:
    names = {_name(p) for p in _modules()}
    assert {"dashboard/app.py", "dashboard/store/connection.py", "scoring/qa.py"} <= names


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_heavy_libraries_live_in_their_homes(path: Path) -> None:
    name, imported = _name(path), _imports(path)
    for library, homes in HOMES.items():
        assert library not in imported or name in homes, f"{name} imports {library}"
    assert "streamlit" not in imported or _allowed_streamlit(name), f"{name} imports streamlit"


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_dependencies_point_one_way(path: Path) -> None:
    name, imported = _name(path), _imports(path)
    if name.startswith("scoring/"):
        foreign = {n for n in imported if n not in sys.stdlib_module_names} - {"numpy", "scoring"}
        assert not foreign, f"scoring must stay pure: {name} imports {sorted(foreign)}"
    if name.startswith("dashboard/"):
        assert "pages" not in imported, f"{name} imports a page"


def _called(path: Path) -> dict[str, list[int]]:
    """Lines of each call to a plain name (print, open, input...)."""
    calls: dict[str, list[int]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.setdefault(node.func.id, []).append(node.lineno)
    return calls


@pytest.mark.parametrize(
    "path", [p for p in _modules() if _name(p).startswith("scoring/")], ids=_name
)
def test_scoring_does_no_io(path: Path) -> None:
    calls = _called(path)
    assert not {"open", "input"} & set(calls), f"{_name(path)} does I/O"


# Exempt from the cap: the schema is one ordered list of small migrations, read top to bottom
# and only ever appended to (as simonw/llm keeps its migrations.py); split, it would be read
# across files in an order no file shows.
UNCAPPED = {"dashboard/store/migrations.py"}


@pytest.mark.parametrize("path", [p for p in _modules() if _name(p) not in UNCAPPED], ids=_name)
def test_modules_stay_small(path: Path) -> None:
    n_lines = len(path.read_text(encoding="utf-8").splitlines())
    assert n_lines <= 400, f"{_name(path)} has {n_lines} lines"


def _command_line(name: str) -> bool:
    return name.startswith("dashboard/cli/")


@pytest.mark.parametrize("path", [p for p in _modules() if not _command_line(_name(p))], ids=_name)
def test_library_code_does_not_print(path: Path) -> None:
    lines = _called(path).get("print", [])
    assert lines == [], f"{_name(path)} prints at lines {lines}; log instead"


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the modules of dashboard/ and scoring/ it imports, anywhere in its code."""
    paths = {
        _module_name(p): p
        for package in ("dashboard", "scoring")
        for p in (REPO_ROOT / package).rglob("*.py")
    }

    def resolve(target: str) -> str | None:
        parts = target.split(".")
        return next(
            (".".join(parts[:i]) for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in paths),
            None,
        )

    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*kept, base] if base else kept)
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                found = resolve(target)
                if found and found != name:
                    graph[name].add(found)
                    break
    return graph


def test_no_import_cycle() -> None:
    graph = _import_graph()
    assert len(graph) > 50, "the walk found too few modules"
    cycles = []
    for start in sorted(graph):
        # A module reaches itself: walk its imports depth first.
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    cycles.append(" -> ".join([*path, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert not cycles, f"import cycles: {cycles[:5]}"


@pytest.mark.parametrize("path", sorted((REPO_ROOT / "pages").glob("*.py")), ids=_name)
def test_pages_never_touch_the_store(path: Path) -> None:
    # A page reads its widgets, calls one function through dashboard.ui and renders it.
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    } | {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert not {m for m in modules if m.startswith(("dashboard.store", "duckdb"))}, modules
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
    }
    assert not names & {"get_store", "Store", "connection", "execute"}, path.name


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_shipped_files_are_found_through_the_package(path: Path) -> None:
    """An installed wheel has no repository around it: files are found through
    importlib.resources (dashboard/settings.py), never from a module's own path."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "__file__"]
    assert lines == [], f"{_name(path)} uses __file__ at lines {lines}; use dashboard.settings"


# Folders with a front door. Outside such a folder, code imports the folder's face (its
# __init__) or a module the face names in its `__all__`, never another of its modules; the
# metrics families are folders of this kind inside dashboard/metrics. dashboard/ui's face is
# over session.py, sidebar.py and text.py, which nothing outside it imports; its other modules
# are the pages' own glue (pickers, links, ...).
FACES = ("dashboard.metrics", "dashboard.ui")
FACE_INSIDES = {"dashboard.ui": ("session", "sidebar", "text")}
# The `*_sql.py` modules other features' SQL may use, each with who and why. Any other
# `*_sql.py` is imported only from inside its own folder.
SHARED_SQL = {
    # A response's scores: one SQL definition for every query that ranks or exports them.
    "dashboard.metrics.scores_sql": (
        "dashboard.export.export_sql",
        "dashboard.notebook.notebook_sql",
        "dashboard.report.report_sql",
        "dashboard.review.failures_sql",
        "dashboard.review.queue_sql",
    ),
    # A campaign's queue ranks its answers as the annotation queue does.
    # A campaign's rule filters the same per-answer scores (`SCORED`).
    "dashboard.review.failures_sql": (
        "dashboard.campaigns.campaigns_sql",
        "dashboard.campaigns.rules_sql",
    ),
    "dashboard.review.queue_sql": ("dashboard.campaigns.campaigns_sql",),
    # Rubric versions leave out a few-shot version's own examples as calibration does.
    "dashboard.metrics.calibration.calibration_sql": ("dashboard.metrics.judge_qa.versions_sql",),
    # An item's current references (a person's correction, else the imported ones): one
    # definition for the reference scores and the golden export.
    "dashboard.review.gold_sql": (
        "dashboard.metrics.reference.reference_sql",
        "dashboard.export.golden_sql",
    ),
    # Each answer's current adjudication, which calibration may take as people's reference.
    "dashboard.campaigns.adjudication_sql": ("dashboard.metrics.calibration.calibration_sql",),
}


def _all_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in _modules()}


def _imported(path: Path, modules: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it when it is a package's face) per import."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names if alias.name in modules]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = []
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:
                    found.append((f"{node.module}.{alias.name}", []))
                else:
                    names.append(alias.name)
            if names and node.module in modules:
                found.append((node.module, names))
    return found


def _inside(module: str, folder: str) -> bool:
    return module == folder or module.startswith(folder + ".")


def _face_names(folder: str, modules: dict[str, Path]) -> set[str]:
    """What a folder's face names in `__all__`."""
    for node in ast.parse(modules[folder].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def _faces(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each face folder (the metrics families included) -> the modules outside code may import."""
    faces: dict[str, set[str]] = {}
    for folder in modules:
        if not any(_inside(folder, face) for face in FACES):
            continue
        if modules[folder].name != "__init__.py":
            continue
        inner = {m for m in modules if m.rpartition(".")[0] == folder}
        if folder in FACE_INSIDES:
            hidden = {f"{folder}.{name}" for name in FACE_INSIDES[folder]}
            faces[folder] = {folder} | (inner - hidden)
        else:
            faces[folder] = {folder} | {f"{folder}.{n}" for n in _face_names(folder, modules)}
    return faces


def test_the_faces_are_found() -> None:
    faces = _faces(_all_modules())
    assert {"dashboard.metrics", "dashboard.metrics.overview", "dashboard.ui"} <= set(faces)
    assert "dashboard.metrics.overview" in faces["dashboard.metrics"]
    assert "dashboard.ui.session" not in faces["dashboard.ui"]


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_outside_a_folder_only_its_face(path: Path) -> None:
    modules = _all_modules()
    faces, importer = _faces(modules), _module_name(path)
    wrong = []
    for target, names in _imported(path, modules):
        shared = importer in SHARED_SQL.get(target, ())
        for folder, public in faces.items():
            outside = _inside(target, folder) and not _inside(importer, folder)
            if outside and target not in public and not shared:
                wrong.append(f"{target} (import it through {folder})")
        if names and target in faces and _inside(importer, target):
            # Inside a folder, the face may still be loading: take its modules, not its names.
            wrong.append(f"{target}: {', '.join(names)} (from the module that defines it)")
    assert not wrong, f"{_name(path)} imports {wrong}"


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_sql_stays_in_its_folder(path: Path) -> None:
    modules, importer = _all_modules(), _module_name(path)
    wrong = [
        target
        for target, _ in _imported(path, modules)
        if target.endswith("_sql")
        and not _inside(importer, target.rpartition(".")[0])
        and importer not in SHARED_SQL.get(target, ())
    ]
    assert not wrong, f"{_name(path)} imports the SQL of another folder: {wrong}"
