//! The conversions every entry point shares: library errors as Python
//! exceptions, a whole command run without the GIL (and interruptible),
//! record batches as Arrow IPC streams, the normalization switches.

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::ArrowError;
use parallels::normalize::{NormalizeOptions, Switches};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

/// A library error as a Python `ValueError`.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Run `f` (a whole command: minutes on a large input) without the GIL,
/// on a thread of its own, while this thread lets Python handle its
/// signals every tenth of a second: Ctrl-C raises `KeyboardInterrupt` at
/// once instead of when the work is done. The work begun runs on to its
/// end in the background, and its result is dropped.
pub(crate) fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce() -> PyResult<T> + Send + 'static,
) -> PyResult<T> {
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
pub(crate) fn ipc(batches: &[RecordBatch]) -> Result<Vec<u8>, ArrowError> {
    let schema = batches[0].schema();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(Vec::new(), &schema)?;
    for b in batches {
        w.write(b)?;
    }
    w.finish()?;
    w.into_inner()
}

/// A schema of nullable int64 columns `names`.
pub(crate) fn int64_schema(names: &[&str]) -> arrow_schema::SchemaRef {
    use arrow_schema::{DataType, Field, Schema};
    Arc::new(Schema::new(names.iter().map(|n| Field::new(*n, DataType::Int64, true)).collect::<Vec<_>>()))
}

/// Blocks `(partition, IPC stream)` as Python values.
pub(crate) fn py_blocks(py: Python<'_>, blocks: Vec<(u64, Vec<u8>)>) -> Vec<(u64, Bound<'_, PyBytes>)> {
    blocks.into_iter().map(|(d, b)| (d, PyBytes::new(py, &b))).collect()
}

/// Rows `(partition, values)` as Arrow IPC blocks of the int64 columns
/// `names`, one block per partition: partitions ascending, rows in their
/// order inside one.
pub(crate) fn int64_blocks<const N: usize>(
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

/// The normalization rules, all on unless switched off: the four
/// keywords every entry point takes, as the library's one value
/// ([`Switches`], which states what goes with what).
pub(crate) fn normalize(script: bool, numbers: bool, footnotes: bool, boilerplate: bool) -> NormalizeOptions {
    Switches { script, numbers, footnotes, boilerplate }.options()
}
