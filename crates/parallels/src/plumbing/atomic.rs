//! Files written whole or not at all.
//!
//! An [`AtomicFile`] is a temporary file in the folder of its destination
//! (named by `tempfile`: `.NAME.PID.XXXXXX.tmp`, with the permissions a new
//! file gets); [`AtomicFile::commit`] flushes it to disk (`fsync`) and
//! renames it over the destination. Until then the destination holds what it
//! held before (an earlier output, or nothing); a writer that fails or is
//! dropped removes the temporary file. A killed process can leave a
//! temporary file behind, never a truncated destination.
//!
//! What a process leaves when it is stopped:
//!
//! * on SIGINT or SIGTERM, the binary's handler calls
//!   [`remove_temporaries`], which removes every temporary file and spill
//!   folder this process has open (each registers itself while it lives);
//! * on a kill it cannot catch (SIGKILL, a power cut), they stay, and
//!   [`remove_stale`] removes them at the next run that writes into the
//!   same folder: names of our making (`.NAME.PID.XXXXXX.tmp`,
//!   `.NAME.PID.old`, the sorter's `.parallels-NAME-PID-XXXXXX`) whose
//!   process is gone. Whether a process is gone is known on Linux
//!   (`/proc/PID`); elsewhere nothing is removed.
//!
//! Outputs that belong together (`scan`'s tables, `report`'s pages) are
//! written as a set with [`commit_all`]: every file of the set is written
//! under its temporary name and synced first, and only then are they
//! renamed, one after the other, in the order given. A write that fails
//! (a full disk) renames none of them: the folder keeps its earlier set.
//! The renames themselves need no space; only a kill between two of them
//! (microseconds) can leave some new files beside older ones.
//!
//! Every stage that writes a result or a checkpoint goes through here, so
//! all of them name temporary files alike and all of them sync before the
//! rename: a checkpoint that `scan --resume` trusts must be on disk before
//! its name says it is complete, and an output replaced after a power cut is
//! the old one or the new one, not an empty file.
//!
//! On Linux, a file written through [`AtomicFile`]'s `Write` asks the
//! kernel to start writing each [`WRITEBACK_STEP`] to disk as soon as it is
//! written (`sync_file_range`, which does not wait), so that the `fsync`
//! of the commit waits for the last few megabytes only: it was half of
//! `dedup`'s writing time on a 36 MB output (19 ms of 40, BENCHMARKS.md).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files and folders of this process that are alive.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Output folders this process created and has not yet filled.
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary path in [`LIVE`] while this lives.
#[derive(Debug)]
pub(crate) struct Registered(PathBuf);

impl Registered {
    /// Register `path` until the result is dropped.
    pub(crate) fn new(path: &Path) -> Registered {
        if let Ok(mut live) = LIVE.lock() {
            live.push(path.to_path_buf());
        }
        Registered(path.to_path_buf())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut live) = LIVE.lock() {
            if let Some(k) = live.iter().rposition(|p| *p == self.0) {
                live.swap_remove(k);
            }
        }
    }
}

/// Remove every temporary file and spill folder of this process (see the
/// module docs): what a signal handler calls before the process exits.
/// Outputs already renamed into place are not touched; output folders this
/// process created ([`CreatedDir`]) are removed if they are empty then.
pub fn remove_temporaries() {
    let live = match LIVE.lock() {
        Ok(live) => live.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    for path in live {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(&path);
        } else {
            let _ = std::fs::remove_file(&path);
        }
    }
    let created = match CREATED.lock() {
        Ok(created) => created.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    // The innermost (latest) first; `remove_dir` leaves a folder that
    // holds anything.
    for path in created.iter().rev() {
        let _ = std::fs::remove_dir(path);
    }
}

/// An output folder, created if missing. When this process created it and
/// it is still empty when this is dropped (the command failed before
/// writing into it) or when the process is interrupted
/// ([`remove_temporaries`]), it is removed again; [`CreatedDir::keep`]
/// keeps it, empty or not.
#[derive(Debug)]
pub struct CreatedDir {
    /// The folders this created, the outermost first (`a/b/c` made where
    /// only `a` existed: `a/b`, `a/b/c`).
    created: Vec<PathBuf>,
}

impl CreatedDir {
    /// Create `path` (and its parents) if missing.
    pub fn create(path: &Path) -> io::Result<CreatedDir> {
        let mut created: Vec<PathBuf> =
            path.ancestors().take_while(|p| !p.as_os_str().is_empty() && !p.exists()).map(Path::to_path_buf).collect();
        created.reverse();
        std::fs::create_dir_all(path)?;
        if let Ok(mut list) = CREATED.lock() {
            list.extend(created.iter().cloned());
        }
        Ok(CreatedDir { created })
    }

    /// The command succeeded: the folder stays, even if empty.
    pub fn keep(mut self) {
        for p in std::mem::take(&mut self.created) {
            unlist(&p);
        }
    }
}

/// Take `path` off [`CREATED`].
fn unlist(path: &Path) {
    if let Ok(mut list) = CREATED.lock() {
        if let Some(k) = list.iter().rposition(|q| q == path) {
            list.remove(k);
        }
    }
}

impl Drop for CreatedDir {
    fn drop(&mut self) {
        for path in std::mem::take(&mut self.created).iter().rev() {
            unlist(path);
            // `remove_dir` removes only an empty folder.
            let _ = std::fs::remove_dir(path);
        }
    }
}

/// Remove the temporary files and spill folders that processes now gone
/// left in `dir` (see the module docs); returns how many. Errors are
/// ignored: this is tidying, not a condition for the run.
pub fn remove_stale(dir: &Path) -> usize {
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(stale_pid) else { continue };
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        let path = entry.path();
        let gone = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        removed += usize::from(gone.is_ok());
    }
    removed
}

