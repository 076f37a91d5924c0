//! How a [`Source`] is written in JSON and read back: the path byte for
//! byte, and where it is not UTF-8, each byte that is not part of valid
//! UTF-8 as a lone surrogate escape (`\udc80`–`\udcff`, Python's
//! `surrogateescape`), which no UTF-8 path can hold, so the form is
//! lossless and every UTF-8 path is written exactly as before.
//!
//! serde_json reads such escapes only into bytes (as WTF-8), so the
//! deserializer asks for bytes and maps U+DC80–U+DCFF back to the bytes
//! 80–FF. On platforms other than Unix, paths are read back as UTF-8
//! (lossily).

use std::path::{Path, PathBuf};

use serde::de::{self, Visitor};
use serde::{Deserialize, Serialize};

use super::doc::{Position, Source};
use super::inputs::FileKind;

/// Digits to a number, `None` on overflow (the caller checked they are
/// ASCII digits).
fn decimal(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
}

/// The path made of the first `at` bytes of `path` (`at` is the place of
/// an ASCII byte).
fn prefix(path: &Path, at: usize) -> PathBuf {
    from_bytes(&path.as_os_str().as_encoded_bytes()[..at])
}

#[cfg(unix)]
fn from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// The written form's suffix: nothing, `:line` or `#row`.
fn suffix(position: Position) -> String {
    match position {
        Position::Whole => String::new(),
        Position::Line(line) => format!(":{line}"),
        Position::Row(row) => format!("#{row}"),
    }
}

/// A path and a suffix as a JSON string literal (with its quotes): UTF-8
/// as serde_json writes it, other bytes as `\udcXX`.
fn json_literal(path: &Path, suffix: &str) -> String {
    let mut out = String::from("\"");
    let mut bytes = path.as_os_str().as_encoded_bytes().to_vec();
    bytes.extend_from_slice(suffix.as_bytes());
    for chunk in bytes.utf8_chunks() {
        let quoted = serde_json::to_string(chunk.valid()).unwrap_or_default();
        out.push_str(quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or_default());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\u{:04x}", 0xDC00 + u32::from(*byte)));
        }
    }
    out.push('"');
    out
}

/// Bytes as serde_json reads a string into bytes (escaped surrogates as
/// WTF-8) back to the path's bytes: U+DC80–U+DCFF to 80–FF, any other
/// surrogate to U+FFFD.
fn unescape_surrogates(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] == 0xED && k + 2 < bytes.len() && (0xA0..=0xBF).contains(&bytes[k + 1]) {
            let code = 0xD000 | (u32::from(bytes[k + 1] & 0x3F) << 6) | u32::from(bytes[k + 2] & 0x3F);
            match code {
                0xDC80..=0xDCFF => out.push((code - 0xDC00) as u8),
                _ => out.extend_from_slice("\u{FFFD}".as_bytes()),
            }
            k += 3;
        } else {
            out.push(bytes[k]);
            k += 1;
        }
    }
    out
}

/// Write `path` followed by `suffix` as a string, byte for byte when it is
/// UTF-8, else with lone surrogate escapes (through serde_json's
/// `RawValue`).
fn serialize_written<S: serde::Serializer>(path: &Path, suffix: &str, serializer: S) -> Result<S::Ok, S::Error> {
    match path.to_str() {
        Some(path) => serializer.collect_str(&format_args!("{path}{suffix}")),
        None => {
            let raw = serde_json::value::RawValue::from_string(json_literal(path, suffix))
                .map_err(serde::ser::Error::custom)?;
            raw.serialize(serializer)
        }
    }
}

/// Read a string written by [`serialize_written`] back into a path.
fn deserialize_written<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
    struct Written;
    impl Visitor<'_> for Written {
        type Value = PathBuf;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a path as a string")
        }
        fn visit_str<E: de::Error>(self, written: &str) -> Result<PathBuf, E> {
            Ok(PathBuf::from(written))
        }
        fn visit_bytes<E: de::Error>(self, written: &[u8]) -> Result<PathBuf, E> {
            match std::str::from_utf8(written) {
                Ok(written) => Ok(PathBuf::from(written)),
                Err(_) => Ok(from_bytes(&unescape_surrogates(written))),
            }
        }
    }
    deserializer.deserialize_bytes(Written)
}

impl Source {
    /// A source as [`Display`](std::fmt::Display) writes it, read back: `path:N`
    /// is line `N` and `path#N` row `N` of a file of records when `path`
    /// has the extension that makes [`resolve`](super::resolve) read it in
    /// a format whose records are numbered so (JSON Lines by line, Parquet
    /// by row), that format recorded with it; anything else is a whole text
    /// file. A text file whose own name
    /// ends in `.jsonl:7` or `.parquet#7` reads back as a record: the
    /// written form cannot tell them apart.
    pub fn parse(written: &str) -> Source {
        Source::parse_path(Path::new(written))
    }

    /// [`Source::parse`] of a written form that is a path (not necessarily
    /// UTF-8): `path:N`, `path#N` and `path` as there.
    pub fn parse_path(written: &Path) -> Source {
        let number = |n: &[u8]| (!n.is_empty() && n.iter().all(|b| b.is_ascii_digit())).then(|| decimal(n)).flatten();
        let bytes = written.as_os_str().as_encoded_bytes();
        for (mark, rows) in [(b'#', true), (b':', false)] {
            let Some(at) = bytes.iter().rposition(|&b| b == mark) else { continue };
            let file = prefix(written, at);
            let FileKind::Records(format) = FileKind::of(&file) else { continue };
            if let (Some(n), true) = (number(&bytes[at + 1..]), format.rows() == rows) {
                let position = if rows { Position::Row(n) } else { Position::Line(n) };
                return Source { file: file.into(), position, format: Some(format) };
            }
        }
        Source::whole(written)
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_written(&self.file, &suffix(self.position), serializer)
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Source::parse_path(&deserialize_written(deserializer)?))
    }
}

/// A path field written as [`Source`] writes its path (`#[serde(with =
/// "parallels::corpus::json_path")]`): a string, the path as it is when it
/// is UTF-8, else with each byte that is not part of valid UTF-8 as a lone
/// surrogate escape `\udc80`–`\udcff`; read back into the same path.
pub mod json_path {
    use std::path::{Path, PathBuf};

    /// Write a path (see the module docs).
    pub fn serialize<S: serde::Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
        super::serialize_written(path, "", serializer)
    }

    /// Read a path written by [`serialize`].
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
        super::deserialize_written(deserializer)
    }
}
