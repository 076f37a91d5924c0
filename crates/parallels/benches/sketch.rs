//! Per-document cost of `dedup`'s sketch stage, stage by stage, on the
//! bundled Chinese example texts (`examples/v*.txt`, 29 KB):
//!
//! ```text
//! cargo bench -p parallels --bench sketch
//! ```
//!
//! Throughput is in bytes of UTF-8 input; BENCHMARKS.md records the figures.

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

criterion_group!(benches, stages);
criterion_main!(benches);
