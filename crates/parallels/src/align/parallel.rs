//! The parallel aligner: local chains of sentence groups.
//!
//! # Model
//!
//! Two texts are sequences of sentences, each a sparse vector
//! ([`super::features`]). A *link* pairs a group of `da` consecutive sentences
//! of A with `db` consecutive sentences of B (shapes up to 4-1 / 1-4, see
//! [`SHAPES`]); its similarity is the cosine of the two groups' summed
//! vectors. A link earns
//!
//! ```text
//! (sim − τ − step·(da + db − 2)) · (da + db) / 2
//! ```
//!
//! — per sentence it explains, how far it clears the bar — where τ is set
//! *per document pair* from the background: the mean plus `sigmas` standard
//! deviations of the similarity of random sentence pairs (shrunk towards a
//! prior when the texts are short, floored at `min_threshold`). What two
//! unrelated sentences of these two texts share by chance — common
//! characters, the cast's names — is thereby priced out, whatever the
//! language or genre. The `step` makes bigger groups prove more. In a group
//! of two or more, the first and last member on each side must itself clear
//! the bridging bar against the other side, so a sentence with no
//! counterpart is not absorbed into its neighbour's link; a heading (see
//! [`crate::segment::Sentence::heading`]) never joins a group.
//!
//! A *chain* is a run of links, strictly increasing on both sides, with at
//! most `gap` skipped sentences on either side between two links, each
//! skipped sentence costing `skip`. Chains are scored like local alignments
//! (Smith–Waterman): a chain starts where evidence starts and ends where it
//! fades, and no chain at all is a normal answer. Inside a chain, a 1-1 link
//! below τ but above the bridging bar (`bridge_sigmas`) may bridge two good
//! links when that costs less than skipping; after extraction, sentences
//! sandwiched between two links (one or two on each side) are linked if they
//! clear the lower `fill_sigmas` bar.

//! # Search
//!
//! No n×m matrix. Candidate sentence pairs come from an inverted index over
//! *rare* features (those in at most `rare_cap` sentences of B): for each
//! sentence the `candidates` best partners by rare-feature overlap, from both
//! sides. The dynamic programme then runs only over the cells that end a group
//! starting at a candidate ([`CELL_OFFSETS`]), so its cost is linear in the
//! number of sentences. Predecessors are looked up in a window of `gap` rows.
//!
//! # Extraction
//!
//! Every cell ends some chain. Cells are visited from the highest score down;
//! each is traced back, cut at the first link that touches a sentence an
//! earlier (better) chain already took, and kept if what remains still scores
//! `min_chain`. This finds several chains per pair — reordered paragraphs, a
//! version that covers only part of the other — and never lets two chains
//! share a sentence.
//!
//! # Weak spots
//!
//! Sentences with no rare feature in common with their counterpart are found
//! only as members of a group or through the neighbourhood of a candidate.
//! The model is bag-of-n-grams: word order inside a sentence is ignored.

use super::chain::{Chain, SentLink};
use super::features::{dot, Feature, Vectors};
use rustc_hash::FxHashMap;

/// Link shapes tried: (sentences of A, sentences of B).
pub const SHAPES: [(u32, u32); 8] = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (1, 4), (4, 1)];

/// Cells evaluated around a candidate pair `(i, j)`: the ends of the groups
/// that start with it. Groups grow on one side (1-n, n-1) or are 2-2.
pub const CELL_OFFSETS: [(u32, u32); 8] = [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (0, 2), (0, 3), (1, 1)];

/// The offsets `(x, y)` of the sentence pairs `(i − x, j − y)` whose dot
/// products the [`SHAPES`] ending at a cell `(i, j)` are made of.
const WINDOW: [(u32, u32); 8] = [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (0, 2), (0, 3), (1, 1)];

