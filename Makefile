# Two commands for a newcomer: `make run` and `make test`. Both create .venv themselves
# and are safe to run again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test lint venv services chromium slurm bench clean collector-pyz

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	# The collectors' one dependency as a wheel, for offline builds (collector-pyz) and the
	# packaging tests' fresh venv, which install with --no-index.
	$(PY) -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
		-d $(VENV)/wheelhouse nvidia-ml-py==13.615.71
	touch $@

venv: $(VENV)/.installed

# Embedded default: SQLite, tasks run in-process, demo incidents loaded.
run: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v 0
	$(PY) manage.py loaddemo
	$(PY) manage.py rundev --port $(PORT)

services:
	bash scripts/services-up

chromium:
	bash scripts/ensure-chromium

slurm:
	bash scripts/ensure-slurm

# ruff over the whole tree; mypy --strict over triage/ and collectors/ (config in
# pyproject.toml; the cache in .mypy_cache makes a second run take seconds). Runs before the tests.
lint: venv
	$(PY) -m ruff check . && $(PY) -m mypy

test: venv lint services chromium slurm
	$(PY) -m pytest

bench: venv services chromium
	$(PY) bench/parse.py
	$(PY) bench/pipeline.py
	$(PY) bench/timeline.py
	$(PY) bench/load.py
	$(PY) bench/fleet.py
	$(PY) bench/scaleout.py

# The collectors in one file for air-gapped nodes: python3 nccl-triage.pyz --help
collector-pyz: venv
	$(PY) scripts/build-collector-pyz --out nccl-triage.pyz

clean:
	rm -rf $(VENV) media staticfiles .pytest_cache
