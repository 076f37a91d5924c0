//! How a run deduplicates: [`DedupOptions`], with how pairs are verified
//! ([`Verify`]) and which document of a cluster is kept ([`Keep`]), its
//! one check ([`DedupOptions::check`], which the command line, Python and
//! Spark call instead of stating the bounds again) and where a run spills
//! ([`spill_folder`]); and the batches the corpus is read in (a leaf).

use std::path::{Path, PathBuf};

use super::error::DedupError;

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

/// The longest shingle, in tokens ([`DedupOptions::ngram`]).
pub const MAX_NGRAM: usize = 64;
/// The most MinHash permutations ([`DedupOptions::perms`]).
pub const MAX_PERMS: usize = 1024;
/// The least sorting memory the front ends take ([`DedupOptions::memory`]:
/// `--memory`, `memory_mib`). The library takes less (the sorter keeps at
/// least 1,024 records in memory whatever its budget), which its tests use
/// to spill small inputs.
pub const MIN_MEMORY: u64 = 16 << 20;

/// Where a run that writes `output` spills its band records
/// ([`DedupOptions::work_dir`]): the output folder itself when `output` is
/// one (Parquet: a file per input inside it), else the folder the output
/// file is in (`.` for a bare name). Next to the output, so the spill is
/// on the disk that has room for the result, and a run's temporary files
/// are found (and removed) where its output is.
pub fn spill_folder(output: &Path, is_folder: bool) -> PathBuf {
    let dir = if is_folder { output.to_path_buf() } else { output.parent().map(PathBuf::from).unwrap_or_default() };
    if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    }
}

impl DedupOptions {
    /// Options that cannot work, named as the fields are named here (the
    /// bounds every front end asks: the command line, Python and Spark
    /// call this instead of stating them again; [`dedup`](super::dedup)
    /// calls it first).
    pub fn check(&self) -> Result<(), DedupError> {
        let bad = |what: String| Err(DedupError::Options(what));
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return bad(format!("threshold = {}: must be a similarity in (0, 1], such as 0.8", self.threshold));
        }
        if !(1..=MAX_NGRAM).contains(&self.ngram) {
            return bad(format!("ngram = {}: must be from 1 to {MAX_NGRAM} tokens", self.ngram));
        }
        if !(1..=MAX_PERMS).contains(&self.perms) {
            return bad(format!("perms = {}: must be from 1 to {MAX_PERMS} permutations", self.perms));
        }
        if let Some(b) = self.bands {
            if b.bands == 0 || b.rows == 0 || b.bands.saturating_mul(b.rows) > self.perms {
                return bad(format!(
                    "{} bands × {} rows do not fit in {} permutations; give at least one band of one row, and \
                     bands × rows ≤ permutations",
                    b.bands, b.rows, self.perms
                ));
            }
        }
        if !(self.candidate_recall > 0.0 && self.candidate_recall < 1.0) {
            return bad(format!("candidate_recall = {}: must be above 0 and below 1", self.candidate_recall));
        }
        if self.min_paragraph_tokens < 1 || self.bucket_cap < 1 {
            return bad(format!(
                "min_paragraph_tokens = {}, bucket_cap = {}: both must be at least 1",
                self.min_paragraph_tokens, self.bucket_cap
            ));
        }
        Ok(())
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds every front end asks are the library's: a bad option is
    /// named, the defaults pass.
    #[test]
    fn options_that_cannot_work_are_named() {
        assert!(DedupOptions::default().check().is_ok());
        let named = |opts: DedupOptions| opts.check().unwrap_err().to_string();
        let d = DedupOptions::default;
        assert!(named(DedupOptions { threshold: 0.0, ..d() }).starts_with("threshold = 0:"));
        assert!(named(DedupOptions { threshold: f64::NAN, ..d() }).starts_with("threshold = NaN:"));
        assert!(named(DedupOptions { ngram: MAX_NGRAM + 1, ..d() }).starts_with("ngram = 65:"));
        assert!(named(DedupOptions { perms: 0, ..d() }).starts_with("perms = 0:"));
        let bands = |bands, rows| Some(Bands { bands, rows });
        assert!(named(DedupOptions { bands: bands(16, 9), ..d() }).starts_with("16 bands × 9 rows do not fit in 128"));
        assert!(named(DedupOptions { bands: bands(0, 4), ..d() }).starts_with("0 bands × 4 rows"));
        assert!(DedupOptions { bands: bands(16, 8), ..d() }.check().is_ok());
        assert!(named(DedupOptions { min_paragraph_tokens: 0, ..d() }).starts_with("min_paragraph_tokens = 0"));
    }

    #[test]
    fn a_run_spills_next_to_its_output() {
        assert_eq!(spill_folder(Path::new("out/clean.jsonl"), false), Path::new("out"));
        assert_eq!(spill_folder(Path::new("clean.jsonl"), false), Path::new("."));
        assert_eq!(spill_folder(Path::new("out/parquet"), true), Path::new("out/parquet"));
        assert_eq!(spill_folder(Path::new(""), true), Path::new("."));
    }
}
