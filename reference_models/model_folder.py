"""A model folder nobody declared, read from its own files into a :class:`ModelSpec`.

What the folder says decides how it runs, and each choice can be overridden
(:class:`ModelChoices`, the flags of ``leaderboard baselines run``):

* a sentence-transformers folder (``modules.json`` with a Pooling module) is a bi-encoder:
  pooling from ``1_Pooling/config.json`` (the legacy ``pooling_mode_*`` flags or the newer
  ``pooling_mode``), normalised when the folder has a Normalize module or its similarity is
  cosine (sentence-transformers' default), the query and document prompts from
  ``config_sentence_transformers.json``, the length from ``sentence_bert_config.json``
  (``max_seq_length``) or else the tokenizer's ``model_max_length``;
* a sequence-classification head (``config.json`` ``architectures``) is a cross-encoder
  that reranks a first stage;
* a causal or sequence-to-sequence language model runs only when asked for
  (``--family causal-reranker`` / ``seq2seq-reranker``), scored from the logits of its
  yes/no answer after a prompt the command line gives;
* a bare encoder with ``--pooling`` is a bi-encoder.

Anything else (a folder without ``config.json``, without weights or tokenizer, a model
type this transformers does not know, a head the runners cannot score, a
sentence-transformers module they do not compute) is refused with one message naming the
folder and the file that says so, before anything is loaded or written. Nothing here
runs the model's own code (``auto_map``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from leaderboard.core.checksums import sha256_file
from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import MAX_JSON_DEPTH, json_too_deep
from reference_models.packaged import PACKAGED_RUNNERS
from reference_models.spec import (
    EncoderSettings,
    ModelSpec,
    ModelType,
    RerankerSettings,
)

CONFIG = "config.json"
ST_MODULES = "modules.json"
ST_CONFIG = "config_sentence_transformers.json"
ST_BERT_CONFIG = "sentence_bert_config.json"
CARD = "README.md"
# Files any of transformers' tokenizers is loaded from; a folder with none has no tokenizer.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json",
                   "spiece.model", "sentencepiece.bpe.model", "tokenizer.model")
# sentence-transformers module classes the runner computes (matched on the class name, as
# the module path moved between versions: sentence_transformers.models.Pooling then
# sentence_transformers.sentence_transformer.modules.pooling.Pooling).
ST_TRANSFORMER, ST_POOLING, ST_NORMALIZE = "Transformer", "Pooling", "Normalize"
ST_POOLING_MODES = {"cls": "cls", "mean": "mean", "lasttoken": "last-token"}
ST_LEGACY_POOLING = {"pooling_mode_cls_token": "cls", "pooling_mode_mean_tokens": "mean",
                     "pooling_mode_max_tokens": "max",
                     "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
                     "pooling_mode_weightedmean_tokens": "weightedmean",
                     "pooling_mode_lasttoken": "lasttoken"}
# Prompt names sentence-transformers models give their document side.
DOCUMENT_PROMPT_NAMES = ("document", "passage", "corpus")
# A tokenizer without a length limit says so with a huge model_max_length (1e30).
UNSET_LENGTH = 1_000_000
DEFAULT_MAX_LENGTH = 512
# The model.type of metadata.yaml per family.
TYPE_OF_FAMILY: dict[str, ModelType] = {"bi-encoder": "bi-encoder",
                                        "cross-encoder": "cross-encoder",
                                        "seq2seq-reranker": "cross-encoder",
                                        "causal-reranker": "llm-reranker"}
# Options that apply to some families only; given for another, they are refused.
_RERANKERS = ("cross-encoder", "seq2seq-reranker", "causal-reranker")
_GENERATIVE = ("seq2seq-reranker", "causal-reranker")
FAMILY_OPTIONS = {"--pooling": ("bi-encoder",), "--normalize": ("bi-encoder",),
                  "--query-prompt": ("bi-encoder",), "--document-prompt": ("bi-encoder",),
                  "--first-stage": _RERANKERS, "--rerank-top": _RERANKERS,
                  "--prompt": _GENERATIVE, "--true-token": _GENERATIVE,
                  "--false-token": _GENERATIVE}
OPTION_ATTRIBUTE = {"--pooling": "pooling", "--normalize": "normalize",
                    "--query-prompt": "query_prompt", "--document-prompt": "document_prompt",
                    "--first-stage": "first_stage", "--rerank-top": "rerank_top",
                    "--prompt": "prompt", "--true-token": "true_token",
                    "--false-token": "false_token"}
BATCH_OF_FAMILY = {"bi-encoder": 32, "cross-encoder": 16, "seq2seq-reranker": 8,
                   "causal-reranker": 4}
FAMILIES = tuple(TYPE_OF_FAMILY)


class ModelFolderError(FollowBoardError, ValueError):
    """The folder is not a model the runners can use; the message says which file says so."""


@dataclass(frozen=True)
class ModelChoices:
    """What the command line decides instead of the model's files (None: read them)."""

    family: str | None = None
    pooling: str | None = None
    normalize: bool | None = None
    query_prompt: str | None = None
    document_prompt: str | None = None
    max_length: int | None = None
    # Rerankers: the first stage (a declared model) and how many of its top documents
    # they rescore; generative rerankers: the prompt and the two answer tokens.
    first_stage: str | None = None
    rerank_top: int | None = None
    prompt: str | None = None
    true_token: str | None = None
    false_token: str | None = None
    # metadata.yaml
    name: str | None = None
    licence: str | None = None
    links: tuple[str, ...] = ()
    instruction_trained: bool | None = None

    def given(self) -> list[str]:
        """The choices set, as the flags that set them (for "only for ..." messages)."""
        flags = {"family": "--family", "pooling": "--pooling", "normalize": "--normalize",
                 "query_prompt": "--query-prompt", "document_prompt": "--document-prompt",
                 "max_length": "--max-length", "first_stage": "--first-stage",
                 "rerank_top": "--rerank-top", "prompt": "--prompt/--prompt-file",
                 "true_token": "--true-token", "false_token": "--false-token",
                 "name": "--name", "licence": "--licence", "links": "--link",
                 "instruction_trained": "--instruction-trained"}
        return [flag for attr, flag in flags.items() if getattr(self, attr) not in (None, ())]


