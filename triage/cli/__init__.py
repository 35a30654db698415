"""Command-line entry points that need no database (manage.py diagnose)."""
