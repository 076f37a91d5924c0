//! The `parallels` command: flag definitions, glue, messages and exit codes.
//! All the work happens in the `parallels` library. `align` and `eval` run
//! here; every other command has a file of its own, and what they share is
//! in `common.rs`, `args.rs`, `progress.rs` and `stdin.rs`, which import no
//! command file.

mod args;
mod common;
mod dedup;
mod generate;
mod index;
mod progress;
mod query;
mod report;
mod scan;
mod serve;
mod stdin;

use anyhow::{bail, Context, Result};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use parallels::align::{Aligner, Options, ParallelParams, ALIGN_BYTES_PER_BYTE, MAX_TEXT_BYTES};
use parallels::collate::collate;
use parallels::output::AlignOutput;
use parallels::plumbing::{check_outputs, OutputFile};
use parallels::read::{read_document, shown, Document};
use parallels::report::text::TextView;
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use common::{remove_stale, terminal_width, write_output};

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
    Align(AlignArgs),
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
    Eval(EvalArgs),
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
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A summary per pair and the passages side by side.
    Text,
    /// The `parallels.align/1` JSON document.
    Json,
    /// The table of all texts at once (`parallels.collation/1` JSON): rows
    /// of corresponding sentences, every sentence of every text once.
    CollationJson,
    /// That table as CSV: one column per text, one record per row.
    Csv,
    /// That table as TSV (fields with a tab, quote or line break quoted).
    Tsv,
    /// That table as TEI P5 parallel segmentation (`<app>`/`<rdg wit>`).
    Tei,
    /// TMX 1.4 translation memory of two texts' linked sentences.
    Tmx,
    /// Two texts' linked sentences, one pair a line, tab-separated.
    Bitext,
    /// Two texts' beads as sentence indices, one a line, `[0, 1]:[0]`,
    /// null beads `[5]:[]` included: what sentence aligners write and
    /// their scorers read (use with --sentences lines).
    Ladder,
}

