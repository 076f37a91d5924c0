//! `parallels scan` on a corpus in two languages: translations are found
//! by meaning, without being asked for pairs. The texts are the bundled
//! example (`examples/v1.txt`, Chinese, and `examples/v1.en.txt`, an
//! English rendering of three of its paragraphs) and Mark in the King
//! James Version (`eval/en-bible`), which has nothing to do with them.

mod util;

use serde_json::Value;
use std::path::Path;
use util::{fixture_text, slice_chars, span, Sandbox};

fn jsonl(sb: &Sandbox, rel: &str) -> Vec<Value> {
    String::from_utf8(sb.read(rel)).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn repo_text(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn chars(s: &str) -> u64 {
    s.chars().count() as u64
}

/// The corpus: `zh` (v1), `en` (its English rendering), `other` (v4: a
/// Chinese text on another siege), `host` (Mark 1–2 with the English
/// bombardment paragraph inserted), `mark` (a later part of Mark). Returns
/// v1, the English text, the host and the inserted paragraph's place in it.
fn corpus(sb: &Sandbox) -> (String, String, String, (u64, u64)) {
    let v1 = repo_text("examples/v1.txt");
    let en = repo_text("examples/v1.en.txt");
    let mark = repo_text("eval/en-bible/mark_kjv.txt");
    let bombardment = en.split("\n\n").nth(3).expect("the fourth paragraph").trim().to_owned();
    let cut = |s: &str, from: usize, to: usize| -> String { s.chars().skip(from).take(to - from).collect() };
    let before = format!("{}\n\n", cut(&mark, 0, 6000));
    let host = format!("{before}{bombardment}\n\n{}", cut(&mark, 6000, 12000));
    let at = chars(&before);
    sb.write("corpus/zh.txt", &v1)
        .write("corpus/en.txt", &en)
        .write("corpus/other.txt", fixture_text("v4.txt"))
        .write("corpus/host.txt", &host)
        .write("corpus/mark.txt", cut(&mark, 20000, 30000));
    (v1, en, host, (at, at + chars(&bombardment)))
}

fn between<'a>(passages: &'a [Value], x: &str, y: &str) -> Vec<&'a Value> {
    passages.iter().filter(|p| (p["a_doc"] == x && p["b_doc"] == y) || (p["a_doc"] == y && p["b_doc"] == x)).collect()
}

/// The spans of a passage as (side of `x`, side of `y`).
fn sides(p: &Value, x: &str) -> ((u64, u64), (u64, u64)) {
    if p["a_doc"] == x {
        (span(&p["a"]), span(&p["b"]))
    } else {
        (span(&p["b"]), span(&p["a"]))
    }
}

