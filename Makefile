# One way to run each thing. Every target creates .venv when it is missing and
# reinstalls only when pyproject.toml changed, so a second call reuses what is there.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test ui mlflow-ui lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/plumbline run

test: $(STAMP)
	$(BIN)/python -m pytest

ui: $(STAMP)
	$(BIN)/plumbline ui

mlflow-ui: $(STAMP)
	$(BIN)/plumbline mlflow-ui

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/plumbline contracts lint
	VIRTUAL_ENV=$(CURDIR)/$(VENV) DAGSTER_HOME=$$(mktemp -d) $(BIN)/dg check defs

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
