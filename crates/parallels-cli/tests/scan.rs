//! End-to-end tests of `parallels scan` on a small corpus made from the
//! fixture texts: a verbatim copy, a parallel version, unrelated text.

mod util;

use serde_json::Value;
use util::{fixture_text, slice_chars, span, Sandbox};

fn jsonl(sb: &Sandbox, rel: &str) -> Vec<Value> {
    String::from_utf8(sb.read(rel)).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn chars(s: &str) -> u64 {
    s.chars().count() as u64
}

/// a = v1; b = v4's first half, then v1's second paragraph copied, then
/// v4's middle; c = v2 (a parallel version of v1); d = the end of v4.
fn corpus(sb: &Sandbox) -> (String, String, u64) {
    let v1 = fixture_text("v1.txt");
    let v4 = fixture_text("v4.txt");
    let v2 = fixture_text("v2.txt");
    let para = v1.lines().filter(|l| !l.trim().is_empty()).nth(1).unwrap().to_string();
    let v4c: Vec<char> = v4.chars().collect();
    let first: String = v4c[..900].iter().collect();
    let middle: String = v4c[900..1500].iter().collect();
    let end: String = v4c[1500..].iter().collect();
    let b = format!("{first}\n{para}\n{middle}");
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", &b).write("corpus/c.txt", &v2).write("corpus/d.txt", &end);
    (v1, para, chars(&first) + 1)
}

#[test]
fn a_folder_scan_finds_the_copy_and_the_parallel_version() {
    let sb = Sandbox::new();
    let (v1, para, at) = corpus(&sb);
    let run = sb.run(&["scan", "corpus", "-o", "out"]);
    run.success();
    let docs = jsonl(&sb, "out/documents.jsonl");
    let ids: Vec<&str> = docs.iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    assert_eq!(docs[0]["chars"].as_u64(), Some(chars(&v1)));
    assert_eq!(docs[0]["encoding"], "utf-8");
    assert_eq!(docs[3]["passages"].as_u64(), Some(0), "the end of v4 shares nothing");
    let passages = jsonl(&sb, "out/passages.jsonl");
    // The copy: exact boundaries on both sides.
    let copy = passages.iter().find(|p| p["a_doc"] == "a" && p["b_doc"] == "b").expect("a-b passage");
    assert_eq!(copy["kind"], "verbatim");
    let start = chars(&v1[..v1.find(&para).unwrap()]);
    assert_eq!(span(&copy["a"]), (start, start + chars(&para)));
    assert_eq!(slice_chars(&v1, span(&copy["a"])), para);
    assert_eq!(span(&copy["b"]), (at, at + chars(&para)));
    // The parallel version: one long parallel passage with many links.
    let par = passages.iter().find(|p| p["a_doc"] == "a" && p["b_doc"] == "c").expect("a-c passage");
    assert_eq!(par["kind"], "parallel");
    assert!(par["links"].as_array().unwrap().len() > 100);
    // The titles (魏斯明德之围 / 魏斯明德围城记) open it.
    assert_eq!(span(&par["links"][0]["a"]), (0, 6));
    assert_eq!(span(&par["links"][0]["b"]), (0, 7));
    // The copy's cluster holds a and b; the version's, a and c: the whole
    // of a, shared with c, does not chain the paragraph it shares with b.
    let clusters = jsonl(&sb, "out/clusters.jsonl");
    let members = |p: &Value| -> Vec<String> {
        let c = &clusters[p["cluster"].as_u64().unwrap() as usize];
        c["members"].as_array().unwrap().iter().map(|m| m["doc"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(members(copy), ["a", "b"]);
    assert_eq!(members(par), ["a", "c"]);
    // Both are significant.
    assert!(copy["significance"].as_f64().unwrap() >= 35.0, "{copy}");
    assert!(par["significance"].as_f64().unwrap() >= 200.0, "{par}");
    assert!(clusters.iter().all(|c| c["members"].as_array().unwrap().iter().all(|m| m["doc"] != "d")));
    // The summary goes to stderr.
    assert!(run.stderr.contains("documents: 4 read, 0 skipped"), "{}", run.stderr);
}

#[test]
fn scan_output_does_not_depend_on_the_thread_count() {
    let sb = Sandbox::new();
    corpus(&sb);
    sb.run_env(&["scan", "corpus", "-o", "one"], &[("RAYON_NUM_THREADS", "1")]).success();
    sb.run_env(&["scan", "corpus", "-o", "four"], &[("RAYON_NUM_THREADS", "4")]).success();
    for f in ["documents.jsonl", "passages.jsonl", "clusters.jsonl"] {
        assert!(sb.read(&format!("one/{f}")) == sb.read(&format!("four/{f}")), "{f} differs");
    }
    assert!(!sb.list("one").iter().any(|f| f.starts_with('.')), "work files left: {:?}", sb.list("one"));
}

#[test]
fn jsonl_bad_lines_are_reported_and_skipped_and_groups_are_not_compared() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    let v2 = fixture_text("v2.txt");
    let line =
        |id: &str, text: &str, group: &str| serde_json::json!({"id": id, "text": text, "paper": group}).to_string();
    let body = [
        line("a", &v1, "p1"),
        "{not json".to_string(),
        line("b", &v2, "p1"),
        line("c", &v2, "p2"),
        serde_json::json!({"id": "d"}).to_string(),
    ]
    .join("\n");
    sb.write("docs.jsonl", body);
    let run = sb.run(&["scan", "docs.jsonl", "--group", "paper", "-o", "out"]);
    run.success();
    assert!(run.stderr.contains("docs.jsonl:2"), "{}", run.stderr);
    assert!(run.stderr.contains("docs.jsonl:5"), "{}", run.stderr);
    assert!(run.stderr.contains("documents: 3 read, 2 skipped"), "{}", run.stderr);
    let pairs: Vec<(String, String)> = jsonl(&sb, "out/passages.jsonl")
        .iter()
        .map(|p| (p["a_doc"].as_str().unwrap().to_string(), p["b_doc"].as_str().unwrap().to_string()))
        .collect();
    assert!(pairs.contains(&("a".into(), "c".into())), "{pairs:?}");
    assert!(!pairs.contains(&("a".into(), "b".into())), "a and b are one group: {pairs:?}");
    // --strict stops at the first bad line and writes nothing.
    let strict = sb.run(&["scan", "docs.jsonl", "--strict", "-o", "strict"]);
    strict.code(2);
    assert!(strict.stderr.contains("docs.jsonl:2"), "{}", strict.stderr);
    assert!(!sb.path().join("strict/passages.jsonl").exists());
}

#[test]
fn parquet_output_writes_the_three_tables() {
    let sb = Sandbox::new();
    corpus(&sb);
    sb.run(&["scan", "corpus", "-o", "out", "--format", "parquet"]).success();
    for f in ["documents.parquet", "passages.parquet", "clusters.parquet"] {
        let bytes = sb.read(&format!("out/{f}"));
        assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"), "{f} is not a Parquet file");
    }
    // The passages table holds the same rows as passages.jsonl, in order
    // (streamed from the scan's chunks in both cases).
    sb.run(&["scan", "corpus", "-o", "json"]).success();
    let expected = jsonl(&sb, "json/passages.jsonl");
    let file = std::fs::File::open(sb.path().join("out/passages.parquet")).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let col = |name: &str| batch.column_by_name(name).unwrap().clone();
        let (a_doc, cluster, a_start, links) = (col("a_doc"), col("cluster"), col("a_start"), col("links"));
        use arrow_array::cast::AsArray;
        use arrow_array::types::{Float64Type, UInt32Type};
        use arrow_array::Array;
        for r in 0..batch.num_rows() {
            // `links` is a native list of structs: rebuilt here as the
            // JSON Lines table writes it.
            let list = links.as_list::<i32>().value(r);
            let l = list.as_struct();
            let u = |name: &str, i: usize| l.column_by_name(name).unwrap().as_primitive::<UInt32Type>().value(i);
            let f = |name: &str| l.column_by_name(name).unwrap().as_primitive::<Float64Type>().clone();
            let (score, meaning) = (f("score"), f("meaning"));
            let as_json: Vec<Value> = (0..l.len())
                .map(|i| {
                    let mut o = serde_json::json!({
                        "a": [u("a_start", i), u("a_end", i)],
                        "b": [u("b_start", i), u("b_end", i)],
                        "score": score.value(i),
                    });
                    if meaning.is_valid(i) {
                        o["meaning"] = serde_json::json!(meaning.value(i));
                    }
                    o
                })
                .collect();
            rows.push((
                a_doc.as_string::<i32>().value(r).to_string(),
                cluster.as_primitive::<UInt32Type>().value(r) as u64,
                a_start.as_primitive::<UInt32Type>().value(r) as u64,
                Value::Array(as_json),
            ));
        }
    }
    let want: Vec<(String, u64, u64, Value)> = expected
        .iter()
        .map(|p| {
            let links = p.get("links").cloned().unwrap_or(Value::Array(Vec::new()));
            (p["a_doc"].as_str().unwrap().to_string(), p["cluster"].as_u64().unwrap(), span(&p["a"]).0, links)
        })
        .collect();
    assert!(!want.is_empty());
    assert_eq!(rows, want);
    let summary: Value = serde_json::from_slice(&sb.read("out/summary.json")).unwrap();
    assert_eq!(summary["schema"], "parallels.scan/1");
    assert_eq!(summary["stats"]["documents"].as_u64(), Some(4));
    // The clusters' members are a native list of structs, the same as
    // clusters.jsonl's.
    let file = std::fs::File::open(sb.path().join("out/clusters.parquet")).unwrap();
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    assert_eq!(
        builder.schema().metadata().get("parallels.schema").map(String::as_str),
        Some("parallels.scan.parquet/2")
    );
    let mut members = Vec::new();
    for batch in builder.build().unwrap() {
        use arrow_array::cast::AsArray;
        use arrow_array::types::UInt32Type;
        use arrow_array::Array;
        let batch = batch.unwrap();
        let list = batch.column_by_name("members").unwrap().as_list::<i32>().clone();
        for r in 0..batch.num_rows() {
            let m = list.value(r);
            let m = m.as_struct();
            let doc = m.column_by_name("doc").unwrap().as_string::<i32>();
            let start = m.column_by_name("start").unwrap().as_primitive::<UInt32Type>();
            let end = m.column_by_name("end").unwrap().as_primitive::<UInt32Type>();
            members.push(
                (0..m.len())
                    .map(|i| serde_json::json!({"doc": doc.value(i), "span": [start.value(i), end.value(i)]}))
                    .collect::<Vec<_>>(),
            );
        }
    }
    let want: Vec<Vec<Value>> =
        jsonl(&sb, "json/clusters.jsonl").iter().map(|c| c["members"].as_array().unwrap().clone()).collect();
    assert!(!want.is_empty());
    assert_eq!(members, want);
    assert!(!sb.path().join("out/passages.jsonl").exists());
}

const TABLES: [&str; 3] = ["documents.jsonl", "passages.jsonl", "clusters.jsonl"];

/// Scan with a checkpoint after every candidate pair, so that a crash can
/// fall between any two.
fn scan_args<'a>(out: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["scan", "corpus", "-o", out, "--pairs-per-checkpoint", "1"];
    args.extend_from_slice(more);
    args
}

fn same_tables(sb: &Sandbox, x: &str, y: &str) {
    for f in TABLES {
        assert!(sb.read(&format!("{x}/{f}")) == sb.read(&format!("{y}/{f}")), "{x}/{f} and {y}/{f} differ");
    }
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn a_crashed_scan_resumes_to_the_same_result() {
    let sb = Sandbox::new();
    corpus(&sb);
    let whole = sb.run(&scan_args("whole", &[]));
    whole.success();
    assert!(whole.stderr.contains("candidate pairs: 3;"), "{whole}");
    for (crash, taken) in [
        ("aligning:2", "resumed: reading, candidate pairs and 2 of 3 aligned chunks taken over"),
        ("candidates:0", "resumed: reading and 0 of 3 aligned chunks taken over"),
        ("documents:0", "resumed: the interrupted run had not finished reading"),
    ] {
        let out = format!("out-{}", crash.replace(':', "-"));
        let crashed = sb.run_env(&scan_args(&out, &[]), &[("PARALLELS_TEST_CRASH", crash)]);
        assert_eq!(crashed.code, None, "not killed at {crash}\n{crashed}");
        assert!(sb.path().join(&out).join(".work/manifest.json").exists(), "{crash}: no work folder");
        assert!(!sb.path().join(&out).join("passages.jsonl").exists(), "{crash}: results written");
        let resumed = sb.run(&scan_args(&out, &["--resume"]));
        resumed.success();
        assert!(resumed.stderr.contains(taken), "{crash}\n{resumed}");
        same_tables(&sb, "whole", &out);
        assert!(!sb.path().join(&out).join(".work").exists(), "{crash}: work folder left");
    }
}

#[test]
#[cfg_attr(not(feature = "test-hooks"), ignore = "needs --features test-hooks (PARALLELS_TEST_CRASH)")]
fn resume_starts_over_when_inputs_or_options_changed() {
    let sb = Sandbox::new();
    corpus(&sb);
    let fresh = "resumed: nothing to take over";
    // Nothing was interrupted.
    let run = sb.run(&scan_args("out", &["--resume"]));
    run.success();
    assert!(run.stderr.contains(fresh), "{run}");
    // Other options.
    sb.run_env(&scan_args("out", &[]), &[("PARALLELS_TEST_CRASH", "aligning:1")]);
    let run = sb.run(&scan_args("out", &["--resume", "--min-seeds", "2"]));
    run.success();
    assert!(run.stderr.contains(fresh), "{run}");
    sb.run(&scan_args("fresh2", &["--min-seeds", "2"])).success();
    same_tables(&sb, "fresh2", "out");
    // A changed input file.
    sb.run_env(&scan_args("out", &[]), &[("PARALLELS_TEST_CRASH", "aligning:1")]);
    let d = fixture_text("v4.txt");
    sb.write("corpus/d.txt", &d);
    let run = sb.run(&scan_args("out", &["--resume"]));
    run.success();
    assert!(run.stderr.contains(fresh), "{run}");
    sb.run(&scan_args("fresh", &[])).success();
    same_tables(&sb, "fresh", "out");
}

/// A real kill, at whatever moment the scan has reached once its work
/// folder exists: the resumed run ends with the uninterrupted result.
#[test]
fn a_killed_scan_resumes_to_the_same_result() {
    let sb = Sandbox::new();
    corpus(&sb);
    sb.run(&scan_args("whole", &[])).success();
    for delay_ms in [0, 20, 60] {
        let out = format!("killed-{delay_ms}");
        let mut child = sb.command(scan_args(&out, &[])).stderr(std::process::Stdio::null()).spawn().unwrap();
        let manifest = sb.path().join(&out).join(".work/manifest.json");
        let start = std::time::Instant::now();
        while !manifest.exists() && start.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        sb.run(&scan_args(&out, &["--resume"])).success();
        same_tables(&sb, "whole", &out);
    }
}

#[test]
fn values_out_of_range_are_rejected_not_clamped() {
    let sb = Sandbox::new();
    corpus(&sb);
    for (flag, bad, good) in [
        ("--max-df", "1", "2"),
        ("--min-seeds", "0", "1"),
        ("--memory", "15", "16"),
        ("--pairs-per-checkpoint", "0", "1"),
        ("--min-specificity", "1.5", "0"),
    ] {
        let run = sb.run(&["scan", "corpus", "-o", "out", flag, bad]);
        run.no_panic().code(2);
        assert!(run.stderr.contains(flag) && run.stderr.contains(bad), "{run}");
        assert!(!sb.path().join("out").exists(), "{flag} {bad}: nothing may be written");
        sb.run(&["scan", "corpus", "-o", "ok", flag, good]).success();
    }
    for (flag, bad) in [("--memory", "8"), ("--min-paragraph-tokens", "0")] {
        let run = sb.run(&["dedup", "corpus", "-o", "clean.jsonl", flag, bad]);
        run.no_panic().code(2);
        assert!(run.stderr.contains(flag), "{run}");
        assert!(!sb.path().join("clean.jsonl").exists());
    }
    // Options that contradict the inputs: the library names them as its
    // fields are named, the command line as its flags.
    let run = sb.run(&["scan", "corpus", "-o", "out", "--group", "series"]);
    run.no_panic().code(2);
    assert!(
        run.stderr.contains(
            "--group FIELD groups JSON Lines and Parquet records by a field; for text files use --group-by-dir"
        ),
        "{run}"
    );
    assert!(!run.stderr.contains('`'), "{run}");
}
