//! The sentence encoder against the Python package it was ported from:
//! same token ids and the same vectors (cosine ≥ 0.999) on 545 sentences
//! in Chinese, English and a dozen awkward strings of other scripts
//! (`tools/use_model/reference.py` made the fixture; the dev corpora are
//! read in place from `../shared`, the fixture holds only byte ranges).

use std::path::PathBuf;

use parallels::encoder::{dot, Encoder, DIM};
use serde_json::Value;

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::new();
    for group in digits.chunks(4) {
        let mut bits = 0u32;
        for (i, &d) in group.iter().enumerate() {
            bits |= (d as u32) << (18 - 6 * i);
        }
        out.extend(&bits.to_be_bytes()[1..group.len()]);
    }
    out
}

struct Reference {
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn references() -> Vec<Reference> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fixture = std::fs::read_to_string(manifest.join("tests/fixtures/use_reference.json")).unwrap();
    let fixture: Value = serde_json::from_str(&fixture).unwrap();
    let repo = manifest.join("../..");
    fixture["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let text = match item["text"].as_str() {
                Some(text) => text.to_string(),
                None => {
                    let file = item["file"].as_str().unwrap();
                    let path = match file.strip_prefix("shared:") {
                        Some(rest) => repo.join("../shared").join(rest),
                        None => repo.join(file),
                    };
                    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let range = item["start"].as_u64().unwrap() as usize..item["end"].as_u64().unwrap() as usize;
                    String::from_utf8(bytes[range].to_vec()).unwrap()
                }
            };
            let ids = item["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
            let vector = base64(item["vector"].as_str().unwrap())
                .chunks_exact(2)
                .map(|b| i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0)
                .collect();
            Reference { text, ids, vector }
        })
        .collect()
}

#[test]
fn tokens_and_vectors_match_the_python_package() {
    let references = references();
    assert!(references.len() >= 500);
    let chinese = references.iter().filter(|r| r.text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))).count();
    let english =
        references.iter().filter(|r| r.text.trim_start().starts_with(|c: char| c.is_ascii_uppercase())).count();
    assert!(chinese >= 200 && english >= 200, "{chinese} Chinese, {english} English");

    let encoder = Encoder::shared();
    for r in &references {
        assert_eq!(encoder.tokens(&r.text), r.ids, "token ids of {:?}", r.text);
    }
    let texts: Vec<&str> = references.iter().map(|r| r.text.as_str()).collect();
    let vectors = encoder.encode(&texts);
    assert_eq!(vectors.len(), references.len());
    let mut worst = (1.0f32, "");
    for (r, v) in references.iter().zip(vectors.rows()) {
        assert_eq!(v.len(), DIM);
        let cosine = dot(v, &r.vector) / dot(&r.vector, &r.vector).sqrt();
        if cosine < worst.0 {
            worst = (cosine, &r.text);
        }
    }
    println!("lowest cosine to the Python package's vectors: {:.6} ({:?})", worst.0, worst.1);
    assert!(worst.0 >= 0.999, "cosine {} for {:?}", worst.0, worst.1);
}

#[test]
fn one_text_alone_is_encoded_as_in_a_batch() {
    // Batches lay sentences end to end; no token may see its neighbour's.
    let encoder = Encoder::shared();
    let texts = ["他们在码头上等了三天。", "The ship sailed at dawn.", "三日後，船終於靠岸。"];
    let together = encoder.encode(&texts);
    for (i, text) in texts.iter().enumerate() {
        let alone = encoder.encode(&[text]);
        assert!(dot(alone.row(0), together.row(i)) > 0.99999, "{text}");
    }
}

#[test]
fn a_long_call_encodes_each_text_as_alone() {
    // Enough text for several batches: ids found in more than one batch
    // are computed once for the whole call and shared by the batches.
    let encoder = Encoder::shared();
    let references = references();
    let texts: Vec<&str> = references.iter().map(|r| r.text.as_str()).collect();
    let tokens: usize = texts.iter().map(|t| encoder.tokens(t).len()).sum();
    assert!(tokens > 3 * 2048, "{tokens} tokens");
    let together = encoder.encode(&texts);
    for i in (0..texts.len()).step_by(37) {
        let alone = encoder.encode(&[texts[i]]);
        assert!(dot(alone.row(0), together.row(i)) > 0.99999, "{}", texts[i]);
    }
}

#[test]
fn a_text_repeated_over_many_batches_is_encoded_as_alone() {
    // Every id of every batch is found in other batches too: no batch
    // computes an id of its own.
    let encoder = Encoder::shared();
    let text = "他们在码头上等了三天，船终于靠岸。";
    let texts = vec![text; 2000];
    let together = encoder.encode(&texts);
    let alone = encoder.encode(&[text]);
    for row in together.rows() {
        assert!(dot(alone.row(0), row) > 0.99999);
    }
}

#[test]
fn translations_are_closer_than_neighbours() {
    let encoder = Encoder::shared();
    let v = encoder.encode(&[
        "城墙修建于一五六〇年代，共有七座棱堡。",
        "The city walls were built in the 1560s and had seven bastions.",
        "码头上常年停泊着来自荷兰和丹麦的商船。",
        "Ships from Holland and Denmark lay at the quay all year round.",
    ]);
    assert!(v.cosine(0, 1) > v.cosine(0, 3) + 0.1, "{} vs {}", v.cosine(0, 1), v.cosine(0, 3));
    assert!(v.cosine(2, 3) > v.cosine(2, 1) + 0.1, "{} vs {}", v.cosine(2, 3), v.cosine(2, 1));
}

#[test]
fn empty_and_huge_inputs_give_unit_vectors() {
    let encoder = Encoder::shared();
    let long = "很长的句子".repeat(2000);
    let v = encoder.encode(&["", "   ", &long, "\u{0}\u{feff}"]);
    for row in v.rows() {
        assert!((dot(row, row) - 1.0).abs() < 1e-3);
    }
    assert!(encoder.tokens(&long).len() <= 1024);
}
