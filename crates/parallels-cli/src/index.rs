//! `parallels index build` and `parallels index add`: flags and messages.

use crate::args::{CorpusArgs, NormalizeArgs, ReportArgs};
use crate::progress::{peak_rss_mib, Bars};
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use parallels::corpus::{resolve, CorpusReader};
use parallels::index::{add, build, AddStats, IndexOptions, Translations};
use parallels::plumbing::Progress;
use parallels::read::shown;
use parallels::scan::{Reporting, ScanOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct IndexArgs {
    #[command(subcommand)]
    command: IndexCommand,
}

#[derive(Subcommand, Debug)]
enum IndexCommand {
    /// Make a new index of a corpus: seeds, feature weights, the texts
    /// (compressed).
    ///
    /// The documents are read, normalized and fingerprinted as `scan` does.
    /// An index already at the path is refused (use `add`), and so is a
    /// folder holding anything else: an index has a folder of its own.
    ///
    /// Example:
    ///   parallels index build corpus/ --index lib.idx
    #[command(verbatim_doc_comment)]
    Build(BuildArgs),
    /// Add documents to an index: only the new documents are read.
    ///
    /// The options are those the index was built with. Documents the
    /// index holds already (the same id and text) are left out, so an
    /// `add` run again adds only what is new. A second writer is refused;
    /// a killed `add` leaves the index as it was before.
    ///
    /// Example:
    ///   parallels index add new-crawl.jsonl --index lib.idx
    #[command(verbatim_doc_comment)]
    Add(AddArgs),
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// The index folder (created).
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
    #[command(flatten)]
    normalize: NormalizeArgs,
    #[command(flatten)]
    report: ReportArgs,
    /// Keep what queries in other languages need even when the corpus is
    /// in one language (a Chinese library that English texts will ask).
    /// By default the index keeps it when the corpus holds documents in
    /// two or more languages the built-in sentence encoder knows (as
    /// `scan` looks for translations then): every sentence of those
    /// documents is encoded (about a second per 2,500 sentences on two
    /// cores) and its vector kept, 520 bytes a sentence. Every later `add`
    /// does the same for its documents.
    #[arg(long, conflicts_with = "no_translations")]
    translations: bool,
    /// Keep no sentence vectors: queries find passages that share words
    /// with the library only, not translations. Every later `add` follows.
    #[arg(long)]
    no_translations: bool,
    /// Sentence features are counted in 2^BITS buckets (4 bytes each):
    /// fewer for small test indexes.
    #[arg(long, default_value_t = ScanOptions::default().df_bits, value_name = "BITS", hide = true,
          value_parser = clap::value_parser!(u32).range(8..=30))]
    df_bits: u32,
}

#[derive(Args, Debug)]
pub struct AddArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// The index folder.
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
}

pub fn run(args: IndexArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let bars = Bars::new();
    let (stats, dir, verb) = match args.command {
        IndexCommand::Build(a) => {
            let mut options = IndexOptions {
                report: a.report.reporting(Reporting::default()),
                df_bits: a.df_bits,
                normalize: a.normalize.switches(),
                translations: match (a.translations, a.no_translations) {
                    (true, _) => Translations::On,
                    (_, true) => Translations::Off,
                    _ => Translations::Auto,
                },
                ..IndexOptions::default()
            };
            options.seeds.max_df = a.report.max_df;
            options.seeds.min_seeds = a.report.min_seeds;
            let mut reader = CorpusReader::new(resolve(&a.corpus.inputs)?, a.corpus.options())?;
            // What killed runs left (a spill folder of the postings sort)
            // goes first: the index folder takes nothing it does not make.
            parallels::plumbing::atomic::remove_stale(&a.index);
            let r = build(&a.index, &mut reader, &options, &bars);
            (finish(r, &bars)?, a.index, "built")
        }
        IndexCommand::Add(a) => {
            let mut reader = CorpusReader::new(resolve(&a.corpus.inputs)?, a.corpus.options())?;
            parallels::plumbing::atomic::remove_stale(&a.index);
            let r = add(&a.index, &mut reader, &bars);
            (finish(r, &bars)?, a.index, "added to")
        }
    };
    let already = match stats.already {
        0 => String::new(),
        n => format!(", {n} already in the index (left out)"),
    };
    if stats.documents == 0 {
        eprintln!(
            "{}: nothing new: {} documents already in the index, {} skipped; the index is unchanged ({} documents)",
            shown(&dir),
            stats.already,
            stats.skipped,
            stats.total
        );
    } else {
        eprintln!(
            "{}: {verb}: {} documents ({} characters, {} seeds), {} skipped{already}; {} documents in the index",
            shown(&dir),
            stats.documents,
            stats.chars,
            stats.seeds,
            stats.skipped,
            stats.total
        );
    }
    if stats.translations && stats.documents > 0 {
        let langs: Vec<String> = stats.languages.iter().map(|(l, n)| format!("{n} {l}")).collect();
        eprintln!(
            "translations: {} sentences of {} documents encoded ({}); queries in another language find their \
             originals",
            stats.encoded,
            stats.languages.values().sum::<u64>(),
            if langs.is_empty() { "no language the encoder knows".to_string() } else { langs.join(", ") }
        );
    }
    eprintln!(
        "time: {:.1} s; peak memory: {}",
        start.elapsed().as_secs_f64(),
        peak_rss_mib().map_or("unknown".to_string(), |m| format!("{m:.0} MiB"))
    );
    Ok(ExitCode::SUCCESS)
}

fn finish(r: Result<AddStats, parallels::index::IndexError>, bars: &Bars) -> Result<AddStats> {
    bars.stage("", None);
    bars.hidden_problems();
    match r {
        Err(parallels::index::IndexError::Empty(skipped)) => {
            bail!("{}; nothing was written", crate::scan::nothing_read(skipped))
        }
        r => Ok(r?),
    }
}
