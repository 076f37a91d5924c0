//! `parallels query`: the library passages new texts share, in the `align`
//! schema.

use anyhow::{bail, Context, Result};
use clap::Args;
use parallels::align::Prepared;
use parallels::corpus::{input_files, resolve, CorpusOptions, CorpusReader};
use parallels::index::{align_output, trim, Asked, Hit, Index};
use parallels::output::AlignOutput;
use parallels::plumbing::{check_outputs, OutputFile};
use parallels::read::{shown, Document};
use parallels::report::text::TextView;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `query --help` says of translations, after the options.
const ACROSS_LANGUAGES: &str = "\
Across languages: on an index that keeps sentence vectors (`index build` of a corpus in two or more
languages, or with --translations), a text is also asked in the index's other languages: its
sentences are encoded and paired by meaning with the library's, and the documents they point to are
aligned with it sentence by sentence (`parallel` passages). An English chapter finds its Chinese
original:
  parallels index build library/ --index lib.idx        # Chinese and English documents
  parallels query chapter-en.txt --index lib.idx --summary";

#[derive(Args, Debug)]
#[command(after_long_help = ACROSS_LANGUAGES)]
pub struct QueryArgs {
    /// Texts to look up: text files, folders of them, JSON Lines or
    /// Parquet files (every record a text); `-`: one text on standard
    /// input (id `stdin`), asked first (as is a pipe under another name,
    /// `<(…)` or a FIFO: one text each).
    #[arg(required_unless_present = "doc", value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Ask a document of the library (by id) against the rest of it
    /// instead of new texts: its passages as `scan` of the library gives
    /// them.
    #[arg(long, value_name = "ID", conflicts_with = "inputs")]
    doc: Option<String>,
    /// The index folder (`parallels index build`).
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
    /// JSON Lines / Parquet field holding the id of a text.
    #[arg(long, default_value_t = CorpusOptions::default().id_field, value_name = "FIELD")]
    id: String,
    /// JSON Lines / Parquet field holding the text.
    #[arg(long, default_value_t = CorpusOptions::default().text_field, value_name = "FIELD")]
    text: String,
    /// Output format: `text` (each pair's passages side by side) or
    /// `json` (the `parallels.align/1` document).
    #[arg(long, value_enum, default_value_t = QueryFormat::Text)]
    format: QueryFormat,
    /// Write the output to this file instead of standard output (`-`:
    /// standard output).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the HTML report (each pair side by side) to FILE (`-`:
    /// standard output, with `-o FILE`).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Library documents shown per text, the most significant first.
    #[arg(long, default_value_t = 20, value_name = "N")]
    top: usize,
    /// Leave out passages shorter than this in the text asked, in
    /// characters.
    #[arg(long, default_value_t = 0, value_name = "N")]
    min_chars: u32,
    /// Show only the summary lines in text output, not the passages.
    #[arg(long)]
    summary: bool,
    /// Print each text's query time to standard error (the index opened
    /// once; for benchmarks).
    #[arg(long)]
    timings: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryFormat {
    Text,
    Json,
}

/// The `align` output of texts and their hits, as the library makes it
/// ([`parallels::index::align_output`]).
pub(crate) fn output(index: &Index, asked: &[Asked], hits: &[Vec<Hit>]) -> Result<(AlignOutput, Vec<Document>)> {
    Ok(align_output(index, asked, hits)?)
}

/// Every document prepared as the index prepares it.
pub(crate) fn prepare(index: &Index, docs: &[Document]) -> Vec<Prepared> {
    use rayon::prelude::*;
    docs.par_iter().map(|d| index.aligner().prepare(&d.text)).collect()
}

/// The HTML report of an output.
pub(crate) fn html(out: &AlignOutput, docs: &[Document], prepared: &[Prepared]) -> Result<String> {
    let paths: Vec<String> = docs.iter().map(|d| shown(&d.path).to_string()).collect();
    let report_docs: Vec<parallels::report::ReportDoc> = docs
        .iter()
        .zip(prepared)
        .zip(&paths)
        .map(|((d, p), path)| parallels::report::ReportDoc {
            id: &d.id,
            path,
            encoding: &d.encoding,
            text: &d.text,
            prepared: p,
        })
        .collect();
    // The "All versions" view of three texts or more: their n-way table,
    // built here as `align` builds it, not by the renderer.
    let table = (docs.len() >= 3).then(|| {
        let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
        let prepared: Vec<&Prepared> = prepared.iter().collect();
        parallels::collate::build_table(&ids, &texts, &prepared, out)
    });
    parallels::report::align_page(&report_docs, out, table.as_ref()).context("cannot render the HTML report")
}

pub fn run(mut args: QueryArgs) -> Result<ExitCode> {
    crate::stdin::at_most_once(&args.inputs)?;
    args.output = crate::stdin::output(args.output);
    let html_dest = crate::stdin::html(args.html.clone(), args.output.as_deref())?;
    let (dash, files): (Vec<PathBuf>, Vec<PathBuf>) =
        args.inputs.iter().cloned().partition(|p| crate::stdin::is_stream(p));
    let html_file = html_dest.as_ref().and_then(|h| h.as_ref());
    let outputs: Vec<OutputFile> = [("-o", args.output.as_ref()), ("--html", html_file)]
        .into_iter()
        .filter_map(|(flag, path)| path.map(|p| OutputFile::new(flag, p)))
        .collect();
    let index = Index::open(&args.index)?;
    // Every file read: the index's and the inputs' (folders walked).
    let corpus = CorpusOptions { id_field: args.id.clone(), text_field: args.text.clone(), ..CorpusOptions::default() };
    let inputs = if args.doc.is_some() || files.is_empty() { Vec::new() } else { resolve(&files)? };
    check_outputs(&outputs, index.files().into_iter().chain(input_files(&inputs, &corpus)))?;
    crate::common::remove_stale(&outputs);
    if let Some(id) = &args.doc {
        let found = index.find(id);
        let [d] = found[..] else {
            bail!("{}: {} documents have the id {id:?}; give the id of exactly one", shown(&args.index), found.len())
        };
        let meta = index.doc(d).context("no such document")?;
        let asked = vec![Asked {
            id: meta.id.clone(),
            path: meta.source.to_string().into(),
            encoding: meta.encoding.clone(),
            text: index.text(d)?,
        }];
        let hits = vec![trim(index.query(&asked[0].text, Some(d))?, args.top, args.min_chars)];
        return write(&args, &index, &asked, &hits);
    }
    let limit = corpus.max_document_bytes;
    let mut reader = CorpusReader::new(inputs, corpus)?;
    let mut asked = Vec::new();
    for p in &dash {
        // Cut at the limit of a file while it is read.
        let d = crate::stdin::read_text(p, limit)?;
        asked.push(Asked { id: d.id, path: d.path, encoding: d.encoding, text: d.text });
    }
    // Each input skipped is named, as `scan` names it.
    let bars = crate::progress::Bars::new();
    let read = reader.read_batches(64, 8 << 20, &bars, |batch| {
        for d in batch {
            asked.push(Asked {
                id: d.id,
                path: d.origin.source.to_string().into(),
                encoding: d.encoding,
                text: d.text,
            });
        }
        Ok::<(), anyhow::Error>(())
    });
    match read {
        Ok(()) => {}
        Err(parallels::corpus::BatchStop::Consumer(e)) => return Err(e),
        Err(parallels::corpus::BatchStop::Strict(p)) => bail!("{p}"),
    }
    bars.hidden_problems();
    if asked.is_empty() {
        bail!("{}", crate::scan::nothing_read(reader.summary().skipped_total()));
    }
    let mut hits = Vec::with_capacity(asked.len());
    for a in &asked {
        let start = std::time::Instant::now();
        let (h, t) = index
            .query_timed(&a.text, None)
            .with_context(|| format!("{}: cannot read the index", shown(&args.index)))?;
        if args.timings {
            eprintln!(
                "query {}: {:.2} ms, {} documents (text {:.2} ms; {} lookups {:.2} ms; {} candidates, {} kept, \
                 {} lookups, {:.2} ms; align {:.2} ms)",
                a.id,
                start.elapsed().as_secs_f64() * 1000.0,
                h.len(),
                t.text_ms,
                t.hashes,
                t.lookup_ms,
                t.candidates,
                t.kept,
                t.candidate_lookups,
                t.candidates_ms,
                t.align_ms
            );
            if let Some(lang) = &t.across_language {
                eprintln!(
                    "query {} across languages ({lang}): {} sentences, {} pairs mined, {:.2} ms; {} candidates \
                     aligned, {:.2} ms",
                    a.id, t.across_units, t.across_mined, t.across_mine_ms, t.across_candidates, t.across_align_ms
                );
            }
        }
        hits.push(trim(h, args.top, args.min_chars));
    }
    write(&args, &index, &asked, &hits)
}

/// Write the output of `query` (and its HTML report).
fn write(args: &QueryArgs, index: &Index, asked: &[Asked], hits: &[Vec<Hit>]) -> Result<ExitCode> {
    let (out, docs) = output(index, asked, hits)?;
    let prepared = prepare(index, &docs);
    if let Some(dest) = crate::stdin::html(args.html.clone(), args.output.as_deref())? {
        crate::common::write_output(dest.as_deref(), html(&out, &docs, &prepared)?.as_bytes())?;
    }
    let mut buf: Vec<u8> = Vec::new();
    match args.format {
        QueryFormat::Json => {
            serde_json::to_writer_pretty(&mut buf, &out)?;
            buf.push(b'\n');
        }
        QueryFormat::Text => {
            let color = args.output.is_none()
                && std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            let view = TextView {
                out: &out,
                docs: &docs,
                prepared: &prepared,
                color,
                width: crate::common::terminal_width(),
                summary_only: args.summary,
            };
            view.write(&mut buf)?;
        }
    }
    crate::common::write_output(args.output.as_deref(), &buf)?;
    Ok(ExitCode::SUCCESS)
}
