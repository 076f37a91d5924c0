//! The pieces of a dedup split over many machines, each over a batch of
//! documents (the Spark driver of the Python package runs them per
//! partition), so that a distributed run computes exactly what
//! [`super::dedup`] computes on one machine:
//!
//! * [`sketches`]: MinHash signatures, exact-duplicate hashes and LSH band
//!   keys of a batch, as `dedup` sketches its corpus;
//! * [`bucket_pairs`]: the candidate pairs of a band bucket;
//! * [`settle_pairs`] and [`exact_similarities`]: `dedup`'s decision on
//!   candidate pairs (the kept document of each cluster is
//!   [`super::keeper`]'s).
//!
//! Every function works on the batch in parallel (rayon) and returns its
//! results in the order of the texts given. The same steps of a scan are
//! [`crate::scan::batch`].

use super::options::DedupOptions;
use super::verify::{self, Decision, Settle};
use super::{lsh, minhash};
use rayon::prelude::*;

/// The MinHash sketch of one document, with its LSH band keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandedSketch {
    /// Its signature ([`DedupOptions::perms`] values).
    pub signature: Vec<u32>,
    /// The hash of its whole normalized token sequence (`None` without
    /// tokens): equal for exact duplicates.
    pub exact: Option<u128>,
    /// Its tokens.
    pub tokens: u32,
    /// Its length in characters, as `dedup`'s `--keep longest` compares it.
    pub chars: u64,
    /// The key of each band of [`DedupOptions::bands`].
    pub bands: Vec<u64>,
}

/// The sketches of `texts` with the options of `opts`: the signatures and
/// band keys `dedup` makes, in the order of the texts.
pub fn sketches(texts: &[&str], opts: &DedupOptions) -> Vec<BandedSketch> {
    let hasher = opts.hasher();
    let b = opts.bands();
    texts
        .par_iter()
        .map(|t| {
            let mut tokens = Vec::with_capacity(t.len() / 3);
            let len = hasher.for_each_token(t, |id, _| tokens.push(id));
            let s = hasher.sketch_tokens(&tokens);
            let bands = (0..b.bands).map(|k| lsh::band_key(&s.signature, b, k)).collect();
            // As `dedup` counts: the normalizer's length, unless the text
            // was too long for it.
            let chars = if len < u32::MAX { len as u64 } else { t.chars().count() as u64 };
            BandedSketch { signature: s.signature, exact: s.exact, tokens: s.tokens, chars, bands }
        })
        .collect()
}

/// The pairs `dedup` compares in one bucket of documents sharing a band
/// key (`docs` in input order): each document with the earlier ones among
/// the first [`DedupOptions::bucket_cap`]. A distributed run takes the
/// same pairs (by each document's place in its bucket) so that its
/// clusters are those of one machine.
pub fn bucket_pairs<T: Copy + Ord>(docs: &[T], cap: usize) -> Vec<(T, T)> {
    let mut pairs = Vec::new();
    for (j, &b) in docs.iter().enumerate() {
        for &a in &docs[..j.min(cap)] {
            if a != b {
                pairs.push((a.min(b), a.max(b)));
            }
        }
    }
    pairs
}

/// The signatures' decision on candidate pairs `(a, b)` (signatures of
/// [`sketches`]) as `dedup` takes it, with their estimated similarity:
/// pairs [`Decision::Unsettled`] go to [`exact_similarities`].
pub fn settle_pairs(pairs: &[(&[u32], &[u32])], opts: &DedupOptions) -> Vec<(Decision, f64)> {
    let settle = Settle::of(opts);
    pairs.par_iter().map(|&(a, b)| (settle.decide(minhash::matches(a, b)), minhash::estimate(a, b))).collect()
}

