//! The catalogue of issue 35 (the index, `query` and `serve` as safe as
//! the commands before them), one test per defect, named after its number
//! in the issue: each runs the real binary on a real index and asserts the
//! exit code, the message and what is left on disk.

mod util;

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
#[cfg(target_os = "linux")]
use util::run_with_file_limit;
use util::{fixture_text, Sandbox};

/// Library documents: filler slices of v4, two holding a paragraph of v1.
fn docs() -> Vec<(String, String)> {
    let v1 = fixture_text("v1.txt");
    let paras: Vec<&str> = v1.lines().filter(|l| l.chars().count() > 60).collect();
    let v4: Vec<char> = fixture_text("v4.txt").chars().collect();
    let filler = |k: usize| -> String { v4[k * 200..k * 200 + 200].iter().collect() };
    let mut out = vec![
        ("copy1".to_string(), format!("{}\n{}", filler(0), paras[1])),
        ("copy2".to_string(), format!("{}\n{}", paras[1], filler(2))),
    ];
    for k in 3..10 {
        out.push((format!("other{k}"), filler(k)));
    }
    out
}

fn jsonl(docs: &[(String, String)]) -> String {
    docs.iter().map(|(id, text)| json!({"id": id, "text": text}).to_string() + "\n").collect()
}

/// The text asked: the planted paragraph among other words.
fn asked() -> String {
    let v1 = fixture_text("v1.txt");
    let para = v1.lines().filter(|l| l.chars().count() > 60).nth(1).unwrap().to_string();
    format!("开头一句无关的话。\n{para}\n")
}

/// `lib.jsonl` and `lib.idx` built from it; `asked.txt`.
fn library(sb: &Sandbox) {
    sb.write("lib.jsonl", jsonl(&docs())).write("asked.txt", asked());
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx", "--df-bits", "16"]).success();
}

/// Every entry under `rel` (hidden ones included) with its bytes, sorted.
fn tree(sb: &Sandbox, rel: &str) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                out.push((format!("{name}/"), Vec::new()));
                walk(&p, base, out);
            } else {
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    let base = sb.path().join(rel);
    walk(&base, &base, &mut out);
    out.sort();
    out
}

/// `query asked.txt` as JSON: must succeed.
fn query_json(sb: &Sandbox) -> Value {
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx", "--format", "json"]);
    run.success();
    run.json()
}

fn hit_ids(out: &Value) -> Vec<String> {
    let mut ids: Vec<String> =
        out["pairs"].as_array().unwrap().iter().map(|p| p["b"].as_str().unwrap().to_string()).collect();
    ids.sort();
    ids
}

fn manifest(sb: &Sandbox) -> Value {
    serde_json::from_slice(&sb.read("lib.idx/manifest.json")).unwrap()
}

fn set_manifest(sb: &Sandbox, m: &Value) {
    sb.write("lib.idx/manifest.json", serde_json::to_vec_pretty(m).unwrap());
}

// ---------------------------------------------------------------------
// 1. An index folder holds only what the index made; nothing else is
// touched.

#[test]
fn item1_build_into_a_folder_with_other_files_is_refused_and_touches_nothing() {
    let sb = Sandbox::new();
    sb.write("lib.jsonl", jsonl(&docs()));
    sb.write("d/df.csv", "a,b\n").write("d/seg.photos/one.jpg", "jpeg").write("d/.tmp.draft.txt", "draft");
    sb.write("d/seg.01.jsonl", jsonl(&docs()));
    let before = tree(&sb, "d");
    for args in [
        &["index", "build", "lib.jsonl", "--index", "d"][..],
        &["index", "build", "d/seg.01.jsonl", "--index", "d"][..],
    ] {
        let run = sb.run(args);
        run.code(2);
        assert!(run.stderr.contains("which is not part of an index"), "{run}");
        assert!(run.stderr.contains("Nothing was changed"), "{run}");
        assert_eq!(tree(&sb, "d"), before, "{run}");
    }
    // `--index .`: the working folder is refused the same way.
    let run = sb.run(&["index", "build", "lib.jsonl", "--index", "."]);
    run.code(2);
    assert!(run.stderr.contains("not part of an index"), "{run}");
    assert_eq!(tree(&sb, "d"), before);
    assert!(sb.path().join("lib.jsonl").exists());
}

#[test]
fn item1_add_leaves_files_it_did_not_make_alone() {
    let sb = Sandbox::new();
    library(&sb);
    // Put there by the user after the build.
    sb.write("lib.idx/df.csv", "a,b\n").write("lib.idx/seg.photos/one.jpg", "jpeg");
    sb.write("lib.idx/.tmp.draft.txt", "draft").write("lib.idx/seg.1", "x").write("lib.idx/df.000009.zst.bak", "y");
    sb.write("more.jsonl", jsonl(&[("new1".to_string(), "新的一篇文章，讲一件完全不同的事情。".repeat(5))]));
    sb.run(&["index", "add", "more.jsonl", "--index", "lib.idx"]).success();
    for (rel, bytes) in [
        ("lib.idx/df.csv", "a,b\n"),
        ("lib.idx/seg.photos/one.jpg", "jpeg"),
        ("lib.idx/.tmp.draft.txt", "draft"),
        ("lib.idx/seg.1", "x"),
        ("lib.idx/df.000009.zst.bak", "y"),
    ] {
        assert_eq!(sb.read(rel), bytes.as_bytes(), "{rel}");
    }
    assert_eq!(manifest(&sb)["documents"], 10);
}

