//! The scan tables as JSON Lines (the default `--format`): one row a
//! line, written as a set with `summary.json`.

use super::table_writer::TableWriter;
use super::{ScanResult, ScanSummary};
use crate::plumbing::{commit_all, AtomicFile};
use serde::Serialize;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// The tables as JSON Lines: the `jsonl` of [`TABLE_WRITERS`](super::TABLE_WRITERS).
pub(super) struct Jsonl;

impl TableWriter for Jsonl {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn extension(&self) -> &'static str {
        "jsonl"
    }

    fn write(&self, result: &ScanResult, dir: &Path) -> io::Result<()> {
        write_jsonl(result, dir)
    }
}

/// Write `documents.jsonl`, `passages.jsonl`, `clusters.jsonl` and
/// `summary.json` into `dir` as a set ([`commit_all`]): each under a
/// temporary name first, and none renamed into place unless all were
/// written. After an error the folder holds what it held before.
pub fn write_jsonl(result: &ScanResult, dir: &Path) -> io::Result<()> {
    fn lines<T: Serialize>(dir: &Path, name: &str, rows: &[T]) -> io::Result<AtomicFile> {
        let mut w = BufWriter::with_capacity(1 << 20, AtomicFile::create(&dir.join(name))?);
        for r in rows {
            serde_json::to_writer(&mut w, r)?;
            w.write_all(b"\n")?;
        }
        w.into_inner().map_err(|e| e.into_error())
    }
    std::fs::create_dir_all(dir)?;
    let summary = ScanSummary::of(result)?;
    let documents = lines(dir, "documents.jsonl", &result.documents)?;
    let mut w = BufWriter::with_capacity(1 << 20, AtomicFile::create(&dir.join("passages.jsonl"))?);
    result.passages.for_each(|p| {
        serde_json::to_writer(&mut w, &p)?;
        w.write_all(b"\n")
    })?;
    let passages = w.into_inner().map_err(|e| e.into_error())?;
    let clusters = lines(dir, "clusters.jsonl", &result.clusters)?;
    let summary = summary.write_uncommitted(&dir.join("summary.json"))?;
    commit_all(vec![documents, passages, clusters, summary])
}
