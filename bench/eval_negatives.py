#!/usr/bin/env python3
"""Characters `parallels align` links between texts that share no passage.

Two kinds of same-topic negatives, none of them versions of one another:

* news: the pairs bench/gen_negatives.py writes (People's Daily articles on
  the same people, places and organizations, no shared 12-character run);
* house style: Genesis 37-50 against Mark 5-8 in the same Chinese Bible
  translation (CUV), and Genesis in the other translation (CNV) against
  Mark — one translator's formulae (`他们就`, `对他说`), other books. Read
  from ../shared/corpus (skipped when absent);
* across languages: every Chinese dev text that is not Mark (the four
  zh-variants stories, Genesis in both translations) against the English
  Mark (KJV, WMB) and Matthew (KJV): aligned by meaning, where chance
  matches of a night, a quake or a promise are the risk.

    python3 bench/eval_negatives.py --bin target/release/parallels --neg /tmp/neg [--without complete,...]

prints, per set, the pairs with any passage, the passages, and the
characters linked (both sides, union of link spans).
"""
import argparse
import json
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def linked(bin_, a: Path, b: Path, extra):
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "out.json"
        subprocess.run([bin_, "align", str(a), str(b), "--format", "json", "-o", str(out), *extra], check=True)
        res = json.loads(out.read_text(encoding="utf-8"))
    passages = [p for pair in res["pairs"] for p in pair["passages"]]
    chars = 0
    for side in "ab":
        spans = sorted(tuple(l[side]) for p in passages for l in (p.get("links") or [p]))
        end = 0
        for s, e in spans:
            s = max(s, end)
            if e > s:
                chars += e - s
            end = max(end, e)
    return len(passages), chars, passages


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--neg", required=True, type=Path, help="folder written by gen_negatives.py")
    ap.add_argument("--without", default="", help="methods to switch off (align --without)")
    ap.add_argument("--show", action="store_true", help="print every passage found")
    args = ap.parse_args()
    extra = ["--without", args.without] if args.without else []
    sets = {"news (same-topic articles)": [(args.neg / f"{m['pair']}-a.txt", args.neg / f"{m['pair']}-b.txt")
                                           for m in json.loads((args.neg / "pairs.json").read_text(encoding="utf-8"))]}
    shared = ROOT.parent / "shared" / "corpus"
    mark = shared / "zh-en-bible" / "mark5-8_cuv.txt"
    if mark.exists():
        sets["house style (Genesis vs Mark)"] = [(shared / "zh-bible" / "genesis37-50_cuv.txt", mark),
                                                 (shared / "zh-bible" / "genesis37-50_ncv.txt", mark)]
    en = shared / "en-bible"
    if en.exists():
        chinese = [ROOT / "eval" / "zh-variants" / f"v{i}.txt" for i in range(1, 5)]
        chinese += [shared / "zh-bible" / "genesis37-50_cuv.txt", shared / "zh-bible" / "genesis37-50_ncv.txt"]
        english = [en / "mark_kjv.txt", en / "mark_wmb.txt", en / "matthew_kjv.txt"]
        sets["across languages (zh vs en)"] = [(a, b) for a in chinese for b in english]
    print(f"{'set':<32} {'pairs':>5} {'with any':>8} {'passages':>8} {'chars linked':>12} {'chars in all':>12}")
    for name, pairs in sets.items():
        hit = n_pass = n_chars = total = 0
        for a, b in pairs:
            n, c, passages = linked(args.bin, a, b, extra)
            ta, tb = a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")
            total += len(ta) + len(tb)
            hit += n > 0
            n_pass += n
            n_chars += c
            if args.show:
                for p in passages:
                    print(f"  {a.name} {p['kind']} {p['score']} | {ta[p['a'][0]:p['a'][1]][:50]!r} || {tb[p['b'][0]:p['b'][1]][:50]!r}")
        print(f"{name:<32} {len(pairs):>5} {hit:>8} {n_pass:>8} {n_chars:>12} {total:>12}")


if __name__ == "__main__":
    main()
