#!/usr/bin/env python3
"""Fit the bead score's weights on the dev sets.

    bash tools/bead_weights/dump.sh DUMP_DIR            # OWN_TEXT=1: groups' own text too
    python3 tools/bead_weights/fit.py DUMP_DIR          # the frozen weights' scores
    python3 tools/bead_weights/fit.py DUMP_DIR w_dictionary=0.2 size=0 --search
    python3 tools/bead_weights/fit.py DUMP_DIR --search --parts   # the evidence's parts weighed apart
    python3 tools/bead_weights/fit.py DUMP_DIR own_window=2       # a second pass on own-text vectors
    python3 tools/bead_weights/fit.py DUMP_DIR one_to_many=5      # 1-n beads up to 5 (a dump with wider SHAPES)
    python3 tools/bead_weights/close.py DUMP_DIR                  # the binary: close beads on own text (OWN_TEXT dump)
    python3 tools/bead_weights/learn.py DUMP_DIR mode=search      # a learned bead score, one document held out
    python3 tools/bead_weights/moves.py DUMP_DIR                  # boundary re-decisions with the same scores

Needs numpy.

DUMP_DIR holds what `cargo run --release --example bead_features
--features tuning` wrote: per document `NAME.json` (the regions aligned
completely: band rows, shapes, per cell the evidence scores) and
`NAME.f32` (the scores as little-endian float32), and the gold beads
(`NAME.gold.json`). This script runs the bead programme of
`crates/parallels/src/align/beads.rs` again in numpy for any weights,
scores strict bead F1 (+null, the published convention, as the sets'
score.py count it) and searches the weights coordinate by coordinate.
Only dev sets are read; the weights it prints are frozen in
`align/evidence/mod.rs` and `align/beads.rs`.
"""
import json
import sys
from pathlib import Path

import numpy as np


def load(folder):
    docs = []
    for meta in sorted(Path(folder).glob("*.json")):
        if meta.name.endswith(".gold.json"):
            continue
        m = json.loads(meta.read_text())
        data = np.fromfile(meta.with_suffix(".f32"), dtype="<f4")
        gold = json.loads(meta.with_name(meta.stem + ".gold.json").read_text())
        own_path = meta.with_suffix(".own.f32")
        own = np.fromfile(own_path, dtype="<f4") if own_path.exists() else None
        regions = []
        at = at_own = 0
        for r in m["regions"]:
            rows = r["rows"]
            cells = sum(hi - lo + 1 for lo, hi in rows)
            k = cells * len(m["shapes"]) * len(m["features"])
            x = data[at:at + k].reshape(cells, len(m["shapes"]), len(m["features"]))
            at += k
            reg = dict(region=r["region"], rows=rows, x=x)
            if own is not None:
                k = cells * len(m["shapes"]) * 2
                o = own[at_own:at_own + k].reshape(cells, len(m["shapes"]), 2)
                at_own += k
                reg["own"] = o[:, :, 0] - o[:, :, 1]
            regions.append(reg)
        docs.append(dict(name=meta.stem, n=m["n"], m=m["m"], shapes=[tuple(s) for s in m["shapes"]],
                         features=m["features"], regions=regions, outside=[tuple(map(tuple, b)) for b in m["outside"]],
                         gold=[(tuple(a), tuple(b)) for a, b in gold]))
    return docs


def bead_scores(doc, reg, p, own=False):
    """Score of every (cell, shape): the weighted sum of the features
    (with `own`, meaning from the groups' own text)."""
    x = reg["x"]
    f = doc["features"]
    w = np.zeros(len(f), dtype=np.float32)
    for k, name in enumerate(f):
        w[k] = p.get("w_" + name, 0.0)
    x0 = np.where(np.isnan(x), 0.0, x)
    if own and "own" in reg:
        x0 = x0.copy()
        x0[:, :, f.index("meaning")] = np.where(np.isnan(reg["own"]), 0.0, reg["own"])
    s = np.einsum("csf,f->cs", x0, w)
    invalid = np.isnan(x[:, :, 0])
    size = np.array([da + db for da, db in doc["shapes"]], dtype=np.float32)
    s = s - p.get("size", 0.0) * (size - 2)
    two_two = np.array([1.0 if (da, db) == (2, 2) else 0.0 for da, db in doc["shapes"]], dtype=np.float32)
    s = s - p.get("two_two", 0.0) * two_two
    # A price per shape class, either way round (`shape_1_2` for 1-2 and 2-1).
    cls = np.array([p.get("shape_%d_%d" % (min(da, db), max(da, db)), 0.0) for da, db in doc["shapes"]], dtype=np.float32)
    s = s - cls
    # With `one_to_many` (a count), 1-n and n-1 beads of up to that many
    # sentences on the long side besides the shapes above.
    big = np.array([(max(da, db) > p.get("max_side", 4) or da + db > p.get("max_bead", 5))
                    and not (min(da, db) == 1 and max(da, db) <= p.get("one_to_many", 0))
                    for da, db in doc["shapes"]])
    s[:, big] = -np.inf
    s[invalid] = -np.inf
    return s


