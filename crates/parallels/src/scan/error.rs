//! What a scan fails on: one error type for every stage.

use crate::corpus::Problem;
use std::io;
use std::path::PathBuf;

/// What scanning failed on.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The corpus cannot be read.
    #[error("{0}")]
    Corpus(#[from] crate::corpus::CorpusError),
    /// Reading or writing the work folder failed; what it holds can be
    /// taken over with [`Work::resume`](super::Work::resume) once the cause is fixed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The first problem met with [`crate::corpus::CorpusOptions::strict`].
    #[error("{0}; stopped at the first problem (`strict`), nothing was written")]
    Strict(Problem),
    /// Options that cannot work ([`ScanOptions::check`](super::ScanOptions::check)).
    #[error("{0}")]
    Options(String),
    /// More documents than the 32-bit document numbers can count.
    #[error("more than {max} documents; split the corpus")]
    TooManyDocuments {
        /// The most documents a scan takes.
        max: u64,
    },
}
