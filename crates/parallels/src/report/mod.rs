//! The HTML report: one self-contained page for an alignment (`align
//! --html`), and a folder of static pages for a scan's results (`report`).
//!
//! # What it takes and hands on
//!
//! [`align_page`] takes the documents (their original texts and prepared
//! token streams, as `align` made them), the alignment and, for three
//! texts or more, their n-way table (built by the caller, the very table
//! the collation formats write: [`crate::collate::Run::table`]); it builds a
//! *view model* here — rows of text segments already split into common text,
//! differences, and differences that normalization folds away — and renders
//! it through the templates in this folder ([`minijinja`], auto-escaping every
//! value: a document holding `<script>` shows as text). The page carries its
//! own style and script; it needs no network and opens from disk.
//!
//! [`scan::scan_site`] builds the scan report from the three tables and the
//! documents' texts ([`scan::SiteInput`]).
//!
//! [`text::TextView`] is the same alignment as plain text for a terminal:
//! two columns side by side, differences in colour.
//!
//! Offsets stay what they are everywhere else: code points into the
//! original texts. Nothing here decides what is aligned; it only shows it.

pub mod scan;
pub mod text;

use crate::align::{covered_chars, Prepared, Span};
use crate::chars::CharIndex;
use crate::collate::Table;
use crate::diff;
use crate::output::AlignOutput;
use minijinja::Environment;
use serde::Serialize;

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");
/// Style and behaviour of the "All versions" view, on the align page only.
const COLLATION_STYLE: &str = include_str!("collation.css");
const COLLATION_SCRIPT: &str = include_str!("collation.js");

/// Rows per page in a pair or collation view; beyond it the view pages.
pub const ROWS_PER_PAGE: usize = 200;

/// A document as the report shows it.
pub struct ReportDoc<'a> {
    /// Its id.
    pub id: &'a str,
    /// Where it was read from (a path, or a scan's source).
    pub path: &'a str,
    /// The encoding it was decoded from.
    pub encoding: &'a str,
    /// The decoded text.
    pub text: &'a str,
    /// The text normalized and segmented, as it was aligned.
    pub prepared: &'a Prepared,
}

/// A piece of text with how it differs from the other side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Seg {
    /// The text, as in the original.
    pub text: String,
    /// `""` same on both sides; `fold` the same after normalization (script,
    /// width, numerals); `del` only on the left; `ins` only on the right;
    /// `sub` replaced by what stands at the same place on the other side.
    pub class: &'static str,
}

/// One row of a pair view.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `link`, `a-only` (text of the left document with no counterpart) or
    /// `b-only`.
    pub kind: &'static str,
    /// The left side, in pieces.
    pub a: Vec<Seg>,
    /// The right side, in pieces.
    pub b: Vec<Seg>,
    /// The left side's span in its text, if any.
    pub a_span: Option<Span>,
    /// The right side's span in its text, if any.
    pub b_span: Option<Span>,
    /// The link's similarity, two decimals.
    pub score: Option<String>,
    /// Index of the passage the link belongs to, within the pair.
    pub passage: Option<usize>,
    /// The first row of its passage (where a link to the passage lands).
    pub first: bool,
}

#[derive(Serialize)]
struct DocView<'a> {
    id: &'a str,
    path: &'a str,
    chars: u32,
    encoding: &'a str,
    /// Share of the document inside some passage, in percent.
    shared: String,
}

#[derive(Serialize)]
struct Cell {
    pct: String,
    /// 0–100, for the shade.
    shade: u32,
    pair: Option<usize>,
}

#[derive(Serialize)]
struct PassageView {
    pair: usize,
    index: usize,
    kind: String,
    a_id: String,
    b_id: String,
    a_span: Span,
    b_span: Span,
    score: String,
    links: usize,
    excerpt: String,
}

#[derive(Serialize)]
struct PairView {
    index: usize,
    a_id: String,
    b_id: String,
    summary: String,
    rows: Vec<Row>,
    linked: usize,
}

