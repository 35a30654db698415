"""Accounts: teams and roles, API tokens, share links."""
