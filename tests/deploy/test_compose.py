"""docker-compose.yml and the Dockerfile, checked without a Docker engine: the file parses, the
services are there with health checks, and everything they name exists in the project."""
from __future__ import annotations

import importlib
import re
import shlex
from typing import Any

import pytest
import yaml

from tests.conftest import REPO

COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]
APP_SERVICES = ("web", "worker", "beat")


def words(command: str | list[str]) -> list[str]:
    return command if isinstance(command, list) else shlex.split(command)


def test_it_has_the_full_stack() -> None:
    assert set(SERVICES) >= {"postgres", "redis", "web", "worker", "beat"}
    for name in ("postgres", "redis", "web", "worker"):
        assert "test" in SERVICES[name]["healthcheck"], name


def test_app_services_share_the_media_volume_and_wait_for_healthy_backends() -> None:
    for name in APP_SERVICES:
        service = SERVICES[name]
        assert "media:/data/media" in service["volumes"]
        assert service["environment"]["MEDIA_ROOT"] == "/data/media"
        assert service["depends_on"] == {
            "postgres": {"condition": "service_healthy"}, "redis": {"condition": "service_healthy"}
        }
    assert "media" in COMPOSE["volumes"]


def test_the_environment_it_sets_is_read_by_the_settings() -> None:
    settings_source = (REPO / "triage" / "settings.py").read_text()
    for variable in SERVICES["web"]["environment"]:
        assert re.search(rf'env(bool|int|list)?\("{variable}"', settings_source), variable
    env = SERVICES["web"]["environment"]
    assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"


def test_the_web_command_runs_migrations_then_gunicorn_on_our_wsgi_app() -> None:
    command = " ".join(words(SERVICES["web"]["command"]))
    assert "python manage.py migrate --noinput" in command
    target = re.search(r"gunicorn (\S+)", command).group(1)  # type: ignore[union-attr]
    module, attribute = target.split(":")
    assert callable(getattr(importlib.import_module(module), attribute))
    assert (REPO / "manage.py").exists()


@pytest.mark.parametrize("name, role", [("worker", "worker"), ("beat", "beat")])
def test_celery_services_name_our_celery_app(name: str, role: str) -> None:
    command = words(SERVICES[name]["command"])
    assert command[:4] == ["celery", "-A", "triage", role]
    from triage import celery_app

    assert celery_app.main == "triage"
    celery_app.loader.import_default_modules()  # what a worker does at start: autodiscovery
    assert "triage.incidents.tasks.incident_parse_task" in celery_app.tasks
    if role == "beat":
        from django.conf import settings

        assert settings.CELERY_BEAT_SCHEDULE["incidents-fail-stuck"]["task"] in celery_app.tasks


def test_the_image_has_what_the_services_run() -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    for source in re.findall(r"^COPY (\S+)", dockerfile, flags=re.MULTILINE):
        assert (REPO / source).exists(), source
    requirements = (REPO / "requirements.txt").read_text().lower()
    for package in ("gunicorn", "celery", "redis", "psycopg", "whitenoise", "dj-database-url", "django"):
        assert re.search(rf"^{package}(\[\w+\])?==", requirements, flags=re.MULTILINE), package
    assert "collectstatic" in dockerfile