impl Format {
    /// The name `--format` takes.
    fn name(self) -> String {
        self.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Color {
    /// Colour when writing to a terminal and NO_COLOR is unset.
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
struct AlignArgs {
    /// Text files to compare (two or more). UTF-8, UTF-16 with BOM,
    /// GB18030/GBK and Big5 are detected. `-` (for one of them) is
    /// standard input, with the id `stdin`.
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format. `text` and `json` give each pair's passages;
    /// `collation-json`, `csv`, `tsv` and `tei` the table of all texts
    /// (rows of corresponding sentences); `tmx` and `bitext` (exactly two
    /// texts) their linked sentences.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Languages of the texts for `--format tmx` (BCP 47 codes, in input
    /// order, comma-separated: `--lang zh,en`); guessed from the script
    /// where not given (`zh`, `ja`, `ko`, `en`, else `und`).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    lang: Vec<String>,
    /// Write the output to this file instead of standard output (`-`:
    /// standard output).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// When to colour differences in text output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Also write a self-contained HTML report to FILE: an overview, each
    /// pair side by side with the differences marked, and (three or more
    /// texts) all versions in one table. It needs no network.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Show only the summary lines in text output, not the passages.
    #[arg(long)]
    summary: bool,
    /// Strictness: a link needs a similarity this many standard deviations
    /// above that of random sentence pairs of the same two texts.
    #[arg(long, default_value_t = ParallelParams::default().sigmas, value_name = "SIGMAS", value_parser = parse_sigmas)]
    sigmas: f32,
    /// Most sentences a passage may skip on either side between two links.
    #[arg(long, default_value_t = ParallelParams::default().gap, value_name = "N")]
    gap: u32,
    #[command(flatten)]
    normalize: args::NormalizeArgs,
    /// How the texts are cut into sentences: `text` at sentence enders
    /// (`。！？.!?…`) and line ends; `lines` one sentence a line, as given
    /// (texts already cut, as sentence aligners take them: nothing inside
    /// a line ends a sentence, and sentence k is the k-th non-blank line).
    #[arg(long, value_enum, default_value_t = Sentences::Text, value_name = "HOW")]
    sentences: Sentences,
    /// Do not use meaning: no sentence encoder between anchors, and no
    /// alignment of texts in two languages (a Chinese translation against
    /// its English original, German against French) beyond the words they
    /// share. Lexical evidence only, as in scan.
    #[arg(long)]
    no_semantic: bool,
    /// Refuse a text longer than this, in MiB (of the file, and of its
    /// text once decoded): aligning two texts takes about 100 times their
    /// size in memory. For longer texts, split them or use `scan`.
    #[arg(long, default_value_t = MAX_TEXT_BYTES >> 20, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..))]
    max_size: u64,
    /// Switch methods of the aligner off, to measure what each buys
    /// (evaluation only).
    #[arg(long, hide = true, value_enum, value_delimiter = ',', value_name = "METHOD")]
    without: Vec<Method>,
}

/// How `align` cuts texts into sentences.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Sentences {
    /// At sentence enders and line ends (running text).
    Text,
    /// One sentence a non-blank line, as given.
    Lines,
}

/// Methods of the aligner that `--without` can switch off.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Method {
    /// Completion of chains by position and length.
    Complete,
    /// Complete alignment of parallel regions (beads, null beads included).
    Beads,
    /// Dropping short passages that cross the main alignment.
    Coherence,
    /// More evidence for what is all two texts share.
    Isolated,
    /// Meaning (the sentence encoder): the same as `--no-semantic`.
    Semantic,
}

#[derive(Args, Debug)]
struct EvalArgs {
    /// Gold links (`{"documents": …, "pairs": {"a-b": [{"a": [s, e], "b": [s, e]}]}}`).
    #[arg(long, value_name = "FILE")]
    gold: PathBuf,
    /// The alignment to score, as written by `parallels align --format json`
    /// (or `--format collation-json`: the links its rows imply, every pair
    /// of texts sharing a row or a transposition); `-`: standard input.
    #[arg(value_name = "ALIGNMENT")]
    predicted: PathBuf,
    /// Score each gold link as a unit (a verse, say): precision with a
    /// ±1-unit tolerance, recall as the share of characters aligned to their
    /// own unit, coverage against the gold's `unmatched` spans. Links finer
    /// than a unit are not punished.
    #[arg(long)]
    units: bool,
    /// Score beads: both files are ladders (`--format ladder`, or the
    /// `[0, 1]:[0]` files of other sentence aligners and of gold sets),
    /// scored as the field scores them: strict and lax bead precision,
    /// recall and F1, precision counting the null beads (and over linked
    /// beads only). Several documents: give --gold and the prediction as
    /// folders of files with the same names.
    #[arg(long, conflicts_with = "units")]
    beads: bool,
}

fn parse_sigmas(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a number of standard deviations (a finite number ≥ 0, such as 4)")),
    }
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
        Command::Align(args) => run_align(args),
        Command::Eval(args) => run_eval(args),
        Command::Scan(args) => scan::run(args),
        Command::Report(args) => report::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Index(args) => index::run(args),
        Command::Query(args) => query::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Completions(args) => generate::completions(args, Cli::command()),
        Command::Man(args) => generate::man(args, Cli::command()),
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
            eprintln!("parallels: error: {}", as_flags(&format!("{err:#}")));
            ExitCode::from(2)
        }
    }
}

