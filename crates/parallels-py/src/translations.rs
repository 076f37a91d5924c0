//! The pieces of the translations stage the Spark driver runs
//! (`parallels.spark.scan`): each a call into the library's `scan::batch`
//! (each text's language; the languages compared; a batch's units and
//! quantized cheap vectors; the candidate pairs of the whole bank; a batch
//! of candidate pairs encoded and aligned), rows in and out as Arrow IPC.

use crate::convert::{ipc, value_error};
use crate::scan::{scan_options, ScanKeywords};
use arrow_array::builder::{Float32Builder, Int16Builder, Int64Builder, ListBuilder, UInt32Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int16Type, Int64Type, UInt32Type};
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray, UInt32Array};
use arrow_schema::ArrowError;
use parallels::encoder::DIM;
use parallels::normalize::Switches;
use parallels::scan::parquet_out::passages_batch;
use parallels::scan::{batch, ScanPassage};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The language of each text, as `scan` tells it while reading (None when
/// the text does not tell it).
#[pyfunction]
pub(crate) fn languages(py: Python<'_>, texts: Vec<String>) -> Vec<Option<&'static str>> {
    py.detach(move || {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        batch::languages(&refs)
    })
}

/// The languages `scan` compares for translations, with their document
/// counts, given the corpus's documents counted by language (`languages`
/// and `counts`, one count each; None: no language told): those the
/// encoder knows when there are two or more of them, none with
/// `translations=False`.
#[pyfunction]
#[pyo3(signature = (languages, counts, *, translations=true))]
pub(crate) fn compared_languages(
    languages: Vec<Option<String>>,
    counts: Vec<u64>,
    translations: bool,
) -> PyResult<BTreeMap<String, u64>> {
    if languages.len() != counts.len() {
        return Err(value_error("languages and counts: one count per language"));
    }
    let opts = parallels::scan::ScanOptions { across: translations, ..Default::default() };
    let pairs: Vec<(Option<&str>, u64)> = languages.iter().map(|l| l.as_deref()).zip(counts).collect();
    Ok(batch::compared_languages(&pairs, &opts))
}

/// The units of a batch of texts (the documents `docs`) whose language is
/// one of `languages` (those compared), with their cheap vectors quantized
/// as the bank keeps them: an Arrow IPC stream, a row per such document:
/// `doc` (int64), `language`, `sentences` (u32), `units` (list of u32),
/// `scales` (list of f32, one per unit) and `rows` (list of i16, DIM per
/// unit, in order).
#[pyfunction]
#[pyo3(signature = (texts, docs, languages, *, script=true, numbers=true, footnotes=true, boilerplate=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn translation_units<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    docs: Vec<i64>,
    languages: Vec<String>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    if docs.len() != texts.len() {
        return Err(value_error("texts and docs: one document number per text"));
    }
    let switches = Switches { script, numbers, footnotes, boilerplate };
    let opts = scan_options(ScanKeywords::normalized(switches))?;
    let bytes = py.detach(move || -> Result<Vec<u8>, ArrowError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let langs: Vec<&str> = languages.iter().map(String::as_str).collect();
        let found = batch::translation_units(&refs, &langs, &opts);
        let (mut doc, mut language, mut sentences) = (Vec::new(), Vec::new(), Vec::new());
        let mut units = ListBuilder::new(UInt32Builder::new());
        let mut scales = ListBuilder::new(Float32Builder::new());
        let mut rows = ListBuilder::new(Int16Builder::new());
        for (&d, u) in docs.iter().zip(&found) {
            let Some(u) = u else { continue };
            doc.push(d);
            language.push(u.language);
            sentences.push(u.sentences);
            units.values().append_slice(&u.units);
            units.append(true);
            for i in 0..u.vectors.len() {
                scales.values().append_value(u.vectors.scale(i));
                rows.values().append_slice(u.vectors.row(i));
            }
            scales.append(true);
            rows.append(true);
        }
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("doc", Arc::new(Int64Array::from(doc))),
            ("language", Arc::new(StringArray::from(language))),
            ("sentences", Arc::new(UInt32Array::from(sentences))),
            ("units", Arc::new(units.finish())),
            ("scales", Arc::new(scales.finish())),
            ("rows", Arc::new(rows.finish())),
        ];
        ipc(&[RecordBatch::try_from_iter(columns)?])
    });
    Ok(PyBytes::new(py, &bytes.map_err(value_error)?))
}

