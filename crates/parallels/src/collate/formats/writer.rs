//! What every writer of `parallels align` takes and is: [`Run`],
//! [`Writer`], [`WriteError`] (a leaf, so that the formats import it and
//! not the list that imports them).

use super::super::export::{witnesses, ExportError, WitnessInfo};
use super::super::table::{build_table, Table};
use crate::align::Prepared;
use crate::output::AlignOutput;
use crate::read::Document;
use std::sync::OnceLock;

/// One run of `parallels align`, as the writers take it.
pub struct Run<'a> {
    /// The texts as read, in input order.
    pub docs: &'a [Document],
    /// Their ids, in input order.
    pub ids: &'a [String],
    /// Their prepared (normalized, segmented) texts, in input order.
    pub prepared: &'a [Prepared],
    /// Every pair of them aligned.
    pub output: &'a AlignOutput,
    /// A language tag per text, in input order (TMX); a text without one
    /// (or with an empty one) gets its language guessed.
    pub langs: &'a [String],
    /// The text view: colour differences with ANSI escapes.
    pub color: bool,
    /// The text view: the width of a line, in terminal columns.
    pub width: usize,
    /// The text view: only the summary line of each pair.
    pub summary_only: bool,
    table: OnceLock<Table>,
}

impl<'a> Run<'a> {
    /// A run of `docs` (their `ids` and `prepared` texts) aligned as
    /// `output` ([`Collation::run`](super::super::Collation::run)), with no
    /// language given, no colour and the narrowest text view.
    pub fn new(docs: &'a [Document], ids: &'a [String], prepared: &'a [Prepared], output: &'a AlignOutput) -> Run<'a> {
        Run {
            docs,
            ids,
            prepared,
            output,
            langs: &[],
            color: false,
            width: crate::report::text::MIN_WIDTH,
            summary_only: false,
            table: OnceLock::new(),
        }
    }

    /// The original texts, in input order.
    pub fn texts(&self) -> Vec<&'a str> {
        self.docs.iter().map(|d| d.text.as_str()).collect()
    }

    /// The n-way table of all texts ([`build_table`]), built the first time
    /// a writer (or the HTML view) asks, and only then.
    pub fn table(&self) -> &Table {
        self.table.get_or_init(|| {
            let prepared: Vec<&Prepared> = self.prepared.iter().collect();
            build_table(self.ids, &self.texts(), &prepared, self.output)
        })
    }

    /// What the collation output says of each text ([`witnesses`]).
    pub fn witnesses(&self) -> Vec<WitnessInfo> {
        witnesses(self.output, self.prepared)
    }
}

/// Why a format could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The format cannot be made from these texts.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// JSON could not be written.
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// An output format of `parallels align`.
pub trait Writer: Send + Sync {
    /// The name `--format` takes.
    fn name(&self) -> &'static str;

    /// What it writes, in a line or two (the help of `--format`).
    fn about(&self) -> &'static str;

    /// Whether it pairs exactly two texts ([`Writer::check`]).
    fn two_texts(&self) -> bool {
        false
    }

    /// Whether its sentences are lines by default (`--sentences lines`).
    fn lines(&self) -> bool {
        false
    }

    /// Whether it can be made from `n` texts: a format of two texts
    /// refuses any other number, naming the formats that take them.
    fn check(&self, n: usize) -> Result<(), ExportError> {
        if self.two_texts() && n != 2 {
            return Err(ExportError::NotTwo { format: self.name(), given: n });
        }
        Ok(())
    }

    /// Write `run` to `out`.
    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError>;
}
