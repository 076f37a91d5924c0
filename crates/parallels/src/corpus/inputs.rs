//! Command-line arguments to inputs: paths by kind, glob patterns expanded
//! and sorted; and what identifies the inputs' contents for a resumed scan.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::read::{shown, Compression};

use serde::{Deserialize, Serialize};

use std::collections::VecDeque;

use super::doc::{Format, Position, Source};
use super::error::CorpusError;
use super::options::CorpusOptions;
use super::summary::Summary;
use super::table::Table;
use super::walk::{wanted_extensions, Walk};

/// One input, resolved from a command-line argument by [`resolve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A folder of text files, walked recursively; ids are paths relative
    /// to `root` (the folder itself, or its parent when several folders are
    /// given).
    Dir {
        /// The folder.
        path: PathBuf,
        /// What ids are relative to.
        root: PathBuf,
    },
    /// One text file; its id is its path relative to `root`, without
    /// extension.
    Text {
        /// The file.
        path: PathBuf,
        /// What its id is relative to.
        root: PathBuf,
    },
    /// A file of records, read in its format (by its name: [`resolve`];
    /// by its documents' sources: [`Input::of_source`]).
    Records {
        /// The file.
        path: PathBuf,
        /// Its format.
        format: Format,
    },
    /// A table in memory, read as a Parquet file is.
    Table(Table),
}

impl Input {
    /// The path of the folder or file.
    pub fn path(&self) -> &Path {
        match self {
            Input::Dir { path, .. } | Input::Records { path, .. } | Input::Text { path, .. } => path,
            Input::Table(table) => table.name(),
        }
    }

    /// The format of a file of records (`None` for a folder or a text
    /// file; a table in memory is read as Parquet rows).
    pub fn format(&self) -> Option<Format> {
        match self {
            Input::Records { format, .. } => Some(*format),
            Input::Table(_) => Some(Format::PARQUET),
            Input::Dir { .. } | Input::Text { .. } => None,
        }
    }

    /// The input a document is read back from by its recorded `source`
    /// (`report`, `export`): a whole file is a text file; the file of a
    /// record is read in the format recorded with the source, the one the
    /// scan read it in.
    pub fn of_source(source: &Source) -> Result<Input, CorpusError> {
        let path = source.file.to_path_buf();
        match (source.position, source.format) {
            (Position::Whole, _) => {
                Ok(Input::Text { root: path.parent().map(Path::to_path_buf).unwrap_or_default(), path })
            }
            (_, Some(format)) => Ok(Input::Records { path, format }),
            (_, None) => Err(CorpusError::Unsupported {
                path,
                reason: "its records were read from a file of another name; give the scan's inputs back their \
                         names (or scan again)"
                    .to_owned(),
            }),
        }
    }
}

/// One file under the inputs, as [`fingerprint`] sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    /// The path, as [`read::shown`](crate::read::shown) shows it.
    pub path: String,
    /// Size in bytes.
    pub len: u64,
    /// Modification time, in nanoseconds since the Unix epoch.
    pub modified: u64,
}

/// What identifies the inputs' contents, cheaply: every file a
/// [`CorpusReader`](super::CorpusReader) with these options reads (folders
/// walked by the reader's own walk) with its size and modification
/// time. A scan resumes only while this stays the same. A file that cannot
/// be looked at, or a folder that cannot be listed, has size and time 0.
pub fn fingerprint(inputs: &[Input], options: &CorpusOptions) -> Vec<FileStamp> {
    fn stamp(path: &Path) -> FileStamp {
        let (len, modified) = match fs::metadata(path) {
            Ok(m) => {
                let t = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
                (m.len(), t.map_or(0, |t| t.as_nanos() as u64))
            }
            Err(_) => (0, 0),
        };
        FileStamp { path: shown(path).to_string(), len, modified }
    }
    let extensions = wanted_extensions(options);
    // What the walk counts and the problems it meets are the reader's to
    // report.
    let (mut summary, mut pending) = (Summary::default(), VecDeque::new());
    let mut out = Vec::new();
    for input in inputs {
        if let Input::Table(table) = input {
            // (Not a file: its rows stand for its size.)
            out.push(FileStamp { path: shown(table.name()).to_string(), len: table.rows(), modified: 0 });
            continue;
        }
        let Input::Dir { path, root } = input else {
            out.push(stamp(input.path()));
            continue;
        };
        let mut walk = Walk::dir(path.clone(), root.clone());
        while let Some(file) = walk.next(&extensions, &mut summary, &mut pending) {
            out.push(match file {
                Ok(file) => stamp(&file),
                Err(problem) => FileStamp { path: problem.source, len: 0, modified: 0 },
            });
        }
    }
    out
}

