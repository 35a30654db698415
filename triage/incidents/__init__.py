"""Incidents: bundles, their diagnosis, and the services and tasks around them."""
