"""FollowBoard: validation, scoring and publishing for instruction-following retrieval."""

__version__ = "0.1.0"
