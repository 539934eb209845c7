"""Whether a model could have seen a benchmark's test data: its declared training data
(``training_data`` of a model record, :class:`leaderboard.publish.models.TrainingData`)
against the sources each benchmark declares (:class:`EvaluationSources`).

A model's cells on a benchmark get a mark when its declared training data names one of
the benchmark's source collections or the source of its instructions. The mark says what
is shared and who says so; it never hides, moves or re-ranks a figure, and a model whose
training data is not disclosed gets no mark, only the words "not disclosed" where its
training data is listed: disclosure is never punished. Tags name data sets (MS MARCO,
TREC Robust 2004), not the broad sources they were drawn from (Wikipedia, the web), so a
model pre-trained on Wikipedia text is not marked on Wikipedia tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from leaderboard.benchmarks import benchmark_of, declared
from leaderboard.benchmarks.declaration import Benchmark
from leaderboard.benchmarks.registry import all_tasks
from leaderboard.benchmarks.views import View
from leaderboard.publish.models import ModelRecord

# The mark a cell carries (with its details) when the model's training data shares a
# source with the benchmark.
TRAINING_MARK = "†"
NOT_DISCLOSED = "not disclosed"


@dataclass(frozen=True)
class Overlap:
    """What a model's declared training data shares with one benchmark."""

    benchmark: str
    collections: tuple[str, ...]
    instructions: tuple[str, ...]
    statement: str
    source: str

    def shares(self) -> list[str]:
        """What is shared, in words: the benchmark's sources (collections, then
        instructions) that the training data names."""
        sources = declared_sources(self.benchmark)
        return [sources.get(tag, tag) for tag in self.collections + self.instructions]

    def document(self) -> dict[str, object]:
        """The overlap as the downloads give it (a cell's ``training_overlap``): the
        benchmark, the shared source tags of each kind and what they are in words, and the
        training data's statement with who says so, as the cell's details say them."""
        return {"benchmark": self.benchmark, "collections": list(self.collections),
                "instructions": list(self.instructions), "shares": self.shares(),
                "statement": self.statement, "source": self.source}

    def describe(self) -> str:
        shared = self.shares()
        kind = ("its instructions' source" if self.instructions and not self.collections
                else "a source collection" if not self.instructions
                else "a source collection and its instructions' source")
        return (f"{TRAINING_MARK} training data shares {kind} with this benchmark: "
                + "; ".join(shared) + f" (declared training data: {self.statement} "
                f"Source: {self.source})")


def declared_sources(benchmark_id: str) -> dict[str, str]:
    """A benchmark's source tags and what each is, in words."""
    return dict(benchmark_of(benchmark_id).evaluation_sources.what)


def training_overlap(record: ModelRecord, benchmark: Benchmark) -> Overlap | None:
    """What ``record``'s declared training data shares with ``benchmark`` (None: nothing,
    or nothing declared)."""
    data = record.training_data
    if data is None:
        return None
    sources = benchmark.evaluation_sources
    collections = tuple(t for t in data.collections if t in sources.collections)
    instructions = tuple(t for t in data.instructions if t in sources.instructions)
    if not collections and not instructions:
        return None
    source = data.source + (f", {data.url}" if data.url else "")
    return Overlap(benchmark.id, collections, instructions, data.statement.strip(), source)


@cache
def _benchmark_of_prefix() -> tuple[tuple[str, str], ...]:
    """Reported-only task-id prefixes (a paper's printed averages) and their benchmark."""
    return tuple((prefix, b.id) for b in declared() for prefix in b.reported_only_prefixes)


def task_benchmark(task_id: str) -> str | None:
    """The benchmark a task id belongs to, reported-only ids included (None: unknown)."""
    task = all_tasks().get(task_id)
    if task is not None:
        return task.benchmark
    return next((b for prefix, b in _benchmark_of_prefix() if task_id.startswith(prefix)),
                None)


def view_benchmarks(view: View) -> tuple[Benchmark, ...]:
    """The benchmarks whose tasks a view's columns cover."""
    ids = dict.fromkeys(b for c in view.columns for t in c.tasks
                        if (b := task_benchmark(t)) is not None)
    return tuple(benchmark_of(b) for b in ids)


def view_overlap(record: ModelRecord, view: View) -> Overlap | None:
    """What the record's training data shares with the benchmark(s) of a view."""
    for benchmark in view_benchmarks(view):
        found = training_overlap(record, benchmark)
        if found is not None:
            return found
    return None


def training_text(record: ModelRecord) -> str:
    """A model's declared training data in one line, or "not disclosed"."""
    data = record.training_data
    if data is None:
        return NOT_DISCLOSED
    return f"{data.statement.strip()} (source: {data.source})"
