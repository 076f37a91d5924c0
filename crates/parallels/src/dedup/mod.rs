//! Deduplication of training corpora: exact and near-duplicate documents,
//! and paragraphs repeated across documents (`parallels dedup`).
//!
//! This module takes a [`CorpusReader`] and [`DedupOptions`] and hands on a
//! [`DedupResult`]: for every document read, whether it is kept, removed
//! (and as a duplicate of which kept document, how similar), or kept with
//! some paragraphs dropped. [`output`] then writes the kept records by
//! reading the inputs a second time, so kept records leave byte-identical.
//!
//! # Stages
//!
//! 1. **Sketch** ([`minhash`]): every document is normalized and segmented
//!    by the library's own stages (so traditional and simplified copies,
//!    `五万` and `50,000`, full- and half-width forms agree) and reduced to a
//!    MinHash signature of its token n-gram shingles, a 128-bit hash of its
//!    whole token sequence, and, with `--paragraphs`, one hash per line.
//!    Documents are sketched in parallel, a batch at a time, and recorded in
//!    input order; each document's signature is made right after its tokens,
//!    while they are in cache. A document whose token sequence equals one of
//!    an earlier batch (an exact duplicate) takes that one's signature
//!    instead of computing it; a text repeated byte for byte takes all of
//!    its sketch from the first copy (found by a 128-bit hash of the text's
//!    bytes) without being normalized.
//! 2. **Exact duplicates**: a document whose token-sequence hash was seen
//!    before is joined to the first one with that hash and goes no further.
//! 3. **Candidates** ([`lsh`], `cluster`): the signature is cut into bands
//!    (chosen from the threshold for recall, see [`lsh::recall_params`]: a
//!    pair at the threshold is a candidate with probability 0.99 or more);
//!    one record `(band key, document)` per band goes through the external
//!    sorter of [`crate::plumbing::sort`], which spills beyond
//!    [`DedupOptions::memory`]. Documents that share a band key are
//!    candidate pairs.
//! 4. **Verification** ([`verify`]): with [`Verify::Exact`] (the default),
//!    the signatures settle only the pairs so far from the threshold that a
//!    pair at it lands there once in a million; the others are decided by
//!    the exact Jaccard similarity of their shingle sets, kept from the
//!    first pass up to [`verify::CACHE_BYTES`] and recomputed in a second
//!    pass for the other documents of candidate pairs alone. With
//!    [`Verify::Signature`] the estimate decides every pair. Pairs at or
//!    above the threshold are joined in a union-find.
//! 5. **Keep**: in each cluster one document is kept by [`Keep`]; the
//!    others are removed, each reported with the kept one and their
//!    similarity as the decision measured it: exact when both documents
//!    went through the exact check, else the signatures' estimate (with
//!    [`Verify::Exact`], an estimate far above the threshold: 0.95 or more
//!    at 0.8).
//! 6. **Paragraphs** (`paragraphs`, optional): in the kept documents, in
//!    input order, a line whose normalized tokens equal those of a line of
//!    an earlier kept document is dropped; a document left without tokens
//!    is removed.
//!
//! # Memory
//!
//! Per document: its signature (4 bytes per permutation: 512 bytes at 128),
//! its source and id, and about 200 bytes of bookkeeping (entry, fate,
//! hashes, empty vectors); with `--paragraphs`, 8 bytes per
//! line. With [`Verify::Exact`], while sketching, the shingles of the
//! first documents, up to [`verify::CACHE_BYTES`] (32 MiB), freed after the
//! exact check; after the candidates: 4 bytes per distinct
//! shingle (about 4 bytes per token) of each document in a candidate pair
//! that the signatures did not turn away, and 8 bytes per such pair. Band records (12 bytes per band and document) are sorted within
//! [`DedupOptions::memory`] and spilled beyond it. The tables of
//! token-sequence hashes and of text hashes (a byte-for-byte repeat of a
//! text is not normalized again) hold about 80 bytes per distinct document
//! while documents are sketched; each exact copy keeps the index of its
//! first (8 bytes).
//! The reader runs on its own thread, at most three batches (of
//! 512 documents or 8 MB of JSON Lines) ahead of the sketching, and parses
//! JSON lines on the rayon pool ([`CorpusReader::read_batches`], which
//! `scan` reads through too).
//!
//! # Determinism
//!
//! Signatures depend on the text alone (fixed permutation seeds); batches
//! are sketched in parallel but recorded in input order; candidates are
//! settled in the sorted order of band records, one at a time, and the
//! exact check joins its pairs in sorted order. The result is the same for
//! any number of threads.

