//! `parallels.scan`: a whole corpus scanned as `parallels scan` scans it,
//! and the scan options from Python's keywords (checked by the library).

use crate::convert::{interruptible, ipc, value_error};
use parallels::corpus::{resolve, CorpusOptions, CorpusReader, Input, Table};
use parallels::normalize::Switches;
use parallels::plumbing::Quiet;
use parallels::scan::parquet_out::{clusters_batch, documents_batch, passages_batch};
use parallels::scan::{scan as run_scan, InputKey, ScanOptions, ScanSummary, Work, TABLE_WRITERS};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// The scan keywords (those of `parallels.scan` that set [`ScanOptions`];
/// the batch calls take some of them) as one value. `Default` is every
/// keyword left out.
pub(crate) struct ScanKeywords {
    pub(crate) max_df: Option<u32>,
    pub(crate) min_seeds: Option<u32>,
    pub(crate) min_significance: Option<f64>,
    pub(crate) min_specificity: Option<f64>,
    pub(crate) all: bool,
    pub(crate) memory_mib: Option<u64>,
    /// `script`, `numbers`, `footnotes`, `boilerplate`.
    pub(crate) switches: Switches,
    pub(crate) translations: bool,
}

impl Default for ScanKeywords {
    fn default() -> Self {
        ScanKeywords {
            max_df: None,
            min_seeds: None,
            min_significance: None,
            min_specificity: None,
            all: false,
            memory_mib: None,
            switches: Switches::default(),
            translations: true,
        }
    }
}

impl ScanKeywords {
    /// Every keyword left out but the normalization switches.
    pub(crate) fn normalized(switches: Switches) -> ScanKeywords {
        ScanKeywords { switches, ..ScanKeywords::default() }
    }
}

/// The scan options from the keyword arguments, checked by the library.
pub(crate) fn scan_options(k: ScanKeywords) -> PyResult<ScanOptions> {
    let mut opts = ScanOptions::default();
    opts.align.normalize = k.switches.options();
    // `scan --no-translations` is `translations=False`.
    opts.across = k.translations;
    if let Some(m) = k.max_df {
        opts.seeds.max_df = m;
    }
    if let Some(m) = k.min_seeds {
        opts.seeds.min_seeds = m;
    }
    if let Some(s) = k.min_significance {
        opts.report = opts.report.with_min_significance(s);
    }
    if let Some(s) = k.min_specificity {
        opts.report.min_specificity = s;
    }
    if k.all {
        opts.report = opts.report.every_passage();
    }
    if let Some(m) = k.memory_mib {
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
#[pyo3(signature = (*, max_df=None, min_seeds=None, min_significance=None, min_specificity=None, all=false, memory_mib=None, translations=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_scan_options(
    max_df: Option<u32>,
    min_seeds: Option<u32>,
    min_significance: Option<f64>,
    min_specificity: Option<f64>,
    all: bool,
    memory_mib: Option<u64>,
    translations: bool,
) -> PyResult<()> {
    let keywords = ScanKeywords {
        max_df,
        min_seeds,
        min_significance,
        min_specificity,
        all,
        memory_mib,
        translations,
        ..Default::default()
    };
    scan_options(keywords).map(|_| ())
}

/// The three scan tables as Arrow IPC streams, and the summary as JSON.
type ScanTables<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, String);

/// The table of an Arrow IPC stream, named `table` (its rows' sources are
/// `table#ROW`).
fn table_of_ipc(bytes: &[u8]) -> PyResult<Table> {
    let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None).map_err(value_error)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>().map_err(value_error)?;
    Table::new("table", schema, batches).map_err(value_error)
}

/// Scan the corpus `inputs` (files, folders, globs), or a `table` in
/// memory (an Arrow IPC stream), as `parallels scan` does. Returns the documents, passages and clusters tables as Arrow IPC
/// streams and `summary.json` as JSON text; with `output`, also writes the
/// CLI's tables there (`format`: a name of the library's `TABLE_WRITERS`,
/// "jsonl" or "parquet").
#[pyfunction]
#[pyo3(signature = (inputs, *, id="id".to_string(), text="text".to_string(), group=None, group_by_dir=false, strict=true, max_df=None, min_seeds=None, min_significance=None, min_specificity=None, all=false, memory_mib=None, script=true, numbers=true, footnotes=true, boilerplate=true, translations=true, output=None, format="jsonl".to_string(), work_dir=None, table=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan<'py>(
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
    translations: bool,
    output: Option<PathBuf>,
    format: String,
    work_dir: Option<PathBuf>,
    table: Option<Vec<u8>>,
) -> PyResult<ScanTables<'py>> {
    let switches = Switches { script, numbers, footnotes, boilerplate };
    let opts = scan_options(ScanKeywords {
        max_df,
        min_seeds,
        min_significance,
        min_specificity,
        all,
        memory_mib,
        switches,
        translations,
    })?;
    let Some(writer) = TABLE_WRITERS.iter().copied().find(|w| w.name() == format) else {
        let names: Vec<String> = TABLE_WRITERS.iter().map(|w| format!("{:?}", w.name())).collect();
        return Err(value_error(format!("format={format:?}: {}", names.join(" or "))));
    };
    let (d, p, c, s) = interruptible(py, move || -> PyResult<_> {
        let inputs = match table {
            // A table in memory, as an Arrow IPC stream, read as it is.
            Some(bytes) => {
                if !inputs.is_empty() {
                    return Err(value_error("inputs or a table, not both"));
                }
                vec![Input::Table(table_of_ipc(&bytes)?)]
            }
            None => resolve(&inputs).map_err(value_error)?,
        };
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
            writer
                .write(&result, o)
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
