//! The scan tables as Arrow record batches and Parquet (`--format parquet`).
//!
//! The same three tables as the JSON Lines output, one file each. Nested
//! values are native nested columns (lists of structs), so that Spark,
//! DuckDB or pyarrow query them without parsing; only the free-form
//! metadata stays JSON text:
//!
//! | file | columns |
//! | --- | --- |
//! | `documents.parquet` | `id`, `source`, `chars` u64, `encoding`, `language` (nullable), `group` (nullable), `passages` u64, `shared` f64, `meta` (JSON object as text) |
//! | `passages.parquet` | `a_doc`, `b_doc`, `cluster` u32, `kind`, `a_start`, `a_end`, `b_start`, `b_end` u32, `score` f64, `significance` f64, `links` (list of struct `a_start`, `a_end`, `b_start`, `b_end` u32, `score` f64, `meaning` f64 nullable) |
//! | `clusters.parquet` | `id` u32, `size` u32, `members` (list of struct `doc`, `start`, `end` u32), `excerpt` |
//!
//! Every file carries its table schema version in the Parquet key–value
//! metadata, key [`SCHEMA_KEY`], value [`PARQUET_SCHEMA`] (version 1, no
//! key, had the nested values as JSON text).
//!
//! The batch builders ([`documents_batch`], [`passages_batch`],
//! [`clusters_batch`]) are public: the Python package and its Spark driver
//! build their tables with them, so that all three agree column for column.
//!
//! Files are written through [`AtomicFile`]s (temporary names, synced) and
//! renamed together by [`commit_all`] once all are written, with the
//! crate's Parquet settings (zstd).

use super::table_writer::TableWriter;
use super::{ClusterMember, ScanCluster, ScanDocument, ScanPassage, ScanResult};
use crate::align::{Link, PassageKind};
use crate::plumbing::parquet::writer_properties;
use crate::plumbing::{commit_all, AtomicFile};
use arrow_array::{ArrayRef, Float64Array, ListArray, RecordBatch, StringArray, StructArray, UInt32Array, UInt64Array};
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

/// The Parquet key–value metadata key of the table schema version.
pub const SCHEMA_KEY: &str = "parallels.schema";
/// The version of the Parquet (and Arrow) scan tables: 2 since links and
/// cluster members are nested columns.
pub const PARQUET_SCHEMA: &str = "parallels.scan.parquet/2";

/// Passages per record batch of `passages.parquet`.
const PASSAGE_BATCH: usize = 65_536;

fn u32_field(name: &str) -> Field {
    Field::new(name, DataType::UInt32, false)
}

/// The fields of one link of `passages.links`.
fn link_fields() -> Fields {
    Fields::from(vec![
        u32_field("a_start"),
        u32_field("a_end"),
        u32_field("b_start"),
        u32_field("b_end"),
        Field::new("score", DataType::Float64, false),
        Field::new("meaning", DataType::Float64, true),
    ])
}

/// The fields of one member of `clusters.members`.
fn member_fields() -> Fields {
    Fields::from(vec![Field::new("doc", DataType::Utf8, false), u32_field("start"), u32_field("end")])
}

fn list_of(fields: Fields) -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Struct(fields), false)))
}

fn with_version(fields: Vec<Field>) -> SchemaRef {
    let meta = HashMap::from([(SCHEMA_KEY.to_string(), PARQUET_SCHEMA.to_string())]);
    Arc::new(Schema::new_with_metadata(fields, meta))
}

/// The schema of the documents table.
pub fn documents_schema() -> SchemaRef {
    with_version(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("source", DataType::Utf8, false),
        Field::new("chars", DataType::UInt64, false),
        Field::new("encoding", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, true),
        Field::new("group", DataType::Utf8, true),
        Field::new("passages", DataType::UInt64, false),
        Field::new("shared", DataType::Float64, false),
        Field::new("meta", DataType::Utf8, false),
    ])
}

/// The schema of the passages table.
pub fn passages_schema() -> SchemaRef {
    with_version(vec![
        Field::new("a_doc", DataType::Utf8, false),
        Field::new("b_doc", DataType::Utf8, false),
        u32_field("cluster"),
        Field::new("kind", DataType::Utf8, false),
        u32_field("a_start"),
        u32_field("a_end"),
        u32_field("b_start"),
        u32_field("b_end"),
        Field::new("score", DataType::Float64, false),
        Field::new("significance", DataType::Float64, false),
        Field::new("links", list_of(link_fields()), false),
    ])
}

/// The schema of the clusters table.
pub fn clusters_schema() -> SchemaRef {
    with_version(vec![
        u32_field("id"),
        u32_field("size"),
        Field::new("members", list_of(member_fields()), false),
        Field::new("excerpt", DataType::Utf8, false),
    ])
}

