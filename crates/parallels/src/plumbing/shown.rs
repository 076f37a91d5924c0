//! How a path is shown in messages ([`shown`]): a file name may hold any
//! byte but `/` and NUL, and a message must neither let it act on the
//! terminal nor hide it. On the ground floor, so that `same_file` and every
//! stage show paths one way; [`crate::read`] re-exports it.

use std::fmt;
use std::path::Path;

/// A path as messages show it: see [`shown`].
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a>(&'a Path);

/// `path` for a message: as it is, except that control characters are
/// escaped (`\n`, `\r`, `\t`, other ones as `\u{1b}`), and so are the
/// characters that reorder text on a terminal (bidirectional overrides and
/// isolates, U+202A–U+202E and U+2066–U+2069), and each byte that is not
/// part of valid UTF-8 is written `\xFF`. A file name cannot then move the
/// cursor, change colours, or hide behind U+FFFD; two names that differ
/// only in such bytes are shown apart.
pub fn shown(path: &Path) -> Shown<'_> {
    Shown(path)
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.as_os_str().as_encoded_bytes().utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '\n' => f.write_str("\\n")?,
                    '\r' => f.write_str("\\r")?,
                    '\t' => f.write_str("\\t")?,
                    c if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') => {
                        write!(f, "\\u{{{:x}}}", c as u32)?
                    }
                    c => fmt::Write::write_char(f, c)?,
                }
            }
            for byte in chunk.invalid() {
                write!(f, "\\x{byte:02X}")?;
            }
        }
        Ok(())
    }
}