/// Every file a [`CorpusReader`](super::CorpusReader) with these options
/// reads, in its order: each file given, and each folder's files as the
/// reader's own walk finds them (entries the walk cannot read are left out:
/// the reader reports them). Lazy: a folder is walked as the iterator is
/// consumed. What the commands check their outputs against
/// ([`check_outputs`](crate::plumbing::check_outputs)).
pub fn input_files<'a>(inputs: &'a [Input], options: &CorpusOptions) -> impl Iterator<Item = PathBuf> + 'a {
    let extensions = wanted_extensions(options);
    inputs.iter().flat_map(move |input| {
        let mut walk = match input {
            Input::Dir { path, root } => Some(Walk::dir(path.clone(), root.clone())),
            Input::Table(_) => None,
            _ => Some(Walk::file(input.path().to_path_buf(), PathBuf::new())),
        };
        let extensions = extensions.clone();
        let (mut summary, mut pending) = (Summary::default(), VecDeque::new());
        std::iter::from_fn(move || loop {
            if let Ok(file) = walk.as_mut()?.next(&extensions, &mut summary, &mut pending)? {
                return Some(file);
            }
        })
    })
}

/// Turn command-line arguments into inputs (see the module docs): existing
/// paths by kind, glob patterns expanded and sorted. Arguments are paths,
/// not necessarily UTF-8 (a pattern must be).
pub fn resolve<A: AsRef<Path>>(args: &[A]) -> Result<Vec<Input>, CorpusError> {
    if args.is_empty() {
        return Err(CorpusError::NoInput);
    }
    let mut inputs = Vec::new();
    for arg in args {
        let path = arg.as_ref();
        let pattern = path.to_str().filter(|arg| is_pattern(arg));
        match fs::metadata(path) {
            Ok(meta) => {
                if let Some(kind) = crate::read::stream_kind(&meta) {
                    return Err(not_a_stream(path, kind));
                }
                let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
                inputs.push(classify(path.to_path_buf(), meta.is_dir(), root)?);
            }
            Err(e) if e.kind() == ErrorKind::NotFound && pattern.is_some() => {
                inputs.extend(expand(pattern.unwrap_or_default())?)
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(CorpusError::NotFound { path: path.to_path_buf() })
            }
            Err(source) => return Err(CorpusError::Io { path: path.to_path_buf(), source }),
        }
    }
    // With several folders, `a/x.txt` and `b/x.txt` must not both be `x`:
    // ids then start with the folder's name.
    if inputs.iter().filter(|i| matches!(i, Input::Dir { .. })).count() > 1 {
        for input in &mut inputs {
            if let Input::Dir { path, root } = input {
                *root = path.parent().map(Path::to_path_buf).unwrap_or_default();
            }
        }
    }
    Ok(inputs)
}

fn is_pattern(arg: &str) -> bool {
    arg.contains(['*', '?', '['])
}

fn expand(pattern: &str) -> Result<Vec<Input>, CorpusError> {
    let options =
        glob::MatchOptions { case_sensitive: true, require_literal_separator: true, require_literal_leading_dot: true };
    let paths = glob::glob_with(pattern, options)
        .map_err(|e| CorpusError::Pattern { pattern: pattern.to_owned(), message: e.to_string() })?;
    let mut found = Vec::new();
    for entry in paths {
        found.push(entry.map_err(|e| {
            let path = e.path().to_path_buf();
            CorpusError::Io { path, source: e.into() }
        })?);
    }
    if found.is_empty() {
        return Err(CorpusError::NoMatch { pattern: pattern.to_owned() });
    }
    found.sort();
    let root = glob_root(pattern);
    found
        .into_iter()
        .map(|path| {
            let meta = fs::metadata(&path).ok();
            if let Some(kind) = meta.as_ref().and_then(crate::read::stream_kind) {
                return Err(not_a_stream(&path, kind));
            }
            classify(path, meta.is_some_and(|m| m.is_dir()), root.clone())
        })
        .collect()
}

