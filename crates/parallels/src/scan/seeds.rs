//! Seeds: winnowed token n-gram fingerprints, and the document pairs that
//! share enough of them.
//!
//! Every run of [`SeedParams::n`] tokens gets a 64-bit hash; of each window of
//! [`SeedParams::window`] consecutive hashes the smallest is kept
//! (winnowing), so a shared stretch of `n + window − 1` tokens always shares
//! at least one kept seed, while only about `2 / (window + 1)` of all n-grams
//! are kept.
//!
//! [`pairs`] reads the seeds sorted by hash (see [`crate::plumbing::sort`]); a hash
//! found in more than [`SeedParams::max_df`] documents is boilerplate and no
//! evidence. Every two documents of different groups sharing a hash get one
//! vote; pairs with at least [`SeedParams::min_seeds`] votes are candidates.
//! Both steps are sort-based, so memory does not grow with the corpus.
//!
//! A number is a slot in an n-gram: `1月13日电` and `2月7日电` hash alike,
//! so a template that differs only in its dates and figures (a weather
//! forecast, a dateline) is one n-gram shared by many documents, and its
//! document frequency says so. [`pairs`] also hands on the document
//! frequency of every seed found in two documents or more ([`SeedDf`]),
//! from which `significance` weighs each token of a passage.

use crate::plumbing::sort::{Record, Sorter};
use crate::segment::{Segmented, TokenKind, WILDCARD};
use std::io;

/// How seeds are taken and counted.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeedParams {
    /// Tokens per n-gram.
    pub n: usize,
    /// Winnowing window, in n-grams.
    pub window: usize,
    /// Hashes in more documents than this are ignored.
    pub max_df: u32,
    /// Shared seeds a pair needs to be aligned.
    pub min_seeds: u32,
}

impl Default for SeedParams {
    fn default() -> Self {
        SeedParams { n: 5, window: 4, max_df: 100, min_seeds: 4 }
    }
}

/// A kept seed of one document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Seed {
    /// The hash of its n-gram.
    pub hash: u64,
    /// The document's number.
    pub doc: u32,
    /// The position of its first token.
    pub pos: u32,
}

impl Record for Seed {
    const SIZE: usize = 16;
    fn write(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.hash.to_le_bytes());
        out[8..12].copy_from_slice(&self.doc.to_le_bytes());
        out[12..16].copy_from_slice(&self.pos.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        Seed {
            hash: u64::from_le_bytes(b[..8].try_into().unwrap()),
            doc: u32::from_le_bytes(b[8..12].try_into().unwrap()),
            pos: u32::from_le_bytes(b[12..16].try_into().unwrap()),
        }
    }
}

/// One vote for a document pair (`a < b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Vote {
    /// The first document's number.
    pub a: u32,
    /// The other's (greater).
    pub b: u32,
}

impl Record for Vote {
    const SIZE: usize = 8;
    fn write(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.a.to_le_bytes());
        out[4..8].copy_from_slice(&self.b.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        Vote { a: u32::from_le_bytes(b[..4].try_into().unwrap()), b: u32::from_le_bytes(b[4..8].try_into().unwrap()) }
    }
}

/// The document frequency of one seed of a document found in at least two
/// documents: sorted by document and position, for [`crate::scan`]'s
/// significance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SeedDf {
    /// The document's number.
    pub doc: u32,
    /// The seed's position in it.
    pub pos: u32,
    /// The number of documents holding the seed.
    pub df: u32,
}

impl Record for SeedDf {
    const SIZE: usize = 12;
    fn write(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.doc.to_le_bytes());
        out[4..8].copy_from_slice(&self.pos.to_le_bytes());
        out[8..12].copy_from_slice(&self.df.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        SeedDf {
            doc: u32::from_le_bytes(b[..4].try_into().unwrap()),
            pos: u32::from_le_bytes(b[4..8].try_into().unwrap()),
            df: u32::from_le_bytes(b[8..12].try_into().unwrap()),
        }
    }
}

/// What a number token contributes to an n-gram hash: every number the
/// same slot.
const NUMBER_SLOT: u32 = WILDCARD - 1;

fn mix(mut h: u64, x: u32) -> u64 {
    h ^= x as u64;
    h = h.wrapping_mul(0x0100_0000_01b3);
    h ^ (h >> 29)
}

