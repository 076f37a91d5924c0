//! End-to-end tests of `parallels index build`, `index add` and `query` on
//! a small planted corpus: query finds what `scan` finds, `add` gives what
//! one build gives, a killed `add` leaves the index usable, and a second
//! writer is refused.

mod util;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use util::{fixture_text, Sandbox};

/// Deterministic filler: sentences of characters drawn from the fixtures'
/// own inventory, so that unrelated documents share almost no 5-gram.
struct Filler {
    chars: Vec<char>,
    state: u64,
}

impl Filler {
    fn new(seed: u64) -> Filler {
        let mut chars: Vec<char> = fixture_text("v4.txt")
            .chars()
            .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
            .collect::<BTreeSet<char>>()
            .into_iter()
            .collect();
        chars.sort_unstable();
        Filler { chars, state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1 }
    }

    fn text(&mut self, n: usize) -> String {
        let mut s = String::new();
        for k in 0..n {
            self.state = self.state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            s.push(self.chars[(self.state >> 33) as usize % self.chars.len()]);
            if k % 23 == 22 {
                s.push('。');
            }
        }
        s
    }
}

/// Documents as (id, text).
type Docs = Vec<(String, String)>;

/// A noisy copy: every 29th character replaced.
fn noisy(s: &str) -> String {
    s.chars().enumerate().map(|(k, c)| if k % 29 == 28 { '某' } else { c }).collect()
}

/// The library (id, text) and the texts asked (id, text). Planted: a
/// paragraph of v1 copied verbatim into two library documents and noisily
/// into one, another into one; v1 itself and v2 in traditional script (a
/// parallel version) in the library. Asked: a text holding two of those
/// paragraphs, v2 (a version of v1 and v2_trad), filler only, and a noisy
/// copy of a third paragraph.
fn corpus() -> (Docs, Docs) {
    let v1 = fixture_text("v1.txt");
    let paras: Vec<String> = v1.lines().filter(|l| l.chars().count() > 60).map(str::to_string).collect();
    let mut f = Filler::new(7);
    let mut lib: Vec<(String, String)> = (0..24).map(|k| (format!("bg{k:02}"), f.text(400 + 37 * k))).collect();
    lib[3].1 = format!("{}\n{}\n{}", f.text(300), paras[1], f.text(200));
    lib[7].1 = format!("{}\n{}\n{}", f.text(250), noisy(&paras[1]), f.text(300));
    lib[11].1 = format!("{}\n{}\n{}", f.text(100), paras[3], f.text(400));
    lib[15].1 = format!("{}\n{}", paras[1], f.text(500));
    lib.push(("v1".into(), v1.clone()));
    lib.push(("v2t".into(), fixture_text("v2_trad.txt")));
    let asked = vec![
        ("q1".to_string(), format!("{}\n{}\n{}\n{}", f.text(200), paras[1], f.text(300), paras[3])),
        ("q2".to_string(), fixture_text("v2.txt")),
        ("q3".to_string(), f.text(900)),
        ("q4".to_string(), format!("{}\n{}\n{}", f.text(150), noisy(&paras[5]), f.text(150))),
    ];
    (lib, asked)
}

/// The corpus without the long texts (v1, v2t, q2, q3), for the tests
/// that run many commands: copies only (and those tests make small
/// feature tables, `--df-bits 16`, quick to load in a debug build).
fn copies() -> (Docs, Docs) {
    let (mut lib, asked) = corpus();
    lib.retain(|(id, _)| id.starts_with("bg"));
    (lib, asked.into_iter().filter(|(id, _)| id == "q1" || id == "q4").collect())
}

fn jsonl(docs: &[(String, String)]) -> String {
    docs.iter().map(|(id, text)| json!({"id": id, "text": text}).to_string() + "\n").collect()
}

