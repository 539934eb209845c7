"""The package's layers point only down, with no import cycles (docs/ARCHITECTURE.md).

Every import of a project module counts: at the top of a module, inside a function and
under ``TYPE_CHECKING``. A function-level import hides an edge from a reader of the
module's head, so those are counted too, and outside the command layer (where a command
imports its own work when it runs, to keep ``leaderboard --help`` fast) they are capped.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from fixtures.import_graph import REPO, Import, cycles, imports

# Bottom to top. A module may import its own layer and the layers this says it may.
MAY_IMPORT: dict[str, frozenset[str]] = {
    # what `leaderboard eval` needs: tasks, measures, runs, data readers, metrics, scoring
    "leaderboard.core": frozenset(),
    # the benchmark declarations and the registry assembled from them
    "leaderboard.benchmarks": frozenset({"leaderboard.core"}),
    # content-addressed files in a store (a folder, a Hugging Face dataset, HTTPS)
    "leaderboard.store": frozenset({"leaderboard.core"}),
    # the one owner of a folder submissions/<id>/
    "leaderboard.submission": frozenset({"leaderboard.core", "leaderboard.benchmarks",
                                         "leaderboard.store"}),
    # reference models that write submissions
    "reference_models": frozenset({"leaderboard.core", "leaderboard.benchmarks",
                                   "leaderboard.store", "leaderboard.submission"}),
    # statistics, standings, reported rows and the site
    "leaderboard.publish": frozenset({"leaderboard.core", "leaderboard.benchmarks",
                                      "leaderboard.store", "leaderboard.submission"}),
    # the command line, CI steps, transfers and data pulls
    "leaderboard.app": frozenset({"leaderboard.core", "leaderboard.benchmarks",
                                  "leaderboard.store", "leaderboard.submission",
                                  "leaderboard.publish", "reference_models"}),
}
# The root package holds only the version, which every layer may read.
ROOT = "leaderboard"
COMMAND_LAYER = ("leaderboard.app.cli", "leaderboard.app.commands")
MAX_FUNCTION_IMPORTS = 15
MAX_MODULE_LINES = 700

# Edges that point up today: each entry is a step of the re-layering still to take, and
# an entry whose edge is gone must leave the list (the test says so).
KNOWN_UPWARD: set[tuple[str, str]] = set()
KNOWN_CYCLES: list[list[str]] = []
# Today's count of function-level imports outside the command layer; it may only fall,
# to MAX_FUNCTION_IMPORTS.
KNOWN_FUNCTION_IMPORTS = 7
KNOWN_LONG_FILES: set[str] = set()


def layer_of(module: str) -> str:
    best = ""
    for name in MAY_IMPORT:
        if (module == name or module.startswith(name + ".")) and len(name) > len(best):
            best = name
    if best:
        return best
    if module == ROOT:
        return ROOT
    raise AssertionError(f"{module} belongs to no layer: put it in one (MAY_IMPORT)")


@pytest.fixture(scope="module")
def graph() -> list[Import]:
    return imports()


def upward(found: list[Import]) -> dict[tuple[str, str], list[Import]]:
    out: dict[tuple[str, str], list[Import]] = {}
    for imp in found:
        low, high = layer_of(imp.importer), layer_of(imp.imported)
        if high in (ROOT, low) or (low != ROOT and high in MAY_IMPORT[low]):
            continue
        out.setdefault((imp.importer, imp.imported), []).append(imp)
    return out


def test_every_module_belongs_to_a_layer(graph: list[Import]) -> None:
    for imp in graph:
        layer_of(imp.importer)
        layer_of(imp.imported)


def test_layers_point_only_down(graph: list[Import]) -> None:
    found = upward(graph)
    new = {edge: found[edge] for edge in found if edge not in KNOWN_UPWARD}
    assert not new, "imports that point up a layer:\n" + "\n".join(
        f"  {imp.importer} line {imp.line} imports {imp.imported} "
        f"({layer_of(imp.importer)} may import {sorted(MAY_IMPORT[layer_of(imp.importer)])})"
        for imps in new.values() for imp in imps)
    gone = KNOWN_UPWARD - set(found)
    assert not gone, f"no longer imported: take these out of KNOWN_UPWARD: {sorted(gone)}"


def test_upward_edges_are_caught() -> None:
    # The check itself: a core module importing the site is an upward edge, one importing
    # another core module is not.
    edges = upward([Import("leaderboard.core.scoring", "leaderboard.publish.site.render", 1,
                           False, False),
                    Import("leaderboard.core.scoring", "leaderboard.core.runs", 2, True,
                           False),
                    Import("leaderboard.app.cli", "leaderboard.core.runs", 3, False, False)])
    assert list(edges) == [("leaderboard.core.scoring", "leaderboard.publish.site.render")]


def test_no_import_cycles(graph: list[Import]) -> None:
    found = cycles({(imp.importer, imp.imported) for imp in graph})
    assert found == KNOWN_CYCLES, "import cycles (function-level imports count too):\n" + \
        "\n".join("  " + " <-> ".join(c) for c in found)


def test_cycles_are_found() -> None:
    assert cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert cycles({("a", "b"), ("b", "c")}) == []


def test_function_level_imports_are_few(graph: list[Import]) -> None:
    # One statement is one import, however many names it takes.
    lazy = sorted({(imp.importer, imp.line) for imp in graph
                   if imp.in_function and not imp.type_only
                   and not imp.importer.startswith(COMMAND_LAYER)})
    listing = "\n".join(f"  {module} line {line}" for module, line in lazy)
    assert len(lazy) <= KNOWN_FUNCTION_IMPORTS, f"{len(lazy)} function-level imports:\n{listing}"
    assert len(lazy) == KNOWN_FUNCTION_IMPORTS, \
        f"{len(lazy)} now: lower KNOWN_FUNCTION_IMPORTS to it (the goal: {MAX_FUNCTION_IMPORTS})"


def standard_imports_without_reason(repo: Path = REPO) -> list[str]:
    """Function-level imports of standard-library modules outside the command layer that
    do not say, in a ``# here:`` comment on their line, what they keep off which path.
    Such an import costs a module's reader a look into every function for its
    dependencies, and saves nothing: the standard library is cheap to import, except
    where a measured path says otherwise (``difflib`` off a one-task `eval`)."""
    found = []
    for pattern in ("leaderboard/**/*.py", "reference_models/**/*.py"):
        for path in sorted(repo.glob(pattern)):
            name = path.relative_to(repo).as_posix()
            if name.startswith(("leaderboard/app/cli.py", "leaderboard/app/commands/")):
                continue
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()

            def visit(node: ast.AST, in_function: bool) -> None:
                for child in ast.iter_child_nodes(node):
                    if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                        modules = ([a.name for a in child.names] if isinstance(child, ast.Import)
                                   else [] if child.level else [child.module or ""])
                        if any(m.partition(".")[0] in sys.stdlib_module_names for m in modules) \
                                and "# here:" not in lines[child.lineno - 1]:
                            found.append(f"{name}:{child.lineno}: {lines[child.lineno - 1].strip()}")
                    visit(child, in_function or isinstance(child, (ast.FunctionDef,
                                                                   ast.AsyncFunctionDef)))

            visit(ast.parse(text, name), False)
    return found


def test_standard_library_imports_are_at_the_top() -> None:
    found = standard_imports_without_reason()
    assert not found, ("function-level imports of the standard library (move them to the "
                       "top, or say why in a '# here:' comment):\n  " + "\n  ".join(found))


def test_standard_imports_without_reason_are_found(tmp_path: Path) -> None:
    (tmp_path / "leaderboard" / "app" / "commands").mkdir(parents=True)
    (tmp_path / "reference_models").mkdir()
    (tmp_path / "leaderboard" / "a.py").write_text(
        "import os\n"
        "def f():\n    import json\n    import numpy\n"
        "    import difflib  # here: off a one-task eval\n    from . import b\n")
    (tmp_path / "leaderboard" / "app" / "commands" / "c.py").write_text(
        "def run():\n    import json\n")
    assert standard_imports_without_reason(tmp_path) == ["leaderboard/a.py:3: import json"]


def _long_files() -> dict[str, int]:
    out = {}
    for pattern in ("leaderboard/**/*.py", "reference_models/**/*.py", "leaderboard/**/*.js"):
        for path in REPO.glob(pattern):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_MODULE_LINES:
                out[path.relative_to(REPO).as_posix()] = lines
    return out


def test_no_module_is_too_long() -> None:
    long = _long_files()
    assert set(long) <= KNOWN_LONG_FILES, f"over {MAX_MODULE_LINES} lines: {long}"
    assert set(long) == KNOWN_LONG_FILES, \
        f"no longer long: take {sorted(KNOWN_LONG_FILES - set(long))} out of KNOWN_LONG_FILES"


def test_graph_reads_function_and_type_only_imports(tmp_path: Path) -> None:
    package = tmp_path / "leaderboard"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core" / "__init__.py").write_text("")
    (package / "core" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from leaderboard.core import b\n"
        "if TYPE_CHECKING:\n    from leaderboard.core.c import X\n"
        "def f():\n    from . import c\n")
    (package / "core" / "b.py").write_text("")
    (package / "core" / "c.py").write_text("X = 1\n")
    (tmp_path / "reference_models").mkdir()
    found = {(i.imported, i.in_function, i.type_only) for i in imports(tmp_path)
             if i.importer == "leaderboard.core.a"}
    assert found == {("leaderboard.core.b", False, False), ("leaderboard.core.c", False, True),
                     ("leaderboard.core.c", True, False)}


def test_the_statistics_packages_re_export_nothing() -> None:
    """One import path per name: the statistics' names come from ``significance.api`` and
    ``tiers``, the site's rows and tables from ``standings``; the packages in between
    and ``site/board.py`` pass none of them on (three paths to one function, before)."""
    import importlib

    for name in ("leaderboard.publish.stats", "leaderboard.publish.stats.significance"):
        package = importlib.import_module(name)
        public = {n for n in vars(package) if not n.startswith("_")}
        submodules = {n for n in public if hasattr(getattr(package, n), "__file__")}
        assert public == submodules, f"{name} re-exports {sorted(public - submodules)}"
    board = importlib.import_module("leaderboard.publish.site.board")
    assert not hasattr(board, "__all__") and not hasattr(board, "SiteDataError")


# What changes a submission folder (submission.transaction.change_folder, the one way a
# folder changes: all or nothing), and which of its files each writes. Another module
# that writes a folder's files goes through one of these (kept.json: submission.kept,
# which `ci score-pending` once bypassed with a change of its own).
FOLDER_WRITERS = {
    "leaderboard.submission.pipeline": "the scorer's entries, the explorer's files, manifest.txt",
    "leaderboard.submission.kept": "kept.json",
    "leaderboard.app.transfer": "the files the run store keeps, fetched or moved there, "
                                "and manifest.txt",
    "reference_models.folder_writer": "a reference model's metadata.yaml and runs",
    "reference_models.measure": "metadata.yaml's efficiency block",
}


def folder_writers(repo: Path = REPO) -> set[str]:
    """The modules that import ``change_folder`` (or the transaction module itself, whose
    function they may then call) from ``leaderboard.submission.transaction``."""
    found = set()
    for pattern in ("leaderboard/**/*.py", "reference_models/**/*.py"):
        for path in sorted(repo.glob(pattern)):
            module = ".".join(path.relative_to(repo).with_suffix("").parts)
            if module == "leaderboard.submission.transaction":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.ImportFrom) and (
                        (node.module == "leaderboard.submission.transaction"
                         and any(a.name == "change_folder" for a in node.names))
                        or (node.module == "leaderboard.submission"
                            and any(a.name == "transaction" for a in node.names))):
                    found.add(module)
                elif isinstance(node, ast.Import) and any(
                        a.name == "leaderboard.submission.transaction" for a in node.names):
                    found.add(module)
    return found


def test_a_submission_folder_has_one_writer_for_each_file() -> None:
    found = folder_writers()
    assert found <= set(FOLDER_WRITERS), (
        f"{sorted(found - set(FOLDER_WRITERS))} change a submission folder themselves: write "
        "through the module that owns the file (FOLDER_WRITERS), or declare the new owner")
    assert found == set(FOLDER_WRITERS), \
        f"no longer change a folder: take {sorted(set(FOLDER_WRITERS) - found)} out"


def test_folder_writers_are_found(tmp_path: Path) -> None:
    (tmp_path / "leaderboard" / "app").mkdir(parents=True)
    (tmp_path / "reference_models").mkdir()
    (tmp_path / "leaderboard" / "app" / "a.py").write_text(
        "from leaderboard.submission.transaction import ChangeError, change_folder\n")
    (tmp_path / "leaderboard" / "app" / "b.py").write_text(
        "from leaderboard.submission.transaction import ChangeError\n")
    (tmp_path / "reference_models" / "c.py").write_text(
        "def f():\n    from leaderboard.submission import transaction\n")
    assert folder_writers(tmp_path) == {"leaderboard.app.a", "reference_models.c"}
