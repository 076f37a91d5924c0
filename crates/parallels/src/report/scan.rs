//! The scan report: a folder of static pages over a scan's tables.
//!
//! `index.html` holds the summary figures; the pairs, passages and clusters
//! ranked by significance, each with the start of both sides, its kind,
//! length, score and significance, filtered and sorted in the page; the
//! documents with the largest share of reused text; and the document graph
//! laid out by cluster. `pairs/NNNN.html` shows one of the top pairs side
//! by side, as `align --html` does.
//!
//! The rows of the pairs, passages and clusters views travel in the page as
//! one JSON object (`<script type="application/json" id="scan-data">`,
//! every `<`, `>` and `&` escaped) that `scan_index.js` filters, sorts and
//! pages: thousands of rows stay fast because only one page of them is ever
//! in the document. The graph is SVG drawn here, its links plain `<a>`
//! elements: it needs no script and nothing from the network.

use super::{environment, pair_rows, PairView, ReportDoc, ROWS_PER_PAGE, SCRIPT, STYLE};
use crate::align::{covered_chars, PassageKind, Span};
use crate::chars::CharIndex;
use crate::scan::{ScanCluster, ScanDocument, ScanPassage, ScanSummary};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

/// The behaviour of the index page's tables (filters, sorting, paging).
const INDEX_SCRIPT: &str = include_str!("scan_index.js");

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
    /// The documents of the top pairs whose texts could be read, prepared
    /// for their pair pages. Pairs of others get no page.
    pub texts: &'a FxHashMap<String, ReportDoc<'a>>,
    /// Every text that could be read, by document id: the excerpts of
    /// passages and cluster members come from them (none where missing).
    pub originals: &'a FxHashMap<&'a str, &'a str>,
    /// Pairs given a page of their own ([`DEFAULT_MAX_PAIRS`]).
    pub max_pairs: usize,
}

/// Pairs given a side-by-side page unless the caller says otherwise
/// (`parallels report --max-pairs`): the most significant.
pub const DEFAULT_MAX_PAIRS: usize = 100;

/// Limits of the index page: documents listed,
pub const MAX_DOCUMENT_ROWS: usize = 2000;
/// passages carried in the page (the most significant; pairs and clusters
/// are counted over them),
pub const MAX_PASSAGES: usize = 20_000;
/// clusters whose members are listed (the most significant),
pub const MAX_CLUSTERS: usize = 1000;
/// members shown per cluster,
pub const MAX_MEMBERS: usize = 20;
/// documents in the graph,
pub const MAX_GRAPH_NODES: usize = 150;
/// and code points in an excerpt.
pub const EXCERPT_CHARS: u32 = 48;

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

/// The passages the index page carries: the `n` most significant (ties in
/// table order), as indices into `passages`.
pub fn listed_passages(passages: &[ScanPassage], n: usize) -> Vec<usize> {
    let mut ks: Vec<usize> = (0..passages.len()).collect();
    ks.sort_by(|&x, &y| passages[y].significance.total_cmp(&passages[x].significance).then(x.cmp(&y)));
    ks.truncate(n);
    ks
}

