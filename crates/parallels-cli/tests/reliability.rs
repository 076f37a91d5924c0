//! The catalogue of issue 15 (nothing lost, nothing misread), one test per
//! case: each asserts the exit code, the message and the state of every
//! file of the sandbox afterwards.

mod util;

use serde_json::json;
#[cfg(target_os = "linux")]
use util::run_with_file_limit;
use util::{fixture_text, Sandbox};

fn line(id: &str, text: &str) -> String {
    format!("{}\n", json!({"id": id, "text": text}))
}

/// The first `n` characters of a fixture.
fn head(name: &str, n: usize) -> String {
    fixture_text(name).chars().take(n).collect()
}

/// A small crawl with one exact duplicate (`b` repeats `a`).
fn crawl(sb: &Sandbox) -> String {
    let (a, c) = (head("v1.txt", 600), head("v4.txt", 600));
    let input = [line("a", &a), line("b", &a), line("c", &c)].concat();
    sb.write("in.jsonl", &input);
    input
}

/// Every file under the sandbox (hidden ones included), as relative paths,
/// sorted: what a refused run must leave unchanged.
fn tree(sb: &Sandbox) -> Vec<String> {
    fn walk(dir: &std::path::Path, base: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                out.push(format!("{rel}/"));
                walk(&p, base, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(sb.path(), sb.path(), &mut out);
    out.sort();
    out
}

// ---------------------------------------------------------------------
// Item 1: an output that is an input or another output is refused, for
// every command that writes; nothing is written.

#[test]
fn item1_dedup_removed_over_the_input_is_refused() {
    let sb = Sandbox::new();
    let input = crawl(&sb);
    let run = sb.run(&["dedup", "in.jsonl", "-o", "out.jsonl", "--removed", "in.jsonl"]);
    run.code(2);
    assert!(
        run.stderr
            .contains("--removed in.jsonl: the same file as the input in.jsonl; writing it would destroy the input"),
        "{run}"
    );
    assert!(run.stderr.contains("Nothing was written"), "{run}");
    assert_eq!(String::from_utf8(sb.read("in.jsonl")).unwrap(), input);
    assert_eq!(tree(&sb), ["in.jsonl"]);
}

#[test]
fn item1_dedup_output_and_removed_as_one_file_is_refused() {
    let sb = Sandbox::new();
    let input = crawl(&sb);
    for (o, removed) in [("x.jsonl", "x.jsonl"), ("x.jsonl", "./x.jsonl"), ("sub/../x.jsonl", "x.jsonl")] {
        if o.starts_with("sub") {
            std::fs::create_dir_all(sb.path().join("sub")).unwrap();
        }
        let before = tree(&sb);
        let run = sb.run(&["dedup", "in.jsonl", "-o", o, "--removed", removed]);
        run.code(2);
        assert!(run.stderr.contains(&format!("-o {o} and --removed {removed} are the same file")), "{run}");
        assert_eq!(tree(&sb), before, "{run}");
    }
    // An earlier output at that path is left as it was.
    sb.write("x.jsonl", "earlier\n");
    sb.run(&["dedup", "in.jsonl", "-o", "x.jsonl", "--removed", "./x.jsonl"]).code(2);
    assert_eq!(sb.read("x.jsonl"), b"earlier\n");
    assert_eq!(String::from_utf8(sb.read("in.jsonl")).unwrap(), input);
}

#[test]
fn item1_dedup_removed_over_the_input_by_any_path_is_refused() {
    let sb = Sandbox::new();
    let input = crawl(&sb);
    std::fs::create_dir(sb.path().join("sub")).unwrap();
    let mut outputs = vec!["in.jsonl", "./in.jsonl", "sub/../in.jsonl"];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("in.jsonl", sb.path().join("sym.jsonl")).unwrap();
        std::fs::hard_link(sb.path().join("in.jsonl"), sb.path().join("hard.jsonl")).unwrap();
        outputs.extend(["sym.jsonl", "hard.jsonl"]);
    }
    let before = tree(&sb);
    for o in outputs {
        // (`-o` alone may be the input: see dedup's the_input_itself_can_be_the_output.)
        let run = sb.run(&["dedup", "in.jsonl", "-o", "out.jsonl", "--removed", o]);
        run.code(2);
        assert!(run.stderr.contains(&format!("--removed {o}: the same file as the input in.jsonl")), "{run}");
        assert_eq!(tree(&sb), before, "{run}");
        assert_eq!(String::from_utf8(sb.read("in.jsonl")).unwrap(), input);
    }
}

#[test]
fn item1_dedup_output_over_a_file_of_an_input_folder_is_refused() {
    let sb = Sandbox::new();
    let a = head("v1.txt", 600);
    sb.write("corpus/a.txt", &a).write("corpus/b.txt", &a);
    let before = tree(&sb);
    let run = sb.run(&["dedup", "corpus", "-o", "clean.jsonl", "--removed", "corpus/b.txt"]);
    run.code(2);
    assert!(run.stderr.contains("--removed corpus/b.txt: the same file as the input corpus/b.txt"), "{run}");
    assert_eq!(tree(&sb), before);
    assert_eq!(String::from_utf8(sb.read("corpus/b.txt")).unwrap(), a);
    // A new file in the folder is no input: written.
    sb.run(&["dedup", "corpus", "-o", "corpus/clean.jsonl"]).success();
    assert_eq!(tree(&sb), ["corpus/", "corpus/a.txt", "corpus/b.txt", "corpus/clean.jsonl"]);
}

#[test]
fn item1_align_output_or_html_over_an_input_is_refused() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let (v1, v2) = (sb.read("v1.txt"), sb.read("v2.txt"));
    let before = tree(&sb);
    for (flag, path, input) in [("-o", "v1.txt", "v1.txt"), ("--html", "./v2.txt", "v2.txt")] {
        let run = sb.run(&["align", "v1.txt", "v2.txt", flag, path]);
        run.code(2);
        assert!(run.stderr.contains(&format!("{flag} {path}: the same file as the input {input}")), "{run}");
        assert_eq!(run.stdout, b"", "{run}");
        assert_eq!(tree(&sb), before);
        assert_eq!((sb.read("v1.txt"), sb.read("v2.txt")), (v1.clone(), v2.clone()));
    }
    let run = sb.run(&["align", "v1.txt", "v2.txt", "-o", "out.html", "--html", "./out.html"]);
    run.code(2);
    assert!(run.stderr.contains("-o out.html and --html ./out.html are the same file"), "{run}");
    assert_eq!(tree(&sb), before);
    // Devices are written in place and never clash.
    #[cfg(unix)]
    sb.run(&["align", "v1.txt", "v2.txt", "-o", "/dev/null", "--html", "/dev/null"]).success();
}

