//! `parallels scan`: flags, progress bars and the closing summary.

use crate::args::{CorpusArgs, NormalizeArgs, ReportArgs};
use crate::progress::{peak_rss_mib, Bars};
use anyhow::{bail, Context, Result};
use clap::Args;
use parallels::corpus::{input_files, resolve, CorpusOptions, CorpusReader};
use parallels::plumbing::{check_outputs, OutputFile, Progress};
use parallels::read::shown;
use parallels::scan::{scan, InputKey, ScanOptions, Work, TABLE_WRITERS};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct ScanArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Folder for documents.jsonl, passages.jsonl, clusters.jsonl and
    /// summary.json (created if missing).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// Never compare documents with the same value of this field (same book,
    /// same newspaper series). A record without the field (or null) is in
    /// no group and is compared with every document.
    #[arg(long, value_name = "FIELD")]
    group: Option<String>,
    /// Never compare text files that sit in the same folder.
    #[arg(long)]
    group_by_dir: bool,
    #[command(flatten)]
    normalize: NormalizeArgs,
    #[command(flatten)]
    report: ReportArgs,
    /// Report every passage found, however banal (photo credits, datelines,
    /// formulae): --min-significance 0.
    #[arg(long)]
    all: bool,
    /// Do not look for translations. By default, when the corpus holds
    /// documents in two or more languages the built-in sentence encoder
    /// knows (Chinese, English, German, French, Japanese, … — each
    /// document's language is told from its text), every sentence of those
    /// documents is compared by meaning with the other languages' (each
    /// read cheaply, as a bag of its tokens), and the pairs of documents
    /// with runs of sentences that match are encoded in full and aligned:
    /// translated documents and translated passages inside other documents
    /// are reported as `parallel` passages. A corpus in one language is
    /// never encoded.
    #[arg(long)]
    no_translations: bool,
    /// Print how long each stage took (wall seconds), after the summary.
    #[arg(long)]
    timings: bool,
    /// Output tables as JSON Lines or as Parquet (documents.parquet,
    /// passages.parquet, clusters.parquet; see docs/GUIDE.md for the columns).
    #[arg(long, default_value = TABLE_WRITERS[0].name(), value_parser = table_writers())]
    format: String,
    /// Memory for sorting, in MiB (at least 16); beyond it, sorting spills
    /// to disk.
    #[arg(long, default_value_t = ScanOptions::default().memory >> 20, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(16..))]
    memory: u64,
    /// Go on with a run that was interrupted (killed, out of disk, power
    /// cut): what it finished, kept in DIR/.work, is taken over, and the
    /// results are the same as those of an uninterrupted run. Inputs and
    /// options must be the same; if they are not, or there is nothing to
    /// take over, the scan starts from the beginning.
    #[arg(long)]
    resume: bool,
    /// Candidate pairs aligned between two checkpoints.
    #[arg(long, default_value_t = ScanOptions::default().chunk, value_name = "N", hide = true,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pairs_per_checkpoint: usize,
}

/// The values of the scan tables' `--format`: the names of the library's
/// [`TABLE_WRITERS`].
fn table_writers() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(TABLE_WRITERS.iter().map(|w| w.name()))
}

/// The format of `dedup`'s output.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    Jsonl,
    Parquet,
}

