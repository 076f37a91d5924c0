#!/usr/bin/env bash
# The Spark driver of the Python package side by side with the command and
# with the tools people use (issue 13), the tools in turns, each run timed
# as one process tree with GNU time (peak RSS: the largest process, for
# Spark the JVM):
#
#   scan:  parallels.spark.scan on local[2], parallels scan, passim 2
#   dedup: parallels.spark.dedup on local[2], parallels dedup, rensa, datasketch
#   scale: parallels.spark.scan or .dedup with 2, 4, 8 input and shuffle
#          partitions on local[N] (N = the partitions): tasks, executor
#          time, bytes shuffled, from Spark's event log
#   translations: parallels.spark.scan on local[2] and parallels scan
#          --format parquet on a corpus in several languages (the mixed
#          crawl of ../shared/corpus/xling-dev/build.py), every table
#          compared in full (passages with their links, significance and
#          clusters; clusters; documents with their languages)
#
#   MODE=scan  DOCS=/path/docs.jsonl bash bench/bench_spark.sh
#   MODE=dedup DOCS=bench/data/dedup-30M/docs.jsonl bash bench/bench_spark.sh
#   MODE=scale WHAT=scan DOCS=... bash bench/bench_spark.sh
#   python3 ../shared/corpus/xling-dev/build.py --out /tmp/xl --seed 1 --news 100000
#   MODE=translations DOCS=/tmp/xl/corpus.jsonl bash bench/bench_spark.sh
#
# Environment (all optional): JVM_OPTIONS, the JVM's options for every
# Spark run of both tools (default "-XX:TieredStopAtLevel=1
# -XX:+UseSerialGC": the quick compiler alone and one GC thread, as the
# guide (docs/GUIDE.md) advises for Spark in local mode on a few cores; "" for the JVM's
# own defaults); JVM_DEFAULTS=1 adds, in each scan round, the Spark driver
# and passim --floating-ngrams with the JVM's defaults too (when
# JVM_OPTIONS is not empty); REPEATS=1 rounds; PASSIM=1 (0 leaves passim
# out); FLOATING=1 adds passim --floating-ngrams -n 5 to the first
# FLOATING_REPEATS (1) scan rounds (10 minutes or more on 10 MB); PASSIM_SRC, PASSIM_VENV as for
# bench_passim.sh; BEFORE=REV (scan, dedup) adds a row for the Spark
# driver of another commit (its spark.py over this build's extension
# module, first in each round); SPARK_VENV
# (bench/.venv-spark: pyspark, pyarrow, pandas and the package, built in
# release by cargo and packed by crates/parallels-py/wheel.py);
# DEDUP_VENV (bench/.venv-dedup-baselines: datasketch, rensa);
# PARALLELS_BIN as for the other scripts.
#
# Rows go to stderr as they come and to bench/out/spark-<mode>-<date>.md.
# scan: the Spark driver's passages are compared with the command's (same
# pairs, spans and scores, same order), and when DOCS's folder holds the
# gold of gen_scan.py, every tool's passages of the last round are scored
# against it (eval_scan.py; passim's pairwise alignments converted by
# passim_to_passages.py): recall and plagdet per kind of planted reuse.
set -euo pipefail

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
cd "$root"
MODE=${MODE:-scan}
REPEATS=${REPEATS:-1}
PASSIM=${PASSIM:-1}
PASSIM_SRC=${PASSIM_SRC:-$bench/.passim-src}
PASSIM_VENV=${PASSIM_VENV:-$bench/.venv-passim}
DOCS=${DOCS:?DOCS=path of a JSON Lines corpus (id, text)}
# shellcheck source=bench/setup.sh
source "$bench/setup.sh"
need_gnu_time
parallels_bin

VENV_DIR=${SPARK_VENV:-$bench/.venv-spark} bench_venv pyspark==4.0.1 pyarrow pandas
svenv=$venv
if [ -z "${SKIP_WHEEL:-}" ]; then
    say "the extension module in release, packed into a wheel"
    PYO3_PYTHON="$svenv/bin/python" PYO3_BUILD_EXTENSION_MODULE=1 cargo build --release -p parallels-py >&2
    lib=${CARGO_TARGET_DIR:-$root/target}/release/lib_parallels.so
    wheel=$("$svenv/bin/python" crates/parallels-py/wheel.py "$lib" "$(mktemp -d)")
    "$svenv/bin/pip" install -q --force-reinstall --no-deps "$wheel"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=$work/rows.tsv
