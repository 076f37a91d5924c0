//! JSON Lines: one record per line, read line by line within
//! [`CorpusOptions::max_document_bytes`] (from a `.gz` or `.zst` file as it
//! is decompressed), each line's bytes and place kept for its [`Origin`].
//!
//! # Lone surrogates
//!
//! Python's `json.dumps` writes a string holding a lone surrogate (text
//! decoded with `surrogateescape`, or cut in the middle of a pair) as
//! `\ud800`-style escapes without their pair. That is not Unicode, and
//! serde_json refuses the whole line ("lone leading surrogate in hex
//! escape"). Such a record is **repaired, not skipped**: each lone
//! surrogate escape reads as U+FFFD (the replacement is an escape of the
//! same length, `\ufffd`, so columns of later errors stay right), the
//! record counts in [`Summary::repaired`] and its `replaced`, and the
//! commands warn with the count and the first record's `file:line`. A pair
//! (`\ud83d\ude00`) is a character, as always. The bytes of the line are
//! not changed: `dedup` copies a kept record as it was.

use std::io::{BufRead, BufReader, Read};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::record::{Parse, Record, RecordFormat, Records};
use crate::corpus::doc::{Format, Origin, Position, Source};
use crate::corpus::error::{missing, null, wrong_type};
use crate::corpus::options::CorpusOptions;
use crate::corpus::raw::RawDoc;
use crate::corpus::summary::Summary;
use crate::plumbing::problem::{Problem, ProblemKind};
use crate::read::{open_decompressed, shown};

/// Buffer size of the JSON Lines reader.
const JSONL_BUFFER_BYTES: usize = 64 * 1024;

/// The format: JSON Lines, one object a line, records numbered by line.
pub(super) struct Jsonl;

impl RecordFormat for Jsonl {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["jsonl", "ndjson", "json"]
    }

    fn rows(&self) -> bool {
        false
    }

    fn open(&self, path: &Path, _options: &CorpusOptions, summary: &mut Summary) -> Result<Box<dyn Records>, Problem> {
        Ok(Box::new(JsonlSource::open(path, summary)?))
    }

    fn reparse(&self) -> Option<Parse> {
        Some(parse_record)
    }
}

impl Records for JsonlSource {
    /// A line's record, deferred: its bytes are parsed with the batch's.
    fn next(
        &mut self,
        input: usize,
        options: &CorpusOptions,
        summary: &mut Summary,
        bytes: &mut Vec<u8>,
    ) -> Option<Record> {
        Some(match self.next_line(options, summary)? {
            Ok((line, range)) => {
                let start = bytes.len();
                bytes.extend_from_slice(&self.buf[self.record.clone()]);
                let source =
                    Source { file: self.file.clone(), position: Position::Line(line), format: Some(Format::JSONL) };
                let origin = Origin { input, source, bytes: Some(range) };
                Record::Deferred { bytes: start..bytes.len(), origin, parse: parse_record }
            }
            Err(problem) => Record::Read(Err(problem)),
        })
    }
}

/// A JSON Lines file being read line by line.
pub(super) struct JsonlSource {
    file: Arc<Path>,
    /// The path as messages show it.
    display: String,
    reader: BufReader<Box<dyn Read + Send>>,
    /// Lines read so far (the number of the current line).
    line: u64,
    /// Bytes of the file read so far (the end of the current line).
    offset: u64,
    /// Whether a non-blank line has been seen.
    any_record: bool,
    buf: Vec<u8>,
    /// The bytes of the current record in `buf`.
    record: Range<usize>,
    done: bool,
}

