# Two commands set everything up on a fresh machine:
#   make run    venv + install, load the bundled sample on first start, serve 127.0.0.1:8501
#   make test   venv + dev extras (+ Debian's Chromium, PostgreSQL and nginx when missing and
#               root), run every test
#   make test-postgres   the same suite with PostgreSQL as the store (no gates)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
PORT ?= 8501

.PHONY: run test test-postgres lint chromium postgres nginx bench clean

run: $(RUN_STAMP)
	$(BIN)/judgeboard serve --port $(PORT)

test: $(DEV_STAMP) chromium postgres nginx lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The whole suite again with PostgreSQL as the store: every `store` and `sample_store` is a
# database on a real server the session starts (tests marked `file_store` stay on a file).
# The gates are `make test`'s; not run twice.
test-postgres: $(DEV_STAMP) chromium postgres nginx
	JUDGEBOARD_TEST_STORE=postgresql $(BIN)/python -m pytest $(PYTEST_ARGS)

# The gates: ruff (lint and format) and the type checker, configured in pyproject.toml.
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@ $(RUN_STAMP)

# The PostgreSQL store's tests start their own server from Debian's PostgreSQL (initdb, pg_ctl).
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's postgresql for the PostgreSQL store's tests"; \
		.ci/apt-install postgresql; \
	else \
		echo "PostgreSQL is missing and this is not root: install it (apt-get install postgresql)"; exit 1; \
	fi

# Browser tests drive Debian's Chromium (Playwright cannot download its own browser here).
chromium:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's chromium for the browser tests"; \
		.ci/apt-install chromium; \
	else \
		echo "chromium is missing and this is not root: install it (apt-get install chromium)"; exit 1; \
	fi

# Debian's nginx: tests/browser/test_replicas.py runs the example reverse proxy
# (deploy/nginx/judgeboard.conf) in front of two replicas, as a process of its own.
nginx:
	@if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's nginx for the replicas test"; \
		.ci/apt-install nginx; \
	else \
		echo "nginx is missing and this is not root: install it (apt-get install nginx)"; exit 1; \
	fi

bench: $(DEV_STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info test-artifacts
