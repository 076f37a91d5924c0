//! `parallels query` across languages (issue 45): an index keeps each
//! segment's sentence vectors, so that an English text finds its Chinese
//! original. The texts are the bundled example (`examples/v1.txt`,
//! Chinese, and `examples/v1.en.txt`, an English rendering of three of its
//! paragraphs), `v4.txt` (a Chinese text on another siege) and Mark in the
//! King James Version (`eval/en-bible`), which has nothing to do with them.

mod util;

use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use util::{fixture_text, slice_chars, span, Sandbox};

fn repo_text(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn chars(s: &str) -> u64 {
    s.chars().count() as u64
}

fn cut(s: &str, from: usize, to: usize) -> String {
    s.chars().skip(from).take(to - from).collect()
}

/// The library: `zh` (v1), `other` (v4), `mark` (Mark 6–8 in English);
/// and the texts asked: `v1.en.txt` and `mark1.txt` (Mark 1, English,
/// nothing to do with the Chinese). Returns v1 and the English text.
fn library(sb: &Sandbox) -> (String, String) {
    let v1 = repo_text("examples/v1.txt");
    let en = repo_text("examples/v1.en.txt");
    let mark = repo_text("eval/en-bible/mark_kjv.txt");
    sb.write("lib/zh.txt", &v1)
        .write("lib/other.txt", fixture_text("v4.txt"))
        .write("lib/mark.txt", cut(&mark, 20000, 30000))
        .write("v1.en.txt", &en)
        .write("mark1.txt", cut(&mark, 0, 6000));
    (v1, en)
}

/// `query … --format json` of one text.
fn ask(sb: &Sandbox, index: &str, text: &str) -> Value {
    let run = sb.run(&["query", text, "--index", index, "--format", "json"]);
    run.success();
    run.json()
}

/// The pairs of an answer with library document `id`.
fn with<'a>(out: &'a Value, id: &str) -> Vec<&'a Value> {
    out["pairs"].as_array().unwrap().iter().filter(|p| p["b"] == id).collect()
}