/// The "All versions" view: the n-way table ([`crate::collate::table`]).
#[derive(Serialize)]
struct CollationView {
    /// Witness ids, in column (input) order.
    ids: Vec<String>,
    /// The guide order, ids joined by arrows.
    guide: String,
    rows: Vec<CollationRow>,
}

#[derive(Serialize)]
struct CollationRow {
    /// Row number, from 1 (the anchor `#cN`).
    n: usize,
    /// The page it is shown on.
    page: usize,
    transposed: bool,
    cells: Vec<CollationCell>,
}

#[derive(Serialize)]
struct CollationCell {
    /// Its witness's index (column in input order).
    wit: usize,
    gap: bool,
    /// Rows it covers (`rowspan`).
    rows: u32,
    /// The text in pieces, marked against another witness.
    segs: Vec<Seg>,
    span: Option<Span>,
    /// Id of the witness it is marked against.
    against: Option<String>,
    /// Row numbers (from 1) where this material is linked at another place.
    elsewhere: Vec<usize>,
}

fn push(out: &mut Vec<Seg>, text: &str, class: &'static str) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.class == class => last.text.push_str(text),
        _ => out.push(Seg { text: text.to_string(), class }),
    }
}

/// Both sides of a link as segments: the longest common token subsequence
/// is common text (`fold` where the originals differ), the rest between two
/// common tokens is `sub` when both sides have something there, else `del`
/// or `ins`.
pub fn diff_segments(a: &Prepared, ta: &str, sa: Span, b: &Prepared, tb: &str, sb: Span) -> (Vec<Seg>, Vec<Seg>) {
    let (ca, cb) = (CharIndex::new(ta), CharIndex::new(tb));
    diff_chars(a, &ca, sa, b, &cb, sb)
}

fn diff_chars(a: &Prepared, ca: &CharIndex, sa: Span, b: &Prepared, cb: &CharIndex, sb: Span) -> (Vec<Seg>, Vec<Seg>) {
    let (oa, ob) = diff::common(a, sa, b, sb);
    let (mut xa, mut xb) = (Vec::new(), Vec::new());
    let (mut pa, mut pb) = (sa[0], sb[0]);
    for k in 0..=oa.len() {
        let (na, nb) = if k < oa.len() { (oa[k][0], ob[k][0]) } else { (sa[1], sb[1]) };
        let (ga, gb) = (ca.slice(pa, na.max(pa)), cb.slice(pb, nb.max(pb)));
        if ga == gb {
            // Punctuation and spaces are no tokens: equal gaps are the same.
            push(&mut xa, ga, "");
            push(&mut xb, gb, "");
        } else {
            let both = !ga.trim().is_empty() && !gb.trim().is_empty();
            push(&mut xa, ga, if both { "sub" } else { "del" });
            push(&mut xb, gb, if both { "sub" } else { "ins" });
        }
        if k < oa.len() {
            let (ta, tb) = (ca.slice(oa[k][0], oa[k][1]), cb.slice(ob[k][0], ob[k][1]));
            let class = if ta == tb { "" } else { "fold" };
            push(&mut xa, ta, class);
            push(&mut xb, tb, class);
            pa = oa[k][1].max(pa);
            pb = ob[k][1].max(pb);
        }
    }
    (xa, xb)
}

fn plain(text: &str, class: &'static str) -> Vec<Seg> {
    let mut v = Vec::new();
    push(&mut v, text, class);
    v
}

