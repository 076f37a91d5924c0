//! A scan's results read back: the reader of what [`super::write_jsonl`]
//! writes (`documents.jsonl`, `passages.jsonl`, `clusters.jsonl`,
//! `summary.json`) and of what [`super::write_parquet`] writes (the same
//! tables as `documents.parquet`, `passages.parquet`, `clusters.parquet`,
//! read back into the same rows), with the checks every reader of them
//! needs: each document's source is among the input files the summary
//! records, and the texts are read again only from those files, and only
//! while they hold the bytes the scan read ([`InputFile`]'s size and hash).
//!
//! `parallels report` reads its results through this; so can Python and
//! Spark, without restating the rules. A folder holding both forms is read
//! as JSON Lines. The Parquet `source` column is the [`Source`]'s written
//! form ([`Source::parse`] reads it back): a path that is not UTF-8 or
//! holds control characters is written escaped there, so its documents
//! fail the recorded-input check (the JSON Lines tables keep such paths).

use super::parquet_out::{PARQUET_SCHEMA, SCHEMA_KEY};
use super::{ClusterMember, InputFile, ScanCluster, ScanDocument, ScanPassage, ScanSummary};
use crate::align::{Link, Passage, PassageKind};
use crate::corpus::{CorpusOptions, CorpusReader, Input, Source};
use crate::read::shown;
use arrow_array::{
    Array, ArrayRef, Float64Array, ListArray, RecordBatch, StringArray, StructArray, UInt32Array, UInt64Array,
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The tables as JSON Lines, in the order [`ScanTables::files`] gives them.
const JSONL_TABLES: [&str; 3] = ["documents.jsonl", "passages.jsonl", "clusters.jsonl"];
/// The tables as Parquet (`scan --format parquet`).
const PARQUET_TABLES: [&str; 3] = ["documents.parquet", "passages.parquet", "clusters.parquet"];

/// The tables and summary of a scan's results folder.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanTables {
    /// `documents.jsonl` (or `.parquet`), in order.
    pub documents: Vec<ScanDocument>,
    /// `passages.jsonl` (or `.parquet`), in order.
    pub passages: Vec<ScanPassage>,
    /// `clusters.jsonl` (or `.parquet`), by id.
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
    /// A Parquet table that is not one `scan --format parquet` writes (not
    /// Parquet, another version, a column missing or of another type, a
    /// value out of its range).
    #[error("{}: not a `parallels scan` Parquet table: {what}", shown(path))]
    Table {
        /// The table.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
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
        /// `documents.jsonl` (or `.parquet`).
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

/// Whether `dir` holds the Parquet tables (and not the JSON Lines ones).
fn is_parquet(dir: &Path) -> bool {
    !dir.join(JSONL_TABLES[0]).exists() && dir.join(PARQUET_TABLES[0]).exists()
}

/// The rows of a Parquet table, a record batch at a time, checked to be
/// the version [`write_parquet`](super::write_parquet) writes.
fn parquet_batches(path: &Path) -> Result<Vec<RecordBatch>, ResultsError> {
    let file = File::open(path).map_err(|source| ResultsError::Read { path: path.into(), source })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| table_error(path, e.to_string()))?;
    let version = builder.schema().metadata().get(SCHEMA_KEY).cloned();
    if version.as_deref() != Some(PARQUET_SCHEMA) {
        let written = version.unwrap_or_else(|| "no version, or version 1".into());
        return Err(table_error(path, format!("its schema is {written}, and this version reads {PARQUET_SCHEMA}")));
    }
    let reader = builder.build().map_err(|e| table_error(path, e.to_string()))?;
    reader.map(|b| b.map_err(|e| table_error(path, e.to_string()))).collect()
}

fn table_error(path: &Path, what: String) -> ResultsError {
    ResultsError::Table { path: path.into(), what }
}

/// Column `name` of a batch (or of a list's structs) as an array of type `T`.
fn typed<'a, T: 'static>(column: Option<&'a ArrayRef>, name: &str, path: &Path) -> Result<&'a T, ResultsError> {
    column
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| table_error(path, format!("no column {name:?} of the type the scan writes")))
}

/// The items of row `i` of a list column of structs: their range in the
/// list's struct array.
fn items(list: &ListArray, i: usize) -> std::ops::Range<usize> {
    let offsets = list.value_offsets();
    offsets[i] as usize..offsets[i + 1] as usize
}

fn list_structs<'a>(list: &'a ListArray, name: &str, path: &Path) -> Result<&'a StructArray, ResultsError> {
    list.values()
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| table_error(path, format!("column {name:?} is not a list of structs")))
}

