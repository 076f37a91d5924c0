//! `parallels align`: its flags, and the run that reads the texts, aligns
//! every pair (or collates them) and writes the chosen format.

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use parallels::align::{Aligner, Options, ParallelParams, ALIGN_BYTES_PER_BYTE, MAX_TEXT_BYTES};
use parallels::collate::{collate, format, FORMATS};
use parallels::plumbing::{check_outputs, OutputFile};
use parallels::read::{read_document_within, shown, Document, ReadError};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::common::{remove_stale, terminal_width, write_output};
use crate::{args, stdin};

/// `--format`: the names of the library's formats, each with its help.
fn format_names() -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    clap::builder::PossibleValuesParser::new(FORMATS.iter().map(|f| PossibleValue::new(f.name()).help(f.about())))
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Color {
    /// Colour when writing to a terminal and NO_COLOR is unset.
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
pub(crate) struct AlignArgs {
    /// Text files to compare (two or more). UTF-8, UTF-16 with BOM,
    /// GB18030/GBK and Big5 are detected. `-` (for one of them) is
    /// standard input, with the id `stdin`.
    #[arg(required = true, num_args = 2.., value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format. `text` and `json` give each pair's passages;
    /// `collation-json`, `csv`, `tsv` and `tei` the table of all texts
    /// (rows of corresponding sentences); `tmx` and `bitext` (exactly two
    /// texts) their linked sentences.
    #[arg(long, default_value = FORMATS[0].name(), value_parser = format_names())]
    format: String,
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
    /// texts) all versions in one table. It needs no network. `-`:
    /// standard output (with `-o FILE`).
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
    /// Default: `lines` with `--format ladder` (a ladder's indices are
    /// lines), `text` otherwise.
    #[arg(long, value_enum, value_name = "HOW")]
    sentences: Option<Sentences>,
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
    /// Weigh a kind of bead evidence otherwise than the fitted weights:
    /// `length=0.05,dictionary=0.2` (evaluation only).
    #[arg(long, hide = true, value_delimiter = ',', value_name = "KIND=WEIGHT", value_parser = parse_weight)]
    weigh: Vec<(String, f32)>,
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
    /// Dictionary evidence in the bead score (zh–en, de–fr).
    Dictionary,
    /// The second look at beads whose choice is close (their groups
    /// encoded from their own text).
    Refine,
}

fn parse_weight(s: &str) -> Result<(String, f32), String> {
    let (name, w) = s.split_once('=').ok_or_else(|| format!("{s:?} is not KIND=WEIGHT"))?;
    let w = w.parse::<f32>().map_err(|_| format!("{w:?} is not a number"))?;
    Ok((name.to_string(), w))
}

fn parse_sigmas(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a number of standard deviations (a finite number ≥ 0, such as 4)")),
    }
}

/// Read every input (`-`: standard input), each cut at `limit` bytes
/// while it is read (a pipe or a device has no size to check first);
/// report every failure, not just the first.
fn read_inputs(files: &[PathBuf], limit: u64, max_mib: u64) -> Result<Vec<Document>> {
    let results: Vec<Result<Document, ReadError>> = files
        .par_iter()
        .map(|p| if stdin::is_stdin(p) { stdin::read_document(limit) } else { read_document_within(p, limit) })
        .collect();
    // Too long: refused with what to do instead, as a file over the
    // limit is before it is read.
    let too_long: Vec<(String, Option<u64>)> = results
        .iter()
        .filter_map(|r| match r {
            Err(ReadError::TooLarge { path, .. }) => Some((shown(path).to_string(), None)),
            _ => None,
        })
        .collect();
    refuse_long_texts(too_long, max_mib)?;
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
                eprintln!("parallels: error: {}", crate::common::message(&anyhow::Error::new(e)));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} input(s) could not be read; nothing was aligned", files.len());
    }
    Ok(docs)
}

