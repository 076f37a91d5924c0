//! The interface of a format of the scan tables (a leaf: each writer
//! implements it, `mod.rs` lists them in [`TABLE_WRITERS`](super::TABLE_WRITERS)).
//!
//! A format writes a [`ScanResult`] into a folder: `documents.EXT`,
//! `passages.EXT` and `clusters.EXT`, and `summary.json`, as a set (none
//! renamed into place unless all were written). The CLI's `--format` of
//! `scan` and Python's `format=` take their values from the list, and
//! check the files a format writes against the inputs before it writes.
//!
//! Adding a format: a file in `scan/` with a type implementing
//! [`TableWriter`], its `mod` line and its entry in `TABLE_WRITERS`.
//! ([`ScanTables::read`](super::ScanTables::read), the reader `report`
//! and `export` use, reads JSON Lines and Parquet.)

use std::io;
use std::path::{Path, PathBuf};

use super::schema::ScanResult;

/// The tables every format writes, one file each, in the order they are
/// listed.
pub const TABLES: [&str; 3] = ["documents", "passages", "clusters"];

/// A format of the scan tables; see the module docs.
pub trait TableWriter: Sync {
    /// Its name: the value of the CLI's `--format` and Python's `format=`.
    fn name(&self) -> &'static str;
    /// The extension of its table files (`documents.jsonl`).
    fn extension(&self) -> &'static str;
    /// Write the tables and `summary.json` into `dir` (created if need
    /// be) as a set: after an error the folder holds what it held before.
    fn write(&self, result: &ScanResult, dir: &Path) -> io::Result<()>;
    /// The files it writes into `dir`: the tables, then `summary.json`.
    fn files(&self, dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> =
            TABLES.iter().map(|table| dir.join(format!("{table}.{}", self.extension()))).collect();
        files.push(dir.join("summary.json"));
        files
    }
}
