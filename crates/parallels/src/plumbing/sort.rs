//! External sorting of fixed-size records.
//!
//! [`Sorter`] takes records in any order, keeps at most `chunk` of them in
//! memory, sorts each full chunk (in parallel) and spills it to a file in
//! the work folder; [`Sorter::finish`] sorts what is left in memory and
//! merges it with the runs into one sorted stream (records that never filled
//! a chunk never touch the disk). Peak memory is `chunk` records plus one
//! buffered reader per run, whatever the number of records.
//!
//! Records are plain little-endian byte arrays ([`Record`]), so a spill file
//! is just the records back to back.
//!
//! Spill files go either into a folder the caller names ([`Sorter::new`]:
//! scan keeps its sorted runs in its work folder, for a resumed run) or
//! into a temporary folder of its own ([`Sorter::in_temp_dir`]: dedup),
//! made only when the first chunk spills and removed with the sorter or the
//! sorted stream, whichever way the caller's work ends, errors included.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// A fixed-size record with a total order.
pub trait Record: Copy + Ord + Send + Sync {
    /// Bytes of one record on disk.
    const SIZE: usize;
    /// Write the record into `out` (`SIZE` bytes).
    fn write(&self, out: &mut [u8]);
    /// Read a record back from `SIZE` bytes.
    fn read(bytes: &[u8]) -> Self;
}

/// Where spill files go.
enum SpillDir {
    /// This folder (made when needed, kept).
    Named(PathBuf),
    /// A temporary folder in `parent`, made when needed, removed when
    /// dropped.
    Temp { parent: PathBuf, dir: Option<TempSpill> },
}

/// A temporary spill folder, registered for
/// [`remove_temporaries`](super::atomic::remove_temporaries) while it lives.
struct TempSpill {
    dir: tempfile::TempDir,
    _live: super::atomic::Registered,
}

/// Sorts records, spilling to a folder beyond `chunk` records.
pub struct Sorter<R: Record> {
    buf: Vec<R>,
    chunk: usize,
    dir: SpillDir,
    name: String,
    runs: Vec<PathBuf>,
    /// Records pushed in all.
    pub count: u64,
}

impl<R: Record> Sorter<R> {
    /// A sorter that holds `chunk` records (at least 1024) in memory and
    /// spills beyond them into `dir` (created when needed), as
    /// `NAME.K.run`.
    pub fn new(dir: &Path, name: &str, chunk: usize) -> Sorter<R> {
        Sorter::with(SpillDir::Named(dir.to_path_buf()), name, chunk)
    }

    /// As [`Sorter::new`], spilling into a new folder
    /// `.parallels-NAME-PID-XXXXXX` in `parent`, made when the first chunk
    /// spills and removed when the sorter, or the stream that
    /// [`Sorter::finish`] returns, is dropped.
    pub fn in_temp_dir(parent: &Path, name: &str, chunk: usize) -> Sorter<R> {
        Sorter::with(SpillDir::Temp { parent: parent.to_path_buf(), dir: None }, name, chunk)
    }

    fn with(dir: SpillDir, name: &str, chunk: usize) -> Sorter<R> {
        Sorter { buf: Vec::new(), chunk: chunk.max(1024), dir, name: name.to_string(), runs: Vec::new(), count: 0 }
    }

    /// The spill folder, made now if it is not yet.
    fn spill_dir(&mut self) -> io::Result<PathBuf> {
        match &mut self.dir {
            SpillDir::Named(dir) => {
                std::fs::create_dir_all(&*dir)?;
                Ok(dir.clone())
            }
            SpillDir::Temp { parent, dir } => {
                if dir.is_none() {
                    // Named so that `atomic::remove_stale` knows it.
                    let prefix = format!(".parallels-{}-{}-", self.name, std::process::id());
                    let made = tempfile::Builder::new().prefix(&prefix).rand_bytes(6).tempdir_in(&*parent)?;
                    let live = super::atomic::Registered::new(made.path());
                    *dir = Some(TempSpill { dir: made, _live: live });
                }
                Ok(dir.as_ref().map(|d| d.dir.path().to_path_buf()).unwrap_or_default())
            }
        }
    }

