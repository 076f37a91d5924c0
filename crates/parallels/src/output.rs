//! Output schemas, versioned.
//!
//! `parallels.align/1` is the document `parallels align --format json`
//! writes; see docs/DESIGN.md, "Output schemas (v1)". Offsets are code points into
//! the original decoded text, half-open.

use crate::align::Passage;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The schema tag of [`AlignOutput`].
pub const ALIGN_SCHEMA: &str = "parallels.align/1";

/// One input document as the output describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocumentInfo {
    /// Its id (unique in the output).
    pub id: String,
    /// The path it was read from, byte for byte: a path that is not UTF-8
    /// is written with lone surrogate escapes
    /// ([`json_path`](crate::corpus::json_path)).
    #[serde(with = "crate::corpus::json_path")]
    pub path: PathBuf,
    /// Length of the decoded text in code points.
    pub chars: u64,
    /// The encoding it was decoded from.
    pub encoding: String,
}

/// The passages one unordered pair of documents shares; `a` was given first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairOutput {
    /// The id of the document given first.
    pub a: String,
    /// The id of the other document.
    pub b: String,
    /// What they share, in the order of `a`.
    pub passages: Vec<Passage>,
}

/// The whole result of `parallels align`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlignOutput {
    /// [`ALIGN_SCHEMA`].
    pub schema: String,
    /// Every input, in the order given.
    pub documents: Vec<DocumentInfo>,
    /// Only pairs that share at least one passage.
    pub pairs: Vec<PairOutput>,
}

impl AlignOutput {
    /// The output of these documents and pairs, with the current schema tag.
    pub fn new(documents: Vec<DocumentInfo>, pairs: Vec<PairOutput>) -> AlignOutput {
        AlignOutput { schema: ALIGN_SCHEMA.to_string(), documents, pairs }
    }
}
