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

use arrow_array::builder::{FixedSizeBinaryBuilder, ListBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch, UInt32Array, UInt64Array};
use arrow_schema::ArrowError;
use parallels::align::{Aligner, Options, ALIGN_BYTES_PER_BYTE, MAX_TEXT_BYTES};
use parallels::corpus::{resolve, CorpusOptions, CorpusReader};
use parallels::dedup::verify::Decision;
use parallels::dedup::{dedup as run_dedup, keeper, Bands, DedupOptions, Fate, Keep, Verify};
use parallels::normalize::NormalizeOptions;
use parallels::plumbing::Quiet;
use parallels::read::Document;
use parallels::scan::parquet_out::{clusters_batch, documents_batch, passages_batch};
use parallels::scan::{
    batch, scan as run_scan, write_jsonl, write_parquet, InputKey, ScanOptions, ScanPassage, ScanSummary, Work,
};
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
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Run `f` (a whole command: minutes on a large input) without the GIL,
/// on a thread of its own, while this thread lets Python handle its
/// signals every tenth of a second: Ctrl-C raises `KeyboardInterrupt` at
/// once instead of when the work is done. The work begun runs on to its
/// end in the background, and its result is dropped.
fn interruptible<T: Send + 'static>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send + 'static) -> PyResult<T> {
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
fn ipc(batches: &[RecordBatch]) -> Result<Vec<u8>, ArrowError> {
    let schema = batches[0].schema();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::new(), &schema)?;
    for b in batches {
        w.write(b)?;
    }
    w.finish()?;
    w.into_inner()
}

/// A schema of nullable int64 columns `names`.
fn int64_schema(names: &[&str]) -> arrow_schema::SchemaRef {
    use arrow_schema::{DataType, Field, Schema};
    Arc::new(Schema::new(names.iter().map(|n| Field::new(*n, DataType::Int64, true)).collect::<Vec<_>>()))
}

/// Blocks `(partition, IPC stream)` as Python values.
fn py_blocks(py: Python<'_>, blocks: Vec<(u64, Vec<u8>)>) -> Vec<(u64, Bound<'_, PyBytes>)> {
    blocks.into_iter().map(|(d, b)| (d, PyBytes::new(py, &b))).collect()
}

