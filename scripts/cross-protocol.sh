#!/usr/bin/env bash
# One table over every campaign (issue: "all four protocols, real"): per
# campaign and protocol, the score, who caught each killed mutant (gem5's
# own checks or memconform alone), the seeds it took, the time per mutant;
# then the score per protocol and operator, and per protocol and detector.
#
# Usage: scripts/cross-protocol.sh OUT CAMPAIGN... (a `memconform mutate`
#   campaign directory after `mutate report`, or one of its kill-matrix CSVs:
#   kill-matrix-strip.csv for a rerun)
# Writes OUT/cross-protocol.csv (a row per campaign, protocol, operator and
# detector: mutants, killed, survived, timeout, no coverage, unreached) and
# OUT/cross-protocol.md (the three tables).
#
# A mutant's detector is how its killing run ended: `memconform only` when
# gem5 ended cleanly (or a tester ran out of checks) and memconform found a
# violation, else gem5's own verdict (`tester_check`: the Ruby tester's
# value check; `protocol_panic`: an invalid transition; `deadlock`; `crash`).
# Score: killed / (killed + survived); a timeout (livelock), no coverage
# (the runs never fired the mutated transition) and unreached (nor did a
# search's runs, with stimuli) count in neither. Runs to kill: the killing
# run's place among the mutant's runs (with stimuli a mutant runs only those
# that take its transitions, so its first run need not be the first seed).
set -euo pipefail
OUT=${1:?usage: scripts/cross-protocol.sh OUT CAMPAIGN...}
shift
[ $# -ge 1 ] || { echo "cross-protocol: name at least one campaign" >&2; exit 2; }
mkdir -p "$OUT"
python3 - "$OUT" "$@" <<'PY'
import csv, os, statistics, sys
from collections import defaultdict
out, camps = sys.argv[1], sys.argv[2:]
STATUSES = ["killed", "survived", "timeout", "unviable", "unknown", "no_coverage", "unreached"]

def load(c):
    path = os.path.join(c, "kill-matrix.csv") if os.path.isdir(c) else c
    if not os.path.isfile(path):
        sys.exit(f"cross-protocol: no {path} (run `memconform mutate report` first)")
    d = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(d)
    stem = os.path.basename(path)[:-4]
    if stem != "kill-matrix":
        name += stem[len("kill-matrix"):]
    mutants = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            mutants[r["mutant_id"]].append(r)
    return name, mutants

def detector(rows):
    # the run that killed (seeds stop there); earlier seeds survived
    kill = next((r for r in rows if r["status"] == "killed"
                 and r["outcome"] not in ("survived", "unknown", "timeout")), None)
    if kill is None:
        return None, None
    if kill["memconform_only"] == "true":
        return "memconform only", kill
    return f"gem5: {kill['exit_kind'] or kill['outcome']}", kill

def num(x):
    try:
        return float(x)
    except ValueError:
        return 0.0

table, rows_csv = [], []
# per (protocol, mutant), over every campaign: its operator, statuses and
# the detector of the first campaign that killed it (a rerun, or a second campaign of the
# protocol, counts a mutant once below: killed if any campaign killed it)
merged = {}
for c in camps:
    name, mutants = load(c)
    per = defaultdict(lambda: defaultdict(int))
    seeds, secs, only = [], [], 0
    for mid, rows in mutants.items():
        proto, op = rows[0]["protocol"], rows[0]["op"]
        status = "killed" if any(r["status"] == "killed" for r in rows) else rows[-1]["status"]
        per[proto][status] += 1
        det, kill = detector(rows)
        m = merged.setdefault((proto, mid), {"op": op, "statuses": set(), "det": None})
        m["statuses"].add(status)
        if det and m["det"] is None:
            m["det"] = det
        if det:
            only += det == "memconform only"
            # the runs it took: the killing run's place among its runs (a
            # campaign's seeds need not be 1, 2, ...: a stimulus's own)
            seeds.append(rows.index(kill) + 1)
        if status not in ("no_coverage", "unreached"):
            # one build, then each seed's run and check
            secs.append(num(rows[0]["build_s"]) + sum(num(r["run_s"]) + num(r["check_s"]) for r in rows))
    for proto, s in per.items():
        killed, survived = s["killed"], s["survived"]
        score = f"{killed / (killed + survived):.2f}" if killed + survived else "-"
        n = sum(s.values())
        first = sum(1 for x in seeds if x <= 1)
        table.append((name, proto, n, killed, survived, s["timeout"], s["no_coverage"], s["unreached"], score, only,
                      f"{first} of {len(seeds)}" if seeds else "-",
                      f"{max(seeds)}" if seeds else "-",
                      f"{statistics.median(secs):.1f}" if secs else "-"))
        rows_csv.append([name, proto, "", ""] + [s[k] for k in STATUSES])

# the best a mutant did against the protocol's campaigns
PRECEDENCE = ["killed", "timeout", "survived", "unknown", "unviable", "unreached", "no_coverage"]
by_op, by_det = defaultdict(lambda: defaultdict(int)), defaultdict(lambda: defaultdict(int))
for (proto, mid), m in merged.items():
    status = min(m["statuses"], key=lambda x: PRECEDENCE.index(x) if x in PRECEDENCE else len(PRECEDENCE))
    by_op[(proto, m["op"])][status] += 1
    if m["det"]:
        by_det[(proto, m["det"])]["killed"] += 1

md = ["# memconform mutation campaigns across protocols\n",
      "Made by `scripts/cross-protocol.sh` from each campaign's kill matrix. A mutant is",
      "*killed* when some seed's run fails gem5's own checks or violates a model memconform",
      "checks; *memconform only*: gem5 ended that run cleanly. Score = killed / (killed +",
      "survived). Time per mutant: its build plus every run and check, median over",
      "the mutants whose runs started.\n",
      "| campaign | protocol | mutants | killed | survived | timeout | no coverage | unreached | score | memconform only | killed by its first run | most runs to kill | median s per mutant |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
md += ["| " + " | ".join(str(x) for x in t) + " |" for t in table]
md += ["\n## Score per protocol and operator\n",
       "Each mutant once per protocol, over all its campaigns (a campaign run again, e.g. with",
       "stripped links, adds none): killed if any campaign killed it, else timeout, survived,",
       "unknown, unviable, unreached, no coverage, in that order.\n",
       "| protocol | operator | mutants | killed | survived | timeout | no coverage | unreached | score |",
       "|---|---|---|---|---|---|---|---|---|"]
for (proto, op), s in sorted(by_op.items()):
    k, v = s["killed"], s["survived"]
    md.append(f"| {proto} | {op} | {sum(s.values())} | {k} | {v} | {s['timeout']} | {s['no_coverage']} | {s['unreached']} | "
              + (f"{k / (k + v):.2f}" if k + v else "-") + " |")
    rows_csv.append(["*", proto, op, ""] + [s[x] for x in STATUSES])
md += ["\n## Killed mutants per protocol and detector\n",
       "Each killed mutant once, under the detector of the first campaign (as named on the",
       "command line) that killed it.\n",
       "| protocol | detector | killed |", "|---|---|---|"]
for (proto, det), s in sorted(by_det.items()):
    md.append(f"| {proto} | {det} | {s['killed']} |")
    rows_csv.append(["*", proto, "", det, s["killed"], 0, 0, 0, 0, 0])
with open(os.path.join(out, "cross-protocol.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["campaign", "protocol", "operator", "detector"] + STATUSES)
    w.writerows(rows_csv)
with open(os.path.join(out, "cross-protocol.md"), "w") as f:
    f.write("\n".join(md) + "\n")
print(f"cross-protocol: {out}/cross-protocol.md, {out}/cross-protocol.csv")
PY
