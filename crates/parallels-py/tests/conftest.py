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


def copies_cut_anywhere(docs: int = 24, copies: int = 4, seed: int = 5):
    """Records ``{"id", "text"}`` of background documents, and runs of 60-150
    characters cut at an arbitrary character of one document (inside a
    sentence, across its end) and set in at an arbitrary character of
    another: each ``(source id, copy id, [a_start, a_end], [b_start,
    b_end])``, spans in code points of the source and of the copy, pushed
    out while the characters around them happen to agree."""
    rng = random.Random(seed)
    texts = ["".join(_sentence(rng) for _ in range(rng.randint(20, 40))) for _ in range(docs)]
    gold = []
    order = rng.sample(range(docs), 2 * copies)
    for k in range(copies):
        src, dst = order[2 * k], order[2 * k + 1]
        n = rng.randint(60, 150)
        s = rng.randrange(1, len(texts[src]) - n - 1)
        at = rng.randrange(1, len(texts[dst]) - 1)
        a, b = texts[src], texts[dst][:at] + texts[src][s : s + n] + texts[dst][at:]
        texts[dst] = b
        (s0, s1), (t0, t1) = (s, s + n), (at, at + n)
        while s0 > 0 and t0 > 0 and a[s0 - 1] == b[t0 - 1]:
            s0, t0 = s0 - 1, t0 - 1
        while s1 < len(a) and t1 < len(b) and a[s1] == b[t1]:
            s1, t1 = s1 + 1, t1 + 1
        gold.append((f"c{src:02d}", f"c{dst:02d}", [s0, s1], [t0, t1]))
    return [{"id": f"c{k:02d}", "text": t} for k, t in enumerate(texts)], gold


def two_languages():
    """Records ``{"id", "text"}`` of a corpus in two languages, as the
    command's test builds it (crates/parallels-cli/tests/scan_translations.rs):
    ``zh`` (the bundled example ``examples/v1.txt``), ``en`` (its English
    rendering of three paragraphs, ``examples/v1.en.txt``), ``other`` (a
    Chinese text on another siege), ``host`` (Mark 1-2 in English with the
    rendered bombardment paragraph inserted) and ``mark`` (a later part of
    Mark); and the inserted paragraph's span in ``host`` (code points)."""
    read = lambda p: (ROOT / p).read_text(encoding="utf-8")  # noqa: E731
    v1, en, mark = read("examples/v1.txt"), read("examples/v1.en.txt"), read("eval/en-bible/mark_kjv.txt")
    bombardment = en.split("\n\n")[3].strip()
    before = mark[:6000] + "\n\n"
    host = before + bombardment + "\n\n" + mark[6000:12000]
    records = [
        {"id": "zh", "text": v1},
        {"id": "en", "text": en},
        {"id": "other", "text": read("crates/parallels-cli/tests/fixtures/zh/v4.txt")},
        {"id": "host", "text": host},
        {"id": "mark", "text": mark[20000:30000]},
    ]
    return records, (len(before), len(before) + len(bombardment))


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def copy_ends(passages, gold):
    """For each gold copy, the passage of its two documents (a row of the
    scan's passages table) as ``(kind, source span, copy span)``, None
    when none."""
    out = []
    for src, dst, _, _ in gold:
        found = None
        for p in passages:
            if (p["a_doc"], p["b_doc"]) == (src, dst):
                found = (p["kind"], [p["a_start"], p["a_end"]], [p["b_start"], p["b_end"]])
            elif (p["a_doc"], p["b_doc"]) == (dst, src):
                found = (p["kind"], [p["b_start"], p["b_end"]], [p["a_start"], p["a_end"]])
        out.append(found)
    return out


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