/// Parameters of the parallel aligner; see the module docs for the model.
#[derive(Clone, Debug)]
pub struct ParallelParams {
    /// Background threshold: mean plus this many standard deviations of the
    /// similarity of random sentence pairs.
    pub sigmas: f32,
    /// A link below τ may bridge two links of a chain if its similarity is
    /// this many standard deviations above the background mean.
    pub bridge_sigmas: f32,
    /// Sentences sandwiched between two links (one or two on each side)
    /// are linked if their similarity is this many standard deviations
    /// above the background mean.
    pub fill_sigmas: f32,
    /// Lowest threshold τ whatever the background.
    pub min_threshold: f32,
    /// Extra similarity required per extra sentence in a group.
    pub step: f32,
    /// Cost of each skipped sentence inside a chain.
    pub skip: f32,
    /// Most sentences skipped on one side between two links of a chain.
    pub gap: u32,
    /// Lowest chain score kept: a pair's best chain must reach it.
    pub min_chain: f32,
    /// Lowest score of further chains once the best one reaches
    /// `min_chain`: in a pair known to be related, a short chain (a
    /// heading, a reordered paragraph) needs less evidence. Equal to
    /// `min_chain` in `align`; lower in `scan`, whose `min_chain` is high.
    pub min_chain_related: f32,
    /// Candidate partners per sentence.
    pub candidates: usize,
    /// Features in more sentences of B than this give no candidates.
    pub rare_cap: usize,
    /// Complete chains by position and length ([`super::complete`]): link
    /// the sentences between two anchors whose lengths fit, and let a
    /// sentence one version split off join its neighbour's link. Off, only
    /// sandwiched sentences that clear `fill_sigmas` are linked.
    pub complete: bool,
    /// Align the regions where two texts are versions of one another
    /// completely ([`super::beads`]): every sentence between a region's
    /// ends in a bead, null beads included.
    pub beads: bool,
    /// Kinds of bead evidence switched off, by name
    /// ([`super::evidence`]; evaluation only: `align --without dictionary`).
    pub without: Vec<String>,
    /// Weights of kinds of bead evidence other than the fitted ones
    /// ([`super::evidence::WEIGHTS`]), by name (evaluation only: `align
    /// --weigh length=0.05`).
    pub reweigh: Vec<(String, f32)>,
}

impl Default for ParallelParams {
    fn default() -> Self {
        ParallelParams {
            sigmas: 4.0,
            bridge_sigmas: 3.0,
            fill_sigmas: 2.0,
            min_threshold: 0.1,
            step: 0.04,
            skip: 0.05,
            gap: 3,
            min_chain: 0.08,
            min_chain_related: 0.08,
            candidates: 4,
            rare_cap: 64,
            complete: true,
            beads: true,
            without: Vec::new(),
            reweigh: Vec::new(),
        }
    }
}

/// Pairwise dot products: all of them at once for a small pair, else
/// computed on demand and cached.
pub(super) struct Dots<'a> {
    a: &'a Vectors,
    b: &'a Vectors,
    /// `a_i · b_j` at `i * m + j`, when the pair has at most [`DENSE_CELLS`]
    /// sentence pairs.
    dense: Option<Vec<f32>>,
    cross: FxHashMap<u64, f32>,
    /// Products computed at once ([`Dots::prefetch`]), by row of A: row
    /// `i`'s `(j, a_i · b_j)` are `fetched[rows[i]..rows[i + 1]]`, by
    /// increasing `j` (empty until then).
    rows: Vec<u32>,
    fetched: Vec<(u32, f32)>,
    /// `self_a[i][d-1]` = a_i · a_{i+d}, d = 1..=3.
    self_a: Vec<[f32; 3]>,
    self_b: Vec<[f32; 3]>,
}

/// Pairs with at most this many sentence pairs get every dot product at
/// once (1 MiB of `f32`): the sparse product over shared features costs less
/// than merging the vectors pair by pair, and a scan aligns mostly such
/// pairs.
const DENSE_CELLS: usize = 1 << 18;

fn self_dots(v: &Vectors) -> Vec<[f32; 3]> {
    (0..v.len())
        .map(|i| {
            let mut d = [0f32; 3];
            for (k, x) in d.iter_mut().enumerate() {
                if let Some(w) = v.vecs.get(i + k + 1) {
                    *x = dot(&v.vecs[i], w);
                }
            }
            d
        })
        .collect()
}

/// All `a_i · b_j` through an inverted index of B: only shared features
/// cost anything.
fn dense_dots(a: &Vectors, b: &Vectors) -> Vec<f32> {
    let m = b.len();
    let mut postings: FxHashMap<Feature, Vec<(u32, f32)>> = FxHashMap::default();
    for (j, v) in b.vecs.iter().enumerate() {
        for &(f, w) in v {
            postings.entry(f).or_default().push((j as u32, w));
        }
    }
    let mut out = vec![0f32; a.len() * m];
    for (i, v) in a.vecs.iter().enumerate() {
        let row = &mut out[i * m..(i + 1) * m];
        for &(f, w) in v {
            if let Some(list) = postings.get(&f) {
                for &(j, wb) in list {
                    row[j as usize] += w * wb;
                }
            }
        }
    }
    out
}

