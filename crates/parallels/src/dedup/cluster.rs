//! Exact duplicates, LSH candidates, verification and clusters.
//!
//! Takes the sketches of every document and hands on the clusters of two or
//! more documents, each a list of document indices in input order, the
//! clusters in the order of their first member.
//!
//! * A document whose token-sequence hash equals an earlier one's is joined
//!   to that first one and emits no band record.
//! * Every other document with tokens emits one [`BandRecord`]
//!   `(band key, document)` per band. The records go through the external
//!   [`Sorter`], so that documents sharing a band key come together, in
//!   input order.
//! * In each bucket of equal keys, each document is compared with the
//!   earlier ones (at most [`DedupOptions::bucket_cap`] of them: a key
//!   shared by thousands of documents is a template, and comparing with the
//!   first few of them joins the copies all the same). A pair already in one
//!   cluster is not compared again. With [`Verify::Signature`](super::Verify::Signature) a pair whose
//!   estimate is at or above the threshold is joined. With [`Verify::Exact`](super::Verify::Exact)
//!   the count of equal signature values settles the pairs far from the
//!   threshold ([`Settle`]), and the others are kept for the exact check
//!   ([`super::verify`]), which the caller runs before [`Joins::clusters`].
//!
//! The union-find ([`UnionFind`]) keeps the smaller index as the root, and
//! pairs are taken in sorted order on one thread (the exact check computes
//! similarities in parallel and joins in sorted order), so the clusters do
//! not depend on the number of threads.

use std::io;

use super::error::DedupError;
use super::lsh::{band_key, Bands};
use super::minhash::matches;
use super::options::DedupOptions;
use super::outcome::DedupStats;
use super::table::Table;
use super::verify::{Decision, Settle};
use crate::plumbing::sort::{Record, Sorter};
use crate::plumbing::{Progress, UnionFind};
use rustc_hash::FxHashMap;

/// One band of one document's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BandRecord {
    pub key: u64,
    pub doc: u32,
}

impl Record for BandRecord {
    const SIZE: usize = 12;
    fn write(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.key.to_le_bytes());
        out[8..12].copy_from_slice(&self.doc.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        BandRecord {
            key: u64::from_le_bytes(b[..8].try_into().unwrap()),
            doc: u32::from_le_bytes(b[8..12].try_into().unwrap()),
        }
    }
}

fn io_err(opts: &DedupOptions) -> impl Fn(io::Error) -> DedupError + '_ {
    move |source| DedupError::Io { path: opts.work_dir.clone(), source }
}

/// What the band buckets decided, and what is left to the exact check.
pub(crate) struct Joins {
    pub uf: UnionFind,
    /// Pairs (smaller index first) that the signatures did not settle,
    /// sorted, without repeats, not yet in one cluster.
    pub unsettled: Vec<(u32, u32)>,
    /// Documents read.
    pub n: usize,
}

impl Joins {
    /// Documents that need an exact shingle set: both ends of every pair
    /// left unsettled, in order.
    pub fn needed(&self) -> Vec<u32> {
        let mut needed = vec![false; self.n];
        for &(a, b) in &self.unsettled {
            needed[a as usize] = true;
            needed[b as usize] = true;
        }
        (0..needed.len() as u32).filter(|&d| needed[d as usize]).collect()
    }

    /// Clusters of two or more, in order of their first member (the root,
    /// the smallest index of each set).
    pub fn clusters(mut self) -> Vec<Vec<u32>> {
        let n = self.n;
        let roots: Vec<u32> = (0..n as u32).map(|d| self.uf.find(d)).collect();
        let mut size = vec![0u32; n];
        for &r in &roots {
            size[r as usize] += 1;
        }
        let mut slot: FxHashMap<u32, usize> = FxHashMap::default();
        let mut clusters: Vec<Vec<u32>> = Vec::new();
        for (doc, &r) in roots.iter().enumerate() {
            if size[r as usize] > 1 {
                let k = *slot.entry(r).or_insert_with(|| {
                    clusters.push(Vec::with_capacity(size[r as usize] as usize));
                    clusters.len() - 1
                });
                clusters[k].push(doc as u32);
            }
        }
        clusters.sort_unstable_by_key(|m| m[0]);
        clusters
    }
}

/// Exact duplicates and band candidates, joined or left for the exact
/// check (see the module docs).
pub(crate) fn candidates(
    table: &Table,
    opts: &DedupOptions,
    bands: Bands,
    stats: &mut DedupStats,
    progress: &dyn Progress,
) -> Result<Joins, DedupError> {
    let n = table.exact.len();
    let mut uf = UnionFind::new(n);
    let mut unsettled: Vec<(u32, u32)> = Vec::new();
    // With Verify::Signature, joined at or above the threshold's count,
    // never left unsettled.
    let settle = Settle::of(opts);
    let chunk = (opts.memory as usize / BandRecord::SIZE).max(1024);
    // Spills beyond `chunk` records into a temporary folder in `work_dir`,
    // removed with the sorter or its stream, whichever way this returns.
    let mut sorter: Sorter<BandRecord> = Sorter::in_temp_dir(&opts.work_dir, "bands", chunk);
    progress.stage("candidates", Some(n as u64));
    for doc in 0..n as u32 {
        if table.exact[doc as usize].is_none() {
            continue; // no tokens: neither an exact nor a near duplicate
        }
        // An exact copy joins the first document with its tokens.
        if let Some(first) = table.copy_of[doc as usize] {
            uf.union(first, doc);
            continue;
        }
        let sig = table.signature(doc);
        for band in 0..bands.bands {
            sorter.push(BandRecord { key: band_key(sig, bands, band), doc }).map_err(io_err(opts))?;
        }
    }
    let mut bucket: Vec<u32> = Vec::new();
    let mut key = None;
    let mut done = 0u64;
    // The spill files go with the stream, at the end of the loop.
    for r in sorter.finish().map_err(io_err(opts))? {
        let r = r.map_err(io_err(opts))?;
        if key != Some(r.key) {
            key = Some(r.key);
            bucket.clear();
        }
        for &other in bucket.iter() {
            if uf.find(other) == uf.find(r.doc) {
                continue;
            }
            stats.candidate_pairs += 1;
            match settle.decide(matches(table.signature(other), table.signature(r.doc))) {
                Decision::Duplicate => {
                    stats.verified_pairs += 1;
                    uf.union(other, r.doc);
                }
                Decision::Unsettled => unsettled.push((other, r.doc)),
                Decision::Distinct => {}
            }
        }
        if bucket.len() < opts.bucket_cap {
            bucket.push(r.doc);
        }
        done += 1;
        if done % (bands.bands as u64 * 4096) == 0 {
            progress.advance(4096);
        }
    }
    // Pairs that shared several bands were met several times; pairs joined
    // through others since need no check.
    unsettled.sort_unstable();
    unsettled.dedup();
    unsettled.retain(|&(a, b)| uf.find(a) != uf.find(b));
    Ok(Joins { uf, unsettled, n })
}
