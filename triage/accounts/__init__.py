"""Accounts: API tokens now; teams, roles and share links later."""
