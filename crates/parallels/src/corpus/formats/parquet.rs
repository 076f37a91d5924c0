//! Parquet: the id, text and group columns and the other scalar columns,
//! read batch by batch; and a table in memory ([`Table`]), whose record
//! batches are read as a Parquet file's are.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, DataType, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use serde_json::{Number, Value};

use super::record::{Record, RecordFormat, Records};
use crate::corpus::doc::{Format, Origin, Position, Source};
use crate::corpus::error::{null, wrong_type, CorpusError};
use crate::corpus::options::{CorpusOptions, PARQUET_BATCH_ROWS};
use crate::corpus::raw::{without_prefix, RawDoc};
use crate::corpus::summary::Summary;
use crate::corpus::table::Table;
use crate::plumbing::problem::{Problem, ProblemKind};

/// The format: Parquet, records numbered by row; its columns are checked
/// from the footer before reading.
pub(super) struct Parquet;

impl RecordFormat for Parquet {
    fn name(&self) -> &'static str {
        "parquet"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["parquet"]
    }

    fn rows(&self) -> bool {
        true
    }

    fn refuses_compressed(&self) -> Option<&'static str> {
        Some(
            "a compressed Parquet file is not read (Parquet compresses its columns itself); decompress it first \
             (e.g. `gunzip -k`)",
        )
    }

    fn check(&self, path: &Path, options: &CorpusOptions) -> Result<(), CorpusError> {
        check_columns(path, options)
    }

    fn open(&self, path: &Path, options: &CorpusOptions, summary: &mut Summary) -> Result<Box<dyn Records>, Problem> {
        Ok(Box::new(ParquetSource::open(path, options, summary)?))
    }
}

impl Records for ParquetSource {
    fn next(
        &mut self,
        input: usize,
        options: &CorpusOptions,
        _summary: &mut Summary,
        _bytes: &mut Vec<u8>,
    ) -> Option<Record> {
        self.next_row(input, options).map(Record::Read)
    }
}

/// Check the columns of the Parquet file at `path` against `options` (its
/// footer only); a file that cannot be opened is reported when it is read.
fn check_columns(path: &Path, options: &CorpusOptions) -> Result<(), CorpusError> {
    if let Ok(builder) =
        File::open(path).map_err(drop).and_then(|file| ParquetRecordBatchReaderBuilder::try_new(file).map_err(drop))
    {
        ParquetPlan::new(path, builder.schema(), options)?;
    }
    Ok(())
}

/// Check the columns of a table in memory against `options`.
pub(crate) fn check_table_columns(table: &Table, options: &CorpusOptions) -> Result<(), CorpusError> {
    ParquetPlan::new(table.name(), table.schema(), options).map(drop)
}

/// Which columns of a Parquet file are read, checked against the options.
struct ParquetPlan {
    /// Root column indices to read.
    roots: Vec<usize>,
    /// Columns kept as metadata, in file order.
    meta: Vec<String>,
    /// Columns not read, with their type.
    ignored: Vec<(String, String)>,
}

impl ParquetPlan {
    fn new(path: &Path, schema: &Schema, options: &CorpusOptions) -> Result<Self, CorpusError> {
        let find = |column: &str, role: &'static str, ok: fn(&DataType) -> bool, expected: &'static str| {
            let Ok(index) = schema.index_of(column) else {
                return Err(CorpusError::MissingColumn {
                    path: path.to_path_buf(),
                    column: column.to_owned(),
                    role,
                    columns: schema.fields().iter().map(|f| f.name().clone()).collect(),
                });
            };
            let found = schema.field(index).data_type();
            if !ok(found) {
                return Err(CorpusError::ColumnType {
                    path: path.to_path_buf(),
                    column: column.to_owned(),
                    role,
                    found: found.to_string(),
                    expected,
                });
            }
            Ok(index)
        };
        let id = find(&options.id_field, "id", |t| is_string(t) || is_integer(t), "a string or integer column")?;
        let text = find(&options.text_field, "text", is_string, "a string column")?;
        let group = match &options.group_field {
            Some(field) => Some(find(field, "group", is_scalar, "a string, integer, float or boolean column")?),
            None => None,
        };
        let mut roots = vec![id, text];
        roots.extend(group);
        let mut meta = Vec::new();
        let mut ignored = Vec::new();
        for (index, field) in schema.fields().iter().enumerate() {
            if roots.contains(&index) {
                continue;
            }
            if is_scalar(field.data_type()) {
                meta.push(field.name().clone());
                roots.push(index);
            } else {
                ignored.push((field.name().clone(), field.data_type().to_string()));
            }
        }
        roots.sort_unstable();
        Ok(ParquetPlan { roots, meta, ignored })
    }
}

