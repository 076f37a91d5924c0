//! A table in memory as an input: Arrow record batches (a caller's table,
//! `parallels.scan(table)` in Python), read as the rows of a Parquet file
//! are, without a file between.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// Record batches of one schema, under a name that sources and messages
/// show (`name#ROW`, as for a Parquet file). Clones share the batches.
#[derive(Clone)]
pub struct Table {
    name: Arc<Path>,
    schema: SchemaRef,
    batches: Arc<[RecordBatch]>,
}

impl Table {
    /// The table of `batches` (of `schema`, in order) named `name`; an
    /// error names the first batch of another schema.
    pub fn new(name: impl AsRef<Path>, schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<Table, String> {
        if let Some(k) = batches.iter().position(|b| b.schema().fields() != schema.fields()) {
            return Err(format!("record batch {k} has another schema than the table's"));
        }
        Ok(Table { name: name.as_ref().into(), schema, batches: batches.into() })
    }

    /// The name sources and messages show.
    pub fn name(&self) -> &Path {
        &self.name
    }

    /// The columns.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The batches, in order.
    pub fn batches(&self) -> &[RecordBatch] {
        &self.batches
    }

    /// Its rows.
    pub fn rows(&self) -> u64 {
        self.batches.iter().map(|b| b.num_rows() as u64).sum()
    }

    /// The memory its arrays take.
    pub fn bytes(&self) -> u64 {
        self.batches.iter().map(|b| b.get_array_memory_size() as u64).sum()
    }
}

/// Two tables are one input when they share their batches.
impl PartialEq for Table {
    fn eq(&self, other: &Table) -> bool {
        self.name == other.name && Arc::ptr_eq(&self.batches, &other.batches)
    }
}

impl Eq for Table {}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Table({:?}, {} rows)", self.name, self.rows())
    }
}
