"""Continuous integration: what a maintainer would do by hand for a submission PR.

The GitHub Actions workflows in ``.github/workflows/`` only call ``leaderboard ci ...``
subcommands, so every step runs (and is tested) the same way on a laptop:

* :mod:`leaderboard.app.ci.git` reads commits, diffs and trees without touching the checkout;
* :mod:`leaderboard.app.ci.policy` decides what a submission PR may change and how big it may be;
* :mod:`leaderboard.app.ci.standing` places a scored submission against each task's leader;
* :mod:`leaderboard.app.ci.pr_report` is the JSON report handed from the untrusted PR job to the
  privileged comment job, validated strictly on the way in;
* :mod:`leaderboard.app.ci.comment` turns a report into the PR comment and the job summary;
* :mod:`leaderboard.app.ci.trusted` re-derives a PR's scope from the GitHub API in the
  privileged comment job, so an edited workflow cannot vouch for itself;
* :mod:`leaderboard.app.ci.pr_check` and :mod:`leaderboard.app.ci.pending` orchestrate the steps;
* :mod:`leaderboard.app.ci.handover` checks the commit a job without a write token hands
  to the job that pushes it (what it may change), and makes the pushing job's own commit
  of the checked tree;
* :mod:`leaderboard.app.ci.inputs` checks what a maintainer types into a dispatched workflow;
* :mod:`leaderboard.app.ci.audit` reads the GitHub settings that keep fork PRs off the
  self-hosted GPU runner (docs/MAINTAINERS.md).
"""
