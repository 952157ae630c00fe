#!/bin/sh
# docs/reference.md's "How big" curve (docs/how-big.svg, drawn by scripts/figures.sh): one TSO-generated history per size (8 threads,
# 64 variables, 2·10⁴ to 10⁶ operations), each model decided alone
# (--no-gradual), its time (from the results CSV) and the process's peak
# memory (/usr/bin/time), then `memconform plot --kind time-vs-ops`.
#
#   cargo build --release && sh benches/how-big.sh [OUT_DIR]
#
# Takes about 15 minutes on 2 cores. Writes OUT_DIR/memory.csv (ops, model,
# seconds including parsing, peak KB, exit status), OUT_DIR/times.csv (the
# check rows) and OUT_DIR/how-big.svg.
set -eu
BIN=${BIN:-target/release/memconform}
OUT=${1:-target/how-big}
SIZES=${SIZES:-20000 50000 100000 200000 500000 1000000}
MODELS=${MODELS:-cc ccv cm ccm wccm wsc sc tso pso}
mkdir -p "$OUT"
echo "ops,model,seconds,peak_kb,exit" > "$OUT/memory.csv"
rm -f "$OUT"/rows-*.csv
for ops in $SIZES; do
  rm -rf "$OUT/h$ops"
  "$BIN" gen --memory tso --threads 8 --ops $((ops / 8)) --vars 64 --count 1 --seed 1 -o "$OUT/h$ops"
  for m in $MODELS; do
    status=0
    /usr/bin/time -f "%e %M" -o "$OUT/time.txt" "$BIN" check --models "$m" --no-gradual \
      --timeout 300 -f csv -o "$OUT/rows-$m-$ops.csv" "$OUT/h$ops" || status=$?
    # the last line: /usr/bin/time writes a note first when the status is not 0
    read -r secs kb <<EOF_TIME
$(tail -n 1 "$OUT/time.txt")
EOF_TIME
    echo "$ops,$m,$secs,$kb,$status" | tee -a "$OUT/memory.csv"
  done
  rm -rf "$OUT/h$ops"
done
head -n 1 "$(ls "$OUT"/rows-*.csv | head -n 1)" > "$OUT/times.csv"
for f in "$OUT"/rows-*.csv; do tail -n +2 "$f" >> "$OUT/times.csv"; done
"$BIN" plot --kind time-vs-ops --title "memconform, one model alone, TSO-generated histories (8 threads, 64 variables)" \
  -o "$OUT/how-big.svg" "$OUT/times.csv"
echo "wrote $OUT/memory.csv, $OUT/times.csv, $OUT/how-big.svg"