/// `documents.parquet`, as [`documents_batch`](super::parquet_out::documents_batch) writes it.
fn parquet_documents(path: &Path) -> Result<Vec<ScanDocument>, ResultsError> {
    let mut out = Vec::new();
    for b in parquet_batches(path)? {
        let col = |name| b.column_by_name(name);
        let id: &StringArray = typed(col("id"), "id", path)?;
        let source: &StringArray = typed(col("source"), "source", path)?;
        let chars: &UInt64Array = typed(col("chars"), "chars", path)?;
        let encoding: &StringArray = typed(col("encoding"), "encoding", path)?;
        let group: &StringArray = typed(col("group"), "group", path)?;
        // Tables written before documents had a language have no column.
        let language: Option<&StringArray> = col("language").map(|c| typed(Some(c), "language", path)).transpose()?;
        let passages: &UInt64Array = typed(col("passages"), "passages", path)?;
        let shared: &Float64Array = typed(col("shared"), "shared", path)?;
        let meta: &StringArray = typed(col("meta"), "meta", path)?;
        for i in 0..b.num_rows() {
            let row = out.len();
            let meta = serde_json::from_str(meta.value(i))
                .map_err(|e| table_error(path, format!("row {row}: meta is not a JSON object ({e})")))?;
            out.push(ScanDocument {
                id: id.value(i).into(),
                source: Source::parse(source.value(i)),
                chars: chars.value(i),
                encoding: encoding.value(i).into(),
                language: language.filter(|l| l.is_valid(i)).map(|l| l.value(i).into()),
                group: group.is_valid(i).then(|| group.value(i).into()),
                passages: passages.value(i),
                shared: shared.value(i),
                meta,
            });
        }
    }
    Ok(out)
}

/// `passages.parquet`, as [`passages_batch`](super::parquet_out::passages_batch) writes it.
fn parquet_passages(path: &Path) -> Result<Vec<ScanPassage>, ResultsError> {
    let mut out = Vec::new();
    for b in parquet_batches(path)? {
        let col = |name| b.column_by_name(name);
        let a_doc: &StringArray = typed(col("a_doc"), "a_doc", path)?;
        let b_doc: &StringArray = typed(col("b_doc"), "b_doc", path)?;
        let cluster: &UInt32Array = typed(col("cluster"), "cluster", path)?;
        let kind: &StringArray = typed(col("kind"), "kind", path)?;
        let [a_start, a_end, b_start, b_end]: [&UInt32Array; 4] = [
            typed(col("a_start"), "a_start", path)?,
            typed(col("a_end"), "a_end", path)?,
            typed(col("b_start"), "b_start", path)?,
            typed(col("b_end"), "b_end", path)?,
        ];
        let score: &Float64Array = typed(col("score"), "score", path)?;
        let significance: &Float64Array = typed(col("significance"), "significance", path)?;
        let links: &ListArray = typed(col("links"), "links", path)?;
        let link = list_structs(links, "links", path)?;
        let field = |name| link.column_by_name(name);
        let [la_start, la_end, lb_start, lb_end]: [&UInt32Array; 4] = [
            typed(field("a_start"), "links.a_start", path)?,
            typed(field("a_end"), "links.a_end", path)?,
            typed(field("b_start"), "links.b_start", path)?,
            typed(field("b_end"), "links.b_end", path)?,
        ];
        let l_score: &Float64Array = typed(field("score"), "links.score", path)?;
        let l_meaning: &Float64Array = typed(field("meaning"), "links.meaning", path)?;
        for i in 0..b.num_rows() {
            let kind = match kind.value(i) {
                "verbatim" => PassageKind::Verbatim,
                "parallel" => PassageKind::Parallel,
                other => {
                    let row = out.len();
                    return Err(table_error(path, format!("row {row}: {other:?} is not a kind of passage")));
                }
            };
            let links = items(links, i)
                .map(|k| Link {
                    a: [la_start.value(k), la_end.value(k)],
                    b: [lb_start.value(k), lb_end.value(k)],
                    score: l_score.value(k),
                    meaning: l_meaning.is_valid(k).then(|| l_meaning.value(k)),
                })
                .collect();
            out.push(ScanPassage {
                a_doc: a_doc.value(i).into(),
                b_doc: b_doc.value(i).into(),
                cluster: cluster.value(i),
                significance: significance.value(i),
                passage: Passage {
                    kind,
                    a: [a_start.value(i), a_end.value(i)],
                    b: [b_start.value(i), b_end.value(i)],
                    score: score.value(i),
                    links,
                    unlinked: Vec::new(),
                },
            });
        }
    }
    Ok(out)
}

