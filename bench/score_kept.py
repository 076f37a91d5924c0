#!/usr/bin/env python3
"""Score the kept records of any dedup tool against exact-Jaccard truth, on
a corpus made by gen_dedup.py: the measures of issue 14, for parallels and
the baselines alike (bench_dedup.sh runs it on the speed corpus).

Truth: the planted pairs (every pair inside a planted group) whose exact
Jaccard similarity on the shingles of `parallels dedup` (normalized tokens,
--ngram per shingle; the binary's hidden --jaccard-pairs mode) is at or
above the threshold. A tool only says which records it kept, so:

* **true pairs broken up**: share of true pairs of which at most one
  document was kept (one of them removed, as a duplicate of something);
* **removals justified**: share of removed documents that are in a true
  pair (a removed document outside every planted group, or whose planted
  partners are all below the threshold, is unjustified: two unrelated news
  articles of the corpus do not reach 0.8 on 5-grams).

The baselines shingle raw characters (no normalization), so a traditional
script copy is no duplicate to them; the truth here is the normalized one,
the one parallels' users ask for.

    bench/.venv-dedup/bin/python bench/score_kept.py --data bench/data/dedup-30M-s1 \\
        --bin target/release/parallels parallels=/tmp/p.jsonl rensa=/tmp/rensa.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path

from eval_dedup import exact_jaccard


def ids_of(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line)["id"] for line in f]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--bin", type=Path, required=True)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--ngram", type=int, default=5)
    ap.add_argument("kept", nargs="+", help="NAME=PATH of a tool's kept records (JSON Lines)")
    args = ap.parse_args(argv)
    docs = args.data / "docs.jsonl"
    groups = [json.loads(line) for line in (args.data / "groups.jsonl").open(encoding="utf-8")]
    planted = sorted({p for g in groups for p in itertools.combinations(sorted(g["members"]), 2)})
    with tempfile.TemporaryDirectory() as tmp:
        exact = exact_jaccard(args.bin, docs, args.ngram, planted, Path(tmp), "score_kept.py")
    true = [p for p in planted if exact.get(p, 0.0) >= args.threshold]
    in_true = {x for p in true for x in p}
    all_ids = ids_of(docs)
    print(f"{len(all_ids)} documents; {len(planted)} planted pairs, {len(true)} at or above {args.threshold} "
          f"(exact Jaccard on parallels' shingles)")
    print()
    print("| tool | removed | true pairs broken up | removals justified |")
    print("| --- | ---: | ---: | ---: |")
    for item in args.kept:
        name, path = item.split("=", 1)
        kept = set(ids_of(Path(path)))
        removed = [x for x in all_ids if x not in kept]
        broken = sum(1 for a, b in true if not (a in kept and b in kept))
        justified = sum(1 for x in removed if x in in_true)
        print(f"| {name} | {len(removed)} | {broken / len(true):.3f} ({broken}/{len(true)}) | "
              f"{justified / len(removed) if removed else 1.0:.3f} ({justified}/{len(removed)}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