/// The English text against v1: one parallel passage over nearly all of
/// the English, inside paragraphs 3–5 of v1 (the council, the
/// preparations, the bombardment), its links pairing sentences that
/// translate each other.
fn check_original(out: &Value, v1: &str, en: &str) {
    let found = with(out, "zh");
    assert_eq!(found.len(), 1, "{out}");
    let passages = found[0]["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 1, "{passages:?}");
    let p = &passages[0];
    assert_eq!(p["kind"], "parallel");
    let ((e0, e1), (z0, z1)) = (span(&p["a"]), span(&p["b"]));
    assert!(e1 - e0 >= chars(en) * 9 / 10 && e1 <= chars(en), "{p}");
    let council = chars(&v1[..v1.find("当天晚上，市议会").unwrap()]);
    let after = chars(&v1[..v1.find("四月十四日黄昏").unwrap()]);
    assert!(z0 >= council && z1 <= after && z1 - z0 > 500, "{p}");
    let pairs: Vec<(String, String)> = p["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (slice_chars(en, span(&l["a"])), slice_chars(v1, span(&l["b"]))))
        .collect();
    assert!(pairs.len() >= 20, "{}", pairs.len());
    assert!(pairs.iter().any(|(e, z)| e.contains("On the third of April") && z.contains("四月三日")), "{pairs:?}");
    assert!(pairs.iter().any(|(e, z)| e.contains("fifteen to eight") && z.contains("十五票对八票")), "{pairs:?}");
    // Both sides' spans are the texts' own: the English starts where a
    // sentence starts, the Chinese where one of v1's does.
    assert!(slice_chars(en, (e0, e1)).starts_with("That evening") || e0 < 40, "{}", slice_chars(en, (e0, e1)));
    assert!(slice_chars(v1, (z0, z1)).starts_with("当天晚上"), "{}", slice_chars(v1, (z0, z1)));
}

#[test]
fn an_english_rendering_finds_its_chinese_original_and_an_unrelated_text_nothing() {
    let sb = Sandbox::new();
    let (v1, en) = library(&sb);
    // Two languages: the vectors are kept without being asked.
    let run = sb.run(&["index", "build", "lib", "--index", "lib.idx"]);
    run.success();
    assert!(run.stderr_lines().iter().any(|l| l.starts_with("translations: ") && l.contains("(1 en, 2 zh)")), "{run}");
    assert!(sb.list("lib.idx/seg.000001").contains(&"vectors.bin".to_string()));
    let manifest: Value = serde_json::from_slice(&sb.read("lib.idx/manifest.json")).unwrap();
    assert_eq!(manifest["options"]["translations"], "on");
    let docs = String::from_utf8(sb.read("lib.idx/seg.000001/docs.jsonl")).unwrap();
    assert!(docs.contains("\"language\":\"zh\"") && docs.contains("\"language\":\"en\""), "{docs}");

    let out = ask(&sb, "lib.idx", "v1.en.txt");
    check_original(&out, &v1, &en);
    assert!(with(&out, "other").is_empty() && with(&out, "mark").is_empty(), "{out}");
    // The text view shows the pair too.
    let text = sb.run(&["query", "v1.en.txt", "--index", "lib.idx", "--summary"]);
    text.success();
    assert!(text.stdout_str().contains("v1.en ↔ zh"), "{text}");

    // Mark 1 has no counterpart in Chinese: no Chinese document is a hit
    // (Mark 6–8, in English, may share its formulas).
    let out = ask(&sb, "lib.idx", "mark1.txt");
    assert!(with(&out, "zh").is_empty() && with(&out, "other").is_empty(), "{out}");

    // A library document asked against the rest: v1 has no English
    // counterpart in the library.
    let run = sb.run(&["query", "--doc", "zh", "--index", "lib.idx", "--format", "json"]);
    run.success();
    assert!(with(&run.json(), "mark").is_empty(), "{run}");
}

#[test]
fn an_add_in_a_second_language_is_asked_at_once() {
    let sb = Sandbox::new();
    let (v1, en) = library(&sb);
    std::fs::remove_file(sb.path().join("lib/zh.txt")).unwrap();
    sb.run(&["index", "build", "lib", "--index", "lib.idx"]).success();
    assert_eq!(with(&ask(&sb, "lib.idx", "v1.en.txt"), "zh").len(), 0);
    let before = sb.read("lib.idx/seg.000001/vectors.bin");
    sb.write("more/zh.txt", &v1);
    let run = sb.run(&["index", "add", "more", "--index", "lib.idx"]);
    run.success();
    assert!(run.stderr_lines().iter().any(|l| l.starts_with("translations: ") && l.contains("(1 zh)")), "{run}");
    // Only the new segment's vectors were written.
    assert_eq!(sb.read("lib.idx/seg.000001/vectors.bin"), before);
    assert!(sb.list("lib.idx/seg.000002").contains(&"vectors.bin".to_string()));
    check_original(&ask(&sb, "lib.idx", "v1.en.txt"), &v1, &en);
}

#[test]
fn a_library_in_one_language_keeps_vectors_only_when_asked() {
    let sb = Sandbox::new();
    let (v1, en) = library(&sb);
    std::fs::remove_file(sb.path().join("lib/mark.txt")).unwrap();
    // Chinese only: no vectors by default, and the English finds nothing.
    let run = sb.run(&["index", "build", "lib", "--index", "plain.idx"]);
    run.success();
    assert!(!run.stderr_lines().iter().any(|l| l.starts_with("translations:")), "{run}");
    assert!(!sb.list("plain.idx/seg.000001").contains(&"vectors.bin".to_string()));
    let manifest: Value = serde_json::from_slice(&sb.read("plain.idx/manifest.json")).unwrap();
    assert!(manifest["options"].get("translations").is_none(), "{manifest}");
    assert!(with(&ask(&sb, "plain.idx", "v1.en.txt"), "zh").is_empty());
    // `--translations`: a Chinese library English texts will ask.
    sb.run(&["index", "build", "lib", "--index", "lib.idx", "--translations"]).success();
    check_original(&ask(&sb, "lib.idx", "v1.en.txt"), &v1, &en);
    // A Chinese text asks as before: the same hits, byte for byte, as the
    // index without vectors.
    for idx in ["plain.idx", "lib.idx"] {
        sb.run(&["query", "lib/zh.txt", "--index", idx, "--format", "json", "-o", &format!("{idx}.json")]).success();
    }
    assert_eq!(sb.read("plain.idx.json"), sb.read("lib.idx.json"));
}

#[test]
fn no_translations_keeps_no_vectors_and_the_lexical_index_is_unchanged() {
    let sb = Sandbox::new();
    library(&sb);
    sb.run(&["index", "build", "lib", "--index", "lib.idx", "--no-translations"]).success();
    sb.run(&["index", "build", "lib", "--index", "both.idx"]).success();
    assert!(!sb.list("lib.idx/seg.000001").contains(&"vectors.bin".to_string()));
    let manifest: Value = serde_json::from_slice(&sb.read("lib.idx/manifest.json")).unwrap();
    assert!(manifest["options"].get("translations").is_none(), "{manifest}");
    assert!(with(&ask(&sb, "lib.idx", "v1.en.txt"), "zh").is_empty());
    // The lexical part is the same with vectors or without.
    for f in ["postings.bin", "postings.idx", "texts.zst", "docs.jsonl"] {
        assert_eq!(sb.read(&format!("lib.idx/seg.000001/{f}")), sb.read(&format!("both.idx/seg.000001/{f}")), "{f}");
    }
    // `add` follows the index's choice.
    sb.write("more/en.txt", repo_text("examples/v1.en.txt"));
    let run = sb.run(&["index", "add", "more", "--index", "lib.idx"]);
    run.success();
    assert!(!run.stderr_lines().iter().any(|l| l.starts_with("translations:")), "{run}");
    assert!(!sb.list("lib.idx/seg.000002").contains(&"vectors.bin".to_string()));
}

#[test]
fn a_damaged_vectors_file_is_an_error_naming_it() {
    let sb = Sandbox::new();
    library(&sb);
    sb.run(&["index", "build", "lib", "--index", "lib.idx", "--df-bits", "16"]).success();
    let path = "lib.idx/seg.000001/vectors.bin";
    let good = sb.read(path);
    let mut bad = good.clone();
    bad[1000] ^= 0x10;
    for (what, bytes) in [("checksum", bad), ("bytes where", good[..good.len() - 100].to_vec())] {
        sb.write(path, &bytes);
        for args in
            [vec!["query", "v1.en.txt", "--index", "lib.idx"], vec!["index", "add", "mark1.txt", "--index", "lib.idx"]]
        {
            let run = sb.run(&args);
            run.code(2).no_panic();
            let err = run.stderr_lines().join("\n");
            assert!(err.contains("index damaged at") && err.contains("vectors.bin") && err.contains(what), "{run}");
        }
    }
    sb.write(path, &good);
    sb.run(&["query", "v1.en.txt", "--index", "lib.idx"]).success();
}

#[test]
fn serve_shows_a_hit_across_languages_with_both_sides() {
    let sb = Sandbox::new();
    let (v1, en) = library(&sb);
    sb.run(&["index", "build", "lib", "--index", "lib.idx"]).success();
    let server = util::Server::start(&sb, "lib.idx", &[]);
    let (status, _, info) = server.get("/api/info");
    let info: Value = serde_json::from_slice(&info).unwrap();
    assert_eq!(status, 200);
    let langs: Vec<&str> = info["languages"].as_array().unwrap().iter().map(|l| l[0].as_str().unwrap()).collect();
    assert_eq!((langs, &info["options"]["translations"]), (vec!["en", "zh"], &Value::from("on")), "{info}");
    let body = serde_json::json!({ "text": en }).to_string();
    let mut s = std::net::TcpStream::connect(&server.addr).unwrap();
    write!(
        s,
        "POST /api/query HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let at = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let answer: Value =
        serde_json::from_slice(&out[at..]).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out)));
    let hits = answer["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{answer}");
    let h = &hits[0];
    assert_eq!((h["id"].as_str(), h["language"].as_str(), h["across"].as_bool()), (Some("zh"), Some("zh"), Some(true)));
    assert_eq!(answer["language"], "en");
    // The library side of each passage, as the page shows it.
    let excerpt = h["excerpts"][0]["b"].as_str().unwrap();
    assert!(excerpt.starts_with("当天晚上") && v1.contains(excerpt.trim_end_matches('…')), "{excerpt}");
    assert!(en.contains(h["excerpts"][0]["a"].as_str().unwrap().trim_end_matches('…')));
    let pair = &answer["align"]["pairs"][0];
    assert_eq!((pair["a"].as_str(), pair["b"].as_str()), (Some("query"), Some("zh")));
    check_original(&serde_json::json!({ "pairs": [pair] }), &v1, &en);
}
