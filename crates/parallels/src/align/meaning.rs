//! Meaning as evidence: sentence vectors from the [`crate::encoder`] where
//! lexical evidence runs out.
//!
//! Two uses, both local:
//!
//! * **Completion** ([`super::complete`]): between two anchors of a chain,
//!   a reworded sentence (`水手们！` / `伙计们！`) shares nothing lexical with
//!   its counterpart, but its meaning does. The similarity of the sentence
//!   vectors, as a z-score against the pair's background, is OR-ed with the
//!   lexical one (the larger of the two counts), never averaged with it:
//!   each is strong where the other is weak. Only the sentences in slots
//!   are encoded, so a pair of long versions pays for a few hundred
//!   sentences, not for all of them.
//! * **Across languages** (`anchor_chains`): a translation and its
//!   original share almost no characters. Every sentence of both texts is
//!   encoded; each side's vectors are centred on their own mean (which
//!   removes most of what the vectors say about the language rather than
//!   the content) and renormalized; sentence pairs that are each other's
//!   best match and stand out from the background become anchors; runs of
//!   anchors in order on both sides become chains, which completion then
//!   fills as it does for lexical chains, with length and meaning.
//!
//! Meaning is never searched globally in a pair of one language: against
//! the sentences of a different book on the same events, a good share of
//! sentence pairs look alike in meaning. Inside a slot between two anchors
//! there are only a few candidates, and position has already spoken.

use std::ops::Range;

use crate::encoder::{self, Encoder, DIM};

use super::chain::{Chain, SentLink};

/// The background of centred vectors assumed before any sample is seen:
/// the cosine of random sentence pairs of two texts in two languages,
/// each side centred on its mean (measured on the six mac-dev chapters,
/// textberg-dev and Mark in Chinese against English: means within 0.0003
/// of 0, deviations 0.100–0.115).
const CENTRED_PRIOR_MEAN: f32 = 0.0;
const CENTRED_PRIOR_SD: f32 = 0.11;
/// How many sampled pairs the prior is worth.
const CENTRED_PRIOR_PAIRS: f32 = 200.0;

/// Sentences sampled per side for the background of a pair.
const BACKGROUND_SENTENCES: usize = 64;

/// Sentence vectors of two texts, encoded when first needed.
pub struct Meaning<'t> {
    /// The encoder the pair's sentences are encoded with.
    encoder: &'t Encoder,
    texts: [Vec<&'t str>; 2],
    vectors: [Vec<f32>; 2],
    /// The encoder's pooled rows of the sentences ([`encoder::Pooled`]),
    /// kept to make the vectors of groups of sentences
    /// ([`Meaning::region_groups`]) when made [`Meaning::with_groups`];
    /// empty otherwise.
    pooled: [Vec<f32>; 2],
    /// Token counts of the pooled rows (empty when they are not kept).
    tokens: [Vec<f32>; 2],
    have: [Vec<bool>; 2],
    /// Whether the background has been measured (on first use).
    measured: bool,
    /// Mean and deviation of the cosine of random sentence pairs.
    pub(super) mean: f32,
    pub(super) sd: f32,
}

/// The text of each sentence: `spans` are code-point ranges, in order.
pub(super) fn sentence_texts(text: &str, spans: impl Iterator<Item = (u32, u32)>) -> Vec<&str> {
    let mut bytes = text.char_indices().map(|(b, _)| b).chain(std::iter::once(text.len()));
    let (mut at, mut byte) = (0u32, bytes.next().unwrap_or(0));
    let mut to = |cp: u32| {
        while at < cp {
            byte = bytes.next().unwrap_or(text.len());
            at += 1;
        }
        byte
    };
    let mut out = Vec::new();
    for (start, end) in spans {
        let s = to(start);
        let e = to(end.max(start));
        out.push(&text[s..e]);
    }
    out
}

