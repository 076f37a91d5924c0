//! The chains every step of sentence alignment hands on: links of
//! sentence groups ([`SentLink`]), chains of them ([`Chain`]), the regions
//! aligned completely ([`Region`]) and what a pair's sentence alignment
//! gives ([`SentenceAlignment`]).
//!
//! The lexical aligner ([`super::parallel`]) and meaning's anchors
//! ([`super::meaning`]) make chains; completion ([`super::complete`]) and
//! beads ([`super::beads`]) extend them; [`super::modes`] says which run
//! for a pair; `mod.rs` turns the chains into passages.

/// One link of a chain: sentence ranges `[a0, a1)` and `[b0, b1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SentLink {
    /// First sentence of A.
    pub a0: u32,
    /// One past the last sentence of A.
    pub a1: u32,
    /// First sentence of B.
    pub b0: u32,
    /// One past the last sentence of B.
    pub b1: u32,
    /// Cosine similarity of the two groups.
    pub sim: f32,
    /// Cosine of the groups' sentence vectors, where meaning was measured
    /// ([`super::meaning`]).
    pub meaning: Option<f32>,
    /// Found by position and length between two other links
    /// ([`super::complete`]): no evidence that the texts are related.
    pub filled: bool,
}

/// A chain of links, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The links, by increasing sentence in both texts.
    pub links: Vec<SentLink>,
    /// The chain's local-alignment score (see the module doc): what its
    /// links earn above the pair's threshold, less what its skipped
    /// sentences cost.
    pub score: f32,
    /// Sentences of the chain's stretch without counterpart, when the
    /// chain was aligned completely ([`super::beads`]): links empty on one
    /// side (1-0, 0-1), in order.
    pub nulls: Vec<SentLink>,
}

/// The chains found between two texts, best first, and the pair's
/// threshold τ.
#[derive(Clone, Debug, PartialEq)]
pub struct SentenceAlignment {
    /// The chains, best first.
    pub chains: Vec<Chain>,
    /// The pair's threshold: a link's similarity must exceed it.
    pub tau: f32,
}

/// A region in which two texts are versions of one another: sentences
/// `[a0, a1)` of A and `[b0, b1)` of B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// First sentence of A.
    pub a0: u32,
    /// One past the last sentence of A.
    pub a1: u32,
    /// First sentence of B.
    pub b0: u32,
    /// One past the last sentence of B.
    pub b1: u32,
}
