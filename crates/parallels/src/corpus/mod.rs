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
//! typed value behind the "source" column above, with the [`Format`] its
//! records were read in) and, for a JSON Lines record, its byte range in
//! the file. Later stages use these fields, never
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
//! `mod.rs` holds these docs and re-exports; it imports only its children,
//! and the leaves below import none of the reading files:
//!
//! * `doc.rs`: [`CorpusDoc`], its [`Origin`], the [`Source`] file and the
//!   [`Position`] in it;
//! * `options.rs`: [`CorpusOptions`] and its defaults;
//! * `summary.rs`: the [`Summary`] of what was read and skipped;
//! * `error.rs`: [`CorpusError`], and the [`Problem`]s of a record whose
//!   id, text or group field is missing, null or of the wrong type;
//! * `raw.rs`: a record as each input kind reads it, before the reader's
//!   checks.
//!
//! The files that read:
//!
//! * `inputs.rs`: arguments to [`Input`]s ([`resolve`]), and the
//!   [`fingerprint`] of what a reader would read;
//! * `walk.rs`: the one walk of a folder (sorted, hidden entries and other
//!   extensions skipped), used by the reader and the fingerprint, and how a
//!   text file's path gives its id and group;
//! * `formats/`: the files of records, each read by its format:
//!   `record.rs` the interface every format implements (a leaf), `mod.rs`
//!   the registry of formats and their extensions (what a [`Format`]
//!   names), `jsonl.rs` JSON Lines,
//!   line by line, each record's bytes kept, lone surrogate escapes
//!   repaired; `parquet.rs` Parquet, batch by batch, the columns planned
//!   from the footer (and a [`Table`] in memory, read as Parquet rows).
//!   A new format is a file there and its line in the registry;
//! * `written.rs`: how a [`Source`] is written in JSON and read back
//!   ([`Source::parse`]), losslessly for paths that are not UTF-8;
//! * `reader.rs`: [`CorpusReader`], which opens each input (a folder's
//!   walk, or a file of records by its format) and
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

mod admit;
mod doc;
mod error;
mod formats;
mod inputs;
mod options;
mod raw;
mod reader;
mod summary;
mod table;
mod walk;
mod written;

pub use crate::plumbing::problem::{Problem, ProblemKind};
pub use admit::{is_blank, is_document};
pub use doc::{CorpusDoc, Format, Origin, Position, Source};
pub use error::CorpusError;
pub use formats::jsonl::repair_lone_surrogates;
pub use formats::record_text;
pub use inputs::{fingerprint, input_files, resolve, FileStamp, Input};
pub use options::{CorpusOptions, DEFAULT_MAX_DOCUMENT_BYTES, PARQUET_BATCH_ROWS};
pub use reader::{BatchStop, CorpusReader};
pub use summary::Summary;
pub use table::Table;
pub use written::json_path;
