//! The scan tables as Parquet (`--format parquet`).
//!
//! The same three tables as the JSON Lines output, one file each, with flat
//! columns; nested values (links, cluster members, metadata) are JSON text
//! in a string column:
//!
//! | file | columns |
//! | --- | --- |
//! | `documents.parquet` | `id`, `source`, `chars` u64, `encoding`, `group` (nullable), `passages` u64, `shared` f64, `meta` (JSON object) |
//! | `passages.parquet` | `a_doc`, `b_doc`, `cluster` u32, `kind`, `a_start`, `a_end`, `b_start`, `b_end` u32, `score` f64, `links` (JSON array of `{a, b, score}`) |
//! | `clusters.parquet` | `id` u32, `size` u32, `members` (JSON array of `{doc, span}`), `excerpt` |
//!
//! Files are written through [`AtomicFile`]s (temporary names, synced) and
//! renamed together by [`commit_all`] once all are written, with the
//! crate's Parquet settings (zstd).

use super::{ScanPassage, ScanResult};
use crate::align::PassageKind;
use crate::plumbing::parquet::writer_properties;
use crate::plumbing::{commit_all, AtomicFile};
use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use parquet::arrow::ArrowWriter;
use std::io;
use std::path::Path;
use std::sync::Arc;

/// Passages per record batch of `passages.parquet`.
const PASSAGE_BATCH: usize = 65_536;

/// One table, written under its temporary name (committed with the set).
fn write(dir: &Path, name: &str, columns: Vec<(&str, ArrayRef)>) -> io::Result<AtomicFile> {
    let batch = RecordBatch::try_from_iter(columns).map_err(io::Error::other)?;
    let mut out = AtomicFile::create(&dir.join(name))?;
    let mut w =
        ArrowWriter::try_new(out.file_mut(), batch.schema(), Some(writer_properties())).map_err(io::Error::other)?;
    w.write(&batch).map_err(io::Error::other)?;
    w.close().map_err(io::Error::other)?;
    Ok(out)
}

fn strings<'a>(it: impl Iterator<Item = &'a str>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(it))
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// One record batch of passages.
fn passage_batch(p: &[ScanPassage]) -> io::Result<RecordBatch> {
    let kind = |k: PassageKind| match k {
        PassageKind::Verbatim => "verbatim",
        PassageKind::Parallel => "parallel",
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("a_doc", strings(p.iter().map(|x| x.a_doc.as_str()))),
        ("b_doc", strings(p.iter().map(|x| x.b_doc.as_str()))),
        ("cluster", Arc::new(UInt32Array::from_iter_values(p.iter().map(|x| x.cluster)))),
        ("kind", strings(p.iter().map(|x| kind(x.passage.kind)))),
        ("a_start", Arc::new(UInt32Array::from_iter_values(p.iter().map(|x| x.passage.a[0])))),
        ("a_end", Arc::new(UInt32Array::from_iter_values(p.iter().map(|x| x.passage.a[1])))),
        ("b_start", Arc::new(UInt32Array::from_iter_values(p.iter().map(|x| x.passage.b[0])))),
        ("b_end", Arc::new(UInt32Array::from_iter_values(p.iter().map(|x| x.passage.b[1])))),
        ("score", Arc::new(Float64Array::from_iter_values(p.iter().map(|x| x.passage.score)))),
        ("significance", Arc::new(Float64Array::from_iter_values(p.iter().map(|x| x.significance)))),
        ("links", Arc::new(StringArray::from_iter_values(p.iter().map(|x| json(&x.passage.links))))),
    ];
    RecordBatch::try_from_iter(columns).map_err(io::Error::other)
}

