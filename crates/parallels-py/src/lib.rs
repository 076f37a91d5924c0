//! `parallels._parallels`: the library's entry points for the Python
//! package `parallels`.
//!
//! This crate only converts: Python values in, the library's results out,
//! as JSON text (the schemas of docs/DESIGN.md) or Arrow IPC streams (tables of
//! many rows, read by pyarrow without copying value by value). Every call
//! releases the GIL while the library works (on rayon's threads), and
//! every error becomes a Python `ValueError` (or `OSError` for I/O) whose
//! message names the record, file or option at fault. The Python modules
//! (`python/parallels`) hold the user-facing API.

mod align;
mod batch;
mod convert;
mod dedup;
mod scan;
mod translations;

use parallels::dedup::DedupOptions;
use parallels::scan::ScanOptions;
use pyo3::prelude::*;

// As the command line: the library's threads allocate many small vectors
// at once, and glibc's allocator serialized them (BENCHMARKS.md, the Spark
// driver). Only Rust's own allocations go through it; what Python holds is
// Python's, and no buffer allocated here is freed by Python (results leave
// as copies: bytes, lists, strings).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The module.
#[pymodule]
fn _parallels(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(align::align, m)?)?;
    m.add_function(wrap_pyfunction!(align::align_files, m)?)?;
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
    m.add_function(wrap_pyfunction!(batch::shared_shares, m)?)?;
    m.add_function(wrap_pyfunction!(batch::place_edges, m)?)?;
    m.add_function(wrap_pyfunction!(batch::cluster_members, m)?)?;
    m.add_function(wrap_pyfunction!(batch::bucket_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(batch::documents, m)?)?;
    m.add_function(wrap_pyfunction!(batch::listed_similarities, m)?)?;
    m.add_function(wrap_pyfunction!(translations::languages, m)?)?;
    m.add_function(wrap_pyfunction!(translations::compared_languages, m)?)?;
    m.add_function(wrap_pyfunction!(translations::translation_units, m)?)?;
    m.add_function(wrap_pyfunction!(translations::translation_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(translations::align_translations, m)?)?;
    m.add_class::<batch::FeatureTable>()?;
    m.add("PARQUET_SCHEMA", parallels::scan::parquet_out::PARQUET_SCHEMA)?;
    m.add("SCAN_SCHEMA", parallels::scan::SCAN_SCHEMA)?;
    m.add("ALIGN_SCHEMA", parallels::output::ALIGN_SCHEMA)?;
    let d = ScanOptions::default();
    let defaults = pyo3::types::PyDict::new(m.py());
    defaults.set_item("max_df", d.seeds.max_df)?;
    defaults.set_item("min_seeds", d.seeds.min_seeds)?;
    defaults.set_item("min_significance", d.report.min_significance)?;
    defaults.set_item("min_specificity", d.report.min_specificity)?;
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
