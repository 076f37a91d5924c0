//! Files written whole or not at all.
//!
//! An [`AtomicFile`] is a temporary file in the folder of its destination
//! (named by `tempfile`: `.NAME.XXXXXX.tmp`, with the permissions a new file
//! gets); [`AtomicFile::commit`] flushes it to disk (`fsync`) and renames it
//! over the destination. Until then the destination holds what it held before (an
//! earlier output, or nothing); a writer that fails or is dropped removes the
//! temporary file. A killed process can leave a temporary file behind,
//! never a truncated destination.
//!
//! Every stage that writes a result or a checkpoint goes through here, so
//! all of them name temporary files alike and all of them sync before the
//! rename: a checkpoint that `scan --resume` trusts must be on disk before
//! its name says it is complete, and an output replaced after a power cut is
//! the old one or the new one, not an empty file.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file being written under a temporary name beside its destination.
#[derive(Debug)]
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
}

impl AtomicFile {
    /// Start writing `path`: a new temporary file in `path`'s folder (which
    /// must exist).
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("{}: not a file name", path.display()))
        })?;
        // Opened as `File::create` opens (so with its permissions, not the
        // owner-only mode of temporary files: the file stays), and with
        // the system's own error, which names no temporary path.
        let prefix = format!(".{}.", name.to_string_lossy());
        let tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .make_in(dir, |p| std::fs::OpenOptions::new().write(true).create_new(true).open(p))?;
        Ok(AtomicFile { tmp, path: path.to_path_buf() })
    }

    /// The temporary file, for writers that want a `File`.
    pub fn file_mut(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush the file to disk and rename it to its destination.
    pub fn commit(self) -> io::Result<()> {
        self.tmp.as_file().sync_all()?;
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tmp.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.tmp.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tmp.flush()
    }
}

/// Write `bytes` to `path` through an [`AtomicFile`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn the_destination_changes_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, "old").unwrap();
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let tmp = names(dir.path()).into_iter().find(|n| n != "out.json").unwrap();
        assert!(tmp.starts_with(".out.json.") && tmp.ends_with(".tmp"), "{tmp}");
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(dir.path()), ["out.json"]);
    }

    #[test]
    fn a_writer_dropped_before_commit_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"half").unwrap();
        drop(f);
        assert!(names(dir.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_committed_file_has_the_permissions_of_a_new_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        write_atomic(&dir.path().join("a"), b"x").unwrap();
        std::fs::write(dir.path().join("b"), b"x").unwrap();
        let mode = |n: &str| std::fs::metadata(dir.path().join(n)).unwrap().permissions().mode();
        assert_eq!(mode("a"), mode("b"));
    }

    #[test]
    fn an_error_does_not_name_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = AtomicFile::create(&dir.path().join("missing/out.json")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(!err.to_string().contains(".tmp"), "{err}");
    }

    #[test]
    fn a_path_without_a_file_name_is_an_error() {
        assert!(AtomicFile::create(Path::new("")).is_err());
    }
}
