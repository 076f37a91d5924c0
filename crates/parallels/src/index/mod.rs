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
//! Each document's language is recorded ([`crate::mine::language`]). With
//! translations ([`Translations`]: `build` turns them on when its corpus
//! holds two or more languages the encoder knows, as `scan` does, or when
//! asked; the manifest keeps the choice and every `add` follows it), a
//! segment also keeps its documents' sentence vectors (`vectors.rs`: why 8
//! bits, why raw and not centred), written after its texts, from them, so
//! that `build` decides once it has read its corpus and no text is held
//! twice. An index without them is exactly the index of before, but for
//! the language in `docs.jsonl`.
//!
//! # Layout
//!
//! ```text
//! lib.idx/
//!   manifest.json          the committed state: options, segments, feature table,
//!                          the length and CRC-32 of every file below
//!   lock                   only while a writer runs: its process id, held (flock)
//!   seg.000001/            one segment per build or add, never changed once written
//!     docs.jsonl           one record per document (id, text hash, source,
//!                          offsets into texts.zst)
//!     texts.zst            each text an independent zstd frame with its checksum
//!     postings.bin         (hash, document, position), 16 bytes each, sorted
//!     postings.idx         the hash of every 256th posting
//!     vectors.bin          only with translations: every encoded sentence's vector
//!                          (8-bit), each language's sum, each document's sentence count
//!   df.000001.zst          the feature table after that segment (zstd)
//! ```
//!
//! An index folder holds what the index makes and nothing else: `build`
//! takes a new or empty folder (or one holding only what a killed first
//! build left, by the exact names above) and refuses any other, whatever
//! its entries are called. No writer ever removes by pattern: a writer
//! removes, by name, only what a killed writer of the same generation can
//! have left (`seg.N`, `.tmp.seg.N`, `df.N.zst`, `.tmp.df.N.zst` for the
//! next generation N, `.tmp.manifest.json`, and the previous feature
//! table), so a `df.csv` or a `seg.photos/` put in the folder is never
//! touched. The names in `manifest.json` are checked to be exactly such
//! names (`seg.` or `df.`, six digits or more, no separator), so nothing
//! outside the folder is read, nor removed after an `add`.
//!
//! # Integrity
//!
//! The manifest keeps the length and CRC-32 (`crc32fast`) of each segment
//! file and of the feature table. `docs.jsonl`, `postings.idx`,
//! `postings.bin` and the feature table are checked when the index is
//! opened (they are read or mapped whole anyway; CRC-32 runs at several
//! GB/s, so an estimated few tenths of a second for the 1.8 GB of
//! postings of a 1 GB corpus; BENCHMARKS.md has a `query` of a 76 MB
//! index, opening included, at 0.11–0.21 s); `texts.zst` by its length there, and each text by its zstd
//! frame's checksum when it is read (so a flipped bit is found in the one
//! text it changed, without reading the others). `add` checks `texts.zst`
//! whole too before it commits anything, and checks the segment it wrote
//! before the manifest names it. Every offset and length read from a file
//! (a text's place in `texts.zst`, its length, the feature table's size)
//! is checked against the file before anything is allocated, so a
//! damaged index is an error naming the file ([`IndexError::Damaged`]),
//! never a panic or a wrong answer.
//!
//! # Why our own files, not a store
//!
//! What was missing here (checksummed files, an OS lock, atomic commits)
//! is what tantivy's directory layer, redb or SQLite give. Each was
//! weighed. The postings are written once, sorted by the scan's external
//! sorter, and only ever read: an append-only set of immutable segments
//! is all an append-heavy index needs, and it makes crash safety a single
//! rename. redb or SQLite would hold the postings as B-tree pages, a
//! second copy of what the sorter already produces, at two to three
//! times the 16 bytes a posting takes here, with a lookup walking pages
//! through the store's cache instead of one binary search in a mapped
//! array (and SQLite is C, against the one static Rust binary). An LSM
//! store (fjall, a RocksDB binding) brings a write-ahead log and
//! compaction threads for writes this index never makes. tantivy's
//! `Directory` gives checksummed files and a lock, but its segment model
//! is built for text search with analyzers, not for 64-bit n-gram hashes,
//! and taking its directory alone would still leave our formats to write.
//! The three missing pieces cost about 300 lines here (the CRC of each
//! file in the manifest, the lock checked against its path, the commit
//! checked before the rename of the manifest), and the format, the
//! answers and the query path are unchanged; switching would have meant
//! a new format and a query path to measure again. Query latency was not
//! measured again for this reason (the lookups are the same code); opening
//! an index now reads its postings once for their checksum.
//!
//! Lookups binary-search the postings mapped into memory (`memmap2`, the
//! maintained successor of `memmap`): a lookup costs no system call. The
//! mapping is safe because a segment is never written once named; a file
//! truncated in place by another program ends a reader that maps it
//! (SIGBUS), as for any program that maps files: the index never does it,
//! and `serve` documents it.
//!
//! # Crash safety and the one writer
//!
//! A segment and its feature table are written under temporary names,
//! synced, and renamed into place; only then is `manifest.json` replaced
//! (`.tmp.manifest.json`, sync, rename, the folder synced). Readers open
//! only what the manifest lists, so a writer killed at any point leaves
//! the index as it was before (the new files are unreferenced and removed
//! by the next writer) or as it is after. `add` recognizes the documents
//! it holds (by id and the XXH3-128 hash of the text, kept in
//! `docs.jsonl`) and leaves them out, so running a killed `add` again
//! ends where one `add` ends, whenever it was killed.
//!
//! A writer holds an exclusive lock on `lock` ([`fs4`], a maintained
//! wrapper of `flock`/`LockFileEx`, chosen over `std`'s `File::try_lock`
//! for the crate's minimum Rust version): the kernel releases it when the
//! process dies, so a killed writer never leaves a lock held, and a
//! second writer is refused with [`IndexError::Locked`]. The lock guards
//! the folder only while the path `lock` names the locked file, so the
//! writer checks that after locking (a file removed between its open and
//! its lock is opened again) and before it commits: a writer whose lock
//! file was removed (by a user taking it for a stale one) commits nothing
//! ([`IndexError::LockLost`]), and before the manifest is replaced the
//! committed generation is read again. Every file and folder a writer
//! makes is made new (`create_new`, `create_dir`), never opened where it
//! is: two writers at once (the test of it found this) would otherwise
//! share a `docs.jsonl`, one flushing its buffer into the other's
//! committed segment. The writer removes the file when
//! it ends, so a `lock` left in the folder is that of a killed writer,
//! and harmless. The commit reports each of its steps to the [`Progress`]
//! (stage `committing`), where the crash tests stop the process between
//! any two.
//!
//! # Queries
//!
//! (Across languages, when the index keeps vectors: `across.rs`. What
//! follows is the lexical part, which is all a query in the index's own
//! language needs, and is unchanged by vectors.)
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
//! added, but for two differences. The query's own sentence features are
//! not added to the feature table (it is shared by concurrent queries), so
//! each of its features counts one document fewer. And a query reports
//! short quotations as `align` does: a tight copy of 20 characters or more
//! (12 tokens, `align`'s least copy) is a passage below the scan's bar
//! when its words are the two documents' own — no more than a few other
//! documents hold its seeds ([`crate::scan::COPY_MAX_DF`], and not a list
//! of names: [`Reporting::min_copy_significance`](crate::scan::Reporting::min_copy_significance)). An editor asking
//! "does this text quote the library?" wants a quoted clause of one
//! document; `scan`, looking at every pair of a corpus, asks for 35
//! tokens of evidence (on 240 quotations of 20–400 characters cut
//! anywhere in People's Daily articles, `query` finds 237; EVALUATION.md).