/// Rows `(partition, values)` as Arrow IPC blocks of the int64 columns
/// `names`, one block per partition: partitions ascending, rows in their
/// order inside one.
fn int64_blocks<const N: usize>(
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
fn normalize(script: bool, numbers: bool, footnotes: bool, boilerplate: bool) -> NormalizeOptions {
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

/// The scan options from the keyword arguments.
#[allow(clippy::too_many_arguments)]
fn scan_options(
    max_df: Option<u32>,
    min_seeds: Option<u32>,
    min_significance: Option<f64>,
    min_specificity: Option<f64>,
    all: bool,
    memory_mib: Option<u64>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<ScanOptions> {
    let mut opts = ScanOptions::default();
    opts.align.normalize = normalize(script, numbers, footnotes, boilerplate);
    if let Some(m) = max_df {
        opts.seeds.max_df = m;
    }
    if let Some(m) = min_seeds {
        opts.seeds.min_seeds = m;
    }
    if let Some(s) = min_significance {
        // Below 0 is 0 (every passage), as on the command line; not a
        // number is refused by the check.
        opts.min_significance = if s.is_finite() { s.max(0.0) } else { s };
    }
    if let Some(s) = min_specificity {
        opts.min_specificity = s;
    }
    if all {
        opts.min_significance = 0.0;
    }
    if let Some(m) = memory_mib {
        opts.memory = m.saturating_mul(1 << 20);
    }
    // The library's bounds (its messages name the fields as the keywords
    // are named).
    opts.check().map_err(value_error)?;
    Ok(opts)
}

/// Check scan options as `scan` would (for the Spark driver, which asks
/// before it starts its jobs): a `ValueError` naming the first bad one.
#[pyfunction]
#[pyo3(signature = (*, max_df=None, min_seeds=None, min_significance=None, min_specificity=None, all=false, memory_mib=None))]
fn check_scan_options(
    max_df: Option<u32>,
    min_seeds: Option<u32>,
    min_significance: Option<f64>,
    min_specificity: Option<f64>,
    all: bool,
    memory_mib: Option<u64>,
) -> PyResult<()> {
    scan_options(max_df, min_seeds, min_significance, min_specificity, all, memory_mib, true, true, true, true)
        .map(|_| ())
}

/// The three scan tables as Arrow IPC streams, and the summary as JSON.
type ScanTables<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, String);

/// Scan the corpus `inputs` (files, folders, globs) as `parallels scan`
/// does. Returns the documents, passages and clusters tables as Arrow IPC
/// streams and `summary.json` as JSON text; with `output`, also writes the
/// CLI's tables there (`format` "jsonl" or "parquet").
#[pyfunction]
#[pyo3(signature = (inputs, *, id="id".to_string(), text="text".to_string(), group=None, group_by_dir=false, strict=true, max_df=None, min_seeds=None, min_significance=None, min_specificity=None, all=false, memory_mib=None, script=true, numbers=true, footnotes=true, boilerplate=true, output=None, format="jsonl".to_string(), work_dir=None))]
#[allow(clippy::too_many_arguments)]
fn scan<'py>(
    py: Python<'py>,
    inputs: Vec<PathBuf>,
    id: String,
    text: String,
    group: Option<String>,
    group_by_dir: bool,
    strict: bool,
    max_df: Option<u32>,
    min_seeds: Option<u32>,
    min_significance: Option<f64>,
    min_specificity: Option<f64>,
    all: bool,
    memory_mib: Option<u64>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
    output: Option<PathBuf>,
    format: String,
    work_dir: Option<PathBuf>,
) -> PyResult<ScanTables<'py>> {
    let opts = scan_options(
        max_df,
        min_seeds,
        min_significance,
        min_specificity,
        all,
        memory_mib,
        script,
        numbers,
        footnotes,
        boilerplate,
    )?;
    if !matches!(format.as_str(), "jsonl" | "parquet") {
        return Err(value_error(format!("format={format:?}: \"jsonl\" or \"parquet\"")));
    }
    let (d, p, c, s) = interruptible(py, move || -> PyResult<_> {
        let inputs = resolve(&inputs).map_err(value_error)?;
        let corpus = CorpusOptions {
            id_field: id,
            text_field: text,
            group_field: group,
            group_by_dir,
            strict,
            ..CorpusOptions::default()
        };
        let parent = match (&work_dir, &output) {
            (Some(w), _) => w.clone(),
            (None, Some(o)) => {
                std::fs::create_dir_all(o).map_err(|e| PyOSError::new_err(format!("{}: {e}", o.display())))?;
                o.clone()
            }
            (None, None) => std::env::temp_dir(),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".parallels-scan-")
            .tempdir_in(&parent)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", parent.display())))?;
        let work = Work { dir: tmp.path().join("work"), key: InputKey::new(&inputs, &corpus), resume: false };
        let mut reader = CorpusReader::new(inputs, corpus).map_err(value_error)?;
        let result = run_scan(&mut reader, &opts, &work, &Quiet).map_err(value_error)?;
        if result.stats.documents == 0 {
            return Err(value_error(format!(
                "no document was read ({} skipped); nothing to scan",
                result.corpus.skipped_total()
            )));
        }
        if let Some(o) = &output {
            match format.as_str() {
                "parquet" => write_parquet(&result, o),
                _ => write_jsonl(&result, o),
            }
            .map_err(|e| PyOSError::new_err(format!("{}: cannot write the results: {e}", o.display())))?;
        }
        let passages = result.passages.to_vec().map_err(value_error)?;
        let documents = ipc(&[documents_batch(&result.documents).map_err(value_error)?]).map_err(value_error)?;
        let passages = ipc(&[passages_batch(&passages).map_err(value_error)?]).map_err(value_error)?;
        let clusters = ipc(&[clusters_batch(&result.clusters).map_err(value_error)?]).map_err(value_error)?;
        let summary = serde_json::to_string(&ScanSummary::of(&result).map_err(value_error)?).map_err(value_error)?;
        result.remove_work().map_err(value_error)?;
        drop(tmp);
        Ok((documents, passages, clusters, summary))
    })?;
    Ok((PyBytes::new(py, &d), PyBytes::new(py, &p), PyBytes::new(py, &c), s))
}

