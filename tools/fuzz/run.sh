#!/usr/bin/env bash
# Builds and runs the `mjcf` libFuzzer target without cargo-fuzz, on the stable toolchain.
#
#   tools/fuzz/run.sh [RUNS] [extra libFuzzer flags...]      # RUNS default 100000
#
# Coverage instrumentation (-Cpasses=sancov-module and -Cllvm-args) is stable; only
# AddressSanitizer needs a -Z flag: set ASAN=1 to add -Zsanitizer=address, which a stable
# toolchain accepts with RUSTC_BOOTSTRAP=1 (the script sets it then). With cargo-fuzz installed
# the same target runs as `RUSTC_BOOTSTRAP=1 cargo fuzz run mjcf` from the repository root.
# Findings are written to fuzz/artifacts/mjcf/; new coverage goes to fuzz/corpus-new/ (not
# committed: merge it into fuzz/corpus/mjcf with -merge=1 to keep the committed corpus small).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-100000}
shift || true
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
if [ "${ASAN:-0}" = 1 ]; then
  export RUSTC_BOOTSTRAP=1
  flags="$flags -Zsanitizer=address"
fi
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}/fuzz
RUSTFLAGS="$flags" cargo build --release --manifest-path fuzz/Cargo.toml --bin mjcf \
  --target x86_64-unknown-linux-gnu
mkdir -p fuzz/corpus-new fuzz/artifacts/mjcf
"$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/mjcf" \
  -runs="$runs" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 -max_len=65536 \
  -artifact_prefix=fuzz/artifacts/mjcf/ -print_final_stats=1 "$@" \
  fuzz/corpus-new fuzz/corpus/mjcf
