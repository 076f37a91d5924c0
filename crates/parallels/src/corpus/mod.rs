//! Reading a corpus: folders of text files, JSON Lines and Parquet files, as
//! one stream of documents.
//!
//! This module owns the input side of `scan` and `dedup`. It takes the
//! command-line arguments ([`resolve`] turns them into [`Input`]s) and
//! [`CorpusOptions`], and hands on a [`CorpusReader`]: an iterator of
//! [`CorpusDoc`]s in a deterministic order, interleaved with the
//! [`Problem`]s met on the way, and a [`Summary`] of what was read and
//! skipped. Each text file is decoded by
//! [`read::read_document`](crate::read::read_document), so text files follow
//! the encoding rules of [`read`](crate::read); JSON Lines and Parquet text
//! is UTF-8.
//!
//! # Inputs
//!
//! An argument that names an existing path is
//!
//! * a **folder**: walked recursively, entries sorted by name (byte order) at
//!   every level, so documents come in path order, component by component.
//!   Hidden entries (a name starting with `.`) are skipped, and so are files
//!   whose extension is not in [`CorpusOptions::extensions`] (compared without
//!   case; an empty list takes every file). Symbolic links to files are read,
//!   symbolic links to folders are not followed. Skipped entries are counted
//!   in the [`Summary`], not reported one by one;
//! * a **`.jsonl`, `.ndjson` or `.json`** file: JSON Lines, one object per
//!   line; also compressed, **`.jsonl.gz`** or **`.jsonl.zst`** (and
//!   `.zstd`), decompressed as it is read (see below);
//! * a **`.parquet`** file;
//! * a text file compressed with gzip or Zstandard (`a.txt.gz`,
//!   `a.md.zst`): decompressed, then decoded as any text file; in folders
//!   too, where its inner extension (`txt`) is the one compared with
//!   [`CorpusOptions::extensions`];
//! * another compressed or archive file (`.bz2`, `.xz`, `.zip`, `.tar.gz`,
//!   `.parquet.gz`, …): refused with a hint to decompress;
//! * any other file: one text file.
//!
//! # Compressed input
//!
//! A `.gz` file (one or several gzip members, as `zcat` reads them) or a
//! `.zst`/`.zstd` file (one or several Zstandard frames) is decompressed
//! as it is read ([`read::open_decompressed`](crate::read::open_decompressed)):
//! a JSON Lines file line by line, as the plain file would be, so memory
//! stays that of one line. Everything that counts bytes counts the
//! decompressed ones: line numbers, [`Origin::bytes`] (offsets in the
//! decompressed stream, which `dedup` reads again the same way),
//! [`CorpusOptions::max_document_bytes`] (a text file is refused once it
//! inflates past it). A damaged or truncated stream is a [`Problem`] at the
//! line where reading stopped (`file:line: cannot read on from this line:
//! …`; the records before it are kept), or, for a text file, the file.
//!
//! An argument that names no path but contains `*`, `?` or `[` is a glob
//! pattern: its matches (sorted by path; `*` does not cross `/` nor match a
//! leading `.`; `**` matches any number of folders) are taken as if each had
//! been given.
//!
//! # Ids, sources and groups
//!
//! | input | id | source | group |
//! | --- | --- | --- | --- |
//! | text file in a folder | path relative to the folder, without its extension (and a compression extension), `/`-separated: `2021/06/a`; with several folders given, relative to each folder's parent (`a/2021/06/a`), so that equal names in two folders stay apart | the path | with `group_by_dir`, the relative folder: `2021/06`, or `.` at the top |
//! | text file matched by a glob | path relative to the pattern's literal folder prefix (`corpus` in `corpus/**/*.txt`), without extension | the path | as above |
//! | text file named alone | file name without extension | the path | `.` |
//! | JSON Lines record | the id field: a string as is, a number as written (`7`, `1.5`) | `path:line` (1-based) | the group field as a string (numbers and booleans as written) |
//! | Parquet row | the id column: a string, or an integer written in decimal | `path#row` (0-based, as in Arrow and pandas) | the group column as a string |
//!
//! A file name that is not valid UTF-8 gives an id in which each byte that
//! is not part of valid UTF-8 is written `\xFF`, and control characters
//! are escaped (`\n`, `\u{1b}`): the form of [`read::shown`](crate::read::shown).
//! Two such names stay two ids.
//!
//! Every document carries its [`Origin`]: the index of its input, its
//! [`Source`] (the file and a [`Position`] in it: whole, line or row, the
//! typed value behind the "source" column above) and, for a JSON Lines
//! record, its byte range in the file. Later stages use these fields, never
//! the written form: `dedup` copies kept records by their byte ranges, and
//! `report` finds the file to read again in [`Source::file`].
//!
//! A JSON Lines record keeps its other fields in [`CorpusDoc::meta`]. A
//! Parquet row keeps its other columns of simple scalar types (strings,
//! integers, floats, booleans, also dictionary-encoded; nulls as JSON
//! `null`); columns of other types (lists, structs, binary, dates,
//! timestamps, decimals, …) are not read, and their names and types are
//! listed in [`Summary::ignored_columns`].
//!
//! # Problems
//!
//! Nothing is dropped silently. Every record, file or folder that cannot
//! give a document is a [`Problem`] naming its source and why: a malformed
//! JSON line (serde's message and column, or invalid UTF-8), a missing or
//! null id/text/group field, a field of the wrong type, a document larger
//! than [`CorpusOptions::max_document_bytes`], an unreadable, binary or
//! undecodable file, an empty document (no characters, or only whitespace),
//! and a duplicate id (the first document keeps the id; the later one is
//! reported with both sources). Problems are counted by kind in
//! [`Summary::skipped`]. With [`CorpusOptions::strict`], the first problem is
//! the last item of the iteration.
//!
//! Problems of a whole input that show before any reading are errors
//! ([`CorpusError`]) from [`resolve`] and [`CorpusReader::new`]: a path that
//! does not exist, a pattern that matches nothing, a Parquet file without the
//! id, text or group column (the message lists the columns it has) or with
//! one of the wrong type, and options that contradict each other or the
//! inputs.
//!
//! # Files
//!
//! * `inputs.rs`: arguments to [`Input`]s ([`resolve`]), and the
//!   [`fingerprint`] of what a reader would read;
//! * `walk.rs`: the one walk of a folder (sorted, hidden entries and other
//!   extensions skipped), used by the reader and the fingerprint, and how a
//!   text file's path gives its id and group;
//! * `jsonl.rs`: JSON Lines, line by line, each record's bytes kept; lone
//!   surrogate escapes repaired;
//! * `written.rs`: how a [`Source`] is written in JSON and read back,
//!   losslessly for paths that are not UTF-8;
//! * `parquet.rs`: Parquet, batch by batch, the columns planned from the
//!   footer;
//! * `reader.rs`: [`CorpusReader`], which opens each input by its kind and
//!   checks every record (empty, duplicate id), one item at a time
//!   ([`Iterator`]), a batch at a time ([`CorpusReader::next_batch`], JSON
//!   parsed in parallel) or on a thread of its own
//!   ([`CorpusReader::read_batches`], what `scan` and `dedup` use).
//!
//! # Memory
//!
//! Streaming: the reader holds one document at a time (one text file, one
//! JSON line, at most [`CorpusOptions::max_document_bytes`] each), or one
//! batch of [`PARQUET_BATCH_ROWS`] rows of a Parquet file; the listings of the
//! folders on the path from the walked folder to the current file; and, for
//! the duplicate check, every id seen so far with a reference to its source
//! (the id's bytes plus about 60 bytes per document, and the path of every
//! file that gave a document).

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::read::shown;

