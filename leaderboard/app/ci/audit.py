"""`leaderboard ci audit-settings`: check the repository settings the workflows rely on.

The workflow files cannot protect the self-hosted GPU runner on their own: a fork PR may
add its own workflow with ``runs-on: [self-hosted, gpu]``, and ``pull_request`` runs the
PR's workflow files. What keeps such a job off the runner are settings held by GitHub,
which no file in the repository shows (docs/MAINTAINERS.md explains each):

* the GPU runners sit in an organization runner group that only this repository may use
  (its selected repositories are this one and no other) and that is restricted to
  ``.github/workflows/baselines.yml@refs/heads/main``;
* every runner of that group is ephemeral (just-in-time: one job, then it is gone);
* no runner is registered on the repository itself (those cannot be restricted);
* workflows from fork PRs of every outside collaborator wait for a maintainer's approval;
* the default ``GITHUB_TOKEN`` is read-only and cannot approve pull requests;
* the Hugging Face token is a secret of the protected environment ``run-store``
  (:data:`SECRET_ENVIRONMENTS`), which deploys from the default branch only, and no
  repository or organization secret of that name exists: only the jobs naming that
  environment, on that branch, read it. A job naming an environment that does not exist
  creates it, unprotected, so its existence is checked too.

Each is read through GitHub's REST API with the standard library only. The HTTP layer is
a function (API path -> decoded JSON), so tests replay recorded responses without a network.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

from leaderboard.core.errors import FollowBoardError
from leaderboard.core.fileio import load_json

API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
MAX_PAGES = 50  # 5000 items at 100 a page: far beyond any real organization's runners

Fetch = Callable[[str], Any]
REPO_SLUG_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
# The one approval policy under which no outside collaborator's fork PR runs unreviewed.
REQUIRED_APPROVAL_POLICY = "all_external_contributors"
# Each protected environment a workflow job names to read secrets, and those secrets:
# run-store's HF_TOKEN writes to the run store and the results dataset (publish.yml's
# store and dataset jobs, baselines.yml's store job; tests/test_workflows.py holds every
# job that reads a secret to this map).
SECRET_ENVIRONMENTS: dict[str, tuple[str, ...]] = {"run-store": ("HF_TOKEN",)}


class ApiError(FollowBoardError):
    """An API call that did not return 2xx JSON: the status and GitHub's message."""

    def __init__(self, path: str, status: int | None, message: str) -> None:
        super().__init__(f"GET {path}: {f'HTTP {status}' if status else 'failed'}: {message}")
        self.path = path
        self.status = status


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Audit:
    repository: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def add(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    def lines(self) -> list[str]:
        return [f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in self.checks]


# --------------------------------------------------------------------------- HTTP

def _next_link(header: str | None) -> str | None:
    """The ``rel="next"`` URL of a Link header (RFC 8288), as GitHub paginates."""
    for part in (header or "").split(","):
        match = re.match(r'\s*<([^>]+)>\s*;\s*rel="?next"?', part)
        if match:
            return match.group(1)
    return None


def _merge_page(total: Any, page: Any) -> Any:
    """Concatenate the list of a paginated answer (a bare list, or a dict holding one)."""
    if total is None:
        return page
    if isinstance(total, list) and isinstance(page, list):
        return total + page
    if isinstance(total, dict) and isinstance(page, dict):
        for key, value in page.items():
            if isinstance(value, list) and isinstance(total.get(key), list):
                total[key] = total[key] + value
    return total


def http_fetch(token: str | None, api_url: str = API_URL, timeout: float = 30.0) -> Fetch:
    """A :data:`Fetch` over HTTPS with urllib, following ``Link: rel="next"`` pages."""
    base = api_url.rstrip("/")
    origin = urllib.parse.urlsplit(base)[:2]

    class SameOrigin(urllib.request.HTTPRedirectHandler):
        # urllib follows a redirect anywhere with the request's headers, the token
        # included (from https to http too): only the API's own origin is followed.
        def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ANN201
            if urllib.parse.urlsplit(newurl)[:2] != origin:
                raise urllib.error.URLError(f"the API redirected to another host ({newurl}); "
                                            "the token is sent to the API's own only")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    opener = urllib.request.build_opener(SameOrigin)

    def fetch(path: str) -> Any:
        sep = "&" if "?" in path else "?"
        url: str | None = f"{base}{path}{sep}per_page=100"
        total: Any = None
        for _ in range(MAX_PAGES):
            if url is None:
                break
            if urllib.parse.urlsplit(url)[:2] != origin:
                # Never send the token anywhere but the API we were pointed at.
                raise ApiError(path, None, f"pagination left {base}: {url}")
            request = urllib.request.Request(url, headers={
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": "followboard-audit-settings",
                **({"Authorization": f"Bearer {token}"} if token else {}),
            })
            try:
                with opener.open(request, timeout=timeout) as response:
                    body = response.read()
                    link = response.headers.get("Link")
            except urllib.error.HTTPError as exc:
                raise ApiError(path, exc.code, _error_message(exc.read())) from None
            except (urllib.error.URLError, OSError) as exc:
                raise ApiError(path, None, str(getattr(exc, "reason", exc))) from None
            try:
                page = load_json(body, path, ValueError)
            except ValueError:
                raise ApiError(path, None, "the answer is not JSON (or nested too deeply)") \
                    from None
            total = _merge_page(total, page)
            url = _next_link(link)
        return total

    return fetch


def _error_message(body: bytes) -> str:
    try:
        message = load_json(body, "", ValueError).get("message", "")  # type: ignore[union-attr]
    except (ValueError, AttributeError):
        message = ""
    return str(message)[:300] or "no message"


# --------------------------------------------------------------------------- checks

def _obj(fetch: Fetch, path: str) -> dict:
    """A JSON object from the API; anything else is an :class:`ApiError`."""
    value = fetch(path)
    if not isinstance(value, dict):
        raise ApiError(path, None, f"expected a JSON object, got {type(value).__name__}")
    return value


def _objects(answer: dict, key: str, path: str) -> list[dict]:
    """``answer[key]``, a list of JSON objects (none when absent); anything else is an
    :class:`ApiError`, so that the check it feeds fails rather than the audit stopping."""
    value = answer.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ApiError(path, None, f"expected {key} to be a list of JSON objects")
    return value


def expected_workflow_ref(repository: str, workflow: str, branch: str) -> str:
    """How a runner group names an allowed workflow: ``owner/repo/.github/workflows/x@ref``."""
    return f"{repository}/.github/workflows/{workflow}@refs/heads/{branch}"


def _labels(runner: dict) -> set[str]:
    labels = runner.get("labels") or []  # none readable: no GPU label, so the audit fails
    return {str(label.get("name", "")).lower() for label in
            (labels if isinstance(labels, list) else []) if isinstance(label, dict)}


def _names(runners: list[dict]) -> str:
    shown = ", ".join(str(r.get("name", r.get("id", "?"))) for r in runners[:10])
    return shown + (f" and {len(runners) - 10} more" if len(runners) > 10 else "")


def _why(exc: ApiError, scope: str) -> str:
    if exc.status in (401, 403, 404):
        return (f"cannot read it ({exc}); run with a token of an administrator holding "
                f"{scope}")
    return f"cannot read it ({exc})"


def audit_settings(repository: str, fetch: Fetch, *, runner_label: str = "gpu",
                   workflow: str = "baselines.yml", branch: str = "main") -> Audit:
    """Every check, each ``ok`` or failed with what to change; never raises on API errors."""
    audit = Audit(repository)
    owner, _, name = repository.partition("/")
    label = runner_label.lower()
    wanted_ref = expected_workflow_ref(repository, workflow, branch)

    try:
        repo = _obj(fetch, f"/repos/{owner}/{name}")
        public = not bool(repo.get("private", True))
        owner_record = repo.get("owner") or {}
        if not isinstance(owner_record, dict):
            raise ApiError(f"/repos/{owner}/{name}", None, "expected owner to be a JSON object")
        owner_type = str(owner_record.get("type", ""))
    except ApiError as exc:
        audit.add("repository", False, _why(exc, "read access to the repository"))
        return audit

    # Runners registered on the repository itself belong to no runner group, so nothing
    # can stop a fork PR's workflow from naming their labels.
    try:
        path = f"/repos/{owner}/{name}/actions/runners"
        repo_runners = _objects(_obj(fetch, path), "runners", path)
        audit.add("no repository-level self-hosted runners", not repo_runners,
                  "none registered on the repository" if not repo_runners else
                  f"{_names(repo_runners)} registered on the repository itself, where any "
                  "workflow (a fork PR's too) may use them: remove them and register the GPU "
                  "runner in an organization runner group")
    except ApiError as exc:
        audit.add("no repository-level self-hosted runners", False,
                  _why(exc, "the repository's administration:read permission"))

    if owner_type != "Organization":
        audit.add("GPU runner group", False,
                  f"{owner} is not an organization: runner groups, the only way to restrict a "
                  f"runner to {workflow}, exist only for organizations; move the repository "
                  "to an organization or run baselines on GitHub-hosted runners")
    else:
        _audit_runner_groups(audit, owner, public, label, wanted_ref, fetch, repository)

    try:
        policy = _obj(fetch, f"/repos/{owner}/{name}/actions/permissions/"
                            "fork-pr-contributor-approval").get("approval_policy")
        audit.add("approval for fork PRs of all outside collaborators",
                  policy == REQUIRED_APPROVAL_POLICY,
                  f"approval_policy is {policy!r}" + (
                      "" if policy == REQUIRED_APPROVAL_POLICY else
                      f"; set it to {REQUIRED_APPROVAL_POLICY!r} (Settings > Actions > General "
                      "> Approval for running fork pull request workflows)"))
    except ApiError as exc:
        audit.add("approval for fork PRs of all outside collaborators", False,
                  _why(exc, "the repository's administration:read permission"))

    try:
        perms = _obj(fetch, f"/repos/{owner}/{name}/actions/permissions/workflow")
        default = perms.get("default_workflow_permissions")
        approve = perms.get("can_approve_pull_request_reviews")
        audit.add("default GITHUB_TOKEN is read-only", default == "read",
                  f"default_workflow_permissions is {default!r}" + (
                      "" if default == "read" else
                      "; set 'Read repository contents and packages permissions' (Settings > "
                      "Actions > General > Workflow permissions)"))
        audit.add("GITHUB_TOKEN cannot approve pull requests", approve is False,
                  f"can_approve_pull_request_reviews is {approve!r}" + (
                      "" if approve is False else "; untick 'Allow GitHub Actions to create "
                      "and approve pull requests'"))
    except ApiError as exc:
        audit.add("default GITHUB_TOKEN is read-only", False,
                  _why(exc, "the repository's administration:read permission"))

    for environment, secrets in SECRET_ENVIRONMENTS.items():
        _audit_environment(audit, owner, name, environment, secrets, branch, fetch)
    return audit


def _secret_names(fetch: Fetch, path: str) -> set[str]:
    return {str(s.get("name", "")) for s in _objects(_obj(fetch, path), "secrets", path)}


def _audit_environment(audit: Audit, owner: str, name: str, environment: str,
                       secrets: tuple[str, ...], branch: str, fetch: Fetch) -> None:
    """``environment`` exists, deploys from ``branch`` only and holds ``secrets``, and no
    repository or organization secret of those names exists: a repository secret is read
    by any workflow on any branch, and the environment's would not be needed to read it."""
    where = "Settings > Environments"
    base = f"/repos/{owner}/{name}/environments/{urllib.parse.quote(environment, safe='')}"
    check = f"environment {environment!r} deploys from {branch} only"
    found = True
    try:
        record = _obj(fetch, base)
        policy = record.get("deployment_branch_policy")
        if not isinstance(policy, dict) or policy.get("custom_branch_policies") is not True \
                or policy.get("protected_branches") is not False:
            audit.add(check, False, f"deployment_branch_policy is {policy!r}; choose "
                      f"'Selected branches and tags' and add the branch {branch} only "
                      f"({where} > {environment} > Deployment branches and tags)")
        else:
            path = f"{base}/deployment-branch-policies"
            rules = _objects(_obj(fetch, path), "branch_policies", path)
            named = [(str(r.get("name")), str(r.get("type", "branch"))) for r in rules]
            ok = named == [(branch, "branch")]
            shown = ", ".join(f"{n} ({kind})" for n, kind in named) or "none"
            audit.add(check, ok, f"branches and tags: {shown}" + (
                "" if ok else f"; allow the branch {branch} only ({where} > {environment} > "
                              "Deployment branches and tags)"))
    except ApiError as exc:
        found = exc.status != 404 or exc.path != base
        audit.add(check, False, _why(exc, "read access to the repository") if found else
                  f"no environment {environment!r}: create it ({where} > New environment), "
                  f"deployment branches {branch} only, and add {', '.join(secrets)} there; a "
                  "job naming a missing environment creates it with no protection")
    if found:
        check = f"environment {environment!r} holds {', '.join(secrets)}"
        try:
            held = _secret_names(fetch, f"{base}/secrets")
            missing = [s for s in secrets if s not in held]
            audit.add(check, not missing, f"its secrets: {', '.join(sorted(held)) or 'none'}"
                      + (f"; add {', '.join(missing)} ({where} > {environment} > "
                         "Environment secrets)" if missing else ""))
        except ApiError as exc:
            audit.add(check, False, _why(exc, "the repository's secrets:read permission"))
    check = f"{', '.join(secrets)} is no repository or organization secret"
    try:
        shared = (_secret_names(fetch, f"/repos/{owner}/{name}/actions/secrets")
                  | _secret_names(fetch, f"/repos/{owner}/{name}/actions/organization-secrets"))
        clash = [s for s in secrets if s in shared]
        audit.add(check, not clash, "none of that name" if not clash else
                  f"{', '.join(clash)} is a secret of the repository or its organization, "
                  "which any workflow on any branch reads: delete it there and keep it in "
                  f"the environment {environment!r} only")
    except ApiError as exc:
        audit.add(check, False, _why(exc, "the repository's secrets:read permission"))


def _audit_group_repositories(audit: Audit, gname: str, org: str, group: dict,
                              repository: str, fetch: Fetch, scope: str) -> None:
    """The GPU group serves this repository and no other. 'Selected repositories' with
    another one selected passed as "for selected repositories only": that repository's
    workflows (its fork PRs' too, under its own approval settings) are then kept off the
    runners by the workflow restriction alone, one setting away from reaching them."""
    name = f"{gname} is for this repository only"
    visibility = group.get("visibility")
    if visibility != "selected":
        audit.add(name, False, f"visibility is {visibility!r}; choose 'Selected "
                               f"repositories' and select {repository} only")
        return
    try:
        path = f"/orgs/{org}/actions/runner-groups/{group.get('id')}/repositories"
        repos = _objects(_obj(fetch, path), "repositories", path)
    except ApiError as exc:
        audit.add(name, False, _why(exc, scope))
        return
    names = [str(r.get("full_name", r.get("name", "?"))) for r in repos]
    others = [n for n in names if n.lower() != repository.lower()]
    ok = not others and len(names) == 1
    shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    audit.add(name, ok, f"visibility is 'selected', repositories: {shown or 'none'}" + (
        "" if ok else f"; select {repository} only (Organization settings > Actions > "
                      "Runner groups > Repository access)"))


def _audit_runner_groups(audit: Audit, org: str, public: bool, label: str,
                         wanted_ref: str, fetch: Fetch, repository: str) -> None:
    scope = "the organization's admin:org (or organization_self_hosted_runners:read)"
    try:
        path = f"/orgs/{org}/actions/runner-groups"
        groups = _objects(_obj(fetch, path), "runner_groups", path)
    except ApiError as exc:
        audit.add("GPU runner group", False, _why(exc, scope))
        return
    holding_gpu = 0
    for group in groups:
        gname = f"runner group {group.get('name', group.get('id'))!r}"
        try:
            path = f"/orgs/{org}/actions/runner-groups/{group.get('id')}/runners"
            runners = _objects(_obj(fetch, path), "runners", path)
        except ApiError as exc:
            audit.add(gname, False, _why(exc, scope))
            continue
        if not runners:
            continue
        gpu = [r for r in runners if label in _labels(r)]
        restricted = group.get("restricted_to_workflows") is True
        selected = list(group.get("selected_workflows") or [])
        if gpu:
            holding_gpu += 1
            audit.add(f"{gname} is restricted to {wanted_ref}",
                      restricted and selected == [wanted_ref],
                      f"restricted_to_workflows={group.get('restricted_to_workflows')!r}, "
                      f"selected_workflows={selected!r}" + (
                          "" if restricted and selected == [wanted_ref] else
                          f"; allow only {wanted_ref}"))
            _audit_group_repositories(audit, gname, org, group, repository, fetch, scope)
            if public:
                # Safe either way, but with false the baselines workflow cannot run at all.
                audit.add(f"{gname} can serve this public repository",
                          group.get("allows_public_repositories") is True,
                          f"allows_public_repositories is "
                          f"{group.get('allows_public_repositories')!r}")
            not_ephemeral = [r for r in runners if r.get("ephemeral") is not True]
            audit.add(f"{gname} runners are ephemeral (just-in-time)", not not_ephemeral,
                      f"all {len(runners)} ephemeral" if not not_ephemeral else
                      f"{_names(not_ephemeral)} not ephemeral: register them with "
                      "--ephemeral or as just-in-time runners, so no job outlives itself")
        elif group.get("allows_public_repositories") is True and not restricted:
            audit.add(f"{gname} is not open to public repositories", False,
                      f"{_names(runners)} may run any public repository's workflow, fork "
                      "PRs included: restrict the group to named workflows or turn off "
                      "'Allow public repositories'")
    if not holding_gpu:
        audit.add("GPU runner group", False,
                  f"no runner group of {org} holds a runner labelled {label!r}: register the "
                  f"GPU runner in a group restricted to {wanted_ref}")
