//! Reading a corpus: folders of text files, JSON Lines and Parquet files, as
//! one stream of documents.
//!
//! This module owns the input side of `parallels scan`. It takes the
//! command-line arguments ([`resolve`] turns them into [`Input`]s) and
//! [`CorpusOptions`], and hands on a [`CorpusReader`]: an iterator of
//! [`CorpusDoc`]s in a deterministic order, interleaved with the
//! [`Problem`]s met on the way, and a [`Summary`] of what was read and
//! skipped. Each text file is decoded by [`read::read_document`], so text
//! files follow the encoding rules of [`read`]; JSON Lines and Parquet text
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
//!   line;
//! * a **`.parquet`** file;
//! * a compressed file (`.gz`, `.zst`, …): refused with a hint to decompress;
//! * any other file: one text file.
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
//! | text file in a folder | path relative to the folder, without its extension, `/`-separated: `2021/06/a`; with several folders given, relative to each folder's parent (`a/2021/06/a`), so that equal names in two folders stay apart | the path | with `group_by_dir`, the relative folder: `2021/06`, or `.` at the top |
//! | text file matched by a glob | path relative to the pattern's literal folder prefix (`corpus` in `corpus/**/*.txt`), without extension | the path | as above |
//! | text file named alone | file name without extension | the path | `.` |
//! | JSON Lines record | the id field: a string as is, a number as written (`7`, `1.5`) | `path:line` (1-based) | the group field as a string (numbers and booleans as written) |
//! | Parquet row | the id column: a string, or an integer written in decimal | `path#row` (0-based, as in Arrow and pandas) | the group column as a string |
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
//! # Memory
//!
//! Streaming: the reader holds one document at a time (one text file, one
//! JSON line, at most [`CorpusOptions::max_document_bytes`] each), or one
//! batch of [`PARQUET_BATCH_ROWS`] rows of a Parquet file; the listings of the
//! folders on the path from the walked folder to the current file; and, for
//! the duplicate check, every id seen so far with a reference to its source
//! (the id's bytes plus about 60 bytes per document, and the path of every
//! file that gave a document).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::read;

/// Rows per batch when reading Parquet.
pub const PARQUET_BATCH_ROWS: usize = 1024;

/// Default for [`CorpusOptions::max_document_bytes`]: 256 MiB.
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 256 << 20;

/// Buffer size of the JSON Lines reader.
const JSONL_BUFFER_BYTES: usize = 64 * 1024;

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
    /// `utf-8`, or for text files the encoding [`read::decode`] detected.
    pub encoding: String,
    /// Undecodable byte sequences replaced by U+FFFD (text files only;
    /// worth a warning when not 0).
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
/// Displayed (and serialized, as a string) as `path` for a text file,
/// `path:line` for a JSON Lines record and `path#row` for a Parquet row,
/// the path as it was given or found by walking a folder.
/// [`Source::parse`] reads that form back.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// The file's path, displayed (lossily, if it is not UTF-8). Shared by
    /// every record of one file.
    pub file: Arc<str>,
    /// The place in the file.
    pub position: Position,
}

impl Source {
    /// A whole text file.
    pub fn whole(file: impl Into<Arc<str>>) -> Source {
        Source { file: file.into(), position: Position::Whole }
    }

    /// A source as [`Display`](fmt::Display) writes it, read back: `path:N`
    /// is line `N` of a JSON Lines file and `path#N` row `N` of a Parquet
    /// file when `path` has the extension that makes [`resolve`] read it as
    /// one; anything else is a whole text file. A text file whose own name
    /// ends in `.jsonl:7` or `.parquet#7` reads back as a record: the
    /// written form cannot tell them apart.
    pub fn parse(written: &str) -> Source {
        let number =
            |n: &str| (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().ok()).flatten();
        if let Some((file, row)) = written.rsplit_once('#') {
            if let (Some(row), FileKind::Parquet) = (number(row), FileKind::of(Path::new(file))) {
                return Source { file: file.into(), position: Position::Row(row) };
            }
        }
        if let Some((file, line)) = written.rsplit_once(':') {
            if let (Some(line), FileKind::Jsonl) = (number(line), FileKind::of(Path::new(file))) {
                return Source { file: file.into(), position: Position::Line(line) };
            }
        }
        Source::whole(written)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Position::Whole => f.write_str(&self.file),
            Position::Line(line) => write!(f, "{}:{line}", self.file),
            Position::Row(row) => write!(f, "{}#{row}", self.file),
        }
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let written = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(Source::parse(&written))
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
    /// JSON field or Parquet column holding the group (`--group`).
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

/// One input, resolved from a command-line argument by [`resolve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A folder of text files, walked recursively; ids are paths relative
    /// to `root` (the folder itself, or its parent when several folders are
    /// given).
    Dir {
        /// The folder.
        path: PathBuf,
        /// What ids are relative to.
        root: PathBuf,
    },
    /// One text file; its id is its path relative to `root`, without
    /// extension.
    Text {
        /// The file.
        path: PathBuf,
        /// What its id is relative to.
        root: PathBuf,
    },
    /// A JSON Lines file.
    Jsonl(PathBuf),
    /// A Parquet file.
    Parquet(PathBuf),
}

impl Input {
    /// The path of the folder or file.
    pub fn path(&self) -> &Path {
        match self {
            Input::Dir { path, .. } | Input::Jsonl(path) | Input::Parquet(path) | Input::Text { path, .. } => path,
        }
    }
}

/// One file under the inputs, as [`fingerprint`] sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// The path, displayed.
    pub path: String,
    /// Size in bytes.
    pub len: u64,
    /// Modification time, in nanoseconds since the Unix epoch.
    pub modified: u64,
}

