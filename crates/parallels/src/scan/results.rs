//! A scan's results read back: the reader of what [`super::write_jsonl`]
//! writes (`documents.jsonl`, `passages.jsonl`, `clusters.jsonl`,
//! `summary.json`), with the checks every reader of them needs: each
//! document's source is among the input files the summary records, and
//! the texts are read again only from those files, and only while they
//! hold the bytes the scan read ([`InputFile`]'s size and hash).
//!
//! `parallels report` reads its results through this; so can Python and
//! Spark, without restating the rules. The Parquet tables
//! ([`super::write_parquet`]) have no reader here yet: a folder of them is
//! told apart ([`ResultsError::Parquet`]).

use super::{InputFile, ScanCluster, ScanDocument, ScanPassage, ScanSummary};
use crate::corpus::{CorpusOptions, CorpusReader, Input, Position, Source};
use crate::read::shown;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::DeserializeOwned;
use std::io;
use std::path::{Path, PathBuf};

/// The tables and summary of a scan's results folder.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanTables {
    /// `documents.jsonl`, in order.
    pub documents: Vec<ScanDocument>,
    /// `passages.jsonl`, in order.
    pub passages: Vec<ScanPassage>,
    /// `clusters.jsonl`, by id.
    pub clusters: Vec<ScanCluster>,
    /// `summary.json`, its recorded inputs present.
    pub summary: ScanSummary,
}

/// Why a results folder cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResultsError {
    /// No `documents.jsonl` (nor `documents.parquet`).
    #[error("{}: not a `parallels scan` results folder (no documents.jsonl)", shown(dir))]
    NotResults {
        /// The folder.
        dir: PathBuf,
    },
    /// A folder of Parquet tables, which have no reader yet.
    #[error("{}: the results are Parquet tables, and only the JSON Lines tables are read back", shown(dir))]
    Parquet {
        /// The folder.
        dir: PathBuf,
    },
    /// A table or the summary cannot be read.
    #[error("{}: cannot read", shown(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// A line of a table is not one of its rows.
    #[error("{}:{line}: not a row of a `parallels scan` table", shown(path))]
    Row {
        /// The table.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The error.
        source: serde_json::Error,
    },
    /// `summary.json` is not a summary.
    #[error("{}: not the summary.json of a `parallels scan`", shown(path))]
    Summary {
        /// The file.
        path: PathBuf,
        /// The error.
        source: serde_json::Error,
    },
    /// The summary records no input files (an older version wrote it).
    #[error(
        "{}: written by a version of parallels that did not record the scan's input files, \
         and `report` reads back only recorded inputs; run `parallels scan` again",
        shown(path)
    )]
    NoInputs {
        /// The summary.
        path: PathBuf,
    },
    /// A document names a source that is not a recorded input.
    #[error(
        "{}: document {id:?} names the source {}, which is not among the input files the scan recorded in {}; \
         `report` reads only those (was the results folder edited?); nothing was written",
        shown(table),
        shown(file),
        shown(summary)
    )]
    Unrecorded {
        /// `documents.jsonl`.
        table: PathBuf,
        /// The document's id.
        id: String,
        /// Its source's file.
        file: PathBuf,
        /// `summary.json`.
        summary: PathBuf,
    },
}

/// The texts of some documents, read again from the scan's inputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceTexts {
    /// Each source asked for that was found, with its text, by file.
    pub texts: Vec<(Source, String)>,
    /// The files read (or tried), each once, in path order.
    pub files: Vec<PathBuf>,
    /// Files that are gone.
    pub missing: Vec<PathBuf>,
    /// Files that changed since the scan or cannot be read, each as a
    /// message: its path and why (shown as [`shown`] shows paths).
    pub changed: Vec<String>,
}

/// One JSON object per line; an error names the file and line.
fn read_lines<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, ResultsError> {
    let text = std::fs::read_to_string(path).map_err(|source| ResultsError::Read { path: path.into(), source })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| {
            serde_json::from_str(l).map_err(|source| ResultsError::Row { path: path.into(), line: k + 1, source })
        })
        .collect()
}

