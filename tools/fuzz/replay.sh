#!/usr/bin/env bash
# Replays fuzz inputs one process each through the `mjcf` target (built as tools/fuzz/run.sh
# builds it) and prints, per input, its CPU time (user + system, seconds), peak resident memory
# (KB) and exit status, tab-separated, then the maximum of each. libFuzzer's own -timeout is
# wall-clock time; this is the figure to judge a slow input by ("over 10 s of CPU": a finding).
#
#   tools/fuzz/replay.sh FILE...        # e.g. fuzz/corpus/mjcf/* fuzz/regressions/*
#
# MJCF=path/to/mjcf overrides the binary ($CARGO_TARGET_DIR/fuzz/x86_64-unknown-linux-gnu/release/mjcf).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${MJCF:-${CARGO_TARGET_DIR:-target}/fuzz/x86_64-unknown-linux-gnu/release/mjcf}
t=$(mktemp)
trap 'rm -f "$t"' EXIT
max_cpu=0 max_rss=0 n=0
for f in "$@"; do
  [ -f "$f" ] || continue
  x=0
  /usr/bin/time -f "%U %S %M" -o "$t" "$bin" -timeout=600 -rss_limit_mb=4096 \
    -malloc_limit_mb=2048 "$f" >/dev/null 2>&1 || x=$?
  read -r u s rss < <(tail -1 "$t")
  cpu=$(echo "$u + $s" | bc)
  printf '%s\t%s\t%s\t%s\n' "$cpu" "$rss" "$x" "$f"
  n=$((n + 1))
  if (( $(echo "$cpu > $max_cpu" | bc) )); then max_cpu=$cpu; fi
  if (( rss > max_rss )); then max_rss=$rss; fi
done
printf '%d inputs: at most %s s of CPU, at most %d KB resident\n' "$n" "$max_cpu" "$max_rss"
