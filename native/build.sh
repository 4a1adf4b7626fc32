#!/usr/bin/env bash
# The native core's release build into the venv (`make native`): profile-guided when it can be.
#
# 1. build the core instrumented (rustc's -Cprofile-generate; its own target folder);
# 2. run the workload `python -m bench.pgo` on it (simulations and imports of a few thousand
#    games: what the core runs at scale), which leaves its counts in target/pgo-data;
# 3. merge them (llvm-profdata, of rustc's own LLVM: rustup's llvm-tools component) and build
#    the core again with them (-Cprofile-use): ~4-7 % less CPU a game (docs/benchmarks.md,
#    "A profile-guided build").
#
# Without llvm-profdata for rustc's LLVM (no rustup, or its llvm-tools component cannot be
# fetched), with BIG2_PGO=0, or when a step fails, it is the plain release build instead, and
# says so: the same code, the same answers, only less fast. The build names itself
# (BIG2_NATIVE_BUILD, read by `big2 --version`).
#
# BIG2_BUILD=quick (with BIG2_PGO=0): the `quick` profile of Cargo.toml instead of the release
# one, no link-time optimisation, for `make test` (the same code, built sooner).
#
# usage: native/build.sh VENV   (run from anywhere; cargo and maturin found on PATH / in VENV)
set -euo pipefail
if [ $# -ne 1 ] || [ ! -x "$1/bin/maturin" ]; then
  echo "usage: native/build.sh VENV (a venv with maturin: make's .venv)" >&2
  exit 2
fi
venv=$(cd "$1" && pwd)
cd "$(dirname "$0")"
profile=(--release)
maturin() { VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop "${profile[@]}" --quiet -m Cargo.toml; }

plain() {
  echo "native core: plain release build ($1)"
  BIG2_NATIVE_BUILD=release maturin
}

if [ "${BIG2_BUILD:-}" = quick ]; then
  echo "native core: quick build (Cargo.toml's quick profile, for the tests: BIG2_BUILD=quick)"
  profile=(--profile quick)
  BIG2_NATIVE_BUILD=quick maturin
  exit
fi

if [ "${BIG2_PGO:-1}" = 0 ]; then
  plain "BIG2_PGO=0"
  exit
fi
profdata() {
  local bin
  bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"
  [ -x "$bin" ] && echo "$bin"
}
tool=$(profdata || true)
if [ -z "$tool" ] && command -v rustup >/dev/null 2>&1; then
  echo "native core: fetching rustup's llvm-tools (llvm-profdata) for a profile-guided build"
  timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
  tool=$(profdata || true)
fi
if [ -z "$tool" ]; then
  plain "no llvm-profdata of rustc's LLVM: rustup component add llvm-tools"
  exit
fi

data="$PWD/target/pgo-data"
rm -rf "$data" target/pgo.profdata
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "native core: profile-guided build (instrumented build, workload, optimised build)"
# the instrumented build with the release profile's link-time optimisation too: without it
# the counts did not fit the optimised build (no gain, measured)
if RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$data" CARGO_TARGET_DIR=target/pgo-generate \
     BIG2_NATIVE_BUILD=instrumented maturin \
   && (cd .. && "$venv/bin/python" -m bench.pgo "$scratch") \
   && "$tool" merge -o target/pgo.profdata "$data"; then
  RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$PWD/target/pgo.profdata" \
    BIG2_NATIVE_BUILD=profile-guided maturin \
    || plain "the optimised build failed (above)"
else
  plain "a step of the profile-guided build failed (above)"
fi
