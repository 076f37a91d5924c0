//! A persistent index of a library of documents: `parallels index build`
//! and `add` write it, `query` and `serve` ask it which of its passages a
//! new text shares.
//!
//! # What it holds
//!
//! The same readers, normalization and seeds as [`crate::scan`]: every
//! document is prepared with the scan's [`Aligner`], its winnowed seeds
//! ([`crate::scan::SeedParams`]) become postings from seed hash to
//! `(document, position)`, its sentence features are counted into the
//! corpus-wide feature table ([`CorpusDf`]) that weighs alignment, and its
//! text is stored compressed (one zstd frame per document) so that results
//! show passages without the original files.
//!
//! # Layout, and why no key–value store
//!
//! ```text
//! lib.idx/
//!   manifest.json          the committed state: options, segments, feature table
//!   lock                   held (flock) by the one writer
//!   seg.000001/            one segment per build or add, never changed once written
//!     docs.jsonl           one record per document (id, source, offsets into texts.zst)
//!     texts.zst            each text an independent zstd frame
//!     postings.bin         (hash, document, position), 16 bytes each, sorted
//!     postings.idx         the hash of every 256th posting
//!   df.000001.zst          the feature table after that segment (zstd)
//! ```
//!
//! The postings are written once, sorted by the scan's external sorter, and
//! only ever read: an append-only set of immutable segments is all an
//! append-heavy index needs, and it makes crash safety a single rename. An
//! embedded LSM key–value store (a RocksDB binding, fjall, sled) would
//! bring its own write-ahead log, compaction threads and file formats to do
//! what sorted runs of fixed-size records do here, and tantivy's segment
//! model is built for text search with analyzers, not for 64-bit n-gram
//! hashes; both would hold a second copy of what the scan's sorter already
//! produces. Lookups binary-search the postings mapped into memory
//! (`memmap2`, the maintained successor of `memmap`): nothing is read
//! when an index is opened, and a lookup costs no system call. The
//! mapping is safe because a segment is never written once named.
//!
//! # Crash safety and the one writer
//!
//! A segment and its feature table are written under temporary names,
//! synced, and renamed into place; only then is `manifest.json` replaced
//! (temporary file, sync, rename: [`write_atomic`]). Readers open only what
//! the manifest lists, so a writer killed at any point leaves the index as
//! it was before (the new files are unreferenced and removed by the next
//! writer) or as it is after. A writer holds an exclusive lock on `lock`
//! ([`fs4`], a maintained wrapper of `flock`/`LockFileEx`, chosen over
//! `std`'s `File::try_lock` for the crate's minimum Rust version): the
//! kernel releases it when the process dies, so a killed writer never
//! leaves a stale lock, and a second writer is refused with
//! [`IndexError::Locked`]. The commit reports each of its steps to the
//! [`Progress`] (stage `committing`), where the crash tests stop the
//! process between any two.
//!
//! # Queries
//!
//! [`Index::query`] does for one new text what `scan` does for a pair:
//! the text's seeds are looked up, library documents sharing at least
//! `min_seeds` of them (none in more than `max_df` documents) are
//! candidates, and each candidate pair is aligned, weighed and filtered by
//! the scan's own chunk aligner (`align_prepared`: the same bound, the
//! same significance and bars), the document frequencies being those of
//! the library plus the query. Two shortcuts leave the answers as they
//! are: a frequency is counted only up to `max_df + 1` documents (above,
//! a seed weighs nothing and is no vote), and the scan's bound is first
//! taken with the frequencies the text's lookups gave, a candidate's other
//! seeds weighed as the rarest: only a candidate that passes has those
//! looked up (most share only formula with the text). The results are those `scan` gives for the
//! pairs between the text and the library on the library with the text
//! added, but for one difference: the query's own sentence features are
//! not added to the feature table (it is shared by concurrent queries), so
//! each of its features counts one document fewer.

mod query;
mod segment;

pub use query::{Hit, QueryTimings};

use crate::align::features::CorpusDf;
use crate::align::Aligner;
use crate::corpus::{BatchStop, CorpusDoc, CorpusReader, Problem, Source};
use crate::normalize::NormalizeOptions;
use crate::plumbing::{write_atomic, Progress};
use crate::scan::{ScanOptions, SeedParams};
use rayon::prelude::*;
use segment::{Segment, SegmentWriter};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The schema tag of `manifest.json`.
pub const INDEX_SCHEMA: &str = "parallels.index/1";

/// A batch of documents read holds at most this many bytes.
const BATCH_BYTES: usize = 8 << 20;

/// The switches an index is made with, kept in its manifest: every query
/// and every `add` uses them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexOptions {
    /// Seeds: n-gram length, window, `max_df`, `min_seeds`.
    pub seeds: SeedParams,
    /// Feature table size (`2^df_bits` buckets).
    pub df_bits: u32,
    /// The scan's [`ScanOptions::min_significance`].
    pub min_significance: f64,
    /// The scan's [`ScanOptions::min_parallel_pair`].
    pub min_parallel_pair: f64,
    /// The scan's [`ScanOptions::min_specificity`].
    #[serde(default = "default_min_specificity")]
    pub min_specificity: f64,
    /// Traditional/simplified and variant folding.
    pub script: bool,
    /// Chinese numerals read as numbers.
    pub numbers: bool,
    /// Footnote markers dropped.
    pub footnotes: bool,
    /// Serialization headers marked as boilerplate.
    pub boilerplate: bool,
}

fn default_min_specificity() -> f64 {
    ScanOptions::default().min_specificity
}

impl Default for IndexOptions {
    fn default() -> Self {
        let scan = ScanOptions::default();
        let n = NormalizeOptions::default();
        IndexOptions {
            seeds: scan.seeds,
            df_bits: scan.df_bits,
            min_significance: scan.min_significance,
            min_parallel_pair: scan.min_parallel_pair,
            min_specificity: scan.min_specificity,
            script: n.script,
            numbers: n.numbers,
            footnotes: n.footnotes,
            boilerplate: n.boilerplate,
        }
    }
}

impl IndexOptions {
    /// The scan options these stand for (the scan's defaults otherwise).
    pub fn scan(&self) -> ScanOptions {
        let mut opts = ScanOptions {
            seeds: self.seeds.clone(),
            df_bits: self.df_bits,
            min_significance: self.min_significance,
            min_parallel_pair: self.min_parallel_pair,
            min_specificity: self.min_specificity,
            ..ScanOptions::default()
        };
        opts.align.normalize = NormalizeOptions {
            script: self.script,
            variants: self.script,
            numbers: self.numbers,
            footnotes: self.footnotes,
            boilerplate: self.boilerplate,
            ..NormalizeOptions::default()
        };
        opts
    }
}

/// One segment as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SegmentEntry {
    /// Its folder's name.
    name: String,
    /// The number of its first document.
    first: u32,
    /// Its documents.
    docs: u32,
}

/// `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Manifest {
    schema: String,
    /// Incremented by every build or add.
    generation: u64,
    options: IndexOptions,
    /// The alignment options in their `Debug` form, to refuse an index made
    /// by a version that aligns otherwise.
    align: String,
    segments: Vec<SegmentEntry>,
    /// The feature table's file.
    df: String,
    /// Documents in all segments.
    documents: u64,
    /// Characters in all documents.
    chars: u64,
}

/// What went wrong with an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Another process is writing the index.
    #[error("{0}: another `parallels index` is writing this index; wait for it to finish (only one writer at a time)")]
    Locked(PathBuf),
    /// `build` on an index that exists.
    #[error("{0}: an index is already there; use `parallels index add` to add documents, or remove it first")]
    Exists(PathBuf),
    /// No index at the path.
    #[error("{0}: no index here (make one with `parallels index build`)")]
    Missing(PathBuf),
    /// The index was made by another version.
    #[error("{0}: this index was made by another version of parallels ({1}); build it again")]
    Version(PathBuf, String),
    /// The corpus cannot be read.
    #[error("{0}")]
    Corpus(#[from] crate::corpus::CorpusError),
    /// The first problem met with `--strict`.
    #[error("{0}; stopped at the first problem (--strict), the index is unchanged")]
    Strict(Problem),
    /// No document was read (the inputs hold none, or every one was
    /// skipped): nothing is written.
    #[error("no document was read ({0} record(s) or file(s) skipped); the index is unchanged")]
    Empty(u64),
    /// More documents than 32-bit numbers count.
    #[error("more than {0} documents in one index")]
    TooManyDocuments(u64),
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

fn io_at(path: &Path) -> impl Fn(io::Error) -> IndexError + '_ {
    move |source| IndexError::Io { path: path.to_path_buf(), source }
}

/// What a build or an add did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AddStats {
    /// Documents added.
    pub documents: u64,
    /// Their characters.
    pub chars: u64,
    /// Their seeds (postings).
    pub seeds: u64,
    /// Records and files skipped (problems).
    pub skipped: u64,
    /// Documents in the index after.
    pub total: u64,
}

