//! Find the duplicate documents of a corpus with the library, without
//! writing anything: which document would be removed, as a copy of which.
//!
//! ```sh
//! cargo run --release -p parallels --example dedup_corpus -- crawl.jsonl
//! cargo run --release -p parallels --example dedup_corpus -- corpus/ 'more/*.parquet'
//! ```
//!
//! The inputs are read as `parallels dedup` reads them (folders of text
//! files, JSON Lines with `id` and `text` fields, Parquet); each document's
//! [`Origin`](parallels::corpus::Origin) says where it came from.

use parallels::corpus::{resolve, CorpusOptions, CorpusReader};
use parallels::dedup::{dedup, DedupOptions, Fate};
use parallels::plumbing::Quiet;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = if args.is_empty() {
        // The bundled example: three versions of one story, none a copy.
        vec![concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples").to_owned()]
    } else {
        args
    };
    let mut reader = CorpusReader::new(resolve(&args)?, CorpusOptions::default())?;
    // Problems (malformed lines, unreadable files) are counted in
    // `result.corpus`; a `Progress` other than `Quiet` would see each one.
    let result = dedup(&mut reader, &DedupOptions::default(), &Quiet)?;
    for doc in &result.docs {
        if let Fate::Removed { reason, of, similarity } = doc.fate {
            let kept = &result.docs[of as usize];
            println!(
                "{} ({}) duplicates {} ({}): {}, similarity {similarity:.2}",
                doc.id,
                doc.origin.source,
                kept.id,
                kept.origin.source,
                reason.as_str()
            );
        }
    }
    let s = &result.stats;
    println!(
        "{} documents, {} kept, {} removed; {} skipped",
        s.documents,
        s.kept,
        s.removed_exact + s.removed_near + s.removed_empty_after_paragraphs,
        result.corpus.skipped_total()
    );
    Ok(())
}
