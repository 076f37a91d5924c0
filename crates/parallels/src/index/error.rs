//! What went wrong with an index ([`IndexError`]), and the two helpers
//! every file of the index makes its errors with.

use super::options::INDEX_SCHEMA;
use crate::corpus::Problem;
use std::io;
use std::path::{Path, PathBuf};

/// What to do about an index that cannot be read.
const REBUILD: &str = "restore the folder from a copy, or build a new index in another folder \
                       (`parallels index build CORPUS --index NEW`)";

/// What went wrong with an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Another process is writing the index.
    #[error(
        "{0}: another `parallels index` is writing this index{1}; wait for it to finish (only one writer at a time)"
    )]
    Locked(PathBuf, String),
    /// The lock file was removed or replaced while this writer held it:
    /// another writer may have started, so nothing is committed.
    #[error(
        "{0}: the lock file was removed or replaced while this `parallels index` was writing; nothing was \
             committed and the index is as it was (run the command again once no other writer runs)"
    )]
    LockLost(PathBuf),
    /// `build` on an index that exists.
    #[error("{0}: an index is already there; use `parallels index add` to add documents, or remove it first")]
    Exists(PathBuf),
    /// `build` into a folder holding something else than an index.
    #[error(
        "{0}: the folder holds {1:?}, which is not part of an index; an index needs a folder of its own \
             (a new or empty one). Nothing was changed"
    )]
    Foreign(PathBuf, String),
    /// No index at the path.
    #[error("{0}: no index here (make one with `parallels index build`)")]
    Missing(PathBuf),
    /// The index was made by another version.
    #[error(
        "{0}: this index was made by another version of parallels ({1}; this version reads {INDEX_SCHEMA}) and \
             cannot be read or added to; build a new index in another folder (`parallels index build CORPUS \
             --index NEW`), or remove this one first"
    )]
    Version(PathBuf, String),
    /// A file of the index is not what was written: its checksum, its
    /// length or its content is wrong.
    #[error("index damaged at {path}: {what}; {REBUILD}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// The corpus cannot be read.
    #[error("{0}")]
    Corpus(#[from] crate::corpus::CorpusError),
    /// Options that cannot work ([`ScanOptions::check`](crate::scan::ScanOptions::check)).
    #[error("{0}")]
    Options(String),
    /// The first problem met with `--strict`.
    #[error("{0}; stopped at the first problem (`strict`), the index is unchanged")]
    Strict(Problem),
    /// No document was read (the inputs hold none, or every one was
    /// skipped): nothing is written.
    #[error("no document was read ({0} record(s) or file(s) skipped); the index is unchanged")]
    Empty(u64),
    /// More documents than 32-bit numbers count.
    #[error("more than {0} documents in one index")]
    TooManyDocuments(u64),
    /// A query was stopped (its client went away, or its time ran out).
    #[error("the query was stopped")]
    Stopped,
    /// A hit names a document the index does not hold.
    #[error("a hit names a document the index does not hold")]
    NoDocument(u32),
    /// The text of a document a hit names cannot be read.
    #[error("document {doc}: cannot read its text: {error}")]
    Text {
        /// The document's number.
        doc: u32,
        /// Why (in the message, not a separate cause).
        error: Box<IndexError>,
    },
    /// Reading or writing failed.
    #[error("{path}: {error}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error (in the message, not a separate cause: it would be
        /// said twice).
        error: io::Error,
    },
}

pub(super) fn io_at(path: &Path) -> impl Fn(io::Error) -> IndexError + '_ {
    move |error| IndexError::Io { path: path.to_path_buf(), error }
}

pub(super) fn damaged(path: PathBuf, what: impl Into<String>) -> IndexError {
    IndexError::Damaged { path, what: what.into() }
}