#[test]
fn item1_scan_tables_over_an_input_are_refused() {
    let sb = Sandbox::new();
    let text = head("v1.txt", 600);
    let input = [line("a", &text), line("b", &text)].concat();
    sb.write("passages.jsonl", &input);
    let before = tree(&sb);
    let run = sb.run(&["scan", "passages.jsonl", "-o", "."]);
    run.code(2);
    assert!(run.stderr.contains("-o ./passages.jsonl: the same file as the input passages.jsonl"), "{run}");
    assert_eq!(tree(&sb), before, "no table, no .work folder");
    // The output folder an input file: refused before any folder is made.
    let run = sb.run(&["scan", "passages.jsonl", "-o", "passages.jsonl"]);
    run.code(2);
    assert!(run.stderr.contains("-o passages.jsonl: the same file as the input"), "{run}");
    assert_eq!(tree(&sb), before);
    assert_eq!(String::from_utf8(sb.read("passages.jsonl")).unwrap(), input);
}

#[test]
fn item1_report_pages_over_a_source_text_are_refused() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    // A source text whose name is a page's.
    sb.write("index.html", &v1).write("copy.txt", &v1);
    sb.run(&["scan", "index.html", "copy.txt", "-o", "results"]).success();
    let before = tree(&sb);
    let run = sb.run(&["report", "results", "-o", "."]);
    run.code(2);
    assert!(run.stderr.contains("-o ./index.html: the same file as the input index.html"), "{run}");
    assert_eq!(tree(&sb), before, "no page, no pairs/ folder");
    assert_eq!(String::from_utf8(sb.read("index.html")).unwrap(), v1);
}

// ---------------------------------------------------------------------
// Items 2 and 4: damaged UTF-8 is UTF-8 (warned or refused, never
// mojibake); UTF-16 without a BOM is read.

