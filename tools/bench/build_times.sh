#!/bin/bash
# Fresh-clone build and test times: clones the repository at REV into a fresh directory and
# target dir, with sccache off (RUSTC_WRAPPER=), and times what a newcomer runs in turn:
#   bin       cargo build --release -p moreau-cli                 (the `moreau` binary)
#   examples  cargo build --release --workspace --examples        (after bin)
#   plot      cargo build --release --workspace --examples --all-features   (after examples)
#   test      cargo test --workspace --all-features --no-run      (debug test build)
#   run       cargo test --workspace --all-features               (running the built tests)
# and counts how many times the engine (moreau) and nalgebra were compiled in release.
# Prints wall-clock and CPU (user+sys) seconds per step: on a loaded machine CPU time is the
# steadier figure.
# usage: tools/bench/build_times.sh [REV] [WORKDIR]   (default: HEAD, a temporary directory)
set -e
rev=${1:-HEAD}
repo=$(cd "$(dirname "$0")/../.." && pwd)
W=${2:-$(mktemp -d)}
git clone -q "$repo" "$W/src"
git -C "$W/src" checkout -q "$rev"
cd "$W/src"
export CARGO_TARGET_DIR=$W/target RUSTC_WRAPPER= CARGO_BUILD_RUSTC_WRAPPER=
step() {
  name=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$W/time" "$@" >"$W/$name.log" 2>&1 || { echo "$name failed:"; tail -20 "$W/$name.log"; exit 1; }
  read -r e u s <"$W/time"
  printf '%-9s wall %7.0f s   cpu %7.0f s   %s\n' "$name" "$e" "$(echo "$u + $s" | bc)" "$*"
}
echo "rev $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
step bin cargo build --release -p moreau-cli
step examples cargo build --release --workspace --examples
step plot cargo build --release --workspace --examples --all-features
echo "release builds of: moreau $(ls $CARGO_TARGET_DIR/release/deps/libmoreau-*.rlib | wc -l), nalgebra $(ls $CARGO_TARGET_DIR/release/deps/libnalgebra-*.rlib | wc -l)"
step test cargo test --workspace --all-features --no-run
step run cargo test --workspace --all-features
grep -h '^test result' "$W/run.log" | awk '{p+=$4; f+=$6; i+=$8} END {print "tests: " p " passed, " f " failed, " i " ignored"}'