@dataclass(frozen=True)
class FolderModel:
    """A folder read: the spec to run, and where its files are."""

    spec: ModelSpec
    folder: Path                 # what was given
    weights: tuple[Path, ...]    # the files whose SHA-256 identifies the weights
    architecture: str            # config.json's architecture (or model_type)
    read_from: tuple[str, ...] = field(default_factory=tuple)  # notes: choice <- file

    def with_id(self, model_id: str) -> "FolderModel":
        """The same model under the submission id it will be written as."""
        return replace(self, spec=ModelSpec.model_validate({**self.spec.model_dump(),
                                                            "id": model_id}))


# ----------------------------------------------------------------------------- files


def read_json(path: Path) -> Any:
    """A JSON file; a syntax error names the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
        if json_too_deep(text):
            raise ModelFolderError(f"{path}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFolderError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise ModelFolderError(f"{path}: not UTF-8 text") from None


def _json_object(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise ModelFolderError(f"{path}: expected a JSON object")
    return data


def weight_files(folder: Path) -> tuple[Path, ...]:
    """The weight files transformers loads from ``folder``: its safetensors files (one, or
    the shards of an index), else its ``pytorch_model*.bin`` files."""
    safetensors = sorted(folder.glob("*.safetensors"))
    if safetensors:
        return tuple(safetensors)
    return tuple(sorted(folder.glob("pytorch_model*.bin")))


def weights_sha256(files: tuple[Path, ...]) -> str:
    """``sha256:<hex>``: the SHA-256 of the weights file, or for a sharded checkpoint of
    its ``sha256sum`` listing (one ``<hex>  <name>`` line per shard, sorted by name)."""
    if len(files) == 1:
        return f"sha256:{sha256_file(files[0])}"
    listing = "".join(f"{sha256_file(p)}  {p.name}\n" for p in sorted(files, key=lambda p: p.name))
    return f"sha256:{hashlib.sha256(listing.encode('utf-8')).hexdigest()}"


def read_card(folder: Path) -> tuple[str | None, str | None]:
    """(model name, licence) as the model card (README.md) states them: the front matter's
    ``model_name`` or else the first heading, and its ``license`` (``license_name`` when
    that is ``other``); None where the card says nothing."""
    path = folder / CARD
    if not path.is_file():
        return None, None
    text = path.read_text(encoding="utf-8", errors="replace")
    meta: dict[str, Any] = {}
    match = re.match(r"\A---\s*\n(.*?)\n---\s*(\n|\Z)", text, re.S)
    if match:
        try:
            loaded = yaml.safe_load(match.group(1))
        except yaml.YAMLError:
            loaded = None  # a broken card header states nothing we can use
        meta = loaded if isinstance(loaded, dict) else {}
        text = text[match.end():]
    name = meta.get("model_name") if isinstance(meta.get("model_name"), str) else None
    if name is None:
        heading = re.search(r"^#\s+(.+?)\s*#*\s*$", text, re.M)
        if heading and len(heading.group(1)) <= 100:
            name = heading.group(1)
    licence = meta.get("license")
    if isinstance(licence, list):
        licence = ", ".join(str(item) for item in licence) or None
    if licence == "other" and isinstance(meta.get("license_name"), str):
        licence = meta["license_name"]
    return name, (str(licence) if licence else None)


# ----------------------------------------------------------------------------- sentence-transformers


@dataclass(frozen=True)
class SentenceTransformerFolder:
    """What a sentence-transformers folder's module files say."""

    transformer: Path                   # the Transformer module's folder (has config.json)
    pooling: str | None                 # sentence-transformers' mode name, or None: no module
    include_prompt: bool
    normalize_module: bool
    similarity: str | None
    prompts: dict[str, str]
    default_prompt_name: str | None
    max_seq_length: int | None
    do_lower_case: bool
    model_type: str | None              # "SentenceTransformer", "CrossEncoder", ...
    unsupported: tuple[str, ...]        # module classes the runner does not compute


