#!/usr/bin/env python3
"""A learned bead score: a structured perceptron over bead features,
cross-validated across the dev documents.

    bash tools/bead_weights/dump.sh DUMP_DIR
    python3 tools/bead_weights/learn.py DUMP_DIR [--features NAMES] [--epochs K]

Reads what `dump.sh` wrote (see fit.py), builds per candidate bead of each
region's band a feature vector (the evidence the binary weighs, the shape,
the shape crossed with the evidence, and features of the bead's parts: how
well its weakest sentence fits the other side, what the bead gains over its
best smaller bead), and learns one weight per feature with an averaged
structured perceptron (Collins 2002): decode each region with the bead
programme under the current weights, add the features of the gold beads the
programme missed, take away those of the beads it made wrongly. Started
from the frozen weights (fit.py's DEFAULT).

Reported: strict F1 (+null) of the frozen weights and, per document, of the
weights learned on the *other* documents (leave one document out: six
mac-dev chapters and textberg-dev), pooled per set. Only dev sets are read.
Needs numpy.
"""
import sys

import numpy as np

from fit import DEFAULT, f1, load

NEG = -np.inf


def classes(shapes):
    """Shape class per shape, either way round: '1_1', '1_2', ..."""
    return ["%d_%d" % (min(a, b), max(a, b)) for a, b in shapes]


def build(doc, reg, groups):
    """Per (cell, shape) the feature matrix (cells, shapes, F) and its
    names; per region sentence, the null features."""
    x = reg["x"]
    f = doc["features"]
    shapes = doc["shapes"]
    cls = classes(shapes)
    kinds = sorted(set(cls) - {"1_1"})
    rows = reg["rows"]
    a0, a1, b0, b1 = reg["region"]
    n, m = a1 - a0, b1 - b0
    cells, S, _ = x.shape
    x0 = np.where(np.isnan(x), 0.0, x)
    valid = ~np.isnan(x[:, :, 0])
    # Cell coordinates.
    ii = np.concatenate([np.full(hi - lo + 1, i) for i, (lo, hi) in enumerate(rows)])
    jj = np.concatenate([np.arange(lo, hi + 1) for lo, hi in rows])
    offs = np.cumsum([0] + [hi - lo + 1 for lo, hi in rows])

    def cell(i, j):
        if i < 0 or i > n:
            return -1
        lo, hi = rows[i]
        if j < lo or j > hi:
            return -1
        return offs[i] + j - lo

    names = []
    cols = []

    def add(name, v):
        names.append(name)
        cols.append(v.astype(np.float32))

    base = {k: x0[:, :, f.index(k)] for k in ("meaning", "length", "dictionary") if k in f}
    for k, v in base.items():
        add(k, v)
    onehot = {c: np.array([1.0 if cc == c else 0.0 for cc in cls], dtype=np.float32) for c in kinds}
    if "shape" in groups:
        for c in kinds:
            add("shape." + c, np.broadcast_to(onehot[c], (cells, S)))
    if "cross" in groups:
        for c in kinds:
            for k in ("meaning", "dictionary"):
                if k in base:
                    add(k + "x" + c, base[k] * onehot[c])
    if "parts" in groups or "gain" in groups:
        # 1-1 meaning of every sentence pair in the band (region relative).
        i11 = shapes.index((1, 1))
        m11 = {}
        mi = f.index("meaning")
        for c in range(cells):
            if valid[c, i11]:
                m11[(ii[c] - 1, jj[c] - 1)] = x[c, i11, mi]
        weakest = np.zeros((cells, S), dtype=np.float32)
        spread = np.zeros((cells, S), dtype=np.float32)
        gain = np.zeros((cells, S), dtype=np.float32)
        for c in range(cells):
            i, j = ii[c], jj[c]
            for s, (da, db) in enumerate(shapes):
                if not valid[c, s] or da + db == 2:
                    continue
                A = range(i - da, i)
                B = range(j - db, j)
                best = []
                for a in A:
                    best.append(max(m11.get((a, b), -0.5) for b in B))
                for b in B:
                    best.append(max(m11.get((a, b), -0.5) for a in A))
                weakest[c, s] = min(best) - x0[c, s, mi]
                spread[c, s] = max(best) - min(best)
                # Best smaller bead inside: one sentence fewer at either end.
                subs = []
                for ea, eb, dda, ddb in ((0, 0, 1, 0), (1, 0, 1, 0), (0, 0, 0, 1), (0, 1, 0, 1)):
                    na, nb = da - dda, db - ddb
                    if na < 1 or nb < 1 or (na, nb) not in shapes:
                        continue
                    # The sub-bead ends at (i - ea*?, ...): dropping the last
                    # sentence moves the end; dropping the first keeps it.
                    ei = i - (1 if (dda and not ea) else 0)
                    ej = j - (1 if (ddb and not eb) else 0)
                    k = cell(ei, ej)
                    if k >= 0:
                        sv = x0[k, shapes.index((na, nb)), mi]
                        if valid[k, shapes.index((na, nb))]:
                            subs.append(sv)
                gain[c, s] = x0[c, s, mi] - (max(subs) if subs else x0[c, s, mi])
        if "parts" in groups:
            add("weakest", weakest)
            add("spread", spread)
        if "gain" in groups:
            add("gain", gain)
    F = np.stack(cols, axis=-1)
    F[~valid] = 0.0
    # Null features per sentence: a constant, and (with "nullbest") the
    # sentence's best 1-1 meaning in the band.
    null_names = ["null"]
    na = [np.ones(n, dtype=np.float32)]
    nb = [np.ones(m, dtype=np.float32)]
    if "nullbest" in groups:
        i11 = shapes.index((1, 1))
        mi = f.index("meaning")
        ba = np.full(n, -0.5, dtype=np.float32)
        bb = np.full(m, -0.5, dtype=np.float32)
        for c in range(cells):
            if valid[c, i11]:
                v = x[c, i11, mi]
                ba[ii[c] - 1] = max(ba[ii[c] - 1], v)
                bb[jj[c] - 1] = max(bb[jj[c] - 1], v)
        null_names.append("null.best")
        na.append(ba)
        nb.append(bb)
    return dict(F=F, valid=valid, names=names, null_names=null_names,
                NA=np.stack(na, -1), NB=np.stack(nb, -1), offs=offs)


