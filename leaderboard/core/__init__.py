"""leaderboard/core"""
