//! One segment of an index: its documents, their compressed texts and
//! their postings, written once and then only read.

use super::IndexDoc;
use crate::corpus::Source;
use crate::plumbing::sort::{Record, Sorter};
use crate::scan::read_exact_at;
use crate::scan::seeds::Seed;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

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
    docs: BufWriter<File>,
    texts: BufWriter<File>,
    texts_len: u64,
    seeds: Sorter<Seed>,
    count: u64,
}

impl SegmentWriter {
    pub(super) fn create(dir: &Path, first: u64) -> io::Result<SegmentWriter> {
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
        std::fs::create_dir_all(dir)?;
        Ok(SegmentWriter {
            dir: dir.to_path_buf(),
            first,
            docs: BufWriter::new(File::create(dir.join("docs.jsonl"))?),
            texts: BufWriter::with_capacity(1 << 20, File::create(dir.join("texts.zst"))?),
            texts_len: 0,
            seeds: Sorter::new(dir, "spill", SORT_CHUNK),
            count: 0,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        id: String,
        source: Source,
        encoding: String,
        meta: serde_json::Map<String, serde_json::Value>,
        chars: u64,
        bytes: u64,
        packed: &[u8],
        seeds: &[(u64, u32)],
    ) -> io::Result<()> {
        let doc = (self.first + self.count) as u32;
        for &(hash, pos) in seeds {
            self.seeds.push(Seed { hash, doc, pos })?;
        }
        self.texts.write_all(packed)?;
        let d = IndexDoc { id, source, encoding, chars, meta, bytes, at: (self.texts_len, packed.len() as u64) };
        self.texts_len += packed.len() as u64;
        serde_json::to_writer(&mut self.docs, &d)?;
        self.docs.write_all(b"\n")?;
        self.count += 1;
        Ok(())
    }

    /// Sort the postings, write them, and sync every file.
    pub(super) fn finish(self) -> io::Result<()> {
        let mut post = BufWriter::with_capacity(1 << 20, File::create(self.dir.join("postings.bin"))?);
        let mut sample = BufWriter::new(File::create(self.dir.join("postings.idx"))?);
        let mut buf = [0u8; 16];
        for (k, s) in self.seeds.finish()?.enumerate() {
            let s = s?;
            s.write(&mut buf);
            post.write_all(&buf)?;
            if k % SAMPLE == 0 {
                sample.write_all(&s.hash.to_le_bytes())?;
            }
        }
        for w in [post, sample, self.docs, self.texts] {
            let f = w.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
        }
        // The sorter's spill files, if any, are gone with `finish`; what
        // else is here is the segment.
        Ok(())
    }
}

/// A segment opened for reading.
pub(super) struct Segment {
    /// The number of its first document.
    pub(super) first: u32,
    pub(super) docs: Vec<IndexDoc>,
    texts: File,
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
    pub(super) fn open(dir: &Path, first: u32, count: u32) -> io::Result<Segment> {
        let docs: Vec<IndexDoc> = std::fs::read_to_string(dir.join("docs.jsonl"))?
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        if docs.len() != count as usize {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "docs.jsonl does not match the manifest"));
        }
        let file = File::open(dir.join("postings.bin"))?;
        let len = file.metadata()?.len();
        if len % 16 != 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "postings.bin is cut short"));
        }
        // SAFETY: a segment's files are never written again once its folder
        // has its final name (only a new segment is made; a writer that
        // finds unlisted folders removes them, never rewrites one in
        // place), so the mapped bytes do not change under us.
        let postings = if len == 0 { None } else { Some(unsafe { memmap2::Mmap::map(&file)? }) };
        let sample: Vec<u64> = std::fs::read(dir.join("postings.idx"))?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        if sample.len() as u64 != (len / 16).div_ceil(SAMPLE as u64) {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "postings.idx does not match postings.bin"));
        }
        let (starts, shift) = prefix_starts(&sample);
        Ok(Segment { first, docs, texts: File::open(dir.join("texts.zst"))?, postings, sample, starts, shift })
    }

    /// The text of its `k`th document.
    pub(super) fn text(&self, k: usize) -> io::Result<String> {
        let d = &self.docs[k];
        let mut packed = vec![0u8; d.at.1 as usize];
        read_exact_at(&self.texts, &mut packed, d.at.0)?;
        let bytes = zstd::bulk::decompress(&packed, d.bytes as usize)?;
        String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
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
            w.push(format!("d{d}"), Source::whole("x"), "utf-8".into(), Default::default(), 1, 1, b"", &seeds).unwrap();
        }
        w.finish().unwrap();
        let s = Segment::open(&path, 10, 400).unwrap();
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
