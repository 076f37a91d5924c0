//! The work folder of a scan: what a run leaves there after each stage and
//! chunk (the checkpoints), the typed manifest of what those results
//! depend on, and the decision to take them over ([`Work::resume`]) or to
//! start again.

use super::seeds::{self, SeedParams};
use super::{Reporting, ScanOptions, ScanStats};
use crate::corpus::{fingerprint, CorpusOptions, FileStamp, Input, Source, Summary};
use crate::plumbing::sort::Sorter;
use crate::plumbing::{read_exact_at, write_atomic, AtomicFile};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Per document, kept in memory during a scan.
#[derive(Serialize, Deserialize)]
pub(crate) struct DocRecord {
    pub(crate) id: String,
    pub(crate) source: Source,
    pub(crate) encoding: String,
    /// Its language, when its text tells it ([`crate::mine::language`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) language: Option<String>,
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

/// What reading leaves for the later stages: written last, so its presence
/// says the stage is complete.
#[derive(Serialize, Deserialize)]
pub(super) struct ReadDone {
    pub(super) stats: ScanStats,
    pub(super) corpus: Summary,
    pub(super) runs: Vec<String>,
}

/// What the candidate stage leaves.
#[derive(Serialize, Deserialize)]
pub(super) struct CandidatesDone {
    pub(super) count: u64,
    pub(super) boilerplate: Vec<(u32, String)>,
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
    #[serde(flatten)]
    report: Reporting,
    /// The alignment options in their `Debug` form: `align::Options` has
    /// no serde form yet. A renamed field there makes an interrupted run
    /// start again, which costs time but never mixes results.
    align: String,
    /// Whether translations are looked for, and the mining parameters, in
    /// their `Debug` form.
    across: String,
}

impl Manifest {
    fn new(work: &Work, opts: &ScanOptions) -> Manifest {
        Manifest {
            schema: WORK_SCHEMA.to_owned(),
            inputs: work.key.clone(),
            seeds: opts.seeds.clone(),
            chunk: opts.chunk,
            df_bits: opts.df_bits,
            report: opts.report.clone(),
            align: format!("{:?}", opts.align),
            across: format!("{:?} {:?}", opts.across, opts.mine),
        }
    }
}

/// Open the work folder: keep its contents when resuming a run of the same
/// key and options, else empty it and write the manifest.
pub(super) fn open_work(work: &Work, opts: &ScanOptions) -> io::Result<bool> {
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
pub(super) fn clear_work(dir: &Path) -> io::Result<()> {
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

pub(super) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
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
    pub(super) fn write(shared: Sorter<seeds::SeedDf>, docs: usize, dir: &Path) -> io::Result<SeedDfIndex> {
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
    pub(super) fn open(dir: &Path, docs: usize) -> io::Result<SeedDfIndex> {
        let bytes = std::fs::read(dir.join("seed_df.idx"))?;
        let offsets: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        if offsets.len() != docs + 1 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "seed_df.idx does not match the documents"));
        }
        Ok(SeedDfIndex { file: File::open(dir.join("seed_df.bin"))?, offsets })
    }

    /// The shared seeds of document `doc`: `(position, df)`, by position.
    pub(crate) fn of(&self, doc: u32) -> io::Result<Vec<(u32, u32)>> {
        let (lo, hi) = (self.offsets[doc as usize], self.offsets[doc as usize + 1]);
        let mut buf = vec![0u8; hi.saturating_sub(lo) as usize];
        read_exact_at(&self.file, &mut buf, lo)?;
        let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
        Ok(buf.chunks_exact(8).map(|c| (word(&c[..4]), word(&c[4..]))).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
