//! The parallel-version aligner on a real pair: Genesis 37–50 in two
//! Chinese translations (the shared zh-bible corpus, read in place; about
//! 16,000 characters and 1,000 sentences a side).
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo bench -p parallels --bench align_dp
//! ```
//!
//! Three measures, each on the texts prepared once outside the loop:
//!
//! - `sentence_dp`: the banded sentence DP with gap completion
//!   ([`parallels::align::align_sentences`]) on sentence vectors
//!   built beforehand: the DP alone;
//! - `vectors_and_dp`: the same with the pair's feature vectors built in
//!   the loop (document frequencies from the two texts);
//! - `align_pair` / `align_pair_meaning`: the whole pair as the CLI aligns
//!   it (verbatim seeds, the DP, passages and links), without and with the
//!   sentence encoder.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parallels::align::features::vectors;
use parallels::align::{align_sentences, ParallelParams};
use parallels::{Aligner, Options};
use std::hint::black_box;

fn read(name: &str) -> String {
    let path = format!("{}/../../../shared/corpus/zh-bible/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (the shared corpus sits beside the project)"))
}

fn align_dp(c: &mut Criterion) {
    let (a_text, b_text) = (read("genesis37-50_cuv.txt"), read("genesis37-50_ncv.txt"));
    let lexical = Aligner::new(Options { meaning: false, ..Options::default() });
    let (a, b) = (lexical.prepare(&a_text), lexical.prepare(&b_text));
    let (va, vb, _) = vectors(&a.seg, &b.seg, None);
    let params = ParallelParams::default();

    let mut g = c.benchmark_group("align_dp");
    g.sample_size(10);
    g.throughput(Throughput::Elements((a.seg.sentences.len() + b.seg.sentences.len()) as u64));
    g.bench_function("sentence_dp", |bench| bench.iter(|| align_sentences(black_box(&va), black_box(&vb), &params)));
    g.bench_function("vectors_and_dp", |bench| {
        bench.iter(|| {
            let (va, vb, _) = vectors(black_box(&a.seg), black_box(&b.seg), None);
            align_sentences(&va, &vb, &params)
        })
    });
    g.bench_function("align_pair", |bench| bench.iter(|| lexical.align(black_box(&a), black_box(&b))));
    let meaning = Aligner::new(Options::default());
    let (am, bm) = (meaning.prepare(&a_text), meaning.prepare(&b_text));
    g.bench_function("align_pair_meaning", |bench| bench.iter(|| meaning.align(black_box(&am), black_box(&bm))));
    g.finish();
}

criterion_group!(benches, align_dp);
criterion_main!(benches);
