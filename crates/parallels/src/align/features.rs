//! Sentence vectors for the parallel aligner.
//!
//! Each sentence becomes a sparse vector of its token unigrams and bigrams
//! (for Han text: characters and character pairs; elsewhere: words and word
//! pairs), weighted `(1 + ln tf) · idf`, where the inverse document frequency
//! is counted over the sentences of *both* texts of the pair — so the weights
//! are normalized per document pair: a name both texts repeat in every
//! sentence weighs little, a number or name that occurs once on each side
//! weighs a lot. Number tokens get an extra factor ([`NUMBER_BOOST`]): they
//! survive translation unchanged once normalized.
//!
//! Vectors are not unit-normalized; groups of consecutive sentences are
//! compared by adding vectors, and [`dot`] plus the stored squared
//! norms give any group cosine from pairwise dot products.

use crate::segment::{Segmented, Token, TokenKind, WILDCARD};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Extra weight on features that contain a number.
pub const NUMBER_BOOST: f32 = 1.5;

/// Feature key: a unigram is its token id; a bigram packs two ids.
pub type Feature = u64;

/// Sparse vectors of the sentences of one text.
#[derive(Debug, Default)]
pub struct Vectors {
    /// Per sentence: features sorted by key, with weights.
    pub vecs: Vec<Vec<(Feature, f32)>>,
    /// Per sentence: squared norm.
    pub norm2: Vec<f32>,
    /// Per sentence: is it a heading (linked alone, never in a group)?
    pub heading: Vec<bool>,
    /// Per sentence: its length, the characters of its tokens in the
    /// original text (punctuation and spaces not counted) — what the
    /// length model of gap completion compares.
    pub len: Vec<f32>,
}

impl Vectors {
    /// The number of sentences.
    pub fn len(&self) -> usize {
        self.vecs.len()
    }

    /// Whether the text has no sentence.
    pub fn is_empty(&self) -> bool {
        self.vecs.is_empty()
    }
}

/// Dot product of two sorted sparse vectors.
pub fn dot(a: &[(Feature, f32)], b: &[(Feature, f32)]) -> f32 {
    // A branch-free merge: which side advances is data, not a jump, so the
    // unpredictable comparisons of two unrelated key lists cost no
    // mispredictions.
    let (mut i, mut j, mut s) = (0, 0, 0f32);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        s += if x.0 == y.0 { x.1 * y.1 } else { 0.0 };
        i += (x.0 <= y.0) as usize;
        j += (y.0 <= x.0) as usize;
    }
    s
}

/// Features of a token run with term counts and a number flag, sorted.
fn run_features(toks: &[Token], buf: &mut Vec<(Feature, bool)>) -> Vec<(Feature, u16, bool)> {
    buf.clear();
    for (k, t) in toks.iter().enumerate() {
        if t.id == WILDCARD {
            continue;
        }
        let num = t.kind == TokenKind::Number;
        buf.push((t.id as Feature, num));
        if let Some(n) = toks.get(k + 1) {
            if n.id != WILDCARD {
                let f = ((t.id as Feature) << 32) | n.id as Feature;
                buf.push((f, num || n.kind == TokenKind::Number));
            }
        }
    }
    buf.sort_unstable();
    let mut v: Vec<(Feature, u16, bool)> = Vec::with_capacity(buf.len());
    for &(f, num) in buf.iter() {
        match v.last_mut() {
            Some(last) if last.0 == f => last.1 = last.1.saturating_add(1),
            _ => v.push((f, 1, num)),
        }
    }
    v
}

/// Raw features per sentence.
fn raw_features(seg: &Segmented) -> Vec<Vec<(Feature, u16, bool)>> {
    let mut buf = Vec::new();
    seg.sentences.iter().map(|s| run_features(s.tokens(seg), &mut buf)).collect()
}

/// Sentence frequencies of features in a whole corpus, counted into a fixed
/// table of hashed buckets: memory is `4 · 2^bits` bytes whatever the corpus
/// (64 MiB at the default 24 bits). Features that share a bucket add up, so
/// a frequency can only be overestimated — a rare feature may look a little
/// commoner, never the reverse. Counting is thread-safe and its result does
/// not depend on order.
pub struct CorpusDf {
    counts: Vec<AtomicU32>,
    bits: u32,
    sentences: AtomicU64,
}

impl std::fmt::Debug for CorpusDf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CorpusDf {{ bits: {}, sentences: {} }}", self.bits, self.sentences.load(Ordering::Relaxed))
    }
}

