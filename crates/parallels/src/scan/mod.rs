//! `scan`: every shared passage across a whole corpus, without comparing all
//! pairs.
//!
//! # Stages
//!
//! ```text
//! read (corpus) → prepare + seeds → sort seeds → candidate pairs → align → cluster → write
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
//! modification time, and the [`CorpusOptions`]) and the options (the
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

pub mod batch;
mod cluster;
mod pairs;
pub mod parquet_out;
pub(crate) mod seeds;
pub mod significance;
mod store;
mod zero_runs;

pub(crate) use pairs::{align_prepared, can_reach, ChunkDoc};
use store::{read_text, Store};

use crate::align::features::CorpusDf;
use crate::align::{covered_chars, Aligner, Options, Passage, Span};
use crate::corpus::{
    fingerprint, BatchStop, CorpusDoc, CorpusOptions, CorpusReader, FileStamp, Input, Problem, Source, Summary,
};
use crate::plumbing::sort::{Sorted, Sorter};
use crate::plumbing::{commit_all, read_exact_at, write_atomic, AtomicFile, Progress};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub use parquet_out::write_parquet;
pub use seeds::SeedParams;
pub use significance::{
    seed_weight, significance, Commonness, Side, TokenWeights, COPY_MAX_DF, MIN_PARALLEL_PAIR, MIN_SIGNIFICANCE,
    MIN_SPECIFICITY, PROSE_RATIO,
};

/// The schema tag written in `documents.jsonl`'s companion `summary.json`.
pub const SCAN_SCHEMA: &str = "parallels.scan/1";

/// A batch of documents read holds at most [`ScanOptions::batch`]
/// documents, and fewer once it holds this many bytes of JSON Lines.
const BATCH_BYTES: usize = 8 << 20;

/// Lowest chain score of a parallel passage in a scan (`align` keeps
/// 0.08): about two good links, or one near copy. Measured on the
/// `gen_scan.py` corpus at 10 MB: 0.08 → 0.5 removes two thirds of the
/// passages between unrelated news items and keeps all planted copies.
pub const MIN_CHAIN: f32 = 0.5;
/// Shortest verbatim passage in a scan, in tokens (`align` keeps 12).
pub const MIN_VERBATIM_TOKENS: u32 = 20;

/// Everything that decides a scan.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// How each candidate pair is aligned (stricter than `align`'s defaults: [`MIN_CHAIN`], [`MIN_VERBATIM_TOKENS`]).
    pub align: Options,
    /// How seeds are taken and which pairs they make candidates.
    pub seeds: SeedParams,
    /// Memory for sorting, in bytes (spilled to disk beyond it).
    pub memory: u64,
    /// Documents prepared per batch while reading.
    pub batch: usize,
    /// Candidate pairs aligned per chunk.
    pub chunk: usize,
    /// Feature frequencies are counted in `2^df_bits` buckets (4 bytes each).
    pub df_bits: u32,
    /// Passages less significant than this are not reported (see
    /// [`significance`](mod@significance); 0 reports every passage).
    pub min_significance: f64,
    /// The significance the `parallel` passages of a pair must reach
    /// together ([`MIN_PARALLEL_PAIR`]; not asked when
    /// `min_significance` is 0).
    pub min_parallel_pair: f64,
    /// The specificity (rarity of the wording their links share) a pair's
    /// `parallel` passages must have ([`MIN_SPECIFICITY`]; not asked when
    /// `min_significance` is 0).
    pub min_specificity: f64,
    /// The significance from which a tight copy (a `verbatim` passage whose
    /// seeds cover [`TIGHT_COPY`](crate::align::TIGHT_COPY) of it, at least
    /// [`VerbatimParams::copy_chars`](crate::align::verbatim::VerbatimParams::copy_chars)
    /// characters a side) is reported under `min_significance`, when its
    /// words are the two documents' own ([`significance::own_copy`]); the
    /// bound takes such a copy by what its shared seeds cover, seeds in
    /// more than [`COPY_MAX_DF`] documents weighing nothing. `scan` asks
    /// the same of every passage (this is [`MIN_SIGNIFICANCE`] too); a
    /// query asks less ([`crate::index::MIN_QUERY_COPY`]), as `align`
    /// reports a quotation of 20 characters between two texts.
    pub min_copy_significance: f64,
}

impl Default for ScanOptions {
    fn default() -> Self {
        let mut align = Options::default();
        // Across a corpus, stock phrases and formulaic sentences abound: a
        // passage must be worth more than a chance match of one sentence.
        align.parallel.min_chain = MIN_CHAIN;
        // Once a pair holds one such passage, it is related: further
        // passages need only what `align` asks.
        align.parallel.min_chain_related = Options::default().parallel.min_chain;
        align.verbatim.min_tokens = MIN_VERBATIM_TOKENS;
        // Meaning is for a few pairs aligned closely, not for a corpus.
        align.meaning = false;
        ScanOptions {
            align,
            seeds: SeedParams::default(),
            memory: 512 << 20,
            batch: 512,
            chunk: 4096,
            df_bits: 24,
            min_significance: MIN_SIGNIFICANCE,
            min_parallel_pair: MIN_PARALLEL_PAIR,
            min_specificity: MIN_SPECIFICITY,
            min_copy_significance: MIN_SIGNIFICANCE,
        }
    }
}

