//! One segment of an index: its documents, their compressed texts and
//! their postings, written once and then only read.
//!
//! Every file's length and CRC-32 are kept in the manifest
//! ([`Sums`]): `docs.jsonl`, `postings.idx` and `postings.bin` are checked
//! when the segment is opened (they are read or mapped whole; CRC-32 runs
//! at several GB/s), `texts.zst` by its length there and each text by its
//! zstd frame's own checksum when it is read. Every offset and length read
//! from a file is checked against the file before anything is allocated.

use super::error::IndexError;
use crate::corpus::Source;
use crate::plumbing::read_exact_at;
use crate::plumbing::sort::{Record, Sorter};
use crate::scan::seeds::Seed;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Read what there is at `at` (0 at the end).
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(file, buf, at)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(file, buf, at)
    }
}

/// One document of the index as its listing gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexDoc {
    /// Its id in its corpus.
    pub id: String,
    /// The hash of its text (XXH3-128, hex), by which `add` knows it.
    pub hash: String,
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
    /// Its language, told from its text ([`crate::mine::language`]); none
    /// when the text does not tell it, or the index was made before
    /// languages were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// The files of a segment, in the order they are checked.
pub(super) const FILES: [&str; 4] = ["docs.jsonl", "postings.idx", "postings.bin", "texts.zst"];

/// The file of a segment's sentence vectors, when the index keeps them
/// (`super::vectors`); listed in the manifest's sums then.
pub(super) const VECTORS: &str = "vectors.bin";

/// A file's length and CRC-32, as the manifest keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct Sum {
    pub(super) len: u64,
    pub(super) crc32: u32,
}

impl Sum {
    pub(super) fn of(bytes: &[u8]) -> Sum {
        Sum { len: bytes.len() as u64, crc32: crc32fast::hash(bytes) }
    }
}

/// The sums of a segment's files, by name.
pub(super) type Sums = BTreeMap<String, Sum>;

/// A writer that keeps the length and CRC-32 of what went through it.
pub(super) struct Summed {
    file: File,
    len: u64,
    crc: crc32fast::Hasher,
}

impl Summed {
    /// A new file: never one that is there already (another writer's,
    /// whose lock file was removed: opening it would share its bytes).
    pub(super) fn create(path: &Path) -> io::Result<Summed> {
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
        Ok(Summed { file, len: 0, crc: crc32fast::Hasher::new() })
    }

    /// Sync the file; its sum.
    pub(super) fn finish(w: BufWriter<Summed>) -> io::Result<Sum> {
        let s = w.into_inner().map_err(|e| e.into_error())?;
        s.file.sync_all()?;
        Ok(Sum { len: s.len, crc32: s.crc.finalize() })
    }
}

impl Write for Summed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.crc.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// The damage found in a file of a segment.
fn damaged(path: PathBuf, what: impl Into<String>) -> IndexError {
    IndexError::Damaged { path, what: what.into() }
}

/// `postings.idx` holds the hash of every `SAMPLE`th posting: a lookup
/// searches it in memory, then one page of the postings.
const SAMPLE: usize = 256;

/// Seeds held in memory before the sorter spills (16 bytes each).
const SORT_CHUNK: usize = 8 << 20;

/// Writes a segment into a folder of its own (a temporary name, renamed by
/// the caller once [`SegmentWriter::finish`] returns).
pub(super) struct SegmentWriter {
    dir: PathBuf,
    first: u64,
    docs: BufWriter<Summed>,
    texts: BufWriter<Summed>,
    texts_len: u64,
    seeds: Sorter<Seed>,
    count: u64,
}

