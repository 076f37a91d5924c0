//! `parallels report` on a scan's results: what the index page carries
//! (passages ranked by significance with excerpts cut from the original
//! texts by code points, clusters, pairs linked to their pages) and the
//! graph laid out by cluster. The page's behaviour in a browser is checked
//! by `tests/browser.rs`.

mod util;

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use util::{fixture_text, Sandbox};

fn jsonl(sb: &Sandbox, rel: &str) -> Vec<Value> {
    String::from_utf8(sb.read(rel)).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The JSON object the index page carries for its tables.
fn page_data(html: &str) -> Value {
    let start = html.find(r#"<script type="application/json" id="scan-data">"#).expect("the page carries its data");
    let rest = &html[start..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest.find("</script>").unwrap();
    serde_json::from_str(&rest[open..close]).expect("the data is JSON")
}

fn chars(text: &str, s: u64, e: u64) -> String {
    text.chars().skip(s as usize).take((e - s) as usize).collect()
}

/// A corpus of four documents: a copy of a paragraph of `v1` (behind text
/// outside the Basic Multilingual Plane, so code points and UTF-16 units
/// differ), a parallel version, a copy of that copy, and one that shares
/// nothing.
fn corpus(sb: &Sandbox) -> HashMap<String, String> {
    let v1 = fixture_text("v1.txt");
    let v2 = fixture_text("v2.txt");
    let para: String = v1.lines().filter(|l| !l.trim().is_empty()).nth(1).unwrap().to_string();
    let texts = [
        ("a", v1.clone()),
        ("b", format!("𠀀𠀁𠀂𠀃 <script>alert(1)</script> 序。\n{para}\n")),
        ("c", v2),
        ("d", format!("另一篇文字，与其他文件无关。\n𠀐𠀑。{para}\n")),
        ("e", "完全无关的一篇短文，讲的是天气和收成。".repeat(5)),
        // Markup inside the shared text itself: in the excerpts.
        ("f", format!("甲方来函。\n</script><script>alert(2)</script>{para}\n")),
        ("g", format!("乙方复函，另有附件。\n</script><script>alert(2)</script>{para}\n")),
    ];
    let mut out = HashMap::new();
    for (id, t) in texts {
        sb.write(&format!("corpus/{id}.txt"), &t);
        out.insert(id.to_string(), t);
    }
    out
}

#[test]
fn the_index_carries_the_passages_ranked_with_excerpts_of_both_sides() {
    let sb = Sandbox::new();
    let texts = corpus(&sb);
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    sb.run(&["report", "results", "-o", "report"]).success();
    let passages = jsonl(&sb, "results/passages.jsonl");
    assert!(passages.len() >= 3, "{passages:?}");
    let html = String::from_utf8(sb.read("report/index.html")).unwrap();
    // A document's markup is data, never markup of the page.
    assert!(!html.contains("<script>alert("), "raw markup from a document");
    let data = page_data(&html);
    let docs: Vec<&str> = data["docs"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    let rows = data["passages"].as_array().unwrap();
    assert_eq!(rows.len(), passages.len());
    assert_eq!(data["all_passages"], passages.len());
    let sig: Vec<f64> = rows.iter().map(|r| r[8].as_f64().unwrap()).collect();
    assert!(sig.windows(2).all(|w| w[0] >= w[1]), "not most significant first: {sig:?}");
    let mut seen = HashSet::new();
    for r in rows {
        let (a, b) = (docs[r[0].as_u64().unwrap() as usize], docs[r[1].as_u64().unwrap() as usize]);
        let (a_span, b_span) =
            ((r[3].as_u64().unwrap(), r[4].as_u64().unwrap()), (r[5].as_u64().unwrap(), r[6].as_u64().unwrap()));
        // The row is a passage of the table, all its fields as written.
        let p = passages
            .iter()
            .find(|p| p["a_doc"] == a && p["b_doc"] == b && p["a"][0] == a_span.0 && p["b"][0] == b_span.0)
            .unwrap_or_else(|| panic!("no passage {a} {b} {a_span:?}"));
        assert_eq!((p["a"][1].as_u64().unwrap(), p["b"][1].as_u64().unwrap()), (a_span.1, b_span.1));
        assert_eq!(r[2].as_u64().unwrap(), if p["kind"] == "verbatim" { 0 } else { 1 });
        assert!((r[7].as_f64().unwrap() - p["score"].as_f64().unwrap()).abs() < 0.001);
        assert!((r[8].as_f64().unwrap() - p["significance"].as_f64().unwrap()).abs() <= 0.051);
        assert_eq!(r[9], p["cluster"]);
        // Both excerpts: the start of the span in the original text, by
        // code points, whitespace folded.
        for (text, span, k) in [(&texts[a], a_span, 10), (&texts[b], b_span, 11)] {
            let start: String = chars(text, span.0, span.1.min(span.0 + 48));
            let folded = start.split_whitespace().collect::<Vec<_>>().join(" ");
            let ex = r[k].as_str().unwrap();
            assert_eq!(ex.trim_end_matches('…'), folded, "{a}–{b}");
            assert_eq!(ex.ends_with('…'), span.1 - span.0 > 48);
        }
        seen.insert((a, b));
        // Every top pair has a page, and the passage its place in it.
        let (page, within) = (r[12].as_i64().unwrap(), r[13].as_i64().unwrap());
        assert!(page >= 0 && within >= 0, "{a}–{b} without a page");
        let pair = String::from_utf8(sb.read(&format!("report/pairs/{page:04}.html"))).unwrap();
        assert!(pair.contains(&format!("id=\"pair-{page}-p{within}\"")), "pair {page} has no passage {within}");
        assert!(pair.contains(&format!("<title>parallels — {a} ↔ {b}</title>")), "pair page {page} is not {a}–{b}");
    }
    assert!(seen.contains(&("a", "b")) && seen.contains(&("b", "d")), "{seen:?}");
    assert!(!docs.contains(&"e"), "a document sharing nothing is listed");
    let fg = rows
        .iter()
        .find(|r| docs[r[0].as_u64().unwrap() as usize] == "f" && docs[r[1].as_u64().unwrap() as usize] == "g");
    assert!(fg.unwrap()[10].as_str().unwrap().starts_with("</script><script>alert(2)"), "{fg:?}");
    // The clusters, most significant first, each member with its excerpt.
    let clusters = jsonl(&sb, "results/clusters.jsonl");
    let listed = data["clusters"].as_array().unwrap();
    assert_eq!(listed.len(), clusters.len());
    let weights: Vec<f64> = listed.iter().map(|c| c["significance"].as_f64().unwrap()).collect();
    assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{weights:?}");
    for c in listed {
        let full = clusters.iter().find(|x| x["id"] == c["id"]).unwrap();
        assert_eq!(c["size"], full["size"]);
        let sum: f64 =
            passages.iter().filter(|p| p["cluster"] == c["id"]).map(|p| p["significance"].as_f64().unwrap()).sum();
        assert!((c["significance"].as_f64().unwrap() - sum).abs() < 0.05);
        for (m, fm) in c["members"].as_array().unwrap().iter().zip(full["members"].as_array().unwrap()) {
            let id = docs[m[0].as_u64().unwrap() as usize];
            assert_eq!(id, fm["doc"]);
            let (s, e) = (m[1].as_u64().unwrap(), m[2].as_u64().unwrap());
            let start = chars(&texts[id], s, e.min(s + 48)).split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(m[3].as_str().unwrap().trim_end_matches('…'), start);
        }
    }
}

#[test]
fn the_graph_draws_each_cluster_together_and_links_to_pair_pages() {
    let sb = Sandbox::new();
    // Two groups of reuse that share nothing: a paragraph of v1 copied into
    // three documents, and one of v4 into two others.
    let v1 = fixture_text("v1.txt");
    let v4 = fixture_text("v4.txt");
    let para = |t: &str, k: usize| t.lines().filter(|l| l.chars().count() > 120).nth(k).unwrap().to_string();
    let (p, q) = (para(&v1, 1), para(&v4, 2));
    for (id, filler, text) in [("x1", "甲", &p), ("x2", "乙", &p), ("x3", "丙", &p), ("y1", "丁", &q), ("y2", "戊", &q)]
    {
        sb.write(&format!("corpus/{id}.txt"), format!("{}。\n{text}\n", filler.repeat(30)));
    }
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    sb.run(&["report", "results", "-o", "report"]).success();
    let html = String::from_utf8(sb.read("report/index.html")).unwrap();
    let svg = &html[html.find("<svg class=\"graph\"").unwrap()..html.find("</svg>").unwrap()];
    // Each document: where it is drawn and the page it links to.
    let mut at: HashMap<String, (f64, f64)> = HashMap::new();
    for part in svg.split("<a class=\"node").skip(1) {
        let attr = |name: &str| {
            let k = part.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            part[k..k + part[k..].find('"').unwrap()].to_string()
        };
        let page = attr("href").replace("&#x2f;", "/");
        assert!(sb.path().join("report").join(&page).exists(), "{page} is not a page of the report");
        at.insert(attr("data-doc"), (attr("cx").parse().unwrap(), attr("cy").parse().unwrap()));
    }
    assert_eq!(at.len(), 5, "{at:?}");
    let dist = |a: &str, b: &str| ((at[a].0 - at[b].0).powi(2) + (at[a].1 - at[b].1).powi(2)).sqrt();
    let within = ["x1-x2", "x1-x3", "x2-x3", "y1-y2"].map(|s| dist(&s[..2], &s[3..]));
    let across = ["x1-y1", "x1-y2", "x2-y1", "x2-y2", "x3-y1", "x3-y2"].map(|s| dist(&s[..2], &s[3..]));
    let (far_within, near_across) =
        (within.iter().cloned().fold(0.0, f64::max), across.iter().cloned().fold(f64::MAX, f64::min));
    assert!(far_within < near_across, "a cluster is not drawn together: {at:?}");
    // Two discs, labelled by cluster; every edge links to a page.
    assert_eq!(svg.matches("<g class=\"group\">").count(), 2);
    let edges = svg.matches("<a class=\"edge").count();
    assert_eq!(
        edges,
        jsonl(&sb, "results/passages.jsonl")
            .iter()
            .map(|p| (p["a_doc"].to_string(), p["b_doc"].to_string()))
            .collect::<HashSet<_>>()
            .len()
    );
}

/// Every file of a report folder, by its path in the folder.
fn site(sb: &Sandbox, rel: &str) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for name in sb.list(rel) {
        let path = format!("{rel}/{name}");
        if sb.path().join(&path).is_dir() {
            files.extend(site(sb, &path).into_iter().map(|(p, b)| (format!("{name}/{p}"), b)));
        } else {
            files.push((name, sb.read(&path)));
        }
    }
    files
}

/// `scan --format parquet` results give the report the JSON Lines results
/// give, page for page and byte for byte (the tables read back are the
/// same rows).
#[test]
fn the_report_of_parquet_results_is_the_report_of_json_lines_results() {
    let sb = Sandbox::new();
    corpus(&sb);
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    sb.run(&["report", "results", "-o", "site-jsonl"]).success();
    std::fs::remove_dir_all(sb.path().join("results")).unwrap();
    sb.run(&["scan", "corpus", "-o", "results", "--format", "parquet"]).success();
    assert_eq!(sb.list("results"), ["clusters.parquet", "documents.parquet", "passages.parquet", "summary.json"]);
    sb.run(&["report", "results", "-o", "site-parquet"]).success();
    let pages = site(&sb, "site-jsonl");
    assert!(pages.iter().any(|(p, _)| p.starts_with("pairs/")), "{:?}", pages.iter().map(|p| &p.0).collect::<Vec<_>>());
    assert!(pages.iter().any(|(p, _)| p == "index.html"));
    assert_eq!(site(&sb, "site-parquet"), pages);
}

/// `report` prepares the texts it shows as the scan prepared them: after
/// `scan --no-script`, a character written in the other script is a
/// difference on the pair's page, as the scan compared it, not a match
/// folded by the default rules (issue 46).
#[test]
fn the_pair_page_marks_what_the_scan_compared() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    let para: String = v1.lines().filter(|l| !l.trim().is_empty()).nth(1).unwrap().to_string();
    let traditional: String = para
        .chars()
        .map(|c| match c {
            '来' => '來',
            '这' => '這',
            '国' => '國',
            '个' => '個',
            '门' => '門',
            '贸' => '貿',
            '粮' => '糧',
            c => c,
        })
        .collect();
    assert!(traditional.contains('國') && traditional != para);
    sb.write("corpus/a.txt", format!("{para}\n"));
    sb.write("corpus/b.txt", format!("{traditional}\n"));
    // The class of the span of the pair's page that holds `c`.
    let class_of = |flags: &[&str], c: char| -> String {
        let out = format!("results{}", flags.len());
        let mut scan = vec!["scan", "corpus", "-o", &out];
        scan.extend_from_slice(flags);
        sb.run(&scan).success();
        let site = format!("site{}", flags.len());
        sb.run(&["report", &out, "-o", &site]).success();
        let page = String::from_utf8(sb.read(&format!("{site}/pairs/0000.html"))).unwrap();
        let at = page.find(c).unwrap_or_else(|| panic!("{c} is not on the page"));
        let open = page[..at].rfind("<span class=\"").unwrap() + "<span class=\"".len();
        page[open..open + page[open..].find('"').unwrap()].to_string()
    };
    // Every rule on: traditional and simplified are one character, whose
    // originals differ.
    assert_eq!(class_of(&[], '國'), "fold");
    // Script folding off, in the scan and so on its page: another character.
    assert_eq!(class_of(&["--no-script"], '國'), "sub");
    let summary = String::from_utf8(sb.read("results1/summary.json")).unwrap();
    assert!(summary.contains("\"script\": false"), "{summary}");
    let summary = String::from_utf8(sb.read("results0/summary.json")).unwrap();
    assert!(!summary.contains("\"normalize\""), "{summary}");
}