/// Deduplicate the corpus `inputs` as `parallels dedup` does. Returns the
/// fate of every document read (an Arrow IPC stream: `id`, `source`,
/// `kept`, `reason`, `duplicate_of`, `duplicate_of_source`, `similarity`)
/// and the counts as JSON text; with `output`, writes the kept records
/// there (`format` "jsonl": one file; "parquet": a folder with one file per
/// Parquet input, every column kept).
#[pyfunction]
#[pyo3(signature = (inputs, *, id="id".to_string(), text="text".to_string(), strict=true, threshold=None, ngram=None, perms=None, bands=None, rows=None, verify="exact".to_string(), keep="first".to_string(), keep_field=None, paragraphs=false, min_paragraph_tokens=None, memory_mib=None, script=true, numbers=true, footnotes=true, boilerplate=true, output=None, format="jsonl".to_string()))]
#[allow(clippy::too_many_arguments)]
fn dedup<'py>(
    py: Python<'py>,
    inputs: Vec<PathBuf>,
    id: String,
    text: String,
    strict: bool,
    threshold: Option<f64>,
    ngram: Option<usize>,
    perms: Option<usize>,
    bands: Option<usize>,
    rows: Option<usize>,
    verify: String,
    keep: String,
    keep_field: Option<String>,
    paragraphs: bool,
    min_paragraph_tokens: Option<usize>,
    memory_mib: Option<u64>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
    output: Option<PathBuf>,
    format: String,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let mut opts = dedup_options(threshold, ngram, perms, bands, rows, script, numbers, footnotes, boilerplate)?;
    opts.verify = verify_of(&verify)?;
    opts.keep = match (keep_field, keep.as_str()) {
        (Some(f), _) => Keep::Field(f),
        (None, "first") => Keep::First,
        (None, "longest") => Keep::Longest,
        (None, k) => return Err(value_error(format!("keep={k:?}: \"first\" or \"longest\" (or keep_field=...)"))),
    };
    opts.paragraphs = paragraphs;
    if let Some(m) = min_paragraph_tokens {
        opts.min_paragraph_tokens = m.max(1);
    }
    if let Some(m) = memory_mib {
        if m < 16 {
            return Err(value_error(format!("memory_mib={m}: must be at least 16")));
        }
        opts.memory = m << 20;
    }
    if !matches!(format.as_str(), "jsonl" | "parquet") {
        return Err(value_error(format!("format={format:?}: \"jsonl\" or \"parquet\"")));
    }
    let (fates, stats) = interruptible(py, move || -> PyResult<_> {
        let inputs = resolve(&inputs).map_err(value_error)?;
        let corpus = CorpusOptions { id_field: id, text_field: text, strict, ..CorpusOptions::default() };
        if let Some(o) = &output {
            let dir = if format == "parquet" { o.clone() } else { o.parent().map(PathBuf::from).unwrap_or_default() };
            let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
            std::fs::create_dir_all(&dir).map_err(|e| PyOSError::new_err(format!("{}: {e}", dir.display())))?;
            opts.work_dir = dir;
        }
        let mut reader = CorpusReader::new(inputs.clone(), corpus.clone()).map_err(value_error)?;
        let result = run_dedup(&mut reader, &opts, &Quiet).map_err(value_error)?;
        if result.stats.documents == 0 {
            return Err(value_error(format!(
                "no document was read ({} skipped); nothing to deduplicate",
                result.corpus.skipped_total()
            )));
        }
        if let Some(o) = &output {
            let cannot = |e: &dyn std::fmt::Display| PyOSError::new_err(format!("{}: {e}", o.display()));
            match format.as_str() {
                "parquet" => parallels::dedup::output::write_parquet(&inputs, &corpus, &result, o)
                    .map(|_| ())
                    .map_err(|e| cannot(&e))?,
                _ => parallels::dedup::output::write_jsonl(&inputs, &corpus, &result, o)
                    .map(|_| ())
                    .map_err(|e| cannot(&e))?,
            }
        }
        let fates = ipc(&[fates_batch(&result).map_err(value_error)?]).map_err(value_error)?;
        let stats = serde_json::to_string(&result.stats).map_err(value_error)?;
        Ok((fates, stats))
    })?;
    Ok((PyBytes::new(py, &fates), stats))
}

/// `verify="exact"` or `"signature"`.
fn verify_of(verify: &str) -> PyResult<Verify> {
    match verify {
        "exact" => Ok(Verify::Exact),
        "signature" => Ok(Verify::Signature),
        v => Err(value_error(format!("verify={v:?}: \"exact\" or \"signature\""))),
    }
}

/// The dedup options of the keyword arguments (those `minhash` shares).
#[allow(clippy::too_many_arguments)]
fn dedup_options(
    threshold: Option<f64>,
    ngram: Option<usize>,
    perms: Option<usize>,
    bands: Option<usize>,
    rows: Option<usize>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<DedupOptions> {
    let mut opts = DedupOptions { normalize: normalize(script, numbers, footnotes, boilerplate), ..Default::default() };
    if let Some(t) = threshold {
        if !(t > 0.0 && t <= 1.0) {
            return Err(value_error(format!("threshold={t}: a similarity in (0, 1], such as 0.8")));
        }
        opts.threshold = t;
    }
    if let Some(n) = ngram {
        if !(1..=64).contains(&n) {
            return Err(value_error(format!("ngram={n}: 1 to 64 tokens")));
        }
        opts.ngram = n;
    }
    if let Some(k) = perms {
        if !(1..=1024).contains(&k) {
            return Err(value_error(format!("perms={k}: 1 to 1024 permutations")));
        }
        opts.perms = k;
    }
    match (bands, rows) {
        (None, None) => {}
        (Some(b), Some(r)) if b >= 1 && r >= 1 && b.saturating_mul(r) <= opts.perms => {
            opts.bands = Some(Bands { bands: b, rows: r });
        }
        (Some(b), Some(r)) => {
            return Err(value_error(format!("bands={b} × rows={r}: both ≥ 1, and at most perms={}", opts.perms)))
        }
        _ => return Err(value_error("bands and rows go together: give both or neither")),
    }
    Ok(opts)
}

/// What happened to each document of a dedup run, in input order.
fn fates_batch(result: &parallels::dedup::DedupResult) -> Result<RecordBatch, ArrowError> {
    use arrow_array::{BooleanArray, Float64Array, StringArray};
    let docs = &result.docs;
    let removed = |d: &parallels::dedup::DocEntry| match d.fate {
        Fate::Removed { reason, of, similarity } => Some((reason, &docs[of as usize], similarity)),
        _ => None,
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(StringArray::from_iter_values(docs.iter().map(|d| d.id.as_str())))),
        ("source", Arc::new(StringArray::from_iter_values(docs.iter().map(|d| d.origin.source.to_string())))),
        ("kept", Arc::new(BooleanArray::from_iter(docs.iter().map(|d| Some(removed(d).is_none()))))),
        ("reason", Arc::new(StringArray::from_iter(docs.iter().map(|d| removed(d).map(|r| r.0.as_str()))))),
        ("duplicate_of", Arc::new(StringArray::from_iter(docs.iter().map(|d| removed(d).map(|r| r.1.id.clone()))))),
        (
            "duplicate_of_source",
            Arc::new(StringArray::from_iter(docs.iter().map(|d| removed(d).map(|r| r.1.origin.source.to_string())))),
        ),
        (
            "similarity",
            Arc::new(Float64Array::from_iter(docs.iter().map(|d| removed(d).map(|r| (r.2 * 1e4).round() / 1e4)))),
        ),
    ];
    RecordBatch::try_from_iter(columns)
}