def decode(doc, reg, feat, w, wn, max_side=4, max_bead=5):
    """The bead programme under weights `w` (bead features) and `wn` (null
    features); returns the beads, null beads included, as
    ((a...), (b...)) whole-text indices."""
    shapes = doc["shapes"]
    s = feat["F"] @ w
    s[~feat["valid"]] = NEG
    for k, (da, db) in enumerate(shapes):
        if max(da, db) > max_side or da + db > max_bead:
            s[:, k] = NEG
    skip_a = feat["NA"] @ wn
    skip_b = feat["NB"] @ wn
    a0, a1, b0, b1 = reg["region"]
    n, m = a1 - a0, b1 - b0
    rows = reg["rows"]
    offs = feat["offs"]
    h = []
    how = []
    for i in range(n + 1):
        lo, hi = rows[i]
        L = hi - lo + 1
        base = np.full(L, NEG)
        bhow = np.full(L, -1, dtype=np.int64)
        if i == 0 and lo == 0:
            base[0] = 0.0
            bhow[0] = -2
        if i > 0:
            plo, phi = rows[i - 1]
            x, y = max(lo, plo), min(hi, phi)
            if x <= y:
                v = h[i - 1][x - plo:y - plo + 1] + skip_a[i - 1]
                seg = base[x - lo:y - lo + 1]
                better = v > seg
                seg[better] = v[better]
                bhow[x - lo:y - lo + 1][better] = 100
        srow = s[offs[i]:offs[i] + L]
        for k, (da, db) in enumerate(shapes):
            if da > i:
                continue
            plo, phi = rows[i - da]
            # j - db in [plo, phi] and j in [lo, hi], j >= db.
            x, y = max(lo, plo + db, db), min(hi, phi + db)
            if x > y:
                continue
            v = h[i - da][x - db - plo:y - db - plo + 1] + srow[x - lo:y - lo + 1, k]
            seg = base[x - lo:y - lo + 1]
            better = v > seg
            seg[better] = v[better]
            bhow[x - lo:y - lo + 1][better] = k
        # Null beads of B along the row: row[k] = max(base[k], row[k-1] + skip_b[j-1]).
        js = np.arange(lo, hi + 1)
        c = np.concatenate([[0.0], np.cumsum(skip_b[js[1:] - 1])]) if L > 1 else np.zeros(1)
        t = base - c
        cm = np.maximum.accumulate(t)
        row = cm + c
        from_chain = row > base + 1e-12
        hw = bhow.copy()
        hw[from_chain] = 101
        h.append(row)
        how.append(hw)
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
        beads.append((tuple(range(a0 + i - da, a0 + i)), tuple(range(b0 + j - db, b0 + j))))
        i -= da
        j -= db
    return beads


