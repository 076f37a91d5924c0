//! Complete alignment inside a parallel region: beads.
//!
//! Chains ([`super::parallel`], [`super::meaning`]) say *where* two texts
//! are versions of one another; inside such a region a reader expects every
//! sentence accounted for — linked in a group of up to five sentences, or
//! marked as added or left out. This module does that, as the field's
//! sentence aligners do (Gale–Church, Bertalign, Vecalign), but only
//! between the region's ends: outside them "nothing shared" stays a normal
//! answer.
//!
//! # Model
//!
//! A *bead* takes `da` consecutive sentences of A and `db` of B, with
//! `da + db ≤ 5`, `da, db ≤ 4` ([`SHAPES`]), or one sentence of one side
//! alone (1-0, 0-1: a sentence without counterpart). A linked bead earns
//!
//! ```text
//! cos(A-group, B-group) − (r(A-group) + r(B-group)) / 2 − LENGTH · δ² / 2
//! ```
//!
//! where the cosine is that of the sentence vectors of the two groups *as
//! one text each* (a sentence a translator split in two reads as one
//! again; the vector comes from the sentences' pooled encoder rows added
//! up, `Meaning::region_groups`), `r(x)` is the mean cosine
//! of `x` against a sample of the other side's sentences (what a group
//! earns by chance — long groups and generic lines earn more, so this
//! normalization, Vecalign's, keeps them from absorbing their neighbours),
//! and δ is the Gale–Church length deviation of the two groups, with the
//! ratio of lengths measured on the region itself. A null bead costs
//! [`SKIP`]. A monotone dynamic programme picks the beads with the best
//! total.
//!
//! # Search
//!
//! The region's chains give anchor points; the programme runs only inside
//! the boxes between consecutive anchors, widened by [`MARGIN`] sentences,
//! so its cost follows the number of sentences, not their product. Each
//! sentence is encoded once (the anchors need it anyway); a group's vector
//! costs the encoder's last layers only.
//!
//! # Weak spots
//!
//! The score knows meaning and length only: names and numbers shared by the
//! two sides weigh nothing beyond what the encoder makes of them. An anchor
//! more than [`MARGIN`] sentences off the true path forces the path through
//! its box. Groups of more than four sentences on one side are never made.

pub use super::chain::Region;
use super::chain::{Chain, SentLink};
use super::features::Vectors;
use super::meaning::Meaning;
use crate::encoder::{dot, DIM};

/// Bead shapes linked (sentences of A, of B); the null beads 1-0 and 0-1
/// come on top.
pub const SHAPES: [(u32, u32); 10] = [(1, 1), (1, 2), (2, 1), (1, 3), (3, 1), (2, 2), (1, 4), (4, 1), (2, 3), (3, 2)];

/// Most sentences of one side in a bead.
pub const MAX_SIDE: u32 = 4;

/// Score of a null bead (a sentence with no counterpart).
pub const SKIP: f32 = -0.1;

/// Weight of the squared length deviation.
pub const LENGTH: f32 = 0.05;

/// Variance of `l_b − c·l_a` per unit of mean length, in characters.
/// Gale and Church measured 6.8 for English against French and German;
/// literary translation, and Chinese against English, spread wider. On
/// the dev sets 6.8 to 20 score alike on mac-dev and textberg-dev (strict
/// F1 within 0.008), while 10 and below move boundaries in zh-en-bible
/// (unit F1 0.968 → 0.961).
pub const LENGTH_VARIANCE: f32 = 14.0;

/// Sentences by which the band reaches beyond the box of two anchors.
pub const MARGIN: u32 = 6;

/// Sentences of the other side sampled for a group's chance similarity.
const CHANCE_SAMPLE: usize = 96;

/// Most regions of a pair: each costs a pass over the chains left (a
/// quadratic longest path), and two versions of one work have one or a
/// few. Chains beyond stay as they are.
pub const MAX_REGIONS: usize = 64;

/// Sentences of a text's end that a region may leave out and still be
/// taken to reach that end: at most this many, or this share of the text.
const END_SLACK: u32 = 3;
const END_SHARE: f32 = 0.03;
/// Most share of a text that a region stretched to its end may take in,
/// when the two texts' stretches are in proportion ([`ends_fit`]).
const END_STRETCH: f32 = 0.25;