impl CorpusDf {
    /// An empty table of 2^`bits` counters (`bits` clamped to 8..=32).
    pub fn new(bits: u32) -> CorpusDf {
        let bits = bits.clamp(8, 32);
        CorpusDf {
            counts: (0..1usize << bits).map(|_| AtomicU32::new(0)).collect(),
            bits,
            sentences: AtomicU64::new(0),
        }
    }

    fn bucket(&self, f: Feature) -> usize {
        (f.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    /// Count the features of every sentence of a document.
    pub fn add(&self, seg: &Segmented) {
        for v in raw_features(seg) {
            for (f, _, _) in v {
                self.counts[self.bucket(f)].fetch_add(1, Ordering::Relaxed);
            }
        }
        self.sentences.fetch_add(seg.sentences.len() as u64, Ordering::Relaxed);
    }

    /// The number of sentences holding `f` (or a feature of its bucket).
    pub fn df(&self, f: Feature) -> u32 {
        self.counts[self.bucket(f)].load(Ordering::Relaxed)
    }

    /// Write the table (to resume a scan): the bucket bits, the sentence
    /// count, then every count, little-endian.
    pub fn save(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        w.write_all(&self.bits.to_le_bytes())?;
        w.write_all(&self.sentences.load(Ordering::Relaxed).to_le_bytes())?;
        let mut buf = Vec::with_capacity(1 << 16);
        for chunk in self.counts.chunks(1 << 14) {
            buf.clear();
            for c in chunk {
                buf.extend_from_slice(&c.load(Ordering::Relaxed).to_le_bytes());
            }
            w.write_all(&buf)?;
        }
        Ok(())
    }

    /// Its width: 2^`bits` counters.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of sentences counted, exactly.
    pub fn sentence_count(&self) -> u64 {
        self.sentences.load(Ordering::Relaxed)
    }

    /// The non-zero counters as `(bucket, count)`, in bucket order: the
    /// part of a table a distributed run sums by bucket.
    pub fn nonzero_counts(&self) -> Vec<(u32, u32)> {
        self.counts
            .iter()
            .enumerate()
            .filter_map(|(k, c)| {
                let n = c.load(Ordering::Relaxed);
                (n != 0).then_some((k as u32, n))
            })
            .collect()
    }

    /// A table of 2^`bits` counters (clamped to 8..=32) with these counts
    /// (`(bucket, count)`, buckets not given 0, repeated ones added) and
    /// sentence count: the table again from [`CorpusDf::nonzero_counts`]
    /// summed over parts. Counts add up wrapping, as counting does. A
    /// bucket beyond the width is an error.
    pub fn from_counts(bits: u32, sentences: u64, counts: &[(u32, u64)]) -> std::io::Result<CorpusDf> {
        let df = CorpusDf::new(bits);
        df.sentences.store(sentences, Ordering::Relaxed);
        for &(k, n) in counts {
            let slot = df.counts.get(k as usize).ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::InvalidData, format!("bucket {k} beyond {} bits", df.bits))
            })?;
            slot.fetch_add(n as u32, Ordering::Relaxed);
        }
        Ok(df)
    }

    /// Add the counts of `other` (of the same width) to these, as if this
    /// table had counted its documents too (wrapping, as counting does).
    pub fn add_table(&self, other: &CorpusDf) -> std::io::Result<()> {
        if other.bits != self.bits {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "feature tables of different widths"));
        }
        self.sentences.fetch_add(other.sentence_count(), Ordering::Relaxed);
        for (x, y) in self.counts.iter().zip(&other.counts) {
            x.fetch_add(y.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        Ok(())
    }

    /// Read a table [`CorpusDf::save`] wrote.
    pub fn load(r: &mut impl std::io::Read) -> std::io::Result<CorpusDf> {
        let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not a feature table");
        let mut b4 = [0u8; 4];
        let mut b8 = [0u8; 8];
        r.read_exact(&mut b4)?;
        let bits = u32::from_le_bytes(b4);
        if !(8..=32).contains(&bits) {
            return Err(bad());
        }
        r.read_exact(&mut b8)?;
        let sentences = u64::from_le_bytes(b8);
        let mut bytes = vec![0u8; 4usize << bits];
        r.read_exact(&mut bytes)?;
        let counts = bytes.chunks_exact(4).map(|c| AtomicU32::new(u32::from_le_bytes(c.try_into().unwrap()))).collect();
        Ok(CorpusDf { counts, bits, sentences: AtomicU64::new(sentences) })
    }

    /// The number of sentences counted.
    pub fn sentences(&self) -> f32 {
        self.sentences.load(Ordering::Relaxed) as f32
    }
}

