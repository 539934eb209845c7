"""What running a model cost: wall time, throughput and peak memory per task, with the
hardware named (the ``efficiency:`` block of metadata.yaml,
:class:`leaderboard.submission.metadata.Efficiency`).

:class:`EfficiencyMeter` is handed to the rankers of :mod:`reference_models.baseline_run`,
which time their model calls as *encode* (encoding texts, scoring query-document pairs,
BM25 indexing) and the rest of a ranking as *search* (scoring the corpus and sorting it).
Only what the model computed counts: texts an embedding cache answered are neither timed
nor counted, and the block says whether a cache was on.

Peak memory is per task: on Linux the kernel's high-water mark of the process's resident
set (``VmHWM``) is reset at the start of each task (``/proc/self/clear_refs``, "5"); where
that cannot be done the figure is the process's peak so far (``ru_maxrss``) and says so in
the task's entry. GPU memory is torch's peak allocation on the device, when torch is
already in use.
"""

from __future__ import annotations

import os
import re
import resource
import shlex
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from leaderboard.core.processes import usable_cpus

# A family of more than this many tasks (the ids sharing everything but their last part,
# PI-Indic's 132 T2 language pairs) is recorded as one entry ``<family>/*``: per task, a
# run of every task would not fit metadata.yaml's 64 KiB.
FAMILY_ENTRY_ABOVE = 12


