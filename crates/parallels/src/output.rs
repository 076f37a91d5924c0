//! Output schemas, versioned.
//!
//! `parallels.align/1` is the document `parallels align --format json`
//! writes; see DESIGN.md "Output schemas (v1)". Offsets are code points into
//! the original decoded text, half-open.

use crate::align::Passage;
use serde::{Deserialize, Serialize};

/// The schema tag of [`AlignOutput`].
pub const ALIGN_SCHEMA: &str = "parallels.align/1";

/// One input document as the output describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocumentInfo {
    pub id: String,
    pub path: String,
    /// Length of the decoded text in code points.
    pub chars: u64,
    pub encoding: String,
}

/// The passages one unordered pair of documents shares; `a` was given first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairOutput {
    pub a: String,
    pub b: String,
    pub passages: Vec<Passage>,
}

/// The whole result of `parallels align`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlignOutput {
    pub schema: String,
    pub documents: Vec<DocumentInfo>,
    /// Only pairs that share at least one passage.
    pub pairs: Vec<PairOutput>,
}

impl AlignOutput {
    pub fn new(documents: Vec<DocumentInfo>, pairs: Vec<PairOutput>) -> AlignOutput {
        AlignOutput { schema: ALIGN_SCHEMA.to_string(), documents, pairs }
    }
}
