"""`leaderboard data pull`: fetching each benchmark's upstream files at their pinned
revisions, checksummed and written atomically: the plan and the pull (``pull``), GitHub
(``github``), the Hugging Face Hub (``hub``) and what they share (``common``).
"""
