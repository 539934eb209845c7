"""The benchmark registry: every task the leaderboard scores, declared as data.

The tasks are declared per benchmark in :mod:`leaderboard.benchmarks`; this module
assembles them. Each task says where its data comes from (upstream id and pinned revision), how the
original and altered query ids pair up, which documents a run may rank, which metrics
it reports (and which one is primary), and which leaderboard views it belongs to.
The rest of the engine reads these declarations instead of special-casing benchmarks.
"""

from __future__ import annotations

import fnmatch
from functools import cache

from leaderboard.benchmarks import declared
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.tasks import Task


def _build_tasks() -> list[Task]:
    return [t for b in declared() for t in b.tasks]


@cache
def all_tasks() -> dict[str, Task]:
    """Every registered task by id, in registry order."""
    tasks: dict[str, Task] = {}
    for t in _build_tasks():
        if t.id in tasks:
            raise ValueError(f"task id {t.id!r} is declared twice")
        tasks[t.id] = t
    return tasks


def matches_task_pattern(task_id: str, pattern: str) -> bool:
    """Whether ``task_id`` is one a ``--tasks PATTERN`` selects: the id itself, or a shell
    wildcard pattern of ids (``followtable/*``), case sensitive. Every command's --tasks
    matches by this (`runs add`, `baselines run|measure`, `data status`)."""
    return fnmatch.fnmatchcase(task_id, pattern)


class UnknownTaskError(FollowBoardError, KeyError):
    def __str__(self) -> str:  # KeyError quotes its argument; we want a sentence.
        return str(self.args[0])


def get_task(task_id: str) -> Task:
    # A task id starts with its benchmark's id: building that one benchmark's tasks finds
    # it without building every benchmark's (PI-Indic declares about 300; 3 ms of a
    # one-task `leaderboard eval`). Anything else goes through the whole registry.
    for benchmark in declared():
        if task_id.startswith(benchmark.id + "/"):
            for task in benchmark.tasks:
                if task.id == task_id:
                    return task
    tasks = all_tasks()
    if task_id in tasks:
        return tasks[task_id]
    meant = meant_text(close_task_ids(task_id, list(tasks)))
    hint = f" Did you mean {meant}?" if meant else ""
    raise UnknownTaskError(
        f"unknown task {task_id!r}.{hint} Run `leaderboard tasks` to list every task.")


MAX_SUGGESTIONS = 8


def meant_text(suggestions: list[str]) -> str:
    """What "did you mean ...?" names: "a or b", "one of: a, b, c", the first
    MAX_SUGGESTIONS and "..." past them; empty for none."""
    if len(suggestions) > MAX_SUGGESTIONS:
        return f"one of: {', '.join(suggestions[:MAX_SUGGESTIONS])} ..."
    if len(suggestions) > 2:
        return f"one of: {', '.join(suggestions)}"
    return " or ".join(suggestions)


def close_task_ids(text: str, task_ids: list[str]) -> list[str]:
    """Task ids a mistyped ``text`` may mean, ignoring case: the id itself in other case
    (``followIR/robust04``), the tasks under it when it names a benchmark or a group
    (``followtable``: all of them), the task of that path under a benchmark named
    otherwise (``pi-indic/t1/hin``: pi-indic-val150/t1/hin), else up to three ids a
    character or two away (``followtable/wtq``: wtr and wqt), closest first."""
    import difflib  # here: 1.6 ms every one-task `leaderboard eval` would pay for typos

    wanted = text.strip().lower().rstrip("/")
    by_lower = {t.lower(): t for t in task_ids}
    if wanted in by_lower:
        return [by_lower[wanted]]
    under = sorted(t for low, t in by_lower.items() if low.startswith(wanted + "/"))
    if under:
        return under
    head, _, rest = wanted.partition("/")
    moved = []
    for low, task_id in by_lower.items() if rest else ():
        # The same path under a benchmark's name that begins the one given or is begun by
        # it (pi-indic, pi-indic-val150), or is close to it.
        other, _, other_rest = low.partition("/")
        if other_rest == rest and (other.startswith(head) or head.startswith(other) or
                                   difflib.SequenceMatcher(None, head, other).ratio() >= 0.6):
            moved.append(task_id)
    if moved:
        return sorted(moved)
    close = difflib.get_close_matches(wanted, list(by_lower), n=3, cutoff=0.85)
    return [by_lower[low] for low in close]


def tasks_of(benchmark: str) -> list[Task]:
    return [t for t in all_tasks().values() if t.benchmark == benchmark]
