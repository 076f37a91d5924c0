//! `scan`: every shared passage across a whole corpus, without comparing all
//! pairs.
//!
//! # Stages
//!
//! ```text
//! read (corpus) → prepare + seeds → sort seeds → candidate pairs → [translations] → align → cluster → write
//! ```
//!
//! 1. **Read and prepare.** Documents stream from a [`CorpusReader`] in
//!    batches read ahead on a thread of their own
//!    ([`CorpusReader::read_batches`], as `dedup` reads); each batch is normalized, segmented and fingerprinted in
//!    parallel (`seeds::seeds`). Texts go to a store file in the work
//!    folder; only a small record per document stays in memory.
//! 2. **Candidates.** Seeds are sorted by hash through the external sorter
//!    ([`crate::plumbing::sort`]) that spills beyond the memory budget; pairs of documents
//!    that share at least `min_seeds` seeds, none of them in more than
//!    `max_df` documents, are candidates (`seeds::pairs`).
//!    While reading, every sentence's features are counted into a
//!    fixed-size table ([`CorpusDf`]), so that alignment weighs features by
//!    how rare they are in the whole corpus, not just in the two documents.
//! 3. **Align.** Candidate pairs are aligned in chunks: the documents a chunk
//!    needs are read back from the store and prepared once, then the pairs
//!    are aligned in parallel with the same [`Aligner`] as `parallels align`,
//!    but for the pairs whose shared seeds cannot add up to a reported
//!    passage (`can_reach`: most candidate pairs of a newspaper share only
//!    formula). The pair aligner is `pairs` (shared with the index's
//!    queries and Spark's batches).
//!    Preparing again was chosen over storing tokens (a token would take
//!    about 14 bytes on disk, its character 3): a deliberate exception to
//!    "no stage redoes another's work", not yet measured against the
//!    alternative. Normalizing runs at 40–70 MB/s per core.
//!    Before them, in a corpus of two or more languages the encoder
//!    knows, **translations**: candidates by meaning ([`crate::mine`]),
//!    aligned with meaning from the sentences' stored pooled rows
//!    (`across`); the lexical stage leaves those pairs alone.
//! 4. **Cluster** passages by overlapping spans (`cluster`).
//!
//! Output order is fixed by document order and pair order, never by thread
//! timing: the same input gives the same output whatever the thread count.
//!
//! # Checkpoints
//!
//! Every stage leaves its result in the work folder, its last file written
//! through a temporary name and a rename: `read.json` (after the texts,
//! `docs.jsonl`, `df.bin` (the feature table, its empty buckets as runs:
//! `zero_runs`) and the sorted seed runs), `candidates.json` (after
//! `candidates.bin`), and one `aligned.NNNNNN.jsonl` per chunk of candidate
//! pairs. `manifest.json` records what the results depend on, typed and
//! compared as such: the [`InputKey`] (every input file's size and
//! modification time, and the [`CorpusOptions`](crate::corpus::CorpusOptions)) and the options (the
//! alignment options in their `Debug` form until `align::Options` has a
//! serde form). A run with [`Work::resume`] and the same manifest takes
//! over every finished stage and chunk and redoes only the rest; as the
//! uninterrupted run also reads its chunks back from these files, both end
//! with the same bytes.
//!
//! The driver, [`scan`], is a sequence of stage functions, each either
//! taking over its checkpoint (`take_over_read`, `take_over_candidates`,
//! the finished chunks) or running (`read_stage`, `candidate_stage`,
//! `align_stage`), then `assemble`. The text store is read back with
//! positioned reads (`pread` on Unix, `seek_read` on Windows, a locked
//! seek elsewhere), so that aligning threads share one file handle.
//!
//! # Where each part lives
//!
//! This file is the stage sequence; the rest is in rooms of its own:
//!
//! * `options`: [`ScanOptions`], its defaults and [`ScanOptions::check`];
//! * `error`: [`ScanError`];
//! * `schema`: the rows of `parallels.scan/1` ([`ScanDocument`],
//!   [`ScanPassage`], [`ScanCluster`], [`ScanSummary`] …),
//!   [`ScanResult`] (with [`Resumed`]) and the record of an aligned
//!   chunk's pair ([`Aligned`]);
//! * `work`: the work folder ([`Work`], [`InputKey`]), its manifest and
//!   the checkpoint records each stage leaves there;
//! * `store`: the texts' store (`texts.bin`), read back by offset;
//! * `seeds`: winnowed seeds and the candidate pairs they make;
//! * `significance`: what a passage is worth ([`significance()`]);
//! * `pairs`: the pair aligner `scan`, the index's queries and Spark's
//!   batches share;
//! * `across`: the translations stage (`pooled.bin`, `across.json`,
//!   `across.NNNNNN.jsonl`); [`bitext`]: the sentence pairs of its
//!   passages, as TSV or TMX (`parallels export`);
//! * `cluster`: clusters of passages by overlapping spans;
//! * `jsonl_out` and [`parquet_out`]: the writers of the tables
//!   ([`write_jsonl`], [`write_parquet`]), each a [`TableWriter`]
//!   (`table_writer`) listed in [`TABLE_WRITERS`]; `results`, their reader
//!   ([`ScanTables::read`], the texts again from the recorded inputs:
//!   [`ScanTables::texts`]);
//! * [`batch`]: the same steps over one batch, for a distributed driver;
//! * `zero_runs`: runs of empty buckets in `df.bin`.

mod across;
pub mod batch;
pub mod bitext;
mod cluster;
mod error;
mod jsonl_out;
mod options;
mod pairs;
pub mod parquet_out;
mod results;
mod schema;
pub mod seeds;
pub mod significance;
mod store;
mod table_writer;
mod work;
mod zero_runs;

use store::{read_text, Store};
use work::{clear_work, open_work, read_json, CandidatesDone, DocRecord, ReadDone, SeedDfIndex};

use crate::align::features::CorpusDf;
use crate::align::{Aligner, Span};
use crate::corpus::{BatchStop, CorpusDoc, CorpusReader, Input, Summary};
use crate::mine;
use crate::normalize::Switches;
use crate::plumbing::sort::{Sorted, Sorter};
use crate::plumbing::{write_atomic, AtomicFile, Progress};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub use error::ScanError;
pub use jsonl_out::write_jsonl;
pub use options::{ScanOptions, MAX_DF_BITS, MIN_CHAIN, MIN_DF_BITS, MIN_MEMORY, MIN_VERBATIM_TOKENS};
pub use pairs::{align_prepared, can_reach, ChunkDoc};
pub use parquet_out::write_parquet;
pub use results::{ResultsError, ScanTables, SourceTexts};
pub use table_writer::{TableWriter, TABLES};

/// Every format of the scan tables (see [`TableWriter`]); the first is the
/// default.
pub static TABLE_WRITERS: &[&dyn TableWriter] = &[&jsonl_out::Jsonl, &parquet_out::Parquet];

pub use schema::{
    Aligned, ClusterMember, InputFile, Passages, Resumed, ScanCluster, ScanDocument, ScanFields, ScanPassage,
    ScanResult, ScanStats, ScanSummary, Template, SCAN_SCHEMA, TEMPLATES_LISTED,
};
pub use seeds::SeedParams;
pub use significance::{
    seed_weight, significance, Commonness, Reporting, Side, TokenWeights, COPY_MAX_DF, MIN_PARALLEL_PAIR,
    MIN_SIGNIFICANCE, MIN_SPECIFICITY, PROSE_RATIO,
};
pub use work::{InputKey, Work};

/// A batch of documents read holds at most [`ScanOptions::batch`]
/// documents, and fewer once it holds this many bytes of JSON Lines.
const BATCH_BYTES: usize = 8 << 20;

/// Scan a corpus, keeping intermediate results in `work.dir` (spill files,
/// the text store, and a checkpoint after each stage and each aligned
/// chunk). A run that is killed can be run again with `work.resume`: it
/// takes over what the earlier run finished and ends with the same result.
///
/// The result owns the folder ([`ScanResult::remove_work`]). After an I/O
/// error ([`ScanError::Io`]: a full disk, say) the folder stays, for a run
/// with [`Work::resume`] once the cause is fixed; after any other error
/// it is removed, as nothing in it can be of use.
pub fn scan(
    reader: &mut CorpusReader,
    opts: &ScanOptions,
    work: &Work,
    progress: &dyn Progress,
) -> Result<ScanResult, ScanError> {
    opts.check()?;
    let result = run_stages(reader, opts, work, progress);
    if let Err(e) = &result {
        if !matches!(e, ScanError::Io { .. }) {
            let _ = std::fs::remove_dir_all(&work.dir);
        }
    }
    result
}

