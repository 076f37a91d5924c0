#!/usr/bin/env bash
# Accuracy of `parallels align` against the gold corpora under eval/.
#
#   bash bench/eval.sh            # builds the release binary, prints both tables
#
# zh-variants: four Chinese versions of one story (two translations, an
# abridgement, an unrelated same-topic text) plus a traditional-script copy;
# all ten pairs are scored. en-bible: Mark in KJV and WMB, verse gold.
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