/// Do the stretches of two texts beyond a region's end (`x` sentences of
/// `n`, `y` of `m`) fit each other, so that the region reaches both ends?
/// Yes when both are a few sentences, or when both are a part of their
/// text of at most [`END_STRETCH`] and the two parts are in proportion
/// (within a factor of two): a chapter whose first page the anchors
/// missed. Not when one side alone runs on (the whole of a book against
/// its chapters 5 to 8).
fn ends_fit(x: u32, n: u32, y: u32, m: u32) -> bool {
    let near = |k: u32, len: u32| k <= END_SLACK.max((END_SHARE * len as f32) as u32);
    if near(x, n) && near(y, m) {
        return true;
    }
    let (px, py) = (x as f32 / n.max(1) as f32, y as f32 / m.max(1) as f32);
    x > 0 && y > 0 && px <= END_STRETCH && py <= END_STRETCH && px <= 2.0 * py && py <= 2.0 * px
}

/// The regions of two texts, each with the chains (indices into `chains`)
/// it is made of, largest first.
///
/// The main region is the heaviest run of chains in order on both sides
/// (each after the one before in A and in B; weighed by their links): the
/// box from its first link to its last, stretched to both texts' starts
/// (ends) when what lies beyond fits (both a few sentences, or parts of
/// at most a quarter of their texts in proportion). Of the chains left,
/// those wholly outside every region taken so far, on both sides, make
/// further regions the same way, up to [`MAX_REGIONS`]; a chain out of
/// order with a region (a paragraph an abridgement moved) is in none and
/// stays as it is.
pub fn regions(chains: &[Chain], n: u32, m: u32) -> Vec<(Region, Vec<usize>)> {
    let span = |c: &Chain| Region {
        a0: c.links.iter().map(|l| l.a0).min().unwrap_or(0),
        a1: c.links.iter().map(|l| l.a1).max().unwrap_or(0),
        b0: c.links.iter().map(|l| l.b0).min().unwrap_or(0),
        b1: c.links.iter().map(|l| l.b1).max().unwrap_or(0),
    };
    let mut free: Vec<usize> = (0..chains.len()).filter(|&k| !chains[k].links.is_empty()).collect();
    free.sort_by_key(|&k| (span(&chains[k]).a0, span(&chains[k]).b0, k));
    let mut out: Vec<(Region, Vec<usize>)> = Vec::new();
    while !free.is_empty() && out.len() < MAX_REGIONS {
        // Heaviest run in order (a small longest-path over the chains).
        let spans: Vec<Region> = free.iter().map(|&k| span(&chains[k])).collect();
        let weight = |x: usize| chains[free[x]].links.len();
        let mut best: Vec<(usize, usize)> = (0..free.len()).map(|x| (weight(x), usize::MAX)).collect();
        for x in 0..free.len() {
            for y in 0..x {
                if spans[x].a0 >= spans[y].a1 && spans[x].b0 >= spans[y].b1 && best[y].0 + weight(x) > best[x].0 {
                    best[x] = (best[y].0 + weight(x), y);
                }
            }
        }
        let Some(mut x) = (0..free.len()).max_by_key(|&x| (best[x].0, std::cmp::Reverse(x))) else { break };
        let mut members = Vec::new();
        while x != usize::MAX {
            members.push(x);
            x = best[x].1;
        }
        members.reverse();
        let (first, last) = (spans[members[0]], spans[*members.last().unwrap_or(&members[0])]);
        let mut r = Region { a0: first.a0, a1: last.a1, b0: first.b0, b1: last.b1 };
        let clear = |r: &Region, out: &[(Region, Vec<usize>)]| {
            out.iter().all(|(t, _)| (r.a1 <= t.a0 || r.a0 >= t.a1) && (r.b1 <= t.b0 || r.b0 >= t.b1))
        };
        // Stretched to the texts' ends where nothing taken lies between.
        let before = Region { a0: 0, a1: r.a0, b0: 0, b1: r.b0 };
        if ends_fit(r.a0, n, r.b0, m) && clear(&before, &out) {
            (r.a0, r.b0) = (0, 0);
        }
        let after = Region { a0: r.a1, a1: n, b0: r.b1, b1: m };
        if ends_fit(n - r.a1, n, m - r.b1, m) && clear(&after, &out) {
            (r.a1, r.b1) = (n, m);
        }
        let taken: Vec<usize> = members.iter().map(|&x| free[x]).collect();
        free.retain(|k| !taken.contains(k));
        out.push((r, taken));
        // Chains that meet a region on either side are in none.
        free.retain(|&k| clear(&span(&chains[k]), &out));
    }
    out
}

