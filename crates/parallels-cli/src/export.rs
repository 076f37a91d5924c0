//! `parallels export`: the sentence pairs of a scan's translated passages,
//! as parallel-corpus miners write them (tab-separated or TMX).

use anyhow::{Context, Result};
use clap::Args;
use parallels::corpus::Source;
use parallels::plumbing::{check_outputs, OutputFile};
use parallels::read::shown;
use parallels::scan::bitext::{sentence_pairs, tmx, tsv};
use parallels::scan::{ScanTables, SourceTexts};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::common::write_output;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A `parallels scan` results folder.
    #[arg(value_name = "RESULTS")]
    results: PathBuf,
    /// The file to write (`-` or none: standard output).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// tsv: `score<TAB>source<TAB>target`, one sentence pair a line;
    /// tmx: TMX 1.4, one translation unit a pair, with its score and
    /// documents.
    #[arg(long, value_enum, default_value_t = ExportFormat::Tsv)]
    format: ExportFormat,
    /// Leave out pairs whose score (the cosine of their sentence vectors)
    /// is below this.
    #[arg(long, default_value_t = 0.0, value_name = "SCORE")]
    min_score: f64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Tsv,
    Tmx,
}

pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let tables = ScanTables::read(&args.results)?;
    let output = args.output.filter(|p| p.as_os_str() != "-");
    if let Some(path) = &output {
        let inputs: Vec<PathBuf> = ScanTables::files(&args.results).to_vec();
        check_outputs(&[OutputFile::new("-o", path)], inputs)?;
    }
    // The texts of the documents that have a language, read back from the
    // recorded inputs.
    let needed: FxHashSet<&Source> =
        tables.documents.iter().filter(|d| d.language.is_some()).map(|d| &d.source).collect();
    let SourceTexts { texts, missing, changed, .. } = tables.texts(&needed);
    if !missing.is_empty() || !changed.is_empty() {
        eprintln!(
            "parallels: warning: {} source file(s) not found and {} changed since the scan; their pairs are left out",
            missing.len(),
            changed.len()
        );
    }
    let by_source: FxHashMap<&Source, &str> = texts.iter().map(|(s, t)| (s, t.as_str())).collect();
    let by_id: FxHashMap<&str, &str> =
        tables.documents.iter().filter_map(|d| Some((d.id.as_str(), *by_source.get(&d.source)?))).collect();
    let mut pairs = sentence_pairs(&tables, &|id| by_id.get(id).copied());
    pairs.retain(|p| p.score >= args.min_score);
    let bytes = match args.format {
        ExportFormat::Tsv => tsv(&pairs),
        ExportFormat::Tmx => tmx(&pairs),
    };
    write_output(output.as_deref(), &bytes).with_context(|| {
        format!("{}: cannot write", output.as_deref().map_or("standard output".into(), |p| shown(p).to_string()))
    })?;
    eprintln!("{} sentence pairs", pairs.len());
    Ok(ExitCode::SUCCESS)
}
