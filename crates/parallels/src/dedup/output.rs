//! Writing the kept records, and the list of removed documents.
//!
//! The kept records are written from a second reading of the inputs, in
//! input order:
//!
//! * from a **JSON Lines** input, each kept record's bytes, as the corpus
//!   reader found them ([`Origin::bytes`](crate::corpus::Origin::bytes)),
//!   are copied byte for byte (fields, their order, spacing and escapes as
//!   they were; a byte-order mark at the start of the file is not part of a
//!   record and is left out; a last line without a line feed gets one). A
//!   record that lost paragraphs is the same line with only the value of the
//!   text field replaced (re-encoded by serde_json). No second line reader:
//!   the reader that numbered the lines also says where they are;
//! * a **Parquet** input, with [`write_parquet`], gives a Parquet file of the
//!   same name and schema holding the kept rows, every column copied (the
//!   text column rebuilt only when paragraphs were dropped);
//! * with [`write_jsonl`], a Parquet row or a text file becomes a JSON object
//!   `{"id", "text", …}` with the row's other scalar columns (what
//!   [`CorpusDoc::meta`](crate::corpus::CorpusDoc) holds).
//!
//! A JSON Lines input is read again in blocks of a few MB, and each run of
//! consecutive kept records is written as one slice. Each document's input
//! is its [`Origin::input`](crate::corpus::Origin::input), each Parquet
//! row's number its [`Position::Row`]; no source string is parsed.
//!
//! Files are written through an [`AtomicFile`] (a temporary name, synced
//! and renamed when complete); an output left by an earlier run is removed
//! meanwhile (see `Output`).

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::GenericStringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, OffsetSizeTrait, RecordBatch, RecordBatchReader};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::outcome::{DedupResult, Fate};
use super::paragraphs::without_lines;
use crate::corpus::{CorpusOptions, CorpusReader, Format, Input, Position, Source};
use crate::plumbing::parquet::writer_properties;
use crate::plumbing::AtomicFile;

/// Records written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Kept records copied unchanged.
    pub copied: u64,
    /// Kept records rewritten without some paragraphs.
    pub rewritten: u64,
}

/// The documents of each input, in input order (indices into
/// [`DedupResult::docs`]), by their
/// [`Origin::input`](crate::corpus::Origin::input).
fn by_input(inputs: &[Input], result: &DedupResult) -> Vec<Vec<u32>> {
    let mut docs = vec![Vec::new(); inputs.len()];
    for (d, doc) in result.docs.iter().enumerate() {
        if let Some(of_input) = docs.get_mut(doc.origin.input) {
            of_input.push(d as u32);
        }
    }
    docs
}

/// `.NAME.PID.WHAT` beside `path` (a name that
/// [`remove_stale`](crate::plumbing::atomic::remove_stale) knows for `old`).
fn sibling(path: &Path, what: &str) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.{what}", std::process::id()))
}

/// An output being written: an [`AtomicFile`] committed to `path` when done,
/// or, when `path` is something other than a regular file (`/dev/stdout`, a
/// named pipe), `path` itself, never replaced.
///
/// A regular file already at `path` (the output of an earlier run) is moved
/// aside when writing starts and removed on another thread meanwhile: the
/// kernel takes a while to free a large file (tens of milliseconds for a few
/// dozen MB). So a run that fails while writing leaves neither file.
/// A file that is read while the output is written (one of the inputs, or
/// a file in an input folder: `dedup crawl.jsonl -o crawl.jsonl`) stays
/// until the new one replaces it.
struct Output {
    target: Target,
    removing: Option<std::thread::JoinHandle<()>>,
}

/// Where an [`Output`]'s bytes go.
enum Target {
    /// A pipe or device, written in place.
    Direct(File),
    /// A regular file, through a temporary one.
    Atomic(AtomicFile),
}

impl Write for Target {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Target::Direct(f) => f.write(buf),
            Target::Atomic(f) => f.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Target::Direct(f) => f.write_all(buf),
            Target::Atomic(f) => f.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Target::Direct(f) => f.flush(),
            Target::Atomic(f) => f.flush(),
        }
    }
}

