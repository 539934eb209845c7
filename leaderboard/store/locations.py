"""Where stored files live: the configured run store, and the sources a manifest may name.

One setting chooses the store: ``$LEADERBOARD_RUN_STORE`` when set, else ``run-store``
under ``[tool.followboard]`` in the nearest ``pyproject.toml`` above the current folder,
else the folder holding that file (or the current folder). Its value is one of

* a folder: a path (relative to the ``pyproject.toml`` that names it, or to the current
  folder for the variable) or a ``file://`` URL. The default, ``"."``, is the repository
  itself: each submission's files sit in its own folder, today's layout;
* ``hf://datasets/<owner>/<name>``: a Hugging Face dataset repository, read at the commit
  each submission's manifest names and written with ``huggingface_hub``;
* an ``https://`` URL, read-only (a Zenodo record, a web server, a mirror), in which
  ``{+path}`` stands for the file's store path (``submissions/<id>/runs/...``) and
  ``{path}`` for the same with ``/`` escaped (RFC 6570); without either the store path is
  appended. Plain ``http://`` is accepted for the loopback address only (tests, local
  mirrors).

Inside every store a submission's files have the same paths as in its folder, below
``submissions/<id>/``. A manifest's ``source:`` may name only a Hugging Face dataset at a
commit (``hf://datasets/<owner>/<name>@<commit>[/<folder>]``), on the Hub endpoint this
machine is configured for: a pull request cannot point CI at any other host.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping
from urllib.parse import quote, urlsplit

from leaderboard.core.config import ENV_RUN_STORE, Endpoints
from leaderboard.core.errors import FollowBoardError
from leaderboard.store.http import hide_credentials

CONFIG_FILE = "pyproject.toml"
CONFIG_KEY = "run-store"
DEFAULT_STORE = "."
SUBMISSIONS_PREFIX = "submissions"

# A Hugging Face repository id part: letters, digits, '-', '_' and '.', not at either end,
# at most 96 characters (the Hub's own rule).
_HF_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_HF_REPO = re.compile(rf"({_HF_PART})/({_HF_PART})")
COMMIT_RE = re.compile(r"[0-9a-f]{40}")
# A folder inside a repository, as a manifest source may name it.
_FOLDER_PART = re.compile(r"[A-Za-z0-9._-]+")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
PLACEHOLDERS = ("{+path}", "{path}")


class StoreConfigError(FollowBoardError, ValueError):
    """A store setting or a manifest source that cannot be used; the message says which,
    without any URL's credentials."""

    def __init__(self, message: str) -> None:
        super().__init__(hide_credentials(message))


@dataclass(frozen=True)
class FolderStore:
    """A folder holding ``submissions/<id>/...``; the repository itself by default."""

    root: Path

    def describe(self) -> str:
        return f"the folder {self.root}"


@dataclass(frozen=True)
class HubStore:
    """A Hugging Face dataset repository, read at commits and written with huggingface_hub."""

    repo: str
    endpoint: str

    def describe(self) -> str:
        return f"hf://datasets/{self.repo} (on {self.endpoint})"


@dataclass(frozen=True)
class HttpsStore:
    """A read-only web location; ``template`` holds one of :data:`PLACEHOLDERS`."""

    template: str

    def url(self, store_path: str) -> str:
        if "{+path}" in self.template:
            return self.template.replace("{+path}", quote(store_path, safe="/"))
        return self.template.replace("{path}", quote(store_path, safe=""))

    def describe(self) -> str:
        return self.template


RunStore = FolderStore | HubStore | HttpsStore


@dataclass(frozen=True)
class HubSource:
    """A folder of a Hugging Face dataset at one commit (a manifest's ``source:``)."""

    repo: str
    revision: str
    folder: str = ""   # inside the repository, '' for its root
    endpoint: str = ""

    def url(self) -> str:
        return f"hf://datasets/{self.repo}@{self.revision}" + (
            f"/{self.folder}" if self.folder else "")

    def repo_path(self, rel: str) -> str:
        return f"{self.folder}/{rel}" if self.folder else rel

    def download_url(self, rel: str) -> str:
        """The Hub's URL of a file at this commit (``/resolve/``, as hf_hub_url builds it)."""
        return (f"{self.endpoint}/datasets/{self.repo}/resolve/{self.revision}/"
                f"{quote(self.repo_path(rel))}")

    def page_url(self, rel: str) -> str:
        """The Hub's web page of a file at this commit, for links."""
        return (f"{self.endpoint}/datasets/{self.repo}/blob/{self.revision}/"
                f"{quote(self.repo_path(rel))}")


def store_path(sub_id: str, rel: str) -> str:
    """Where a submission's file sits inside any store: ``submissions/<id>/<rel>``."""
    return f"{SUBMISSIONS_PREFIX}/{sub_id}/{rel}"


def hub_endpoint(environ: Mapping[str, str] | None = None) -> str:
    """The Hub's address: ``$LEADERBOARD_HF_ENDPOINT``, ``$HF_ENDPOINT`` or huggingface.co,
    as `leaderboard data pull` reads it."""
    return Endpoints.from_env(environ).hf_endpoint


def _hub_repo(text: str, what: str) -> str:
    match = _HF_REPO.fullmatch(text)
    if match is None or any(".." in p or "--" in p for p in match.groups()):
        raise StoreConfigError(f"{what}: {text!r} is not a Hugging Face repository id "
                               "(owner/name: letters, digits, '-', '_', '.')")
    return text


