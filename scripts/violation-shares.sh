#!/usr/bin/env bash
# The gradual-consistency paper's "share of violations caught by CC/CCv"
# (paper: 50%, from the histories of one MI_example mutant), from real
# campaigns: for each campaign directory (or histories.csv), the histories
# that violate some model, and how many of them each model catches. The
# gradual chain checks CC and CCv first: their share is what the cheap
# polynomial models decide before SC, TSO or PSO are needed.
#
# Usage: scripts/violation-shares.sh OUT CAMPAIGN... (a `memconform mutate`
#   campaign directory after `mutate report`, or its histories.csv; a
#   histories.csv.gz is read as well)
# Writes OUT/shares.csv (campaign, model, violating histories, caught) and
# OUT/shares.md (ours beside the paper's).
set -euo pipefail
OUT=${1:?usage: scripts/violation-shares.sh OUT CAMPAIGN...}
shift
[ $# -ge 1 ] || { echo "violation-shares: name at least one campaign" >&2; exit 2; }
mkdir -p "$OUT"
python3 - "$OUT" "$@" <<'PY'
import csv, gzip, os, sys
from collections import defaultdict
out, camps = sys.argv[1], sys.argv[2:]
models = ["cc", "ccv", "cm", "ccm", "wccm", "wsc", "sc", "tso", "pso"]
rows_out = []
md = ["# Share of violations each model catches, on real campaigns\n",
      "A history counts once, when it violates the model its run promises (`expected_model`:",
      "TSO for an x86 O3 run, whose SC violations are legal store buffering), or any model when",
      "the run promises none (the Ruby tester); a model *catches* it when",
      "it violates that model. The gradual chain decides CC and CCv first (polynomial), then",
      "the others. Paper (gradual consistency checking, §5): CC/CCv catch 50% of the violations",
      "of one MI_example mutant's histories.\n",
      "| campaign | violating histories | " + " | ".join(m.upper() for m in models) + " |",
      "|---|---|" + "---|" * len(models)]
for c in camps:
    path = c
    if os.path.isdir(c):
        path = os.path.join(c, "histories.csv")
        if not os.path.isfile(path):
            path += ".gz"
    if not os.path.isfile(path):
        sys.exit(f"violation-shares: no {path} (run `memconform mutate report` first)")
    by = defaultdict(dict)
    expected = {}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            key = (r["variant"], r["file"], r["index"])
            by[key][r["model"]] = r["verdict"]
            expected[key] = r.get("expected_model", "")
    # a run that promises a model (an O3 run: TSO) violates only when that
    # model breaks: its SC violations are legal store buffering
    viol = [v for k, v in by.items()
            if (v.get(expected[k]) == "violation" if expected[k] else "violation" in v.values())]
    name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    cells = []
    for m in models:
        k = sum(1 for v in viol if v.get(m) == "violation")
        rows_out.append((name, m, len(viol), k))
        cells.append(f"{k} ({100 * k / len(viol):.0f}%)" if viol else "-")
    md.append(f"| {name} | {len(viol)} of {len(by)} | " + " | ".join(cells) + " |")
with open(os.path.join(out, "shares.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["campaign", "model", "violating_histories", "caught"])
    w.writerows(rows_out)
with open(os.path.join(out, "shares.md"), "w") as f:
    f.write("\n".join(md) + "\n")
print(f"violation-shares: {out}/shares.md, {out}/shares.csv")
PY