/// [`scan`]'s stages, one after the other.
fn run_stages(
    reader: &mut CorpusReader,
    opts: &ScanOptions,
    work: &Work,
    progress: &dyn Progress,
) -> Result<ScanResult, ScanError> {
    let dir = work.dir.as_path();
    let aligner = Aligner::new(opts.align.clone());
    let mut resumed = Resumed { matched: open_work(work, opts).map_err(io_at(dir))?, ..Resumed::default() };

    // 1. Read and prepare.
    let taken = if resumed.matched { take_over_read(dir)? } else { None };
    resumed.read = taken.is_some();
    let read = match taken {
        Some(read) => read,
        None => {
            if resumed.matched {
                clear_work(dir).map_err(io_at(dir))?;
            }
            read_stage(reader, opts, &aligner, dir, progress)?
        }
    };
    let Read { docs, df, mut stats, corpus, runs } = read;
    let texts = File::open(dir.join("texts.bin")).map_err(io_at(dir))?;

    // 2. Candidate pairs.
    progress.stage("candidates", None);
    let taken = if resumed.read { take_over_candidates(dir, docs.len())? } else { None };
    resumed.candidates = taken.is_some();
    let (candidates, boilerplate, seed_df) = match taken {
        Some(found) => found,
        None => candidate_stage(&docs, &texts, runs, opts, &aligner, dir)?,
    };
    stats.candidate_pairs = candidates.len() as u64;
    stats.boilerplate = boilerplate;

    // 3. Translations: candidates by meaning across languages, aligned
    // with meaning; their pairs are not aligned again lexically.
    let across_aligner = across::aligner(opts);
    let taken = if resumed.read && opts.across { across::take_over(dir) } else { None };
    let took_over = taken.is_some();
    let found = match taken {
        Some(found) => Some(found),
        None => across::run(&docs, &texts, opts, &across_aligner, dir, progress).map_err(io_at(dir))?,
    };
    let mut translated = AlignedChunks::default();
    if let Some(found) = &found {
        stats.languages = found.languages.clone();
        stats.across_sentences = found.sentences;
        stats.across_encoded = found.encoded;
        stats.across_candidates = found.candidates.len() as u64;
        across_stage(found, &docs, &texts, &across_aligner, dir, took_over, &mut translated, &mut resumed, progress)?;
        stats.across_pairs = translated.pairs;
    }
    let across_pairs: rustc_hash::FxHashSet<(u32, u32)> = translated.spans.iter().map(|&(a, _, b, _)| (a, b)).collect();

    // 4. Align, chunk by chunk.
    let mut aligned = align_stage(
        &candidates,
        &docs,
        &texts,
        &seed_df,
        &aligner,
        &df,
        opts,
        dir,
        &across_pairs,
        &mut resumed,
        progress,
    )?;
    stats.aligned_pairs = aligned.pairs + translated.pairs;
    stats.insignificant = aligned.insignificant;
    stats.templates = std::mem::take(&mut aligned.templates);
    aligned.spans.extend(translated.spans);
    aligned.files.extend(translated.files);

    // 5. Cluster and describe.
    progress.stage("clustering", None);
    let mut result = assemble(docs, aligned.spans, aligned.files, stats, &texts).map_err(io_at(dir))?;
    result.corpus = corpus;
    result.resumed = resumed;
    result.fields = ScanFields { id: reader.options().id_field.clone(), text: reader.options().text_field.clone() };
    result.normalize = Switches::of(&opts.align.normalize);
    result.work = Some(work.dir.clone());
    result.tables = reader
        .inputs()
        .iter()
        .filter_map(|i| match i {
            Input::Table(t) => Some(t.name().to_path_buf()),
            _ => None,
        })
        .collect();
    Ok(result)
}

/// An I/O error at `path`, as a [`ScanError`].
fn io_at(path: &Path) -> impl Fn(io::Error) -> ScanError + '_ {
    move |source| ScanError::Io { path: path.to_path_buf(), source }
}

/// The most frequent boilerplate n-grams: document frequency and text.
type Boilerplate = Vec<(u32, String)>;