/// The distinct token pairs (bigrams) of a token run, as [`CorpusDf`] keys
/// them: the wording a paraphrase keeps of its source, sorted.
pub fn token_pairs(toks: &[Token]) -> Vec<Feature> {
    let mut v: Vec<Feature> = toks
        .windows(2)
        .filter(|w| w[0].id != WILDCARD && w[1].id != WILDCARD)
        .map(|w| ((w[0].id as Feature) << 32) | w[1].id as Feature)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Document frequencies of the features of a pair of texts: counted over the
/// sentences of both, or taken from a whole corpus.
#[derive(Debug, Default)]
pub struct Df<'c> {
    counts: FxHashMap<Feature, u32>,
    sentences: f32,
    corpus: Option<&'c CorpusDf>,
}

impl<'c> Df<'c> {
    /// Weights from a whole corpus.
    pub fn of_corpus(corpus: &'c CorpusDf) -> Df<'c> {
        Df { counts: FxHashMap::default(), sentences: 0.0, corpus: Some(corpus) }
    }

    /// The weighted vector of raw features; features in every sentence drop
    /// out. Returns the vector and its squared norm.
    fn weigh(&self, raw: Vec<(Feature, u16, bool)>) -> (Vec<(Feature, f32)>, f32) {
        let mut w = Vec::with_capacity(raw.len());
        let mut n2 = 0f32;
        for (f, tf, num) in raw {
            let idf = match self.corpus {
                Some(c) => (c.sentences().max(1.0) / c.df(f).max(1) as f32).ln(),
                None => (self.sentences / self.counts.get(&f).copied().unwrap_or(1).max(1) as f32).ln(),
            };
            if idf <= 0.0 {
                continue;
            }
            let mut x = (1.0 + (tf as f32).ln()) * idf;
            if num {
                x *= NUMBER_BOOST;
            }
            n2 += x * x;
            w.push((f, x));
        }
        (w, n2)
    }

    /// The vectors of a text's sentences from their raw features.
    fn weigh_text(&self, raw: Vec<Vec<(Feature, u16, bool)>>, seg: &Segmented) -> Vectors {
        let mut out = Vectors::default();
        for v in raw {
            let (w, n2) = self.weigh(v);
            out.vecs.push(w);
            out.norm2.push(n2);
        }
        out.heading = seg.sentences.iter().map(|s| s.heading).collect();
        out.len = seg.sentences.iter().map(|s| s.tokens(seg).iter().map(|t| (t.end - t.start) as f32).sum()).collect();
        out
    }

    /// The weighted vector of any token run (a clause, say) of either text.
    pub fn vector(&self, toks: &[Token]) -> (Vec<(Feature, f32)>, f32) {
        self.weigh(run_features(toks, &mut Vec::new()))
    }
}

/// Cosine of two weighted vectors with their squared norms.
pub fn cosine(a: &(Vec<(Feature, f32)>, f32), b: &(Vec<(Feature, f32)>, f32)) -> f32 {
    if a.1 <= 0.0 || b.1 <= 0.0 {
        0.0
    } else {
        (dot(&a.0, &b.0) / (a.1 * b.1).sqrt()).clamp(0.0, 1.0)
    }
}

/// Document frequencies (over the sentences of both texts, or from `corpus`)
/// and the weighted vectors of each text.
pub fn vectors<'c>(a: &Segmented, b: &Segmented, corpus: Option<&'c CorpusDf>) -> (Vectors, Vectors, Df<'c>) {
    let ra = raw_features(a);
    let rb = raw_features(b);
    let mut df = Df { counts: FxHashMap::default(), sentences: (ra.len() + rb.len()).max(1) as f32, corpus };
    if corpus.is_none() {
        for v in ra.iter().chain(rb.iter()) {
            for &(f, _, _) in v {
                *df.counts.entry(f).or_insert(0) += 1;
            }
        }
    }
    let (va, vb) = (df.weigh_text(ra, a), df.weigh_text(rb, b));
    (va, vb, df)
}

/// The sentence vectors of one text under corpus weights: they do not depend
/// on the text it is compared with, so a text in many pairs is weighed once.
pub fn corpus_vectors(seg: &Segmented, corpus: &CorpusDf) -> Vectors {
    Df::of_corpus(corpus).weigh_text(raw_features(seg), seg)
}