mod admit;
mod inputs;
mod jsonl;
mod parquet;
mod raw;
mod reader;
mod walk;
mod written;

pub use crate::plumbing::problem::{Problem, ProblemKind};
pub use admit::{is_blank, is_document};
pub use inputs::{fingerprint, input_files, resolve, FileStamp, Input};
pub use jsonl::{record_text, repair_lone_surrogates};
pub use reader::{BatchStop, CorpusReader};
pub use written::json_path;

use inputs::FileKind;

/// Rows per batch when reading Parquet.
pub const PARQUET_BATCH_ROWS: usize = 1024;

/// Default for [`CorpusOptions::max_document_bytes`]: 256 MiB.
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 256 << 20;

/// At most this many column names are listed in a missing-column error.
const LISTED_COLUMNS: usize = 30;

/// One document of the corpus.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusDoc {
    /// Unique within the corpus (see the module docs for how it is made).
    pub id: String,
    /// Where it came from: the input, the file and the place in it
    /// (written `path`, `path:line` or `path#row`), and the record's bytes.
    pub origin: Origin,
    /// The decoded text; never empty nor only whitespace.
    pub text: String,
    /// `utf-8`, or for text files the encoding
    /// [`read::decode`](crate::read::decode) detected.
    pub encoding: String,
    /// Undecodable byte sequences replaced by U+FFFD in a text file, or
    /// lone surrogate escapes read as U+FFFD in a JSON Lines record (see
    /// [`Summary::repaired`]); worth a warning when not 0.
    pub replaced: usize,
    /// Documents of one group are never compared with each other.
    pub group: Option<String>,
    /// The other fields of a JSON Lines record, or the other scalar columns
    /// of a Parquet row; empty for text files.
    pub meta: Map<String, Value>,
}