/// Fingerprints of a batch of texts: an Arrow IPC stream with `chars`
/// (u64), `seed_hash` (list of u64) and `seed_pos` (list of u32), a row
/// per text, in order.
#[pyfunction]
#[pyo3(signature = (texts, *, script=true, numbers=true, footnotes=true, boilerplate=true))]
fn fingerprints<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = scan_options(None, None, None, None, false, None, script, numbers, footnotes, boilerplate)?;
    let bytes = py.detach(move || -> Result<Vec<u8>, ArrowError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let fps = batch::fingerprints(&refs, &opts);
        let mut hashes = ListBuilder::new(UInt64Builder::new());
        let mut positions = ListBuilder::new(UInt32Builder::new());
        for f in &fps {
            hashes.values().append_slice(&f.seeds.iter().map(|s| s.0).collect::<Vec<_>>());
            hashes.append(true);
            positions.values().append_slice(&f.seeds.iter().map(|s| s.1).collect::<Vec<_>>());
            positions.append(true);
        }
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("chars", Arc::new(UInt64Array::from_iter_values(fps.iter().map(|f| f.chars)))),
            ("seed_hash", Arc::new(hashes.finish())),
            ("seed_pos", Arc::new(positions.finish())),
        ];
        ipc(&[RecordBatch::try_from_iter(columns)?])
    });
    Ok(PyBytes::new(py, &bytes.map_err(value_error)?))
}

/// MinHash sketches of a batch of texts: an Arrow IPC stream with
/// `signature` (list of u32), `exact` (16 bytes, null without tokens),
/// `tokens` (u32), `chars` (u64) and `band_keys` (list of u64), a row per
/// text, in order.
#[pyfunction]
#[pyo3(signature = (texts, *, threshold=None, ngram=None, perms=None, bands=None, rows=None, script=true, numbers=true, footnotes=true, boilerplate=true))]
#[allow(clippy::too_many_arguments)]
fn minhash<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    threshold: Option<f64>,
    ngram: Option<usize>,
    perms: Option<usize>,
    bands: Option<usize>,
    rows: Option<usize>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = dedup_options(threshold, ngram, perms, bands, rows, script, numbers, footnotes, boilerplate)?;
    let bytes = py.detach(move || -> Result<Vec<u8>, ArrowError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let sk = batch::sketches(&refs, &opts);
        let mut sigs = ListBuilder::new(UInt32Builder::new());
        let mut keys = ListBuilder::new(UInt64Builder::new());
        let mut exact = FixedSizeBinaryBuilder::new(16);
        for s in &sk {
            sigs.values().append_slice(&s.signature);
            sigs.append(true);
            keys.values().append_slice(&s.bands);
            keys.append(true);
            match s.exact {
                Some(h) => exact.append_value(h.to_be_bytes())?,
                None => exact.append_null(),
            }
        }
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("signature", Arc::new(sigs.finish())),
            ("exact", Arc::new(exact.finish())),
            ("tokens", Arc::new(UInt32Array::from_iter_values(sk.iter().map(|s| s.tokens)))),
            ("chars", Arc::new(UInt64Array::from_iter_values(sk.iter().map(|s| s.chars)))),
            ("band_keys", Arc::new(keys.finish())),
        ];
        ipc(&[RecordBatch::try_from_iter(columns)?])
    });
    Ok(PyBytes::new(py, &bytes.map_err(value_error)?))
}

