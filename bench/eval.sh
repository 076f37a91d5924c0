#!/usr/bin/env bash
# Accuracy of `parallels align` against the gold corpora under eval/ and
# ../shared/corpus (mac-dev and textberg-dev: the dev halves of the sentence
# alignment benchmarks MAC and Text+Berg).
#
#   bash bench/eval.sh            # builds the release binary, prints both tables
#
# zh-variants: four Chinese versions of one story (two translations, an
# abridgement, an unrelated same-topic text) plus a traditional-script copy;
# all ten pairs are scored. en-bible: Mark in KJV and WMB, verse gold.
# zh-bible: Genesis 37–50 in two real Chinese translations (CUV simplified,
# CNV traditional), verse gold, read from ../shared/corpus (never copied into
# the repository; skipped when absent). Verse gold is scored both ways: the
# character-pair link measure, and per unit (±1-verse precision, share of
# characters aligned to their own verse).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p parallels-cli
bin=target/release/parallels
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

z=eval/zh-variants
echo "## zh-variants (v1 v2 v3 v4 v2_trad, all pairs)"
$bin align $z/v1.txt $z/v2.txt $z/v3.txt $z/v4.txt $z/v2_trad.txt --format json -o "$out/zh.json"
$bin eval --gold $z/gold.json "$out/zh.json"
echo
e=eval/en-bible
echo "## en-bible (Mark, KJV vs WMB, verse gold)"
$bin align $e/mark_kjv.txt $e/mark_wmb.txt --format json -o "$out/en.json"
$bin eval --gold $e/gold.json "$out/en.json"
$bin eval --units --gold $e/gold.json "$out/en.json"
echo
b=../shared/corpus/zh-bible
if [ -d "$b" ]; then
  echo "## zh-bible (Genesis 37-50, CUV vs CNV, verse gold)"
  $bin align $b/genesis37-50_cuv.txt $b/genesis37-50_ncv.txt --format json -o "$out/gen.json"
  $bin eval --gold $b/gold.json "$out/gen.json"
  $bin eval --units --gold $b/gold.json "$out/gen.json"
else
  echo "## zh-bible: $b not found, skipped"
fi
echo
x=../shared/corpus/zh-en-bible
if [ -d "$x" ]; then
  echo "## zh-en-bible (Mark 5-8 in Chinese, CUV, against the whole of Mark in English, KJV; verse gold)"
  $bin align $x/mark5-8_cuv.txt ../shared/corpus/en-bible/mark_kjv.txt --format json -o "$out/zhen.json"
  $bin eval --units --gold $x/gold.json "$out/zhen.json"
else
  echo "## zh-en-bible: $x not found, skipped"
fi
echo
# The field's sentence-alignment benchmarks (dev halves): texts one sentence
# a line, scored by each set's own score.py (strict and lax bead P/R/F1,
# null beads counted in precision as published) and by `eval --beads`
# against the gold as a ladder.
m=../shared/corpus/mac-dev
if [ -d "$m" ]; then
  echo "## mac-dev (six Chinese novel chapters against their English translations, bead gold)"
  mkdir -p "$out/mac" "$out/mac-gold" "$out/mac-ladder"
  for f in "$m"/*.zh.txt; do
    i=$(basename "$f" .zh.txt)
    $bin align "$m/$i.zh.txt" "$m/$i.en.txt" --sentences lines --format json -o "$out/mac/$i.json"
    $bin align "$m/$i.zh.txt" "$m/$i.en.txt" --sentences lines --format ladder -o "$out/mac-ladder/$i.align"
  done
  python3 "$m/score.py" "$m/gold.json" "$out/mac" | grep -E '^\| (doc|0|\*\*all)|^error classes'
  python3 - "$m/gold.json" "$out/mac-gold" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
for d in g["documents"]:
    with open(f"{sys.argv[2]}/{d['id']}.align", "w") as f:
        for a, b in d["beads"]:
            f.write("[%s]:[%s]\n" % (", ".join(map(str, a)), ", ".join(map(str, b))))
PY
  $bin eval --beads --gold "$out/mac-gold" "$out/mac-ladder"
else
  echo "## mac-dev: $m not found, skipped"
fi
echo
t=../shared/corpus/textberg-dev
if [ -d "$t" ]; then
  echo "## textberg-dev (a German article against its French translation, bead gold)"
  mkdir -p "$out/tb"
  $bin align "$t/dev.de.txt" "$t/dev.fr.txt" --sentences lines --format json -o "$out/tb/dev.json"
  python3 "$t/score.py" "$t/gold.json" "$out/tb"
else
  echo "## textberg-dev: $t not found, skipped"
fi