/// The clusters whose members the index page lists: the `n` with the most
/// significant passages (the sum of their significance; ties by size, then
/// id), as indices into `clusters` with that sum.
pub fn ranked_clusters(clusters: &[ScanCluster], passages: &[ScanPassage], n: usize) -> Vec<(usize, f64)> {
    let mut weight: FxHashMap<u32, f64> = FxHashMap::default();
    for p in passages {
        *weight.entry(p.cluster).or_default() += p.significance;
    }
    let mut ranked: Vec<(usize, f64)> =
        clusters.iter().enumerate().map(|(k, c)| (k, weight.get(&c.id).copied().unwrap_or(0.0))).collect();
    ranked.sort_by(|x, y| {
        y.1.total_cmp(&x.1)
            .then(clusters[y.0].size.cmp(&clusters[x.0].size))
            .then(clusters[x.0].id.cmp(&clusters[y.0].id))
    });
    ranked.truncate(n);
    ranked
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

/// One passage in the page's data: `[a, b, kind, a start, a end, b start,
/// b end, score, significance, cluster, excerpt of a, excerpt of b, pair
/// page (-1: none), index within that pair]`, documents as indices into
/// `docs`, kind 0 verbatim and 1 parallel.
type PassageRow = (u32, u32, u8, u32, u32, u32, u32, f64, f64, u32, String, String, i64, i64);

/// One listed cluster: its members `[document, start, end, excerpt]`.
#[derive(Serialize)]
struct ClusterData {
    id: u32,
    size: u32,
    significance: f64,
    excerpt: String,
    members: Vec<(u32, u32, u32, String)>,
    more: usize,
}

/// Everything the tables of the index page are made from.
#[derive(Serialize)]
struct IndexData {
    docs: Vec<String>,
    passages: Vec<PassageRow>,
    /// Passages in the scan's table (the page carries [`MAX_PASSAGES`]).
    all_passages: usize,
    clusters: Vec<ClusterData>,
    all_clusters: usize,
}

/// A document of the graph.
#[derive(Debug, Serialize)]
pub struct Node {
    /// Its id.
    pub id: String,
    /// Where it is drawn, and how large (by its number of pairs).
    pub x: f64,
    /// (see `x`)
    pub y: f64,
    /// (see `x`)
    pub r: f64,
    /// The cluster it is drawn with: the one holding most of its
    /// significance among the graph's pairs.
    pub group: u32,
    /// Index into the colour palette of `report.css` (`g0`…`g7`).
    pub colour: usize,
    /// The page of its most significant pair.
    pub href: Option<String>,
}

/// A pair of the graph.
#[derive(Debug, Serialize)]
pub struct Edge {
    /// Its ends.
    pub x1: f64,
    /// (see `x1`)
    pub y1: f64,
    /// (see `x1`)
    pub x2: f64,
    /// (see `x1`)
    pub y2: f64,
    /// Stroke width, by the log of the characters shared.
    pub w: f64,
    /// `verbatim` or `parallel`: the kind of its most significant passage.
    pub kind: &'static str,
    /// What a hover shows.
    pub title: String,
    /// Its pair page.
    pub href: Option<String>,
    /// The two documents' ids.
    pub a: String,
    /// (see `a`)
    pub b: String,
}

/// A cluster's area in the graph, with its label.
#[derive(Debug, Serialize)]
pub struct Group {
    /// Cluster id.
    pub id: u32,
    /// Centre and radius of its area.
    pub x: f64,
    /// (see `x`)
    pub y: f64,
    /// (see `x`)
    pub r: f64,
    /// Documents in it.
    pub size: usize,
}

/// The graph, its size in SVG units.
#[derive(Debug, Serialize)]
pub struct Graph {
    /// The documents.
    pub nodes: Vec<Node>,
    /// The pairs.
    pub edges: Vec<Edge>,
    /// The clusters' areas.
    pub groups: Vec<Group>,
    /// Width of the drawing.
    pub width: f64,
    /// Height of the drawing.
    pub height: f64,
}

/// Width of the graph's drawing, in SVG units.
const GRAPH_WIDTH: f64 = 1300.0;

/// The document graph of `pairs` (at most [`MAX_GRAPH_NODES`] documents):
/// every document is drawn with one cluster (the one holding most of its
/// passages' significance among these pairs; a document that would be
/// alone in its cluster goes to the cluster of the partner it shares most
/// with), each cluster's documents together in a disc of their own, the
/// discs of linked documents one after another, most significant first,
/// row by row. A cluster of a few documents is a ring; a larger one a
/// sunflower spiral, its most connected documents in the middle. An edge
/// per pair, as wide as the log of the characters they share; each edge and
/// each document links to a pair page (a document: its most significant
/// pair's).
pub fn graph(passages: &[ScanPassage], pairs: &[(String, String, u64, Vec<usize>)], pages: &[Option<String>]) -> Graph {
    let round = |x: f64| (x * 10.0).round() / 10.0;
    // The documents, in order of their first (most significant) pair.
    let mut ids: Vec<&str> = Vec::new();
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    let mut shown: Vec<usize> = Vec::new();
    for (k, (a, b, _, _)) in pairs.iter().enumerate() {
        let new = [a, b].iter().filter(|id| !index.contains_key(id.as_str())).count();
        if ids.len() + new > MAX_GRAPH_NODES {
            continue;
        }
        for id in [a.as_str(), b.as_str()] {
            if !index.contains_key(id) {
                index.insert(id, ids.len());
                ids.push(id);
            }
        }
        shown.push(k);
    }
    // Each document's weight per cluster, its degree and its best pair.
    let mut weight: Vec<FxHashMap<u32, f64>> = vec![FxHashMap::default(); ids.len()];
    let mut degree = vec![0u32; ids.len()];
    let mut best: Vec<Option<usize>> = vec![None; ids.len()];
    for &k in &shown {
        let (a, b, _, ks) = &pairs[k];
        for id in [a, b] {
            let d = index[id.as_str()];
            degree[d] += 1;
            best[d].get_or_insert(k);
            for &i in ks {
                *weight[d].entry(passages[i].cluster).or_default() += passages[i].significance;
            }
        }
    }
    let mut group_of: Vec<u32> = weight
        .iter()
        .map(|w| w.iter().max_by(|x, y| x.1.total_cmp(y.1).then(y.0.cmp(x.0))).map(|(&c, _)| c).unwrap_or(u32::MAX))
        .collect();
    // A document alone in its cluster (its partners drawn with another) is
    // drawn with the partner it shares most with: the places of a cluster
    // stay side by side.
    let mut members: FxHashMap<u32, usize> = FxHashMap::default();
    for &g in &group_of {
        *members.entry(g).or_default() += 1;
    }
    let mut partner: Vec<Option<(f64, usize)>> = vec![None; ids.len()];
    for &k in &shown {
        let (a, b, _, ks) = &pairs[k];
        let w: f64 = ks.iter().map(|&i| passages[i].significance).sum();
        let (p, q) = (index[a.as_str()], index[b.as_str()]);
        for (x, y) in [(p, q), (q, p)] {
            if partner[x].is_none_or(|(best, _)| w > best) {
                partner[x] = Some((w, y));
            }
        }
    }
    let alone: Vec<usize> = (0..ids.len()).filter(|&d| members[&group_of[d]] == 1).collect();
    for d in alone {
        if let Some((_, other)) = partner[d] {
            if members[&group_of[other]] > 1 {
                group_of[d] = group_of[other];
            }
        }
    }
    // Documents linked at all: their clusters are drawn one after another.
    let mut root: Vec<usize> = (0..ids.len()).collect();
    fn find(root: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while root[r] != r {
            r = root[r];
        }
        root[x] = r;
        r
    }
    for &k in &shown {
        let (a, b, _, _) = &pairs[k];
        let (p, q) = (find(&mut root, index[a.as_str()]), find(&mut root, index[b.as_str()]));
        root[p.max(q)] = p.min(q);
    }
    let component: Vec<usize> = (0..ids.len()).map(|d| find(&mut root, d)).collect();
    // Clusters, most significant first (by their documents' weight in
    // them), those of one component together (the component of the most
    // significant pair first).
    let mut groups: FxHashMap<u32, (f64, Vec<usize>)> = FxHashMap::default();
    for (d, &g) in group_of.iter().enumerate() {
        let e = groups.entry(g).or_default();
        e.0 += weight[d].values().sum::<f64>();
        e.1.push(d);
    }
    let mut groups: Vec<(u32, f64, Vec<usize>)> = groups.into_iter().map(|(g, (w, ds))| (g, w, ds)).collect();
    groups.sort_by(|x, y| component[x.2[0]].cmp(&component[y.2[0]]).then(y.1.total_cmp(&x.1)).then(x.0.cmp(&y.0)));
    // Each cluster laid out around its own centre, then the discs placed
    // row by row.
    const SPACING: f64 = 34.0;
    const PAD: f64 = 22.0;
    const GAP: f64 = 18.0;
    let mut at = vec![(0.0, 0.0); ids.len()];
    let mut areas = Vec::new();
    let (mut x, mut y, mut row_height) = (0.0f64, 0.0f64, 0.0f64);
    for (g, _, members) in &mut groups {
        members.sort_by(|&p, &q| degree[q].cmp(&degree[p]).then(p.cmp(&q)));
        let n = members.len();
        let offsets: Vec<(f64, f64)> = if n == 1 {
            vec![(0.0, 0.0)]
        } else if n <= 10 {
            let radius = (SPACING * n as f64 / std::f64::consts::TAU).max(SPACING * 0.6);
            (0..n)
                .map(|k| {
                    let t = std::f64::consts::TAU * k as f64 / n as f64 - std::f64::consts::FRAC_PI_2;
                    (radius * t.cos(), radius * t.sin())
                })
                .collect()
        } else {
            // The golden angle spreads a spiral evenly over its disc.
            let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
            (0..n)
                .map(|k| {
                    let radius = SPACING * 0.6 * (k as f64 + 0.5).sqrt();
                    let t = golden * k as f64;
                    (radius * t.cos(), radius * t.sin())
                })
                .collect()
        };
        let extent = offsets.iter().map(|(a, b)| (a * a + b * b).sqrt()).fold(0.0, f64::max) + PAD;
        let diameter = 2.0 * extent + GAP;
        if x > 0.0 && x + diameter > GRAPH_WIDTH {
            x = 0.0;
            y += row_height;
            row_height = 0.0;
        }
        let (cx, cy) = (x + extent, y + extent + 14.0);
        for (&d, (dx, dy)) in members.iter().zip(&offsets) {
            at[d] = (round(cx + dx), round(cy + dy));
        }
        areas.push(Group { id: *g, x: round(cx), y: round(cy), r: round(extent - 6.0), size: n });
        x += diameter;
        row_height = row_height.max(diameter + 14.0);
    }
    let colour: FxHashMap<u32, usize> = groups.iter().enumerate().map(|(k, (g, _, _))| (*g, k % 8)).collect();
    let mut edges = Vec::new();
    for &k in &shown {
        let (a, b, shared, ks) = &pairs[k];
        let (p, q) = (index[a.as_str()], index[b.as_str()]);
        let strongest =
            ks.iter().copied().max_by(|&x, &y| passages[x].significance.total_cmp(&passages[y].significance));
        let kind = match strongest.map(|i| passages[i].passage.kind) {
            Some(PassageKind::Parallel) => "parallel",
            _ => "verbatim",
        };
        let significance: f64 = ks.iter().map(|&i| passages[i].significance).sum();
        edges.push(Edge {
            x1: at[p].0,
            y1: at[p].1,
            x2: at[q].0,
            y2: at[q].1,
            w: round((1.0 + (*shared as f64).ln()).max(0.5) / 2.0),
            kind,
            title: format!("{a} ↔ {b}: {} passage(s), {shared} characters, significance {significance:.1}", ks.len()),
            href: pages.get(k).cloned().flatten(),
            a: a.clone(),
            b: b.clone(),
        });
    }
    let nodes = ids
        .iter()
        .enumerate()
        .map(|(d, id)| Node {
            id: id.to_string(),
            x: at[d].0,
            y: at[d].1,
            r: round((4.0 + (degree[d] as f64).sqrt() * 1.5).min(12.0)),
            group: group_of[d],
            colour: colour[&group_of[d]],
            href: best[d].and_then(|k| pages.get(k).cloned().flatten()),
        })
        .collect();
    let height = round(y + row_height).max(100.0);
    Graph { nodes, edges, groups: areas, width: GRAPH_WIDTH, height }
}

/// `id`'s index in `ids`, added at the end if new.
fn intern<'a>(id: &'a str, ids: &mut Vec<String>, index: &mut FxHashMap<&'a str, u32>) -> u32 {
    *index.entry(id).or_insert_with(|| {
        ids.push(id.to_string());
        (ids.len() - 1) as u32
    })
}