/// What identifies the inputs' contents, cheaply: every file under them
/// (folders walked in name order, hidden entries skipped, links to folders
/// not followed) with its size and modification time. A scan resumes only
/// while this stays the same. A file that cannot be looked at has size and
/// time 0.
pub fn fingerprint(inputs: &[Input]) -> Vec<FileStamp> {
    fn stamp(path: &Path) -> FileStamp {
        let (len, modified) = match fs::metadata(path) {
            Ok(m) => {
                let t = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
                (m.len(), t.map_or(0, |t| t.as_nanos() as u64))
            }
            Err(_) => (0, 0),
        };
        FileStamp { path: path.display().to_string(), len, modified }
    }
    fn walk(dir: &Path, out: &mut Vec<FileStamp>) {
        let Ok(listing) = fs::read_dir(dir) else {
            out.push(FileStamp { path: dir.display().to_string(), len: 0, modified: 0 });
            return;
        };
        let mut entries: Vec<fs::DirEntry> = listing.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            if e.file_name().as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let path = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => walk(&path, out),
                _ => out.push(stamp(&path)),
            }
        }
    }
    let mut out = Vec::new();
    for input in inputs {
        match input {
            Input::Dir { path, .. } => walk(path, &mut out),
            other => out.push(stamp(other.path())),
        }
    }
    out
}

/// The kinds of [`Problem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// A JSON line that is not valid UTF-8, not JSON, or not an object; a
    /// `.json` file that is one JSON array.
    Malformed,
    /// The id, text or group field is missing or null.
    MissingField,
    /// The id, text or group field has the wrong type, or the id is empty.
    WrongType,
    /// A document larger than [`CorpusOptions::max_document_bytes`].
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
/// unless [`CorpusOptions::strict`] is set. Displayed as `source: message`.
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
    fn new(source: impl Into<String>, kind: ProblemKind, message: impl Into<String>) -> Self {
        Problem { source: source.into(), kind, message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.message)
    }
}

impl std::error::Error for Problem {}

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

impl Summary {
    /// How many problems of this kind were met.
    pub fn skipped_count(&self, kind: ProblemKind) -> u64 {
        self.skipped.get(&kind).copied().unwrap_or(0)
    }

    /// How many problems were met in all.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// Why a corpus cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// No argument at all.
    #[error("no input given; give a folder of text files, a .jsonl or .parquet file, or a glob pattern")]
    NoInput,
    /// An argument that is neither a path nor a pattern.
    #[error("{path}: no such file or folder; check the path")]
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
    #[error("{path}: {reason}")]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// Why, and what to do.
        reason: String,
    },
    /// A Parquet file without the id, text or group column.
    #[error(
        "{path}: no column \"{column}\" (the {role} column, chosen with --{role}); its columns are: {}",
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
    #[error("{path}: column \"{column}\" is of type {found}; the {role} column must be {expected}")]
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
    #[error("{path}: cannot read it: {source}")]
    Io {
        /// The input.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The first [`Problem`] met with [`CorpusOptions::strict`], for a
    /// caller that turns it into a fatal error.
    #[error("{0} (stopped by --strict; without it, such records are skipped and counted)")]
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

/// Turn command-line arguments into inputs (see the module docs): existing
/// paths by kind, glob patterns expanded and sorted.
pub fn resolve(args: &[String]) -> Result<Vec<Input>, CorpusError> {
    if args.is_empty() {
        return Err(CorpusError::NoInput);
    }
    let mut inputs = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        match fs::metadata(path) {
            Ok(meta) => {
                let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
                inputs.push(classify(path.to_path_buf(), meta.is_dir(), root)?);
            }
            Err(e) if e.kind() == ErrorKind::NotFound && is_pattern(arg) => inputs.extend(expand(arg)?),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(CorpusError::NotFound { path: path.to_path_buf() })
            }
            Err(source) => return Err(CorpusError::Io { path: path.to_path_buf(), source }),
        }
    }
    // With several folders, `a/x.txt` and `b/x.txt` must not both be `x`:
    // ids then start with the folder's name.
    if inputs.iter().filter(|i| matches!(i, Input::Dir { .. })).count() > 1 {
        for input in &mut inputs {
            if let Input::Dir { path, root } = input {
                *root = path.parent().map(Path::to_path_buf).unwrap_or_default();
            }
        }
    }
    Ok(inputs)
}

fn is_pattern(arg: &str) -> bool {
    arg.contains(['*', '?', '['])
}

fn expand(pattern: &str) -> Result<Vec<Input>, CorpusError> {
    let options =
        glob::MatchOptions { case_sensitive: true, require_literal_separator: true, require_literal_leading_dot: true };
    let paths = glob::glob_with(pattern, options)
        .map_err(|e| CorpusError::Pattern { pattern: pattern.to_owned(), message: e.to_string() })?;
    let mut found = Vec::new();
    for entry in paths {
        found.push(entry.map_err(|e| {
            let path = e.path().to_path_buf();
            CorpusError::Io { path, source: e.into() }
        })?);
    }
    if found.is_empty() {
        return Err(CorpusError::NoMatch { pattern: pattern.to_owned() });
    }
    found.sort();
    let root = glob_root(pattern);
    found
        .into_iter()
        .map(|path| {
            let is_dir = fs::metadata(&path).map(|m| m.is_dir()).unwrap_or(false);
            classify(path, is_dir, root.clone())
        })
        .collect()
}

/// The folder a pattern's matches are relative to: its components before
/// the first one with a wildcard.
fn glob_root(pattern: &str) -> PathBuf {
    let mut root = PathBuf::new();
    for component in Path::new(pattern).components() {
        if is_pattern(&component.as_os_str().to_string_lossy()) {
            break;
        }
        root.push(component);
    }
    root
}

/// What a file given as input is read as, by its extension (compared
/// without case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileKind {
    Jsonl,
    Parquet,
    Compressed,
    Text,
}

impl FileKind {
    fn of(path: &Path) -> FileKind {
        let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("jsonl" | "ndjson" | "json") => FileKind::Jsonl,
            Some("parquet") => FileKind::Parquet,
            Some("gz" | "tgz" | "bz2" | "xz" | "zst" | "zstd" | "lz4" | "zip" | "7z" | "tar") => FileKind::Compressed,
            _ => FileKind::Text,
        }
    }
}

fn classify(path: PathBuf, is_dir: bool, root: PathBuf) -> Result<Input, CorpusError> {
    if is_dir {
        return Ok(Input::Dir { root: path.clone(), path });
    }
    Ok(match FileKind::of(&path) {
        FileKind::Jsonl => Input::Jsonl(path),
        FileKind::Parquet => Input::Parquet(path),
        FileKind::Compressed => {
            return Err(CorpusError::Unsupported {
                path,
                reason: "compressed and archive files are not read; decompress or unpack it first \
                         (e.g. `gunzip -k`)"
                    .to_owned(),
            })
        }
        FileKind::Text => Input::Text { path, root },
    })
}