#[test]
fn item1_a_build_killed_midway_can_be_run_again() {
    // What a killed first build leaves (its own names only) does not make
    // the folder foreign.
    let sb = Sandbox::new();
    sb.write("lib.jsonl", jsonl(&docs()));
    sb.write("lib.idx/.tmp.seg.000001/docs.jsonl", "half").write("lib.idx/lock", "4242\n");
    sb.write("lib.idx/.tmp.manifest.json", "{");
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx", "--df-bits", "16"]).success();
    let names = sb.list("lib.idx");
    assert_eq!(names, ["df.000001.zst", "manifest.json", "seg.000001"], "{names:?}");
}

// ---------------------------------------------------------------------
// 2. Outputs are checked against every file a command reads, the index's
// included.

#[test]
fn item2_query_output_onto_a_file_of_the_index_is_refused() {
    let sb = Sandbox::new();
    library(&sb);
    let before = tree(&sb, "lib.idx");
    for (flag, path) in [
        ("-o", "lib.idx/manifest.json"),
        ("--html", "lib.idx/seg.000001/texts.zst"),
        ("-o", "lib.idx/seg.000001/postings.bin"),
        ("-o", "lib.idx/df.000001.zst"),
    ] {
        let run = sb.run(&["query", "asked.txt", "--index", "lib.idx", flag, path]);
        run.code(2);
        assert!(run.stderr.contains(&format!("{flag} {path}: the same file as the input")), "{run}");
        assert_eq!(tree(&sb, "lib.idx"), before, "{run}");
    }
    // And the same for `--doc`, and for a file inside a folder asked.
    let run = sb.run(&["query", "--doc", "copy1", "--index", "lib.idx", "-o", "lib.idx/manifest.json"]);
    run.code(2);
    assert_eq!(tree(&sb, "lib.idx"), before);
    sb.write("texts/a.txt", asked());
    let run = sb.run(&["query", "texts", "--index", "lib.idx", "-o", "texts/a.txt"]);
    run.code(2);
    assert!(run.stderr.contains("the same file as the input"), "{run}");
    assert_eq!(String::from_utf8(sb.read("texts/a.txt")).unwrap(), asked());
    // The index still answers.
    assert_eq!(hit_ids(&query_json(&sb)), ["copy1", "copy2"]);
}

// ---------------------------------------------------------------------
// 3. The writer's lock: no stale file, and a lock removed under a writer
// never lets two writers commit.

#[test]
fn item3_no_lock_file_is_left_after_a_writer() {
    let sb = Sandbox::new();
    library(&sb);
    assert!(!sb.path().join("lib.idx/lock").exists(), "{:?}", sb.list("lib.idx"));
    sb.write("more.jsonl", jsonl(&[("n".to_string(), "另一篇完全不同的文章。".repeat(8))]));
    sb.run(&["index", "add", "more.jsonl", "--index", "lib.idx"]).success();
    assert!(!sb.path().join("lib.idx/lock").exists(), "{:?}", sb.list("lib.idx"));
}

/// Documents enough for an `add` that runs a while.
fn many(prefix: &str, n: usize) -> String {
    let v4: Vec<char> = fixture_text("v4.txt").chars().collect();
    let docs: Vec<(String, String)> = (0..n)
        .map(|k| {
            let at = (k * 37) % (v4.len() - 700);
            (format!("{prefix}{k}"), v4[at..at + 600].iter().collect::<String>() + &k.to_string())
        })
        .collect();
    jsonl(&docs)
}

