//! A segment's sentence vectors (`vectors.bin`): what a query in another
//! language needs of the documents the segment holds.
//!
//! # What is kept, and why in 8 bits
//!
//! Every unit of a document in a language the encoder knows (the
//! sentences [`mine::units`] picks, as `scan` reads them) is kept as its
//! cheap vector ([`mine::bag_units`]: unit length, *not* centred), with
//! its document and sentence number; each language's sum and count of
//! those vectors (in `f64`, summed before quantization); and each encoded
//! document's sentence count (the gap of a chain is scaled by it,
//! [`mine::candidates`]). Centring is left to the query: a language's
//! mean moves with every `add`, and an `add` writes its own segment only,
//! so the vectors stay raw and the means are summed over the segments
//! when the index is opened (as [`mine::Bank::finish`] centres a scan's).
//!
//! A vector is 512 signed bytes and one `f32` scale (the row's largest
//! magnitude over 127), 520 bytes a unit with its sentence number. Why
//! 8 bits and not the 16 of `mine::knn`: the vectors are the largest part
//! of an index that keeps them (a unit is a sentence of some 30–60
//! characters, so about 10 bytes a character, against some 3 for the
//! postings and under 1 for the compressed texts), and 8 bits halve them.
//! The cost: a cosine moves by at most a few thousandths (the unit test
//! below bounds it at 0.01 after centring, measured around 0.002), while
//! the margins that decide are ratios of 1.06 on cosines near 0.5 (0.03
//! apart). At query time each language's vectors are centred and put into
//! the 16-bit form of [`QVectors`], whose exact integer products `mine`
//! already measured.
//!
//! # Layout (little-endian)
//!
//! ```text
//! units     per unit, document after document:  sentence u32, scale f32, 512 × i8
//! docs      per encoded document:               doc u32, sentences u32, units u32, language u32
//! languages per language:                       code [u8; 8] (ASCII, zero-padded), units u64, sum 512 × f64
//! trailer                                       units u64, docs u32, languages u32, "PVECTOR1"
//! ```
//!
//! The tables come after the units so that the file is written in one
//! pass, a batch of documents at a time. The file's length and CRC-32
//! are in the manifest like every other file of the segment; reading it
//! checks both and then every count, number and value against the file
//! and the segment before using it ([`IndexError::Damaged`] names the
//! file).

use super::error::{damaged, io_at, IndexError};
use super::options::across_aligner;
use super::segment::{Segment, Sum, Summed, Sums, VECTORS};
use crate::align::Prepared;
use crate::encoder::DIM;
use crate::mine::knn::QVectors;
use crate::mine::{self, Unit};
use crate::plumbing::Progress;
use crate::scan::ScanOptions;
use rayon::prelude::*;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

/// The last eight bytes of the file.
const MAGIC: &[u8; 8] = b"PVECTOR2";
/// Bytes of one unit.
const UNIT: usize = 4 + 4 + DIM;
/// Bytes of one document's row.
const DOC: usize = 16;
/// Bytes of one language's row.
const LANG: usize = 8 + 8 + DIM * 8;
/// Bytes of the trailer.
const TRAILER: usize = 8 + 4 + 4 + 8;
/// The largest quantized value.
const Q8: f32 = 127.0;

/// One language's raw vectors, and their sum.
#[derive(Clone, Debug)]
pub(super) struct Shelf {
    /// Its code ([`crate::mine::language`]).
    pub(super) lang: String,
    /// Each vector's document (the index's number) and sentence.
    pub(super) units: Vec<Unit>,
    /// The vectors, [`DIM`] bytes each.
    data: Vec<i8>,
    /// Each vector's scale.
    scale: Vec<f32>,
    /// The sum of the vectors as encoded (before quantization).
    pub(super) sum: Vec<f64>,
}

impl Shelf {
    fn new(lang: &str) -> Shelf {
        Shelf { lang: lang.to_owned(), units: Vec::new(), data: Vec::new(), scale: Vec::new(), sum: vec![0.0; DIM] }
    }

    /// Vector `i` as floats.
    fn get(&self, i: usize, out: &mut [f32]) {
        let s = self.scale[i];
        for (o, &q) in out.iter_mut().zip(&self.data[i * DIM..][..DIM]) {
            *o = f32::from(q) * s;
        }
    }

