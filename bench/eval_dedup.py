#!/usr/bin/env python3
"""Score `parallels dedup` on a corpus made by gen_dedup.py.

Ground truth: a pair of documents is a duplicate pair when the exact Jaccard
similarity of their shingle sets, shingled and normalized exactly as
`parallels dedup` does it (normalized tokens, --ngram of them per shingle),
is at or above the threshold. The exact values come from the binary's hidden
`--jaccard-pairs` mode (the same Rust code that shingles for the run, so
normalization cannot differ between the run and its judge). Candidate pairs
judged: every pair inside a planted group (source and copies), and every
pair the run put in one cluster (so a false positive outside the planted
groups is judged too). Pairs in neither set are taken as non-duplicates:
two unrelated news articles of the corpus reach J = 0.8 on 5-gram shingles
only if the newspaper printed one text twice.

Measures:

* **pairs (clusters)**: predicted pairs are all pairs of documents in one
  output cluster (a kept document and those removed as its duplicates);
  precision, recall and F1 against the gold pairs. Transitive clusters are
  charged for every pair they imply.
* **pairs (removed → kept)**: precision of the (removed, duplicate_of) links
  the run reports.
* **documents (text-dedup style)**: each document is labelled duplicate when
  it is in a gold pair, and predicted duplicate when it is in an output
  cluster of two or more; precision and recall of both classes and their
  macro F1, as text-dedup reports on its benchmark.
* **recall by edit**: share of gold pairs (source, copy) found, by the edit
  the copy received.
* **by similarity band** (issue 14): the planted source-copy pairs by their
  exact similarity, in bands of 0.05 from 0.6 (below 0.6 in one row): how
  many the run put in one cluster ("broken up": one of the two removed as a
  duplicate). At or above the threshold that is recall; below it, a decoy
  wrongly joined.
* **removed without a true duplicate**: removed documents that are in no
  gold pair (no document of the judged pairs is at or above the threshold
  with them), as a share of all removed documents.

    bench/.venv-dedup/bin/python bench/eval_dedup.py --data /tmp/dd6 --bin target/release/parallels
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def exact_jaccard(binary: Path, docs: Path, ngram: int, pairs, tmp: Path, who: str) -> dict[tuple[str, str], float]:
    """Exact Jaccard of each pair of ids, on the binary's own shingles
    (`parallels dedup --jaccard-pairs`); exits naming `who` if it fails."""
    (tmp / "pairs.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    run = subprocess.run([str(binary), "dedup", str(docs), "-o", str(tmp / "unused.jsonl"),
                          "--ngram", str(ngram), "--jaccard-pairs", str(tmp / "pairs.tsv")],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{who}: --jaccard-pairs failed:\n{run.stderr}")
    exact = {}
    for line in run.stdout.splitlines():
        a, b, j = line.split("\t")
        exact[(a, b)] = float(j)
    return exact


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--bin", type=Path, required=True)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--ngram", type=int, default=5)
    ap.add_argument("--perms", type=int, default=128)
    ap.add_argument("--extra", default="", help="more flags for the run, e.g. '--verify exact'")
    ap.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = ap.parse_args(argv)
    docs = args.data / "docs.jsonl"
    groups = [json.loads(line) for line in (args.data / "groups.jsonl").open(encoding="utf-8")]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cmd = [str(args.bin), "dedup", str(docs), "-o", str(tmp / "clean.jsonl"), "--removed", str(tmp / "removed.jsonl"),
               "--threshold", str(args.threshold), "--ngram", str(args.ngram), "--perms", str(args.perms)]
        cmd += args.extra.split()
        t0 = time.perf_counter()
        run = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if run.returncode != 0:
            sys.exit(f"eval_dedup.py: the run failed:\n{run.stderr}")
        removed = [json.loads(line) for line in (tmp / "removed.jsonl").open(encoding="utf-8")]
        clusters: dict[str, list[str]] = {}
        for r in removed:
            clusters.setdefault(r["duplicate_of"], [r["duplicate_of"]]).append(r["id"])
        predicted = set()
        for members in clusters.values():
            for a, b in itertools.combinations(sorted(members), 2):
                predicted.add((a, b))
        planted = set()
        copy_edit: dict[tuple[str, str], str] = {}
        for g in groups:
            for a, b in itertools.combinations(sorted(g["members"]), 2):
                planted.add((a, b))
            for cid, kinds in g["edits"].items():
                pair = tuple(sorted((g["group"], cid)))
                copy_edit[pair] = "+".join(kinds)
        judged = sorted(planted | predicted)
        exact = exact_jaccard(args.bin, docs, args.ngram, judged, tmp, "eval_dedup.py")
    gold = {p for p in judged if exact.get(p, 0.0) >= args.threshold}
    tp = len(gold & predicted)
    p, r, f = prf(tp, len(predicted - gold), len(gold - predicted))
    links = [tuple(sorted((x["id"], x["duplicate_of"]))) for x in removed]
    link_ok = sum(1 for x in links if exact.get(x, 0.0) >= args.threshold)
    # Documents.
    all_ids = [json.loads(line)["id"] for line in docs.open(encoding="utf-8")]
    gold_dup = {x for pair in gold for x in pair}
    pred_dup = {x for members in clusters.values() for x in members}
    ids = set(all_ids)
    d_tp = len(gold_dup & pred_dup)
    d_p, d_r, d_f = prf(d_tp, len(pred_dup - gold_dup), len(gold_dup - pred_dup))
    n_tp = len((ids - gold_dup) & (ids - pred_dup))
    n_p, n_r, n_f = prf(n_tp, len((ids - pred_dup) - (ids - gold_dup)), len((ids - gold_dup) - (ids - pred_dup)))
    by_edit: dict[str, list[int]] = {}
    for pair, kind in copy_edit.items():
        if pair in gold:
            c = by_edit.setdefault(kind, [0, 0])
            c[0] += 1
            c[1] += pair in predicted
    below = sum(1 for pair in copy_edit if pair not in gold)
    bands: dict[str, list[int]] = {}
    for pair in copy_edit:
        j = exact.get(pair, 0.0)
        lo = min(int(j * 20 + 1e-9), 19) / 20 if j >= 0.6 else None
        key = f"{lo:.2f}-{lo + 0.05:.2f}" if lo is not None else "<0.60"
        c = bands.setdefault(key, [0, 0])
        c[0] += 1
        c[1] += pair in predicted
    removed_ids = [x["id"] for x in removed]
    unjustified = [x for x in removed_ids if x not in gold_dup]
    scores = {
        "command": " ".join(cmd[:1] + ["dedup", "docs.jsonl"] + cmd[3:4] + cmd[7:]),
        "documents": len(all_ids), "planted_pairs": len(planted), "gold_pairs": len(gold),
        "planted_copies_below_threshold": below,
        "pairs": {"precision": p, "recall": r, "f1": f, "tp": tp, "fp": len(predicted - gold), "fn": len(gold - predicted)},
        "links": {"precision": link_ok / len(links) if links else 1.0, "n": len(links)},
        "documents_text_dedup": {"dup_precision": d_p, "dup_recall": d_r, "nondup_precision": n_p,
                                 "nondup_recall": n_r, "macro_f1": (d_f + n_f) / 2},
        "recall_by_edit": {k: [v[1], v[0]] for k, v in sorted(by_edit.items())},
        "by_band": {k: {"pairs": v[0], "in_one_cluster": v[1]} for k, v in sorted(bands.items())},
        "removed": len(removed_ids), "removed_without_true_duplicate": len(unjustified),
        "seconds": seconds,
        "summary": run.stderr.strip().splitlines(),
    }
    if args.json:
        print(json.dumps(scores, ensure_ascii=False, indent=1))
        return 0
    print(f"documents {len(all_ids)}; planted pairs {len(planted)}; gold pairs (exact J >= {args.threshold}) {len(gold)}; "
          f"planted source-copy pairs below the threshold {below}")
    print(f"pairs (clusters):      P {p:.4f}  R {r:.4f}  F1 {f:.4f}  (tp {tp}, fp {len(predicted - gold)}, fn {len(gold - predicted)})")
    print(f"pairs (removed->kept): P {scores['links']['precision']:.4f} of {len(links)}")
    print(f"documents (text-dedup): dup P {d_p:.4f} R {d_r:.4f}; non-dup P {n_p:.4f} R {n_r:.4f}; macro F1 {(d_f + n_f) / 2:.4f}")
    print("recall by edit: " + ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(by_edit.items())))
    share = len(unjustified) / len(removed_ids) if removed_ids else 0.0
    print(f"removed {len(removed_ids)}; without a true duplicate {len(unjustified)} ({100 * share:.2f}%)")
    print("planted pairs by exact similarity: band | pairs | in one cluster | share")
    for k, v in sorted(bands.items()):
        kind = "duplicate" if k != "<0.60" and float(k[:4]) >= args.threshold else "decoy"
        print(f"  {k} ({kind}) | {v[0]} | {v[1]} | {v[1] / v[0]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
