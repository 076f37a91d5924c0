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
//! A *bead* takes `da` consecutive sentences of A and `db` of B ([`SHAPES`]:
//! up to [`MAX_SIDE`] a side, five in all), or one sentence of one side
//! alone (1-0, 0-1: a sentence without counterpart). A linked bead
//! earns what the evidence registered for the pair says of it
//! ([`super::evidence`]: meaning, length, a dictionary where the languages
//! have one), weighted and summed, less the price of its shape:
//!
//! ```text
//! Σ_e w_e · e(bead)  −  SIZE · (da + db − 2)  −  TWO_TWO · [da = db = 2]
//! ```
//!
//! The size price is Bertalign-Fast's λ(m + n) and the 2-2 price AIlign's:
//! a bigger bead has more ways to fit by chance. Fitted on the dev sets
//! (`tools/bead_weights/fit.py`), λ came out slightly negative and the
//! 2-2 price nil: with group vectors less the chance term, big beads are
//! already priced. Shapes of up to six sentences a side and eight in all
//! (1-5, 2-4, 3-3, 1-6, 2-5, 3-4, 2-6, 3-5, 4-4: 11 of mac-dev's 1,337
//! gold beads, 6 of textberg-dev's 381) were tried and lost more than they
//! found (mac-dev 0.901 → 0.900, textberg-dev 0.894 → 0.892). A null bead costs what a
//! 1-1 bead of the region scores at the [`NULL_PERCENTILE`]th percentile,
//! plus [`NULL_OFFSET`] (Vecalign sets its deletion penalty from the
//! distribution of 1-1 costs the same way): a sentence stays alone when
//! its best partner scores no better than most sentences of the region
//! score against a stranger, whatever the scale of the pair's evidence. A
//! monotone dynamic programme picks the beads with the best total.
//!
//! A group's vector is made from its sentences' pooled rows, which is
//! cheap and nearly what encoding its text gives. Where that "nearly"
//! may decide — a bead of more than two sentences whose best path comes
//! within [`CLOSE`] of the best total (the programme run forward and
//! backward gives each bead's best total) — the bead is measured again
//! on its groups' own text and the programme runs once more. Re-deciding
//! beads with the same scores would change nothing: the path is already
//! the best total over every bead the band holds.
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
//! Where no dictionary covers the languages the score knows meaning and
//! length only: names and numbers shared by the two sides weigh nothing
//! beyond what the encoder makes of them. An anchor
//! more than [`MARGIN`] sentences off the true path forces the path through
//! its box. Groups of more than [`MAX_SIDE`] sentences on one side are
//! never made.

pub use super::chain::Region;
use super::chain::{Chain, SentLink};
use super::evidence::{self, Group, Weighted};
use super::meaning::Meaning;
use super::pair::Pair;
use super::parallel::ParallelParams;

/// Bead shapes linked (sentences of A, of B); the null beads 1-0 and 0-1
/// come on top.
pub const SHAPES: [(u32, u32); 10] = [(1, 1), (1, 2), (2, 1), (1, 3), (3, 1), (2, 2), (1, 4), (4, 1), (2, 3), (3, 2)];

/// Most sentences of one side in a bead.
pub const MAX_SIDE: u32 = 4;

/// Price of each sentence of a bead beyond two (see the module doc):
/// fitted on the dev sets, a small bonus rather than a price (mac-dev
/// strict F1 0.899 → 0.901, textberg-dev 0.891 → 0.894 against 0).
pub const SIZE: f32 = -0.01;

/// Extra price of a 2-2 bead (AIlign's): fitted, none (0.05 gives
/// mac-dev 0.900, textberg-dev 0.887).
pub const TWO_TWO: f32 = 0.0;

/// The percentile of the region's 1-1 bead scores that a null bead costs
/// (Vecalign's rule), or none when negative: then a null bead scores
/// [`NULL_OFFSET`] whatever the region. Measured on the dev sets with the
/// weights fitted, the percentile did no better than the constant (50th
/// percentile −0.05: mac-dev 0.903, textberg-dev 0.886; 60th −0.05: 0.898,
/// 0.891; the constant: 0.901, 0.894), so it is off.
pub const NULL_PERCENTILE: f32 = -1.0;

