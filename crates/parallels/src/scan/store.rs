//! The store of a scan's texts: each written once, in reading order, to
//! `texts.bin` in the work folder, and read back by offset from any thread
//! while chunks of pairs are aligned.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::plumbing::read_exact_at;

/// Texts written once, read back by offset from any thread.
pub(crate) struct Store {
    writer: BufWriter<File>,
    len: u64,
}

impl Store {
    pub(crate) fn create(dir: &Path) -> io::Result<Store> {
        let file = File::create(dir.join("texts.bin"))?;
        Ok(Store { writer: BufWriter::with_capacity(1 << 20, file), len: 0 })
    }

    pub(crate) fn push(&mut self, text: &str) -> io::Result<(u64, u64)> {
        self.writer.write_all(text.as_bytes())?;
        let at = self.len;
        self.len += text.len() as u64;
        Ok((at, text.len() as u64))
    }

    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.writer.flush()?;
        self.writer.get_ref().sync_all()
    }
}

/// The text stored at `offset`, `len` bytes; safe to call from several
/// threads at once.
pub(crate) fn read_text(file: &File, offset: u64, len: u64) -> io::Result<String> {
    let mut buf = vec![0u8; len as usize];
    read_exact_at(file, &mut buf, offset)?;
    String::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

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
}
