"""Canonical model records: one identity per model across every source.

The same model reaches the leaderboard under several names: a paper prints "FollowIR-7B",
another "FollowIR (7B)", MTEB's results repository ``jhu-clsp/FollowIR-7B``, and each source
states its own type and size. :func:`resolve_model` maps any row to one
:class:`ModelRecord`, so a model has one name, type, size and instruction-training flag
everywhere, while each row keeps its own source (every cell its own provenance).

The curated records live in ``leaderboard/publish/reported/data/models.yaml``. A row whose name is
not listed there is its own record, built from the row's own facts; :func:`check_identities`
proves that no two rows of one record whose facts the board can show disagree.

A listed model's facts are the registry's whoever submits it (:func:`canonical_system`): a
verified submission declaring others is shown with the registry's, and told so
(:func:`registry_differences`). A model the registry does not list shows the facts of the
row its line is drawn from, so every row of it must state the same ones: a new submission
using such a model's name with other facts is refused (:func:`fact_clashes`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import read_yaml_file
from leaderboard.core.refusals import validation_problem
from leaderboard.submission.results import ModelInfo, ModelType, SystemResult

MODELS_FILE = Path(__file__).resolve().parent / "reported" / "data" / "models.yaml"


class ModelRegistryError(FollowBoardError, ValueError):
    """The registry file is malformed; the message names the file and the record."""


class TrainingData(BaseModel):
    """What a model's paper or card says it was trained on, with where it says so. The
    tags name the collections its training documents and queries come from and where its
    training instructions come from, in the vocabulary of the benchmarks' declarations
    (:class:`leaderboard.benchmarks.declaration.EvaluationSources`), so a shared source is
    found by comparing tags (:mod:`leaderboard.publish.training`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    statement: str = Field(min_length=1)
    collections: tuple[str, ...] = ()
    instructions: tuple[str, ...] = ()
    source: str = Field(min_length=1)
    url: str | None = None


class ModelRecord(BaseModel):
    """One model, as every page shows it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    type: ModelType
    parameters: int | None = Field(default=None, gt=0)
    instruction_trained: bool | None = None
    links: tuple[str, ...] = ()
    # Names the sources print for this model (matched by :func:`name_key`).
    aliases: tuple[str, ...] = ()
    note: str | None = None
    # What its paper or card says it was trained on; None: not disclosed (shown so).
    training_data: TrainingData | None = None
    # False: a record of the registry file; True: built from one row's own facts.
    derived: bool = False

    def apply_to(self, model: ModelInfo, *, keep_links: bool = False) -> ModelInfo:
        """The row's model facts replaced by the record's; the printed name, licence and
        revision (facts of the row's source) are kept, and with ``keep_links`` the row's
        own links come first (a submission's code and paper links)."""
        links = list(self.links)
        if keep_links:
            links = list(dict.fromkeys([*model.links, *self.links]))
        return model.model_copy(update={
            "type": self.type, "parameters": self.parameters,
            "instruction_trained": self.instruction_trained, "links": links})


class _RegistryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    records: list[ModelRecord]


def name_key(name: str) -> str:
    """How names are matched: case and runs of white space do not matter."""
    return " ".join(name.split()).casefold()


def _link_key(url: str) -> str:
    return url.strip().rstrip("/").casefold()


@dataclass(frozen=True)
class ModelRegistry:
    records: tuple[ModelRecord, ...]
    by_name: dict[str, ModelRecord]
    by_link: dict[str, ModelRecord]

    @classmethod
    def from_records(cls, records: Iterable[ModelRecord], origin: str) -> ModelRegistry:
        records = tuple(records)
        by_name: dict[str, ModelRecord] = {}
        by_link: dict[str, ModelRecord] = {}
        ids: set[str] = set()
        for i, rec in enumerate(records):
            where = f"{origin}: records.{i} ({rec.id})"
            if rec.derived:
                raise ModelRegistryError(f"{where}: 'derived' is not a field of the file")
            if rec.id in ids:
                raise ModelRegistryError(f"{where}: id {rec.id!r} appears twice")
            ids.add(rec.id)
            for name in (rec.id, rec.name, *rec.aliases):
                key = name_key(name)
                other = by_name.get(key)
                if other is not None and other.id != rec.id:
                    raise ModelRegistryError(f"{where}: name {name!r} already belongs to "
                                             f"record {other.id!r}")
                by_name[key] = rec
            for link in rec.links:
                key = _link_key(link)
                other = by_link.get(key)
                if other is not None and other.id != rec.id:
                    raise ModelRegistryError(f"{where}: link {link!r} already belongs to "
                                             f"record {other.id!r}")
                by_link[key] = rec
        return cls(records=records, by_name=by_name, by_link=by_link)

    def lookup(self, model: ModelInfo, *, use_links: bool) -> ModelRecord | None:
        """The curated record of a row's model: by name, then (verified rows) by link."""
        rec = self.by_name.get(name_key(model.name))
        if rec is None and use_links:
            for link in model.links:
                rec = self.by_link.get(_link_key(link))
                if rec is not None:
                    break
        return rec


def load_registry(path: Path = MODELS_FILE) -> ModelRegistry:
    """Read and validate the registry file; errors name the file and the record."""
    raw = read_yaml_file(path, ModelRegistryError)
    try:
        parsed = _RegistryFile.model_validate(raw)
    except ValidationError as exc:
        problem = validation_problem(exc.errors()[0], _RegistryFile)
        raise ModelRegistryError(f"{path}: {problem}") from None
    return ModelRegistry.from_records(parsed.records, str(path))


@cache
def default_registry() -> ModelRegistry:
    return load_registry(MODELS_FILE)


# Where a derived id had characters that are no letter, mark or digit of any script.
_ID_GAP = "\0"
_ID_GAPS = re.compile(_ID_GAP + "+")


def derived_id(name: str) -> str:
    """Id of a record built from a row's own name, in its compatibility form (NFKC: one
    name typed composed or not, or full-width, is one id): lower case, the letters, marks
    and digits of every script and '._/-' kept, each run of other characters one '-'.
    Keeping only a-z and 0-9 made "東京 Embed" and "大阪 Embed" one model, "embed"."""
    key = name_key(unicodedata.normalize("NFKC", name))
    kept = "".join(c if c in "._/-" or unicodedata.category(c)[0] in "LMN" else _ID_GAP
                   for c in key)
    return _ID_GAPS.sub("-", kept).strip("-") or "model"


def resolve_model(system: SystemResult, registry: ModelRegistry | None = None) -> ModelRecord:
    """The canonical record of a row's model.

    Reported rows resolve by the name their source prints; verified rows by the name in
    their metadata or, failing that, by one of its links (a submission of
    ``all-MiniLM-L6-v2`` linking its Hugging Face page is the same model as MTEB's
    ``sentence-transformers/all-MiniLM-L6-v2``). A model the registry does not list is its
    own record, with the row's own facts.
    """
    registry = registry or default_registry()
    model = system.model
    rec = registry.lookup(model, use_links=system.provenance == "verified")
    if rec is not None:
        return rec
    return ModelRecord(id=derived_id(model.name), name=" ".join(model.name.split()),
                       type=model.type, parameters=model.parameters,
                       instruction_trained=model.instruction_trained,
                       links=tuple(model.links), derived=True)


def canonical_model_info(model: ModelInfo, registry: ModelRegistry | None = None) -> ModelInfo:
    """An importer's ModelInfo with the registry's facts, when the registry lists the model
    (importers write reported rows, so names resolve without links)."""
    rec = (registry or default_registry()).lookup(model, use_links=False)
    return rec.apply_to(model) if rec is not None else model


def canonical_system(system: SystemResult, registry: ModelRegistry | None = None) -> SystemResult:
    """A row whose model facts are its record's (the same object when nothing changes).

    The site applies this to every row it loads, so a verified submission that declares
    another type or size for a model the registry lists still shows the registry's, and
    every page agrees; the submission's own links are kept."""
    rec = resolve_model(system, registry)
    if rec.derived:
        return system
    model = rec.apply_to(system.model, keep_links=True)
    return system if model == system.model else system.model_copy(update={"model": model})


# The facts of a model that are one on every page: its record's, or one row's.
IDENTITY_FIELDS = ("type", "parameters", "instruction_trained")


def fact_text(value: object, absent: str = "not stated") -> str:
    """A model fact as a message states it (None: ``absent``)."""
    if value is None:
        return absent
    if isinstance(value, bool):
        return str(value).lower()  # as metadata.yaml writes it
    return str(value)


@dataclass(frozen=True)
class FactDifference:
    field: str     # one of IDENTITY_FIELDS
    own: object    # the row's value (None: not stated)
    other: object  # the registry's or the other row's


def _differences(model: ModelInfo, other: ModelInfo | ModelRecord) -> list[FactDifference]:
    return [FactDifference(f, getattr(model, f), getattr(other, f)) for f in IDENTITY_FIELDS
            if getattr(model, f) != getattr(other, f)]


def registry_differences(system: SystemResult, registry: ModelRegistry | None = None
                         ) -> tuple[ModelRecord, list[FactDifference]] | None:
    """For a row of a model the registry lists (by name, or a verified row by link), its
    record and the facts the row states otherwise, which the board replaces by the
    record's (:func:`canonical_system`); None for a model the registry does not list."""
    rec = resolve_model(system, registry)
    return None if rec.derived else (rec, _differences(system.model, rec))


def fact_clashes(system: SystemResult, others: Iterable[SystemResult],
                 registry: ModelRegistry | None = None
                 ) -> list[tuple[SystemResult, FactDifference]]:
    """Each fact in which a row of ``others`` of the same model as ``system``, one the
    registry does not list, differs from it (type, size or instruction training), with
    that row: either row could be the one the model's line shows, so the model would have
    two identities (:func:`check_identities`). A model the registry lists has none: its
    rows show the record's facts."""
    registry = registry or default_registry()
    rec = resolve_model(system, registry)
    if not rec.derived:
        return []
    return [(other, difference) for other in others
            if resolve_model(other, registry).id == rec.id
            for difference in _differences(system.model, other.model)]


@dataclass(frozen=True)
class IdentityConflict:
    record_id: str
    field: str
    values: dict[str, str]  # system id -> the value that row states

    def describe(self) -> str:
        shown = "; ".join(f"{k}: {v}" for k, v in sorted(self.values.items()))
        return f"model {self.record_id!r}: rows disagree on {self.field} ({shown})"


def check_identities(systems: Iterable[SystemResult],
                     registry: ModelRegistry | None = None) -> list[IdentityConflict]:
    """Rows that resolve to one record but state a different type, size or instruction
    training where the board could show either: each such disagreement is a model with
    two identities. A model the registry lists is held to its record by its reported
    rows, which the importers write with the record's facts
    (:func:`canonical_model_info`; a disagreement is a registry edit the reported files
    were not imported again for); a verified row's own facts for it never reach the
    board (:func:`canonical_system`), so they are not compared. The rows of any other
    model are compared with each other."""
    registry = registry or default_registry()
    seen: dict[str, dict[str, dict[str, str]]] = {}
    for system in systems:
        rec = resolve_model(system, registry)
        if not rec.derived and system.provenance == "verified":
            continue
        facts = seen.setdefault(rec.id, {f: {} for f in IDENTITY_FIELDS})
        # A submission's id may be a reported row's system id too: each row is one value.
        key, n = system.system_id, 1
        while key in facts["type"]:
            n += 1
            key = f"{system.system_id}~{n}"
        for field_name in IDENTITY_FIELDS:
            facts[field_name][key] = str(getattr(system.model, field_name))
            if not rec.derived:
                facts[field_name]["(registry)"] = str(getattr(rec, field_name))
    conflicts = []
    for record_id, fields in sorted(seen.items()):
        for field_name, values in fields.items():
            if len(set(values.values())) > 1:
                conflicts.append(IdentityConflict(record_id, field_name, values))
    return conflicts