/// A stream given as an input (`/dev/stdin`, `<(…)`, a named pipe, a
/// device): refused before it is opened. A corpus is read by path more
/// than once (`scan` reads its inputs again to record what it read, for
/// `report` and `--resume`; `dedup` copies its kept records out of them in
/// a second pass), and a stream gives its bytes only once: the second
/// reading would find nothing, or wait for ever on a pipe nobody writes.
fn not_a_stream(path: &Path, kind: &str) -> CorpusError {
    CorpusError::Unsupported {
        path: path.to_path_buf(),
        reason: format!(
            "is {kind}, which can be read only once, and a corpus is read by path more than once; \
             save it to a file first (e.g. `cat > docs.jsonl`) and give that file"
        ),
    }
}

/// The folder a pattern's matches are relative to: its components before
/// the first one with a wildcard.
fn glob_root(pattern: &str) -> PathBuf {
    let mut root = PathBuf::new();
    for component in Path::new(pattern).components() {
        if is_pattern(&component.as_os_str().to_string_lossy()) {
            break;
        }
        root.push(component);
    }
    root
}

/// What a file given as input is read as, by its extension (compared
/// without case; for a `.gz` or `.zst` file, by the extension before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FileKind {
    /// A file of records in a registered format.
    Records(Format),
    /// Not read, for this reason: a compressed file of a format that
    /// refuses compression, another compression or an archive.
    Refused(&'static str),
    Text,
}

impl FileKind {
    pub(super) fn of(path: &Path) -> FileKind {
        let compressed = Compression::of(path).is_some();
        let inner = Compression::strip(path);
        let extension = inner.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        let Some(extension) = extension else { return FileKind::Text };
        if let Some(format) = Format::of_extension(&extension) {
            return match format.reader().refuses_compressed() {
                Some(reason) if compressed => FileKind::Refused(reason),
                _ => FileKind::Records(format),
            };
        }
        match extension.as_str() {
            "gz" | "tgz" | "bz2" | "xz" | "zst" | "zstd" | "lz4" | "zip" | "7z" | "tar" | "br" | "lzma" => {
                FileKind::Refused(
                    "archives and compression other than gzip (.gz) and Zstandard (.zst) are not read; \
                     decompress or unpack it first (e.g. `xz -dk`, `tar -xf`), or recompress it with gzip or zstd",
                )
            }
            _ => FileKind::Text,
        }
    }
}

fn classify(path: PathBuf, is_dir: bool, root: PathBuf) -> Result<Input, CorpusError> {
    if is_dir {
        return Ok(Input::Dir { root: path.clone(), path });
    }
    Ok(match FileKind::of(&path) {
        FileKind::Records(format) => Input::Records { path, format },
        FileKind::Refused(reason) => return Err(CorpusError::Unsupported { path, reason: reason.to_owned() }),
        FileKind::Text => Input::Text { path, root },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded source is read back in the format recorded with it (from
    /// a written source, the one its file's name gives, as the scan read
    /// it); a whole file is text, whatever its name.
    #[test]
    fn a_source_is_read_back_in_the_format_of_its_name() {
        let at = |written: &str| Input::of_source(&Source::parse(written));
        assert_eq!(
            at("a/x.jsonl.gz:3").unwrap(),
            Input::Records { path: "a/x.jsonl.gz".into(), format: Format::JSONL }
        );
        assert_eq!(at("x.parquet#0").unwrap(), Input::Records { path: "x.parquet".into(), format: Format::PARQUET });
        assert!(matches!(at("a/x.jsonl").unwrap(), Input::Text { root, .. } if root == Path::new("a")));
        // A record whose format is not known (a source made by hand).
        let unknown = Source { file: Path::new("x.txt").into(), position: Position::Row(2), format: None };
        assert!(Input::of_source(&unknown).is_err());
    }

    #[test]
    fn glob_root_is_the_literal_prefix() {
        assert_eq!(glob_root("corpus/**/*.txt"), Path::new("corpus"));
        assert_eq!(glob_root("data/2021/part-*.parquet"), Path::new("data/2021"));
        assert_eq!(glob_root("*.jsonl"), Path::new(""));
        assert_eq!(glob_root("/data/[ab]/x.txt"), Path::new("/data"));
    }
}
