//! End-to-end tests of `parallels eval`: scores of alignments against gold
//! links, and its errors and warnings.

mod util;

use serde_json::Value;
use util::{link_count, Sandbox};

/// The first two gold links of v1-v2 in corpus/zh-variants/gold.json.
const GOLD_V1_V2: &str = r#"{
  "documents": {"v1": "v1.txt", "v2": "v2.txt"},
  "pairs": {"v1-v2": [
    {"a": [0, 6], "b": [0, 7], "shape": "1-1"},
    {"a": [8, 48], "b": [10, 46], "shape": "1-1"}
  ]}
}"#;

/// Columns of an eval table row: name, gold, pred, then six scores.
fn eval_row(table: &str, name: &str) -> (usize, usize, Vec<f64>) {
    let line = table
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no line starting with {name:?} in\n{table}"));
    let cols: Vec<&str> = line[name.len()..].split_whitespace().collect();
    assert_eq!(cols.len(), 8, "{line:?}");
    let scores: Vec<f64> = cols[2..].iter().map(|c| c.parse().expect("a score")).collect();
    assert!(scores.iter().all(|s| (0.0..=1.0).contains(s)), "{line:?}");
    (cols[0].parse().expect("gold count"), cols[1].parse().expect("pred count"), scores)
}

#[test]
fn eval_scores_an_alignment() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    sb.write("gold.json", GOLD_V1_V2);
    sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "-o", "out.json"]).success();
    let out: Value = serde_json::from_slice(&sb.read("out.json")).unwrap();
    let run = sb.run(&["eval", "--gold", "gold.json", "out.json"]);
    run.success();
    assert_eq!(run.stderr, "", "{run}");
    let table = run.stdout_str();
    assert!(table.starts_with("pair "), "a header first\n{table}");
    assert_eq!(table.lines().count(), 3, "header, v1-v2, ALL\n{table}");
    let (gold, pred, _) = eval_row(table, "v1-v2");
    assert_eq!((gold, pred), (2, link_count(&out)));
    let (gold, pred, _) = eval_row(table, "ALL (micro)");
    assert_eq!((gold, pred), (2, link_count(&out)));
}