fn strings<'a>(it: impl Iterator<Item = &'a str>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(it))
}

fn u32s(it: impl Iterator<Item = u32>) -> ArrayRef {
    Arc::new(UInt32Array::from_iter_values(it))
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A list column of structs: `lens[i]` items of `children` for row `i`.
fn list_column(fields: Fields, children: Vec<ArrayRef>, lens: &[usize]) -> Result<ArrayRef, ArrowError> {
    let values = StructArray::try_new(fields.clone(), children, None)?;
    let offsets = arrow_buffer::OffsetBuffer::from_lengths(lens.iter().copied());
    let item = Arc::new(Field::new("item", DataType::Struct(fields), false));
    Ok(Arc::new(ListArray::try_new(item, offsets, Arc::new(values), None)?))
}

/// The passages as one record batch of the passages table.
pub fn passages_batch(p: &[ScanPassage]) -> Result<RecordBatch, ArrowError> {
    let kind = |k: PassageKind| match k {
        PassageKind::Verbatim => "verbatim",
        PassageKind::Parallel => "parallel",
    };
    let links: Vec<&Link> = p.iter().flat_map(|x| &x.passage.links).collect();
    let lens: Vec<usize> = p.iter().map(|x| x.passage.links.len()).collect();
    let link_children: Vec<ArrayRef> = vec![
        u32s(links.iter().map(|l| l.a[0])),
        u32s(links.iter().map(|l| l.a[1])),
        u32s(links.iter().map(|l| l.b[0])),
        u32s(links.iter().map(|l| l.b[1])),
        Arc::new(Float64Array::from_iter_values(links.iter().map(|l| l.score))),
        Arc::new(Float64Array::from_iter(links.iter().map(|l| l.meaning))),
    ];
    let columns: Vec<ArrayRef> = vec![
        strings(p.iter().map(|x| x.a_doc.as_str())),
        strings(p.iter().map(|x| x.b_doc.as_str())),
        u32s(p.iter().map(|x| x.cluster)),
        strings(p.iter().map(|x| kind(x.passage.kind))),
        u32s(p.iter().map(|x| x.passage.a[0])),
        u32s(p.iter().map(|x| x.passage.a[1])),
        u32s(p.iter().map(|x| x.passage.b[0])),
        u32s(p.iter().map(|x| x.passage.b[1])),
        Arc::new(Float64Array::from_iter_values(p.iter().map(|x| x.passage.score))),
        Arc::new(Float64Array::from_iter_values(p.iter().map(|x| x.significance))),
        list_column(link_fields(), link_children, &lens)?,
    ];
    RecordBatch::try_new(passages_schema(), columns)
}

/// The documents as one record batch of the documents table.
pub fn documents_batch(d: &[ScanDocument]) -> Result<RecordBatch, ArrowError> {
    let columns: Vec<ArrayRef> = vec![
        strings(d.iter().map(|x| x.id.as_str())),
        Arc::new(StringArray::from_iter_values(d.iter().map(|x| x.source.to_string()))),
        Arc::new(UInt64Array::from_iter_values(d.iter().map(|x| x.chars))),
        strings(d.iter().map(|x| x.encoding.as_str())),
        Arc::new(StringArray::from_iter(d.iter().map(|x| x.language.as_deref()))),
        Arc::new(StringArray::from_iter(d.iter().map(|x| x.group.as_deref()))),
        Arc::new(UInt64Array::from_iter_values(d.iter().map(|x| x.passages))),
        Arc::new(Float64Array::from_iter_values(d.iter().map(|x| x.shared))),
        Arc::new(StringArray::from_iter_values(d.iter().map(|x| json(&x.meta)))),
    ];
    RecordBatch::try_new(documents_schema(), columns)
}

/// The clusters as one record batch of the clusters table.
pub fn clusters_batch(c: &[ScanCluster]) -> Result<RecordBatch, ArrowError> {
    let members: Vec<&ClusterMember> = c.iter().flat_map(|x| &x.members).collect();
    let lens: Vec<usize> = c.iter().map(|x| x.members.len()).collect();
    let member_children: Vec<ArrayRef> = vec![
        strings(members.iter().map(|m| m.doc.as_str())),
        u32s(members.iter().map(|m| m.span[0])),
        u32s(members.iter().map(|m| m.span[1])),
    ];
    let columns: Vec<ArrayRef> = vec![
        u32s(c.iter().map(|x| x.id)),
        u32s(c.iter().map(|x| x.size)),
        list_column(member_fields(), member_children, &lens)?,
        strings(c.iter().map(|x| x.excerpt.as_str())),
    ];
    RecordBatch::try_new(clusters_schema(), columns)
}

/// The tables as Parquet: the `parquet` of
/// [`TABLE_WRITERS`](super::TABLE_WRITERS).
pub(super) struct Parquet;

impl TableWriter for Parquet {
    fn name(&self) -> &'static str {
        "parquet"
    }

    fn extension(&self) -> &'static str {
        "parquet"
    }

    fn write(&self, result: &ScanResult, dir: &Path) -> io::Result<()> {
        write_parquet(result, dir)
    }
}

