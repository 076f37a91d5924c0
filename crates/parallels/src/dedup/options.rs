//! How a run deduplicates: [`DedupOptions`], with how pairs are verified
//! ([`Verify`]) and which document of a cluster is kept ([`Keep`]); and the
//! batches the corpus is read in (a leaf).

use std::path::PathBuf;

use super::lsh::{self, Bands};
use super::minhash::MinHasher;
use crate::normalize::{NormalizeOptions, Normalizer};

/// Documents sketched in parallel at a time.
pub(super) const BATCH_DOCS: usize = 512;
/// Or fewer, when they hold more than this many bytes of input.
pub(super) const BATCH_BYTES: usize = 8 << 20;

/// How candidate pairs are verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Verify {
    /// Estimated Jaccard similarity: the share of equal signature values
    /// (standard error `sqrt(J(1−J)/perms)`, 0.035 at 0.8 and 128).
    Signature,
    /// Exact Jaccard similarity of the shingle sets, kept from the first
    /// pass up to [`verify::CACHE_BYTES`](super::verify::CACHE_BYTES) or recomputed in a second pass
    /// for the documents of candidate pairs; the signatures settle
    /// only pairs far from the threshold (see [`verify`](super::verify)).
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