impl Output {
    /// `read_later`: the inputs read while the output is written.
    fn create(path: &Path, read_later: &[Input]) -> io::Result<Output> {
        let meta = std::fs::metadata(path);
        if meta.as_ref().is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let file = std::fs::OpenOptions::new().write(true).open(path)?;
            return Ok(Output { target: Target::Direct(file), removing: None });
        }
        let target = Target::Atomic(AtomicFile::create(path)?);
        let mut removing = None;
        if meta.is_ok_and(|m| m.is_file()) && !read_later.iter().any(|input| holds(input.path(), path)) {
            let old = sibling(path, "old");
            if std::fs::rename(path, &old).is_ok() {
                removing = Some(std::thread::spawn(move || {
                    let _ = std::fs::remove_file(old);
                }));
            }
        }
        Ok(Output { target, removing })
    }

    /// Put the finished file in place, or remove it after `result`'s error.
    fn finish<T>(self, result: io::Result<T>) -> io::Result<T> {
        if let Some(removing) = self.removing {
            let _ = removing.join();
        }
        match (self.target, result) {
            (Target::Atomic(f), Ok(value)) => f.commit().map(|()| value),
            // An uncommitted file removes itself.
            (_, result) => result,
        }
    }
}

/// Whether `file` is `input` (the same file, by any path) or inside it (a
/// folder); when in doubt, yes.
fn holds(input: &Path, file: &Path) -> bool {
    let (Ok(input), Ok(file)) = (input.canonicalize(), file.canonicalize()) else {
        return true;
    };
    if file.starts_with(&input) {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // A hard link to an input.
        if let (Ok(a), Ok(b)) = (std::fs::metadata(&input), std::fs::metadata(&file)) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    false
}

/// Write every kept document to one JSON Lines file `out`; see the module
/// docs.
pub fn write_jsonl(inputs: &[Input], corpus: &CorpusOptions, result: &DedupResult, out: &Path) -> io::Result<Written> {
    let docs = by_input(inputs, result);
    let mut output = Output::create(out, inputs)?;
    let mut w = BufWriter::with_capacity(1 << 20, &mut output.target);
    let mut written = Written::default();
    let run = (|| -> io::Result<()> {
        for (k, input) in inputs.iter().enumerate() {
            match input {
                Input::Records { path, format } if *format == Format::JSONL => {
                    copy_jsonl(path, &docs[k], result, &corpus.text_field, &mut w, &mut written)?
                }
                _ => objects(input, &docs[k], corpus, result, &mut w, &mut written)?,
            }
        }
        w.flush()
    })();
    drop(w);
    output.finish(run.map(|()| written))
}

/// Bytes read at a time when copying kept JSON lines.
const COPY_BLOCK: usize = 4 << 20;

/// Copy the kept records of one JSON Lines file, `docs` its documents.
fn copy_jsonl(
    path: &Path,
    docs: &[u32],
    result: &DedupResult,
    text_field: &str,
    w: &mut impl Write,
    written: &mut Written,
) -> io::Result<()> {
    let records = docs.iter().map(|&d| {
        let doc = &result.docs[d as usize];
        (doc.origin.bytes.clone().unwrap_or_default(), &doc.fate)
    });
    // A compressed input is decompressed again: the ranges are offsets in
    // the decompressed stream. Reading stops after the last record, so
    // that a stream damaged after it (the reader reported that) is not
    // read again.
    let last = docs.iter().filter_map(|&d| result.docs[d as usize].origin.bytes.as_ref()).map(|r| r.end).max();
    let input = crate::read::open_decompressed(path)?.take(last.unwrap_or(0));
    copy_records(input, COPY_BLOCK, records, text_field, w, written).map_err(|e| match e {
        CopyError::Io(e) => e,
        CopyError::Changed { at, what } => io::Error::other(format!(
            "{}: the record at byte {at} changed since it was read ({what}); was the file modified during the run?",
            path.display()
        )),
    })
}

enum CopyError {
    Io(io::Error),
    /// The input no longer holds the record at byte `at` as it was read.
    Changed {
        at: u64,
        what: &'static str,
    },
}

impl From<io::Error> for CopyError {
    fn from(e: io::Error) -> Self {
        CopyError::Io(e)
    }
}

/// Copy, from JSON Lines `input`, the records in `records` (their bytes in
/// the file as the reader found them,
/// [`Origin::bytes`](crate::corpus::Origin::bytes), in increasing order,
/// with each one's fate): kept ones byte for byte with their line ending (a
/// last line without one gets a line feed), trimmed ones rewritten, removed
/// ones not at all. The input is read `block` bytes at a time; a run of
/// consecutive kept records is written as one slice.
///
/// A record must still start a line (the file begins there, or after a
/// byte-order mark, or the byte before it is a line feed) and end one (with
/// a line feed, or at the end of the file): anything else means the file
/// changed since it was read.
fn copy_records<'a>(
    mut input: impl Read,
    block: usize,
    records: impl Iterator<Item = (Range<u64>, &'a Fate)>,
    text_field: &str,
    w: &mut impl Write,
    written: &mut Written,
) -> Result<(), CopyError> {
    let records = records.filter(|(_, fate)| !matches!(fate, Fate::Removed { .. }));
    // `buf` holds the file's bytes from `buf_start` on; `before` is the
    // byte just before them.
    let mut buf: Vec<u8> = Vec::with_capacity(block);
    let (mut buf_start, mut before) = (0u64, None::<u8>);
    let mut eof = false;
    // Kept bytes of `buf` not yet written (file offsets), and the end of the
    // last record.
    let (mut run, mut last_end) = (0..0u64, 0u64);
    for (range, fate) in records {
        let changed = |what| CopyError::Changed { at: range.start, what };
        if range.is_empty() || range.start < last_end {
            return Err(changed("not a record of this file"));
        }
        last_end = range.end;
        // Read on until `buf` holds the record and the byte after it (or
        // the end of the file), first writing the run and dropping what no
        // record needs.
        while buf_start + (buf.len() as u64) <= range.end && !eof {
            if !run.is_empty() {
                w.write_all(held(&buf, buf_start, &run))?;
                run = 0..0;
            }
            let drop = ((range.start - buf_start) as usize).min(buf.len());
            if drop > 0 {
                before = Some(buf[drop - 1]);
                buf.drain(..drop);
                buf_start += drop as u64;
            }
            eof = input.by_ref().take(block as u64).read_to_end(&mut buf)? == 0;
        }
        let end = buf_start + buf.len() as u64;
        if range.end > end {
            return Err(changed("the file is shorter"));
        }
        let at = |offset: u64| (offset - buf_start) as usize;
        let bytes = &buf[at(range.start)..at(range.end)];
        let starts_line = match range.start {
            // The start of the file, or after a byte-order mark.
            0 | 3 => true,
            start if start > buf_start => buf[at(start) - 1] == b'\n',
            _ => before == Some(b'\n'),
        };
        let ends_line = bytes.ends_with(b"\n") || range.end == end;
        if !starts_line || !ends_line {
            return Err(changed("it is no longer a whole line"));
        }
        match fate {
            Fate::Trimmed(drop) => {
                w.write_all(held(&buf, buf_start, &run))?;
                run = 0..0;
                let ending = if bytes.ends_with(b"\r\n") { 2 } else { usize::from(bytes.ends_with(b"\n")) };
                let body = &bytes[..bytes.len() - ending];
                // A record read with its lone surrogates repaired (see
                // `corpus`) is rewritten from its repaired form.
                let rewritten = replace_text(body, text_field, |text| without_lines(text, drop))
                    .or_else(|| {
                        let (repaired, _) = crate::corpus::repair_lone_surrogates(std::str::from_utf8(body).ok()?)?;
                        replace_text(repaired.as_bytes(), text_field, |text| without_lines(text, drop))
                    })
                    .ok_or(changed("no text field"))?;
                w.write_all(&rewritten)?;
                w.write_all(if ending == 0 { b"\n" } else { &bytes[bytes.len() - ending..] })?;
                written.rewritten += 1;
            }
            _ if !bytes.ends_with(b"\n") => {
                w.write_all(held(&buf, buf_start, &run))?;
                run = 0..0;
                w.write_all(bytes)?;
                w.write_all(b"\n")?;
                written.copied += 1;
            }
            _ => {
                if run.end != range.start {
                    w.write_all(held(&buf, buf_start, &run))?;
                    run.start = range.start;
                }
                run.end = range.end;
                written.copied += 1;
            }
        }
    }
    w.write_all(held(&buf, buf_start, &run))?;
    Ok(())
}

/// The bytes of the file at `range` (empty, or inside what `buf` holds from
/// file offset `buf_start` on).
fn held<'a>(buf: &'a [u8], buf_start: u64, range: &Range<u64>) -> &'a [u8] {
    if range.is_empty() {
        return &[];
    }
    &buf[(range.start - buf_start) as usize..(range.end - buf_start) as usize]
}

