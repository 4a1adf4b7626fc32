# big2-replay: the two commands a new user needs are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-pure lint bench clean native native-test native-check

# cargo from PATH, else rustup's default place (CI may run with PATH=/usr/local/bin:/usr/bin:/bin)
CARGO  ?= $(shell command -v cargo 2>/dev/null || for d in "$$CARGO_HOME/bin" "$$HOME/.cargo/bin" /root/.cargo/bin; do \
            test -x "$$d/cargo" && echo "$$d/cargo" && break; done)
NATIVE_STAMP := $(VENV)/.native
NATIVE_ANY   := $(VENV)/.native-any
NATIVE_SRC   := native/Cargo.toml native/Cargo.lock native/pyproject.toml native/build.sh bench/pgo.py $(wildcard native/src/*.rs native/src/*/*.rs)
# maturin and cargo find rustc and each other on PATH; pyo3 builds against the venv's Python;
# no MAKEFLAGS: under `make test`'s -j2 cargo would try make's jobserver (not passed to it) and warn
RUST_ENV = MAKEFLAGS= PATH="$(dir $(CARGO)):$$PATH" PYO3_PYTHON="$(abspath $(BIN)/python)"
# what `native` and `native-test` say without cargo, and after their build
NO_CARGO    = echo "native core: no Rust toolchain (cargo) found; running as pure Python (install rustup for the fast path)"
CORE_STATUS = $(BIN)/python -c 'from pipeline import native; print("replay and simulation core:", native.status())'

# The packages are installed by uv (itself installed by pip): the same versions pip picks, in
# ~25 s where pip takes ~65 s (docs/benchmarks.md, "A slower machine, and `make test`'s set-up").
# --compile-bytecode, as pip does: uv writes no .pyc by default, and where PYTHONDONTWRITEBYTECODE
# is set (as on our machines) Python then compiles typer, pyarrow, duckdb... again in every process:
# `big2 --help` took 2.2 CPU-s instead of ~0.9 (docs/benchmarks.md, "Bytecode").
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'uv>=0.5'
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[dev]'
	touch $(STAMP)

## native: the Rust core (native/, PyO3) built by maturin into .venv as the module big2_native
## (release build, profile-guided where rustc's llvm-profdata is at hand: native/build.sh; only
## when its sources changed; pipeline/native.py imports it). Without a Rust toolchain everything
## still runs, as pure Python, and says so.
native: $(NATIVE_STAMP)
$(NATIVE_STAMP): $(STAMP) $(NATIVE_SRC)
	@if [ -z "$(CARGO)" ]; then \
	  $(NO_CARGO); \
	else \
	  $(RUST_ENV) native/build.sh $(VENV) && touch $(NATIVE_STAMP) $(NATIVE_ANY); \
	fi
	@$(CORE_STATUS)

## native-test: a build of the core of these sources, which is all the tests need: the one
## `make native` left when it is current, else the quick build (BIG2_PGO=0 BIG2_BUILD=quick:
## Cargo.toml's quick profile, the release one without link-time optimisation, one build instead
## of the profile-guided build's two and its workload; ~190 s -> ~80 s on the 2-CPU Intel
## machine with the plain release build, 97 -> 74 s on the AMD one from the release to the quick
## profile: what keeps `make test` from a fresh clone inside its 15 minutes; docs/benchmarks.md,
## "make test builds the plain core", "make test's core build"). It clears `make native`'s
## stamp, so `make demo` and `make bench` build the profile-guided core again after it.
## Then `cargo test` in the same profile and target folder, so that the dependencies the build
## compiled serve the tests too (a test profile of its own compiled them again: 163 -> 73 CPU-s;
## docs/benchmarks.md, "make test back inside 15 minutes").
native-test: $(NATIVE_ANY)
	@if [ -n "$(CARGO)" ]; then cd native && $(RUST_ENV) $(CARGO) test --quiet --profile quick; fi
$(NATIVE_ANY): $(STAMP) $(NATIVE_SRC)
	@if [ -z "$(CARGO)" ]; then \
	  $(NO_CARGO); \
	elif [ -f $(NATIVE_STAMP) ] && [ -z "$$(find $(STAMP) $(NATIVE_SRC) -newer $(NATIVE_STAMP))" ]; then \
	  echo "native core: the profile-guided build of these sources is installed (make native)"; \
	  touch $(NATIVE_ANY); \
	else \
	  rm -f $(NATIVE_STAMP) && BIG2_PGO=0 BIG2_BUILD=quick $(RUST_ENV) native/build.sh $(VENV) && touch $(NATIVE_ANY); \
	fi
	@$(CORE_STATUS)

## native-check: cargo fmt --check and cargo clippy -D warnings (skipped without cargo), in a
## target folder of their own (native/target/check), so that cargo's lock on a target folder
## does not keep the build (native-test) waiting: `make test` runs the two side by side
native-check: $(STAMP)
	@if [ -z "$(CARGO)" ]; then echo "native-check: no Rust toolchain (cargo) found; skipped"; else \
	  cd native && export CARGO_TARGET_DIR=target/check && $(RUST_ENV) $(CARGO) fmt --check \
	  && $(RUST_ENV) $(CARGO) clippy --quiet --all-targets --features python -- -D warnings; fi

## demo: set up, then run the main job on the embedded default warehouse (data/warehouse/)
demo: native
	$(BIN)/big2 demo

## lint: ruff, ruff format, mypy
lint: $(STAMP)
	$(BIN)/ruff check pipeline tests bench dashboards
	$(BIN)/ruff format --check pipeline tests bench dashboards
	$(BIN)/mypy

## test: set up; then lint (ruff, mypy), native-check and the quick build of the native core
## with the Rust tests (native-test), two at a time (`make -j2`: the CI machine has 2 CPUs; the two Rust builds
## started together took longer, docs/benchmarks.md "make test's core build");
## then the whole test suite on the native core, over TEST_WORKERS processes (pytest-xdist; `--dist loadfile` keeps a file's tests
## on one process, so its module fixtures are built once), then the doctests on the pure Python
## path. docs/benchmarks.md: "Test suite wall time". `--durations` prints the slowest tests, so a
## CI log shows what to trim when the suite nears its 15 minutes. compileall first: the suite
## starts ~150 Python processes, and where PYTHONDONTWRITEBYTECODE is set each would compile
## the project's modules again (~0.3 CPU-s a process; Python still reads a .pyc it finds).
TEST_WORKERS ?= 2
test:
	@$(MAKE) --no-print-directory -j2 --output-sync=target lint native-check native-test
	$(BIN)/python -m compileall -q pipeline dashboards bench
	$(BIN)/python -m pytest -m "not slow" -q -n $(TEST_WORKERS) --dist loadfile --durations=15 tests
	BIG2_PURE_PYTHON=1 $(BIN)/python -m pytest --doctest-modules -q pipeline dashboards --ignore=dashboards/views --ignore=dashboards/app.py

## test-pure: the same suite on the pure Python path (what a machine without Rust runs; the
## tests of the core skip themselves): ~6.5 minutes on 2 CPUs, so not part of `make test`.
test-pure: $(STAMP)
	BIG2_PURE_PYTHON=1 $(BIN)/python -m pytest -m "not slow" -q -n $(TEST_WORKERS) --dist loadfile tests

## bench: the benchmarks; prints figures with the machine and appends to docs/benchmarks.md
bench: native
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build .mypy_cache .ruff_cache .pytest_cache native/target