/// One table, written under its temporary name (committed with the set).
fn write(dir: &Path, name: &str, batch: RecordBatch) -> io::Result<AtomicFile> {
    let mut out = AtomicFile::create(&dir.join(name))?;
    let mut w =
        ArrowWriter::try_new(out.file_mut(), batch.schema(), Some(writer_properties())).map_err(io::Error::other)?;
    w.write(&batch).map_err(io::Error::other)?;
    w.close().map_err(io::Error::other)?;
    Ok(out)
}

/// Write `documents.parquet`, `passages.parquet`, `clusters.parquet` and
/// `summary.json` as a set, as [`super::write_jsonl`] does: none is renamed
/// into place unless all were written.
pub fn write_parquet(r: &ScanResult, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let summary = super::ScanSummary::of(r)?;
    let documents = write(dir, "documents.parquet", documents_batch(&r.documents).map_err(io::Error::other)?)?;
    // Passages stream from the scan's chunk files, a batch at a time.
    let mut out = AtomicFile::create(&dir.join("passages.parquet"))?;
    let mut writer =
        ArrowWriter::try_new(out.file_mut(), passages_schema(), Some(writer_properties())).map_err(io::Error::other)?;
    let mut batch: Vec<ScanPassage> = Vec::with_capacity(PASSAGE_BATCH);
    r.passages.for_each(|p| {
        batch.push(p);
        if batch.len() == PASSAGE_BATCH {
            writer.write(&passages_batch(&batch).map_err(io::Error::other)?).map_err(io::Error::other)?;
            batch.clear();
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        writer.write(&passages_batch(&batch).map_err(io::Error::other)?).map_err(io::Error::other)?;
    }
    writer.close().map_err(io::Error::other)?;
    let passages = out;
    let clusters = write(dir, "clusters.parquet", clusters_batch(&r.clusters).map_err(io::Error::other)?)?;
    let summary = summary.write_uncommitted(&dir.join("summary.json"))?;
    commit_all(vec![documents, passages, clusters, summary])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Link, Passage};
    use crate::scan::{ClusterMember, Passages, ScanCluster, ScanDocument, ScanPassage, ScanStats};
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt32Type};
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
            language: None,
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
            unlinked: Vec::new(),
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
            normalize: Default::default(),
            work: None,
            tables: Vec::new(),
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
        // Links are a list of structs, read without any JSON.
        let links = ps.column_by_name("links").unwrap().as_list::<i32>();
        let link = links.value(0);
        let link = link.as_struct();
        let field = |name: &str| link.column_by_name(name).unwrap().as_primitive::<UInt32Type>().values().to_vec();
        assert_eq!(
            (field("a_start"), field("a_end"), field("b_start"), field("b_end")),
            (vec![0], vec![5], vec![2], vec![7])
        );
        assert_eq!(link.column_by_name("score").unwrap().as_primitive::<Float64Type>().value(0), 1.0);
        assert!(link.column_by_name("meaning").unwrap().is_null(0));
        let cl = read(&dir.path().join("clusters.parquet"));
        let excerpt = cl.column_by_name("excerpt").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(excerpt.value(0), "魏斯明德之");
        let members = cl.column_by_name("members").unwrap().as_list::<i32>().value(0);
        let members = members.as_struct();
        let doc = members.column_by_name("doc").unwrap().as_string::<i32>();
        let start = members.column_by_name("start").unwrap().as_primitive::<UInt32Type>();
        let end = members.column_by_name("end").unwrap().as_primitive::<UInt32Type>();
        let got: Vec<(&str, u32, u32)> = (0..2).map(|i| (doc.value(i), start.value(i), end.value(i))).collect();
        assert_eq!(got, vec![("a", 0, 5), ("b", 2, 7)]);
        // Every file says which version of the tables it holds.
        for name in ["documents.parquet", "passages.parquet", "clusters.parquet"] {
            let file = std::fs::File::open(dir.path().join(name)).unwrap();
            let meta = ParquetRecordBatchReaderBuilder::try_new(file).unwrap().schema().metadata().clone();
            assert_eq!(meta.get(SCHEMA_KEY).map(String::as_str), Some(PARQUET_SCHEMA), "{name}");
        }
        assert!(!std::fs::read_dir(dir.path()).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with('.')));
    }
}
