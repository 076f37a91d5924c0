//! Clusters: the same passage across many documents.
//!
//! Every passage joins its span in A with its span in B; two spans of one
//! document are one place when they overlap by at least half of the longer
//! one ([`MIN_OVERLAP`]). The connected components ([`UnionFind`], whose
//! roots do not depend on the order of unions) are the clusters. A
//! cluster's members are its places: per document, the union of its
//! overlapping spans; its excerpt the start of its longest member. A
//! document's `shared` share is the part of it inside its passages.
//!
//! passim joins spans that overlap at all, and on a newspaper that chains
//! everything: one long article overlaps a dozen short passages it shares
//! with a dozen others, a dateline overlaps the first sentence of a reprint,
//! and union–find makes one cluster of them all (603 places on
//! `news-all`). Asking the overlap to cover half of the longer span keeps a
//! reprint and its copies together (their spans coincide) and a quotation
//! of one paragraph of a long text apart from the text's reprints.

use crate::align::{covered_chars, Span};
use crate::plumbing::UnionFind;

/// Two spans of one document are one place when their overlap is at least
/// this share of the longer one.
pub const MIN_OVERLAP: f64 = 0.5;

/// Do spans `x` and `y` (of one document) make one place?
fn same_place(x: Span, y: Span) -> bool {
    let overlap = x[1].min(y[1]).saturating_sub(x[0].max(y[0]));
    let longer = (x[1] - x[0]).max(y[1] - y[0]);
    overlap > 0 && overlap as f64 >= MIN_OVERLAP * longer as f64
}

/// One place of a cluster: a span of a document.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Member {
    pub doc: u32,
    pub span: Span,
}

/// The clusters of a set of passages.
#[derive(Clone, Debug, PartialEq)]
pub struct Clusters {
    /// Cluster of each passage, numbered 0.. in order of their first member
    /// (by document, then position).
    pub of_passage: Vec<u32>,
    /// Members of each cluster, sorted.
    pub members: Vec<Vec<Member>>,
}

/// Characters of a cluster's excerpt, at most: the first of its longest
/// member.
pub const EXCERPT_CHARS: u32 = 200;

/// Call `f(x, y)` for every two spans of one document that are one place.
/// `nodes` are `(document, span, id)`, sorted: each span is compared with
/// the later-starting spans of its document that begin inside it.
pub fn for_each_place<T: Copy>(nodes: &[(u32, Span, T)], mut f: impl FnMut(T, T)) {
    for (k, &(doc, span, id)) in nodes.iter().enumerate() {
        for &(d, other, j) in &nodes[k + 1..] {
            if d != doc || other[0] >= span[1] {
                break;
            }
            if same_place(span, other) {
                f(id, j);
            }
        }
    }
}

/// Add the span `span` of `doc` to the members of a cluster, in sorted
/// order: merged into the last member when it is of the same document and
/// they overlap.
pub fn push_member(members: &mut Vec<Member>, doc: u32, span: Span) {
    match members.last_mut() {
        Some(m) if m.doc == doc && span[0] < m.span[1] => m.span[1] = m.span[1].max(span[1]),
        _ => members.push(Member { doc, span }),
    }
}

/// The place of a cluster's excerpt: the first [`EXCERPT_CHARS`]
/// characters of its longest member (the first of equals, by document and
/// position); `None` for no members.
pub fn excerpt(members: &[Member]) -> Option<Member> {
    let m = members.iter().max_by_key(|m| (m.span[1] - m.span[0], std::cmp::Reverse((m.doc, m.span))))?;
    Some(Member { doc: m.doc, span: [m.span[0], m.span[0] + (m.span[1] - m.span[0]).min(EXCERPT_CHARS)] })
}

/// The share of a document of `chars` characters inside the spans of its
/// passages, rounded to 4 places, as the documents table gives it.
pub fn shared_share(chars: u64, spans: Vec<Span>) -> f64 {
    if chars == 0 {
        0.0
    } else {
        (covered_chars(spans) as f64 / chars as f64 * 10_000.0).round() / 10_000.0
    }
}

/// Cluster passages given as `(a_doc, a_span, b_doc, b_span)`.
pub fn cluster(passages: &[(u32, Span, u32, Span)]) -> Clusters {
    // Nodes: two per passage (its A side and its B side).
    let mut nodes: Vec<(u32, Span, u32)> = Vec::with_capacity(passages.len() * 2);
    for (k, &(ad, a, bd, b)) in passages.iter().enumerate() {
        nodes.push((ad, a, 2 * k as u32));
        nodes.push((bd, b, 2 * k as u32 + 1));
    }
    let mut uf = UnionFind::new(nodes.len());
    for k in 0..passages.len() as u32 {
        uf.union(2 * k, 2 * k + 1);
    }
    // Spans of one document that overlap enough are one place.
    nodes.sort_unstable();
    for_each_place(&nodes, |x, y| {
        uf.union(x, y);
    });
    // Members per root: merged spans per document.
    let mut by_root: std::collections::BTreeMap<u32, Vec<Member>> = std::collections::BTreeMap::new();
    for &(doc, span, id) in &nodes {
        push_member(by_root.entry(uf.find(id)).or_default(), doc, span);
    }
    // Number clusters by their first member.
    let mut clusters: Vec<(u32, Vec<Member>)> = by_root.into_iter().collect();
    clusters.sort_by(|x, y| x.1[0].cmp(&y.1[0]));
    let mut number = std::collections::HashMap::new();
    for (k, (root, _)) in clusters.iter().enumerate() {
        number.insert(*root, k as u32);
    }
    let of_passage = (0..passages.len() as u32).map(|k| number[&uf.find(2 * k)]).collect();
    Clusters { of_passage, members: clusters.into_iter().map(|c| c.1).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_spans_chain_passages_into_one_cluster() {
        // 0:[0,10) ~ 1:[5,15); 1:[8,18) ~ 2:[0,8); 3:[0,5) ~ 4:[0,5) apart.
        let c = cluster(&[(0, [0, 10], 1, [5, 15]), (1, [8, 18], 2, [0, 8]), (3, [0, 5], 4, [0, 5])]);
        assert_eq!(c.of_passage, vec![0, 0, 1]);
        assert_eq!(
            c.members[0],
            vec![Member { doc: 0, span: [0, 10] }, Member { doc: 1, span: [5, 18] }, Member { doc: 2, span: [0, 8] }]
        );
        assert_eq!(c.members[1].len(), 2);
    }

    #[test]
    fn a_long_span_does_not_chain_the_short_passages_inside_it() {
        // Doc 0 shares all of [0, 1000) with doc 1, and two short passages
        // inside it with docs 2 and 3.
        let c = cluster(&[(0, [0, 1000], 1, [0, 1000]), (0, [100, 150], 2, [0, 50]), (0, [600, 660], 3, [0, 60])]);
        assert_eq!(c.members.len(), 3);
        // A copy found twice with slightly different ends is one place.
        let c = cluster(&[(0, [100, 300], 1, [0, 200]), (0, [110, 300], 2, [0, 190])]);
        assert_eq!(c.of_passage, vec![0, 0]);
    }

    #[test]
    fn touching_but_not_overlapping_spans_stay_apart() {
        let c = cluster(&[(0, [0, 10], 1, [0, 10]), (0, [10, 20], 2, [0, 10])]);
        assert_eq!(c.of_passage, vec![0, 1]);
    }
}