/// The exact Jaccard similarity of each pair of texts, as `dedup`'s exact
/// check measures it (a pair is a duplicate at or above
/// [`DedupOptions::threshold`]).
pub fn exact_similarities(pairs: &[(&str, &str)], opts: &DedupOptions) -> Vec<f64> {
    let hasher = opts.hasher();
    pairs.par_iter().map(|&(a, b)| verify::exact_similarity(&hasher, a, b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::MinHasher;

    const A: &str = "天下大势，分久必合，合久必分。周末七国分争，并入于秦。及秦灭之后，楚、汉分争，又并入于汉。";
    const B: &str = "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。";

    #[test]
    fn sketches_match_the_hasher_and_band_keys() {
        let opts = DedupOptions::default();
        let got = sketches(&[A, A, B], &opts);
        let s = MinHasher::with_normalizer(
            opts.ngram,
            opts.perms,
            crate::normalize::Normalizer::new(opts.normalize.clone()),
        )
        .sketch(A);
        assert_eq!(got[0].signature, s.signature);
        assert_eq!(got[0].exact, s.exact);
        assert_eq!(got[0], got[1]);
        assert_ne!(got[0].exact, got[2].exact);
        assert_eq!(got[0].bands.len(), opts.bands().bands);
        assert_eq!(got[0].bands[0], lsh::band_key(&s.signature, opts.bands(), 0));
    }

    #[test]
    fn bucket_pairs_take_the_first_of_a_bucket() {
        assert_eq!(bucket_pairs(&[1, 4, 7], 64), vec![(1, 4), (1, 7), (4, 7)]);
        assert_eq!(bucket_pairs(&[1, 4, 7, 9], 2), vec![(1, 4), (1, 7), (4, 7), (1, 9), (4, 9)]);
        assert!(bucket_pairs(&[3], 64).is_empty());
    }

    #[test]
    fn dedup_stages_give_the_clusters_of_dedup() {
        use crate::corpus::{resolve, CorpusOptions, CorpusReader};
        use crate::dedup::{dedup, Fate};
        use crate::plumbing::UnionFind;
        // A, a copy of A with one character changed, B, A again, an
        // unrelated text, and B with a sentence added.
        let a2 = A.replacen("七国", "七邦", 1);
        let b2 = format!("{B}刘备字玄德。");
        let c = "滚滚长江东逝水，浪花淘尽英雄。是非成败转头空，青山依旧在，几度夕阳红。";
        let texts = [A, a2.as_str(), B, A, c, b2.as_str()];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docs.jsonl");
        let lines: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(k, t)| serde_json::json!({"id": k.to_string(), "text": t}).to_string())
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let mut unsettled = 0;
        for threshold in [0.5, 0.8] {
            let opts = DedupOptions { threshold, ngram: 3, ..DedupOptions::default() };
            let mut reader =
                CorpusReader::new(resolve(std::slice::from_ref(&path)).unwrap(), CorpusOptions::default()).unwrap();
            let want = dedup(&mut reader, &opts, &crate::plumbing::Quiet).unwrap();

            // The stages: copies, band buckets, settled and exact pairs.
            let sk = sketches(&texts, &opts);
            let mut uf = UnionFind::new(texts.len());
            let mut buckets: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
            for (d, s) in sk.iter().enumerate() {
                match sk[..d].iter().position(|e| e.exact == s.exact) {
                    Some(first) => {
                        uf.union(first as u32, d as u32);
                    }
                    None => s.bands.iter().for_each(|&k| buckets.entry(k).or_default().push(d as u32)),
                }
            }
            let mut pairs: Vec<(u32, u32)> = buckets.values().flat_map(|b| bucket_pairs(b, opts.bucket_cap)).collect();
            pairs.sort_unstable();
            pairs.dedup();
            let sigs: Vec<(&[u32], &[u32])> =
                pairs.iter().map(|&(a, b)| (&sk[a as usize].signature[..], &sk[b as usize].signature[..])).collect();
            for (&(a, b), (decision, _)) in pairs.iter().zip(settle_pairs(&sigs, &opts)) {
                let similar = match decision {
                    Decision::Duplicate => true,
                    Decision::Distinct => false,
                    Decision::Unsettled => {
                        unsettled += 1;
                        exact_similarities(&[(texts[a as usize], texts[b as usize])], &opts)[0] >= threshold
                    }
                };
                if similar {
                    uf.union(a, b);
                }
            }
            for (d, doc) in want.docs.iter().enumerate() {
                let root = uf.find(d as u32);
                match doc.fate {
                    // Kept first of its cluster: the smallest index.
                    Fate::Kept => assert_eq!(root, d as u32, "{threshold} {d}"),
                    Fate::Removed { of, .. } => assert_eq!(root, of, "{threshold} {d}"),
                    Fate::Trimmed(_) => unreachable!(),
                }
            }
            // Something was found: A's copies; at 0.5, B (half of A's
            // shingles) and its longer copy too.
            assert!(matches!(want.docs[3].fate, Fate::Removed { of: 0, .. }));
            assert!(matches!(want.docs[1].fate, Fate::Removed { of: 0, .. }));
            if threshold == 0.5 {
                assert!(matches!(want.docs[2].fate, Fate::Removed { of: 0, .. }));
                assert!(matches!(want.docs[5].fate, Fate::Removed { of: 0, .. }));
            } else {
                assert_eq!(want.docs[2].fate, Fate::Kept);
            }
            assert_eq!(sk[4].chars, c.chars().count() as u64);
        }
        // The exact check decided some pair.
        assert!(unsettled > 0);
    }
}