/// The writer's lock on an index folder, released when dropped (or when
/// the process dies).
struct WriteLock {
    _file: File,
}

impl WriteLock {
    fn take(dir: &Path) -> Result<WriteLock, IndexError> {
        let path = dir.join("lock");
        let file =
            std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io_at(&path))?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => Ok(WriteLock { _file: file }),
            Err(fs4::TryLockError::WouldBlock) => Err(IndexError::Locked(dir.to_path_buf())),
            Err(fs4::TryLockError::Error(e)) => Err(io_at(&path)(e)),
        }
    }
}

fn read_manifest(dir: &Path) -> Result<Option<Manifest>, IndexError> {
    let path = dir.join("manifest.json");
    match std::fs::read(&path) {
        Ok(bytes) => {
            let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| io_at(&path)(e.into()))?;
            if m.schema != INDEX_SCHEMA {
                return Err(IndexError::Version(dir.to_path_buf(), m.schema));
            }
            Ok(Some(m))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_at(&path)(e)),
    }
}

/// Remove what a killed writer left: folders and files the manifest does
/// not list (only called under the lock).
fn remove_unlisted(dir: &Path, m: Option<&Manifest>) -> io::Result<()> {
    let mut keep: Vec<String> = vec!["manifest.json".into(), "lock".into()];
    if let Some(m) = m {
        keep.extend(m.segments.iter().map(|s| s.name.clone()));
        keep.push(m.df.clone());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with("seg.") || name.starts_with("df.") || name.starts_with(".tmp");
        if ours && !keep.contains(&name) {
            if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(entry.path())?;
            } else {
                std::fs::remove_file(entry.path())?;
            }
        }
    }
    Ok(())
}

/// Make a new index at `dir` from the documents of `reader` (the folder is
/// created if missing; an index already there is refused). When it fails
/// (no document read, `--strict`, an error) there is no index: a folder it
/// created is removed.
pub fn build(
    dir: &Path,
    reader: &mut CorpusReader,
    options: &IndexOptions,
    progress: &dyn Progress,
) -> Result<AddStats, IndexError> {
    let created = !dir.exists();
    std::fs::create_dir_all(dir).map_err(io_at(dir))?;
    let r = build_in(dir, reader, options, progress);
    // Not when another writer holds the folder (it may have made it an
    // instant before this looked).
    let ours = !matches!(r, Ok(_) | Err(IndexError::Locked(_)));
    if created && ours && !dir.join("manifest.json").exists() {
        let _ = std::fs::remove_dir_all(dir);
    }
    r
}

fn build_in(
    dir: &Path,
    reader: &mut CorpusReader,
    options: &IndexOptions,
    progress: &dyn Progress,
) -> Result<AddStats, IndexError> {
    let _lock = WriteLock::take(dir)?;
    if read_manifest(dir)?.is_some() {
        return Err(IndexError::Exists(dir.to_path_buf()));
    }
    remove_unlisted(dir, None).map_err(io_at(dir))?;
    let opts = options.scan();
    let base = Manifest {
        schema: INDEX_SCHEMA.into(),
        generation: 0,
        options: options.clone(),
        align: format!("{:?}", opts.align),
        segments: Vec::new(),
        df: String::new(),
        documents: 0,
        chars: 0,
    };
    ingest(dir, reader, base, CorpusDf::new(opts.df_bits), progress)
}

/// Add the documents of `reader` to the index at `dir`: only they are read
/// and fingerprinted; the feature table is updated.
pub fn add(dir: &Path, reader: &mut CorpusReader, progress: &dyn Progress) -> Result<AddStats, IndexError> {
    if !dir.join("manifest.json").exists() {
        return Err(IndexError::Missing(dir.to_path_buf()));
    }
    let _lock = WriteLock::take(dir)?;
    let m = read_manifest(dir)?.ok_or_else(|| IndexError::Missing(dir.to_path_buf()))?;
    check_version(dir, &m)?;
    remove_unlisted(dir, Some(&m)).map_err(io_at(dir))?;
    let df = load_df(dir, &m)?;
    ingest(dir, reader, m, df, progress)
}

fn check_version(dir: &Path, m: &Manifest) -> Result<(), IndexError> {
    let align = format!("{:?}", m.options.scan().align);
    if align != m.align {
        return Err(IndexError::Version(dir.to_path_buf(), "alignment options differ".into()));
    }
    Ok(())
}

