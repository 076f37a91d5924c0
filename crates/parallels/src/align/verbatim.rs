//! Verbatim reuse: token-level identity of linked text.
//!
//! [`Identity`] measures how much of two token sequences is the same sequence
//! (longest common subsequence of token ids, over the longer side).

use super::{Passage, Prepared};
use crate::segment::{Token, WILDCARD};

/// Parameters of verbatim detection.
#[derive(Clone, Debug)]
pub struct VerbatimParams {
    /// A passage whose links share at least this share of tokens in order is
    /// verbatim.
    pub min_identity: f64,
}

impl Default for VerbatimParams {
    fn default() -> Self {
        VerbatimParams { min_identity: 0.8 }
    }
}

/// Accumulates the in-order token identity over several linked pieces.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    common: usize,
    longer: usize,
}

impl Identity {
    pub fn add(&mut self, a: &[Token], b: &[Token]) {
        self.common += lcs(a, b);
        self.longer += a.len().max(b.len());
    }

    pub fn ratio(&self) -> f64 {
        if self.longer == 0 {
            0.0
        } else {
            self.common as f64 / self.longer as f64
        }
    }
}

/// Length of the longest common subsequence of token ids (wildcards match
/// nothing). Quadratic in the piece lengths, which segmentation bounds.
pub fn lcs(a: &[Token], b: &[Token]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let mut prev = vec![0u32; b.len() + 1];
    let mut cur = vec![0u32; b.len() + 1];
    for x in a {
        for (k, y) in b.iter().enumerate() {
            cur[k + 1] = if x.id == y.id && x.id != WILDCARD { prev[k] + 1 } else { prev[k + 1].max(cur[k]) };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()] as usize
}

/// Verbatim passages not already covered by `found`. (Filled in by the
/// token-level finder.)
pub fn uncovered(_a: &Prepared, _b: &Prepared, _found: &[Passage], _p: &VerbatimParams) -> Vec<Passage> {
    Vec::new()
}
