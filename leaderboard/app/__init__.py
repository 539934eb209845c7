"""leaderboard/app"""
