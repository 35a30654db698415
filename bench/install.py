#!/usr/bin/env python
"""What `make run` costs a newcomer: a fresh virtualenv with requirements.txt only.

Creates a virtualenv in a temporary folder, installs requirements.txt into it with pip's cache
off (a cold install: every wheel fetched from the configured indexes again), then reports the
seconds that took, the folder's size on disk, the biggest packages, and checks that every
module of the dashboard imports and that the development-only packages are absent.

    python3 bench/install.py                 # requirements.txt (what `make run` installs)
    python3 bench/install.py --requirements requirements-dev.txt   # for comparison

Target (issue 22): under 250 MB and under 30 s on the project's build machine. The numbers
for the README come from this script.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEV_ONLY = ("torch", "playwright", "moto", "kubernetes_validate", "pytest", "boto3", "pynvml")


CHECK = f"""
import importlib, importlib.util, os, pkgutil
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "triage.settings")
import django
django.setup()
import triage
for module in pkgutil.walk_packages(triage.__path__, "triage."):
    if not module.name.endswith(("storage_s3", "gloo_worker", "settings_test", "ldapauth", "ldapconfig")):
        importlib.import_module(module.name)
print([m for m in {DEV_ONLY!r} if importlib.util.find_spec(m)])
"""


def folder_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            file = Path(root) / name
            if not file.is_symlink():
                total += file.stat().st_size
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requirements", default="requirements.txt")
    parser.add_argument("--python", default=sys.executable, help="the interpreter the venv is made from")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="triage-install-") as tmp:
        venv = Path(tmp) / "venv"
        env = {**os.environ, "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        start = time.monotonic()
        subprocess.run([args.python, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-r", str(REPO / args.requirements)],
            check=True, env=env,
        )
        seconds = time.monotonic() - start
        size = folder_bytes(venv)
        site = next((venv / "lib").glob("python3*/site-packages"))
        packages = sorted(((folder_bytes(p) if p.is_dir() else p.stat().st_size), p.name) for p in site.iterdir())
        # The dashboard runs on this install: settings load and every module of triage/ imports
        # (but the S3 backend, the gloo worker of the scenario tests and the test settings).
        check = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK], cwd=REPO, env={**env, "DEBUG": "1"},
                               capture_output=True, text=True, check=False)
        shutil.rmtree(venv)

    load = os.getloadavg()[0]
    print(f"{args.requirements}: {seconds:.1f} s cold (pip cache off), {size / 1e6:.0f} MB on disk "
          f"(load average {load:.1f} on {os.cpu_count()} CPUs: time grows with it)")
    print("largest:", ", ".join(f"{name} {n / 1e6:.0f} MB" for n, name in reversed(packages[-6:])))
    if check.returncode != 0:
        print("the dashboard does not start with this install:", check.stderr[-2000:], file=sys.stderr)
        return 1
    print("development-only packages present:", check.stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
