"""The layers hold: import contracts (lint-imports), no import cycle, and a core that works without Qt."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import grimp

import privacy_studio

PACKAGE = Path(privacy_studio.__file__).parent
ROOT = PACKAGE.parent
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "pyqtgraph", "privacy_studio.gui")


def test_import_contracts_hold() -> None:
    """The layer contracts of pyproject.toml ([tool.importlinter]): core without gui/cli/Qt, kernels and
    measures without engines/project/report, engines without project."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=_env()
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every group of modules that import each other in a circle (strongly connected, more than one)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph.find_modules_directly_imported_by(module):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return groups


def test_no_import_cycle_in_the_package() -> None:
    """Imports inside functions count too: a cycle makes the import order matter and the layers blur."""
    assert import_cycles(grimp.build_graph("privacy_studio")) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for a, b in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")):
        graph.add_import(importer=a, imported=b)
    assert import_cycles(graph) == [["p.a", "p.b", "p.c"]]


def test_numba_kernels_live_under_core_kernels() -> None:
    """Compiled code in one place: every ``@njit`` function is in ``core/kernels``, the rest calls it."""
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if "njit" in path.read_text(encoding="utf-8") and (PACKAGE / "core" / "kernels") not in path.parents
    ]
    assert offenders == []


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_core_imports_with_qt_unavailable() -> None:
    """Import every core module in a fresh interpreter where importing Qt raises."""
    modules = sorted(
        "privacy_studio." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        for p in (PACKAGE / "core").rglob("*.py")
    )
    script = (
        "import sys, importlib\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {list(FORBIDDEN)!r}: raise ImportError('Qt is blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print('ok', len(sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


def test_no_cycle_between_the_packages() -> None:
    """Each subpackage squashed to one node (kernels, io, measures, …, gui, cli): no cycle (issue #31). The
    last ones went with core/release_advice.py (what a project suggests for a release, above the report's
    inputs), core/release_error.py and the release-kind registry (the analyses read release and aggregate
    records without importing them), project_run.decision_inputs (the trade-off never imports the project
    file) and core/tradeoff/records.py (the records a decision reads, below the analyses that keep them)."""
    graph = grimp.build_graph("privacy_studio")
    for package in [*(f"privacy_studio.{p}" for p in ("gui", "cli")), *_core_packages()]:
        graph.squash_module(package)
    assert import_cycles(graph) == []


def _core_packages() -> list[str]:
    core = PACKAGE / "core"
    return sorted(f"privacy_studio.core.{p.name}" for p in core.iterdir() if (p / "__init__.py").exists())


def test_rendering_uses_no_widget() -> None:
    """The PDF is drawn with QtGui alone; the one QtWidgets name is the application object ``_ensure_app``
    creates when none exists (so widgets made later in the same process still work)."""
    import ast

    found = []
    for path in sorted((PACKAGE / "rendering").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "PySide6.QtWidgets":
                inside = [f.name for f in functions if f.lineno <= node.lineno <= (f.end_lineno or 0)]
                found.append((path.name, inside, [a.name for a in node.names]))
    assert found == [("pdf.py", ["_ensure_app"], ["QApplication"])]


def test_the_unicity_key_is_spelled_only_in_the_catalogue() -> None:
    """Issue #31: the headline measure's key is written once (``catalogue.UNICITY``); every other module
    names it through the catalogue, so renaming or aliasing it cannot drift."""
    spelled = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if '"unicity"' in line
    ]
    assert spelled and all(s.startswith("core/risk/catalogue.py:") for s in spelled), spelled


def test_no_long_function_or_file_in_gui_core_and_cli() -> None:
    """Issue #31 point 6: functions of at most 60 lines and files of at most 600 in ``gui/``, ``core/`` and
    ``cli/``, numba kernels included."""
    import ast

    found = set()
    for path in sorted(p for part in ("gui", "core", "cli") for p in (PACKAGE / part).rglob("*.py")):
        name = str(path.relative_to(PACKAGE))
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 600:
            found.add(name)
        for node in ast.walk(ast.parse(text)):
            long = isinstance(node, ast.FunctionDef) and (node.end_lineno or 0) - node.lineno + 1 > 60
            if long:
                found.add(f"{name}:{node.name}")
    assert not found, sorted(found)


def imports_inside_functions() -> dict[str, set[str]]:
    """Importing module -> the modules it imports inside a function (at any depth)."""
    import ast

    found: dict[str, set[str]] = {}

    def walk(node: ast.AST, module: str, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom) and inside:
                names = (
                    [child.module or ""]
                    if isinstance(child, ast.ImportFrom)
                    else [a.name for a in child.names]
                )
                found.setdefault(module, set()).update(names)
            walk(child, module, inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        walk(ast.parse(path.read_text(encoding="utf-8")), ".".join(parts).removesuffix(".__init__"), False)
    return found


def test_imports_inside_functions_are_the_listed_ones() -> None:
    """Issue #31 point 5: an import inside a function keeps a command's (or the window's) start fast and is
    listed in pyproject.toml ([tool.privacy-studio.lazy-imports]); every other import is at the top."""
    import tomllib

    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["privacy-studio"]
    listed = {module: set(names) for module, names in tool["lazy-imports"].items()}
    found = imports_inside_functions()
    unlisted = sorted(f"{m} -> {n}" for m, names in found.items() for n in names - listed.get(m, set()))
    stale = sorted(f"{m} -> {n}" for m, names in listed.items() for n in names - found.get(m, set()))
    assert unlisted == [], "import at the top, or list it if it keeps start fast"
    assert stale == [], "no longer imported inside a function: remove it from the list"


def test_no_module_is_imported_by_name_at_run_time() -> None:
    """Issue #31: an import by name (``importlib.import_module``) is an edge the import contracts cannot see.
    Allowed: a package resolving its own submodules (``cli`` its commands, ``core.io`` its readers, to keep
    them off a command's start) and ``versions`` asking third-party libraries their version."""
    by_name = re.compile(r"import_module\(|__import__\(")
    found = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if by_name.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["cli/__init__.py", "core/io/__init__.py", "versions.py"], found