#[test]
fn a_translation_and_a_translated_paragraph_are_found_across_languages() {
    let sb = Sandbox::new();
    let (v1, en, host, inserted) = corpus(&sb);
    let run = sb.run(&["scan", "corpus", "-o", "out"]);
    run.success();
    assert!(run.stderr_lines().iter().any(|l| l.starts_with("translations: 5 documents compared")), "{run}");

    // Every document carries its language.
    let docs = jsonl(&sb, "out/documents.jsonl");
    let lang: Vec<(&str, &str)> =
        docs.iter().map(|d| (d["id"].as_str().unwrap(), d["language"].as_str().unwrap())).collect();
    assert_eq!(lang, [("en", "en"), ("host", "en"), ("mark", "en"), ("other", "zh"), ("zh", "zh")]);

    let passages = jsonl(&sb, "out/passages.jsonl");
    // The English rendering against v1: one parallel passage over nearly
    // all of the English, linked sentence by sentence to paragraphs 3–5 of
    // v1 (the council, the preparations, the bombardment).
    let found = between(&passages, "en", "zh");
    assert_eq!(found.len(), 1, "{found:?}");
    let p = found[0];
    assert_eq!(p["kind"], "parallel");
    let ((e0, e1), (z0, z1)) = sides(p, "en");
    assert!(e1 - e0 >= chars(&en) * 9 / 10, "{p}");
    let council = chars(&v1[..v1.find("当天晚上，市议会").unwrap()]);
    let after = chars(&v1[..v1.find("四月十四日黄昏").unwrap()]);
    assert!(z0 >= council && z1 <= after && z1 - z0 > 500, "{p}");
    let links = p["links"].as_array().unwrap();
    assert!(links.len() >= 20, "{}", links.len());
    // Links pair sentences that translate each other.
    let (en_side, zh_side) = if p["a_doc"] == "en" { ("a", "b") } else { ("b", "a") };
    let pairs: Vec<(String, String)> =
        links.iter().map(|l| (slice_chars(&en, span(&l[en_side])), slice_chars(&v1, span(&l[zh_side])))).collect();
    assert!(pairs.iter().any(|(e, z)| e.contains("On the third of April") && z.contains("四月三日")), "{pairs:?}");
    assert!(pairs.iter().any(|(e, z)| e.contains("fifteen to eight") && z.contains("十五票对八票")), "{pairs:?}");

    // The paragraph inside Mark: exactly its place in the host, and the
    // bombardment paragraph of v1.
    let found: Vec<&Value> = between(&passages, "host", "zh").into_iter().filter(|p| p["kind"] == "parallel").collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let ((h0, h1), (z0, z1)) = sides(found[0], "host");
    assert_eq!((h0, h1), inserted, "{}", slice_chars(&host, (h0, h1)));
    let bombardment = v1.split("\n\n").find(|x| x.starts_with("四月三日")).unwrap();
    let b0 = chars(&v1[..v1.find(bombardment).unwrap()]);
    assert!(z0 == b0 && z1 <= b0 + chars(bombardment), "{:?}", slice_chars(&v1, (z0, z1)));

    // Nothing between the unrelated texts of the two languages.
    for (x, y) in [("mark", "zh"), ("mark", "other"), ("en", "other"), ("host", "other")] {
        assert!(between(&passages, x, y).is_empty(), "{x} {y}");
    }
    // A work and its translation are one cluster.
    let clusters = jsonl(&sb, "out/clusters.jsonl");
    let p = between(&passages, "en", "zh")[0];
    let members: Vec<&str> = clusters[p["cluster"].as_u64().unwrap() as usize]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["doc"].as_str().unwrap())
        .collect();
    assert!(members.contains(&"en") && members.contains(&"zh"), "{members:?}");
    // The summary says what was compared.
    let summary: Value = serde_json::from_slice(&sb.read("out/summary.json")).unwrap();
    let stats = &summary["stats"];
    assert_eq!(stats["languages"], serde_json::json!({"en": 3, "zh": 2}));
    assert!(stats["across_sentences"].as_u64().unwrap() > 300, "{stats}");
    // Only the candidates' documents are encoded in full.
    assert!(stats["across_encoded"].as_u64().unwrap() > 0, "{stats}");
    assert!(stats["across_pairs"].as_u64().unwrap() >= 2, "{stats}");
    assert!(stats["across_candidates"].as_u64().unwrap() >= stats["across_pairs"].as_u64().unwrap());

    // The sentence pairs, as miners write them: score, English, Chinese.
    sb.run(&["export", "out", "-o", "pairs.tsv"]).success();
    let tsv = String::from_utf8(sb.read("pairs.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    let linked: usize = passages
        .iter()
        .filter(|p| p["kind"] == "parallel" && (p["a_doc"] == "zh" || p["b_doc"] == "zh"))
        .map(|p| p["links"].as_array().unwrap().len())
        .sum();
    assert_eq!(rows.len(), linked);
    assert!(rows.iter().all(|r| r.len() == 3 && r[0].parse::<f64>().is_ok()), "{tsv}");
    assert!(
        rows.iter().any(|r| r[1] == "The argument went on until midnight." && r[2] == "争论一直持续到午夜。"),
        "{tsv}"
    );
    let high = sb.run(&["export", "out", "--format", "tmx", "--min-score", "0.6"]);
    high.success();
    let tmx = high.stdout_str();
    let units = tmx.matches("<tu>").count();
    let above = rows.iter().filter(|r| r[0].parse::<f64>().unwrap() >= 0.6).count();
    assert!(units == above && units > 0 && units < rows.len(), "{units} {above}");
    assert!(
        tmx.contains("<tuv xml:lang=\"en\">") && tmx.contains("<tuv xml:lang=\"zh\">") && tmx.ends_with("</tmx>\n")
    );
}

#[test]
fn no_translations_leaves_the_languages_uncompared() {
    let sb = Sandbox::new();
    corpus(&sb);
    let run = sb.run(&["scan", "corpus", "-o", "out", "--no-translations"]);
    run.success();
    assert!(!run.stderr_lines().iter().any(|l| l.starts_with("translations:")), "{run}");
    let passages = jsonl(&sb, "out/passages.jsonl");
    // The English paragraph copied into the host is still found, as a copy.
    let copy = between(&passages, "en", "host");
    assert!(copy.len() == 1 && copy[0]["kind"] == "verbatim", "{copy:?}");
    assert!(between(&passages, "en", "zh").is_empty() && between(&passages, "host", "zh").is_empty());
    let summary: Value = serde_json::from_slice(&sb.read("out/summary.json")).unwrap();
    assert!(summary["stats"].get("languages").is_none(), "{summary}");
}

#[test]
fn a_corpus_in_one_language_is_never_encoded() {
    let sb = Sandbox::new();
    sb.write("corpus/a.txt", fixture_text("v1.txt")).write("corpus/b.txt", fixture_text("v2.txt"));
    let run = sb.run(&["scan", "corpus", "-o", "out"]);
    run.success();
    assert!(!run.stderr_lines().iter().any(|l| l.starts_with("translations:")), "{run}");
    let summary: Value = serde_json::from_slice(&sb.read("out/summary.json")).unwrap();
    let stats = &summary["stats"];
    assert!(stats.get("languages").is_none() && stats.get("across_sentences").is_none(), "{stats}");
    let docs = jsonl(&sb, "out/documents.jsonl");
    assert!(docs.iter().all(|d| d["language"] == "zh"), "{docs:?}");
    assert!(!sb.list("out").iter().any(|f| f.contains("pooled")));
}
