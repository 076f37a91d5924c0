//! Per-document cost of `dedup`'s sketch stage, stage by stage, on the
//! bundled Chinese example texts (`examples/v*.txt`, 29 KB):
//!
//! ```text
//! cargo bench -p parallels --bench sketch
//! ```
//!
//! Throughput is in bytes of UTF-8 input; BENCHMARKS.md records the figures.
//!
//! With `SKETCH_CORPUS` naming a JSON Lines file (the 30M corpus of
//! `bench/gen_dedup.py`, say), the normalizer is also timed on the first
//! 6,000 texts of that file, and on the same texts with parts taken out or
//! put in, so that each kind of character shows its cost (BENCHMARKS.md,
//! issue 37):
//!
//! ```text
//! SKETCH_CORPUS=bench/data/dedup-30M-s1/docs.jsonl cargo bench -p parallels --bench sketch -- corpus
//! ```

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parallels::dedup::MinHasher;
use parallels::normalize::{NormalizeOptions, Normalizer};
use parallels::segment::segment;
use std::hint::black_box;

fn text() -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    ["v1.txt", "v2.txt", "v3.txt"]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{root}/{f}")).expect("examples/ holds the bundled texts"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn stages(c: &mut Criterion) {
    let text = text();
    let normalizer = Normalizer::new(NormalizeOptions::default());
    let hasher = MinHasher::new(5, 128);
    let normalized = normalizer.normalize(&text);
    let tokens = hasher.tokens(&text);

    let mut g = c.benchmark_group("sketch");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("normalize", |b| b.iter(|| normalizer.normalize(black_box(&text))));
    g.bench_function("segment", |b| b.iter(|| segment(black_box(&normalized))));
    g.bench_function("tokens", |b| b.iter(|| hasher.tokens(black_box(&text))));
    g.bench_function("signature", |b| b.iter(|| hasher.sketch_tokens(black_box(&tokens))));
    g.bench_function("all", |b| b.iter(|| hasher.sketch(black_box(&text))));
    g.finish();
}

/// A Chinese numeral, Arabic digit (either width) or the footnote
/// character 注: what the variants of [`corpus`] take out.
fn numeral_like(c: char) -> bool {
    "一二三四五六七八九十百千万亿两零注".contains(c) || c.is_ascii_digit() || ('０'..='９').contains(&c)
}

fn corpus(c: &mut Criterion) {
    let Some(path) = std::env::var_os("SKETCH_CORPUS") else {
        return;
    };
    let texts: Vec<String> = std::fs::read_to_string(&path)
        .expect("SKETCH_CORPUS names a readable JSON Lines file")
        .lines()
        .take(6000)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v["text"].as_str().expect("a text field").to_string()
        })
        .collect();
    let han = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
    let keep = |f: &dyn Fn(char) -> bool| -> Vec<String> {
        texts.iter().map(|t| t.chars().filter(|&c| f(c)).collect()).collect()
    };
    let han_only = keep(&|c| han(c) && !numeral_like(c));
    let every_8th = |x: char| -> Vec<String> {
        han_only
            .iter()
            .map(|t| t.chars().enumerate().flat_map(|(i, c)| if i % 7 == 6 { vec![c, x] } else { vec![c] }).collect())
            .collect()
    };
    let variants: Vec<(&str, Vec<String>)> = vec![
        ("as it is", texts.clone()),
        ("Han only", han_only.clone()),
        ("Han and line breaks", keep(&|c| (han(c) && !numeral_like(c)) || c == '\n')),
        ("no line breaks", keep(&|c| c != '\n')),
        ("no numerals", keep(&|c| !numeral_like(c))),
        ("Han, a comma every 8th", every_8th('，')),
        ("Han, a quotation mark every 8th", every_8th('“')),
        ("Han, a full-width digit every 8th", every_8th('１')),
    ];
    let normalizer = Normalizer::new(NormalizeOptions::default());
    let mut g = c.benchmark_group("corpus");
    g.sample_size(10);
    for (name, set) in &variants {
        // Elements are characters: the report's rate is characters per second.
        g.throughput(Throughput::Elements(set.iter().map(|t| t.chars().count() as u64).sum()));
        g.bench_function(*name, |b| {
            b.iter(|| set.iter().map(|t| normalizer.normalize(black_box(t)).chars.len()).sum::<usize>())
        });
    }
    g.finish();
}

criterion_group!(benches, stages, corpus);
criterion_main!(benches);