impl ScanOptions {
    /// Options that cannot work, named as the fields are named here (the
    /// bounds every front end asks: the command line, Python and Spark
    /// call this instead of stating them again).
    pub fn check(&self) -> Result<(), ScanError> {
        let bad = |what: String| Err(ScanError::Options(what));
        let p = &self.seeds;
        if p.max_df < 2 {
            return bad(format!(
                "max_df = {}: must be at least 2 (a seed in one document is shared by none)",
                p.max_df
            ));
        }
        if p.min_seeds < 1 {
            return bad("min_seeds = 0: must be at least 1".into());
        }
        if p.n < 1 || p.window < 1 {
            return bad(format!("seeds of {} tokens, window {}: both must be at least 1", p.n, p.window));
        }
        for (name, x) in [
            ("min_significance", self.min_significance),
            ("min_parallel_pair", self.min_parallel_pair),
            ("min_copy_significance", self.min_copy_significance),
        ] {
            if !x.is_finite() || x < 0.0 {
                return bad(format!("{name} = {x}: must be a finite number, at least 0"));
            }
        }
        if !(0.0..=1.0).contains(&self.min_specificity) {
            return bad(format!("min_specificity = {}: must be from 0 to 1", self.min_specificity));
        }
        if self.memory < MIN_MEMORY {
            return bad(format!("memory = {} MiB: must be at least {} MiB", self.memory >> 20, MIN_MEMORY >> 20));
        }
        if !(MIN_DF_BITS..=MAX_DF_BITS).contains(&self.df_bits) {
            return bad(format!("df_bits = {}: must be from {MIN_DF_BITS} to {MAX_DF_BITS}", self.df_bits));
        }
        if self.batch < 1 || self.chunk < 1 {
            return bad(format!("batch = {}, chunk = {}: both must be at least 1", self.batch, self.chunk));
        }
        Ok(())
    }
}

/// The least sorting memory a scan takes ([`ScanOptions::memory`]).
pub const MIN_MEMORY: u64 = 16 << 20;
/// The smallest and largest feature tables ([`ScanOptions::df_bits`]).
pub const MIN_DF_BITS: u32 = 8;
/// See [`MIN_DF_BITS`].
pub const MAX_DF_BITS: u32 = 30;

/// One document as `documents.jsonl` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanDocument {
    /// Its id in the corpus.
    pub id: String,
    /// Written `path`, `path:line` or `path#row` (see [`Source`]).
    pub source: Source,
    /// Length of its text in code points.
    pub chars: u64,
    /// The encoding its text was decoded from.
    pub encoding: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Its group, if the corpus has groups.
    pub group: Option<String>,
    /// Passages this document takes part in.
    pub passages: u64,
    /// Share of its characters inside some passage, in [0, 1].
    pub shared: f64,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    /// The other fields of its record.
    pub meta: serde_json::Map<String, serde_json::Value>,
}

/// One line of `passages.jsonl`: an aligned passage between two documents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanPassage {
    /// The id of the first document (the earlier one read).
    pub a_doc: String,
    /// The id of the other document.
    pub b_doc: String,
    /// The cluster it belongs to (an id of `clusters.jsonl`).
    pub cluster: u32,
    /// How strong a sign of reuse it is: its length in tokens that few
    /// other documents of the corpus share, times its score (see
    /// [`significance`](mod@significance)).
    #[serde(default)]
    pub significance: f64,
    #[serde(flatten)]
    /// The passage, as `align` gives it (flattened into the row).
    pub passage: Passage,
}

/// One place of a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterMember {
    /// The document id.
    pub doc: String,
    /// The span in its text.
    pub span: Span,
}

/// One line of `clusters.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanCluster {
    /// Its id: clusters are numbered from 0 in order of their first member
    /// (by document, then position).
    pub id: u32,
    /// Number of places (members).
    pub size: u32,
    /// The places, sorted by document and span.
    pub members: Vec<ClusterMember>,
    /// The start of the longest member's text.
    pub excerpt: String,
}

/// `summary.json`: what `scan` writes beside its tables and `report` reads
/// back.
///
/// Written with its keys, and those of [`ScanStats`], in alphabetical order
/// (as `parallels.scan/1` has always had them), whatever the order of the
/// fields here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanSummary {
    /// [`SCAN_SCHEMA`].
    pub schema: String,
    #[serde(default)]
    /// Counts of the scan.
    pub stats: ScanStats,
    /// Where the texts are: `parallels report` reads them back from the
    /// documents' sources with these fields.
    #[serde(default)]
    pub fields: ScanFields,
    /// The files the documents were read from, with their sizes and
    /// hashes: the only files `parallels report` reads back, and only
    /// while they are unchanged. `None` in the summaries of versions
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<InputFile>>,
}

