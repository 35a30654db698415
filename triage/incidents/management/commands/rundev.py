"""`manage.py rundev [--port N]`: say where the dashboard is and how to sign in, then serve."""
from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from .loaddemo import DEMO_DEV_PASSWORD, DEMO_USER


class Command(BaseCommand):
    help = "Run the development server, printing its URL and how to sign in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8000))
        parser.add_argument("--noreload", action="store_true", help="do not restart on code changes")

    def handle(self, *args: Any, **options: Any) -> None:
        port = options["port"]
        # The autoreloader runs this command again in a child (RUN_MAIN=true): print once.
        if os.environ.get("RUN_MAIN") != "true":
            self.stdout.write(self.banner(port))
        call_command("runserver", f"127.0.0.1:{port}", use_reloader=not options["noreload"])

    @staticmethod
    def banner(port: int) -> str:
        lines = [f"nccl-triage is running at http://127.0.0.1:{port}"]
        if settings.DEBUG or settings.EMBEDDED:
            lines.append(f"Sign in as {DEMO_USER} / {DEMO_DEV_PASSWORD} (created by `manage.py loaddemo`).")
        else:
            lines.append(f"Sign in as {DEMO_USER} with the password `manage.py loaddemo` printed.")
        if settings.CELERY_TASK_ALWAYS_EAGER:
            lines.append("Embedded mode: uploads are diagnosed in-process (no Redis, no worker).")
        else:
            lines.append("REDIS_URL is set: start a worker too, in another terminal:")
            lines.append("  .venv/bin/celery -A triage worker -B --loglevel=INFO")
        return "\n".join(lines)
