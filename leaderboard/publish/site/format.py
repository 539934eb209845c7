"""Display helpers: exact values, sizes, safe links and relative URLs (scores are printed
by the one rule every surface shares, :func:`leaderboard.core.display.score_text`).

Every helper returns plain text; HTML escaping is the templates' job (jinja2 autoescape),
so no helper here may return markup.
"""

from __future__ import annotations

import posixpath
from urllib.parse import urlsplit


def sort_value(value: float | None) -> str:
    """The value a table cell carries for sorting and charts: 6 significant digits, far
    finer than the display, and a third of the bytes of the exact repr (downloads keep it)."""
    return "" if value is None else format(float(value), ".6g")


def params_text(n: int | None) -> str:
    """Parameter count in the field's usual units: 110M, 7.1B; "–" when there is none to
    give (:func:`params_reason` says why)."""
    if n is None:
        return "–"
    # The unit is chosen on the rounded figure: 999.6M reads 1.0B, not "1000M".
    if n >= 999_500_000:
        return f"{n / 10**9:.1f}B"
    if n >= 999_500:
        return f"{n / 10**6:.0f}M"
    if n >= 10**3:
        return f"{n / 10**3:.0f}K"
    return str(n)


def params_reason(n: int | None, model_type: str) -> str:
    """Why a model shows no parameter count ("" when it has one), without parentheses:
    a page gives it in parentheses after the dash."""
    if n is not None:
        return ""
    if model_type == "sparse":
        return "a sparse model: term statistics, no trained parameters"
    return "the source does not state a parameter count"


# What a Size column's figure is, in its header's help: the figures are of three kinds
# (counted from the weights, declared by a submitter, published by a source), and a
# column mixes them, so its header says which rows hold which. Every Size column shows the
# row's model record's figure: for a model the model registry lists, the registry's, not
# the submission's own (submitted_params_text gives both on its page).
_REGISTRY_SIZE = ("a model the model registry lists shows the registry's figure on every "
                  "page (its submission page gives the submission's own beside it)")
SUBMITTED_SIZE_HELP = (
    "Parameters of the submission's model, as its metadata.yaml records them: a reference "
    "model's run (leaderboard baselines run) counts them in the weights it loads; another "
    "submission's figure is what its submitter declares, not checked by the leaderboard; "
    f"but {_REGISTRY_SIZE}. –: none stated (a sparse model has no trained parameters)")
MODEL_SIZE_HELP = (
    "Parameters of the model, as its record gives them on every page: a model with a "
    "verified submission, that submission's figure (counted from the weights for a "
    "reference model's run, else as its submitter declares it), except that "
    f"{_REGISTRY_SIZE}; a reported model, as its source publishes it: MTEB's n_parameters "
    "(rounded, such as 118M) or the nominal size a paper prints (such as 7B). –: not "
    "stated (a sparse model has no trained parameters)")


# A submission's own figure, by who stated it: `leaderboard baselines run` counts a
# reference model's parameters in the weights it loads; any other figure is what the
# submitter wrote in metadata.yaml.
COUNTED_BASIS = "counted from the weights by leaderboard baselines run"
DECLARED_BASIS = "as declared by the submitter in metadata.yaml, not checked by the leaderboard"


def submitted_params_text(shown: int | None, own: int | None, model_type: str, *,
                          counted: bool, registry: str | None) -> str:
    """A submission page's parameter count with what kind of figure it is. ``shown``: the
    figure every page gives the model; ``own``: the submission's own (its results.json's,
    from its metadata.yaml); ``counted``: ``own`` was counted from the weights (a
    reference model's run); ``registry``: the name of the model registry's record whose
    facts replaced the submission's, None when the model has none. Only a counted figure
    shows all its digits: a declared 110,000,000 is a round number, not a count."""
    def own_text(n: int) -> str:
        return f"{n:,}, {COUNTED_BASIS}" if counted else f"{n}, {DECLARED_BASIS}"

    if registry is not None and shown != own:
        theirs = ("none declared" if own is None else own_text(own))
        if shown is None:
            return (f"– (the model registry gives no parameter count for {registry}; this "
                    f"submission's own figure: {theirs})")
        return (f"{params_text(shown)}, as the model registry gives it for {registry}, in "
                f"place of this submission's own figure ({theirs})")
    if shown is None:
        return f"– ({params_reason(shown, model_type)})"
    if counted:
        return f"{params_text(shown)} ({shown:,}), {COUNTED_BASIS}"
    return f"{params_text(shown)}, {DECLARED_BASIS}"


def instruction_text(flag: bool | None) -> str:
    return {True: "yes", False: "no", None: "unknown"}[flag]


def safe_url(url: str | None) -> str | None:
    """The URL when it may become a link (http/https with a host), else None.

    Anything else (javascript:, data:, relative paths, mailto:) is shown as text.
    """
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    if any(ch in url for ch in "\x00\r\n\t"):
        return None
    return url.strip()


def page_url(doc_path: str) -> str:
    """Output path of a docs page (``use_directory_urls: false``): a.md -> a.html."""
    return doc_path[:-3] + ".html" if doc_path.endswith(".md") else doc_path


def relative(from_doc: str, to_path: str) -> str:
    """Relative URL from a docs page to another page (``x.md``) or file, as a browser
    resolves it from the built page."""
    target = page_url(to_path)
    base = posixpath.dirname(page_url(from_doc)) or "."
    return posixpath.relpath(target, base)
