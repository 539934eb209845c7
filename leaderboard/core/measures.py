"""The measure catalogue: what every measure a task can report is, declared once.

A *metric key* names what a score sheet, a results file or a table column holds: a measure,
with a cutoff where the measure takes one, after an optional qualifier that says which run
or variant it is of: ``nDCG@10``, ``original/AP@1000`` (the original-instruction run's
AP@1000), ``p-MRR``, ``calibrated/ECE``. Names follow ir_measures (``nDCG@k``, ``AP@k``,
``RR@k``, ``R@k``, ``P@k``) and the benchmarks' papers (p-MRR, IRS, NFR, T4's metrics).

Each :class:`Measure` says, once, what every surface needs to know of it: how its name and
cutoff are written, which way is better, its range (a measure that can fall below 0 is
*signed*: shown with its sign and drawn on a diverging scale), what a system without skill
scores, how it is labelled (AP@1000 is the FollowIR paper's MAP@1000), what a column of it
means, and what one query's figure is called and means (T4's per-persona AUROC figure is a
DeLong component, "AUROC part"). Scoring's metric dispatch, the benchmarks' columns, the
standings, the downloads, the PR comment, ``explain``, the metrics page and the explorer
(through its index file) read it here. How a value is printed is
:mod:`leaderboard.core.display`'s one rule.

Adding a measure: declare it below, and give it a kernel (the function that computes it,
under :mod:`leaderboard.core.metrics`) unless it is only ever transcribed from papers.

A plain module (the standard library only): ``leaderboard eval`` imports it.
"""

from __future__ import annotations

from typing import Literal

from leaderboard.core.errors import FollowBoardError

#: Which way a measure is better. "neither": a share that describes the data rather than
#: a system's skill (T4's share of compatible pairs); sorted as "higher" where anything
#: sorts by it.
Direction = Literal["higher", "lower", "neither"]
#: What a system without skill scores, drawn as a reference row in a table:
#:  "zero": 0 (p-MRR and IRS: no change, the altered run ranked as the original; not a
#:  floor, since demoting every document scores above it);
#:  "chance": 0.5 (AUROC, balanced accuracy: a constant or random score);
#:  "positive rate": the share of positive pairs (AUPRC of a constant score);
#:  "majority": the share of the majority class (accuracy of always answering "incompatible");
#:  "constant calibrated": 0 (ECE of a constant probability equal to the positive rate).
NoSkill = Literal["zero", "chance", "positive rate", "majority", "constant calibrated"]
#: The paired test two systems' figures of a measure are compared by, unit by unit
#: (:mod:`leaderboard.publish.stats.significance`):
#:  "randomization": Fisher's randomization test of the mean difference (sign flips), the
#:  usual IR choice (Smucker et al., CIKM 2007), for a measure that is a mean of per-query
#:  scores (nDCG, AP, R, RR, IRS, accuracy, ...);
#:  "wilcoxon": the Wilcoxon signed-rank test, as the mFollowIR paper tests p-MRR: a
#:  bounded per-query *change* score with many exact zeros and heavy tails, where the
#:  original analysis is rank-based;
#:  "delong": DeLong's test for correlated ROC curves, on each persona's structural
#:  components (AUROC is not a mean of per-pair scores, and a persona's pairs are not
#:  independent).
PairedTest = Literal["randomization", "wilcoxon", "delong"]
#: Where a measure is computed: the module of :mod:`leaderboard.core.metrics` of that name,
#: or None for a measure only ever transcribed from a paper (FollowTable's NFR).
Kernel = Literal["ranking", "instruction", "classification"]


