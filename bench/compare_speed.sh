#!/usr/bin/env bash
# Wall time, CPU time (user + sys) and peak memory of two builds on the
# same jobs, run in turns (before, after, before, after, …) so that a busy
# machine slows both alike; the ratio of medians is the figure to read, and
# on a shared machine the CPU seconds' more than the wall clock's.
#
#   bash bench/compare_speed.sh BEFORE_BIN AFTER_BIN
#
# Jobs: align on the 1 MB gen_parallel.py pair (JSON out; AFTER_ARGS_ALIGN
# adds flags to the after build only, e.g. --no-semantic when the before
# build has no sentence encoder), scan on the 100 MB gen_scan.py corpus
# (JSON Lines tables; SCAN_SIZE sets another size), dedup on the 30M gen_dedup.py corpus. Corpora are
# generated once into bench/data (as bench_scan.sh and bench_dedup.sh do).
#
#   RUNS=3        runs per build and job
#   JOBS="align scan dedup"
#   AFTER_ARGS_ALIGN=""
#   SCAN_SIZE=100M  the scan corpus, as gen_scan.py --size takes it (10M:
#                   a few minutes for both builds)
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
before=$(realpath "$1")
after=$(realpath "$2")
RUNS=${RUNS:-3}
JOBS=${JOBS:-"align scan dedup"}
AFTER_ARGS_ALIGN=${AFTER_ARGS_ALIGN:-}
SCAN_SIZE=${SCAN_SIZE:-100M}
data=$bench/data
venv=$bench/.venv
[ -x "$venv/bin/python" ] || bash "$bench/setup.sh" >&2
py=$venv/bin/python
mkdir -p "$data"
[ -f "$data/parallel-1M/a.txt" ] || "$py" "$bench/gen_parallel.py" --size 1M --seed 1 --out "$data/parallel-1M" >&2
[ -s "$data/scan-$SCAN_SIZE/docs.jsonl" ] || "$py" "$bench/gen_scan.py" --size "$SCAN_SIZE" --seed 1 --format jsonl --out "$data/scan-$SCAN_SIZE" >&2
[ -s "$data/dedup-30M/docs.jsonl" ] || "$py" "$bench/gen_dedup.py" --size 30M --seed 1 --out "$data/dedup-30M" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one timed run: prints "seconds max_rss_kb cpu_seconds"
timed() {
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
    cat "$work/stderr" >&2
    exit 1
  }
  awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$work/time"
}

job() { # job build-name binary
  local bin=$2 extra=""
  [ "$1" = after ] && extra=$AFTER_ARGS_ALIGN
  case $3 in
    align) timed "$bin" align "$data/parallel-1M/a.txt" "$data/parallel-1M/b.txt" --format json -o "$work/out.json" $extra ;;
    scan) rm -rf "$work/scan"; timed "$bin" scan "$data/scan-$SCAN_SIZE/docs.jsonl" -o "$work/scan" ;;
    dedup) timed "$bin" dedup "$data/dedup-30M/docs.jsonl" -o "$work/kept.jsonl" ;;
  esac
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| job | before: wall s | after: wall s | median ratio after/before | before: CPU s | after: CPU s | median CPU ratio after/before | peak RSS before → after (MB) |"
echo "|---|---|---|---|---|---|---|---|"
for j in $JOBS; do
  b_times=() a_times=() b_cpu=() a_cpu=() b_rss=0 a_rss=0
  for _ in $(seq "$RUNS"); do
    read -r t m c < <(job before "$before" "$j"); b_times+=("$t"); b_cpu+=("$c"); ((m > b_rss)) && b_rss=$m
    read -r t m c < <(job after "$after" "$j"); a_times+=("$t"); a_cpu+=("$c"); ((m > a_rss)) && a_rss=$m
  done
  median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
  bm=$(median "${b_times[@]}") am=$(median "${a_times[@]}")
  bc=$(median "${b_cpu[@]}") ac=$(median "${a_cpu[@]}")
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
  echo "| $j | ${b_times[*]} | ${a_times[*]} | $(ratio "$am" "$bm") | ${b_cpu[*]} | ${a_cpu[*]} | $(ratio "$ac" "$bc") | $((b_rss / 1024)) → $((a_rss / 1024)) |"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
