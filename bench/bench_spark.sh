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
#
#   MODE=scan  DOCS=/path/docs.jsonl bash bench/bench_spark.sh
#   MODE=dedup DOCS=bench/data/dedup-30M/docs.jsonl bash bench/bench_spark.sh
#   MODE=scale WHAT=scan DOCS=... bash bench/bench_spark.sh
#
# Environment (all optional): REPEATS=1 rounds; PASSIM=1 (0 leaves passim
# out); PASSIM_SRC, PASSIM_VENV as for bench_passim.sh; SPARK_VENV
# (bench/.venv-spark: pyspark, pyarrow, pandas and the package, built in
# release by cargo and packed by crates/parallels-py/wheel.py);
# DEDUP_VENV (bench/.venv-dedup-baselines: datasketch, rensa);
# PARALLELS_BIN as for the other scripts.
#
# Rows go to stderr as they come and to bench/out/spark-<mode>-<date>.md.
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
# label, output, command...: one row (label, wall, CPU, peak MiB, load).
timed() {
    local label=$1 out=$2
    shift 2
    local load e u s m
    load=$(cut -d' ' -f1 /proc/loadavg)
    rm -rf "$out"
    if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/log" 2>&1; then
        tail -20 "$work/log" >&2
        say "$label failed"
        exit 1
    fi
    read -r e u s m <"$work/time"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$e" "$(echo "$u + $s" | bc)" "$((m / 1024))" "$load" \
        "$(grep -h '^{' "$work/log" | tail -1)" >>"$rows"
    say "$label: $e s wall, $u + $s s CPU, $((m / 1024)) MiB, load $load"
    cp "$work/log" "$out.log" 2>/dev/null || true
}
spark=("$svenv/bin/python" "$bench/bench_spark.py")

case $MODE in
scan)
    if [ "$PASSIM" = 1 ]; then
        VENV_DIR=$PASSIM_VENV bench_venv pyspark==4.0.1 intervaltree==3.2.1
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
exec spark-submit --master 'local[2]' --driver-memory 2g "$PASSIM_SRC/passim/seriatim.py" \\
    --all-pairs --fields 'xxhash64(series) as gid' --filterpairs 'gid < gid2' --pairwise \\
    passim-in.jsonl "\$1"
SH
    fi
    for r in $(seq 1 "$REPEATS"); do
        timed "parallels.spark.scan, local[2]" "$work/spark-$r" "${spark[@]}" scan "$DOCS" "$work/spark-$r"
        timed "parallels scan" "$work/scan-$r" "$bin" scan "$DOCS" -o "$work/scan-$r"
        [ "$PASSIM" = 1 ] && timed "passim 2, local[2]" "$work/passim-$r" bash "$work/passim.sh" "$work/passim-$r"
    done
    found="spark $("$svenv/bin/python" -c "import pyarrow.parquet as pq,sys; print(pq.read_table(sys.argv[1]).num_rows)" "$work/spark-$REPEATS/passages") passages, scan $(wc -l <"$work/scan-$REPEATS/passages.jsonl") passages"
    [ "$PASSIM" = 1 ] && found="$found, passim $(cat "$work/passim-$REPEATS"/align.json/*.json | wc -l) pairwise alignments"
    ;;
dedup)
    VENV_DIR=${DEDUP_VENV:-$bench/.venv-dedup-baselines} bench_venv datasketch==2.0.0 rensa==0.5.0
    dvenv=$venv
    # The baselines as bench_dedup.sh runs them.
    sed -n "/^cat >\"\$baseline\" <<'PY'/,/^PY\$/p" "$bench/bench_dedup.sh" | sed '1d;$d' >"$work/baseline.py"
    for r in $(seq 1 "$REPEATS"); do
        timed "parallels.spark.dedup, local[2]" "$work/spark-$r" "${spark[@]}" dedup "$DOCS" "$work/spark-$r"
        timed "parallels dedup" "$work/dedup-$r" "$bin" dedup "$DOCS" -o "$work/dedup-$r.jsonl" --removed "$work/removed-$r.jsonl"
        timed "rensa" "$work/rensa-$r" "$dvenv/bin/python" "$work/baseline.py" rensa "$DOCS" "$work/rensa-$r.jsonl"
        timed "datasketch" "$work/ds-$r" "$dvenv/bin/python" "$work/baseline.py" datasketch "$DOCS" "$work/ds-$r.jsonl"
    done
    found="removed: spark $("$svenv/bin/python" -c "import pyarrow.parquet as pq,sys; print(pq.read_table(sys.argv[1]).num_rows)" "$work/spark-$REPEATS/removed"), parallels $(wc -l <"$work/removed-$REPEATS.jsonl"), rensa $(grep -o 'removed [0-9]*' "$work/rensa-$REPEATS.log" | cut -d' ' -f2), datasketch $(grep -o 'removed [0-9]*' "$work/ds-$REPEATS.log" | cut -d' ' -f2)"
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
    echo "$(nproc) cores; $("$bin" --version); pyspark $("$svenv/bin/python" -c 'import pyspark; print(pyspark.__version__)')"
    echo
    echo "| run | tool | wall s | CPU s (user+sys) | peak RSS MiB | load at start | Spark's measures |"
    echo "|---|---|--:|--:|--:|--:|---|"
    awk -F'\t' '{ printf "| %d | %s | %s | %s | %s | %s | %s |\n", NR, $1, $2, $3, $4, $5, $6 }' "$rows"
    echo
    [ -n "$found" ] && echo "Found in the last round: $found."
} | tee "$report"
say "report: $report"
