# big2-replay: the two commands a new user needs are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## demo: set up, then run the main job on the embedded default warehouse (data/warehouse/)
demo: $(STAMP)
	$(BIN)/big2 demo

## lint: ruff, ruff format, mypy
lint: $(STAMP)
	$(BIN)/ruff check pipeline tests bench dashboards
	$(BIN)/ruff format --check pipeline tests bench dashboards
	$(BIN)/mypy

## test: set up, lint, type-check, then the whole test suite (doctests included)
test: lint
	$(BIN)/python -m pytest -m "not slow" --doctest-modules -q

## bench: the benchmarks; prints figures with the machine and appends to docs/benchmarks.md
bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