/// The signatures' decision on candidate pairs, as `dedup` takes it: for
/// each pair `(a[i], b[i])` of signatures, 1 (a duplicate), 0 (none) or -1
/// (left to `exact_similarities`), and the estimated similarity.
#[pyfunction]
#[pyo3(signature = (a, b, *, threshold=None, perms=None, verify="exact".to_string()))]
fn settle_pairs(
    py: Python<'_>,
    a: Vec<Vec<u32>>,
    b: Vec<Vec<u32>>,
    threshold: Option<f64>,
    perms: Option<usize>,
    verify: String,
) -> PyResult<(Vec<i8>, Vec<f64>)> {
    let mut opts = dedup_options(threshold, None, perms, None, None, true, true, true, true)?;
    opts.verify = verify_of(&verify)?;
    if a.len() != b.len() {
        return Err(value_error(format!("{} signatures a but {} signatures b", a.len(), b.len())));
    }
    let k = opts.perms;
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x.len() != k || y.len() != k {
            return Err(value_error(format!(
                "pair {i}: signatures of {} and {} values, not perms={k}",
                x.len(),
                y.len()
            )));
        }
    }
    Ok(py.detach(move || {
        let pairs: Vec<(&[u32], &[u32])> = a.iter().zip(&b).map(|(x, y)| (&x[..], &y[..])).collect();
        batch::settle_pairs(&pairs, &opts)
            .into_iter()
            .map(|(d, e)| {
                let code = match d {
                    Decision::Duplicate => 1,
                    Decision::Distinct => 0,
                    Decision::Unsettled => -1,
                };
                (code, e)
            })
            .unzip()
    }))
}

/// The exact Jaccard similarity of each pair of texts `(a[i], b[i])` as
/// `dedup`'s exact check measures it.
#[pyfunction]
#[pyo3(signature = (a, b, *, ngram=None, script=true, numbers=true, footnotes=true, boilerplate=true))]
#[allow(clippy::too_many_arguments)]
fn exact_similarities(
    py: Python<'_>,
    a: Vec<String>,
    b: Vec<String>,
    ngram: Option<usize>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<Vec<f64>> {
    let opts = dedup_options(None, ngram, None, None, None, script, numbers, footnotes, boilerplate)?;
    if a.len() != b.len() {
        return Err(value_error(format!("{} texts a but {} texts b", a.len(), b.len())));
    }
    Ok(py.detach(move || {
        let pairs: Vec<(&str, &str)> = a.iter().zip(&b).map(|(x, y)| (x.as_str(), y.as_str())).collect();
        batch::exact_similarities(&pairs, &opts)
    }))
}

/// The kept member of each cluster by `dedup`'s rule: `members` (document
/// indices in input order), with each member's `chars` and `keep_field`
/// value (`values`, None without one); `keep` "first", "longest" or
/// "field".
#[pyfunction]
#[pyo3(signature = (members, chars, values, *, keep="first".to_string()))]
fn keepers(
    py: Python<'_>,
    members: Vec<Vec<u32>>,
    chars: Vec<Vec<u64>>,
    values: Vec<Vec<Option<f64>>>,
    keep: String,
) -> PyResult<Vec<u32>> {
    let keep = match keep.as_str() {
        "first" => Keep::First,
        "longest" => Keep::Longest,
        "field" => Keep::Field(String::new()),
        k => return Err(value_error(format!("keep={k:?}: \"first\", \"longest\" or \"field\""))),
    };
    if chars.len() != members.len() || values.len() != members.len() {
        return Err(value_error("members, chars and values: one list per cluster each"));
    }
    for (i, ((m, c), v)) in members.iter().zip(&chars).zip(&values).enumerate() {
        if m.is_empty() || c.len() != m.len() || v.len() != m.len() || m.windows(2).any(|w| w[0] >= w[1]) {
            return Err(value_error(format!(
                "cluster {i}: members not empty and in input order, with one chars and one value each"
            )));
        }
    }
    Ok(py.detach(move || {
        members
            .iter()
            .zip(chars.iter().zip(&values))
            .map(|(m, (c, v))| {
                let at = |d: u32| m.binary_search(&d).expect("a member");
                keeper(m, |d| c[at(d)], |d| v[at(d)], &keep)
            })
            .collect()
    }))
}

/// One partition of a distributed scan's seeds (Arrow IPC streams with
/// `hash`, `doc`, `pos` and `g`, the document's group or null; together
/// every place of each of their hashes) settled by hash as `scan` settles
/// them: every place of a hash in two documents or more (`doc`, `pos`,
/// `df`: its document frequency), and the votes of the hashes in at most
/// `max_df` documents counted by pair (`a` < `b`, `votes`). Both as Arrow
/// IPC blocks (int64 columns) by the partition each row goes to, its
/// `doc` or its `a` (as unsigned) modulo `parts`: lists of `(partition,
/// block)`. Document numbers are any 64-bit numbers in the corpus's order.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn group_seeds<'py>(
    py: Python<'py>,
    blocks: Vec<Vec<u8>>,
    max_df: u32,
    parts: u64,
) -> PyResult<(Vec<(u64, Bound<'py, PyBytes>)>, Vec<(u64, Bound<'py, PyBytes>)>)> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::Array;
    if parts == 0 {
        return Err(value_error("parts: at least 1"));
    }
    let (places, votes) = py
        .detach(move || -> Result<_, ArrowError> {
            let mut rows = Vec::new();
            let readers =
                blocks.into_iter().map(|b| arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(b), None));
            for batch in readers.collect::<Result<Vec<_>, _>>()?.into_iter().flatten() {
                let batch = batch?;
                let column = |name: &str| -> Result<_, ArrowError> {
                    let c = batch
                        .column_by_name(name)
                        .ok_or_else(|| ArrowError::SchemaError(format!("seeds: no column {name:?}")))?;
                    c.as_primitive_opt::<Int64Type>()
                        .cloned()
                        .ok_or_else(|| ArrowError::SchemaError(format!("seeds: column {name:?} is not int64")))
                };
                let (hash, doc, pos, g) = (column("hash")?, column("doc")?, column("pos")?, column("g")?);
                for k in 0..batch.num_rows() {
                    let (d, p) = (doc.value(k), pos.value(k));
                    let Ok(p) = u32::try_from(p) else {
                        return Err(ArrowError::InvalidArgumentError(format!("seeds: row {k}: pos {p} out of range")));
                    };
                    rows.push((hash.value(k) as u64, d, p, g.is_valid(k).then(|| g.value(k) as u64)));
                }
            }
            let (shared, votes) = batch::group_seeds(&rows, max_df);
            let row = |(x, y, z): (i64, i64, u32)| (x as u64 % parts, [x, y, i64::from(z)]);
            let places = int64_blocks(
                ["doc", "pos", "df"],
                shared.into_iter().map(|(d, p, f)| row((d, i64::from(p), f))).collect(),
            )?;
            let votes = int64_blocks(["a", "b", "votes"], votes.into_iter().map(row).collect())?;
            Ok((places, votes))
        })
        .map_err(value_error)?;
    Ok((py_blocks(py, places), py_blocks(py, votes)))
}

