#!/usr/bin/env python3
"""A multilingual crawl of any size, for measuring how `scan`'s translation
stage grows: a crawl made by ../shared/corpus/xling-dev/build.py, then
enciphered passes of it until the size asked is reached.

    python3 ../shared/corpus/xling-dev/build.py --out bench/data/xl-base --news 1380
    python3 bench/gen_xling_scale.py --base bench/data/xl-base --size 100M --out bench/data/xl-100M

Pass 0 is the base crawl as it is (its planted translations, gold.json
copied). Every later pass holds every document of the base again,
enciphered with the pass's own tables, so that no two passes share text
while each keeps the statistics of its language:

* Chinese documents: each Han character replaced by another of similar
  frequency, digits and Latin letters permuted (bench/gen_scan.py's
  cipher, which keeps 十二 and 12 the same number);
* documents in a Latin script (English, German, French): each word
  replaced by another word of the same language of similar frequency
  (bands of 16 by rank; capitals kept), so a document still reads as its
  language to a language guesser and its tokens are the language's own.

Translations are planted in pass 0 only: a pass enciphers each language
on its own, so its documents translate nothing (as most of a real crawl).
The cost measured is that of a crawl in which the languages keep the base's
mix: for seed 1 with 1,380 news articles about 95 % of the characters
Chinese.

Writes corpus.jsonl ({"id", "text"}; ids of later passes end in ``~pN``),
gold.json (the base's) and meta.json (passes, documents, characters).
Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_scan import build_cipher  # noqa: E402

BAND = 16
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def size(text: str) -> int:
    units = {"K": 10**3, "M": 10**6, "G": 10**9}
    if text[-1:].upper() in units:
        return int(float(text[:-1]) * units[text[-1].upper()])
    return int(text)


def word_cipher(rng: random.Random, counts: Counter) -> dict[str, str]:
    """A derangement of a language's words (lower case) within bands of
    similar frequency."""
    words = [w for w, _ in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))]
    table = {}
    for i in range(0, len(words), BAND):
        band = words[i:i + BAND]
        if len(band) < 2:
            continue
        order = band[:]
        rng.shuffle(order)
        for j, w in enumerate(order):
            table[w] = order[(j + 1) % len(order)]
    return table


def encipher_words(text: str, table: dict[str, str]) -> str:
    def one(m: re.Match) -> str:
        w = m.group(0)
        out = table.get(w.lower(), w)
        if w[:1].isupper():
            out = out[:1].upper() + out[1:]
        return out

    return WORD.sub(one, text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="a folder made by xling-dev/build.py")
    ap.add_argument("--size", required=True, help="characters wanted, e.g. 30M, 100M")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    docs = [json.loads(line) for line in (a.base / "corpus.jsonl").open(encoding="utf-8")]
    gold = json.loads((a.base / "gold.json").read_text(encoding="utf-8"))
    langs = gold["languages"]
    han = Counter()
    words: dict[str, Counter] = {}
    for d in docs:
        lang = langs[d["id"]]
        if lang == "zh":
            han.update(c for c in d["text"] if "\u4e00" <= c <= "\u9fff")
        else:
            words.setdefault(lang, Counter()).update(w.lower() for w in WORD.findall(d["text"]))
    chars_by_freq = [c for c, _ in sorted(han.items(), key=lambda cc: (-cc[1], cc[0]))]
    wanted = size(a.size)
    a.out.mkdir(parents=True, exist_ok=True)
    shutil.copy(a.base / "gold.json", a.out / "gold.json")
    rng = random.Random(a.seed)
    written = n = passes = 0
    with (a.out / "corpus.jsonl").open("w", encoding="utf-8") as f:
        while written < wanted:
            if passes == 0:
                tables = None
            else:
                tables = (build_cipher(rng, chars_by_freq), {l: word_cipher(rng, c) for l, c in words.items()})
            for d in docs:
                if written >= wanted:
                    break
                text, ident = d["text"], d["id"]
                if tables is not None:
                    lang = langs[ident]
                    text = text.translate(tables[0]) if lang == "zh" else encipher_words(text, tables[1][lang])
                    ident = f"{ident}~p{passes}"
                f.write(json.dumps({"id": ident, "text": text}, ensure_ascii=False) + "\n")
                written += len(text)
                n += 1
            passes += 1
    meta = {"base": str(a.base), "seed": a.seed, "passes": passes, "documents": n, "characters": written}
    (a.out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