fn lines(sb: &Sandbox, rel: &str) -> Vec<Value> {
    String::from_utf8(sb.read(rel)).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A passage as compared: other document, kind, span in the document
/// asked, span in the other, and its links' spans.
type Row = (String, String, String, String, String);

/// Rows with their scores (the passage's, then its links').
type Rows = std::collections::BTreeMap<Row, Vec<f64>>;

fn row(other: &str, p: &Value, mine: &str, theirs: &str) -> (Row, Vec<f64>) {
    let links = p["links"].as_array().cloned().unwrap_or_default();
    let spans: Vec<Value> = links.iter().map(|l| json!([l[mine], l[theirs]])).collect();
    let mut scores = vec![p["score"].as_f64().unwrap()];
    scores.extend(links.iter().map(|l| l["score"].as_f64().unwrap()));
    let key = (
        other.to_string(),
        p["kind"].as_str().unwrap().to_string(),
        p[mine].to_string(),
        p[theirs].to_string(),
        Value::Array(spans).to_string(),
    );
    (key, scores)
}

/// Every passage `scan` reported for document `id`, seen from it.
fn scan_rows(passages: &[Value], id: &str) -> Rows {
    let mut out = Rows::new();
    for p in passages {
        if p["a_doc"] == id {
            out.extend([row(p["b_doc"].as_str().unwrap(), p, "a", "b")]);
        } else if p["b_doc"] == id {
            out.extend([row(p["a_doc"].as_str().unwrap(), p, "b", "a")]);
        }
    }
    out
}

/// Every passage `query` reported for the text `id` (pairs with `a` = id).
fn query_rows(out: &Value, id: &str) -> Rows {
    let mut rows = Rows::new();
    for pair in out["pairs"].as_array().unwrap() {
        if pair["a"] == id {
            for p in pair["passages"].as_array().unwrap() {
                rows.extend([row(pair["b"].as_str().unwrap(), p, "a", "b")]);
            }
        }
    }
    rows
}

/// The same passages and links; scores equal within `tolerance`.
fn assert_same(got: &Rows, want: &Rows, tolerance: f64, what: &str) {
    let keys = |r: &Rows| r.keys().cloned().collect::<Vec<Row>>();
    assert_eq!(keys(got), keys(want), "{what}: not the same passages");
    for (k, g) in got {
        let w = &want[k];
        let worst = g.iter().zip(w).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(worst <= tolerance, "{what}: {k:?}: scores {g:?} and {w:?}");
    }
}

fn others(rows: &Rows) -> BTreeSet<String> {
    rows.keys().map(|r| r.0.clone()).collect()
}

#[test]
fn query_finds_what_scan_finds_for_each_new_text() {
    let sb = Sandbox::new();
    let (lib, asked) = corpus();
    sb.write("lib.jsonl", jsonl(&lib)).write("asked.jsonl", jsonl(&asked));
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx"]).success();
    let run = sb.run(&["query", "asked.jsonl", "--index", "lib.idx", "--format", "json", "--top", "100"]);
    run.success();
    let out = run.json();
    assert_eq!(out["schema"], "parallels.align/1");
    for (k, (id, text)) in asked.iter().enumerate() {
        // `scan` of the library with this text added last.
        let mut all = lib.clone();
        all.push((id.clone(), text.clone()));
        let dir = format!("scan{k}");
        sb.write(&format!("{dir}.jsonl"), jsonl(&all));
        sb.run(&["scan", &format!("{dir}.jsonl"), "-o", &dir]).success();
        let want = scan_rows(&lines(&sb, &format!("{dir}/passages.jsonl")), id);
        // The text's own sentence features are not counted into the
        // index's feature table (see parallels::index): link scores may
        // differ a little in a library this small (v2 is a seventh of it;
        // q4 adds a noise character the library lacks),
        // nothing else.
        assert_same(&query_rows(&out, id), &want, 0.03, id);
    }
    // And they are the planted ones.
    let found = |id: &str| others(&query_rows(&out, id));
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
    assert_eq!(found("q1"), set(&["bg03", "bg07", "bg11", "bg15", "v1"]));
    assert!(found("q2").is_superset(&set(&["v1", "v2t"])), "{:?}", found("q2"));
    assert_eq!(found("q3"), set(&[]));
    assert_eq!(found("q4"), set(&["v1"]));
    // Offsets are code points of the texts asked.
    let q1 = &asked[0].1;
    let copy = out["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["a"] == "q1" && p["b"] == "bg03")
        .map(|p| p["passages"][0].clone())
        .unwrap();
    let (s, e) = util::span(&copy["a"]);
    let v1 = fixture_text("v1.txt");
    let para1 = v1.lines().filter(|l| l.chars().count() > 60).nth(1).unwrap();
    assert_eq!(util::slice_chars(q1, (s, e)), para1);
}

#[test]
fn a_short_quotation_cut_anywhere_is_found_with_its_ends_but_not_a_phrase_others_repeat() {
    // A 26-character run cut inside a sentence of one library document
    // (running on into the next), quoted mid-sentence by the text asked: under the scan's
    // bar (26 tokens of evidence at most), found by `query` as `align`
    // finds it. A 24-character phrase that four library documents repeat
    // (a title, a slogan) is quoted too, and is not a hit.
    let sb = Sandbox::new();
    let mut f = Filler::new(11);
    let mut lib: Docs = (0..24).map(|k| (format!("bg{k:02}"), f.text(500 + 31 * k))).collect();
    let formula = f.text(24).replace('。', "");
    for (_, text) in lib.iter_mut().skip(10).take(4) {
        let at = text.char_indices().nth(200).unwrap().0;
        text.insert_str(at, &formula);
    }
    let source = &lib[5].1;
    let quote: String = source.chars().skip(301).take(26).collect();
    let cut_inside = |k: usize| source.chars().nth(k).is_some_and(|c| c != '。');
    assert!(cut_inside(300) && cut_inside(326), "the quotation starts and ends inside sentences: {quote}");
    let (before, after) = (f.text(180).replace('。', "，"), f.text(200));
    let asked = format!("{before}{quote}{}{formula}{after}", f.text(90));
    sb.write("lib.jsonl", jsonl(&lib)).write("asked.txt", &asked);
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx", "--df-bits", "16"]).success();
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx", "--format", "json"]);
    run.success();
    let out = run.json();
    let pairs = out["pairs"].as_array().unwrap();
    let hits: Vec<&str> = pairs.iter().map(|p| p["b"].as_str().unwrap()).collect();
    assert_eq!(hits, ["bg05"], "only the quoted document is a hit: {out}");
    let passages = pairs[0]["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 1, "{out}");
    let p = &passages[0];
    assert_eq!(p["kind"], "verbatim");
    let start = before.chars().count() as u64;
    assert_eq!(util::span(&p["a"]), (start, start + 26), "the quotation's ends in the text asked");
    assert_eq!(util::span(&p["b"]), (301, 327), "its ends in the library document");
    assert_eq!(util::slice_chars(&asked, util::span(&p["a"])), quote);
    // `scan` asks more of a passage: the quotation alone is under its bar.
    let mut all = lib.clone();
    all.push(("asked".into(), asked.clone()));
    sb.write("all.jsonl", jsonl(&all));
    sb.run(&["scan", "all.jsonl", "-o", "scan"]).success();
    assert!(lines(&sb, "scan/passages.jsonl").is_empty(), "scan reports no passage of fewer than 35 tokens");
}

#[test]
fn a_library_document_asked_against_the_rest_gets_its_scan_passages() {
    let sb = Sandbox::new();
    let (mut lib, asked) = corpus();
    lib.extend(asked);
    sb.write("all.jsonl", jsonl(&lib));
    sb.run(&["index", "build", "all.jsonl", "--index", "all.idx"]).success();
    sb.run(&["scan", "all.jsonl", "-o", "scan"]).success();
    let passages = lines(&sb, "scan/passages.jsonl");
    for id in ["bg03", "bg07", "v1", "v2t", "q1", "q2", "q4", "bg00"] {
        let run = sb.run(&["query", "--doc", id, "--index", "all.idx", "--format", "json", "--top", "100"]);
        run.success();
        assert_same(&query_rows(&run.json(), id), &scan_rows(&passages, id), 0.0, id);
    }
}

#[test]
fn add_gives_what_one_build_of_everything_gives() {
    let sb = Sandbox::new();
    let (lib, asked) = corpus();
    let (first, second) = lib.split_at(lib.len() / 2);
    sb.write("first.jsonl", jsonl(first)).write("second.jsonl", jsonl(second));
    sb.write("lib.jsonl", jsonl(&lib)).write("asked.jsonl", jsonl(&asked));
    sb.run(&["index", "build", "lib.jsonl", "--index", "once.idx"]).success();
    sb.run(&["index", "build", "first.jsonl", "--index", "twice.idx"]).success();
    let add = sb.run(&["index", "add", "second.jsonl", "--index", "twice.idx"]);
    add.success();
    assert!(add.stderr.contains(&format!("{} documents in the index", lib.len())), "{add}");
    // The same answers but for where each library document was read from.
    let q = |idx: &str| {
        let run = sb.run(&["query", "asked.jsonl", "--index", idx, "--format", "json"]);
        run.success();
        let mut out = run.json();
        for d in out["documents"].as_array_mut().unwrap() {
            d["path"] = Value::Null;
        }
        out
    };
    let once = q("once.idx");
    assert!(q("twice.idx") == once, "an index built in two steps answers otherwise");
    assert!(once["pairs"].as_array().unwrap().iter().any(|p| p["b"] == "bg15"));
    // A second build on an index is refused; an add to nothing too.
    let again = sb.run(&["index", "build", "lib.jsonl", "--index", "once.idx"]);
    again.code(2);
    assert!(again.stderr.contains("already there"), "{again}");
    let none = sb.run(&["index", "add", "lib.jsonl", "--index", "nothing.idx"]);
    none.code(2);
    assert!(none.stderr.contains("no index here"), "{none}");
}

#[test]
fn seeds_in_more_documents_than_max_df_weigh_as_scan_weighs_them() {
    // A query counts a seed's documents only up to one more than
    // `--max-df` (beyond, it is no vote and weighs nothing): with a small
    // `--max-df`, the planted paragraph and a formula opening a dozen
    // documents are past it, and the answers are still the scan's.
    let sb = Sandbox::new();
    let (mut lib, asked) = corpus();
    let formula = "本报讯据新华社记者从有关部门获悉今年以来各地认真贯彻落实中央的部署要求";
    for (k, d) in lib.iter_mut().enumerate().filter(|(k, _)| k % 2 == 0) {
        d.1 = format!("{formula}{k}。\n{}", d.1);
    }
    let mut asked = asked;
    asked[0].1 = format!("{formula}。\n{}", asked[0].1);
    let mut all = lib.clone();
    all.extend(asked.iter().cloned());
    sb.write("all.jsonl", jsonl(&all)).write("lib.jsonl", jsonl(&lib)).write("asked.jsonl", jsonl(&asked));
    let max_df = ["--max-df", "3"];
    sb.run(&[&["index", "build", "all.jsonl", "--index", "all.idx"][..], &max_df].concat()).success();
    sb.run(&[&["scan", "all.jsonl", "-o", "scan"][..], &max_df].concat()).success();
    let passages = lines(&sb, "scan/passages.jsonl");
    let mut compared = 0;
    for id in ["bg00", "bg03", "bg07", "bg15", "v1", "v2t", "q1", "q2", "q4"] {
        let run = sb.run(&["query", "--doc", id, "--index", "all.idx", "--format", "json", "--top", "100"]);
        run.success();
        let got = query_rows(&run.json(), id);
        assert_same(&got, &scan_rows(&passages, id), 0.0, id);
        compared += got.len();
    }
    assert!(compared > 0, "no passage at all");
    // New texts: as `scan` of the library with each added.
    sb.run(&[&["index", "build", "lib.jsonl", "--index", "lib.idx"][..], &max_df].concat()).success();
    let run = sb.run(&["query", "asked.jsonl", "--index", "lib.idx", "--format", "json", "--top", "100"]);
    run.success();
    let out = run.json();
    for (k, (id, text)) in asked.iter().enumerate().filter(|(_, (id, _))| id == "q1" || id == "q4") {
        let mut with = lib.clone();
        with.push((id.clone(), text.clone()));
        let dir = format!("scan{k}");
        sb.write(&format!("{dir}.jsonl"), jsonl(&with));
        sb.run(&[&["scan", &format!("{dir}.jsonl"), "-o", &dir][..], &max_df].concat()).success();
        let want = scan_rows(&lines(&sb, &format!("{dir}/passages.jsonl")), id);
        assert_same(&query_rows(&out, id), &want, 0.03, id);
    }
    // The paragraphs of q1 are in more documents than `--max-df` (its
    // copies, v1 and v2t): for `query` as for `scan`, they are formula;
    // q4's noisy paragraph is in v1 alone.
    assert!(query_rows(&out, "q1").is_empty(), "{out}");
    assert_eq!(others(&query_rows(&out, "q4")), ["v1".to_string()].into_iter().collect(), "{out}");
}

#[test]
fn a_build_or_an_add_of_nothing_writes_nothing() {
    let sb = Sandbox::new();
    let (lib, _) = copies();
    sb.write("empty.jsonl", "").write("skipped.jsonl", "{\"id\": \"x\"}\n").write("lib.jsonl", jsonl(&lib));
    for input in ["empty.jsonl", "skipped.jsonl"] {
        let run = sb.run(&["index", "build", input, "--index", "new.idx", "--df-bits", "16"]);
        run.code(2);
        assert!(run.stderr.contains("no document was read"), "{run}");
        assert!(!sb.path().join("new.idx").exists(), "{input}: a build of nothing left {:?}", sb.list("new.idx"));
    }
    // Into a folder that was there: it stays, without an index.
    std::fs::create_dir(sb.path().join("there.idx")).unwrap();
    sb.run(&["index", "build", "empty.jsonl", "--index", "there.idx", "--df-bits", "16"]).code(2);
    assert!(!sb.path().join("there.idx/manifest.json").exists());
    let none = sb.run(&["index", "add", "lib.jsonl", "--index", "there.idx"]);
    none.code(2);
    assert!(none.stderr.contains("no index here"), "{none}");
    // An add of nothing leaves the index as it was, to the byte.
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx", "--df-bits", "16"]).success();
    let before = (sb.list("lib.idx"), sb.read("lib.idx/manifest.json"));
    let run = sb.run(&["index", "add", "empty.jsonl", "--index", "lib.idx"]);
    run.code(2);
    assert!(run.stderr.contains("no document was read"), "{run}");
    assert_eq!((sb.list("lib.idx"), sb.read("lib.idx/manifest.json")), before);
}

/// Query output of `asked` against the index `idx`.
fn answers(sb: &Sandbox, idx: &str) -> String {
    let run = sb.run(&["query", "asked.jsonl", "--index", idx, "--format", "json"]);
    run.success();
    String::from_utf8(run.stdout.clone()).unwrap()
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn an_add_stopped_at_any_step_leaves_the_old_or_the_new_index() {
    let sb = Sandbox::new();
    let (lib, asked) = copies();
    let (first, second) = lib.split_at(lib.len() / 2);
    sb.write("first.jsonl", jsonl(first)).write("second.jsonl", jsonl(second)).write("asked.jsonl", jsonl(&asked));
    sb.run(&["index", "build", "first.jsonl", "--index", "ref.idx", "--df-bits", "16"]).success();
    let old = answers(&sb, "ref.idx");
    sb.run(&["index", "add", "second.jsonl", "--index", "ref.idx"]).success();
    let new = answers(&sb, "ref.idx");
    assert_ne!(old, new);
    for (k, (crash, after)) in [
        ("documents:3", &old),
        ("postings:0", &old),
        ("committing:0", &old),
        ("committing:1", &old),
        ("committing:2", &old),
        ("committing:3", &new),
    ]
    .into_iter()
    .enumerate()
    {
        let idx = format!("i{k}.idx");
        sb.run(&["index", "build", "first.jsonl", "--index", &idx, "--df-bits", "16"]).success();
        let killed = sb.run_env(&["index", "add", "second.jsonl", "--index", &idx], &[("PARALLELS_TEST_CRASH", crash)]);
        assert_ne!(killed.code, Some(0), "{crash}: the add was not stopped\n{killed}");
        assert_eq!(&answers(&sb, &idx), after, "{crash}");
        // The next writer clears what was left and ends where one add ends.
        if after == &old {
            sb.run(&["index", "add", "second.jsonl", "--index", &idx]).success();
        }
        assert_eq!(answers(&sb, &idx), new, "{crash}: after the add again");
        let left: Vec<String> = sb.list(&idx).into_iter().filter(|n| n.starts_with(".tmp")).collect();
        assert!(left.is_empty(), "{crash}: {left:?}");
    }
}

#[test]
#[cfg(unix)]
fn an_add_killed_at_random_times_leaves_the_old_or_the_new_index() {
    use std::time::Duration;
    let sb = Sandbox::new();
    let (lib, asked) = copies();
    // A second half large enough to be killed while it is read.
    let mut f = Filler::new(99);
    let more: Vec<(String, String)> = (0..500).map(|k| (format!("more{k}"), f.text(600))).collect();
    let mut second = lib.clone();
    second.extend(more);
    sb.write("first.jsonl", jsonl(&lib[..4])).write("second.jsonl", jsonl(&second)).write("asked.jsonl", jsonl(&asked));
    sb.run(&["index", "build", "first.jsonl", "--index", "ref.idx", "--df-bits", "16"]).success();
    let old = answers(&sb, "ref.idx");
    let start = std::time::Instant::now();
    sb.run(&["index", "add", "second.jsonl", "--index", "ref.idx"]).success();
    let took = start.elapsed();
    let new = answers(&sb, "ref.idx");
    assert_ne!(old, new);
    let (mut olds, mut news) = (0, 0);
    for k in 1..=4u32 {
        let idx = format!("k{k}.idx");
        sb.run(&["index", "build", "first.jsonl", "--index", &idx, "--df-bits", "16"]).success();
        let mut child = sb.command(["index", "add", "second.jsonl", "--index", &idx]).spawn().unwrap();
        std::thread::sleep(took * k / 5);
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let got = answers(&sb, &idx);
        assert!(got == old || got == new, "killed after {:?}: neither the old nor the new results", took * k / 5);
        if got == old {
            olds += 1;
        } else {
            news += 1;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(olds > 0, "no kill fell inside the add ({olds} old, {news} new)");
}

#[test]
#[cfg(target_os = "linux")]
fn a_second_writer_is_refused() {
    use std::os::fd::AsRawFd;
    let sb = Sandbox::new();
    let (lib, asked) = copies();
    sb.write("lib.jsonl", jsonl(&lib)).write("asked.jsonl", jsonl(&asked));
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx", "--df-bits", "16"]).success();
    let before = answers(&sb, "lib.idx");
    // Another writer holds the lock (as a running `add` does: the file
    // is there only while a writer runs).
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(sb.path().join("lib.idx/lock"))
        .unwrap();
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    let refused = sb.run(&["index", "add", "asked.jsonl", "--index", "lib.idx"]);
    refused.code(2);
    assert!(refused.stderr.contains("another `parallels index` is writing this index"), "{refused}");
    // Readers are not held up, and nothing changed.
    assert_eq!(answers(&sb, "lib.idx"), before);
    drop(lock);
    sb.run(&["index", "add", "asked.jsonl", "--index", "lib.idx"]).success();
    // Two adds at once: one goes through, the other is refused or comes
    // after it (and finds the document there already), never both
    // writing.
    sb.write("a.jsonl", jsonl(&[("xa".to_string(), "甲".repeat(50))]));
    let mut kids: Vec<_> = (0..2)
        .map(|_| {
            sb.command(["index", "add", "a.jsonl", "--index", "lib.idx"])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = kids.drain(..).map(|c| c.wait_with_output().unwrap()).collect();
    let ok = outs.iter().filter(|o| o.status.success()).count();
    assert!(ok >= 1);
    for o in outs.iter().filter(|o| !o.status.success()) {
        assert!(String::from_utf8_lossy(&o.stderr).contains("another `parallels index` is writing"));
    }
    let manifest: Value = serde_json::from_slice(&sb.read("lib.idx/manifest.json")).unwrap();
    assert_eq!(manifest["documents"].as_u64().unwrap() as usize, lib.len() + asked.len() + 1);
}