mod across;
mod error;
mod hits;
mod lock;
mod manifest;
mod options;
mod query;
mod reader;
mod segment;
mod vectors;

pub use error::IndexError;
pub use hits::{align_output, trim, Asked};
pub use options::{IndexOptions, Translations, INDEX_SCHEMA, MIN_QUERY_COPY};
pub use query::{Hit, QueryTimings};
pub use reader::{Index, IndexInfo};
pub use segment::IndexDoc;

use crate::align::features::CorpusDf;
use crate::align::Aligner;
use crate::corpus::{BatchStop, CorpusDoc, CorpusReader, Problem};
use crate::plumbing::Progress;
use error::io_at;
use lock::WriteLock;
use manifest::{
    df_name, foreign_entry, read_manifest, remove_leftovers, segment_name, sync_dir, write_manifest, Manifest,
    SegmentEntry, MANIFEST,
};
use rayon::prelude::*;
use reader::check_version;
use segment::{Segment, SegmentWriter, Sum};
use serde::Serialize;
use std::io;
use std::path::Path;

/// A batch of documents read holds at most this many bytes.
const BATCH_BYTES: usize = 8 << 20;

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
    /// Documents the index already held (the same id and the same text):
    /// left out.
    pub already: u64,
    /// Documents in the index after.
    pub total: u64,
    /// Whether the index keeps sentence vectors (its translations choice,
    /// as the manifest keeps it after this writer).
    pub translations: bool,
    /// Sentences encoded (units of the documents added, in languages the
    /// encoder knows), when it does.
    pub encoded: u64,
    /// The documents added whose sentences were encoded, by language.
    pub languages: std::collections::BTreeMap<String, u64>,
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
    if let Err(e) = options.scan().check() {
        return Err(IndexError::Options(e.to_string()));
    }
    if dir.join(MANIFEST).exists() {
        // Refused below, under the lock (or as another version).
    } else if let Some(name) = foreign_entry(dir)? {
        return Err(IndexError::Foreign(dir.to_path_buf(), name));
    }
    let created = !dir.exists();
    std::fs::create_dir_all(dir).map_err(io_at(dir))?;
    let r = build_in(dir, reader, options, progress);
    // A folder this made, left without an index, goes (if it is empty:
    // another writer may have made it an instant before this looked).
    if created && r.is_err() {
        let _ = std::fs::remove_dir(dir);
    }
    r
}

