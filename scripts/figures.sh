#!/bin/sh
# The figures of docs/reference.md, each drawn by `memconform plot` from data
# committed beside it in docs/figures/. `plot` draws the same SVG from the
# same CSV, byte for byte, so a figure can be checked against its data
# (tests/scripts.rs does).
#
#   sh scripts/figures.sh plot [OUT_DIR]      each figure from its CSV (default OUT_DIR: docs)
#   sh scripts/figures.sh data FIGURE [DIR]   derive a figure's CSV again (default DIR: docs/figures)
#   sh scripts/figures.sh all                 data for detection and time-vs-threads, then plot
#
# The figures and their data:
#   docs/fig-detection.svg        docs/figures/detection.csv: `check --real-time traces/
#                                 examples/papers-and-litmus.hist -f csv` (every model; its verdict
#                                 columns are deterministic)
#   docs/fig-time-vs-threads.svg  docs/figures/time-vs-threads.csv: `gen --threads T --ops 50
#                                 --count 40 --seed T000` for T = 4, 8, 12, 16, then `check
#                                 --models wsc,sc -j 1 -f csv` (times vary from run to run)
#   docs/how-big.svg              docs/figures/how-big.csv: the seconds of the "How big" table
#                                 (benches/how-big.sh); `data how-big` measures them again (about 15
#                                 minutes on 2 cores) and writes that run's rows instead
#
# BIN is the memconform binary (default: target/release/memconform, after
# `cargo build --release`). Run from anywhere; paths in the CSVs are relative
# to the repository's root.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/target/release/memconform}
case $BIN in
/*) ;;
*/*) BIN=$PWD/$BIN ;;
esac

# an absolute path for a directory given relative to where we were called
absolute() {
  case $1 in
  /*) printf '%s\n' "$1" ;;
  *) printf '%s\n' "$PWD/$1" ;;
  esac
}

# check's violation status (1) is a result here, not a failure
check_csv() {
  status=0
  "$BIN" check "$@" || status=$?
  if [ "$status" -gt 1 ]; then
    echo "figures.sh: memconform check $* exited $status" >&2
    exit "$status"
  fi
}

data() {
  figure=$1
  dir=$(absolute "$2")
  mkdir -p "$dir"
  case $figure in
  detection)
    (cd "$ROOT" && check_csv --real-time traces/ examples/papers-and-litmus.hist -f csv \
      -o "$dir/detection.csv")
    ;;
  time-vs-threads)
    tmp=$(mktemp -d)
    for t in 4 8 12 16; do
      "$BIN" gen --threads "$t" --ops 50 --count 40 --seed "${t}000" -o "$tmp/runs/t$t"
    done
    (cd "$tmp" && check_csv runs/ --models wsc,sc -j 1 -f csv -o "$dir/time-vs-threads.csv")
    rm -rf "$tmp"
    ;;
  how-big)
    tmp=$(mktemp -d)
    (cd "$ROOT" && BIN=$BIN sh benches/how-big.sh "$tmp")
    cp "$tmp/times.csv" "$dir/how-big.csv"
    rm -rf "$tmp"
    ;;
  *)
    echo "figures.sh: no figure $figure (detection, time-vs-threads, how-big)" >&2
    exit 2
    ;;
  esac
  echo "wrote $dir/$figure.csv"
}

plot() {
  out=$(absolute "$1")
  data=$ROOT/docs/figures
  mkdir -p "$out"
  "$BIN" plot "$data/detection.csv" --kind detection -o "$out/fig-detection.svg"
  "$BIN" plot "$data/time-vs-threads.csv" --kind time-vs-threads \
    --title "Median checking time vs threads (50 ops per thread, 40 histories per size)" \
    -o "$out/fig-time-vs-threads.svg"
  "$BIN" plot "$data/how-big.csv" --kind time-vs-ops \
    --title "memconform, one model alone, TSO-generated histories (8 threads, 64 variables)" \
    -o "$out/how-big.svg"
  echo "wrote $out/fig-detection.svg, $out/fig-time-vs-threads.svg, $out/how-big.svg"
}

case ${1:-} in
plot) plot "${2:-$ROOT/docs}" ;;
data)
  [ $# -ge 2 ] || { echo "usage: figures.sh data FIGURE [DIR]" >&2; exit 2; }
  data "$2" "${3:-$ROOT/docs/figures}"
  ;;
all)
  data detection "$ROOT/docs/figures"
  data time-vs-threads "$ROOT/docs/figures"
  plot "$ROOT/docs"
  ;;
*)
  echo "usage: figures.sh plot [OUT_DIR] | data FIGURE [DIR] | all" >&2
  exit 2
  ;;
esac
