#!/usr/bin/env python3
"""The passages `parallels scan` reports between news documents that share no
planted text: how many, how long, and a seeded random sample to read.

    python3 bench/eval_news.py --corpus DIR --results DIR [--sample 40] [--seed 1]

--corpus is a gen_scan.py output (gold.jsonl, docs.jsonl); --results a
`parallels scan -o` folder. A passage is *planted* when it overlaps, on both
sides, a gold case of its document pair (the detection rule of
eval_scan.py); every other passage is *news–news*: text the newspaper itself
repeats (reprints, shared agency copy, formula). Prints the counts by kind,
length percentiles (characters of the shorter side), and --sample passages
drawn with --seed, each with both sides' text (at most --chars characters),
its kind, score and significance, as Markdown. Judging them is left to the
reader (EVALUATION.md records a judged sample). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval_scan import load_gold, orient, overlaps, read_jsonl, read_texts  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chars", type=int, default=160)
    ap.add_argument("--min-significance", type=float, default=0.0,
                    help="count only passages at least this significant (for a scan run with --all)")
    args = ap.parse_args(argv)

    _, cases, by_pair, _ = load_gold(args.corpus)
    news = []
    planted = 0
    for p in read_jsonl(os.path.join(args.results, "passages.jsonl")):
        if p.get("significance", 0) < args.min_significance:
            continue
        key, a, b = orient(p["a_doc"], p["a"], p["b_doc"], p["b"])
        if any(overlaps(cases[c].a, a) and overlaps(cases[c].b, b) for c in by_pair.get(key, ())):
            planted += 1
        else:
            news.append((key, a, b, p))
    by_kind: dict[str, int] = {}
    for *_, p in news:
        by_kind[p["kind"]] = by_kind.get(p["kind"], 0) + 1
    lengths = sorted(min(a[1] - a[0], b[1] - b[0]) for _, a, b, _ in news)

    def pct(q: float) -> int:
        return lengths[min(len(lengths) - 1, int(q * len(lengths)))] if lengths else 0

    pairs = len({k for k, *_ in news})
    print(f"passages meeting planted cases: {planted}")
    print(f"news–news passages: {len(news)} in {pairs} document pairs "
          f"({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))}); "
          f"shorter side p10/p50/p90: {pct(0.1)}/{pct(0.5)}/{pct(0.9)} chars")
    if not news or args.sample <= 0:
        return 0
    rng = random.Random(args.seed)
    sample = sorted(rng.sample(range(len(news)), min(args.sample, len(news))))
    texts = read_texts(args.corpus, {d for i in sample for d in news[i][0]})

    def cut(doc: str, span) -> str:
        t = texts.get(doc, "")[span[0]:span[1]].replace("\n", "⏎").replace("|", "｜")
        return t if len(t) <= args.chars else t[:args.chars] + "…"

    print()
    print("| # | pair | kind | chars | score | significance | A | B |")
    print("|--:|---|---|--:|--:|--:|---|---|")
    for n, i in enumerate(sample, 1):
        (da, db), a, b, p = news[i]
        print(f"| {n} | {da}–{db} | {p['kind']} | {a[1] - a[0]}/{b[1] - b[0]} | {p['score']:.2f} | "
              f"{p.get('significance', 0):.1f} | {cut(da, a)} | {cut(db, b)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
