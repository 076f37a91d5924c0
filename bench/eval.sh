#!/usr/bin/env bash
# Accuracy of `parallels align` against the gold corpora under eval/.
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
