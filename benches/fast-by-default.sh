#!/bin/sh
# The 10⁶-operation target of docs/design/scale.md §7 ("fast by default"):
# one TSO-generated history (8 threads × 125,000 operations, 64 variables,
# seed 7), each model checked alone with the default flags (gradual chain,
# certificate validated), REPS times; prints per model the median user CPU
# seconds, wall seconds and peak RSS (KB) of the process, its exit status and
# whether its verdict is certified. Reads (or makes) HIST.
#
#   cargo build --release && sh benches/fast-by-default.sh [HIST]
#
# On a loaded machine pass EXTRA="--timeout 60": the default 10 s budget is
# wall time, and a loaded machine turns CPU seconds into more wall seconds.
# CERT=1 (default) also times each model with `--no-validate` and prints
# `cert`, certification's share of the check's user CPU (1 - without / with,
# floored at 0); CERT=0 skips it.
set -eu
BIN=${BIN:-target/release/memconform}
HIST=${1:-target/fast-by-default/h0.hist}
REPS=${REPS:-3}
MODELS=${MODELS:-cc ccv cm ccm wccm wsc sc tso pso}
EXTRA=${EXTRA:-}
CERT=${CERT:-1}
if [ ! -f "$HIST" ]; then
  "$BIN" gen --memory tso --threads 8 --ops 125000 --vars 64 --seed 7 -o "$(dirname "$HIST")"
fi
tmp=$(mktemp -d)
echo "model user_s wall_s peak_kb exit certified cert"
for m in $MODELS; do
  : > "$tmp/runs"
  i=0
  while [ $i -lt "$REPS" ]; do
    status=0
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %e %M" -o "$tmp/time" "$BIN" check $EXTRA --models "$m" -f json \
      -o "$tmp/rows.json" "$HIST" || status=$?
    tail -n 1 "$tmp/time" >> "$tmp/runs"
    i=$((i + 1))
  done
  certified=$(grep -o '"certified":"[a-z]*"' "$tmp/rows.json" | cut -d'"' -f4 || true)
  med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  user=$(cut -d' ' -f1 "$tmp/runs" | med)
  wall=$(cut -d' ' -f2 "$tmp/runs" | med)
  peak=$(cut -d' ' -f3 "$tmp/runs" | med)
  cert=-
  if [ "$CERT" = 1 ]; then
    : > "$tmp/bare"
    i=0
    while [ $i -lt "$REPS" ]; do
      # shellcheck disable=SC2086
      /usr/bin/time -f "%U" -o "$tmp/time" "$BIN" check $EXTRA --no-validate --models "$m" -f json \
        -o "$tmp/bare.json" "$HIST" || true
      tail -n 1 "$tmp/time" >> "$tmp/bare"
      i=$((i + 1))
    done
    bare=$(med < "$tmp/bare")
    cert=$(awk -v a="$user" -v b="$bare" 'BEGIN { s = (a > 0) ? 1 - b / a : 0; if (s < 0) s = 0; printf "%.0f%%", 100 * s }')
  fi
  echo "$m $user $wall $peak $status ${certified:-no} $cert"
done
rm -rf "$tmp"