/// The chains of two texts aligned completely: one chain per region
/// ([`regions`]), its links the region's linked beads, its `nulls` the
/// sentences left alone; chains in no region stay as they were.
pub(super) fn complete_chains(chains: &[Chain], a: &Vectors, b: &Vectors, meaning: &mut Meaning) -> Vec<Chain> {
    let regions = regions(chains, a.len() as u32, b.len() as u32);
    let mut out = Vec::with_capacity(chains.len());
    let mut used = vec![false; chains.len()];
    for (r, members) in regions {
        let anchors: Vec<SentLink> = members.iter().flat_map(|&k| chains[k].links.iter().copied()).collect();
        let score = members.iter().map(|&k| chains[k].score).sum();
        members.iter().for_each(|&k| used[k] = true);
        let (links, nulls): (Vec<SentLink>, Vec<SentLink>) =
            align_region(r, &anchors, &a.len, &b.len, meaning).into_iter().partition(|l| l.a1 > l.a0 && l.b1 > l.b0);
        if !links.is_empty() {
            out.push(Chain { links, score, nulls });
        }
    }
    out.extend(chains.iter().zip(&used).filter(|(_, &u)| !u).map(|(c, _)| c.clone()));
    out
}

/// What the dynamic programme needs of each side.
struct Side {
    /// Per group size `k` (1..=MAX_SIDE), the unit vectors of the groups
    /// by start sentence (region relative), [`DIM`] values each.
    vec: Vec<Vec<f32>>,
    /// The same, the group's chance similarity.
    chance: Vec<Vec<f32>>,
}

/// Align a region completely: its beads in order, null beads included.
///
/// `anchors` are links of the region's chains (sentence indices of the
/// whole texts); `len_a`, `len_b` the lengths of every sentence.
pub(super) fn align_region(
    r: Region,
    anchors: &[SentLink],
    len_a: &[f32],
    len_b: &[f32],
    meaning: &mut Meaning,
) -> Vec<SentLink> {
    let (n, m) = (r.a1 - r.a0, r.b1 - r.b0);
    if n == 0 || m == 0 {
        return nulls(r);
    }
    let band = Band::new(r, anchors);
    let [vec_a, vec_b] = meaning.region_groups(r, MAX_SIDE);
    let sample = |len: u32| -> Vec<u32> {
        let k = (len as usize).min(CHANCE_SAMPLE);
        (0..k).map(|i| (i as u64 * len as u64 / k as u64) as u32).collect()
    };
    let chance = |mine: &[Vec<f32>], other: &[Vec<f32>], sample: &[u32]| -> Vec<Vec<f32>> {
        mine.iter()
            .map(|groups| {
                groups
                    .chunks_exact(DIM)
                    .map(|v| {
                        let s: f32 = sample.iter().map(|&j| dot(v, &other[0][j as usize * DIM..][..DIM])).sum();
                        s / sample.len().max(1) as f32
                    })
                    .collect()
            })
            .collect()
    };
    let (sample_a, sample_b) = (sample(n), sample(m));
    let a = Side { chance: chance(&vec_a, &vec_b, &sample_b), vec: vec_a };
    let b = Side { chance: chance(&vec_b, &a.vec, &sample_a), vec: vec_b };
    // Running sums of the sentence lengths: a group's length by subtraction.
    let cum = |v: &[f32]| -> Vec<f32> {
        let mut out = vec![0f32; v.len() + 1];
        for (k, x) in v.iter().enumerate() {
            out[k + 1] = out[k] + x;
        }
        out
    };
    let (ca, cb) = (cum(&len_a[r.a0 as usize..r.a1 as usize]), cum(&len_b[r.b0 as usize..r.b1 as usize]));
    let (ta, tb) = (ca[n as usize], cb[m as usize]);
    let c = if ta > 0.0 && tb > 0.0 { tb / ta } else { 1.0 };
    let bead = |i0: u32, da: u32, j0: u32, db: u32| -> (f32, f32) {
        let va = &a.vec[da as usize - 1][i0 as usize * DIM..][..DIM];
        let vb = &b.vec[db as usize - 1][j0 as usize * DIM..][..DIM];
        let cos = dot(va, vb);
        let chance = (a.chance[da as usize - 1][i0 as usize] + b.chance[db as usize - 1][j0 as usize]) / 2.0;
        let la = ca[(i0 + da) as usize] - ca[i0 as usize];
        let lb = cb[(j0 + db) as usize] - cb[j0 as usize];
        let mean = ((c * la + lb) / 2.0).max(1.0);
        let delta = (lb - c * la) / (LENGTH_VARIANCE * mean).sqrt();
        (cos - chance - LENGTH * delta * delta / 2.0, cos)
    };
    // h[i][j - lo[i]]: best total over the first i sentences of A and j of B.
    let rows = n as usize + 1;
    let mut h: Vec<Vec<f32>> = Vec::with_capacity(rows);
    let mut how: Vec<Vec<(u8, f32)>> = Vec::with_capacity(rows);
    let get = |h: &Vec<Vec<f32>>, i: u32, j: u32| -> f32 {
        let (lo, hi) = band.rows[i as usize];
        if j < lo || j > hi {
            f32::NEG_INFINITY
        } else {
            h[i as usize][(j - lo) as usize]
        }
    };
    const NULL_A: u8 = SHAPES.len() as u8;
    const NULL_B: u8 = NULL_A + 1;
    for i in 0..=n {
        let (lo, hi) = band.rows[i as usize];
        let mut row = vec![f32::NEG_INFINITY; (hi - lo + 1) as usize];
        let mut how_row = vec![(u8::MAX, 0f32); (hi - lo + 1) as usize];
        for j in lo..=hi {
            let k = (j - lo) as usize;
            if i == 0 && j == 0 {
                row[k] = 0.0;
                continue;
            }
            let mut best = (f32::NEG_INFINITY, u8::MAX, 0f32);
            if i > 0 {
                let v = get(&h, i - 1, j) + SKIP;
                if v > best.0 {
                    best = (v, NULL_A, 0.0);
                }
            }
            if j > 0 {
                let prev = if j > lo { row[k - 1] } else { f32::NEG_INFINITY };
                let v = prev + SKIP;
                if v > best.0 {
                    best = (v, NULL_B, 0.0);
                }
            }
            for (s, &(da, db)) in SHAPES.iter().enumerate() {
                if da > i || db > j {
                    continue;
                }
                let before = get(&h, i - da, j - db);
                if before == f32::NEG_INFINITY {
                    continue;
                }
                let (score, cos) = bead(i - da, da, j - db, db);
                if before + score > best.0 {
                    best = (before + score, s as u8, cos);
                }
            }
            row[k] = best.0;
            how_row[k] = (best.1, best.2);
        }
        h.push(row);
        how.push(how_row);
    }
    // Trace back from (n, m).
    let mut out = Vec::new();
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let (lo, _) = band.rows[i as usize];
        let (s, cos) = how[i as usize][(j - lo) as usize];
        let (da, db) = match s {
            NULL_A => (1, 0),
            NULL_B => (0, 1),
            s if (s as usize) < SHAPES.len() => SHAPES[s as usize],
            _ => unreachable!("every cell of the band is reached from the region's start"),
        };
        out.push(SentLink {
            a0: r.a0 + i - da,
            a1: r.a0 + i,
            b0: r.b0 + j - db,
            b1: r.b0 + j,
            sim: 0.0,
            meaning: (da > 0 && db > 0).then_some(cos),
            filled: false,
        });
        i -= da;
        j -= db;
    }
    out.reverse();
    out
}

