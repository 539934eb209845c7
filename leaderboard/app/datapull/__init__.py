"""leaderboard/app/datapull"""