/// `clusters.parquet`, as [`clusters_batch`](super::parquet_out::clusters_batch) writes it.
fn parquet_clusters(path: &Path) -> Result<Vec<ScanCluster>, ResultsError> {
    let mut out = Vec::new();
    for b in parquet_batches(path)? {
        let col = |name| b.column_by_name(name);
        let id: &UInt32Array = typed(col("id"), "id", path)?;
        let size: &UInt32Array = typed(col("size"), "size", path)?;
        let members: &ListArray = typed(col("members"), "members", path)?;
        let excerpt: &StringArray = typed(col("excerpt"), "excerpt", path)?;
        let member = list_structs(members, "members", path)?;
        let field = |name| member.column_by_name(name);
        let doc: &StringArray = typed(field("doc"), "members.doc", path)?;
        let start: &UInt32Array = typed(field("start"), "members.start", path)?;
        let end: &UInt32Array = typed(field("end"), "members.end", path)?;
        for i in 0..b.num_rows() {
            out.push(ScanCluster {
                id: id.value(i),
                size: size.value(i),
                members: items(members, i)
                    .map(|k| ClusterMember { doc: doc.value(k).into(), span: [start.value(k), end.value(k)] })
                    .collect(),
                excerpt: excerpt.value(i).into(),
            });
        }
    }
    Ok(out)
}

impl ScanTables {
    /// The files [`ScanTables::read`] reads in `dir`: the documents,
    /// passages and clusters tables (as JSON Lines, or as Parquet when the
    /// folder holds `documents.parquet` and no `documents.jsonl`), then
    /// `summary.json`.
    pub fn files(dir: &Path) -> [PathBuf; 4] {
        let tables = if is_parquet(dir) { PARQUET_TABLES } else { JSONL_TABLES };
        [dir.join(tables[0]), dir.join(tables[1]), dir.join(tables[2]), dir.join("summary.json")]
    }

