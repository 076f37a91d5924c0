#!/usr/bin/env python3
"""Own-text group vectors only where the bead decision is close.

    OWN_TEXT=1 bash tools/bead_weights/dump.sh DUMP_DIR
    python3 tools/bead_weights/close.py DUMP_DIR [margin=0.02] [w_dictionary=0.1 ...] [own_offset=0]

With no options: what the binary does (`beads::CLOSE` 0.02, the
dictionary at 0.1); it reproduces the binary's strict F1 per chapter.

For each region the bead programme runs forward and backward, which gives
every bead of the band the best total of a path through it (its max-
marginal). A multi-sentence bead whose max-marginal comes within `margin`
of the best path's total is *competitive*: only those are scored again with
the vectors of each group's own text (the dump's `.own.f32`), and the
programme runs again. Printed: strict F1 (+null) per set, and how many
multi-sentence groups (per side, distinct) would be encoded from their own
text, against the count of fit.py's `own_window=2` (every bead within two
sentences of the first path). Only dev sets are read. Needs numpy.
"""
import sys

import numpy as np

import fit

NEG = -np.inf


def tables(doc, reg, s, skip):
    """Forward and backward totals of the bead programme (lists of rows)."""
    a0, a1, b0, b1 = reg["region"]
    n = a1 - a0
    rows = reg["rows"]
    shapes = doc["shapes"]
    offs = [0]
    for lo, hi in rows:
        offs.append(offs[-1] + hi - lo + 1)

    def get(t, i, j):
        if i < 0 or i > n:
            return NEG
        lo, hi = rows[i]
        return t[i][j - lo] if lo <= j <= hi else NEG

    fwd = [None] * (n + 1)
    for i in range(n + 1):
        lo, hi = rows[i]
        row = [NEG] * (hi - lo + 1)
        fwd[i] = row
        for j in range(lo, hi + 1):
            if i == 0 and j == 0:
                row[0] = 0.0
                continue
            best = max(get(fwd, i - 1, j) + skip, (row[j - lo - 1] if j > lo else NEG) + skip)
            cell = s[offs[i] + j - lo]
            for k, (da, db) in enumerate(shapes):
                if da <= i and db <= j and cell[k] != NEG:
                    best = max(best, get(fwd, i - da, j - db) + cell[k])
            row[j - lo] = best
    bwd = [None] * (n + 1)
    m_end = rows[n][1]
    for i in range(n, -1, -1):
        lo, hi = rows[i]
        row = [NEG] * (hi - lo + 1)
        bwd[i] = row
        for j in range(hi, lo - 1, -1):
            if i == n and j == m_end:
                row[j - lo] = 0.0
                continue
            best = max(get(bwd, i + 1, j) + skip, (row[j - lo + 1] if j < hi else NEG) + skip)
            for k, (da, db) in enumerate(shapes):
                ii, jj = i + da, j + db
                if ii > n:
                    continue
                lo2, hi2 = rows[ii]
                if not lo2 <= jj <= hi2:
                    continue
                v = s[offs[ii] + jj - lo2][k]
                if v != NEG:
                    best = max(best, v + bwd[ii][jj - lo2])
            row[j - lo] = best
    return fwd, bwd, offs