/// Sentences read as one text: joined with a space, or with nothing when
/// they are written mostly in Chinese or Japanese characters (which run on
/// without spaces; Korean's hangul does not).
pub(super) fn join_sentences(sentences: &[&str]) -> String {
    let (mut cjk, mut other) = (0usize, 0usize);
    for c in sentences.iter().flat_map(|s| s.chars()).filter(|c| c.is_alphanumeric()) {
        if crate::chars::is_cjk(c) && !matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    let sep = if cjk > other { "" } else { " " };
    sentences.iter().map(|s| s.trim()).collect::<Vec<_>>().join(sep)
}

impl<'t> Meaning<'t> {
    /// Vectors for the sentences `a` and `b` of two texts; the background
    /// is measured on a sample of each.
    ///
    /// Nothing is encoded until asked for: a pair whose chains leave no
    /// slot costs nothing.
    pub fn new(encoder: &'t Encoder, a: Vec<&'t str>, b: Vec<&'t str>) -> Meaning<'t> {
        let (n, m) = (a.len(), b.len());
        Meaning {
            encoder,
            texts: [a, b],
            vectors: [vec![0.0; n * DIM], vec![0.0; m * DIM]],
            pooled: [Vec::new(), Vec::new()],
            tokens: [Vec::new(), Vec::new()],
            have: [vec![false; n], vec![false; m]],
            measured: false,
            mean: 0.0,
            sd: 1.0,
        }
    }

    /// As [`Meaning::new`], keeping each encoded sentence's pooled row as
    /// well (2 KB a sentence), for the vectors of groups of sentences
    /// of a pair aligned completely ([`super::beads`]).
    pub fn with_groups(encoder: &'t Encoder, a: Vec<&'t str>, b: Vec<&'t str>) -> Meaning<'t> {
        let mut meaning = Meaning::new(encoder, a, b);
        for side in 0..2 {
            let n = meaning.texts[side].len();
            meaning.pooled[side] = vec![0.0; n * DIM];
            meaning.tokens[side] = vec![0.0; n];
        }
        meaning
    }

    /// As [`Meaning::with_groups`], for sentences already encoded: `pooled`
    /// holds every sentence's pooled row on each side, as
    /// [`Encoder::encode_pooled`] made them (corpus mining encodes every
    /// sentence once, and the pair it hands to the aligner is not encoded
    /// again). The vectors are the same as encoding the texts here gives.
    ///
    /// # Panics
    ///
    /// If a side's pooled rows are not one per sentence.
    pub fn encoded(
        encoder: &'t Encoder,
        a: Vec<&'t str>,
        b: Vec<&'t str>,
        pooled: [&encoder::Pooled; 2],
    ) -> Meaning<'t> {
        let mut meaning = Meaning::new(encoder, a, b);
        for (side, p) in pooled.into_iter().enumerate() {
            assert_eq!(p.len(), meaning.texts[side].len(), "one pooled row per sentence");
            meaning.vectors[side] = encoder.finish(p.flat().to_vec(), p.tokens()).rows().flatten().copied().collect();
            meaning.pooled[side] = p.flat().to_vec();
            meaning.tokens[side] = p.tokens().to_vec();
            meaning.have[side].iter_mut().for_each(|h| *h = true);
        }
        meaning
    }

    /// The sentences of side `side` (0: A, 1: B).
    pub fn texts(&self, side: usize) -> &[&'t str] {
        &self.texts[side]
    }

    fn row(&self, side: usize, i: u32) -> &[f32] {
        &self.vectors[side][i as usize * DIM..][..DIM]
    }

    /// Mean and deviation of the cosines of the sampled sentences.
    fn background(&mut self, sa: &[u32], sb: &[u32]) {
        let (mut s1, mut s2, mut k) = (0f64, 0f64, 0f64);
        for &i in sa {
            for &j in sb {
                let c = encoder::dot(self.row(0, i), self.row(1, j)) as f64;
                s1 += c;
                s2 += c * c;
                k += 1.0;
            }
        }
        if k >= 2.0 {
            let mean = s1 / k;
            self.mean = mean as f32;
            self.sd = ((s2 / k - mean * mean).max(0.0).sqrt() as f32).max(0.02);
        }
    }

    /// Encode the sentences `a` of A and `b` of B that are not yet, in one
    /// batch.
    pub(super) fn ensure(&mut self, a: &[u32], b: &[u32]) {
        if !self.measured {
            // The first request also encodes the background sample, in
            // the same batch.
            self.measured = true;
            let sample = |len: usize| -> Vec<u32> {
                let k = len.min(BACKGROUND_SENTENCES);
                (0..k).map(|i| (i * len / k) as u32).collect()
            };
            let (sa, sb) = (sample(self.have[0].len()), sample(self.have[1].len()));
            let (ra, rb) = ([a, &sa].concat(), [b, &sb].concat());
            self.ensure(&ra, &rb);
            self.background(&sa, &sb);
            return;
        }
        let mut missing: Vec<(usize, u32)> = Vec::new();
        for (side, list) in [(0, a), (1, b)] {
            for &i in list {
                if !self.have[side][i as usize] {
                    self.have[side][i as usize] = true;
                    missing.push((side, i));
                }
            }
        }
        if missing.is_empty() {
            return;
        }
        missing.sort_unstable();
        missing.dedup();
        let texts: Vec<&str> = missing.iter().map(|&(side, i)| self.texts[side][i as usize]).collect();
        let encoder = self.encoder;
        let pooled = encoder.encode_pooled(&texts);
        let vectors = encoder.finish(pooled.flat().to_vec(), pooled.tokens());
        for (k, (&(side, i), v)) in missing.iter().zip(vectors.rows()).enumerate() {
            let at = i as usize * DIM;
            self.vectors[side][at..][..DIM].copy_from_slice(v);
            if !self.tokens[side].is_empty() {
                self.pooled[side][at..][..DIM].copy_from_slice(pooled.row(k));
                self.tokens[side][i as usize] = pooled.tokens()[k];
            }
        }
    }

    /// The cosine of the summed vectors of `A[a0..a1]` and `B[b0..b1]`,
    /// encoding what is missing.
    pub(super) fn group_cos(&mut self, a0: u32, a1: u32, b0: u32, b1: u32) -> f32 {
        let have = |side: usize, range: Range<u32>| range.into_iter().all(|i| self.have[side][i as usize]);
        if !(self.measured && have(0, a0..a1) && have(1, b0..b1)) {
            self.ensure(&(a0..a1).collect::<Vec<_>>(), &(b0..b1).collect::<Vec<_>>());
        }
        let sum = |side: usize, range: Range<u32>| {
            let mut v = [0f32; DIM];
            for i in range {
                v.iter_mut().zip(self.row(side, i)).for_each(|(x, y)| *x += y);
            }
            v
        };
        let (va, vb) = (sum(0, a0..a1), sum(1, b0..b1));
        let (na, nb) = (encoder::dot(&va, &va), encoder::dot(&vb, &vb));
        if na <= 0.0 || nb <= 0.0 {
            return 0.0;
        }
        encoder::dot(&va, &vb) / (na * nb).sqrt()
    }

    /// The z-score of a cosine against the pair's background.
    pub(super) fn z(&self, cos: f32) -> f32 {
        (cos - self.mean) / self.sd
    }

    /// The vectors of every group of 1 to `max` consecutive sentences of a
    /// region, per side: `out[side][k - 1]` holds, for each start sentence
    /// `s` of the region (relative to its first), the vector of sentences
    /// `s..s + k` read as one text, [`DIM`] values a group.
    ///
    /// A group's vector is made from the sentences' pooled rows added up
    /// ([`encoder::Pooled`]), less the begin and end markers of every
    /// sentence but the first and last: what encoding the group's text
    /// gives but for the convolution windows at each junction. On mac-dev
    /// that scores strict F1 0.872 against 0.879 for encoding each group's
    /// text, at a tenth of the encoding (a group of k sentences costs the
    /// network's last layers, not k times the tokens).
    ///
    /// The pooled rows are those kept by a [`Meaning::with_groups`]; a
    /// plain [`Meaning::new`] encodes the region's sentences again.
    pub(super) fn region_groups(&mut self, r: super::chain::Region, max: u32) -> [Vec<Vec<f32>>; 2] {
        self.ensure(&(r.a0..r.a1).collect::<Vec<_>>(), &(r.b0..r.b1).collect::<Vec<_>>());
        let encoder = self.encoder;
        let markers = encoder.encode_pooled(&[""]);
        let (marker, marker_tokens) = (markers.row(0), markers.tokens()[0]);
        let mut out: [Vec<Vec<f32>>; 2] = [Vec::new(), Vec::new()];
        for (side, (s0, s1)) in [(0, (r.a0, r.a1)), (1, (r.b0, r.b1))] {
            let (s0, s1) = (s0 as usize, s1 as usize);
            let n = s1 - s0;
            let encoded;
            let (pooled, counts): (&[f32], &[f32]) = if self.tokens[side].is_empty() {
                encoded = encoder.encode_pooled(&self.texts[side][s0..s1]);
                (encoded.flat(), encoded.tokens())
            } else {
                (&self.pooled[side][s0 * DIM..s1 * DIM], &self.tokens[side][s0..s1])
            };
            for k in 1..=(max as usize) {
                let count = (n + 1).saturating_sub(k);
                let mut rows = vec![0f32; count * DIM];
                let mut tokens = vec![0f32; count];
                for (s, (row, t)) in rows.chunks_exact_mut(DIM).zip(&mut tokens).enumerate() {
                    let junctions = (k - 1) as f32;
                    row.iter_mut().zip(marker).for_each(|(x, m)| *x = -junctions * m);
                    *t = -junctions * marker_tokens;
                    for i in s..s + k {
                        row.iter_mut().zip(&pooled[i * DIM..][..DIM]).for_each(|(x, y)| *x += y);
                        *t += counts[i];
                    }
                }
                out[side].push(encoder.finish(rows, &tokens).rows().flatten().copied().collect());
            }
        }
        out
    }

    /// The vectors of groups of consecutive sentences of side `side`
    /// (`(first, count)`, whole-text indices), each encoded from its own
    /// text: the sentences joined, with a space between two unless the
    /// junction is between CJK characters. What [`Meaning::region_groups`]
    /// comes near from pooled rows, at the cost of encoding the groups'
    /// tokens again; [`DIM`] values a group.
    pub(super) fn own_groups(&self, side: usize, groups: &[(u32, u32)]) -> Vec<f32> {
        let texts: Vec<String> = groups
            .iter()
            .map(|&(first, count)| join_sentences(&self.texts[side][first as usize..(first + count) as usize]))
            .collect();
        self.encoder.encode(&texts).rows().flatten().copied().collect()
    }

    /// Encode every sentence, centre each side on its mean and renormalize,
    /// and measure the background again on the centred vectors.
    fn centre_all(&mut self) {
        let (n, m) = (self.have[0].len() as u32, self.have[1].len() as u32);
        self.ensure(&(0..n).collect::<Vec<_>>(), &(0..m).collect::<Vec<_>>());
        for side in 0..2 {
            let rows = self.have[side].len();
            if rows == 0 {
                continue;
            }
            let mut mean = [0f32; DIM];
            for row in self.vectors[side].chunks_exact(DIM) {
                mean.iter_mut().zip(row).for_each(|(x, y)| *x += y / rows as f32);
            }
            for row in self.vectors[side].chunks_exact_mut(DIM) {
                row.iter_mut().zip(&mean).for_each(|(x, y)| *x -= y);
                let norm = encoder::dot(row, row).sqrt();
                if norm > 0.0 {
                    row.iter_mut().for_each(|x| *x /= norm);
                }
            }
        }
        let sample = |len: u32| -> Vec<u32> {
            let k = len.min(4 * BACKGROUND_SENTENCES as u32);
            (0..k).map(|i| (i as u64 * len as u64 / k as u64) as u32).collect()
        };
        let (sa, sb) = (sample(n), sample(m));
        self.background(&sa, &sb);
        // Few pairs say little of the background, and in two short texts
        // the true pairs are much of the sample: shrunk towards the prior.
        let w = (sa.len() * sb.len()) as f32 / ((sa.len() * sb.len()) as f32 + CENTRED_PRIOR_PAIRS);
        self.mean = w * self.mean + (1.0 - w) * CENTRED_PRIOR_MEAN;
        self.sd = w * self.sd + (1.0 - w) * CENTRED_PRIOR_SD;
    }
}

/// Anchors may lie this many sentences apart on a side and stay in one
/// chain.
const ANCHOR_GAP: u32 = 8;
/// Cost of each sentence skipped between two anchors of a chain.
const ANCHOR_SKIP: f32 = 0.05;
/// Least z-score of an anchor against the (centred) background.
const ANCHOR_Z: f32 = 2.5;
/// Fewest anchors of a chain across languages.
const MIN_ANCHORS: usize = 3;
/// Least score (anchors less skipped sentences) of the best chain of a
/// pair: what makes two texts in two languages related. Three anchors a
/// few sentences apart turn up by chance between a story and a long book
/// (a quake, a night, a promise); half a dozen in a row do not.
const RELATED_SCORE: f32 = 5.0;
/// Share of the shorter text's sentences that a chain of anchors in a
/// row must cover to relate two texts shorter than [`RELATED_SCORE`]
/// allows for (two short poems, a paragraph and its translation).
const RELATED_SHARE: f32 = 0.75;

/// Chains of anchors between two texts in different languages: mutual
/// best matches of centred sentence vectors, in order on both sides.
/// Headings (`heading_a`, `heading_b`) anchor only with headings.
pub(super) fn anchor_chains(meaning: &mut Meaning, heading_a: &[bool], heading_b: &[bool]) -> Vec<Chain> {
    meaning.centre_all();
    let (n, m) = (heading_a.len(), heading_b.len());
    if n == 0 || m == 0 {
        return Vec::new();
    }
    // Best partner of each row and of each column, block by block of rows.
    let mut bt = vec![0f32; DIM * m];
    for j in 0..m {
        for (d, x) in meaning.row(1, j as u32).iter().enumerate() {
            bt[d * m + j] = *x;
        }
    }
    const BLOCK: usize = 256;
    let mut row_best = vec![(f32::NEG_INFINITY, u32::MAX); n];
    let mut col_best = vec![(f32::NEG_INFINITY, u32::MAX); m];
    let mut sims = vec![0f32; BLOCK * m];
    for start in (0..n).step_by(BLOCK) {
        let rows = BLOCK.min(n - start);
        let a = &meaning.vectors[0][start * DIM..(start + rows) * DIM];
        encoder::net::gemm(rows, DIM, m, a, DIM, &bt, m, &mut sims[..rows * m], m, 0.0);
        for r in 0..rows {
            let i = start + r;
            for (j, &s) in sims[r * m..(r + 1) * m].iter().enumerate() {
                if heading_a[i] != heading_b[j] {
                    continue;
                }
                if s > row_best[i].0 {
                    row_best[i] = (s, j as u32);
                }
                if s > col_best[j].0 {
                    col_best[j] = (s, i as u32);
                }
            }
        }
    }
    let anchors: Vec<(u32, u32, f32)> = (0..n)
        .filter_map(|i| {
            let (s, j) = row_best[i];
            (j != u32::MAX && col_best[j as usize].1 == i as u32 && meaning.z(s) >= ANCHOR_Z)
                .then_some((i as u32, j, s))
        })
        .collect();

    // Longest runs of anchors in order, as local alignments: each anchor
    // is worth one, each skipped sentence between two costs ANCHOR_SKIP.
    let mut h = vec![0f32; anchors.len()];
    let mut back = vec![usize::MAX; anchors.len()];
    for k in 0..anchors.len() {
        let (i, j, _) = anchors[k];
        h[k] = 1.0;
        for p in (0..k).rev() {
            let (pi, pj, _) = anchors[p];
            if i - pi - 1 > ANCHOR_GAP {
                break;
            }
            if pj >= j || j - pj - 1 > ANCHOR_GAP {
                continue;
            }
            let v = h[p] + 1.0 - ANCHOR_SKIP * ((i - pi - 1) + (j - pj - 1)) as f32;
            if v > h[k] {
                (h[k], back[k]) = (v, p);
            }
        }
    }
    let mut order: Vec<usize> = (0..anchors.len()).collect();
    order.sort_by(|&x, &y| h[y].total_cmp(&h[x]).then(x.cmp(&y)));
    let mut taken = vec![false; anchors.len()];
    let mut chains = Vec::new();
    for end in order {
        let mut path = Vec::new();
        let mut k = end;
        let mut floor = 0.0;
        while k != usize::MAX {
            if taken[k] {
                floor = h[k];
                break;
            }
            path.push(k);
            k = back[k];
        }
        path.iter().for_each(|&k| taken[k] = true);
        let related = RELATED_SCORE.min((RELATED_SHARE * n.min(m) as f32).max(MIN_ANCHORS as f32));
        if path.len() < MIN_ANCHORS || (chains.is_empty() && h[end] - floor < related) {
            continue;
        }
        path.reverse();
        let links = path
            .iter()
            .map(|&k| {
                let (i, j, s) = anchors[k];
                SentLink { a0: i, a1: i + 1, b0: j, b1: j + 1, sim: 0.0, meaning: Some(s), filled: false }
            })
            .collect();
        chains.push(Chain { links, score: h[end] - floor, nulls: Vec::new() });
    }
    chains
}

#[cfg(test)]
mod join_tests {
    use super::join_sentences;

    #[test]
    fn sentences_join_with_a_space_unless_chinese() {
        assert_eq!(join_sentences(&["Live or die!", " My word is my wand!'"]), "Live or die! My word is my wand!'");
        assert_eq!(join_sentences(&["他笑了。", "“好，明天见。”"]), "他笑了。“好，明天见。”");
        // Korean is written with spaces.
        assert_eq!(join_sentences(&["안녕하세요.", "반갑습니다."]), "안녕하세요. 반갑습니다.");
    }
}
