"""Parsing spread over workers, and the partial states that let a job's bundles merge without
re-reading them (docs/scale-out.md)."""
