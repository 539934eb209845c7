"""Settings read from the environment: where the upstream services are, and their tokens.

Every layer that talks to GitHub or the Hugging Face Hub (`data pull`, the run store,
models given by Hub id) reads its endpoints here, so tests and mirrors point all of them
elsewhere with the same variables.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

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