    /// Its vectors centred on `mean` and made unit length again, as
    /// [`mine::Bank::finish`](crate::mine::Bank::finish) makes a
    /// language's, but for those of document `leave_out`; with their units.
    pub(super) fn centred(&self, mean: &[f32], leave_out: Option<u32>) -> (QVectors, Vec<Unit>) {
        let mut q = QVectors::new();
        let mut units = Vec::with_capacity(self.units.len());
        let mut v = vec![0f32; DIM];
        for (i, u) in self.units.iter().enumerate() {
            if Some(u.doc) == leave_out {
                continue;
            }
            self.get(i, &mut v);
            centre(&mut v, mean);
            q.push(&v);
            units.push(*u);
        }
        (q, units)
    }
}

/// `v` minus `mean`, made unit length (a zero vector stays zero).
pub(super) fn centre(v: &mut [f32], mean: &[f32]) {
    v.iter_mut().zip(mean).for_each(|(x, m)| *x -= m);
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// The mean of `count` vectors whose sum is `sum` (zeros for none).
pub(super) fn mean(sum: &[f64], count: usize) -> Vec<f32> {
    let n = count.max(1) as f64;
    sum.iter().map(|s| (s / n) as f32).collect()
}

/// The sentence vectors of every segment that has them, by language.
#[derive(Clone, Debug, Default)]
pub(super) struct Vectors {
    /// By language code.
    pub(super) shelves: Vec<Shelf>,
    /// Each encoded document's sentence count, by its number.
    pub(super) sentences: rustc_hash::FxHashMap<u32, u32>,
}

impl Vectors {
    /// The shelf of `lang`, if it holds any vector.
    pub(super) fn shelf(&self, lang: &str) -> Option<&Shelf> {
        self.shelves.iter().find(|s| s.lang == lang && !s.units.is_empty())
    }

    fn shelf_mut(&mut self, lang: &str) -> &mut Shelf {
        let at = match self.shelves.iter().position(|s| s.lang == lang) {
            Some(at) => at,
            None => {
                self.shelves.push(Shelf::new(lang));
                self.shelves.sort_by(|a, b| a.lang.cmp(&b.lang));
                self.shelves.iter().position(|s| s.lang == lang).expect("just pushed")
            }
        };
        &mut self.shelves[at]
    }

    /// The units it holds.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.shelves.iter().map(|s| s.units.len()).sum()
    }

    /// Read the vectors of the segment whose documents are numbered
    /// `first..first + count` from `path`, checked against `want` (length
    /// and CRC-32) and then every table, and add them.
    pub(super) fn read(&mut self, path: &Path, first: u32, count: u32, want: Sum) -> Result<(), IndexError> {
        let file = std::fs::File::open(path).map_err(io_at(path))?;
        let mut bytes = Vec::new();
        file.take(want.len.saturating_add(1)).read_to_end(&mut bytes).map_err(io_at(path))?;
        let got = Sum::of(&bytes);
        if got.len != want.len {
            return Err(damaged(path.to_path_buf(), format!("{} bytes where {} were written", got.len, want.len)));
        }
        if got.crc32 != want.crc32 {
            return Err(damaged(path.to_path_buf(), "its checksum does not match (the file changed)"));
        }
        self.parse(&bytes, first, count).map_err(|what| damaged(path.to_path_buf(), what))
    }

    /// The tables of a file whose bytes passed their checksum: every count
    /// and number checked before it is used.
    fn parse(&mut self, b: &[u8], first: u32, count: u32) -> Result<(), String> {
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        if b.len() < TRAILER || &b[b.len() - 8..] != MAGIC {
            return Err("it is not a file of sentence vectors (no trailer)".into());
        }
        let t = b.len() - TRAILER;
        let (units, docs, langs) = (u64_at(t), u32_at(t + 8) as usize, u32_at(t + 12) as usize);
        let size = (units as u128) * UNIT as u128 + (docs as u128) * DOC as u128 + (langs as u128) * LANG as u128;
        if size + TRAILER as u128 != b.len() as u128 {
            return Err(format!("{units} vectors, {docs} documents and {langs} languages do not fill its bytes"));
        }
        let units = units as usize;
        let docs_at = units * UNIT;
        let langs_at = docs_at + docs * DOC;
        // The languages first: the documents name them by number.
        let mut codes = Vec::with_capacity(langs);
        let mut counts = Vec::with_capacity(langs);
        for k in 0..langs {
            let at = langs_at + k * LANG;
            let raw = &b[at..at + 8];
            let len = raw.iter().position(|&c| c == 0).unwrap_or(8);
            let code = std::str::from_utf8(&raw[..len]).ok().filter(|c| {
                !c.is_empty() && c.bytes().all(|c| c.is_ascii_lowercase()) && raw[len..].iter().all(|&c| c == 0)
            });
            let Some(code) = code else { return Err(format!("language {k} has no code")) };
            if codes.contains(&code) {
                return Err(format!("language {code} is listed twice"));
            }
            codes.push(code);
            counts.push(u64_at(at + 8));
        }
        let mut seen = vec![0u64; langs];
        let mut unit = 0usize;
        let mut last: Option<u32> = None;
        let mut rows = Vec::with_capacity(docs);
        for k in 0..docs {
            let at = docs_at + k * DOC;
            let (doc, sentences, n, lang) = (u32_at(at), u32_at(at + 4), u32_at(at + 8) as usize, u32_at(at + 12));
            if doc < first || doc - first >= count || last.is_some_and(|l| doc <= l) {
                return Err(format!("document row {k} names document {doc}, not one of this segment in order"));
            }
            last = Some(doc);
            if lang as usize >= langs || n > sentences as usize || n > units - unit {
                return Err(format!("document row {k} ({doc}) does not match the vectors"));
            }
            seen[lang as usize] += n as u64;
            rows.push((doc, sentences, unit, n, lang as usize));
            unit += n;
        }
        if unit != units || seen != counts {
            return Err("its documents' vectors do not add up to its counts".into());
        }
        // Checked; now taken.
        for (k, code) in codes.iter().enumerate() {
            let at = langs_at + k * LANG + 16;
            let shelf = self.shelf_mut(code);
            for (d, s) in shelf.sum.iter_mut().enumerate() {
                let x = f64::from_le_bytes(b[at + d * 8..at + d * 8 + 8].try_into().expect("8 bytes"));
                if !x.is_finite() {
                    return Err(format!("the sum of language {code} is not a number"));
                }
                *s += x;
            }
        }
        for (doc, sentences, start, n, lang) in rows {
            self.sentences.insert(doc, sentences);
            let shelf = self.shelf_mut(codes[lang]);
            let mut prev: Option<u32> = None;
            for i in start..start + n {
                let at = i * UNIT;
                let (sentence, scale) = (u32_at(at), f32::from_le_bytes(b[at + 4..at + 8].try_into().expect("4")));
                if sentence >= sentences || prev.is_some_and(|p| sentence <= p) || !(scale.is_finite() && scale > 0.0) {
                    return Err(format!("vector {i} (document {doc}) is not a sentence of it in order"));
                }
                prev = Some(sentence);
                shelf.units.push(Unit { doc, sentence });
                shelf.scale.push(scale);
                shelf.data.extend(b[at + 8..at + UNIT].iter().map(|&x| x as i8));
            }
        }
        Ok(())
    }
}

