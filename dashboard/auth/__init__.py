"""Who is using the dashboard: local accounts in a users file (`users.py`) and their roles."""
