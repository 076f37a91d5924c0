//! `-` as an input: standard input, read whole and decoded as a text file
//! is ([`parallels::read::decode`]: the same encodings, the same checks).
//! `align`, `query` and `eval` take it; `scan`, `dedup` and `index` do not
//! (see `corpus_input` in `args.rs`), since they read their inputs more
//! than once.

use anyhow::{bail, Context, Result};
use parallels::read::{decode, shown, Document};
use std::io::Read;
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

/// Read standard input to its end and decode it, as a text file is read.
pub fn read_document() -> Result<Document> {
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().lock().read_to_end(&mut bytes) {
        bail!("{PATH}: cannot read standard input: {e}");
    }
    text_of(&bytes)
}

/// The UTF-8 text of a file, or of standard input for `-` (a JSON or
/// ladder file that `eval` scores).
pub fn read_to_string(path: &Path) -> Result<String> {
    if is_stdin(path) {
        let mut text = String::new();
        if let Err(e) = std::io::stdin().lock().read_to_string(&mut text) {
            bail!("{PATH}: cannot read standard input: {e}");
        }
        return Ok(text);
    }
    std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", shown(path)))
}

/// A document read from standard input holding these bytes.
fn text_of(bytes: &[u8]) -> Result<Document> {
    match decode(bytes) {
        Ok(decoded) => Ok(Document {
            id: ID.to_string(),
            path: PathBuf::from(PATH),
            text: decoded.text,
            encoding: decoded.encoding,
            replaced: decoded.replaced,
        }),
        Err(e) => bail!("{PATH}: {e}; give text on standard input"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdin_text_is_decoded_as_a_file_is() {
        let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain("天下".encode_utf16().flat_map(u16::to_le_bytes)).collect();
        let d = text_of(&utf16).unwrap();
        assert_eq!((d.id.as_str(), d.text.as_str(), d.encoding.as_str()), ("stdin", "天下", "utf-16le"));
        let err = text_of(b"\0\0\0\0binary\0\0").unwrap_err().to_string();
        assert!(err.starts_with("<stdin>: looks like binary data"), "{err}");
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
}