/// The rows of one pair: its links in the order of the left text, the
/// left text between them as `a-only` rows, and the right text no link
/// covers as `b-only` rows after the link that precedes it on the right.
fn pair_rows(
    pa: &Prepared,
    ca: &CharIndex,
    pb: &Prepared,
    cb: &CharIndex,
    passages: &[crate::align::Passage],
) -> (Vec<Row>, usize) {
    let mut links: Vec<(Span, Span, f64, usize)> = Vec::new();
    for (k, p) in passages.iter().enumerate() {
        if p.links.is_empty() {
            links.push((p.a, p.b, p.score, k));
        }
        for l in &p.links {
            links.push((l.a, l.b, l.score, k));
        }
    }
    links.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)));
    // Right-side text no link covers, by position.
    let mut b_spans: Vec<Span> = links.iter().map(|l| l.1).collect();
    b_spans.sort_unstable();
    let mut b_gaps: Vec<Span> = Vec::new();
    let mut end = 0u32;
    for s in &b_spans {
        if s[0] > end {
            b_gaps.push([end, s[0]]);
        }
        end = end.max(s[1]);
    }
    if end < cb.len() {
        b_gaps.push([end, cb.len()]);
    }
    b_gaps.retain(|g| !cb.slice(g[0], g[1]).trim().is_empty());
    // Each gap goes after the link whose right side ends last before it.
    let mut after: Vec<Vec<Span>> = vec![Vec::new(); links.len() + 1];
    for g in b_gaps {
        let best = links.iter().enumerate().filter(|(_, l)| l.1[1] <= g[0]).max_by_key(|(k, l)| (l.1[1], *k));
        after[best.map_or(0, |(k, _)| k + 1)].push(g);
    }
    let b_only = |rows: &mut Vec<Row>, gaps: &[Span]| {
        for g in gaps {
            rows.push(Row {
                kind: "b-only",
                a: Vec::new(),
                b: plain(cb.slice(g[0], g[1]), ""),
                a_span: None,
                b_span: Some(*g),
                score: None,
                passage: None,
                first: false,
            });
        }
    };
    let mut rows = Vec::new();
    b_only(&mut rows, &after[0]);
    let mut a_end = 0u32;
    for (k, &(sa, sb, score, passage)) in links.iter().enumerate() {
        if sa[0] > a_end && !ca.slice(a_end, sa[0]).trim().is_empty() {
            rows.push(Row {
                kind: "a-only",
                a: plain(ca.slice(a_end, sa[0]), ""),
                b: Vec::new(),
                a_span: Some([a_end, sa[0]]),
                b_span: None,
                score: None,
                passage: None,
                first: false,
            });
        }
        a_end = a_end.max(sa[1]);
        let (a, b) = diff_chars(pa, ca, sa, pb, cb, sb);
        rows.push(Row {
            kind: "link",
            a,
            b,
            a_span: Some(sa),
            b_span: Some(sb),
            score: Some(format!("{score:.2}")),
            passage: Some(passage),
            first: false,
        });
        b_only(&mut rows, &after[k + 1]);
    }
    if a_end < ca.len() && !ca.slice(a_end, ca.len()).trim().is_empty() {
        rows.push(Row {
            kind: "a-only",
            a: plain(ca.slice(a_end, ca.len()), ""),
            b: Vec::new(),
            a_span: Some([a_end, ca.len()]),
            b_span: None,
            score: None,
            passage: None,
            first: false,
        });
    }
    let mut seen = vec![false; passages.len()];
    for r in &mut rows {
        if let Some(p) = r.passage {
            r.first = !std::mem::replace(&mut seen[p], true);
        }
    }
    (rows, links.len())
}

/// The table of all witnesses as the view shows it. A cell covering
/// several rows is one `<td rowspan>`; rows joined by such cells stay on
/// one page. Each cell is marked against the first witness in the table's
/// guide order that has text beside it (in the rows it covers), so marks
/// do not change when columns move or hide.
fn collation_view(docs: &[ReportDoc], chars: &[CharIndex], table: Option<&Table>) -> Option<CollationView> {
    let table = table?;
    let ids: Vec<String> = docs.iter().map(|d| d.id.to_string()).collect();
    // Pages break only between blocks of rows.
    let mut page_of = vec![0usize; table.rows.len()];
    let (mut page, mut on_page) = (0usize, 0usize);
    for b in table.blocks() {
        if on_page > 0 && on_page + b.len() > ROWS_PER_PAGE {
            page += 1;
            on_page = 0;
        }
        on_page += b.len();
        for r in b {
            page_of[r] = page;
        }
    }
    let rows = table
        .rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let cells = row
                .cells
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.is_continued())
                .map(|(w, c)| {
                    let covers = r..r + c.rows.max(1) as usize;
                    let against = table
                        .guide
                        .iter()
                        .copied()
                        .find(|&o| o != w && table.span_in(covers.clone(), o).is_some())
                        .filter(|_| c.span.is_some());
                    let segs = match (c.span, against) {
                        (None, _) => Vec::new(),
                        (Some(s), None) => plain(chars[w].slice(s[0], s[1]), ""),
                        (Some(s), Some(o)) => match table.span_in(covers.clone(), o) {
                            Some(so) => diff_chars(docs[o].prepared, &chars[o], so, docs[w].prepared, &chars[w], s).1,
                            None => plain(chars[w].slice(s[0], s[1]), ""),
                        },
                    };
                    CollationCell {
                        wit: w,
                        gap: c.is_gap(),
                        rows: c.rows.max(1),
                        segs,
                        span: c.span,
                        against: against.map(|o| ids[o].clone()),
                        elsewhere: c.elsewhere.iter().map(|e| e + 1).collect(),
                    }
                })
                .collect();
            CollationRow { n: r + 1, page: page_of[r], transposed: row.transposed(), cells }
        })
        .collect();
    let guide = table.guide.iter().map(|&w| ids[w].as_str()).collect::<Vec<_>>().join(" → ");
    Some(CollationView { ids, guide, rows })
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

