"""Every setting FollowBoard reads from the environment, under one prefix (LEADERBOARD_),
and the one folder its caches live under.

    LEADERBOARD_DATA          the benchmark data folder (else ./data; --data-dir wins)
    LEADERBOARD_CACHE_DIR     the cache root (else $XDG_CACHE_HOME/followboard, else
                              ~/.cache/followboard), holding task-data/ (loaded tasks),
                              store/ (files fetched from run stores, by SHA-256) and
                              embeddings/ (reference models' encodings)
    LEADERBOARD_DATA_CACHE    "off" turns the task-data cache off (CI does: see the
                              workflows); the other caches are checked by content
    LEADERBOARD_RUN_STORE     where submissions' run files live (leaderboard.store.locations)
    LEADERBOARD_REPO_URL      the repository the site links to
    LEADERBOARD_DEBUG         a traceback instead of a one-line error
    LEADERBOARD_WORKERS       worker processes that check a submission's tasks (0 or 1:
                              none; by default one per CPU, up to 4, for a large one:
                              leaderboard.submission.task_checks)
    LEADERBOARD_GITHUB_API, _RAW, _MEDIA, LEADERBOARD_HF_ENDPOINT
                              the upstream services (tests and mirrors point them elsewhere)

Tokens keep the names the services' own tools read (GITHUB_TOKEN, HF_TOKEN), and the Hub
endpoint falls back to huggingface_hub's HF_ENDPOINT.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Literal, Mapping

from leaderboard.core.errors import FollowBoardError

ENV_DATA = "LEADERBOARD_DATA"
ENV_CACHE_DIR = "LEADERBOARD_CACHE_DIR"
ENV_DATA_CACHE = "LEADERBOARD_DATA_CACHE"
ENV_RUN_STORE = "LEADERBOARD_RUN_STORE"
ENV_REPO_URL = "LEADERBOARD_REPO_URL"
ENV_DEBUG = "LEADERBOARD_DEBUG"
ENV_WORKERS = "LEADERBOARD_WORKERS"

ENV_GITHUB_API = "LEADERBOARD_GITHUB_API"
ENV_GITHUB_RAW = "LEADERBOARD_GITHUB_RAW"
ENV_GITHUB_MEDIA = "LEADERBOARD_GITHUB_MEDIA"
ENV_HF_ENDPOINT = "LEADERBOARD_HF_ENDPOINT"
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_HF_TOKEN = "HF_TOKEN"

DEFAULT_GITHUB_API = "https://api.github.com"
DEFAULT_GITHUB_RAW = "https://raw.githubusercontent.com"
DEFAULT_GITHUB_MEDIA = "https://media.githubusercontent.com/media"
DEFAULT_HF_ENDPOINT = "https://huggingface.co"


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the upstream services; tests point them at a local server."""

    github_api: str = DEFAULT_GITHUB_API
    github_raw: str = DEFAULT_GITHUB_RAW
    github_media: str = DEFAULT_GITHUB_MEDIA
    hf_endpoint: str = DEFAULT_HF_ENDPOINT

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Endpoints":
        env = os.environ if environ is None else environ

        def pick(name: str, default: str) -> str:
            return (env.get(name) or default).rstrip("/")

        # LEADERBOARD_HF_ENDPOINT, else HF_ENDPOINT as huggingface_hub itself reads it.
        return cls(github_api=pick(ENV_GITHUB_API, DEFAULT_GITHUB_API),
                   github_raw=pick(ENV_GITHUB_RAW, DEFAULT_GITHUB_RAW),
                   github_media=pick(ENV_GITHUB_MEDIA, DEFAULT_GITHUB_MEDIA),
                   hf_endpoint=pick(ENV_HF_ENDPOINT,
                                    env.get("HF_ENDPOINT") or DEFAULT_HF_ENDPOINT))


CacheKind = Literal["task-data", "store", "embeddings"]

#: :func:`cache_root`'s rule, as every text a user reads names the cache root (a help
#: that left out $XDG_CACHE_HOME sent users where the cache is not).
CACHE_ROOT_RULE = (f"${ENV_CACHE_DIR}, else $XDG_CACHE_HOME/followboard, "
                   "else ~/.cache/followboard")


def data_dir_option(data_dir: PurePath | str | None) -> str:
    """' --data-dir DATA_DIR' (quoted for a shell) for a command a message tells to read
    the data folder ``data_dir``; empty for None (the default folder). Every message that
    suggests a command reading the data words the folder so: one named unquoted (a path
    with a space) was, copied, another folder and a stray argument."""
    return "" if data_dir is None else f" --data-dir {shlex.quote(str(data_dir))}"


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """The folder every cache lives under (module docstring)."""
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_CACHE_DIR, "").strip()
    if chosen:
        return Path(chosen)
    xdg = env.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "followboard"


def cache_folder(kind: CacheKind, environ: Mapping[str, str] | None = None) -> Path:
    return cache_root(environ) / kind


def task_data_cache_on(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get(ENV_DATA_CACHE, "").strip().lower() != "off"


class SettingError(FollowBoardError, ValueError):
    """A LEADERBOARD_ variable holds a value the code cannot use; the message names it."""


def worker_setting(environ: Mapping[str, str] | None = None) -> int | None:
    """LEADERBOARD_WORKERS as a number of worker processes, or None when unset."""
    env = os.environ if environ is None else environ
    text = env.get(ENV_WORKERS, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) > 64:
        raise SettingError(f"{ENV_WORKERS}={text!r}: expected a number of worker processes "
                           "from 0 to 64 (0 or 1: check tasks in this process)")
    return int(text)