    /// Add a record; a full buffer is sorted and spilled to disk.
    pub fn push(&mut self, r: R) -> io::Result<()> {
        self.buf.push(r);
        self.count += 1;
        if self.buf.len() >= self.chunk {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        use rayon::slice::ParallelSliceMut;
        self.buf.par_sort_unstable();
        // The folder is made only when needed.
        let path = self.spill_dir()?.join(format!("{}.{}.run", self.name, self.runs.len()));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        let mut bytes = vec![0u8; R::SIZE];
        for r in &self.buf {
            r.write(&mut bytes);
            w.write_all(&bytes)?;
        }
        w.flush()?;
        self.runs.push(path);
        self.buf.clear();
        Ok(())
    }

    /// The records in order; the spill files are removed once the stream
    /// is dropped.
    pub fn finish(mut self) -> io::Result<Sorted<R>> {
        use rayon::slice::ParallelSliceMut;
        self.buf.par_sort_unstable();
        let mut sorted = Sorted::open(std::mem::take(&mut self.runs), true)?;
        if let SpillDir::Temp { dir, .. } = &mut self.dir {
            sorted.temp_dir = dir.take();
        }
        sorted.memory = std::mem::take(&mut self.buf).into_iter();
        if let Some(first) = sorted.memory.next() {
            sorted.heap.push(Reverse((first, sorted.runs.len())));
        }
        Ok(sorted)
    }

    /// Spill what is left in memory and hand over the sorted run files
    /// (to merge later with [`Sorted::open`], maybe in another process).
    /// A temporary spill folder is kept then: the files are the caller's.
    pub fn into_runs(mut self) -> io::Result<Vec<PathBuf>> {
        if !self.buf.is_empty() {
            self.spill()?;
        }
        if let SpillDir::Temp { dir: Some(spill), .. } = &mut self.dir {
            spill.dir.disable_cleanup(true);
        }
        Ok(std::mem::take(&mut self.runs))
    }
}

/// One sorted run file being read.
struct Run {
    reader: BufReader<File>,
    buf: Vec<u8>,
}

impl Run {
    fn next<R: Record>(&mut self) -> io::Result<Option<R>> {
        match self.reader.read_exact(&mut self.buf) {
            Ok(()) => Ok(Some(R::read(&self.buf))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A merged, sorted stream of records; spill files are removed when it is
/// dropped.
pub struct Sorted<R: Record> {
    runs: Vec<Run>,
    /// Sorted records held in memory, merged as run number `runs.len()`
    /// (the head of it in `heap`, the rest here).
    memory: std::vec::IntoIter<R>,
    _record: std::marker::PhantomData<R>,
    heap: BinaryHeap<Reverse<(R, usize)>>,
    files: Vec<PathBuf>,
    /// The sorter's temporary spill folder, removed after `files`.
    temp_dir: Option<TempSpill>,
}

impl<R: Record> Sorted<R> {
    /// Merge sorted run files; `remove` deletes them once the stream is
    /// dropped.
    pub fn open(files: Vec<PathBuf>, remove: bool) -> io::Result<Sorted<R>> {
        let mut runs = Vec::with_capacity(files.len());
        for path in &files {
            runs.push(Run { reader: BufReader::with_capacity(1 << 16, File::open(path)?), buf: vec![0u8; R::SIZE] });
        }
        let mut heap = BinaryHeap::new();
        for (k, run) in runs.iter_mut().enumerate() {
            if let Some(r) = run.next()? {
                heap.push(Reverse((r, k)));
            }
        }
        Ok(Sorted {
            runs,
            memory: Vec::new().into_iter(),
            heap,
            files: if remove { files } else { Vec::new() },
            temp_dir: None,
            _record: std::marker::PhantomData,
        })
    }
}

impl<R: Record> Iterator for Sorted<R> {
    type Item = io::Result<R>;

    fn next(&mut self) -> Option<io::Result<R>> {
        let Reverse((r, k)) = self.heap.pop()?;
        if k == self.runs.len() {
            if let Some(n) = self.memory.next() {
                self.heap.push(Reverse((n, k)));
            }
            return Some(Ok(r));
        }
        match self.runs[k].next() {
            Ok(Some(n)) => self.heap.push(Reverse((n, k))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(r))
    }
}

impl<R: Record> Drop for Sorted<R> {
    fn drop(&mut self) {
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
    struct R(u64, u32);

    impl Record for R {
        const SIZE: usize = 12;
        fn write(&self, out: &mut [u8]) {
            out[..8].copy_from_slice(&self.0.to_le_bytes());
            out[8..].copy_from_slice(&self.1.to_le_bytes());
        }
        fn read(b: &[u8]) -> Self {
            R(u64::from_le_bytes(b[..8].try_into().unwrap()), u32::from_le_bytes(b[8..12].try_into().unwrap()))
        }
    }

    #[test]
    fn spilled_and_in_memory_records_merge_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut s: Sorter<R> = Sorter::new(dir.path(), "t", 1024);
        let mut expected = Vec::new();
        let mut x: u64 = 12345;
        for k in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = R(x >> 40, k);
            expected.push(r);
            s.push(r).unwrap();
        }
        expected.sort();
        let got: Vec<R> = s.finish().unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(got, expected);
        // Four chunks spilled, and their files are gone once the stream is.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    fn records(n: u32) -> Vec<R> {
        let mut x: u64 = 777;
        (0..n)
            .map(|k| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                R(x >> 50, k)
            })
            .collect()
    }

    #[test]
    fn records_that_fit_in_memory_never_touch_the_disk() {
        for n in [0, 1, 2, 1000] {
            let dir = tempfile::tempdir().unwrap();
            let mut s: Sorter<R> = Sorter::new(dir.path(), "t", 1024);
            let mut expected = records(n);
            for &r in &expected {
                s.push(r).unwrap();
            }
            let sorted = s.finish().unwrap();
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
            expected.sort();
            assert_eq!(sorted.map(|r| r.unwrap()).collect::<Vec<_>>(), expected, "{n}");
        }
    }

    fn entries(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn a_temporary_spill_folder_is_made_only_to_spill_and_goes_with_the_stream() {
        let parent = tempfile::tempdir().unwrap();
        let mut s: Sorter<R> = Sorter::in_temp_dir(parent.path(), "t", 1024);
        for r in records(1000) {
            s.push(r).unwrap();
        }
        assert!(entries(parent.path()).is_empty());
        for r in records(3000) {
            s.push(r).unwrap();
        }
        let made = entries(parent.path());
        assert_eq!(made.len(), 1);
        assert!(made[0].starts_with(".parallels-t-"), "{made:?}");
        let mut sorted = s.finish().unwrap();
        assert!(sorted.next().is_some());
        assert_eq!(entries(parent.path()).len(), 1);
        drop(sorted);
        assert!(entries(parent.path()).is_empty());
    }

    #[test]
    fn a_sorter_dropped_halfway_leaves_no_temporary_spill_folder() {
        let parent = tempfile::tempdir().unwrap();
        let mut s: Sorter<R> = Sorter::in_temp_dir(parent.path(), "t", 1024);
        for r in records(5000) {
            s.push(r).unwrap();
        }
        assert_eq!(entries(parent.path()).len(), 1);
        // As when the caller's loop fails with an error.
        drop(s);
        assert!(entries(parent.path()).is_empty());
    }

    #[test]
    fn whole_chunks_merge_without_a_remainder() {
        let dir = tempfile::tempdir().unwrap();
        let mut s: Sorter<R> = Sorter::new(dir.path(), "t", 1024);
        let mut expected = records(2048);
        for &r in &expected {
            s.push(r).unwrap();
        }
        expected.sort();
        assert_eq!(s.finish().unwrap().map(|r| r.unwrap()).collect::<Vec<_>>(), expected);
    }
}
