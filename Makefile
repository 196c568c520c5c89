# Contract-first repo: spec/ is the source of truth; everything under generated/ is derived from it.
# Every target sets up its own virtualenv (.venv) from the pins in pyproject.toml.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
BUNDLE := generated/openapi.yaml
HOST ?= 127.0.0.1
PORT ?= 8080
export PATH := $(CURDIR)/$(BIN):$(PATH)

.DEFAULT_GOAL := help
.PHONY: help setup bundle validate lint seedcheck check run serve test clean

help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

setup: $(STAMP) ## Create .venv and install the pinned toolchain

bundle: $(STAMP) ## Bundle spec/ into generated/openapi.{yaml,json} (prance)
	$(PY) -m scripts.bundle

validate: bundle ## Validate the bundle with openapi-spec-validator
	$(PY) -m scripts.validate $(BUNDLE)

lint: bundle ## House lint rules on the bundle, ruff on the code
	$(PY) -m scripts.lint $(BUNDLE)
	$(BIN)/ruff check accessgov scripts tests
	$(BIN)/ruff format --check accessgov scripts tests

seedcheck: bundle ## Hold the bundle against every type, field and value the seed names
	$(PY) ../shared/tools/seedcheck.py $(BUNDLE)

check: validate lint ## bundle + validate + lint

run: $(STAMP) ## Start the reference server on $(HOST):$(PORT) with the demo tenant (SQLite)
	$(BIN)/accessgov serve --host $(HOST) --port $(PORT) --demo

serve: run ## Alias of run

test: $(STAMP) ## Run every check and test (what CI runs)
	$(PY) -m scripts.validate $(BUNDLE)
	$(PY) -m scripts.lint $(BUNDLE)
	$(BIN)/pytest -q

clean: ## Remove the venv, caches and local data
	rm -rf $(VENV) build data .pytest_cache .ruff_cache
