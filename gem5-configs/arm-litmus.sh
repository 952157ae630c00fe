#!/usr/bin/env bash
# The ARM litmus matrix of gem5 issue #1242 (docs/design/weak.md §5): the
# aarch64 client's release/acquire shapes on gem5's ARM build (Ruby protocol
# CHI), on ArmO3CPU with three controls, each over several seeds; each run
# checked by memconform against its promise, and one table of rates.
#
#   GEM5_ROOT=/path/to/gem5 gem5-configs/arm-litmus.sh OUT [SEEDS] [ROUNDS]
#
# SEEDS: the client seeds (default "1 2 3"); ROUNDS: rounds per run (default
# 500). Rows (ROWS, default all, by name):
#   relacq        sb-rel-acq on ArmO3CPU: STLR(x) LDAR(y) || STLR(y) LDAR(x);
#                 both loads 0 is forbidden by ARMv8 (RCsc) — #1242's shape
#   relacqpc      sb-rel-acqpc on ArmO3CPU: LDAPR for LDAR (RCpc): allowed,
#                 the control the reporter asked for (gem5 v24 decodes LDAPR
#                 as LDAR: the same micro-op)
#   relacq-dmb    sb-rel-acq with a DMB ISH between the STLR and the LDAR in
#                 every thread (--fence dmb): forbidden, the full-fence control
#   relacq-timing sb-rel-acq on ArmTimingSimpleCPU (blocking: promises SC)
#   mprelacq      mp-rel-acq on ArmO3CPU: W(x) STLR(y) || LDAR(y) R(x)
#   relacq-same   sb-rel-acq on ArmO3CPU, x and y in one cache line
#   relacq-own    sb-rel-acq on ArmO3CPU, x and y a line each
#
# Writes OUT/NAME-sSEED/ (gem5's m5out with client.out), OUT/rates.csv
# (row, cpu, seed, rounds, broken, allowed, unknown, consistent, sim_seconds,
# wall_seconds) and OUT/rates.md (per row: the sums and the rate of broken
# rounds), and for the first broken run of each row OUT/NAME.shrunk.hist
# (`memconform shrink`). Runs one gem5 at a time; a run directory that holds
# a finished client.out is kept (rerunning resumes the matrix).
#
# Environment: GEM5_ROOT (required: build/ARM/gem5.opt under it), MEMCONFORM
# (default: memconform on PATH), CLIENT (default: the aarch64 client beside
# this script, gem5-configs/client/client-aarch64; `make -C
# gem5-configs/client aarch64` builds it), ROWS.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
out=$1
seeds=${2:-"1 2 3"}
rounds=${3:-500}
here=$(cd "$(dirname "$0")" && pwd)
: "${GEM5_ROOT:?GEM5_ROOT must name a gem5 v24.0.0.1 checkout with build/ARM/gem5.opt}"
gem5=$GEM5_ROOT/build/ARM/gem5.opt
[ -x "$gem5" ] || { echo "arm-litmus: $gem5 is not there (scons build/ARM/gem5.opt)" >&2; exit 2; }
mc=${MEMCONFORM:-memconform}
command -v "$mc" >/dev/null || { echo "arm-litmus: $mc is not on PATH (MEMCONFORM=...)" >&2; exit 2; }
client=${CLIENT:-$here/client/client-aarch64}
[ -x "$client" ] || { echo "arm-litmus: $client is missing (make -C gem5-configs/client aarch64)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "arm-litmus: python3 is required" >&2; exit 2; }
rows=${ROWS:-"relacq relacqpc relacq-dmb relacq-timing mprelacq relacq-same relacq-own"}
mkdir -p "$out"

# row -> CPU type and client options (beyond --threads, --rounds, --seed)
spec() {
    case "$1" in
        relacq) echo "ArmO3CPU --shape sb-rel-acq --fence none" ;;
        relacqpc) echo "ArmO3CPU --shape sb-rel-acqpc --fence none" ;;
        relacq-dmb) echo "ArmO3CPU --shape sb-rel-acq --fence dmb" ;;
        relacq-timing) echo "ArmTimingSimpleCPU --shape sb-rel-acq --fence none" ;;
        mprelacq) echo "ArmO3CPU --shape mp-rel-acq --fence none" ;;
        relacq-same) echo "ArmO3CPU --shape sb-rel-acq --fence none --sharing same-line" ;;
        relacq-own) echo "ArmO3CPU --shape sb-rel-acq --fence none --sharing own-line" ;;
        *) echo "arm-litmus: unknown row $1" >&2; exit 2 ;;
    esac
}

