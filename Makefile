# big2-replay: the two commands a new user needs are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean compiled

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## compiled: the hot path compiled with mypyc into build/compiled/ (only when the sources changed;
## pipeline/compiled.py). Without a C compiler everything still runs, as pure Python.
compiled: $(STAMP)
	@$(BIN)/python -c 'from pipeline.compiled import ensure; print("hot path:", ensure())' \
	  || echo "hot path: could not compile; running as pure Python"

## demo: set up, then run the main job on the embedded default warehouse (data/warehouse/)
demo: compiled
	$(BIN)/big2 demo

## lint: ruff, ruff format, mypy
lint: $(STAMP)
	$(BIN)/ruff check pipeline tests bench dashboards
	$(BIN)/ruff format --check pipeline tests bench dashboards
	$(BIN)/mypy

## test: set up, lint, type-check, then the whole test suite on the compiled hot path, and the
## doctests on the Python sources (a compiled module has no source for doctest to collect)
test: lint compiled
	$(BIN)/python -m pytest -m "not slow" -q tests
	BIG2_PURE_PYTHON=1 $(BIN)/python -m pytest --doctest-modules -q pipeline

## bench: the benchmarks; prints figures with the machine and appends to docs/benchmarks.md
bench: compiled
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache
