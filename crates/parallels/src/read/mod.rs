//! Reading and decoding input files.
//!
//! This module owns the first stage of the pipeline: it turns the bytes of
//! one text file into a `String` and records which encoding they were in. It
//! takes a path ([`read_document`]) or a byte string ([`decode`], pure, no
//! I/O) and hands on a [`Document`] (or [`Decoded`]) whose `text` is exactly
//! the decoded text: line endings are kept as they are, and a byte-order mark
//! is not text, so it is dropped. Every later offset points into that text.
//!
//! # How bytes become text
//!
//! The rules are applied in this order; the first that applies decides.
//!
//! 1. **Byte-order mark.** `EF BB BF` → UTF-8 (`"utf-8"`), `FF FE` → UTF-16LE
//!    (`"utf-16le"`), `FE FF` → UTF-16BE (`"utf-16be"`).
//! 2. **NUL bytes.** Text in UTF-16 without a BOM has a NUL byte in every
//!    other position wherever it is ASCII: when at least a quarter of the
//!    first 8 KiB are NULs, nine in ten of them on one side, the bytes are
//!    decoded as UTF-16 of that byte order (NULs at odd offsets: little
//!    endian), and kept if that leaves nothing undecodable. Chinese,
//!    Japanese or Korean text in UTF-16 has few NULs (a code unit has a
//!    zero byte by chance); it is UTF-16 when at least
//!    [`UTF16_TEXT_PERCENT`] % of its first code units, in one byte order,
//!    are text (CJK ideographs, kana, hangul, CJK punctuation, printable
//!    ASCII), which bytes that are not UTF-16 text almost never are.
//!    Otherwise NUL
//!    bytes make the input [binary](DecodeError::Binary); the reason names
//!    the first one's offset, and says that it may be UTF-16 when the NULs
//!    alternate.
//! 3. **Valid UTF-8** is UTF-8, always (one fast validity check).
//! 4. **UTF-8-like bytes are UTF-8.** Bytes that are not valid UTF-8 are
//!    still UTF-8, read with U+FFFD for each invalid sequence, when they
//!    hold at least one valid multi-byte UTF-8 character for every invalid
//!    sequence ([`UTF8_LIKE_VALID_PER_BAD`]): a valid multi-byte sequence is
//!    strong evidence, because legacy encodings rarely make one by
//!    accident. Measured on the fixture texts (every window of 20 to 200
//!    characters): GBK, Big5, Shift_JIS, EUC-JP and EUC-KR text has at most
//!    0.8 accidental valid sequences per invalid one (0.4 over 80
//!    characters and more), windows-1252/1251 and KOI8-R text almost none;
//!    only windows of 5–10 characters (a few percent of them) reach 1, and
//!    those are then refused (rule 6), not misread. Below that ratio, the
//!    legacy detector (rule 5) is asked; if it names a single-byte
//!    encoding (windows-1252, …) while the bytes hold any valid multi-byte
//!    UTF-8 character, they are UTF-8 all the same: real single-byte text
//!    makes such a character almost never (a capital accented letter
//!    followed by a symbol), while a single-byte reading of damaged UTF-8
//!    decodes every byte into mojibake without a single replacement.
//!    Whether a file read as UTF-8 is kept is then the share of replaced
//!    characters (rule 6): a warning below [`MAX_REPLACED_PERCENT`], a
//!    refusal above.
//!
//!    The decision is monotone in the damage: bad bytes added to a UTF-8
//!    text lower the ratio and raise the replaced share, so the outcome
//!    goes from clean, to a warning counting the replacements, to a
//!    refusal naming the first bad byte, and never to a single-byte legacy
//!    reading while one valid multi-byte character is left. (Only when
//!    invalid sequences outnumber valid characters — over half of a CJK
//!    text replaced, far past the refusal — can the detector's East Asian
//!    guess take over, and a text with no valid character left is no
//!    longer UTF-8-like at all.) Longer text with the same damage moves
//!    the other way. The grid test
//!    `damaged_utf8_grid_is_never_a_legacy_encoding` checks this over
//!    lengths × damage. (Before, at least ten valid characters per invalid
//!    sequence were asked for, and a short damaged file went to the legacy
//!    detector, which read it as windows-1252 or GB18030 mojibake without a
//!    word.)
//! 5. **Legacy encodings.** Otherwise `chardetng` guesses (no TLD hint,
//!    UTF-8 not allowed) from [`DETECT_BYTES`] bytes from the first non-ASCII
//!    byte on, and `encoding_rs` decodes the whole input. GBK is reported and
//!    decoded as `"gb18030"` (GBK is a subset), Big5 as `"big5"`, anything
//!    else by its `encoding_rs` name in lower case (`"windows-1252"`,
//!    `"shift_jis"`, …).
//!    `chardetng` rules an encoding out on a single invalid sequence, so a
//!    GBK or Big5 file with one bad byte would come out as windows-1252
//!    mojibake without a single replacement. So when the guess is a
//!    single-byte encoding, the bytes are also tried as GB18030, Big5,
//!    Shift_JIS, EUC-JP and EUC-KR. Those that leave a few invalid sequences
//!    (at least one, at most one per [`LEGACY_VALID_PER_BAD`] non-ASCII
//!    characters) are candidates. The detector is run again on the bytes
//!    without each candidate's invalid sequences (first without the whole
//!    segments between ASCII punctuation or line breaks that hold them, as a
//!    stray byte can shift the rest of its segment out of step); if it never
//!    names a candidate, its first guess stands. Otherwise a candidate with
//!    the fewest invalid sequences (give or take one) wins, the first one the
//!    detector named if any: a stray byte breaks every candidate, while text
//!    in one encoding has more invalid sequences in the others.
//!
//! 6. **Checks.** Undecodable sequences are replaced by U+FFFD, one per
//!    sequence (the WHATWG/`encoding_rs` "maximal subpart" rule), and
//!    counted in `replaced`; the caller warns about them, with the count.
//!    Two checks then run on the decoded text:
//!
//! * more than [`MAX_CONTROL_PERCENT`]% control characters (other than tab,
//!   line feed, carriage return and form feed) among the first
//!   [`SNIFF_CHARS`] characters → [`DecodeError::Binary`];
//! * more than [`MAX_REPLACED_PERCENT`]% of the characters replaced →
//!   [`DecodeError::Undecodable`], naming the first bad byte's offset.
//!
//! An empty input (no bytes, or only a BOM) is valid: empty text.
//! Everything is linear in the input size, and no input makes it panic.
//!
//! # Compressed files
//!
//! A file whose name ends in `.gz` (gzip, several members read one after
//! the other, as `zcat` does) or `.zst`/`.zstd` (Zstandard, several frames
//! likewise) is decompressed as it is read ([`open_decompressed`], a
//! stream: nothing is held whole but what the caller keeps), and the rules
//! above apply to what comes out. The document's id drops both extensions
//! (`a.txt.gz` → `a`). A damaged or truncated stream is an error naming the
//! file ([`ReadError::Io`] with the decompressor's reason).
//! [`read_document_within`] stops at a limit of decompressed bytes, so a
//! small file that inflates to gigabytes is refused, not read.
//!
//! # Streams
//!
//! Standard input, a named pipe or a device (`/dev/zero`) has no size to
//! check before it is read. [`read_stream_within`] (standard input) and
//! [`read_document_within`] (a path, whatever it names) stop reading one
//! byte past their limit and refuse the input ([`ReadError::TooLarge`]),
//! so that a stream that never ends costs its limit in memory, not all
//! of it. [`stream_kind`] tells a path that names a stream, for the
//! commands that must read their inputs twice and so refuse one.
//!
//! # Paths in messages
//!
//! A file name may hold any byte but `/` and NUL: line feeds, terminal
//! escape sequences, bytes that are not UTF-8. Messages show paths through
//! [`shown`], which escapes what a terminal would act on or could not show
//! (`\n`, `\u{1b}`, `\xFF`, …) and leaves every other path as it is.
//!
//! # Where each part lives
//!
//! This file reads files ([`read_document`], [`open_decompressed`]);
//! paths are shown by [`shown`], from
//! [`plumbing::shown`](crate::plumbing::shown), re-exported here;
//! `decoding` holds the decoding rules above
//! ([`decode()`]) and their thresholds.