/// Added to that percentile; with no percentile the null bead's score
/// itself.
pub const NULL_OFFSET: f32 = -0.1;

/// A bead of more than two sentences whose best path comes within this
/// of the best total of its region is measured again more closely (its
/// groups encoded from their own text: [`super::evidence::Evidence::refine`])
/// before the programme runs once more. Fitted on the dev sets
/// (`tools/bead_weights/close.py`): 0.02 to 0.05 alike (0.01 and 0.1 a
/// little lower), mac-dev strict F1 0.899 → 0.908 and textberg-dev 0.891
/// → 0.897 with the dictionary at 0.1, at about a twentieth of the groups
/// that scoring every bead near the path on its own text encodes; the
/// smallest of them, as the cheapest.
pub const CLOSE: f32 = 0.02;

/// Sentences by which the band reaches beyond the box of two anchors.
pub const MARGIN: u32 = 6;

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
/// sentences left alone; chains in no region stay as they were. `p` may
/// switch kinds of evidence off or weigh them otherwise (evaluation only).
pub(super) fn complete_chains(chains: &[Chain], pair: &Pair, meaning: &mut Meaning, p: &ParallelParams) -> Vec<Chain> {
    let (n, m) = (pair.lengths[0].len() as u32, pair.lengths[1].len() as u32);
    let regions = regions(chains, n, m);
    let mut out = Vec::with_capacity(chains.len());
    let mut used = vec![false; chains.len()];
    let mut evidence = evidence::for_pair(pair, meaning, MAX_SIDE, &p.without, &p.reweigh);
    // `align --without refine` (evaluation only): no second look at close beads.
    let refine = !p.without.iter().any(|w| w == "refine");
    for (r, members) in regions {
        let anchors: Vec<SentLink> = members.iter().flat_map(|&k| chains[k].links.iter().copied()).collect();
        let score = members.iter().map(|&k| chains[k].score).sum();
        members.iter().for_each(|&k| used[k] = true);
        let (links, nulls): (Vec<SentLink>, Vec<SentLink>) =
            align_region(r, &anchors, &mut evidence, refine).into_iter().partition(|l| l.a1 > l.a0 && l.b1 > l.b0);
        if !links.is_empty() {
            out.push(Chain { links, score, nulls });
        }
    }
    out.extend(chains.iter().zip(&used).filter(|(_, &u)| !u).map(|(c, _)| c.clone()));
    out
}

/// The price of a bead's shape (see the module doc).
fn shape_cost(da: u32, db: u32) -> f32 {
    SIZE * (da + db - 2) as f32 + if (da, db) == (2, 2) { TWO_TWO } else { 0.0 }
}

/// The sentence pairs `(i, j)` (whole-text indices) that some bead of the
/// band holds: for each sentence of A, the B sentences of the rows whose
/// beads may take it.
fn band_cells(r: Region, band: &Band) -> Vec<(u32, u32)> {
    let n = r.a1 - r.a0;
    let mut out = Vec::new();
    for i in 0..n {
        // Beads ending at rows i + 1 ..= i + MAX_SIDE hold sentence i.
        let rows = &band.rows[(i + 1) as usize..=((i + MAX_SIDE).min(n)) as usize];
        let lo = rows.iter().map(|r| r.0).min().unwrap_or(0).saturating_sub(MAX_SIDE);
        let hi = rows.iter().map(|r| r.1).max().unwrap_or(0);
        out.extend((lo..hi).map(|j| (r.a0 + i, r.b0 + j)));
    }
    out
}

