//! `parallels dedup`: flags, progress bars and the closing summary.

use crate::args::{CorpusArgs, NormalizeArgs};
use crate::progress::Bars;
use crate::scan::TableFormat;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use parallels::corpus::{input_files, resolve, CorpusOptions, CorpusReader, Format, Input};
use parallels::dedup::output::{parquet_outputs, write_jsonl, write_parquet, write_removed};
use parallels::dedup::{dedup, spill_folder, Bands, DedupOptions, Keep, Verify, MAX_NGRAM, MAX_PERMS, MIN_MEMORY};
use parallels::plumbing::{check_outputs, OutputFile, Progress};
use parallels::read::shown;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct DedupArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Where the kept records go: one JSON Lines file (--format jsonl), or a
    /// folder that gets one Parquet file per input (--format parquet).
    #[arg(short, long, value_name = "PATH")]
    output: PathBuf,
    /// Also write the removed documents here, as JSON Lines: id, source,
    /// reason (exact, near, empty_after_paragraphs), duplicate_of (the kept
    /// id), duplicate_of_source, similarity (to the kept document, as the
    /// decision measured it: exact Jaccard for a pair near the threshold,
    /// the signatures' estimate for a pair they settled, 0.95 or more at
    /// 0.8, and for every pair with --verify signature; 1 for an exact
    /// duplicate).
    #[arg(long, value_name = "FILE")]
    removed: Option<PathBuf>,
    /// Jaccard similarity (of n-gram shingle sets) at and above which two
    /// documents are near-duplicates.
    #[arg(long, default_value_t = DedupOptions::default().threshold, value_name = "J", value_parser = parse_unit)]
    threshold: f64,
    /// Tokens per shingle: Han characters in Chinese, words elsewhere.
    #[arg(long, default_value_t = DedupOptions::default().ngram, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_NGRAM as u64))]
    ngram: usize,
    /// MinHash permutations (4 bytes of memory each per document).
    #[arg(long, default_value_t = DedupOptions::default().perms, value_name = "K",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_PERMS as u64))]
    perms: usize,
    /// LSH bands (with --rows; bands × rows ≤ perms). Default: chosen for
    /// recall, since candidates are verified afterwards: of the splits that
    /// make a pair at the threshold a candidate with probability ≥ 0.99,
    /// the one that lets through the fewest pairs below it (16 bands × 6
    /// rows at 0.8 and 128 permutations; datasketch's 9 × 13 catches a pair
    /// at 0.8 only 40% of the time).
    #[arg(long, value_name = "B", requires = "rows",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    bands: Option<usize>,
    /// LSH rows per band (with --bands).
    #[arg(long, value_name = "R", requires = "bands",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    rows: Option<usize>,
    /// How candidate pairs are confirmed. exact (default): by the exact
    /// Jaccard similarity of their shingle sets: the first pass keeps the
    /// shingles of the first 32 MiB of them (about 25 MB of Chinese text);
    /// other documents of candidate pairs are read again in a second pass
    /// (JSON Lines records from their bytes; text files and Parquet, by
    /// reading the corpus again); the signatures settle only the pairs so far from
    /// the threshold that a pair at it lands there once in a million
    /// (at 0.8 and 128 permutations: estimates ≤ 0.61 or ≥ 0.95).
    /// signature: by the signatures' estimate alone (share of equal values,
    /// standard error 0.035 at 0.8 with 128 permutations: pairs near the
    /// threshold fall on either side); no second pass.
    #[arg(long, value_enum, default_value_t = Verify::default().into())]
    verify: VerifyArg,
    /// Which document of a group of duplicates is kept: the first one read,
    /// or the longest (the first one among equals).
    #[arg(long, value_enum, default_value_t = KeepArg::library_default())]
    keep: KeepArg,
    /// Keep the document with the largest value of this numeric field (a
    /// quality score, a timestamp); documents without it come last. Overrides
    /// --keep.
    #[arg(long, value_name = "FIELD")]
    keep_field: Option<String>,
    /// Also drop paragraphs (lines) that repeat, after normalization, a
    /// paragraph of an earlier kept document; documents left empty are
    /// removed. A record that loses lines is rewritten with only its text
    /// field changed.
    #[arg(long)]
    paragraphs: bool,
    /// With --paragraphs: shorter lines (in tokens) are always kept (at
    /// least 1).
    #[arg(long, default_value_t = DedupOptions::default().min_paragraph_tokens, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    min_paragraph_tokens: usize,
    #[command(flatten)]
    normalize: NormalizeArgs,
    /// Write the kept records as JSON Lines (one file) or as Parquet (a
    /// folder with one file per Parquet input, same columns).
    #[arg(long, value_enum, default_value_t = TableFormat::Jsonl)]
    format: TableFormat,
    /// Memory for sorting band records, in MiB (at least 16); beyond it,
    /// sorting spills to disk next to the output.
    #[arg(long, default_value_t = DedupOptions::default().memory >> 20, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(MIN_MEMORY >> 20..))]
    memory: u64,
    /// For evaluation: read pairs of ids (two per line, tab-separated) from
    /// FILE and print each with the exact Jaccard similarity of their
    /// shingle sets; nothing is deduplicated.
    #[arg(long, value_name = "FILE", hide = true)]
    jaccard_pairs: Option<PathBuf>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum VerifyArg {
    Signature,
    Exact,
}

