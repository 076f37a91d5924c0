//! Why a corpus cannot be read at all ([`CorpusError`]), and the
//! [`Problem`]s of a record whose id, text or group field is missing, null
//! or of the wrong type, which the JSON Lines and Parquet readers share (a
//! leaf).

use std::path::PathBuf;

use crate::plumbing::problem::{Problem, ProblemKind};
use crate::read::shown;

/// At most this many column names are listed in a missing-column error.
const LISTED_COLUMNS: usize = 30;

/// Why a corpus cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// No argument at all.
    #[error("no input given; give a folder of text files, a .jsonl or .parquet file, or a glob pattern")]
    NoInput,
    /// An argument that is neither a path nor a pattern.
    #[error("{}: no such file or folder; check the path", shown(path))]
    NotFound {
        /// The argument.
        path: PathBuf,
    },
    /// A glob pattern without matches.
    #[error("{pattern}: the pattern matches no file; check it, and quote it so that the shell leaves it alone")]
    NoMatch {
        /// The pattern.
        pattern: String,
    },
    /// A glob pattern that does not parse.
    #[error("{pattern}: not a valid glob pattern: {message}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// What is wrong with it.
        message: String,
    },
    /// A file of a kind that is not read (compressed, an archive).
    #[error("{}: {reason}", shown(path))]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// Why, and what to do.
        reason: String,
    },
    /// A Parquet file without the id, text or group column.
    #[error(
        "{}: no column \"{column}\" (the {role} column, chosen with --{role}); its columns are: {}",
        shown(path),
        list_columns(columns)
    )]
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The column asked for.
        column: String,
        /// `id`, `text` or `group`.
        role: &'static str,
        /// The columns the file has.
        columns: Vec<String>,
    },
    /// A Parquet id, text or group column of a type that cannot be read.
    #[error("{}: column \"{column}\" is of type {found}; the {role} column must be {expected}", shown(path))]
    ColumnType {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// `id`, `text` or `group`.
        role: &'static str,
        /// Its type.
        found: String,
        /// The types it may have.
        expected: &'static str,
    },
    /// Options that contradict each other or the inputs.
    #[error("{0}")]
    Options(String),
    /// An input that cannot be looked at.
    #[error("{}: cannot read it: {source}", shown(path))]
    Io {
        /// The input.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The first [`Problem`] met with [`CorpusOptions::strict`](super::CorpusOptions::strict), for a
    /// caller that turns it into a fatal error.
    #[error("{0} (stopped at the first problem: `strict`; without it, such records are skipped and counted)")]
    Strict(Problem),
}

impl From<Problem> for CorpusError {
    fn from(problem: Problem) -> Self {
        CorpusError::Strict(problem)
    }
}

fn list_columns(columns: &[String]) -> String {
    let mut listed = columns.iter().take(LISTED_COLUMNS).map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    if columns.is_empty() {
        listed.push_str("(none)");
    } else if columns.len() > LISTED_COLUMNS {
        listed.push_str(&format!(" and {} more", columns.len() - LISTED_COLUMNS));
    }
    listed
}

pub(super) fn missing(source: String, field: &str, role: &str) -> Problem {
    let message = format!("no field \"{field}\" (the {role} field, chosen with --{role}); the record is skipped");
    Problem::new(source, ProblemKind::MissingField, message)
}

pub(super) fn null(source: String, field: &str) -> Problem {
    Problem::new(source, ProblemKind::MissingField, format!("\"{field}\" is null; the record is skipped"))
}

pub(super) fn wrong_type(source: String, field: &str, found: &str, hint: &str) -> Problem {
    Problem::new(source, ProblemKind::WrongType, format!("\"{field}\" is {found}{hint}; the record is skipped"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_lists_are_cut() {
        let columns: Vec<String> = (0..35).map(|i| format!("c{i}")).collect();
        let listed = list_columns(&columns);
        assert!(listed.starts_with("\"c0\", \"c1\""), "{listed}");
        assert!(listed.ends_with("\"c29\" and 5 more"), "{listed}");
        assert_eq!(list_columns(&[]), "(none)");
    }
}