def parse_source(text: str, environ: Mapping[str, str] | None = None) -> HubSource:
    """A manifest's ``source:``: ``hf://datasets/<owner>/<name>@<commit>[/<folder>]``.

    Any other scheme or host is refused: CI fetches only from the Hub endpoint it is
    configured with. A revision must be a full commit id, never a branch or tag, which
    can move after CI checked the files."""
    scheme, sep, rest = text.partition("://")
    if not sep or scheme != "hf" or not rest.startswith("datasets/"):
        host = urlsplit(text).netloc or text
        raise StoreConfigError(
            f"source {text!r} is outside the configured store: a manifest may name only a "
            f"Hugging Face dataset at a commit, hf://datasets/<owner>/<name>@<commit> "
            f"(read from {hub_endpoint(environ)}), not {host!r}")
    parts = rest[len("datasets/"):].split("/")
    if len(parts) < 2 or "@" not in parts[1]:
        raise StoreConfigError(f"source {text!r} names no commit: write "
                               "hf://datasets/<owner>/<name>@<40-character commit id>")
    owner, (name, _, revision) = parts[0], parts[1].partition("@")
    folder = "/".join(parts[2:]).strip("/")
    repo = _hub_repo(f"{owner}/{name}", "source")
    if not COMMIT_RE.fullmatch(revision):
        raise StoreConfigError(
            f"source {text!r}: revision {revision!r} is not a commit id; a branch or tag "
            "can move after the files were checked, so give the full 40-character commit "
            "(`huggingface_hub.HfApi().upload_folder` returns it; the dataset's History "
            "page lists it)")
    if folder and not all(_FOLDER_PART.fullmatch(p) and p not in (".", "..")
                          for p in folder.split("/")):
        raise StoreConfigError(f"source {text!r}: the folder {folder!r} must be plain names "
                               "separated by '/'")
    return HubSource(repo, revision, folder, hub_endpoint(environ))


def parse_store(value: str, base: Path, origin: str,
                environ: Mapping[str, str] | None = None) -> RunStore:
    """The store a setting names; ``origin`` (where the setting came from) is in errors."""
    text = value.strip()
    if not text:
        raise StoreConfigError(f"{origin}: the run store setting is empty")
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme == "hf":
        rest = text[len("hf://"):]
        if not rest.startswith("datasets/"):
            raise StoreConfigError(f"{origin}: {text!r}: only dataset repositories hold "
                                   "FollowBoard's files (hf://datasets/<owner>/<name>)")
        repo = rest[len("datasets/"):].rstrip("/")
        if "@" in repo:
            raise StoreConfigError(f"{origin}: {text!r}: name the repository without a "
                                   "revision; each manifest records the commit of its files")
        return HubStore(_hub_repo(repo, origin), hub_endpoint(environ))
    if scheme in ("http", "https"):
        parts = urlsplit(text)
        if "@" in parts.netloc:
            raise StoreConfigError(f"{origin}: {hide_credentials(text)!r}: the URL holds a user "
                                   "name or password, which the reader never sends (stored "
                                   "files are public): remove it")
        if scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
            raise StoreConfigError(f"{origin}: {text!r}: plain http is accepted for the "
                                   "loopback address only; use https")
        if not parts.hostname:
            raise StoreConfigError(f"{origin}: {text!r} names no host")
        found = [p for p in PLACEHOLDERS if p in text]
        stray = re.sub(r"\{\+?path\}", "", text)
        if len(found) > 1 or text.count("{+path}") + text.count("{path}") > 1 \
                or "{" in stray or "}" in stray:
            raise StoreConfigError(f"{origin}: {text!r}: use one {{+path}} or {{path}} "
                                   "placeholder, or none (the path is then appended)")
        if not found:
            text = text.rstrip("/") + "/{+path}"
        return HttpsStore(text)
    if scheme == "file":
        parts = urlsplit(text)
        if parts.netloc not in ("", "localhost"):
            raise StoreConfigError(f"{origin}: {text!r}: a file:// URL must name a local "
                                   "folder (file:///path)")
        return FolderStore(Path(parts.path))
    if scheme:
        raise StoreConfigError(f"{origin}: {text!r}: a run store is a folder, "
                               "hf://datasets/<owner>/<name> or an https:// URL")
    path = Path(text)
    return FolderStore(path if path.is_absolute() else base / path)


def _find_config(start: Path) -> tuple[Path, str | None] | None:
    """The nearest pyproject.toml at or above ``start`` with a [tool.followboard] table,
    and its run-store value (None when the table does not set one)."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_FILE
        if not candidate.is_file():
            continue
        try:
            config = tomllib.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise StoreConfigError(f"{candidate}: cannot read the project's configuration "
                                   f"({exc})") from None
        table = config.get("tool", {}).get("followboard")
        if isinstance(table, dict):
            value = table.get(CONFIG_KEY)
            if value is not None and not isinstance(value, str):
                raise StoreConfigError(f"{candidate}: [tool.followboard] {CONFIG_KEY} must "
                                       "be a string")
            return candidate, value
    return None


def configured_store(start: Path | None = None,
                     environ: Mapping[str, str] | None = None) -> RunStore:
    """The run store of the project around ``start`` (default: the current folder)."""
    env = os.environ if environ is None else environ
    start = (start or Path.cwd()).resolve()
    override = env.get(ENV_RUN_STORE, "")
    if override.strip():
        return parse_store(override, Path.cwd(), f"${ENV_RUN_STORE}", env)
    found = _find_config(start)
    if found is None:
        return FolderStore(start)
    path, value = found
    return parse_store(value or DEFAULT_STORE, path.parent,
                       f"{path} [tool.followboard] {CONFIG_KEY}", env)