/// Check a vectors file against its length and CRC-32 without keeping it
/// (`add` checks every file of the index before it commits onto it).
pub(super) fn verify(path: &Path, want: Sum) -> Result<(), IndexError> {
    let mut file = std::fs::File::open(path).map_err(io_at(path))?;
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(io_at(path))?;
        if n == 0 {
            break;
        }
        crc.update(&buf[..n]);
        len += n as u64;
    }
    if len != want.len {
        return Err(damaged(path.to_path_buf(), format!("{len} bytes where {} were written", want.len)));
    }
    if crc.finalize() != want.crc32 {
        return Err(damaged(path.to_path_buf(), "its checksum does not match (the file changed)"));
    }
    Ok(())
}

/// Writes a segment's `vectors.bin`, a batch of documents at a time.
pub(super) struct VectorsWriter {
    out: BufWriter<Summed>,
    units: u64,
    /// doc, sentences, units, language.
    docs: Vec<(u32, u32, u32, u32)>,
    /// code, units, sum.
    langs: Vec<(String, u64, Vec<f64>)>,
}

impl VectorsWriter {
    /// A new file at `path` (never one already there).
    pub(super) fn create(path: &Path) -> io::Result<VectorsWriter> {
        Ok(VectorsWriter {
            out: BufWriter::with_capacity(1 << 20, Summed::create(path)?),
            units: 0,
            docs: Vec::new(),
            langs: Vec::new(),
        })
    }