/// `record` (one JSON object) with the string value of its top-level field
/// `field` replaced by `f(value)`, every other byte unchanged; `None` if
/// the record is not an object with that field as a string. With the field
/// given twice, the last one (the one serde_json reads) is replaced.
pub fn replace_text(record: &[u8], field: &str, f: impl FnOnce(&str) -> String) -> Option<Vec<u8>> {
    let ws = |mut i: usize| {
        while i < record.len() && matches!(record[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        i
    };
    // One JSON value starting at `at`: its end.
    let value_end = |at: usize| -> Option<usize> {
        let mut it = serde_json::Deserializer::from_slice(&record[at..]).into_iter::<serde::de::IgnoredAny>();
        it.next()?.ok()?;
        Some(at + it.byte_offset())
    };
    let mut i = ws(0);
    if record.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(i + 1);
    let mut found: Option<(usize, usize)> = None;
    while record.get(i) == Some(&b'"') {
        let key_end = value_end(i)?;
        let key: String = serde_json::from_slice(&record[i..key_end]).ok()?;
        i = ws(key_end);
        if record.get(i) != Some(&b':') {
            return None;
        }
        let start = ws(i + 1);
        let end = value_end(start)?;
        if key == field {
            found = Some((start, end));
        }
        i = ws(end);
        if record.get(i) == Some(&b',') {
            i = ws(i + 1);
        }
    }
    let (start, end) = found?;
    let old: String = serde_json::from_slice(&record[start..end]).ok()?;
    let new = serde_json::to_string(&f(&old)).ok()?;
    let mut out = Vec::with_capacity(record.len());
    out.extend_from_slice(&record[..start]);
    out.extend_from_slice(new.as_bytes());
    out.extend_from_slice(&record[end..]);
    Some(out)
}

/// Kept text files or Parquet rows of one input, as JSON objects; `docs`
/// are its documents. The input is read again and its documents found by
/// their [`Source`].
fn objects(
    input: &Input,
    docs: &[u32],
    corpus: &CorpusOptions,
    result: &DedupResult,
    w: &mut impl Write,
    written: &mut Written,
) -> io::Result<()> {
    let by_source: FxHashMap<&Source, u32> =
        docs.iter().map(|&d| (&result.docs[d as usize].origin.source, d)).collect();
    let options = CorpusOptions { strict: false, ..corpus.clone() };
    let reader = CorpusReader::new(vec![input.clone()], options).map_err(io::Error::other)?;
    for doc in reader.flatten() {
        let Some(&d) = by_source.get(&doc.origin.source) else { continue };
        let text = match &result.docs[d as usize].fate {
            Fate::Removed { .. } => continue,
            Fate::Kept => {
                written.copied += 1;
                doc.text
            }
            Fate::Trimmed(lines) => {
                written.rewritten += 1;
                without_lines(&doc.text, lines)
            }
        };
        let mut object = Map::new();
        object.insert(corpus.id_field.clone(), Value::String(doc.id));
        object.insert(corpus.text_field.clone(), Value::String(text));
        for (k, v) in doc.meta {
            object.entry(k).or_insert(v);
        }
        serde_json::to_writer(&mut *w, &Value::Object(object))?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Why Parquet output cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ParquetOutError {
    /// An input that is not Parquet.
    #[error("{0}: `format` parquet copies Parquet inputs row for row; this input is not Parquet (use `format` jsonl)")]
    NotParquet(PathBuf),
    /// Two inputs whose outputs would have the same name.
    #[error("{0} and {1}: two inputs of the same file name would write one output file; give them apart")]
    SameName(PathBuf, PathBuf),
    /// Reading an input or writing its output failed.
    #[error("{path}: {source}")]
    Io {
        /// The input.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// The files [`write_parquet`] writes into `dir`, one per input (of the
/// same name), or why it cannot: an input that is not Parquet, two inputs
/// of one name. Known before the inputs are read, so that a caller can
/// refuse the run before its work rather than after it.
pub fn parquet_outputs(inputs: &[Input], dir: &Path) -> Result<Vec<PathBuf>, ParquetOutError> {
    let mut names: FxHashMap<std::ffi::OsString, &Path> = FxHashMap::default();
    let mut outs = Vec::with_capacity(inputs.len());
    for input in inputs {
        let path = match input {
            Input::Records { path, format } if *format == Format::PARQUET => path,
            _ => return Err(ParquetOutError::NotParquet(input.path().to_path_buf())),
        };
        let name = path.file_name().unwrap_or_default().to_os_string();
        outs.push(dir.join(&name));
        if let Some(other) = names.insert(name, path) {
            return Err(ParquetOutError::SameName(other.to_path_buf(), path.clone()));
        }
    }
    Ok(outs)
}

/// Write, for every Parquet input, a Parquet file of the same name in the
/// folder `dir` with its kept rows and every column; see the module docs.
pub fn write_parquet(
    inputs: &[Input],
    corpus: &CorpusOptions,
    result: &DedupResult,
    dir: &Path,
) -> Result<Written, ParquetOutError> {
    let outs = parquet_outputs(inputs, dir)?;
    std::fs::create_dir_all(dir).map_err(|source| ParquetOutError::Io { path: dir.to_path_buf(), source })?;
    let docs = by_input(inputs, result);
    let mut written = Written::default();
    for ((k, input), out) in inputs.iter().enumerate().zip(&outs) {
        copy_parquet(input.path(), out, &docs[k], result, &corpus.text_field, &mut written)
            .map_err(|source| ParquetOutError::Io { path: input.path().to_path_buf(), source })?;
    }
    Ok(written)
}

fn copy_parquet(
    path: &Path,
    out: &Path,
    docs: &[u32],
    result: &DedupResult,
    text_field: &str,
    written: &mut Written,
) -> io::Result<()> {
    // The row of each document.
    let wanted: Vec<(u64, u32)> = docs
        .iter()
        .filter_map(|&d| match result.docs[d as usize].origin.source.position {
            Position::Row(row) => Some((row, d)),
            _ => None,
        })
        .collect();
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?).map_err(io::Error::other)?;
    let reader = builder.with_batch_size(4096).build().map_err(io::Error::other)?;
    let schema = reader.schema();
    let text_col = schema.index_of(text_field).ok();
    let mut file = AtomicFile::create(out)?;
    let mut writer =
        ArrowWriter::try_new(file.file_mut(), schema.clone(), Some(writer_properties())).map_err(io::Error::other)?;
    let mut next = wanted.iter().peekable();
    let mut row0 = 0u64;
    for batch in reader {
        let batch = batch.map_err(io::Error::other)?;
        let n = batch.num_rows();
        let mut keep = vec![false; n];
        let mut trims: Vec<(usize, &[u32])> = Vec::new();
        while let Some(&&(row, doc)) = next.peek() {
            if row >= row0 + n as u64 {
                break;
            }
            next.next();
            let r = (row - row0) as usize;
            match &result.docs[doc as usize].fate {
                Fate::Removed { .. } => {}
                Fate::Kept => {
                    keep[r] = true;
                    written.copied += 1;
                }
                Fate::Trimmed(lines) => {
                    keep[r] = true;
                    trims.push((r, lines));
                    written.rewritten += 1;
                }
            }
        }
        row0 += n as u64;
        let mut batch = batch;
        if let (Some(c), false) = (text_col, trims.is_empty()) {
            let column = retext(batch.column(c), &trims)?;
            let mut columns = batch.columns().to_vec();
            columns[c] = column;
            batch = RecordBatch::try_new(batch.schema(), columns).map_err(io::Error::other)?;
        }
        let mask = BooleanArray::from(keep);
        let kept = arrow_select::filter::filter_record_batch(&batch, &mask).map_err(io::Error::other)?;
        if kept.num_rows() > 0 {
            writer.write(&kept).map_err(io::Error::other)?;
        }
    }
    writer.close().map_err(io::Error::other)?;
    file.commit()
}

/// A text column with the given rows' texts without the given lines.
fn retext(column: &ArrayRef, trims: &[(usize, &[u32])]) -> io::Result<ArrayRef> {
    match column.data_type() {
        DataType::Utf8 => Ok(retext_as::<i32>(column, trims)),
        DataType::LargeUtf8 => Ok(retext_as::<i64>(column, trims)),
        other => Err(io::Error::other(format!(
            "the text column is of type {other}; rewriting it without repeated paragraphs needs a string column \
             (Utf8 or LargeUtf8); run without --paragraphs"
        ))),
    }
}

/// [`retext`] for a string column with offsets of type `O`.
fn retext_as<O: OffsetSizeTrait>(column: &ArrayRef, trims: &[(usize, &[u32])]) -> ArrayRef {
    let a = column.as_string::<O>();
    let trims: FxHashMap<usize, &[u32]> = trims.iter().copied().collect();
    let mut b = GenericStringBuilder::<O>::new();
    for r in 0..a.len() {
        if a.is_null(r) {
            b.append_null();
            continue;
        }
        match trims.get(&r) {
            Some(lines) => b.append_value(without_lines(a.value(r), lines)),
            None => b.append_value(a.value(r)),
        }
    }
    Arc::new(b.finish())
}

/// One line of the removed list.
#[derive(serde::Serialize)]
struct RemovedRow<'a> {
    id: &'a str,
    source: &'a Source,
    reason: &'a str,
    duplicate_of: &'a str,
    duplicate_of_source: &'a Source,
    similarity: f64,
}

/// Write the removed documents to `path` as JSON Lines, in input order:
/// `{"id", "source", "reason", "duplicate_of", "duplicate_of_source",
/// "similarity"}`.
pub fn write_removed(result: &DedupResult, path: &Path) -> io::Result<u64> {
    // Written after the kept records: no input is read any more.
    let mut output = Output::create(path, &[])?;
    let mut w = BufWriter::new(&mut output.target);
    let run = write_removed_rows(result, &mut w).and_then(|n| w.flush().map(|()| n));
    drop(w);
    output.finish(run)
}

fn write_removed_rows(result: &DedupResult, w: &mut impl Write) -> io::Result<u64> {
    let mut n = 0;
    for doc in &result.docs {
        let Fate::Removed { reason, of, similarity } = doc.fate else { continue };
        let kept = &result.docs[of as usize];
        let row = RemovedRow {
            id: &doc.id,
            source: &doc.origin.source,
            reason: reason.as_str(),
            duplicate_of: &kept.id,
            duplicate_of_source: &kept.origin.source,
            similarity: super::outcome::listed_similarity(similarity),
        };
        serde_json::to_writer(&mut *w, &row)?;
        w.write_all(b"\n")?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_text_value_changes() {
        let line = br#"{ "id" :7,"text":"a\nb\u0041","x":{"text":1}, "t":[1,"]"] }"#;
        let got = replace_text(line, "text", |t| t.replace("bA", "c")).unwrap();
        assert_eq!(got, br#"{ "id" :7,"text":"a\nc","x":{"text":1}, "t":[1,"]"] }"#.to_vec());
    }

    #[test]
    fn a_record_without_the_field_is_refused() {
        assert!(replace_text(br#"{"id":1}"#, "text", |t| t.to_owned()).is_none());
        assert!(replace_text(b"[1]", "text", |t| t.to_owned()).is_none());
    }

    /// The bytes of each line of `input` (1-based) as the corpus reader
    /// gives them: after a byte-order mark, with the line ending.
    fn line_ranges(input: &[u8]) -> Vec<Range<u64>> {
        let mut ranges = Vec::new();
        let mut start = 0u64;
        for line in input.split_inclusive(|&b| b == b'\n') {
            let bom = if start == 0 && line.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
            ranges.push(start + bom..start + line.len() as u64);
            start += line.len() as u64;
        }
        ranges
    }

    /// The lines of `input` (1-based) as `copy_records` should write them,
    /// computed line by line.
    fn expected(input: &[u8], lines: &[(u64, Fate)]) -> Vec<u8> {
        let mut out = Vec::new();
        let all: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
        for (line, fate) in lines {
            let mut record = all[*line as usize - 1];
            if *line == 1 {
                record = record.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(record);
            }
            match fate {
                Fate::Removed { .. } => {}
                Fate::Trimmed(drop) => {
                    let body = record.strip_suffix(b"\n").unwrap_or(record);
                    let body = body.strip_suffix(b"\r").unwrap_or(body);
                    out.extend(replace_text(body, "text", |t| without_lines(t, drop)).unwrap());
                    out.extend_from_slice(&record[body.len()..]);
                    if !record.ends_with(b"\n") {
                        out.push(b'\n');
                    }
                }
                Fate::Kept => {
                    out.extend_from_slice(record);
                    if !record.ends_with(b"\n") {
                        out.push(b'\n');
                    }
                }
            }
        }
        out
    }

    #[test]
    fn kept_records_are_copied_whatever_the_block_size() {
        let mut input = b"\xEF\xBB\xBF{\"id\":0,\"text\":\"a\\nb\"}\r\n".to_vec();
        for i in 1..40 {
            match i % 7 {
                // Blank lines and lines of no document.
                3 => input.extend_from_slice(b"\n"),
                5 => input.extend_from_slice(b"  \r\n"),
                _ => input.extend_from_slice(format!("{{\"id\":{i},\"text\":\"line {i}\\nsecond {i}\"}}\n").as_bytes()),
            }
        }
        input.extend_from_slice(br#"{"id":"last","text":"x\ny"}"#);
        let ranges = line_ranges(&input);
        let count = ranges.len() as u64;
        let removed = Fate::Removed { reason: super::super::Reason::Near, of: 0, similarity: 0.9 };
        // Documents on most non-blank lines, with every fate.
        let lines: Vec<(u64, Fate)> = (1..=count)
            .filter(|&l| l == 1 || l == count || (l % 7 != 4 && l % 7 != 6 && l % 11 != 2))
            .map(|l| {
                let fate = match l % 5 {
                    0 => removed.clone(),
                    2 if l % 2 == 0 => Fate::Trimmed(vec![0]),
                    _ => Fate::Kept,
                };
                (l, fate)
            })
            .collect();
        assert!(lines.first().unwrap().0 == 1 && lines.last().unwrap().0 == count);
        let want = expected(&input, &lines);
        for block in (1..=70).chain([4096]) {
            let mut out = Vec::new();
            let mut written = Written::default();
            let it = lines.iter().map(|(l, f)| (ranges[*l as usize - 1].clone(), f));
            assert!(copy_records(&input[..], block, it, "text", &mut out, &mut written).is_ok());
            assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want), "block {block}");
            let count = |want: fn(&Fate) -> bool| lines.iter().filter(|(_, f)| want(f)).count() as u64;
            let copied = count(|f| *f == Fate::Kept);
            let rewritten = count(|f| matches!(f, Fate::Trimmed(_)));
            assert!(copied > 10 && rewritten > 1);
            assert_eq!(written, Written { copied, rewritten });
        }
    }

    #[test]
    fn a_shorter_file_is_an_error() {
        let input = b"{\"id\":1,\"text\":\"a\"}\n";
        let records = [(0..20, Fate::Kept), (40..60, Fate::Kept)];
        let it = records.iter().map(|(r, f)| (r.clone(), f));
        let mut out = Vec::new();
        let got = copy_records(&input[..], 8, it, "text", &mut out, &mut Written::default());
        assert!(matches!(got, Err(CopyError::Changed { at: 40, what: "the file is shorter" })));
    }

    #[test]
    fn a_record_that_is_no_longer_a_line_is_an_error() {
        // Read as two records; a line was inserted before the second since.
        let input = b"{\"id\":1,\"text\":\"a\"}\n{\"id\":9}\n{\"id\":2,\"text\":\"b\"}\n";
        for block in [1, 7, 4096] {
            let records = [(0..20, Fate::Kept), (20..40, Fate::Kept)];
            let it = records.iter().map(|(r, f)| (r.clone(), f));
            let got = copy_records(&input[..], block, it, "text", &mut Vec::new(), &mut Written::default());
            assert!(matches!(got, Err(CopyError::Changed { at: 20, .. })), "block {block}");
        }
    }
}
