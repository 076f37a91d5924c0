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
//!    batches; each batch is normalized, segmented and fingerprinted in
//!    parallel ([`seeds::seeds`]). Texts go to a store file in the work
//!    folder; only a small record per document stays in memory.
//! 2. **Candidates.** Seeds are sorted by hash through an external sorter
//!    ([`sort`]) that spills beyond the memory budget; pairs of documents
//!    that share at least `min_seeds` seeds, none of them in more than
//!    `max_df` documents, are candidates ([`seeds::pairs`]).
//!    While reading, every sentence's features are counted into a
//!    fixed-size table ([`CorpusDf`]), so that alignment weighs features by
//!    how rare they are in the whole corpus, not just in the two documents.
//! 3. **Align.** Candidate pairs are aligned in chunks: the documents a chunk
//!    needs are read back from the store and prepared once, then the pairs
//!    are aligned in parallel with the same [`Aligner`] as `parallels align`.
//!    Preparing again was chosen over storing tokens (a token would take
//!    about 14 bytes on disk, its character 3): a deliberate exception to
//!    "no stage redoes another's work", not yet measured against the
//!    alternative. Normalizing runs at 40–70 MB/s per core.
//! 4. **Cluster** passages by overlapping spans ([`cluster`]).
//!
//! Output order is fixed by document order and pair order, never by thread
//! timing: the same input gives the same output whatever the thread count.

pub mod cluster;
mod parquet_out;
pub mod seeds;
pub mod sort;

use crate::align::features::{corpus_vectors, CorpusDf, Vectors};
use crate::align::{covered_chars, Aligner, Options, Passage, Prepared, Span};
use crate::corpus::{CorpusDoc, CorpusReader, Problem};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub use parquet_out::write_parquet;
pub use seeds::SeedParams;

/// The schema tag written in `documents.jsonl`'s companion `summary.json`.
pub const SCAN_SCHEMA: &str = "parallels.scan/1";

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
    pub align: Options,
    pub seeds: SeedParams,
    /// Memory for sorting, in bytes (spilled to disk beyond it).
    pub memory: u64,
    /// Documents prepared per batch while reading.
    pub batch: usize,
    /// Candidate pairs aligned per chunk.
    pub chunk: usize,
    /// Feature frequencies are counted in `2^df_bits` buckets (4 bytes each).
    pub df_bits: u32,
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
        ScanOptions { align, seeds: SeedParams::default(), memory: 512 << 20, batch: 512, chunk: 4096, df_bits: 24 }
    }
}

/// Where a long stage reports progress (a terminal progress bar, or nothing).
pub trait Progress: Sync {
    /// A stage starts; `total` units if known.
    fn stage(&self, _name: &str, _total: Option<u64>) {}
    /// `n` more units are done.
    fn advance(&self, _n: u64) {}
    /// A non-fatal problem with the input.
    fn problem(&self, _p: &Problem) {}
}

/// Reports nothing.
pub struct Quiet;
impl Progress for Quiet {}

/// One document as `documents.jsonl` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanDocument {
    pub id: String,
    pub source: String,
    pub chars: u64,
    pub encoding: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Passages this document takes part in.
    pub passages: u64,
    /// Share of its characters inside some passage, in [0, 1].
    pub shared: f64,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub meta: serde_json::Map<String, serde_json::Value>,
}

/// One line of `passages.jsonl`: an aligned passage between two documents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanPassage {
    pub a_doc: String,
    pub b_doc: String,
    pub cluster: u32,
    #[serde(flatten)]
    pub passage: Passage,
}

/// One place of a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterMember {
    pub doc: String,
    pub span: Span,
}

/// One line of `clusters.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanCluster {
    pub id: u32,
    /// Number of places (members).
    pub size: u32,
    pub members: Vec<ClusterMember>,
    /// The start of the longest member's text.
    pub excerpt: String,
}

/// Counts for the summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScanStats {
    pub documents: u64,
    pub skipped: u64,
    pub chars: u64,
    pub seeds: u64,
    pub candidate_pairs: u64,
    pub aligned_pairs: u64,
    pub passages: u64,
    pub clusters: u64,
    /// Most frequent boilerplate n-grams (over `max_df` documents): document
    /// frequency and the text of one occurrence.
    pub boilerplate: Vec<(u32, String)>,
}

/// The whole result of a scan.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanResult {
    pub documents: Vec<ScanDocument>,
    pub passages: Vec<ScanPassage>,
    pub clusters: Vec<ScanCluster>,
    pub stats: ScanStats,
}