class _ReadOnly:
    """Attributes set once, in ``__init__``. A plain class rather than a frozen dataclass:
    `leaderboard eval` imports the catalogue before it starts reading its runs, and
    generating a dataclass's methods would cost more than all the rest of this module."""

    __slots__: tuple[str, ...] = ()

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Measure(_ReadOnly):
    """One measure. Texts are plain (no markup); ``{depth}`` in ``help`` becomes "the top
    k documents" for a key with a cutoff k and "the whole ranking" for one without
    (:meth:`help_at`).

    ``title``: the measure in words; ``help``: what a column of it shows; ``low``/``high``:
    the range of a task's figure; ``takes_cutoff``: written name@k (nDCG@10), or name for
    the whole run; ``mean_name``: the name of its mean over a task's queries where it
    differs ("MAP", FollowIR's); ``query_name``/``query_help``: one query's figure, its
    name where the measure's own would mislead, and what it is; ``task_figure``: what a
    task's figure is, in words, when it is not the mean of per-query figures (T4's AUPRC
    and ECE, computed over all the task's pairs at once); ``one_class_wins``: how a
    classifier that answers one class for every pair (none compatible, or all) scores well
    on the measure without any skill, in words, for a measure it can win so (ECE: a
    constant answer can be perfectly calibrated): the tables mark such a figure;
    ``tells_one_class``: the measure's figure is 0 or 1 exactly when the classifier answers
    one class (its share of pairs predicted compatible), which is how the tables know;
    ``test``: the paired test its figures are compared by (:data:`PairedTest`)."""

    __slots__ = ("name", "title", "kernel", "help", "direction", "low", "high",
                 "takes_cutoff", "no_skill", "mean_name", "query_name", "query_help",
                 "task_figure", "one_class_wins", "tells_one_class", "test")
    name: str
    title: str
    kernel: Kernel | None
    help: str
    direction: Direction
    low: float
    high: float
    takes_cutoff: bool
    no_skill: NoSkill | None
    mean_name: str | None
    query_name: str | None
    query_help: str | None
    task_figure: str | None
    one_class_wins: str | None
    tells_one_class: bool
    test: PairedTest

    def __init__(self, *, name: str, title: str, kernel: Kernel | None, help: str,
                 direction: Direction = "higher", low: float = 0.0, high: float = 1.0,
                 takes_cutoff: bool = False, no_skill: NoSkill | None = None,
                 mean_name: str | None = None, query_name: str | None = None,
                 query_help: str | None = None, task_figure: str | None = None,
                 one_class_wins: str | None = None, tells_one_class: bool = False,
                 test: PairedTest = "randomization") -> None:
        self._set(name=name, title=title, kernel=kernel, help=help, direction=direction,
                  low=low, high=high, takes_cutoff=takes_cutoff, no_skill=no_skill,
                  mean_name=mean_name, query_name=query_name, query_help=query_help,
                  task_figure=task_figure, one_class_wins=one_class_wins,
                  tells_one_class=tells_one_class, test=test)

    @property
    def higher_is_better(self) -> bool:
        return self.direction != "lower"

    @property
    def signed(self) -> bool:
        """Whether a figure can be negative: shown with its sign (+5.0), drawn diverging."""
        return self.low < 0

    def help_at(self, cutoff: int | str | None) -> str:
        """``help`` for a cutoff (a number, or "k" where the page speaks of any), its
        ``{depth}`` "the top k documents", or "the whole ranking" without one."""
        depth = f"the top {cutoff} documents" if cutoff is not None else "the whole ranking"
        return self.help.replace("{depth}", depth)


_RANK_SOURCE = " (trec_eval semantics; a query missing from the run scores 0)"
# T4's measures that do not decompose over personas (the kernel's per_unit_scores gives
# the others one value per persona whose mean is the task's figure).
_OVER_PAIRS = "computed over all the task's pairs at once, not a mean over its personas"

