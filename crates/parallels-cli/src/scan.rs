//! `parallels scan`: flags, progress bars and the closing summary.

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use parallels::corpus::{resolve, CorpusOptions, CorpusReader, Problem};
use parallels::scan::{scan, write_jsonl, write_parquet, Progress, ScanOptions};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Inputs: folders of text files (read recursively), JSON Lines files,
    /// Parquet files, or quoted glob patterns such as 'part-*.parquet'.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// Folder for documents.jsonl, passages.jsonl, clusters.jsonl and
    /// summary.json (created if missing).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// JSON Lines / Parquet field holding the document id.
    #[arg(long, default_value = "id", value_name = "FIELD")]
    id: String,
    /// JSON Lines / Parquet field holding the text.
    #[arg(long, default_value = "text", value_name = "FIELD")]
    text: String,
    /// Never compare documents with the same value of this field (same book,
    /// same newspaper series).
    #[arg(long, value_name = "FIELD")]
    group: Option<String>,
    /// Never compare text files that sit in the same folder.
    #[arg(long)]
    group_by_dir: bool,
    /// Stop at the first malformed record instead of skipping and counting.
    #[arg(long)]
    strict: bool,
    /// Token n-grams in more documents than this are boilerplate, not
    /// evidence.
    #[arg(long, default_value_t = 100, value_name = "N")]
    max_df: u32,
    /// Shared n-gram seeds a pair of documents needs before it is aligned.
    #[arg(long, default_value_t = 4, value_name = "N")]
    min_seeds: u32,
    /// Output tables as JSON Lines or as Parquet (documents.parquet,
    /// passages.parquet, clusters.parquet; see the README for the columns).
    #[arg(long, value_enum, default_value_t = TableFormat::Jsonl)]
    format: TableFormat,
    /// Memory for sorting, in MiB; beyond it, sorting spills to disk.
    #[arg(long, default_value_t = 512, value_name = "MIB")]
    memory: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    Jsonl,
    Parquet,
}

/// Progress bars on a terminal, nothing otherwise; problems are printed
/// (the first 20, then only counted).
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    show: bool,
    problems: AtomicU64,
}

const SHOWN_PROBLEMS: u64 = 20;

impl Progress for Bars {
    fn stage(&self, name: &str, total: Option<u64>) {
        let mut bar = self.bar.lock().unwrap();
        if let Some(b) = bar.take() {
            b.finish();
        }
        if !self.show {
            return;
        }
        let b = match total {
            Some(t) => ProgressBar::new(t).with_style(
                ProgressStyle::with_template("{prefix:>11} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}")
                    .unwrap()
                    .progress_chars("=> "),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{prefix:>11} {spinner} {human_pos} documents {per_sec}").unwrap(),
            ),
        };
        b.set_prefix(name.to_string());
        *bar = Some(b);
    }

    fn advance(&self, n: u64) {
        if let Some(b) = self.bar.lock().unwrap().as_ref() {
            b.inc(n);
        }
    }

    fn problem(&self, p: &Problem) {
        let k = self.problems.fetch_add(1, Ordering::Relaxed);
        if k < SHOWN_PROBLEMS {
            let line = format!("parallels: warning: {p} (skipped)");
            match self.bar.lock().unwrap().as_ref() {
                Some(b) => b.println(line),
                None => eprintln!("{line}"),
            }
        }
    }
}

/// Peak resident memory of this process, in MiB, where the OS says.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

pub fn run(args: ScanArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let inputs = resolve(&args.inputs)?;
    let corpus = CorpusOptions {
        id_field: args.id.clone(),
        text_field: args.text.clone(),
        group_field: args.group.clone(),
        group_by_dir: args.group_by_dir,
        strict: args.strict,
        ..CorpusOptions::default()
    };
    let mut reader = CorpusReader::new(inputs, corpus)?;
    let mut opts = ScanOptions::default();
    opts.seeds.max_df = args.max_df.max(2);
    opts.seeds.min_seeds = args.min_seeds.max(1);
    opts.memory = args.memory.max(16) << 20;
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("{}: cannot create the output folder", args.output.display()))?;
    let work = args.output.join(".work");
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("{}: cannot clear", work.display()))?;
    }
    std::fs::create_dir_all(&work).with_context(|| format!("{}: cannot create", work.display()))?;
    let bars = Bars { bar: Mutex::new(None), show: std::io::stderr().is_terminal(), problems: AtomicU64::new(0) };
    let result = scan(&mut reader, &opts, &work, &bars);
    bars.stage("", None);
    let _ = std::fs::remove_dir_all(&work);
    let result = result?;
    let summary = reader.summary();
    match args.format {
        TableFormat::Jsonl => write_jsonl(&result, &args.output),
        TableFormat::Parquet => write_parquet(&result, &args.output),
    }
    .with_context(|| format!("{}: cannot write the results", args.output.display()))?;

    let s = &result.stats;
    let problems = bars.problems.load(Ordering::Relaxed);
    if problems > SHOWN_PROBLEMS {
        eprintln!("parallels: warning: {} more problems not shown", problems - SHOWN_PROBLEMS);
    }
    let skipped: Vec<String> = summary.skipped.iter().map(|(k, n)| format!("{n} {k}")).collect();
    eprintln!(
        "documents: {} read, {} skipped{}",
        s.documents,
        summary.skipped_total(),
        if skipped.is_empty() { String::new() } else { format!(" ({})", skipped.join(", ")) }
    );
    eprintln!(
        "candidate pairs: {}; aligned pairs: {}; passages: {}; clusters: {}",
        s.candidate_pairs, s.aligned_pairs, s.passages, s.clusters
    );
    if !s.boilerplate.is_empty() {
        eprintln!("most frequent boilerplate (documents, text):");
        for (df, text) in s.boilerplate.iter().take(5) {
            eprintln!("  {df:>8}  {}", text.replace(['\n', '\r'], " "));
        }
    }
    eprintln!(
        "time: {:.1} s; peak memory: {}; results in {}",
        start.elapsed().as_secs_f64(),
        peak_rss_mib().map_or("unknown".to_string(), |m| format!("{m:.0} MiB")),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
