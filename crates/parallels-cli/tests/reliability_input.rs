//! The input side of issue 15's catalogue (items 3, 10 and 11): file names
//! that are not UTF-8 or hold control characters, lone surrogates in JSON
//! Lines, and compressed crawls. Each test asserts the exit code, the
//! message and the files afterwards.

mod util;

use serde_json::{json, Value};
use util::{fixture_text, Sandbox};

fn line(id: &str, text: &str) -> String {
    format!("{}\n", json!({"id": id, "text": text}))
}

/// The first `n` characters of a fixture.
fn head(name: &str, n: usize) -> String {
    fixture_text(name).chars().take(n).collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 3).unwrap()
}

/// A crawl with an exact duplicate (`b` repeats `a`) and a third text.
fn crawl() -> String {
    let (a, c) = (head("v1.txt", 600), head("v4.txt", 600));
    [line("a", &a), line("b", &a), line("c", &c)].concat()
}

/// The lines of a JSON Lines output.
fn rows(bytes: &[u8]) -> Vec<Value> {
    bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
}

// ---------------------------------------------------------------------
// Item 3: file names that are not UTF-8 stay apart, and `report` finds
// them again.

#[cfg(unix)]
mod not_utf8 {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;

    fn os(name: &[u8]) -> &OsStr {
        OsStr::from_bytes(name)
    }

