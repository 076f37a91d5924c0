//! The table of a run: everything the stages after the sketch need,
//! indexed by document ([`Table`]). A leaf, so that the clustering,
//! verification and paragraph files import it and not the module that
//! runs them.

use super::exact::{ExactSets, ShingleCache};
use super::minhash;

/// Documents per chunk of [`Table::signatures`].
const SIGNATURE_CHUNK: usize = 4096;
/// Everything the later stages need, indexed by document.
pub(crate) struct Table {
    /// Signatures in chunks of [`SIGNATURE_CHUNK`] documents: the table
    /// grows without copying itself (and touching twice the memory).
    pub signatures: Vec<Vec<u32>>,
    pub perms: usize,
    pub exact: Vec<Option<u128>>,
    /// For an exact copy, the first document (in input order) with the same
    /// tokens.
    pub copy_of: Vec<Option<u32>>,
    pub lines: Vec<Vec<u64>>,
    pub keep_values: Vec<Option<f64>>,
    /// The shingles of the first documents, kept from the first pass for
    /// the exact check (see [`ShingleCache`]).
    pub cache: ShingleCache,
}

impl Table {
    pub fn signature(&self, doc: u32) -> &[u32] {
        let k = self.perms;
        let (chunk, at) = (doc as usize / SIGNATURE_CHUNK, doc as usize % SIGNATURE_CHUNK);
        &self.signatures[chunk][at * k..(at + 1) * k]
    }

    /// Add the signature of the next document.
    pub(super) fn push_signature(&mut self, signature: &[u32]) {
        let full = SIGNATURE_CHUNK * self.perms;
        match self.signatures.last_mut() {
            Some(last) if last.len() < full => last.extend_from_slice(signature),
            _ => {
                let mut chunk = Vec::with_capacity(full);
                chunk.extend_from_slice(signature);
                self.signatures.push(chunk);
            }
        }
    }

    /// The document whose signature (and shingles) `doc` has: the first
    /// one with its tokens.
    pub(super) fn rep(&self, doc: u32) -> u32 {
        self.copy_of[doc as usize].unwrap_or(doc)
    }

    /// Similarity of two documents as the run measures it: exact when both
    /// have an exact shingle set (through the first document with their
    /// tokens), the signatures' estimate otherwise.
    pub(super) fn similarity(&self, a: u32, b: u32, exact: &ExactSets) -> f64 {
        let (a, b) = (self.rep(a), self.rep(b));
        exact.jaccard(a, b).unwrap_or_else(|| minhash::estimate(self.signature(a), self.signature(b)))
    }
}