/// Where in its file a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// The whole file: a text file.
    Whole,
    /// A line of a JSON Lines file, 1-based.
    Line(u64),
    /// A row of a Parquet file, 0-based (as in Arrow and pandas).
    Row(u64),
}

/// The file a document came from and its place in it: what the outputs
/// write as a document's `source`.
///
/// Serialized as a string: `path` for a text file, `path:line` for a JSON
/// Lines record and `path#row` for a Parquet row, the path as it was given
/// or found by walking a folder, byte for byte. [`Source::parse`] reads
/// that form back. A path that is not valid UTF-8 is written with each byte
/// that is not part of valid UTF-8 as a lone surrogate escape, `\udc80` to
/// `\udcff` for the bytes 80 to FF (Python's `surrogateescape`:
/// `os.fsencode(json.loads(line)["source"])` gives the bytes back); the
/// deserializer reads that back into the same bytes, so `report` finds the
/// file again. Displayed (in messages) through
/// [`read::shown`](crate::read::shown): control characters and bytes that
/// are not UTF-8 escaped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// The file's path, as given or walked (not necessarily UTF-8). Shared
    /// by every record of one file.
    pub file: Arc<Path>,
    /// The place in the file.
    pub position: Position,
}

impl Source {
    /// A whole text file.
    pub fn whole(file: impl AsRef<Path>) -> Source {
        Source { file: file.as_ref().into(), position: Position::Whole }
    }

    /// A source as [`Display`](fmt::Display) writes it, read back: `path:N`
    /// is line `N` of a JSON Lines file and `path#N` row `N` of a Parquet
    /// file when `path` has the extension that makes [`resolve`] read it as
    /// one; anything else is a whole text file. A text file whose own name
    /// ends in `.jsonl:7` or `.parquet#7` reads back as a record: the
    /// written form cannot tell them apart.
    pub fn parse(written: &str) -> Source {
        Source::parse_path(Path::new(written))
    }

    /// [`Source::parse`] of a written form that is a path (not necessarily
    /// UTF-8): `path:N`, `path#N` and `path` as there.
    pub fn parse_path(written: &Path) -> Source {
        let number =
            |n: &[u8]| (!n.is_empty() && n.iter().all(|b| b.is_ascii_digit())).then(|| written::decimal(n)).flatten();
        let bytes = written.as_os_str().as_encoded_bytes();
        for (mark, kind) in [(b'#', FileKind::Parquet), (b':', FileKind::Jsonl)] {
            let Some(at) = bytes.iter().rposition(|&b| b == mark) else { continue };
            let file = written::prefix(written, at);
            if let (Some(n), true) = (number(&bytes[at + 1..]), FileKind::of(&file) == kind) {
                let position = if mark == b'#' { Position::Row(n) } else { Position::Line(n) };
                return Source { file: file.into(), position };
            }
        }
        Source::whole(written)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = shown(&self.file);
        match self.position {
            Position::Whole => write!(f, "{file}"),
            Position::Line(line) => write!(f, "{file}:{line}"),
            Position::Row(row) => write!(f, "{file}#{row}"),
        }
    }
}