/// The winnowed seeds of one segmented document, as `(hash, token position)`.
pub fn seeds(seg: &Segmented, p: &SeedParams) -> Vec<(u64, u32)> {
    let toks = &seg.tokens;
    let n = p.n.max(1);
    if toks.len() < n {
        return Vec::new();
    }
    let hashes: Vec<Option<u64>> = (0..=toks.len() - n)
        .map(|i| {
            let w = &toks[i..i + n];
            if w.iter().any(|t| t.id == WILDCARD) {
                return None;
            }
            Some(w.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, t| {
                mix(h, if t.kind == TokenKind::Number { NUMBER_SLOT } else { t.id })
            }))
        })
        .collect();
    let w = p.window.max(1);
    let mut out: Vec<(u64, u32)> = Vec::new();
    let mut last: Option<usize> = None;
    for start in 0..hashes.len().saturating_sub(w - 1).max(1) {
        let end = (start + w).min(hashes.len());
        // The rightmost smallest hash of the window.
        let mut best: Option<(u64, usize)> = None;
        for (k, h) in hashes[start..end].iter().enumerate() {
            if let Some(h) = h {
                if best.is_none_or(|(b, _)| *h <= b) {
                    best = Some((*h, start + k));
                }
            }
        }
        if let Some((h, k)) = best {
            if last != Some(k) {
                out.push((h, k as u32));
                last = Some(k);
            }
        }
    }
    out
}

/// What [`pairs`] found besides the candidates.
#[derive(Clone, Debug, Default)]
pub struct PairStats {
    /// Distinct hashes seen.
    pub hashes: u64,
    /// Hashes shared by more than `max_df` documents, with their document
    /// frequency and one occurrence `(doc, pos)`, most frequent first (at
    /// most 20).
    pub boilerplate: Vec<(u32, u32, u32)>,
}

/// A candidate pair: documents `a < b` and the seeds they share.
pub type Candidate = (u32, u32, u32);

/// What the places of one hash (`run`, its seeds sorted) give, as
/// [`pairs`] settles each hash: returns its document frequency; every place
/// goes to `shared` with it when the hash is in two documents or more; and
/// when in at most `max_df` documents, every two of its documents `a < b`
/// for which `differ(a, b)` (not of one group) get a vote. `docs` is
/// scratch space.
pub fn settle_hash<E>(
    run: &[Seed],
    docs: &mut Vec<u32>,
    max_df: u32,
    differ: impl Fn(u32, u32) -> bool,
    mut shared: impl FnMut(SeedDf) -> Result<(), E>,
    mut vote: impl FnMut(Vote) -> Result<(), E>,
) -> Result<u32, E> {
    docs.clear();
    docs.extend(run.iter().map(|s| s.doc));
    docs.dedup();
    let df = docs.len() as u32;
    if df < 2 {
        return Ok(df);
    }
    for s in run {
        shared(SeedDf { doc: s.doc, pos: s.pos, df })?;
    }
    if df <= max_df {
        for (x, &a) in docs.iter().enumerate() {
            for &b in &docs[x + 1..] {
                if differ(a, b) {
                    vote(Vote { a, b })?;
                }
            }
        }
    }
    Ok(df)
}