mod decoding;

pub use crate::plumbing::shown::{shown, Shown};

pub use decoding::{
    decode, utf16_label, DecodeError, Decoded, DETECT_BYTES, LEGACY_VALID_PER_BAD, MAX_CONTROL_PERCENT,
    MAX_REPLACED_PERCENT, SNIFF_CHARS, UTF16_TEXT_MIN_UNITS, UTF16_TEXT_PERCENT, UTF8_LIKE_VALID_PER_BAD,
};

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// A decoded input document.
#[derive(Clone, Debug)]
pub struct Document {
    /// File name without extension.
    pub id: String,
    /// The path it was read from.
    pub path: PathBuf,
    /// The decoded text (a BOM is not text).
    pub text: String,
    /// Encoding label as written in `documents[].encoding`: `utf-8`,
    /// `utf-16le`, `utf-16be`, `gb18030`, `big5`, ...
    pub encoding: String,
    /// Number of byte sequences that could not be decoded and were replaced
    /// by U+FFFD (0 for a clean file).
    pub replaced: usize,
}

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// No file at the path.
    #[error("{}: no such file; check the path", shown(path))]
    NotFound {
        /// The path.
        path: PathBuf,
    },
    /// A folder where a file was expected.
    #[error("{}: is a directory, not a text file; give the text files inside it", shown(path))]
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// NUL bytes, or too many control characters.
    #[error("{}: looks like a binary file ({reason}); give a text file", shown(path))]
    Binary {
        /// The file.
        path: PathBuf,
        /// What gave it away.
        reason: String,
    },
    /// Even the best guess of the encoding leaves too much undecodable.
    #[error(
        "{}: cannot be decoded as text: read as {encoding}, {replaced} of {chars} characters \
         are undecodable (first bad byte at offset {offset}); {}",
        shown(path),
        advice(encoding)
    )]
    Undecodable {
        /// The file.
        path: PathBuf,
        /// The best guess of its encoding.
        encoding: String,
        /// Characters replaced by U+FFFD.
        replaced: usize,
        /// Characters decoded.
        chars: usize,
        /// Byte offset of the first undecodable sequence.
        offset: usize,
    },
    /// The file cannot be read (or, compressed, decompressed).
    #[error("{}: cannot read it: {source}; {}", shown(path), io_advice(path, source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's (or the decompressor's) error.
        source: std::io::Error,
    },
    /// More than the limit of [`read_document_within`] (after
    /// decompression, for a compressed file).
    #[error("{}: more than the limit of {limit} bytes per document{}", shown(path), decompressed(path))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
}