fn build_in(
    dir: &Path,
    reader: &mut CorpusReader,
    options: &IndexOptions,
    progress: &dyn Progress,
) -> Result<AddStats, IndexError> {
    let lock = WriteLock::take(dir)?;
    if read_manifest(dir)?.is_some() {
        return Err(IndexError::Exists(dir.to_path_buf()));
    }
    remove_leftovers(dir, None)?;
    let opts = options.scan();
    let base = Manifest {
        schema: INDEX_SCHEMA.into(),
        generation: 0,
        options: options.clone(),
        align: format!("{:?}", opts.align),
        segments: Vec::new(),
        df: df_name(0),
        df_sum: Sum::of(b""),
        documents: 0,
        chars: 0,
    };
    writer_error(&lock, ingest(dir, &lock, reader, base, CorpusDf::new(opts.df_bits), &Held::default(), progress))
}

/// The documents an index holds, by id: their number and the hash of
/// their text.
/// Memory: the ids' bytes plus about 70 bytes a document (what the
/// corpus reader's duplicate check holds for the documents it reads).
type Held = rustc_hash::FxHashMap<String, (u32, u128)>;

/// The hash of a text that tells whether the index holds it already
/// (XXH3-128, hex).
fn text_hash(text: &str) -> u128 {
    twox_hash::XxHash3_128::oneshot(text.as_bytes())
}

/// Add the documents of `reader` to the index at `dir`: only they are read
/// and fingerprinted; the feature table is updated.
///
/// A document the index holds already (the same id, the same text) is
/// left out and counted ([`AddStats::already`]): an `add` run again after
/// it was killed, or of a file added before, adds only what is new. A
/// document whose id the index holds with another text is a problem
/// (reported, skipped). The index is opened whole first (every checksum),
/// so that nothing is committed onto a damaged index.
pub fn add(dir: &Path, reader: &mut CorpusReader, progress: &dyn Progress) -> Result<AddStats, IndexError> {
    if !dir.join(MANIFEST).exists() {
        return Err(IndexError::Missing(dir.to_path_buf()));
    }
    let lock = WriteLock::take(dir)?;
    let m = read_manifest(dir)?.ok_or_else(|| IndexError::Missing(dir.to_path_buf()))?;
    check_version(dir, &m)?;
    remove_leftovers(dir, Some(&m))?;
    let index = Index::from_manifest(dir, m, false)?;
    for (s, entry) in index.segments.iter().zip(&index.manifest.segments) {
        s.verify_texts(entry.sums.get("texts.zst"))?;
    }
    index.verify_vectors()?;
    let mut held = Held::default();
    for s in &index.segments {
        for (k, d) in s.docs.iter().enumerate() {
            // A hash that is not 32 hex digits matches no text (the file
            // passed its checksum: it was written so).
            let hash = u128::from_str_radix(&d.hash, 16).unwrap_or(u128::MAX);
            held.insert(d.id.clone(), (s.first + k as u32, hash));
        }
    }
    let Index { manifest, df, .. } = index;
    writer_error(&lock, ingest(dir, &lock, reader, manifest, df, &held, progress))
}

