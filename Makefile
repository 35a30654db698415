# Two commands for a newcomer: `make run` and `make test`. Both create .venv themselves
# and are safe to run again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run test venv services chromium bench clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
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

test: venv services chromium
	$(PY) -m pytest

bench: venv services chromium
	$(PY) bench/parse.py
	$(PY) bench/pipeline.py
	$(PY) bench/timeline.py
	$(PY) bench/load.py
	$(PY) bench/fleet.py

clean:
	rm -rf $(VENV) media staticfiles .pytest_cache
