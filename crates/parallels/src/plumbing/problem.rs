//! What a corpus reader reports of a record, file or folder that gives no
//! document: kept here, below the reader, so that the progress a command
//! reports (`progress`) need not reach up into `corpus` for it. `corpus`
//! re-exports both.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The kinds of [`Problem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A JSON line that is not valid UTF-8, not JSON, or not an object; a
    /// `.json` file that is one JSON array.
    Malformed,
    /// The id or text field is missing or null.
    MissingField,
    /// The id, text or group field has the wrong type, or the id is empty.
    WrongType,
    /// A document larger than
    /// [`CorpusOptions::max_document_bytes`](crate::corpus::CorpusOptions::max_document_bytes).
    TooLarge,
    /// A file or folder that cannot be read, or a text file that is binary
    /// or undecodable.
    Unreadable,
    /// A document with no characters, or only whitespace.
    Empty,
    /// An id already used by an earlier document.
    DuplicateId,
}

impl ProblemKind {
    /// Every kind, in order.
    pub const ALL: [ProblemKind; 7] = [
        ProblemKind::Malformed,
        ProblemKind::MissingField,
        ProblemKind::WrongType,
        ProblemKind::TooLarge,
        ProblemKind::Unreadable,
        ProblemKind::Empty,
        ProblemKind::DuplicateId,
    ];

    /// The kind as written in reports: `malformed`, `missing_field`, …
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::Malformed => "malformed",
            ProblemKind::MissingField => "missing_field",
            ProblemKind::WrongType => "wrong_type",
            ProblemKind::TooLarge => "too_large",
            ProblemKind::Unreadable => "unreadable",
            ProblemKind::Empty => "empty",
            ProblemKind::DuplicateId => "duplicate_id",
        }
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A record, file or folder that gives no document, and why. Not fatal
/// unless [`CorpusOptions::strict`](crate::corpus::CorpusOptions::strict)
/// is set. Displayed as `source: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// A path, `path:line` (JSON Lines, 1-based) or `path#row` (Parquet,
    /// 0-based).
    pub source: String,
    /// What kind of problem, for the counts.
    pub kind: ProblemKind,
    /// What is wrong, without the source.
    pub message: String,
}

impl Problem {
    pub(crate) fn new(source: impl Into<String>, kind: ProblemKind, message: impl Into<String>) -> Self {
        Problem { source: source.into(), kind, message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.message)
    }
}

impl std::error::Error for Problem {}