fn is_string(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => is_string(values),
        _ => false,
    }
}

fn is_integer(data_type: &DataType) -> bool {
    match data_type {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => true,
        DataType::Dictionary(_, values) => is_integer(values),
        _ => false,
    }
}

/// The types kept in `meta`.
fn is_scalar(data_type: &DataType) -> bool {
    match data_type {
        DataType::Null | DataType::Boolean | DataType::Float32 | DataType::Float64 => true,
        DataType::Dictionary(_, values) => is_scalar(values),
        other => is_string(other) || is_integer(other),
    }
}

/// One value of a column of a type that [`is_scalar`] accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cell<'a> {
    Null,
    Str(&'a str),
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
}

fn cell(array: &dyn Array, row: usize) -> Cell<'_> {
    if array.is_null(row) {
        return Cell::Null;
    }
    match array.data_type() {
        DataType::Utf8 => Cell::Str(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Cell::Str(array.as_string::<i64>().value(row)),
        DataType::Utf8View => Cell::Str(array.as_string_view().value(row)),
        DataType::Int8 => Cell::Int(array.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => Cell::Int(array.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Cell::Int(array.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Cell::Int(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Cell::UInt(array.as_primitive::<UInt8Type>().value(row).into()),
        DataType::UInt16 => Cell::UInt(array.as_primitive::<UInt16Type>().value(row).into()),
        DataType::UInt32 => Cell::UInt(array.as_primitive::<UInt32Type>().value(row).into()),
        DataType::UInt64 => Cell::UInt(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => Cell::Float(array.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => Cell::Float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Boolean => Cell::Bool(array.as_boolean().value(row)),
        DataType::Dictionary(_, _) => {
            let dictionary = array.as_any_dictionary();
            let key = match cell(dictionary.keys(), row) {
                Cell::Int(key) => usize::try_from(key).ok(),
                Cell::UInt(key) => usize::try_from(key).ok(),
                _ => None,
            };
            let values = dictionary.values().as_ref();
            match key {
                Some(key) if key < values.len() => cell(values, key),
                _ => Cell::Null,
            }
        }
        _ => Cell::Null,
    }
}

impl Cell<'_> {
    /// As written in an id or group: strings as they are, numbers in
    /// decimal; `None` for null.
    fn to_label(self) -> Option<String> {
        match self {
            Cell::Null => None,
            Cell::Str(s) => Some(s.to_owned()),
            Cell::Int(n) => Some(n.to_string()),
            Cell::UInt(n) => Some(n.to_string()),
            Cell::Float(x) => Some(x.to_string()),
            Cell::Bool(b) => Some(b.to_string()),
        }
    }

    fn to_json(self) -> Value {
        match self {
            Cell::Null => Value::Null,
            Cell::Str(s) => Value::String(s.to_owned()),
            Cell::Int(n) => Value::Number(n.into()),
            Cell::UInt(n) => Value::Number(n.into()),
            Cell::Float(x) => Number::from_f64(x).map_or(Value::Null, Value::Number),
            Cell::Bool(b) => Value::Bool(b),
        }
    }
}

/// Indices of the columns read, in the batches.
struct ParquetColumns {
    id: usize,
    text: usize,
    group: Option<usize>,
    meta: Vec<(String, usize)>,
}

impl ParquetColumns {
    /// The columns of `plan` in the batches of `schema`; the file (or
    /// table) `display` counted in `summary`, with the columns not read.
    fn of(
        schema: &Schema,
        plan: ParquetPlan,
        options: &CorpusOptions,
        summary: &mut Summary,
        display: &str,
    ) -> Result<ParquetColumns, Problem> {
        let index = |name: &str| {
            schema.index_of(name).map_err(|_| {
                let message = format!("column \"{name}\" was not read (internal error)");
                Problem::new(display, ProblemKind::Unreadable, message)
            })
        };
        let columns = ParquetColumns {
            id: index(&options.id_field)?,
            text: index(&options.text_field)?,
            group: options.group_field.as_deref().map(index).transpose()?,
            meta: plan.meta.iter().map(|name| Ok((name.clone(), index(name)?))).collect::<Result<_, Problem>>()?,
        };
        for (name, kind) in plan.ignored {
            summary.ignored_columns.entry(name).or_insert(kind);
        }
        summary.files += 1;
        Ok(columns)
    }
}

/// A Parquet file (or a table in memory) being read batch by batch.
pub(crate) struct ParquetSource {
    file: Arc<Path>,
    /// The path as messages show it.
    display: String,
    reader: Box<dyn Iterator<Item = Result<RecordBatch, ArrowError>> + Send>,
    columns: ParquetColumns,
    batch: Option<RecordBatch>,
    row_in_batch: usize,
    /// Row number (in the file) of the first row of `batch`.
    batch_start: u64,
    done: bool,
}

impl ParquetSource {
    /// Open a Parquet file and plan which columns to read (counted in
    /// `summary`, with the columns not read).
    fn open(path: &Path, options: &CorpusOptions, summary: &mut Summary) -> Result<ParquetSource, Problem> {
        let display = crate::read::shown(path).to_string();
        let unreadable = |message: String| Problem::new(display.as_str(), ProblemKind::Unreadable, message);
        let file = File::open(path).map_err(|e| unreadable(format!("cannot open it: {e}")))?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| unreadable(format!("not a readable Parquet file: {e}")))?;
        let plan = ParquetPlan::new(path, builder.schema(), options)
            .map_err(|e| unreadable(without_prefix(e.to_string(), &display)))?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), plan.roots.iter().copied());
        let reader = builder
            .with_projection(mask)
            .with_batch_size(PARQUET_BATCH_ROWS)
            .build()
            .map_err(|e| unreadable(format!("not a readable Parquet file: {e}")))?;
        let columns = ParquetColumns::of(&reader.schema(), plan, options, summary, &display)?;
        summary.bytes += len;
        Ok(ParquetSource {
            file: path.into(),
            display,
            reader: Box::new(reader),
            columns,
            batch: None,
            row_in_batch: 0,
            batch_start: 0,
            done: false,
        })
    }

    /// Read the record batches of `table` as the rows of a Parquet file
    /// named as the table is (counted in `summary`, with the columns not
    /// read).
    pub(crate) fn of_table(
        table: &Table,
        options: &CorpusOptions,
        summary: &mut Summary,
    ) -> Result<ParquetSource, Problem> {
        let display = crate::read::shown(table.name()).to_string();
        let unreadable = |message: String| Problem::new(display.as_str(), ProblemKind::Unreadable, message);
        let plan = ParquetPlan::new(table.name(), table.schema(), options)
            .map_err(|e| unreadable(without_prefix(e.to_string(), &display)))?;
        let columns = ParquetColumns::of(table.schema(), plan, options, summary, &display)?;
        summary.bytes += table.bytes();
        let batches: Vec<RecordBatch> = table.batches().to_vec();
        Ok(ParquetSource {
            file: table.name().into(),
            display,
            reader: Box::new(batches.into_iter().map(Ok)),
            columns,
            batch: None,
            row_in_batch: 0,
            batch_start: 0,
            done: false,
        })
    }

    /// The next row of input `input`, a problem, or `None` at the end.
    fn next_row(&mut self, input: usize, options: &CorpusOptions) -> Option<Result<RawDoc, Problem>> {
        loop {
            if let Some(batch) = &self.batch {
                if self.row_in_batch < batch.num_rows() {
                    let row = self.row_in_batch;
                    self.row_in_batch += 1;
                    let number = self.batch_start + row as u64;
                    let source = Source {
                        file: self.file.clone(),
                        position: Position::Row(number),
                        format: Some(Format::PARQUET),
                    };
                    let origin = Origin { input, source, bytes: None };
                    return Some(parquet_row(batch, row, &self.columns, origin, options));
                }
                self.batch_start += batch.num_rows() as u64;
                self.batch = None;
            }
            if self.done {
                return None;
            }
            match self.reader.next() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(Ok(batch)) => {
                    self.batch = Some(batch);
                    self.row_in_batch = 0;
                }
                Some(Err(e)) => {
                    self.done = true;
                    let source = format!("{}#{}", self.display, self.batch_start);
                    let message = format!("cannot read rows from here on: {e}; the rest of the file is skipped");
                    return Some(Err(Problem::new(source, ProblemKind::Unreadable, message)));
                }
            }
        }
    }
}

fn parquet_row(
    batch: &RecordBatch,
    row: usize,
    columns: &ParquetColumns,
    origin: Origin,
    options: &CorpusOptions,
) -> Result<RawDoc, Problem> {
    // Rendered only for a problem.
    let source = || origin.source.to_string();
    let (id, numeric_id) = match cell(batch.column(columns.id).as_ref(), row) {
        Cell::Str("") => return Err(wrong_type(source(), &options.id_field, "an empty string", "")),
        Cell::Null => return Err(null(source(), &options.id_field)),
        other => (other.to_label().unwrap_or_default(), !matches!(other, Cell::Str(_))),
    };
    let text = match cell(batch.column(columns.text).as_ref(), row) {
        Cell::Str(text) => text.to_owned(),
        _ => return Err(null(source(), &options.text_field)),
    };
    // Without a group (null), a row is compared with every other.
    let group = columns.group.and_then(|index| cell(batch.column(index).as_ref(), row).to_label());
    let meta = columns
        .meta
        .iter()
        .map(|(name, index)| (name.clone(), cell(batch.column(*index).as_ref(), row).to_json()))
        .collect();
    Ok(RawDoc { id, numeric_id, text, encoding: "utf-8".to_owned(), replaced: 0, group, meta, origin })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, DictionaryArray, Int32Array, StringArray};

    use super::*;

    #[test]
    fn dictionary_cells_are_looked_up() {
        let dictionary: DictionaryArray<Int32Type> = vec![Some("x"), None, Some("y"), Some("x")].into_iter().collect();
        let array: ArrayRef = Arc::new(dictionary);
        let cells: Vec<Cell> = (0..4).map(|row| cell(array.as_ref(), row)).collect();
        assert_eq!(cells, [Cell::Str("x"), Cell::Null, Cell::Str("y"), Cell::Str("x")]);
        let ints = Int32Array::from(vec![Some(-3), None]);
        assert_eq!(cell(&ints, 0), Cell::Int(-3));
        assert_eq!(cell(&ints, 1), Cell::Null);
        let strings = StringArray::from(vec!["a"]);
        assert_eq!(cell(&strings, 0).to_json(), Value::String("a".to_owned()));
        assert_eq!(Cell::Float(f64::NAN).to_json(), Value::Null);
        assert_eq!(Cell::UInt(7).to_label().as_deref(), Some("7"));
    }
}
