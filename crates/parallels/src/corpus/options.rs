//! How to read a corpus: [`CorpusOptions`] and its defaults (a leaf).

use serde::{Deserialize, Serialize};

/// Rows per batch when reading Parquet.
pub const PARQUET_BATCH_ROWS: usize = 1024;

/// Default for [`CorpusOptions::max_document_bytes`]: 256 MiB.
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 256 << 20;

/// How to read a corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusOptions {
    /// JSON field or Parquet column holding the id (`--id`).
    pub id_field: String,
    /// JSON field or Parquet column holding the text (`--text`).
    pub text_field: String,
    /// JSON field or Parquet column holding the group (`--group`). A
    /// record without it (missing or null) is in no group: compared with
    /// every other document, as without `--group`.
    pub group_field: Option<String>,
    /// Group text files by the folder they are in (`--group-by-dir`).
    pub group_by_dir: bool,
    /// Stop at the first problem instead of skipping and counting.
    pub strict: bool,
    /// Extensions of the text files read from a folder, without the dot,
    /// compared without case; empty: every file.
    pub extensions: Vec<String>,
    /// A text file or JSON line larger than this is skipped as a
    /// [`ProblemKind::TooLarge`](crate::plumbing::problem::ProblemKind::TooLarge) problem, which bounds memory.
    pub max_document_bytes: u64,
}

impl Default for CorpusOptions {
    fn default() -> Self {
        CorpusOptions {
            id_field: "id".to_owned(),
            text_field: "text".to_owned(),
            group_field: None,
            group_by_dir: false,
            strict: false,
            extensions: vec!["txt".to_owned(), "md".to_owned()],
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
        }
    }
}
