#!/usr/bin/env python3
"""passim's pairwise alignments as the passages.jsonl that eval_scan.py
scores, so that passim's output can be measured against the planted gold.

    python3 bench/passim_to_passages.py PASSIM_OUT OUT_DIR [--docs DOCS.jsonl]

PASSIM_OUT is the output folder of a passim 2 run with ``--pairwise``
(``align.json/part-*.json``, one alignment a line). Each alignment names
two documents (``id``, ``id2``) and a span in each (``begin``/``end`` in
``id``, ``begin2``/``end2`` in ``id2``). passim aligns Python strings and
cuts them with Spark's ``substr``, so both are code-point offsets into the
text it was given; bench_spark.sh and bench_passim.sh give it the corpus's
texts unchanged, so they are offsets into the original texts, as
eval_scan.py wants. ``--docs`` checks that: every span's text must equal
passim's aligned string (``s1``/``s2``) without its gap marks, and the
script exits 1 on the first that does not.

Writes OUT_DIR/passages.jsonl: ``a_doc``, ``a``, ``b_doc``, ``b``, ``kind``
"passim" and ``score`` (passim's matching characters). Standard library
only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys


def alignments(passim_out: str):
    files = sorted(glob.glob(os.path.join(passim_out, "align.json", "*.json")))
    if not files:
        sys.exit(f"{passim_out}: no align.json/*.json (run passim with --pairwise)")
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("passim_out", help="passim --pairwise output folder")
    ap.add_argument("out", help="folder for passages.jsonl")
    ap.add_argument("--docs", help="the corpus passim read (JSON Lines, id and text): check every span")
    a = ap.parse_args(argv)
    texts = None
    if a.docs:
        texts = {}
        with open(a.docs, encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                texts[str(d["id"])] = d["text"]
    os.makedirs(a.out, exist_ok=True)
    n = 0
    with open(os.path.join(a.out, "passages.jsonl"), "w", encoding="utf-8") as o:
        for r in alignments(a.passim_out):
            a_doc, b_doc = str(r["id"]), str(r["id2"])
            sa, sb = [r["begin"], r["end"]], [r["begin2"], r["end2"]]
            if texts is not None:
                for doc, (s, e), aligned in ((a_doc, sa, r["s1"]), (b_doc, sb, r["s2"])):
                    if texts[doc][s:e] != aligned.replace("-", "") and "-" not in texts[doc][s:e]:
                        sys.exit(f"{doc} [{s}, {e}): the text there is not passim's aligned string")
            o.write(
                json.dumps(
                    {"a_doc": a_doc, "a": sa, "b_doc": b_doc, "b": sb, "kind": "passim", "score": r.get("matches")},
                    ensure_ascii=False,
                )
                + "\n"
            )
            n += 1
    print(f"{n} passages", file=sys.stderr)


if __name__ == "__main__":
    main()
