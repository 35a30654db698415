"""`manage.py diagnose PATH [--json]`: the verdict in a terminal, no database or server needed."""
from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from triage.cli.render import render_text, terminal_safe
from triage.engine import BundleError, diagnose


class Command(BaseCommand):
    help = "Diagnose a bundle (directory, log file, .gz, .tar/.tar.gz/.tgz or .zip) and print the verdict."
    requires_system_checks: list[str] = []  # must work with no database configured or reachable
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="bundle: a directory, a log file, or an archive")
        parser.add_argument("--json", action="store_true", help="print the nccl-triage/diagnosis@1 JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = diagnose(options["path"]).to_dict()
        except BundleError as exc:
            sys.stderr.write(f"error: {terminal_safe(str(exc))}\n")
            sys.exit(2)
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
        else:
            self.stdout.write(render_text(result), ending="")