impl<'a> Dots<'a> {
    pub(super) fn new(a: &'a Vectors, b: &'a Vectors) -> Dots<'a> {
        let dense = (a.len() * b.len() <= DENSE_CELLS).then(|| dense_dots(a, b));
        Dots {
            a,
            b,
            dense,
            cross: FxHashMap::default(),
            rows: Vec::new(),
            fetched: Vec::new(),
            self_a: self_dots(a),
            self_b: self_dots(b),
        }
    }

    /// Compute the dot products `a_i · b_j` for every `j` of `wanted[i]`
    /// (in any order, repeats allowed), all at once and in parallel
    /// (rayon), so that [`Dots::cross`] finds them by row instead of
    /// computing them one by one (the same values). Once: a second call
    /// does nothing.
    fn prefetch(&mut self, mut wanted: Vec<Vec<u32>>) {
        use rayon::prelude::*;
        if self.dense.is_some() || !self.rows.is_empty() {
            return;
        }
        let (a, b) = (self.a, self.b);
        wanted.resize(a.len(), Vec::new());
        wanted.par_iter_mut().for_each(|row| {
            row.sort_unstable();
            row.dedup();
        });
        // The features of B numbered, so that a sentence of A is spread
        // over a table once and its products with the sentences of B are
        // read from it: a row of A meets several sentences of B.
        let mut used = vec![false; b.len()];
        for &j in wanted.iter().flatten() {
            used[j as usize] = true;
        }
        let mut ids: FxHashMap<Feature, u32> = FxHashMap::default();
        let b_ids: Vec<Vec<(u32, f32)>> = b
            .vecs
            .iter()
            .zip(&used)
            .map(|(v, &used)| {
                if !used {
                    return Vec::new();
                }
                v.iter()
                    .map(|&(f, w)| {
                        let next = ids.len() as u32;
                        (*ids.entry(f).or_insert(next), w)
                    })
                    .collect()
            })
            .collect();
        let values: Vec<Vec<(u32, f32)>> = wanted
            .par_iter()
            .enumerate()
            .with_min_len(64)
            .map_init(
                || vec![0f32; ids.len()],
                |table, (i, row)| {
                    if row.is_empty() {
                        return Vec::new();
                    }
                    let a_i = &a.vecs[i];
                    for &(f, w) in a_i {
                        if let Some(&id) = ids.get(&f) {
                            table[id as usize] = w;
                        }
                    }
                    // Summed in the order of B's keys, as `dot` sums the
                    // shared ones (the others add zero): the same value.
                    let out = row
                        .iter()
                        .map(|&j| (j, b_ids[j as usize].iter().fold(0f32, |s, &(id, w)| s + table[id as usize] * w)))
                        .collect();
                    for &(f, _) in a_i {
                        if let Some(&id) = ids.get(&f) {
                            table[id as usize] = 0.0;
                        }
                    }
                    out
                },
            )
            .collect();
        let mut rows = Vec::with_capacity(a.len() + 1);
        rows.push(0u32);
        for row in &values {
            rows.push(rows[rows.len() - 1] + row.len() as u32);
        }
        self.rows = rows;
        self.fetched = values.into_iter().flatten().collect();
    }

    fn cross(&mut self, i: u32, j: u32) -> f32 {
        if let Some(d) = &self.dense {
            return d[i as usize * self.b.len() + j as usize];
        }
        if let Some(&r) = self.rows.get(i as usize) {
            let row = &self.fetched[r as usize..self.rows[i as usize + 1] as usize];
            if let Ok(at) = row.binary_search_by_key(&j, |x| x.0) {
                return row[at].1;
            }
        }
        let key = ((i as u64) << 32) | j as u64;
        if let Some(&d) = self.cross.get(&key) {
            return d;
        }
        let d = dot(&self.a.vecs[i as usize], &self.b.vecs[j as usize]);
        self.cross.insert(key, d);
        d
    }

    fn group_norm2(v: &Vectors, selfd: &[[f32; 3]], s0: u32, s1: u32) -> f32 {
        let mut n2 = 0f32;
        for i in s0..s1 {
            n2 += v.norm2[i as usize];
            for k in (i + 1)..s1 {
                // Neighbours up to three apart are cached; wider groups
                // (a whole slot, see `complete`) are rare.
                let d = match selfd[i as usize].get((k - i - 1) as usize) {
                    Some(&d) => d,
                    None => dot(&v.vecs[i as usize], &v.vecs[k as usize]),
                };
                n2 += 2.0 * d;
            }
        }
        n2
    }

    /// Cosine of the summed vectors of `A[a0..a1]` and `B[b0..b1]`.
    pub(super) fn group_cos(&mut self, a0: u32, a1: u32, b0: u32, b1: u32) -> f32 {
        let na = Self::group_norm2(self.a, &self.self_a, a0, a1);
        let nb = Self::group_norm2(self.b, &self.self_b, b0, b1);
        if na <= 0.0 || nb <= 0.0 {
            return 0.0;
        }
        let mut num = 0f32;
        for i in a0..a1 {
            for j in b0..b1 {
                num += self.cross(i, j);
            }
        }
        (num / (na * nb).sqrt()).clamp(0.0, 1.0)
    }
}