impl From<Verify> for VerifyArg {
    fn from(verify: Verify) -> Self {
        match verify {
            Verify::Signature => VerifyArg::Signature,
            Verify::Exact => VerifyArg::Exact,
        }
    }
}

impl From<VerifyArg> for Verify {
    fn from(verify: VerifyArg) -> Self {
        match verify {
            VerifyArg::Signature => Verify::Signature,
            VerifyArg::Exact => Verify::Exact,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum KeepArg {
    First,
    Longest,
}

impl KeepArg {
    /// The library's default rule (a field is never the default).
    fn library_default() -> KeepArg {
        match Keep::default() {
            Keep::Longest => KeepArg::Longest,
            Keep::First | Keep::Field(_) => KeepArg::First,
        }
    }
}

fn parse_unit(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) && x > 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a similarity in (0, 1], such as 0.8")),
    }
}

pub fn run(args: DedupArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let inputs = resolve(&args.corpus.inputs)?;
    let corpus = args.corpus.options();
    if let Some(pairs) = &args.jaccard_pairs {
        return jaccard_pairs(inputs, corpus, pairs, &args);
    }
    let mut opts = DedupOptions {
        normalize: args.normalize.options(),
        ngram: args.ngram,
        perms: args.perms,
        threshold: args.threshold,
        bands: args.bands.zip(args.rows).map(|(bands, rows)| Bands { bands, rows }),
        verify: args.verify.into(),
        keep: match (&args.keep_field, args.keep) {
            (Some(f), _) => Keep::Field(f.clone()),
            (None, KeepArg::First) => Keep::First,
            (None, KeepArg::Longest) => Keep::Longest,
        },
        paragraphs: args.paragraphs,
        min_paragraph_tokens: args.min_paragraph_tokens,
        memory: args.memory << 20,
        ..DedupOptions::default()
    };
    // The library's bounds, before anything is written.
    opts.check()?;
    if args.format == TableFormat::Jsonl && args.output.is_dir() {
        bail!(
            "{}: is a folder; --format jsonl writes one file (give a file name such as clean.jsonl)",
            shown(&args.output)
        );
    }
    // The output is not compressed: a `.gz` or `.zst` name would be a lie
    // that the next reading (of that very name) trips over.
    for (flag, path) in [("-o", Some(&args.output)), ("--removed", args.removed.as_ref())] {
        if let Some(path) = path.filter(|p| parallels::read::Compression::of(p).is_some()) {
            if flag == "--removed" || args.format == TableFormat::Jsonl {
                bail!(
                    "{flag} {}: dedup writes JSON Lines uncompressed; give a name without .gz or .zst and \
                     compress the file afterwards (e.g. `gzip`, `zstd`)",
                    shown(path)
                );
            }
        }
    }
    // Nothing is written (not even a folder) when an output would
    // overwrite an input or another output.
    let mut outputs = match args.format {
        TableFormat::Jsonl => vec![OutputFile::new("-o", &args.output)],
        TableFormat::Parquet => parquet_outputs(&inputs, &args.output)?
            .into_iter()
            .zip(&inputs)
            .map(|(out, input)| OutputFile::new(format!("-o (the output of {})", shown(input.path())), out))
            .collect(),
    };
    if let Some(removed) = &args.removed {
        outputs.push(OutputFile::new("--removed", removed));
    }
    // Every output is a file, and none is another. `-o` (JSON Lines) may
    // be a JSON Lines file given as an input: its kept records are copied
    // from it into a temporary file that replaces it only once all are
    // written. Any other output over an input is refused: a text file, a
    // Parquet file or a file found in an input folder would be replaced
    // by JSON Lines, its removed documents in neither output (and a file
    // in a folder read again by the next run).
    check_outputs(&outputs, std::iter::empty::<PathBuf>())?;
    let in_place = usize::from(matches!(args.format, TableFormat::Jsonl));
    check_outputs(&outputs[in_place..], input_files(&inputs, &corpus))?;
    if in_place == 1 {
        let others: Vec<Input> = inputs.iter().filter(|i| i.format() != Some(Format::JSONL)).cloned().collect();
        check_outputs(&outputs[..1], input_files(&others, &corpus))?;
    }
    crate::common::remove_stale(&outputs);
    opts.work_dir = spill_folder(&args.output, args.format == TableFormat::Parquet);
    // A run that fails before writing leaves no empty folder behind.
    let _folder = crate::common::NewFolder::create(&opts.work_dir)?;
    let mut reader = CorpusReader::new(inputs.clone(), corpus.clone())?;
    let bars = Bars::new();
    let result = dedup(&mut reader, &opts, &bars);
    bars.stage("", None);
    let result = result?;
    if result.stats.documents == 0 {
        bars.hidden_problems();
        bail!("{}; nothing was written", crate::scan::nothing_read(result.corpus.skipped_total()));
    }
    let write_start = Instant::now();
    let written = match args.format {
        TableFormat::Jsonl => write_jsonl(&inputs, &corpus, &result, &args.output)
            .with_context(|| format!("{}: cannot write the kept records", shown(&args.output)))?,
        TableFormat::Parquet => write_parquet(&inputs, &corpus, &result, &args.output)?,
    };
    if let Some(path) = &args.removed {
        write_removed(&result, path).with_context(|| format!("{}: cannot write the removed list", shown(path)))?;
    }
    let write_time = write_start.elapsed();

    bars.hidden_problems();
    let s = &result.stats;
    let summary = &result.corpus;
    let skipped: Vec<String> = summary.skipped.iter().map(|(k, n)| format!("{n} {k}")).collect();
    eprintln!(
        "documents: {} in, {} kept, {} removed ({} exact, {} near{}); {} records skipped{}",
        s.documents,
        s.kept,
        s.removed_exact + s.removed_near + s.removed_empty_after_paragraphs,
        s.removed_exact,
        s.removed_near,
        if args.paragraphs {
            format!(", {} empty after paragraphs", s.removed_empty_after_paragraphs)
        } else {
            String::new()
        },
        summary.skipped_total(),
        if skipped.is_empty() { String::new() } else { format!(" ({})", skipped.join(", ")) }
    );
    if let Some(warning) = summary.repaired_warning() {
        eprintln!("parallels: warning: {warning}");
    }
    if args.paragraphs {
        eprintln!("paragraphs: {} removed from {} kept documents", s.paragraphs_removed, s.trimmed);
    }
    eprintln!(
        "lsh: {} bands × {} rows of {} permutations, {}-grams; {} candidate pairs{}, {} at or above {}; {} clusters",
        s.bands,
        s.rows,
        args.perms,
        args.ngram,
        s.candidate_pairs,
        match opts.verify {
            Verify::Exact => format!(
                " ({} checked on exact shingle sets of {} documents, {} of them read again, the others settled by the signatures)",
                s.exact_pairs, s.exact_docs, s.exact_reread
            ),
            Verify::Signature => " (by the signatures' estimate)".to_string(),
        },
        s.verified_pairs,
        args.threshold,
        s.clusters
    );
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "time: {:.2} s (sketching {:.2} s at {:.1} MB/s, candidates {:.2} s, exact check {:.2} s, writing {:.2} s); {:.0} documents/s; written to {}{}",
        secs,
        s.sketch_time.as_secs_f64(),
        s.text_bytes as f64 / 1e6 / s.sketch_time.as_secs_f64().max(1e-9),
        s.candidates_time.as_secs_f64(),
        s.verify_time.as_secs_f64(),
        write_time.as_secs_f64(),
        s.documents as f64 / secs.max(1e-9),
        shown(&args.output),
        if written.rewritten > 0 { format!(" ({} records rewritten without repeated paragraphs)", written.rewritten) } else { String::new() }
    );
    Ok(ExitCode::SUCCESS)
}

