//! [`Index::query`]: the library passages one new text shares.

use super::Index;
use crate::align::Passage;
use crate::corpus::Source;
use crate::scan::seeds::seeds;
use crate::scan::{align_chunk, DocRecord, SeedDfIndex};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::io::{self, Write};

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
    /// Seeds the two share (the candidate's votes).
    pub seeds: u32,
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

impl Index {
    /// Every posting of `hash` in the library, but for document `exclude`.
    fn postings(&self, hash: u64, exclude: Option<u32>) -> io::Result<Vec<(u32, u32)>> {
        let mut out = Vec::new();
        for s in &self.segments {
            s.lookup(hash, &mut out)?;
        }
        if let Some(x) = exclude {
            out.retain(|&(d, _)| d != x);
        }
        Ok(out)
    }

    /// Documents of the library holding `hash`, but for `exclude`.
    fn library_df(&self, hash: u64, exclude: Option<u32>) -> io::Result<u32> {
        let p = self.postings(hash, exclude)?;
        Ok(distinct_docs(&p))
    }

    /// The passages `text` shares with the documents of the library (but
    /// for document `exclude`: a library document asked against the
    /// rest), by library document, most significant first. The same
    /// seeds, candidates, alignment, significance and bars as `scan` on
    /// the library with `text` added (see the module doc for the one
    /// difference).
    pub fn query(&self, text: &str, exclude: Option<u32>) -> io::Result<Vec<Hit>> {
        let sp = &self.opts.seeds;
        let p = self.aligner.prepare(text);
        let qs = seeds(&p.seg, sp);
        let mut hashes: Vec<u64> = qs.iter().map(|s| s.0).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let found: Vec<Vec<(u32, u32)>> =
            hashes.par_iter().map(|&h| self.postings(h, exclude)).collect::<io::Result<_>>()?;
        // Document frequencies in the library, and one vote per shared
        // hash for each document holding it (as `seeds::pairs` counts).
        let mut lib_df: FxHashMap<u64, u32> = FxHashMap::default();
        let mut votes: FxHashMap<u32, u32> = FxHashMap::default();
        for (&h, posts) in hashes.iter().zip(&found) {
            let mut docs: Vec<u32> = posts.iter().map(|p| p.0).collect();
            docs.sort_unstable();
            docs.dedup();
            lib_df.insert(h, docs.len() as u32);
            let df = docs.len() as u32 + 1;
            if df >= 2 && df <= sp.max_df {
                for d in docs {
                    *votes.entry(d).or_default() += 1;
                }
            }
        }
        let mut candidates: Vec<(u32, u32)> = votes.into_iter().filter(|&(_, v)| v >= sp.min_seeds).collect();
        candidates.sort_unstable();
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        // The query's seeds found in two documents or more, by position.
        let q_shared: Vec<(u32, u32)> = qs
            .iter()
            .filter_map(|&(h, pos)| {
                let df = lib_df.get(&h).copied().unwrap_or(0) + 1;
                (df >= 2).then_some((pos, df))
            })
            .collect();
        let q_hashes: FxHashSet<u64> = hashes.iter().copied().collect();
        // Each candidate's text and its seeds' frequencies with the query.
        let docs: Vec<(String, Vec<(u32, u32)>)> = candidates
            .par_iter()
            .map(|&(d, _)| {
                let text = self.text(d)?;
                let dp = self.aligner.prepare(&text);
                let ds = seeds(&dp.seg, sp);
                let mut own: Vec<u64> = ds.iter().map(|s| s.0).collect();
                own.sort_unstable();
                own.dedup();
                let dfs: FxHashMap<u64, u32> = own
                    .par_iter()
                    .map(|&h| {
                        let lib = match lib_df.get(&h) {
                            Some(&n) => n,
                            None => self.library_df(h, exclude)?,
                        };
                        Ok((h, lib + u32::from(q_hashes.contains(&h))))
                    })
                    .collect::<io::Result<_>>()?;
                let shared: Vec<(u32, u32)> =
                    ds.iter().filter_map(|&(h, pos)| dfs.get(&h).filter(|&&df| df >= 2).map(|&df| (pos, df))).collect();
                Ok((text, shared))
            })
            .collect::<io::Result<_>>()?;
        // The scan's chunk aligner reads texts and shared seeds from files:
        // a small store of the query (0) and its candidates (1..).
        let mut texts = tempfile::tempfile()?;
        let mut seed_file = tempfile::tempfile()?;
        let mut records = Vec::with_capacity(docs.len() + 1);
        let mut offsets = vec![0u64];
        let (mut at, mut seed_at) = (0u64, 0u64);
        let all = std::iter::once((text, &q_shared, None))
            .chain(docs.iter().zip(&candidates).map(|((t, s), &(d, _))| (t.as_str(), s, Some(d))));
        let mut tbuf = Vec::new();
        let mut sbuf = Vec::new();
        for (t, shared, d) in all {
            tbuf.extend_from_slice(t.as_bytes());
            let doc = d.and_then(|d| self.doc(d));
            records.push(DocRecord {
                id: doc.map(|x| x.id.clone()).unwrap_or_default(),
                source: doc.map(|x| x.source.clone()).unwrap_or_else(|| Source::whole("")),
                encoding: String::new(),
                group: None,
                meta: serde_json::Map::new(),
                chars: t.chars().count() as u64,
                offset: at,
                len: t.len() as u64,
            });
            at += t.len() as u64;
            for &(pos, df) in shared.iter() {
                sbuf.extend_from_slice(&pos.to_le_bytes());
                sbuf.extend_from_slice(&df.to_le_bytes());
            }
            seed_at += 8 * shared.len() as u64;
            offsets.push(seed_at);
        }
        texts.write_all(&tbuf)?;
        seed_file.write_all(&sbuf)?;
        let seed_df = SeedDfIndex { file: seed_file, offsets };
        // Each pair in the order `scan` aligns it: the earlier document
        // first, a new text being the last one read.
        let first = |d: u32| exclude.is_some_and(|x| x < d);
        let chunk: Vec<(u32, u32, u32)> = candidates
            .iter()
            .enumerate()
            .map(|(k, &(d, votes))| if first(d) { (0, k as u32 + 1, votes) } else { (k as u32 + 1, 0, votes) })
            .collect();
        let aligned = align_chunk(&chunk, &records, &texts, &seed_df, &self.aligner, &self.df, &self.opts)?;
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
                Hit { doc: candidates[k].0, passages, significance, seeds: candidates[k].1 }
            })
            .collect();
        rank(&mut hits);
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

/// Distinct documents of postings sorted by document within each segment
/// (segments in document order, so sorted overall).
fn distinct_docs(p: &[(u32, u32)]) -> u32 {
    let mut n = 0;
    let mut last = None;
    for &(d, _) in p {
        if last != Some(d) {
            n += 1;
            last = Some(d);
        }
    }
    n
}

/// The passages of B and A (with their significance) from those of A and
/// B: sides swapped, in the order of the new A.
fn flipped(passages: Vec<Passage>, significance: Vec<f64>) -> (Vec<Passage>, Vec<f64>) {
    let mut both: Vec<(Passage, f64)> = passages
        .into_iter()
        .zip(significance)
        .map(|(mut p, s)| {
            std::mem::swap(&mut p.a, &mut p.b);
            for l in &mut p.links {
                std::mem::swap(&mut l.a, &mut l.b);
            }
            p.links.sort_by(|l, m| l.a.cmp(&m.a).then(l.b.cmp(&m.b)));
            (p, s)
        })
        .collect();
    both.sort_by(|(p, _), (q, _)| p.a.cmp(&q.a).then(p.b.cmp(&q.b)));
    both.into_iter().unzip()
}