/// The candidate pairs across languages of the whole corpus, from every
/// compared document's units (the streams of `translation_units`, any
/// order), as `scan` finds them: an Arrow IPC stream of `a`, `b` (int64,
/// `a < b`), `pair_a`, `pair_b` (lists of int64: the mined sentence
/// pairs), `margin` (list of f32) and `chain` (int64), by `a`, then `b`.
#[pyfunction]
pub(crate) fn translation_candidates<'py>(py: Python<'py>, blocks: Vec<Vec<u8>>) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.detach(move || -> Result<Vec<u8>, String> {
        let mut batches = Vec::new();
        for (i, block) in blocks.into_iter().enumerate() {
            let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(block), None)
                .map_err(|e| format!("block {i}: {e}"))?;
            for b in reader {
                batches.push(b.map_err(|e| format!("block {i}: {e}"))?);
            }
        }
        // Each block's columns, checked once.
        type Columns<'a> = (
            &'a Int64Array,
            &'a StringArray,
            &'a UInt32Array,
            &'a arrow_array::ListArray,
            &'a arrow_array::ListArray,
            &'a arrow_array::ListArray,
        );
        fn columns(b: &RecordBatch) -> Option<Columns<'_>> {
            Some((
                b.column_by_name("doc")?.as_primitive_opt::<Int64Type>()?,
                b.column_by_name("language")?.as_string_opt::<i32>()?,
                b.column_by_name("sentences")?.as_primitive_opt::<UInt32Type>()?,
                b.column_by_name("units")?.as_list_opt::<i32>()?,
                b.column_by_name("scales")?.as_list_opt::<i32>()?,
                b.column_by_name("rows")?.as_list_opt::<i32>()?,
            ))
        }
        // The lists' values, kept while `units` borrows them.
        let mut held = Vec::new();
        let mut docs: Vec<batch::UnitsDoc> = Vec::new();
        for (i, b) in batches.iter().enumerate() {
            let (doc, language, sentences, u, s, r) =
                columns(b).ok_or_else(|| format!("batch {i}: not the columns of translation_units"))?;
            for k in 0..b.num_rows() {
                if doc.is_null(k) || language.is_null(k) || u.is_null(k) || s.is_null(k) || r.is_null(k) {
                    return Err(format!("batch {i}, row {k}: a value is missing"));
                }
                let (uv, sv, rv) = (u.value(k), s.value(k), r.value(k));
                let (Some(uv), Some(sv), Some(rv)) = (
                    uv.as_primitive_opt::<UInt32Type>().cloned(),
                    sv.as_primitive_opt::<Float32Type>().cloned(),
                    rv.as_primitive_opt::<Int16Type>().cloned(),
                ) else {
                    return Err(format!("batch {i}, row {k}: units, scales or rows of another type"));
                };
                if sv.len() != uv.len() || rv.len() != uv.len() * DIM {
                    return Err(format!("batch {i}, row {k}: {DIM} values and a scale per unit"));
                }
                docs.push((doc.value(k), language.value(k), sentences.value(k)));
                held.push((doc.value(k), uv, sv, rv));
            }
        }
        let mut units: Vec<batch::UnitRow> = Vec::new();
        for (d, uv, sv, rv) in &held {
            for j in 0..uv.len() {
                units.push((*d, uv.value(j), &rv.values()[j * DIM..(j + 1) * DIM], sv.value(j)));
            }
        }
        let found = batch::translation_candidates(&docs, &units, &parallels::scan::ScanOptions::default())
            .map_err(|e| e.to_string())?;
        let (mut pa, mut pb, mut margin) = (
            ListBuilder::new(Int64Builder::new()),
            ListBuilder::new(Int64Builder::new()),
            ListBuilder::new(Float32Builder::new()),
        );
        for c in &found {
            for &(i, j, m) in &c.pairs {
                pa.values().append_value(i64::from(i));
                pb.values().append_value(i64::from(j));
                margin.values().append_value(m);
            }
            pa.append(true);
            pb.append(true);
            margin.append(true);
        }
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("a", Arc::new(Int64Array::from_iter_values(found.iter().map(|c| c.a)))),
            ("b", Arc::new(Int64Array::from_iter_values(found.iter().map(|c| c.b)))),
            ("pair_a", Arc::new(pa.finish())),
            ("pair_b", Arc::new(pb.finish())),
            ("margin", Arc::new(margin.finish())),
            ("chain", Arc::new(Int64Array::from_iter_values(found.iter().map(|c| c.chain as i64)))),
        ];
        let batch = RecordBatch::try_from_iter(columns).map_err(|e| e.to_string())?;
        ipc(&[batch]).map_err(|e| e.to_string())
    });
    Ok(PyBytes::new(py, &bytes.map_err(value_error)?))
}