/// The hidden `--jaccard-pairs` mode: exact Jaccard of the listed pairs.
fn jaccard_pairs(
    inputs: Vec<parallels::corpus::Input>,
    corpus: CorpusOptions,
    pairs: &PathBuf,
    args: &DedupArgs,
) -> Result<ExitCode> {
    use rayon::prelude::*;
    let listed = std::fs::read_to_string(pairs).with_context(|| format!("{}: cannot read", shown(pairs)))?;
    let pairs: Vec<(String, String)> = listed
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| match l.split_once('\t') {
            Some((a, b)) => Ok((a.to_string(), b.to_string())),
            None => bail!("{}:{}: expected two ids separated by a tab", shown(pairs), i + 1),
        })
        .collect::<Result<_>>()?;
    let wanted: std::collections::HashSet<&str> = pairs.iter().flat_map(|(a, b)| [a.as_str(), b.as_str()]).collect();
    let hasher = DedupOptions {
        normalize: args.normalize.options(),
        ngram: args.ngram,
        perms: args.perms,
        ..DedupOptions::default()
    }
    .hasher();
    let docs: Vec<(String, String)> = CorpusReader::new(inputs, corpus)?
        .flatten()
        .filter(|d| wanted.contains(d.id.as_str()))
        .map(|d| (d.id, d.text))
        .collect();
    let sets: std::collections::HashMap<String, Vec<u64>> =
        docs.into_par_iter().map(|(id, text)| (id, hasher.shingle_set(&text))).collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (a, b) in &pairs {
        let j = match (sets.get(a), sets.get(b)) {
            (Some(x), Some(y)) => format!("{:.6}", parallels::dedup::minhash::jaccard(x, y)),
            _ => "nan".to_string(),
        };
        writeln!(out, "{a}\t{b}\t{j}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
