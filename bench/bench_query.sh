#!/usr/bin/env bash
# Query latency of `parallels query` on an index of a gen_scan.py corpus,
# and optionally A/B against another binary, in turns.
#
#   bash bench/bench_query.sh prepare 100M    # split, build, add, make queries
#   bash bench/bench_query.sh run 100M A_BIN B_BIN ...   # ROUNDS turns each
#
# `run` reads the index files once first (warm: as a server after its
# first queries); COLD=1 instead drops them from the page cache before
# every run (posix_fadvise DONTNEED on the index's own files only).
#
# DATA (default bench/data) holds scan-<SIZE>/docs.jsonl (bench/gen_scan.py
# --size SIZE --format jsonl); WORK (default bench/out/query) receives
# lib99.jsonl, add1.jsonl, q10k.jsonl and lib.idx per size. The index is
# built with PARALLELS_BIN (default the release build).
#
# Queries: 100 texts of 10 KB, each the concatenation of consecutive
# documents of the 1 % added (starting at every STEP-th: 4 at 100 MB, 40 at
# 1 GB), cut at 10,240 bytes on a character boundary, so every query finds
# the documents it was made of.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-bench/data}
WORK=${WORK:-bench/out/query}
BIN=${PARALLELS_BIN:-target/release/parallels}
ROUNDS=${ROUNDS:-3}
cmd=$1; size=$2; shift 2
dir=$WORK/$size
mkdir -p "$dir"

case $cmd in
prepare)
    D=$DATA/scan-$size/docs.jsonl
    N=$(wc -l < "$D"); K=$((N / 100))
    head -$((N - K)) "$D" > "$dir/lib99.jsonl"
    tail -$K "$D" > "$dir/add1.jsonl"
    step=$(( K / 100 )); [ "$step" -ge 1 ] || step=1
    python3 - "$dir/add1.jsonl" "$dir/q10k.jsonl" "$step" <<'PY'
import json, sys
src, out, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
docs = [json.loads(l)["text"] for l in open(src, encoding="utf-8")]
with open(out, "w", encoding="utf-8") as f:
    for q in range(100):
        start = (q * step) % len(docs)
        text, k = "", start
        while len(text.encode()) < 10240 and k < len(docs):
            text += docs[k] + "\n"
            k += 1
        b = text.encode()[:10240].decode("utf-8", "ignore")
        f.write(json.dumps({"id": f"q{q:03d}", "text": b}, ensure_ascii=False) + "\n")
PY
    rm -rf "$dir/lib.idx"
    /usr/bin/time -v "$BIN" index build "$dir/lib99.jsonl" --index "$dir/lib.idx" 2> "$dir/build.time"
    /usr/bin/time -v "$BIN" index add "$dir/add1.jsonl" --index "$dir/lib.idx" 2> "$dir/add.time"
    grep -E "Elapsed|Maximum resident" "$dir/build.time" "$dir/add.time"
    du -sb "$dir/lib.idx"
    ;;
run)
    evict() {
        python3 - "$dir/lib.idx" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        fd = os.open(os.path.join(root, f), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
    }
    [ "${COLD:-0}" = 1 ] || cat "$dir"/lib.idx/seg.*/* > /dev/null
    uptime
    for r in $(seq "$ROUNDS"); do
        n=0
        for b in "$@"; do
            n=$((n + 1))
            [ "${COLD:-0}" != 1 ] || evict
            "$b" query "$dir/q10k.jsonl" --index "$dir/lib.idx" --format json -o "$dir/out.$n.json" --timings \
                2> "$dir/t.$n.$r.txt"
            python3 - "$dir/t.$n.$r.txt" "$b" "$r" <<'PY'
import re, sys
ms = sorted(float(m) for m in re.findall(r"^query \S+: ([0-9.]+) ms", open(sys.argv[1]).read(), re.M))
p = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]
print(f"round {sys.argv[3]} {sys.argv[2]}: n={len(ms)} p50={p(0.5):.1f} ms p95={p(0.95):.1f} ms mean={sum(ms)/len(ms):.1f} ms")
PY
        done
    done
    uptime
    ;;
esac