/// Read every input (`-`: standard input); report every failure, not just
/// the first.
fn read_inputs(files: &[PathBuf]) -> Result<Vec<Document>> {
    let results: Vec<Result<Document>> = files
        .par_iter()
        .map(|p| if stdin::is_stdin(p) { stdin::read_document() } else { Ok(read_document(p)?) })
        .collect();
    let mut docs = Vec::new();
    let mut failed = 0;
    for r in results {
        match r {
            Ok(d) => {
                if d.replaced > 0 {
                    eprintln!(
                        "parallels: warning: {}: {} undecodable byte sequence(s) replaced by U+FFFD (read as {})",
                        shown(&d.path),
                        d.replaced,
                        d.encoding
                    );
                }
                if d.text.trim().is_empty() {
                    eprintln!("parallels: warning: {}: empty file; it can share nothing", shown(&d.path));
                }
                docs.push(d);
            }
            Err(e) => {
                eprintln!("parallels: error: {e:#}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} input(s) could not be read; nothing was aligned", files.len());
    }
    Ok(docs)
}

fn run_align(mut args: AlignArgs) -> Result<ExitCode> {
    stdin::at_most_once(&args.files)?;
    args.output = stdin::output(args.output);
    if matches!(args.format, Format::Tmx | Format::Bitext | Format::Ladder) && args.files.len() != 2 {
        let format = match args.format {
            Format::Tmx => "tmx",
            Format::Bitext => "bitext",
            _ => "ladder",
        };
        bail!("{}", parallels::collate::ExportError::NotTwo { format, given: args.files.len() });
    }
    if args.lang.len() > args.files.len() {
        bail!(
            "--lang gives {} languages for {} texts; give one per text, in input order",
            args.lang.len(),
            args.files.len()
        );
    }
    let outputs: Vec<OutputFile> = [("-o", &args.output), ("--html", &args.html)]
        .into_iter()
        .filter_map(|(flag, path)| path.as_ref().map(|p| OutputFile::new(flag, p)))
        .collect();
    check_outputs(&outputs, args.files.iter().filter(|f| !stdin::is_stdin(f)))?;
    // Too long to align in memory: refused before it is read (a file) or
    // once decoded (a pipe), with what to do instead.
    let limit = args.max_size.saturating_mul(1 << 20);
    let too_long = args.files.iter().filter_map(|f| {
        let len = std::fs::metadata(f).ok().filter(|m| m.is_file())?.len();
        (len > limit).then(|| (f.display().to_string(), len))
    });
    refuse_long_texts(too_long.collect(), args.max_size)?;
    remove_stale(&outputs);
    let docs = read_inputs(&args.files)?;
    refuse_long_texts(
        docs.iter()
            .filter(|d| d.text.len() as u64 > limit)
            .map(|d| (d.path.display().to_string(), d.text.len() as u64))
            .collect(),
        args.max_size,
    )?;
    let mut opts = Options::default();
    opts.parallel.sigmas = args.sigmas;
    opts.parallel.gap = args.gap;
    opts.parallel.complete = !args.without.contains(&Method::Complete);
    opts.parallel.beads = !args.without.contains(&Method::Beads);
    opts.sentences = match args.sentences {
        Sentences::Text => parallels::segment::SentenceMode::Text,
        Sentences::Lines => parallels::segment::SentenceMode::Lines,
    };
    opts.coherence = !args.without.contains(&Method::Coherence);
    opts.isolated = !args.without.contains(&Method::Isolated);
    opts.meaning = !args.no_semantic && !args.without.contains(&Method::Semantic);
    opts.normalize = args.normalize.options();
    let aligner = Aligner::new(opts);
    let collation = collate(&aligner, &docs)?;
    let (ids, prepared, out) = (&collation.ids, &collation.prepared, &collation.output);

    if let Some(path) = &args.html {
        let paths: Vec<String> = docs.iter().map(|d| shown(&d.path).to_string()).collect();
        let report_docs: Vec<parallels::report::ReportDoc> = docs
            .iter()
            .zip(ids)
            .zip(prepared)
            .zip(&paths)
            .map(|(((d, id), p), path)| parallels::report::ReportDoc {
                id,
                path,
                encoding: &d.encoding,
                text: &d.text,
                prepared: p,
            })
            .collect();
        let html = parallels::report::align_page(&report_docs, out).context("cannot render the HTML report")?;
        write_output(Some(path), html.as_bytes())?;
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let mut buf: Vec<u8> = Vec::new();
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut buf, out)?;
            buf.push(b'\n');
        }
        Format::Ladder => {
            let (a, b) = (&ids[0], &ids[1]);
            // The output pairs put the smaller id first; the ladder's A is
            // the first file given.
            let mut passages = Vec::new();
            for p in out.pairs.iter().filter(|p| (&p.a, &p.b) == (a, b) || (&p.a, &p.b) == (b, a)) {
                let flip = &p.a != a;
                passages.extend(p.passages.iter().map(|x| if flip { x.clone().flipped() } else { x.clone() }));
            }
            let (sa, sb) = (&prepared[0].seg.sentences, &prepared[1].seg.sentences);
            buf = parallels::ladder::write(&parallels::ladder::beads_of_pair(sa, sb, &passages)).into_bytes();
        }
        Format::Text => {
            let view =
                TextView { out, docs: &docs, prepared, color, width: terminal_width(), summary_only: args.summary };
            view.write(&mut buf)?;
        }
        format => {
            let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
            buf = collation_output(&collation, &texts, format, &args.lang)?;
        }
    }
    write_output(args.output.as_deref(), &buf)?;
    Ok(ExitCode::SUCCESS)
}

