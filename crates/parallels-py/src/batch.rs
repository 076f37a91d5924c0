//! The pieces the Spark driver runs per batch (`parallels.spark`): each a
//! call into the library's `scan::batch` (fingerprints, feature counts,
//! candidate pairs aligned, clusters; sketches, pairs settled, exact
//! similarities) or `dedup::keeper`, its rows in and out as Arrow IPC.

use crate::convert::{int64_blocks, int64_schema, ipc, py_blocks, value_error};
use crate::dedup::{dedup_options, verify_of};
use crate::scan::{scan_options, ScanKeywords};
use arrow_array::builder::{FixedSizeBinaryBuilder, ListBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch, UInt32Array, UInt64Array};
use arrow_schema::ArrowError;
use parallels::dedup::verify::Decision;
use parallels::dedup::{keeper, Keep};
use parallels::normalize::Switches;
use parallels::scan::parquet_out::passages_batch;
use parallels::scan::{batch, ScanOptions, ScanPassage};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

/// Fingerprints of a batch of texts: an Arrow IPC stream with `chars`
/// (u64), `seed_hash` (list of u64) and `seed_pos` (list of u32), a row
/// per text, in order.
#[pyfunction]
#[pyo3(signature = (texts, *, script=true, numbers=true, footnotes=true, boilerplate=true))]
pub(crate) fn fingerprints<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let switches = Switches { script, numbers, footnotes, boilerplate };
    let opts = scan_options(ScanKeywords::normalized(switches))?;
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
pub(crate) fn minhash<'py>(
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
        let sk = parallels::dedup::batch::sketches(&refs, &opts);
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

/// Whether each record `(ids[i], texts[i])` (either missing) is a
/// document the corpus reader takes, before its duplicate check: an id
/// that is not empty and a text that is not blank.
#[pyfunction]
pub(crate) fn documents(ids: Vec<Option<String>>, texts: Vec<Option<String>>) -> PyResult<Vec<bool>> {
    if ids.len() != texts.len() {
        return Err(value_error("ids and texts: one value per record each"));
    }
    Ok(ids
        .iter()
        .zip(&texts)
        .map(|(id, text)| parallels::corpus::is_document(id.as_deref(), text.as_deref()))
        .collect())
}

/// Removed documents' similarities as the removed list gives them (rounded
/// to 4 places).
#[pyfunction]
pub(crate) fn listed_similarities(similarities: Vec<f64>) -> Vec<f64> {
    similarities.into_iter().map(parallels::dedup::listed_similarity).collect()
}

/// The pairs `dedup` compares in buckets of documents sharing a band key
/// (each bucket's documents in input order): each document with the
/// earlier ones among the first `cap` of its bucket; the pairs `(a, b)`,
/// `a < b`, as two lists (a pair met in two buckets given twice).
#[pyfunction]
pub(crate) fn bucket_pairs(py: Python<'_>, buckets: Vec<Vec<i64>>, cap: usize) -> (Vec<i64>, Vec<i64>) {
    py.detach(move || buckets.iter().flat_map(|b| parallels::dedup::batch::bucket_pairs(b, cap)).unzip())
}

/// The signatures' decision on candidate pairs, as `dedup` takes it: for
/// each pair `(a[i], b[i])` of signatures, 1 (a duplicate), 0 (none) or -1
/// (left to `exact_similarities`), and the estimated similarity.
#[pyfunction]
#[pyo3(signature = (a, b, *, threshold=None, perms=None, verify="exact".to_string()))]
pub(crate) fn settle_pairs(
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
        parallels::dedup::batch::settle_pairs(&pairs, &opts)
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
pub(crate) fn exact_similarities(
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
        parallels::dedup::batch::exact_similarities(&pairs, &opts)
    }))
}