: >"$rows"
# Runs are timed by `timed` (bench/setup.sh).
JVM_OPTIONS=${JVM_OPTIONS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}
JVM_DEFAULTS=${JVM_DEFAULTS:-0}
[ -n "$JVM_OPTIONS" ] || JVM_DEFAULTS=0
spark_jvm_defaults=("$svenv/bin/python" "$bench/bench_spark.py")
spark=("$svenv/bin/python" "$bench/bench_spark.py" --java-options "$JVM_OPTIONS")
spark_before=()
if [ -n "${BEFORE:-}" ]; then
    # The installed package with the spark.py of $BEFORE, first on the
    # path of the driver and of its Python workers.
    site=$("$svenv/bin/python" -c 'import os, parallels; print(os.path.dirname(parallels.__file__))')
    mkdir -p "$work/before"
    cp -r "$site" "$work/before/parallels"
    git show "$BEFORE:crates/parallels-py/python/parallels/spark.py" >"$work/before/parallels/spark.py"
    spark_before=(env PYTHONPATH="$work/before" "$svenv/bin/python" "$bench/bench_spark.py" --java-options "$JVM_OPTIONS")
fi
FLOATING=${FLOATING:-0}
FLOATING_REPEATS=${FLOATING_REPEATS:-1}

case $MODE in
scan)
    if [ "$PASSIM" = 1 ]; then
        VENV_DIR=$PASSIM_VENV bench_venv pyspark==4.0.1 intervaltree==3.2.1 numpy
        pvenv=$venv
        "$pvenv/bin/python" - "$DOCS" "$work/passim-in.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as o:
    for line in f:
        d = json.loads(line)
        o.write(json.dumps({"id": d["id"], "series": d["id"], "text": d["text"]}, ensure_ascii=False) + "\n")
PY
        # As bench_passim.sh runs it: no --packages, --pairwise, the
        # GraphFrames stand-in; here on local[2] like the Spark driver.
        cat >"$work/passim.sh" <<SH
#!/usr/bin/env bash
set -e
cd "$work"
export PATH="$pvenv/bin:\$PATH" PYSPARK_PYTHON="$pvenv/bin/python" \\
    PYTHONPATH="$bench/passim_standin" SPARK_CONF_DIR="$PASSIM_SRC/conf"
jvm=\$2
exec spark-submit --master 'local[2]' --driver-memory 2g \${jvm:+--driver-java-options "\$jvm"} \\
    "$PASSIM_SRC/passim/seriatim.py" \\
    --all-pairs --fields 'xxhash64(series) as gid' --filterpairs 'gid < gid2' --pairwise \\
    "\${@:3}" passim-in.jsonl "\$1"