impl SegmentWriter {
    /// Write into `dir`, which must not exist (what a killed writer left is
    /// removed before, under the lock; a folder there now is another
    /// writer's).
    pub(super) fn create(dir: &Path, first: u64) -> io::Result<SegmentWriter> {
        std::fs::create_dir(dir)?;
        Ok(SegmentWriter {
            dir: dir.to_path_buf(),
            first,
            docs: BufWriter::new(Summed::create(&dir.join("docs.jsonl"))?),
            texts: BufWriter::with_capacity(1 << 20, Summed::create(&dir.join("texts.zst"))?),
            texts_len: 0,
            seeds: Sorter::new(dir, "spill", SORT_CHUNK),
            count: 0,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        id: String,
        hash: String,
        source: Source,
        encoding: String,
        meta: serde_json::Map<String, serde_json::Value>,
        chars: u64,
        bytes: u64,
        packed: &[u8],
        seeds: &[(u64, u32)],
        language: Option<&str>,
    ) -> io::Result<()> {
        let doc = (self.first + self.count) as u32;
        for &(hash, pos) in seeds {
            self.seeds.push(Seed { hash, doc, pos })?;
        }
        self.texts.write_all(packed)?;
        let d = IndexDoc {
            id,
            hash,
            source,
            encoding,
            chars,
            meta,
            bytes,
            at: (self.texts_len, packed.len() as u64),
            language: language.map(str::to_owned),
        };
        self.texts_len += packed.len() as u64;
        serde_json::to_writer(&mut self.docs, &d)?;
        self.docs.write_all(b"\n")?;
        self.count += 1;
        Ok(())
    }

    /// Sort the postings, write them, and sync every file; their sums.
    pub(super) fn finish(self) -> io::Result<Sums> {
        let mut post = BufWriter::with_capacity(1 << 20, Summed::create(&self.dir.join("postings.bin"))?);
        let mut sample = BufWriter::new(Summed::create(&self.dir.join("postings.idx"))?);
        let mut buf = [0u8; 16];
        for (k, s) in self.seeds.finish()?.enumerate() {
            let s = s?;
            s.write(&mut buf);
            post.write_all(&buf)?;
            if k % SAMPLE == 0 {
                sample.write_all(&s.hash.to_le_bytes())?;
            }
        }
        let mut sums = Sums::new();
        for (name, w) in
            [("postings.bin", post), ("postings.idx", sample), ("docs.jsonl", self.docs), ("texts.zst", self.texts)]
        {
            sums.insert(name.to_string(), Summed::finish(w)?);
        }
        // The sorter's spill files, if any, are gone with `finish`; what
        // else is here is the segment.
        Ok(sums)
    }
}

/// A segment opened for reading.
pub(super) struct Segment {
    /// The number of its first document.
    pub(super) first: u32,
    pub(super) docs: Vec<IndexDoc>,
    texts: File,
    /// `texts.zst`, for messages.
    texts_path: PathBuf,
    /// `postings.bin`, mapped (none when empty).
    postings: Option<memmap2::Mmap>,
    /// The hash of every [`SAMPLE`]th posting.
    sample: Vec<u64>,
    /// Where the sampled hashes of each leading-bits prefix start:
    /// `sample[starts[p]..starts[p + 1]]` are those whose top `64 - shift`
    /// bits are `p` (a lookup searches those few instead of the whole
    /// sample).
    starts: Vec<u32>,
    shift: u32,
}

/// The prefix table of a sorted sample: about one sampled hash a prefix.
fn prefix_starts(sample: &[u64]) -> (Vec<u32>, u32) {
    let bits = (usize::BITS - sample.len().leading_zeros()).clamp(1, 24);
    let shift = 64 - bits;
    let mut starts = Vec::with_capacity((1 << bits) + 1);
    let mut k = 0;
    for p in 0..=(1u64 << bits) {
        while k < sample.len() && sample[k] >> shift < p {
            k += 1;
        }
        starts.push(k as u32);
    }
    (starts, shift)
}

impl Segment {
    /// Open the segment in `dir`, its files checked against `sums`.
    pub(super) fn open(dir: &Path, first: u32, count: u32, sums: &Sums) -> Result<Segment, IndexError> {
        let io_at = |path: &Path| {
            let path = path.to_path_buf();
            move |e: io::Error| IndexError::Io { path: path.clone(), error: e }
        };
        let sum_of = |name: &str| -> Result<Sum, IndexError> {
            sums.get(name).copied().ok_or_else(|| damaged(dir.join(name), "the manifest has no checksum for it"))
        };
        // A file of the wrong length or checksum.
        let check = |path: &Path, got: Sum, want: Sum| -> Result<(), IndexError> {
            if got.len != want.len {
                return Err(damaged(path.to_path_buf(), format!("{} bytes where {} were written", got.len, want.len)));
            }
            if got.crc32 != want.crc32 {
                return Err(damaged(path.to_path_buf(), "its checksum does not match (the file changed)"));
            }
            Ok(())
        };
        // Reads a whole small file, refusing one longer than written.
        let read = |name: &str| -> Result<(PathBuf, Vec<u8>), IndexError> {
            let path = dir.join(name);
            let want = sum_of(name)?;
            let file = File::open(&path).map_err(io_at(&path))?;
            let mut bytes = Vec::new();
            file.take(want.len.saturating_add(1)).read_to_end(&mut bytes).map_err(io_at(&path))?;
            check(&path, Sum::of(&bytes), want)?;
            Ok((path, bytes))
        };
        let (docs_path, bytes) = read("docs.jsonl")?;
        let mut docs: Vec<IndexDoc> = Vec::new();
        for (k, line) in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).enumerate() {
            let d =
                serde_json::from_slice(line).map_err(|e| damaged(docs_path.clone(), format!("line {}: {e}", k + 1)))?;
            docs.push(d);
        }
        if docs.len() != count as usize {
            return Err(damaged(docs_path, format!("{} documents where the manifest lists {count}", docs.len())));
        }
        let texts_path = dir.join("texts.zst");
        let texts = File::open(&texts_path).map_err(io_at(&texts_path))?;
        let texts_len = texts.metadata().map_err(io_at(&texts_path))?.len();
        let want = sum_of("texts.zst")?;
        if texts_len != want.len {
            return Err(damaged(texts_path, format!("{texts_len} bytes where {} were written", want.len)));
        }
        for (k, d) in docs.iter().enumerate() {
            if d.at.0.checked_add(d.at.1).is_none_or(|end| end > texts_len) {
                return Err(damaged(
                    docs_path,
                    format!("line {}: its text at {:?} lies outside texts.zst ({texts_len} bytes)", k + 1, d.at),
                ));
            }
        }
        let (idx_path, sample_bytes) = read("postings.idx")?;
        let bin_path = dir.join("postings.bin");
        let file = File::open(&bin_path).map_err(io_at(&bin_path))?;
        let len = file.metadata().map_err(io_at(&bin_path))?.len();
        let want = sum_of("postings.bin")?;
        if len != want.len || len % 16 != 0 {
            return Err(damaged(bin_path, format!("{len} bytes where {} were written", want.len)));
        }
        // SAFETY: a segment's files are never written again once its folder
        // has its final name (only a new segment is made; a writer removes
        // only the folder of the generation it is about to write, never
        // rewrites one in place), so the mapped bytes do not change under
        // us. A file truncated in place by another program ends the
        // process (SIGBUS): see the module doc of `index`.
        let postings =
            if len == 0 { None } else { Some(unsafe { memmap2::Mmap::map(&file) }.map_err(io_at(&bin_path))?) };
        let got = postings.as_ref().map_or(Sum::of(b""), |m| Sum::of(m));
        check(&bin_path, got, want)?;
        let sample: Vec<u64> =
            sample_bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        if sample.len() as u64 != (len / 16).div_ceil(SAMPLE as u64) || sample_bytes.len() % 8 != 0 {
            return Err(damaged(idx_path, "it does not match postings.bin"));
        }
        let (starts, shift) = prefix_starts(&sample);
        Ok(Segment { first, docs, texts, texts_path, postings, sample, starts, shift })
    }

    /// Check `texts.zst` whole against its checksum (`add` does, before it
    /// commits onto the index; reads check each text by its frame).
    pub(super) fn verify_texts(&self, want: Option<&Sum>) -> Result<(), IndexError> {
        let path = &self.texts_path;
        let Some(want) = want else { return Err(damaged(path.clone(), "the manifest has no checksum for it")) };
        let mut crc = crc32fast::Hasher::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0u64;
        loop {
            let n = read_at(&self.texts, &mut buf, at).map_err(|e| IndexError::Io { path: path.clone(), error: e })?;
            if n == 0 {
                break;
            }
            crc.update(&buf[..n]);
            at += n as u64;
        }
        if at != want.len || crc.finalize() != want.crc32 {
            return Err(damaged(path.clone(), "its checksum does not match (the file changed)"));
        }
        Ok(())
    }

    /// The text of its `k`th document (its length and offset were checked
    /// when the segment was opened; its content is checked by the frame's
    /// checksum, and its length is not trusted for an allocation).
    pub(super) fn text(&self, k: usize) -> Result<String, IndexError> {
        let d = &self.docs[k];
        let path = &self.texts_path;
        let mut packed = vec![0u8; d.at.1 as usize];
        read_exact_at(&self.texts, &mut packed, d.at.0).map_err(|e| IndexError::Io { path: path.clone(), error: e })?;
        let what = |e: String| damaged(path.clone(), format!("the text of document \"{}\": {e}", d.id));
        let mut bytes = Vec::with_capacity((d.bytes as usize).min(packed.len().saturating_mul(16)));
        zstd::stream::read::Decoder::with_buffer(&packed[..])
            .and_then(|z| z.take(d.bytes.saturating_add(1)).read_to_end(&mut bytes))
            .map_err(|e| what(e.to_string()))?;
        if bytes.len() as u64 != d.bytes {
            return Err(what(format!("{} bytes where {} were written", bytes.len(), d.bytes)));
        }
        String::from_utf8(bytes).map_err(|e| what(e.to_string()))
    }

    /// The documents holding `hash`, in order, but for `exclude`, pushed
    /// onto `out` until it holds `cap` (a binary search in the sample,
    /// then in one block of the mapped, sorted records; the postings of a
    /// document are consecutive, by position).
    pub(super) fn docs(&self, hash: u64, exclude: Option<u32>, cap: usize, out: &mut Vec<u32>) {
        let Some(m) = &self.postings else { return };
        let records = m.len() / 16;
        let hash_at = |i: usize| u64::from_le_bytes(m[i * 16..i * 16 + 8].try_into().unwrap());
        // The block that may hold its first posting: the one before the
        // first sampled hash at or above it (searched among those of its
        // prefix).
        let p = (hash >> self.shift) as usize;
        let (a, b) = (self.starts[p] as usize, self.starts[p + 1] as usize);
        let k = a + self.sample[a..b].partition_point(|&h| h < hash);
        let (mut lo, mut hi) = (k.saturating_sub(1) * SAMPLE, (k * SAMPLE).min(records));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if hash_at(mid) < hash {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut last = None;
        while lo < records && out.len() < cap && hash_at(lo) == hash {
            let doc = Seed::read(&m[lo * 16..lo * 16 + 16]).doc;
            if last != Some(doc) && exclude != Some(doc) {
                out.push(doc);
            }
            last = Some(doc);
            lo += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A segment of `docs` documents with seeds drawn from a skewed set of
    /// hashes (many rare, a few in most documents, some repeated within a
    /// document), looked up against a count of what was written.
    #[test]
    fn lookups_find_every_document_of_a_hash_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seg");
        let mut w = SegmentWriter::create(&path, 10).unwrap();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Hashes crowd the low end, as winnowed minima do.
        let hashes: Vec<u64> = (0..3000).map(|_| next() >> (next() % 8)).collect();
        let mut want: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
        for d in 0..400u32 {
            let mut seeds: Vec<(u64, u32)> = Vec::new();
            for pos in 0..(next() % 60) as u32 {
                let r = next() as usize;
                let h = if r % 10 == 0 { hashes[r / 10 % 5] } else { hashes[r / 10 % hashes.len()] };
                seeds.push((h, pos));
            }
            for &(h, _) in &seeds {
                let v = want.entry(h).or_default();
                if v.last() != Some(&(d + 10)) {
                    v.push(d + 10);
                }
            }
            w.push(
                format!("d{d}"),
                String::new(),
                Source::whole("x"),
                "utf-8".into(),
                Default::default(),
                1,
                1,
                b"",
                &seeds,
                None,
            )
            .unwrap();
        }
        let sums = w.finish().unwrap();
        let s = Segment::open(&path, 10, 400, &sums).unwrap();
        assert!(want.values().any(|v| v.len() > 100), "no frequent hash");
        for (&h, docs) in &want {
            for cap in [1, 3, 101, usize::MAX] {
                let mut got = Vec::new();
                s.docs(h, None, cap, &mut got);
                assert_eq!(got, docs[..docs.len().min(cap)], "hash {h:x}, cap {cap}");
            }
            let mut got = Vec::new();
            s.docs(h, Some(docs[0]), usize::MAX, &mut got);
            assert_eq!(got, docs[1..], "hash {h:x} but for its first document");
            for absent in [h.wrapping_add(1), h.wrapping_sub(1)] {
                if !want.contains_key(&absent) {
                    let mut got = Vec::new();
                    s.docs(absent, None, usize::MAX, &mut got);
                    assert!(got.is_empty(), "hash {absent:x} was never written");
                }
            }
        }
    }
}
