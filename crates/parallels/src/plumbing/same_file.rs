//! Which paths name one file: every command's outputs are checked against
//! its inputs and against each other before anything is written.
//!
//! An output that is an input destroys it (`dedup in.jsonl -o out.jsonl
//! --removed in.jsonl` used to leave the input empty); two outputs that are
//! one file lose one of them (`-o x --removed x`). Paths are no guide: `x`,
//! `./x`, `a/../x`, a symbolic link to `x` and a hard link to `x` all name
//! the file `x`. So files are compared by what the system says they are:
//!
//! 1. A path that exists is its file's identity: (device, inode) on Unix
//!    (which sees through symbolic and hard links), the canonical path
//!    elsewhere (which sees through links but not hard links).
//! 2. A path that does not exist yet (an output about to be created) is its
//!    folder's canonical path and its file name: `x` and `./x` are one
//!    output before either exists. It cannot be an input (inputs exist).
//! 3. Only regular files (and paths that do not exist) take part. A device
//!    or a pipe (`/dev/null`, `/dev/stdout`, a FIFO) is written in place,
//!    never replaced, and two outputs may well both go to `/dev/null`.
//!
//! [`check_outputs`] first refuses an output that cannot be a file: an
//! existing folder (found only after the other outputs were written, it
//! used to leave them on disk beside an error), or a symbolic link to
//! nothing (whose error named the link as missing). It then compares the
//! outputs with each other, then, only if some output already exists,
//! with the input files; the inputs are an iterator so that a folder is
//! walked only when that can matter.

use std::fmt;
use std::path::{Path, PathBuf};

/// What a path names, for comparing (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileKey {
    /// An existing file: (device, inode) on Unix, its canonical path
    /// elsewhere.
    Existing(Identity),
    /// A path that does not exist yet: its folder's canonical path joined
    /// with its file name (or the absolute path, the folder missing too).
    New(PathBuf),
}

/// An existing file's identity.
#[cfg(unix)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    dev: u64,
    ino: u64,
}

/// An existing file's identity.
#[cfg(not(unix))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity(PathBuf);

/// The identity of an existing file (links followed), or `None` when it
/// does not exist or is not a regular file (see rule 3).
pub fn identity(path: &Path) -> Option<Identity> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(Identity { dev: meta.dev(), ino: meta.ino() })
    }
    #[cfg(not(unix))]
    {
        path.canonicalize().ok().map(Identity)
    }
}

/// What `path` names, or `None` for something that is neither a regular
/// file nor missing (a folder, a device, a pipe), which never clashes.
pub fn file_key(path: &Path) -> Option<FileKey> {
    match std::fs::metadata(path) {
        Ok(_) => identity(path).map(FileKey::Existing),
        Err(_) => {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            let key = match (absolute.parent(), absolute.file_name()) {
                (Some(dir), Some(name)) => dir.canonicalize().map_or(absolute.clone(), |dir| dir.join(name)),
                _ => absolute.clone(),
            };
            Some(FileKey::New(key))
        }
    }
}

/// A file a command is about to write, and what named it (a flag such as
/// `-o` or `--removed`, or a description such as `the Parquet output of
/// data/a.parquet`).
#[derive(Clone, Debug)]
pub struct OutputFile {
    /// The flag or description, for the message.
    pub role: String,
    /// The path.
    pub path: PathBuf,
    /// Whether the output is a folder (`scan -o`), which may exist.
    pub folder: bool,
}

impl OutputFile {
    /// `role` writes the file `path`.
    pub fn new(role: impl Into<String>, path: impl Into<PathBuf>) -> OutputFile {
        OutputFile { role: role.into(), path: path.into(), folder: false }
    }

    /// `role` writes into the folder `path` (which may exist, and must not
    /// be an input file).
    pub fn folder(role: impl Into<String>, path: impl Into<PathBuf>) -> OutputFile {
        OutputFile { role: role.into(), path: path.into(), folder: true }
    }
}

/// An output that would overwrite an input or another output.
#[derive(Debug)]
pub enum Clash {
    /// An output is one of the files read.
    Input {
        /// The output.
        output: OutputFile,
        /// The input file, as the command named it.
        input: PathBuf,
    },
    /// Two outputs are one file.
    Outputs {
        /// The first output.
        first: OutputFile,
        /// The second.
        second: OutputFile,
    },
    /// An output that is an existing folder.
    Folder {
        /// The output.
        output: OutputFile,
    },
    /// An output that is a symbolic link to nothing.
    DanglingLink {
        /// The output.
        output: OutputFile,
        /// Where the link points.
        target: PathBuf,
    },
}