/// The dot products of the sentences of A and B that end a cell at `(i, j)`:
/// `a_{i−x} · b_{j−y}` for the offsets the [`SHAPES`] need, each taken from
/// [`Dots`] once per cell instead of once per shape.
struct Window {
    i: u32,
    j: u32,
    dot: [[f32; 4]; 4],
    known: [[bool; 4]; 4],
}

impl Window {
    fn new(i: u32, j: u32) -> Window {
        Window { i, j, dot: [[0.0; 4]; 4], known: [[false; 4]; 4] }
    }

    fn cross(&mut self, dots: &mut Dots, ai: u32, bj: u32) -> f32 {
        let (x, y) = ((self.i - ai) as usize, (self.j - bj) as usize);
        if !self.known[x][y] {
            self.dot[x][y] = dots.cross(ai, bj);
            self.known[x][y] = true;
        }
        self.dot[x][y]
    }

    /// An upper bound of the cosine of the groups `A[a0..=i]`, `B[b0..=j]`:
    /// the sum of the members' pairwise cosines. (With non-negative weights,
    /// each term of the group dot product divided by the group norms is at
    /// most that pair's cosine, as a group's norm is at least each
    /// member's.)
    fn cos_bound(&mut self, dots: &mut Dots, a0: u32, b0: u32) -> f32 {
        let mut bound = 0f32;
        for ai in a0..=self.i {
            for bj in b0..=self.j {
                let (na, nb) = (dots.a.norm2[ai as usize], dots.b.norm2[bj as usize]);
                if na > 0.0 && nb > 0.0 {
                    bound += self.cross(dots, ai, bj) / (na * nb).sqrt();
                }
            }
        }
        bound
    }

    /// [`Dots::group_cos`] of the groups ending here (same order of sums).
    fn group_cos(&mut self, dots: &mut Dots, a0: u32, b0: u32) -> f32 {
        let na = Dots::group_norm2(dots.a, &dots.self_a, a0, self.i + 1);
        let nb = Dots::group_norm2(dots.b, &dots.self_b, b0, self.j + 1);
        if na <= 0.0 || nb <= 0.0 {
            return 0.0;
        }
        let mut num = 0f32;
        for ai in a0..=self.i {
            for bj in b0..=self.j {
                num += self.cross(dots, ai, bj);
            }
        }
        (num / (na * nb).sqrt()).clamp(0.0, 1.0)
    }

    /// Do the end sentences of a group relate to the other side? The first
    /// and the last member of a group of two or more must each have a
    /// similarity of at least `bar` (the bridging bar) with the whole group
    /// opposite, so that a sentence with no counterpart is not absorbed into
    /// its neighbour's link. A middle member is held by the two around it,
    /// as a sandwiched sentence is in [`fill_gaps`]: an abridgement may keep
    /// little of it.
    fn members_relate(&mut self, dots: &mut Dots, a0: u32, b0: u32, bar: f32) -> bool {
        let (a1, b1) = (self.i + 1, self.j + 1);
        if a1 - a0 > 1 {
            let nb = Dots::group_norm2(dots.b, &dots.self_b, b0, b1);
            for ai in [a0, a1 - 1] {
                let num: f32 = (b0..b1).map(|bj| self.cross(dots, ai, bj)).sum();
                let na = dots.a.norm2[ai as usize];
                if na <= 0.0 || nb <= 0.0 || num / (na * nb).sqrt() < bar {
                    return false;
                }
            }
        }
        if b1 - b0 > 1 {
            let na = Dots::group_norm2(dots.a, &dots.self_a, a0, a1);
            for bj in [b0, b1 - 1] {
                let num: f32 = (a0..a1).map(|ai| self.cross(dots, ai, bj)).sum();
                let nb = dots.b.norm2[bj as usize];
                if na <= 0.0 || nb <= 0.0 || num / (na * nb).sqrt() < bar {
                    return false;
                }
            }
        }
        true
    }
}

