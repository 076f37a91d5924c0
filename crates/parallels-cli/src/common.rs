//! What the command files share: an error's message ([`message`]),
//! writing an output ([`write_output`]),
//! an output folder removed again if nothing was written into it
//! ([`NewFolder`]), the temporary files of killed runs cleared
//! ([`remove_stale`]), and the width of the text view
//! ([`terminal_width`]). A leaf: `main.rs` and the command files import it,
//! it imports none of them.

use anyhow::{bail, Context, Result};
use parallels::plumbing::OutputFile;
use parallels::read::shown;
use parallels::report::text::MIN_WIDTH;
use std::io::Write;
use std::path::Path;

/// An error as the user reads it: its message, then each cause the
/// message does not already hold (`: ` between them). Library errors
/// name their cause in their own words (`x.txt: cannot read it: Is a
/// directory; …`) and also hand it on as their source, which `{:#}`
/// printed a second time.
pub(crate) fn message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// Remove what runs that were killed left beside these outputs (temporary
/// files of our naming whose process is gone).
pub(crate) fn remove_stale(outputs: &[OutputFile]) {
    let mut dirs: Vec<&Path> = outputs.iter().map(|o| o.path.parent().unwrap_or(Path::new(""))).collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        parallels::plumbing::atomic::remove_stale(dir);
    }
}

/// An output folder, created if missing; when this run created it and it
/// is still empty when dropped (the command failed before writing
/// anything into it) or when the run is interrupted, it is removed again
/// ([`parallels::plumbing::CreatedDir`]).
pub(crate) struct NewFolder(parallels::plumbing::CreatedDir);

impl NewFolder {
    pub(crate) fn create(path: &Path) -> Result<NewFolder> {
        let dir = parallels::plumbing::CreatedDir::create(path)
            .with_context(|| format!("{}: cannot create the folder", shown(path)))?;
        Ok(NewFolder(dir))
    }

    /// The command succeeded: the folder stays, even if empty.
    pub(crate) fn keep(self) {
        self.0.keep();
    }
}
/// Width of the text report: `COLUMNS` when set (as shells export it, and
/// to force a width), else the width of the terminal on standard output,
/// else 100 (a file or a pipe); at least the report's narrowest.
pub(crate) fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .or_else(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
        .unwrap_or(100)
        .max(MIN_WIDTH)
}
/// Write to a file (through a temporary name, synced and renamed at the
/// end: [`parallels::plumbing::AtomicFile`]), to
/// something that is not a regular file (`/dev/stdout`, a named pipe:
/// directly, never replaced), or to stdout.
pub(crate) fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<()> {
    match path {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(bytes)?;
            stdout.flush()?;
        }
        Some(p) if std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir()) => {
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(p)
                .with_context(|| format!("{}: cannot open for writing", shown(p)))?;
            out.write_all(bytes).with_context(|| format!("{}: cannot write", shown(p)))?;
        }
        Some(p) => {
            p.file_name().with_context(|| format!("{}: not a file name", shown(p)))?;
            if let Err(e) = parallels::plumbing::write_atomic(p, bytes) {
                bail!("{}: cannot write: {e}", shown(p));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_the_message_holds_is_not_repeated() {
        let io = std::io::Error::other("No space left on device (os error 28)");
        let err = parallels::read::ReadError::Io { path: "x.txt".into(), source: io };
        let err = anyhow::Error::new(err).context("cannot write results");
        let text = message(&err);
        assert_eq!(text.matches("No space left").count(), 1, "{text}");
        assert!(text.starts_with("cannot write results: x.txt: cannot read it: No space left"), "{text}");
        let chained = anyhow::anyhow!("root cause").context("outer");
        assert_eq!(message(&chained), "outer: root cause");
    }
}
