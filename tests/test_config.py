"""One configuration module, one environment prefix, one cache root; one error root.

Issue 33: settings were read under two prefixes (FOLLOWBOARD_, LEADERBOARD_) in eleven
places with three cache roots, and 37 exception classes had no common root, so the
command line caught (OSError, ValueError, KeyError) and called anything else an
internal error.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from leaderboard.app.cli import main
from leaderboard.core import config
from leaderboard.core.errors import FollowBoardError

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted([*REPO.glob("leaderboard/**/*.py"), *REPO.glob("reference_models/**/*.py")])
TEXTS = sorted([*SOURCES, *REPO.glob(".github/workflows/*.yml"), REPO / "README.md",
                REPO / "pyproject.toml", *REPO.glob("docs/*.md"), *REPO.glob("scripts/*.sh"),
                *REPO.glob("leaderboard/publish/site/templates/*.j2")])
SETTING = re.compile(r"\bLEADERBOARD_[A-Z_]+\b")


def test_one_prefix_everywhere() -> None:
    old = [f"{p.relative_to(REPO)}:{n}" for p in TEXTS
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if "FOLLOWBOARD_" in line]
    assert old == [], "settings under the old prefix: " + ", ".join(old)


def test_settings_are_named_in_the_config_module_only() -> None:
    """Every LEADERBOARD_ variable the code reads is a constant of leaderboard.core.config;
    other modules import the constant (docs and help texts may name the variable)."""
    declared = {v for k, v in vars(config).items() if k.startswith("ENV_")}
    found = []
    for path in SOURCES:
        if path == REPO / "leaderboard/core/config.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SETTING.fullmatch(node.value):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {node.value}")
    assert found == [], "read these through leaderboard.core.config: " + ", ".join(found)
    assert {"LEADERBOARD_DATA", "LEADERBOARD_CACHE_DIR", "LEADERBOARD_DATA_CACHE",
            "LEADERBOARD_RUN_STORE"} <= declared


def test_every_cache_is_under_one_root(tmp_path: Path, monkeypatch) -> None:
    from leaderboard.core.data import cache as task_cache
    from leaderboard.store import cache as store_cache
    from reference_models.cache import default_cache_root

    monkeypatch.delenv(config.ENV_DATA_CACHE, raising=False)
    monkeypatch.setenv(config.ENV_CACHE_DIR, str(tmp_path / "root"))
    assert task_cache.cache_dir() == tmp_path / "root" / "task-data"
    assert store_cache.cache_dir() == tmp_path / "root" / "store"
    assert default_cache_root() == tmp_path / "root" / "embeddings"
    monkeypatch.delenv(config.ENV_CACHE_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.cache_root() == tmp_path / "xdg" / "followboard"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config.cache_root() == tmp_path / "home" / ".cache" / "followboard"
    monkeypatch.setenv(config.ENV_DATA_CACHE, "OFF")
    assert task_cache.cache_dir() is None and store_cache.cache_dir() is not None


def _exception_classes() -> dict[str, tuple[str, list[str]]]:
    """Class name -> (where, names of its bases) of every class that derives, directly or
    not, from an exception, in the project's modules."""
    classes: dict[str, tuple[str, list[str]]] = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                classes[node.name] = (f"{path.relative_to(REPO)}:{node.lineno}", bases)
    return classes


def test_every_expected_error_has_one_root() -> None:
    classes = _exception_classes()
    builtin = set(dir(builtins))

    def rooted(name: str, seen: frozenset[str] = frozenset()) -> bool | None:
        if name == "FollowBoardError":
            return True
        if name not in classes or name in seen:
            return None  # a library's class
        results = [rooted(b, seen | {name}) for b in classes[name][1]]
        if any(results):
            return True
        return False if any(r is False or b in builtin and b.endswith(("Error", "Exception"))
                            for r, b in zip(results, classes[name][1])) else None

    unrooted = [f"{where} {name}" for name, (where, bases) in classes.items()
                if not name.startswith("_") and rooted(name) is False]
    assert unrooted == [], ("exceptions a command can end with derive from "
                            "leaderboard.core.errors.FollowBoardError: " + ", ".join(unrooted))


def test_the_command_line_maps_errors_in_one_place(monkeypatch, capsys) -> None:
    from leaderboard.app.commands import tasks as tasks_command

    class Refused(FollowBoardError):
        exit_code = 3

    def refuse(args):  # noqa: ANN001, ANN202
        raise Refused("tasks.txt line 2: no such task")

    def bug(args):  # noqa: ANN001, ANN202
        raise ValueError("an invariant broke")

    for handler, code, text in ((refuse, 3, "leaderboard tasks: error: tasks.txt line 2: "
                                             "no such task"),
                                (bug, 1, "leaderboard tasks: internal error (ValueError): "
                                         "an invariant broke")):
        original = tasks_command.register

        def register(sub, handler=handler, original=original):  # noqa: ANN001, ANN202
            original(sub)
            sub.choices["tasks"].set_defaults(handler=handler)

        monkeypatch.setattr(tasks_command, "register", register)
        assert main(["tasks"]) == code
        err = capsys.readouterr().err
        assert err.startswith(text) and "Traceback" not in err
        monkeypatch.setattr(tasks_command, "register", original)


def test_built_in_bases_stay() -> None:
    """A rooted error is still the built-in one it refines, for code that catches that."""
    from leaderboard.app.datapull.common import PullError
    from leaderboard.benchmarks.registry import UnknownTaskError
    from leaderboard.core.data.base import DataFormatError, MissingDataError
    from leaderboard.store.files import StoreError
    from leaderboard.submission.results import ResultsFileError

    for cls, builtin in ((MissingDataError, FileNotFoundError), (DataFormatError, ValueError),
                         (ResultsFileError, ValueError), (UnknownTaskError, KeyError),
                         (StoreError, Exception), (PullError, Exception)):
        assert issubclass(cls, FollowBoardError) and issubclass(cls, builtin), cls
