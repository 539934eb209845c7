"""What CI's check of a pull request adding or changing a submission can conclude, in the
words the pull-request comment and the How-to-submit page both use. What the pull request
may carry is :mod:`leaderboard.submission.layout`'s."""

from __future__ import annotations

from typing import Literal

# "none": the pull request (at the head checked) changes no file under submissions/, so
# there is nothing to check; said so that an earlier head's report is not left standing.
Status = Literal["valid", "invalid", "refused", "error", "none"]

STATUS_LINE: dict[Status, str] = {
    "valid": "✅ valid and scored",
    "invalid": "❌ not valid",
    "refused": "⛔ refused",
    "error": "⚠️ the check itself failed",
    "none": "➖ no submission changed",
}
