"""What CI's check of a pull request adding or changing a submission can conclude, in the
words the pull-request comment and the How-to-submit page both use. What the pull request
may carry is :mod:`leaderboard.submission.layout`'s."""

from __future__ import annotations

from typing import Literal

Status = Literal["valid", "invalid", "refused", "error"]

STATUS_LINE: dict[Status, str] = {
    "valid": "✅ valid and scored",
    "invalid": "❌ not valid",
    "refused": "⛔ refused",
    "error": "⚠️ the check itself failed",
}
