"""What a one-task `leaderboard eval` needs, and nothing above it: the task shape
(``tasks``), the measure catalogue (``measures``) and the one rounding rule (``display``),
run files (``runs``), the data readers (``data``), the metrics (``metrics``), scoring one
task (``scoring``, ``predictions``, ``evaluate``), explaining one (``explain``), and the
shared ground: findings with their file and line (``report``), bounded file reading and
atomic writes (``fileio``), checksums, settings (``config``) and the error root
(``errors``). Nothing here imports another layer (docs/ARCHITECTURE.md).
"""
