//! `--format json`: the `parallels.align/1` document.

use super::writer::{Run, WriteError, Writer};

/// The `parallels.align/1` JSON document, pretty-printed.
pub struct Json;

impl Writer for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn about(&self) -> &'static str {
        "The `parallels.align/1` JSON document"
    }

    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        serde_json::to_writer_pretty(&mut *out, &run.output)?;
        out.push(b'\n');
        Ok(())
    }
}
