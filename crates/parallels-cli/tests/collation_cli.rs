//! `parallels align --format collation-json|csv|tsv|tei|tmx|bitext` end to
//! end (issue 18): the real binary on the bundled example and the fixture
//! texts, each format read back; tmx and bitext refused for other than two
//! inputs; `parallels eval` scoring a collation's implied links.

mod util;

use serde_json::Value;
use std::path::Path;
use util::Sandbox;

fn examples(sb: &Sandbox, names: &[&str]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for n in names {
        sb.write(n, std::fs::read(dir.join(n)).unwrap());
    }
}

#[test]
fn collation_json_has_every_sentence_once_whatever_the_order() {
    let sb = Sandbox::new();
    examples(&sb, &["v1.txt", "v2.txt", "v3.txt"]);
    let a = sb.run(&["align", "v3.txt", "v1.txt", "v2.txt", "--format", "collation-json"]);
    a.success();
    let b = sb.run(&["align", "v2.txt", "v3.txt", "v1.txt", "--format", "collation-json"]);
    b.success();
    let (a, b) = (a.json(), b.json());
    assert_eq!(a["schema"], "parallels.collation/1");
    assert_eq!(a["guide"], b["guide"], "the guide order depends on the argument order");
    // Rows as id → sentences, in both runs the same.
    let rows = |v: &Value| -> Vec<std::collections::BTreeMap<String, Value>> {
        let ids: Vec<String> =
            v["witnesses"].as_array().unwrap().iter().map(|w| w["id"].as_str().unwrap().into()).collect();
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                ids.iter()
                    .zip(r["cells"].as_array().unwrap())
                    .map(|(id, c)| (id.clone(), c.get("sentences").cloned().unwrap_or(Value::Null)))
                    .collect()
            })
            .collect()
    };
    assert_eq!(rows(&a), rows(&b));
    // Every sentence once: each column's runs tile 0..sentences.
    for (k, w) in a["witnesses"].as_array().unwrap().iter().enumerate() {
        let mut next = 0;
        for r in a["rows"].as_array().unwrap() {
            if let Some(s) = r["cells"][k].get("sentences") {
                assert_eq!(s[0].as_u64().unwrap(), next, "{}", w["id"]);
                next = s[1].as_u64().unwrap();
            }
        }
        assert_eq!(next, w["sentences"].as_u64().unwrap());
    }
}

#[test]
fn csv_tsv_and_tei_are_written() {
    let sb = Sandbox::new();
    examples(&sb, &["v1.txt", "v2.txt", "v3.txt"]);
    let files = ["align", "v1.txt", "v2.txt", "v3.txt", "--format"];
    let json = sb.run(&[&files[..], &["collation-json"]].concat()).json();
    let rows = json["rows"].as_array().unwrap().len();
    for (format, delimiter) in [("csv", b','), ("tsv", b'\t')] {
        let run = sb.run(&[&files[..], &[format, "-o", "t.out"]].concat());
        run.success();
        let bytes = sb.read("t.out");
        let mut r = csv::ReaderBuilder::new().delimiter(delimiter).from_reader(bytes.as_slice());
        assert_eq!(r.headers().unwrap().iter().collect::<Vec<_>>(), ["v1", "v2", "v3"]);
        let records: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(records.len(), rows, "{format}: one record per row");
        // Each field is the row's text: a gap empty, a cell covering
        // several rows written in every one of them.
        let mut above = [String::new(), String::new(), String::new()];
        let mut continued = 0;
        for (k, (rec, row)) in records.iter().zip(json["rows"].as_array().unwrap()).enumerate() {
            for w in 0..3 {
                let cell = &row["cells"][w];
                if cell["continued"] == true {
                    continued += 1;
                } else {
                    above[w] = cell["text"].as_str().unwrap_or("").to_string();
                }
                assert_eq!(&rec[w], above[w], "{format}: row {k}, witness {w}");
            }
        }
        assert!(continued > 0, "no cell covers several rows: the check checked nothing");
    }
    let run = sb.run(&[&files[..], &["tei"]].concat());
    run.success();
    assert!(run.stdout_str().contains("<variantEncoding method=\"parallel-segmentation\""));
    // One app per block of rows (rows joined by a cell spanning them).
    let blocks = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["cells"].as_array().unwrap().iter().any(|c| c["continued"] == true))
        .count();
    assert_eq!(run.stdout_str().matches("<app ").count(), blocks);
}

#[test]
fn tmx_and_bitext_take_exactly_two_texts() {
    let sb = Sandbox::new();
    examples(&sb, &["v1.txt", "v2.txt", "v3.txt"]);
    for format in ["tmx", "bitext"] {
        let run = sb.run(&["align", "v1.txt", "v2.txt", "v3.txt", "--format", format, "-o", "x.out"]);
        run.code(2).no_panic();
        assert!(run.stderr.contains("exactly two texts") && run.stderr.contains("3 were given"), "{run}");
        assert!(!sb.path().join("x.out").exists(), "{format}: an output was written");
    }
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--format", "tmx", "--lang", "zh-Hans,zh-Hans"]);
    run.success();
    assert!(run.stdout_str().contains("<tmx version=\"1.4\">") && run.stdout_str().contains("srclang=\"zh-Hans\""));
    let bitext = sb.run(&["align", "v1.txt", "v2.txt", "--format", "bitext"]);
    bitext.success();
    assert_eq!(bitext.stdout_str().lines().count(), run.stdout_str().matches("<tu>").count());
}

#[test]
fn eval_scores_the_links_a_collation_implies() {
    let sb = Sandbox::new();
    examples(&sb, &["v1.txt", "v2.txt", "v3.txt"]);
    sb.run(&["align", "v1.txt", "v2.txt", "v3.txt", "--format", "collation-json", "-o", "c.json"]).success();
    sb.run(&["align", "v1.txt", "v2.txt", "v3.txt", "--format", "json", "-o", "a.json"]).success();
    // The pairwise alignment as gold: the collation keeps most of it.
    let a: Value = serde_json::from_slice(&sb.read("a.json")).unwrap();
    let mut pairs = serde_json::Map::new();
    for p in a["pairs"].as_array().unwrap() {
        let links: Vec<Value> =
            p["passages"].as_array().unwrap().iter().flat_map(|q| q["links"].as_array().unwrap().clone()).collect();
        pairs.insert(format!("{}-{}", p["a"].as_str().unwrap(), p["b"].as_str().unwrap()), Value::Array(links));
    }
    sb.write("gold.json", serde_json::to_vec(&serde_json::json!({ "pairs": pairs })).unwrap());
    let run = sb.run(&["eval", "--gold", "gold.json", "c.json"]);
    run.success();
    let total = run.stdout_str().lines().find(|l| l.starts_with("ALL")).unwrap_or_else(|| panic!("{run}"));
    // gold, pred, then link P, R, F1.
    let numbers: Vec<f64> = total.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert!(numbers[2..5].iter().all(|&x| x >= 0.9), "{run}");
}
