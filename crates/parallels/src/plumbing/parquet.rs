//! How every Parquet file the crate writes is written.
//!
//! One place for the writer settings, so that `scan --format parquet` and
//! `dedup --format parquet` make files alike: zstd at its default level
//! (a good ratio at a speed that does not slow writing down), every other
//! setting the `parquet` crate's default.

use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

/// The settings of every Parquet writer of the crate.
pub fn writer_properties() -> WriterProperties {
    WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build()
}