/// Where a document is in the inputs a [`CorpusReader`] was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The index of its input in the list the reader was made with.
    pub input: usize,
    /// Its file and its place in it.
    pub source: Source,
    /// Its bytes in the file, when it has bytes of its own: for a JSON
    /// Lines record, from the first byte of its line (after a byte-order
    /// mark) to just after its line ending (the end of the file, for a last
    /// line without one). `None` for a text file (read and decoded whole)
    /// and a Parquet row (its columns are compressed apart).
    pub bytes: Option<Range<u64>>,
}

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
    /// [`ProblemKind::TooLarge`] problem, which bounds memory.
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

/// What a [`CorpusReader`] has read and skipped so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Documents handed on.
    pub documents: u64,
    /// Bytes of input read: whole text and Parquet files, JSON lines as they
    /// are read.
    pub bytes: u64,
    /// Files opened (text files read and decoded, JSON Lines and Parquet
    /// files opened).
    pub files: u64,
    /// Problems by kind. Each one skipped a record, a file, a folder, or the
    /// rest of a file.
    pub skipped: BTreeMap<ProblemKind, u64>,
    /// JSON Lines records read with U+FFFD in place of a lone surrogate
    /// escape (`\ud800` without its pair; Python writes them). Written
    /// only when not 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repaired: u64,
    /// The first of those records, as `file:line`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_repaired: Option<String>,
    /// Hidden files and folders not walked into.
    pub hidden: u64,
    /// Files in walked folders skipped for their extension.
    pub other_extension: u64,
    /// Entries of walked folders that are neither files nor folders:
    /// symbolic links to folders (not followed), sockets, devices, pipes.
    pub not_regular: u64,
    /// Parquet columns not kept in `meta`, by name, with their type.
    pub ignored_columns: BTreeMap<String, String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Summary {
    /// How many problems of this kind were met.
    pub fn skipped_count(&self, kind: ProblemKind) -> u64 {
        self.skipped.get(&kind).copied().unwrap_or(0)
    }

    /// How many problems were met in all.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    /// The warning about records read with lone surrogates repaired, if
    /// there were any: how many, and the first one's `file:line`.
    pub fn repaired_warning(&self) -> Option<String> {
        (self.repaired > 0).then(|| {
            format!(
                "{} JSON Lines record(s) held lone surrogate escapes (\\ud800-\\udfff without their pair, as \
                 Python writes text it could not decode); they were read with U+FFFD in their place, the first \
                 at {}",
                self.repaired,
                self.first_repaired.as_deref().unwrap_or("?")
            )
        })
    }
}

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
    /// The first [`Problem`] met with [`CorpusOptions::strict`], for a
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

fn missing(source: String, field: &str, role: &str) -> Problem {
    let message = format!("no field \"{field}\" (the {role} field, chosen with --{role}); the record is skipped");
    Problem::new(source, ProblemKind::MissingField, message)
}

fn null(source: String, field: &str) -> Problem {
    Problem::new(source, ProblemKind::MissingField, format!("\"{field}\" is null; the record is skipped"))
}

fn wrong_type(source: String, field: &str, found: &str, hint: &str) -> Problem {
    Problem::new(source, ProblemKind::WrongType, format!("\"{field}\" is {found}{hint}; the record is skipped"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_serializes_with_kind_names() {
        let mut summary = Summary { documents: 2, ..Summary::default() };
        summary.skipped.insert(ProblemKind::DuplicateId, 1);
        let value = serde_json::to_value(&summary).unwrap();
        assert_eq!(value["documents"], 2);
        assert_eq!(value["skipped"], serde_json::json!({"duplicate_id": 1}));
        for kind in ProblemKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }

    #[test]
    fn column_lists_are_cut() {
        let columns: Vec<String> = (0..35).map(|i| format!("c{i}")).collect();
        let listed = list_columns(&columns);
        assert!(listed.starts_with("\"c0\", \"c1\""), "{listed}");
        assert!(listed.ends_with("\"c29\" and 5 more"), "{listed}");
        assert_eq!(list_columns(&[]), "(none)");
    }
}