def read_sentence_transformers(folder: Path) -> SentenceTransformerFolder | None:
    """The folder's sentence-transformers configuration, or None when it has none."""
    modules_path = folder / ST_MODULES
    if not modules_path.is_file():
        return None
    modules = read_json(modules_path)
    if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
        raise ModelFolderError(f"{modules_path}: expected a list of modules")
    transformer: Path | None = None
    pooling: str | None = None
    include_prompt = True
    normalize_module = False
    unsupported = []
    for module in modules:
        kind = str(module.get("type", "")).rsplit(".", 1)[-1]
        where = folder / str(module.get("path", ""))
        if kind == ST_TRANSFORMER and transformer is None:
            transformer = where
        elif kind == ST_POOLING:
            pooling, include_prompt = _pooling_config(where / CONFIG)
        elif kind == ST_NORMALIZE:
            normalize_module = True
        else:
            unsupported.append(str(module.get("type")))
    if transformer is None:
        raise ModelFolderError(f"{modules_path}: no Transformer module (the runner needs a "
                               "transformers model to encode with)")
    st_config = _json_object(folder / ST_CONFIG) if (folder / ST_CONFIG).is_file() else {}
    bert_config_path = transformer / ST_BERT_CONFIG
    if not bert_config_path.is_file():
        bert_config_path = folder / ST_BERT_CONFIG
    bert_config = _json_object(bert_config_path) if bert_config_path.is_file() else {}
    prompts = st_config.get("prompts") or {}
    if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
        raise ModelFolderError(f"{folder / ST_CONFIG}: prompts must map names to texts")
    max_seq_length = bert_config.get("max_seq_length")
    return SentenceTransformerFolder(
        transformer=transformer, pooling=pooling, include_prompt=include_prompt,
        normalize_module=normalize_module, similarity=st_config.get("similarity_fn_name"),
        prompts=dict(prompts), default_prompt_name=st_config.get("default_prompt_name"),
        max_seq_length=max_seq_length if isinstance(max_seq_length, int) else None,
        do_lower_case=bool(bert_config.get("do_lower_case", False)),
        model_type=st_config.get("model_type"), unsupported=tuple(unsupported))


