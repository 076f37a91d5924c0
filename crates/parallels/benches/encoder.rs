//! Sentences per second of the sentence encoder, on the bundled Chinese
//! example (`examples/v*.txt`, its sentences as `align` cuts them) and on
//! English sentences of the shared en-bible corpus (read in place):
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo bench -p parallels --bench encoder
//! ```
//!
//! With one rayon thread this is one core; BENCHMARKS.md records the
//! figures next to the Python package's (`bench/bench_encoder.sh`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parallels::encoder::Encoder;
use parallels::{Aligner, Options};
use std::hint::black_box;

fn sentences(files: &[&str]) -> Vec<String> {
    let aligner = Aligner::new(Options::default());
    let mut out = Vec::new();
    for file in files {
        let path = format!("{}/../../{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let chars: Vec<char> = text.chars().collect();
        let segmented = aligner.prepare(&text).seg;
        out.extend(
            segmented.sentences.iter().map(|s| chars[s.start as usize..s.end as usize].iter().collect::<String>()),
        );
    }
    out
}

fn encode(c: &mut Criterion) {
    let encoder = Encoder::shared();
    let chinese = sentences(&["examples/v1.txt", "examples/v2.txt", "examples/v3.txt"]);
    let english = sentences(&["../shared/corpus/en-bible/mark_kjv.txt"]);
    let mut g = c.benchmark_group("encoder");
    g.sample_size(10);
    for (name, texts) in [("chinese", &chinese), ("english", &english)] {
        g.throughput(Throughput::Elements(texts.len() as u64));
        g.bench_function(name, |b| b.iter(|| encoder.encode(black_box(texts))));
    }
    g.finish();
}

criterion_group!(benches, encode);
criterion_main!(benches);
