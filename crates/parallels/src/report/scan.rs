//! The scan report: a folder of static pages over a scan's tables.
//!
//! `index.html` holds the summary figures, the documents with the largest
//! share of reused text (a sortable table), the clusters (largest first,
//! each member with its excerpt), the pairs that share the most, and a
//! document graph drawn as SVG. `pairs/NNNN.html` shows one of those pairs
//! side by side, as `align --html` does.

use super::{environment, pair_rows, PairView, ReportDoc, ROWS_PER_PAGE, SCRIPT, STYLE};
use crate::align::{covered_chars, Span};
use crate::chars::CharIndex;
use crate::scan::{ScanCluster, ScanDocument, ScanPassage, ScanSummary};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// What the scan report is made from.
pub struct SiteInput<'a> {
    /// `documents.jsonl`.
    pub documents: &'a [ScanDocument],
    /// `passages.jsonl`.
    pub passages: &'a [ScanPassage],
    /// `clusters.jsonl`.
    pub clusters: &'a [ScanCluster],
    /// `summary.json` as the scan wrote it.
    pub summary: &'a ScanSummary,
    /// The documents whose texts could be read: the pair pages and member
    /// excerpts need them. Others fall back to what the tables hold.
    pub texts: &'a FxHashMap<String, ReportDoc<'a>>,
    /// Pairs given a page of their own ([`DEFAULT_MAX_PAIRS`]).
    pub max_pairs: usize,
}

/// Pairs given a side-by-side page unless the caller says otherwise
/// (`parallels report --max-pairs`): those sharing the most text.
pub const DEFAULT_MAX_PAIRS: usize = 50;

/// Limits of the index page: documents listed,
pub const MAX_DOCUMENT_ROWS: usize = 2000;
/// clusters listed (the largest),
pub const MAX_CLUSTERS: usize = 200;
/// members shown per cluster,
pub const MAX_MEMBERS: usize = 20;
/// and documents in the graph.
pub const MAX_GRAPH_NODES: usize = 150;

/// One page of the site: its path inside the folder and its HTML.
pub struct Page {
    /// Relative to the report folder: `index.html`, `pairs/NNNN.html`.
    pub path: String,
    /// The whole page.
    pub html: String,
}

/// The pairs with the most significant passages, most first (the sum of
/// their passages' significance; ties by shared characters): `(a, b,
/// shared characters of a, passage indices)`.
pub fn top_pairs(passages: &[ScanPassage], n: usize) -> Vec<(String, String, u64, Vec<usize>)> {
    let mut by_pair: FxHashMap<(&str, &str), Vec<usize>> = FxHashMap::default();
    for (k, p) in passages.iter().enumerate() {
        by_pair.entry((p.a_doc.as_str(), p.b_doc.as_str())).or_default().push(k);
    }
    let mut pairs: Vec<(String, String, u64, Vec<usize>)> = by_pair
        .into_iter()
        .map(|((a, b), ks)| {
            let shared = covered_chars(ks.iter().map(|&k| passages[k].passage.a).collect());
            (a.to_string(), b.to_string(), shared, ks)
        })
        .collect();
    let weight = |ks: &[usize]| ks.iter().map(|&k| passages[k].significance).sum::<f64>();
    pairs.sort_by(|x, y| {
        weight(&y.3).total_cmp(&weight(&x.3)).then(y.2.cmp(&x.2)).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1))
    });
    pairs.truncate(n);
    pairs
}

#[derive(Serialize)]
struct DocRow<'a> {
    id: &'a str,
    source: String,
    chars: u64,
    passages: u64,
    shared: String,
    shared_sort: f64,
}

#[derive(Serialize)]
struct MemberView {
    doc: String,
    span: Span,
    excerpt: String,
}

#[derive(Serialize)]
struct ClusterView {
    id: u32,
    size: u32,
    excerpt: String,
    members: Vec<MemberView>,
    more: usize,
}

#[derive(Serialize)]
struct PairLink {
    page: Option<String>,
    a: String,
    b: String,
    shared: u64,
    passages: usize,
    significance: String,
    significance_sort: f64,
}

#[derive(Serialize)]
struct Node {
    id: String,
    x: f64,
    y: f64,
    r: f64,
}

#[derive(Serialize)]
struct Edge {
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
    w: f64,
    title: String,
}