impl ScanSummary {
    /// The summary of `result`: its counts, and every file its documents
    /// came from, read again to be hashed ([`InputFile::of`]).
    pub fn of(result: &ScanResult) -> io::Result<ScanSummary> {
        let mut files: Vec<&Path> = Vec::new();
        let mut seen: rustc_hash::FxHashSet<&Path> = rustc_hash::FxHashSet::default();
        for d in &result.documents {
            if seen.insert(&d.source.file) {
                files.push(&d.source.file);
            }
        }
        let inputs = files.par_iter().map(|f| InputFile::of(f)).collect::<io::Result<Vec<_>>>()?;
        Ok(ScanSummary {
            schema: SCAN_SCHEMA.to_string(),
            stats: result.stats.clone(),
            fields: result.fields.clone(),
            inputs: Some(inputs),
        })
    }

    /// Write it to `path` (through an [`AtomicFile`]).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        self.write_uncommitted(path)?.commit()
    }

    /// Write it to a temporary file for `path`, to commit with the tables.
    fn write_uncommitted(&self, path: &Path) -> io::Result<AtomicFile> {
        // Through a `Value`, whose maps keep their keys sorted, but for the
        // input files: a path that is not UTF-8 is written with escapes a
        // `Value` cannot hold (`corpus::json_path`), so they are written
        // from their own type, in the place of their key.
        let value = serde_json::to_value(ScanSummary { inputs: None, ..self.clone() })?;
        let sorted = SummaryJson { value: &value, inputs: self.inputs.as_deref() };
        let mut f = AtomicFile::create(path)?;
        f.write_all(&serde_json::to_vec_pretty(&sorted)?)?;
        Ok(f)
    }
}

/// A summary's `Value` with its input files put back in key order.
struct SummaryJson<'a> {
    value: &'a serde_json::Value,
    inputs: Option<&'a [InputFile]>,
}

impl Serialize for SummaryJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Some(object) = self.value.as_object() else { return self.value.serialize(serializer) };
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        if self.inputs.is_some() {
            keys.push("inputs");
        }
        keys.sort_unstable();
        let mut map = serializer.serialize_map(Some(keys.len()))?;
        for key in keys {
            match (key, self.inputs) {
                ("inputs", Some(inputs)) => map.serialize_entry(key, inputs)?,
                _ => map.serialize_entry(key, &object[key])?,
            }
        }
        map.end()
    }
}

/// One file a scan read, as `summary.json` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as the documents' sources write it ([`Source::file`]; not
    /// necessarily UTF-8, written as [`crate::corpus::json_path`] writes
    /// it).
    #[serde(with = "crate::corpus::json_path")]
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// XXH3-128 of its bytes, 32 hexadecimal digits. Not a cryptographic
    /// hash: it tells a changed file from the one scanned, and `report`
    /// embeds a file's text only if it matches (so only text whose exact
    /// bytes the results' author had).
    pub xxh3_128: String,
}

impl InputFile {
    /// Read the file at `path` and record its size and hash.
    pub fn of(path: &Path) -> io::Result<InputFile> {
        let bytes =
            std::fs::read(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", crate::read::shown(path))))?;
        Ok(InputFile::of_bytes(path, &bytes))
    }

    /// The record of a file `path` holding `bytes`.
    pub fn of_bytes(path: &Path, bytes: &[u8]) -> InputFile {
        let hash = twox_hash::XxHash3_128::oneshot(bytes);
        InputFile { path: path.to_path_buf(), size: bytes.len() as u64, xxh3_128: format!("{hash:032x}") }
    }
}

/// The id and text fields of JSON Lines and Parquet input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanFields {
    /// The id field (`--id`).
    pub id: String,
    /// The text field (`--text`).
    pub text: String,
}

impl Default for ScanFields {
    /// `id` and `text`, the defaults of [`crate::corpus::CorpusOptions`].
    fn default() -> Self {
        let corpus = crate::corpus::CorpusOptions::default();
        ScanFields { id: corpus.id_field, text: corpus.text_field }
    }
}

/// Counts for the summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScanStats {
    /// Documents read.
    pub documents: u64,
    /// Records, files and folders skipped (problems).
    pub skipped: u64,
    /// Characters read, in code points.
    pub chars: u64,
    /// Seeds taken (winnowed n-grams).
    pub seeds: u64,
    /// Pairs sharing enough seeds to be aligned.
    pub candidate_pairs: u64,
    /// Candidate pairs with at least one passage.
    pub aligned_pairs: u64,
    /// Passages found.
    pub passages: u64,
    /// Clusters of passages.
    pub clusters: u64,
    /// Most frequent boilerplate n-grams (over `max_df` documents): document
    /// frequency and the text of one occurrence.
    pub boilerplate: Vec<(u32, String)>,
    /// Passages found but not reported as less significant than
    /// [`ScanOptions::min_significance`].
    #[serde(default)]
    pub insignificant: u64,
    /// The templates most of those passages were made of, most passages
    /// first (at most [`TEMPLATES_LISTED`]).
    #[serde(default)]
    pub templates: Vec<Template>,
}

