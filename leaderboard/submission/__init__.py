"""leaderboard/submission"""
