# One way to run each thing. Every target creates .venv when it is missing and
# reinstalls only when pyproject.toml or the lock changed, so a second call reuses what is there.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# Every distribution .venv gets, pinned with its hashes (requirements/lock.py says which lock
# serves which install). models/environment.py records the digest of the copy kept in .venv.
# On a GPU node: make run LOCK=requirements/train-amd64.lock (CUDA torch, no dev tools).
LOCK ?= requirements/dev.lock
# One stamp per lock, so that switching LOCK reinstalls.
STAMP := $(VENV)/.installed-$(notdir $(LOCK))
PIP_LOCK := requirements/pip.lock
UV_VERSION := 0.13.9
# Where `make lock` finds the torch 2.13.0+cpu wheel of the CPU locks.
CPU_TORCH_FIND_LINKS ?= /opt/wheels

.PHONY: install lock run test ui mlflow-ui lint bench clean

install: $(STAMP)

# pip first, from its own lock: a venv's bundled pip may be too old for the main one. The
# project itself goes in without its dependencies (the lock holds them all) and without build
# isolation, so that its build backend is the lock's setuptools, not an unpinned download.
# One line per phase: the whole install takes minutes; pip itself says only errors (-qq).
$(STAMP): pyproject.toml $(PIP_LOCK) $(LOCK)
	@test -x $(BIN)/python || { echo "install: creating the virtualenv $(VENV) ($(PYTHON))"; \
		$(PYTHON) -m venv $(VENV); }
	@echo "install: pip from $(PIP_LOCK)"
	@$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check --require-hashes -r $(PIP_LOCK)
	@echo "install: $$(grep -cE '^[A-Za-z0-9][^ ]*==' $(LOCK)) locked dependencies from $(LOCK) (a few minutes the first time)"
	@$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check --require-hashes -r $(LOCK)
	@echo "install: plumbline itself (editable)"
	@$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@# Its bytecode too, as pip compiles every other package's: every plumbline process (each
	@# command, each Dagster step) would otherwise compile the sources again where the
	@# environment sets PYTHONDONTWRITEBYTECODE (a container's usual setting). Python checks
	@# each file's timestamp, so an edited module is still read from its source.
	@$(BIN)/python -m compileall -q -j 0 plumbline assets pipelines sql models >/dev/null
	@cp $(LOCK) $(VENV)/plumbline-requirements.lock
	@rm -f $(VENV)/.installed*
	@touch $(STAMP)
	@echo "install: done"

# Re-resolves pyproject.toml's ranges against the package index; commit the locks it writes.
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	$(BIN)/python requirements/lock.py --uv $(BIN)/uv --cpu-torch-find-links $(CPU_TORCH_FIND_LINKS)

run: $(STAMP)
	$(BIN)/plumbline run

# The suite starts hundreds of Python processes over the same sources, tests included: they
# keep their compiled bytecode (__pycache__, ignored by git) even where the environment
# sets PYTHONDONTWRITEBYTECODE.
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest

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
