//! `df.bin` in the work folder: the corpus feature table with its empty
//! buckets written as runs.
//!
//! The table ([`crate::align::features::CorpusDf`]) has `2^df_bits`
//! buckets of 4 bytes (64 MiB at the default 24 bits) whatever the size
//! of the corpus; written as it is, it made every scan need 64 MiB of free
//! disk, and a 30 KB corpus fail on a 20 MB disk. A small corpus fills few
//! buckets, so the file is written as a stream of little-endian 4-byte
//! words where a zero word is followed by how many zero words it stands
//! for (a 4-byte count, at least 1). A filled bucket costs 4 bytes, a run
//! of empty ones 8: the file takes at most 8 bytes per filled bucket plus
//! 12, and never more than 1.5 times the plain table (when filled and
//! empty buckets alternate, in corpora of hundreds of megabytes).
//!
//! [`ZeroRuns`] encodes what is written through it; [`Expand`] decodes
//! what is read through it. Both stream: neither holds the table.

use std::io::{self, Read, Write};

/// A writer that encodes 4-byte words with runs of zero words counted.
/// Whatever is written must be whole words by [`ZeroRuns::finish`].
pub(super) struct ZeroRuns<W: Write> {
    inner: W,
    /// Bytes of a word not yet complete.
    partial: [u8; 4],
    filled: usize,
    /// Zero words not yet written.
    zeros: u32,
}

impl<W: Write> ZeroRuns<W> {
    pub(super) fn new(inner: W) -> ZeroRuns<W> {
        ZeroRuns { inner, partial: [0; 4], filled: 0, zeros: 0 }
    }

    fn flush_run(&mut self) -> io::Result<()> {
        if self.zeros > 0 {
            self.inner.write_all(&0u32.to_le_bytes())?;
            self.inner.write_all(&self.zeros.to_le_bytes())?;
            self.zeros = 0;
        }
        Ok(())
    }

    fn word(&mut self, w: [u8; 4]) -> io::Result<()> {
        if w == [0; 4] {
            if self.zeros == u32::MAX {
                self.flush_run()?;
            }
            self.zeros += 1;
            Ok(())
        } else {
            self.flush_run()?;
            self.inner.write_all(&w)
        }
    }

    /// Write the last run and hand back the inner writer.
    pub(super) fn finish(mut self) -> io::Result<W> {
        if self.filled != 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "zero runs: a word was left incomplete"));
        }
        self.flush_run()?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for ZeroRuns<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let n = buf.len();
        while !buf.is_empty() {
            let take = (4 - self.filled).min(buf.len());
            self.partial[self.filled..self.filled + take].copy_from_slice(&buf[..take]);
            self.filled += take;
            buf = &buf[take..];
            if self.filled == 4 {
                self.filled = 0;
                self.word(self.partial)?;
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that decodes what [`ZeroRuns`] wrote.
pub(super) struct Expand<R: Read> {
    inner: R,
    /// Zero bytes still to give.
    zeros: u64,
    /// A word read, and how much of it was given.
    word: [u8; 4],
    given: usize,
}

impl<R: Read> Expand<R> {
    pub(super) fn new(inner: R) -> Expand<R> {
        Expand { inner, zeros: 0, word: [0; 4], given: 4 }
    }

    /// The next word of the encoded stream, or `None` at its end.
    fn next_word(&mut self) -> io::Result<Option<[u8; 4]>> {
        let mut w = [0u8; 4];
        let first = loop {
            match self.inner.read(&mut w[..1]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if first == 0 {
            return Ok(None);
        }
        self.inner.read_exact(&mut w[1..])?;
        Ok(Some(w))
    }
}

impl<R: Read> Read for Expand<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.zeros > 0 {
                let n = (self.zeros.min(buf.len() as u64)) as usize;
                buf[..n].fill(0);
                self.zeros -= n as u64;
                return Ok(n);
            }
            if self.given < 4 {
                let n = (4 - self.given).min(buf.len());
                buf[..n].copy_from_slice(&self.word[self.given..self.given + n]);
                self.given += n;
                return Ok(n);
            }
            let Some(w) = self.next_word()? else { return Ok(0) };
            if w == [0; 4] {
                let count =
                    self.next_word()?.map(u32::from_le_bytes).filter(|&c| c > 0).ok_or_else(|| {
                        io::Error::new(io::ErrorKind::InvalidData, "zero runs: a run without its count")
                    })?;
                self.zeros = u64::from(count) * 4;
            } else {
                self.word = w;
                self.given = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(bytes: &[u8], pieces: usize) -> Vec<u8> {
        let mut z = ZeroRuns::new(Vec::new());
        for chunk in bytes.chunks(pieces.max(1)) {
            z.write_all(chunk).unwrap();
        }
        z.finish().unwrap()
    }

    fn decode(encoded: &[u8], pieces: usize) -> Vec<u8> {
        let mut r = Expand::new(encoded);
        let mut out = Vec::new();
        let mut buf = vec![0u8; pieces.max(1)];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                return out;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    #[test]
    fn a_sparse_table_takes_a_few_bytes_and_reads_back_whole() {
        // A header, a table of 2^20 buckets with three filled.
        let mut table = vec![0u8; 12 + (4 << 20)];
        table[..4].copy_from_slice(&20u32.to_le_bytes());
        table[4..12].copy_from_slice(&7u64.to_le_bytes());
        for (k, v) in [(0usize, 3u32), (17, 1), ((1 << 20) - 1, 9)] {
            table[12 + 4 * k..16 + 4 * k].copy_from_slice(&v.to_le_bytes());
        }
        let encoded = encode(&table, 1 << 14);
        assert!(encoded.len() < 64, "{} bytes", encoded.len());
        assert_eq!(decode(&encoded, 1 << 16), table);
        // Read and written in odd pieces, the same.
        assert_eq!(encode(&table, 3), encoded);
        assert_eq!(decode(&encoded, 5), table);
        let mut back = Vec::new();
        Expand::new(&encoded[..]).read_to_end(&mut back).unwrap();
        assert_eq!(back, table);
    }

    #[test]
    fn alternating_words_cost_at_most_one_and_a_half_times() {
        let words: Vec<u8> = (0..1000u32).flat_map(|k| if k % 2 == 0 { k + 1 } else { 0 }.to_le_bytes()).collect();
        let encoded = encode(&words, 7);
        assert_eq!(encoded.len(), words.len() / 2 * 3);
        assert_eq!(decode(&encoded, 11), words);
    }

    #[test]
    fn damaged_input_is_an_error_not_a_panic() {
        // A run cut before its count, a count of zero, a word cut short.
        for bad in [&[0u8, 0, 0, 0][..], &[0, 0, 0, 0, 0, 0, 0, 0], &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0]] {
            let mut out = Vec::new();
            assert!(Expand::new(bad).read_to_end(&mut out).is_err(), "{bad:?}");
        }
        let mut z = ZeroRuns::new(Vec::new());
        z.write_all(&[1, 2]).unwrap();
        assert!(z.finish().is_err());
    }
}
