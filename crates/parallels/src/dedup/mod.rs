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
//!
//! # Files
//!
//! `mod.rs` runs the stages; what they share is in leaves it re-exports
//! from: `options` ([`DedupOptions`], [`Verify`], [`Keep`]), `outcome`
//! ([`DedupResult`], [`DocEntry`], [`Fate`], [`Reason`], [`DedupStats`]),
//! `error` ([`DedupError`]), `table` (every document's signature, hashes
//! and line hashes, which `cluster`, `verify` and `paragraphs` read) and
//! `exact` (the shingle cache of the first pass and the exact sets the
//! check compares).

pub mod batch;
mod cluster;
mod error;
mod exact;
pub mod lsh;
pub mod minhash;
mod options;
mod outcome;
pub mod output;
mod paragraphs;
mod table;
pub mod verify;

use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::corpus::{BatchStop, CorpusDoc, CorpusError, CorpusReader};
use crate::plumbing::Progress;

pub use error::DedupError;
pub use lsh::Bands;
pub use minhash::MinHasher;
pub use options::{spill_folder, DedupOptions, Keep, Verify, MAX_NGRAM, MAX_PERMS, MIN_MEMORY};
pub use outcome::{listed_similarity, DedupResult, DedupStats, DocEntry, Fate, Reason};

use exact::{cached_form, ExactSets, ShingleCache, CACHE_BYTES};
use options::{BATCH_BYTES, BATCH_DOCS};
use table::Table;

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

/// Deduplicate the documents of `reader`; see the module docs.
pub fn dedup(
    reader: &mut CorpusReader,
    opts: &DedupOptions,
    progress: &dyn Progress,
) -> Result<DedupResult, DedupError> {
    opts.check()?;
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
        Verify::Signature => ExactSets::none(),
        Verify::Exact => {
            let needed = joins.needed();
            let hasher = hasher.unwrap_or_else(|| opts.hasher());
            let exact =
                verify::shingle_sets(&needed, &docs, &table, reader.inputs(), reader.options(), &hasher, progress)?;
            stats.exact_docs = exact.documents() as u64;
            stats.exact_reread = exact.reread() as u64;
            // The shingles were kept for this alone.
            table.cache = ShingleCache::default();
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
            cache: ShingleCache::new(if opts.verify == Verify::Exact { CACHE_BYTES } else { 0 }),
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
                    let kept = if keep_shingles { cached_form(&shingles) } else { Vec::new() };
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
            table.cache.push(doc, shingles);
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
    exact_sets: &ExactSets,
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