impl ScanTables {
    /// Read the results folder `dir`, and check that every document's
    /// source is one of the input files its summary records.
    pub fn read(dir: &Path) -> Result<ScanTables, ResultsError> {
        if !dir.join("documents.jsonl").exists() {
            if dir.join("documents.parquet").exists() {
                return Err(ResultsError::Parquet { dir: dir.into() });
            }
            return Err(ResultsError::NotResults { dir: dir.into() });
        }
        let documents: Vec<ScanDocument> = read_lines(&dir.join("documents.jsonl"))?;
        let passages: Vec<ScanPassage> = read_lines(&dir.join("passages.jsonl"))?;
        let clusters: Vec<ScanCluster> = read_lines(&dir.join("clusters.jsonl"))?;
        let path = dir.join("summary.json");
        let bytes = std::fs::read(&path).map_err(|source| ResultsError::Read { path: path.clone(), source })?;
        let summary: ScanSummary =
            serde_json::from_slice(&bytes).map_err(|source| ResultsError::Summary { path: path.clone(), source })?;
        // The files the scan read: the only ones read again, and every
        // document's source must be one of them.
        let Some(recorded) = &summary.inputs else { return Err(ResultsError::NoInputs { path }) };
        let inputs: FxHashSet<&Path> = recorded.iter().map(|f| f.path.as_path()).collect();
        if let Some(d) = documents.iter().find(|d| !inputs.contains(&*d.source.file)) {
            return Err(ResultsError::Unrecorded {
                table: dir.join("documents.jsonl"),
                id: d.id.clone(),
                file: d.source.file.to_path_buf(),
                summary: path,
            });
        }
        Ok(ScanTables { documents, passages, clusters, summary })
    }