def close_pass(doc, reg, p, margin):
    s = fit.bead_scores(doc, reg, p)
    if "own" not in reg:
        return fit.dp_once(doc, reg, p, s), set()
    own = fit.bead_scores(doc, reg, p, own=True)
    skip = fit.skip_cost(s[:, doc["shapes"].index((1, 1))], p)
    fwd, bwd, offs = tables(doc, reg, s, skip)
    n = len(reg["rows"]) - 1
    opt = fwd[n][-1]
    s2 = s.copy()
    groups = set()
    a0, b0 = reg["region"][0], reg["region"][2]
    for i, (lo, hi) in enumerate(reg["rows"]):
        for j in range(lo, hi + 1):
            c = offs[i] + j - lo
            for k, (da, db) in enumerate(doc["shapes"]):
                if da + db <= 2 or s[c, k] == NEG or da > i:
                    continue
                plo, phi = reg["rows"][i - da]
                if not plo <= j - db <= phi:
                    continue
                mm = fwd[i - da][j - db - plo] + s[c, k] + bwd[i][j - lo]
                if opt - mm <= margin:
                    s2[c, k] = own[c, k] + p.get("own_offset", 0.0)
                    if da > 1:
                        groups.add((0, a0 + i - da, da))
                    if db > 1:
                        groups.add((1, b0 + j - db, db))
    return fit.dp_once(doc, reg, p, s2), groups


def window_groups(doc, reg, p):
    """Groups fit.py's own_window=2 encodes: multi-sentence groups of the
    beads it rescores (within two sentences of the first path)."""
    q = dict(p)
    q["own_window"] = 2
    s = fit.bead_scores(doc, reg, q)
    first = fit.dp_once(doc, reg, q, s)
    near_a = {i for a, _ in first for x in a for i in range(x - 2, x + 3)}
    near_b = {j for _, b in first for y in b for j in range(y - 2, y + 3)}
    out = set()
    a0, b0 = reg["region"][0], reg["region"][2]
    for i, (lo, hi) in enumerate(reg["rows"]):
        for j in range(lo, hi + 1):
            for k, (da, db) in enumerate(doc["shapes"]):
                if da + db <= 2 or da > i or db > j:
                    continue
                if a0 + i - 1 in near_a and b0 + j - 1 in near_b:
                    if da > 1:
                        out.add((0, a0 + i - da, da))
                    if db > 1:
                        out.add((1, b0 + j - db, db))
    return out


def main():
    docs = fit.load(sys.argv[1])
    # The binary's weights: fit.py's, the dictionary at 0.1, CLOSE 0.02.
    p = dict(fit.DEFAULT, w_dictionary=0.1)
    margin = 0.02
    for arg in sys.argv[2:]:
        k, v = arg.split("=")
        if k == "margin":
            margin = float(v)
        else:
            p[k] = float(v)
    sets = {}
    for d in docs:
        c = dict(pred=0, gold=0, pred_null=0, strict_p=0, strict_r=0, null_hits=0)
        beads = list(d["outside"])
        ng = nw = 0
        for reg in d["regions"]:
            b, g = close_pass(d, reg, p, margin)
            beads += b
            ng += len(g)
            nw += len(window_groups(d, reg, p))
        used_a = {i for a, _ in beads for i in a}
        used_b = {j for _, b in beads for j in b}
        nulls = [((i,), ()) for i in range(d["n"]) if i not in used_a] + [((), (j,)) for j in range(d["m"]) if j not in used_b]
        gold_nn = [b for b in d["gold"] if b[0] and b[1]]
        gold_null = {b for b in d["gold"] if not (b[0] and b[1])}
        gset, pset = set(gold_nn), set(beads)
        c = dict(pred=len(beads), gold=len(gold_nn), pred_null=len(nulls),
                 strict_p=sum(1 for b in beads if b in gset), strict_r=sum(1 for b in gold_nn if b in pset),
                 null_hits=sum(1 for b in nulls if b in gold_null))
        agg = sets.setdefault(d["name"].split("-")[0], dict({k: 0 for k in c}, groups=0, window=0, sentences=0))
        for k in c:
            agg[k] += c[k]
        agg["groups"] += ng
        agg["window"] += nw
        agg["sentences"] += d["n"] + d["m"]
        print(d["name"], round(fit.f1(c), 3), "groups", ng, "window groups", nw, flush=True)
    for name, a in sets.items():
        print(name, round(fit.f1(a), 4), "own-text groups", a["groups"], "(window 2:", a["window"], ") sentences", a["sentences"])


if __name__ == "__main__":
    main()