/// The n-way table of all texts in one of the collation formats.
fn collation_output(
    collation: &parallels::collate::Collation,
    texts: &[&str],
    format: Format,
    langs: &[String],
) -> Result<Vec<u8>> {
    use parallels::collate::{export, CollationOutput};
    let table = collation.table(texts);
    let bytes = match format {
        Format::CollationJson => {
            let out = CollationOutput::new(&table, collation.witnesses(), texts);
            let mut v = serde_json::to_vec_pretty(&out)?;
            v.push(b'\n');
            v
        }
        Format::Csv => export::delimited(&table, texts, b',')?,
        Format::Tsv => export::delimited(&table, texts, b'\t')?,
        Format::Tei => export::tei(&table, &collation.witnesses(), texts)?,
        Format::Tmx => {
            let lang = |k: usize| {
                langs
                    .get(k)
                    .map(String::as_str)
                    .filter(|l| !l.is_empty())
                    .unwrap_or_else(|| export::guess_language(texts[k]))
            };
            export::tmx(&table, texts, [lang(0), lang(1)])?
        }
        Format::Bitext => export::bitext(&table, texts)?,
        Format::Text | Format::Json | Format::Ladder => bail!("--format {} is not a collation format", format.name()),
    };
    Ok(bytes)
}

/// Stop if any text is over `--max-size` (`files`: path and size in
/// bytes), naming each with what it would take and what to do instead.
fn refuse_long_texts(files: Vec<(String, u64)>, max_mib: u64) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    for (path, len) in &files {
        eprintln!(
            "parallels: error: {path}: {:.1} MiB, longer than `align` takes (--max-size {max_mib} MiB); aligning it \
             would take about {:.1} GiB of memory (with a counterpart of its size, at up to {ALIGN_BYTES_PER_BYTE} bytes per byte of text)",
            mib(*len),
            mib(len.saturating_mul(ALIGN_BYTES_PER_BYTE * 2)) / 1024.0
        );
    }
    bail!(
        "{} text(s) too long to align; split them (by chapter, say) and align the parts, or find what a long \
         collection shares with `parallels scan DIR -o results/` (its memory is bounded by --memory); \
         --max-size raises the limit on a machine with the memory. Nothing was aligned",
        files.len()
    );
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