/// What to do about a read error: the system's error says what went
/// wrong; this says what to check.
fn io_advice(path: &Path, source: &std::io::Error) -> &'static str {
    if source.kind() == ErrorKind::OutOfMemory {
        return "there is not enough memory to hold it: free memory, or split it and give the parts";
    }
    match Compression::of(path) {
        Some(_) => {
            "check that it is a readable file and a complete, undamaged compressed file \
             (test it with `gzip -t` or `zstd -t`)"
        }
        None => "check that it is a readable file",
    }
}

/// What to add to the size of a compressed file.
fn decompressed(path: &Path) -> &'static str {
    match Compression::of(path) {
        Some(_) => " once decompressed",
        None => "",
    }
}

/// What to do about an undecodable file read as `encoding`.
fn advice(encoding: &str) -> &'static str {
    if encoding == "utf-8" {
        "it looks like UTF-8 with damaged bytes: repair or re-export it, \
         or, if it is in a legacy encoding, convert it to UTF-8 (e.g. with iconv) and retry"
    } else {
        "convert it to UTF-8 (e.g. with iconv) and retry"
    }
}

impl ReadError {
    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::NotFound { path }
            | ReadError::IsDirectory { path }
            | ReadError::Binary { path, .. }
            | ReadError::Undecodable { path, .. }
            | ReadError::Io { path, .. }
            | ReadError::TooLarge { path, .. } => path,
        }
    }

    fn from_decode(path: &Path, error: DecodeError) -> Self {
        let path = path.to_path_buf();
        match error {
            DecodeError::Binary { reason } => ReadError::Binary { path, reason },
            DecodeError::Undecodable { encoding, replaced, chars, offset } => {
                ReadError::Undecodable { path, encoding, replaced, chars, offset }
            }
        }
    }
}

/// Read and decode one text file (see the module docs for the rules),
/// decompressing a `.gz` or `.zst` file. No limit: a path a user gives
/// may name a device or a pipe that never ends (`/dev/zero`), so what
/// reads such paths uses [`read_document_within`].
pub fn read_document(path: &Path) -> Result<Document, ReadError> {
    read_document_within(path, u64::MAX)
}

/// [`read_document`], refusing a file of more than `limit` bytes (counted
/// after decompression) with [`ReadError::TooLarge`] without reading on.
pub fn read_document_within(path: &Path, limit: u64) -> Result<Document, ReadError> {
    let bytes = read_bytes(path, limit)?;
    let decoded = decode(&bytes).map_err(|e| ReadError::from_decode(path, e))?;
    Ok(Document {
        id: document_id(path),
        path: path.to_path_buf(),
        text: decoded.text,
        encoding: decoded.encoding,
        replaced: decoded.replaced,
    })
}