/// How many templates `summary.json` lists.
pub const TEMPLATES_LISTED: usize = 20;

/// Text that many documents share with other figures, names or dates: the
/// passages a scan found but did not report because they were mostly made
/// of it, grouped by their most widespread n-gram (numbers as one slot).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Template {
    /// Passages found and not reported that it makes.
    pub passages: u64,
    /// Documents of the corpus holding its most widespread n-gram.
    pub documents: u32,
    /// The first such passage's text (in the first document, at most 80
    /// characters).
    pub text: String,
}

/// The passages of a scan, in output order. A scan leaves them on disk,
/// in the aligned chunks of its work folder, and they are read back one
/// chunk at a time when written: memory holds only their spans.
#[derive(Clone, Debug, PartialEq)]
pub enum Passages {
    /// Held in memory (tests, small results).
    Memory(Vec<ScanPassage>),
    /// The chunk files in order, the document ids, and each passage's
    /// cluster.
    Chunks {
        /// The chunk files (`aligned.NNNNNN.jsonl`), in order.
        files: Vec<PathBuf>,
        /// Document ids by index.
        ids: Vec<String>,
        /// The cluster of each passage, in order.
        cluster_of: Vec<u32>,
    },
}

impl Passages {
    /// Hand every passage to `f`, in order.
    pub fn for_each(&self, mut f: impl FnMut(ScanPassage) -> io::Result<()>) -> io::Result<()> {
        match self {
            Passages::Memory(v) => v.iter().try_for_each(|p| f(p.clone())),
            Passages::Chunks { files, ids, cluster_of } => {
                let mut k = 0usize;
                for path in files {
                    let bytes = std::fs::read(path)?;
                    for line in bytes.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
                        let x: Aligned = serde_json::from_slice(line)?;
                        for (i, passage) in x.passages.into_iter().enumerate() {
                            let cluster = *cluster_of.get(k).ok_or_else(|| {
                                io::Error::new(
                                    io::ErrorKind::InvalidData,
                                    format!("{}: more passages than counted", path.display()),
                                )
                            })?;
                            k += 1;
                            f(ScanPassage {
                                a_doc: ids[x.a as usize].clone(),
                                b_doc: ids[x.b as usize].clone(),
                                cluster,
                                significance: x.significance.get(i).copied().unwrap_or(0.0),
                                passage,
                            })?;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// All passages in memory.
    pub fn to_vec(&self) -> io::Result<Vec<ScanPassage>> {
        let mut v = Vec::new();
        self.for_each(|p| {
            v.push(p);
            Ok(())
        })?;
        Ok(v)
    }
}

/// The whole result of a scan.
///
/// It owns the scan's work folder, where its passages stay until they are
/// written: [`ScanResult::remove_work`] removes the folder and consumes the
/// result, so nothing can read the passages after. A result dropped without
/// it leaves the folder for a resumed run (a failed write, say). Not
/// `Clone`, for the same reason.
#[derive(Debug, PartialEq)]
pub struct ScanResult {
    /// Every document read, in input order.
    pub documents: Vec<ScanDocument>,
    /// Every passage, in output order.
    pub passages: Passages,
    /// Every cluster, by id.
    pub clusters: Vec<ScanCluster>,
    /// Counts.
    pub stats: ScanStats,
    /// What the corpus reader read and skipped.
    pub corpus: Summary,
    /// What was taken over from an interrupted run.
    pub resumed: Resumed,
    /// The id and text fields of JSON Lines and Parquet input.
    pub fields: ScanFields,
    /// The work folder the passages are read from, if any.
    work: Option<PathBuf>,
}

impl ScanResult {
    /// Remove the work folder, once the tables are written; the passages,
    /// kept there, go with it.
    pub fn remove_work(self) -> io::Result<()> {
        match &self.work {
            Some(dir) => std::fs::remove_dir_all(dir),
            None => Ok(()),
        }
    }
}

/// What scanning failed on.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The corpus cannot be read.
    #[error("{0}")]
    Corpus(#[from] crate::corpus::CorpusError),
    /// Reading or writing the work folder failed; what it holds can be
    /// taken over with [`Work::resume`] once the cause is fixed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The first problem met with [`crate::corpus::CorpusOptions::strict`].
    #[error("{0}; stopped at the first problem (`strict`), nothing was written")]
    Strict(Problem),
    /// Options that cannot work ([`ScanOptions::check`]).
    #[error("{0}")]
    Options(String),
    /// More documents than the 32-bit document numbers can count.
    #[error("more than {max} documents; split the corpus")]
    TooManyDocuments {
        /// The most documents a scan takes.
        max: u64,
    },
}

/// Per document, kept in memory during a scan.
#[derive(Serialize, Deserialize)]
pub(crate) struct DocRecord {
    pub(crate) id: String,
    pub(crate) source: Source,
    pub(crate) encoding: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) group: Option<String>,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub(crate) meta: serde_json::Map<String, serde_json::Value>,
    pub(crate) chars: u64,
    /// Byte offset and length of the text in the store.
    pub(crate) offset: u64,
    pub(crate) len: u64,
}

/// The folder a scan keeps its intermediate results in, and what they were
/// made from.
#[derive(Clone, Debug)]
pub struct Work {
    /// The folder (made if missing; emptied unless resuming).
    pub dir: PathBuf,
    /// What the results depend on besides [`ScanOptions`].
    pub key: InputKey,
    /// Reuse what an interrupted run with the same key and options left.
    pub resume: bool,
}

/// What a scan's results depend on besides [`ScanOptions`]: the inputs'
/// contents (see [`fingerprint`]) and how they are read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputKey {
    /// Every file under the inputs, with its size and modification time.
    pub files: Vec<FileStamp>,
    /// How the inputs are read (fields, groups, extensions, limits).
    pub corpus: CorpusOptions,
}

impl InputKey {
    /// The key of `inputs` read with `corpus`.
    pub fn new(inputs: &[Input], corpus: &CorpusOptions) -> InputKey {
        InputKey { files: fingerprint(inputs, corpus), corpus: corpus.clone() }
    }
}

/// What a resumed scan took over from an interrupted one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resumed {
    /// The work folder held an interrupted run of the same inputs and
    /// options.
    pub matched: bool,
    /// Reading (documents, seeds, feature counts) was done.
    pub read: bool,
    /// Candidate pairs were found.
    pub candidates: bool,
    /// Chunks of candidate pairs already aligned, of all chunks.
    pub chunks: (u64, u64),
}

/// What reading leaves for the later stages: written last, so its presence
/// says the stage is complete.
#[derive(Serialize, Deserialize)]
struct ReadDone {
    stats: ScanStats,
    corpus: Summary,
    runs: Vec<String>,
}

/// What the candidate stage leaves.
#[derive(Serialize, Deserialize)]
struct CandidatesDone {
    count: u64,
    boilerplate: Vec<(u32, String)>,
}

/// The pairs of one aligned chunk that have passages.
#[derive(Serialize, Deserialize)]
pub(crate) struct Aligned {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) passages: Vec<Passage>,
    /// The significance of each passage.
    #[serde(default)]
    pub(crate) significance: Vec<f64>,
    /// Passages found and not reported, as template key, document
    /// frequency and text (a key of 0: no template).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) dropped: Vec<(u64, u32, String)>,
}

/// `/4`: seeds' document frequencies (`seed_df.bin`, `seed_df.idx`) and
/// the passages' significance; a work folder of `/3` is not taken over.
const WORK_SCHEMA: &str = "parallels.scan.work/4";

/// `manifest.json`: everything that decides a scan's results (not the
/// memory budget, nor the batch size). A run resumes only from a work
/// folder whose manifest is equal; one that does not read as a `Manifest`
/// (an older version's) is never resumed.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Manifest {
    schema: String,
    inputs: InputKey,
    seeds: SeedParams,
    chunk: usize,
    df_bits: u32,
    min_significance: f64,
    min_parallel_pair: f64,
    min_specificity: f64,
    min_copy_significance: f64,
    /// The alignment options in their `Debug` form: `align::Options` has
    /// no serde form yet. A renamed field there makes an interrupted run
    /// start again, which costs time but never mixes results.
    align: String,
}