def _read_status_kib(name: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def reset_peak_rss() -> bool:
    """Reset the kernel's peak resident set of this process; False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_rss_bytes() -> int:
    """Peak resident memory of this process since the last reset (or since it started)."""
    kib = _read_status_kib("VmHWM")
    if kib is not None:
        return kib * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _torch_cuda():  # noqa: ANN202 - torch.cuda, or None
    """torch.cuda when torch is already imported and a GPU is in use; a BM25 or packaged
    run never imports torch for this."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None
    return torch.cuda


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


@dataclass
class TaskCost:
    encode_seconds: float = 0.0
    search_seconds: float = 0.0
    texts: int = 0
    tokens: int | None = 0
    peak_cpu_memory_bytes: int | None = None
    peak_gpu_memory_bytes: int | None = None
    load_average: float | None = None
    sample: str | None = None
    notes: list[str] = field(default_factory=list)

    def add_tokens(self, tokens: int | None) -> None:
        self.tokens = None if tokens is None or self.tokens is None else self.tokens + tokens

    def record(self) -> dict:
        """The task's entry of the block (rounded: the clock is not finer than that)."""
        rate = (lambda amount: round(amount / self.encode_seconds, 3)
                if amount is not None and self.encode_seconds > 0 and amount else None)
        entry: dict = {
            "encode_seconds": round(self.encode_seconds, 3),
            "search_seconds": round(self.search_seconds, 3),
            "texts": self.texts,
            "tokens": self.tokens,
            "texts_per_second": rate(self.texts),
            "tokens_per_second": rate(self.tokens),
            "peak_cpu_memory_bytes": self.peak_cpu_memory_bytes,
            "peak_gpu_memory_bytes": self.peak_gpu_memory_bytes,
            "load_average": self.load_average,
        }
        sample = "; ".join(([self.sample] if self.sample else []) + self.notes)
        if sample:
            entry["sample"] = sample
        return known(entry)


def known(values: dict) -> dict:
    """``values`` without what is not known: metadata.yaml records no nulls (an absent
    figure is an unknown one)."""
    return {k: v for k, v in values.items() if v is not None}


def without_unknowns(block: dict) -> dict:
    """An ``efficiency:`` block as the writer writes it: no null in it, its hardware or
    any task's entry (one written before that rule, or by hand, may hold some)."""
    out = known(block)
    if isinstance(out.get("hardware"), dict):
        out["hardware"] = known(out["hardware"])
    if isinstance(out.get("tasks"), dict):
        out["tasks"] = {key: known(entry) if isinstance(entry, dict) else entry
                        for key, entry in out["tasks"].items()}
    return out


def merge_costs(costs: list[TaskCost]) -> TaskCost:
    """One entry for several tasks: times, texts and tokens summed, peaks and load the
    largest."""
    out = TaskCost()
    for cost in costs:
        out.encode_seconds += cost.encode_seconds
        out.search_seconds += cost.search_seconds
        out.texts += cost.texts
        out.add_tokens(cost.tokens)
        for name in ("peak_cpu_memory_bytes", "peak_gpu_memory_bytes", "load_average"):
            values = [v for v in (getattr(out, name), getattr(cost, name)) if v is not None]
            setattr(out, name, max(values) if values else None)
        out.notes += [n for n in cost.notes if n not in out.notes]
    samples = list(dict.fromkeys(c.sample for c in costs if c.sample))
    out.sample = "; ".join(samples) or None
    return out


class EfficiencyMeter:
    """Times a run task by task. Rankers call :meth:`encoding` around model calls and
    :meth:`searching` around the rest of a ranking; :meth:`task` opens a task's entry."""

    def __init__(self) -> None:
        self.costs: dict[str, TaskCost] = {}
        self._current: TaskCost | None = None
        self._depth = 0   # nested timings (a reranker's first stage) count once

    @contextmanager
    def task(self, task_id: str, sample: str | None = None) -> Iterator[TaskCost]:
        cost = self.costs.setdefault(task_id, TaskCost(sample=sample))
        if not reset_peak_rss():
            cost.notes.append("peak CPU memory is the process's peak so far")
        cuda = _torch_cuda()
        if cuda is not None:
            cuda.reset_peak_memory_stats()
        previous, self._current = self._current, cost
        try:
            yield cost
        finally:
            self._current = previous
            cost.peak_cpu_memory_bytes = peak_rss_bytes()
            if cuda is not None:
                cost.peak_gpu_memory_bytes = int(cuda.max_memory_allocated())
            cost.load_average = load_average()

    @contextmanager
    def _timed(self, attribute: str) -> Iterator[None]:
        cost = self._current
        if cost is None or self._depth:
            yield
            return
        self._depth += 1
        cuda = _torch_cuda()
        start = time.perf_counter()
        try:
            yield
        finally:
            if cuda is not None:
                cuda.synchronize()
            setattr(cost, attribute, getattr(cost, attribute) + time.perf_counter() - start)
            self._depth -= 1

    def encoding(self, texts: int):  # noqa: ANN201 - a context manager
        """Time a model call over ``texts`` texts."""
        cost = self._current
        if cost is not None and not self._depth:
            cost.texts += texts
        return self._timed("encode_seconds")

    def count_tokens(self, tokens: int | None) -> None:
        """The tokens of the model call just timed (None: the runner cannot say)."""
        if self._current is not None and not self._depth:
            self._current.add_tokens(tokens)

    def encode(self, runner, items: list, compute):  # noqa: ANN001, ANN201
        """``compute()`` timed as a model call of ``runner`` over ``items``, with the tokens
        it fed: the ``last_token_count`` the runner sets while it encodes, else (asked
        after the timing) its ``count_tokens(items)``, else unknown."""
        if self._current is None or self._depth:
            return compute()
        if hasattr(runner, "last_token_count"):
            runner.last_token_count = None
        with self.encoding(len(items)):
            out = compute()
        tokens = getattr(runner, "last_token_count", None)
        if tokens is None and hasattr(runner, "count_tokens"):
            tokens = runner.count_tokens(items)
        self.count_tokens(tokens)
        return out

    def searching(self):  # noqa: ANN201 - a context manager
        return self._timed("search_seconds")

    def entries(self) -> dict[str, dict]:
        """Each task's entry; a family of more than :data:`FAMILY_ENTRY_ABOVE` tasks as one
        ``<family>/*`` entry."""
        out: dict[str, dict] = {}
        for key, ids in entry_keys(list(self.costs)).items():
            if key.endswith("/*"):
                merged = merge_costs([self.costs[i] for i in ids])
                merged.notes.append(f"{len(ids)} tasks together")
                out[key] = merged.record()
            else:
                out[key] = self.costs[key].record()
        return out


def entry_keys(task_ids: list[str]) -> dict[str, list[str]]:
    """The block's entry keys for ``task_ids``, each with the tasks it covers: a task's own
    id, or ``<family>/*`` for a family of more than :data:`FAMILY_ENTRY_ABOVE` tasks."""
    families: dict[str, list[str]] = {}
    for task_id in task_ids:
        families.setdefault(task_id.rsplit("/", 1)[0], []).append(task_id)
    out: dict[str, list[str]] = {}
    for family, ids in families.items():
        if len(ids) > FAMILY_ENTRY_ABOVE:
            out[f"{family}/*"] = ids
        else:
            out.update({i: [i] for i in ids})
    return out


def cpu_identity(model_name: str) -> str:
    """The CPU's model name with its family and model numbers where the kernel gives them:
    cloud CPUs often report a bare "AMD EPYC", which does not tell Zen 3 from Zen 4."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("cpu family", "model") and key not in fields:
                    fields[key] = value.strip()
                if not line.strip() and fields:
                    break
    except OSError:
        return model_name
    if "cpu family" in fields and "model" in fields:
        return f"{model_name} (family {fields['cpu family']} model {fields['model']})"
    return model_name


def hardware_record(cpu: str, device: str, precision: str, gpus: int = 1) -> dict:
    """The block's ``hardware``: CPU model and cores, GPU model and count, precision. The
    cores are those the run may use (its affinity: Slurm, taskset or a container's cpuset
    may hold it to a few of the machine's), as torch's and the engines' threads are."""
    record: dict = {"cpu": cpu_identity(cpu), "cpu_cores": usable_cpus(), "gpu_count": 0,
                    "precision": precision}
    if device.startswith("cuda"):
        import torch

        record["gpu"] = torch.cuda.get_device_name(torch.device(device))
        record["gpu_count"] = gpus
    return known(record)


def efficiency_block(meter: EfficiencyMeter, hardware: dict, measured_by: str,
                     embedding_cache: bool, date: str) -> dict:
    return {"source": "measured", "measured_by": measured_by, "date": date,
            "hardware": hardware, "embedding_cache": embedding_cache,
            "tasks": meter.entries()}


# What one block states for every figure it holds: a figure measured otherwise cannot stay in
# it. (Its command is compared apart, by what changes a measurement: :func:`_settings`.)
BLOCK_SETTINGS = ("source", "hardware", "embedding_cache", "date")

# Options of a recorded command that change nothing a figure measures: what metadata.yaml
# says of the submission and its model (the model's weights are its --revision, compared),
# and --device, which the block's hardware states as it resolved (a GPU named or not;
# ``auto`` on a machine without one is ``cpu``). --tasks is what the entries name.
NOT_MEASURED = frozenset({"--contact", "--owner", "--id", "--name", "--licence", "--link",
                          "--instruction-trained", "--device"})


def _covers(keys: dict, key: str) -> bool:
    """Whether an entry ``key`` of an earlier block is measured again by entries ``keys``:
    the same task or family, or a task of a family entry. Some tasks of a family entry
    are not the entry: its figures are summed, and cannot be split (:func:`_split`)."""
    family = key[:-2] if key.endswith("/*") else key.rsplit("/", 1)[0]
    return key in keys or f"{family}/*" in keys


def _split(before: dict, key: str, keys: dict) -> str | None:
    """Why the earlier family entry ``key`` cannot stay beside entries ``keys`` that measure
    some of its tasks again (None: they measure none)."""
    again = [k for k in keys if key.endswith("/*") and k.rsplit("/", 1)[0] == key[:-2]]
    if not again:
        return None
    entry = before["tasks"][key]
    found = re.search(r"(\d+) tasks together",
                      str(entry.get("sample", "")) if isinstance(entry, dict) else "")
    shown = ", ".join(again[:3]) + (f" and {len(again) - 3} more" if len(again) > 3 else "")
    return (f"{key} sums the figures of {found.group(1) + ' tasks' if found else 'its tasks'} "
            f"together, which cannot be told apart from {shown} measured again")


def _command_tasks(command: object) -> tuple[list[str], list[str]] | None:
    """A recorded command's words without its ``--tasks`` patterns, and those patterns
    (None: not a command line)."""
    try:
        words = shlex.split(command) if isinstance(command, str) else None
    except ValueError:
        return None
    if not words:
        return None
    rest: list[str] = []
    patterns: list[str] = []
    taking = False
    for word in words:
        if word == "--tasks":
            taking = True
        elif taking and not word.startswith("--"):
            patterns.append(word)
        else:
            taking = False
            rest.append(word)
    return rest, patterns


def _settings(command: object) -> dict[str, str] | None:
    """What a recorded command sets that changes a measurement, by name: ``command`` (the
    program and its model, ``leaderboard baselines run bm25s``) and each option other than
    --tasks and :data:`NOT_MEASURED` with its values as written (a repeated option's all,
    in order; a flag's none). None: not a command line."""
    parts = _command_tasks(command)
    if parts is None:
        return None
    words = parts[0]
    first = next((i for i, w in enumerate(words) if w.startswith("--")), len(words))
    out = {"command": shlex.join(words[:first])}
    values: dict[str, list[str]] = {}
    name = None
    for word in words[first:]:
        if word.startswith("--"):
            name = word
            values.setdefault(name, [])
        else:
            values[name].append(word)  # type: ignore[index] - name is set: words[first] is one
    out.update({k: shlex.join(v) for k, v in values.items() if k not in NOT_MEASURED})
    return out


def _shown(value: object) -> str:
    """A setting as metadata.yaml writes it (true, not Python's True)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def block_conflicts(before: object, block: dict) -> tuple[list[str], list[str]]:
    """The entries of an earlier ``efficiency:`` block (``before``, as read from
    metadata.yaml) for tasks ``block`` does not measure, and why they cannot be kept beside
    its figures: one block names one machine, precision, cache setting, day and command
    (apart from its tasks and what changes no measurement), and says every figure was
    measured so. No reasons: they can."""
    if not isinstance(before, dict) or not isinstance(before.get("tasks"), dict):
        return [], []
    others = [k for k in before["tasks"] if not _covers(block["tasks"], k)]
    if not others:
        return [], []
    reasons = []
    for name in BLOCK_SETTINGS:
        theirs, ours = before.get(name), block.get(name)
        if name == "hardware" and isinstance(theirs, dict) and isinstance(ours, dict):
            # Field by field; a null is an unknown, as an absent field is.
            reasons += [f"hardware.{k} {_shown(theirs.get(k))} there, {_shown(ours.get(k))} now"
                        for k in dict.fromkeys([*theirs, *ours]) if theirs.get(k) != ours.get(k)]
        elif theirs != ours:
            reasons.append(f"{name} {_shown(theirs)} there, {_shown(ours)} now")
    reasons += [r for r in (_split(before, k, block["tasks"]) for k in others) if r]
    old, new = _settings(before.get("measured_by")), _settings(block["measured_by"])
    if old is None or new is None:
        reasons.append(f"measured by `{_shown(before.get('measured_by'))}` there, "
                       f"`{block['measured_by']}` now")
    else:
        reasons += [f"{k} {old.get(k, 'not given')} there, {new.get(k, 'not given')} now"
                    for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k)]
    return others, reasons


def merged_block(before: object, block: dict) -> dict:
    """``block`` with the entries of the earlier block ``before`` for the tasks it does not
    measure, in the earlier order, and its command naming every task of both: only when
    :func:`block_conflicts` finds no reason against it (the caller asks first). A kept
    entry's nulls are left out, as the meter leaves out what it does not know."""
    others, reasons = block_conflicts(before, block)
    if not others:
        return block
    assert not reasons and isinstance(before, dict), reasons
    old, new = _command_tasks(before["measured_by"]), _command_tasks(block["measured_by"])
    assert old is not None and new is not None
    words = shlex.split(block["measured_by"])
    if "--tasks" in words:
        at = words.index("--tasks")
        # No --tasks there: every task, which covers these too.
        words[at:at + 1 + len(new[1])] = (
            ["--tasks", *dict.fromkeys(old[1] + new[1])] if old[1] else [])
    tasks = {}
    for key, entry in before["tasks"].items():  # the earlier order, new figures in place
        if key in others:
            tasks[key] = entry
        elif key in block["tasks"]:
            tasks[key] = block["tasks"][key]
    tasks.update({k: v for k, v in block["tasks"].items() if k not in tasks})
    return without_unknowns({**block, "measured_by": shlex.join(words), "tasks": tasks})


def efficiency_conflict(path: object, before: object, block: dict) -> str | None:
    """Why the ``efficiency:`` block ``before`` of the metadata.yaml at ``path`` cannot
    take the figures of ``block`` without losing those of its other tasks (None: it can):
    the message `baselines run` and `baselines measure` refuse with."""
    others, reasons = block_conflicts(before, block)
    if not reasons:
        return None
    return (f"{path}: its efficiency: block holds figures of {', '.join(others)}, which "
            f"cannot stay beside these ({'; '.join(reasons)}): a block states one machine, "
            "precision, cache setting, day and command for all its figures, and the "
            'submission page shows them as "Measured on <hardware>, <date>". Measure them '
            f"all again (--tasks {' '.join(others + list(block['tasks']))}) with these "
            f"settings, or pass --replace-efficiency to drop the figures of {', '.join(others)}")
