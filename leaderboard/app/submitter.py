"""Who submits, and what is known of their model: what `baselines run` records in the
metadata.yaml it writes when the command line does not say.

* the contact: git's ``user.name`` and ``user.email``;
* the owner (the GitHub login that may change the submission after the merge): git's
  ``github.user`` setting, else the owner of the ``origin`` remote when it is a GitHub
  fork, not the leaderboard's own repository (a clone of the leaderboard itself says
  nothing about who is submitting);
* whether the model was trained to follow instructions: the model registry's record of
  it (the fact the site shows for that model anyway), else not stated.

Git is asked in the folder the submission is written to, so that the repository the
pull request is made from answers. A model the reference models declare is the
maintainers' baseline: none of this is guessed for it (:func:`submitter_of`).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from leaderboard.core.user_git import git_command
from leaderboard.publish.models import default_registry
from leaderboard.publish.site.repository import repository_url
from leaderboard.submission.metadata import GITHUB_LOGIN_RE
from leaderboard.submission.results import ModelInfo
from reference_models.baseline_run import DEFAULT_CONTACT
from reference_models.spec import ModelSpec

# The owner of a GitHub remote: https://github.com/<owner>/<repo>[.git],
# git@github.com:<owner>/<repo>[.git] or ssh://git@github.com/<owner>/<repo>[.git].
_GITHUB_REMOTE = re.compile(
    r"(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
    r"([^/]+)/[^/]+?/?")
NO_OWNER = ("metadata.yaml records no owner, so after the merge only the maintainers may "
            "change this submission: pass --owner <your GitHub login> (or set it once with "
            "`git config --global github.user <login>`)")


def _git(where: Path, *args: str) -> str | None:
    """A git command's output in ``where`` (its nearest existing folder), or None."""
    while not where.is_dir() and where != where.parent:
        where = where.parent
    try:
        done = subprocess.run([*git_command(where), *args], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def git_identity(where: Path) -> str | None:
    """``Name <email>`` from git's configuration, when both are set."""
    name, email = (_git(where, "config", "--get", key) for key in ("user.name", "user.email"))
    return f"{name} <{email}>" if name and email else None


def remote_owner(url: str) -> str | None:
    """The owner of a GitHub remote URL (None: not GitHub, or not a login)."""
    found = _GITHUB_REMOTE.fullmatch(url.strip())
    owner = found.group(1) if found else None
    return owner if owner is not None and GITHUB_LOGIN_RE.fullmatch(owner) else None


@dataclass(frozen=True)
class Owner:
    login: str | None
    found_in: str | None = None   # where it was found, for the note the command prints


def derive_owner(where: Path, board_url: str | None = None) -> Owner:
    """The GitHub login of whoever submits from the repository at ``where``: git's
    ``github.user``, else the owner of ``origin`` when that is not the owner of the
    leaderboard's repository (``board_url``, by default :func:`repository_url`)."""
    configured = _git(where, "config", "--get", "github.user")
    if configured and GITHUB_LOGIN_RE.fullmatch(configured):
        return Owner(configured, "git config github.user")
    origin = _git(where, "remote", "get-url", "origin")
    owner = remote_owner(origin) if origin else None
    board = remote_owner(board_url if board_url is not None else repository_url())
    if owner is not None and (board is None or owner.lower() != board.lower()):
        return Owner(owner, f"the origin remote, {origin}")
    return Owner(None)


def known_instruction_training(name: str, links: tuple[str, ...]) -> bool | None:
    """Whether the model registry records the model (by name, else by link) as trained to
    follow instructions; None when it does not know the model or the fact."""
    record = default_registry().lookup(ModelInfo(name=name, links=list(links)),
                                       use_links=True)
    return record.instruction_trained if record is not None else None


@dataclass(frozen=True)
class Submitter:
    """What `baselines run` records of who submits a model's runs, and of the model."""
    spec: ModelSpec              # with what the registry knows of the model added
    owner: str | None
    contact: str
    owner_note: str | None       # where the owner was found, or that none was; None: given


def submitter_of(spec: ModelSpec, *, declared: bool, out: Path, owner: str | None,
                 contact: str | None) -> Submitter:
    """Who submits ``spec``'s runs, written under ``out``, and the spec with what is known
    of the model. ``owner`` and ``contact`` are the command line's, when it gives them. A
    declared model (``declared``) is the maintainers' baseline, whose contact is theirs.
    Any other is someone's submission, which records who may change it later (else
    :func:`derive_owner`), how to reach them (else :func:`git_identity`) and, where the
    model's own files do not say, whether the registry knows it as trained to follow
    instructions (:func:`known_instruction_training`)."""
    if declared:
        return Submitter(spec, owner, contact or DEFAULT_CONTACT, None)
    note = None
    if owner is None:
        derived = derive_owner(out)
        owner = derived.login
        note = f"owner: {owner} (from {derived.found_in})" if owner else NO_OWNER
    if spec.instruction_trained is None:
        known = known_instruction_training(spec.name, spec.links)
        if known is not None:
            spec = spec.model_copy(update={"instruction_trained": known})
    return Submitter(spec, owner, contact or git_identity(out) or DEFAULT_CONTACT, note)
