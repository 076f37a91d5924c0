//! Encode sentences with the library's multilingual sentence encoder and
//! show, for each, its nearest neighbour among the others.
//!
//! ```sh
//! cargo run --release -p parallels --example similar_sentences -- lines.txt
//! cargo run --release -p parallels --example similar_sentences   # a few built-in sentences
//! ```
//!
//! One sentence per line (empty lines skipped). Sentences in different
//! languages with one meaning land close together. With `--time`, only the
//! encoding speed is printed (what `bench/bench_encoder.sh` reads).

use std::time::Instant;

use parallels::encoder::{dot, Encoder};

const BUILT_IN: &[&str] = &[
    "城墙修建于一五六〇年代，共有七座棱堡。",
    "The city walls were built in the 1560s and had seven bastions.",
    "码头上常年停泊着来自荷兰和丹麦的商船。",
    "Ships from Holland and Denmark lay at the quay all year round.",
    "水手们！",
    "伙计们！",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let time_only = args.iter().any(|a| a == "--time");
    args.retain(|a| a != "--time");
    let text = match args.first() {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?,
        None => BUILT_IN.join("\n"),
    };
    let sentences: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();

    let start = Instant::now();
    let encoder = Encoder::shared();
    let loaded = start.elapsed();
    let start = Instant::now();
    let vectors = encoder.encode(&sentences);
    let took = start.elapsed().as_secs_f64();
    let tokens: usize = sentences.iter().map(|s| encoder.tokens(s).len()).sum();
    eprintln!(
        "{} sentences ({tokens} tokens) in {took:.3} s: {:.0} sentences/s, {:.0} tokens/s; model loaded in {:.3} s",
        sentences.len(),
        sentences.len() as f64 / took,
        tokens as f64 / took,
        loaded.as_secs_f64()
    );
    if time_only {
        return Ok(());
    }
    for (i, s) in sentences.iter().enumerate() {
        let best = (0..sentences.len())
            .filter(|&j| j != i)
            .max_by(|&x, &y| dot(vectors.row(i), vectors.row(x)).total_cmp(&dot(vectors.row(i), vectors.row(y))));
        if let Some(j) = best {
            println!("{s}\n    → {} ({:.3})", sentences[j], vectors.cosine(i, j));
        }
    }
    Ok(())
}