/// What scanning failed on.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("{0}")]
    Corpus(#[from] crate::corpus::CorpusError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{0}; stopped at the first problem (--strict), nothing was written")]
    Strict(Problem),
    #[error("more than {max} documents; split the corpus")]
    TooManyDocuments { max: u64 },
}

/// Per document, kept in memory during a scan.
struct DocRecord {
    id: String,
    source: String,
    encoding: String,
    group: Option<String>,
    meta: serde_json::Map<String, serde_json::Value>,
    chars: u64,
    /// Byte offset and length of the text in the store.
    offset: u64,
    len: u64,
}

/// Texts written once, read back by offset from any thread.
struct Store {
    path: PathBuf,
    writer: BufWriter<File>,
    len: u64,
}

impl Store {
    fn create(dir: &Path) -> io::Result<Store> {
        let path = dir.join("texts.bin");
        Ok(Store { writer: BufWriter::with_capacity(1 << 20, File::create(&path)?), path, len: 0 })
    }

    fn push(&mut self, text: &str) -> io::Result<(u64, u64)> {
        self.writer.write_all(text.as_bytes())?;
        let at = self.len;
        self.len += text.len() as u64;
        Ok((at, text.len() as u64))
    }

    fn reader(mut self) -> io::Result<File> {
        self.writer.flush()?;
        File::open(&self.path)
    }
}