/// The fingerprint pass of a distributed scan over a batch of texts (the
/// documents `docs`, of groups `groups`: an id or None), each text
/// prepared once: its winnowed seeds, rows `hash`, `doc`, `pos`, `g`; and
/// the batch's feature counts, rows `bucket`, `count` (bucket -1: the
/// sentence count). Both as Arrow IPC blocks (int64 columns) by the
/// partition each row goes to: a seed's hash, a count's bucket, as an
/// unsigned 64-bit number modulo `parts`. Returns the seed blocks and the
/// count blocks, each a list of `(partition, block)`, partitions
/// ascending, rows in the batch's order.
#[pyfunction]
#[pyo3(signature = (texts, docs, groups, parts, *, script=true, numbers=true, footnotes=true, boilerplate=true))]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
fn scan_blocks<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    docs: Vec<i64>,
    groups: Vec<Option<i64>>,
    parts: u64,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<(Vec<(u64, Bound<'py, PyBytes>)>, Vec<(u64, Bound<'py, PyBytes>)>)> {
    use arrow_array::Int64Array;
    if docs.len() != texts.len() || groups.len() != texts.len() {
        return Err(value_error("texts, docs and groups: one value per text each"));
    }
    if parts == 0 {
        return Err(value_error("parts: at least 1"));
    }
    let opts = scan_options(None, None, None, None, false, None, script, numbers, footnotes, boilerplate)?;
    let seed_schema = int64_schema(&["hash", "doc", "pos", "g"]);
    let (seeds, counts) = py
        .detach(move || -> Result<_, ArrowError> {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let (fps, table) = batch::fingerprints_and_table(&refs, &opts);
            // (partition, hash, doc, pos, group), sorted by partition (stable:
            // the batch's order inside one).
            let mut seeds: Vec<(u64, u64, i64, u32, Option<i64>)> = Vec::new();
            for ((f, &doc), &g) in fps.iter().zip(&docs).zip(&groups) {
                seeds.extend(f.seeds.iter().map(|&(hash, pos)| (hash % parts, hash, doc, pos, g)));
            }
            seeds.sort_by_key(|s| s.0);
            let seed_blocks = seeds
                .chunk_by(|x, y| x.0 == y.0)
                .map(|run| {
                    let columns: Vec<ArrayRef> = vec![
                        Arc::new(Int64Array::from_iter_values(run.iter().map(|s| s.1 as i64))),
                        Arc::new(Int64Array::from_iter_values(run.iter().map(|s| s.2))),
                        Arc::new(Int64Array::from_iter_values(run.iter().map(|s| i64::from(s.3)))),
                        Arc::new(run.iter().map(|s| s.4).collect::<Int64Array>()),
                    ];
                    Ok((run[0].0, ipc(&[RecordBatch::try_new(Arc::clone(&seed_schema), columns)?])?))
                })
                .collect::<Result<Vec<_>, ArrowError>>()?;
            let (sentences, counted) = batch::feature_counts(&table)?;
            let counts = std::iter::once((-1i64, sentences as i64))
                .chain(counted.iter().map(|&(k, c)| (i64::from(k), i64::from(c))))
                .map(|(bucket, count)| ((bucket as u64) % parts, [bucket, count]))
                .collect();
            let count_blocks = int64_blocks(["bucket", "count"], counts)?;
            Ok((seed_blocks, count_blocks))
        })
        .map_err(value_error)?;
    Ok((py_blocks(py, seeds), py_blocks(py, counts)))
}

