"""What ``leaderboard baselines run MODEL`` runs: a declared model, a folder, or a Hub id.

MODEL is, in this order:

1. an id declared in ``models.yaml``: run exactly as declared;
2. an existing folder: read by :mod:`reference_models.model_folder`; its weights are named
   by their SHA-256;
3. a Hugging Face Hub id ``owner/name``: fetched at ``--revision`` (default ``main``) by
   :mod:`reference_models.hub`, then read like a folder; a branch or tag is recorded as
   the commit it resolved to.

Everything that can be refused is refused here, before a weight is loaded or a file
written: an unknown name, a folder that is not a model, an architecture the runners
cannot use, a Hub that cannot be reached, a revision that does not resolve, a first stage
that is not declared.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from leaderboard.benchmarks.registry import meant_text
from leaderboard.core.errors import FollowBoardError, UsageError
from leaderboard.submission.ids import id_problem
from reference_models.hub import HUB_ID, HubModelError, fetch_model
from reference_models.model_folder import FolderModel, ModelChoices, read_model_folder
from reference_models.spec import ModelSpec, load_model_specs

FIRST_STAGE_FAMILIES = ("bm25", "bi-encoder")


class ModelSourceError(FollowBoardError, ValueError):
    """MODEL names nothing the runner can use; the message says what it is and why not."""


class ModelOptionError(ModelSourceError, UsageError):
    """An option MODEL cannot take (a declared model's --family, a folder's --revision) or
    a value no model can (an unknown --first-stage, an --id that is no id): a usage
    error, exit 2."""


@dataclass(frozen=True)
class ResolvedModel:
    spec: ModelSpec
    kind: str                          # "declared" | "folder" | "hub"
    revision: str | None = None        # Hub: the commit; recorded in the command line
    folder_model: FolderModel | None = None

    @property
    def notes(self) -> tuple[str, ...]:
        """What was read from the model's own files, for produced_by."""
        return self.folder_model.read_from if self.folder_model else ()


def submission_id_from(name: str) -> str:
    """A submission id made from a model name: lower case, runs of other characters as
    one '-' (``sentence-transformers/all-MiniLM-L6-v2`` -> ``all-minilm-l6-v2``)."""
    base = name.rsplit("/", 1)[-1].lower()
    return re.sub(r"[^a-z0-9._-]+", "-", base).strip("-._")[:63].rstrip("-._")


def looks_like_path(text: str) -> bool:
    return text.startswith((".", "/", "~")) or "\\" in text or text.count("/") > 1


def resolve_model(model: str, *, choices: ModelChoices = ModelChoices(),
                  revision: str | None = None, submission_id: str | None = None,
                  hub_cache: Path | None = None) -> ResolvedModel:
    """The spec MODEL stands for (its ``id`` is the submission id), or ModelSourceError."""
    declared = load_model_specs()
    if model in declared:
        given = choices.given() + (["--revision"] if revision else [])
        if given:
            raise ModelOptionError(
                f"{model} is declared in reference_models/models.yaml and runs as declared; "
                f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to a model "
                "folder or Hub id")
        return ResolvedModel(declared[model], "declared")
    _check_first_stage(choices, declared)
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelSourceError(f"{model}: a file, not a model folder")
        if revision:
            raise ModelOptionError(f"--revision applies to a Hub id; {model} is a folder "
                                   "(its weights are named by their SHA-256)")
        folder_model = read_model_folder(path, choices)
        # The id comes from the model's name (--name, the card's, else the folder's).
        folder_model = folder_model.with_id(
            _submission_id(submission_id, folder_model.spec.name, declared))
        return ResolvedModel(folder_model.spec, "folder", folder_model=folder_model)
    if looks_like_path(model):
        raise ModelSourceError(f"{model}: no such model folder; give the path of a folder "
                               "that holds the model's config.json, a declared id "
                               "(`leaderboard baselines list`) or a Hub id owner/name")
    if not _is_hub_id(model):
        meant = meant_text(close_declared_ids(model, declared))
        if meant:
            raise ModelSourceError(f"{model!r} is not a declared model; did you mean {meant}? "
                                   "(`leaderboard baselines list` lists them)")
        raise ModelSourceError(
            f"{model!r} is not a declared model (`leaderboard baselines list`), an existing "
            "folder, or a Hugging Face Hub id (owner/name)")
    try:
        snapshot = fetch_model(model, revision or "main", cache_dir=hub_cache)
    except HubModelError as exc:
        declared_as = declared_hub_model(model, declared)
        if not declared_as:
            raise
        raise HubModelError(f"{exc}; {declared_as}") from None
    folder_model = read_model_folder(snapshot.folder, choices, revision=snapshot.commit,
                                     links=(snapshot.url,), default_name=model)
    folder_model = folder_model.with_id(
        _submission_id(submission_id, folder_model.spec.name, declared))
    return ResolvedModel(folder_model.spec, "hub", snapshot.commit, folder_model)


def close_declared_ids(text: str, declared: dict[str, ModelSpec]) -> list[str]:
    """Declared ids a mistyped ``text`` may mean, ignoring case: the id whose id or model
    name it is (``all-MiniLM-L6-v2``), else the ids it begins (``bge-m3``), else up to
    three a character or two away (``bm25``), closest first."""
    wanted = text.strip().lower()
    exact = [s.id for s in declared.values() if wanted in (s.id, s.name.lower())]
    if exact:
        return exact
    begun = [s.id for s in declared.values() if s.id.startswith(wanted)]
    return begun or difflib.get_close_matches(wanted, list(declared), n=3, cutoff=0.8)


def declared_hub_model(hub_id: str, declared: dict[str, ModelSpec]) -> str:
    """What models.yaml declares of the Hub model ``hub_id`` (ids compared ignoring case,
    as the Hub does) and how each declared id runs, offline or from the Hub; "" when
    nothing is declared of it."""
    wanted = hub_id.lower()
    ways = []
    for spec in declared.values():
        if wanted not in (known.lower() for known in spec.hub_ids):
            continue
        if spec.package:
            how = f"offline (its weights ship in the {spec.package_name} package)"
        else:
            how = ("from the Hub at " + (f"revision {spec.revision}" if spec.revision
                                         else "its main branch"))
        ways.append(f"`leaderboard baselines run {spec.id}` runs {spec.name} {how}")
    if not ways:
        return ""
    return f"{hub_id} is declared in reference_models/models.yaml: {'; '.join(ways)}"


def _is_hub_id(text: str) -> bool:
    return HUB_ID.fullmatch(text) is not None


def _submission_id(explicit: str | None, name: str, declared: dict[str, ModelSpec]) -> str:
    if explicit is not None:
        if id_problem(explicit):
            raise ModelOptionError(f"--id: {id_problem(explicit)}")
        return explicit
    derived = submission_id_from(name)
    if id_problem(derived):
        raise ModelSourceError(f"no submission id can be made from {name!r}; give --id")
    if derived in declared:
        raise ModelSourceError(f"the submission id {derived!r} (from {name!r}) is the "
                               "declared reference model's; give another with --id, or that "
                               "one explicitly to write into its folder")
    return derived


def _check_first_stage(choices: ModelChoices, declared: dict[str, ModelSpec]) -> None:
    stage = choices.first_stage
    if stage is None:
        return
    spec = declared.get(stage)
    if spec is None or spec.family not in FIRST_STAGE_FAMILIES:
        usable = ", ".join(s.id for s in declared.values() if s.family in FIRST_STAGE_FAMILIES)
        raise ModelOptionError(f"--first-stage {stage!r} is not a declared BM25 or "
                               f"bi-encoder model; one of: {usable}")
