#!/usr/bin/env python3
"""Copies cut anywhere, in a corpus: does `parallels scan` at its defaults
report them, as `verbatim`, with their ends where the copy ends? (issue 33)

Makes a corpus of --docs real news documents (the People's Daily, January
1998, as `gen_scan.py` cuts it into documents), plants --copies copies of
50-400 characters, each cut at an arbitrary character of one document and
set in at an arbitrary character of another (every document takes part in
at most one copy), runs `parallels scan docs.jsonl -o OUT`, and scores each
copy against the passage of its two documents that overlaps it most (see
eval_copies.py for the measures). `--edits R` changes a share R of each
copy's characters. With `--query`, the corpus as it was before planting is
indexed (`parallels index build`) and each host, copy and all, is asked
with `parallels query`.

    python3 bench/eval_scan_copies.py --bin target/release/parallels --docs 300 --copies 30 --seed 1
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
from eval_copies import common_args, cut, document, load_corpus, noisy, outside, summary, widen  # noqa: E402


def overlap(x, y) -> int:
    return max(0, min(x[1], y[1]) - max(x[0], y[0]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(ap, 50)
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--copies", type=int, default=30)
    ap.add_argument("--query", action="store_true",
                    help="index the corpus as it was before planting and ask each planted host with `query`")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--show-all", action="store_true", help="--show lists found copies too, with their significance")
    args, extra = ap.parse_known_args()
    corpus = load_corpus("eval_scan_copies.py")
    rng = random.Random(args.seed)
    templates = rng.sample(corpus.templates, args.docs)
    texts = [document(corpus, t) for t in templates]
    library = list(texts)
    order = list(range(args.docs))
    rng.shuffle(order)
    plants = []
    lo, hi = args.min_chars, args.max_chars
    for k in range(args.copies):
        src, host = order[2 * k], order[2 * k + 1]
        s_text = texts[src]
        for _ in range(100):
            run = cut(rng, s_text, lo, hi)
            if run is not None:
                break
        else:
            continue
        s, n = run
        copy = noisy(rng, corpus, s_text[s:s + n], args.edits)[0] if args.edits > 0 else s_text[s:s + n]
        h_text = texts[host]
        p = rng.randrange(1, len(h_text) - 1)
        texts[host] = h_text[:p] + copy + h_text[p:]
        gold = [p, p + n, s, s + n]
        if args.edits == 0:
            gold = widen(texts[host], s_text, gold)
        plants.append(dict(host=f"d{host:04d}", src=f"d{src:04d}", gold=gold, chars=n))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        def jsonl(name, items):
            path = Path(tmp, name)
            with path.open("w", encoding="utf-8") as f:
                for i, t in items:
                    f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")
            return str(path)
        run = lambda *cmd: subprocess.run([args.bin, *cmd], check=True, stderr=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL)
        if args.query:
            # The library as it was; each planted host asked as a new text.
            idx = str(Path(tmp, "lib.idx"))
            run("index", "build", jsonl("library.jsonl", [(f"d{i:04d}", t) for i, t in enumerate(library)]),
                "--index", idx)
            hosts = [(pl["host"], texts[int(pl["host"][1:])]) for pl in plants]
            hits = Path(tmp, "hits.json")
            run("query", jsonl("queries.jsonl", hosts), "--index", idx, "--format", "json", "-o", str(hits), *extra)
            passages = [dict(p, a_doc=pair["a"], b_doc=pair["b"])
                        for pair in json.loads(hits.read_text(encoding="utf-8"))["pairs"] for p in pair["passages"]]
        else:
            out = Path(tmp, "out")
            docs = jsonl("docs.jsonl", [(f"d{i:04d}", t) for i, t in enumerate(texts)])
            run("scan", docs, "-o", str(out), *extra)
            passages = [json.loads(line) for line in Path(out, "passages.jsonl").open(encoding="utf-8")]
    by_pair: dict[tuple[str, str], list] = {}
    for p in passages:
        by_pair.setdefault((p["a_doc"], p["b_doc"]), []).append(p)
    for pl in plants:
        a0, a1, b0, b1 = pl["gold"]
        cands = []
        for p in by_pair.get((pl["host"], pl["src"]), []):
            cands.append((p["a"], p["b"], p["kind"], p.get("significance")))
        for p in by_pair.get((pl["src"], pl["host"]), []):
            cands.append((p["b"], p["a"], p["kind"], p.get("significance")))
        best, best_ov = None, 0
        for ca, cb, kind, sig in cands:
            ov = min(overlap(ca, (a0, a1)), overlap(cb, (b0, b1)))
            if ov > best_ov:
                best, best_ov = (ca, cb, kind, sig), ov
        extra_chars = outside([{"a": c[0]} for c in cands], a0, a1)
        if best is None:
            rows.append(dict(found=False, verbatim=False, err=None, extra=extra_chars, **pl))
            continue
        ca, cb, kind, sig = best
        err = [abs(ca[0] - a0), abs(ca[1] - a1), abs(cb[0] - b0), abs(cb[1] - b1)]
        rows.append(dict(found=True, verbatim=kind == "verbatim", err=err, extra=extra_chars, got=[ca, cb],
                         significance=sig, **pl))
    tol = args.tolerance
    m = summary(rows, tol)
    print(f"| documents | copies | found | as verbatim | verbatim, all four ends within {tol} | an end off by > 5 "
          "| mean total end error (found) | passages in the corpus |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|")
    print(f"| {args.docs} | {m['n']} | {m['found']} | {m['verbatim']} | {m['tight']} | {m['far']} "
          f"| {m['mean_err']:.1f} | {len(passages)} |")
    shown = 0
    for r in rows:
        if shown >= args.show:
            break
        if r["found"] and r["verbatim"] and max(r["err"]) <= tol and not args.show_all:
            continue
        shown += 1
        print(f"\n{r['host']} <- {r['src']} ({r['chars']} chars) gold {r['gold']} found {r['found']} "
              f"verbatim {r['verbatim']} got {r.get('got')} err {r['err']} significance {r.get('significance')}")
        print(f"  {texts[int(r['host'][1:])][r['gold'][0]:r['gold'][1]]!r}")


if __name__ == "__main__":
    main()
