#!/usr/bin/env python3
"""Lever 1 of issue 48 checked: a local re-decision of each bead boundary
after the path is chosen, with the same bead scores.

    python3 tools/bead_weights/moves.py DUMP_DIR

For each pair of adjacent beads of the programme's path (null beads
included), every move of one sentence across their boundary on either side
is scored
with the same evidence; a move is kept when the two beads' total rises.
Printed: how many moves would be kept. The programme's path is the best
total over exactly these beads, so none should be. Needs numpy.
"""
import sys

import numpy as np

import fit


def main():
    docs = fit.load(sys.argv[1])
    p = dict(fit.DEFAULT)
    tried = kept = 0
    for d in docs:
        for reg in d["regions"]:
            s = fit.bead_scores(d, reg, p)
            skip = fit.skip_cost(s[:, d["shapes"].index((1, 1))], p)
            a0, _, b0, _ = reg["region"]
            rows = reg["rows"]
            offs = np.cumsum([0] + [hi - lo + 1 for lo, hi in rows])

            def score(a, b):
                """A bead's score (a, b: region-relative ranges), None
                when the band or the shapes cannot make it."""
                da, db = len(a), len(b)
                if da == 0 and db == 0:
                    return 0.0
                if da == 0 or db == 0:
                    return skip * (da + db)
                if (da, db) not in d["shapes"]:
                    return None
                i, j = a[-1] + 1, b[-1] + 1
                lo, hi = rows[i]
                if not lo <= j <= hi:
                    return None
                v = s[offs[i] + j - lo, d["shapes"].index((da, db))]
                return None if v == -np.inf else float(v)

            # The path with null beads, region relative.
            i = j = 0
            beads = sorted(fit.dp(d, reg, p))
            full = []
            for a, b in beads:
                ra, rb = [x - a0 for x in a], [y - b0 for y in b]
                full += [([x], []) for x in range(i, ra[0])] + [([], [y]) for y in range(j, rb[0])]
                full.append((ra, rb))
                i, j = ra[-1] + 1, rb[-1] + 1
            for (a1, b1), (a2, b2) in zip(full, full[1:]):
                base = (score(a1, b1) or 0.0) + (score(a2, b2) or 0.0)
                moves = []
                if a1:
                    moves.append((a1[:-1], b1, [a1[-1]] + a2, b2))
                if a2:
                    moves.append((a1 + [a2[0]], b1, a2[1:], b2))
                if b1:
                    moves.append((a1, b1[:-1], a2, [b1[-1]] + b2))
                if b2:
                    moves.append((a1, b1 + [b2[0]], a2, b2[1:]))
                for x1, y1, x2, y2 in moves:
                    u, v = score(x1, y1), score(x2, y2)
                    if u is None or v is None:
                        continue
                    tried += 1
                    if u + v > base + 1e-6:
                        kept += 1
    print("boundary moves tried", tried, "kept (total rises)", kept)


if __name__ == "__main__":
    main()