/// The document graph: the documents of the top pairs (at most
/// [`MAX_GRAPH_NODES`]) on a circle, in id order; an edge per pair, as wide
/// as the log of the characters they share.
fn graph(pairs: &[(String, String, u64, Vec<usize>)]) -> (Vec<Node>, Vec<Edge>) {
    let mut ids: Vec<&str> = Vec::new();
    for (a, b, _, _) in pairs {
        for id in [a.as_str(), b.as_str()] {
            if !ids.contains(&id) && ids.len() < MAX_GRAPH_NODES {
                ids.push(id);
            }
        }
    }
    ids.sort_unstable();
    let n = ids.len().max(1) as f64;
    let (cx, cy, radius) = (400.0, 400.0, 340.0);
    let round = |x: f64| (x * 10.0).round() / 10.0;
    let at = |k: usize| {
        let t = std::f64::consts::TAU * k as f64 / n - std::f64::consts::FRAC_PI_2;
        (round(cx + radius * t.cos()), round(cy + radius * t.sin()))
    };
    let mut degree = vec![0u32; ids.len()];
    let mut edges = Vec::new();
    for (a, b, shared, _) in pairs {
        let (Some(x), Some(y)) = (ids.iter().position(|i| i == a), ids.iter().position(|i| i == b)) else {
            continue;
        };
        degree[x] += 1;
        degree[y] += 1;
        let ((x1, y1), (x2, y2)) = (at(x), at(y));
        edges.push(Edge {
            x1,
            y1,
            x2,
            y2,
            w: round((1.0 + (*shared as f64).ln()).max(0.5) / 2.0),
            title: format!("{a} ↔ {b}: {shared} characters"),
        });
    }
    let nodes = ids
        .iter()
        .enumerate()
        .map(|(k, id)| {
            let (x, y) = at(k);
            Node { id: id.to_string(), x, y, r: round(3.0 + (degree[k] as f64).sqrt() * 2.0) }
        })
        .collect();
    (nodes, edges)
}

/// All pages of the scan report.
pub fn scan_site(input: &SiteInput) -> Result<Vec<Page>, minijinja::Error> {
    let env = environment();
    // Each text indexed by code point once, for excerpts and pair pages.
    let chars: FxHashMap<&str, CharIndex> =
        input.texts.iter().map(|(id, d)| (id.as_str(), CharIndex::new(d.text))).collect();
    let mut docs: Vec<&ScanDocument> = input.documents.iter().filter(|d| d.passages > 0).collect();
    docs.sort_by(|x, y| y.shared.total_cmp(&x.shared).then(x.id.cmp(&y.id)));
    let with_passages = docs.len();
    docs.truncate(MAX_DOCUMENT_ROWS);
    let doc_rows: Vec<DocRow> = docs
        .iter()
        .map(|d| DocRow {
            id: &d.id,
            source: d.source.to_string(),
            chars: d.chars,
            passages: d.passages,
            shared: format!("{:.1}", d.shared * 100.0),
            shared_sort: d.shared,
        })
        .collect();
    let mut clusters: Vec<&ScanCluster> = input.clusters.iter().collect();
    clusters.sort_by(|x, y| y.size.cmp(&x.size).then(x.id.cmp(&y.id)));
    clusters.truncate(MAX_CLUSTERS);
    let cluster_views: Vec<ClusterView> = clusters
        .iter()
        .map(|c| ClusterView {
            id: c.id,
            size: c.size,
            excerpt: c.excerpt.clone(),
            members: c
                .members
                .iter()
                .take(MAX_MEMBERS)
                .map(|m| MemberView {
                    doc: m.doc.clone(),
                    span: m.span,
                    excerpt: chars.get(m.doc.as_str()).map(|c| super::excerpt(c, m.span, 80)).unwrap_or_default(),
                })
                .collect(),
            more: c.members.len().saturating_sub(MAX_MEMBERS),
        })
        .collect();

    let top = top_pairs(input.passages, input.max_pairs);
    let mut pages = Vec::new();
    let mut links = Vec::new();
    for (k, (a, b, shared, ks)) in top.iter().enumerate() {
        let found = (input.texts.get(a), input.texts.get(b), chars.get(a.as_str()), chars.get(b.as_str()));
        let page = match found {
            (Some(da), Some(db), Some(ca), Some(cb)) => {
                let passages: Vec<crate::align::Passage> =
                    ks.iter().map(|&i| input.passages[i].passage.clone()).collect();
                let (rows, linked) = pair_rows(da.prepared, ca, db.prepared, cb, &passages);
                let pair = PairView {
                    index: k,
                    a_id: a.clone(),
                    b_id: b.clone(),
                    summary: format!(
                        "{} passage(s), {} link(s); {} characters of {} shared",
                        ks.len(),
                        linked,
                        shared,
                        a
                    ),
                    rows,
                    linked,
                };
                let path = format!("pairs/{k:04}.html");
                let html = env.get_template("scan_pair.html")?.render(minijinja::context! {
                    version => env!("CARGO_PKG_VERSION"),
                    style => STYLE,
                    script => SCRIPT,
                    p => pair,
                    rows_per_page => ROWS_PER_PAGE,
                })?;
                pages.push(Page { path: path.clone(), html });
                Some(path)
            }
            _ => None,
        };
        let significance: f64 = ks.iter().map(|&k| input.passages[k].significance).sum();
        links.push(PairLink {
            page,
            a: a.clone(),
            b: b.clone(),
            shared: *shared,
            passages: ks.len(),
            significance: format!("{significance:.1}"),
            significance_sort: significance,
        });
    }
    let (nodes, edges) = graph(&top);
    let html = env.get_template("scan_index.html")?.render(minijinja::context! {
        version => env!("CARGO_PKG_VERSION"),
        style => STYLE,
        script => SCRIPT,
        stats => input.summary.stats,
        documents => doc_rows,
        with_passages => with_passages,
        all_documents => input.documents.len(),
        max_document_rows => MAX_DOCUMENT_ROWS,
        clusters => cluster_views,
        all_clusters => input.clusters.len(),
        pairs => links,
        nodes => nodes,
        edges => edges,
    })?;
    pages.insert(0, Page { path: "index.html".into(), html });
    Ok(pages)
}
