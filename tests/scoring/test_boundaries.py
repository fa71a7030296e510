"""scoring/ stays pure: numpy and the standard library only, and no I/O or printing."""

import ast
import sys
from pathlib import Path

from tests.paths import REPO_ROOT

ALLOWED_THIRD_PARTY = {"numpy"}
SCORING = REPO_ROOT / "scoring"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_scoring_imports_only_numpy_and_stdlib() -> None:
    for path in sorted(SCORING.glob("*.py")):
        foreign = {
            name
            for name in _imports(path)
            if name not in sys.stdlib_module_names
            and name not in ALLOWED_THIRD_PARTY
            and name not in {"scoring", "__future__"}
        }
        assert not foreign, f"{path.name} imports {sorted(foreign)}"


def test_scoring_has_no_print_or_open() -> None:
    for path in sorted(SCORING.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not calls & {"print", "open", "input"}, path.name


def test_modules_stay_small() -> None:
    for path in sorted(SCORING.glob("*.py")):
        n_lines = len(path.read_text(encoding="utf-8").splitlines())
        assert n_lines <= 400, f"{path.name} has {n_lines} lines"