impl JsonlSource {
    /// Open a JSON Lines file (counted in `summary`), decompressing a
    /// `.gz` or `.zst` file.
    fn open(path: &Path, summary: &mut Summary) -> Result<JsonlSource, Problem> {
        let display = shown(path).to_string();
        let file = open_decompressed(path)
            .map_err(|e| Problem::new(display.as_str(), ProblemKind::Unreadable, format!("cannot open it: {e}")))?;
        summary.files += 1;
        Ok(JsonlSource {
            file: path.into(),
            display,
            reader: BufReader::with_capacity(JSONL_BUFFER_BYTES, file),
            line: 0,
            offset: 0,
            any_record: false,
            buf: Vec::new(),
            record: 0..0,
            done: false,
        })
    }

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
            // JSON Lines is UTF-8: a UTF-16 file is one problem, not one
            // per line.
            if self.line == 1 {
                if let Some(label) = crate::read::utf16_label(&self.buf) {
                    self.done = true;
                    let message = format!(
                        "is {label}, and JSON Lines is read as UTF-8; convert it (e.g. `iconv -f UTF-16 -t UTF-8`) \
                         and give the converted file; it is skipped"
                    );
                    return Some(Err(Problem::new(self.display.as_str(), ProblemKind::Unreadable, message)));
                }
            }
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
pub(super) fn parse_record(line: &[u8], origin: Origin, options: &CorpusOptions) -> Result<RawDoc, Problem> {
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
    let mut repaired = 0;
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => match repair_lone_surrogates(text) {
            // The line parses once its lone surrogates are U+FFFD: read it so.
            Some((fixed, count)) => match serde_json::from_str(&fixed) {
                Ok(value) => {
                    repaired = count;
                    value
                }
                Err(e) => return malformed(source(), json_error_message(&e)),
            },
            None => return malformed(source(), json_error_message(&e)),
        },
    };
    let Value::Object(mut map) = value else {
        return malformed(source(), format!("{}, not an object; each line must be one JSON object", json_kind(&value)));
    };
    let (id, numeric_id) = match map.remove(&options.id_field) {
        Some(Value::String(id)) if id.is_empty() => {
            return Err(wrong_type(source(), &options.id_field, "an empty string", ""))
        }
        Some(Value::String(id)) => (id, false),
        Some(Value::Number(n)) => (n.to_string(), true),
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
        Some(field) => match map.remove(field) {
            Some(Value::String(group)) => Some(group),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(Value::Bool(b)) => Some(b.to_string()),
            // Without a group, a record is compared with every other.
            None | Some(Value::Null) => None,
            Some(other) => {
                return Err(wrong_type(
                    source(),
                    field,
                    json_kind(&other),
                    "; a group must be a string, number or boolean",
                ))
            }
        },
    };
    Ok(RawDoc { id, numeric_id, text, encoding: "utf-8".to_owned(), replaced: repaired, group, meta: map, origin })
}

/// `line` with every escape of a lone surrogate (`\ud800`–`\udfff` not
/// part of a high–low pair) inside a string replaced by `\ufffd`, and how
/// many there were; `None` when there is none. Linear; escaped
/// backslashes (`\\ud800`, a backslash and text) are not escapes.
pub fn repair_lone_surrogates(line: &str) -> Option<(String, usize)> {
    let bytes = line.as_bytes();
    let hex4 = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        let digits = std::str::from_utf8(digits).ok()?;
        u32::from_str_radix(digits, 16).ok().filter(|_| digits.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    // `\u` escape at `at` (the backslash) of a surrogate: its value.
    let surrogate_at = |at: usize| -> Option<u32> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
            .then(|| hex4(at + 2))
            .flatten()
            .filter(|c| (0xD800..=0xDFFF).contains(c))
    };
    let mut lone = Vec::new();
    let (mut k, mut in_string) = (0, false);
    while k < bytes.len() {
        match bytes[k] {
            b'"' => {
                in_string = !in_string;
                k += 1;
            }
            b'\\' if in_string => match surrogate_at(k) {
                Some(0xD800..=0xDBFF) if surrogate_at(k + 6).is_some_and(|low| low >= 0xDC00) => k += 12,
                Some(_) => {
                    lone.push(k);
                    k += 6;
                }
                None => k += 2,
            },
            _ => k += 1,
        }
    }
    if lone.is_empty() {
        return None;
    }
    let mut fixed = String::with_capacity(line.len());
    let mut from = 0;
    for &at in &lone {
        fixed.push_str(&line[from..at]);
        fixed.push_str("\\ufffd");
        from = at + 6;
    }
    fixed.push_str(&line[from..]);
    Some((fixed, lone.len()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_name_the_column_not_line_one() {
        let error = serde_json::from_str::<Value>(r#"{"id": "a", "text": "b"#).unwrap_err();
        assert_eq!(json_error_message(&error), "malformed JSON: EOF while parsing a string at column 22");
        let error = serde_json::from_str::<Value>(r#"{"id" "a"}"#).unwrap_err();
        assert_eq!(json_error_message(&error), "malformed JSON: expected `:` at column 7");
    }
}
