//! Why a run failed: [`DedupError`] (a leaf).

use std::path::PathBuf;

use crate::corpus::CorpusError;

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