def skip_cost(s11, p):
    if "skip_pct" in p:
        finite = s11[np.isfinite(s11)]
        if len(finite):
            return float(np.percentile(finite, p["skip_pct"])) + p.get("skip", 0.0)
    return p.get("skip", -0.1)


def dp(doc, reg, p):
    """The bead programme; with `own_window` a second pass as well: beads
    within that many sentences of the first path scored with the groups'
    own text, the rest left out."""
    first = dp_once(doc, reg, p, bead_scores(doc, reg, p))
    if "own_window" not in p or "own" not in reg:
        return first
    s = bead_scores(doc, reg, p, own=True)
    a0, b0 = reg["region"][0], reg["region"][2]
    rows = reg["rows"]
    n = len(rows) - 1
    # The path's B range at each A boundary i (region relative).
    lo_at = [None] * (n + 1)
    hi_at = [None] * (n + 1)
    i = j = 0
    lo_at[0] = hi_at[0] = 0
    for a, b in first:
        ai, bj = a[0] - a0, b[0] - b0
        for ii in range(i, ai + 1):
            lo_at[ii] = min(x for x in [lo_at[ii], j] if x is not None)
            hi_at[ii] = max(x for x in [hi_at[ii], bj] if x is not None)
        i, j = a[-1] + 1 - a0, b[-1] + 1 - b0
        lo_at[i] = min(x for x in [lo_at[i], bj] if x is not None)
        hi_at[i] = max(x for x in [hi_at[i], j] if x is not None)
    for ii in range(i, n + 1):
        lo_at[ii] = min(x for x in [lo_at[ii], j] if x is not None)
        hi_at[ii] = reg["region"][3] - b0
    w = int(p["own_window"])
    offs = 0
    for ii, (lo, hi) in enumerate(rows):
        for jj in range(lo, hi + 1):
            near = any(lo_at[k] is not None and lo_at[k] - w <= jj <= hi_at[k] + w
                       for k in range(max(0, ii - w), min(n, ii + w) + 1))
            if not near:
                s[offs] = -np.inf
            offs += 1
    return dp_once(doc, reg, p, s)


def dp_once(doc, reg, p, s):
    a0, a1, b0, b1 = reg["region"]
    n, m = a1 - a0, b1 - b0
    rows = reg["rows"]
    shapes = doc["shapes"]
    i11 = shapes.index((1, 1))
    skip = skip_cost(s[:, i11], p)
    offs = [0]
    for lo, hi in rows:
        offs.append(offs[-1] + hi - lo + 1)
    NEG = -np.inf
    h = [None] * (n + 1)
    how = [None] * (n + 1)

    def get(i, j):
        lo, hi = rows[i]
        if j < lo or j > hi:
            return NEG
        return h[i][j - lo]
    for i in range(n + 1):
        lo, hi = rows[i]
        row = [NEG] * (hi - lo + 1)
        hrow = [-1] * (hi - lo + 1)
        for j in range(lo, hi + 1):
            k = j - lo
            if i == 0 and j == 0:
                row[k] = 0.0
                continue
            best, b = NEG, -1
            if i > 0:
                v = get(i - 1, j) + skip
                if v > best:
                    best, b = v, 100
            if j > 0 and j > lo:
                v = row[k - 1] + skip
                if v > best:
                    best, b = v, 101
            cell = s[offs[i] + k]
            for si, (da, db) in enumerate(shapes):
                if da > i or db > j:
                    continue
                sc = cell[si]
                if sc == NEG or sc != sc:
                    continue
                before = get(i - da, j - db)
                if before == NEG:
                    continue
                if before + sc > best:
                    best, b = before + sc, si
            row[k] = best
            hrow[k] = b
        h[i] = row
        how[i] = hrow
    beads = []
    i, j = n, m
    while i > 0 or j > 0:
        lo = rows[i][0]
        b = how[i][j - lo]
        if b == 100:
            da, db = 1, 0
        elif b == 101:
            da, db = 0, 1
        else:
            da, db = shapes[b]
        if da and db:
            beads.append((tuple(range(a0 + i - da, a0 + i)), tuple(range(b0 + j - db, b0 + j))))
        i -= da
        j -= db
    return beads


def score(docs, p, per_doc=False):
    tot = dict(pred=0, gold=0, pred_null=0, strict_p=0, strict_r=0, null_hits=0)
    out = {}
    for d in docs:
        beads = list(d["outside"])
        for reg in d["regions"]:
            beads += dp(d, reg, p)
        used_a = {i for a, _ in beads for i in a}
        used_b = {j for _, b in beads for j in b}
        nulls = [((i,), ()) for i in range(d["n"]) if i not in used_a] + [((), (j,)) for j in range(d["m"]) if j not in used_b]
        gold = d["gold"]
        gold_nn = [b for b in gold if b[0] and b[1]]
        gold_null = {b for b in gold if not (b[0] and b[1])}
        gset, pset = set(gold_nn), set(beads)
        c = dict(pred=len(beads), gold=len(gold_nn), pred_null=len(nulls),
                 strict_p=sum(1 for b in beads if b in gset), strict_r=sum(1 for b in gold_nn if b in pset),
                 null_hits=sum(1 for b in nulls if b in gold_null))
        for k in tot:
            tot[k] += c[k]
        out[d["name"]] = f1(c)
    return (f1(tot), out) if per_doc else f1(tot)


