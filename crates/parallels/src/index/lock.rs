//! The one writer of an index folder.

use super::error::{io_at, IndexError};
use super::manifest::LOCK;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The writer's lock on an index folder: an OS lock (`flock`,
/// `LockFileEx`) on the file `lock`, held for the writer's life, released
/// by the kernel when the process dies. It guards the folder only while
/// the path `lock` names the locked file, so that is checked when it is
/// taken (a writer that opened a file another one then removed would hold
/// a lock nobody else sees) and again before the commit. The file holds
/// the writer's process id, and is removed when the writer ends.
pub(super) struct WriteLock {
    file: File,
    path: PathBuf,
    dir: PathBuf,
}

/// Whether `path` names the open `file`.
fn names_file(path: &Path, file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::symlink_metadata(path), file.metadata()) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        // Elsewhere an open file cannot be removed or replaced.
        let _ = file;
        path.exists()
    }
}

impl WriteLock {
    pub(super) fn take(dir: &Path) -> Result<WriteLock, IndexError> {
        let path = dir.join(LOCK);
        for _ in 0..8 {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .open(&path)
                .map_err(io_at(&path))?;
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => {}
                Err(fs4::TryLockError::WouldBlock) => {
                    let mut pid = String::new();
                    let _ = io::Read::read_to_string(&mut file, &mut pid);
                    let pid = pid.trim();
                    let who = if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) {
                        format!(" (process {pid})")
                    } else {
                        String::new()
                    };
                    return Err(IndexError::Locked(dir.to_path_buf(), who));
                }
                Err(fs4::TryLockError::Error(e)) => return Err(io_at(&path)(e)),
            }
            if names_file(&path, &file) {
                file.set_len(0).map_err(io_at(&path))?;
                io::Write::write_all(&mut file, format!("{}\n", std::process::id()).as_bytes())
                    .map_err(io_at(&path))?;
                return Ok(WriteLock { file, path, dir: dir.to_path_buf() });
            }
            // Removed or replaced between the open and the lock: again.
        }
        Err(IndexError::Locked(dir.to_path_buf(), String::new()))
    }

    /// Whether the lock still guards the folder.
    pub(super) fn check(&self) -> Result<(), IndexError> {
        if names_file(&self.path, &self.file) {
            Ok(())
        } else {
            Err(IndexError::LockLost(self.dir.clone()))
        }
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        // Removed while still held, so that no one locks it in between.
        if names_file(&self.path, &self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