    /// The texts of the sources `needed` (sources of this scan's
    /// documents), read again from the recorded input files: only a file
    /// the scan read, and only while it holds the bytes it held then
    /// (never a folder walked, never a pattern expanded). A file gone or
    /// changed is listed, not an error: its sources get no text.
    pub fn texts(&self, needed: &FxHashSet<&Source>) -> SourceTexts {
        let recorded: FxHashMap<&Path, &InputFile> =
            self.summary.inputs.iter().flatten().map(|f| (f.path.as_path(), f)).collect();
        let mut files: Vec<&Source> = needed.iter().copied().collect();
        files.sort_by(|x, y| x.file.cmp(&y.file));
        files.dedup_by(|x, y| x.file == y.file);
        let options = CorpusOptions {
            id_field: self.summary.fields.id.clone(),
            text_field: self.summary.fields.text.clone(),
            ..Default::default()
        };
        let mut out = SourceTexts { files: files.iter().map(|s| s.file.to_path_buf()).collect(), ..Default::default() };
        for source in &files {
            let file: &Path = &source.file;
            let Some(&recorded) = recorded.get(file) else {
                out.changed.push(format!("{} (not among the scan's recorded inputs)", shown(file)));
                continue;
            };
            let bytes = match std::fs::read(file) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    out.missing.push(file.to_owned());
                    continue;
                }
                Err(e) => {
                    out.changed.push(format!("{} ({e})", shown(file)));
                    continue;
                }
            };
            if InputFile::of_bytes(file, &bytes) != *recorded {
                out.changed.push(format!("{} (its size or contents differ from the scan's)", shown(file)));
                continue;
            }
            drop(bytes);
            let path = file.to_path_buf();
            let input = match source.position {
                Position::Whole => Input::Text { root: path.parent().map(Path::to_path_buf).unwrap_or_default(), path },
                Position::Line(_) => Input::Jsonl(path),
                Position::Row(_) => Input::Parquet(path),
            };
            let reader = match CorpusReader::new(vec![input], options.clone()) {
                Ok(reader) => reader,
                Err(e) => {
                    out.changed.push(format!("{} ({e})", shown(file)));
                    continue;
                }
            };
            for d in reader.flatten() {
                if needed.contains(&d.origin.source) {
                    out.texts.push((d.origin.source, d.text));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::{write_jsonl, Passages, ScanResult, ScanStats};
    use super::*;
    use crate::corpus::Summary;

    fn doc(id: &str, source: Source, chars: u64) -> ScanDocument {
        ScanDocument {
            id: id.into(),
            source,
            chars,
            encoding: "utf-8".into(),
            group: None,
            passages: 0,
            shared: 0.0,
            meta: Default::default(),
        }
    }

    /// What `write_jsonl` writes reads back as it was, and the texts come
    /// again from the recorded files only while they are unchanged.
    #[test]
    fn written_results_read_back_and_their_texts_only_from_unchanged_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        std::fs::write(&a, "天下大势，分久必合。").unwrap();
        std::fs::write(&b, "合久必分。").unwrap();
        let documents = vec![doc("a", Source::whole(&a), 10), doc("b", Source::whole(&b), 5)];
        let result = ScanResult {
            documents: documents.clone(),
            passages: Passages::Memory(Vec::new()),
            clusters: Vec::new(),
            stats: ScanStats { documents: 2, ..Default::default() },
            corpus: Summary::default(),
            resumed: Default::default(),
            fields: Default::default(),
            work: None,
        };
        let out = dir.path().join("results");
        write_jsonl(&result, &out).unwrap();
        let tables = ScanTables::read(&out).unwrap();
        assert_eq!(tables.documents, documents);
        assert!(tables.passages.is_empty() && tables.clusters.is_empty());
        assert_eq!(tables.summary.inputs.as_ref().map(Vec::len), Some(2));

        let needed: FxHashSet<&Source> = tables.documents.iter().map(|d| &d.source).collect();
        let got = tables.texts(&needed);
        assert_eq!(got.files, vec![a.clone(), b.clone()]);
        assert_eq!(got.texts.len(), 2);
        assert!(got.missing.is_empty() && got.changed.is_empty());

        // One file changed, the other gone: neither text is read.
        std::fs::write(&a, "天下大勢，分久必合。").unwrap();
        std::fs::remove_file(&b).unwrap();
        let got = tables.texts(&needed);
        assert!(got.texts.is_empty());
        assert_eq!(got.missing, vec![b]);
        assert_eq!(got.changed.len(), 1);
        assert!(got.changed[0].contains("differ from the scan's"), "{:?}", got.changed);
    }

    /// A document whose source the summary does not record is refused, and
    /// so is a folder that holds no results, each named.
    #[test]
    fn a_source_not_recorded_and_a_folder_without_results_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, "天下大势").unwrap();
        let result = ScanResult {
            documents: vec![doc("a", Source::whole(&a), 4)],
            passages: Passages::Memory(Vec::new()),
            clusters: Vec::new(),
            stats: ScanStats::default(),
            corpus: Summary::default(),
            resumed: Default::default(),
            fields: Default::default(),
            work: None,
        };
        let out = dir.path().join("results");
        write_jsonl(&result, &out).unwrap();
        let table = out.join("documents.jsonl");
        let edited = std::fs::read_to_string(&table).unwrap().replace("a.txt", "elsewhere.txt");
        std::fs::write(&table, edited).unwrap();
        match ScanTables::read(&out) {
            Err(ResultsError::Unrecorded { id, file, .. }) => {
                assert_eq!(id, "a");
                assert!(file.ends_with("elsewhere.txt"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(ScanTables::read(dir.path()), Err(ResultsError::NotResults { .. })));
        std::fs::write(out.join("passages.jsonl"), "{\"not\": \"a passage\"}\n").unwrap();
        std::fs::write(&table, std::fs::read_to_string(&table).unwrap().replace("elsewhere.txt", "a.txt")).unwrap();
        match ScanTables::read(&out) {
            Err(e @ ResultsError::Row { line: 1, .. }) => assert!(e.to_string().contains("passages.jsonl:1"), "{e}"),
            other => panic!("{other:?}"),
        }
    }
}
