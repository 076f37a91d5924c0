//! `parallels._parallels`: the library's entry points for the Python
//! package `parallels`.
//!
//! This crate only converts: Python values in, the library's results out,
//! as JSON text (the schemas of DESIGN.md) or Arrow IPC streams (tables of
//! many rows, read by pyarrow without copying value by value). Every call
//! releases the GIL while the library works (on rayon's threads), and
//! every error becomes a Python `ValueError` (or `OSError` for I/O) whose
//! message names the record, file or option at fault. The Python modules
//! (`python/parallels`) hold the user-facing API.

mod batch;
mod dedup;
mod scan;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::ArrowError;
use parallels::align::{Aligner, Options, ALIGN_BYTES_PER_BYTE, MAX_TEXT_BYTES};
use parallels::dedup::DedupOptions;
use parallels::normalize::NormalizeOptions;
use parallels::read::Document;
use parallels::scan::ScanOptions;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::sync::Arc;

// As the command line: the library's threads allocate many small vectors
// at once, and glibc's allocator serialized them (BENCHMARKS.md, the Spark
// driver). Only Rust's own allocations go through it; what Python holds is
// Python's, and no buffer allocated here is freed by Python (results leave
// as copies: bytes, lists, strings).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A library error as a Python `ValueError`.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Run `f` (a whole command: minutes on a large input) without the GIL,
/// on a thread of its own, while this thread lets Python handle its
/// signals every tenth of a second: Ctrl-C raises `KeyboardInterrupt` at
/// once instead of when the work is done. The work begun runs on to its
/// end in the background, and its result is dropped.
pub(crate) fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce() -> PyResult<T> + Send + 'static,
) -> PyResult<T> {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let (tx, rx) = channel();
    std::thread::Builder::new()
        .name("parallels".into())
        .spawn(move || {
            // The receiver is gone when the call was interrupted.
            let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        })
        .map_err(|e| PyOSError::new_err(format!("cannot start a thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver goes with the wait and comes back (it is not Sync).
        let (got, back) = py.detach(move || (rx.recv_timeout(std::time::Duration::from_millis(100)), rx));
        rx = back;
        match got {
            Ok(Ok(result)) => return result,
            Ok(Err(_)) => return Err(pyo3::exceptions::PyRuntimeError::new_err("parallels: internal error (a panic)")),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(pyo3::exceptions::PyRuntimeError::new_err("parallels: the work thread ended"))
            }
        }
    }
}

/// Record batches as the bytes of one Arrow IPC stream.
pub(crate) fn ipc(batches: &[RecordBatch]) -> Result<Vec<u8>, ArrowError> {
    let schema = batches[0].schema();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::new(), &schema)?;
    for b in batches {
        w.write(b)?;
    }
    w.finish()?;
    w.into_inner()
}

/// A schema of nullable int64 columns `names`.
pub(crate) fn int64_schema(names: &[&str]) -> arrow_schema::SchemaRef {
    use arrow_schema::{DataType, Field, Schema};
    Arc::new(Schema::new(names.iter().map(|n| Field::new(*n, DataType::Int64, true)).collect::<Vec<_>>()))
}

/// Blocks `(partition, IPC stream)` as Python values.
pub(crate) fn py_blocks(py: Python<'_>, blocks: Vec<(u64, Vec<u8>)>) -> Vec<(u64, Bound<'_, PyBytes>)> {
    blocks.into_iter().map(|(d, b)| (d, PyBytes::new(py, &b))).collect()
}

/// Rows `(partition, values)` as Arrow IPC blocks of the int64 columns
/// `names`, one block per partition: partitions ascending, rows in their
/// order inside one.
pub(crate) fn int64_blocks<const N: usize>(
    names: [&str; N],
    mut rows: Vec<(u64, [i64; N])>,
) -> Result<Vec<(u64, Vec<u8>)>, ArrowError> {
    use arrow_array::Int64Array;
    let schema = int64_schema(&names);
    rows.sort_by_key(|r| r.0);
    rows.chunk_by(|x, y| x.0 == y.0)
        .map(|run| {
            let columns: Vec<ArrayRef> = (0..N)
                .map(|c| Arc::new(Int64Array::from_iter_values(run.iter().map(|r| r.1[c]))) as ArrayRef)
                .collect();
            Ok((run[0].0, ipc(&[RecordBatch::try_new(Arc::clone(&schema), columns)?])?))
        })
        .collect()
}

/// The normalization rules, all on unless switched off.
pub(crate) fn normalize(script: bool, numbers: bool, footnotes: bool, boilerplate: bool) -> NormalizeOptions {
    NormalizeOptions { script, variants: script, numbers, footnotes, boilerplate, ..NormalizeOptions::default() }
}

