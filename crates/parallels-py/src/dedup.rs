//! `parallels.dedup`: a whole corpus deduplicated as `parallels dedup`
//! does it.

use crate::convert::{interruptible, ipc, normalize, value_error};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::ArrowError;
use parallels::corpus::{resolve, CorpusOptions, CorpusReader};
use parallels::dedup::{dedup as run_dedup, spill_folder, Bands, DedupOptions, Fate, Keep, Verify, MIN_MEMORY};
use parallels::plumbing::Quiet;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::sync::Arc;

/// Deduplicate the corpus `inputs` as `parallels dedup` does. Returns the
/// fate of every document read (an Arrow IPC stream: `id`, `source`,
/// `kept`, `reason`, `duplicate_of`, `duplicate_of_source`, `similarity`)
/// and the counts as JSON text; with `output`, writes the kept records
/// there (`format` "jsonl": one file; "parquet": a folder with one file per
/// Parquet input, every column kept).
#[pyfunction]
#[pyo3(signature = (inputs, *, id="id".to_string(), text="text".to_string(), strict=true, threshold=None, ngram=None, perms=None, bands=None, rows=None, verify="exact".to_string(), keep="first".to_string(), keep_field=None, paragraphs=false, min_paragraph_tokens=None, memory_mib=None, script=true, numbers=true, footnotes=true, boilerplate=true, output=None, format="jsonl".to_string()))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup<'py>(
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
        if m < MIN_MEMORY >> 20 {
            return Err(value_error(format!("memory_mib={m}: must be at least {}", MIN_MEMORY >> 20)));
        }
        opts.memory = m.saturating_mul(1 << 20);
    }
    opts.check().map_err(value_error)?;
    if !matches!(format.as_str(), "jsonl" | "parquet") {
        return Err(value_error(format!("format={format:?}: \"jsonl\" or \"parquet\"")));
    }
    let (fates, stats) = interruptible(py, move || -> PyResult<_> {
        let inputs = resolve(&inputs).map_err(value_error)?;
        let corpus = CorpusOptions { id_field: id, text_field: text, strict, ..CorpusOptions::default() };
        if let Some(o) = &output {
            let dir = spill_folder(o, format == "parquet");
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
pub(crate) fn verify_of(verify: &str) -> PyResult<Verify> {
    match verify {
        "exact" => Ok(Verify::Exact),
        "signature" => Ok(Verify::Signature),
        v => Err(value_error(format!("verify={v:?}: \"exact\" or \"signature\""))),
    }
}

/// The dedup options of the keyword arguments (those `minhash` shares).
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup_options(
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
    opts.threshold = threshold.unwrap_or(opts.threshold);
    opts.ngram = ngram.unwrap_or(opts.ngram);
    opts.perms = perms.unwrap_or(opts.perms);
    opts.bands = match (bands, rows) {
        (None, None) => None,
        (Some(bands), Some(rows)) => Some(Bands { bands, rows }),
        _ => return Err(value_error("bands and rows go together: give both or neither")),
    };
    // The library's bounds (its messages name the fields as the keywords
    // are named).
    opts.check().map_err(value_error)?;
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
            Arc::new(Float64Array::from_iter(
                docs.iter().map(|d| removed(d).map(|r| parallels::dedup::listed_similarity(r.2))),
            )),
        ),
    ];
    RecordBatch::try_from_iter(columns)
}