#[test]
#[cfg(unix)]
fn item3_a_lock_removed_during_an_add_never_lets_a_second_writer_break_the_index() {
    let sb = Sandbox::new();
    library(&sb);
    sb.write("big.jsonl", many("big", 3000)).write("small.jsonl", many("small", 40));
    let mut trials = 0;
    for round in 0..3 {
        let mut a =
            sb.command(["index", "add", "big.jsonl", "--index", "lib.idx"]).stderr(Stdio::piped()).spawn().unwrap();
        // Wait for its lock, then remove it (as a user cleaning a
        // "stale" file would) and start a second writer.
        let lock = sb.path().join("lib.idx/lock");
        let start = Instant::now();
        while !lock.exists() && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(2));
        }
        if std::fs::remove_file(&lock).is_err() {
            let _ = a.wait();
            continue;
        }
        let b = sb.run(&["index", "add", "small.jsonl", "--index", "lib.idx"]);
        b.no_panic();
        let a = a.wait_with_output().unwrap();
        trials += 1;
        let a_err = String::from_utf8_lossy(&a.stderr).to_string();
        // Whatever each said, the index opens and answers, and its count
        // is that of what was committed.
        let out = query_json(&sb);
        assert_eq!(hit_ids(&out), ["copy1", "copy2"], "round {round}\nA: {a_err}\nB: {b}");
        let m = manifest(&sb);
        let segs: u64 = m["segments"].as_array().unwrap().iter().map(|s| s["docs"].as_u64().unwrap()).sum();
        assert_eq!(m["documents"].as_u64().unwrap(), segs);
        let run = sb.run(&["query", "--doc", "other3", "--index", "lib.idx", "--format", "json"]);
        run.success();
        // A writer that lost its lock says so and commits nothing.
        if !a.status.success() {
            assert!(a_err.contains("lock file was removed") || a_err.contains("another"), "A: {a_err}");
        }
    }
    assert!(trials > 0, "the lock was never seen");
    // Every document asked for by either writer ends in the index once
    // both are run again (what they hold is recognized).
    sb.run(&["index", "add", "big.jsonl", "--index", "lib.idx"]).success();
    sb.run(&["index", "add", "small.jsonl", "--index", "lib.idx"]).success();
    assert_eq!(manifest(&sb)["documents"].as_u64().unwrap(), 9 + 3000 + 40);
}

// ---------------------------------------------------------------------
// 5. Lengths read from the index are checked before anything is
// allocated; 11. every file is checked against its checksum.

/// Replace the first occurrence of `from` in a file of the sandbox.
fn edit(sb: &Sandbox, rel: &str, from: &str, to: &str) {
    let text = String::from_utf8(sb.read(rel)).unwrap();
    assert!(text.contains(from), "{rel} has no {from:?}");
    sb.write(rel, text.replacen(from, to, 1));
}

