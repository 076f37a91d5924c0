//! Align two texts with the library and print what they share.
//!
//! ```sh
//! cargo run -p parallels --example align_two -- a.txt b.txt
//! cargo run -p parallels --example align_two        # the bundled examples/v1.txt and v2.txt
//! ```
//!
//! Files are decoded as `parallels align` decodes them (UTF-8, UTF-16 with
//! a BOM, GB18030, Big5); every span is a half-open range of code points
//! into the decoded text, so slicing by characters shows the passage.

use std::path::{Path, PathBuf};

use parallels::read::read_document;
use parallels::{Aligner, Options, PassageKind, Span};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let (a, b) = match args.as_slice() {
        [a, b] => (a.clone(), b.clone()),
        [] => (bundled.join("v1.txt"), bundled.join("v2.txt")),
        _ => return Err("give two text files, or none for the bundled example".into()),
    };
    let (a, b) = (read_document(&a)?, read_document(&b)?);

    // One aligner for any number of pairs: it holds the normalizer's tables.
    let aligner = Aligner::new(Options::default());
    let passages = aligner.align_texts(&a.text, &b.text);
    println!("{} and {}: {} passage(s)", a.path.display(), b.path.display(), passages.len());
    for p in &passages {
        let kind = match p.kind {
            PassageKind::Verbatim => "verbatim",
            PassageKind::Parallel => "parallel",
        };
        println!("\n{kind} {:?} ~ {:?}, score {:.2}, {} link(s)", p.a, p.b, p.score, p.links.len());
        println!("  a: {}", excerpt(&a.text, p.a));
        println!("  b: {}", excerpt(&b.text, p.b));
    }
    Ok(())
}

/// The first 40 characters of `span`.
fn excerpt(text: &str, span: Span) -> String {
    let [start, end] = span;
    let part: String = text.chars().skip(start as usize).take((end - start).min(40) as usize).collect();
    part.replace('\n', " ")
}
