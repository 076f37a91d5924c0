//! A document as each kind of input reads it, before the reader's empty
//! and duplicate checks: what the readers of JSON Lines, Parquet and text
//! files hand to the reader (a module of its own, so that they need not
//! import the reader that imports them).

use serde_json::{Map, Value};

use super::doc::Origin;

/// A document before the empty and duplicate checks.
pub(crate) struct RawDoc {
    pub(crate) id: String,
    /// Whether the id was a number (JSON number, numeric Parquet column):
    /// `42` and `"42"` are one id, and a clash between them is named.
    pub(crate) numeric_id: bool,
    pub(crate) text: String,
    pub(crate) encoding: String,
    pub(crate) replaced: usize,
    pub(crate) group: Option<String>,
    pub(crate) meta: Map<String, Value>,
    pub(crate) origin: Origin,
}

/// `message` without a leading `"{source}: "`.
pub(crate) fn without_prefix(message: String, source: &str) -> String {
    match message.strip_prefix(source).and_then(|m| m.strip_prefix(": ")) {
        Some(rest) => rest.to_owned(),
        None => message,
    }
}
