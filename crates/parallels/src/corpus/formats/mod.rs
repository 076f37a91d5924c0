//! The file formats of records: one interface, `RecordFormat` (in
//! `record.rs`, a leaf), and the registry of every format a corpus is read
//! in, `FORMATS`, whose names [`Format`] carries.
//!
//! A file of records (a JSON Lines file, a Parquet file) is read by its
//! format, which [`resolve`](super::resolve) picks by the file's extension
//! (compared without case; for a `.gz` or `.zst` file, the extension before
//! it) and which every document read from it carries in its
//! [`Source::format`](super::Source::format), so that `report` and `export`
//! read the file back in the format the scan read it in. Any other file is
//! a text file, read whole (`walk.rs`).
//!
//! A format says:
//!
//! * its name and its file extensions;
//! * whether its records are numbered as lines (1-based, written
//!   `path:line`) or as rows (0-based, `path#row`): [`RecordFormat::rows`];
//! * whether a gzip or Zstandard file of it is read (decompressed as it is
//!   read) or refused, and why;
//! * what it checks before any record is read (Parquet: its columns, from
//!   the footer), as a [`CorpusError`] of the whole input;
//! * how a file of it is opened: a [`Records`], which hands on one record at
//!   a time, either read ([`Record::Read`]) or as bytes of a buffer to be
//!   parsed later, in parallel, by a function of the format
//!   ([`Record::Deferred`]: JSON Lines);
//! * how a record's own bytes ([`Origin::bytes`]) read again give its
//!   document, when they do ([`RecordFormat::reparse`]: `dedup`'s exact
//!   check reads them so).
//!
//! # Adding a format
//!
//! A file in this folder with a type implementing `RecordFormat`, its
//! `mod` line and its entry in `FORMATS` below. The reader, `resolve`,
//! [`Source::parse`](super::Source::parse), `report`'s reading back and
//! `dedup` (whose JSON Lines output takes its records as objects, through
//! the reader) take it from there.

use super::doc::{Format, Origin};
use super::options::CorpusOptions;
use crate::plumbing::problem::Problem;

pub(super) mod jsonl;
pub(super) mod parquet;
mod record;

pub(super) use record::{Record, RecordFormat, Records};

/// Every format of records, in the order their extensions are looked up.
static FORMATS: &[&dyn RecordFormat] = &[&jsonl::Jsonl, &parquet::Parquet];

/// The text of one record from its own bytes ([`Origin::bytes`], without
/// the line ending), read by its source's format as the reader reads it —
/// for JSON Lines, lone surrogates repaired, the same checks and messages:
/// for a second pass over records the first pass read (`dedup`'s exact
/// check), which must read what the first read. A record whose format
/// keeps no bytes of its own is read as JSON Lines.
pub fn record_text(line: &[u8], origin: Origin, options: &CorpusOptions) -> Result<String, Problem> {
    let parse = origin.source.format.and_then(|f| f.reader().reparse()).unwrap_or(jsonl::parse_record);
    parse(line, origin, options).map(|d| d.text)
}

impl Format {
    /// JSON Lines (`.jsonl`, `.ndjson`, `.json`; also gzip- or
    /// Zstandard-compressed).
    pub const JSONL: Format = Format("jsonl");
    /// Parquet (`.parquet`).
    pub const PARQUET: Format = Format("parquet");

    /// Every format, in the registry's order.
    pub fn all() -> impl Iterator<Item = Format> {
        FORMATS.iter().map(|format| Format(format.name()))
    }

    /// Its name (`jsonl`, `parquet`).
    pub fn name(self) -> &'static str {
        self.0
    }

    /// The format whose files have this extension (compared without case,
    /// without the dot).
    pub fn of_extension(extension: &str) -> Option<Format> {
        let extension = extension.to_ascii_lowercase();
        FORMATS.iter().find(|f| f.extensions().contains(&extension.as_str())).map(|f| Format(f.name()))
    }

    /// Whether its records are rows (`path#row`) rather than lines
    /// (`path:line`).
    pub fn rows(self) -> bool {
        self.reader().rows()
    }

    /// Whether a record's own bytes ([`Origin::bytes`]) read again give its
    /// document ([`record_text`]), as a second pass over the records may
    /// read them (`dedup`'s exact check).
    pub fn rereads_bytes(self) -> bool {
        self.reader().reparse().is_some()
    }

    /// Its implementation in the registry (a `Format` is only ever made
    /// from a registered name: [`Format::all`], the constants above, whose
    /// registration a test checks).
    pub(crate) fn reader(self) -> &'static dyn RecordFormat {
        FORMATS.iter().copied().find(|f| f.name() == self.0).unwrap_or(&jsonl::Jsonl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format is found by each of its extensions, in any case, and no
    /// two formats claim one extension or one name.
    #[test]
    fn each_extension_names_one_format() {
        let mut seen = std::collections::HashSet::new();
        for format in Format::all() {
            for extension in format.reader().extensions() {
                assert!(seen.insert(*extension), "two formats claim .{extension}");
                assert_eq!(Format::of_extension(extension), Some(format));
                assert_eq!(Format::of_extension(&extension.to_ascii_uppercase()), Some(format));
            }
        }
        let names: std::collections::HashSet<_> = Format::all().map(Format::name).collect();
        assert_eq!(names.len(), Format::all().count());
        // The constants are registered formats, of the kind they say.
        assert!(Format::all().any(|f| f == Format::JSONL) && !Format::JSONL.rows());
        assert!(Format::all().any(|f| f == Format::PARQUET) && Format::PARQUET.rows());
        assert!(Format::all().all(|f| f.reader().name() == f.name()));
        assert_eq!(Format::of_extension("txt"), None);
    }
}