/// The process id in a temporary name of our making, if it is one:
/// `.NAME.PID.XXXXXX.tmp`, `.NAME.PID.old` or `.parallels-NAME-PID-XXXXXX`.
fn stale_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let random = |s: &str| s.len() == 6 && s.bytes().all(|b| b.is_ascii_alphanumeric());
    let pid = |s: &str| (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten();
    if let Some(spill) = rest.strip_prefix("parallels-") {
        let parts: Vec<&str> = spill.rsplitn(3, '-').collect();
        return match parts[..] {
            [r, p, _] if random(r) => pid(p),
            _ => None,
        };
    }
    let parts: Vec<&str> = rest.rsplitn(4, '.').collect();
    match parts[..] {
        ["tmp", r, p, _] if random(r) => pid(p),
        ["old", p, ..] => pid(p),
        _ => None,
    }
}

/// Whether a process `pid` runs (Linux: `/proc/PID`); elsewhere, always
/// yes, so that nothing of a live process is removed.
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// Bytes written through [`AtomicFile`]'s `Write` after which the kernel
/// is asked to start writing them to disk (see the module docs).
pub const WRITEBACK_STEP: u64 = 8 << 20;

/// A file being written under a temporary name beside its destination.
#[derive(Debug)]
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    _live: Registered,
    /// Bytes written through `Write`, and how many of them the kernel was
    /// asked to start writing to disk.
    written: u64,
    kicked: u64,
}

impl AtomicFile {
    /// Start writing `path`: a new temporary file in `path`'s folder (which
    /// must exist). A symbolic link is followed to the file it names,
    /// which is the one replaced: the link stays a link (renaming over it
    /// would replace the link itself, and `-o /dev/stdout`, a link to the
    /// shell's output, would replace a link in `/dev`).
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let resolved;
        let path = if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            resolved = std::fs::canonicalize(path)?;
            resolved.as_path()
        } else {
            path
        };
        AtomicFile::create_unfollowed(path)
    }

    /// Start writing `path` without following a symbolic link there: the
    /// commit replaces the link itself, and what it pointed to stays as it
    /// was. For files a command names itself in a folder it was given
    /// (`man --dir`), where a link is not the user's choice of a file but
    /// may have been placed there by someone else.
    pub fn create_unfollowed(path: &Path) -> io::Result<AtomicFile> {
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
        let prefix = format!(".{}.{}.", name.to_string_lossy(), std::process::id());
        let tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .rand_bytes(6)
            .make_in(dir, |p| std::fs::OpenOptions::new().write(true).create_new(true).open(p))?;
        let live = Registered::new(tmp.path());
        Ok(AtomicFile { tmp, path: path.to_path_buf(), _live: live, written: 0, kicked: 0 })
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

impl AtomicFile {
    /// Count `n` more bytes written; past each [`WRITEBACK_STEP`], ask the
    /// kernel to start writing the ones not yet asked for. Only a hint: an
    /// error is the commit's `fsync` to report.
    fn wrote(&mut self, n: usize) {
        self.written += n as u64;
        if self.written - self.kicked >= WRITEBACK_STEP {
            start_writeback(self.tmp.as_file(), self.kicked, self.written - self.kicked);
            self.kicked = self.written;
        }
    }
}

/// Ask the kernel to start writing `len` bytes of `file` from `offset` to
/// disk, without waiting for them (Linux; elsewhere nothing).
#[cfg(target_os = "linux")]
fn start_writeback(file: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: the descriptor is open for as long as `file` is borrowed;
    // the call reads no memory of ours.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File, _offset: u64, _len: u64) {}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.tmp.write(buf)?;
        self.wrote(n);
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.tmp.write_all(buf)?;
        self.wrote(buf.len());
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tmp.flush()
    }
}

/// Commit several files as a set (see the module docs): flush every one
/// to disk, then rename each to its destination, in order. Nothing is
/// renamed unless every file was flushed; the files not yet renamed when
/// an error stops it are removed (dropped).
pub fn commit_all(files: Vec<AtomicFile>) -> io::Result<()> {
    for f in &files {
        f.tmp.as_file().sync_all()?;
    }
    for f in files {
        f.tmp.persist(&f.path).map_err(|e| e.error)?;
    }
    Ok(())
}

/// Write `bytes` to `path` through an [`AtomicFile`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

