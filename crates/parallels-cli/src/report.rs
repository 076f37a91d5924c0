//! `parallels report`: the HTML report of a scan's results folder.

use crate::progress::Bars;
use anyhow::{bail, Context, Result};
use clap::Args;
use parallels::align::{Aligner, Options, Prepared};
use parallels::corpus::{CorpusOptions, CorpusReader, Input, Position, Source};
use parallels::plumbing::{check_outputs, commit_all, AtomicFile, OutputFile, Progress};
use parallels::read::shown;
use parallels::report::scan::{
    listed_passages, ranked_clusters, scan_site, top_pairs, SiteInput, DEFAULT_MAX_PAIRS, MAX_CLUSTERS, MAX_MEMBERS,
    MAX_PASSAGES,
};
use parallels::report::ReportDoc;
use parallels::scan::{InputFile, ScanCluster, ScanDocument, ScanPassage, ScanSummary};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::DeserializeOwned;
use std::io::Write;
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
    /// Write side-by-side pages for this many pairs, the most significant
    /// (the sum of their passages' significance); they are also the graph's.
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

    // The files the scan read: the only ones read again, and every
    // document's source must be one of them.
    let Some(recorded) = &summary.inputs else {
        bail!(
            "{}: written by a version of parallels that did not record the scan's input files, \
             and `report` reads back only recorded inputs; run `parallels scan` again",
            shown(&summary_path)
        );
    };
    let inputs: FxHashMap<&Path, &InputFile> = recorded.iter().map(|f| (f.path.as_path(), f)).collect();
    if let Some(d) = documents.iter().find(|d| !inputs.contains_key(&*d.source.file)) {
        bail!(
            "{}: document {:?} names the source {}, which is not among the input files the scan recorded in {}; \
             `report` reads only those (was the results folder edited?); nothing was written",
            shown(&dir.join("documents.jsonl")),
            d.id,
            shown(&d.source.file),
            shown(&summary_path)
        );
    }

    // The texts the pages show: the top pairs (prepared for their pages),
    // the passages the index lists and the members of the clusters listed
    // (for their excerpts).
    let by_id: FxHashMap<&str, &ScanDocument> = documents.iter().map(|d| (d.id.as_str(), d)).collect();
    let top = top_pairs(&passages, args.max_pairs);
    let paired: FxHashSet<&str> = top.iter().flat_map(|(a, b, _, _)| [a.as_str(), b.as_str()]).collect();
    let mut listed: FxHashSet<&str> = paired.clone();
    for k in listed_passages(&passages, MAX_PASSAGES) {
        listed.insert(&passages[k].a_doc);
        listed.insert(&passages[k].b_doc);
    }
    for (c, _) in ranked_clusters(&clusters, &passages, MAX_CLUSTERS) {
        listed.extend(clusters[c].members.iter().take(MAX_MEMBERS).map(|m| m.doc.as_str()));
    }
    let needed: FxHashSet<&Source> = listed.iter().filter_map(|id| by_id.get(id)).map(|d| &d.source).collect();
    let mut files: Vec<&Source> = needed.iter().copied().collect();
    files.sort_by(|x, y| x.file.cmp(&y.file));
    files.dedup_by(|x, y| x.file == y.file);
    let options = CorpusOptions {
        id_field: summary.fields.id.clone(),
        text_field: summary.fields.text.clone(),
        ..Default::default()
    };
    let mut texts: Vec<(Source, String)> = Vec::new();
    let (mut missing, mut changed) = (Vec::new(), Vec::new());
    for source in &files {
        let file: &Path = &source.file;
        // Only a file the scan read, and only while it holds the bytes it
        // held then: never a folder walked, never a pattern expanded.
        let recorded = &inputs[file];
        let bytes = match std::fs::read(file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push(file.to_owned());
                continue;
            }
            Err(e) => {
                changed.push(format!("{} ({e})", shown(file)));
                continue;
            }
        };
        if InputFile::of_bytes(file, &bytes) != **recorded {
            changed.push(format!("{} (its size or contents differ from the scan's)", shown(file)));
            continue;
        }
        drop(bytes);
        let path = file.to_path_buf();
        let input = match source.position {
            Position::Whole => Input::Text { root: path.parent().map(Path::to_path_buf).unwrap_or_default(), path },
            Position::Line(_) => Input::Jsonl(path),
            Position::Row(_) => Input::Parquet(path),
        };
        let reader = match CorpusReader::new(vec![input], options.clone()) {
            Ok(reader) => reader,
            Err(e) => {
                changed.push(format!("{} ({e})", shown(file)));
                continue;
            }
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
    if !changed.is_empty() {
        eprintln!(
            "parallels: warning: {} source file(s) changed since the scan, e.g. {}; their texts are not shown (run `parallels scan` again) and their pairs get no page",
            changed.len(),
            changed[0]
        );
    }
    let by_source: FxHashMap<&Source, usize> = texts.iter().enumerate().map(|(k, (s, _))| (s, k)).collect();
    let aligner = Aligner::new(Options::default());
    let paths: Vec<String> = documents.iter().map(|d| d.source.to_string()).collect();
    let mut originals: FxHashMap<&str, &str> = FxHashMap::default();
    let mut prepared: Vec<(usize, usize, Prepared)> = Vec::new();
    for (i, d) in documents.iter().enumerate() {
        if let Some(&k) = by_source.get(&d.source) {
            originals.insert(&d.id, &texts[k].1);
            if paired.contains(d.id.as_str()) {
                prepared.push((i, k, aligner.prepare(&texts[k].1)));
            }
        }
    }
    let report_docs: FxHashMap<String, ReportDoc> = prepared
        .iter()
        .map(|(i, k, p)| {
            let d = &documents[*i];
            let doc = ReportDoc { id: &d.id, path: &paths[*i], encoding: &d.encoding, text: &texts[*k].1, prepared: p };
            (d.id.clone(), doc)
        })
        .collect();
    let site = SiteInput {
        documents: &documents,
        passages: &passages,
        clusters: &clusters,
        summary: &summary,
        texts: &report_docs,
        originals: &originals,
        max_pairs: args.max_pairs,
    };
    let pages = scan_site(&site).context("cannot render the report")?;
    // Nothing is written (not even the folder) when a page would overwrite
    // a table or a text it was made from.
    let outputs: Vec<OutputFile> = pages.iter().map(|p| OutputFile::new("-o", args.output.join(&p.path))).collect();
    let tables = ["documents.jsonl", "passages.jsonl", "clusters.jsonl", "summary.json"].map(|t| dir.join(t));
    check_outputs(&outputs, tables.iter().cloned().chain(files.iter().map(|s| s.file.to_path_buf())))?;
    crate::remove_stale(&outputs);
    // The pages are written as a set: each under a temporary name, and
    // renamed into place only once all are written, `index.html` last.
    // After a failure (a full disk), the folder holds the earlier report,
    // or nothing (folders this run made are removed again).
    let folder = crate::NewFolder::create(&args.output)?;
    let pairs = crate::NewFolder::create(&args.output.join("pairs"))?;
    let bars = Bars::new();
    bars.stage("pages", Some(pages.len() as u64));
    let mut written = Vec::with_capacity(pages.len());
    let mut order: Vec<&parallels::report::scan::Page> = pages.iter().collect();
    order.sort_by_key(|p| p.path == "index.html");
    for page in order {
        let path = args.output.join(&page.path);
        let write = || -> std::io::Result<AtomicFile> {
            let mut f = AtomicFile::create(&path)?;
            f.write_all(page.html.as_bytes())?;
            Ok(f)
        };
        written.push(write().with_context(|| format!("{}: cannot write", shown(&path)))?);
        bars.advance(1);
    }
    bars.stage("", None);
    commit_all(written).with_context(|| format!("{}: cannot write the report", shown(&args.output)))?;
    pairs.keep();
    folder.keep();
    eprintln!(
        "report: {} page(s) ({} pair page(s)); open {}",
        pages.len(),
        pages.len() - 1,
        shown(&args.output.join("index.html"))
    );
    Ok(ExitCode::SUCCESS)
}