/// A document before the empty and duplicate checks.
struct RawDoc {
    id: String,
    text: String,
    encoding: String,
    replaced: usize,
    group: Option<String>,
    meta: Map<String, Value>,
    origin: Origin,
}

/// Reads documents from inputs, in order; see the module docs.
pub struct CorpusReader {
    options: CorpusOptions,
    /// [`CorpusOptions::extensions`] in lower case, without dots.
    extensions: Vec<String>,
    inputs: std::iter::Enumerate<std::vec::IntoIter<Input>>,
    /// The input being read and its index.
    current: Option<(Reading, usize)>,
    /// Problems found while listing a folder, handed on before going on.
    pending: VecDeque<Problem>,
    /// Every id handed on, with where it came from.
    seen: FxHashMap<Box<str>, Source>,
    /// The JSON lines not yet parsed (of one item, or of a batch of
    /// [`CorpusReader::next_batch`]), kept between calls so that it does not
    /// grow again each time.
    batch_bytes: Vec<u8>,
    summary: Summary,
    finished: bool,
}

impl CorpusReader {
    /// A reader over `inputs`, in order. Checks the options against the
    /// inputs, and the columns of every Parquet file (its footer only);
    /// nothing else is read until the first call to `next`.
    pub fn new(inputs: Vec<Input>, options: CorpusOptions) -> Result<Self, CorpusError> {
        check_options(&inputs, &options)?;
        for input in &inputs {
            if let Input::Parquet(path) = input {
                // A file that cannot be opened is reported when it is read.
                if let Ok(builder) = File::open(path)
                    .map_err(drop)
                    .and_then(|file| ParquetRecordBatchReaderBuilder::try_new(file).map_err(drop))
                {
                    ParquetPlan::new(path, builder.schema(), &options)?;
                }
            }
        }
        let extensions = options
            .extensions
            .iter()
            .map(|e| e.trim_start_matches('.').to_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        Ok(CorpusReader {
            options,
            extensions,
            inputs: inputs.into_iter().enumerate(),
            current: None,
            pending: VecDeque::new(),
            seen: FxHashMap::default(),
            batch_bytes: Vec::new(),
            summary: Summary::default(),
            finished: false,
        })
    }

    /// What has been read and skipped so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The options the reader was made with.
    pub fn options(&self) -> &CorpusOptions {
        &self.options
    }

    /// Count a problem; with `strict`, end the iteration after it.
    fn problem(&mut self, problem: Problem) -> Problem {
        *self.summary.skipped.entry(problem.kind).or_insert(0) += 1;
        if self.options.strict {
            self.finished = true;
        }
        problem
    }

    fn open(&mut self, input: Input) -> Result<Reading, Problem> {
        match input {
            Input::Dir { path, root } => Ok(Reading::Walk(Walk::dir(path, root))),
            Input::Text { path, root } => Ok(Reading::Walk(Walk::file(path, root))),
            Input::Jsonl(path) => self.open_jsonl(path),
            Input::Parquet(path) => self.open_parquet(path),
        }
    }

    /// The next item of `reading`, input `input` (a JSON line's bytes
    /// appended to `bytes`, to be parsed later), or `None` when it is
    /// exhausted.
    fn step(&mut self, reading: &mut Reading, input: usize, bytes: &mut Vec<u8>) -> Option<Unparsed> {
        match reading {
            Reading::Walk(walk) => {
                let path = match walk.next(&self.extensions, &mut self.summary, &mut self.pending)? {
                    Ok(path) => path,
                    Err(problem) => return Some(Unparsed::Done(Err(problem))),
                };
                Some(Unparsed::Done(self.read_text(&path, &walk.root, input)))
            }
            Reading::Jsonl(jsonl) => Some(match jsonl.next_line(&self.options, &mut self.summary)? {
                Ok((line, range)) => {
                    let start = bytes.len();
                    bytes.extend_from_slice(&jsonl.buf[jsonl.record.clone()]);
                    let source = Source { file: jsonl.display.clone(), position: Position::Line(line) };
                    let origin = Origin { input, source, bytes: Some(range) };
                    Unparsed::Line { bytes: start..bytes.len(), origin }
                }
                Err(problem) => Unparsed::Done(Err(problem)),
            }),
            Reading::Parquet(parquet) => Some(Unparsed::Done(parquet.next(input, &self.options)?)),
        }
    }

    /// The next item of the corpus before JSON parsing, or `None` at the
    /// end.
    fn next_unparsed(&mut self, bytes: &mut Vec<u8>) -> Option<Unparsed> {
        loop {
            if self.finished {
                return None;
            }
            if let Some(problem) = self.pending.pop_front() {
                return Some(Unparsed::Done(Err(problem)));
            }
            let Some((mut reading, input)) = self.current.take() else {
                let Some((index, input)) = self.inputs.next() else {
                    self.finished = true;
                    return None;
                };
                match self.open(input) {
                    Ok(reading) => self.current = Some((reading, index)),
                    Err(problem) => return Some(Unparsed::Done(Err(problem))),
                }
                continue;
            };
            let Some(item) = self.step(&mut reading, input, bytes) else {
                continue; // this input is exhausted
            };
            self.current = Some((reading, input));
            return Some(item);
        }
    }

    /// The empty and duplicate checks; a document that passes is counted.
    fn admit(&mut self, raw: RawDoc) -> Result<CorpusDoc, Problem> {
        if raw.text.trim().is_empty() {
            let message = if raw.text.is_empty() {
                format!("document \"{}\" is empty", raw.id)
            } else {
                format!("document \"{}\" has only whitespace ({} characters)", raw.id, raw.text.chars().count())
            };
            return Err(Problem::new(raw.origin.source.to_string(), ProblemKind::Empty, message));
        }
        if let Some(first) = self.seen.get(raw.id.as_str()) {
            let message = format!("duplicate id \"{}\": first used by {first}; this one is skipped", raw.id);
            return Err(Problem::new(raw.origin.source.to_string(), ProblemKind::DuplicateId, message));
        }
        self.seen.insert(raw.id.as_str().into(), raw.origin.source.clone());
        self.summary.documents += 1;
        Ok(CorpusDoc {
            id: raw.id,
            origin: raw.origin,
            text: raw.text,
            encoding: raw.encoding,
            replaced: raw.replaced,
            group: raw.group,
            meta: raw.meta,
        })
    }

    fn read_text(&mut self, path: &Path, root: &Path, input: usize) -> Result<RawDoc, Problem> {
        let source = path.display().to_string();
        let len = fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.len());
        let max = self.options.max_document_bytes;
        if let Some(len) = len.filter(|&len| len > max) {
            let message = format!("{len} bytes, more than the limit of {max} bytes per document; it is skipped");
            return Err(Problem::new(source, ProblemKind::TooLarge, message));
        }
        let doc = read::read_document(path).map_err(|e| {
            Problem::new(source.as_str(), ProblemKind::Unreadable, without_prefix(e.to_string(), &source))
        })?;
        self.summary.files += 1;
        self.summary.bytes += len.unwrap_or(0);
        let relative = relative_to(path, root);
        let group = self.options.group_by_dir.then(|| folder_group(&relative));
        Ok(RawDoc {
            id: id_from_relative(&relative),
            text: doc.text,
            encoding: doc.encoding,
            replaced: doc.replaced,
            group,
            meta: Map::new(),
            origin: Origin { input, source: Source::whole(source), bytes: None },
        })
    }

