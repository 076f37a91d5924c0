//! A document of the corpus and where it came from: [`CorpusDoc`], its
//! [`Origin`], the [`Source`] file and the [`Position`] in it (a leaf, so
//! that the readers import it and not the module that re-exports them).

use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::read::shown;

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
    /// [`Summary::repaired`](super::Summary::repaired)); worth a warning when not 0.
    pub replaced: usize,
    /// Documents of one group are never compared with each other.
    pub group: Option<String>,
    /// The other fields of a JSON Lines record, or the other scalar columns
    /// of a Parquet row; empty for text files.
    pub meta: Map<String, Value>,
}

/// The file format a record was read in: one of the formats registered in
/// `corpus/formats/` (`jsonl`, `parquet`), by its name; see
/// [`Format::all`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format(pub(super) &'static str);

/// Where in its file a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// The whole file: a text file.
    Whole,
    /// A record numbered by line (JSON Lines), 1-based.
    Line(u64),
    /// A record numbered by row (Parquet), 0-based (as in Arrow and pandas).
    Row(u64),
}

/// The file a document came from and its place in it: what the outputs
/// write as a document's `source`.
///
/// Its [`format`](Source::format) is the file format the record was read
/// in (none for a whole text file), recorded with it when it is read, so
/// that a file is read back ([`Input::of_source`](super::Input::of_source))
/// in the format it was read in, whatever the kind of its position.
///
/// Serialized as a string: `path` for a text file, `path:line` for a record
/// numbered by line (JSON Lines) and `path#row` for one numbered by row
/// (Parquet), the path as it was given
/// or found by walking a folder, byte for byte. [`Source::parse`] reads
/// that form back. A path that is not valid UTF-8 is written with each byte
/// that is not part of valid UTF-8 as a lone surrogate escape, `\udc80` to
/// `\udcff` for the bytes 80 to FF (Python's `surrogateescape`:
/// `os.fsencode(json.loads(line)["source"])` gives the bytes back); the
/// deserializer reads that back into the same bytes, so `report` finds the
/// file again, and its format is the one [`resolve`](super::resolve) gives
/// the file's name (the written form holds no format). Displayed (in messages) through
/// [`read::shown`](crate::read::shown): control characters and bytes that
/// are not UTF-8 escaped.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// The file's path, as given or walked (not necessarily UTF-8). Shared
    /// by every record of one file.
    pub file: Arc<Path>,
    /// The place in the file.
    pub position: Position,
    /// The format of the file's records; `None` for a whole text file.
    pub format: Option<Format>,
}

impl Source {
    /// A whole text file.
    pub fn whole(file: impl AsRef<Path>) -> Source {
        Source { file: file.as_ref().into(), position: Position::Whole, format: None }
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

/// Where a document is in the inputs a [`CorpusReader`](super::CorpusReader) was given.
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
