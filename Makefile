# The two commands a newcomer needs are `make run` and `make test`; both create
# .venv and install the project into it first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# The package is installed as a wheel (the `sources` mapping cannot be installed in
# editable mode); build/dev mirrors the source folders as the `genial` namespace for
# the type checker.
DEV := build/dev

BUF := node_modules/.bin/buf

.PHONY: run test lint typecheck unit install redis bench-engine demo clean loadtest bench \
	generate proto-lint proto-breaking proto-check sandbox

$(PY):
	$(PYTHON) -m venv $(VENV) || { \
	  echo "python3 -m venv failed; installing python3-venv"; \
	  apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.deps: pyproject.toml | $(PY)
	$(PY) -m pip install -q '.[test]'
	touch $@

# Reinstall the package itself on every run so tests always see the current sources.
install: $(VENV)/.deps
	$(PY) -m pip install -q --no-deps --force-reinstall .
	@mkdir -p $(DEV)/genial
	@for d in engine service bots; do ln -sfn ../../../$$d $(DEV)/genial/$$d; done
	@ln -sfn ../../../clients/python/genial/v1 $(DEV)/genial/v1

redis:
	@command -v redis-server >/dev/null || { \
	  echo "redis-server is missing; installing it"; \
	  apt-get update -qq && apt-get install -y -qq redis-server; }

# buf comes from npm (pinned in package.json); its postinstall only swaps the JS shim
# for the binary.
$(BUF): package.json package-lock.json
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq npm; }
	npm ci --ignore-scripts --no-audit --no-fund
	@touch $(BUF)

generate: install
	PYTHON=$(PY) scripts/generate.sh

proto-lint: $(BUF)
	$(BUF) lint
	$(BUF) format --diff --exit-code

proto-breaking: $(BUF)
	BUF=$(BUF) scripts/buf-breaking.sh

# The committed generated code matches proto/.
proto-check: generate
	@test -z "$$(git status --porcelain -- clients/python/genial/v1 clients/openapi.json)" || \
	  { git status --short -- clients/python/genial/v1 clients/openapi.json; \
	    echo "run make generate and commit"; exit 1; }

# The deploy tests run the worker as its pod would (its user, read-only root) under bubblewrap.
sandbox:
	@command -v bwrap >/dev/null || { \
	  echo "bwrap is missing; installing bubblewrap"; \
	  apt-get update -qq && apt-get install -y -qq bubblewrap; }

lint: install proto-lint proto-breaking
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	cd $(DEV) && ../../$(BIN)/mypy --strict -p genial.engine -p genial.bots

unit: install redis sandbox
	$(PY) -m pytest -q

test: lint typecheck proto-check unit

run: install
	$(BIN)/genial serve

bench-engine: install
	$(PY) loadtest/bench_engine.py

# Load tests and the service benchmark (docs/performance.md). Locust, gevent and py-spy
# come with the `load` extra, installed on first use. Options go in LOAD_ARGS / BENCH_ARGS.
$(VENV)/.load: pyproject.toml | $(VENV)/.deps
	$(PY) -m pip install -q '.[load]'
	touch $@

loadtest: install redis $(VENV)/.load
	$(PY) -m loadtest.run_locust $(LOAD_ARGS)

bench: install redis $(VENV)/.load
	$(PY) -m loadtest.bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache .hypothesis