impl fmt::Display for Clash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Clash::Input { output, input } => write!(
                f,
                "{} {}: the same file as the input {}; writing it would destroy the input. \
                 Nothing was written; give the output another path",
                output.role,
                super::shown::shown(&output.path),
                super::shown::shown(input)
            ),
            Clash::Outputs { first, second } => write!(
                f,
                "{} {} and {} {} are the same file; one output would overwrite the other. \
                 Nothing was written; give them different paths",
                first.role,
                super::shown::shown(&first.path),
                second.role,
                super::shown::shown(&second.path)
            ),
            Clash::Folder { output } => write!(
                f,
                "{} {}: is a folder, and this output is a file. Nothing was written; give a file name \
                 (inside the folder, say)",
                output.role,
                super::shown::shown(&output.path)
            ),
            Clash::DanglingLink { output, target } => write!(
                f,
                "{} {}: a symbolic link to {}, which does not exist. Nothing was written; give the path \
                 of a file to write (or of the link's target)",
                output.role,
                super::shown::shown(&output.path),
                super::shown::shown(target)
            ),
        }
    }
}

impl std::error::Error for Clash {}

/// Refuse outputs that are an input or another output (see the module
/// docs). `inputs` is consumed only if some output already exists.
pub fn check_outputs<I>(outputs: &[OutputFile], inputs: I) -> Result<(), Clash>
where
    I: IntoIterator,
    I::Item: AsRef<Path>,
{
    for output in outputs {
        let link = std::fs::symlink_metadata(&output.path).is_ok_and(|m| m.file_type().is_symlink());
        match std::fs::metadata(&output.path) {
            Ok(meta) if meta.is_dir() && !output.folder => return Err(Clash::Folder { output: output.clone() }),
            Err(_) if link => {
                let target = std::fs::read_link(&output.path).unwrap_or_default();
                return Err(Clash::DanglingLink { output: output.clone(), target });
            }
            _ => {}
        }
    }
    let keys: Vec<Option<FileKey>> = outputs.iter().map(|o| file_key(&o.path)).collect();
    for (i, a) in keys.iter().enumerate() {
        let Some(a) = a else { continue };
        if let Some(j) = keys[i + 1..].iter().position(|b| b.as_ref() == Some(a)) {
            return Err(Clash::Outputs { first: outputs[i].clone(), second: outputs[i + 1 + j].clone() });
        }
    }
    let existing: Vec<(usize, &Identity)> = keys
        .iter()
        .enumerate()
        .filter_map(|(k, key)| match key {
            Some(FileKey::Existing(id)) => Some((k, id)),
            _ => None,
        })
        .collect();
    if existing.is_empty() {
        return Ok(());
    }
    for input in inputs {
        let input = input.as_ref();
        let Some(id) = identity(input) else { continue };
        if let Some(&(k, _)) = existing.iter().find(|(_, out)| **out == id) {
            return Err(Clash::Input { output: outputs[k].clone(), input: input.to_path_buf() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(role: &str, path: &Path) -> OutputFile {
        OutputFile::new(role, path)
    }

    #[test]
    fn an_output_that_is_an_input_by_any_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.jsonl");
        std::fs::write(&input, "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let by_dots = dir.path().join("sub/../in.jsonl");
        let err = check_outputs(&[out("--removed", &by_dots)], [&input]).unwrap_err();
        assert!(matches!(err, Clash::Input { .. }), "{err}");
        #[cfg(unix)]
        {
            let link = dir.path().join("link.jsonl");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(check_outputs(&[out("-o", &link)], [&input]).is_err());
            let hard = dir.path().join("hard.jsonl");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(check_outputs(&[out("-o", &hard)], [&input]).is_err());
        }
        assert!(check_outputs(&[out("-o", &dir.path().join("new.jsonl"))], [&input]).is_ok());
    }

    #[test]
    fn two_outputs_that_are_one_file_are_refused_before_either_exists() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("x.jsonl");
        let b = dir.path().join(".").join("x.jsonl");
        let err = check_outputs(&[out("-o", &a), out("--removed", &b)], Vec::<PathBuf>::new()).unwrap_err();
        assert!(err.to_string().starts_with("-o "), "{err}");
        assert!(err.to_string().contains("--removed"), "{err}");
    }

    #[test]
    fn inputs_are_not_looked_at_while_no_output_exists() {
        let dir = tempfile::tempdir().unwrap();
        let mut looked = false;
        let inputs = std::iter::from_fn(|| {
            looked = true;
            None::<PathBuf>
        });
        check_outputs(&[out("-o", &dir.path().join("new"))], inputs).unwrap();
        assert!(!looked);
    }

    #[test]
    fn a_folder_or_a_link_to_nothing_is_no_output() {
        let dir = tempfile::tempdir().unwrap();
        let err = check_outputs(&[out("-o", &dir.path().join("new")), out("--removed", dir.path())], [dir.path()]);
        assert!(matches!(err, Err(Clash::Folder { ref output }) if output.role == "--removed"), "{err:?}");
        #[cfg(unix)]
        {
            let link = dir.path().join("link.json");
            std::os::unix::fs::symlink("gone/target.json", &link).unwrap();
            let err = check_outputs(&[out("-o", &link)], Vec::<PathBuf>::new()).unwrap_err().to_string();
            assert!(err.contains("a symbolic link to gone/target.json, which does not exist"), "{err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn devices_never_clash() {
        let null = Path::new("/dev/null");
        assert!(check_outputs(&[out("-o", null), out("--removed", null)], [null]).is_ok());
    }
}