/// Write `bytes` to `path` through an [`AtomicFile`] that replaces a
/// symbolic link at `path` rather than follow it
/// ([`AtomicFile::create_unfollowed`]).
pub fn write_atomic_unfollowed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create_unfollowed(path)?;
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
        assert!(tmp.starts_with(&format!(".out.json.{}.", std::process::id())) && tmp.ends_with(".tmp"), "{tmp}");
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(dir.path()), ["out.json"]);
    }

    /// A file written past several writeback steps, in writes of every
    /// size (one straddling a step, one larger than a step), holds every
    /// byte in order once committed.
    #[test]
    fn a_file_larger_than_the_writeback_step_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        let step = WRITEBACK_STEP as usize;
        let bytes: Vec<u8> = (0..2 * step + step / 2 + 7).map(|i| (i % 251) as u8).collect();
        let mut f = AtomicFile::create(&path).unwrap();
        let (a, rest) = bytes.split_at(step - 3);
        let (b, c) = rest.split_at(step + 10);
        f.write_all(a).unwrap();
        let mut b = b;
        while !b.is_empty() {
            let n = f.write(&b[..b.len().min(1 << 20)]).unwrap();
            b = &b[n..];
        }
        f.write_all(c).unwrap();
        assert_eq!(f.written, bytes.len() as u64);
        assert!(f.kicked >= 2 * WRITEBACK_STEP, "asked for {} bytes", f.kicked);
        f.commit().unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let (real, link) = (dir.path().join("real.json"), dir.path().join("link.json"));
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(names(dir.path()), ["link.json", "real.json"]);
        // A link to nothing is refused (there is no file it names).
        std::fs::remove_file(&real).unwrap();
        assert!(write_atomic(&link, b"newer").is_err(), "a link to nothing is refused");
    }

    #[cfg(unix)]
    #[test]
    fn an_unfollowed_link_is_replaced_and_its_target_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (real, link) = (dir.path().join("real"), dir.path().join("page.1"));
        std::fs::write(&real, "precious").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic_unfollowed(&link, b"page").unwrap();
        assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "page");
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "precious");
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
    fn stale_temporaries_of_gone_processes_are_removed() {
        // (`remove_temporaries` removes those of every test running in
        // this process: the binary's interruption test checks it.)
        let dir = tempfile::tempdir().unwrap();
        // Left by processes that are gone (no pid is above 2^22 on Linux),
        // and by this one, and names that are not ours.
        let gone = 4_194_304 + 17;
        let mine = std::process::id();
        for name in [
            format!(".out.json.{gone}.a1B2c3.tmp"),
            format!(".out.json.{gone}.old"),
            format!(".parallels-bands-{gone}-x9Y8z7"),
            format!(".out.json.{mine}.a1B2c3.tmp"),
            ".out.json.12.tmp".to_owned(),
            "out.json".to_owned(),
            ".hidden".to_owned(),
        ] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let removed = remove_stale(dir.path());
        if cfg!(target_os = "linux") {
            assert_eq!(removed, 3);
            let mut left = vec![format!(".out.json.{mine}.a1B2c3.tmp"), ".hidden".into(), ".out.json.12.tmp".into()];
            left.push("out.json".into());
            left.sort();
            assert_eq!(names(dir.path()), left);
        }
    }

    #[test]
    fn a_set_is_renamed_only_once_every_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        std::fs::write(&a, "old a").unwrap();
        std::fs::write(&b, "old b").unwrap();
        // The second file fails (its folder is gone): the first, written,
        // is not renamed either.
        let mut fa = AtomicFile::create(&a).unwrap();
        fa.write_all(b"new a").unwrap();
        let failed = AtomicFile::create(&dir.path().join("missing/b.jsonl"));
        assert!(failed.is_err());
        drop(fa);
        assert_eq!(names(dir.path()), ["a.jsonl", "b.jsonl"]);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "old a");
        // Both written: both renamed.
        let mut set = Vec::new();
        for (path, text) in [(&a, "new a"), (&b, "new b")] {
            let mut f = AtomicFile::create(path).unwrap();
            f.write_all(text.as_bytes()).unwrap();
            set.push(f);
        }
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "old b");
        commit_all(set).unwrap();
        assert_eq!(names(dir.path()), ["a.jsonl", "b.jsonl"]);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "new b");
    }

    #[test]
    fn a_created_folder_goes_again_while_empty_and_stays_once_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new/report");
        drop(CreatedDir::create(&out).unwrap());
        assert!(names(dir.path()).is_empty(), "both folders this made are gone");
        let made = CreatedDir::create(&out).unwrap();
        std::fs::write(out.join("index.html"), "x").unwrap();
        drop(made);
        assert!(out.join("index.html").exists(), "a folder with a file stays");
        std::fs::remove_file(out.join("index.html")).unwrap();
        // An existing folder is never removed; a kept one stays empty.
        drop(CreatedDir::create(&out).unwrap());
        assert!(out.exists());
        std::fs::remove_dir_all(dir.path().join("new")).unwrap();
        CreatedDir::create(&out).unwrap().keep();
        assert!(out.exists());
    }

    #[test]
    fn a_path_without_a_file_name_is_an_error() {
        assert!(AtomicFile::create(Path::new("")).is_err());
    }
}
