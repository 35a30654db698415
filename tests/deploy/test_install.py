"""The newcomer's install: `make run` installs the dashboard's requirements only, `make test`
the development ones, with torch's CPU build named explicitly (bench/install.py measures the
small install; this checks the wiring)."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "playwright", "moto", "kubernetes-validate", "pytest", "boto3", "django-storages", "nvidia-ml-py")


def pins(name: str) -> dict[str, str]:
    text = (REPO / name).read_text()
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r"^([A-Za-z0-9_.-]+)(?:\[[\w,]+\])?==(\S+)", text, re.M)}


def make_rule(target: str) -> str:
    makefile = (REPO / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}:.*?(?=^\S|\Z)", makefile, re.M | re.S)
    assert match is not None, target
    return match.group(0)


def test_make_run_installs_the_small_requirements_only() -> None:
    runtime = pins("requirements.txt")
    assert {"django", "celery", "plotly", "psycopg"} <= set(runtime)
    assert [p for p in HEAVY if p in runtime] == []
    assert make_rule("run").startswith("run: venv")
    assert make_rule("venv").split(":", 1)[1].split() == ["$(VENV)/.installed-run"]
    small = make_rule("$(VENV)/.installed-run")
    assert "-r requirements.txt" in small and "requirements-dev" not in small and "download" not in small


def test_make_test_installs_the_dev_requirements_with_the_cpu_torch() -> None:
    assert make_rule("test").startswith("test: dev-venv")
    assert "-r requirements-dev.txt" in make_rule("$(VENV)/.installed")
    dev = pins("requirements-dev.txt")
    assert dev["torch"].endswith("+cpu"), dev["torch"]
    text = (REPO / "requirements-dev.txt").read_text()
    assert "-r requirements.txt" in text and "-r requirements-s3.txt" in text
    assert {"boto3", "django-storages"} <= set(pins("requirements-s3.txt"))
