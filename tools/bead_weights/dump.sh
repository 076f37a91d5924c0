#!/usr/bin/env bash
# Dump what the bead programme sees on the dev sets (mac-dev, textberg-dev),
# with their gold beads, for fit.py:
#
#   bash tools/bead_weights/dump.sh OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=${CORPUS:-$root/../shared/corpus}
out=${1:?usage: dump.sh OUT}
mkdir -p "$out"
cd "$root"
cargo build --release -q -p parallels --features tuning --example bead_features
ex=target/release/examples/bead_features
# In the order `parallels align` takes them: the smaller file id first
# (NNN.en before NNN.zh; dev.de before dev.fr), as collate does.
for f in "$corpus"/mac-dev/*.zh.txt; do
  i=$(basename "$f" .zh.txt)
  "$ex" "$out" "mac-$i" "$corpus/mac-dev/$i.en.txt" "$corpus/mac-dev/$i.zh.txt"
done
"$ex" "$out" "textberg-dev" "$corpus/textberg-dev/dev.de.txt" "$corpus/textberg-dev/dev.fr.txt"
python3 - "$corpus" "$out" <<'PY'
import json, sys
corpus, out = sys.argv[1:3]
g = json.load(open(f"{corpus}/mac-dev/gold.json"))
for d in g["documents"]:
    json.dump([[b, a] for a, b in d["beads"]], open(f"{out}/mac-{d['id']}.gold.json", "w"))
g = json.load(open(f"{corpus}/textberg-dev/gold.json"))
d = g["documents"][0]
beads = d["beads"] + [[[i], []] for i in d["unaligned"]["de"]] + [[[], [j]] for j in d["unaligned"]["fr"]]
json.dump(beads, open(f"{out}/textberg-dev.gold.json", "w"))
PY
