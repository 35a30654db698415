"""The collector API: bundle upload and incident status, with bearer tokens."""