MEASURES: dict[str, Measure] = {m.name: m for m in (
    # ------------------------------------------------------------------ ranking
    Measure(name="nDCG", title="normalised discounted cumulative gain", kernel="ranking",
            takes_cutoff=True,
            help="normalised discounted cumulative gain of {depth}: graded gains, log2 "
                 "discount, divided by the ideal ordering's" + _RANK_SOURCE),
    Measure(name="AP", title="average precision", kernel="ranking", takes_cutoff=True,
            mean_name="MAP",
            help="average precision over {depth}, averaged over queries (MAP)"
                 + _RANK_SOURCE),
    Measure(name="RR", title="reciprocal rank", kernel="ranking", takes_cutoff=True,
            help="reciprocal rank of the first relevant document within {depth}, averaged "
                 "over queries (MRR)" + _RANK_SOURCE),
    Measure(name="R", title="recall", kernel="ranking", takes_cutoff=True,
            help="recall: the share of a query's relevant documents within {depth}"
                 + _RANK_SOURCE),
    Measure(name="P", title="precision", kernel="ranking", takes_cutoff=True,
            help="precision: the share of relevant documents among {depth}" + _RANK_SOURCE),
    # ------------------------------------------------------------------ instruction following
    Measure(name="p-MRR", title="pairwise mean reciprocal rank (FollowIR)",
            kernel="instruction", low=-1.0, no_skill="zero", test="wilcoxon",
            help="pairwise MRR: how far the documents whose relevance the altered instruction "
                 "changed move in the right direction (-100 to +100; 0 = ignores the "
                 "instruction)",
            query_help="p-MRR of the query: the mean over its changed documents of how far "
                       "each moved (+: down the ranking, as the instruction asks)"),
    Measure(name="IRS", title="Instruction Responsiveness Score (FollowTable)",
            kernel="instruction", low=-1.0, no_skill="zero",
            help="Instruction Responsiveness Score: weighted gain of instruction-compliant "
                 "tables minus gain of violating ones, relative to the topic-only ranking "
                 "(-100 to +100)",
            query_help="Instruction-following ranking score of the pair: T+ tables up and "
                       "T\u2212 tables down, normalised to [-1, 1]"),
    Measure(name="NFR", title="negation failure rate (FollowTable, reported only)",
            kernel=None, direction="lower",
            help="share of trap tables (violating the instruction through an explicitly "
                 "negated entity) ranked higher once the instruction is added; lower is "
                 "better"),
    # ------------------------------------------------------------------ classification (T4)
    Measure(name="AUROC", title="area under the ROC curve", kernel="classification",
            no_skill="chance", test="delong",
            help="area under the ROC curve: how well the probabilities rank compatible "
                 "pairs above incompatible ones (50 = no skill)",
            query_name="AUROC part",
            query_help="the persona's DeLong component; the task's AUROC is their mean over "
                       "personas (a part can pass 100)"),
    Measure(name="AUPRC", title="area under the precision-recall curve",
            kernel="classification", no_skill="positive rate",
            help="average precision of the compatible pairs (no skill = their share)",
            task_figure=_OVER_PAIRS),
    Measure(name="Accuracy", title="accuracy at 0.5", kernel="classification",
            no_skill="majority",
            help="share of pairs classified correctly at 0.5; answering 'incompatible' to "
                 "every pair scores the majority share",
            query_help="share of the persona's pairs whose prediction (compatible at a "
                       "probability of 0.5 or more) is right"),
    Measure(name="Balanced accuracy", title="balanced accuracy at 0.5",
            kernel="classification", no_skill="chance",
            help="mean of the true positive and true negative rates at 0.5 (50 = a constant "
                 "answer)",
            query_help="mean of the persona's accuracy on its compatible and on its "
                       "incompatible pairs"),
    Measure(name="ECE", title="expected calibration error", kernel="classification",
            direction="lower", no_skill="constant calibrated",
            help="expected calibration error, 15 bins; lower is better, and a classifier "
                 "that answers one class only gets a low ECE without any skill",
            task_figure=_OVER_PAIRS,
            one_class_wins="a constant answer can be perfectly calibrated without any "
                           "skill"),
    Measure(name="Predicted positive rate", title="share of pairs predicted compatible",
            kernel="classification", direction="neither",
            help="share of pairs predicted compatible (probability 0.5 or more): 0 or 1 for "
                 "a classifier that answers one class only",
            task_figure=_OVER_PAIRS, tells_one_class=True),
    Measure(name="Positive rate", title="share of compatible pairs", kernel="classification",
            direction="neither",
            help="share of compatible pairs in the task's pair set: what a constant score "
                 "gets as AUPRC",
            task_figure=_OVER_PAIRS),
)}