/// Align a region completely: its beads in order, null beads included.
///
/// `anchors` are links of the region's chains (sentence indices of the
/// whole texts); `evidence` the pair's kinds of evidence with their weights.
/// With `refine`, the beads whose choice is close ([`CLOSE`]) are measured
/// again more closely ([`super::evidence::Evidence::refine`]) and the
/// programme runs once more.
pub(super) fn align_region(r: Region, anchors: &[SentLink], evidence: &mut [Weighted], refine: bool) -> Vec<SentLink> {
    let (n, m) = (r.a1 - r.a0, r.b1 - r.b0);
    if n == 0 || m == 0 {
        return nulls(r);
    }
    let band = Band::new(r, anchors);
    let cells = band_cells(r, &band);
    for e in evidence.iter_mut() {
        e.evidence.region(r, &cells);
    }
    let group = |i0: u32, da: u32, j0: u32, db: u32| Group {
        a0: r.a0 + i0,
        a1: r.a0 + i0 + da,
        b0: r.b0 + j0,
        b1: r.b0 + j0 + db,
    };
    let bead = |evidence: &[Weighted], i0: u32, da: u32, j0: u32, db: u32| -> f32 {
        let g = group(i0, da, j0, db);
        evidence.iter().map(|e| e.weight * e.evidence.score(g)).sum::<f32>() - shape_cost(da, db)
    };
    // Every bead of the band scored once (the null bead's price needs
    // the 1-1 scores first): scores[i][j - lo][s], the bead of shape s
    // ending after i sentences of A and j of B.
    let mut scores: Vec<Vec<[f32; SHAPES.len()]>> = Vec::with_capacity(n as usize + 1);
    for i in 0..=n {
        let (lo, hi) = band.rows[i as usize];
        let mut row = vec![[f32::NEG_INFINITY; SHAPES.len()]; (hi - lo + 1) as usize];
        for j in lo..=hi {
            for (s, &(da, db)) in SHAPES.iter().enumerate() {
                if da <= i && db <= j && band.holds(i - da, j - db) {
                    row[(j - lo) as usize][s] = bead(evidence, i - da, da, j - db, db);
                }
            }
        }
        scores.push(row);
    }
    #[cfg(feature = "tuning")]
    trace::record(r, &band, &scores, evidence, group);
    let skip = null_score(&scores);
    let (h, mut how) = forward(&band, &scores, skip);
    if refine {
        // The beads of more than two sentences whose best path comes
        // within CLOSE of the best total: measured again, and the
        // programme once more.
        let back = backward(&band, &scores, skip, m);
        let best = h[n as usize][(m - band.rows[n as usize].0) as usize];
        let mut close: Vec<(u32, u32, usize)> = Vec::new();
        for i in 0..=n {
            let lo = band.rows[i as usize].0;
            for (k, cell) in scores[i as usize].iter().enumerate() {
                let j = lo + k as u32;
                for (s, &(da, db)) in SHAPES.iter().enumerate() {
                    if da + db > 2 && cell[s].is_finite() {
                        let through = band.get(&h, i - da, j - db) + cell[s] + back[i as usize][k];
                        if through >= best - CLOSE {
                            close.push((i, j, s));
                        }
                    }
                }
            }
        }
        if !close.is_empty() {
            let groups: Vec<Group> = close
                .iter()
                .map(|&(i, j, s)| group(i - SHAPES[s].0, SHAPES[s].0, j - SHAPES[s].1, SHAPES[s].1))
                .collect();
            for e in evidence.iter_mut() {
                e.evidence.refine(&groups);
            }
            for &(i, j, s) in &close {
                let (da, db) = SHAPES[s];
                let lo = band.rows[i as usize].0;
                scores[i as usize][(j - lo) as usize][s] = bead(evidence, i - da, da, j - db, db);
            }
            how = forward(&band, &scores, skip).1;
        }
    }
    // Trace back from (n, m).
    let mut out = Vec::new();
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let (lo, _) = band.rows[i as usize];
        let (da, db) = match how[i as usize][(j - lo) as usize] {
            NULL_A => (1, 0),
            NULL_B => (0, 1),
            s if (s as usize) < SHAPES.len() => SHAPES[s as usize],
            _ => unreachable!("every cell of the band is reached from the region's start"),
        };
        let linked = da > 0 && db > 0;
        let similarity = || evidence.iter().find_map(|e| e.evidence.similarity(group(i - da, da, j - db, db)));
        out.push(SentLink {
            a0: r.a0 + i - da,
            a1: r.a0 + i,
            b0: r.b0 + j - db,
            b1: r.b0 + j,
            sim: 0.0,
            meaning: if linked { similarity() } else { None },
            filled: false,
        });
        i -= da;
        j -= db;
    }
    out.reverse();
    out
}

