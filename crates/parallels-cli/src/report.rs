//! `parallels report`: the HTML report of a scan's results folder.

use crate::progress::Bars;
use anyhow::{Context, Result};
use clap::Args;
use parallels::align::{Aligner, Options, Prepared};
use parallels::corpus::Source;
use parallels::plumbing::{check_outputs, commit_all, AtomicFile, OutputFile, Progress};
use parallels::read::shown;
use parallels::report::scan::{
    listed_passages, ranked_clusters, scan_site, top_pairs, SiteInput, DEFAULT_MAX_PAIRS, MAX_CLUSTERS, MAX_MEMBERS,
    MAX_PASSAGES,
};
use parallels::report::ReportDoc;
use parallels::scan::{ScanDocument, ScanTables, SourceTexts};
use rustc_hash::{FxHashMap, FxHashSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A `parallels scan` results folder (documents.jsonl, passages.jsonl,
    /// clusters.jsonl, summary.json; or the tables of --format parquet).
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

pub fn run(args: ReportArgs) -> Result<ExitCode> {
    let dir = &args.results;
    let tables = ScanTables::read(dir)?;
    let ScanTables { documents, passages, clusters, summary } = &tables;

    // The texts the pages show: the top pairs (prepared for their pages),
    // the passages the index lists and the members of the clusters listed
    // (for their excerpts).
    let by_id: FxHashMap<&str, &ScanDocument> = documents.iter().map(|d| (d.id.as_str(), d)).collect();
    let top = top_pairs(passages, args.max_pairs);
    let paired: FxHashSet<&str> = top.iter().flat_map(|(a, b, _, _)| [a.as_str(), b.as_str()]).collect();
    let mut listed: FxHashSet<&str> = paired.clone();
    for k in listed_passages(passages, MAX_PASSAGES) {
        listed.insert(&passages[k].a_doc);
        listed.insert(&passages[k].b_doc);
    }
    for (c, _) in ranked_clusters(clusters, passages, MAX_CLUSTERS) {
        listed.extend(clusters[c].members.iter().take(MAX_MEMBERS).map(|m| m.doc.as_str()));
    }
    let needed: FxHashSet<&Source> = listed.iter().filter_map(|id| by_id.get(id)).map(|d| &d.source).collect();
    let SourceTexts { texts, files, missing, changed } = tables.texts(&needed);
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
    // The texts prepared as the scan prepared them, so that the marks of
    // a pair's page are what the scan compared.
    let aligner = Aligner::new(Options { normalize: summary.normalize.options(), ..Options::default() });
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
        documents,
        passages,
        clusters,
        summary,
        texts: &report_docs,
        originals: &originals,
        max_pairs: args.max_pairs,
    };
    let pages = scan_site(&site).context("cannot render the report")?;
    // Nothing is written (not even the folder) when a page would overwrite
    // a table or a text it was made from.
    let outputs: Vec<OutputFile> = pages.iter().map(|p| OutputFile::new("-o", args.output.join(&p.path))).collect();
    check_outputs(&outputs, ScanTables::files(dir).into_iter().chain(files))?;
    crate::common::remove_stale(&outputs);
    // The pages are written as a set: each under a temporary name, and
    // renamed into place only once all are written, `index.html` last.
    // After a failure (a full disk), the folder holds the earlier report,
    // or nothing (folders this run made are removed again).
    let folder = crate::common::NewFolder::create(&args.output)?;
    let pairs = crate::common::NewFolder::create(&args.output.join("pairs"))?;
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