#[test]
fn item2_short_damaged_utf8_is_refused_as_utf8_not_read_as_mojibake() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let mut bytes = "正常的文字".as_bytes().to_vec();
    bytes.extend_from_slice(b"\xFF\xFE\x80");
    bytes.extend_from_slice("后面".as_bytes());
    sb.write("bad.txt", &bytes);
    let before = tree(&sb);
    let run = sb.run(&["align", "v1.txt", "bad.txt", "--format", "json"]);
    run.code(2);
    assert!(
        run.stderr.contains("bad.txt: cannot be decoded as text: read as utf-8, 3 of 10 characters are undecodable"),
        "{run}"
    );
    assert!(run.stderr.contains("it looks like UTF-8 with damaged bytes"), "{run}");
    assert!(!run.stderr.contains("windows-1252") && !run.stderr.contains("gb18030"), "{run}");
    assert_eq!(run.stdout, b"");
    assert_eq!(tree(&sb), before);
}

#[test]
fn item2_a_long_file_with_a_few_bad_bytes_is_utf8_with_a_counted_warning() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let text = fixture_text("v1.txt");
    let mut bytes = text.as_bytes().to_vec();
    // The first byte of three Han characters overwritten: each leaves
    // three invalid sequences (the bad byte, two stray continuations).
    let han: Vec<usize> = text.char_indices().filter(|(_, c)| c.len_utf8() == 3).map(|(i, _)| i).collect();
    for k in 1..=3 {
        bytes[han[k * 500]] = 0xFF;
    }
    sb.write("damaged.txt", &bytes);
    let run = sb.run(&["align", "v1.txt", "damaged.txt", "--format", "json", "-o", "out.json"]);
    run.success();
    assert!(
        run.stderr.contains("damaged.txt: 9 undecodable byte sequence(s) replaced by U+FFFD (read as utf-8)"),
        "{run}"
    );
    let out: serde_json::Value = serde_json::from_slice(&sb.read("out.json")).unwrap();
    assert_eq!(out["documents"][1]["encoding"], "utf-8");
}

#[test]
fn item4_utf16_without_a_bom_is_read() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let text = fixture_text("v2.txt").replace('\n', "\r\n");
    // Mostly Chinese: pad with ASCII lines so that the NULs show.
    let text = format!("{}{text}", "Translated from the original.\r\n".repeat(200));
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    sb.write("v2-utf16.txt", &le);
    let run = sb.run(&["align", "v1.txt", "v2-utf16.txt", "--format", "json"]);
    run.success();
    assert_eq!(run.stderr, "", "{run}");
    let out = run.json();
    assert_eq!(out["documents"][1]["encoding"], "utf-16le");
    assert_eq!(out["documents"][1]["chars"], text.chars().count());
}

// ---------------------------------------------------------------------
// Item 5: nothing usable read; ids `42` and `"42"`; `--group` without the
// field.

#[test]
fn item5_scan_and_dedup_stop_when_nothing_usable_was_read() {
    let sb = Sandbox::new();
    sb.write("bad.jsonl", "not json\n{\"id\": \"a\"}\n{\"id\": \"b\", \"text\": \"  \"}\n");
    let before = tree(&sb);
    let run = sb.run(&["scan", "bad.jsonl", "-o", "results"]);
    run.code(2);
    assert!(run.stderr.contains("bad.jsonl:1: malformed JSON"), "{run}");
    assert!(
        run.stderr.contains("no document was read: all 3 record(s) or file(s) were skipped (see the messages above); nothing was written"),
        "{run}"
    );
    assert_eq!(tree(&sb), before, "no results folder");
    let run = sb.run(&["dedup", "bad.jsonl", "-o", "clean.jsonl", "--removed", "removed.jsonl"]);
    run.code(2);
    assert!(run.stderr.contains("no document was read: all 3 record(s)"), "{run}");
    assert_eq!(tree(&sb), before);
    // An empty folder: nothing to read either.
    std::fs::create_dir(sb.path().join("empty")).unwrap();
    let run = sb.run(&["dedup", "empty", "-o", "clean.jsonl"]);
    run.code(2);
    assert!(run.stderr.contains("no document was read: the inputs hold no text file or record"), "{run}");
    assert_eq!(tree(&sb), ["bad.jsonl", "empty/"]);
}

#[test]
fn item5_a_number_and_a_string_id_that_clash_are_named() {
    let sb = Sandbox::new();
    let (a, c) = (head("v1.txt", 300), head("v4.txt", 300));
    sb.write("in.jsonl", format!("{}{}", json!({"id": 42, "text": a}), "\n") + &line("42", &c));
    let run = sb.run(&["dedup", "in.jsonl", "-o", "out.jsonl"]);
    run.success();
    assert!(
        run.stderr.contains(
            "in.jsonl:2: duplicate id \"42\": first used by in.jsonl:1 (there as the number 42, here as a string: \
             ids are compared as text); this one is skipped"
        ),
        "{run}"
    );
    assert_eq!(tree(&sb), ["in.jsonl", "out.jsonl"]);
}