    fn open_jsonl(&mut self, path: PathBuf) -> Result<Reading, Problem> {
        let display = path.display().to_string();
        let file = File::open(&path)
            .map_err(|e| Problem::new(display.as_str(), ProblemKind::Unreadable, format!("cannot open it: {e}")))?;
        self.summary.files += 1;
        Ok(Reading::Jsonl(JsonlSource {
            display: display.into(),
            reader: BufReader::with_capacity(JSONL_BUFFER_BYTES, file),
            line: 0,
            offset: 0,
            any_record: false,
            buf: Vec::new(),
            record: 0..0,
            done: false,
        }))
    }

    fn open_parquet(&mut self, path: PathBuf) -> Result<Reading, Problem> {
        let display = path.display().to_string();
        let unreadable = |message: String| Problem::new(display.as_str(), ProblemKind::Unreadable, message);
        let file = File::open(&path).map_err(|e| unreadable(format!("cannot open it: {e}")))?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| unreadable(format!("not a readable Parquet file: {e}")))?;
        let plan = ParquetPlan::new(&path, builder.schema(), &self.options)
            .map_err(|e| unreadable(without_prefix(e.to_string(), &display)))?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), plan.roots.iter().copied());
        let reader = builder
            .with_projection(mask)
            .with_batch_size(PARQUET_BATCH_ROWS)
            .build()
            .map_err(|e| unreadable(format!("not a readable Parquet file: {e}")))?;
        let schema = reader.schema();
        let index = |name: &str| {
            schema.index_of(name).map_err(|_| unreadable(format!("column \"{name}\" was not read (internal error)")))
        };
        let columns = ParquetColumns {
            id: index(&self.options.id_field)?,
            text: index(&self.options.text_field)?,
            group: self.options.group_field.as_deref().map(index).transpose()?,
            meta: plan.meta.iter().map(|name| Ok((name.clone(), index(name)?))).collect::<Result<_, Problem>>()?,
        };
        for (name, kind) in plan.ignored {
            self.summary.ignored_columns.entry(name).or_insert(kind);
        }
        self.summary.files += 1;
        self.summary.bytes += len;
        Ok(Reading::Parquet(ParquetSource {
            display: display.into(),
            reader,
            columns,
            batch: None,
            row_in_batch: 0,
            batch_start: 0,
            done: false,
        }))
    }
}

/// An item before parsing: a result, or the bytes of a JSON line still to
/// parse (a range of a buffer).
enum Unparsed {
    Done(Result<RawDoc, Problem>),
    Line { bytes: Range<usize>, origin: Origin },
}

impl Unparsed {
    fn parse(self, bytes: &[u8], options: &CorpusOptions) -> Result<RawDoc, Problem> {
        match self {
            Unparsed::Done(result) => result,
            Unparsed::Line { bytes: range, origin } => parse_record(&bytes[range], origin, options),
        }
    }
}

impl CorpusReader {
    /// The next items, in input order, exactly as [`Iterator::next`] would
    /// give them one by one: at most `max_items`, fewer once they hold
    /// `max_bytes` of JSON Lines or the input ends (empty at the end). JSON
    /// lines are parsed in parallel on the rayon pool, so a reader thread
    /// that hands batches to workers does not have to parse them all
    /// itself.
    pub fn next_batch(&mut self, max_items: usize, max_bytes: usize) -> Vec<Result<CorpusDoc, Problem>> {
        let mut bytes = std::mem::take(&mut self.batch_bytes);
        bytes.clear();
        let mut items: Vec<Unparsed> = Vec::new();
        while items.len() < max_items.max(1) && bytes.len() < max_bytes {
            let Some(item) = self.next_unparsed(&mut bytes) else {
                break;
            };
            // With --strict the first problem ends the reading.
            let stop = self.options.strict && matches!(item, Unparsed::Done(Err(_)));
            items.push(item);
            if stop {
                break;
            }
        }
        let options = &self.options;
        let parsed: Vec<Result<RawDoc, Problem>> =
            items.into_par_iter().map(|item| item.parse(&bytes, options)).collect();
        self.batch_bytes = bytes;
        let mut out = Vec::with_capacity(parsed.len());
        for item in parsed {
            let item = item.and_then(|raw| self.admit(raw)).map_err(|problem| self.problem(problem));
            let stop = item.is_err() && self.options.strict;
            out.push(item);
            if stop {
                break;
            }
        }
        out
    }
}

impl Iterator for CorpusReader {
    type Item = Result<CorpusDoc, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut bytes = std::mem::take(&mut self.batch_bytes);
        bytes.clear();
        let item = self.next_unparsed(&mut bytes);
        let raw = item.map(|item| item.parse(&bytes, &self.options));
        self.batch_bytes = bytes;
        Some(raw?.and_then(|raw| self.admit(raw)).map_err(|problem| self.problem(problem)))
    }
}

