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
TS := clients/typescript
# npm ci empties node_modules first, so the stamp lives inside it.
TS_MODULES := $(TS)/node_modules/.stamp
WEB := clients/web
WEB_MODULES := $(WEB)/node_modules/.stamp

.PHONY: run test lint typecheck unit install redis bench-engine demo clean loadtest bench \
	generate proto-lint proto-breaking sandbox promtool protoc mobile ts-lint ts-test \
	test-reliability chromium web web-lint web-screenshots bench-match bench-store

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
	@for d in v1 client; do ln -sfn ../../../clients/python/genial/$$d $(DEV)/genial/$$d; done

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

# Debian's protoc and gRPC Java plugin generate the code for mobile apps (Java with its
# gRPC stubs, Kotlin, Objective-C) on demand, with buf.gen.yaml; grpcio-tools' protoc has
# only the Python generators.
protoc:
	@command -v protoc >/dev/null && command -v grpc_java_plugin >/dev/null || { \
	  echo "protoc or its gRPC Java plugin is missing; installing them"; \
	  apt-get update -qq && apt-get install -y -qq protobuf-compiler \
	    protobuf-compiler-grpc-java-plugin; }

# The code for mobile apps, into build/gen/{java,kotlin,objc}; not committed.
mobile: protoc $(BUF)
	$(BUF) generate

# The TypeScript SDK's packages, protoc-gen-es among them, pinned in its package-lock.json.
$(TS_MODULES): $(TS)/package.json $(TS)/package-lock.json
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq npm; }
	cd $(TS) && npm ci --ignore-scripts --no-audit --no-fund
	@touch $@

# The web client's packages (Preact, esbuild, axe-core for its tests), pinned likewise.
$(WEB_MODULES): $(WEB)/package.json $(WEB)/package-lock.json
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq npm; }
	cd $(WEB) && npm ci --ignore-scripts --no-audit --no-fund
	@touch $@

# Builds the web client into clients/web/bundle, which is committed (docs/web.md):
# tests/web/test_bundle.py checks that it is what the sources build.
web: $(WEB_MODULES) $(TS_MODULES)
	cd $(WEB) && npm run build

web-lint: $(WEB_MODULES) $(TS_MODULES)
	cd $(WEB) && npm run lint

# The browser tests drive Debian's chromium: Playwright cannot download its own here.
chromium:
	@command -v chromium >/dev/null || { \
	  echo "chromium is missing; installing it"; \
	  apt-get update -qq && apt-get install -y -qq chromium; }

# Takes the screenshots of docs/web.md again (the browser tests, writing into docs/web).
web-screenshots: install redis chromium $(BUF) $(WEB_MODULES) $(TS_MODULES)
	GENIAL_SCREENSHOTS=docs/web $(PY) -m pytest -q tests/web

generate: install $(TS_MODULES)
	PYTHON=$(PY) scripts/generate.sh

proto-lint: $(BUF)
	$(BUF) lint
	$(BUF) format --diff --exit-code

proto-breaking: $(BUF)
	BUF=$(BUF) scripts/buf-breaking.sh

# The deploy tests run the worker as its pod would (its user, read-only root) under bubblewrap.
sandbox:
	@command -v bwrap >/dev/null || { \
	  echo "bwrap is missing; installing bubblewrap"; \
	  apt-get update -qq && apt-get install -y -qq bubblewrap; }

# The deploy tests check the chart's alerts and dashboard queries with Prometheus's promtool.
promtool:
	@command -v promtool >/dev/null || { \
	  echo "promtool is missing; installing prometheus"; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus; }

lint: install proto-lint proto-breaking ts-lint web-lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

ts-lint: $(TS_MODULES)
	cd $(TS) && npm run lint

# By path: given `-p genial.client`, mypy would check the installed copy in site-packages
# (it ships py.typed) and report nothing from there. loadtest is not part of the `genial`
# package: a run of its own over its files, from the root (it imports `loadtest.*`), with
# build/dev for `genial` and the `load` extra for Locust.
typecheck: install $(VENV)/.load
	cd $(DEV) && ../../$(BIN)/mypy --strict --explicit-package-bases \
	  genial/engine genial/bots genial/client genial/service
	MYPYPATH=$(DEV) $(BIN)/mypy --strict loadtest/*.py

# tests/clients regenerates the committed client code into a temporary folder and compares
# it (protoc-gen-es), and generates the mobile code with buf, protoc and its Java plugin;
# tests/web drives chromium, rebuilds the web client and lints the OpenAPI document with
# Redocly (root node_modules). The suites that take minutes (faults, fuzzing, Redis
# Cluster) have their own target.
# Two processes: most tests wait on workers, browsers and timers, not on a core.
TEST_PROCESSES ?= 2
unit: install redis sandbox promtool protoc chromium $(BUF) $(TS_MODULES) $(WEB_MODULES)
	$(PY) -m pytest -q -n $(TEST_PROCESSES) --ignore=tests/reliability

# A test that fails is run once more: the faults these inject (SIGKILL, SIGSTOP, failovers
# under load) race the machine's scheduler; a failure is reported in the summary either way.
test-reliability: install redis
	$(PY) -m pytest -q -rR --reruns 1 tests/reliability

# The TypeScript SDK against a `genial serve` of its own (node's test runner).
ts-test: install $(TS_MODULES)
	cd $(TS) && npm test

test: lint typecheck unit ts-test

run: install
	$(BIN)/genial serve

bench-engine: install
	$(PY) loadtest/bench_engine.py

# What Redis adds to a move's write, against the in-process store (docs/performance.md).
bench-store: install redis
	$(PY) -m loadtest.bench_store $(STORE_ARGS)

# Load tests and the service benchmark (docs/performance.md). Locust, gevent and py-spy
# come with the `load` extra, installed on first use. Options go in LOAD_ARGS / BENCH_ARGS.
$(VENV)/.load: pyproject.toml | $(VENV)/.deps
	$(PY) -m pip install -q '.[load]'
	touch $@

loadtest: install redis $(VENV)/.load
	$(PY) -m loadtest.run_locust $(LOAD_ARGS)

bench: install redis $(VENV)/.load
	$(PY) -m loadtest.bench $(BENCH_ARGS)

# The matchmaker's figures (2 workers, a Redis of its own): tickets matched a second, waits
# at an arrival rate, rating spread in matched games. Options go in MATCH_ARGS.
bench-match: install redis
	$(PY) -m loadtest.bench_match $(MATCH_ARGS)

clean:
	rm -rf $(VENV) build .pytest_cache .mypy_cache .ruff_cache .hypothesis
