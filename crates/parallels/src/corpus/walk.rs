//! The walk of a folder of text files: entries sorted by name at every
//! level, hidden entries skipped, links to folders not followed; and how a
//! text file's path gives its id and group.

use std::collections::VecDeque;
use std::fs;
use std::path::{Component, Path, PathBuf};

use super::options::CorpusOptions;
use super::summary::Summary;
use crate::plumbing::problem::{Problem, ProblemKind};
use crate::read::{shown, Compression};

/// `path` relative to `root` (a leading `./` on either does not matter);
/// the file name if `path` is not under `root`.
pub(super) fn relative_to(path: &Path, root: &Path) -> PathBuf {
    let clean = |p: &Path| p.components().filter(|c| !matches!(c, Component::CurDir)).collect::<PathBuf>();
    match clean(path).strip_prefix(clean(root)) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
        _ => path.file_name().map(PathBuf::from).unwrap_or_else(|| path.to_path_buf()),
    }
}

/// `2021/06/a.txt` → `2021/06/a` (`2021/06/a.txt.gz` too).
pub(super) fn id_from_relative(relative: &Path) -> String {
    join_components(&Compression::strip(relative).with_extension(""))
}

/// `2021/06/a.txt` → `2021/06`; `a.txt` → `.`.
pub(super) fn folder_group(relative: &Path) -> String {
    let folder = join_components(relative.parent().unwrap_or(Path::new("")));
    if folder.is_empty() {
        ".".to_owned()
    } else {
        folder
    }
}

fn join_components(path: &Path) -> String {
    let mut out = String::new();
    for component in path.components() {
        if let Component::Normal(name) = component {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&shown(Path::new(name)).to_string());
        }
    }
    out
}

/// [`CorpusOptions::extensions`] as the walk compares them: lower case,
/// without dots.
pub(super) fn wanted_extensions(options: &CorpusOptions) -> Vec<String> {
    options.extensions.iter().map(|e| e.trim_start_matches('.').to_lowercase()).filter(|e| !e.is_empty()).collect()
}

/// A depth-first walk of a folder in sorted order (or a single file): the
/// one walk of the crate, used by the reader and by [`fingerprint`](super::fingerprint).
pub(super) struct Walk {
    /// Ids are relative to this folder.
    pub(super) root: PathBuf,
    /// The unvisited entries of each folder on the path to the current one.
    stack: Vec<std::vec::IntoIter<Entry>>,
}

struct Entry {
    path: PathBuf,
    is_dir: bool,
}

impl Walk {
    pub(super) fn dir(path: PathBuf, root: PathBuf) -> Self {
        let stack = vec![vec![Entry { path, is_dir: true }].into_iter()];
        Walk { root, stack }
    }

    pub(super) fn file(path: PathBuf, root: PathBuf) -> Self {
        Walk { root, stack: vec![vec![Entry { path, is_dir: false }].into_iter()] }
    }

    /// The next file to read; problems with single entries of a folder go
    /// to `pending`.
    pub(super) fn next(
        &mut self,
        extensions: &[String],
        summary: &mut Summary,
        pending: &mut VecDeque<Problem>,
    ) -> Option<Result<PathBuf, Problem>> {
        loop {
            let top = self.stack.last_mut()?;
            let Some(entry) = top.next() else {
                self.stack.pop();
                continue;
            };
            if !entry.is_dir {
                return Some(Ok(entry.path));
            }
            match list_folder(&entry.path, extensions, summary, pending) {
                Ok(entries) => self.stack.push(entries.into_iter()),
                Err(problem) => return Some(Err(problem)),
            }
        }
    }
}

/// The entries of a folder to visit, sorted by name.
fn list_folder(
    dir: &Path,
    extensions: &[String],
    summary: &mut Summary,
    pending: &mut VecDeque<Problem>,
) -> Result<Vec<Entry>, Problem> {
    let unreadable =
        |path: &Path, message: String| Problem::new(shown(path).to_string(), ProblemKind::Unreadable, message);
    let listing = fs::read_dir(dir).map_err(|e| unreadable(dir, format!("cannot list the folder: {e}")))?;
    let mut entries = Vec::new();
    for entry in listing {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                pending.push_back(unreadable(dir, format!("cannot list an entry of the folder: {e}")));
                continue;
            }
        };
        if entry.file_name().as_encoded_bytes().starts_with(b".") {
            summary.hidden += 1;
            continue;
        }
        let path = entry.path();
        let file_type = match entry.file_type() {
            Ok(file_type) => file_type,
            Err(e) => {
                pending.push_back(unreadable(&path, format!("cannot read its type: {e}")));
                continue;
            }
        };
        let (is_dir, is_file) = if file_type.is_symlink() {
            match fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => (false, false), // not followed
                Ok(meta) => (false, meta.is_file()),
                Err(e) => {
                    pending.push_back(unreadable(&path, format!("broken symbolic link: {e}")));
                    continue;
                }
            }
        } else {
            (file_type.is_dir(), file_type.is_file())
        };
        if is_dir {
            entries.push(Entry { path, is_dir: true });
        } else if !is_file {
            summary.not_regular += 1;
        } else if wanted_extension(&path, extensions) {
            entries.push(Entry { path, is_dir: false });
        } else {
            summary.other_extension += 1;
        }
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(entries)
}

/// `extensions` are lower case; empty takes every file. A compressed
/// file's extension is the one before `.gz` or `.zst` (`a.txt.gz`: `txt`).
fn wanted_extension(path: &Path, extensions: &[String]) -> bool {
    if extensions.is_empty() {
        return true;
    }
    match Compression::strip(path).extension() {
        Some(ext) => {
            let ext = ext.to_string_lossy().to_lowercase();
            extensions.contains(&ext)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_groups_from_relative_paths() {
        assert_eq!(id_from_relative(Path::new("2021/06/a.txt")), "2021/06/a");
        assert_eq!(id_from_relative(Path::new("a.b.md")), "a.b");
        assert_eq!(id_from_relative(Path::new("README")), "README");
        assert_eq!(folder_group(Path::new("2021/06/a.txt")), "2021/06");
        assert_eq!(folder_group(Path::new("a.txt")), ".");
    }

    #[test]
    fn relative_paths_ignore_a_leading_dot_folder() {
        assert_eq!(relative_to(Path::new("./corpus/x/a.txt"), Path::new("corpus")), Path::new("x/a.txt"));
        assert_eq!(relative_to(Path::new("corpus/a.txt"), Path::new("./corpus")), Path::new("a.txt"));
        assert_eq!(relative_to(Path::new("a.txt"), Path::new("")), Path::new("a.txt"));
        assert_eq!(relative_to(Path::new("elsewhere/a.txt"), Path::new("corpus")), Path::new("a.txt"));
    }

    #[test]
    fn extensions_compare_without_case() {
        let wanted = ["txt".to_owned(), "md".to_owned()];
        assert!(wanted_extension(Path::new("a/B.TXT"), &wanted));
        assert!(wanted_extension(Path::new("notes.md"), &wanted));
        assert!(!wanted_extension(Path::new("figure.png"), &wanted));
        assert!(!wanted_extension(Path::new("README"), &wanted));
        assert!(wanted_extension(Path::new("README"), &[]));
    }
}
