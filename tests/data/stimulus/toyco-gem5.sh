#!/bin/sh
# A stand-in for gem5 on the Toyco protocol (tests/data/slicc/toyco): which
# transitions a run takes is a fixed function of its knobs (and, for one
# transition, its seed), written as gem5 writes its counters to stats.txt.
# Used by tests/stimulus.rs; a corner needs three knobs at once.
#   toyco-gem5.sh -d OUT --shape S --evict N --cpus C --sharing H --seed K
set -eu
while [ $# -gt 0 ]; do
  case "$1" in
    -d) out=$2 ;;
    --shape) shape=$2 ;;
    --evict) evict=$2 ;;
    --cpus) cpus=$2 ;;
    --sharing) sharing=$2 ;;
    --seed) seed=$2 ;;
    *) echo "toyco-gem5: unknown option $1" >&2; exit 1 ;;
  esac
  shift 2
done
mkdir -p "$out"
t() { printf 'system.ruby.%s_Controller.%s  %s  (Unspecified)\n' "$1" "$2" "$3"; }
{
  echo
  echo '---------- Begin Simulation Statistics ----------'
  echo 'simTicks  10000  # Number of ticks simulated (Tick)'
  t L1Cache I.Load 7
  t L1Cache IS.Data 7
  t Directory I.Get 7
  t L1Cache S.Load 3
  case "$shape" in
    mp|sb|mix) t L1Cache I.Store 4; t L1Cache IM.Data 4; t L1Cache M.Store 2 ;;
  esac
  [ "$shape" = mp ] && t L1Cache S.Store 1
  [ "$shape" != lb ] && t L1Cache M.Load 2
  [ "$evict" -ge 512 ] && { t L1Cache S.Evict 5; t Directory M.Put 5; }
  [ "$evict" -ge 2048 ] && [ "$shape" = sb ] && t L1Cache M.Evict 1
  [ "$cpus" -ge 4 ] && t Directory M.Get 3
  [ "$cpus" -ge 4 ] && [ "$sharing" = same-line ] && t L1Cache S.Inv 2
  [ "$cpus" -ge 4 ] && [ "$sharing" = same-line ] && [ "$shape" = sb ] && t L1Cache M.Inv 1
  [ "$cpus" -ge 4 ] && [ $((seed % 2)) -eq 1 ] && t L1Cache I.Inv 1
  echo
  echo '---------- End Simulation Statistics   ----------'
} > "$out/stats.txt"
echo "toyco-gem5: shape=$shape evict=$evict cpus=$cpus sharing=$sharing seed=$seed"