/// Align every pair of `texts` (ids in `ids`, one each, unique) and return
/// the `parallels.align/1` document as JSON text.
#[pyfunction]
#[pyo3(signature = (texts, ids, *, sigmas=None, gap=None, semantic=true, script=true, numbers=true, footnotes=true, boilerplate=true, max_size_mib=MAX_TEXT_BYTES >> 20, sentences="text"))]
#[allow(clippy::too_many_arguments)]
fn align(
    py: Python<'_>,
    texts: Vec<String>,
    ids: Vec<String>,
    sigmas: Option<f32>,
    gap: Option<u32>,
    semantic: bool,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
    max_size_mib: u64,
    sentences: &str,
) -> PyResult<String> {
    if texts.len() != ids.len() {
        return Err(value_error(format!("{} texts but {} ids", texts.len(), ids.len())));
    }
    let limit = max_size_mib.saturating_mul(1 << 20);
    for (t, id) in texts.iter().zip(&ids) {
        if t.len() as u64 > limit {
            return Err(value_error(format!(
                "text {id:?}: {:.1} MiB is more than max_size_mib={max_size_mib}; aligning takes about {} times \
                 a text's size in memory: split it, or use scan",
                t.len() as f64 / (1u64 << 20) as f64,
                ALIGN_BYTES_PER_BYTE
            )));
        }
    }
    let mut opts = Options::default();
    if let Some(s) = sigmas {
        if !s.is_finite() || s < 0.0 {
            return Err(value_error(format!("sigmas={s}: not a number of standard deviations (finite, ≥ 0)")));
        }
        opts.parallel.sigmas = s;
    }
    if let Some(g) = gap {
        opts.parallel.gap = g;
    }
    opts.meaning = semantic;
    opts.normalize = normalize(script, numbers, footnotes, boilerplate);
    opts.sentences = sentences.parse().map_err(|e: String| value_error(format!("sentences={sentences:?}: {e}")))?;
    let docs: Vec<Document> = texts
        .into_iter()
        .zip(ids)
        .map(|(text, id)| Document { path: PathBuf::from(&id), id, text, encoding: "utf-8".into(), replaced: 0 })
        .collect();
    interruptible(py, move || {
        let aligner = Aligner::new(opts);
        let collation = parallels::collate::collate(&aligner, &docs).map_err(value_error)?;
        serde_json::to_string(&collation.output).map_err(value_error)
    })
}

/// Align text files as `parallels align --format json` does (same ids,
/// paths and encodings): the `parallels.align/1` document as JSON text.
#[pyfunction]
#[pyo3(signature = (paths, *, semantic=true))]
fn align_files(py: Python<'_>, paths: Vec<PathBuf>, semantic: bool) -> PyResult<String> {
    interruptible(py, move || {
        let mut docs = Vec::new();
        for p in &paths {
            docs.push(parallels::read::read_document(p).map_err(value_error)?);
        }
        let opts = Options { meaning: semantic, ..Options::default() };
        let collation = parallels::collate::collate(&Aligner::new(opts), &docs).map_err(value_error)?;
        serde_json::to_string(&collation.output).map_err(value_error)
    })
}

/// The module.
#[pymodule]
fn _parallels(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(align, m)?)?;
    m.add_function(wrap_pyfunction!(align_files, m)?)?;
    m.add_function(wrap_pyfunction!(scan::scan, m)?)?;
    m.add_function(wrap_pyfunction!(scan::check_scan_options, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::dedup, m)?)?;
    m.add_function(wrap_pyfunction!(batch::fingerprints, m)?)?;
    m.add_function(wrap_pyfunction!(batch::minhash, m)?)?;
    m.add_function(wrap_pyfunction!(batch::feature_counts, m)?)?;
    m.add_function(wrap_pyfunction!(batch::settle_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(batch::exact_similarities, m)?)?;
    m.add_function(wrap_pyfunction!(batch::keepers, m)?)?;
    m.add_function(wrap_pyfunction!(batch::align_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(batch::clusters, m)?)?;
    m.add_function(wrap_pyfunction!(batch::group_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(batch::scan_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(batch::covered_chars, m)?)?;
    m.add_class::<batch::FeatureTable>()?;
    m.add("PARQUET_SCHEMA", parallels::scan::parquet_out::PARQUET_SCHEMA)?;
    m.add("SCAN_SCHEMA", parallels::scan::SCAN_SCHEMA)?;
    m.add("ALIGN_SCHEMA", parallels::output::ALIGN_SCHEMA)?;
    let d = ScanOptions::default();
    let defaults = pyo3::types::PyDict::new(m.py());
    defaults.set_item("max_df", d.seeds.max_df)?;
    defaults.set_item("min_seeds", d.seeds.min_seeds)?;
    defaults.set_item("min_significance", d.min_significance)?;
    defaults.set_item("min_specificity", d.min_specificity)?;
    m.add("SCAN_DEFAULTS", defaults)?;
    let d = DedupOptions::default();
    let defaults = pyo3::types::PyDict::new(m.py());
    defaults.set_item("threshold", d.threshold)?;
    defaults.set_item("ngram", d.ngram)?;
    defaults.set_item("perms", d.perms)?;
    defaults.set_item("bucket_cap", d.bucket_cap)?;
    m.add("DEDUP_DEFAULTS", defaults)?;
    Ok(())
}