    /// Add document `doc` (in `lang`, of `sentences` sentences): its units'
    /// sentence numbers and vectors (the encoder's, unit length), in order.
    pub(super) fn push(
        &mut self,
        doc: u32,
        lang: &str,
        sentences: u32,
        units: &[u32],
        vector: impl Fn(usize) -> Vec<f32>,
    ) -> io::Result<()> {
        assert!(!lang.is_empty() && lang.len() <= 8 && lang.bytes().all(|c| c.is_ascii_lowercase()));
        let k = match self.langs.iter().position(|(l, _, _)| l == lang) {
            Some(k) => k,
            None => {
                self.langs.push((lang.to_owned(), 0, vec![0.0; DIM]));
                self.langs.len() - 1
            }
        };
        for (i, &sentence) in units.iter().enumerate() {
            let v = vector(i);
            assert_eq!(v.len(), DIM);
            let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
            let scale = if max > 0.0 && max.is_finite() { max / Q8 } else { 1.0 };
            let mut row = [0u8; UNIT];
            row[..4].copy_from_slice(&sentence.to_le_bytes());
            row[4..8].copy_from_slice(&scale.to_le_bytes());
            for (o, x) in row[8..].iter_mut().zip(&v) {
                let q = if x.is_finite() { (x / scale).round().clamp(-Q8, Q8) as i8 } else { 0 };
                *o = q as u8;
            }
            self.out.write_all(&row)?;
            let sum = &mut self.langs[k].2;
            sum.iter_mut().zip(&v).for_each(|(s, &x)| *s += if x.is_finite() { f64::from(x) } else { 0.0 });
        }
        self.langs[k].1 += units.len() as u64;
        self.units += units.len() as u64;
        self.docs.push((doc, sentences, units.len() as u32, k as u32));
        Ok(())
    }

    /// Write the tables and sync the file; its sum.
    pub(super) fn finish(mut self) -> io::Result<Sum> {
        for &(doc, sentences, units, lang) in &self.docs {
            for x in [doc, sentences, units, lang] {
                self.out.write_all(&x.to_le_bytes())?;
            }
        }
        for (code, units, sum) in &self.langs {
            let mut raw = [0u8; 8];
            raw[..code.len()].copy_from_slice(code.as_bytes());
            self.out.write_all(&raw)?;
            self.out.write_all(&units.to_le_bytes())?;
            for s in sum {
                self.out.write_all(&s.to_le_bytes())?;
            }
        }
        self.out.write_all(&self.units.to_le_bytes())?;
        self.out.write_all(&(self.docs.len() as u32).to_le_bytes())?;
        self.out.write_all(&(self.langs.len() as u32).to_le_bytes())?;
        self.out.write_all(MAGIC)?;
        Summed::finish(self.out)
    }
}

/// Characters of documents prepared and encoded together, as `scan`
/// batches them: the encoder's batches full on every core, the batch's
/// pooled rows (2 KB a sentence) small.
const BATCH_CHARS: u64 = 400_000;

/// What encoding a segment's documents gave.
#[derive(Clone, Debug, Default)]
pub(super) struct Encoded {
    /// Units encoded.
    pub(super) units: u64,
    /// Documents encoded, by language.
    pub(super) languages: std::collections::BTreeMap<String, u64>,
}