def _pooling_config(path: Path) -> tuple[str, bool]:
    """(mode, include_prompt) of a Pooling module's config (legacy flags or the new key)."""
    if not path.is_file():
        return "mean", True  # sentence-transformers' own default
    config = _json_object(path)
    mode = config.get("pooling_mode")
    if mode is None:
        modes = [name for key, name in ST_LEGACY_POOLING.items() if config.get(key)]
        mode = modes[0] if len(modes) == 1 else "+".join(modes) or "mean"
    elif isinstance(mode, list):
        mode = mode[0] if len(mode) == 1 else "+".join(str(m) for m in mode)
    return str(mode), bool(config.get("include_prompt", True))


def _prompt_template(prompt: str) -> str:
    """A sentence-transformers prompt as an encoder template (braces are literal text)."""
    return prompt.replace("{", "{{").replace("}", "}}") + "{text}"


# ----------------------------------------------------------------------------- architecture


def _transformers_knows(model_type: str | None, mapping: str) -> bool:
    """Whether transformers' auto ``mapping`` (e.g. MODEL_FOR_CAUSAL_LM_MAPPING_NAMES) has a
    class for ``model_type``, without importing any model code."""
    from transformers.models.auto import modeling_auto

    return model_type is not None and model_type in getattr(modeling_auto, mapping)


def _max_length(folder: Path, st: SentenceTransformerFolder | None, config: dict[str, Any]
                ) -> tuple[int, str]:
    """The model's own input limit in tokens, and the file it comes from."""
    if st is not None and st.max_seq_length:
        return st.max_seq_length, ST_BERT_CONFIG
    tokenizer_config = folder / "tokenizer_config.json"
    if tokenizer_config.is_file():
        value = _json_object(tokenizer_config).get("model_max_length")
        if isinstance(value, (int, float)) and 0 < value < UNSET_LENGTH:
            return int(value), "tokenizer_config.json"
    value = config.get("max_position_embeddings")
    if isinstance(value, int) and 0 < value < UNSET_LENGTH:
        return value, CONFIG
    return DEFAULT_MAX_LENGTH, "default"


def _infer_family(architecture: str, config: dict[str, Any],
                  st: SentenceTransformerFolder | None, choices: ModelChoices,
                  folder: Path) -> str:
    if choices.family is not None:
        return choices.family
    if st is not None and st.pooling is not None:
        return "bi-encoder"
    if architecture.endswith("ForSequenceClassification"):
        return "cross-encoder"
    if choices.pooling is not None:
        return "bi-encoder"
    where = folder / CONFIG
    if architecture.endswith(("ForCausalLM", "LMHeadModel")):
        raise ModelFolderError(
            f"{where}: {architecture} is a causal language model; it runs only when asked: "
            "as a reranker with --family causal-reranker and a yes/no prompt (--prompt or "
            "--prompt-file, with {query} and {document}), or as an embedder with --family "
            "bi-encoder --pooling last-token")
    if config.get("is_encoder_decoder"):
        raise ModelFolderError(
            f"{where}: {architecture} is a sequence-to-sequence model; it runs only when "
            "asked: --family seq2seq-reranker with a prompt (--prompt or --prompt-file)")
    if architecture.endswith("Model"):
        raise ModelFolderError(
            f"{folder}: {architecture} has no sentence-transformers {ST_MODULES} to say how "
            "its token vectors become one; give --pooling cls, mean or last-token")
    raise ModelFolderError(_unusable(where, architecture))