pub mod batch;
mod cluster;
pub mod lsh;
pub mod minhash;
pub mod output;
mod paragraphs;
pub mod verify;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::Value;

use crate::corpus::{BatchStop, CorpusDoc, CorpusError, CorpusReader, Origin, Summary};
use crate::normalize::{NormalizeOptions, Normalizer};
use crate::plumbing::Progress;

pub use lsh::Bands;
pub use minhash::MinHasher;

/// Documents per chunk of [`Table::signatures`].
const SIGNATURE_CHUNK: usize = 4096;

/// Documents sketched in parallel at a time.
const BATCH_DOCS: usize = 512;
/// Or fewer, when they hold more than this many bytes of input.
const BATCH_BYTES: usize = 8 << 20;

/// How candidate pairs are verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Verify {
    /// Estimated Jaccard similarity: the share of equal signature values
    /// (standard error `sqrt(J(1−J)/perms)`, 0.035 at 0.8 and 128).
    Signature,
    /// Exact Jaccard similarity of the shingle sets, kept from the first
    /// pass up to [`verify::CACHE_BYTES`] or recomputed in a second pass
    /// for the documents of candidate pairs; the signatures settle
    /// only pairs far from the threshold (see [`verify`]).
    #[default]
    Exact,
}

/// Which document of a cluster of duplicates is kept.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Keep {
    /// The first one read (input order).
    #[default]
    First,
    /// The longest text (in characters); the first one read among equals.
    Longest,
    /// The largest value of this numeric field (JSON number, or a string
    /// that parses as one); documents without it come last; the first one
    /// read among equals.
    Field(String),
}

/// Options of a deduplication run.
#[derive(Clone, Debug)]
pub struct DedupOptions {
    /// Normalization before tokens are taken (traditional/simplified
    /// script, numerals, …); all rules on by default.
    pub normalize: NormalizeOptions,
    /// Tokens per shingle.
    pub ngram: usize,
    /// MinHash permutations.
    pub perms: usize,
    /// Jaccard similarity at and above which two documents are duplicates.
    pub threshold: f64,
    /// Explicit bands and rows; `None`: [`lsh::recall_params`] with
    /// [`DedupOptions::candidate_recall`].
    pub bands: Option<Bands>,
    /// When bands and rows are chosen: the least probability with which a
    /// pair at the threshold becomes a candidate.
    pub candidate_recall: f64,
    /// How candidate pairs are confirmed.
    pub verify: Verify,
    /// Which document of a cluster is kept.
    pub keep: Keep,
    /// Also drop paragraphs (lines) repeated across kept documents.
    pub paragraphs: bool,
    /// Lines with fewer tokens are never dropped as repeated paragraphs.
    pub min_paragraph_tokens: usize,
    /// Bytes of band records sorted in memory before spilling.
    pub memory: u64,
    /// Where the folder of spill files is made, if records spill
    /// (`.parallels-bands-XXXXXX`, removed afterwards, on errors too). It
    /// must exist.
    pub work_dir: PathBuf,
    /// Largest bucket prefix compared: a document is verified against at
    /// most this many earlier documents of each of its band buckets.
    pub bucket_cap: usize,
}

impl Default for DedupOptions {
    fn default() -> Self {
        DedupOptions {
            normalize: NormalizeOptions::default(),
            ngram: 5,
            perms: 128,
            threshold: 0.8,
            bands: None,
            candidate_recall: lsh::CANDIDATE_RECALL,
            verify: Verify::default(),
            keep: Keep::First,
            paragraphs: false,
            min_paragraph_tokens: 1,
            memory: 512 << 20,
            work_dir: std::env::temp_dir(),
            bucket_cap: 64,
        }
    }
}

impl DedupOptions {
    /// The MinHasher of these options: shingles of [`DedupOptions::ngram`]
    /// tokens of text normalized by [`DedupOptions::normalize`].
    pub fn hasher(&self) -> MinHasher {
        MinHasher::with_normalizer(self.ngram, self.perms, Normalizer::new(self.normalize.clone()))
    }