    /// Write a file under a name of any bytes; false where the file system
    /// refuses such names.
    fn write_named(sb: &Sandbox, name: &[u8], text: &str) -> bool {
        let path: PathBuf = sb.path().join(os(name));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).is_ok()
    }

    fn run_os(sb: &Sandbox, args: &[&[u8]]) -> (Option<i32>, Vec<u8>, String) {
        let output = sb.command(args.iter().map(|a| os(a))).output().unwrap();
        let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
        assert!(!stderr.contains("panicked"), "{stderr}");
        (output.status.code(), output.stdout, stderr)
    }

    #[test]
    fn item3_scan_keeps_two_names_that_differ_in_bytes_apart_and_report_finds_them() {
        let sb = Sandbox::new();
        let text = head("v1.txt", 800);
        if !write_named(&sb, b"corpus/\xFF.txt", &text) {
            return;
        }
        assert!(write_named(&sb, b"corpus/\xFE.txt", &text));
        let (code, _, stderr) = run_os(&sb, &[b"scan", b"corpus", b"-o", b"results"]);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(!stderr.contains("duplicate"), "{stderr}");
        assert!(stderr.contains("documents: 2 read, 0 skipped"), "{stderr}");
        let documents = sb.read("results/documents.jsonl");
        // Sources are written byte for byte, the bytes that are not UTF-8
        // as lone surrogate escapes; ids are shown with \xFF.
        let text = String::from_utf8(documents).unwrap();
        assert!(text.contains(r#""id":"\\xFE","source":"corpus/\udcfe.txt""#), "{text}");
        assert!(text.contains(r#""id":"\\xFF","source":"corpus/\udcff.txt""#), "{text}");
        assert_eq!(rows(&sb.read("results/passages.jsonl")).len(), 1);
        // The report reads both texts again from those sources.
        let (code, _, stderr) = run_os(&sb, &[b"report", b"results", b"-o", b"report"]);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(!stderr.contains("not found"), "{stderr}");
        let pages = sb.list("report/pairs");
        assert_eq!(pages.len(), 1, "{pages:?}");
        let page = String::from_utf8(sb.read(&format!("report/pairs/{}", pages[0]))).unwrap();
        assert!(page.contains("魏斯明德"), "the pair page shows the text");
    }

    #[test]
    fn item3_align_keeps_two_names_that_differ_in_bytes_apart() {
        let sb = Sandbox::new();
        let text = head("v1.txt", 800);
        if !write_named(&sb, b"\xFF.txt", &text) {
            return;
        }
        assert!(write_named(&sb, b"\xFE.txt", &text));
        assert!(write_named(&sb, b"x\xFF/same.txt", &text));
        assert!(write_named(&sb, b"x\xFE/same.txt", &text));
        let (code, stdout, stderr) = run_os(
            &sb,
            &[b"align", b"\xFF.txt", b"\xFE.txt", b"x\xFF/same.txt", b"x\xFE/same.txt", b"--format", b"json"],
        );
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(stderr, "");
        let out = String::from_utf8(stdout).unwrap();
        for expected in [
            r#""id": "\\xFF","#,
            r#""path": "\udcff.txt","#,
            r#""id": "\\xFE","#,
            r#""id": "x\\xFF/same.txt","#,
            r#""path": "x\udcfe/same.txt","#,
        ] {
            assert!(out.contains(expected), "{expected} in\n{out}");
        }
        // The same file given twice is still refused, by its path.
        let (code, _, stderr) = run_os(&sb, &[b"align", b"\xFF.txt", b"\xFF.txt"]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("parallels: error: \\xFF.txt: given more than once"), "{stderr}");
    }

    #[test]
    fn item3_a_crawl_whose_name_is_not_utf8_is_read_and_named() {
        let sb = Sandbox::new();
        if !write_named(&sb, b"crawl-\xE4.jsonl", &crawl()) {
            return;
        }
        let (code, _, stderr) =
            run_os(&sb, &[b"dedup", b"crawl-\xE4.jsonl", b"-o", b"out.jsonl", b"--removed", b"rm.jsonl"]);
        assert_eq!(code, Some(0), "{stderr}");
        let removed = String::from_utf8(sb.read("rm.jsonl")).unwrap();
        assert!(removed.contains(r#""source":"crawl-\udce4.jsonl:2""#), "{removed}");
        assert_eq!(rows(&sb.read("out.jsonl")).len(), 2);
    }
}

// ---------------------------------------------------------------------
// Item 10: names are escaped in messages; lone surrogates are repaired.

#[test]
fn item10_file_names_with_control_characters_are_escaped_in_messages() {
    let sb = Sandbox::new();
    sb.write("a.txt", head("v1.txt", 200));
    let run = sb.run(&["align", "a.txt", "evil\x1b[2J\nname.txt"]);
    run.code(2);
    assert!(run.stderr.contains("parallels: error: evil\\u{1b}[2J\\nname.txt: no such file; check the path"), "{run}");
    assert!(!run.stderr.contains('\x1b'), "{run}");
    // In a scanned folder: the binary file is named escaped, on one line.
    sb.write("corpus/ok.txt", head("v1.txt", 200));
    let named = "corpus/bad\x1b]0;owned\x07\r.txt";
    if std::fs::write(sb.path().join(named), b"\0\0\0\0binary").is_err() {
        return;
    }
    let run = sb.run(&["scan", "corpus", "-o", "results"]);
    run.success();
    assert!(run.stderr.contains("corpus/bad\\u{1b}]0;owned\\u{7}\\r.txt: looks like a binary file"), "{run}");
    assert!(!run.stderr.contains('\x1b') && !run.stderr.contains('\x07') && !run.stderr.contains('\r'), "{run}");
}

#[test]
fn item10_lone_surrogates_in_json_lines_are_repaired_counted_and_kept_as_written() {
    let sb = Sandbox::new();
    let a = head("v1.txt", 600);
    let (before, after): (String, String) = (a.chars().take(30).collect(), a.chars().skip(30).collect());
    let text = serde_json::to_string(&format!("{before}@@{after}")).unwrap().replace("@@", "\\ud800");
    let python = format!("{{\"id\": \"p\", \"text\": {text}}}\n");
    let first = line("a", &head("v4.txt", 600));
    let input = [first.clone(), python.clone(), line("c", &a)].concat();
    sb.write("crawl.jsonl", &input);
    let run = sb.run(&["scan", "crawl.jsonl", "-o", "results"]);
    run.success();
    assert!(
        run.stderr.contains(
            "parallels: warning: 1 JSON Lines record(s) held lone surrogate escapes (\\ud800-\\udfff without their \
             pair, as Python writes text it could not decode); they were read with U+FFFD in their place, the first \
             at crawl.jsonl:2"
        ),
        "{run}"
    );
    assert!(run.stderr.contains("documents: 3 read, 0 skipped"), "{run}");
    // dedup keeps the record as it was written, escape and all (`c`
    // differs from it only there, where U+FFFD is no token: an exact
    // duplicate).
    let run = sb.run(&["dedup", "crawl.jsonl", "-o", "clean.jsonl"]);
    run.success();
    assert!(run.stderr.contains("first at crawl.jsonl:2"), "{run}");
    assert!(run.stderr.contains("documents: 3 in, 2 kept, 1 removed (1 exact, 0 near"), "{run}");
    assert_eq!(String::from_utf8(sb.read("clean.jsonl")).unwrap(), [first, python].concat());
}

// ---------------------------------------------------------------------
// Item 11: compressed crawls.

#[test]
fn item11_scan_reads_gzip_and_zstd_crawls_as_the_plain_one() {
    let sb = Sandbox::new();
    let input = crawl();
    sb.write("crawl.jsonl", &input);
    sb.write("crawl.jsonl.gz", gzip(input.as_bytes()));
    sb.write("crawl.jsonl.zst", zstd(input.as_bytes()));
    let mut tables = Vec::new();
    for name in ["crawl.jsonl", "crawl.jsonl.gz", "crawl.jsonl.zst"] {
        let out = format!("out-{name}");
        sb.run(&["scan", name, "-o", &out]).success();
        let documents = String::from_utf8(sb.read(&format!("{out}/documents.jsonl"))).unwrap();
        assert!(documents.contains(&format!("\"source\":\"{name}:1\"")), "{documents}");
        let documents = documents.replace(name, "FILE");
        tables.push((documents, sb.read(&format!("{out}/passages.jsonl")), sb.read(&format!("{out}/clusters.jsonl"))));
    }
    assert!(!tables[0].1.is_empty());
    assert_eq!(tables[1], tables[0]);
    assert_eq!(tables[2], tables[0]);
    // The report reads the texts again from the compressed file.
    let run = sb.run(&["report", "out-crawl.jsonl.gz", "-o", "report"]);
    run.success();
    assert!(!run.stderr.contains("not found"), "{run}");
    assert!(!sb.list("report/pairs").is_empty());
}

#[test]
fn item11_dedup_copies_kept_records_of_a_compressed_crawl_byte_for_byte() {
    let sb = Sandbox::new();
    // CRLF endings and a last line without one survive the copy.
    let input = crawl().replacen('\n', "\r\n", 1).trim_end().to_owned();
    sb.write("crawl.jsonl", &input);
    sb.write("crawl.jsonl.gz", gzip(input.as_bytes()));
    sb.write("crawl.jsonl.zst", zstd(input.as_bytes()));
    sb.run(&["dedup", "crawl.jsonl", "-o", "plain.jsonl", "--removed", "plain-rm.jsonl"]).success();
    for name in ["crawl.jsonl.gz", "crawl.jsonl.zst"] {
        let run = sb.run(&["dedup", name, "-o", "out.jsonl", "--removed", "rm.jsonl", "--paragraphs"]);
        run.success();
        assert!(run.stderr.contains("documents: 3 in, 2 kept, 1 removed (1 exact, 0 near"), "{run}");
        assert_eq!(sb.read("out.jsonl"), sb.read("plain.jsonl"), "{name}");
        let removed = String::from_utf8(sb.read("rm.jsonl")).unwrap();
        assert_eq!(removed, String::from_utf8(sb.read("plain-rm.jsonl")).unwrap().replace("crawl.jsonl", name));
    }
}

#[test]
fn item11_a_truncated_gzip_crawl_names_the_line_and_keeps_what_came_before() {
    let sb = Sandbox::new();
    let input: String = (0..300).map(|i| line(&format!("d{i}"), &head("v1.txt", 100 + i % 50))).collect();
    let compressed = gzip(input.as_bytes());
    sb.write("cut.jsonl.gz", &compressed[..compressed.len() * 2 / 3]);
    let run = sb.run(&["dedup", "cut.jsonl.gz", "-o", "out.jsonl"]);
    run.success();
    let message =
        run.stderr.lines().find(|l| l.contains("cannot read on from this line")).expect("the problem is named");
    assert!(message.starts_with("parallels: warning: cut.jsonl.gz:") || message.starts_with("cut.jsonl.gz:"), "{run}");
    assert!(message.ends_with("; the rest of the file is skipped"), "{run}");
    assert!(run.stderr.contains("records skipped (1 unreadable)"), "{run}");
    assert!(!rows(&sb.read("out.jsonl")).is_empty());
    // --strict stops there, and writes nothing.
    let run = sb.run(&["dedup", "cut.jsonl.gz", "-o", "strict.jsonl", "--strict"]);
    run.code(2);
    assert!(run.stderr.contains("cannot read on from this line"), "{run}");
    assert!(!sb.path().join("strict.jsonl").exists());
}

#[test]
fn item11_compressed_text_files_in_a_folder_are_read() {
    let sb = Sandbox::new();
    let text = head("v1.txt", 800);
    sb.write("corpus/a.txt.gz", gzip(text.as_bytes()));
    sb.write("corpus/b.txt.zst", zstd(text.as_bytes()));
    sb.write("corpus/c.txt", &text);
    let run = sb.run(&["scan", "corpus", "-o", "results"]);
    run.success();
    assert!(run.stderr.contains("documents: 3 read, 0 skipped"), "{run}");
    let ids: Vec<Value> = rows(&sb.read("results/documents.jsonl")).iter().map(|d| d["id"].clone()).collect();
    assert_eq!(ids, [json!("a"), json!("b"), json!("c")]);
    // align reads them too.
    let out = sb.align_json(&["corpus/a.txt.gz", "corpus/c.txt"]);
    assert_eq!(out["documents"][0]["id"], "a");
    assert_eq!(out["pairs"].as_array().unwrap().len(), 1);
}

#[test]
fn item11_other_compressions_and_archives_are_refused_with_a_hint() {
    let sb = Sandbox::new();
    for name in ["crawl.jsonl.bz2", "crawl.tar.gz", "data.parquet.gz", "crawl.jsonl.xz"] {
        sb.write(name, b"not read");
        let run = sb.run(&["scan", name, "-o", "results"]);
        run.code(2);
        assert!(run.stderr.starts_with(&format!("parallels: error: {name}: ")), "{run}");
        assert!(run.stderr.contains("decompress"), "{run}");
        assert!(!sb.path().join("results").exists(), "{run}");
    }
}

#[test]
fn item10_a_repaired_record_that_loses_a_paragraph_is_rewritten_with_replacement_characters() {
    let sb = Sandbox::new();
    let para = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。";
    let other = "十七世纪中叶，城中约有两万三千名居民，其中三分之一是来自各地的商人、水手和工匠。";
    let third = "码头上常年停泊着来自荷兰、英格兰和丹麦的商船，城墙修建于一五六〇年代。";
    let text = serde_json::to_string(&format!("{third}@@\n{para}")).unwrap().replace("@@", "\\ud800");
    let python = format!("{{\"id\":\"b\",\"text\":{text},\"url\":\"x\"}}\n");
    sb.write("crawl.jsonl", [line("a", &format!("{para}\n{other}")), python].concat());
    let run = sb.run(&["dedup", "crawl.jsonl", "-o", "clean.jsonl", "--paragraphs", "--min-paragraph-tokens", "1"]);
    run.success();
    assert!(run.stderr.contains("paragraphs: 1 removed from 1 kept documents"), "{run}");
    let kept = String::from_utf8(sb.read("clean.jsonl")).unwrap();
    let second = kept.lines().nth(1).unwrap();
    assert_eq!(second, format!("{{\"id\":\"b\",\"text\":\"{third}\u{FFFD}\\n\",\"url\":\"x\"}}"));
}

#[test]
fn item11_dedup_refuses_to_write_uncompressed_records_under_a_compressed_name() {
    let sb = Sandbox::new();
    let compressed = gzip(crawl().as_bytes());
    sb.write("crawl.jsonl.gz", &compressed);
    for args in [
        ["dedup", "crawl.jsonl.gz", "-o", "crawl.jsonl.gz", "--removed", "rm.jsonl"],
        ["dedup", "crawl.jsonl.gz", "-o", "clean.jsonl", "--removed", "rm.jsonl.zst"],
    ] {
        let run = sb.run(&args);
        run.code(2);
        assert!(run.stderr.contains("dedup writes JSON Lines uncompressed; give a name without .gz or .zst"), "{run}");
        assert_eq!(sb.read("crawl.jsonl.gz"), compressed);
        assert_eq!(sb.list("."), ["crawl.jsonl.gz"], "{run}");
    }
}