/// Align a batch of candidate pairs across languages (`a < b`, their mined
/// sentence pairs `pair_a`, `pair_b`, `margin` and `chain`, as
/// `translation_candidates` gives them) whose documents are `docs` and
/// `texts`: each document encoded once, each pair aligned as `scan`
/// aligns it; the passages as an Arrow IPC stream with the columns of the
/// passages table (`a_doc`, `b_doc` as the decimal document numbers;
/// `cluster` 0).
#[pyfunction]
#[pyo3(signature = (a, b, pair_a, pair_b, margin, chain, docs, texts, *, script=true, numbers=true, footnotes=true, boilerplate=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn align_translations<'py>(
    py: Python<'py>,
    a: Vec<i64>,
    b: Vec<i64>,
    pair_a: Vec<Vec<u32>>,
    pair_b: Vec<Vec<u32>>,
    margin: Vec<Vec<f32>>,
    chain: Vec<usize>,
    docs: Vec<i64>,
    texts: Vec<String>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let n = a.len();
    if b.len() != n || pair_a.len() != n || pair_b.len() != n || margin.len() != n || chain.len() != n {
        return Err(value_error("a, b, pair_a, pair_b, margin and chain: one value per pair each"));
    }
    if docs.len() != texts.len() {
        return Err(value_error("docs and texts: one text per document"));
    }
    let mut candidates = Vec::with_capacity(n);
    for k in 0..n {
        let (i, j, m) = (&pair_a[k], &pair_b[k], &margin[k]);
        if j.len() != i.len() || m.len() != i.len() {
            return Err(value_error(format!("pair ({}, {}): pair_a, pair_b and margin of one length", a[k], b[k])));
        }
        let pairs = i.iter().zip(j).zip(m).map(|((&i, &j), &m)| (i, j, m)).collect();
        candidates.push(batch::TranslationCandidate { a: a[k], b: b[k], pairs, chain: chain[k] });
    }
    let switches = Switches { script, numbers, footnotes, boilerplate };
    let opts = scan_options(ScanKeywords::normalized(switches))?;
    let bytes = py.detach(move || -> Result<Vec<u8>, String> {
        let docs: Vec<(i64, &str)> = docs.iter().copied().zip(texts.iter().map(String::as_str)).collect();
        let found = batch::align_translations(&candidates, &docs, &opts).map_err(|e| e.to_string())?;
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
        ipc(&[passages_batch(&rows).map_err(|e| e.to_string())?]).map_err(|e| e.to_string())
    });
    Ok(PyBytes::new(py, &bytes.map_err(value_error)?))
}
