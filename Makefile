# Two commands for a newcomer: `make run` and `make test`. Both create .venv themselves
# and are safe to run again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

# Extra pip options, e.g. PIP_EXTRA="--extra-index-url https://download.pytorch.org/whl/cpu"
# where no local wheel folder carries torch's CPU build (see requirements-dev.txt).
PIP_EXTRA ?=

.PHONY: run test lint venv dev-venv services chromium slurm ldap openmpi bench clean collector-pyz

# `make run` needs only the dashboard's requirements (bench/install.py measures them).
$(VENV)/.installed-run: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m triage.engine.gate --build
	touch $@

# `make test` and the rest: the development requirements on top (torch CPU, Playwright, moto...).
$(VENV)/.installed: requirements.txt requirements-s3.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check $(PIP_EXTRA) -r requirements-dev.txt
	# The collectors' one dependency as a wheel, for offline builds (collector-pyz) and the
	# packaging tests' fresh venv, which install with --no-index.
	$(PY) -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
		-d $(VENV)/wheelhouse nvidia-ml-py==13.615.71
	# The engine's scan databases, compiled now rather than by the first diagnosis (seconds).
	$(PY) -m triage.engine.gate --build
	touch $@ $(VENV)/.installed-run

venv: $(VENV)/.installed-run

dev-venv: $(VENV)/.installed

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

# LDAP sign-in (requirements-ldap.txt) and its tests: Debian's slapd and the headers python-ldap
# compiles against (scripts/ensure-ldap), then python-ldap and django-auth-ldap into the venv.
$(VENV)/.installed-ldap: requirements-ldap.txt $(VENV)/.installed
	bash scripts/ensure-ldap
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-ldap.txt
	touch $@

ldap: $(VENV)/.installed-ldap

openmpi:
	bash scripts/ensure-openmpi

# ruff over the whole tree; mypy --strict over triage/ and collectors/ (config in
# pyproject.toml; the cache in .mypy_cache makes a second run take seconds). Runs before the tests.
lint: dev-venv
	$(PY) -m ruff check . && $(PY) -m mypy

# The suite runs in TEST_WORKERS xdist processes (CI's machine has 2 cores; `make test
# TEST_WORKERS=auto` takes one per core), each file's tests in one worker (tests/conftest.py
# groups them), each worker with its own test database.
TEST_WORKERS ?= 2

# Steps that need root (README "make test"): chromium, slurm, ldap and openmpi apt-get install
# Debian packages (chromium fonts-dejavu-core; slurmctld slurmd slurm-client munge; slapd
# libldap2-dev libsasl2-dev; openmpi-bin) when missing; services starts the installed
# redis-server and PostgreSQL cluster (pg_ctlcluster).
test: dev-venv lint services chromium slurm ldap openmpi
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

bench: dev-venv services chromium
	$(PY) bench/parse.py
	$(PY) bench/pipeline.py
	$(PY) bench/timeline.py
	$(PY) bench/load.py
	$(PY) bench/fleet.py
	$(PY) bench/scaleout.py

# The collectors in one file for air-gapped nodes: python3 nccl-triage.pyz --help
collector-pyz: dev-venv
	$(PY) scripts/build-collector-pyz --out nccl-triage.pyz

clean:
	rm -rf $(VENV) media staticfiles .pytest_cache