impl Manifest {
    fn new(work: &Work, opts: &ScanOptions) -> Manifest {
        Manifest {
            schema: WORK_SCHEMA.to_owned(),
            inputs: work.key.clone(),
            seeds: opts.seeds.clone(),
            chunk: opts.chunk,
            df_bits: opts.df_bits,
            min_significance: opts.min_significance,
            min_parallel_pair: opts.min_parallel_pair,
            min_specificity: opts.min_specificity,
            min_copy_significance: opts.min_copy_significance,
            align: format!("{:?}", opts.align),
        }
    }
}

/// Open the work folder: keep its contents when resuming a run of the same
/// key and options, else empty it and write the manifest.
fn open_work(work: &Work, opts: &ScanOptions) -> io::Result<bool> {
    let manifest = Manifest::new(work, opts);
    let path = work.dir.join("manifest.json");
    if work.resume && read_json::<Manifest>(&path).is_some_and(|old| old == manifest) {
        return Ok(true);
    }
    if work.dir.exists() {
        std::fs::remove_dir_all(&work.dir)?;
    }
    std::fs::create_dir_all(&work.dir)?;
    write_atomic(&path, &serde_json::to_vec_pretty(&manifest)?)?;
    Ok(false)
}

/// Empty the work folder but for its manifest (a stage to redo from the
/// start).
fn clear_work(dir: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() != "manifest.json" {
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(path)?;
            } else {
                std::fs::remove_file(path)?;
            }
        }
    }
    Ok(())
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

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

    // 3. Align, chunk by chunk.
    let aligned = align_stage(&candidates, &docs, &texts, &seed_df, &aligner, &df, opts, dir, &mut resumed, progress)?;
    stats.aligned_pairs = aligned.pairs;
    stats.insignificant = aligned.insignificant;
    stats.templates = aligned.templates;

    // 4. Cluster and describe.
    progress.stage("clustering", None);
    let mut result = assemble(docs, aligned.spans, aligned.files, stats, &texts).map_err(io_at(dir))?;
    result.corpus = corpus;
    result.resumed = resumed;
    result.fields = ScanFields { id: reader.options().id_field.clone(), text: reader.options().text_field.clone() };
    result.work = Some(work.dir.clone());
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
        let fingerprints: Vec<(u64, Vec<(u64, u32)>)> = batch
            .par_iter()
            .map(|d| {
                let p = aligner.prepare(&d.text);
                corpus_df.add(&p.seg);
                (p.chars as u64, seeds::seeds(&p.seg, &opts.seeds))
            })
            .collect();
        for (d, (chars, fp)) in batch.into_iter().zip(fingerprints) {
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

/// Where each document's shared seeds are in `seed_df.bin`: `(position,
/// document frequency)` pairs of 8 bytes, by document and position, for
/// every seed found in two documents or more. `seed_df.idx` holds the
/// offsets (one more than there are documents, 8 bytes each).
pub(crate) struct SeedDfIndex {
    pub(crate) file: File,
    pub(crate) offsets: Vec<u64>,
}

impl SeedDfIndex {
    /// Write the sorted records of `shared` and their index into `dir`.
    fn write(shared: Sorter<seeds::SeedDf>, docs: usize, dir: &Path) -> io::Result<SeedDfIndex> {
        let mut w = BufWriter::with_capacity(1 << 20, AtomicFile::create(&dir.join("seed_df.bin"))?);
        let mut offsets = Vec::with_capacity(docs + 1);
        offsets.push(0u64);
        let mut at = 0u64;
        for r in shared.finish()? {
            let r = r?;
            while offsets.len() <= r.doc as usize {
                offsets.push(at);
            }
            w.write_all(&r.pos.to_le_bytes())?;
            w.write_all(&r.df.to_le_bytes())?;
            at += 8;
        }
        while offsets.len() <= docs {
            offsets.push(at);
        }
        w.into_inner().map_err(|e| e.into_error())?.commit()?;
        let bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
        write_atomic(&dir.join("seed_df.idx"), &bytes)?;
        Ok(SeedDfIndex { file: File::open(dir.join("seed_df.bin"))?, offsets })
    }

    /// The index an earlier run wrote into `dir`.
    fn open(dir: &Path, docs: usize) -> io::Result<SeedDfIndex> {
        let bytes = std::fs::read(dir.join("seed_df.idx"))?;
        let offsets: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        if offsets.len() != docs + 1 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "seed_df.idx does not match the documents"));
        }
        Ok(SeedDfIndex { file: File::open(dir.join("seed_df.bin"))?, offsets })
    }

    /// The shared seeds of document `doc`: `(position, df)`, by position.
    fn of(&self, doc: u32) -> io::Result<Vec<(u32, u32)>> {
        let (lo, hi) = (self.offsets[doc as usize], self.offsets[doc as usize + 1]);
        let mut buf = vec![0u8; hi.saturating_sub(lo) as usize];
        read_exact_at(&self.file, &mut buf, lo)?;
        let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
        Ok(buf.chunks_exact(8).map(|c| (word(&c[..4]), word(&c[4..]))).collect())
    }
}