/// What reading leaves for the later stages.
struct Read {
    docs: Vec<DocRecord>,
    df: CorpusDf,
    stats: ScanStats,
    corpus: Summary,
    /// The sorted runs of seeds.
    runs: Vec<PathBuf>,
}

/// Stage 1 as an interrupted run finished it, if it did (`read.json`).
fn take_over_read(dir: &Path) -> Result<Option<Read>, ScanError> {
    let Some(done) = read_json::<ReadDone>(&dir.join("read.json")) else {
        return Ok(None);
    };
    let docs = std::fs::read_to_string(dir.join("docs.jsonl"))
        .map_err(io_at(dir))?
        .lines()
        .map(serde_json::from_str::<DocRecord>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| io_at(dir)(e.into()))?;
    let mut f = zero_runs::Expand::new(io::BufReader::new(File::open(dir.join("df.bin")).map_err(io_at(dir))?));
    let df = CorpusDf::load(&mut f).map_err(io_at(dir))?;
    let runs = done.runs.iter().map(|r| dir.join(r)).collect();
    Ok(Some(Read { docs, df, stats: done.stats, corpus: done.corpus, runs }))
}

/// Stage 2 as an interrupted run finished it, if it did
/// (`candidates.json`).
fn take_over_candidates(
    dir: &Path,
    docs: usize,
) -> Result<Option<(Vec<seeds::Candidate>, Boilerplate, SeedDfIndex)>, ScanError> {
    let Some(done) = read_json::<CandidatesDone>(&dir.join("candidates.json")) else {
        return Ok(None);
    };
    let bytes = std::fs::read(dir.join("candidates.bin")).map_err(io_at(dir))?;
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
    let candidates: Vec<seeds::Candidate> =
        bytes.chunks_exact(12).map(|c| (word(&c[..4]), word(&c[4..8]), word(&c[8..]))).collect();
    if candidates.len() as u64 != done.count {
        return Err(io_at(dir)(io::Error::new(io::ErrorKind::InvalidData, "candidates.bin is cut short")));
    }
    let seed_df = SeedDfIndex::open(dir, docs).map_err(io_at(dir))?;
    Ok(Some((candidates, done.boilerplate, seed_df)))
}

