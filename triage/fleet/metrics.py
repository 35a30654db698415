"""/metrics: the database read at scrape time, rendered by prometheus_client.

Counting from the database (not counters in process memory) keeps every gunicorn worker and
machine in agreement and survives restarts; each scrape costs a handful of grouped queries.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, Sum
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from triage.incidents.models import Diagnosis, Incident

from .models import Problem
from .selectors import drained_hosts

# Parse durations span a log file (a second) to a 60 GB bundle (many minutes).
PARSE_BUCKETS = (0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)


class FleetCollector(Collector):
    def __init__(self, team_ids: list[int] | None) -> None:
        self.team_ids = team_ids

    def _scoped(self, qs: Any, field: str = "team_id") -> Any:
        return qs if self.team_ids is None else qs.filter(**{f"{field}__in": self.team_ids})

    def collect(self) -> Iterator[Any]:
        incidents = CounterMetricFamily(
            "triage_incidents", "Incidents by verdict cause and team (status ready; 'unknown' when no cause)",
            labels=["cause", "team"],
        )
        rows = self._scoped(Incident.objects.filter(status=Incident.Status.READY)).values("cause", "team__name") \
            .annotate(n=Count("pk")).order_by()
        for row in rows:
            incidents.add_metric([row["cause"] or "unknown", row["team__name"]], row["n"])
        yield incidents

        states = GaugeMetricFamily("triage_incidents_by_status", "Incidents by processing status", labels=["status"])
        for row in self._scoped(Incident.objects.all()).values("status").annotate(n=Count("pk")).order_by():
            states.add_metric([row["status"]], row["n"])
        yield states

        problems = GaugeMetricFamily("triage_problems_open", "Open problems (grouped incidents) by team",
                                     labels=["team"])
        for row in self._scoped(Problem.objects.filter(status=Problem.Status.OPEN)).values("team__name") \
                .annotate(n=Count("pk")).order_by():
            problems.add_metric([row["team__name"]], row["n"])
        yield problems

        team_ids = self.team_ids if self.team_ids is not None else list(
            Problem.objects.values_list("team_id", flat=True).distinct())
        yield GaugeMetricFamily("triage_hosts_drain_recommended", "Hosts recommended for drain now",
                                value=len(drained_hosts(team_ids=team_ids)))

        aggregates: dict[str, Any] = {f"le_{b}": Count("pk", filter=Q(parse_seconds__lte=b)) for b in PARSE_BUCKETS}
        stats = self._scoped(Diagnosis.objects.all(), "incident__team_id").aggregate(
            total=Count("pk"), seconds=Sum("parse_seconds"), **aggregates)
        buckets = [(str(b), stats[f"le_{b}"]) for b in PARSE_BUCKETS] + [("+Inf", stats["total"])]
        yield HistogramMetricFamily("triage_parse_duration_seconds", "Engine time per stored diagnosis",
                                    buckets=buckets, sum_value=float(stats["seconds"] or 0.0))

        queue = GaugeMetricFamily("triage_queue_depth", "Tasks waiting in the broker queue", labels=["queue"])
        queue.add_metric([settings.CELERY_TASK_DEFAULT_QUEUE], _broker_depth())
        yield queue


def _broker_depth() -> float:
    """Length of the Celery queue in Redis; NaN when there is no broker to ask (embedded mode)."""
    url = getattr(settings, "REDIS_URL", "")
    if not url:
        return float("nan")
    import redis

    prefix = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix", "")
    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        return float(client.llen(prefix + settings.CELERY_TASK_DEFAULT_QUEUE))
    except redis.RedisError:
        return float("nan")


def render_metrics(*, team_ids: list[int] | None) -> tuple[bytes, str]:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FleetCollector(team_ids))
    return generate_latest(registry), CONTENT_TYPE_LATEST