    /// Read the results folder `dir` (JSON Lines or Parquet tables), and
    /// check that every document's source is one of the input files its
    /// summary records.
    pub fn read(dir: &Path) -> Result<ScanTables, ResultsError> {
        let parquet = is_parquet(dir);
        let [documents_path, passages_path, clusters_path, path] = ScanTables::files(dir);
        if !parquet && !documents_path.exists() {
            return Err(ResultsError::NotResults { dir: dir.into() });
        }
        let (documents, passages, clusters) = if parquet {
            (parquet_documents(&documents_path)?, parquet_passages(&passages_path)?, parquet_clusters(&clusters_path)?)
        } else {
            (read_lines(&documents_path)?, read_lines(&passages_path)?, read_lines(&clusters_path)?)
        };
        let bytes = std::fs::read(&path).map_err(|source| ResultsError::Read { path: path.clone(), source })?;
        let summary: ScanSummary =
            serde_json::from_slice(&bytes).map_err(|source| ResultsError::Summary { path: path.clone(), source })?;
        // The files the scan read: the only ones read again, and every
        // document's source must be one of them.
        let Some(recorded) = &summary.inputs else { return Err(ResultsError::NoInputs { path }) };
        let inputs: FxHashSet<&Path> = recorded.iter().map(|f| f.path.as_path()).collect();
        if let Some(d) = documents.iter().find(|d| !inputs.contains(&*d.source.file)) {
            return Err(ResultsError::Unrecorded {
                table: documents_path,
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
            let input = match Input::of_source(source) {
                Ok(input) => input,
                Err(e) => {
                    out.changed.push(format!("{} ({e})", shown(file)));
                    continue;
                }
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
    use super::super::{
        scan, write_jsonl, write_parquet, InputKey, Passages, ScanOptions, ScanResult, ScanStats, Work,
    };
    use super::*;
    use crate::corpus::Position;
    use crate::corpus::{resolve, Summary};
    use crate::plumbing::Quiet;

    fn doc(id: &str, source: Source, chars: u64) -> ScanDocument {
        ScanDocument {
            id: id.into(),
            source,
            chars,
            encoding: "utf-8".into(),
            language: None,
            group: None,
            passages: 0,
            shared: 0.0,
            meta: Default::default(),
        }
    }

    /// Results of the documents given and nothing shared.
    fn results_of(documents: Vec<ScanDocument>) -> ScanResult {
        let count = documents.len() as u64;
        ScanResult {
            documents,
            passages: Passages::Memory(Vec::new()),
            clusters: Vec::new(),
            stats: ScanStats { documents: count, ..Default::default() },
            corpus: Summary::default(),
            resumed: Default::default(),
            fields: Default::default(),
            normalize: Default::default(),
            work: None,
            tables: Vec::new(),
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
        let result = results_of(documents.clone());
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
        let result = results_of(vec![doc("a", Source::whole(&a), 4)]);
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

    /// One scan of a JSON Lines corpus (a group on one record, another
    /// field kept as metadata) written both ways reads back as the same
    /// tables: documents with their sources, groups and metadata, passages
    /// with their links, clusters with their members.
    #[test]
    fn the_parquet_tables_read_back_as_the_json_lines_tables() {
        let dir = tempfile::tempdir().unwrap();
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let corpus = dir.path().join("corpus.jsonl");
        let mut lines = String::new();
        for (k, name) in ["v1.txt", "v2.txt", "v3.txt"].iter().enumerate() {
            let text = std::fs::read_to_string(examples.join(name)).unwrap();
            let mut record = serde_json::json!({"id": name, "text": text, "title": format!("第{k}卷")});
            if k == 0 {
                record["group"] = "甲".into();
            }
            lines.push_str(&format!("{record}\n"));
        }
        std::fs::write(&corpus, lines).unwrap();
        let inputs = resolve(&[corpus.to_str().unwrap().to_owned()]).unwrap();
        let options = CorpusOptions { group_field: Some("group".into()), ..Default::default() };
        let work = Work { dir: dir.path().join("work"), key: InputKey::new(&inputs, &options), resume: false };
        let mut reader = CorpusReader::new(inputs, options).unwrap();
        let result = scan(&mut reader, &ScanOptions::default(), &work, &Quiet).unwrap();
        write_jsonl(&result, &dir.path().join("jsonl")).unwrap();
        write_parquet(&result, &dir.path().join("parquet")).unwrap();
        let jsonl = ScanTables::read(&dir.path().join("jsonl")).unwrap();
        let parquet = ScanTables::read(&dir.path().join("parquet")).unwrap();
        assert_eq!(jsonl.documents.len(), 3);
        assert!(jsonl.documents.iter().all(|d| d.meta.contains_key("title") && d.source.position != Position::Whole));
        assert_eq!(jsonl.documents.iter().filter(|d| d.group.is_some()).count(), 1);
        assert!(jsonl.passages.iter().any(|p| !p.passage.links.is_empty()), "{:?}", jsonl.passages);
        assert!(!jsonl.clusters.is_empty());
        assert_eq!(parquet, jsonl);
        assert_eq!(ScanTables::files(&dir.path().join("parquet"))[0], dir.path().join("parquet/documents.parquet"));
        assert_eq!(ScanTables::files(&dir.path().join("jsonl"))[0], dir.path().join("jsonl/documents.jsonl"));
    }

    /// The Parquet tables pass the same recorded-input check, and a table
    /// that is not Parquet is named.
    #[test]
    fn parquet_results_with_a_source_not_recorded_or_a_broken_table_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, "天下大势").unwrap();
        let result = results_of(vec![doc("a", Source::whole(&a), 4)]);
        let out = dir.path().join("results");
        write_parquet(&result, &out).unwrap();
        assert_eq!(ScanTables::read(&out).unwrap().documents, result.documents);
        // The summary records another file than the document's.
        let summary = out.join("summary.json");
        let edited = std::fs::read_to_string(&summary).unwrap().replace("a.txt", "elsewhere.txt");
        std::fs::write(&summary, edited).unwrap();
        match ScanTables::read(&out) {
            Err(ResultsError::Unrecorded { id, file, table, .. }) => {
                assert_eq!(id, "a");
                assert_eq!(file, a);
                assert_eq!(table, out.join("documents.parquet"));
            }
            other => panic!("{other:?}"),
        }
        std::fs::write(out.join("passages.parquet"), "not parquet").unwrap();
        match ScanTables::read(&out) {
            Err(e @ ResultsError::Table { .. }) => assert!(e.to_string().contains("passages.parquet"), "{e}"),
            other => panic!("{other:?}"),
        }
    }
}
