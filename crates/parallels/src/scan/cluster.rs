//! Clusters: the same passage across many documents.
//!
//! Every passage joins its span in A with its span in B; spans of one
//! document that overlap are one place. The connected components
//! ([`UnionFind`], whose roots do not depend on the order of unions) are the
//! clusters, as passim builds them. A cluster's members
//! are its places: per document, the union of the overlapping spans.

use crate::align::Span;
use crate::plumbing::UnionFind;

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
    // Overlapping spans of one document are one place.
    nodes.sort_unstable();
    let mut k = 0;
    while k < nodes.len() {
        let (doc, span, id) = nodes[k];
        let mut end = span[1];
        let mut j = k + 1;
        while j < nodes.len() && nodes[j].0 == doc && nodes[j].1[0] < end {
            uf.union(id, nodes[j].2);
            end = end.max(nodes[j].1[1]);
            j += 1;
        }
        k = j;
    }
    // Members per root: merged spans per document.
    let mut by_root: std::collections::BTreeMap<u32, Vec<Member>> = std::collections::BTreeMap::new();
    for &(doc, span, id) in &nodes {
        let root = uf.find(id);
        let list = by_root.entry(root).or_default();
        match list.last_mut() {
            Some(m) if m.doc == doc && span[0] < m.span[1] => m.span[1] = m.span[1].max(span[1]),
            _ => list.push(Member { doc, span }),
        }
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
        // 0:[0,10) ~ 1:[5,15); 1:[12,20) ~ 2:[0,8); 3:[0,5) ~ 4:[0,5) apart.
        let c = cluster(&[(0, [0, 10], 1, [5, 15]), (1, [12, 20], 2, [0, 8]), (3, [0, 5], 4, [0, 5])]);
        assert_eq!(c.of_passage, vec![0, 0, 1]);
        assert_eq!(
            c.members[0],
            vec![Member { doc: 0, span: [0, 10] }, Member { doc: 1, span: [5, 20] }, Member { doc: 2, span: [0, 8] }]
        );
        assert_eq!(c.members[1].len(), 2);
    }

    #[test]
    fn touching_but_not_overlapping_spans_stay_apart() {
        let c = cluster(&[(0, [0, 10], 1, [0, 10]), (0, [10, 20], 2, [0, 10])]);
        assert_eq!(c.of_passage, vec![0, 1]);
    }
}