fn run_eval(args: EvalArgs) -> Result<ExitCode> {
    stdin::at_most_once(&[args.gold.clone(), args.predicted.clone()])?;
    if args.beads {
        return run_eval_beads(&args);
    }
    let gold_text =
        std::fs::read_to_string(&args.gold).with_context(|| format!("{}: cannot read gold file", shown(&args.gold)))?;
    let gold: parallels::eval::Gold =
        serde_json::from_str(&gold_text).with_context(|| format!("{}: not a gold file", shown(&args.gold)))?;
    let pred_text = stdin::read_to_string(&args.predicted)?;
    // A collation (`--format collation-json`) is scored by the pairwise
    // links its rows imply.
    #[derive(serde::Deserialize)]
    struct Tagged {
        #[serde(default)]
        schema: String,
    }
    let not_output = || format!("{}: not a `parallels align --format json` output", shown(&args.predicted));
    let not_collation =
        || format!("{}: not a `parallels align --format collation-json` output", shown(&args.predicted));
    let tag: Tagged = serde_json::from_str(&pred_text).with_context(not_output)?;
    let pred: AlignOutput = if tag.schema == parallels::collate::COLLATION_SCHEMA {
        serde_json::from_str::<parallels::collate::CollationOutput>(&pred_text)
            .with_context(not_collation)?
            .implied_links()
    } else {
        serde_json::from_str(&pred_text).with_context(not_output)?
    };
    let bad_gold = |e: parallels::eval::EvalError| anyhow::anyhow!("{}: {e}", shown(&args.gold));
    let table = if args.units {
        parallels::eval::evaluate_units(&gold, &pred).map_err(bad_gold)?.table()
    } else {
        parallels::eval::evaluate(&gold, &pred).map_err(bad_gold)?.table()
    };
    let unknown: Vec<&str> = pred
        .documents
        .iter()
        .map(|d| d.id.as_str())
        .filter(|id| !gold.documents.is_empty() && !gold.documents.contains_key(*id))
        .collect();
    if !unknown.is_empty() {
        eprintln!("parallels: warning: documents not in the gold are not scored: {}", unknown.join(", "));
    }
    write_output(None, table.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `eval --beads`: ladder files, or folders of them with the same names.
fn run_eval_beads(args: &EvalArgs) -> Result<ExitCode> {
    use parallels::ladder::{parse, score, Counts};
    let read = |p: &Path| -> Result<Vec<parallels::ladder::Bead>> {
        let text = stdin::read_to_string(p)?;
        parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", shown(p)))
    };
    let mut docs: Vec<(String, PathBuf, PathBuf)> = Vec::new();
    if args.gold.is_dir() {
        let mut names: Vec<_> = std::fs::read_dir(&args.gold)
            .with_context(|| format!("{}: cannot list", shown(&args.gold)))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name())
            .collect();
        names.sort();
        for name in names {
            let pred = args.predicted.join(&name);
            if !pred.is_file() {
                bail!("{}: no prediction for the gold file {}", shown(&pred), shown(&args.gold.join(&name)));
            }
            docs.push((name.to_string_lossy().into_owned(), args.gold.join(&name), pred));
        }
    } else {
        docs.push((shown(&args.predicted).to_string(), args.gold.clone(), args.predicted.clone()));
    }
    let mut table = String::from(
        "document                     gold  pred  null  strict P  strict R  strict F1  lax P  lax R  lax F1  linked-only strict F1\n",
    );
    let mut total = Counts::default();
    let mut row = |name: &str, c: &Counts| {
        let (s, l, k) = (c.strict(), c.lax(), c.strict_linked());
        table.push_str(&format!(
            "{name:<26} {:>6} {:>5} {:>5}  {:>8.4}  {:>8.4}  {:>9.4}  {:>5.3}  {:>5.3}  {:>6.4}  {:>22.4}\n",
            c.gold, c.pred, c.pred_null, s.p, s.r, s.f1, l.p, l.r, l.f1, k.f1
        ));
    };
    for (name, gold, pred) in &docs {
        let c = score(&read(gold)?, &read(pred)?);
        row(name, &c);
        total += c;
    }
    row("ALL (micro)", &total);
    write_output(None, table.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