#[test]
fn item5_a_record_without_its_group_is_compared_with_every_document() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    let records = [
        format!("{}\n", json!({"id": "a", "text": v1, "book": "x"})),
        format!("{}\n", json!({"id": "b", "text": v1})),
        format!("{}\n", json!({"id": "c", "text": v1, "book": "x"})),
    ]
    .concat();
    sb.write("docs.jsonl", &records);
    let run = sb.run(&["scan", "docs.jsonl", "--group", "book", "-o", "results"]);
    run.success();
    assert!(run.stderr.contains("documents: 3 read, 0 skipped"), "{run}");
    let passages = String::from_utf8(sb.read("results/passages.jsonl")).unwrap();
    let pairs: Vec<(String, String)> = passages
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|p| (p["a_doc"].as_str().unwrap().to_owned(), p["b_doc"].as_str().unwrap().to_owned()))
        .collect();
    // b (no group) with a and with c; a and c (one group) never.
    assert!(pairs.contains(&("a".into(), "b".into())), "{pairs:?}");
    assert!(pairs.contains(&("b".into(), "c".into())), "{pairs:?}");
    assert!(!pairs.contains(&("a".into(), "c".into())), "{pairs:?}");
}

// ---------------------------------------------------------------------
// Item 6: leftovers.

#[test]
fn item6_scan_strict_leaves_no_empty_output_folder() {
    let sb = Sandbox::new();
    sb.write("docs.jsonl", line("a", &head("v1.txt", 300)) + "not json\n");
    let before = tree(&sb);
    let run = sb.run(&["scan", "docs.jsonl", "-o", "results", "--strict"]);
    run.code(2);
    assert!(run.stderr.contains("docs.jsonl:2"), "{run}");
    assert_eq!(tree(&sb), before);
}