fn load_df(dir: &Path, m: &Manifest) -> Result<CorpusDf, IndexError> {
    let path = dir.join(&m.df);
    let file = File::open(&path).map_err(io_at(&path))?;
    let mut z = zstd::Decoder::new(file).map_err(io_at(&path))?;
    CorpusDf::load(&mut z).map_err(io_at(&path))
}

/// A document ready for its segment: characters, seeds, compressed text.
type Prepared = (u64, Vec<(u64, u32)>, Vec<u8>);

/// Read every document of `reader` into a new segment, then commit it with
/// the updated feature table.
fn ingest(
    dir: &Path,
    reader: &mut CorpusReader,
    mut m: Manifest,
    df: CorpusDf,
    progress: &dyn Progress,
) -> Result<AddStats, IndexError> {
    let opts = m.options.scan();
    let aligner = Aligner::new(opts.align.clone());
    let generation = m.generation + 1;
    let name = format!("seg.{generation:06}");
    let tmp = dir.join(format!(".tmp.{name}"));
    let first = m.documents;
    let mut w = SegmentWriter::create(&tmp, first).map_err(io_at(&tmp))?;
    let mut stats = AddStats::default();
    progress.stage("documents", None);
    let read = reader.read_batches(512, BATCH_BYTES, progress, |batch: Vec<CorpusDoc>| {
        let prepared: Vec<Prepared> = batch
            .par_iter()
            .map(|d| {
                let p = aligner.prepare(&d.text);
                df.add(&p.seg);
                let packed = zstd::bulk::compress(d.text.as_bytes(), 3)?;
                Ok((p.chars as u64, crate::scan::seeds::seeds(&p.seg, &opts.seeds), packed))
            })
            .collect::<io::Result<_>>()
            .map_err(io_at(&tmp))?;
        for (d, (chars, seeds, packed)) in batch.into_iter().zip(prepared) {
            if first + stats.documents >= u32::MAX as u64 - 1 {
                return Err(IndexError::TooManyDocuments(u32::MAX as u64 - 1));
            }
            stats.seeds += seeds.len() as u64;
            stats.chars += chars;
            w.push(d.id, d.origin.source, d.encoding, d.meta, chars, d.text.len() as u64, &packed, &seeds)
                .map_err(io_at(&tmp))?;
            stats.documents += 1;
            progress.advance(1);
        }
        Ok(())
    });
    let failed = |e: IndexError| {
        let _ = std::fs::remove_dir_all(&tmp);
        e
    };
    match read {
        Ok(()) => {}
        Err(BatchStop::Strict(p)) => return Err(failed(IndexError::Strict(p))),
        Err(BatchStop::Consumer(e)) => return Err(failed(e)),
    }
    stats.skipped = reader.summary().skipped_total();
    if stats.documents == 0 {
        return Err(failed(IndexError::Empty(stats.skipped)));
    }
    progress.stage("postings", None);
    w.finish().map_err(io_at(&tmp)).map_err(failed)?;
    // Each step of the commit is reported, so that the crash tests can
    // stop the process between any two (`PARALLELS_TEST_CRASH=committing:N`).
    progress.stage("committing", None);
    let seg = dir.join(&name);
    std::fs::rename(&tmp, &seg).map_err(io_at(&seg))?;
    progress.advance(1);
    let df_name = format!("df.{generation:06}.zst");
    let df_tmp = dir.join(format!(".tmp.{df_name}"));
    {
        let file = File::create(&df_tmp).map_err(io_at(&df_tmp))?;
        let mut z = zstd::Encoder::new(file, 3).map_err(io_at(&df_tmp))?;
        df.save(&mut z).map_err(io_at(&df_tmp))?;
        let file = z.finish().map_err(io_at(&df_tmp))?;
        file.sync_all().map_err(io_at(&df_tmp))?;
    }
    std::fs::rename(&df_tmp, dir.join(&df_name)).map_err(io_at(&df_tmp))?;
    sync_dir(dir);
    progress.advance(1);
    m.segments.push(SegmentEntry { name, first: first as u32, docs: stats.documents as u32 });
    let old_df = std::mem::replace(&mut m.df, df_name);
    m.generation = generation;
    m.documents += stats.documents;
    m.chars += stats.chars;
    let path = dir.join("manifest.json");
    write_atomic(&path, &serde_json::to_vec_pretty(&m).map_err(|e| io_at(&path)(e.into()))?).map_err(io_at(&path))?;
    progress.advance(1);
    if !old_df.is_empty() {
        let _ = std::fs::remove_file(dir.join(old_df));
    }
    stats.total = m.documents;
    Ok(stats)
}