fn read_text(file: &File, offset: u64, len: u64) -> io::Result<String> {
    let mut buf = vec![0u8; len as usize];
    file.read_exact_at(&mut buf, offset)?;
    String::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Scan a corpus. `work` is an empty folder for spill files and the text
/// store; it may be deleted afterwards.
pub fn scan(
    reader: &mut CorpusReader,
    opts: &ScanOptions,
    work: &Path,
    progress: &dyn Progress,
) -> Result<ScanResult, ScanError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source: io::Error| ScanError::Io { path: path.clone(), source }
    };
    let aligner = Aligner::new(opts.align.clone());
    let seed_chunk = (opts.memory / 2 / 16).max(1 << 16) as usize;
    let mut sorter: sort::Sorter<seeds::Seed> = sort::Sorter::new(work, "seeds", seed_chunk);
    let mut store = Store::create(work).map_err(io_err(work))?;
    let mut docs: Vec<DocRecord> = Vec::new();
    let mut stats = ScanStats::default();
    let corpus_df = CorpusDf::new(opts.df_bits);

    // 1. Read and prepare, batch by batch.
    progress.stage("documents", None);
    let mut batch: Vec<CorpusDoc> = Vec::with_capacity(opts.batch);
    let mut done = false;
    while !done {
        batch.clear();
        while batch.len() < opts.batch {
            match reader.next() {
                None => {
                    done = true;
                    break;
                }
                Some(Ok(d)) => batch.push(d),
                Some(Err(p)) if reader.options().strict => return Err(ScanError::Strict(p)),
                Some(Err(p)) => {
                    stats.skipped += 1;
                    progress.problem(&p);
                }
            }
        }
        let fingerprints: Vec<(u64, Vec<(u64, u32)>)> = batch
            .par_iter()
            .map(|d| {
                let p = aligner.prepare(&d.text);
                corpus_df.add(&p.seg);
                (p.chars as u64, seeds::seeds(&p.seg, &opts.seeds))
            })
            .collect();
        for (d, (chars, fp)) in batch.drain(..).zip(fingerprints) {
            let doc = docs.len() as u32;
            if docs.len() as u64 >= u32::MAX as u64 - 1 {
                return Err(ScanError::TooManyDocuments { max: u32::MAX as u64 - 1 });
            }
            for (hash, pos) in fp {
                sorter.push(seeds::Seed { hash, doc, pos }).map_err(io_err(work))?;
            }
            let (offset, len) = store.push(&d.text).map_err(io_err(work))?;
            stats.chars += chars;
            docs.push(DocRecord {
                id: d.id,
                source: d.source,
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
    }
    stats.seeds = sorter.count;
    let texts = store.reader().map_err(io_err(work))?;

    // 2. Candidate pairs.
    progress.stage("candidates", None);
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
    let sorted = sorter.finish().map_err(io_err(work))?;
    let (candidates, pair_stats) =
        seeds::pairs(sorted, &group, &opts.seeds, work, (opts.memory / 2 / 8).max(1 << 16) as usize)
            .map_err(io_err(work))?;
    stats.candidate_pairs = candidates.len() as u64;
    for &(df, doc, pos) in &pair_stats.boilerplate {
        let d = &docs[doc as usize];
        let text = read_text(&texts, d.offset, d.len).map_err(io_err(work))?;
        let p = aligner.prepare(&text);
        let toks = &p.seg.tokens;
        let (s, e) = (pos as usize, (pos as usize + opts.seeds.n).min(toks.len()));
        let excerpt: String = if s < e {
            text.chars().skip(toks[s].start as usize).take((toks[e - 1].end - toks[s].start) as usize).collect()
        } else {
            String::new()
        };
        stats.boilerplate.push((df, excerpt));
    }

    // 3. Align, chunk by chunk.
    progress.stage("aligning", Some(candidates.len() as u64));
    let mut found: Vec<(u32, u32, Vec<Passage>)> = Vec::new();
    for chunk in candidates.chunks(opts.chunk.max(1)) {
        let mut needed: Vec<u32> = chunk.iter().flat_map(|&(a, b, _)| [a, b]).collect();
        needed.sort_unstable();
        needed.dedup();
        let prepared: Vec<io::Result<(Prepared, Vectors)>> = needed
            .par_iter()
            .map(|&d| {
                let r = &docs[d as usize];
                read_text(&texts, r.offset, r.len).map(|t| {
                    let p = aligner.prepare(&t);
                    let v = corpus_vectors(&p.seg, &corpus_df);
                    (p, v)
                })
            })
            .collect();
        let mut cache: FxHashMap<u32, (Prepared, Vectors)> = FxHashMap::default();
        for (d, p) in needed.iter().zip(prepared) {
            cache.insert(*d, p.map_err(io_err(work))?);
        }
        let aligned: Vec<(u32, u32, Vec<Passage>)> = chunk
            .par_iter()
            .map(|&(a, b, _)| {
                let ((pa, va), (pb, vb)) = (&cache[&a], &cache[&b]);
                (a, b, aligner.align_weighed(pa, va, pb, vb, &corpus_df))
            })
            .collect();
        found.extend(aligned.into_iter().filter(|x| !x.2.is_empty()));
        progress.advance(chunk.len() as u64);
    }
    stats.aligned_pairs = found.len() as u64;

    // 4. Cluster.
    progress.stage("clustering", None);
    let flat: Vec<(u32, Span, u32, Span)> =
        found.iter().flat_map(|(a, b, ps)| ps.iter().map(move |p| (*a, p.a, *b, p.b))).collect();
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
    let mut passages = Vec::with_capacity(flat.len());
    let mut k = 0;
    for (a, b, ps) in found {
        for p in ps {
            passages.push(ScanPassage {
                a_doc: docs[a as usize].id.clone(),
                b_doc: docs[b as usize].id.clone(),
                cluster: clusters.of_passage[k],
                passage: p,
            });
            k += 1;
        }
    }
    let mut out_clusters = Vec::with_capacity(clusters.members.len());
    for (id, members) in clusters.members.iter().enumerate() {
        let longest =
            members.iter().max_by_key(|m| (m.span[1] - m.span[0], std::cmp::Reverse((m.doc, m.span)))).unwrap();
        let d = &docs[longest.doc as usize];
        let text = read_text(&texts, d.offset, d.len).map_err(io_err(work))?;
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
    Ok(ScanResult { documents, passages, clusters: out_clusters, stats })
}

/// Write `documents.jsonl`, `passages.jsonl`, `clusters.jsonl` and
/// `summary.json` into `dir`, each under a temporary name first.
pub fn write_jsonl(result: &ScanResult, dir: &Path) -> io::Result<()> {
    fn lines<T: Serialize>(dir: &Path, name: &str, rows: &[T]) -> io::Result<()> {
        let tmp = dir.join(format!(".{name}.tmp"));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        for r in rows {
            serde_json::to_writer(&mut w, r)?;
            w.write_all(b"\n")?;
        }
        w.flush()?;
        drop(w);
        std::fs::rename(&tmp, dir.join(name))
    }
    std::fs::create_dir_all(dir)?;
    lines(dir, "documents.jsonl", &result.documents)?;
    lines(dir, "passages.jsonl", &result.passages)?;
    lines(dir, "clusters.jsonl", &result.clusters)?;
    write_summary(result, dir)
}

/// Write `summary.json` (the schema tag and the counts) into `dir`.
pub fn write_summary(result: &ScanResult, dir: &Path) -> io::Result<()> {
    let summary = serde_json::json!({"schema": SCAN_SCHEMA, "stats": result.stats});
    let tmp = dir.join(".summary.json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&summary)?)?;
    std::fs::rename(tmp, dir.join("summary.json"))
}