def _unusable(where: Path, architecture: str) -> str:
    return (f"{where}: {architecture} is an architecture the runner cannot use: it runs "
            "sentence-transformers bi-encoders, sequence-classification cross-encoders and, "
            "when asked, causal or sequence-to-sequence language models as rerankers")


# The transformers auto class each family loads with, and its mapping of model types.
AUTO_CLASS = {"bi-encoder": ("AutoModel", "MODEL_MAPPING_NAMES"),
              "cross-encoder": ("AutoModelForSequenceClassification",
                                "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES"),
              "causal-reranker": ("AutoModelForCausalLM", "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES"),
              "seq2seq-reranker": ("AutoModelForSeq2SeqLM",
                                   "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES")}


def _check_architecture(family: str, architecture: str, model_type: str | None,
                        config: dict[str, Any], where: Path) -> None:
    encoder_decoder = bool(config.get("is_encoder_decoder"))
    if family == "bi-encoder" and encoder_decoder:
        raise ModelFolderError(f"{where}: {architecture} is an encoder-decoder model; the "
                               "bi-encoder runner embeds with encoder-only or decoder-only "
                               "models")
    if family == "cross-encoder" and not architecture.endswith("ForSequenceClassification"):
        raise ModelFolderError(f"{where}: {architecture} has no sequence-classification "
                               "head; a cross-encoder needs one (its scores would come from "
                               "a randomly initialised layer)")
    if family == "seq2seq-reranker" and not encoder_decoder:
        raise ModelFolderError(f"{where}: {architecture} is not a sequence-to-sequence model "
                               "(--family seq2seq-reranker)")
    # A generative reranker reads the logits of the checkpoint's own language-model head.
    if family in ("causal-reranker", "seq2seq-reranker") and not architecture.endswith(
            ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration")):
        raise ModelFolderError(f"{where}: {architecture} has no language-model head; a "
                               f"{family} scores with one (its answer logits would come from "
                               "a randomly initialised layer)")
    auto_class, mapping = AUTO_CLASS[family]
    if not _transformers_knows(model_type, mapping):
        raise ModelFolderError(f"{where}: {architecture} cannot run as a {family}: "
                               f"transformers' {auto_class} has no class for model type "
                               f"{model_type!r}")
    labels = config.get("num_labels") or len(config.get("id2label") or {}) or 1
    if family == "cross-encoder" and labels > 2:
        raise ModelFolderError(f"{where}: a classification head of {labels} labels; a "
                               "cross-encoder scores with one label (its logit) or two "
                               "(logit 1 - logit 0)")


# ----------------------------------------------------------------------------- the spec


# The id of a folder's spec until it is given its submission id (FolderModel.with_id).
UNNAMED_ID = "unnamed"


def read_model_folder(folder: Path, choices: ModelChoices, *, revision: str | None = None,
                      links: tuple[str, ...] = (), default_name: str | None = None,
                      model_id: str = UNNAMED_ID) -> FolderModel:
    """The spec that runs ``folder`` as its files and ``choices`` say.

    ``revision`` names the weights in metadata.yaml (a Hub commit); None: their SHA-256.
    Refuses a folder the runners cannot use with :class:`ModelFolderError`, before any
    weights are read (the SHA-256 is computed last).
    """
    import transformers

    folder = Path(folder)
    if not folder.is_dir():
        raise ModelFolderError(f"{folder}: not a folder")
    st = read_sentence_transformers(folder)
    transformer = st.transformer if st is not None else folder
    config_path = transformer / CONFIG
    if not config_path.is_file():
        what = ("an adapter without its base model" if (folder / "adapter_config.json").is_file()
                else "no model: a transformers or sentence-transformers model folder has one")
        raise ModelFolderError(f"{folder} is not a model folder: {config_path.name} is "
                               f"missing ({what})")
    config = _json_object(config_path)
    model_type = config.get("model_type") if isinstance(config.get("model_type"), str) else None
    architectures = config.get("architectures") or []
    architecture = str(architectures[0]) if architectures else str(model_type or "unknown")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    if model_type not in CONFIG_MAPPING_NAMES:
        custom = " and names its own code (auto_map), which the runner does not run" \
            if config.get("auto_map") else ""
        raise ModelFolderError(f"{config_path}: model type {model_type!r} is not one "
                               f"transformers {transformers.__version__} knows{custom}")
    family = _infer_family(architecture, config, st, choices, folder)
    if family not in FAMILIES:
        raise ModelFolderError(f"--family must be one of {', '.join(FAMILIES)}, not {family!r}")
    _check_architecture(family, architecture, model_type, config, config_path)
    misplaced = [flag for flag, families in FAMILY_OPTIONS.items()
                 if family not in families and getattr(choices, OPTION_ATTRIBUTE[flag]) is not None]
    if misplaced:
        raise ModelFolderError(f"{folder} runs as a {family}, and {', '.join(misplaced)} "
                               f"{'is' if len(misplaced) == 1 else 'are'} for "
                               + " or ".join(sorted({f for m in misplaced
                                                     for f in FAMILY_OPTIONS[m]})) + " models")
    weights = weight_files(transformer)
    if not weights:
        raise ModelFolderError(f"{transformer} is not a model folder: no weights "
                               "(model.safetensors, its shards, or pytorch_model.bin)")
    if not any((transformer / name).is_file() for name in TOKENIZER_FILES):
        raise ModelFolderError(f"{transformer}: no tokenizer ({', '.join(TOKENIZER_FILES[:3])} "
                               "...); the runner reads text")
    notes: list[str] = []
    max_length, length_source = _max_length(transformer, st, config)
    if choices.max_length is not None:
        max_length, length_source = choices.max_length, "--max-length"
    notes.append(f"{max_length} tokens ({length_source})")

    card_name, card_licence = read_card(folder)
    try:
        encoder = reranker = None
        if family == "bi-encoder":
            encoder = _encoder_settings(folder, st, choices, max_length, notes)
        else:
            reranker = _reranker_settings(family, choices, max_length, folder)
        spec = ModelSpec(
            id=model_id, name=choices.name or default_name or card_name or folder.resolve().name,
            family=family, type=TYPE_OF_FAMILY[family],  # type: ignore[arg-type]
            hf_id=str(transformer.resolve()), revision=revision or "sha256:pending",
            instruction_trained=choices.instruction_trained,
            licence=choices.licence or card_licence, links=tuple(links) + tuple(choices.links),
            encoder=encoder, reranker=reranker, batch_size=BATCH_OF_FAMILY[family])
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: "
                             f"{e['msg'].removeprefix('Value error, ')}" for e in exc.errors())
        raise ModelFolderError(f"{folder}: {problems}") from None
    if revision is None:  # last: reading every weight is the slow part
        spec = ModelSpec.model_validate({**spec.model_dump(), "revision": weights_sha256(weights)})
    return FolderModel(spec, folder, weights, architecture, tuple(notes))