    /// The bands and rows in use: explicit, or chosen for recall at the
    /// threshold.
    pub fn bands(&self) -> Bands {
        self.bands.unwrap_or_else(|| lsh::recall_params(self.threshold, self.perms, self.candidate_recall))
    }
}

/// Why a document was removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The same normalized tokens as the kept document.
    Exact,
    /// Similar to a document of its cluster at or above the threshold.
    Near,
    /// Nothing left once repeated paragraphs were dropped.
    EmptyAfterParagraphs,
}

impl Reason {
    /// The reason as written in the removed list: `exact`, `near`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Exact => "exact",
            Reason::Near => "near",
            Reason::EmptyAfterParagraphs => "empty_after_paragraphs",
        }
    }
}

/// What happens to one document.
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    /// Kept as it is.
    Kept,
    /// Kept, without these lines (0-based line numbers of its text, in
    /// order), which repeat paragraphs of earlier kept documents.
    Trimmed(Vec<u32>),
    /// Removed: a duplicate of document `of` (an index into
    /// [`DedupResult::docs`]), with their similarity (exact when both went
    /// through the exact check of [`Verify::Exact`], else the signatures'
    /// estimate); for [`Reason::EmptyAfterParagraphs`], `of`
    /// is the document that first had its last paragraph.
    Removed {
        /// Why.
        reason: Reason,
        /// The kept document it duplicates (an index into
        /// [`DedupResult::docs`]).
        of: u32,
        /// Their similarity, 1 for an exact duplicate.
        similarity: f64,
    },
}

/// One document read.
#[derive(Clone, Debug)]
pub struct DocEntry {
    /// Its id.
    pub id: String,
    /// Where it is in the inputs (written as its `source`: `path:line`,
    /// `path#row` or the path of a text file).
    pub origin: Origin,
    /// Length of the text in characters.
    pub chars: u64,
    /// Kept, trimmed or removed.
    pub fate: Fate,
}

/// Counts and times of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DedupStats {
    /// Documents read.
    pub documents: u64,
    /// Documents kept (trimmed ones included).
    pub kept: u64,
    /// Documents removed as exact duplicates.
    pub removed_exact: u64,
    /// Documents removed as near duplicates.
    pub removed_near: u64,
    /// Documents removed because no paragraph was left.
    pub removed_empty_after_paragraphs: u64,
    /// Documents kept without some lines.
    pub trimmed: u64,
    /// Lines dropped as repeated paragraphs.
    pub paragraphs_removed: u64,
    /// Bytes of text (UTF-8) sketched.
    pub text_bytes: u64,
    /// LSH bands in use.
    pub bands: usize,
    /// Rows per band in use.
    pub rows: usize,
    /// Pairs that shared a band and were compared.
    pub candidate_pairs: u64,
    /// Candidate pairs whose signatures did not settle them, checked on
    /// exact shingle sets.
    pub exact_pairs: u64,
    /// Documents whose exact shingle sets the exact check compared.
    pub exact_docs: u64,
    /// Of those, the documents read again (the first pass kept the
    /// others' shingles).
    pub exact_reread: u64,
    /// Candidate pairs at or above the threshold.
    pub verified_pairs: u64,
    /// Clusters of two or more documents.
    pub clusters: u64,
    /// Time reading and sketching, finding and verifying candidates, and
    /// the rest (keep rule, paragraphs).
    #[serde(serialize_with = "secs")]
    pub sketch_time: Duration,
    #[serde(serialize_with = "secs")]
    /// Finding candidates and settling them by their signatures.
    pub candidates_time: Duration,
    #[serde(serialize_with = "secs")]
    /// The exact check: reading documents again, shingles, similarities.
    pub verify_time: Duration,
    #[serde(serialize_with = "secs")]
    /// The keep rule and paragraphs.
    pub keep_time: Duration,
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// The outcome of [`dedup`].
#[derive(Clone, Debug)]
pub struct DedupResult {
    /// Every document read, in input order.
    pub docs: Vec<DocEntry>,
    /// Counts and times.
    pub stats: DedupStats,
    /// What the reader read and skipped.
    pub corpus: Summary,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum DedupError {
    /// The corpus cannot be read (or `--strict` stopped at a problem).
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// Spilling band records failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Options that cannot work (bands that do not fit, a threshold out of
    /// range).
    #[error("{0}")]
    Options(String),
}

/// What the sketch stage keeps of a document.
struct Sketched {
    entry: DocEntry,
    /// Normalized token ids, until the signature is made.
    tokens: Vec<u64>,
    exact: Option<u128>,
    /// Line hashes (0 for a line below the paragraph minimum), with
    /// `--paragraphs`.
    lines: Vec<u64>,
    keep_value: Option<f64>,
}

/// Everything the later stages need, indexed by document.
pub(crate) struct Table {
    /// Signatures in chunks of [`SIGNATURE_CHUNK`] documents: the table
    /// grows without copying itself (and touching twice the memory).
    pub signatures: Vec<Vec<u32>>,
    pub perms: usize,
    pub exact: Vec<Option<u128>>,
    /// For an exact copy, the first document (in input order) with the same
    /// tokens.
    pub copy_of: Vec<Option<u32>>,
    pub lines: Vec<Vec<u64>>,
    pub keep_values: Vec<Option<f64>>,
    /// The shingles of the first documents, kept from the first pass for
    /// the exact check (see [`verify::ShingleCache`]).
    pub cache: verify::ShingleCache,
}

impl Table {
    pub fn signature(&self, doc: u32) -> &[u32] {
        let k = self.perms;
        let (chunk, at) = (doc as usize / SIGNATURE_CHUNK, doc as usize % SIGNATURE_CHUNK);
        &self.signatures[chunk][at * k..(at + 1) * k]
    }