/// The choice of a cell of the programme: a null bead of A or of B, or a
/// shape of [`SHAPES`] by its index.
const NULL_A: u8 = SHAPES.len() as u8;
const NULL_B: u8 = NULL_A + 1;

/// The bead programme forward: `h[i][j - lo[i]]`, the best total over the
/// first `i` sentences of A and `j` of B, and the bead that ends it.
fn forward(band: &Band, scores: &[Vec<[f32; SHAPES.len()]>], skip: f32) -> (Vec<Vec<f32>>, Vec<Vec<u8>>) {
    let rows = band.rows.len();
    let mut h: Vec<Vec<f32>> = Vec::with_capacity(rows);
    let mut how: Vec<Vec<u8>> = Vec::with_capacity(rows);
    for i in 0..rows as u32 {
        let (lo, hi) = band.rows[i as usize];
        let mut row = vec![f32::NEG_INFINITY; (hi - lo + 1) as usize];
        let mut how_row = vec![u8::MAX; (hi - lo + 1) as usize];
        for j in lo..=hi {
            let k = (j - lo) as usize;
            if i == 0 && j == 0 {
                row[k] = 0.0;
                continue;
            }
            let mut best = (f32::NEG_INFINITY, u8::MAX);
            if i > 0 {
                let v = band.get(&h, i - 1, j) + skip;
                if v > best.0 {
                    best = (v, NULL_A);
                }
            }
            if j > 0 {
                let prev = if j > lo { row[k - 1] } else { f32::NEG_INFINITY };
                let v = prev + skip;
                if v > best.0 {
                    best = (v, NULL_B);
                }
            }
            for (s, &(da, db)) in SHAPES.iter().enumerate() {
                let score = scores[i as usize][k][s];
                if score == f32::NEG_INFINITY {
                    continue;
                }
                let before = band.get(&h, i - da, j - db);
                if before + score > best.0 {
                    best = (before + score, s as u8);
                }
            }
            row[k] = best.0;
            how_row[k] = best.1;
        }
        h.push(row);
        how.push(how_row);
    }
    (h, how)
}

/// The bead programme backward: `back[i][j - lo[i]]`, the best total from
/// `i` sentences of A and `j` of B taken to the region's end (`m`
/// sentences of B). A bead's best path has the total
/// `h[start] + score + back[end]`.
fn backward(band: &Band, scores: &[Vec<[f32; SHAPES.len()]>], skip: f32, m: u32) -> Vec<Vec<f32>> {
    let n = band.rows.len() as u32 - 1;
    let mut back: Vec<Vec<f32>> =
        band.rows.iter().map(|&(lo, hi)| vec![f32::NEG_INFINITY; (hi - lo + 1) as usize]).collect();
    for i in (0..=n).rev() {
        let (lo, hi) = band.rows[i as usize];
        for j in (lo..=hi).rev() {
            if i == n && j == m {
                back[i as usize][(j - lo) as usize] = 0.0;
                continue;
            }
            let mut best = f32::NEG_INFINITY;
            if i < n {
                best = best.max(band.get(&back, i + 1, j) + skip);
            }
            if j < hi {
                best = best.max(back[i as usize][(j + 1 - lo) as usize] + skip);
            }
            for (s, &(da, db)) in SHAPES.iter().enumerate() {
                let (ie, je) = (i + da, j + db);
                if ie > n || !band.holds(ie, je) {
                    continue;
                }
                let lo_e = band.rows[ie as usize].0;
                let score = scores[ie as usize][(je - lo_e) as usize][s];
                if score > f32::NEG_INFINITY {
                    best = best.max(score + back[ie as usize][(je - lo_e) as usize]);
                }
            }
            back[i as usize][(j - lo) as usize] = best;
        }
    }
    back
}

