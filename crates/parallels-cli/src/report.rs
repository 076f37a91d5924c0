//! `parallels report`: the HTML report of a scan's results folder.

use anyhow::{bail, Context, Result};
use clap::Args;
use parallels::align::{Aligner, Options, Prepared};
use parallels::corpus::{resolve, CorpusOptions, CorpusReader, Source};
use parallels::plumbing::{check_outputs, OutputFile};
use parallels::read::shown;
use parallels::report::scan::{scan_site, top_pairs, SiteInput, DEFAULT_MAX_PAIRS, MAX_CLUSTERS, MAX_MEMBERS};
use parallels::report::ReportDoc;
use parallels::scan::{ScanCluster, ScanDocument, ScanPassage, ScanSummary};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A `parallels scan` results folder (documents.jsonl, passages.jsonl,
    /// clusters.jsonl, summary.json).
    #[arg(value_name = "RESULTS")]
    results: PathBuf,
    /// Folder for the report: index.html and pairs/NNNN.html.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// Write side-by-side pages for this many pairs, those sharing the most
    /// text.
    #[arg(long, default_value_t = DEFAULT_MAX_PAIRS, value_name = "N")]
    max_pairs: usize,
}

/// One JSON object per line; an error names the file and line.
fn read_lines<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", shown(path)))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{}:{}: not a row of a `parallels scan` table", shown(path), k + 1))
        })
        .collect()
}

pub fn run(args: ReportArgs) -> Result<ExitCode> {
    let dir = &args.results;
    if !dir.join("documents.jsonl").exists() {
        if dir.join("documents.parquet").exists() {
            bail!(
                "{}: the report reads the JSON Lines tables; run `parallels scan` without --format parquet",
                shown(dir)
            );
        }
        bail!("{}: not a `parallels scan` results folder (no documents.jsonl)", shown(dir));
    }
    let documents: Vec<ScanDocument> = read_lines(&dir.join("documents.jsonl"))?;
    let passages: Vec<ScanPassage> = read_lines(&dir.join("passages.jsonl"))?;
    let clusters: Vec<ScanCluster> = read_lines(&dir.join("clusters.jsonl"))?;
    let summary_path = dir.join("summary.json");
    let summary: ScanSummary = serde_json::from_slice(
        &std::fs::read(&summary_path).with_context(|| format!("{}: cannot read", shown(&summary_path)))?,
    )
    .with_context(|| format!("{}: not the summary.json of a `parallels scan`", shown(&summary_path)))?;

    // The texts the pages show: the top pairs and the members of the
    // clusters listed.
    let mut needed: FxHashSet<&Source> = FxHashSet::default();
    for (a, b, _, _) in top_pairs(&passages, args.max_pairs) {
        for id in [a, b] {
            if let Some(d) = documents.iter().find(|d| d.id == id) {
                needed.insert(&d.source);
            }
        }
    }
    let mut by_size: Vec<&ScanCluster> = clusters.iter().collect();
    by_size.sort_by(|x, y| y.size.cmp(&x.size).then(x.id.cmp(&y.id)));
    let ids: FxHashSet<&str> = by_size
        .iter()
        .take(MAX_CLUSTERS)
        .flat_map(|c| c.members.iter().take(MAX_MEMBERS).map(|m| m.doc.as_str()))
        .collect();
    for d in documents.iter().filter(|d| ids.contains(d.id.as_str())) {
        needed.insert(&d.source);
    }
    // Paths as the scan read them, byte for byte (not necessarily UTF-8).
    let mut files: Vec<PathBuf> = needed.iter().map(|s| s.file.to_path_buf()).collect();
    files.sort();
    files.dedup();
    let options = CorpusOptions {
        id_field: summary.fields.id.clone(),
        text_field: summary.fields.text.clone(),
        ..Default::default()
    };
    let mut texts: Vec<(Source, String)> = Vec::new();
    let mut missing = Vec::new();
    for file in &files {
        let Ok(inputs) = resolve(std::slice::from_ref(file)) else {
            missing.push(file.clone());
            continue;
        };
        let Ok(reader) = CorpusReader::new(inputs, options.clone()) else {
            missing.push(file.clone());
            continue;
        };
        for d in reader.flatten() {
            if needed.contains(&d.origin.source) {
                texts.push((d.origin.source, d.text));
            }
        }
    }
    if !missing.is_empty() {
        eprintln!(
            "parallels: warning: {} source file(s) not found, e.g. {} (sources are paths as the scan saw them: run `report` from the folder `scan` ran in); their pairs get no page",
            missing.len(),
            shown(&missing[0])
        );
    }
    let aligner = Aligner::new(Options::default());
    let prepared: Vec<Prepared> = texts.iter().map(|(_, t)| aligner.prepare(t)).collect();
    let by_source: FxHashMap<&Source, usize> = texts.iter().enumerate().map(|(k, (s, _))| (s, k)).collect();
    let paths: Vec<String> = documents.iter().map(|d| d.source.to_string()).collect();
    let mut report_docs: FxHashMap<String, ReportDoc> = FxHashMap::default();
    for (d, path) in documents.iter().zip(&paths) {
        if let Some(&k) = by_source.get(&d.source) {
            report_docs.insert(
                d.id.clone(),
                ReportDoc { id: &d.id, path, encoding: &d.encoding, text: &texts[k].1, prepared: &prepared[k] },
            );
        }
    }
    let site = SiteInput {
        documents: &documents,
        passages: &passages,
        clusters: &clusters,
        summary: &summary,
        texts: &report_docs,
        max_pairs: args.max_pairs,
    };
    let pages = scan_site(&site).context("cannot render the report")?;
    // Nothing is written (not even the folder) when a page would overwrite
    // a table or a text it was made from.
    let outputs: Vec<OutputFile> = pages.iter().map(|p| OutputFile::new("-o", args.output.join(&p.path))).collect();
    let tables = ["documents.jsonl", "passages.jsonl", "clusters.jsonl", "summary.json"].map(|t| dir.join(t));
    check_outputs(&outputs, tables.iter().cloned().chain(files.iter().cloned()))?;
    crate::remove_stale(&outputs);
    std::fs::create_dir_all(args.output.join("pairs"))
        .with_context(|| format!("{}: cannot create the report folder", shown(&args.output)))?;
    for page in &pages {
        let path = args.output.join(&page.path);
        crate::write_output(Some(&path), page.html.as_bytes())?;
    }
    eprintln!(
        "report: {} page(s) ({} pair page(s)); open {}",
        pages.len(),
        pages.len() - 1,
        shown(&args.output.join("index.html"))
    );
    Ok(ExitCode::SUCCESS)
}