fn excerpt(c: &CharIndex, s: Span, n: u32) -> String {
    let e = s[1].min(s[0] + n);
    let mut t: String = c.slice(s[0], e).split_whitespace().collect::<Vec<_>>().join(" ");
    if e < s[1] {
        t.push('…');
    }
    t
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.add_template("base.html", include_str!("base.html")).expect("the base template parses");
    env.add_template("pair.html", include_str!("pair.html")).expect("the pair template parses");
    env.add_template("align.html", include_str!("align.html")).expect("the align template parses");
    env.add_template("scan_index.html", include_str!("scan_index.html")).expect("the scan template parses");
    env.add_template("scan_pair.html", include_str!("scan_pair.html")).expect("the pair template parses");
    env
}

/// The whole `align --html` page.
pub fn align_page(docs: &[ReportDoc], out: &AlignOutput, table: Option<&Table>) -> Result<String, minijinja::Error> {
    let chars: Vec<CharIndex> = docs.iter().map(|d| CharIndex::new(d.text)).collect();
    let index = |id: &str| docs.iter().position(|d| d.id == id);
    let n = docs.len();
    let mut spans: Vec<Vec<Vec<Span>>> = vec![vec![Vec::new(); n]; n];
    let mut pair_of: Vec<Vec<Option<usize>>> = vec![vec![None; n]; n];
    let mut passages = Vec::new();
    let mut pairs = Vec::new();
    for (k, p) in out.pairs.iter().enumerate() {
        let (Some(x), Some(y)) = (index(&p.a), index(&p.b)) else { continue };
        pair_of[x][y] = Some(k);
        pair_of[y][x] = Some(k);
        for (m, ps) in p.passages.iter().enumerate() {
            spans[x][y].push(ps.a);
            spans[y][x].push(ps.b);
            passages.push(PassageView {
                pair: k,
                index: m,
                kind: format!("{:?}", ps.kind).to_lowercase(),
                a_id: p.a.clone(),
                b_id: p.b.clone(),
                a_span: ps.a,
                b_span: ps.b,
                score: format!("{:.2}", ps.score),
                links: ps.links.len(),
                excerpt: excerpt(&chars[x], ps.a, 40),
            });
        }
        let (rows, linked) = pair_rows(docs[x].prepared, &chars[x], docs[y].prepared, &chars[y], &p.passages);
        let (ca, cb) = (covered_chars(spans[x][y].clone()), covered_chars(spans[y][x].clone()));
        let share = |c: u64, d: &CharIndex| if d.is_empty() { 0.0 } else { c as f64 / d.len() as f64 };
        pairs.push(PairView {
            index: k,
            a_id: p.a.clone(),
            b_id: p.b.clone(),
            summary: format!(
                "{} passage(s), {} link(s); {}% of {} and {}% of {} in passages",
                p.passages.len(),
                linked,
                pct(share(ca, &chars[x])),
                p.a,
                pct(share(cb, &chars[y])),
                p.b
            ),
            rows,
            linked,
        });
    }
    let matrix: Vec<Vec<Cell>> = (0..n)
        .map(|x| {
            (0..n)
                .map(|y| {
                    if x == y {
                        return Cell { pct: "–".into(), shade: 0, pair: None };
                    }
                    let len = chars[x].len().max(1) as f64;
                    let s = covered_chars(spans[x][y].clone()) as f64 / len;
                    Cell { pct: pct(s), shade: (s * 100.0).round() as u32, pair: pair_of[x][y] }
                })
                .collect()
        })
        .collect();
    let documents: Vec<DocView> = docs
        .iter()
        .enumerate()
        .map(|(x, d)| {
            let all: Vec<Span> = spans[x].iter().flatten().copied().collect();
            let len = chars[x].len().max(1) as f64;
            DocView {
                id: d.id,
                path: d.path,
                chars: chars[x].len(),
                encoding: d.encoding,
                shared: pct(covered_chars(all) as f64 / len),
            }
        })
        .collect();
    let collation = collation_view(docs, &chars, table);
    environment().get_template("align.html")?.render(minijinja::context! {
        title => docs.iter().map(|d| d.id).collect::<Vec<_>>().join(" · "),
        version => env!("CARGO_PKG_VERSION"),
        style => STYLE,
        script => SCRIPT,
        documents => documents,
        matrix => matrix,
        ids => docs.iter().map(|d| d.id).collect::<Vec<_>>(),
        passages => passages,
        pairs => pairs,
        collation => collation,
        collation_style => COLLATION_STYLE,
        collation_script => COLLATION_SCRIPT,
        rows_per_page => ROWS_PER_PAGE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Aligner, Options};

    fn classes(segs: &[Seg]) -> Vec<(&str, &str)> {
        segs.iter().map(|s| (s.text.as_str(), s.class)).collect()
    }

    #[test]
    fn differences_are_split_into_common_folded_and_changed_text() {
        let aligner = Aligner::new(Options::default());
        let (ta, tb) = ("城里约有五万居民，戰爭未停。", "城中约有5万居民，战争未停!");
        let (pa, pb) = (aligner.prepare(ta), aligner.prepare(tb));
        let (a, b) = diff_segments(&pa, ta, [0, pa.chars], &pb, tb, [0, pb.chars]);
        assert_eq!(a.iter().map(|s| s.text.as_str()).collect::<String>(), ta);
        assert_eq!(b.iter().map(|s| s.text.as_str()).collect::<String>(), tb);
        let ca = classes(&a);
        assert!(ca.contains(&("里", "sub")), "{ca:?}");
        assert!(ca.iter().any(|(t, c)| t.contains("五万") && *c == "fold"), "{ca:?}");
        assert!(ca.iter().any(|(t, c)| t.contains("戰爭") && *c == "fold"), "{ca:?}");
        let cb = classes(&b);
        assert!(cb.contains(&("中", "sub")), "{cb:?}");
        assert!(cb.iter().any(|(t, c)| t.contains("5万") && *c == "fold"), "{cb:?}");
    }

    #[test]
    fn text_is_escaped_in_the_page() {
        let aligner = Aligner::new(Options::default());
        let t = "<script>alert(1)</script>魏斯明德坐落在布伦纳河注入波罗的海的河口。";
        let p = aligner.prepare(t);
        let docs = [
            ReportDoc { id: "a<b>", path: "a.txt", encoding: "utf-8", text: t, prepared: &p },
            ReportDoc { id: "b", path: "b.txt", encoding: "utf-8", text: t, prepared: &p },
        ];
        let pairs =
            vec![crate::output::PairOutput { a: "a<b>".into(), b: "b".into(), passages: aligner.align(&p, &p) }];
        let out = AlignOutput::new(Vec::new(), pairs);
        let html = align_page(&docs, &out, None).unwrap();
        assert!(!html.contains("<script>alert(1)"), "raw script tag in the page");
        assert!(html.contains("script&gt;alert(1)&lt;&#x2f;script&gt;"), "the text is not shown escaped");
        assert!(!html.contains("a<b>"));
    }
}
