//! The `parallels` command: flag definitions, glue, messages and exit codes.
//! All the work happens in the `parallels` library. Every command has a
//! file of its own (`align.rs`, `eval.rs`, `scan.rs`, …), and what they
//! share is in `common.rs`, `args.rs`, `progress.rs` and `stdin.rs`, which
//! import no command file.

mod align;
mod args;
mod common;
mod dedup;
mod eval;
mod export;
mod generate;
mod index;
mod progress;
mod query;
mod report;
mod scan;
mod serve;
mod stdin;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

// Many threads allocate small token and shingle vectors at once; glibc's
// allocator serialized them on its arena locks (BENCHMARKS.md, dedup).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Find and align the passages texts share: copies, quotations, and parallel
/// versions (translations, paraphrases, abridgements). CJK-first.
#[derive(Parser, Debug)]
#[command(name = "parallels", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Threads to run on (at least 1); by default one per core, or
    /// RAYON_NUM_THREADS. Outputs do not depend on it.
    #[arg(short = 'j', long, global = true, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    threads: Option<usize>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Align every pair of the given texts and show what they share.
    ///
    /// Each pair of inputs is compared; passages are either `verbatim` (one
    /// text copies the other, maybe with noise, another script or other
    /// punctuation) or `parallel` (two renderings of one source, linked
    /// sentence by sentence). Pairs that share nothing are left out.
    /// From the pairs, one table of all texts is built (the HTML report's
    /// "All versions", and --format collation-json, csv, tsv, tei): every
    /// sentence of every text once, in its own order, moved material marked.
    /// Where wording differs, meaning (a multilingual sentence encoder
    /// built in) links the sentences between two anchors. Texts in two
    /// languages (a Chinese translation and its English original, German
    /// against French; the language is told from the text) are aligned by
    /// meaning, and where they are versions of one another, completely:
    /// every sentence in a bead of up to five sentences, or listed as
    /// `unlinked`. The encoder knows Arabic, Chinese (both scripts),
    /// Dutch, English, French, German, Italian, Japanese, Korean, Polish,
    /// Portuguese, Russian, Spanish, Thai and Turkish.
    ///
    /// Examples:
    ///   parallels align a.txt b.txt
    ///   cat a.txt | parallels align - b.txt
    ///   parallels align a.txt b.txt c.txt --format json -o out.json
    ///   parallels align a.txt b.txt c.txt --format collation-json -o table.json
    ///   parallels align zh.txt en.txt --html compare.html
    ///   parallels align zh.txt en.txt --sentences lines --format ladder -o zh-en.align
    #[command(verbatim_doc_comment)]
    Align(align::AlignArgs),
    /// Find every shared passage across a whole corpus, without comparing all
    /// pairs.
    ///
    /// Documents are fingerprinted with rare token n-grams; only pairs that
    /// share enough of them are aligned (as `align` would). Writes
    /// documents.jsonl, passages.jsonl, clusters.jsonl and summary.json.
    ///
    /// Examples:
    ///   parallels scan corpus/ -o results/
    ///   parallels scan docs.jsonl --id id --text text -o results/
    #[command(verbatim_doc_comment)]
    Scan(scan::ScanArgs),
    /// Write the HTML report of a scan's results folder.
    ///
    /// index.html: summary figures, documents by share of reused text
    /// (sortable), clusters with each member's excerpt, the pairs sharing
    /// the most, and a document graph; pairs/NNNN.html: those pairs side by
    /// side with the differences marked. The texts are read back from the
    /// documents' sources, so run it where the scan ran.
    ///
    /// Example:
    ///   parallels scan corpus/ -o results/ && parallels report results/ -o report/
    #[command(verbatim_doc_comment)]
    Report(report::ReportArgs),
    /// Write the sentence pairs of a scan's translated passages, as
    /// parallel-corpus miners write them.
    ///
    /// Every link of a passage between two documents in different
    /// languages is a pair: its score (the cosine of the two sides'
    /// sentence vectors), the source sentence and the target sentence, the
    /// language first by code being the source (en before zh). As a
    /// tab-separated file (score, source, target; one pair a line) or as
    /// TMX 1.4. The texts are read back from the documents' sources, so run
    /// it where the scan ran.
    ///
    /// Examples:
    ///   parallels scan crawl.jsonl -o results/ && parallels export results/ -o pairs.tsv
    ///   parallels export results/ --format tmx --min-score 0.5 -o memory.tmx
    #[command(verbatim_doc_comment)]
    Export(export::ExportArgs),
    /// Drop exact and near-duplicate documents (and, with --paragraphs,
    /// repeated paragraphs) from a training corpus.
    ///
    /// Texts are normalized first (traditional/simplified script, full/half
    /// width, numerals), then each document's token n-grams (Han characters
    /// in Chinese, words elsewhere) are sketched with MinHash. LSH bands find
    /// candidate pairs (a pair at --threshold with probability ≥ 0.99);
    /// each is decided by its exact Jaccard similarity (shingles kept from
    /// the first pass, or recomputed for candidate documents only) unless its estimate is far from the
    /// threshold. Documents whose similarity reaches --threshold form
    /// clusters, and one document per cluster is kept. Kept records are
    /// copied byte for byte, in input order.
    ///
    /// Examples:
    ///   parallels dedup crawl.jsonl -o clean.jsonl --removed removed.jsonl
    ///   parallels dedup crawl.jsonl -o clean.jsonl --threshold 0.7 --paragraphs
    ///   parallels dedup 'data/*.parquet' -o clean/ --format parquet
    #[command(verbatim_doc_comment)]
    Dedup(dedup::DedupArgs),
    /// Score an alignment (JSON from `align --format json`) against gold links.
    ///
    /// Prints link precision/recall/F1 over aligned character pairs and
    /// coverage precision/recall/F1 over aligned characters, per pair and in
    /// total.
    ///
    /// With --units, each gold link is a unit (a verse): unit precision with
    /// a ±1-unit tolerance, unit recall (characters aligned to their own
    /// unit) and coverage against the gold's `unmatched` spans.
    ///
    /// Examples:
    ///   parallels eval --gold gold.json out.json
    ///   parallels eval --gold bible/gold.json out.json --units
    #[command(verbatim_doc_comment)]
    Eval(eval::EvalArgs),
    /// Build or extend a persistent index of a library, for `query` and
    /// `serve`.
    ///
    /// Examples:
    ///   parallels index build corpus/ --index lib.idx
    ///   parallels index add new-crawl.jsonl --index lib.idx
    #[command(verbatim_doc_comment)]
    Index(index::IndexArgs),
    /// Find every library passage new texts share, from an index.
    ///
    /// Each text is fingerprinted as `scan` does; library documents sharing
    /// enough rare n-grams are aligned with it and the passages reported as
    /// `scan` would, most significant document first, in the `align`
    /// schema (spans `a` in the text asked, `b` in the library document).
    ///
    /// Examples:
    ///   parallels query manuscript.txt --index lib.idx
    ///   parallels query texts.jsonl --index lib.idx --format json -o hits.json
    ///   parallels query manuscript.txt --index lib.idx --html hits.html
    #[command(verbatim_doc_comment)]
    Query(query::QueryArgs),
    /// Browse an index in a web browser: search, documents, passages.
    ///
    /// Serves http://127.0.0.1:8640 (loopback only unless --bind says
    /// otherwise), read-only, with a JSON API under /api/.
    ///
    /// Example:
    ///   parallels serve --index lib.idx
    #[command(verbatim_doc_comment)]
    Serve(serve::ServeArgs),
    /// Print the shell completion script for bash, zsh, fish, PowerShell
    /// or elvish.
    ///
    /// Examples:
    ///   source <(parallels completions bash)          # this bash session
    ///   parallels completions bash > ~/.local/share/bash-completion/completions/parallels
    ///   parallels completions zsh > ~/.zfunc/_parallels   # with fpath+=~/.zfunc
    ///   parallels completions fish > ~/.config/fish/completions/parallels.fish
    #[command(verbatim_doc_comment)]
    Completions(generate::CompletionsArgs),
    /// Print a man page (roff), generated from the same flags as --help.
    ///
    /// Examples:
    ///   parallels man | man -l -                       # read parallels(1)
    ///   parallels man align | man -l -                 # parallels-align(1)
    ///   parallels man --dir ~/.local/share/man/man1    # every page, for `man parallels-scan`
    #[command(verbatim_doc_comment)]
    Man(generate::ManArgs),
    /// Print the licences of what is compiled into parallels: its own code
    /// (MIT or Apache-2.0) and the data it carries under theirs (the
    /// sentence encoder's weights, Apache-2.0; the Chinese–English and
    /// German–French word tables, CC BY-SA), with sources and checksums.
    ///
    /// Example:
    ///   parallels licenses
    #[command(verbatim_doc_comment)]
    Licenses,
}