/// A small deterministic generator for sampling background pairs.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The background assumed before any sample is seen: typical of unrelated
/// sentences of Chinese and English prose under these features (measured on
/// the zh-variants and en-bible corpora: means 0.008–0.015, deviations
/// 0.02–0.04, over all sentence pairs).
const PRIOR_MEAN: f64 = 0.015;
const PRIOR_SD: f64 = 0.03;
/// How many sampled pairs the prior is worth.
const PRIOR_WEIGHT: f64 = 200.0;

/// Similarity of random sentence pairs of two texts.
pub(super) struct Background {
    /// Their mean similarity.
    pub(super) mean: f32,
    /// Its standard deviation.
    pub(super) sd: f32,
}

/// Mean and standard deviation of the similarity of up to 4000 random
/// sentence pairs (a fixed seed: the same texts give the same sample).
pub(super) fn background(dots: &Dots) -> Background {
    let (a, b) = (dots.a, dots.b);
    let (n, m) = (a.len() as u64, b.len() as u64);
    let samples = (n * m).min(4000);
    if samples < 2 {
        return Background { mean: PRIOR_MEAN as f32, sd: PRIOR_SD as f32 };
    }
    let cos = |i: usize, j: usize, d: f32| {
        let (na, nb) = (a.norm2[i], b.norm2[j]);
        if na > 0.0 && nb > 0.0 {
            (d / (na * nb).sqrt()) as f64
        } else {
            0.0
        }
    };
    let (mut s1, mut s2) = (0f64, 0f64);
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ (n << 20) ^ m);
    for _ in 0..samples {
        let i = (rng.next() % n) as usize;
        let j = (rng.next() % m) as usize;
        let d = match &dots.dense {
            Some(d) => d[i * m as usize + j],
            None => dot(&a.vecs[i], &b.vecs[j]),
        };
        let c = cos(i, j, d);
        s1 += c;
        s2 += c * c;
    }
    // Few pairs say little about the background (and in a short pair the
    // true links are a large part of the sample): shrink towards the prior.
    let w = samples as f64 / (samples as f64 + PRIOR_WEIGHT);
    let mean = s1 / samples as f64;
    let sd = (s2 / samples as f64 - mean * mean).max(0.0).sqrt();
    Background { mean: (w * mean + (1.0 - w) * PRIOR_MEAN) as f32, sd: (w * sd + (1.0 - w) * PRIOR_SD) as f32 }
}