/// The error of a writer: when its lock file was removed under it, that
/// is the cause (another writer may have removed its files), whatever
/// failed.
fn writer_error<T>(lock: &WriteLock, r: Result<T, IndexError>) -> Result<T, IndexError> {
    match r {
        Err(e) if !matches!(e, IndexError::LockLost(_)) => Err(lock.check().err().unwrap_or(e)),
        r => r,
    }
}

/// A document ready for its segment: characters, seeds, compressed text,
/// language.
type Prepared = (u64, Vec<(u64, u32)>, Vec<u8>, Option<&'static str>);

/// A text compressed as one zstd frame with its checksum (checked when it
/// is read back).
fn pack(z: &mut io::Result<zstd::bulk::Compressor<'static>>, text: &[u8]) -> io::Result<Vec<u8>> {
    match z {
        Ok(z) => z.compress(text),
        Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
    }
}

fn compressor() -> io::Result<zstd::bulk::Compressor<'static>> {
    let mut z = zstd::bulk::Compressor::new(3)?;
    z.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
    Ok(z)
}

/// Read every document of `reader` into a new segment (but those `held`
/// already), then commit it with the updated feature table.
fn ingest(
    dir: &Path,
    lock: &WriteLock,
    reader: &mut CorpusReader,
    mut m: Manifest,
    df: CorpusDf,
    held: &Held,
    progress: &dyn Progress,
) -> Result<AddStats, IndexError> {
    let opts = m.options.scan();
    let aligner = Aligner::new(opts.align.clone());
    let base_generation = m.generation;
    let generation = m.generation + 1;
    let name = segment_name(generation);
    let tmp = dir.join(format!(".tmp.{name}"));
    let first = m.documents;
    let mut w = SegmentWriter::create(&tmp, first).map_err(io_at(&tmp))?;
    let mut stats = AddStats::default();
    let mut conflicts = 0;
    // Each new document's language, in order.
    let mut langs: Vec<Option<&'static str>> = Vec::new();
    progress.stage("documents", None);
    let read = reader.read_batches(512, BATCH_BYTES, progress, |batch: Vec<CorpusDoc>| {
        let mut fresh = Vec::with_capacity(batch.len());
        for d in batch {
            let hash = text_hash(&d.text);
            match held.get(&d.id) {
                None => fresh.push((d, hash)),
                Some((_, h)) if *h == hash => stats.already += 1,
                Some((n, _)) => {
                    conflicts += 1;
                    progress.problem(&Problem {
                        source: d.origin.source.to_string(),
                        kind: crate::corpus::ProblemKind::DuplicateId,
                        message: format!(
                            "duplicate id \"{}\": the index holds document {n} of that id with another text; \
                             this one is skipped",
                            d.id
                        ),
                    });
                }
            }
        }
        let prepared: Vec<Prepared> = fresh
            .par_iter()
            .map_init(compressor, |z, (d, _)| {
                let p = aligner.prepare(&d.text);
                df.add(&p.seg);
                let packed = pack(z, d.text.as_bytes())?;
                let lang = crate::mine::language(&d.text);
                Ok((p.chars as u64, crate::scan::seeds::seeds(&p.seg, &opts.seeds), packed, lang))
            })
            .collect::<io::Result<_>>()
            .map_err(io_at(&tmp))?;
        for ((d, hash), (chars, seeds, packed, lang)) in fresh.into_iter().zip(prepared) {
            if first + stats.documents >= u32::MAX as u64 - 1 {
                return Err(IndexError::TooManyDocuments(u32::MAX as u64 - 1));
            }
            stats.seeds += seeds.len() as u64;
            stats.chars += chars;
            w.push(
                d.id,
                format!("{hash:032x}"),
                d.origin.source,
                d.encoding,
                d.meta,
                chars,
                d.text.len() as u64,
                &packed,
                &seeds,
                lang,
            )
            .map_err(io_at(&tmp))?;
            langs.push(lang);
            stats.documents += 1;
            progress.advance(1);
        }
        Ok(())
    });
    // The folder goes, unless the lock was lost (it may be another
    // writer's by now).
    let failed = |e: IndexError| {
        if lock.check().is_ok() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        e
    };
    match read {
        Ok(()) => {}
        Err(BatchStop::Strict(p)) => return Err(failed(IndexError::Strict(p))),
        Err(BatchStop::Consumer(e)) => return Err(failed(e)),
    }
    stats.skipped = reader.summary().skipped_total() + conflicts;
    if stats.documents == 0 {
        if stats.already > 0 {
            // Nothing new: the index is left as it is.
            drop(failed(IndexError::Empty(0)));
            stats.total = m.documents;
            return Ok(stats);
        }
        return Err(failed(IndexError::Empty(stats.skipped)));
    }
    progress.stage("postings", None);
    let mut sums = w.finish().map_err(io_at(&tmp)).map_err(failed)?;
    // Translations: `build` decides from its corpus, as `scan` does; `add`
    // follows the manifest.
    if m.options.translations == Translations::Auto {
        let mut known: Vec<&str> = langs.iter().flatten().copied().filter(|l| crate::mine::encoder_knows(l)).collect();
        known.sort_unstable();
        known.dedup();
        m.options.translations = if known.len() >= 2 { Translations::On } else { Translations::Off };
    }
    stats.translations = m.options.translations == Translations::On;
    if stats.translations {
        let (sum, encoded) =
            vectors::write_segment(&tmp, first as u32, &langs, &sums, &opts, progress).map_err(failed)?;
        sums.insert(segment::VECTORS.to_string(), sum);
        stats.encoded = encoded.units;
        stats.languages = encoded.languages;
    }
    // Each step of the commit is reported, so that the crash tests can
    // stop the process between any two (`PARALLELS_TEST_CRASH=committing:N`).
    progress.stage("committing", None);
    lock.check().map_err(failed)?;
    let seg = dir.join(&name);
    std::fs::rename(&tmp, &seg).map_err(io_at(&seg)).map_err(failed)?;
    let df_name = df_name(generation);
    let df_tmp = dir.join(format!(".tmp.{df_name}"));
    // A step that fails (a full disk) takes back what the steps before
    // made, so that the folder is as it was; but not when the lock was
    // lost (the files may be another writer's by now).
    let undo = |e: IndexError| {
        if !matches!(e, IndexError::LockLost(_)) && lock.check().is_ok() {
            let _ = std::fs::remove_dir_all(&seg);
            let _ = std::fs::remove_file(&df_tmp);
            let _ = std::fs::remove_file(dir.join(&df_name));
        }
        e
    };
    // What is on disk is what this writer wrote (another writer, started
    // after the lock file was removed, may have written into the same
    // folder): checked before anything refers to it.
    Segment::open(&seg, first as u32, stats.documents as u32, &sums).map_err(undo)?;
    if let Some(&sum) = sums.get(segment::VECTORS) {
        vectors::verify(&seg.join(segment::VECTORS), sum).map_err(undo)?;
    }
    progress.advance(1);
    let df_sum = (|| {
        let mut z = zstd::Encoder::new(Vec::new(), 3).map_err(io_at(&df_tmp))?;
        df.save(&mut z).map_err(io_at(&df_tmp))?;
        let packed = z.finish().map_err(io_at(&df_tmp))?;
        let mut file =
            std::fs::OpenOptions::new().write(true).create_new(true).open(&df_tmp).map_err(io_at(&df_tmp))?;
        io::Write::write_all(&mut file, &packed).map_err(io_at(&df_tmp))?;
        file.sync_all().map_err(io_at(&df_tmp))?;
        lock.check()?;
        std::fs::rename(&df_tmp, dir.join(&df_name)).map_err(io_at(&df_tmp))?;
        Ok(Sum::of(&packed))
    })()
    .map_err(undo)?;
    sync_dir(dir);
    progress.advance(1);
    m.segments.push(SegmentEntry { name, first: first as u32, docs: stats.documents as u32, sums });
    let old_df = std::mem::replace(&mut m.df, df_name.clone());
    m.df_sum = df_sum;
    m.generation = generation;
    m.documents += stats.documents;
    m.chars += stats.chars;
    // The lock still guards the folder, and no one committed meanwhile
    // (both hold unless the lock file was removed under this writer).
    lock.check()?;
    let now = read_manifest(dir)?.map_or(0, |m| m.generation);
    if now != base_generation {
        return Err(IndexError::LockLost(dir.to_path_buf()));
    }
    write_manifest(dir, &m).map_err(undo)?;
    progress.advance(1);
    if base_generation > 0 {
        let _ = std::fs::remove_file(dir.join(old_df));
    }
    stats.total = m.documents;
    Ok(stats)
}