# per history: broken (a row breaking the run's promise), allowed (some
# model violated, the promise kept), unknown, consistent
count() {
    python3 -c '
import json, sys
hist = {}
for line in sys.stdin:
    d = json.loads(line)
    k = hist.setdefault(d["index"], set())
    if d["breaks_promise"] == "yes": k.add("broken")
    elif d["verdict"] == "violation": k.add("allowed")
    elif d["verdict"] == "unknown": k.add("unknown")
b = sum("broken" in k for k in hist.values())
a = sum("allowed" in k and "broken" not in k for k in hist.values())
u = sum(k == {"unknown"} for k in hist.values())
print(len(hist), b, a, u, len(hist) - b - a - u)
'
}

csv=$out/rates.csv
echo "row,cpu,seed,rounds,histories,broken,allowed,unknown,consistent,sim_seconds,wall_seconds" >"$csv"
for row in $rows; do
    read -r cpu opts <<<"$(spec "$row")"
    for s in $seeds; do
        run=$out/$row-s$s
        start=$(date +%s.%N)
        if ! grep -q '^# memconform-client end' "$run/client.out" 2>/dev/null; then
            rm -rf "$run"
            echo "arm-litmus: $row seed $s ($cpu $opts, $rounds rounds)" >&2
            "$gem5" -d "$run" "$GEM5_ROOT/configs/deprecated/example/se.py" --ruby -n 2 \
                --cpu-type="$cpu" --cmd="$client" \
                --options="--threads 2 --rounds $rounds --seed $s $opts" \
                --output=client.out >"$run.gem5.log" 2>&1 ||
                { echo "arm-litmus: gem5 failed, see $run.gem5.log" >&2; exit 1; }
        fi
        wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
        sim=$(awk '$1 == "simSeconds" { print $2; exit }' "$run/stats.txt")
        # exit 1 (a broken promise) is an answer here, not a failure
        read -r n b a u c < <("$mc" check "$run" --models armv8,sc --format json | count)
        echo "$row,$cpu,$s,$rounds,$n,$b,$a,$u,$c,$sim,$wall" >>"$csv"
        if [ "$b" -gt 0 ] && [ ! -f "$out/$row.shrunk.hist" ]; then
            "$mc" shrink "$run" --model armv8 >"$out/$row.shrunk.hist" 2>"$out/$row.shrunk.log" || true
        fi
    done
done

python3 - "$csv" >"$out/rates.md" <<'EOF'
import csv, sys
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    t = rows.setdefault((r["row"], r["cpu"]), {"seeds": [], "n": 0, "b": 0, "a": 0, "u": 0, "per": [], "sim": 0.0})
    t["seeds"].append(r["seed"])
    t["n"] += int(r["histories"]); t["b"] += int(r["broken"]); t["a"] += int(r["allowed"]); t["u"] += int(r["unknown"])
    t["per"].append(f'{r["broken"]}/{r["histories"]}')
    t["sim"] += float(r["sim_seconds"] or 0)
print("| row | CPU | seeds | rounds | broken | per seed | allowed | unknown | simulated s |")
print("|---|---|---|---|---|---|---|---|---|")
for (row, cpu), t in rows.items():
    rate = t["b"] / t["n"] if t["n"] else 0
    print(f'| {row} | {cpu} | {" ".join(t["seeds"])} | {t["n"]} | {t["b"]} ({rate:.2%}) | {", ".join(t["per"])} | {t["a"]} | {t["u"]} | {t["sim"]:.4f} |')
EOF
cat "$out/rates.md"
