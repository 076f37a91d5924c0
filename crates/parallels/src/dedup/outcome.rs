//! What a run hands on: each document read ([`DocEntry`]) and its
//! [`Fate`] (removed for a [`Reason`]), the counts and times
//! ([`DedupStats`]), all in a [`DedupResult`] (a leaf).

use std::time::Duration;

use serde::Serialize;

use crate::corpus::{Origin, Summary};

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
    /// through the exact check of [`Verify::Exact`](super::Verify::Exact), else the signatures'
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

/// A removed document's similarity as the removed list gives it (the
/// command's `--removed`, the Python package, the Spark driver): rounded to
/// 4 places.
pub fn listed_similarity(similarity: f64) -> f64 {
    (similarity * 1e4).round() / 1e4
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

/// The outcome of [`dedup`](super::dedup()).
#[derive(Clone, Debug)]
pub struct DedupResult {
    /// Every document read, in input order.
    pub docs: Vec<DocEntry>,
    /// Counts and times.
    pub stats: DedupStats,
    /// What the reader read and skipped.
    pub corpus: Summary,
}
