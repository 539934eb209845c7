"""What a significance test resamples: the unit that was sampled independently.

A benchmark's queries are not all independent draws. A FollowTable topic was written once
and then given several instructions: its query-instruction pairs share the topic-only run
and the topic's relevant tables, so they rise and fall together. A FollowIR or mFollowIR
topic is one TREC narrative, asked with its original and its altered instruction, and an
mFollowIR topic is the same NeuCLIR topic in every language it was judged in. PI-Indic's
languages are translations of the same validated pairs, and a T4 persona brings its
compatible instruction and ten incompatible ones. Treating the parts of one unit as
independent shrinks every standard error and calls noise significant.

Each benchmark declares its unit per task (:attr:`leaderboard.benchmarks.declaration.
Benchmark.sampling_unit`) and every column of its views carries it
(:attr:`leaderboard.benchmarks.views.Column.sampling`). Sign flips, the bootstrap,
Wilcoxon's ranks and DeLong's clustered variance then take one value per unit
(:func:`leaderboard.publish.standings.stratified_units`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from leaderboard.core.data.layout_files import followtable_topic, mteb_topic, pi_indic_pair

#: How a query id names its unit: the id itself, or the topic (or pair) an id grammar names.
TopicRule = Literal["query", "followtable topic", "mteb topic", "pi-indic pair"]

_TOPIC_OF: dict[TopicRule, Callable[[str], str]] = {
    "query": str,
    "followtable topic": followtable_topic,
    "mteb topic": mteb_topic,
    "pi-indic pair": pi_indic_pair,
}


@dataclass(frozen=True)
class SamplingUnit:
    """One kind of independently sampled unit.

    ``rule`` turns a query id into the unit's id within a task; ``across_tasks`` says that
    one unit id in several tasks of a column is one unit (a translated pair, a NeuCLIR
    topic judged in several languages), not one unit per task.
    """

    name: str                   # "topic"
    plural: str                 # "topics"
    holds: str                  # what one unit is, in words, for pages and downloads
    rule: TopicRule = "query"
    across_tasks: bool = False

    def key(self, task_id: str, query_id: str) -> str:
        """The id of the unit ``query_id`` of ``task_id`` belongs to."""
        return self.keys(task_id, (query_id,))[0]

    def keys(self, task_id: str, query_ids: Iterable[str]) -> list[str]:
        """:meth:`key` of each of a task's query ids (in bulk: a site of a thousand
        systems asks for some twenty million)."""
        ids = query_ids if self.rule == "query" else map(_TOPIC_OF[self.rule], query_ids)
        if self.across_tasks:
            return list(ids)
        prefix = f"{task_id}:"
        return [prefix + unit for unit in ids]

    @property
    def one_query_per_task(self) -> bool:
        """Whether a unit holds at most one query of each task: the query itself, or the
        one item of a PI-Indic pair a task asks (its persona in T1/T2, its instruction in
        T3)."""
        return self.rule in ("query", "pi-indic pair")

    @property
    def groups_queries(self) -> bool:
        """Whether a unit may hold several of a task's queries (or the same query of
        several tasks), so that the units are not simply the queries."""
        return self.rule != "query" or self.across_tasks

    def count(self, n: int) -> str:
        """"n topics", "1 topic"."""
        return f"{n:,} {self.name if n == 1 else self.plural}"


#: Each query its own unit: the default where nothing groups queries.
PER_QUERY = SamplingUnit("query", "queries", "one query")