/// The feature counts of a batch of texts, as `scan` counts them while
/// reading: the sentence count, and the non-zero buckets with their counts
/// as an Arrow IPC stream (`bucket` u32, `count` u32), to be summed by
/// bucket over the whole corpus.
#[pyfunction]
#[pyo3(signature = (texts, *, script=true, numbers=true, footnotes=true, boilerplate=true))]
fn feature_counts<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<(u64, Bound<'py, PyBytes>)> {
    let opts = scan_options(None, None, None, None, false, None, script, numbers, footnotes, boilerplate)?;
    let (sentences, bytes) = py.detach(move || -> PyResult<_> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (sentences, counts) = batch::feature_counts(&batch::feature_table(&refs, &opts)).map_err(value_error)?;
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("bucket", Arc::new(UInt32Array::from_iter_values(counts.iter().map(|c| c.0)))),
            ("count", Arc::new(UInt32Array::from_iter_values(counts.iter().map(|c| c.1)))),
        ];
        let batch = RecordBatch::try_from_iter(columns).map_err(value_error)?;
        Ok((sentences, ipc(&[batch]).map_err(value_error)?))
    })?;
    Ok((sentences, PyBytes::new(py, &bytes)))
}

/// The corpus-wide feature table, made once from the summed counts and
/// shared by every call of `align_candidates` in a process.
#[pyclass(frozen)]
struct FeatureTable(Arc<parallels::align::features::CorpusDf>);

#[pymethods]
impl FeatureTable {
    /// The table of the scan's width with these summed counts.
    #[new]
    fn new(py: Python<'_>, sentences: u64, buckets: Vec<u32>, counts: Vec<u64>) -> PyResult<FeatureTable> {
        if buckets.len() != counts.len() {
            return Err(value_error("as many buckets as counts"));
        }
        let bits = ScanOptions::default().df_bits;
        py.detach(move || {
            let pairs: Vec<(u32, u64)> = buckets.into_iter().zip(counts).collect();
            let df = batch::feature_table_of_counts(bits, sentences, &pairs).map_err(value_error)?;
            Ok(FeatureTable(Arc::new(df)))
        })
    }

    /// The table of counts given as Arrow IPC streams of `bucket`, `count`
    /// (int64; bucket -1 counts the sentences), as the fingerprint pass of
    /// a distributed scan gives them: a bucket's counts added over every
    /// row (a bucket may be in several).
    #[staticmethod]
    fn of_blocks(py: Python<'_>, blocks: Vec<Vec<u8>>) -> PyResult<FeatureTable> {
        use arrow_array::cast::AsArray;
        use arrow_array::types::Int64Type;
        let bits = ScanOptions::default().df_bits;
        py.detach(move || -> Result<_, String> {
            let mut sentences = 0u64;
            let mut pairs: Vec<(u32, u64)> = Vec::new();
            for (i, block) in blocks.into_iter().enumerate() {
                let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(block), None)
                    .map_err(|e| format!("block {i}: {e}"))?;
                for batch in reader {
                    let batch = batch.map_err(|e| format!("block {i}: {e}"))?;
                    let column = |name: &str| {
                        batch
                            .column_by_name(name)
                            .and_then(|c| c.as_primitive_opt::<Int64Type>().cloned())
                            .ok_or_else(|| format!("block {i}: no int64 column {name:?}"))
                    };
                    let (bucket, count) = (column("bucket")?, column("count")?);
                    for (b, c) in bucket.values().iter().zip(count.values().iter()) {
                        let c = u64::try_from(*c).map_err(|_| format!("block {i}: bucket {b}: count {c}"))?;
                        match u32::try_from(*b) {
                            Ok(b) => pairs.push((b, c)),
                            Err(_) if *b == -1 => sentences += c,
                            Err(_) => return Err(format!("block {i}: bucket {b} out of range")),
                        }
                    }
                }
            }
            let df = batch::feature_table_of_counts(bits, sentences, &pairs).map_err(|e| e.to_string())?;
            Ok(FeatureTable(Arc::new(df)))
        })
        .map_err(value_error)
    }
}