SH
    fi
    for r in $(seq 1 "$REPEATS"); do
        if [ -n "${BEFORE:-}" ]; then
            timed "parallels.spark.scan at $BEFORE, local[2]" "$work/before-$r" \
                "${spark_before[@]}" scan "$DOCS" "$work/before-$r"
        fi
        timed "parallels.spark.scan, local[2]" "$work/spark-$r" "${spark[@]}" scan "$DOCS" "$work/spark-$r"
        if [ "$JVM_DEFAULTS" = 1 ]; then
            timed "parallels.spark.scan, local[2], the JVM's defaults" "$work/spark-jvm-$r" \
                "${spark_jvm_defaults[@]}" scan "$DOCS" "$work/spark-jvm-$r"
        fi
        timed "parallels scan" "$work/scan-$r" "$bin" scan "$DOCS" -o "$work/scan-$r"
        if [ "$PASSIM" = 1 ]; then
            timed "passim 2, local[2]" "$work/passim-$r" bash "$work/passim.sh" "$work/passim-$r" "$JVM_OPTIONS"
            if [ "$FLOATING" = 1 ] && [ "$r" -le "$FLOATING_REPEATS" ]; then
                timed "passim 2 --floating-ngrams -n 5, local[2]" "$work/floating-$r" \
                    bash "$work/passim.sh" "$work/floating-$r" "$JVM_OPTIONS" --floating-ngrams -n 5
                if [ "$JVM_DEFAULTS" = 1 ]; then
                    timed "passim 2 --floating-ngrams -n 5, local[2], the JVM's defaults" "$work/floating-jvm-$r" \
                        bash "$work/passim.sh" "$work/floating-jvm-$r" "" --floating-ngrams -n 5
                fi
            fi
        fi
    done
    last=$REPEATS
    same() { # spark output, scan output: the same passages in the same order?
        "$svenv/bin/python" - "$1/passages" "$2/passages.jsonl" <<'PY'
import json, sys
import pyarrow.parquet as pq
got = [(p["a_doc"], p["b_doc"], p["a_start"], p["a_end"], p["b_start"], p["b_end"], p["score"]) for p in pq.read_table(sys.argv[1]).to_pylist()]
want = []
with open(sys.argv[2], encoding="utf-8") as f:
    for line in f:
        p = json.loads(line)
        want.append((p["a_doc"], p["b_doc"], p["a"][0], p["a"][1], p["b"][0], p["b"][1], p["score"]))
print(f"{len(got)} passages, " + ("the same as the command's" if got == want else "NOT the command's"))
PY
    }
    found="spark $(same "$work/spark-$last" "$work/scan-$last"), scan $(wc -l <"$work/scan-$last/passages.jsonl") passages"
    if [ -n "${BEFORE:-}" ]; then
        found="$found, spark at $BEFORE $(same "$work/before-$last" "$work/scan-$last")"
    fi
    if [ "$PASSIM" = 1 ]; then
        found="$found, passim $(cat "$work/passim-$last"/align.json/*.json | wc -l) pairwise alignments"
    fi
    if [ "$FLOATING" = 1 ]; then
        flast=$((FLOATING_REPEATS < REPEATS ? FLOATING_REPEATS : REPEATS))
        found="$found, passim floating $(cat "$work/floating-$flast"/align.json/*.json | wc -l)"
    fi
    corpus=$(dirname "$DOCS")
    if [ -s "$corpus/gold.jsonl" ]; then
        score() { # label, passages dir
            python3 "$bench/eval_scan.py" --corpus "$corpus" --results "$2" --json "$2/eval.json" >/dev/null
            python3 - "$1" "$2/eval.json" >>"$work/scores.md" <<'PY'
import json, sys
r = json.load(open(sys.argv[2], encoding="utf-8"))
g, o = r["groups"], r["overall"]
cells = [f"{g[k]['recall']:.3f} / {g[k]['plagdet']:.3f}" for k in ("verbatim", "noisy", "parallel versions", "all")]
print(f"| {sys.argv[1]} | " + " | ".join(cells) + f" | {o['detections']:,} | {o['precision_excl_known']:.3f} |")
PY
        }
        {
            echo "| tool | verbatim recall / plagdet | noisy | parallel versions | all planted | detections | precision (known reuse left out) |"
            echo "|---|--:|--:|--:|--:|--:|--:|"
        } >"$work/scores.md"
        score "parallels scan" "$work/scan-$last"
        if [ "$PASSIM" = 1 ]; then
            python3 "$bench/passim_to_passages.py" "$work/passim-$last" "$work/passim-$last/scored" --docs "$DOCS"
            score "passim 2, defaults" "$work/passim-$last/scored"
        fi
        if [ "$FLOATING" = 1 ]; then
            python3 "$bench/passim_to_passages.py" "$work/floating-$flast" "$work/floating-$flast/scored" --docs "$DOCS"
            score "passim 2, --floating-ngrams -n 5" "$work/floating-$flast/scored"
        fi
    fi
    ;;
dedup)
    VENV_DIR=${DEDUP_VENV:-$bench/.venv-dedup-baselines} bench_venv datasketch==2.0.0 rensa==0.5.0
    dvenv=$venv
    # The baselines as bench_dedup.sh runs them.
    sed -n "/^cat >\"\$baseline\" <<'PY'/,/^PY\$/p" "$bench/bench_dedup.sh" | sed '1d;$d' >"$work/baseline.py"
    for r in $(seq 1 "$REPEATS"); do
        if [ -n "${BEFORE:-}" ]; then
            timed "parallels.spark.dedup at $BEFORE, local[2]" "$work/before-$r" \
                "${spark_before[@]}" dedup "$DOCS" "$work/before-$r"
        fi
        timed "parallels.spark.dedup, local[2]" "$work/spark-$r" "${spark[@]}" dedup "$DOCS" "$work/spark-$r"
        timed "parallels dedup" "$work/dedup-$r" "$bin" dedup "$DOCS" -o "$work/dedup-$r.jsonl" --removed "$work/removed-$r.jsonl"
        timed "rensa" "$work/rensa-$r" "$dvenv/bin/python" "$work/baseline.py" rensa "$DOCS" "$work/rensa-$r.jsonl"
        timed "datasketch" "$work/ds-$r" "$dvenv/bin/python" "$work/baseline.py" datasketch "$DOCS" "$work/ds-$r.jsonl"
    done
    count() { "$svenv/bin/python" -c "import pyarrow.parquet as pq,sys; print(pq.read_table(sys.argv[1]).num_rows)" "$1"; }
    found="removed: spark $(count "$work/spark-$REPEATS/removed")${BEFORE:+, spark at $BEFORE $(count "$work/before-$REPEATS/removed")}, parallels $(wc -l <"$work/removed-$REPEATS.jsonl"), rensa $(grep -o 'removed [0-9]*' "$work/rensa-$REPEATS.log" | cut -d' ' -f2), datasketch $(grep -o 'removed [0-9]*' "$work/ds-$REPEATS.log" | cut -d' ' -f2)"
    ;;