/// Set the manifest's checksum of a segment file to what the file holds
/// now (a damage made to look written).
fn reseal(sb: &Sandbox, file: &str) {
    let bytes = sb.read(&format!("lib.idx/seg.000001/{file}"));
    let mut m = manifest(sb);
    m["segments"][0]["sums"][file] = json!({"len": bytes.len(), "crc32": crc32(&bytes)});
    set_manifest(sb, &m);
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn item5_a_huge_length_in_docs_jsonl_is_an_error_not_a_panic() {
    let sb = Sandbox::new();
    library(&sb);
    let docs = String::from_utf8(sb.read("lib.idx/seg.000001/docs.jsonl")).unwrap();
    let first: Value = serde_json::from_str(docs.lines().next().unwrap()).unwrap();
    let bytes = first["bytes"].to_string();
    edit(&sb, "lib.idx/seg.000001/docs.jsonl", &format!("\"bytes\":{bytes}"), "\"bytes\":18446744073709551615");
    // As damaged on disk: the checksum says so.
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx"]);
    run.code(2).no_panic();
    assert!(run.stderr.contains("index damaged at lib.idx/seg.000001/docs.jsonl"), "{run}");
    // With the checksum made to match: the length is not believed.
    reseal(&sb, "docs.jsonl");
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx"]);
    run.code(2).no_panic();
    assert!(run.stderr.contains("index damaged at lib.idx/seg.000001/texts.zst"), "{run}");
    assert!(run.stderr.contains("copy1"), "the document is not named\n{run}");
    let run = sb.run(&["query", "--doc", "copy1", "--index", "lib.idx"]);
    run.code(2).no_panic();
    // `serve` answers 500 naming the damage, and stays up.
    {
        let mut server = Server::start(&sb, "", &[]);
        let (status, _, body) = server.request("GET", "/api/documents/0", &[], b"");
        assert_eq!(status, 500);
        let body = String::from_utf8_lossy(&body);
        assert!(body.contains("index damaged at lib.idx/seg.000001/texts.zst") && !body.contains("panicked"), "{body}");
        let (status, _, _) = server.request("GET", "/api/passages?doc=0", &[], b"");
        assert_eq!(status, 500);
        let (status, _, _) = server.request("GET", "/api/documents/1", &[], b"");
        assert_eq!(status, 200);
        assert!(server.alive());
    }
    // An offset past the end of texts.zst: refused when opened.
    let docs = String::from_utf8(sb.read("lib.idx/seg.000001/docs.jsonl")).unwrap();
    let at = first["at"].to_string();
    sb.write(
        "lib.idx/seg.000001/docs.jsonl",
        docs.replacen(&format!("\"at\":{at}"), "\"at\":[18446744073709551615,5]", 1),
    );
    reseal(&sb, "docs.jsonl");
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx"]);
    run.code(2).no_panic();
    assert!(run.stderr.contains("lies outside texts.zst"), "{run}");
}

#[test]
fn item11_a_flipped_bit_anywhere_in_a_segment_is_found_and_named() {
    for (file, at_open) in [("texts.zst", false), ("postings.idx", true), ("postings.bin", true), ("docs.jsonl", true)]
    {
        let sb = Sandbox::new();
        library(&sb);
        let before = tree(&sb, "lib.idx");
        let rel = format!("lib.idx/seg.000001/{file}");
        let mut bytes = sb.read(&rel);
        // A bit in the middle (in texts.zst: inside the first document's
        // frame, copy1, which the query reads).
        let k = if file == "texts.zst" { 40 } else { bytes.len() / 2 };
        bytes[k] ^= 0x10;
        sb.write(&rel, &bytes);
        let run = sb.run(&["query", "asked.txt", "--index", "lib.idx", "--format", "json"]);
        run.code(2).no_panic();
        assert!(run.stderr.contains(&format!("index damaged at {rel}")), "{file}\n{run}");
        assert!(run.stderr.contains("restore the folder from a copy"), "{run}");
        // Even with its checksum made to match, a text is checked when read.
        if file == "texts.zst" {
            reseal(&sb, file);
            let run = sb.run(&["query", "asked.txt", "--index", "lib.idx", "--format", "json"]);
            run.code(2).no_panic();
            assert!(run.stderr.contains(&format!("index damaged at {rel}")), "{run}");
            sb.write("lib.idx/manifest.json", &before.iter().find(|(n, _)| n == "manifest.json").unwrap().1);
        }
        // `add` refuses to commit onto a damaged index, and leaves it as
        // it was.
        let _ = at_open;
        sb.write("more.jsonl", jsonl(&[("n".to_string(), "另一篇完全不同的文章。".repeat(8))]));
        let run = sb.run(&["index", "add", "more.jsonl", "--index", "lib.idx"]);
        run.code(2).no_panic();
        assert!(run.stderr.contains("index damaged at"), "{file}\n{run}");
        let mut want = before.clone();
        for (n, b) in &mut want {
            if *n == format!("seg.000001/{file}") {
                *b = bytes.clone();
            }
        }
        assert_eq!(tree(&sb, "lib.idx"), want, "{file}");
    }
}

// ---------------------------------------------------------------------
// 8. Names in the manifest stay inside the index folder.

#[test]
fn item8_names_in_the_manifest_outside_the_folder_are_refused() {
    let sb = Sandbox::new();
    library(&sb);
    // Another index beside it, whose files must not be read or removed.
    sb.write("lib2.jsonl", jsonl(&docs()[..4]));
    sb.run(&["index", "build", "lib2.jsonl", "--index", "other.idx", "--df-bits", "16"]).success();
    let other = tree(&sb, "other.idx");
    let good = manifest(&sb);
    for (field, value) in [
        ("segment", json!("../other.idx/seg.000001")),
        ("segment", json!("/etc")),
        ("df", json!("../other.idx/df.000001.zst")),
        ("df", json!("/etc/passwd")),
    ] {
        let mut m = good.clone();
        if field == "df" {
            m["df"] = value.clone();
        } else {
            m["segments"][0]["name"] = value.clone();
        }
        set_manifest(&sb, &m);
        let run = sb.run(&["query", "asked.txt", "--index", "lib.idx"]);
        run.code(2).no_panic();
        assert!(run.stderr.contains("index damaged at lib.idx/manifest.json"), "{value}\n{run}");
        sb.write("more.jsonl", jsonl(&[("n".to_string(), "另一篇完全不同的文章。".repeat(8))]));
        let run = sb.run(&["index", "add", "more.jsonl", "--index", "lib.idx"]);
        run.code(2);
        assert_eq!(tree(&sb, "other.idx"), other, "{value}");
    }
    set_manifest(&sb, &good);
    assert_eq!(hit_ids(&query_json(&sb)), ["copy1", "copy2"]);
}

// ---------------------------------------------------------------------
// 9. `add` knows what it holds.

#[test]
fn item9_adding_the_same_file_twice_adds_nothing_the_second_time() {
    let sb = Sandbox::new();
    library(&sb);
    let once = query_json(&sb);
    let before = tree(&sb, "lib.idx");
    let run = sb.run(&["index", "add", "lib.jsonl", "--index", "lib.idx"]);
    run.success();
    assert!(run.stderr.contains("nothing new: 9 documents already in the index"), "{run}");
    assert!(run.stderr.contains("the index is unchanged"), "{run}");
    assert_eq!(tree(&sb, "lib.idx"), before);
    assert_eq!(query_json(&sb), once);
    sb.run(&["query", "--doc", "copy2", "--index", "lib.idx"]).success();
    // A file holding some old and some new documents: only the new ones.
    let mut mixed = docs()[..3].to_vec();
    mixed.push(("fresh".to_string(), "一篇新的文章，与其余的都不一样。".repeat(6)));
    // The same id with another text: named, skipped.
    mixed.push(("other5".to_string(), "同一个编号，另一段文字。".repeat(6)));
    sb.write("mixed.jsonl", jsonl(&mixed));
    let run = sb.run(&["index", "add", "mixed.jsonl", "--index", "lib.idx"]);
    run.success();
    assert!(run.stderr.contains("added to: 1 documents"), "{run}");
    assert!(run.stderr.contains("3 already in the index (left out)"), "{run}");
    assert!(run.stderr.contains("mixed.jsonl:5: duplicate id \"other5\": the index holds document"), "{run}");
    assert_eq!(manifest(&sb)["documents"], 10);
    assert_eq!(hit_ids(&query_json(&sb)), ["copy1", "copy2"]);
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn item9_an_add_run_again_after_a_kill_at_any_step_ends_as_one_add() {
    let sb = Sandbox::new();
    sb.write("first.jsonl", jsonl(&docs()[..5])).write("second.jsonl", jsonl(&docs()[5..]));
    sb.write("asked.txt", asked());
    for (k, crash) in ["documents:2", "postings:0", "committing:1", "committing:2", "committing:3"].iter().enumerate() {
        let idx = format!("k{k}.idx");
        sb.run(&["index", "build", "first.jsonl", "--index", &idx, "--df-bits", "16"]).success();
        let killed = sb.run_env(&["index", "add", "second.jsonl", "--index", &idx], &[("PARALLELS_TEST_CRASH", crash)]);
        assert_ne!(killed.code, Some(0), "{crash}\n{killed}");
        let again = sb.run(&["index", "add", "second.jsonl", "--index", &idx]);
        again.success();
        let m: Value = serde_json::from_slice(&sb.read(&format!("{idx}/manifest.json"))).unwrap();
        assert_eq!(m["documents"], 9, "{crash}\n{again}");
        let left: Vec<String> = sb.list(&idx).into_iter().filter(|n| n.starts_with(".tmp") || n == "lock").collect();
        assert!(left.is_empty(), "{crash}: {left:?}");
        let run = sb.run(&["query", "asked.txt", "--index", &idx, "--format", "json"]);
        run.success();
        assert_eq!(hit_ids(&run.json()), ["copy1", "copy2"], "{crash}");
    }
}

// ---------------------------------------------------------------------
// 10. `query` names each input it skips; 12. and says why when it reads
// none.

#[test]
fn item10_query_names_every_input_it_skips() {
    let sb = Sandbox::new();
    library(&sb);
    sb.write("in/empty.txt", "").write("in/binary.txt", [0u8, 1, 2, 0, 0, 255, 0, 3].repeat(50));
    sb.write("in/good.txt", asked());
    let records = format!(
        "{}\nnot json\n{}\n{}\n",
        json!({"id": "r1", "text": asked()}),
        json!({"id": "r2"}),
        json!({"id": "r1", "text": "另一段"})
    );
    sb.write("recs.jsonl", records);
    let run = sb.run(&["query", "in", "recs.jsonl", "--index", "lib.idx", "--format", "json"]);
    run.success();
    for named in ["in/empty.txt", "in/binary.txt", "recs.jsonl:2", "recs.jsonl:3", "recs.jsonl:4: duplicate id \"r1\""]
    {
        assert!(run.stderr.contains(named), "{named} not named\n{run}");
    }
    assert_eq!(run.stderr.matches("parallels: warning:").count(), 5, "{run}");
    let out = run.json();
    let ids: Vec<&str> = out["documents"].as_array().unwrap().iter().filter_map(|d| d["id"].as_str()).collect();
    assert!(ids.contains(&"good") && ids.contains(&"r1"), "{ids:?}");
}

#[test]
fn item12_query_of_an_empty_or_binary_file_says_what_scan_says() {
    let sb = Sandbox::new();
    library(&sb);
    sb.write("empty.txt", "").write("binary.txt", [0u8, 1, 2, 0, 0, 255, 0, 3].repeat(50));
    for file in ["empty.txt", "binary.txt"] {
        let query = sb.run(&["query", file, "--index", "lib.idx"]);
        query.code(2);
        let scan = sb.run(&["scan", file, "-o", "scan-out"]);
        scan.code(2);
        // The line naming the file, as `scan` writes it.
        let said = |r: &util::Run| -> String {
            r.stderr.lines().find(|l| l.contains(file) && l.contains("warning")).unwrap_or("").to_string()
        };
        assert!(!said(&query).is_empty(), "{file}: not named\n{query}");
        assert_eq!(said(&query), said(&scan), "{file}");
        assert!(query.stderr.contains("no document was read"), "{query}");
    }
}

// ---------------------------------------------------------------------
// 13. Index errors say their cause once, name the file, and give advice
// that works.

#[test]
fn item13_index_errors_name_the_file_once_and_advise_what_works() {
    let sb = Sandbox::new();
    library(&sb);
    std::fs::remove_file(sb.path().join("lib.idx/seg.000001/postings.idx")).unwrap();
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx"]);
    run.code(2);
    let line = run.stderr.lines().find(|l| l.contains("error")).unwrap();
    assert!(line.contains("lib.idx/seg.000001/postings.idx"), "{run}");
    // The cause once.
    let cause = "No such file or directory";
    assert_eq!(line.matches(cause).count(), 1, "{run}");
    // An index of another version: the advice is a new folder (which
    // `build` takes), not "build it again" where `build` refuses.
    let sb = Sandbox::new();
    library(&sb);
    let mut m = manifest(&sb);
    m["schema"] = json!("parallels.index/1");
    set_manifest(&sb, &m);
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx"]);
    run.code(2);
    assert!(run.stderr.contains("another version of parallels (format parallels.index/1"), "{run}");
    assert!(run.stderr.contains("--index NEW"), "{run}");
    assert_eq!(run.stderr.matches("another version").count(), 1, "{run}");
    let build = sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx"]);
    build.code(2);
    assert!(build.stderr.contains("--index NEW"), "{build}");
    sb.run(&["index", "build", "lib.jsonl", "--index", "new.idx", "--df-bits", "16"]).success();
}

// ---------------------------------------------------------------------
// `serve`: 4 (timers, timeouts, connection limit), 6 (Host), 7 (Origin,
// time limit), and the headers of `/pair`.

/// The server, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
    port: String,
}

impl Server {
    fn start(sb: &Sandbox, shell_prefix: &str, more: &[&str]) -> Server {
        let args = ["serve", "--index", "lib.idx", "--port", "0"].iter().chain(more).cloned().collect::<Vec<&str>>();
        let mut child = if shell_prefix.is_empty() {
            sb.command(&args).stderr(Stdio::piped()).spawn().unwrap()
        } else {
            let cmd = format!("{shell_prefix} exec \"$0\" \"$@\"");
            std::process::Command::new("sh")
                .arg("-c")
                .arg(cmd)
                .arg(util::BIN)
                .args(&args)
                .current_dir(sb.path())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let mut err = child.stderr.take().unwrap();
        let addr = util::listening_address(&mut err);
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = err.read_to_end(&mut sink);
        });
        let port = addr.rsplit(':').next().unwrap().to_string();
        Server { child, addr, port }
    }

    /// One request with these extra headers: status, headers, body.
    fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        s.write_all(head.as_bytes()).unwrap();
        let _ = s.write_all(body);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let at = out.windows(4).position(|w| w == b"\r\n\r\n").map_or(out.len(), |p| p + 4);
        let head = String::from_utf8_lossy(&out[..at]).to_string();
        let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        (status, head.to_ascii_lowercase(), out[at..].to_vec())
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[cfg(unix)]
fn item4_serve_outlives_running_out_of_file_descriptors() {
    let sb = Sandbox::new();
    library(&sb);
    // A soft limit of 64 open files: the idle connections below use them
    // all up.
    let mut server = Server::start(&sb, "ulimit -n 64;", &[]);
    let idle: Vec<TcpStream> = (0..120).filter_map(|_| TcpStream::connect(&server.addr).ok()).collect();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(server.alive(), "the server died with {} idle connections", idle.len());
    drop(idle);
    std::thread::sleep(Duration::from_millis(500));
    let (status, _, _) = server.request("GET", "/api/info", &[], b"");
    assert_eq!(status, 200);
    assert!(server.alive());
}

#[test]
fn item4_slow_heads_slow_bodies_and_idle_connections_are_closed() {
    let sb = Sandbox::new();
    library(&sb);
    let server = Server::start(&sb, "", &["--header-timeout", "1", "--timeout", "2"]);
    let closed_within = |mut s: TcpStream, limit: Duration| -> (bool, Vec<u8>) {
        s.set_read_timeout(Some(limit)).unwrap();
        let start = Instant::now();
        let mut out = Vec::new();
        let r = s.read_to_end(&mut out);
        (r.is_ok() && start.elapsed() < limit, out)
    };
    // A head that never ends.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n").unwrap();
    assert!(closed_within(s, Duration::from_secs(8)).0, "a slow head was held open");
    // An idle connection: nothing sent.
    let s = TcpStream::connect(&server.addr).unwrap();
    assert!(closed_within(s, Duration::from_secs(8)).0, "an idle connection was held open");
    // A body shorter than its Content-Length: answered 503 by the request
    // time limit, then closed.
    // A body shorter than its Content-Length: the answer, and the
    // connection closed within 10 s.
    let short_body = |addr: &str| {
        let mut s = TcpStream::connect(addr).unwrap();
        let head = format!(
            "POST /api/query HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"text\": \""
        );
        s.write_all(head.as_bytes()).unwrap();
        let (closed, out) = closed_within(s, Duration::from_secs(10));
        assert!(closed, "a short body was held open");
        String::from_utf8_lossy(&out).into_owned()
    };
    let out = short_body(&server.addr);
    assert!(out.starts_with("HTTP/1.1 503"), "{out}");
    // With a body timeout shorter than the request's: 408.
    drop(server);
    let server = Server::start(&sb, "", &["--header-timeout", "1", "--timeout", "30", "--body-timeout", "1"]);
    let out = short_body(&server.addr);
    assert!(out.starts_with("HTTP/1.1 408"), "{out}");
    // A keep-alive connection after its answer: closed when idle.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(format!("GET /api/info HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes()).unwrap();
    assert!(closed_within(s, Duration::from_secs(8)).0, "an idle keep-alive connection was held open");
}

#[test]
fn item6_serve_answers_only_its_own_host_names() {
    let sb = Sandbox::new();
    library(&sb);
    let server = Server::start(&sb, "", &[]);
    let port = server.port.clone();
    for host in ["evil.example", &format!("evil.example:{port}"), "127.0.0.1.evil.example", "localhost.evil"] {
        let (status, _, body) = server.request("GET", "/api/documents/0", &[("Host", host)], b"");
        assert_eq!(status, 421, "{host}");
        assert!(!String::from_utf8_lossy(&body).contains("copy1"), "{host}: the document was served");
    }
    for host in
        [format!("127.0.0.1:{port}"), format!("localhost:{port}"), "LOCALHOST".to_string(), format!("[::1]:{port}")]
    {
        let (status, _, _) = server.request("GET", "/api/documents/0", &[("Host", &host)], b"");
        assert_eq!(status, 200, "{host}");
    }
    // No Host at all (HTTP/1.0).
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(b"GET /api/documents/0 HTTP/1.0\r\n\r\n").unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    assert!(String::from_utf8_lossy(&out).starts_with("HTTP/1.0 400"), "{}", String::from_utf8_lossy(&out));
}

#[test]
fn item7_requests_from_other_sites_are_refused() {
    let sb = Sandbox::new();
    library(&sb);
    let server = Server::start(&sb, "", &[]);
    let form = format!("doc=0&text={}", "%E5%AD%97".repeat(50));
    let form_type = ("Content-Type", "application/x-www-form-urlencoded");
    // Another page's form post, by its Origin or by the browser's
    // Sec-Fetch-Site.
    let (status, _, _) =
        server.request("POST", "/pair", &[form_type, ("Origin", "http://evil.example")], form.as_bytes());
    assert_eq!(status, 403);
    let (status, _, _) =
        server.request("POST", "/pair", &[form_type, ("Sec-Fetch-Site", "cross-site")], form.as_bytes());
    assert_eq!(status, 403);
    let json_type = ("Content-Type", "application/json");
    let body = json!({"text": asked()}).to_string();
    let (status, _, _) = server.request("POST", "/api/query", &[json_type, ("Origin", "null")], body.as_bytes());
    assert_eq!(status, 403);
    let (status, _, _) = server.request("GET", "/api/passages?doc=0", &[("Sec-Fetch-Site", "cross-site")], b"");
    assert_eq!(status, 403);
    let (status, _, _) = server.request("GET", "/pair?a=0&b=1", &[("Sec-Fetch-Site", "cross-site")], b"");
    assert_eq!(status, 403);
    // The server's own page, and a client without an Origin (curl).
    let origin = format!("http://{}", server.addr);
    let own = [form_type, ("Origin", origin.as_str()), ("Sec-Fetch-Site", "same-origin")];
    let (status, _, _) = server.request("POST", "/pair", &own, form.as_bytes());
    assert_eq!(status, 200);
    let (status, _, _) = server.request("POST", "/api/query", &[json_type], body.as_bytes());
    assert_eq!(status, 200);
    // A link from another site to the page itself still opens it.
    let (status, _, _) = server.request("GET", "/", &[("Sec-Fetch-Site", "cross-site")], b"");
    assert_eq!(status, 200);
}

#[test]
fn doubtful_the_pair_report_has_a_policy_and_nosniff() {
    let sb = Sandbox::new();
    library(&sb);
    let server = Server::start(&sb, "", &[]);
    let (status, head, _) = server.request("GET", "/pair?a=0&b=1", &[], b"");
    assert_eq!(status, 200);
    assert!(head.contains("content-security-policy: default-src 'none'"), "{head}");
    assert!(head.contains("frame-ancestors 'self'"), "{head}");
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
    let (_, head, _) = server.request("GET", "/api/info", &[], b"");
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
}

#[test]
fn doubtful_api_bodies_are_objects_and_a_lone_surrogate_is_read_as_a_replacement() {
    let sb = Sandbox::new();
    library(&sb);
    let server = Server::start(&sb, "", &[]);
    let json_type = ("Content-Type", "application/json");
    let (status, _, body) = server.request("POST", "/api/query", &[json_type], b"[\"text\"]");
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("a JSON object"), "{}", String::from_utf8_lossy(&body));
    // A lone surrogate in the text (as a browser may send): answered.
    let body = format!("{{\"text\": \"\\ud800{}\"}}", asked().replace('\n', "\\n"));
    let (status, _, out) = server.request("POST", "/api/query", &[json_type], body.as_bytes());
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&out));
    let out: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(out["hits"].as_array().unwrap().len(), 2, "{out}");
    let (status, _, _) = server.request("POST", "/api/query", &[("Content-Type", "text/plain")], b"{}");
    assert_eq!(status, 415);
    let (status, _, _) = server.request("POST", "/api/query", &[json_type], b"{\"txt\": \"a\"}");
    assert_eq!(status, 422);
}

