//! `-` as an input: standard input, read whole and decoded as a text file
//! is ([`parallels::read::decode`]: the same encodings, the same checks),
//! and cut at the limit a file of the command has, while it is read
//! ([`parallels::read::read_stream_within`]): a stream that never ends
//! costs its limit in memory, not all of the machine's. `align`, `query`
//! and `eval` take it; `scan`, `dedup` and `index` do not (see
//! `corpus_input` in `args.rs`; `corpus::resolve` refuses a stream under
//! any other name), since they read their inputs more than once. `-` as
//! an output (`-o -`, `--html -`) is standard output.

use anyhow::{bail, Result};
use parallels::read::{read_document_within, read_stream_within, Document, ReadError};
use std::path::{Path, PathBuf};

/// The argument that names standard input.
pub const DASH: &str = "-";

/// The id of the text read from standard input, and the path its outputs
/// show (`documents[].path`, messages).
pub const ID: &str = "stdin";
pub const PATH: &str = "<stdin>";

/// Whether an argument names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == DASH
}

/// Refuse `-` given more than once: standard input can be read only once.
pub fn at_most_once(paths: &[PathBuf]) -> Result<()> {
    if paths.iter().filter(|p| is_stdin(p)).count() > 1 {
        bail!("`-` (standard input) is given more than once; it can be read only once: give it for one input");
    }
    Ok(())
}

/// An output argument: `-` is standard output, as no argument is.
pub fn output(path: Option<PathBuf>) -> Option<PathBuf> {
    path.filter(|p| !is_stdin(p))
}

/// Where `--html` goes: `None` for none, `Some(None)` for standard output
/// (`--html -`), else the file. Standard output can take one of the two
/// outputs only: `--html -` asks for `-o FILE` (`output`, already through
/// [`output`]: `None` is standard output).
pub fn html(html: Option<PathBuf>, output: Option<&Path>) -> Result<Option<Option<PathBuf>>> {
    match html {
        Some(p) if is_stdin(&p) => {
            if output.is_none() {
                bail!(
                    "--html - and the output both go to standard output; give the other one a file \
                     (`-o FILE`, or `--html FILE`)"
                );
            }
            Ok(Some(None))
        }
        other => Ok(other.map(Some)),
    }
}

/// Read standard input to its end, at most `limit` bytes, and decode it,
/// as a text file is read.
pub fn read_document(limit: u64) -> Result<Document, ReadError> {
    read_stream_within(std::io::stdin().lock(), Path::new(PATH), ID, limit)
}

/// Whether an input is read as a stream: `-`, or a path that names a
/// pipe or a device (`/dev/stdin`, `<(…)`, a FIFO), which the corpus
/// reader refuses (it reads by path, and may read twice). `query` reads
/// such an input once, as one text, as it reads `-`.
pub fn is_stream(path: &Path) -> bool {
    is_stdin(path) || std::fs::metadata(path).is_ok_and(|m| parallels::read::stream_kind(&m).is_some())
}

/// A file, or standard input for `-`, decoded as a text file is (a byte
/// order mark dropped, UTF-16 read), at most `limit` bytes: what `eval`
/// scores (a JSON or ladder file). A pipe or a device under any name is
/// cut at the limit as well.
pub fn read_text(path: &Path, limit: u64) -> Result<Document, ReadError> {
    if is_stdin(path) {
        return read_document(limit);
    }
    read_document_within(path, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_text_is_decoded_as_a_file_is() {
        let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain("天下".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let d = read_stream_within(&utf16[..], Path::new(PATH), ID, 100).unwrap();
        assert_eq!((d.id.as_str(), d.text.as_str(), d.encoding.as_str()), ("stdin", "天下", "utf-16le"));
        let err = read_stream_within(&b"\0\0\0\0binary\0\0"[..], Path::new(PATH), ID, 100).unwrap_err().to_string();
        assert!(err.starts_with("<stdin>: looks like a binary file"), "{err}");
        let err = read_stream_within(std::io::repeat(b'x'), Path::new(PATH), ID, 1000).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge { limit: 1000, .. }), "{err}");
    }

    #[test]
    fn only_a_lone_dash_is_stdin() {
        assert!(is_stdin(Path::new("-")));
        assert!(!is_stdin(Path::new("./-")) && !is_stdin(Path::new("--")));
        assert!(at_most_once(&["-".into(), "a.txt".into()]).is_ok());
        assert!(at_most_once(&["-".into(), "-".into()]).is_err());
        assert_eq!(output(Some("-".into())), None);
        assert_eq!(output(Some("x".into())), Some(PathBuf::from("x")));
    }

    #[test]
    fn html_dash_is_standard_output_when_the_output_is_a_file() {
        assert_eq!(html(Some("-".into()), Some(Path::new("out.json"))).unwrap(), Some(None));
        assert!(html(Some("-".into()), None).is_err());
        assert_eq!(html(Some("a.html".into()), None).unwrap(), Some(Some(PathBuf::from("a.html"))));
        assert_eq!(html(None, None).unwrap(), None);
    }
}
