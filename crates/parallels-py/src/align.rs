//! `align` and `align_files`: every pair of a few texts, as
//! `parallels align --format json` aligns them.

use crate::convert::{interruptible, normalize, value_error};
use parallels::align::{Aligner, Options, ALIGN_BYTES_PER_BYTE, MAX_TEXT_BYTES};
use parallels::read::Document;
use pyo3::prelude::*;
use std::path::PathBuf;

/// Align every pair of `texts` (ids in `ids`, one each, unique) and return
/// the `parallels.align/1` document as JSON text.
#[pyfunction]
#[pyo3(signature = (texts, ids, *, sigmas=None, gap=None, semantic=true, script=true, numbers=true, footnotes=true, boilerplate=true, max_size_mib=MAX_TEXT_BYTES >> 20, sentences="text"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn align(
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
/// A file over `max_size_mib` is refused; a pipe or a device
/// (`/dev/zero`) is read up to the limit, not further.
#[pyfunction]
#[pyo3(signature = (paths, *, semantic=true, max_size_mib=MAX_TEXT_BYTES >> 20))]
pub(crate) fn align_files(py: Python<'_>, paths: Vec<PathBuf>, semantic: bool, max_size_mib: u64) -> PyResult<String> {
    let limit = max_size_mib.saturating_mul(1 << 20);
    interruptible(py, move || {
        let mut docs = Vec::new();
        for p in &paths {
            let doc = parallels::read::read_document_within(p, limit).map_err(|e| match e {
                parallels::read::ReadError::TooLarge { .. } => value_error(format!(
                    "{e} (max_size_mib={max_size_mib}); aligning takes about {ALIGN_BYTES_PER_BYTE} times a text's \
                     size in memory: split it, or use scan"
                )),
                e => value_error(e),
            })?;
            docs.push(doc);
        }
        let opts = Options { meaning: semantic, ..Options::default() };
        let collation = parallels::collate::collate(&Aligner::new(opts), &docs).map_err(value_error)?;
        serde_json::to_string(&collation.output).map_err(value_error)
    })
}