// ---------------------------------------------------------------------
// Kept: a full disk during `add` leaves the index as it was.

#[cfg(target_os = "linux")]
#[test]
fn kept_a_full_disk_during_add_leaves_the_index_as_it_was() {
    let sb = Sandbox::new();
    library(&sb);
    sb.write("big.jsonl", many("big", 300));
    let before = tree(&sb, "lib.idx");
    // Every file of the add fails in turn as it grows past the limit:
    // the texts and documents, the postings, the feature table (64 KiB
    // raw at --df-bits 16, compressed smaller), the manifest.
    let mut failed = 0;
    for limit in [100u64, 2_000, 20_000, 60_000, 120_000, 250_000] {
        let run = run_with_file_limit(&sb, &["index", "add", "big.jsonl", "--index", "lib.idx"], limit);
        run.no_panic();
        if run.code == Some(0) {
            break;
        }
        failed += 1;
        run.code(2);
        assert!(run.stderr.contains("lib.idx"), "the file is not named\n{run}");
        assert_eq!(tree(&sb, "lib.idx"), before, "limit {limit}\n{run}");
    }
    assert!(failed >= 3, "only {failed} limits failed the add");
    // And the add then goes through.
    sb.run(&["index", "add", "big.jsonl", "--index", "lib.idx"]).success();
    assert_eq!(manifest(&sb)["documents"], 309);
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_SLOW_QUERY_MS)")]
fn item7_a_query_past_its_time_limit_or_left_by_its_client_is_stopped() {
    let sb = Sandbox::new();
    library(&sb);
    // Every query takes 20 s (a stoppable wait, under the test hook).
    let mut child = sb
        .command(["serve", "--index", "lib.idx", "--port", "0", "--timeout", "1"])
        .env("PARALLELS_TEST_SLOW_QUERY_MS", "20000")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let said = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let said = said.clone();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("http://").nth(1) {
                    let _ = tx.send(rest.split('/').next().unwrap().to_string());
                }
                said.lock().unwrap().push_str(&(line + "\n"));
            }
        });
    }
    let addr = rx.recv_timeout(Duration::from_secs(30)).expect("the server did not start");
    let server = Server { child, port: addr.rsplit(':').next().unwrap().to_string(), addr };
    let stopped = || said.lock().unwrap().matches("a query was stopped").count();
    // Past --timeout: 503, and the query's work stopped.
    let small = json!({ "text": asked() }).to_string();
    let start = Instant::now();
    let (status, _, out) =
        server.request("POST", "/api/query", &[("Content-Type", "application/json")], small.as_bytes());
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&out));
    assert!(String::from_utf8_lossy(&out).contains("--timeout"));
    assert!(start.elapsed() < Duration::from_secs(15), "answered after {:?}", start.elapsed());
    let wait = Instant::now();
    while stopped() < 1 && wait.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(stopped(), 1, "the query went on after its answer");
    // A client that goes away: its query is stopped too.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(format!("GET /api/passages?doc=0 HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(s);
    let wait = Instant::now();
    while stopped() < 2 && wait.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(stopped(), 2, "the query of a client gone went on");
    let (status, _, _) = server.request("GET", "/api/info", &[], b"");
    assert_eq!(status, 200);
}

#[test]
#[cfg(target_os = "linux")]
fn item6_the_bind_address_is_a_host_name_too_and_any_address_answers_any_name() {
    let sb = Sandbox::new();
    library(&sb);
    let server = Server::start(&sb, "", &["--bind", "127.0.0.2"]);
    assert!(server.addr.starts_with("127.0.0.2:"), "{}", server.addr);
    let (status, _, _) = server.request("GET", "/api/info", &[], b"");
    assert_eq!(status, 200);
    let (status, _, _) = server.request("GET", "/api/info", &[("Host", "evil.example")], b"");
    assert_eq!(status, 421);
    drop(server);
    // `--bind 0.0.0.0` opens the library to the network (with a warning):
    // any name is answered there.
    let mut server = Server::start(&sb, "", &["--bind", "0.0.0.0"]);
    server.addr = format!("127.0.0.1:{}", server.port);
    let (status, _, _) = server.request("GET", "/api/info", &[("Host", "my-laptop.lan")], b"");
    assert_eq!(status, 200);
}
