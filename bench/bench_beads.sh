#!/usr/bin/env bash
# Speed and peak memory of `parallels align` on translations one sentence a
# line (complete alignment, issue 32), with and without beads.
#
#   bash bench/bench_beads.sh              # release build, three rounds
#
# Inputs, read from ../shared/corpus (never copied): the six mac-dev
# chapters one by one (Chinese against English, 182-295 x 245-420
# sentences), the six end to end (1,463 x 1,951 sentences), and
# textberg-dev (German against French, 468 x 554). Rounds are interleaved
# (every input once, then again), so that a busy machine hurts all alike.
# (A longer stand-in made of the six chapters repeated is no test: with
# every sentence four times on each side no sentence pair is each other's
# only best match, so the anchors and the regions fail.)
#
# Environment: ROUNDS=3, PARALLELS_BIN=path (time this binary instead).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
m=../shared/corpus/mac-dev
t=../shared/corpus/textberg-dev
[ -d "$m" ] && [ -d "$t" ] || { echo "bench_beads: $m and $t are needed" >&2; exit 1; }
if [ -z "${PARALLELS_BIN:-}" ]; then
  cargo build --release -q -p parallels-cli
  PARALLELS_BIN=target/release/parallels
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$m"/0*.zh.txt > "$work/all.zh.txt"
cat "$m"/0*.en.txt > "$work/all.en.txt"

# name, file A, file B
cases=()
for f in "$m"/0*.zh.txt; do
  i=$(basename "$f" .zh.txt)
  cases+=("mac-dev $i|$m/$i.zh.txt|$m/$i.en.txt")
done
cases+=("mac-dev end to end|$work/all.zh.txt|$work/all.en.txt")
cases+=("textberg-dev|$t/dev.de.txt|$t/dev.fr.txt")

results=$work/results.tsv
for round in $(seq "$ROUNDS"); do
  for c in "${cases[@]}"; do
    IFS='|' read -r name a b <<< "$c"
    for mode in beads local; do
      extra=()
      [ "$mode" = local ] && extra=(--without beads)
      /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
        "$PARALLELS_BIN" align "$a" "$b" --sentences lines --format ladder -o "$work/out.align" "${extra[@]}"
      read -r wall user sys rss < "$work/time"
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$mode" "$round" "$wall" "$(echo "$user + $sys" | bc)" "$rss" >> "$results"
    done
  done
  echo "round $round done" >&2
done

echo "| input | beads: wall s (median of $ROUNDS) | CPU s | peak MiB | local (--without beads): wall s | CPU s | peak MiB |"
echo "|---|--:|--:|--:|--:|--:|--:|"
python3 - "$results" <<'PY'
import sys, statistics, collections
rows = collections.defaultdict(list)
order = []
for line in open(sys.argv[1]):
    name, mode, _, wall, cpu, rss = line.rstrip("\n").split("\t")
    if name not in order:
        order.append(name)
    rows[name, mode].append((float(wall), float(cpu), int(rss) / 1024))
for name in order:
    cells = []
    for mode in ("beads", "local"):
        r = rows[name, mode]
        cells += [f"{statistics.median(x[0] for x in r):.2f}", f"{statistics.median(x[1] for x in r):.2f}",
                  f"{statistics.median(x[2] for x in r):.0f}"]
    print(f"| {name} | " + " | ".join(cells) + " |")
PY