/// What the align stage leaves for clustering.
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
    resumed: &mut Resumed,
    progress: &dyn Progress,
) -> Result<AlignedChunks, ScanError> {
    progress.stage("aligning", Some(candidates.len() as u64));
    let chunks: Vec<&[seeds::Candidate]> = candidates.chunks(opts.chunk.max(1)).collect();
    resumed.chunks.1 = chunks.len() as u64;
    let mut out = AlignedChunks {
        pairs: 0,
        spans: Vec::new(),
        files: Vec::with_capacity(chunks.len()),
        insignificant: 0,
        templates: Vec::new(),
    };
    // Template key → (passages, documents, text, first seen).
    let mut templates: FxHashMap<u64, Template> = FxHashMap::default();
    for (k, chunk) in chunks.iter().enumerate() {
        let path = dir.join(format!("aligned.{k:06}.jsonl"));
        let earlier = if resumed.candidates { std::fs::read(&path).ok() } else { None };
        let bytes = match earlier {
            Some(bytes) => {
                resumed.chunks.0 += 1;
                bytes
            }
            None => {
                let aligned = align_chunk(chunk, docs, texts, seed_df, aligner, df, opts).map_err(io_at(dir))?;
                let mut bytes = Vec::new();
                for x in aligned {
                    serde_json::to_writer(&mut bytes, &x).map_err(|e| io_at(dir)(e.into()))?;
                    bytes.push(b'\n');
                }
                write_atomic(&path, &bytes).map_err(io_at(dir))?;
                bytes
            }
        };
        // The uninterrupted run reads its chunks back too, so that both
        // end with the same bytes.
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
    let mut templates: Vec<Template> = templates.into_values().filter(|t| t.passages >= 2).collect();
    templates.sort_by(|x, y| {
        y.passages.cmp(&x.passages).then(y.documents.cmp(&x.documents)).then_with(|| x.text.cmp(&y.text))
    });
    templates.truncate(TEMPLATES_LISTED);
    out.templates = templates;
    Ok(out)
}

/// Stage 3, one chunk: prepare the documents the chunk needs once, then
/// align in parallel those of its pairs that can reach the reporting bar
/// ([`can_reach`]); the pairs with passages at least
/// [`ScanOptions::min_significance`], with their significance, in order.
pub(crate) fn align_chunk(
    chunk: &[seeds::Candidate],
    docs: &[DocRecord],
    texts: &File,
    seed_df: &SeedDfIndex,
    aligner: &Aligner,
    corpus_df: &CorpusDf,
    opts: &ScanOptions,
) -> io::Result<Vec<Aligned>> {
    let mut needed: Vec<u32> = chunk.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    needed.sort_unstable();
    needed.dedup();
    let prepared: Vec<io::Result<ChunkDoc>> = needed
        .par_iter()
        .map(|&d| {
            let r = &docs[d as usize];
            let text = read_text(texts, r.offset, r.len)?;
            let shared = seed_df.of(d)?;
            let p = aligner.prepare(&text);
            let all = seeds::seeds(&p.seg, &opts.seeds);
            Ok(ChunkDoc::new(text, p, all, &shared, opts))
        })
        .collect();
    let mut cache: FxHashMap<u32, ChunkDoc> = FxHashMap::default();
    for (d, p) in needed.iter().zip(prepared) {
        cache.insert(*d, p?);
    }
    Ok(align_prepared(chunk, cache, aligner, corpus_df, opts, &|| false))
}

/// Stage 4: clusters, per-document counts and shares, and the output rows.
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
        let longest =
            members.iter().max_by_key(|m| (m.span[1] - m.span[0], std::cmp::Reverse((m.doc, m.span)))).unwrap();
        let d = &docs[longest.doc as usize];
        let text = read_text(texts, d.offset, d.len)?;
        let excerpt: String = text
            .chars()
            .skip(longest.span[0] as usize)
            .take(((longest.span[1] - longest.span[0]) as usize).min(200))
            .collect();
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
            shared: if d.chars == 0 {
                0.0
            } else {
                (covered_chars(spans) as f64 / d.chars as f64 * 10_000.0).round() / 10_000.0
            },
            id: d.id,
            source: d.source,
            chars: d.chars,
            encoding: d.encoding,
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
        work: None,
    })
}

