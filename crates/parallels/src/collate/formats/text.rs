//! `--format text`: the terminal view ([`TextView`]).

use super::writer::{Run, WriteError, Writer};
use crate::report::text::TextView;

/// A summary per pair and the passages side by side.
pub struct Text;

impl Writer for Text {
    fn name(&self) -> &'static str {
        "text"
    }

    fn about(&self) -> &'static str {
        "A summary per pair and the passages side by side"
    }

    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        let view = TextView {
            out: run.output,
            docs: run.docs,
            prepared: run.prepared,
            color: run.color,
            width: run.width,
            summary_only: run.summary_only,
        };
        view.write(out)?;
        Ok(())
    }
}