pub(crate) fn run(mut args: AlignArgs) -> Result<ExitCode> {
    stdin::at_most_once(&args.files)?;
    args.output = stdin::output(args.output);
    // `None`: no report; `Some(None)`: on standard output.
    let html = stdin::html(args.html.take(), args.output.as_deref())?;
    let writer = format(&args.format).context("--format: not a format")?;
    writer.check(args.files.len())?;
    if args.lang.len() > args.files.len() {
        bail!(
            "--lang gives {} languages for {} texts; give one per text, in input order",
            args.lang.len(),
            args.files.len()
        );
    }
    let html_file = html.as_ref().and_then(|h| h.as_ref());
    let outputs: Vec<OutputFile> = [("-o", args.output.as_ref()), ("--html", html_file)]
        .into_iter()
        .filter_map(|(flag, path)| path.map(|p| OutputFile::new(flag, p)))
        .collect();
    check_outputs(&outputs, args.files.iter().filter(|f| !stdin::is_stdin(f)))?;
    // Too long to align in memory: refused before it is read (a file), or
    // as soon as reading passes the limit (a pipe, a device), or once
    // decoded, with what to do instead.
    let limit = args.max_size.saturating_mul(1 << 20);
    let too_long = args.files.iter().filter_map(|f| {
        let len = std::fs::metadata(f).ok().filter(|m| m.is_file())?.len();
        (len > limit).then(|| (shown(f).to_string(), Some(len)))
    });
    refuse_long_texts(too_long.collect(), args.max_size)?;
    remove_stale(&outputs);
    let docs = read_inputs(&args.files, limit, args.max_size)?;
    refuse_long_texts(
        docs.iter()
            .filter(|d| d.text.len() as u64 > limit)
            .map(|d| (shown(&d.path).to_string(), Some(d.text.len() as u64)))
            .collect(),
        args.max_size,
    )?;
    let mut opts = Options::default();
    opts.parallel.sigmas = args.sigmas;
    opts.parallel.gap = args.gap;
    opts.parallel.complete = !args.without.contains(&Method::Complete);
    opts.parallel.beads = !args.without.contains(&Method::Beads);
    if args.without.contains(&Method::Refine) {
        opts.parallel.without.push("refine".into());
    }
    if args.without.contains(&Method::Dictionary) {
        opts.parallel.without.push("dictionary".into());
    }
    opts.parallel.reweigh = args.weigh.clone();
    // The format says whether its sentences are lines (a ladder's).
    let sentences = args.sentences.unwrap_or(if writer.lines() { Sentences::Lines } else { Sentences::Text });
    opts.sentences = match sentences {
        Sentences::Text => parallels::segment::SentenceMode::Text,
        Sentences::Lines => parallels::segment::SentenceMode::Lines,
    };
    opts.coherence = !args.without.contains(&Method::Coherence);
    opts.isolated = !args.without.contains(&Method::Isolated);
    opts.meaning = !args.no_semantic && !args.without.contains(&Method::Semantic);
    opts.normalize = args.normalize.options();
    let aligner = Aligner::new(opts);
    let collation = collate(&aligner, &docs)?;
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let mut run = collation.run(&docs);
    (run.langs, run.color, run.width, run.summary_only) = (&args.lang, color, terminal_width(), args.summary);
    if let Some(dest) = &html {
        let paths: Vec<String> = docs.iter().map(|d| shown(&d.path).to_string()).collect();
        let report_docs: Vec<parallels::report::ReportDoc> = docs
            .iter()
            .zip(&collation.ids)
            .zip(&collation.prepared)
            .zip(&paths)
            .map(|(((d, id), p), path)| parallels::report::ReportDoc {
                id,
                path,
                encoding: &d.encoding,
                text: &d.text,
                prepared: p,
            })
            .collect();
        // The "All versions" view of three texts or more shows the table
        // the collation formats write.
        let table = (docs.len() >= 3).then(|| run.table());
        let html = parallels::report::align_page(&report_docs, &collation.output, table)
            .context("cannot render the HTML report")?;
        write_output(dest.as_deref(), html.as_bytes())?;
    }
    let mut buf: Vec<u8> = Vec::new();
    writer.write(&run, &mut buf)?;
    write_output(args.output.as_deref(), &buf)?;
    Ok(ExitCode::SUCCESS)
}

/// Stop if any text is over `--max-size` (`files`: path and size in
/// bytes, `None` for a stream cut at the limit), naming each with what it
/// would take and what to do instead.
fn refuse_long_texts(files: Vec<(String, Option<u64>)>, max_mib: u64) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    for (path, len) in &files {
        let (size, at_least) = match len {
            Some(len) => (format!("{:.1} MiB", mib(*len)), *len),
            None => (format!("more than {max_mib} MiB (read up to the limit, not further)"), max_mib << 20),
        };
        eprintln!(
            "parallels: error: {path}: {size}, longer than `align` takes (--max-size {max_mib} MiB); aligning it \
             would take {}{:.1} GiB of memory (with a counterpart of its size, at up to {ALIGN_BYTES_PER_BYTE} bytes per byte of text)",
            if len.is_none() { "more than " } else { "about " },
            mib(at_least.saturating_mul(ALIGN_BYTES_PER_BYTE * 2)) / 1024.0
        );
    }
    bail!(
        "{} text(s) too long to align; split them (by chapter, say) and align the parts, or find what a long \
         collection shares with `parallels scan DIR -o results/` (its memory is bounded by --memory); \
         --max-size raises the limit on a machine with the memory. Nothing was aligned",
        files.len()
    );
}
