"""Fixtures: a small planted corpus, made here deterministically, and the CLI.

The corpus is the kind ``bench/gen_scan.py`` makes, without its data
files: background documents of random Han sentences (a fixed seed), into
which spans of whole sentences are planted, verbatim or with a few
character edits, and copies of whole documents (exact, and with a few
edits) for dedup. ``planted`` lists each planted copy.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# Common Han characters (the first 1,500 of the CJK block are rare enough
# that random sentences share no n-gram by chance).
HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 1500)]


def _sentence(rng: random.Random) -> str:
    return "".join(rng.choice(HAN) for _ in range(rng.randint(8, 30))) + rng.choice("。！？；")


def _edit(rng: random.Random, text: str, rate: float) -> str:
    out = []
    for ch in text:
        r = rng.random()
        if ch in "。！？；" or r > rate:
            out.append(ch)
        elif r < rate / 3:
            continue  # deletion
        elif r < 2 * rate / 3:
            out.append(rng.choice(HAN))  # substitution
        else:
            out.append(ch + rng.choice(HAN))  # insertion
    return "".join(out)


def planted_corpus(docs: int = 160, seed: int = 7):
    """Records ``{"id", "text", "group", "n"}`` and the planted copies."""
    rng = random.Random(seed)
    sentences = [[_sentence(rng) for _ in range(rng.randint(30, 90))] for _ in range(docs)]
    planted = []
    for k in range(docs // 6):
        src = rng.randrange(docs)
        start = rng.randrange(max(1, len(sentences[src]) - 12))
        span = sentences[src][start : start + rng.randint(3, 12)]
        for _ in range(rng.randint(1, 3)):
            dst = rng.randrange(docs)
            if dst == src:
                continue
            noisy = rng.random() < 0.5
            copy = [_edit(rng, s, 0.03) if noisy else s for s in span]
            at = rng.randrange(len(sentences[dst]) + 1)
            sentences[dst][at:at] = copy
            planted.append({"source": src, "copy": dst, "noisy": noisy})
    records = [
        {"id": f"d{k:04d}", "text": "".join(s), "group": f"g{k % 7}" if k % 5 == 0 else None, "n": k}
        for k, s in enumerate(sentences)
    ]
    # Whole-document copies for dedup: exact ones and near ones.
    for k in range(0, docs, 16):
        copy = dict(records[k], id=f"x{k:04d}", n=docs + k)
        if (k // 16) % 2:
            copy["text"] = _edit(rng, copy["text"], 0.004)
        records.append(copy)
    return records, planted


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    records, planted = planted_corpus()
    d = tmp_path_factory.mktemp("corpus")
    path = d / "docs.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return {"path": path, "records": records, "planted": planted, "dir": d}


@pytest.fixture(scope="session")
def cli():
    """The ``parallels`` command: $PARALLELS_CLI, or the workspace's build."""
    for candidate in (
        os.environ.get("PARALLELS_CLI"),
        shutil.which("parallels"),
        *(str(ROOT / t / p / "parallels") for t in (os.environ.get("CARGO_TARGET_DIR", ""), "target") for p in ("release", "debug")),
    ):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no parallels command: build it (cargo build -p parallels-cli) or set PARALLELS_CLI")


def run_cli(cli: str, *args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p