/// Read a document from a stream (standard input) as a file is read and
/// decoded, refusing more than `limit` bytes with [`ReadError::TooLarge`]
/// as soon as the stream passes it (so what never ends is cut, not held):
/// `path` and `id` are what messages and outputs call it (`<stdin>`,
/// `stdin`).
pub fn read_stream_within(reader: impl Read, path: &Path, id: &str, limit: u64) -> Result<Document, ReadError> {
    let bytes = read_limited(reader, limit, 0).map_err(|e| match e {
        Limited::TooLarge => ReadError::TooLarge { path: path.to_path_buf(), limit },
        Limited::Io(source) => ReadError::Io { path: path.to_path_buf(), source },
    })?;
    let decoded = decode(&bytes).map_err(|e| ReadError::from_decode(path, e))?;
    Ok(Document {
        id: id.to_string(),
        path: path.to_path_buf(),
        text: decoded.text,
        encoding: decoded.encoding,
        replaced: decoded.replaced,
    })
}

/// Why [`read_limited`] stopped.
enum Limited {
    /// More than the limit.
    TooLarge,
    /// The reader's error.
    Io(std::io::Error),
}

/// Everything `reader` holds, if that is at most `limit` bytes; stops
/// reading one byte past the limit (`capacity`: the size expected).
fn read_limited(reader: impl Read, limit: u64, capacity: u64) -> Result<Vec<u8>, Limited> {
    let mut bytes = Vec::with_capacity(capacity.min(limit) as usize);
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(Limited::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Limited::TooLarge);
    }
    Ok(bytes)
}

/// A text file's id: its name without the extension (and without a
/// compression extension before it: `a.txt.gz` → `a`), shown as
/// [`shown`] shows it, so that two names that differ only in bytes that
/// are not UTF-8 keep different ids.
pub fn document_id(path: &Path) -> String {
    let plain = Compression::strip(path);
    plain.file_stem().map(|s| shown(Path::new(s)).to_string()).unwrap_or_default()
}

fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let owned = || path.to_path_buf();
    let classify = |source: std::io::Error| match source.kind() {
        ErrorKind::NotFound => ReadError::NotFound { path: owned() },
        ErrorKind::IsADirectory => ReadError::IsDirectory { path: owned() },
        _ => ReadError::Io { path: owned(), source },
    };
    let meta = std::fs::metadata(path).map_err(classify)?;
    if meta.is_dir() {
        return Err(ReadError::IsDirectory { path: owned() });
    }
    let compressed = Compression::of(path).is_some();
    if !compressed && meta.is_file() && meta.len() > limit {
        return Err(ReadError::TooLarge { path: owned(), limit });
    }
    let reader = open_decompressed(path).map_err(classify)?;
    read_limited(reader, limit, if compressed { 0 } else { meta.len() }).map_err(|e| match e {
        Limited::TooLarge => ReadError::TooLarge { path: owned(), limit },
        Limited::Io(source) => classify(source),
    })
}

/// What `meta` names when it is neither a regular file nor a folder: `"a
/// named pipe"`, `"a device"`, `"a socket"` (`None` for a file or a
/// folder). Such a path (`/dev/stdin`, `<(…)`, a FIFO) can be read once,
/// and its size says nothing of what it holds.
pub fn stream_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a named pipe");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
    }
    Some("neither a file nor a folder")
}

/// A compression that input files may have, known by their last
/// extension (compared without case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// `.gz`: gzip, one or several members.
    Gzip,
    /// `.zst` or `.zstd`: Zstandard, one or several frames.
    Zstd,
}

impl Compression {
    /// The compression a file's name says it has, if any.
    pub fn of(path: &Path) -> Option<Compression> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "gz" => Some(Compression::Gzip),
            "zst" | "zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The path without its compression extension (`a.jsonl.gz` →
    /// `a.jsonl`); the path itself when it has none.
    pub fn strip(path: &Path) -> std::borrow::Cow<'_, Path> {
        match Compression::of(path) {
            Some(_) => path.with_extension("").into(),
            None => path.into(),
        }
    }
}

/// Open a file for reading, decompressing it as it is read when its name
/// ends in `.gz`, `.zst` or `.zstd` (see [`Compression`]). Errors of a
/// damaged stream come from the reads, as [`std::io::Error`]s.
pub fn open_decompressed(path: &Path) -> std::io::Result<Box<dyn Read + Send>> {
    let file = File::open(path)?;
    Ok(match Compression::of(path) {
        None => Box::new(file),
        Some(Compression::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file))),
        Some(Compression::Zstd) => Box::new(zstd::stream::read::Decoder::new(file)?),
    })
}