def _encoder_settings(folder: Path, st: SentenceTransformerFolder | None,
                      choices: ModelChoices, max_length: int, notes: list[str]
                      ) -> EncoderSettings:
    where = folder / ST_MODULES
    if st is not None and st.unsupported:
        raise ModelFolderError(f"{where}: the module(s) {', '.join(st.unsupported)} are ones "
                               "the runner does not compute (it runs Transformer, Pooling "
                               "and Normalize)")
    if st is not None and st.do_lower_case:
        raise ModelFolderError(f"{folder / ST_BERT_CONFIG}: do_lower_case is set, and the "
                               "runner passes text to the tokenizer unchanged")
    pooling = choices.pooling
    if pooling is None:
        assert st is not None and st.pooling is not None  # _infer_family saw to it
        if st.pooling not in ST_POOLING_MODES:
            raise ModelFolderError(f"{folder}: pooling {st.pooling!r} (Pooling config) is "
                                   "not one the runner computes (cls, mean, lasttoken); "
                                   "--pooling chooses another")
        pooling = ST_POOLING_MODES[st.pooling]
        notes.append(f"{pooling} pooling (Pooling module)")
    prompts = st.prompts if st is not None else {}
    default = prompts.get(st.default_prompt_name or "") if st is not None else None
    query_prompt = choices.query_prompt
    if query_prompt is None:
        query_prompt = prompts.get("query", default or "")
        if query_prompt:
            notes.append(f"query prompt {query_prompt!r} ({ST_CONFIG})")
    document_prompt = choices.document_prompt
    if document_prompt is None:
        named = [prompts[n] for n in DOCUMENT_PROMPT_NAMES if n in prompts]
        document_prompt = named[0] if named else (default or "")
        if document_prompt:
            notes.append(f"document prompt {document_prompt!r} ({ST_CONFIG})")
    if st is not None and not st.include_prompt and (query_prompt or document_prompt):
        raise ModelFolderError(f"{folder}: its Pooling module leaves the prompt's tokens out "
                               "(include_prompt: false), which the runner does not do")
    normalize = choices.normalize
    if normalize is None:
        similarity = st.similarity if st is not None else None
        if similarity not in (None, "cosine", "dot", "dot_product"):
            raise ModelFolderError(f"{folder / ST_CONFIG}: similarity {similarity!r} is not "
                                   "one the runner computes (cosine or dot product); "
                                   "--normalize or --no-normalize chooses one")
        normalize = bool(st is None or st.normalize_module or similarity in (None, "cosine"))
        if st is not None:
            source = "Normalize module" if st.normalize_module else ST_CONFIG
            notes.append(f"{'cosine similarity' if normalize else 'dot product'} ({source})")
    return EncoderSettings(pooling=pooling, normalize=normalize,  # type: ignore[arg-type]
                           query_template=_prompt_template(query_prompt),
                           document_template=_prompt_template(document_prompt),
                           query_max_length=max_length, document_max_length=max_length)