def phi(doc, reg, feat, bead):
    """Features of one bead (None when the band cannot make it)."""
    a0, a1, b0, b1 = reg["region"]
    a, b = bead
    nf, nn = feat["F"].shape[-1], feat["NA"].shape[-1]
    if not a or not b:
        v = np.zeros(nf + nn, dtype=np.float32)
        v[nf:] = feat["NA"][a[0] - a0] if a else feat["NB"][b[0] - b0]
        return v
    shape = (len(a), len(b))
    if shape not in doc["shapes"]:
        return None
    i, j = a[-1] + 1 - a0, b[-1] + 1 - b0
    lo, hi = reg["rows"][i]
    if j < lo or j > hi:
        return None
    c = feat["offs"][i] + j - lo
    s = doc["shapes"].index(shape)
    if not feat["valid"][c, s]:
        return None
    v = np.zeros(nf + nn, dtype=np.float32)
    v[:nf] = feat["F"][c, s]
    return v


def region_gold(doc, reg):
    a0, a1, b0, b1 = reg["region"]
    inside = lambda bead: all(a0 <= x < a1 for x in bead[0]) and all(b0 <= y < b1 for y in bead[1])
    return [g for g in doc["gold"] if (g[0] or g[1]) and inside(g)]


def prepare(docs, groups):
    for d in docs:
        for reg in d["regions"]:
            reg["feat"] = build(d, reg, groups)
            gold = region_gold(d, reg)
            reg["gold"] = set(gold)
            blocked_a, blocked_b = set(), set()
            phis = {}
            for g in gold:
                v = phi(d, reg, reg["feat"], g)
                if v is None:
                    blocked_a.update(g[0])
                    blocked_b.update(g[1])
                else:
                    phis[g] = v
            reg["gold_phi"] = phis
            reg["blocked"] = (blocked_a, blocked_b)


def start_weights(names, null_names):
    w = np.zeros(len(names), dtype=np.float64)
    for k, name in enumerate(names):
        w[k] = DEFAULT.get("w_" + name, 0.0)
        if name.startswith("shape."):
            da, db = map(int, name[6:].split("_"))
            w[k] = -DEFAULT["size"] * (da + db - 2)
    wn = np.zeros(len(null_names))
    wn[0] = DEFAULT["skip"]
    return np.concatenate([w, wn])


def train(docs, epochs, lr, seed=0):
    feat0 = docs[0]["regions"][0]["feat"]
    nf = len(feat0["names"])
    w = start_weights(feat0["names"], feat0["null_names"])
    total = np.zeros_like(w)
    count = 0
    rng = np.random.default_rng(seed)
    items = [(d, r) for d in docs for r in d["regions"]]
    for _ in range(epochs):
        rng.shuffle(items)
        for d, reg in items:
            pred = decode(d, reg, reg["feat"], w[:nf], w[nf:])
            ba, bb = reg["blocked"]
            touches = lambda bead: any(x in ba for x in bead[0]) or any(y in bb for y in bead[1])
            delta = np.zeros_like(w)
            pset = set(pred)
            for g, v in reg["gold_phi"].items():
                if g not in pset:
                    delta += v
            for p in pred:
                if p in reg["gold"] or touches(p):
                    continue
                v = phi(d, reg, reg["feat"], p)
                if v is not None:
                    delta -= v
            w = w + lr * delta
            total += w
            count += 1
    return total / count


def objective(docs, w):
    """Mean strict F1 over the sets present (mac-dev chapters pooled,
    textberg-dev), as fit.py weighs them."""
    v = pooled(docs, {d["name"]: w for d in docs})
    return sum(v.values()) / len(v)