/// The kept member of each cluster by `dedup`'s rule: `members` (document
/// indices in input order), with each member's `chars` and `keep_field`
/// value (`values`, None without one); `keep` "first", "longest" or
/// "field".
#[pyfunction]
#[pyo3(signature = (members, chars, values, *, keep="first".to_string()))]
pub(crate) fn keepers(
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
pub(crate) fn group_seeds<'py>(
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
pub(crate) fn scan_blocks<'py>(
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
    let switches = Switches { script, numbers, footnotes, boilerplate };
    let opts = scan_options(ScanKeywords::normalized(switches))?;
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
pub(crate) fn feature_counts<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    script: bool,
    numbers: bool,
    footnotes: bool,
    boilerplate: bool,
) -> PyResult<(u64, Bound<'py, PyBytes>)> {
    let switches = Switches { script, numbers, footnotes, boilerplate };
    let opts = scan_options(ScanKeywords::normalized(switches))?;
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
pub(crate) struct FeatureTable(Arc<parallels::align::features::CorpusDf>);

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
/// document numbers; `cluster` 0). Everything happens in memory.
#[pyfunction]
#[pyo3(signature = (a, b, k, docs, texts, shared_pos, shared_df, table, *, min_significance=None, min_specificity=None, all=false, script=true, numbers=true, footnotes=true, boilerplate=true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn align_candidates<'py>(
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
) -> PyResult<Bound<'py, PyBytes>> {
    let switches = Switches { script, numbers, footnotes, boilerplate };
    let opts = scan_options(ScanKeywords { min_significance, min_specificity, all, switches, ..Default::default() })?;
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
        let found = batch::align_candidates(&pairs, &docs, &df, &opts).map_err(value_error)?;
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

/// The share of each document inside the spans `(start, end)` of its
/// passages, given its length in characters, as the documents table's
/// `shared` gives it (overlapping spans counted once, 4 places).
#[pyfunction]
pub(crate) fn shared_shares(chars: Vec<u64>, spans: Vec<Vec<(u32, u32)>>) -> PyResult<Vec<f64>> {
    if chars.len() != spans.len() {
        return Err(value_error("chars and spans: one value per document each"));
    }
    Ok(chars
        .into_iter()
        .zip(spans)
        .map(|(n, s)| batch::shared_share(n, s.into_iter().map(|(a, b)| [a, b]).collect()))
        .collect())
}

/// Every two spans of one document that are one place, as `scan`'s
/// clusters join them: the spans are `docs[i]`, `starts[i]..ends[i]`,
/// named `nodes[i]`; the pairs of nodes, as two lists.
#[pyfunction]
pub(crate) fn place_edges(
    py: Python<'_>,
    docs: Vec<i64>,
    starts: Vec<u32>,
    ends: Vec<u32>,
    nodes: Vec<i64>,
) -> PyResult<(Vec<i64>, Vec<i64>)> {
    let n = docs.len();
    if starts.len() != n || ends.len() != n || nodes.len() != n {
        return Err(value_error("docs, starts, ends and nodes: one value per span each"));
    }
    if starts.iter().zip(&ends).any(|(s, e)| s > e) {
        return Err(value_error("a span ends before it starts"));
    }
    Ok(py.detach(move || {
        let spans: Vec<_> = (0..n).map(|i| (docs[i], [starts[i], ends[i]], nodes[i])).collect();
        batch::place_edges(&spans).into_iter().unzip()
    }))
}

/// The members of clusters, each given as the spans `(doc, start, end)`
/// of its passages' sides: per cluster, its members (sorted, the
/// overlapping spans of a document merged) and its excerpt's span, as
/// `scan` gives them.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn cluster_members(
    py: Python<'_>,
    clusters: Vec<Vec<(i64, u32, u32)>>,
) -> PyResult<Vec<(Vec<(i64, u32, u32)>, (i64, u32, u32))>> {
    if clusters.iter().flatten().any(|&(_, s, e)| s > e) {
        return Err(value_error("a span ends before it starts"));
    }
    if clusters.iter().any(Vec::is_empty) {
        return Err(value_error("a cluster without spans"));
    }
    Ok(py.detach(move || {
        let span = |(d, s): (i64, parallels::align::Span)| (d, s[0], s[1]);
        clusters
            .into_iter()
            .map(|c| {
                let spans: Vec<_> = c.into_iter().map(|(d, s, e)| (d, [s, e])).collect();
                let (members, excerpt) = batch::cluster_members(&spans);
                (members.into_iter().map(span).collect(), span(excerpt.expect("a cluster with spans")))
            })
            .collect()
    }))
}

/// The clusters of passages `(a, a_start, a_end, b, b_start, b_end)` (`a`,
/// `b` document numbers in the corpus's order, any 64-bit numbers), as
/// `scan` makes them: each passage's cluster, each cluster's members
/// `(doc, start, end)`, and each cluster's excerpt span `(doc, start, end)`.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn clusters(
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