def _reranker_settings(family: str, choices: ModelChoices, max_length: int, folder: Path
                       ) -> RerankerSettings:
    generative = family != "cross-encoder"
    if generative and choices.prompt is None:
        raise ModelFolderError(f"{folder}: --family {family} needs the prompt the model "
                               "answers yes or no to (--prompt or --prompt-file, with "
                               "{query} and {document})")
    settings: dict[str, Any] = {"max_length": max_length}
    if choices.first_stage is not None:
        settings["first_stage"] = choices.first_stage
    if choices.rerank_top is not None:
        settings["depth"] = choices.rerank_top
    if generative:
        settings.update(prompt=choices.prompt, true_token=choices.true_token or "yes",
                        false_token=choices.false_token or "no")
    return RerankerSettings(**settings)


def describe_spec(spec: ModelSpec) -> str:
    """How a spec runs, in one line (for metadata.yaml's produced_by)."""
    if spec.encoder is not None:
        e = spec.encoder
        packaged = PACKAGED_RUNNERS.get(spec.engine)
        reads = ("every token of a text" if packaged is not None and packaged.reads_whole_texts
                 else f"at most {e.query_max_length}/{e.document_max_length} query/document "
                 "tokens")
        return (f"{spec.family}, {e.pooling} pooling, "
                + ("cosine similarity" if e.normalize else "dot product")
                + f", query template {e.query_template!r}, document template "
                f"{e.document_template!r}, {reads}")
    if spec.reranker is not None:
        r = spec.reranker
        how = (f"prompt {r.prompt!r}, logit({r.true_token!r}) - logit({r.false_token!r})"
               if r.prompt else "the pair's relevance logit")
        return (f"{spec.family}, {how}, at most {r.max_length} tokens; reranks each pool, or "
                f"the top {r.depth} of {r.first_stage} with the rest of its ranking beneath")
    return spec.family