    /// Add the signature of the next document.
    fn push_signature(&mut self, signature: &[u32]) {
        let full = SIGNATURE_CHUNK * self.perms;
        match self.signatures.last_mut() {
            Some(last) if last.len() < full => last.extend_from_slice(signature),
            _ => {
                let mut chunk = Vec::with_capacity(full);
                chunk.extend_from_slice(signature);
                self.signatures.push(chunk);
            }
        }
    }

    /// The document whose signature (and shingles) `doc` has: the first
    /// one with its tokens.
    fn rep(&self, doc: u32) -> u32 {
        self.copy_of[doc as usize].unwrap_or(doc)
    }

    /// Similarity of two documents as the run measures it: exact when both
    /// have an exact shingle set (through the first document with their
    /// tokens), the signatures' estimate otherwise.
    fn similarity(&self, a: u32, b: u32, exact: &verify::ExactSets) -> f64 {
        let (a, b) = (self.rep(a), self.rep(b));
        exact.jaccard(a, b).unwrap_or_else(|| minhash::estimate(self.signature(a), self.signature(b)))
    }
}

/// Deduplicate the documents of `reader`; see the module docs.
pub fn dedup(
    reader: &mut CorpusReader,
    opts: &DedupOptions,
    progress: &dyn Progress,
) -> Result<DedupResult, DedupError> {
    check_options(opts)?;
    let mut stats = DedupStats::default();

    // 1. Read and sketch.
    let started = Instant::now();
    let Sketches { mut docs, mut table, bands, text_bytes, hasher } = sketch_stage(reader, opts, progress)?;
    // A keep field no record holds a number in is a misspelled name (or
    // the wrong column): keeping the first of each cluster instead would
    // pass for the rule asked.
    if let Keep::Field(name) = &opts.keep {
        if !docs.is_empty() && table.keep_values.iter().all(Option::is_none) {
            return Err(DedupError::Options(format!(
                "the keep field {name:?} holds a number in none of the {} records read (misspelled?)",
                docs.len()
            )));
        }
    }
    (stats.bands, stats.rows) = (bands.bands, bands.rows);
    stats.text_bytes = text_bytes;
    stats.documents = docs.len() as u64;
    stats.sketch_time = started.elapsed();

    // 2–3. Exact duplicates, candidates, settled by their signatures.
    let started = Instant::now();
    let mut joins = cluster::candidates(&table, opts, bands, &mut stats, progress)?;
    stats.candidates_time = started.elapsed();

    // 4. The exact check of the pairs left.
    let started = Instant::now();
    let exact = match opts.verify {
        Verify::Signature => verify::ExactSets::none(),
        Verify::Exact => {
            let needed = joins.needed();
            let hasher = hasher.unwrap_or_else(|| opts.hasher());
            let exact =
                verify::shingle_sets(&needed, &docs, &table, reader.inputs(), reader.options(), &hasher, progress)?;
            stats.exact_docs = exact.documents() as u64;
            stats.exact_reread = exact.reread() as u64;
            // The shingles were kept for this alone.
            table.cache = verify::ShingleCache::default();
            stats.exact_pairs = joins.unsettled.len() as u64;
            let similar: Vec<bool> = joins
                .unsettled
                .par_iter()
                .map(|&(a, b)| exact.jaccard(a, b).is_some_and(|j| j >= opts.threshold))
                .collect();
            for (&(a, b), similar) in joins.unsettled.iter().zip(similar) {
                if similar {
                    stats.verified_pairs += 1;
                    joins.uf.union(a, b);
                }
            }
            exact
        }
    };
    let clusters = joins.clusters();
    stats.verify_time = started.elapsed();

    // 5. Keep one per cluster; 6. paragraphs.
    let started = Instant::now();
    progress.stage("keeping", None);
    stats.clusters = clusters.len() as u64;
    keep_stage(&clusters, &mut docs, &table, opts, &exact);
    if opts.paragraphs {
        paragraphs::drop_repeated(&table, &mut docs);
    }
    count_fates(&docs, &mut stats);
    stats.keep_time = started.elapsed();
    Ok(DedupResult { docs, stats, corpus: reader.summary().clone() })
}

/// Options that cannot work together.
fn check_options(opts: &DedupOptions) -> Result<(), DedupError> {
    // As MinHasher::new counts them.
    let perms = opts.perms.max(1);
    if let Some(bands) = opts.bands {
        if bands.bands == 0 || bands.rows == 0 || bands.bands * bands.rows > perms {
            return Err(DedupError::Options(format!(
                "{} bands × {} rows do not fit in {} permutations; give at least one band of one row, and bands × \
                 rows ≤ permutations",
                bands.bands, bands.rows, perms
            )));
        }
    }
    if !(opts.threshold > 0.0 && opts.threshold <= 1.0) {
        return Err(DedupError::Options(format!("threshold {} is not in (0, 1]", opts.threshold)));
    }
    Ok(())
}

/// What the sketch stage hands on.
struct Sketches {
    /// Every document read, in input order, all [`Fate::Kept`].
    docs: Vec<DocEntry>,
    table: Table,
    /// The bands and rows in use ([`DedupOptions::bands`]).
    bands: Bands,
    /// Bytes of text sketched.
    text_bytes: u64,
    /// The hasher of the run, if a document was read.
    hasher: Option<MinHasher>,
}

/// Stage 1: read the corpus and sketch every document. The reader runs on
/// its own thread, a few batches ahead of the sketching
/// ([`CorpusReader::read_batches`]); both hand their work (JSON parsing,
/// sketching) to the rayon pool.
fn sketch_stage(
    reader: &mut CorpusReader,
    opts: &DedupOptions,
    progress: &dyn Progress,
) -> Result<Sketches, DedupError> {
    progress.stage("sketching", None);
    let mut sketcher = Sketcher {
        docs: Vec::new(),
        table: Table {
            signatures: Vec::new(),
            perms: opts.perms.max(1), // as MinHasher::new counts them
            exact: Vec::new(),
            copy_of: Vec::new(),
            lines: Vec::new(),
            keep_values: Vec::new(),
            cache: verify::ShingleCache::new(if opts.verify == Verify::Exact { verify::CACHE_BYTES } else { 0 }),
        },
        firsts: FxHashMap::default(),
        raw_firsts: FxHashMap::default(),
    };
    let mut text_bytes = 0u64;
    let (read, bands, hasher) = std::thread::scope(|scope| {
        // The optimal bands (a few milliseconds of integrals) are found while
        // the documents are sketched.
        let bands = scope.spawn(|| opts.bands());
        // Deriving the script table (a few milliseconds, once per process)
        // overlaps the reading of the first batch.
        let mut making = Some(scope.spawn(|| opts.hasher()));
        let mut hasher: Option<MinHasher> = None;
        let read = reader.read_batches(BATCH_DOCS, BATCH_BYTES, progress, |batch| {
            let hasher = hasher.get_or_insert_with(|| {
                let made = making.take().expect("made once").join();
                made.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            text_bytes += batch.iter().map(|d| d.text.len() as u64).sum::<u64>();
            sketcher.add_batch(hasher, batch, opts, progress);
            Ok::<(), std::convert::Infallible>(())
        });
        (read, bands.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), hasher)
    });
    match read {
        Ok(()) => {}
        Err(BatchStop::Strict(problem)) => {
            progress.problem(&problem);
            return Err(CorpusError::Strict(problem).into());
        }
        Err(BatchStop::Consumer(never)) => match never {},
    }
    Ok(Sketches { docs: sketcher.docs, table: sketcher.table, bands, text_bytes, hasher })
}

/// The sketch stage's state between batches.
struct Sketcher {
    docs: Vec<DocEntry>,
    table: Table,
    /// The first document (in input order) with each exact-duplicate hash:
    /// only it needs a signature of its own; its copies share it.
    firsts: FxHashMap<u128, u32>,
    /// The first document with each text, byte for byte (by a 128-bit hash
    /// of its bytes): a later copy takes everything the text gives (tokens'
    /// hash, lines, length) from it, without normalizing.
    raw_firsts: FxHashMap<u128, u32>,
}

impl Sketcher {
    /// Sketch a batch in parallel and record it in input order.
    fn add_batch(&mut self, hasher: &MinHasher, batch: Vec<CorpusDoc>, opts: &DedupOptions, progress: &dyn Progress) {
        // One parallel pass: tokens, then the signature while they are
        // still in cache, unless an earlier batch had the same tokens (or
        // the same text).
        let (known, known_raw, earlier, done) = (&self.firsts, &self.raw_firsts, &self.table, &self.docs);
        // Shingles for the cache while it has room (decided per batch, so
        // that which documents it holds does not depend on the threads).
        let keep_shingles = self.table.cache.has_room();
        let sketched: Vec<(Sketched, u128, Vec<u32>, Vec<u32>)> = batch
            .into_par_iter()
            .map(|d| {
                let raw = twox_hash::XxHash3_128::oneshot(d.text.as_bytes());
                if let Some(&first) = known_raw.get(&raw) {
                    return (copy_sketch(d, first, earlier, done, opts), raw, Vec::new(), Vec::new());
                }
                let mut s = sketch(hasher, d, opts);
                let copy = s.exact.is_some_and(|h| known.contains_key(&h));
                let (signature, shingles) = if copy {
                    (Vec::new(), Vec::new())
                } else {
                    let shingles = hasher.shingles_of(&s.tokens);
                    let kept = if keep_shingles { verify::cached_form(&shingles) } else { Vec::new() };
                    (hasher.signature_of_shingles(&shingles), kept)
                };
                s.tokens = Vec::new();
                (s, raw, signature, shingles)
            })
            .collect();
        progress.advance(sketched.len() as u64);
        let table = &mut self.table;
        for (s, raw, signature, shingles) in sketched {
            let doc = self.docs.len() as u32;
            self.raw_firsts.entry(raw).or_insert(doc);
            let copy = s.exact.and_then(|hash| {
                let first = *self.firsts.entry(hash).or_insert(doc);
                (first != doc).then_some(first)
            });
            match copy {
                None => table.push_signature(&signature),
                // The same tokens, so the same signature: the first one's,
                // already in the table (a copy within its batch made its own,
                // which is equal).
                Some(first) => {
                    let signature = table.signature(first).to_vec();
                    table.push_signature(&signature);
                }
            }
            table.cache.push(doc, &shingles);
            table.exact.push(s.exact);
            table.copy_of.push(copy);
            table.lines.push(s.lines);
            table.keep_values.push(s.keep_value);
            self.docs.push(s.entry);
        }
    }
}

/// Stage 4: in each cluster, keep one document by [`DedupOptions::keep`]
/// and mark the others removed, with the kept one and their similarity.
fn keep_stage(
    clusters: &[Vec<u32>],
    docs: &mut [DocEntry],
    table: &Table,
    opts: &DedupOptions,
    exact_sets: &verify::ExactSets,
) {
    for members in clusters {
        let keeper = choose(members, docs, table, &opts.keep);
        for &m in members {
            if m == keeper {
                continue;
            }
            let exact = table.exact[m as usize].is_some() && table.exact[m as usize] == table.exact[keeper as usize];
            let (reason, similarity) =
                if exact { (Reason::Exact, 1.0) } else { (Reason::Near, table.similarity(m, keeper, exact_sets)) };
            docs[m as usize].fate = Fate::Removed { reason, of: keeper, similarity };
        }
    }
}

/// Count the documents kept, trimmed and removed (by reason).
fn count_fates(docs: &[DocEntry], stats: &mut DedupStats) {
    for d in docs {
        match &d.fate {
            Fate::Kept => stats.kept += 1,
            Fate::Trimmed(lines) => {
                stats.kept += 1;
                stats.trimmed += 1;
                stats.paragraphs_removed += lines.len() as u64;
            }
            Fate::Removed { reason: Reason::Exact, .. } => stats.removed_exact += 1,
            Fate::Removed { reason: Reason::Near, .. } => stats.removed_near += 1,
            Fate::Removed { reason: Reason::EmptyAfterParagraphs, .. } => stats.removed_empty_after_paragraphs += 1,
        }
    }
}

/// Sketch one document.
fn sketch(hasher: &MinHasher, doc: CorpusDoc, opts: &DedupOptions) -> Sketched {
    let keep_value = keep_value(&doc, opts);
    // Token starts only for `--paragraphs`, which cuts the text at lines.
    let mut tokens = Vec::with_capacity(doc.text.len() / 3);
    let mut starts = Vec::new();
    let len = hasher.for_each_token(&doc.text, |id, start| {
        tokens.push(id);
        if opts.paragraphs {
            starts.push(start);
        }
    });
    let exact = (!tokens.is_empty()).then(|| minhash::sequence_hash(&tokens));
    let lines = if opts.paragraphs {
        paragraphs::line_hashes(&doc.text, &tokens, &starts, opts.min_paragraph_tokens)
    } else {
        Vec::new()
    };
    Sketched {
        entry: DocEntry {
            // The normalizer's length, unless the text was too long for it.
            chars: if len < u32::MAX { len as u64 } else { doc.text.chars().count() as u64 },
            id: doc.id,
            origin: doc.origin,
            fate: Fate::Kept,
        },
        tokens,
        exact,
        lines,
        keep_value,
    }
}

/// The sketch of a document whose text is byte for byte that of document
/// `first` (already recorded): everything but its own id, source and keep
/// value comes from `first`. No tokens, and so no signature of its own.
fn copy_sketch(doc: CorpusDoc, first: u32, table: &Table, docs: &[DocEntry], opts: &DedupOptions) -> Sketched {
    let f = first as usize;
    Sketched {
        keep_value: keep_value(&doc, opts),
        entry: DocEntry { chars: docs[f].chars, id: doc.id, origin: doc.origin, fate: Fate::Kept },
        tokens: Vec::new(),
        exact: table.exact[f],
        lines: table.lines[f].clone(),
    }
}

/// The `--keep-field` value of a document.
fn keep_value(doc: &CorpusDoc, opts: &DedupOptions) -> Option<f64> {
    match &opts.keep {
        Keep::Field(name) => doc.meta.get(name).and_then(|v| match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        }),
        _ => None,
    }
}

/// The member of a cluster that is kept.
fn choose(members: &[u32], docs: &[DocEntry], table: &Table, keep: &Keep) -> u32 {
    keeper(members, |m| docs[m as usize].chars, |m| table.keep_values[m as usize], keep)
}

/// The member of a cluster that [`Keep`] keeps, given each member's length
/// in characters (`chars`) and `--keep-field` value (`value`): the rule of
/// [`dedup`], for a run split over many machines too. `members` are
/// document indices in input order (the first one read first); not empty.
pub fn keeper(members: &[u32], chars: impl Fn(u32) -> u64, value: impl Fn(u32) -> Option<f64>, keep: &Keep) -> u32 {
    // Members are in input order; `max_by` keeps the last of equals, so
    // compare with the index reversed.
    match keep {
        Keep::First => members[0],
        Keep::Longest => *members.iter().max_by_key(|&&m| (chars(m), std::cmp::Reverse(m))).unwrap(),
        Keep::Field(_) => *members
            .iter()
            .max_by(|&&a, &&b| {
                let key = |v: Option<f64>| v.filter(|x| !x.is_nan());
                match (key(value(a)), key(value(b))) {
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Greater,
                    (None, Some(_)) => std::cmp::Ordering::Less,
                    (None, None) => std::cmp::Ordering::Equal,
                }
                .then(b.cmp(&a))
            })
            .unwrap(),
    }
}

/// Exact Jaccard similarity of the shingle sets of two texts, as `dedup`
/// shingles them (for evaluation).
pub fn exact_jaccard(hasher: &MinHasher, a: &str, b: &str) -> f64 {
    minhash::jaccard(&hasher.shingle_set(a), &hasher.shingle_set(b))
}