/// The score of a null bead: the [`NULL_PERCENTILE`]th percentile of the
/// band's 1-1 bead scores plus [`NULL_OFFSET`] (or that offset alone).
fn null_score(scores: &[Vec<[f32; SHAPES.len()]>]) -> f32 {
    if NULL_PERCENTILE < 0.0 {
        return NULL_OFFSET;
    }
    let mut ones: Vec<f32> = scores.iter().flatten().map(|c| c[0]).filter(|s| s.is_finite()).collect();
    if ones.is_empty() {
        return NULL_OFFSET;
    }
    ones.sort_unstable_by(f32::total_cmp);
    // Linear interpolation between the closest ranks, as numpy's default.
    let at = NULL_PERCENTILE / 100.0 * (ones.len() - 1) as f32;
    let (k, t) = (at.floor() as usize, at - at.floor());
    let v = if k + 1 < ones.len() { ones[k] * (1.0 - t) + ones[k + 1] * t } else { ones[k] };
    v + NULL_OFFSET
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
    /// The value of cell `(i, j)` of a table over the band, −∞ outside.
    fn get(&self, t: &[Vec<f32>], i: u32, j: u32) -> f32 {
        let (lo, hi) = self.rows[i as usize];
        if j < lo || j > hi {
            f32::NEG_INFINITY
        } else {
            t[i as usize][(j - lo) as usize]
        }
    }

    /// Is cell `(i, j)` inside the band?
    fn holds(&self, i: u32, j: u32) -> bool {
        let (lo, hi) = self.rows[i as usize];
        lo <= j && j <= hi
    }

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

/// What the bead programme saw, for fitting the weights of the bead score
/// (`tools/bead_weights/fit.py`; with the `tuning` feature only).
#[cfg(feature = "tuning")]
pub mod trace {
    use super::{Band, Group, Region, Weighted, SHAPES};
    use std::sync::Mutex;

    /// One region's band and every bead's raw evidence.
    #[derive(Clone, Debug)]
    pub struct RegionTrace {
        /// The region.
        pub region: Region,
        /// Per row (A sentences taken), the range of B sentences taken.
        pub rows: Vec<(u32, u32)>,
        /// The kinds of evidence, in the order of `values`.
        pub features: Vec<&'static str>,
        /// Per cell of the band (row by row), per shape of [`SHAPES`], per
        /// feature: its unweighted score, NaN where the bead is not in the band.
        pub values: Vec<f32>,
    }

    static TRACE: Mutex<Vec<RegionTrace>> = Mutex::new(Vec::new());

    /// The regions recorded since the last call.
    pub fn take() -> Vec<RegionTrace> {
        std::mem::take(&mut TRACE.lock().unwrap())
    }

    pub(super) fn record(
        r: Region,
        band: &Band,
        scores: &[Vec<[f32; SHAPES.len()]>],
        evidence: &[Weighted],
        group: impl Fn(u32, u32, u32, u32) -> Group,
    ) {
        let mut values = Vec::new();
        let mut features = Vec::new();
        for (i, row) in scores.iter().enumerate() {
            let lo = band.rows[i].0;
            for (k, cell) in row.iter().enumerate() {
                let j = lo + k as u32;
                for (s, &(da, db)) in SHAPES.iter().enumerate() {
                    let parts: Vec<(&'static str, f32)> = if cell[s].is_finite() {
                        let g = group(i as u32 - da, da, j - db, db);
                        evidence.iter().flat_map(|e| e.evidence.parts(g)).collect()
                    } else {
                        Vec::new()
                    };
                    if features.is_empty() && !parts.is_empty() {
                        features = parts.iter().map(|p| p.0).collect();
                    }
                    values.push(parts);
                }
            }
        }
        let values = values
            .into_iter()
            .flat_map(
                |p| if p.is_empty() { vec![f32::NAN; features.len()] } else { p.into_iter().map(|x| x.1).collect() },
            )
            .collect();
        TRACE.lock().unwrap().push(RegionTrace { region: r, rows: band.rows.clone(), features, values });
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
