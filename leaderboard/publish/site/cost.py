"""What a verified model cost to run, as its submission page shows it: the hardware
named first, then one row per task (or task family) in the order recorded.

Cost is shown only beside the hardware it was measured on, one submission at a time:
never as a column of a leaderboard table, where figures from different machines would
sort against each other.
"""

from __future__ import annotations

from leaderboard.core.fileio import size_text
from leaderboard.submission.metadata import Efficiency


def hardware_text(efficiency: Efficiency) -> str:
    hw = efficiency.hardware
    text = hw.cpu + (f", {hw.cpu_cores} CPU cores" if hw.cpu_cores else "")
    if hw.gpu:
        text += f", {hw.gpu_count}x {hw.gpu}"
    else:
        text += ", no GPU"
    return text + f"; precision: {hw.precision}"


def _number(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def efficiency_context(efficiency: Efficiency | None) -> dict | None:
    """The submission page's cost section, or None when metadata.yaml records none."""
    if efficiency is None:
        return None
    rows = []
    for task, cost in efficiency.tasks.items():
        rows.append({
            "task": task,
            "encode": _number(cost.encode_seconds, 2), "search": _number(cost.search_seconds, 2),
            "texts": f"{cost.texts:,}",
            "texts_per_second": _number(cost.texts_per_second),
            "tokens_per_second": _number(cost.tokens_per_second, 0),
            "cpu_memory": "–" if cost.peak_cpu_memory_bytes is None
            else size_text(cost.peak_cpu_memory_bytes),
            "gpu_memory": "–" if cost.peak_gpu_memory_bytes is None
            else size_text(cost.peak_gpu_memory_bytes),
            "load": _number(cost.load_average, 2), "sample": cost.sample or "the whole task"})
    return {"source": efficiency.source, "command": efficiency.measured_by,
            "hardware": hardware_text(efficiency),
            "date": efficiency.date, "cache": efficiency.embedding_cache, "rows": rows}