/// Make the renames in `dir` durable (where the platform allows syncing a
/// folder).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// One document of the index as its listing gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexDoc {
    /// Its id in its corpus.
    pub id: String,
    /// Where it was read from.
    pub source: Source,
    /// The encoding it was decoded from.
    pub encoding: String,
    /// Its length in code points.
    pub chars: u64,
    /// The other fields of its record.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub meta: serde_json::Map<String, serde_json::Value>,
    /// Byte length of its text.
    pub bytes: u64,
    /// Offset and length of its compressed text in `texts.zst`.
    pub at: (u64, u64),
}

/// An index opened for reading. Reading never takes the writer's lock: it
/// sees the manifest that was in place when it was opened.
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    segments: Vec<Segment>,
    df: CorpusDf,
    opts: ScanOptions,
    /// `opts` with bars lowered by [`REACH_MARGIN`], for the bound a
    /// query takes before it knows every frequency.
    loose: ScanOptions,
    aligner: Aligner,
}

/// How much lower the bars of a query's first bound are than the scan's:
/// the bound with some weights raised is never lower in exact arithmetic,
/// and this margin keeps floating-point rounding from making it so.
const REACH_MARGIN: f64 = 1e-6;

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("dir", &self.dir).field("documents", &self.manifest.documents).finish()
    }
}

/// What an index holds, in figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IndexInfo {
    /// Documents.
    pub documents: u64,
    /// Their characters.
    pub chars: u64,
    /// Segments (one per build or add).
    pub segments: usize,
    /// Builds and adds so far.
    pub generation: u64,
    /// The options it was made with.
    pub options: IndexOptions,
}

impl Index {
    /// Open the index at `dir`.
    pub fn open(dir: &Path) -> Result<Index, IndexError> {
        // A writer that commits while this opens removes the files of the
        // manifest read here: then the new manifest is read.
        let mut tries = 0;
        loop {
            match Index::open_once(dir) {
                Err(IndexError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound && tries < 3 => {
                    tries += 1
                }
                r => return r,
            }
        }
    }

    fn open_once(dir: &Path) -> Result<Index, IndexError> {
        let m = read_manifest(dir)?.ok_or_else(|| IndexError::Missing(dir.to_path_buf()))?;
        check_version(dir, &m)?;
        let segments = m
            .segments
            .iter()
            .map(|s| {
                let path = dir.join(&s.name);
                Segment::open(&path, s.first, s.docs).map_err(io_at(&path))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let df = load_df(dir, &m)?;
        let opts = m.options.scan();
        let aligner = Aligner::new(opts.align.clone());
        let loose = ScanOptions {
            min_significance: opts.min_significance - REACH_MARGIN,
            min_parallel_pair: opts.min_parallel_pair - REACH_MARGIN,
            ..opts.clone()
        };
        Ok(Index { dir: dir.to_path_buf(), manifest: m, segments, df, opts, loose, aligner })
    }

    /// Its figures.
    pub fn info(&self) -> IndexInfo {
        IndexInfo {
            documents: self.manifest.documents,
            chars: self.manifest.chars,
            segments: self.segments.len(),
            generation: self.manifest.generation,
            options: self.manifest.options.clone(),
        }
    }

    /// Number of documents.
    pub fn len(&self) -> u32 {
        self.manifest.documents as u32
    }

    /// Whether it holds no document.
    pub fn is_empty(&self) -> bool {
        self.manifest.documents == 0
    }

    /// The aligner its documents were prepared with (to prepare a text the
    /// same way for display).
    pub fn aligner(&self) -> &Aligner {
        &self.aligner
    }

    fn segment_of(&self, doc: u32) -> Option<&Segment> {
        let k = self.segments.partition_point(|s| s.first <= doc);
        let s = self.segments.get(k.checked_sub(1)?)?;
        (doc < s.first + s.docs.len() as u32).then_some(s)
    }

    /// Document number `doc` (numbered from 0 in the order added).
    pub fn doc(&self, doc: u32) -> Option<&IndexDoc> {
        let s = self.segment_of(doc)?;
        s.docs.get((doc - s.first) as usize)
    }

    /// The text of document `doc`, decompressed.
    pub fn text(&self, doc: u32) -> io::Result<String> {
        let s = self
            .segment_of(doc)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no document {doc}")))?;
        s.text((doc - s.first) as usize)
    }

    /// The documents whose id is `id`.
    pub fn find(&self, id: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for s in &self.segments {
            for (k, d) in s.docs.iter().enumerate() {
                if d.id == id {
                    out.push(s.first + k as u32);
                }
            }
        }
        out
    }
}