fn check_options(inputs: &[Input], options: &CorpusOptions) -> Result<(), CorpusError> {
    let fail = |message: &str| Err(CorpusError::Options(message.to_owned()));
    if options.id_field.is_empty() || options.text_field.is_empty() {
        return fail("the id and text field names must not be empty");
    }
    if options.id_field == options.text_field {
        return fail("the id field and the text field must be different fields");
    }
    let has_text = inputs.iter().any(|i| matches!(i, Input::Dir { .. } | Input::Text { .. }));
    let has_records = inputs.iter().any(|i| matches!(i, Input::Jsonl(_) | Input::Parquet(_)));
    if let Some(group) = &options.group_field {
        if options.group_by_dir {
            return fail("--group and --group-by-dir cannot be used together");
        }
        if group.is_empty() || *group == options.id_field || *group == options.text_field {
            return fail("the group field must be named, and differ from the id and text fields");
        }
        if has_text {
            return fail("--group FIELD groups JSON Lines and Parquet records; for text files use --group-by-dir");
        }
    }
    if options.group_by_dir && has_records {
        return fail("--group-by-dir groups text files by folder; for JSON Lines and Parquet use --group FIELD");
    }
    Ok(())
}

/// `message` without a leading `"{source}: "`.
fn without_prefix(message: String, source: &str) -> String {
    match message.strip_prefix(source).and_then(|m| m.strip_prefix(": ")) {
        Some(rest) => rest.to_owned(),
        None => message,
    }
}

/// `path` relative to `root` (a leading `./` on either does not matter);
/// the file name if `path` is not under `root`.
fn relative_to(path: &Path, root: &Path) -> PathBuf {
    let clean = |p: &Path| p.components().filter(|c| !matches!(c, Component::CurDir)).collect::<PathBuf>();
    match clean(path).strip_prefix(clean(root)) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
        _ => path.file_name().map(PathBuf::from).unwrap_or_else(|| path.to_path_buf()),
    }
}

/// `2021/06/a.txt` → `2021/06/a`.
fn id_from_relative(relative: &Path) -> String {
    join_components(&relative.with_extension(""))
}

/// `2021/06/a.txt` → `2021/06`; `a.txt` → `.`.
fn folder_group(relative: &Path) -> String {
    let folder = join_components(relative.parent().unwrap_or(Path::new("")));
    if folder.is_empty() {
        ".".to_owned()
    } else {
        folder
    }
}

fn join_components(path: &Path) -> String {
    let mut out = String::new();
    for component in path.components() {
        if let Component::Normal(name) = component {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&name.to_string_lossy());
        }
    }
    out
}

/// An input being read.
enum Reading {
    Walk(Walk),
    Jsonl(JsonlSource),
    Parquet(ParquetSource),
}

/// A depth-first walk of a folder in sorted order (or a single file).
struct Walk {
    /// Ids are relative to this folder.
    root: PathBuf,
    /// The unvisited entries of each folder on the path to the current one.
    stack: Vec<std::vec::IntoIter<Entry>>,
}

struct Entry {
    path: PathBuf,
    is_dir: bool,
}

impl Walk {
    fn dir(path: PathBuf, root: PathBuf) -> Self {
        let stack = vec![vec![Entry { path, is_dir: true }].into_iter()];
        Walk { root, stack }
    }

    fn file(path: PathBuf, root: PathBuf) -> Self {
        Walk { root, stack: vec![vec![Entry { path, is_dir: false }].into_iter()] }
    }

    /// The next file to read; problems with single entries of a folder go
    /// to `pending`.
    fn next(
        &mut self,
        extensions: &[String],
        summary: &mut Summary,
        pending: &mut VecDeque<Problem>,
    ) -> Option<Result<PathBuf, Problem>> {
        loop {
            let top = self.stack.last_mut()?;
            let Some(entry) = top.next() else {
                self.stack.pop();
                continue;
            };
            if !entry.is_dir {
                return Some(Ok(entry.path));
            }
            match list_folder(&entry.path, extensions, summary, pending) {
                Ok(entries) => self.stack.push(entries.into_iter()),
                Err(problem) => return Some(Err(problem)),
            }
        }
    }
}

/// The entries of a folder to visit, sorted by name.
fn list_folder(
    dir: &Path,
    extensions: &[String],
    summary: &mut Summary,
    pending: &mut VecDeque<Problem>,
) -> Result<Vec<Entry>, Problem> {
    let unreadable =
        |path: &Path, message: String| Problem::new(path.display().to_string(), ProblemKind::Unreadable, message);
    let listing = fs::read_dir(dir).map_err(|e| unreadable(dir, format!("cannot list the folder: {e}")))?;
    let mut entries = Vec::new();
    for entry in listing {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                pending.push_back(unreadable(dir, format!("cannot list an entry of the folder: {e}")));
                continue;
            }
        };
        if entry.file_name().as_encoded_bytes().starts_with(b".") {
            summary.hidden += 1;
            continue;
        }
        let path = entry.path();
        let file_type = match entry.file_type() {
            Ok(file_type) => file_type,
            Err(e) => {
                pending.push_back(unreadable(&path, format!("cannot read its type: {e}")));
                continue;
            }
        };
        let (is_dir, is_file) = if file_type.is_symlink() {
            match fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => (false, false), // not followed
                Ok(meta) => (false, meta.is_file()),
                Err(e) => {
                    pending.push_back(unreadable(&path, format!("broken symbolic link: {e}")));
                    continue;
                }
            }
        } else {
            (file_type.is_dir(), file_type.is_file())
        };
        if is_dir {
            entries.push(Entry { path, is_dir: true });
        } else if !is_file {
            summary.not_regular += 1;
        } else if wanted_extension(&path, extensions) {
            entries.push(Entry { path, is_dir: false });
        } else {
            summary.other_extension += 1;
        }
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(entries)
}

/// `extensions` are lower case; empty takes every file.
fn wanted_extension(path: &Path, extensions: &[String]) -> bool {
    if extensions.is_empty() {
        return true;
    }
    match path.extension() {
        Some(ext) => {
            let ext = ext.to_string_lossy().to_lowercase();
            extensions.contains(&ext)
        }
        None => false,
    }
}