#[test]
fn eval_of_the_gold_itself_is_perfect() {
    // A hand-written alignment with exactly the gold links.
    let pred = r#"{"schema": "parallels.align/1",
      "documents": [
        {"id": "v1", "path": "v1.txt", "chars": 4008, "encoding": "utf-8"},
        {"id": "v2", "path": "v2.txt", "chars": 3843, "encoding": "utf-8"}],
      "pairs": [{"a": "v1", "b": "v2", "passages": [
        {"kind": "parallel", "a": [0, 48], "b": [0, 46], "score": 0.5,
         "links": [{"a": [0, 6], "b": [0, 7], "score": 0.5}, {"a": [8, 48], "b": [10, 46], "score": 0.5}]}]}]}"#;
    let sb = Sandbox::new();
    sb.write("gold.json", GOLD_V1_V2).write("pred.json", pred);
    let run = sb.run(&["eval", "--gold", "gold.json", "pred.json"]);
    run.success();
    for row in ["v1-v2", "ALL (micro)"] {
        assert_eq!(eval_row(run.stdout_str(), row), (2, 2, vec![1.0; 6]), "{run}");
    }
    // The same alignment with the pair written the other way round.
    let flipped = pred
        .replace(r#""a": "v1", "b": "v2""#, r#""a": "v2", "b": "v1""#)
        .replace(r#""a": [0, 48], "b": [0, 46]"#, r#""a": [0, 46], "b": [0, 48]"#)
        .replace(r#""a": [0, 6], "b": [0, 7]"#, r#""a": [0, 7], "b": [0, 6]"#)
        .replace(r#""a": [8, 48], "b": [10, 46]"#, r#""a": [10, 46], "b": [8, 48]"#);
    sb.write("flipped.json", flipped);
    let run = sb.run(&["eval", "--gold", "gold.json", "flipped.json"]);
    run.success();
    assert_eq!(eval_row(run.stdout_str(), "v1-v2"), (2, 2, vec![1.0; 6]), "{run}");
}

#[test]
fn eval_units_scores_verse_gold_without_a_document_list() {
    // Verse gold as in corpus/zh-bible: no "documents", ids taken from the
    // alignment, and an unmatched verse of B as a negative.
    let gold = r#"{"pairs": {"a-b": [{"a": [0, 10], "b": [0, 12]}, {"a": [10, 20], "b": [12, 20]}]},
                  "unmatched": {"a-b": {"a": [], "b": [[20, 30]]}}}"#;
    // A links finer than the verses, and one B character of the unmatched verse.
    let pred = r#"{"schema": "parallels.align/1",
      "documents": [
        {"id": "a", "path": "a.txt", "chars": 20, "encoding": "utf-8"},
        {"id": "b", "path": "b.txt", "chars": 30, "encoding": "utf-8"}],
      "pairs": [{"a": "a", "b": "b", "passages": [
        {"kind": "parallel", "a": [0, 20], "b": [0, 21], "score": 0.5,
         "links": [{"a": [0, 5], "b": [0, 6], "score": 0.5}, {"a": [5, 10], "b": [6, 12], "score": 0.5},
                   {"a": [10, 20], "b": [12, 21], "score": 0.5}]}]}]}"#;
    let sb = Sandbox::new();
    sb.write("gold.json", gold).write("pred.json", pred);
    let run = sb.run(&["eval", "--units", "--gold", "gold.json", "pred.json"]);
    run.success();
    assert_eq!(run.stderr, "", "{run}");
    let table = run.stdout_str();
    assert!(table.starts_with("pair ") && table.contains("unit P"), "{table}");
    let (gold, pred, s) = eval_row(table, "a-b");
    assert_eq!((gold, pred), (2, 3));
    // Every linked pair is within its verse (unit P 1), every unit character
    // is aligned to its own verse (unit R 1); coverage P is 40/41.
    assert_eq!(&s[..5], &[1.0, 1.0, 1.0, (40.0f64 / 41.0 * 1e4).round() / 1e4, 1.0], "{table}");
}

#[test]
fn eval_with_malformed_gold_is_an_error_naming_it() {
    let sb = Sandbox::new();
    sb.write("gold/bad.json", r#"{"documents": {"v1": "v1.txt"}, "pairs": "#)
        .write("pred.json", r#"{"schema": "parallels.align/1", "documents": [], "pairs": []}"#);
    let run = sb.run(&["eval", "--gold", "gold/bad.json", "pred.json"]);
    run.no_panic().code(2);
    assert_eq!(run.stderr_lines().len(), 1, "{run}");
    assert!(run.stderr.starts_with("parallels: error: gold/bad.json: not a gold file"), "{run}");
    assert!(run.stdout.is_empty());
}

#[test]
fn eval_input_errors_name_the_file() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("gold.json", GOLD_V1_V2)
        .write("pred.json", r#"{"schema": "parallels.align/1", "documents": [], "pairs": []}"#);
    // A gold pair key that does not name two gold documents.
    sb.write("gold2.json", r#"{"documents": {"v1": "v1.txt"}, "pairs": {"v1-v9": []}}"#);
    for (args, path, what) in [
        (&["eval", "--gold", "none.json", "pred.json"][..], "none.json", "no such file"),
        (&["eval", "--gold", "gold.json", "none.json"], "none.json", "no such file"),
        (&["eval", "--gold", "gold.json", "v1.txt"], "v1.txt", "not a `parallels align --format json` output"),
        (&["eval", "--gold", "gold2.json", "pred.json"], "gold2.json", "\"v1-v9\""),
    ] {
        let run = sb.run(args);
        run.no_panic().code(2);
        assert_eq!(run.stderr_lines().len(), 1, "{run}");
        let prefix = format!("parallels: error: {path}: ");
        assert!(run.stderr.starts_with(&prefix) && run.stderr.contains(what), "{run}");
    }
}

#[test]
fn eval_warns_about_documents_not_in_the_gold() {
    let pred = r#"{"schema": "parallels.align/1",
      "documents": [
        {"id": "v1", "path": "v1.txt", "chars": 4008, "encoding": "utf-8"},
        {"id": "v9", "path": "v9.txt", "chars": 10, "encoding": "utf-8"}],
      "pairs": [{"a": "v1", "b": "v9", "passages": [
        {"kind": "verbatim", "a": [0, 5], "b": [0, 5], "score": 1.0}]}]}"#;
    let sb = Sandbox::new();
    sb.write("gold.json", GOLD_V1_V2).write("pred.json", pred);
    let run = sb.run(&["eval", "--gold", "gold.json", "pred.json"]);
    run.success();
    assert_eq!(run.stderr_lines(), ["parallels: warning: documents not in the gold are not scored: v9"], "{run}");
    // Nothing predicted for v1-v2: recall 0, precision 1 (nothing wrong predicted).
    let (gold, pred, scores) = eval_row(run.stdout_str(), "v1-v2");
    assert_eq!((gold, pred), (2, 0));
    assert_eq!((scores[0], scores[1]), (1.0, 0.0));
}