/// Align a batch of candidate pairs (`a < b` document numbers, any 64-bit
/// numbers in the corpus's order, with their
/// shared seed counts) whose documents are `docs` (number), `texts` and
/// their shared seeds (`shared_pos`, `shared_df` per document), given the
/// corpus-wide feature table: the passages as an Arrow IPC stream with the
/// columns of the passages table (`a_doc`, `b_doc` as the decimal
/// document numbers; `cluster` 0).
#[pyfunction]
#[pyo3(signature = (a, b, k, docs, texts, shared_pos, shared_df, table, *, min_significance=None, min_specificity=None, all=false, script=true, numbers=true, footnotes=true, boilerplate=true, work_dir=None))]
#[allow(clippy::too_many_arguments)]
fn align_candidates<'py>(
    py: Python<'py>,
    a: Vec<i64>,
    b: Vec<i64>,
    k: Vec<u32>,
    docs: Vec<i64>,
    texts: Vec<String>,
    shared_pos: Vec<Vec<u32>>,
    shared_df: Vec<Vec<u32>>,
    table: &FeatureTable,
    min_significance: Option<f64>,
    min_specificity: Option<f64>,
    all: bool,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
    work_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = scan_options(
        None,
        None,
        min_significance,
        min_specificity,
        all,
        None,
        script,
        numbers,
        footnotes,
        boilerplate,
    )?;
    if a.len() != b.len() || a.len() != k.len() {
        return Err(value_error("a, b and k: one value per pair each"));
    }
    let n = docs.len();
    if texts.len() != n || shared_pos.len() != n || shared_df.len() != n {
        return Err(value_error("docs, texts, shared_pos and shared_df: one value per document each"));
    }
    for (d, (p, f)) in docs.iter().zip(shared_pos.iter().zip(&shared_df)) {
        if p.len() != f.len() || p.windows(2).any(|w| w[0] > w[1]) {
            return Err(value_error(format!("document {d}: shared_pos sorted, with one shared_df each")));
        }
    }
    let df = Arc::clone(&table.0);
    let bytes = py.detach(move || -> PyResult<Vec<u8>> {
        let docs: Vec<batch::PairDoc> = docs
            .iter()
            .zip(&texts)
            .zip(shared_pos.iter().zip(&shared_df))
            .map(|((&doc, text), (p, f))| batch::PairDoc {
                doc,
                text,
                shared: p.iter().copied().zip(f.iter().copied()).collect(),
            })
            .collect();
        let pairs: Vec<(i64, i64, u32)> = a.iter().zip(&b).zip(&k).map(|((&a, &b), &k)| (a, b, k)).collect();
        let work = match &work_dir {
            Some(w) => tempfile::Builder::new().prefix(".parallels-pairs-").tempdir_in(w),
            None => tempfile::Builder::new().prefix("parallels-pairs-").tempdir(),
        }
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
        let found = batch::align_candidates(&pairs, &docs, &df, &opts, work.path()).map_err(value_error)?;
        let rows: Vec<ScanPassage> = found
            .into_iter()
            .map(|p| ScanPassage {
                a_doc: p.a.to_string(),
                b_doc: p.b.to_string(),
                cluster: 0,
                significance: p.significance,
                passage: p.passage,
            })
            .collect();
        ipc(&[passages_batch(&rows).map_err(value_error)?]).map_err(value_error)
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The characters inside the spans `(start, end)` of each document (spans
/// that overlap counted once), as the documents table's `shared` counts
/// them.
#[pyfunction]
fn covered_chars(spans: Vec<Vec<(u32, u32)>>) -> Vec<u64> {
    spans.into_iter().map(|s| parallels::align::covered_chars(s.into_iter().map(|(a, b)| [a, b]).collect())).collect()
}

/// The clusters of passages `(a, a_start, a_end, b, b_start, b_end)` (`a`,
/// `b` document numbers in the corpus's order, any 64-bit numbers), as
/// `scan` makes them: each passage's cluster, each cluster's members
/// `(doc, start, end)`, and each cluster's excerpt span `(doc, start, end)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn clusters(
    py: Python<'_>,
    passages: Vec<(i64, u32, u32, i64, u32, u32)>,
) -> (Vec<u32>, Vec<Vec<(i64, u32, u32)>>, Vec<(i64, u32, u32)>) {
    py.detach(move || {
        let flat: Vec<_> = passages.iter().map(|&(a, s, e, b, t, f)| (a, [s, e], b, [t, f])).collect();
        let (of, members, excerpts) = batch::clusters(&flat);
        let span = |(d, s): (i64, parallels::align::Span)| (d, s[0], s[1]);
        let members = members.into_iter().map(|ms| ms.into_iter().map(span).collect()).collect();
        (of, members, excerpts.into_iter().map(span).collect())
    })
}

/// The module.
#[pymodule]
fn _parallels(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(align, m)?)?;
    m.add_function(wrap_pyfunction!(align_files, m)?)?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    m.add_function(wrap_pyfunction!(check_scan_options, m)?)?;
    m.add_function(wrap_pyfunction!(dedup, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprints, m)?)?;
    m.add_function(wrap_pyfunction!(minhash, m)?)?;
    m.add_function(wrap_pyfunction!(feature_counts, m)?)?;
    m.add_function(wrap_pyfunction!(settle_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(exact_similarities, m)?)?;
    m.add_function(wrap_pyfunction!(keepers, m)?)?;
    m.add_function(wrap_pyfunction!(align_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(clusters, m)?)?;
    m.add_function(wrap_pyfunction!(group_seeds, m)?)?;
    m.add_function(wrap_pyfunction!(scan_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(covered_chars, m)?)?;
    m.add_class::<FeatureTable>()?;
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