/// Encode the documents of the segment written at `dir` (documents
/// `first..`, their languages `langs`, those the encoder knows) and write
/// its `vectors.bin`: their texts read back from the segment, prepared
/// by the aligner of two languages, encoded a batch at a time.
pub(super) fn write_segment(
    dir: &Path,
    first: u32,
    langs: &[Option<&'static str>],
    sums: &Sums,
    opts: &ScanOptions,
    progress: &dyn Progress,
) -> Result<(Sum, Encoded), IndexError> {
    let seg = Segment::open(dir, first, langs.len() as u32, sums)?;
    let aligner = across_aligner(opts);
    let path = dir.join(VECTORS);
    let mut w = VectorsWriter::create(&path).map_err(io_at(&path))?;
    let known: Vec<(usize, &'static str)> =
        langs.iter().enumerate().filter_map(|(k, l)| l.filter(|l| mine::encoder_knows(l)).map(|l| (k, l))).collect();
    progress.stage("encoding sentences", Some(known.len() as u64));
    let mut done = Encoded::default();
    let mut token_rows = crate::encoder::TokenRows::new();
    let mut start = 0;
    while start < known.len() {
        let mut end = start;
        let mut chars = 0;
        while end < known.len() && (end == start || chars < BATCH_CHARS) {
            chars += seg.docs[known[end].0].chars;
            end += 1;
        }
        let batch = &known[start..end];
        let texts: Vec<(String, Prepared)> = batch
            .par_iter()
            .map(|&(k, _)| {
                let text = seg.text(k)?;
                let p = aligner.prepare(&text);
                Ok((text, p))
            })
            .collect::<Result<_, IndexError>>()?;
        let input: Vec<(&str, &crate::segment::Segmented)> = texts.iter().map(|(t, p)| (t.as_str(), &p.seg)).collect();
        let bags = mine::bag_units(&input, opts.mine.min_tokens, &mut token_rows);
        for ((&(k, lang), (_, p)), (units, vectors)) in batch.iter().zip(&texts).zip(&bags) {
            let doc = first + k as u32;
            w.push(doc, lang, p.seg.sentences.len() as u32, units, |i| vectors.row(i).to_vec())
                .map_err(io_at(&path))?;
            done.units += units.len() as u64;
            *done.languages.entry(lang.to_owned()).or_default() += 1;
        }
        progress.advance(batch.len() as u64);
        start = end;
    }
    let sum = w.finish().map_err(io_at(&path))?;
    Ok((sum, done))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random unit vectors sharing a common offset (as a language's
    /// vectors do, which centring takes out).
    fn vectors(n: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut s = seed | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f32 / (1u64 << 53) as f32 - 0.5
        };
        let offset: Vec<f32> = (0..DIM).map(|_| next() * 2.0).collect();
        (0..n)
            .map(|_| {
                let mut v: Vec<f32> = (0..DIM).map(|_| next()).zip(&offset).map(|(x, o)| x + o).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter_mut().for_each(|x| *x /= norm);
                v
            })
            .collect()
    }

    fn write(path: &Path, docs: &[(u32, &str, u32, Vec<u32>)], v: &[Vec<f32>]) -> Sum {
        let mut w = VectorsWriter::create(path).unwrap();
        let mut at = 0;
        for (doc, lang, sentences, units) in docs {
            w.push(*doc, lang, *sentences, units, |i| v[at + i].clone()).unwrap();
            at += units.len();
        }
        w.finish().unwrap()
    }

    #[test]
    fn vectors_read_back_in_8_bits_move_a_centred_cosine_by_less_than_a_hundredth() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.bin");
        let v = vectors(40, 3);
        let docs = [(10, "en", 30, (0..20).collect()), (12, "zh", 25, (3..23).collect())];
        let sum = write(&path, &docs, &v);
        let mut got = Vectors::default();
        got.read(&path, 10, 5, sum).unwrap();
        assert_eq!(got.len(), 40);
        assert_eq!(got.sentences.get(&12), Some(&25));
        let en = got.shelf("en").unwrap();
        assert_eq!(en.units[5], Unit { doc: 10, sentence: 5 });
        // The exact mean and centred cosines, against those read back.
        let exact_mean: Vec<f32> = (0..DIM).map(|d| v[..20].iter().map(|r| r[d]).sum::<f32>() / 20.0).collect();
        let m = mean(&en.sum, en.units.len());
        assert!(m.iter().zip(&exact_mean).all(|(a, b)| (a - b).abs() < 1e-6));
        let (q, units) = en.centred(&m, None);
        assert_eq!(units.len(), 20);
        let mut worst = 0f32;
        for i in 0..20 {
            for j in 0..20 {
                let (mut a, mut b) = (v[i].clone(), v[j].clone());
                centre(&mut a, &exact_mean);
                centre(&mut b, &exact_mean);
                let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
                worst = worst.max((q.dot(i, &q, j) - exact).abs());
            }
        }
        assert!(worst < 0.01, "{worst}");
        // A document left out.
        assert_eq!(got.shelf("zh").unwrap().centred(&m, Some(12)).1.len(), 0);
    }

    #[test]
    fn a_damaged_file_is_refused_with_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.bin");
        let v = vectors(6, 5);
        let sum = write(&path, &[(0, "de", 9, vec![1, 4, 7]), (2, "fr", 3, vec![0, 1, 2])], &v);
        let bytes = std::fs::read(&path).unwrap();
        // A flipped bit: the checksum.
        let mut bad = bytes.clone();
        bad[100] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let e = Vectors::default().read(&path, 0, 3, sum).unwrap_err().to_string();
        assert!(e.contains("vectors.bin") && e.contains("checksum"), "{e}");
        // Cut short.
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        let e = Vectors::default().read(&path, 0, 3, sum).unwrap_err().to_string();
        assert!(e.contains("bytes where"), "{e}");
        // Consistent checksum, wrong content: every table is checked.
        let parse = |b: &[u8], first, count| Vectors::default().parse(b, first, count);
        assert!(parse(&bytes, 0, 3).is_ok());
        assert!(parse(&bytes, 1, 3).unwrap_err().contains("document row 0"));
        assert!(parse(&bytes, 0, 2).unwrap_err().contains("document row 1"));
        let mut b = bytes.clone();
        let t = b.len() - TRAILER;
        b[t..t + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse(&b, 0, 3).unwrap_err().contains("do not fill"));
        let mut b = bytes.clone();
        b[0..4].copy_from_slice(&9u32.to_le_bytes());
        assert!(parse(&b, 0, 3).unwrap_err().contains("vector 0"));
        assert!(parse(&bytes[..10], 0, 3).is_err() && parse(b"", 0, 3).is_err());
    }
}
