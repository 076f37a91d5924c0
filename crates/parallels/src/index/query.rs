//! [`Index::query`]: the library passages one new text shares.

use super::error::IndexError;
use super::reader::Index;
use crate::align::Passage;
use crate::scan::seeds::seeds;
use crate::scan::{align_prepared, can_reach, ChunkDoc};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One library document a text shares passages with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    /// The document's number in the index.
    pub doc: u32,
    /// The passages: `a` spans are in the query text, `b` spans in the
    /// document, in the order of the query.
    pub passages: Vec<Passage>,
    /// Each passage's significance (as `scan` reports it).
    pub significance: Vec<f64>,
    /// Seeds the two share (the candidate's votes; 0 for a document found
    /// across languages).
    pub seeds: u32,
    /// Found across languages, by meaning (the document is in another
    /// language than the text; its passages are `parallel`, their
    /// significance the sum of their links' scores).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub across: bool,
}

impl Hit {
    /// The characters of the query its passages cover.
    pub fn query_chars(&self) -> u64 {
        self.passages.iter().map(|p| u64::from(p.a[1] - p.a[0])).sum()
    }

    /// Its most significant passage's significance.
    pub fn best(&self) -> f64 {
        self.significance.iter().copied().fold(0.0, f64::max)
    }
}

/// Where the time of one query went (`query --timings`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueryTimings {
    /// Preparing the text and taking its seeds, in milliseconds.
    pub text_ms: f64,
    /// Looking its distinct seed hashes up.
    pub lookup_ms: f64,
    /// Reading, preparing and bounding the candidates, and looking up the
    /// seeds of those that pass the bound.
    pub candidates_ms: f64,
    /// Aligning (the scan's chunk aligner).
    pub align_ms: f64,
    /// The text's distinct seed hashes.
    pub hashes: usize,
    /// Candidate documents (sharing at least `min_seeds` seeds).
    pub candidates: usize,
    /// Candidates that pass the bound before their own seeds are looked up.
    pub kept: usize,
    /// Seed hashes of those looked up.
    pub candidate_lookups: usize,
    /// Across languages: the text's language, when the index holds
    /// vectors in others the encoder knows.
    pub across_language: Option<String>,
    /// Its units encoded.
    pub across_units: usize,
    /// Sentence pairs mined.
    pub across_mined: usize,
    /// Candidate documents aligned.
    pub across_candidates: usize,
    /// Encoding the text and mining, in milliseconds.
    pub across_mine_ms: f64,
    /// Reading, encoding and aligning the candidates.
    pub across_align_ms: f64,
}

impl Index {
    /// The library documents holding `hash`, but for `exclude`, in order:
    /// all of them when there are at most `cap`, else the first `cap`.
    fn library_docs(&self, hash: u64, exclude: Option<u32>, cap: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for s in &self.segments {
            if out.len() >= cap {
                break;
            }
            s.docs(hash, exclude, cap, &mut out);
        }
        out
    }

    /// The most library documents a query counts for one hash: one more
    /// than `max_df`. A seed in more documents than `max_df` is no vote
    /// and weighs nothing ([`crate::scan::seed_weight`]), so frequencies
    /// above are all alike, and the postings of a formula (found in
    /// thousands of documents) are not read to the end.
    fn df_cap(&self) -> usize {
        self.opts.seeds.max_df as usize + 1
    }

    /// The passages `text` shares with the documents of the library (but
    /// for document `exclude`: a library document asked against the
    /// rest), by library document, most significant first. The same
    /// seeds, candidates, alignment, significance and bars as `scan` on
    /// the library with `text` added (see the module doc for the one
    /// difference).
    pub fn query(&self, text: &str, exclude: Option<u32>) -> Result<Vec<Hit>, IndexError> {
        Ok(self.query_timed(text, exclude)?.0)
    }

    /// [`Index::query`], and where its time went.
    pub fn query_timed(&self, text: &str, exclude: Option<u32>) -> Result<(Vec<Hit>, QueryTimings), IndexError> {
        self.query_stoppable(text, exclude, &|| false)
    }