/// Stage 1: read the corpus batch by batch; store the texts, count the
/// features, sort the seeds into runs; leave `read.json` when done.
fn read_stage(
    reader: &mut CorpusReader,
    opts: &ScanOptions,
    aligner: &Aligner,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Read, ScanError> {
    let io_err = |source: io::Error| ScanError::Io { path: dir.to_path_buf(), source };
    let seed_chunk = (opts.memory / 2 / 16).max(1 << 16) as usize;
    let mut sorter: Sorter<seeds::Seed> = Sorter::new(dir, "seeds", seed_chunk);
    let mut store = Store::create(dir).map_err(io_err)?;
    let mut docs: Vec<DocRecord> = Vec::new();
    let mut stats = ScanStats::default();
    let corpus_df = CorpusDf::new(opts.df_bits);
    progress.stage("documents", None);
    let read = reader.read_batches(opts.batch, BATCH_BYTES, progress, |batch: Vec<CorpusDoc>| {
        // Characters, seeds (hash, position) and language of each document.
        type Fingerprint<'a> = (u64, Vec<(u64, u32)>, Option<&'a str>);
        let fingerprints: Vec<Fingerprint> = batch
            .par_iter()
            .map(|d| {
                let p = aligner.prepare(&d.text);
                corpus_df.add(&p.seg);
                (p.chars as u64, seeds::seeds(&p.seg, &opts.seeds), mine::language(&d.text))
            })
            .collect();
        for (d, (chars, fp, language)) in batch.into_iter().zip(fingerprints) {
            let doc = docs.len() as u32;
            if docs.len() as u64 >= u32::MAX as u64 - 1 {
                return Err(ScanError::TooManyDocuments { max: u32::MAX as u64 - 1 });
            }
            for (hash, pos) in fp {
                sorter.push(seeds::Seed { hash, doc, pos }).map_err(io_err)?;
            }
            let (offset, len) = store.push(&d.text).map_err(io_err)?;
            stats.chars += chars;
            docs.push(DocRecord {
                id: d.id,
                source: d.origin.source,
                encoding: d.encoding,
                language: language.map(str::to_owned),
                group: d.group,
                meta: d.meta,
                chars,
                offset,
                len,
            });
        }
        progress.advance(docs.len() as u64 - stats.documents);
        stats.documents = docs.len() as u64;
        Ok(())
    });
    match read {
        Ok(()) => {}
        Err(BatchStop::Strict(problem)) => return Err(ScanError::Strict(problem)),
        Err(BatchStop::Consumer(e)) => return Err(e),
    }
    stats.skipped = reader.summary().skipped_total();
    stats.seeds = sorter.count;
    let runs = sorter.into_runs().map_err(io_err)?;
    store.finish().map_err(io_err)?;
    let mut w = BufWriter::new(AtomicFile::create(&dir.join("docs.jsonl")).map_err(io_err)?);
    for d in &docs {
        serde_json::to_writer(&mut w, d).map_err(|e| io_err(e.into()))?;
        w.write_all(b"\n").map_err(io_err)?;
    }
    w.into_inner().map_err(|e| io_err(e.into_error()))?.commit().map_err(io_err)?;
    // Empty buckets as runs (`zero_runs`): the file grows with the corpus,
    // not with the table.
    let mut w = zero_runs::ZeroRuns::new(BufWriter::new(AtomicFile::create(&dir.join("df.bin")).map_err(io_err)?));
    corpus_df.save(&mut w).map_err(io_err)?;
    let w = w.finish().map_err(io_err)?;
    w.into_inner().map_err(|e| io_err(e.into_error()))?.commit().map_err(io_err)?;
    let corpus = reader.summary().clone();
    let done = ReadDone {
        stats: stats.clone(),
        corpus: corpus.clone(),
        runs: runs.iter().map(|r| r.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect(),
    };
    write_atomic(&dir.join("read.json"), &serde_json::to_vec(&done).map_err(|e| io_err(e.into()))?).map_err(io_err)?;
    Ok(Read { docs, df: corpus_df, stats, corpus, runs })
}

/// Stage 2: candidate pairs from the sorted seeds, and the most frequent
/// boilerplate n-grams with their text; leave `candidates.bin` and then
/// `candidates.json`.
fn candidate_stage(
    docs: &[DocRecord],
    texts: &File,
    runs: Vec<PathBuf>,
    opts: &ScanOptions,
    aligner: &Aligner,
    dir: &Path,
) -> Result<(Vec<seeds::Candidate>, Boilerplate, SeedDfIndex), ScanError> {
    let io_err = |source: io::Error| ScanError::Io { path: dir.to_path_buf(), source };
    let mut groups: FxHashMap<&str, u32> = FxHashMap::default();
    let group: Vec<u32> = docs
        .iter()
        .map(|d| match &d.group {
            None => u32::MAX,
            Some(g) => {
                let n = groups.len() as u32;
                *groups.entry(g.as_str()).or_insert(n)
            }
        })
        .collect();
    // The seed runs stay until the scan is over: a resumed run may need them.
    let sorted = Sorted::open(runs, false).map_err(io_err)?;
    let mut shared: Sorter<seeds::SeedDf> = Sorter::new(dir, "seed_df", (opts.memory / 4 / 12).max(1 << 16) as usize);
    let (candidates, pair_stats) =
        seeds::pairs(sorted, &group, &opts.seeds, dir, (opts.memory / 4 / 8).max(1 << 16) as usize, &mut shared)
            .map_err(io_err)?;
    let seed_df = SeedDfIndex::write(shared, docs.len(), dir).map_err(io_err)?;
    let mut boilerplate = Vec::new();
    for &(df, doc, pos) in &pair_stats.boilerplate {
        let d = &docs[doc as usize];
        let text = read_text(texts, d.offset, d.len).map_err(io_err)?;
        let p = aligner.prepare(&text);
        let toks = &p.seg.tokens;
        let (s, e) = (pos as usize, (pos as usize + opts.seeds.n).min(toks.len()));
        let excerpt: String = if s < e {
            text.chars().skip(toks[s].start as usize).take((toks[e - 1].end - toks[s].start) as usize).collect()
        } else {
            String::new()
        };
        boilerplate.push((df, excerpt));
    }
    let mut bytes = Vec::with_capacity(candidates.len() * 12);
    for &(a, b, k) in &candidates {
        for x in [a, b, k] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    write_atomic(&dir.join("candidates.bin"), &bytes).map_err(io_err)?;
    let done = CandidatesDone { count: candidates.len() as u64, boilerplate };
    write_atomic(&dir.join("candidates.json"), &serde_json::to_vec(&done).map_err(|e| io_err(e.into()))?)
        .map_err(io_err)?;
    Ok((candidates, done.boilerplate, seed_df))
}

/// What the align stage leaves for clustering.
#[derive(Default)]
struct AlignedChunks {
    /// Pairs with at least one passage.
    pairs: u64,
    /// The spans of every passage, in output order: `(a, span in a, b,
    /// span in b)`. Only these stay in memory; the passages are read back
    /// from the chunk files when written.
    spans: Vec<(u32, Span, u32, Span)>,
    /// The chunk files, in order.
    files: Vec<PathBuf>,
    /// Passages found and not reported.
    insignificant: u64,
    /// What most of those were made of.
    templates: Vec<Template>,
}

/// Stage 3: align the candidate pairs chunk by chunk, each chunk's result a
/// checkpoint (`aligned.NNNNNN.jsonl`); with the candidates taken over from
/// an interrupted run, its finished chunks are taken over too.
#[allow(clippy::too_many_arguments)]
fn align_stage(
    candidates: &[seeds::Candidate],
    docs: &[DocRecord],
    texts: &File,
    seed_df: &SeedDfIndex,
    aligner: &Aligner,
    df: &CorpusDf,
    opts: &ScanOptions,
    dir: &Path,
    translated: &rustc_hash::FxHashSet<(u32, u32)>,
    resumed: &mut Resumed,
    progress: &dyn Progress,
) -> Result<AlignedChunks, ScanError> {
    progress.stage("aligning", Some(candidates.len() as u64));
    let mut out = AlignedChunks::default();
    // Template key → (passages, documents, text, first seen).
    let mut templates: FxHashMap<u64, Template> = FxHashMap::default();
    let take_over = resumed.candidates;
    chunked(candidates, opts.chunk, "aligned", take_over, dir, resumed, progress, &mut out, &mut templates, |chunk| {
        align_chunk(chunk, docs, texts, seed_df, aligner, df, opts, translated)
    })?;
    let mut templates: Vec<Template> = templates.into_values().filter(|t| t.passages >= 2).collect();
    templates.sort_by(|x, y| {
        y.passages.cmp(&x.passages).then(y.documents.cmp(&x.documents)).then_with(|| x.text.cmp(&y.text))
    });
    templates.truncate(TEMPLATES_LISTED);
    out.templates = templates;
    Ok(out)
}

/// Stage 3: align the cross-language candidates (`across`) chunk by chunk
/// (`across.NNNNNN.jsonl`), before the lexical ones (which leave out the
/// pairs with passages here: the aligner with meaning finds their copies
/// too).
#[allow(clippy::too_many_arguments)]
fn across_stage(
    found: &across::Across,
    docs: &[DocRecord],
    texts: &File,
    aligner: &Aligner,
    dir: &Path,
    take_over: bool,
    out: &mut AlignedChunks,
    resumed: &mut Resumed,
    progress: &dyn Progress,
) -> Result<(), ScanError> {
    progress.stage("aligning translations", Some(found.candidates.len() as u64));
    let pooled = File::open(dir.join("pooled.bin")).map_err(io_at(dir))?;
    let rows: FxHashMap<u32, (u64, u32)> = found.rows.iter().map(|&(d, at, n)| (d, (at, n))).collect();
    let mut templates = FxHashMap::default();
    chunked(
        &found.candidates,
        ACROSS_CHUNK,
        "across",
        take_over,
        dir,
        resumed,
        progress,
        out,
        &mut templates,
        |chunk| across::align_chunk(chunk, docs, texts, &pooled, &rows, aligner),
    )
}

/// Cross-language candidate pairs aligned per chunk (each pair costs a
/// dynamic programme over two documents' sentences; no encoding).
const ACROSS_CHUNK: usize = 256;

/// Align `items` in chunks of `size`, each chunk's result a checkpoint
/// (`PREFIX.NNNNNN.jsonl`), read back into `out` (the uninterrupted run
/// reads its chunks back too, so that both end with the same bytes); with
/// `take_over`, chunks an interrupted run finished are taken over.
#[allow(clippy::too_many_arguments)]
fn chunked<T: Sync>(
    items: &[T],
    size: usize,
    prefix: &str,
    take_over: bool,
    dir: &Path,
    resumed: &mut Resumed,
    progress: &dyn Progress,
    out: &mut AlignedChunks,
    templates: &mut FxHashMap<u64, Template>,
    align: impl Fn(&[T]) -> io::Result<Vec<Aligned>>,
) -> Result<(), ScanError> {
    let chunks: Vec<&[T]> = items.chunks(size.max(1)).collect();
    resumed.chunks.1 += chunks.len() as u64;
    for (k, chunk) in chunks.iter().enumerate() {
        let path = dir.join(format!("{prefix}.{k:06}.jsonl"));
        let earlier = if take_over { std::fs::read(&path).ok() } else { None };
        let bytes = match earlier {
            Some(bytes) => {
                resumed.chunks.0 += 1;
                bytes
            }
            None => {
                let aligned = align(chunk).map_err(io_at(dir))?;
                let mut bytes = Vec::new();
                for x in aligned {
                    serde_json::to_writer(&mut bytes, &x).map_err(|e| io_at(dir)(e.into()))?;
                    bytes.push(b'\n');
                }
                write_atomic(&path, &bytes).map_err(io_at(dir))?;
                bytes
            }
        };
        for line in bytes.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
            let x: Aligned = serde_json::from_slice(line).map_err(|e| io_at(&path)(e.into()))?;
            out.pairs += u64::from(!x.passages.is_empty());
            out.spans.extend(x.passages.iter().map(|p| (x.a, p.a, x.b, p.b)));
            out.insignificant += x.dropped.len() as u64;
            for (key, df, text) in x.dropped {
                if key != 0 {
                    let t = templates.entry(key).or_insert_with(|| Template { passages: 0, documents: df, text });
                    t.passages += 1;
                }
            }
        }
        out.files.push(path);
        progress.advance(chunk.len() as u64);
    }
    Ok(())
}

/// Stage 3, one chunk: prepare the documents the chunk needs once, then
/// align in parallel those of its pairs that can reach the reporting bar
/// ([`can_reach`]); the pairs with passages at least
/// reported ([`ScanOptions::report`]), with their significance, in order.
#[allow(clippy::too_many_arguments)]
fn align_chunk(
    chunk: &[seeds::Candidate],
    docs: &[DocRecord],
    texts: &File,
    seed_df: &SeedDfIndex,
    aligner: &Aligner,
    corpus_df: &CorpusDf,
    opts: &ScanOptions,
    translated: &rustc_hash::FxHashSet<(u32, u32)>,
) -> io::Result<Vec<Aligned>> {
    // Pairs aligned with meaning as translations are not aligned again.
    let kept: Vec<seeds::Candidate>;
    let chunk = if translated.is_empty() {
        chunk
    } else {
        kept = chunk.iter().copied().filter(|&(a, b, _)| !translated.contains(&(a, b))).collect();
        &kept
    };
    let mut needed: Vec<u32> = chunk.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    needed.sort_unstable();
    needed.dedup();
    let prepared: Vec<io::Result<ChunkDoc>> = needed
        .par_iter()
        .map(|&d| {
            let r = &docs[d as usize];
            let text = read_text(texts, r.offset, r.len)?;
            let shared = seed_df.of(d)?;
            Ok(ChunkDoc::prepare(text, &shared, aligner, opts))
        })
        .collect();
    let mut cache: FxHashMap<u32, ChunkDoc> = FxHashMap::default();
    for (d, p) in needed.iter().zip(prepared) {
        cache.insert(*d, p?);
    }
    Ok(align_prepared(chunk, cache, aligner, corpus_df, opts, &|| false))
}

/// Stage 5: clusters, per-document counts and shares, and the output rows.
fn assemble(
    docs: Vec<DocRecord>,
    flat: Vec<(u32, Span, u32, Span)>,
    files: Vec<PathBuf>,
    mut stats: ScanStats,
    texts: &File,
) -> io::Result<ScanResult> {
    let clusters = cluster::cluster(&flat);
    stats.passages = flat.len() as u64;
    stats.clusters = clusters.members.len() as u64;

    // Per-document counts and shared share.
    let mut per_doc: Vec<(u64, Vec<Span>)> = vec![(0, Vec::new()); docs.len()];
    for &(a, sa, b, sb) in &flat {
        per_doc[a as usize].0 += 1;
        per_doc[a as usize].1.push(sa);
        per_doc[b as usize].0 += 1;
        per_doc[b as usize].1.push(sb);
    }
    drop(flat);
    let passages = Passages::Chunks {
        files,
        ids: docs.iter().map(|d| d.id.clone()).collect(),
        cluster_of: clusters.of_passage.clone(),
    };
    let mut out_clusters = Vec::with_capacity(clusters.members.len());
    for (id, members) in clusters.members.iter().enumerate() {
        let at = cluster::excerpt(members).expect("a cluster has members");
        let d = &docs[at.doc as usize];
        let text = read_text(texts, d.offset, d.len)?;
        let excerpt: String = text.chars().skip(at.span[0] as usize).take((at.span[1] - at.span[0]) as usize).collect();
        out_clusters.push(ScanCluster {
            id: id as u32,
            size: members.len() as u32,
            members: members
                .iter()
                .map(|m| ClusterMember { doc: docs[m.doc as usize].id.clone(), span: m.span })
                .collect(),
            excerpt,
        });
    }
    let documents = docs
        .into_iter()
        .zip(per_doc)
        .map(|(d, (n, spans))| ScanDocument {
            shared: cluster::shared_share(d.chars, spans),
            id: d.id,
            source: d.source,
            chars: d.chars,
            encoding: d.encoding,
            language: d.language,
            group: d.group,
            passages: n,
            meta: d.meta,
        })
        .collect();
    Ok(ScanResult {
        documents,
        passages,
        clusters: out_clusters,
        stats,
        corpus: Summary::default(),
        resumed: Resumed::default(),
        fields: Default::default(),
        normalize: Default::default(),
        work: None,
        tables: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::corpus::{resolve, CorpusOptions};
    use crate::plumbing::Quiet;

    /// The bundled example texts, copied into `dir`.
    fn examples(dir: &Path) -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        ["v1.txt", "v2.txt", "v3.txt"]
            .iter()
            .map(|name| {
                let path = dir.join(name);
                std::fs::copy(root.join(name), &path).unwrap();
                path.to_str().unwrap().to_owned()
            })
            .collect()
    }

    fn run(args: &[String], opts: &ScanOptions, work_dir: &Path, resume: bool) -> ScanResult {
        let inputs = resolve(args).unwrap();
        let corpus = CorpusOptions::default();
        let work = Work { dir: work_dir.to_path_buf(), key: InputKey::new(&inputs, &corpus), resume };
        let mut reader = CorpusReader::new(inputs, corpus).unwrap();
        scan(&mut reader, opts, &work, &Quiet).unwrap()
    }

    #[test]
    fn a_resumed_scan_takes_over_finished_chunks_and_ends_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let args = examples(dir.path());
        let opts = ScanOptions { chunk: 1, ..ScanOptions::default() };
        let work = dir.path().join("work");
        let whole = run(&args, &opts, &work, false);
        let chunks = whole.resumed.chunks.1;
        assert!(chunks >= 2 && whole.stats.passages > 0, "{:?}", whole.stats);
        let passages = whole.passages.to_vec().unwrap();
        // As if killed while aligning the last chunk.
        std::fs::remove_file(work.join(format!("aligned.{:06}.jsonl", chunks - 1))).unwrap();
        let resumed = run(&args, &opts, &work, true);
        let taken = Resumed { matched: true, read: true, candidates: true, chunks: (chunks - 1, chunks) };
        assert_eq!(resumed.resumed, taken);
        assert_eq!(resumed.passages.to_vec().unwrap(), passages);
        assert_eq!(
            (resumed.documents, resumed.clusters, resumed.stats),
            (whole.documents, whole.clusters, whole.stats)
        );
        // Other options: nothing is taken over.
        let other = ScanOptions { seeds: SeedParams { min_seeds: 5, ..SeedParams::default() }, ..opts };
        let fresh = run(&args, &other, &work, true);
        let taken = &fresh.resumed;
        assert!(!taken.matched && !taken.read && !taken.candidates && taken.chunks.0 == 0, "{taken:?}");
        // The result owns the work folder.
        assert!(work.join("manifest.json").exists());
        fresh.remove_work().unwrap();
        assert!(!work.exists());
    }
}