fn main() -> ExitCode {
    // Ctrl-C, SIGTERM or SIGHUP: this run's temporary files and spill
    // folders go (outputs already renamed into place stay, and so does
    // scan's work folder, for --resume); the exit code is a shell's 130.
    let _ = ctrlc::set_handler(|| {
        parallels::plumbing::atomic::remove_temporaries();
        eprintln!("parallels: interrupted; temporary files removed");
        std::process::exit(130);
    });
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new().num_threads(n).build_global() {
            eprintln!("parallels: error: --threads {n}: cannot start the threads: {e}");
            return ExitCode::from(2);
        }
    }
    let result = match cli.command {
        Command::Align(args) => align::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Scan(args) => scan::run(args),
        Command::Report(args) => report::run(args),
        Command::Export(args) => export::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Index(args) => index::run(args),
        Command::Query(args) => query::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Completions(args) => generate::completions(args, Cli::command()),
        Command::Man(args) => generate::man(args, Cli::command()),
        Command::Licenses => licenses(),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`parallels … | head`) is not an error.
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("parallels: error: {}", as_flags(&common::message(&err)));
            ExitCode::from(2)
        }
    }
}

/// `parallels licenses`: the code's licence and the library's notice.
fn licenses() -> anyhow::Result<ExitCode> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "parallels {}: MIT OR Apache-2.0.\n", env!("CARGO_PKG_VERSION"))?;
    out.write_all(parallels::NOTICE.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The library names an option in its messages as its field is named, in
/// backquotes (`` `strict` ``), for every front end to show its own
/// spelling: here, the flag.
pub(crate) fn as_flags(message: &str) -> String {
    const FLAGS: [(&str, &str); 4] = [
        ("`strict`", "--strict"),
        ("`group_by_dir`", "--group-by-dir"),
        ("`group`", "--group FIELD"),
        ("`format`", "--format"),
    ];
    FLAGS.iter().fold(message.to_string(), |m, (name, flag)| m.replace(name, flag))
}