/// A JSON Lines file being read line by line.
struct JsonlSource {
    display: Arc<str>,
    reader: BufReader<File>,
    /// Lines read so far (the number of the current line).
    line: u64,
    /// Bytes of the file read so far (the end of the current line).
    offset: u64,
    /// Whether a non-blank line has been seen.
    any_record: bool,
    buf: Vec<u8>,
    /// The bytes of the current record in `buf`.
    record: std::ops::Range<usize>,
    done: bool,
}

impl JsonlSource {
    /// The next line that holds a record: its number and its bytes in the
    /// file (see [`Origin::bytes`]), with those bytes (without line ending
    /// and BOM) in `self.buf[self.record]`; a problem; or `None` at the end.
    fn next_line(
        &mut self,
        options: &CorpusOptions,
        summary: &mut Summary,
    ) -> Option<Result<(u64, Range<u64>), Problem>> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            let max = options.max_document_bytes;
            // Room for the line ending on top of the limit.
            let limit = max.saturating_add(2);
            let read = (&mut self.reader).take(limit).read_until(b'\n', &mut self.buf);
            let n = match read {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Ok(n) => n,
                Err(e) => {
                    self.done = true;
                    let source = format!("{}:{}", self.display, self.line + 1);
                    let message = format!("cannot read on from this line: {e}; the rest of the file is skipped");
                    return Some(Err(Problem::new(source, ProblemKind::Unreadable, message)));
                }
            };
            self.line += 1;
            summary.bytes += n as u64;
            let line_start = self.offset;
            self.offset += n as u64;
            let source = || format!("{}:{}", self.display, self.line);
            let cut = n as u64 == limit && self.buf.last() != Some(&b'\n');
            let mut line = self.buf.as_slice();
            line = line.strip_suffix(b"\n").unwrap_or(line);
            line = line.strip_suffix(b"\r").unwrap_or(line);
            if self.line == 1 {
                line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            }
            if cut || line.len() as u64 > max {
                let mut size = line.len() as u64;
                if cut {
                    let bom = if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
                    match skip_line(&mut self.reader, self.buf.last().copied()) {
                        Ok((rest, ending)) => {
                            summary.bytes += rest;
                            self.offset += rest;
                            size = (n as u64 - bom + rest).saturating_sub(ending);
                        }
                        Err(_) => self.done = true,
                    }
                }
                let message =
                    format!("a line of {size} bytes, more than the limit of {max} bytes per document; it is skipped");
                return Some(Err(Problem::new(source(), ProblemKind::TooLarge, message)));
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let first_record = !self.any_record;
            self.any_record = true;
            if first_record && line.trim_ascii_start().starts_with(b"[") {
                self.done = true;
                let message = "the file starts with '[': it looks like one JSON array, not JSON Lines (one object \
                               per line); convert it, e.g. with `jq -c '.[]'`; the file is skipped";
                return Some(Err(Problem::new(source(), ProblemKind::Malformed, message)));
            }
            let start = line.as_ptr() as usize - self.buf.as_ptr() as usize;
            self.record = start..start + line.len();
            // After a byte-order mark, to the end of the line ending.
            return Some(Ok((self.line, line_start + start as u64..self.offset)));
        }
    }
}

/// Skip to just after the next line feed: the number of bytes skipped, and
/// how many of them are the line ending (`\n` or `\r\n`; 0 at the end of
/// the file). `before` is the byte read just before.
fn skip_line(reader: &mut impl BufRead, mut before: Option<u8>) -> std::io::Result<(u64, u64)> {
    let mut skipped = 0u64;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((skipped, 0));
        }
        if let Some(at) = buf.iter().position(|&b| b == b'\n') {
            let carriage_return = if at > 0 { buf[at - 1] == b'\r' } else { before == Some(b'\r') };
            reader.consume(at + 1);
            return Ok((skipped + at as u64 + 1, 1 + u64::from(carriage_return)));
        }
        before = buf.last().copied();
        let len = buf.len();
        reader.consume(len);
        skipped += len as u64;
    }
}

