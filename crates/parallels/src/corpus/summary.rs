//! What a reader has read and skipped: [`Summary`] (a leaf).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::plumbing::problem::ProblemKind;

/// What a [`CorpusReader`](super::CorpusReader) has read and skipped so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Documents handed on.
    pub documents: u64,
    /// Bytes of input read: whole text and Parquet files, JSON lines as they
    /// are read.
    pub bytes: u64,
    /// Files opened (text files read and decoded, JSON Lines and Parquet
    /// files opened).
    pub files: u64,
    /// Problems by kind. Each one skipped a record, a file, a folder, or the
    /// rest of a file.
    pub skipped: BTreeMap<ProblemKind, u64>,
    /// JSON Lines records read with U+FFFD in place of a lone surrogate
    /// escape (`\ud800` without its pair; Python writes them). Written
    /// only when not 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repaired: u64,
    /// The first of those records, as `file:line`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_repaired: Option<String>,
    /// Hidden files and folders not walked into.
    pub hidden: u64,
    /// Files in walked folders skipped for their extension.
    pub other_extension: u64,
    /// Entries of walked folders that are neither files nor folders:
    /// symbolic links to folders (not followed), sockets, devices, pipes.
    pub not_regular: u64,
    /// Parquet columns not kept in `meta`, by name, with their type.
    pub ignored_columns: BTreeMap<String, String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Summary {
    /// How many problems of this kind were met.
    pub fn skipped_count(&self, kind: ProblemKind) -> u64 {
        self.skipped.get(&kind).copied().unwrap_or(0)
    }

    /// How many problems were met in all.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    /// The warning about records read with lone surrogates repaired, if
    /// there were any: how many, and the first one's `file:line`.
    pub fn repaired_warning(&self) -> Option<String> {
        (self.repaired > 0).then(|| {
            format!(
                "{} JSON Lines record(s) held lone surrogate escapes (\\ud800-\\udfff without their pair, as \
                 Python writes text it could not decode); they were read with U+FFFD in their place, the first \
                 at {}",
                self.repaired,
                self.first_repaired.as_deref().unwrap_or("?")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_serializes_with_kind_names() {
        let mut summary = Summary { documents: 2, ..Summary::default() };
        summary.skipped.insert(ProblemKind::DuplicateId, 1);
        let value = serde_json::to_value(&summary).unwrap();
        assert_eq!(value["documents"], 2);
        assert_eq!(value["skipped"], serde_json::json!({"duplicate_id": 1}));
        for kind in ProblemKind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }
}