STEPS = [-0.1, -0.05, -0.02, -0.01, 0.01, 0.02, 0.05, 0.1]


def search(docs, rounds=2, keys=None):
    """Coordinate search on strict F1 itself, from the frozen weights: each
    weight moved by each of STEPS in turn, a move kept when it helps."""
    feat0 = docs[0]["regions"][0]["feat"]
    names = feat0["names"] + feat0["null_names"]
    w = start_weights(feat0["names"], feat0["null_names"])
    best = objective(docs, w)
    for _ in range(rounds):
        improved = False
        for k, name in enumerate(names):
            if keys is not None and name not in keys:
                continue
            for step in STEPS:
                q = w.copy()
                q[k] += step
                o = objective(docs, q)
                if o > best + 1e-6:
                    best, w, improved = o, q, True
        if not improved:
            break
    return w


def evaluate(docs, w):
    tot = dict(pred=0, gold=0, pred_null=0, strict_p=0, strict_r=0, null_hits=0)
    per = {}
    for d in docs:
        c = doc_counts(d, w)
        per[d["name"]] = f1(c)
        for k in tot:
            tot[k] += c[k]
    return f1(tot), per


def doc_counts(d, w):
    nf = len(d["regions"][0]["feat"]["names"]) if d["regions"] else 0
    beads = list(d["outside"])
    for reg in d["regions"]:
        beads += [b for b in decode(d, reg, reg["feat"], w[:nf], w[nf:]) if b[0] and b[1]]
    used_a = {i for a, _ in beads for i in a}
    used_b = {j for _, b in beads for j in b}
    nulls = [((i,), ()) for i in range(d["n"]) if i not in used_a] + [((), (j,)) for j in range(d["m"]) if j not in used_b]
    gold = d["gold"]
    gold_nn = [b for b in gold if b[0] and b[1]]
    gold_null = {b for b in gold if not (b[0] and b[1])}
    gset, pset = set(gold_nn), set(beads)
    return dict(pred=len(beads), gold=len(gold_nn), pred_null=len(nulls),
                strict_p=sum(1 for b in beads if b in gset), strict_r=sum(1 for b in gold_nn if b in pset),
                null_hits=sum(1 for b in nulls if b in gold_null))


def pooled(docs, ws):
    """Strict F1 per set, each document decoded with its own weights."""
    sets = {}
    for d in docs:
        c = doc_counts(d, ws[d["name"]])
        s = sets.setdefault(d["name"].split("-")[0], dict(pred=0, gold=0, pred_null=0, strict_p=0, strict_r=0, null_hits=0))
        for k in s:
            s[k] += c[k]
    return {k: round(f1(v), 4) for k, v in sets.items()}


def main():
    folder = sys.argv[1]
    args = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
    groups = set(args.get("groups", "shape,cross,parts,gain,nullbest").split(","))
    epochs = int(args.get("epochs", 5))
    lr = float(args.get("lr", 0.01))
    docs = load(folder)
    prepare(docs, groups)
    names = docs[0]["regions"][0]["feat"]["names"] + docs[0]["regions"][0]["feat"]["null_names"]
    w0 = start_weights(docs[0]["regions"][0]["feat"]["names"], docs[0]["regions"][0]["feat"]["null_names"])
    print("features", names)
    print("frozen", pooled(docs, {d["name"]: w0 for d in docs}), flush=True)
    fit_ = (lambda ds: search(ds, rounds=int(args.get("rounds", 2)))) if args.get("mode") == "search" \
        else (lambda ds: train(ds, epochs, lr))
    wall = fit_(docs)
    print("trained on all (seen)", pooled(docs, {d["name"]: wall for d in docs}))
    print("weights", {n: round(float(v), 4) for n, v in zip(names, wall)}, flush=True)
    held = {}
    for d in docs:
        rest = [e for e in docs if e is not d]
        held[d["name"]] = fit_(rest)
    print("held out (leave one document out)", pooled(docs, held))
    print("per document held out", {d["name"]: round(f1(doc_counts(d, held[d["name"]])), 3) for d in docs})


if __name__ == "__main__":
    main()