#[test]
fn item6_temporary_files_of_killed_runs_are_removed_by_the_next_run() {
    let sb = Sandbox::new();
    let input = crawl(&sb);
    // What runs killed with SIGKILL leave (pids above Linux's maximum are
    // never alive), and a file of this name that is not ours.
    let gone = 4_194_304 + 99;
    let stale = [
        format!(".out.jsonl.{gone}.Ab12Cd.tmp"),
        format!(".out.jsonl.{gone}.old"),
        format!(".parallels-bands-{gone}-Zz99Yy"),
    ];
    for name in &stale {
        sb.write(name, "partial");
    }
    sb.write(".notes.tmp", "mine");
    sb.run(&["dedup", "in.jsonl", "-o", "out.jsonl"]).success();
    let left = tree(&sb);
    if cfg!(target_os = "linux") {
        assert_eq!(left, [".notes.tmp", "in.jsonl", "out.jsonl"]);
    }
    assert_eq!(String::from_utf8(sb.read("in.jsonl")).unwrap(), input);
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn item6_ctrl_c_during_a_scan_removes_temporaries_and_keeps_the_work_for_resume() {
    let sb = Sandbox::new();
    let (v1, v2, v4) = (fixture_text("v1.txt"), fixture_text("v2.txt"), fixture_text("v4.txt"));
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", &v2).write("corpus/c.txt", &v4).write("corpus/d.txt", &v1);
    let args = ["scan", "corpus", "-o", "out", "--pairs-per-checkpoint", "1"];
    let run = sb.run_env(&args, &[("PARALLELS_TEST_CRASH", "aligning:1:int")]);
    run.code(130);
    assert!(run.stderr.contains("parallels: interrupted; temporary files removed"), "{run}");
    let left = tree(&sb);
    assert!(left.iter().all(|f| !f.ends_with(".tmp")), "{left:?}");
    assert!(left.contains(&"out/.work/manifest.json".to_owned()), "{left:?}");
    assert!(!left.contains(&"out/passages.jsonl".to_owned()), "{left:?}");
    let resumed = sb.run(&["scan", "corpus", "-o", "out", "--pairs-per-checkpoint", "1", "--resume"]);
    resumed.success();
    assert!(resumed.stderr.contains("resumed: reading, candidate pairs and 1 of"), "{resumed}");
    assert!(!sb.path().join("out/.work").exists());
}

#[test]
fn item1_dedup_parquet_output_over_its_input_is_refused() {
    let sb = Sandbox::new();
    sb.write("corpus/a.txt", head("v1.txt", 600)).write("corpus/b.txt", head("v4.txt", 600));
    sb.run(&["scan", "corpus", "-o", "results", "--format", "parquet"]).success();
    let table = sb.read("results/documents.parquet");
    let before = tree(&sb);
    // The Parquet output of results/documents.parquet is
    // results/documents.parquet itself.
    let run =
        sb.run(&["dedup", "results/documents.parquet", "--text", "source", "-o", "results", "--format", "parquet"]);
    run.code(2);
    assert!(
        run.stderr.contains(
            "-o (the output of results/documents.parquet) results/documents.parquet: the same file as the input"
        ),
        "{run}"
    );
    assert_eq!(tree(&sb), before);
    assert_eq!(sb.read("results/documents.parquet"), table);
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn item6_ctrl_c_during_dedup_leaves_the_files_as_they_were() {
    let sb = Sandbox::new();
    let input = crawl(&sb);
    sb.write("out.jsonl", "earlier\n");
    let before = tree(&sb);
    let run = sb.run_env(&["dedup", "in.jsonl", "-o", "out.jsonl"], &[("PARALLELS_TEST_CRASH", "candidates:0:int")]);
    run.code(130);
    assert!(run.stderr.contains("parallels: interrupted; temporary files removed"), "{run}");
    assert_eq!(tree(&sb), before);
    assert_eq!(sb.read("out.jsonl"), b"earlier\n");
    assert_eq!(String::from_utf8(sb.read("in.jsonl")).unwrap(), input);
}

// ---------------------------------------------------------------------
// Item 6 (the rest): a write error while `scan` writes its tables or
// `report` its pages leaves the earlier set whole; so does an
// interruption of `report`.

/// Every file under `rel`, with its bytes.
fn contents(sb: &Sandbox, rel: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = tree(sb)
        .into_iter()
        .filter(|f| f.starts_with(&format!("{rel}/")) && !f.ends_with('/'))
        .map(|f| {
            let bytes = sb.read(&f);
            (f, bytes)
        })
        .collect();
    files.sort();
    files
}

fn size(sb: &Sandbox, rel: &str) -> u64 {
    std::fs::metadata(sb.path().join(rel)).unwrap().len()
}

#[cfg(target_os = "linux")]
#[test]
fn item6_scan_failing_to_write_a_table_leaves_the_earlier_tables_whole() {
    let sb = Sandbox::new();
    let (v1, v2) = (fixture_text("v1.txt"), fixture_text("v2.txt"));
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", &v2);
    let args = ["scan", "corpus", "-o", "results", "--pairs-per-checkpoint", "1"];
    sb.run(&args).success();
    let earlier = contents(&sb, "results");
    // The corpus grows (eight more copies: passages.jsonl grows with the
    // pairs, every work file with the texts); the same scan of it,
    // unhindered, shows the sizes.
    for k in 0..8 {
        sb.write(&format!("corpus/copy{k}.txt"), &v1);
    }
    sb.run(&["scan", "corpus", "-o", "probe", "--pairs-per-checkpoint", "1"]).success();
    let passages = size(&sb, "probe/passages.jsonl");
    let texts = (v1.len() * 9 + v2.len()) as u64;
    let others = ["documents.jsonl", "clusters.jsonl", "summary.json"].map(|t| size(&sb, &format!("probe/{t}")));
    assert!(
        others.iter().all(|&s| s < passages) && texts < passages,
        "the test needs passages.jsonl ({passages} bytes) to be the largest file: {others:?}, texts {texts}"
    );
    // passages.jsonl cannot be written whole: documents.jsonl, written
    // before it, is not renamed into place either.
    let run = run_with_file_limit(&sb, &args, passages - 1);
    run.code(2);
    assert!(run.stderr.contains("parallels: error: results: cannot write the results: File too large"), "{run}");
    let left = tree(&sb);
    assert!(left.iter().all(|f| !f.ends_with(".tmp")), "{left:?}");
    assert!(left.contains(&"results/.work/manifest.json".to_owned()), "kept for --resume: {left:?}");
    let now: Vec<(String, Vec<u8>)> =
        contents(&sb, "results").into_iter().filter(|(f, _)| !f.starts_with("results/.work/")).collect();
    assert_eq!(now, earlier, "the earlier tables, all of them, unchanged");
    // With room again, --resume ends with the tables of the whole corpus.
    let resumed = sb.run(&[&args[..], &["--resume"]].concat());
    resumed.success();
    assert!(resumed.stderr.contains("resumed: reading, candidate pairs and"), "{resumed}");
    for t in ["documents.jsonl", "passages.jsonl", "clusters.jsonl", "summary.json"] {
        assert!(sb.read(&format!("results/{t}")) == sb.read(&format!("probe/{t}")), "{t} differs");
    }
    assert!(!sb.path().join("results/.work").exists());
}

/// A scan results folder of five texts (ten pairs), with the report of
/// its top pair as the earlier report in `report/`.
fn scanned_with_a_report(sb: &Sandbox) {
    let (v1, v2, v4) = (fixture_text("v1.txt"), fixture_text("v2.txt"), fixture_text("v4.txt"));
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", &v2).write("corpus/c.txt", &v4);
    sb.write("corpus/d.txt", &v1).write("corpus/e.txt", &v2);
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    sb.run(&["report", "results", "-o", "report", "--max-pairs", "1"]).success();
}

#[cfg(target_os = "linux")]
#[test]
fn item6_report_failing_to_write_a_page_leaves_the_earlier_report_whole() {
    let sb = Sandbox::new();
    scanned_with_a_report(&sb);
    let earlier = contents(&sb, "report");
    assert_eq!(sb.list("report/pairs").len(), 1);
    // The full report, unhindered, shows the page sizes.
    sb.run(&["report", "results", "-o", "probe"]).success();
    let pages = sb.list("probe/pairs");
    assert!(pages.len() > 1, "{pages:?}");
    let largest = pages.iter().map(|p| size(&sb, &format!("probe/pairs/{p}"))).max().unwrap();
    let index = size(&sb, "probe/index.html");
    assert!(index < largest, "the test needs a pair page larger than index.html ({index} bytes)");
    // The largest pair page cannot be written: index.html, which would
    // link it, is not renamed into place, nor is any other page.
    let run = run_with_file_limit(&sb, &["report", "results", "-o", "report"], largest - 1);
    run.code(2);
    assert!(run.stderr.contains("report/pairs/") && run.stderr.contains("cannot write: File too large"), "{run}");
    assert_eq!(contents(&sb, "report"), earlier);
    assert!(tree(&sb).iter().all(|f| !f.ends_with(".tmp")), "{:?}", tree(&sb));
    // With no earlier report, no folder is left behind.
    let run = run_with_file_limit(&sb, &["report", "results", "-o", "fresh"], largest - 1);
    run.code(2);
    assert!(!sb.path().join("fresh").exists(), "{:?}", tree(&sb));
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn item6_ctrl_c_during_report_leaves_the_earlier_report() {
    let sb = Sandbox::new();
    scanned_with_a_report(&sb);
    let before = tree(&sb);
    let earlier = contents(&sb, "report");
    let run = sb.run_env(&["report", "results", "-o", "report"], &[("PARALLELS_TEST_CRASH", "pages:2:int")]);
    run.code(130);
    assert!(run.stderr.contains("parallels: interrupted; temporary files removed"), "{run}");
    assert_eq!(tree(&sb), before);
    assert_eq!(contents(&sb, "report"), earlier);
    // Into a new folder: no folder left.
    let run = sb.run_env(&["report", "results", "-o", "new/report"], &[("PARALLELS_TEST_CRASH", "pages:1:int")]);
    run.code(130);
    assert_eq!(tree(&sb), before);
    // Uninterrupted, the whole report replaces the earlier one.
    sb.run(&["report", "results", "-o", "report"]).success();
    assert!(sb.list("report/pairs").len() > 1);
}

// ---------------------------------------------------------------------
// Item 7: the disk a scan needs grows with the corpus, not a fixed table.

#[cfg(target_os = "linux")]
#[test]
fn item7_a_small_corpus_scans_where_no_file_may_exceed_one_mib() {
    let sb = Sandbox::new();
    sb.write("corpus/a.txt", fixture_text("v1.txt")).write("corpus/b.txt", fixture_text("v2.txt"));
    // The feature table was written whole (64 MiB): "File too large".
    let run = run_with_file_limit(&sb, &["scan", "corpus", "-o", "results"], 1 << 20);
    run.success();
    assert_eq!(tree(&sb)[..3], ["corpus/", "corpus/a.txt", "corpus/b.txt"]);
    assert!(sb.read("results/passages.jsonl").len() > 100);
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn item7_the_work_folder_of_a_small_corpus_is_small() {
    let sb = Sandbox::new();
    let (v1, v2, v4) = (fixture_text("v1.txt"), fixture_text("v2.txt"), fixture_text("v4.txt"));
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", &v2).write("corpus/c.txt", &v4);
    let input = (v1.len() + v2.len() + v4.len()) as u64;
    let crashed = sb.run_env(&["scan", "corpus", "-o", "out"], &[("PARALLELS_TEST_CRASH", "aligning:0")]);
    assert_eq!(crashed.code, None, "{crashed}");
    let work: u64 =
        tree(&sb).iter().filter(|f| f.starts_with("out/.work/") && !f.ends_with('/')).map(|f| size(&sb, f)).sum();
    // The texts once, the seeds, a feature table of the features seen.
    assert!(work < 8 * input, "work folder {work} bytes for {input} bytes of input");
    let resumed = sb.run(&["scan", "corpus", "-o", "out", "--resume"]);
    resumed.success();
    assert!(resumed.stderr.contains("resumed: reading, candidate pairs and 0 of"), "{resumed}");
}

// ---------------------------------------------------------------------
// Item 8: `report` reads only the files the scan recorded, unchanged.

/// Rewrite `results/documents.jsonl` with the source of document `id`
/// replaced.
fn forge_source(sb: &Sandbox, id: &str, source: &str) {
    let text = String::from_utf8(sb.read("results/documents.jsonl")).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut d: serde_json::Value = serde_json::from_str(l).unwrap();
            if d["id"] == id {
                d["source"] = json!(source);
            }
            format!("{d}\n")
        })
        .collect();
    sb.write("results/documents.jsonl", lines.concat());
}

#[test]
fn item8_report_refuses_a_source_the_scan_did_not_read() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", &v1);
    sb.write("secret/key.txt", "TOP SECRET 机密\n".repeat(50));
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    let summary: serde_json::Value = serde_json::from_slice(&sb.read("results/summary.json")).unwrap();
    let recorded: Vec<&str> =
        summary["inputs"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(recorded, ["corpus/a.txt", "corpus/b.txt"]);
    assert_eq!(summary["inputs"][0]["size"], v1.len());
    let original = sb.read("results/documents.jsonl");
    for forged in ["secret/key.txt", "/etc/passwd", "../../../../etc/passwd", "secret", "secret/*.txt", "corpus"] {
        sb.write("results/documents.jsonl", &original);
        forge_source(&sb, "b", forged);
        let before = tree(&sb);
        let run = sb.run(&["report", "results", "-o", "report"]);
        run.code(2);
        assert!(
            run.stderr.contains(&format!(
                "results/documents.jsonl: document \"b\" names the source {forged}, which is not among the input \
                 files the scan recorded in results/summary.json"
            )),
            "{run}"
        );
        assert_eq!(tree(&sb), before, "{forged}: nothing written");
    }
}

#[test]
fn item8_report_does_not_show_a_file_whose_bytes_differ_from_the_scan() {
    let sb = Sandbox::new();
    let (v1, v4) = (fixture_text("v1.txt"), fixture_text("v4.txt"));
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", &v1).write("corpus/c.txt", &v4);
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    // A recorded input changed since (same size, other bytes), and one
    // forged into the summary with the size and hash of another file.
    let changed = v1.replacen('的', "之", 1);
    assert_eq!(changed.len(), v1.len());
    sb.write("corpus/b.txt", &changed);
    let run = sb.run(&["report", "results", "-o", "report"]);
    run.success();
    assert!(
        run.stderr.contains(
            "parallels: warning: 1 source file(s) changed since the scan, e.g. corpus/b.txt (its size or contents \
             differ from the scan's); their texts are not shown"
        ),
        "{run}"
    );
    let pages: Vec<String> = sb.list("report/pairs");
    for p in &pages {
        let html = String::from_utf8(sb.read(&format!("report/pairs/{p}"))).unwrap();
        assert!(!html.contains("corpus/b.txt"), "{p} shows the changed file");
    }
    // The summary forged to name another file, with the recorded hash
    // of a: refused by its bytes.
    sb.write("secret.txt", "TOP SECRET 机密\n".repeat(50));
    let mut summary: serde_json::Value = serde_json::from_slice(&sb.read("results/summary.json")).unwrap();
    summary["inputs"][1]["path"] = json!("secret.txt");
    sb.write("results/summary.json", serde_json::to_vec(&summary).unwrap());
    forge_source(&sb, "b", "secret.txt");
    let run = sb.run(&["report", "results", "-o", "report2"]);
    run.success();
    assert!(run.stderr.contains("changed since the scan, e.g. secret.txt"), "{run}");
    for f in tree(&sb).iter().filter(|f| f.starts_with("report2/") && f.ends_with(".html")) {
        assert!(!String::from_utf8(sb.read(f)).unwrap().contains("TOP SECRET"), "{f}");
    }
}

#[test]
fn item8_report_on_results_of_an_older_scan_says_to_scan_again() {
    let sb = Sandbox::new();
    sb.write("corpus/a.txt", head("v1.txt", 600)).write("corpus/b.txt", head("v1.txt", 600));
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    let mut summary: serde_json::Value = serde_json::from_slice(&sb.read("results/summary.json")).unwrap();
    summary.as_object_mut().unwrap().remove("inputs");
    sb.write("results/summary.json", serde_json::to_vec_pretty(&summary).unwrap());
    let before = tree(&sb);
    let run = sb.run(&["report", "results", "-o", "report"]);
    run.code(2);
    assert!(
        run.stderr.contains(
            "results/summary.json: written by a version of parallels that did not record the scan's input files, \
             and `report` reads back only recorded inputs; run `parallels scan` again"
        ),
        "{run}"
    );
    assert_eq!(tree(&sb), before);
}

// ---------------------------------------------------------------------
// Item 9: `--threads`/`-j` on every command; outputs do not depend on it.

#[test]
fn item9_threads_is_a_flag_of_every_command_and_changes_no_output() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt", "v4.txt"]);
    let input = crawl(&sb);
    sb.write("corpus/a.txt", fixture_text("v1.txt")).write("corpus/b.txt", fixture_text("v2.txt"));
    for threads in ["1", "3"] {
        let t = |s: &str| format!("{s}-{threads}");
        sb.run(&["align", "v1.txt", "v2.txt", "v4.txt", "-j", threads, "--format", "json", "-o", &t("align.json")])
            .success();
        sb.run(&["scan", "corpus", "--threads", threads, "-o", &t("results")]).success();
        sb.run(&["report", &t("results"), "-j", threads, "-o", &t("report")]).success();
        sb.run(&["dedup", "in.jsonl", "-o", &t("clean.jsonl"), "--threads", threads]).success();
    }
    assert_eq!(sb.read("align.json-1"), sb.read("align.json-3"));
    for t in ["documents.jsonl", "passages.jsonl", "clusters.jsonl", "summary.json"] {
        assert!(sb.read(&format!("results-1/{t}")) == sb.read(&format!("results-3/{t}")), "{t}");
    }
    assert_eq!(sb.read("report-1/index.html"), sb.read("report-3/index.html"));
    assert_eq!(sb.read("clean.jsonl-1"), sb.read("clean.jsonl-3"));
    assert_eq!(String::from_utf8(sb.read("in.jsonl")).unwrap(), input);
    let before = tree(&sb);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "-j", "0"]);
    run.code(2);
    assert!(run.stderr.contains("'--threads <N>'") && run.stderr.contains('0'), "{run}");
    assert_eq!(tree(&sb), before);
}