    /// [`Index::query_timed`], stopped with [`IndexError::Stopped`] when
    /// `stop` says so (asked between its stages, before each candidate is
    /// read and before each pair is aligned; a pair begun runs to its end):
    /// what a server uses to drop the work of a client that went away or
    /// ran out of time.
    ///
    /// Across languages, when the index keeps sentence vectors: the
    /// library documents in other languages the text translates or that
    /// translate it (`across.rs`); such a document's passages replace its
    /// lexical ones, as in a scan.
    pub fn query_stoppable(
        &self,
        text: &str,
        exclude: Option<u32>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<(Vec<Hit>, QueryTimings), IndexError> {
        let mut t = QueryTimings::default();
        let mut hits = self.lexical(text, exclude, stop, &mut t)?;
        let stopped = || if stop() { Err(IndexError::Stopped) } else { Ok(()) };
        stopped()?;
        let (found, done) = super::across::query(self, text, exclude, &stopped)?;
        t.across_language = done.language.map(str::to_owned);
        t.across_units = done.units;
        t.across_mined = done.mined;
        t.across_candidates = done.candidates;
        t.across_mine_ms = done.mine_ms;
        t.across_align_ms = done.align_ms;
        if !found.is_empty() {
            hits.retain(|h| !found.iter().any(|f| f.0 == h.doc));
            hits.extend(found.into_iter().map(|(doc, passages, significance)| Hit {
                doc,
                passages,
                significance,
                seeds: 0,
                across: true,
            }));
            rank(&mut hits);
        }
        Ok((hits, t))
    }

    /// The hits of the seeds: the part of [`Index::query_stoppable`] that
    /// `scan`'s lexical stages make.
    fn lexical(
        &self,
        text: &str,
        exclude: Option<u32>,
        stop: &(dyn Fn() -> bool + Sync),
        t: &mut QueryTimings,
    ) -> Result<Vec<Hit>, IndexError> {
        let stopped = || if stop() { Err(IndexError::Stopped) } else { Ok(()) };
        let sp = &self.opts.seeds;
        let cap = self.df_cap();
        let mut clock = std::time::Instant::now();
        let mut lap = || {
            let ms = clock.elapsed().as_secs_f64() * 1000.0;
            clock = std::time::Instant::now();
            ms
        };
        let p = self.aligner.prepare(text);
        let qs = seeds(&p.seg, sp);
        let mut hashes: Vec<u64> = qs.iter().map(|s| s.0).collect();
        hashes.sort_unstable();
        hashes.dedup();
        t.text_ms = lap();
        t.hashes = hashes.len();
        stopped()?;
        let found: Vec<Vec<u32>> = hashes.par_iter().map(|&h| self.library_docs(h, exclude, cap)).collect();
        // Document frequencies in the library (up to the cap), and one
        // vote per shared hash for each document holding it (as
        // `seeds::pairs` counts).
        let mut lib_df: FxHashMap<u64, u32> = FxHashMap::default();
        lib_df.reserve(hashes.len());
        let mut votes: FxHashMap<u32, u32> = FxHashMap::default();
        for (&h, docs) in hashes.iter().zip(&found) {
            lib_df.insert(h, docs.len() as u32);
            let df = docs.len() as u32 + 1;
            if df >= 2 && df <= sp.max_df {
                for &d in docs {
                    *votes.entry(d).or_default() += 1;
                }
            }
        }
        let mut candidates: Vec<(u32, u32)> = votes.into_iter().filter(|&(_, v)| v >= sp.min_seeds).collect();
        candidates.sort_unstable();
        t.lookup_ms = lap();
        t.candidates = candidates.len();
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        stopped()?;
        // The query's seeds found in two documents or more, by position.
        let q_shared: Vec<(u32, u32)> = qs
            .iter()
            .filter_map(|&(h, pos)| {
                let df = lib_df.get(&h).copied().unwrap_or(0) + 1;
                (df >= 2).then_some((pos, df))
            })
            .collect();
        let query = ChunkDoc::new(text.to_string(), p, qs, &q_shared, &self.opts);
        // Each pair in the order `scan` aligns it: the earlier document
        // first, a new text being the last one read.
        let query_first = |d: u32| exclude.is_some_and(|x| x < d);
        // Each candidate prepared once. Most candidates share only
        // formula with the text and fail the scan's bound before any
        // alignment ([`can_reach`]): the bound is taken first with the
        // frequencies known from the text's lookups, every other seed of
        // the candidate counted as found in it alone (the highest weight
        // a seed has), and only a candidate that passes has its other
        // seeds looked up, for its exact weights (and the scan's bound).
        let looked_up = AtomicUsize::new(0);
        let docs: Vec<Option<ChunkDoc>> = candidates
            .par_iter()
            .map(|&(d, _)| {
                stopped()?;
                let text = self.text(d)?;
                let dp = self.aligner.prepare(&text);
                let ds = seeds(&dp.seg, sp);
                let known: Vec<(u32, u32)> = ds
                    .iter()
                    .filter_map(|&(h, pos)| lib_df.get(&h).map(|&n| (pos, n + 1)).filter(|&(_, df)| df >= 2))
                    .collect();
                let mut doc = ChunkDoc::new(text, dp, ds.clone(), &known, &self.opts);
                let (a, b) = if query_first(d) { (&query, &doc) } else { (&doc, &query) };
                if !can_reach(a, b, &self.loose) {
                    return Ok(None);
                }
                let mut own: Vec<u64> = ds.iter().map(|s| s.0).filter(|h| !lib_df.contains_key(h)).collect();
                own.sort_unstable();
                own.dedup();
                looked_up.fetch_add(own.len(), Ordering::Relaxed);
                let dfs: FxHashMap<u64, u32> =
                    own.par_iter().map(|&h| (h, self.library_docs(h, exclude, cap).len() as u32)).collect();
                let shared: Vec<(u32, u32)> = ds
                    .iter()
                    .filter_map(|&(h, pos)| {
                        let df = match lib_df.get(&h) {
                            Some(&n) => n + 1,
                            None => dfs[&h],
                        };
                        (df >= 2).then_some((pos, df))
                    })
                    .collect();
                doc.weigh(&ds, &shared, &self.opts);
                Ok(Some(doc))
            })
            .collect::<Result<_, IndexError>>()?;
        // The scan's chunk aligner on the text (0) and the candidates left
        // (1..).
        let mut cache: FxHashMap<u32, ChunkDoc> = FxHashMap::default();
        cache.insert(0, query);
        let mut kept = Vec::new();
        for (c, doc) in candidates.iter().zip(docs) {
            if let Some(doc) = doc {
                kept.push(*c);
                cache.insert(kept.len() as u32, doc);
            }
        }
        let candidates = kept;
        t.kept = candidates.len();
        t.candidate_lookups = looked_up.into_inner();
        t.candidates_ms = lap();
        stopped()?;
        let chunk: Vec<(u32, u32, u32)> = candidates
            .iter()
            .enumerate()
            .map(|(k, &(d, votes))| if query_first(d) { (0, k as u32 + 1, votes) } else { (k as u32 + 1, 0, votes) })
            .collect();
        let aligned = align_prepared(&chunk, cache, &self.aligner, &self.df, &self.opts, stop);
        // Stopped while aligning: what was aligned is not the answer.
        stopped()?;
        let mut hits: Vec<Hit> = aligned
            .into_iter()
            .filter(|x| !x.passages.is_empty())
            .map(|x| {
                let (k, passages, significance) = if x.a == 0 {
                    (x.b as usize - 1, x.passages, x.significance)
                } else {
                    let (p, s) = flipped(x.passages, x.significance);
                    (x.a as usize - 1, p, s)
                };
                Hit { doc: candidates[k].0, passages, significance, seeds: candidates[k].1, across: false }
            })
            .collect();
        rank(&mut hits);
        t.align_ms = lap();
        Ok(hits)
    }
}

/// Most significant first; then more of the query covered; then the
/// earlier document.
pub(super) fn rank(hits: &mut [Hit]) {
    hits.sort_by(|x, y| {
        y.best().total_cmp(&x.best()).then(y.query_chars().cmp(&x.query_chars())).then(x.doc.cmp(&y.doc))
    });
}

/// The passages of B and A (with their significance) from those of A and
/// B: sides swapped, in the order of the new A.
fn flipped(passages: Vec<Passage>, significance: Vec<f64>) -> (Vec<Passage>, Vec<f64>) {
    let mut both: Vec<(Passage, f64)> = passages.into_iter().zip(significance).map(|(p, s)| (p.flipped(), s)).collect();
    both.sort_by(|(p, _), (q, _)| p.a.cmp(&q.a).then(p.b.cmp(&q.b)));
    both.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use crate::scan::seed_weight;

    /// A query counts a seed's documents only up to `max_df + 1`
    /// ([`super::Index::df_cap`]): that holds while every frequency above
    /// `max_df` weighs the same. And it bounds a candidate with the seeds
    /// it has not looked up counted in one document: that holds while no
    /// seed weighs more.
    #[test]
    fn frequencies_above_max_df_all_weigh_alike_and_none_more_than_one_document() {
        for max_df in [3u32, 10, 100, 1000] {
            let top = seed_weight(max_df + 1, max_df);
            for df in max_df + 1..=max_df * 50 {
                assert_eq!(seed_weight(df, max_df), top, "max_df {max_df}, df {df}");
            }
            for df in 1..=max_df * 50 {
                assert!(seed_weight(df, max_df) <= seed_weight(1, max_df), "max_df {max_df}, df {df}");
            }
        }
    }
}
