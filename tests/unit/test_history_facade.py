"""No module under store/history imports its facade (``History`` in store.py) back.

The facade passes itself as the narrow parts its modules use (``parts.Parts``,
``sync.Locked``); an import of the facade from below, even one for type checking only,
would close the circle again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HISTORY = ROOT / "language_server" / "waymark" / "store" / "history"
PACKAGE = "waymark.store.history"
FACADE = {"__init__.py", "store.py"}


def _facade_imports(source: str) -> list[str]:
    """The imports in ``source`` that reach the facade: its module, or a name of the
    package's ``__init__`` that is not a module of its own."""
    modules = {p.stem for p in HISTORY.glob("*.py")} | {p.name for p in HISTORY.iterdir()}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in (PACKAGE, f"{PACKAGE}.store")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module == f"{PACKAGE}.store":
                found.append(node.module)
            elif node.module == PACKAGE:
                found += [f"{PACKAGE}.{a.name}" for a in node.names if a.name not in modules]
        elif isinstance(node, ast.ImportFrom) and (
            # Relative: ``from . import History`` or ``from .store import …``.
            node.module == "store"
            or (node.module is None and any(a.name not in modules for a in node.names))
        ):
            found.append(ast.unparse(node))
    return found


@pytest.mark.parametrize(
    "path", sorted(p for p in HISTORY.glob("*.py") if p.name not in FACADE), ids=lambda p: p.name
)
def test_no_history_module_imports_the_facade(path: Path) -> None:
    assert _facade_imports(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "planted",
    [
        "from waymark.store.history.store import History\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from waymark.store.history import History\n",
        "import waymark.store.history.store\n",
        "from .store import History\n",
    ],
)
def test_the_check_sees_a_planted_import_of_the_facade(planted: str) -> None:
    assert _facade_imports(planted) != []


def test_the_check_lets_modules_import_their_siblings() -> None:
    assert _facade_imports("from waymark.store.history import budget, capture\n") == []