#[test]
fn item9_align_refuses_a_text_over_max_size_before_reading_it() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    // 33 MiB, sparse (nothing to read is read): over the default 32 MiB.
    let big = std::fs::File::create(sb.path().join("big.txt")).unwrap();
    big.set_len(33 << 20).unwrap();
    drop(big);
    let before = tree(&sb);
    let run = sb.run(&["align", "v1.txt", "big.txt", "--format", "json", "-o", "out.json"]);
    run.code(2);
    assert!(
        run.stderr.contains(
            "parallels: error: big.txt: 33.0 MiB, longer than `align` takes (--max-size 32 MiB); aligning it would \
             take about 6.4 GiB of memory"
        ),
        "{run}"
    );
    assert!(run.stderr.contains("split them (by chapter, say) and align the parts"), "{run}");
    assert!(run.stderr.contains("`parallels scan DIR -o results/`"), "{run}");
    assert_eq!(run.stdout, b"");
    assert_eq!(tree(&sb), before, "nothing written");
    // Texts under the bound are aligned; a higher bound lets the big file
    // through to the reader, which finds it binary (all NUL bytes).
    let v1 = std::fs::metadata(sb.path().join("v1.txt")).unwrap().len();
    assert!(v1 < 1 << 20);
    sb.run(&["align", "v1.txt", "v2.txt", "--max-size", "1"]).success();
    let run = sb.run(&["align", "v1.txt", "big.txt", "--max-size", "64"]);
    run.code(2);
    assert!(!run.stderr.contains("longer than `align` takes"), "{run}");
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--max-size", "0"]);
    run.code(2);
    assert!(run.stderr.contains("--max-size"), "{run}");
}
