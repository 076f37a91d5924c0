#!/usr/bin/env python3
"""Score the output of `parallels scan` against the gold written by gen_scan.py.

    python3 bench/eval_scan.py --corpus DIR --results DIR [--json out.json]

--corpus is a gen_scan.py output directory (gold.jsonl, known_reuse.jsonl,
distractors.jsonl, and docs.jsonl or docs/NNNNNN.txt). --results is a
`parallels scan -o` directory (passages.jsonl). Python 3.11 standard library
only.

The measures
============

These are the text-alignment measures of the PAN plagiarism-detection
evaluation (Potthast, Stein, Barrón-Cedeño and Rosso, "An Evaluation
Framework for Plagiarism Detection", COLING 2010), applied to document pairs
instead of (suspicious, source) pairs.

Every span is treated as a set of characters, and a pair-level object is the
union of two such sets, one in each document. Sizes always count both sides:
|x| = (chars of x in the first document) + (chars of x in the second).

- A *case* s is one entry of a gold line's `passages`: a span in `a_doc` plus
  a span in `b_doc`. S is the set of all cases.
- A *detection* r is one line of the scan's passages.jsonl: a span in each of
  its two documents (the hulls `a` and `b`; the `links` inside are ignored).
  R is the set of all detections. Gold lines always have a_doc < b_doc, while
  scan orders a pair by the order it read the documents. Both are brought to
  one orientation (the smaller id first, spans swapped with it) before they
  are compared.
- r *detects* s when both lie on the same pair of documents and their spans
  overlap (share at least one character) in both documents. Overlap on one
  side alone is not enough.
- For r, only the characters of cases it detects count in its favour. Its
  precision share is that covered part (the union of the detected cases'
  spans intersected with r, per side, summed over both sides) divided by |r|.
  **precision** is the mean of this share over all detections. A detection
  that detects nothing scores 0.
- For s, only detections that detect it count. Its recall share is the part
  of s covered by the union of those detections, divided by |s|.
  **recall** is the mean of this share over all cases. A missed case scores 0.
- **granularity** is the mean number of detections per detected case, taken
  over the cases that at least one detection detects. 1 is ideal. A case
  found in three pieces counts 3.
- **plagdet** = F1 / log2(1 + granularity), where F1 is the harmonic mean of
  precision and recall. With granularity 1 the divisor is 1, so plagdet is
  F1. Splitting cases into pieces is penalised even when every piece is
  right.

How the numbers are grouped
===========================

Per group of gold lines (kind verbatim/noisy/parallel; parallel split into
the versions of one work (v1, v2, v2_trad, v3) and the pairs with v4, whose
one shared passage is a paraphrased quotation; pd lines split into direct =
source-copy and indirect = copy-copy; kind x direct; all):

- recall and granularity over the cases of that group's lines;
- precision over the detections that detect at least one case of the group,
  not over all detections (so it says how tight those detections are, not
  how many false ones the run made). The covered part counts every gold case
  the detection detects, whatever its group;
- plagdet from these three;
- candidate recall: the share of the group's gold document pairs on which
  scan reported any passage at all, right or wrong;
- char recall (not a PAN measure): all covered case characters over all case
  characters. PAN recall weighs every case the same, so a 50-character case
  counts as much as a 4,000-character one; char recall weighs by size.

The `direct` split uses pd lines only: gen_scan.py marks every zh-variants
line direct, which would mix the parallel sets into "source-copy".

Overall precision is over all detections. Detections that detect no case are
split into:

- known: it overlaps, on both sides, one `known_reuse.jsonl` entry of its
  pair (the entry's `a`/`b` hulls). This is reuse that is already in the
  background corpus. README says to ignore it, so a second precision (and
  plagdet) leaves these detections out of R;
- distractor: on a `distractors.jsonl` pair, and not known. These are
  failures; the target is zero;
- other: everything else (also false). Split further into those on a gold
  pair (a stray piece beside a planted case) and those on a pair with no
  gold.

The distractor failures and the largest other false detections (by |r|, 10
of each) are printed with the first 60 characters of each side, read from
docs.jsonl or docs/*.txt.

Memory and time: gold, known reuse and distractors are indexed by document
pair. passages.jsonl is streamed once; only the detections on gold pairs and
a top-N heap of false ones are kept. Each detection is compared with the
cases and known-reuse entries of its own pair only.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import os
import re
import signal
import sys
import time
from collections import Counter, defaultdict

TOP_N = 10
SHOW_CHARS = 60
GROUP_ORDER = [
    "verbatim", "noisy", "parallel", "parallel versions", "parallel v4 quote",
    "pd direct", "pd indirect",
    "verbatim direct", "verbatim indirect", "noisy direct", "noisy indirect",
    "all",
]


# --------------------------------------------------------------------------
# intervals: half-open (start, end) code-point ranges


def merge(spans):
    """Sorted, disjoint union of half-open spans."""
    out = []
    for s, e in sorted(spans):
        if s >= e:
            continue
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def covered(merged, s, e):
    """Characters of [s, e) inside the merged union."""
    n = 0
    for ms, me in merged:
        if me <= s:
            continue
        if ms >= e:
            break
        n += min(me, e) - max(ms, s)
    return n


def overlaps(x, y):
    return max(x[0], y[0]) < min(x[1], y[1])


def span_len(x):
    return max(0, x[1] - x[0])


def orient(a_doc, a, b_doc, b):
    """(key, span in key[0], span in key[1]); the key puts the smaller id first."""
    a = (int(a[0]), int(a[1]))
    b = (int(b[0]), int(b[1]))
    if b_doc < a_doc:
        return (b_doc, a_doc), b, a
    return (a_doc, b_doc), a, b


# --------------------------------------------------------------------------
# gold


class Case:
    __slots__ = ("key", "a", "b", "size", "line", "dets")

    def __init__(self, key, a, b, line):
        self.key, self.a, self.b, self.line = key, a, b, line
        self.size = span_len(a) + span_len(b)
        self.dets = []  # (a span, b span) of the detections that detect it


def line_groups(g):
    kind = g["kind"]
    groups = [kind, "all"]
    if kind == "parallel" and g.get("versions"):
        # v4 is the same-topic text whose one parallel passage is a
        # paraphrased quotation; the others are versions of one work.
        groups.append("parallel v4 quote" if "v4" in g["versions"] else "parallel versions")
    if g.get("origin", "pd") == "pd" and "direct" in g:
        d = "direct" if g["direct"] else "indirect"
        groups += [f"pd {d}", f"{kind} {d}"]
    return groups


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{n}: bad JSON: {e}")


def load_gold(corpus):
    lines = []  # (groups, key)
    cases = []
    by_pair = defaultdict(list)  # key -> [case index]
    pairs = defaultdict(list)  # key -> [line index]
    for g in read_jsonl(os.path.join(corpus, "gold.jsonl")):
        li = len(lines)
        key, _, _ = orient(g["a_doc"], g["a"], g["b_doc"], g["b"])
        lines.append((line_groups(g), key))
        pairs[key].append(li)
        for p in g["passages"]:
            k, a, b = orient(g["a_doc"], p["a"], g["b_doc"], p["b"])
            c = Case(k, a, b, li)
            by_pair[k].append(len(cases))
            cases.append(c)
    return lines, cases, by_pair, pairs


def load_known(corpus):
    known = defaultdict(list)
    path = os.path.join(corpus, "known_reuse.jsonl")
    if not os.path.exists(path):
        print(f"warning: {path} missing; no detection counts as known reuse", file=sys.stderr)
        return known
    for k in read_jsonl(path):
        key, a, b = orient(k["a_doc"], k["a"], k["b_doc"], k["b"])
        known[key].append((a, b))
    return known


def load_distractors(corpus):
    dis = {}
    path = os.path.join(corpus, "distractors.jsonl")
    if not os.path.exists(path):
        print(f"warning: {path} missing", file=sys.stderr)
        return dis
    for d in read_jsonl(path):
        key, _, _ = orient(d["a_doc"], (0, 0), d["b_doc"], (0, 0))
        dis[key] = d.get("kind", "?")
    return dis


# --------------------------------------------------------------------------
# texts, for showing false detections

_ID_RE = re.compile(r'"id"\s*:\s*"([^"]*)"')


def read_texts(corpus, ids):
    ids = set(ids)
    texts = {}
    if not ids:
        return texts
    jl = os.path.join(corpus, "docs.jsonl")
    if os.path.exists(jl):
        with open(jl, encoding="utf-8") as f:
            for line in f:
                m = _ID_RE.search(line, 0, 200)
                if m and m.group(1) not in ids:
                    continue
                d = json.loads(line)
                if d["id"] in ids:
                    texts[d["id"]] = d["text"]
                    if len(texts) == len(ids):
                        break
    else:
        for i in ids:
            p = os.path.join(corpus, "docs", f"{i}.txt")
            if os.path.exists(p):
                with open(p, encoding="utf-8") as f:
                    texts[i] = f.read()
    return texts


def snippet(text, span):
    if text is None:
        return "(text not found)"
    s, e = span
    t = text[s:min(e, s + SHOW_CHARS)].replace("\n", "⏎")
    return t + ("…" if e - s > SHOW_CHARS else "")


# --------------------------------------------------------------------------
# scoring


def f1(p, r):
    return 0.0 if not p or not r else 2 * p * r / (p + r)


def plagdet(p, r, g):
    if p is None or r is None:
        return None
    return f1(p, r) / math.log2(1 + (g if g else 1.0))


def score(corpus, results_path):
    t0 = time.time()
    lines, cases, gold_by_pair, gold_pairs = load_gold(corpus)
    known = load_known(corpus)
    distractors = load_distractors(corpus)
    t_load = time.time() - t0

    n_det = 0
    prec_sum = 0.0  # sum over detections of covered share
    grp_prec = defaultdict(lambda: [0.0, 0])  # group -> [sum, n detections]
    cls = Counter()  # detecting / known / distractor / other-gold-pair / other
    cls_chars = Counter()
    cls_kind = defaultdict(Counter)  # class -> scan kind -> n
    cls_size = defaultdict(Counter)  # class -> |r| -> n (not "detecting")
    pairs_seen = set()  # gold pairs with any detection
    false_pairs = Counter()  # class -> distinct pairs
    false_pair_sets = defaultdict(set)  # hashes of the pair keys, to save memory
    top = []  # heap of (size, seq, record) for false detections
    top_dis = []  # distractor failures, all (kept small: must be zero)
    empty = 0

    for p in read_jsonl(results_path):
        n_det += 1
        key, ra, rb = orient(p["a_doc"], p["a"], p["b_doc"], p["b"])
        size = span_len(ra) + span_len(rb)
        if size == 0:
            empty += 1
        idx = gold_by_pair.get(key)
        hit = []
        if idx is not None:
            pairs_seen.add(key)
            hit = [i for i in idx if overlaps(cases[i].a, ra) and overlaps(cases[i].b, rb)]
        if hit:
            cov = (covered(merge(cases[i].a for i in hit), *ra)
                   + covered(merge(cases[i].b for i in hit), *rb))
            share = cov / size
            prec_sum += share
            groups = set()
            for i in hit:
                cases[i].dets.append((ra, rb))
                groups.update(lines[cases[i].line][0])
            for g in groups:
                grp_prec[g][0] += share
                grp_prec[g][1] += 1
            c = "detecting"
        else:
            if any(overlaps(ka, ra) and overlaps(kb, rb) for ka, kb in known.get(key, ())):
                c = "known"
            elif key in distractors:
                c = "distractor"
            elif idx is not None:
                c = "other, gold pair"
            else:
                c = "other"
        cls[c] += 1
        cls_chars[c] += size
        cls_kind[c][p.get("kind", "?")] += 1
        if c != "detecting":
            cls_size[c][size] += 1
            false_pair_sets[c].add(hash(key))
        if c in ("distractor", "other", "other, gold pair"):
            rec = {
                "class": c, "a_doc": key[0], "a": list(ra), "b_doc": key[1], "b": list(rb),
                "chars": size, "kind": p.get("kind"), "score": p.get("score"),
                "links": len(p.get("links") or ()),
            }
            if c == "distractor":
                rec["distractor_kind"] = distractors[key]
                if len(top_dis) < 1000:
                    top_dis.append(rec)
            elif len(top) < TOP_N:
                heapq.heappush(top, (size, n_det, rec))
            elif size > top[0][0]:
                heapq.heapreplace(top, (size, n_det, rec))
    for c, s in false_pair_sets.items():
        false_pairs[c] = len(s)
    t_stream = time.time() - t0 - t_load

    # per-case recall and granularity
    grp = defaultdict(lambda: {"lines": 0, "cand": 0, "cases": 0, "detected": 0,
                               "rec_sum": 0.0, "gran_sum": 0, "case_chars": 0, "cov_chars": 0})
    for li, (groups, key) in enumerate(lines):
        for g in groups:
            grp[g]["lines"] += 1
            grp[g]["cand"] += key in pairs_seen
    for c in cases:
        r, cov = 0.0, 0
        if c.dets:
            cov = (covered(merge(d[0] for d in c.dets), *c.a)
                   + covered(merge(d[1] for d in c.dets), *c.b))
            r = cov / c.size if c.size else 1.0
        for g in lines[c.line][0]:
            x = grp[g]
            x["cases"] += 1
            x["case_chars"] += c.size
            x["cov_chars"] += cov
            x["rec_sum"] += r
            if c.dets:
                x["detected"] += 1
                x["gran_sum"] += len(c.dets)

    groups_out = {}
    for g in GROUP_ORDER + sorted(set(grp) - set(GROUP_ORDER)):
        if g not in grp:
            continue
        x = grp[g]
        ps, pn = grp_prec.get(g, (0.0, 0))
        prec = ps / pn if pn else None
        rec = x["rec_sum"] / x["cases"] if x["cases"] else None
        gran = x["gran_sum"] / x["detected"] if x["detected"] else None
        groups_out[g] = {
            "gold_pairs": x["lines"],
            "candidate_recall": x["cand"] / x["lines"] if x["lines"] else None,
            "pairs_with_passage": x["cand"],
            "cases": x["cases"],
            "case_chars": x["case_chars"],
            "cases_detected": x["detected"],
            "detections": pn,
            "precision": prec,
            "recall": rec,
            "granularity": gran,
            "plagdet": plagdet(prec if prec is not None else 0.0, rec, gran),
            "recall_chars": x["cov_chars"] / x["case_chars"] if x["case_chars"] else None,
        }

    a = groups_out.get("all", {})
    rec_all, gran_all = a.get("recall"), a.get("granularity")
    prec_all = prec_sum / n_det if n_det else None
    n_eff = n_det - cls["known"]
    prec_nk = prec_sum / n_eff if n_eff else None
    overall = {
        "detections": n_det,
        "precision": prec_all,
        "precision_excl_known": prec_nk,
        "recall": rec_all,
        "granularity": gran_all,
        "plagdet": plagdet(prec_all if prec_all is not None else 0.0, rec_all, gran_all),
        "plagdet_excl_known": plagdet(prec_nk if prec_nk is not None else 0.0, rec_all, gran_all),
        "empty_detections": empty,
    }
    classes = {}
    for c in ("detecting", "known", "distractor", "other, gold pair", "other"):
        classes[c] = {
            "detections": cls[c],
            "chars": cls_chars[c],
            "pairs": false_pairs.get(c, 0) if c != "detecting" else None,
            "by_scan_kind": dict(cls_kind[c]),
            "median_chars": _median(cls_size.get(c)),
        }
    top_sorted = [r for _, _, r in sorted(top, key=lambda t: (-t[0], t[1]))]
    top_dis.sort(key=lambda r: -r["chars"])
    show_dis = top_dis[:TOP_N]
    texts = read_texts(corpus, {r[k] for r in top_sorted + show_dis for k in ("a_doc", "b_doc")})
    for r in top_sorted + show_dis:
        r["a_text"] = snippet(texts.get(r["a_doc"]), r["a"])
        r["b_text"] = snippet(texts.get(r["b_doc"]), r["b"])

    targets = {
        "verbatim plagdet >= 0.95": _ge(groups_out.get("verbatim", {}).get("plagdet"), 0.95),
        "noisy plagdet >= 0.95": _ge(groups_out.get("noisy", {}).get("plagdet"), 0.95),
        "parallel recall >= 0.90": _ge(groups_out.get("parallel", {}).get("recall"), 0.90),
        "distractor false detections == 0": cls["distractor"] == 0,
    }
    return {
        "corpus": os.path.abspath(corpus),
        "results": os.path.abspath(results_path),
        "gold_lines": len(lines),
        "gold_cases": len(cases),
        "known_reuse_pairs": len(known),
        "distractor_pairs": len(distractors),
        "groups": groups_out,
        "overall": overall,
        "classes": classes,
        "largest_false": top_sorted,
        "distractor_failures": show_dis,
        "targets": targets,
        "seconds": {"load": round(t_load, 2), "stream": round(t_stream, 2),
                    "total": round(time.time() - t0, 2)},
    }


def cluster_purity(corpus, results_dir):
    """Cluster purity against the planted reuse sets (gold `cluster`).

    A planted set's places are the spans of its gold cases in their
    documents. A scan cluster (clusters.jsonl) *holds* a set when one of its
    members overlaps one of the set's places. A set is *whole* when every
    cluster holding it is one cluster, *clean* when the clusters holding it
    hold nothing else (no other set, no member outside every planted
    place); purity is the share of the sets found at all that are both.
    None without clusters.jsonl.
    """
    path = os.path.join(results_dir, "clusters.jsonl")
    if not os.path.exists(path):
        return None
    places = defaultdict(list)  # doc -> [(span, set)]
    for g in read_jsonl(os.path.join(corpus, "gold.jsonl")):
        sid = (g.get("origin", "pd"), g.get("cluster"))
        for p in g["passages"]:
            places[g["a_doc"]].append(((int(p["a"][0]), int(p["a"][1])), sid))
            places[g["b_doc"]].append(((int(p["b"][0]), int(p["b"][1])), sid))
    holders = defaultdict(set)  # set -> clusters
    contents = {}  # cluster -> sets held (None for a member outside every place)
    for c in read_jsonl(path):
        held = set()
        for m in c["members"]:
            span = (int(m["span"][0]), int(m["span"][1]))
            hit = {sid for sp, sid in places.get(m["doc"], ()) if overlaps(sp, span)}
            held |= hit if hit else {None}
        if held - {None}:
            contents[c["id"]] = held
            for sid in held - {None}:
                holders[sid].add(c["id"])
    whole = sum(1 for cs in holders.values() if len(cs) == 1)
    clean = sum(1 for sid, cs in holders.items() if all(contents[c] == {sid} for c in cs))
    both = sum(1 for sid, cs in holders.items() if len(cs) == 1 and contents[next(iter(cs))] == {sid})
    n = len(holders)
    return {"sets_found": n, "whole": whole, "clean": clean, "pure": both,
            "purity": round(both / n, 4) if n else None,
            "clusters_holding_sets": len(contents),
            "largest_cluster_holding": max((len(v) for v in contents.values()), default=0)}


def _median(counts):
    if not counts:
        return None
    half = sum(counts.values()) // 2
    seen = 0
    for v in sorted(counts):
        seen += counts[v]
        if seen > half:
            return v


def _ge(v, t):
    return v is not None and v >= t


# --------------------------------------------------------------------------
# report


def fmt(v, d=3):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{d}f}"
    return f"{v:,}"


def report(r, out=sys.stdout):
    w = lambda s="": print(s, file=out)
    w(f"# eval_scan: {r['results']} vs {r['corpus']}")
    w()
    w(f"{r['gold_lines']:,} gold pairs, {r['gold_cases']:,} cases; "
      f"{r['overall']['detections']:,} detections.")
    w("Per group, precision is over the detections that detect a case of that group. "
      "Recall is the PAN mean over cases; char recall is covered chars / case chars (not PAN).")
    w()
    w("| group | gold pairs | cand. recall | cases | detected | detections | precision | recall | granularity | plagdet | char recall |")
    w("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for g, x in r["groups"].items():
        name = f"**{g}**" if g == "all" else g
        w(f"| {name} | {fmt(x['gold_pairs'])} | {fmt(x['candidate_recall'])} | {fmt(x['cases'])} | "
          f"{fmt(x['cases_detected'])} | {fmt(x['detections'])} | {fmt(x['precision'])} | "
          f"{fmt(x['recall'])} | {fmt(x['granularity'])} | {fmt(x['plagdet'])} | {fmt(x['recall_chars'])} |")
    o = r["overall"]
    w()
    w("Overall, over all detections:")
    w()
    w("| | precision | recall | granularity | plagdet |")
    w("|---|--:|--:|--:|--:|")
    w(f"| all detections | {fmt(o['precision'])} | {fmt(o['recall'])} | {fmt(o['granularity'])} | {fmt(o['plagdet'])} |")
    w(f"| known reuse left out | {fmt(o['precision_excl_known'])} | {fmt(o['recall'])} | "
      f"{fmt(o['granularity'])} | {fmt(o['plagdet_excl_known'])} |")
    w()
    w("| detections | count | share | pairs | chars | median chars | scan kind |")
    w("|---|--:|--:|--:|--:|--:|---|")
    n = o["detections"] or 1
    labels = {
        "detecting": "detect a gold case",
        "known": "known reuse (not false)",
        "distractor": "distractor pair (false)",
        "other, gold pair": "other, on a gold pair (false)",
        "other": "other, no gold (false)",
    }
    for c, x in r["classes"].items():
        kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(x["by_scan_kind"].items()))
        w(f"| {labels[c]} | {x['detections']:,} | {x['detections'] / n:.3f} | {fmt(x['pairs'])} | "
          f"{x['chars']:,} | {fmt(x['median_chars'])} | {kinds} |")
    if o["empty_detections"]:
        w()
        w(f"{o['empty_detections']:,} detections have no characters.")

    def show(title, recs):
        if not recs:
            return
        w()
        w(title)
        w()
        for i, x in enumerate(recs, 1):
            w(f"{i}. {x['class']}: {x['a_doc']} {x['a']} ~ {x['b_doc']} {x['b']}, "
              f"{x['chars']:,} chars, scan kind {x['kind']}, score {x['score']}, {x['links']} links")
            w(f"   - a: {x['a_text']}")
            w(f"   - b: {x['b_text']}")

    show(f"Distractor-pair failures (largest {TOP_N}):", r["distractor_failures"])
    show(f"Largest {TOP_N} other false detections:", r["largest_false"])
    w()
    w("Targets: " + "; ".join(f"{k}: {'ok' if v else 'FAIL'}" for k, v in r["targets"].items()))
    s = r["seconds"]
    w(f"({s['total']} s: load {s['load']}, passages {s['stream']})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, help="gen_scan.py output directory")
    ap.add_argument("--results", required=True, help="`parallels scan -o` directory, or a passages.jsonl")
    ap.add_argument("--json", metavar="FILE", help="write all numbers here")
    args = ap.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):  # quiet exit when piped into head
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if not os.path.exists(os.path.join(args.corpus, "gold.jsonl")):
        sys.exit(f"{args.corpus}: no gold.jsonl")
    res = args.results
    if os.path.isdir(res):
        res = os.path.join(res, "passages.jsonl")
    if not os.path.exists(res):
        sys.exit(f"{res}: not found")
    r = score(args.corpus, res)
    report(r)
    if os.path.isdir(args.results):
        r["clusters"] = cluster_purity(args.corpus, args.results)
        c = r["clusters"]
        if c is not None:
            print()
            print(f"Cluster purity: {c['pure']} of {c['sets_found']} planted sets found are in one cluster "
                  f"holding nothing else ({fmt(c['purity'])}); {c['whole']} in one cluster, "
                  f"{c['clean']} in clusters holding nothing else.")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(r, f, ensure_ascii=False, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