/// One JSON line (without its line ending) into a document.
fn parse_record(line: &[u8], origin: Origin, options: &CorpusOptions) -> Result<RawDoc, Problem> {
    // Rendered only for a problem.
    let source = || origin.source.to_string();
    let malformed = |source: String, message: String| Err(Problem::new(source, ProblemKind::Malformed, message));
    // The SIMD check first (most lines are valid); std's for the position of
    // the first invalid byte.
    let checked = simdutf8::basic::from_utf8(line).or_else(|_| std::str::from_utf8(line));
    let text = match checked {
        Ok(text) => text,
        Err(e) => {
            let message = format!(
                "not valid UTF-8 (first invalid byte at byte {} of the line); JSON Lines must be UTF-8",
                e.valid_up_to()
            );
            return malformed(source(), message);
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return malformed(source(), json_error_message(&e)),
    };
    let Value::Object(mut map) = value else {
        return malformed(source(), format!("{}, not an object; each line must be one JSON object", json_kind(&value)));
    };
    let id = match map.remove(&options.id_field) {
        Some(Value::String(id)) if id.is_empty() => {
            return Err(wrong_type(source(), &options.id_field, "an empty string", ""))
        }
        Some(Value::String(id)) => id,
        Some(Value::Number(n)) => n.to_string(),
        None => return Err(missing(source(), &options.id_field, "id")),
        Some(Value::Null) => return Err(null(source(), &options.id_field)),
        Some(other) => {
            return Err(wrong_type(
                source(),
                &options.id_field,
                json_kind(&other),
                "; an id must be a string or a number",
            ))
        }
    };
    let text = match map.remove(&options.text_field) {
        Some(Value::String(text)) => text,
        None => return Err(missing(source(), &options.text_field, "text")),
        Some(Value::Null) => return Err(null(source(), &options.text_field)),
        Some(other) => {
            return Err(wrong_type(source(), &options.text_field, json_kind(&other), "; the text must be a string"))
        }
    };
    let group = match &options.group_field {
        None => None,
        Some(field) => Some(match map.remove(field) {
            Some(Value::String(group)) => group,
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Bool(b)) => b.to_string(),
            None => return Err(missing(source(), field, "group")),
            Some(Value::Null) => return Err(null(source(), field)),
            Some(other) => {
                return Err(wrong_type(
                    source(),
                    field,
                    json_kind(&other),
                    "; a group must be a string, number or boolean",
                ))
            }
        }),
    };
    Ok(RawDoc { id, text, encoding: "utf-8".to_owned(), replaced: 0, group, meta: map, origin })
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

/// serde's message with the column, without its "line 1" (a record is one
/// line; the source names the line).
fn json_error_message(error: &serde_json::Error) -> String {
    let full = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let what = full.strip_suffix(&position).unwrap_or(&full);
    if error.column() > 0 {
        format!("malformed JSON: {what} at column {}", error.column())
    } else {
        format!("malformed JSON: {what}")
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Which columns of a Parquet file are read, checked against the options.
struct ParquetPlan {
    /// Root column indices to read.
    roots: Vec<usize>,
    /// Columns kept as metadata, in file order.
    meta: Vec<String>,
    /// Columns not read, with their type.
    ignored: Vec<(String, String)>,
}

impl ParquetPlan {
    fn new(path: &Path, schema: &Schema, options: &CorpusOptions) -> Result<Self, CorpusError> {
        let find = |column: &str, role: &'static str, ok: fn(&DataType) -> bool, expected: &'static str| {
            let Ok(index) = schema.index_of(column) else {
                return Err(CorpusError::MissingColumn {
                    path: path.to_path_buf(),
                    column: column.to_owned(),
                    role,
                    columns: schema.fields().iter().map(|f| f.name().clone()).collect(),
                });
            };
            let found = schema.field(index).data_type();
            if !ok(found) {
                return Err(CorpusError::ColumnType {
                    path: path.to_path_buf(),
                    column: column.to_owned(),
                    role,
                    found: found.to_string(),
                    expected,
                });
            }
            Ok(index)
        };
        let id = find(&options.id_field, "id", |t| is_string(t) || is_integer(t), "a string or integer column")?;
        let text = find(&options.text_field, "text", is_string, "a string column")?;
        let group = match &options.group_field {
            Some(field) => Some(find(field, "group", is_scalar, "a string, integer, float or boolean column")?),
            None => None,
        };
        let mut roots = vec![id, text];
        roots.extend(group);
        let mut meta = Vec::new();
        let mut ignored = Vec::new();
        for (index, field) in schema.fields().iter().enumerate() {
            if roots.contains(&index) {
                continue;
            }
            if is_scalar(field.data_type()) {
                meta.push(field.name().clone());
                roots.push(index);
            } else {
                ignored.push((field.name().clone(), field.data_type().to_string()));
            }
        }
        roots.sort_unstable();
        Ok(ParquetPlan { roots, meta, ignored })
    }
}

fn is_string(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => is_string(values),
        _ => false,
    }
}

fn is_integer(data_type: &DataType) -> bool {
    match data_type {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => true,
        DataType::Dictionary(_, values) => is_integer(values),
        _ => false,
    }
}

/// The types kept in `meta`.
fn is_scalar(data_type: &DataType) -> bool {
    match data_type {
        DataType::Null | DataType::Boolean | DataType::Float32 | DataType::Float64 => true,
        DataType::Dictionary(_, values) => is_scalar(values),
        other => is_string(other) || is_integer(other),
    }
}

/// One value of a column of a type that [`is_scalar`] accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cell<'a> {
    Null,
    Str(&'a str),
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
}

fn cell(array: &dyn Array, row: usize) -> Cell<'_> {
    if array.is_null(row) {
        return Cell::Null;
    }
    match array.data_type() {
        DataType::Utf8 => Cell::Str(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Cell::Str(array.as_string::<i64>().value(row)),
        DataType::Utf8View => Cell::Str(array.as_string_view().value(row)),
        DataType::Int8 => Cell::Int(array.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => Cell::Int(array.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Cell::Int(array.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Cell::Int(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Cell::UInt(array.as_primitive::<UInt8Type>().value(row).into()),
        DataType::UInt16 => Cell::UInt(array.as_primitive::<UInt16Type>().value(row).into()),
        DataType::UInt32 => Cell::UInt(array.as_primitive::<UInt32Type>().value(row).into()),
        DataType::UInt64 => Cell::UInt(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => Cell::Float(array.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => Cell::Float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Boolean => Cell::Bool(array.as_boolean().value(row)),
        DataType::Dictionary(_, _) => {
            let dictionary = array.as_any_dictionary();
            let key = match cell(dictionary.keys(), row) {
                Cell::Int(key) => usize::try_from(key).ok(),
                Cell::UInt(key) => usize::try_from(key).ok(),
                _ => None,
            };
            let values = dictionary.values().as_ref();
            match key {
                Some(key) if key < values.len() => cell(values, key),
                _ => Cell::Null,
            }
        }
        _ => Cell::Null,
    }
}

impl Cell<'_> {
    /// As written in an id or group: strings as they are, numbers in
    /// decimal; `None` for null.
    fn to_label(self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Str(s) => Some(s.to_owned()),
            Cell::Int(n) => Some(n.to_string()),
            Cell::UInt(n) => Some(n.to_string()),
            Cell::Float(x) => Some(x.to_string()),
            Cell::Bool(b) => Some(b.to_string()),
        }
    }

    fn to_json(self) -> Value {
        match self {
            Cell::Null => Value::Null,
            Cell::Str(s) => Value::String(s.to_owned()),
            Cell::Int(n) => Value::Number(n.into()),
            Cell::UInt(n) => Value::Number(n.into()),
            Cell::Float(x) => Number::from_f64(x).map_or(Value::Null, Value::Number),
            Cell::Bool(b) => Value::Bool(b),
        }
    }
}

/// Indices of the columns read, in the batches.
struct ParquetColumns {
    id: usize,
    text: usize,
    group: Option<usize>,
    meta: Vec<(String, usize)>,
}

/// A Parquet file being read batch by batch.
struct ParquetSource {
    display: Arc<str>,
    reader: ParquetRecordBatchReader,
    columns: ParquetColumns,
    batch: Option<RecordBatch>,
    row_in_batch: usize,
    /// Row number (in the file) of the first row of `batch`.
    batch_start: u64,
    done: bool,
}

impl ParquetSource {
    /// The next row of input `input`, a problem, or `None` at the end.
    fn next(&mut self, input: usize, options: &CorpusOptions) -> Option<Result<RawDoc, Problem>> {
        loop {
            if let Some(batch) = &self.batch {
                if self.row_in_batch < batch.num_rows() {
                    let row = self.row_in_batch;
                    self.row_in_batch += 1;
                    let number = self.batch_start + row as u64;
                    let source = Source { file: self.display.clone(), position: Position::Row(number) };
                    let origin = Origin { input, source, bytes: None };
                    return Some(parquet_row(batch, row, &self.columns, origin, options));
                }
                self.batch_start += batch.num_rows() as u64;
                self.batch = None;
            }
            if self.done {
                return None;
            }
            match self.reader.next() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(Ok(batch)) => {
                    self.batch = Some(batch);
                    self.row_in_batch = 0;
                }
                Some(Err(e)) => {
                    self.done = true;
                    let source = format!("{}#{}", self.display, self.batch_start);
                    let message = format!("cannot read rows from here on: {e}; the rest of the file is skipped");
                    return Some(Err(Problem::new(source, ProblemKind::Unreadable, message)));
                }
            }
        }
    }
}

fn parquet_row(
    batch: &RecordBatch,
    row: usize,
    columns: &ParquetColumns,
    origin: Origin,
    options: &CorpusOptions,
) -> Result<RawDoc, Problem> {
    // Rendered only for a problem.
    let source = || origin.source.to_string();
    let id = match cell(batch.column(columns.id).as_ref(), row) {
        Cell::Str("") => return Err(wrong_type(source(), &options.id_field, "an empty string", "")),
        Cell::Null => return Err(null(source(), &options.id_field)),
        other => other.to_label().unwrap_or_default(),
    };
    let text = match cell(batch.column(columns.text).as_ref(), row) {
        Cell::Str(text) => text.to_owned(),
        _ => return Err(null(source(), &options.text_field)),
    };
    let group = match (columns.group, &options.group_field) {
        (Some(index), Some(field)) => match cell(batch.column(index).as_ref(), row).to_label() {
            Some(group) => Some(group),
            None => return Err(null(source(), field)),
        },
        _ => None,
    };
    let meta = columns
        .meta
        .iter()
        .map(|(name, index)| (name.clone(), cell(batch.column(*index).as_ref(), row).to_json()))
        .collect();
    Ok(RawDoc { id, text, encoding: "utf-8".to_owned(), replaced: 0, group, meta, origin })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, DictionaryArray, Int32Array, StringArray};

    use super::*;

    #[test]
    fn ids_and_groups_from_relative_paths() {
        assert_eq!(id_from_relative(Path::new("2021/06/a.txt")), "2021/06/a");
        assert_eq!(id_from_relative(Path::new("a.b.md")), "a.b");
        assert_eq!(id_from_relative(Path::new("README")), "README");
        assert_eq!(folder_group(Path::new("2021/06/a.txt")), "2021/06");
        assert_eq!(folder_group(Path::new("a.txt")), ".");
    }

    #[test]
    fn relative_paths_ignore_a_leading_dot_folder() {
        assert_eq!(relative_to(Path::new("./corpus/x/a.txt"), Path::new("corpus")), Path::new("x/a.txt"));
        assert_eq!(relative_to(Path::new("corpus/a.txt"), Path::new("./corpus")), Path::new("a.txt"));
        assert_eq!(relative_to(Path::new("a.txt"), Path::new("")), Path::new("a.txt"));
        assert_eq!(relative_to(Path::new("elsewhere/a.txt"), Path::new("corpus")), Path::new("a.txt"));
    }

    #[test]
    fn glob_root_is_the_literal_prefix() {
        assert_eq!(glob_root("corpus/**/*.txt"), Path::new("corpus"));
        assert_eq!(glob_root("data/2021/part-*.parquet"), Path::new("data/2021"));
        assert_eq!(glob_root("*.jsonl"), Path::new(""));
        assert_eq!(glob_root("/data/[ab]/x.txt"), Path::new("/data"));
    }

    #[test]
    fn extensions_compare_without_case() {
        let wanted = ["txt".to_owned(), "md".to_owned()];
        assert!(wanted_extension(Path::new("a/B.TXT"), &wanted));
        assert!(wanted_extension(Path::new("notes.md"), &wanted));
        assert!(!wanted_extension(Path::new("figure.png"), &wanted));
        assert!(!wanted_extension(Path::new("README"), &wanted));
        assert!(wanted_extension(Path::new("README"), &[]));
    }

    #[test]
    fn json_errors_name_the_column_not_line_one() {
        let error = serde_json::from_str::<Value>(r#"{"id": "a", "text": "b"#).unwrap_err();
        assert_eq!(json_error_message(&error), "malformed JSON: EOF while parsing a string at column 22");
        let error = serde_json::from_str::<Value>(r#"{"id" "a"}"#).unwrap_err();
        assert_eq!(json_error_message(&error), "malformed JSON: expected `:` at column 7");
    }

    #[test]
    fn dictionary_cells_are_looked_up() {
        let dictionary: DictionaryArray<Int32Type> = vec![Some("x"), None, Some("y"), Some("x")].into_iter().collect();
        let array: ArrayRef = Arc::new(dictionary);
        let cells: Vec<Cell> = (0..4).map(|row| cell(array.as_ref(), row)).collect();
        assert_eq!(cells, [Cell::Str("x"), Cell::Null, Cell::Str("y"), Cell::Str("x")]);
        let ints = Int32Array::from(vec![Some(-3), None]);
        assert_eq!(cell(&ints, 0), Cell::Int(-3));
        assert_eq!(cell(&ints, 1), Cell::Null);
        let strings = StringArray::from(vec!["a"]);
        assert_eq!(cell(&strings, 0).to_json(), Value::String("a".to_owned()));
        assert_eq!(Cell::Float(f64::NAN).to_json(), Value::Null);
        assert_eq!(Cell::UInt(7).to_label().as_deref(), Some("7"));
    }

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
    fn the_reader_can_move_to_another_thread() {
        fn send<T: Send>() {}
        send::<CorpusReader>();
        send::<CorpusDoc>();
        send::<Problem>();
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