def f1(c):
    n = c["pred"] + c["pred_null"]
    p = (c["strict_p"] + c["null_hits"]) / n if n else 0
    r = c["strict_r"] / c["gold"] if c["gold"] else 0
    return 2 * p * r / (p + r) if p + r else 0


# The weights fitted here and frozen in align/evidence/mod.rs (WEIGHTS) and
# align/beads.rs (SIZE, TWO_TWO, NULL_PERCENTILE, NULL_OFFSET), as they were
# before the second look at close beads; the binary now weighs the
# dictionary 0.1 and looks again at close beads: close.py reproduces it. Parameters: w_NAME, the
# weight of a feature; skip (a null bead's score) or skip_pct (its
# percentile of the region's 1-1 scores, skip added); size (price per
# sentence beyond two); two_two; shape_D_E (a price per shape class);
# max_side, max_bead (the shapes allowed); own_window.
DEFAULT = {"w_meaning": 1.0, "w_length": 0.1, "w_dictionary": 0.13, "skip": -0.1, "size": -0.01}


def objective(sets, p):
    # Mean over the sets (mac-dev chapters pooled, textberg-dev), so that
    # neither language pair decides alone.
    return sum(score(docs, p) for docs in sets.values()) / len(sets)


def search(sets, p, grid):
    best = objective(sets, p)
    print("start", round(best, 4), p, flush=True)
    for rnd in range(3):
        improved = False
        for key, values in grid.items():
            for v in values:
                q = dict(p)
                q[key] = v
                o = objective(sets, q)
                if o > best + 1e-6:
                    best, p, improved = o, q, True
                    print(f"  {key}={v}: {o:.4f}", {k: round(x, 4) for k, x in p.items()}, flush=True)
        if not improved:
            break
    return p, best


def main():
    folder = sys.argv[1]
    docs = load(folder)
    sets = {}
    for d in docs:
        sets.setdefault(d["name"].split("-")[0], []).append(d)
    p = dict(DEFAULT)
    for arg in sys.argv[2:]:
        if "=" in arg and not arg.startswith("--"):
            k, v = arg.split("=")
            p[k] = float(v)
    for name, ds in sets.items():
        tot, per = score(ds, p, per_doc=True)
        print(name, round(tot, 4), {k: round(v, 3) for k, v in per.items()})
    if "--search" in sys.argv:
        grid = {
            "w_dictionary": [0.0, 0.03, 0.05, 0.07, 0.1, 0.13, 0.16, 0.2, 0.3],
            "w_length": [0.05, 0.07, 0.1, 0.13, 0.16, 0.2, 0.25, 0.3, 0.4],
            "skip": [-0.2, -0.15, -0.12, -0.1, -0.08, -0.06, -0.04, -0.02, 0.0],
            "size": [-0.02, -0.01, 0.0, 0.01, 0.02, 0.04],
            "two_two": [-0.05, 0.0, 0.05, 0.1, 0.2],
        }
        for arg in sys.argv[2:]:
            if arg.startswith("--only="):
                keep = arg[len("--only="):].split(",")
                grid = {k: v for k, v in grid.items() if k in keep}
        if "--shapes" in sys.argv:
            v = [-0.06, -0.04, -0.02, 0.0, 0.02, 0.04, 0.06, 0.1]
            grid = {"shape_1_2": v, "shape_1_3": v, "shape_2_2": v, "shape_1_4": v, "shape_2_3": v,
                    "skip": [-0.14, -0.12, -0.1, -0.08, -0.06]}
        if "--parts" in sys.argv:
            grid = {
                "w_meaning.cos": [0.6, 0.8, 0.9, 1.0, 1.1, 1.2, 1.4],
                "w_meaning.chance": [-1.4, -1.2, -1.1, -1.0, -0.9, -0.8, -0.6, -0.4],
                "w_dictionary.source": [0.0, 0.03, 0.06, 0.1, 0.13, 0.16, 0.2, 0.25],
                "w_dictionary.target": [0.0, 0.03, 0.06, 0.1, 0.13, 0.16, 0.2, 0.25],
                "w_length": [0.05, 0.07, 0.1, 0.13, 0.16, 0.2],
                "skip": [-0.2, -0.15, -0.12, -0.1, -0.08, -0.06, -0.04],
                "size": [-0.03, -0.02, -0.01, 0.0, 0.01, 0.02],
                "two_two": [-0.05, 0.0, 0.05, 0.1],
            }
        for k in list(grid):
            if k.startswith("w_") and k[2:] not in docs[0]["features"]:
                del grid[k]
        p, best = search(sets, p, grid)
        for name, ds in sets.items():
            tot, per = score(ds, p, per_doc=True)
            print(name, round(tot, 4), {k: round(v, 3) for k, v in per.items()})
        print("best", round(best, 4), p)


if __name__ == "__main__":
    main()