/// Every sentence of a region alone (one side empty).
fn nulls(r: Region) -> Vec<SentLink> {
    let one = |a0, a1, b0, b1| SentLink { a0, a1, b0, b1, sim: 0.0, meaning: None, filled: false };
    (r.a0..r.a1).map(|i| one(i, i + 1, r.b0, r.b0)).chain((r.b0..r.b1).map(|j| one(r.a1, r.a1, j, j + 1))).collect()
}

/// The cells of the programme: per row `i` (A sentences taken, region
/// relative), the range of `j` it may reach.
struct Band {
    rows: Vec<(u32, u32)>,
}

impl Band {
    /// Boxes between consecutive anchor points, widened by [`MARGIN`].
    fn new(r: Region, anchors: &[SentLink]) -> Band {
        let (n, m) = (r.a1 - r.a0, r.b1 - r.b0);
        let mut points: Vec<(u32, u32)> = vec![(0, 0)];
        for l in anchors {
            if l.a0 < r.a0 || l.a1 > r.a1 || l.b0 < r.b0 || l.b1 > r.b1 {
                continue;
            }
            points.push((l.a0 - r.a0, l.b0 - r.b0));
            points.push((l.a1 - r.a0, l.b1 - r.b0));
        }
        points.push((n, m));
        points.sort_unstable();
        // Keep a path that rises on both sides (drop a point that falls
        // back in B: an anchor out of order).
        let mut path: Vec<(u32, u32)> = Vec::with_capacity(points.len());
        for p in points {
            if path.last().is_none_or(|q: &(u32, u32)| p.1 >= q.1) {
                path.push(p);
            }
        }
        if path.last() != Some(&(n, m)) {
            path.push((n, m));
        }
        let mut rows = vec![(u32::MAX, 0u32); n as usize + 1];
        for w in path.windows(2) {
            let ((i1, j1), (i2, j2)) = (w[0], w[1]);
            let (ilo, ihi) = (i1.saturating_sub(MARGIN), (i2 + MARGIN).min(n));
            let (jlo, jhi) = (j1.saturating_sub(MARGIN), (j2 + MARGIN).min(m));
            for row in &mut rows[ilo as usize..=ihi as usize] {
                row.0 = row.0.min(jlo);
                row.1 = row.1.max(jhi);
            }
        }
        // Consecutive boxes share a corner, so every row is covered, the
        // first starts at 0, the last ends at m, both ends of the rows only
        // rise, and each row meets the one before: every cell is reached
        // from (0, 0).
        Band { rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(a0: u32, a1: u32, b0: u32, b1: u32) -> SentLink {
        SentLink { a0, a1, b0, b1, sim: 0.5, meaning: None, filled: false }
    }

    #[test]
    fn chains_in_order_make_one_region_stretched_to_the_ends() {
        let c1 = Chain { links: vec![link(1, 2, 2, 3), link(2, 3, 3, 4)], score: 1.0, nulls: Vec::new() };
        let c2 = Chain { links: vec![link(5, 6, 7, 8), link(8, 9, 9, 10)], score: 1.0, nulls: Vec::new() };
        let only = |v: Vec<(Region, Vec<usize>)>| v.into_iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(regions(&[c2.clone(), c1.clone()], 10, 11), [(Region { a0: 0, a1: 10, b0: 0, b1: 11 }, vec![1, 0])]);
        // Far from an end, a region stays where its chains are; near the
        // other, it is stretched to it.
        assert_eq!(only(regions(&[c1.clone(), c2.clone()], 100, 100)), [Region { a0: 0, a1: 9, b0: 0, b1: 10 }]);
        // Stretches in proportion are taken in, one side's alone is not.
        let late = Chain { links: vec![link(20, 21, 30, 31), link(90, 91, 140, 141)], score: 1.0, nulls: Vec::new() };
        assert_eq!(only(regions(&[late], 100, 150)), [Region { a0: 0, a1: 100, b0: 0, b1: 150 }]);
        let one_side = Chain { links: vec![link(0, 1, 60, 61), link(90, 91, 140, 141)], score: 1.0, nulls: Vec::new() };
        assert_eq!(regions(&[one_side], 100, 150)[0].0.b0, 60);
        // A chain out of order with the main run is in no region; the
        // main run goes on past it.
        let back = Chain { links: vec![link(20, 21, 0, 1)], score: 1.0, nulls: Vec::new() };
        let c3 = Chain { links: vec![link(30, 31, 30, 31), link(31, 32, 31, 32)], score: 1.0, nulls: Vec::new() };
        let got = regions(&[c1.clone(), back, c3], 100, 100);
        assert_eq!(got, [(Region { a0: 0, a1: 32, b0: 0, b1: 32 }, vec![0, 2])]);
        // A second run clear of the first on both sides is a region too.
        let main = Chain { links: vec![link(1, 2, 52, 53), link(30, 32, 80, 82)], score: 1.0, nulls: Vec::new() };
        let moved = Chain { links: vec![link(60, 61, 10, 11), link(61, 62, 11, 12)], score: 1.0, nulls: Vec::new() };
        let got = only(regions(&[main, moved], 100, 100));
        assert_eq!(got, [Region { a0: 1, a1: 32, b0: 52, b1: 82 }, Region { a0: 60, a1: 62, b0: 10, b1: 12 }]);
    }

    #[test]
    fn the_band_joins_the_start_and_the_end_through_every_anchor() {
        let r = Region { a0: 0, a1: 40, b0: 0, b1: 50 };
        let band = Band::new(r, &[link(10, 11, 12, 13), link(30, 31, 38, 39)]);
        assert_eq!(band.rows.len(), 41);
        assert_eq!(band.rows[0].0, 0);
        assert_eq!(band.rows[40].1, 50);
        for (i, w) in band.rows.windows(2).enumerate() {
            assert!(w[0].0 <= w[0].1, "row {i}");
            // A path can step from each row to the next.
            assert!(w[1].0 <= w[0].1 + 1, "rows {i}, {}", i + 1);
        }
        // The anchors' cells are inside, a cell far off the path is not.
        assert!(band.rows[10].0 <= 12 && 12 <= band.rows[10].1);
        assert!(band.rows[31].0 <= 39 && 39 <= band.rows[31].1);
        assert!(band.rows[0].1 < 20 && band.rows[40].0 > 30, "{:?}", band.rows);
    }
}