/// Candidate pairs `(i, j)`: each sentence's best partners by rare features.
///
/// Sentences of A are scored against B in parallel (rayon); the result is
/// sorted, so it does not depend on the thread count.
fn candidates(a: &Vectors, b: &Vectors, p: &ParallelParams) -> Vec<(u32, u32)> {
    use rayon::prelude::*;
    let mut postings: FxHashMap<Feature, Vec<(u32, f32)>> = FxHashMap::default();
    for (j, v) in b.vecs.iter().enumerate() {
        for &(f, w) in v {
            postings.entry(f).or_default().push((j as u32, w));
        }
    }
    postings.retain(|_, list| list.len() <= p.rare_cap);
    // Per sentence of A: its partners in B with their rare-feature cosine.
    let scored: Vec<Vec<(f32, u32)>> = (0..a.len())
        .into_par_iter()
        .map_init(
            || (vec![0f32; b.len()], Vec::<u32>::new()),
            |(acc, touched), i| {
                for &(f, w) in &a.vecs[i] {
                    if let Some(list) = postings.get(&f) {
                        for &(j, wb) in list {
                            if acc[j as usize] == 0.0 {
                                touched.push(j);
                            }
                            acc[j as usize] += w * wb;
                        }
                    }
                }
                let na = a.norm2[i].max(1e-12);
                touched
                    .drain(..)
                    .map(|j| {
                        let s = acc[j as usize] / (na * b.norm2[j as usize].max(1e-12)).sqrt();
                        acc[j as usize] = 0.0;
                        (s, j)
                    })
                    .collect::<Vec<(f32, u32)>>()
            },
        )
        .collect();
    // Best first; ties to the lower index (a total order, so the best k
    // are the same however they are found).
    let better = |x: &(f32, u32), y: &(f32, u32)| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1));
    let k = p.candidates;
    let mut out: Vec<(u32, u32)> = Vec::new();
    // Per sentence of B, its best k partners in A, kept sorted.
    let mut rev: Vec<Vec<(f32, u32)>> = vec![Vec::new(); if k > 0 { b.len() } else { 0 }];
    for (i, mut best) in scored.into_iter().enumerate() {
        if k == 0 {
            break;
        }
        for &(s, j) in &best {
            let top = &mut rev[j as usize];
            let at = top.partition_point(|x| better(x, &(s, i as u32)).is_lt());
            if at < k {
                if top.len() == k {
                    top.pop();
                }
                top.insert(at, (s, i as u32));
            }
        }
        if best.len() > k {
            best.select_nth_unstable_by(k - 1, better);
            best.truncate(k);
        }
        out.extend(best.iter().map(|&(_, j)| (i as u32, j)));
    }
    for (j, top) in rev.iter().enumerate() {
        out.extend(top.iter().map(|&(_, i)| (i, j as u32)));
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[derive(Clone, Copy, Debug)]
struct Cell {
    i: u32,
    j: u32,
    h: f32,
    da: u32,
    db: u32,
    sim: f32,
    /// Index of the previous link's cell, or `u32::MAX` at a chain start.
    back: u32,
}

/// The chains of lexical evidence between two texts' sentence vectors
/// (see the module doc), best first, with the sandwiched sentences that
/// clear the fill bar linked; `background` and `tau` are the pair's.
pub(super) fn lexical_chains(
    a: &Vectors,
    b: &Vectors,
    p: &ParallelParams,
    dots: &mut Dots,
    background: &Background,
    tau: f32,
) -> Vec<Chain> {
    let tau_bridge = (background.mean + p.bridge_sigmas * background.sd).max(p.min_threshold / 2.0);
    let cands = candidates(a, b, p);
    // Cells: ends of groups near a candidate.
    let (n, m) = (a.len() as u32, b.len() as u32);
    let mut cells_ij: Vec<(u32, u32)> = Vec::with_capacity(cands.len() * 16);
    for &(i, j) in &cands {
        for (di, dj) in CELL_OFFSETS {
            if i + di < n && j + dj < m {
                cells_ij.push((i + di, j + dj));
            }
        }
    }
    cells_ij.sort_unstable();
    cells_ij.dedup();
    // Every dot product the cells' windows may ask for, at once.
    let mut wanted: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
    for &(i, j) in &cells_ij {
        for (x, y) in WINDOW {
            if x <= i && y <= j {
                wanted[(i - x) as usize].push(j - y);
            }
        }
    }
    dots.prefetch(wanted);

    let mut cells: Vec<Cell> = Vec::new();
    // rows[i] = (j, cell index) of stored cells in row i, by increasing j.
    let mut rows: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n as usize];
    for &(i, j) in &cells_ij {
        let mut best: Option<Cell> = None;
        let mut window = Window::new(i, j);
        for &(da, db) in &SHAPES {
            if da > i + 1 || db > j + 1 {
                continue;
            }
            let (a0, b0) = (i + 1 - da, j + 1 - db);
            if (da > 1 && a.heading[a0 as usize..=i as usize].contains(&true))
                || (db > 1 && b.heading[b0 as usize..=j as usize].contains(&true))
            {
                continue;
            }
            let size = (da + db) as f32;
            // A group that cannot clear τ plus its step is never taken (see
            // below): skip it without its exact cosine.
            if size > 2.0 && window.cos_bound(dots, a0, b0) <= tau + p.step * (size - 2.0) {
                continue;
            }
            let sim = window.group_cos(dots, a0, b0);
            if !window.members_relate(dots, a0, b0, tau_bridge) {
                continue;
            }
            let s = (sim - tau - p.step * (size - 2.0)) * size / 2.0;
            // A link below the threshold may still bridge two good ones
            // (cheaper than skipping its sentences), but it starts nothing,
            // and it must still stand out from the background.
            if s <= 0.0 && (size > 2.0 || sim < tau_bridge || s <= -p.skip * size) {
                continue;
            }
            // Best predecessor: a cell ending at (i', j') with i' < a0, j' < b0.
            let (mut pred, mut back) = (0f32, u32::MAX);
            if a0 > 0 && b0 > 0 {
                let lo_i = a0.saturating_sub(p.gap.saturating_add(1));
                for pi in lo_i..a0 {
                    let row = &rows[pi as usize];
                    let lo_j = b0.saturating_sub(p.gap.saturating_add(1));
                    let start = row.partition_point(|x| x.0 < lo_j);
                    for &(pj, idx) in &row[start..] {
                        if pj >= b0 {
                            break;
                        }
                        let gaps = (a0 - 1 - pi) + (b0 - 1 - pj);
                        let v = cells[idx as usize].h - p.skip * gaps as f32;
                        if v > pred {
                            pred = v;
                            back = idx;
                        }
                    }
                }
            }
            let h = s + pred;
            if h <= 0.0 || (s <= 0.0 && back == u32::MAX) {
                continue;
            }
            if best.is_none_or(|c| h > c.h) {
                best = Some(Cell { i, j, h, da, db, sim, back });
            }
        }
        if let Some(c) = best {
            rows[i as usize].push((j, cells.len() as u32));
            cells.push(c);
        }
    }
    let mut chains = extract(&cells, n, m, p);
    // Chains come best first: the best must reach `min_chain`, the others
    // `min_chain_related`.
    if chains.first().is_some_and(|c| c.score < p.min_chain) {
        chains.clear();
    }
    let mut first = true;
    chains.retain(|c| std::mem::take(&mut first) || c.score >= p.min_chain_related);
    let fill = background.mean + p.fill_sigmas * background.sd;
    for c in &mut chains {
        fill_gaps(c, dots, fill);
    }
    chains
}

