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
        Ok(Segment { first, docs, texts: File::open(dir.join("texts.zst"))?, postings, sample })
    }

    /// The text of its `k`th document.
    pub(super) fn text(&self, k: usize) -> io::Result<String> {
        let d = &self.docs[k];
        let mut packed = vec![0u8; d.at.1 as usize];
        read_exact_at(&self.texts, &mut packed, d.at.0)?;
        let bytes = zstd::bulk::decompress(&packed, d.bytes as usize)?;
        String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Every posting of `hash`: `(document, position)`, by document and
    /// position (a binary search in the sample, then in one block of the
    /// mapped, sorted records).
    pub(super) fn lookup(&self, hash: u64, out: &mut Vec<(u32, u32)>) -> io::Result<()> {
        let Some(m) = &self.postings else { return Ok(()) };
        let records = m.len() / 16;
        let hash_at = |i: usize| u64::from_le_bytes(m[i * 16..i * 16 + 8].try_into().unwrap());
        // The block that may hold its first posting: the one before the
        // first sampled hash at or above it.
        let k = self.sample.partition_point(|&h| h < hash);
        let (mut lo, mut hi) = (k.saturating_sub(1) * SAMPLE, (k * SAMPLE).min(records));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if hash_at(mid) < hash {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        while lo < records && hash_at(lo) == hash {
            let s = Seed::read(&m[lo * 16..lo * 16 + 16]);
            out.push((s.doc, s.pos));
            lo += 1;
        }
        Ok(())
    }
}