/// Write `documents.parquet`, `passages.parquet`, `clusters.parquet` and
/// `summary.json` as a set, as [`super::write_jsonl`] does: none is renamed
/// into place unless all were written.
pub fn write_parquet(r: &ScanResult, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let summary = super::ScanSummary::of(r)?;
    let d = &r.documents;
    let documents = write(
        dir,
        "documents.parquet",
        vec![
            ("id", strings(d.iter().map(|x| x.id.as_str()))),
            ("source", Arc::new(StringArray::from_iter_values(d.iter().map(|x| x.source.to_string())))),
            ("chars", Arc::new(UInt64Array::from_iter_values(d.iter().map(|x| x.chars)))),
            ("encoding", strings(d.iter().map(|x| x.encoding.as_str()))),
            ("group", Arc::new(StringArray::from_iter(d.iter().map(|x| x.group.as_deref())))),
            ("passages", Arc::new(UInt64Array::from_iter_values(d.iter().map(|x| x.passages)))),
            ("shared", Arc::new(Float64Array::from_iter_values(d.iter().map(|x| x.shared)))),
            ("meta", Arc::new(StringArray::from_iter_values(d.iter().map(|x| json(&x.meta))))),
        ],
    )?;
    // Passages stream from the scan's chunk files, a batch at a time.
    let mut out = AtomicFile::create(&dir.join("passages.parquet"))?;
    let schema = passage_batch(&[])?.schema();
    let mut writer =
        ArrowWriter::try_new(out.file_mut(), schema, Some(writer_properties())).map_err(io::Error::other)?;
    let mut batch: Vec<ScanPassage> = Vec::with_capacity(PASSAGE_BATCH);
    r.passages.for_each(|p| {
        batch.push(p);
        if batch.len() == PASSAGE_BATCH {
            writer.write(&passage_batch(&batch)?).map_err(io::Error::other)?;
            batch.clear();
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        writer.write(&passage_batch(&batch)?).map_err(io::Error::other)?;
    }
    writer.close().map_err(io::Error::other)?;
    let passages = out;
    let c = &r.clusters;
    let clusters = write(
        dir,
        "clusters.parquet",
        vec![
            ("id", Arc::new(UInt32Array::from_iter_values(c.iter().map(|x| x.id)))),
            ("size", Arc::new(UInt32Array::from_iter_values(c.iter().map(|x| x.size)))),
            ("members", Arc::new(StringArray::from_iter_values(c.iter().map(|x| json(&x.members))))),
            ("excerpt", strings(c.iter().map(|x| x.excerpt.as_str()))),
        ],
    )?;
    let summary = summary.write_uncommitted(&dir.join("summary.json"))?;
    commit_all(vec![documents, passages, clusters, summary])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Link, Passage};
    use crate::scan::{ClusterMember, Passages, ScanCluster, ScanDocument, ScanPassage, ScanStats};
    use arrow_array::Array;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn read(path: &Path) -> RecordBatch {
        let file = std::fs::File::open(path).unwrap();
        let mut reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
        reader.next().unwrap().unwrap()
    }

    #[test]
    fn tables_round_trip() {
        // The sources exist: the summary records each with its hash.
        let texts = tempfile::tempdir().unwrap();
        for id in ["a", "b"] {
            std::fs::write(texts.path().join(format!("{id}.txt")), "魏斯明德之城").unwrap();
        }
        let doc = |id: &str, group: Option<&str>| ScanDocument {
            id: id.into(),
            source: crate::corpus::Source::whole(texts.path().join(format!("{id}.txt")).display().to_string()),
            chars: 10,
            encoding: "utf-8".into(),
            group: group.map(String::from),
            passages: 1,
            shared: 0.5,
            meta: serde_json::Map::new(),
        };
        let passage = Passage {
            kind: PassageKind::Verbatim,
            a: [0, 5],
            b: [2, 7],
            score: 1.0,
            links: vec![Link { a: [0, 5], b: [2, 7], score: 1.0, meaning: None }],
        };
        let r = ScanResult {
            documents: vec![doc("a", Some("p1")), doc("b", None)],
            passages: Passages::Memory(vec![ScanPassage {
                a_doc: "a".into(),
                b_doc: "b".into(),
                cluster: 0,
                significance: 12.5,
                passage,
            }]),
            clusters: vec![ScanCluster {
                id: 0,
                size: 2,
                members: vec![
                    ClusterMember { doc: "a".into(), span: [0, 5] },
                    ClusterMember { doc: "b".into(), span: [2, 7] },
                ],
                excerpt: "魏斯明德之".into(),
            }],
            stats: ScanStats::default(),
            corpus: Default::default(),
            resumed: Default::default(),
            fields: Default::default(),
            work: None,
        };
        let dir = tempfile::tempdir().unwrap();
        write_parquet(&r, dir.path()).unwrap();
        let docs = read(&dir.path().join("documents.parquet"));
        assert_eq!(docs.num_rows(), 2);
        let group = docs.column_by_name("group").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!((group.value(0), group.is_null(1)), ("p1", true));
        let ps = read(&dir.path().join("passages.parquet"));
        let b_start = ps.column_by_name("b_start").unwrap().as_any().downcast_ref::<UInt32Array>().unwrap();
        assert_eq!(b_start.value(0), 2);
        let links = ps.column_by_name("links").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(links.value(0), r#"[{"a":[0,5],"b":[2,7],"score":1.0}]"#);
        let cl = read(&dir.path().join("clusters.parquet"));
        let excerpt = cl.column_by_name("excerpt").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(excerpt.value(0), "魏斯明德之");
        assert!(!std::fs::read_dir(dir.path()).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with('.')));
    }
}