/// Candidate pairs from seeds sorted by hash.
/// `group[doc]` is the document's group (documents of one group are never
/// paired). Every seed whose hash is in two documents or more goes to
/// `shared` with its document frequency.
pub fn pairs(
    sorted: impl Iterator<Item = io::Result<Seed>>,
    group: &[u32],
    p: &SeedParams,
    work: &std::path::Path,
    chunk: usize,
    shared: &mut Sorter<SeedDf>,
) -> io::Result<(Vec<Candidate>, PairStats)> {
    let mut votes: Sorter<Vote> = Sorter::new(work, "votes", chunk);
    let mut stats = PairStats::default();
    let mut run: Vec<Seed> = Vec::new();
    let mut docs: Vec<u32> = Vec::new();
    let mut flush = |run: &mut Vec<Seed>, stats: &mut PairStats, votes: &mut Sorter<Vote>| -> io::Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        stats.hashes += 1;
        let differ = |a: u32, b: u32| group[a as usize] == u32::MAX || group[a as usize] != group[b as usize];
        let df = settle_hash(run, &mut docs, p.max_df, differ, |s| shared.push(s), |v| votes.push(v))?;
        if df > p.max_df {
            stats.boilerplate.push((df, run[0].doc, run[0].pos));
            if stats.boilerplate.len() > 200 {
                stats.boilerplate.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
                stats.boilerplate.truncate(20);
            }
        }
        run.clear();
        Ok(())
    };
    for s in sorted {
        let s = s?;
        if run.last().is_some_and(|l| l.hash != s.hash) {
            flush(&mut run, &mut stats, &mut votes)?;
        }
        run.push(s);
    }
    flush(&mut run, &mut stats, &mut votes)?;
    stats.boilerplate.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    stats.boilerplate.truncate(20);
    let mut out = Vec::new();
    let mut cur: Option<(Vote, u32)> = None;
    for v in votes.finish()? {
        let v = v?;
        match &mut cur {
            Some((c, k)) if *c == v => *k += 1,
            _ => {
                if let Some((c, k)) = cur {
                    if k >= p.min_seeds {
                        out.push((c.a, c.b, k));
                    }
                }
                cur = Some((v, 1));
            }
        }
    }
    if let Some((c, k)) = cur {
        if k >= p.min_seeds {
            out.push((c.a, c.b, k));
        }
    }
    Ok((out, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::{NormalizeOptions, Normalizer};
    use crate::segment::segment;

    fn seg(s: &str) -> Segmented {
        segment(&Normalizer::new(NormalizeOptions::default()).normalize(s))
    }

    #[test]
    fn a_shared_stretch_shares_a_seed() {
        let p = SeedParams::default();
        let shared = "城里的钟声响了整整一个上午召集市民";
        let a = seeds(&seg(&format!("甲乙丙丁戊己庚辛{shared}壬癸")), &p);
        let b = seeds(&seg(&format!("子丑寅{shared}卯辰巳午未申酉")), &p);
        let hb: std::collections::HashSet<u64> = b.iter().map(|x| x.0).collect();
        assert!(a.iter().filter(|x| hb.contains(&x.0)).count() >= 2);
    }

    #[test]
    fn texts_that_differ_only_in_numbers_share_their_seeds() {
        let p = SeedParams::default();
        let a = seeds(&seg("新华社北京1月13日电今天全国大部地区天气晴朗"), &p);
        let b = seeds(&seg("新华社北京２月七日电今天全国大部地区天气晴朗"), &p);
        assert_eq!(a, b);
    }

    #[test]
    fn winnowing_keeps_a_fraction_of_ngrams() {
        let text = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。".to_string();
        let s = seeds(&seg(&text), &SeedParams::default());
        let ngrams = seg(&text).tokens.len() - 4;
        assert!(s.len() * 2 < ngrams && !s.is_empty(), "{} of {ngrams}", s.len());
    }

    #[test]
    fn pairs_count_votes_skip_groups_and_boilerplate() {
        let dir = tempfile::tempdir().unwrap();
        let p = SeedParams { max_df: 2, min_seeds: 2, ..SeedParams::default() };
        let seeds = vec![
            // Hash 1 and 2: docs 0 and 1 (two votes). Hash 3: docs 0, 1, 2 (boilerplate).
            Seed { hash: 1, doc: 0, pos: 0 },
            Seed { hash: 1, doc: 1, pos: 5 },
            Seed { hash: 2, doc: 0, pos: 9 },
            Seed { hash: 2, doc: 1, pos: 14 },
            Seed { hash: 3, doc: 0, pos: 20 },
            Seed { hash: 3, doc: 1, pos: 20 },
            Seed { hash: 3, doc: 2, pos: 20 },
            // Hash 4 and 5: docs 2 and 3, one group.
            Seed { hash: 4, doc: 2, pos: 0 },
            Seed { hash: 4, doc: 3, pos: 0 },
            Seed { hash: 5, doc: 2, pos: 7 },
            Seed { hash: 5, doc: 3, pos: 7 },
        ];
        let group = [u32::MAX, u32::MAX, 7, 7];
        let mut shared = Sorter::new(dir.path(), "df", 1024);
        let (out, stats) = pairs(seeds.into_iter().map(Ok), &group, &p, dir.path(), 1024, &mut shared).unwrap();
        assert_eq!(out, vec![(0, 1, 2)]);
        assert_eq!(stats.boilerplate, vec![(3, 0, 20)]);
        assert_eq!(stats.hashes, 5);
        let shared: Vec<SeedDf> = shared.finish().unwrap().map(Result::unwrap).collect();
        let of_doc0: Vec<(u32, u32)> = shared.iter().filter(|s| s.doc == 0).map(|s| (s.pos, s.df)).collect();
        assert_eq!(of_doc0, vec![(0, 2), (9, 2), (20, 3)]);
        assert_eq!(shared.len(), 11);
    }
}