/// Write `documents.jsonl`, `passages.jsonl`, `clusters.jsonl` and
/// `summary.json` into `dir` as a set ([`commit_all`]): each under a
/// temporary name first, and none renamed into place unless all were
/// written. After an error the folder holds what it held before.
pub fn write_jsonl(result: &ScanResult, dir: &Path) -> io::Result<()> {
    fn lines<T: Serialize>(dir: &Path, name: &str, rows: &[T]) -> io::Result<AtomicFile> {
        let mut w = BufWriter::with_capacity(1 << 20, AtomicFile::create(&dir.join(name))?);
        for r in rows {
            serde_json::to_writer(&mut w, r)?;
            w.write_all(b"\n")?;
        }
        w.into_inner().map_err(|e| e.into_error())
    }
    std::fs::create_dir_all(dir)?;
    let summary = ScanSummary::of(result)?;
    let documents = lines(dir, "documents.jsonl", &result.documents)?;
    let mut w = BufWriter::with_capacity(1 << 20, AtomicFile::create(&dir.join("passages.jsonl"))?);
    result.passages.for_each(|p| {
        serde_json::to_writer(&mut w, &p)?;
        w.write_all(b"\n")
    })?;
    let passages = w.into_inner().map_err(|e| e.into_error())?;
    let clusters = lines(dir, "clusters.jsonl", &result.clusters)?;
    let summary = summary.write_uncommitted(&dir.join("summary.json"))?;
    commit_all(vec![documents, passages, clusters, summary])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::corpus::resolve;
    use crate::plumbing::Quiet;

    /// The bounds every front end asks are the library's: a bad option is
    /// named, the defaults pass.
    #[test]
    fn options_that_cannot_work_are_named() {
        assert!(ScanOptions::default().check().is_ok());
        let named = |opts: ScanOptions| opts.check().unwrap_err().to_string();
        let d = ScanOptions::default;
        assert!(named(ScanOptions { seeds: SeedParams { max_df: 1, ..SeedParams::default() }, ..d() })
            .starts_with("max_df = 1"));
        assert!(named(ScanOptions { seeds: SeedParams { min_seeds: 0, ..SeedParams::default() }, ..d() })
            .starts_with("min_seeds = 0"));
        assert!(named(ScanOptions { min_significance: f64::NAN, ..d() }).starts_with("min_significance = NaN"));
        assert!(named(ScanOptions { min_specificity: 1.5, ..d() }).starts_with("min_specificity = 1.5"));
        assert!(named(ScanOptions { memory: 1 << 20, ..d() }).starts_with("memory = 1 MiB"));
        assert!(named(ScanOptions { df_bits: 40, ..d() }).starts_with("df_bits = 40"));
    }

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

    #[test]
    fn a_manifest_of_another_version_is_not_resumed() {
        let dir = tempfile::tempdir().unwrap();
        let work = Work {
            dir: dir.path().join("work"),
            key: InputKey { files: Vec::new(), corpus: CorpusOptions::default() },
            resume: true,
        };
        let opts = ScanOptions::default();
        assert!(!open_work(&work, &opts).unwrap());
        assert!(open_work(&work, &opts).unwrap());
        std::fs::write(work.dir.join("manifest.json"), r#"{"schema": "parallels.scan.work/1", "key": {}}"#).unwrap();
        assert!(!open_work(&work, &opts).unwrap());
        assert_eq!(read_json::<Manifest>(&work.dir.join("manifest.json")), Some(Manifest::new(&work, &opts)));
    }

    #[test]
    fn stored_texts_read_back_from_any_offset_on_several_threads() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::create(dir.path()).unwrap();
        let texts: Vec<String> = (0..200).map(|i| format!("第{i}篇：{}", "字".repeat(i % 17))).collect();
        let at: Vec<(u64, u64)> = texts.iter().map(|t| store.push(t).unwrap()).collect();
        store.finish().unwrap();
        let file = File::open(dir.path().join("texts.bin")).unwrap();
        let back: Vec<String> =
            at.par_iter().rev().map(|&(offset, len)| read_text(&file, offset, len).unwrap()).collect();
        assert_eq!(back.into_iter().rev().collect::<Vec<_>>(), texts);
    }

    #[test]
    fn the_summary_is_written_with_sorted_keys_and_reads_back() {
        let summary = ScanSummary {
            schema: SCAN_SCHEMA.to_string(),
            stats: ScanStats {
                documents: 3,
                passages: 14,
                boilerplate: vec![(120, "本报讯".into())],
                ..Default::default()
            },
            fields: ScanFields { id: "url".into(), text: "body".into() },
            inputs: Some(vec![InputFile::of_bytes(Path::new("corpus/a.txt"), "本报讯".as_bytes())]),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        summary.write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let keys: Vec<&str> =
            text.lines().filter_map(|l| l.trim_start().strip_prefix('"')?.split_once("\":")).map(|(k, _)| k).collect();
        let stats_keys = &keys[keys.iter().position(|&k| k == "stats").unwrap() + 1..];
        assert_eq!(&keys[..8], ["fields", "id", "text", "inputs", "path", "size", "xxh3_128", "schema"]);
        let mut sorted = stats_keys.to_vec();
        sorted.sort_unstable();
        assert_eq!(stats_keys, sorted);
        assert_eq!(serde_json::from_str::<ScanSummary>(&text).unwrap(), summary);
    }

    #[test]
    fn a_summary_without_fields_reads_with_the_default_fields() {
        let mut written = serde_json::to_value(ScanSummary {
            schema: SCAN_SCHEMA.to_string(),
            stats: ScanStats::default(),
            fields: ScanFields { id: "url".into(), text: "body".into() },
            inputs: None,
        })
        .unwrap();
        written.as_object_mut().unwrap().remove("fields");
        let s: ScanSummary = serde_json::from_value(written).unwrap();
        assert_eq!(s.fields, ScanFields { id: "id".into(), text: "text".into() });
        assert_eq!(s.inputs, None);
    }

    #[test]
    fn an_input_file_is_recorded_with_its_size_and_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "天下大势").unwrap();
        let f = InputFile::of(&path).unwrap();
        assert_eq!(f.path, path.display().to_string());
        assert_eq!(f.size, 12);
        assert_eq!(f.xxh3_128.len(), 32);
        assert_eq!(f, InputFile::of_bytes(&f.path, "天下大势".as_bytes()));
        assert_ne!(f.xxh3_128, InputFile::of_bytes(&f.path, "天下大勢".as_bytes()).xxh3_128);
        let err = InputFile::of(&dir.path().join("gone.txt")).unwrap_err();
        assert!(err.to_string().contains("gone.txt"), "{err}");
    }
}