/// Link the sentences sandwiched between two links of a chain.
///
/// Where one or two sentences on *each* side lie between two consecutive
/// links, their position alone makes them likely counterparts; they are
/// linked as one group if their similarity clears the low bar `fill`
/// (the background mean plus `fill_sigmas` deviations).
fn fill_gaps(c: &mut Chain, dots: &mut Dots, fill: f32) {
    let mut out = Vec::with_capacity(c.links.len());
    for k in 0..c.links.len() {
        let l = c.links[k];
        if let Some(prev) = out.last().copied() {
            let prev: SentLink = prev;
            let (ga, gb) = (l.a0 - prev.a1, l.b0 - prev.b1);
            if (1..=2).contains(&ga) && (1..=2).contains(&gb) {
                let sim = dots.group_cos(prev.a1, l.a0, prev.b1, l.b0);
                if sim >= fill {
                    out.push(SentLink {
                        a0: prev.a1,
                        a1: l.a0,
                        b0: prev.b1,
                        b1: l.b0,
                        sim,
                        meaning: None,
                        filled: false,
                    });
                }
            }
        }
        out.push(l);
    }
    c.links = out;
}

/// Pull non-overlapping chains out of the filled cells, best first.
fn extract(cells: &[Cell], n: u32, m: u32, p: &ParallelParams) -> Vec<Chain> {
    let mut order: Vec<u32> = (0..cells.len() as u32).collect();
    order.sort_unstable_by(|&x, &y| {
        let (cx, cy) = (&cells[x as usize], &cells[y as usize]);
        cy.h.total_cmp(&cx.h).then(cx.i.cmp(&cy.i)).then(cx.j.cmp(&cy.j))
    });
    let mut used_a = vec![false; n as usize];
    let mut used_b = vec![false; m as usize];
    let mut done = vec![false; cells.len()];
    let mut chains = Vec::new();
    let mut path: Vec<u32> = Vec::new();
    for &end in &order {
        let low = p.min_chain.min(p.min_chain_related);
        if done[end as usize] || cells[end as usize].h < low {
            continue;
        }
        path.clear();
        let mut k = end;
        let mut floor = 0f32;
        while k != u32::MAX {
            let c = &cells[k as usize];
            let (a0, b0) = (c.i + 1 - c.da, c.j + 1 - c.db);
            let clash = (a0..=c.i).any(|x| used_a[x as usize]) || (b0..=c.j).any(|x| used_b[x as usize]);
            if clash {
                floor = c.h;
                break;
            }
            done[k as usize] = true;
            path.push(k);
            k = c.back;
        }
        let score = cells[end as usize].h - floor;
        if path.is_empty() || score < low {
            continue;
        }
        path.reverse();
        let links: Vec<SentLink> = path
            .iter()
            .map(|&k| {
                let c = &cells[k as usize];
                SentLink {
                    a0: c.i + 1 - c.da,
                    a1: c.i + 1,
                    b0: c.j + 1 - c.db,
                    b1: c.j + 1,
                    sim: c.sim,
                    meaning: None,
                    filled: false,
                }
            })
            .collect();
        for l in &links {
            used_a[l.a0 as usize..l.a1 as usize].iter_mut().for_each(|x| *x = true);
            used_b[l.b0 as usize..l.b1 as usize].iter_mut().for_each(|x| *x = true);
        }
        chains.push(Chain { links, score, nulls: Vec::new() });
    }
    chains
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sparse vectors with keys from a small vocabulary, so that sentences
    /// share some features and not others.
    fn vectors(seed: u64, n: usize) -> Vectors {
        let mut rng = XorShift(seed);
        let mut v = Vectors::default();
        for _ in 0..n {
            let mut s: Vec<(Feature, f32)> =
                (0..1 + rng.next() % 30).map(|_| (rng.next() % 200, 0.1 + (rng.next() % 100) as f32 / 50.0)).collect();
            s.sort_unstable_by_key(|x| x.0);
            s.dedup_by_key(|x| x.0);
            v.norm2.push(s.iter().map(|x| x.1 * x.1).sum());
            v.vecs.push(s);
            v.heading.push(false);
            v.len.push(10.0);
        }
        v
    }

    #[test]
    fn the_window_holds_every_pair_a_shape_is_made_of() {
        for (da, db) in SHAPES {
            for x in 0..da {
                for y in 0..db {
                    assert!(WINDOW.contains(&(x, y)), "shape {da}-{db} needs ({x}, {y})");
                }
            }
        }
    }

    #[test]
    fn prefetched_dot_products_equal_those_computed_on_demand() {
        // Over the dense limit, so that `cross` computes and caches.
        let (a, b) = (vectors(3, 600), vectors(5, 500));
        let mut fetched = Dots::new(&a, &b);
        assert!(fetched.dense.is_none());
        // Rows in any order, with repeats; row 599 left out.
        let wanted: Vec<Vec<u32>> = (0..599u32).map(|i| vec![7, i % 500, 7]).collect();
        fetched.prefetch(wanted);
        let mut lazy = Dots::new(&a, &b);
        for i in 0..600u32 {
            for j in [i % 500, 7, (i * 13) % 500] {
                assert_eq!(fetched.cross(i, j).to_bits(), lazy.cross(i, j).to_bits(), "({i}, {j})");
            }
        }
    }

    #[test]
    fn dense_dot_products_equal_the_merged_ones() {
        let (a, b) = (vectors(7, 40), vectors(11, 33));
        let d = dense_dots(&a, &b);
        for i in 0..a.len() {
            for j in 0..b.len() {
                let merged = dot(&a.vecs[i], &b.vecs[j]);
                assert!((d[i * b.len() + j] - merged).abs() <= 1e-4 * merged.max(1.0), "{i},{j}");
            }
        }
    }

    #[test]
    fn the_group_bound_is_never_below_the_group_cosine() {
        let (a, b) = (vectors(3, 12), vectors(5, 12));
        let mut dots = Dots::new(&a, &b);
        for i in 3..12u32 {
            for j in 3..12u32 {
                let mut w = Window::new(i, j);
                for &(da, db) in &SHAPES {
                    let (a0, b0) = (i + 1 - da, j + 1 - db);
                    let bound = w.cos_bound(&mut dots, a0, b0);
                    let cos = w.group_cos(&mut dots, a0, b0);
                    assert!(cos <= bound + 1e-5, "{i},{j} {da}-{db}: {cos} > {bound}");
                    assert_eq!(cos, dots.group_cos(a0, i + 1, b0, j + 1));
                }
            }
        }
    }
}
