# dynasty-lab: every target bootstraps .venv on first use.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: setup check format test demo bench clean-cache

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev,rl,train]"
	touch $(STAMP)

setup: $(STAMP)

check: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# tests in TEST_WORKERS processes (pytest-xdist), a test file's tests in one of them
TEST_WORKERS ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=25

demo: $(STAMP)
	$(BIN)/dynasty run experiments/configs/demo.toml
	$(BIN)/dynasty report results/demo

bench: $(STAMP)
	$(BIN)/dynasty bench

clean-cache:
	rm -rf .numba_cache