/// `value` as JSON that can stand inside a `<script>` element: `<`, `>` and
/// `&` (only ever inside strings) written as `\u` escapes.
fn script_json<T: Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).expect("the report's data serializes");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            _ => out.push(c),
        }
    }
    out
}

/// All pages of the scan report.
pub fn scan_site(input: &SiteInput) -> Result<Vec<Page>, minijinja::Error> {
    let env = environment();
    let round = |x: f64, places: i32| {
        let f = 10f64.powi(places);
        (x * f).round() / f
    };
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

    // Each text needed indexed by code point once, for excerpts and pages.
    let listed = listed_passages(input.passages, MAX_PASSAGES);
    let ranked = ranked_clusters(input.clusters, input.passages, MAX_CLUSTERS);
    let mut needed: FxHashSet<&str> = FxHashSet::default();
    for &k in &listed {
        needed.insert(&input.passages[k].a_doc);
        needed.insert(&input.passages[k].b_doc);
    }
    for &(c, _) in &ranked {
        needed.extend(input.clusters[c].members.iter().take(MAX_MEMBERS).map(|m| m.doc.as_str()));
    }
    let chars: FxHashMap<&str, CharIndex> = input
        .originals
        .iter()
        .filter(|(id, _)| needed.contains(*id) || input.texts.contains_key(**id))
        .map(|(&id, &t)| (id, CharIndex::new(t)))
        .collect();
    let cut = |id: &str, s: Span| chars.get(id).map(|c| super::excerpt(c, s, EXCERPT_CHARS)).unwrap_or_default();

    let top = top_pairs(input.passages, input.max_pairs);
    let mut pages = Vec::new();
    let mut page_of: Vec<Option<String>> = Vec::new();
    // Where each passage is shown: its pair page and its index there.
    let mut place: FxHashMap<usize, (i64, i64)> = FxHashMap::default();
    for (k, (a, b, shared, ks)) in top.iter().enumerate() {
        let found = (input.texts.get(a), input.texts.get(b), chars.get(a.as_str()), chars.get(b.as_str()));
        let page = match found {
            (Some(da), Some(db), Some(ca), Some(cb)) => {
                let passages: Vec<crate::align::Passage> =
                    ks.iter().map(|&i| input.passages[i].passage.clone()).collect();
                let (rows, linked) = pair_rows(da.prepared, ca, db.prepared, cb, &passages);
                let significance: f64 = ks.iter().map(|&i| input.passages[i].significance).sum();
                let pair = PairView {
                    index: k,
                    a_id: a.clone(),
                    b_id: b.clone(),
                    summary: format!(
                        "{} passage(s), {} link(s); {} characters of {} in passages; significance {:.1}",
                        ks.len(),
                        linked,
                        shared,
                        a,
                        significance
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
                for (j, &i) in ks.iter().enumerate() {
                    place.insert(i, (k as i64, j as i64));
                }
                Some(path)
            }
            _ => None,
        };
        page_of.push(page);
    }

    // The page's data: documents by index, passages most significant first.
    let mut doc_ids: Vec<String> = Vec::new();
    let mut doc_index: FxHashMap<&str, u32> = FxHashMap::default();
    let mut rows: Vec<PassageRow> = Vec::with_capacity(listed.len());
    for &k in &listed {
        let p = &input.passages[k];
        let (page, within) = place.get(&k).copied().unwrap_or((-1, -1));
        rows.push((
            intern(&p.a_doc, &mut doc_ids, &mut doc_index),
            intern(&p.b_doc, &mut doc_ids, &mut doc_index),
            match p.passage.kind {
                PassageKind::Verbatim => 0,
                PassageKind::Parallel => 1,
            },
            p.passage.a[0],
            p.passage.a[1],
            p.passage.b[0],
            p.passage.b[1],
            round(p.passage.score, 3),
            round(p.significance, 1),
            p.cluster,
            cut(&p.a_doc, p.passage.a),
            cut(&p.b_doc, p.passage.b),
            page,
            within,
        ));
    }
    let mut cluster_rows = Vec::with_capacity(ranked.len());
    for &(c, significance) in &ranked {
        let c = &input.clusters[c];
        let members = c
            .members
            .iter()
            .take(MAX_MEMBERS)
            .map(|m| (intern(&m.doc, &mut doc_ids, &mut doc_index), m.span[0], m.span[1], cut(&m.doc, m.span)))
            .collect();
        cluster_rows.push(ClusterData {
            id: c.id,
            size: c.size,
            significance: round(significance, 1),
            excerpt: c.excerpt.clone(),
            members,
            more: c.members.len().saturating_sub(MAX_MEMBERS),
        });
    }
    let data = IndexData {
        docs: doc_ids,
        passages: rows,
        all_passages: input.passages.len(),
        clusters: cluster_rows,
        all_clusters: input.clusters.len(),
    };
    let graph = graph(input.passages, &top, &page_of);
    let html = env.get_template("scan_index.html")?.render(minijinja::context! {
        version => env!("CARGO_PKG_VERSION"),
        style => STYLE,
        script => SCRIPT,
        index_script => INDEX_SCRIPT,
        data => script_json(&data),
        listed => data.passages.len(),
        all_passages => data.all_passages,
        stats => input.summary.stats,
        documents => doc_rows,
        with_passages => with_passages,
        all_documents => input.documents.len(),
        max_document_rows => MAX_DOCUMENT_ROWS,
        graph => graph,
    })?;
    pages.insert(0, Page { path: "index.html".into(), html });
    Ok(pages)
}

#[cfg(test)]
mod tests {
    /// Text that would end the `<script>` element or open a comment in it
    /// is written as escapes, and reads back the same.
    #[test]
    fn data_in_a_script_element_cannot_close_it() {
        let text = "</script><!-- & --><script>alert(1)</script>";
        let json = super::script_json(&vec![text]);
        assert!(!json.contains('<') && !json.contains('>') && !json.contains('&'), "{json}");
        let back: Vec<String> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, [text]);
    }
}