pub fn run(args: ScanArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let inputs = resolve(&args.corpus.inputs)?;
    let corpus =
        CorpusOptions { group_field: args.group.clone(), group_by_dir: args.group_by_dir, ..args.corpus.options() };
    let mut opts = ScanOptions::default();
    opts.align.normalize = args.normalize.options();
    args.report.apply(&mut opts);
    if args.all {
        opts.report = opts.report.every_passage();
    }
    opts.memory = args.memory << 20;
    opts.across = !args.no_translations;
    opts.chunk = args.pairs_per_checkpoint;
    // Nothing is written (not even the folder) when a table would
    // overwrite an input.
    // (clap took only a name of the list.)
    let writer = TABLE_WRITERS.iter().copied().find(|w| w.name() == args.format).unwrap_or(TABLE_WRITERS[0]);
    let mut outputs = vec![OutputFile::folder("-o", &args.output)];
    outputs.extend(writer.files(&args.output).into_iter().map(|file| OutputFile::new("-o", file)));
    check_outputs(&outputs, input_files(&inputs, &corpus))?;
    crate::common::remove_stale(&outputs);
    // A scan that stops before any table (and leaves no work folder to
    // resume from) leaves no empty folder behind.
    let _folder = crate::common::NewFolder::create(&args.output)?;
    let work = Work { dir: args.output.join(".work"), key: InputKey::new(&inputs, &corpus), resume: args.resume };
    let mut reader = CorpusReader::new(inputs, corpus)?;
    let bars = Bars::new();
    let result = scan(&mut reader, &opts, &work, &bars);
    bars.stage("", None);
    // After an I/O failure, the work folder stays for --resume.
    let result = result?;
    if result.stats.documents == 0 {
        let skipped = result.corpus.skipped_total();
        result.remove_work().with_context(|| format!("{}: cannot remove", shown(&work.dir)))?;
        bars.hidden_problems();
        bail!("{}; nothing was written", nothing_read(skipped));
    }
    writer
        .write(&result, &args.output)
        .with_context(|| format!("{}: cannot write the results", shown(&args.output)))?;
    // What the summary below needs; the rest goes with the work folder.
    let (corpus, stats, resumed) = (result.corpus.clone(), result.stats.clone(), result.resumed.clone());
    result.remove_work().with_context(|| format!("{}: cannot remove", shown(&work.dir)))?;
    let summary = &corpus;

    let (s, r) = (&stats, &resumed);
    if args.resume {
        if r.read {
            let mut taken = vec!["reading"];
            if r.candidates {
                taken.push("candidate pairs");
            }
            eprintln!(
                "resumed: {} and {} of {} aligned chunks taken over from the interrupted run",
                taken.join(", "),
                r.chunks.0,
                r.chunks.1
            );
        } else if r.matched {
            eprintln!("resumed: the interrupted run had not finished reading; scanned from the start");
        } else {
            eprintln!(
                "resumed: nothing to take over (no interrupted run of these inputs and options); scanned from the start"
            );
        }
    }
    bars.hidden_problems();
    let skipped: Vec<String> = summary.skipped.iter().map(|(k, n)| format!("{n} {k}")).collect();
    eprintln!(
        "documents: {} read, {} skipped{}",
        s.documents,
        summary.skipped_total(),
        if skipped.is_empty() { String::new() } else { format!(" ({})", skipped.join(", ")) }
    );
    if let Some(warning) = summary.repaired_warning() {
        eprintln!("parallels: warning: {warning}");
    }
    eprintln!(
        "candidate pairs: {}; aligned pairs: {}; passages: {}; clusters: {}",
        s.candidate_pairs, s.aligned_pairs, s.passages, s.clusters
    );
    if !s.languages.is_empty() {
        let langs: Vec<String> = s.languages.iter().map(|(l, n)| format!("{n} {l}")).collect();
        eprintln!(
            "translations: {} documents compared across languages ({}), {} sentences; {} candidate pairs aligned ({} sentences encoded), {} with passages",
            s.languages.values().sum::<u64>(),
            langs.join(", "),
            s.across_sentences,
            s.across_candidates,
            s.across_encoded,
            s.across_pairs
        );
    }
    if s.insignificant > 0 {
        eprintln!(
            "not reported: {} passages less significant than {} (formula, templates, short; --all reports them)",
            s.insignificant, opts.report.min_significance
        );
    }
    if !s.templates.is_empty() {
        eprintln!("most frequent templates (passages not reported, documents, text):");
        for t in s.templates.iter().take(5) {
            eprintln!("  {:>8} {:>8}  {}", t.passages, t.documents, t.text.replace(['\n', '\r'], " "));
        }
    }
    if !s.boilerplate.is_empty() {
        eprintln!("most frequent boilerplate (documents, text):");
        for (df, text) in s.boilerplate.iter().take(5) {
            eprintln!("  {df:>8}  {}", text.replace(['\n', '\r'], " "));
        }
    }
    if args.timings {
        let stages: Vec<String> =
            bars.timings().into_iter().filter(|(n, _)| !n.is_empty()).map(|(n, t)| format!("{n} {t:.2} s")).collect();
        eprintln!("stages: {}", stages.join("; "));
    }
    eprintln!(
        "time: {:.1} s; peak memory: {}; results in {}",
        start.elapsed().as_secs_f64(),
        peak_rss_mib().map_or("unknown".to_string(), |m| format!("{m:.0} MiB")),
        shown(&args.output)
    );
    Ok(ExitCode::SUCCESS)
}

/// Why a command that read no document stops: every record or file was
/// skipped (the messages above say why), or there was none.
pub(crate) fn nothing_read(skipped: u64) -> String {
    if skipped == 0 {
        "no document was read: the inputs hold no text file or record".to_owned()
    } else {
        format!("no document was read: all {skipped} record(s) or file(s) were skipped (see the messages above)")
    }
}