translations)
    for r in $(seq 1 "$REPEATS"); do
        timed "parallels.spark.scan, local[2]" "$work/spark-$r" "${spark[@]}" scan "$DOCS" "$work/spark-$r"
        timed "parallels scan" "$work/scan-$r" "$bin" scan "$DOCS" -o "$work/scan-$r" --format parquet
    done
    # Every table of the last round, in full: Spark's (written by
    # bench_spark.py) against the command's.
    found=$("$svenv/bin/python" - "$work/spark-$REPEATS" "$work/scan-$REPEATS" <<'PY'
import json, sys
import pyarrow.parquet as pq
spark, cli = sys.argv[1], sys.argv[2]
def rows(path, columns=None):
    return pq.read_table(path, columns=columns).to_pylist()
got, want = rows(f"{spark}/passages"), rows(f"{cli}/passages.parquet")
parallel = sum(1 for p in want if p["kind"] == "parallel")
checks = {
    "passages": got == want,
    "clusters": rows(f"{spark}/clusters") == rows(f"{cli}/clusters.parquet"),
    "documents": [
        (d["id"], d["chars"], d["language"], d["group"], d["passages"], d["shared"]) for d in rows(f"{spark}/documents")
    ]
    == [(d["id"], d["chars"], d["language"], d["group"], d["passages"], d["shared"]) for d in rows(f"{cli}/documents.parquet")],
}
stats = json.load(open(f"{cli}/summary.json", encoding="utf-8"))["stats"]
same = ", ".join(f"{k} {'identical' if v else 'DIFFERENT'}" for k, v in checks.items())
print(
    f"{len(want)} passages ({parallel} parallel), {same}; the command compared {stats.get('languages')} "
    f"({stats.get('across_sentences')} sentences), aligned {stats.get('across_candidates')} candidate pairs across "
    f"languages, {stats.get('across_pairs')} with passages"
)
PY
)
    ;;
scale)
    WHAT=${WHAT:-scan}
    for p in 2 4 8; do
        timed "parallels.spark.$WHAT, $p partitions, local[$p]" "$work/spark-$p" \
            "${spark[@]}" "$WHAT" "$DOCS" "$work/spark-$p" --master "local[$p]" --partitions "$p"
    done
    found=""
    ;;
esac

stamp=$(date -u +%Y-%m-%d)
mkdir -p "$bench/out"
report=$bench/out/spark-$MODE-$stamp.md
{
    echo "## $MODE: $(basename "$(dirname "$DOCS")") ($(($(stat -c %s "$DOCS") / 1000000)) MB, $(wc -l <"$DOCS") documents), $stamp"
    echo
    echo "$(nproc) cores; $("$bin" --version); pyspark $("$svenv/bin/python" -c 'import pyspark; print(pyspark.__version__)'); the JVM's options: ${JVM_OPTIONS:-its defaults}"
    echo
    echo "| run | tool | wall s | CPU s (user+sys) | peak RSS MiB | load at start | Spark's measures |"
    echo "|---|---|--:|--:|--:|--:|---|"
    awk -F'\t' '{ printf "| %d | %s | %s | %s | %s | %s | %s |\n", NR, $1, $2, $3, $4, $5, $6 }' "$rows"
    echo
    [ -n "$found" ] && echo "Found in the last round: $found."
    if [ -s "$work/scores.md" ]; then
        echo
        echo "Against the planted gold (eval_scan.py; recall / plagdet; the Spark driver's passages are the command's):"
        echo
        cat "$work/scores.md"
    fi
} | tee "$report"
say "report: $report"
