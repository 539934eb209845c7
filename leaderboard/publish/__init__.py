"""leaderboard/publish"""