class UnknownMeasureError(FollowBoardError, ValueError):
    """A metric key whose measure the catalogue does not declare (or a cutoff on a measure
    that takes none); the message names the key."""


class MetricKey(_ReadOnly):
    """A metric key taken apart: ``original/AP@1000`` is qualifier "original", measure AP,
    cutoff 1000."""

    __slots__ = ("key", "qualifier", "measure", "cutoff")
    key: str
    qualifier: str | None
    measure: Measure
    cutoff: int | None

    def __init__(self, key: str, qualifier: str | None, measure: Measure,
                 cutoff: int | None) -> None:
        self._set(key=key, qualifier=qualifier, measure=measure, cutoff=cutoff)

    @property
    def base(self) -> str:
        """The key without its qualifier: ``AP@1000``."""
        return self.measure.name if self.cutoff is None else f"{self.measure.name}@{self.cutoff}"


def parse(key: str) -> MetricKey:
    """The parts of a metric key; :class:`UnknownMeasureError` when its measure is not in
    the catalogue or it carries a cutoff its measure does not take."""
    qualifier, _, base = key.rpartition("/")
    name, at, cutoff = base.partition("@")
    measure = MEASURES.get(name)
    if measure is None or (at and not (measure.takes_cutoff and cutoff.isascii()
                                       and cutoff.isdigit())):
        known = ", ".join(m.name + ("[@k]" if m.takes_cutoff else "") for m in MEASURES.values())
        raise UnknownMeasureError(f"unknown metric {key!r}: the measure catalogue "
                                  f"(leaderboard/core/measures.py) declares {known}")
    return MetricKey(key=key, qualifier=qualifier or None, measure=measure,
                     cutoff=int(cutoff) if at else None)


def measure_of(key: str) -> Measure:
    return parse(key).measure


def higher_is_better(key: str) -> bool:
    return measure_of(key).higher_is_better


def is_signed(key: str) -> bool:
    return measure_of(key).signed


def label(key: str) -> str:
    """A task figure's display name, without the qualifier a column's own label gives:
    ``original/AP@1000`` is "MAP@1000", as the FollowIR paper prints it."""
    parts = parse(key)
    name = parts.measure.mean_name or parts.measure.name
    return name if parts.cutoff is None else f"{name}@{parts.cutoff}"


def column_help(key: str) -> str:
    """What a column of the key shows (a column's own help, where it gives one, wins)."""
    parts = parse(key)
    return parts.measure.help_at(parts.cutoff)


def one_class_tell(key: str) -> str | None:
    """For a key whose measure a classifier that answers one class wins without skill
    (``ECE``, ``calibrated/ECE``), the key of the same run's figure that tells whether it
    answers one class (``Predicted positive rate``: 0 or 1 when it does); None for a key
    of any other measure."""
    parts = parse(key)
    if parts.measure.one_class_wins is None:
        return None
    tell = next(m.name for m in MEASURES.values() if m.tells_one_class)
    return tell if parts.qualifier is None else f"{parts.qualifier}/{tell}"


def query_name(key: str) -> str:
    """One query's figure of the key as the command line names it: the key, with the
    measure's per-query name where its own would mislead (``AUROC``: "AUROC part")."""
    parts = parse(key)
    if parts.measure.query_name is None:
        return key
    return parts.measure.query_name if parts.qualifier is None \
        else f"{parts.qualifier}/{parts.measure.query_name}"


def query_label(key: str) -> str:
    """One query's figure as the explorer labels it: "AP@1000 (original)", "AUROC part"."""
    parts = parse(key)
    name = parts.measure.query_name or parts.base
    return name if parts.qualifier is None else f"{name} ({parts.qualifier})"


def query_help(key: str) -> str:
    """What one query's figure of the key is, in a sentence."""
    parts = parse(key)
    if parts.measure.query_help is not None:
        return parts.measure.query_help
    if parts.qualifier is not None:
        return f"{parts.base} of the {parts.qualifier} run on this query"
    return f"{key} of this query"
