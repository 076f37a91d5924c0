//! Candidates by meaning: which documents of a corpus in several languages
//! may translate each other, and where.
//!
//! Shared rare n-grams ([`crate::scan::seeds`]) cannot see a translation:
//! a chapter and its English rendering share names at most. This module
//! finds such pairs the way parallel corpora are mined (LASER and LaBSE
//! for CCMatrix and WikiMatrix; Artetxe & Schwenk 2019, *Margin-based
//! parallel corpus mining with multilingual sentence embeddings*), with
//! the encoder compiled into the library, and hands `scan` pairs of
//! documents to align; the aligner then links them completely
//! ([`crate::align`], meaning first).
//!
//! # Steps
//!
//! 1. **Languages.** Each document's language is told from its text
//!    ([`language`]). Only documents in a language the encoder knows
//!    ([`ENCODER_LANGUAGES`]) take part, and only when the corpus holds two
//!    or more of them: a corpus in one language is never encoded.
//! 2. **Units.** Every sentence of [`MineParams::min_tokens`] tokens or
//!    more ([`units`]) gets a cheap vector ([`bag_units`]): the sentence
//!    read as a bag of its tokens, each token's row computed once for the
//!    corpus by the encoder as if the token were a sentence of its own
//!    ([`Encoder::encode_bag`]), the rows added up and finished as a
//!    sentence's are. It leaves out what the encoder's convolutions read
//!    from a token's neighbours, and costs a small part of encoding
//!    (measured: on the dev crawls it finds the same translations as full
//!    encoding, with fewer candidates; EVALUATION.md). The vectors are
//!    kept per language in a [`Bank`] in 16-bit integers
//!    ([`knn::QVectors`]). Each language's vectors are then centred on
//!    their mean and made unit length again ([`Bank::finish`]): what every
//!    sentence of a language shares says more about the language than
//!    about the sentence (the same correction `align` makes for a pair,
//!    measured there).
//! 3. **Neighbours.** For every pair of languages, every sentence's `k`
//!    nearest sentences of the other language, both ways: exactly up to a
//!    billion products ([`knn::nearest`]); beyond, through lists
//!    ([`knn::Lists`], made in [`Bank::finish`], which puts a language's
//!    sentences in its lists' order), every sentence of the smaller
//!    language and those of the larger that it found ([`mine`]).
//! 4. **Margin.** A candidate sentence pair `(x, y)` scores the ratio
//!    margin `cos(x, y) / ((knn(x) + knn(y)) / 2)`, where `knn(x)` is the
//!    mean cosine of `x`'s `k` nearest: a sentence close to everything
//!    (a formula, a name, a short exclamation) has a high mean and a low
//!    margin. Each sentence's best pair by margin, forward and backward,
//!    is kept when its margin reaches [`MineParams::margin`] ([`mine`]).
//! 5. **Chains.** Mined pairs of the same two documents that follow each
//!    other within [`MineParams::gap`] sentences on both sides (the gap on
//!    the side with more sentences per unit of the other is scaled by that
//!    ratio) form chains; a pair of documents with a chain of
//!    [`MineParams::min_pairs`] mined pairs is a candidate ([`candidates`]).
//!    Whole translated documents and passages translated inside unrelated
//!    documents both come out of this.
//!
//! 6. **Alignment.** Only the documents of candidate pairs are encoded in
//!    full ([`pooled`]), once each, and each pair is aligned by the
//!    aligner with meaning first and trimmed to what the evidence supports
//!    ([`passages::align_candidate`]).
//!
//! What is encoded, and when: every unit of every document that takes
//! part is read as a bag of tokens (the rows of the distinct tokens,
//! then sums); the candidates' documents are encoded in full. The
//! neighbours are an exact product while two languages' sentence counts
//! multiply to at most a billion, and a search through lists of a fixed
//! size beyond, whose cost grows about as the sentences ([`knn`]).
//!
//! # Weak spots
//!
//! * The margin is relative to a sentence's neighbourhood, and a larger
//!   corpus makes every neighbourhood denser: on crawls made larger with
//!   enciphered text (`bench/gen_xling_scale.py`), one of the two planted
//!   passages of 4–14 sentences is lost from 10 M characters on, and from
//!   30 M on one planted chapter pair too (CUV Mark 7 is paired with the
//!   other English version, WMB, which it translates as well, and not
//!   with KJV): their sentence pairs no longer reach the margin
//!   (BENCHMARKS.md, EVALUATION.md "Lists at scale").
//! * A sentence of fewer than [`MineParams::min_tokens`] tokens is never a
//!   unit: a passage of short lines (verse, dialogue) is found through its
//!   longer neighbours, or not at all.
//! * The language of a document is one language: a Chinese article holding
//!   an English paragraph is Chinese, and that paragraph is compared with
//!   the corpus's other languages only.
//! * Two languages with few documents each (six German and six French
//!   articles, say) make every document a sentence's neighbour: the margin
//!   discounts that less well than in a large corpus.

pub mod knn;
pub mod passages;

use rustc_hash::FxHashMap;

use crate::chars::CharIndex;
use crate::encoder::{Embeddings, Encoder, Pooled, TokenRows, DIM};
use crate::segment::Segmented;
use knn::{Neighbours, QVectors};

/// The languages the encoder was trained on (USE-multilingual v3), as
/// [`language`] names them.
pub const ENCODER_LANGUAGES: [&str; 15] =
    ["ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"];

/// Characters of a document read to tell its language, from each of
/// three places (start, middle, end).
pub const LANGUAGE_SAMPLE: usize = 400;

/// A document's language, when its text tells it: `zh` for Chinese (either
/// script), `ja` and `ko` by their scripts, an ISO 639-1 code for the other
/// languages the encoder knows (told by `whatlang`), `whatlang`'s ISO 639-3
/// code for the rest; `None` when the text has no letters or `whatlang`
/// finds no reliable answer. It reads at most three samples of
/// [`LANGUAGE_SAMPLE`] characters, so that telling the language of every
/// document of a corpus costs little beside preparing it.
pub fn language(text: &str) -> Option<&'static str> {
    use crate::chars::{script, Script};
    use whatlang::Lang::*;
    let sample = sample(text);
    match script(&sample) {
        Script::Han => return Some("zh"),
        Script::Japanese => return Some("ja"),
        Script::Hangul => return Some("ko"),
        Script::None => return None,
        _ => {}
    }
    let lang = whatlang::detect(&sample).filter(|i| i.is_reliable())?.lang();
    Some(match lang {
        Cmn => "zh",
        Ara => "ar",
        Deu => "de",
        Eng => "en",
        Spa => "es",
        Fra => "fr",
        Ita => "it",
        Jpn => "ja",
        Kor => "ko",
        Nld => "nl",
        Pol => "pl",
        Por => "pt",
        Rus => "ru",
        Tha => "th",
        Tur => "tr",
        other => other.code(),
    })
}

/// Up to three pieces of [`LANGUAGE_SAMPLE`] characters of `text`.
fn sample(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.len();
    if bytes <= 3 * 4 * LANGUAGE_SAMPLE {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(3 * 4 * LANGUAGE_SAMPLE);
    for at in [0, bytes / 2, bytes - 4 * LANGUAGE_SAMPLE] {
        let mut at = at;
        while !text.is_char_boundary(at) {
            at += 1;
        }
        out.extend(text[at..].chars().take(LANGUAGE_SAMPLE));
        out.push('\n');
    }
    std::borrow::Cow::Owned(out)
}

/// Whether the encoder knows `lang` (a code of [`language`]).
pub fn encoder_knows(lang: &str) -> bool {
    ENCODER_LANGUAGES.contains(&lang)
}

/// What decides which sentence pairs are mined and which document pairs
/// become candidates.
#[derive(Clone, Debug, PartialEq)]
pub struct MineParams {
    /// Neighbours per sentence for the margin (4, as in the published
    /// recipe).
    pub k: usize,
    /// The least ratio margin of a mined pair.
    pub margin: f32,
    /// The fewest tokens of a sentence that is encoded.
    pub min_tokens: u32,
    /// Most sentences between two mined pairs of one chain, on the side
    /// with fewer sentences.
    pub gap: u32,
    /// Mined pairs a chain needs to make a candidate.
    pub min_pairs: usize,
}

impl Default for MineParams {
    fn default() -> Self {
        MineParams { k: 4, margin: 1.06, min_tokens: 4, gap: 4, min_pairs: 2 }
    }
}

/// The sentences of a segmented text that are encoded: those of
/// `min_tokens` tokens or more that are not headings.
pub fn units(seg: &Segmented, min_tokens: u32) -> Vec<u32> {
    seg.sentences
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.heading && s.tok_end - s.tok_start >= min_tokens)
        .map(|(i, _)| i as u32)
        .collect()
}

/// The units ([`units`]) of several documents and their cheap vectors
/// ([`Encoder::encode_bag`]: each unit a bag of its tokens read alone),
/// in one call, in order. `rows` keeps the tokens' rows for the next call.
pub fn bag_units(docs: &[(&str, &Segmented)], min_tokens: u32, rows: &mut TokenRows) -> Vec<(Vec<u32>, Embeddings)> {
    let mut texts: Vec<&str> = Vec::new();
    let all_units: Vec<Vec<u32>> = docs
        .iter()
        .map(|(text, seg)| {
            let u = units(seg, min_tokens);
            let ix = CharIndex::new(text);
            texts.extend(u.iter().map(|&i| {
                let s = &seg.sentences[i as usize];
                ix.slice(s.start, s.end)
            }));
            u
        })
        .collect();
    let vectors = Encoder::shared().encode_bag(&texts, rows);
    let mut first = 0;
    all_units
        .into_iter()
        .map(|u| {
            let mine: Vec<f32> = (first..first + u.len()).flat_map(|k| vectors.row(k).iter().copied()).collect();
            first += u.len();
            (u, Embeddings::from_rows(mine))
        })
        .collect()
}

/// Every sentence's pooled row of several documents (what the aligner
/// reads, [`crate::align::Aligner::align_encoded`]), in one call to the
/// encoder, so that its batches are full whatever the documents' lengths.
pub fn pooled(docs: &[(&str, &Segmented)]) -> Vec<Pooled> {
    let mut texts: Vec<&str> = Vec::new();
    let mut counts = Vec::with_capacity(docs.len());
    for (text, seg) in docs {
        let ix = CharIndex::new(text);
        texts.extend(seg.sentences.iter().map(|s| ix.slice(s.start, s.end)));
        counts.push(seg.sentences.len());
    }
    let all = Encoder::shared().encode_pooled(&texts);
    let mut first = 0;
    counts
        .into_iter()
        .map(|n| {
            let part = Pooled::from_parts(
                all.flat()[first * DIM..(first + n) * DIM].to_vec(),
                all.tokens()[first..first + n].to_vec(),
            );
            first += n;
            part
        })
        .collect()
}

/// One encoded sentence: its document and its number there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    /// The document's number.
    pub doc: u32,
    /// The sentence's number in the document's [`Segmented::sentences`].
    pub sentence: u32,
}

/// The encoded sentences of one language.
#[derive(Debug, Default)]
struct Shelf {
    units: Vec<Unit>,
    vectors: QVectors,
    sum: Vec<f64>,
    /// Its lists, when another language is searched through them
    /// ([`Bank::finish`]); `units` and `vectors` are then in their order.
    lists: Option<knn::Lists>,
}

/// Every encoded sentence of a corpus, by language.
#[derive(Debug, Default)]
pub struct Bank {
    shelves: Vec<(String, Shelf)>,
    finished: bool,
}

impl Bank {
    /// An empty bank.
    pub fn new() -> Bank {
        Bank::default()
    }

    fn shelf(&mut self, lang: &str) -> &mut Shelf {
        let at = match self.shelves.iter().position(|(l, _)| l == lang) {
            Some(at) => at,
            None => {
                self.shelves.push((lang.to_owned(), Shelf { sum: vec![0.0; DIM], ..Shelf::default() }));
                self.shelves.len() - 1
            }
        };
        &mut self.shelves[at].1
    }

    /// Add the vector of sentence `sentence` of document `doc`, in `lang`.
    /// It is kept in 16-bit integers ([`QVectors::push`]); the bank
    /// depends on those alone, so that a bank filled with
    /// [`Bank::push_quantized`] from vectors quantized elsewhere (a
    /// distributed scan's tasks) is the same.
    pub fn push(&mut self, lang: &str, doc: u32, sentence: u32, vector: &[f32]) {
        let mut q = QVectors::new();
        q.push(vector);
        self.push_quantized(lang, doc, sentence, q.row(0), q.scale(0));
    }

    /// Add a vector already quantized ([`QVectors::row`], [`QVectors::scale`]).
    pub fn push_quantized(&mut self, lang: &str, doc: u32, sentence: u32, row: &[i16], scale: f32) {
        assert!(!self.finished, "a finished bank takes no more vectors");
        let shelf = self.shelf(lang);
        shelf.units.push(Unit { doc, sentence });
        shelf.sum.iter_mut().zip(row).for_each(|(s, &x)| *s += f64::from(f32::from(x) * scale));
        shelf.vectors.push_quantized(row, scale);
    }

    /// The languages it holds, with their sentence counts, by code.
    pub fn languages(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = self.shelves.iter().map(|(l, s)| (l.clone(), s.units.len())).collect();
        out.sort();
        out
    }

    /// The sentences it holds.
    pub fn len(&self) -> usize {
        self.shelves.iter().map(|(_, s)| s.units.len()).sum()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its bytes in memory (the vectors).
    pub fn bytes(&self) -> usize {
        self.shelves.iter().map(|(_, s)| s.vectors.bytes() + s.units.len() * 8).sum()
    }

    /// Centre every language's vectors on their mean and make them unit
    /// length again, in place; then make the lists of every language that
    /// another is searched through ([`knn::exact`] says which), putting its
    /// sentences in the lists' order. Done once, after the last
    /// [`Bank::push`].
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.shelves.sort_by(|x, y| x.0.cmp(&y.0));
        for (_, shelf) in &mut self.shelves {
            let n = shelf.units.len().max(1) as f64;
            let mean: Vec<f32> = shelf.sum.iter().map(|s| (s / n) as f32).collect();
            for i in 0..shelf.vectors.len() {
                let mut v = shelf.vectors.get(i);
                v.iter_mut().zip(&mean).for_each(|(x, m)| *x -= m);
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    v.iter_mut().for_each(|x| *x /= norm);
                }
                shelf.vectors.set(i, &v);
            }
        }
        let listed: Vec<bool> = (0..self.shelves.len())
            .map(|i| {
                (0..self.shelves.len())
                    .any(|j| j != i && !knn::exact(&self.shelves[i].1.vectors, &self.shelves[j].1.vectors))
            })
            .collect();
        for ((_, shelf), listed) in self.shelves.iter_mut().zip(listed) {
            if listed {
                let (lists, order) = knn::Lists::sort(&mut shelf.vectors);
                let units = &mut shelf.units;
                knn::permute(&order, |a, b| units.swap(a, b));
                shelf.lists = Some(lists);
            }
        }
    }
}

/// A mined sentence pair: a sentence of one language and its counterpart
/// in another, with their cosine and ratio margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mined {
    /// The sentence of the language first by code.
    pub a: Unit,
    /// The sentence of the other language.
    pub b: Unit,
    /// The cosine of their centred vectors.
    pub cos: f32,
    /// The ratio margin.
    pub margin: f32,
}

/// Every mined sentence pair of a finished bank, for every pair of its
/// languages, in a fixed order (languages by code, then the first
/// sentence's place in the bank).
///
/// Two languages too large for the exact product are searched through
/// lists, and not in full both ways: every sentence of the language with
/// fewer sentences searches the other's lists ([`knn::WIDE_PROBES`] of
/// them), and only the sentences it found search back ([`knn::PROBES`]
/// lists, for their own neighbourhoods, which their margins need). A
/// sentence of the larger language that no sentence of the smaller one
/// counts among its nearest is never the forward best of any, and is
/// mined only if it would be its own best's backward pair: rare (its
/// counterpart must have `k` closer sentences) and left out, so that the
/// search grows with the smaller language, not with the larger
/// (BENCHMARKS.md, EVALUATION.md "The smaller language searched in
/// full").
pub fn mine(bank: &Bank, p: &MineParams) -> Vec<Mined> {
    assert!(bank.finished, "mine a finished bank");
    let mut out = Vec::new();
    for i in 0..bank.shelves.len() {
        for j in i + 1..bank.shelves.len() {
            let (x, y) = (&bank.shelves[i].1, &bank.shelves[j].1);
            let (nx, ny) = match (&x.lists, &y.lists) {
                (Some(lx), Some(ly)) if !knn::exact(&x.vectors, &y.vectors) => {
                    let all = |n: usize| (0..n as u32).collect::<Vec<u32>>();
                    if x.units.len() <= y.units.len() {
                        let nx =
                            knn::search_rows(&x.vectors, &all(x.units.len()), &y.vectors, ly, p.k, knn::WIDE_PROBES);
                        let ny = knn::search_rows(&y.vectors, &found(&nx), &x.vectors, lx, p.k, knn::PROBES);
                        (nx, ny)
                    } else {
                        let ny =
                            knn::search_rows(&y.vectors, &all(y.units.len()), &x.vectors, lx, p.k, knn::WIDE_PROBES);
                        let nx = knn::search_rows(&x.vectors, &found(&ny), &y.vectors, ly, p.k, knn::PROBES);
                        (nx, ny)
                    }
                }
                _ => knn::nearest(&x.vectors, &y.vectors, p.k),
            };
            mine_pair(x, y, &nx, &ny, p, &mut out);
        }
    }
    out
}

/// The rows of the other set that some row's neighbours hold, once each,
/// in order.
fn found(n: &Neighbours) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..n.len()).flat_map(|i| n.of(i).map(|(j, _)| j)).collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}

/// The ratio margin of a sentence pair at cosine `c` whose sentences'
/// neighbours lie at the mean cosines `mean_x` and `mean_y` (0 when those
/// add up to 0 or less).
pub fn ratio_margin(c: f32, mean_x: f32, mean_y: f32) -> f32 {
    let d = (mean_x + mean_y) / 2.0;
    if d > 0.0 {
        c / d
    } else {
        0.0
    }
}

/// The best of a sentence's neighbours (number, cosine) by the margin
/// `margin` gives each (ties: the smaller number), with its cosine and
/// margin, when that margin reaches `least`.
pub fn best_by_margin(
    neighbours: impl Iterator<Item = (u32, f32)>,
    margin: impl Fn(u32, f32) -> f32,
    least: f32,
) -> Option<(u32, f32, f32)> {
    neighbours
        .map(|(j, c)| (j, c, margin(j, c)))
        .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)))
        .filter(|t| t.2 >= least)
}

/// The mined pairs of two languages from their neighbours.
fn mine_pair(x: &Shelf, y: &Shelf, nx: &Neighbours, ny: &Neighbours, p: &MineParams, out: &mut Vec<Mined>) {
    let (mx, my): (Vec<f32>, Vec<f32>) =
        ((0..nx.len()).map(|i| nx.mean(i)).collect(), (0..ny.len()).map(|j| ny.mean(j)).collect());
    // Each sentence's best counterpart by margin, both ways.
    let mut best: FxHashMap<(u32, u32), (f32, f32)> = FxHashMap::default();
    for (i, &mean) in mx.iter().enumerate() {
        let of = |j: u32, c: f32| ratio_margin(c, mean, my[j as usize]);
        if let Some((j, c, m)) = best_by_margin(nx.of(i), of, p.margin) {
            best.insert((i as u32, j), (c, m));
        }
    }
    for (j, &mean) in my.iter().enumerate() {
        let of = |i: u32, c: f32| ratio_margin(c, mx[i as usize], mean);
        if let Some((i, c, m)) = best_by_margin(ny.of(j), of, p.margin) {
            best.insert((i, j as u32), (c, m));
        }
    }
    let mut pairs: Vec<((u32, u32), (f32, f32))> = best.into_iter().collect();
    pairs.sort_unstable_by_key(|&(key, _)| key);
    out.extend(pairs.into_iter().map(|((i, j), (cos, margin))| Mined {
        a: x.units[i as usize],
        b: y.units[j as usize],
        cos,
        margin,
    }));
}

/// A pair of documents worth aligning across languages, with the mined
/// sentence pairs that make it one.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// The document with the smaller number.
    pub a: u32,
    /// The other.
    pub b: u32,
    /// Its mined pairs: sentence of `a`, sentence of `b`, margin; by
    /// sentence of `a`.
    pub pairs: Vec<(u32, u32, f32)>,
    /// The mined pairs of its longest chain.
    pub chain: usize,
}

/// The pairs of documents whose mined pairs form a chain of at least
/// [`MineParams::min_pairs`], by document numbers. `sentences` gives each
/// document's sentence count (for the gap's scale).
pub fn candidates(mined: &[Mined], sentences: &dyn Fn(u32) -> u32, p: &MineParams) -> Vec<Candidate> {
    // (sentence of a, sentence of b, margin) by pair of documents.
    type Pairs = Vec<(u32, u32, f32)>;
    let mut by_pair: FxHashMap<(u32, u32), Pairs> = FxHashMap::default();
    for m in mined {
        let (a, b) = if m.a.doc < m.b.doc { (m.a, m.b) } else { (m.b, m.a) };
        if a.doc == b.doc {
            continue;
        }
        by_pair.entry((a.doc, b.doc)).or_default().push((a.sentence, b.sentence, m.margin));
    }
    let mut out: Vec<Candidate> = by_pair
        .into_iter()
        .filter_map(|((a, b), mut pairs)| {
            pairs.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)));
            let chain = longest_chain(&pairs, sentences(a), sentences(b), p.gap);
            (chain >= p.min_pairs).then_some(Candidate { a, b, pairs, chain })
        })
        .collect();
    out.sort_by_key(|c| (c.a, c.b));
    out
}

/// The most the gap widens on the side with more sentences: a translation
/// may cut a sentence into three, but two documents of very different
/// lengths are mostly unrelated text.
pub const MAX_GAP_SCALE: f32 = 3.0;

/// The most mined pairs (by sentence of A) in one chain: each within
/// `gap` sentences of the one before on the side with fewer sentences
/// (and the gap scaled by the ratio of sentence counts on the other), in
/// order on both sides.
fn longest_chain(pairs: &[(u32, u32, f32)], na: u32, nb: u32, gap: u32) -> usize {
    let (na, nb) = (na.max(1) as f32, nb.max(1) as f32);
    let scale = |x: f32, y: f32| gap as f32 * (x / y).min(MAX_GAP_SCALE);
    let (ga, gb) = if na <= nb { (gap as f32, scale(nb, na)) } else { (scale(na, nb), gap as f32) };
    // Longest path in a DAG of pairs ordered on both sides: quadratic in a
    // pair's mined pairs, which are few.
    let mut best = vec![1usize; pairs.len()];
    for i in 0..pairs.len() {
        for j in 0..i {
            let (da, db) = (pairs[i].0 as f32 - pairs[j].0 as f32, pairs[i].1 as f32 - pairs[j].1 as f32);
            if da > 0.0 && db > 0.0 && da <= ga + 1.0 && db <= gb + 1.0 {
                best[i] = best[i].max(best[j] + 1);
            }
        }
    }
    best.into_iter().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_told_from_the_text() {
        assert_eq!(language("在那些日子，耶稣又在海边教训人。有许多人到他那里聚集。"), Some("zh"));
        assert_eq!(
            language("And he began again to teach by the sea side: and there was gathered unto him a great multitude."),
            Some("en")
        );
        assert_eq!(
            language(
                "Die Bergsteiger erreichten den Gipfel am frühen Morgen, nachdem sie die ganze Nacht gewandert waren."
            ),
            Some("de")
        );
        assert!(encoder_knows("zh") && encoder_knows("fr") && !encoder_knows("epo"));
    }

    #[test]
    fn a_bag_vector_does_not_depend_on_the_call_and_finds_a_translation() {
        let encoder = Encoder::shared();
        let texts = [
            "耶稣又在海边教训人，有许多人到他那里聚集。",
            "And he began again to teach by the sea side, and there was gathered unto him a great multitude.",
            "明天北京的天气晴转多云，最高气温五度。",
        ];
        let mut rows = TokenRows::new();
        let all = encoder.encode_bag(&texts, &mut rows);
        assert!(!rows.is_empty());
        let alone = encoder.encode_bag(&texts[1..2], &mut TokenRows::new());
        assert_eq!(all.row(1), alone.row(0));
        // Every row already held: the same vector again.
        let again = encoder.encode_bag(&texts[..1], &mut rows);
        assert_eq!(all.row(0), again.row(0));
        assert!(all.cosine(0, 1) > all.cosine(2, 1) + 0.1, "{} {}", all.cosine(0, 1), all.cosine(2, 1));
    }

    #[test]
    fn pooled_rows_do_not_depend_on_the_documents_encoded_with_them() {
        let aligner = crate::align::Aligner::new(crate::align::Options::default());
        let texts = [
            "在那些日子，又有许多人聚集。他们没有什么吃的。耶稣叫门徒来，说：我怜悯这众人。",
            "In those days the multitude being very great, and having nothing to eat, Jesus called his disciples unto him.",
        ];
        let prepared: Vec<_> = texts.iter().map(|t| aligner.prepare(t)).collect();
        let both = pooled(&[(texts[0], &prepared[0].seg), (texts[1], &prepared[1].seg)]);
        let alone = pooled(&[(texts[1], &prepared[1].seg)]);
        assert_eq!(both[1].flat(), alone[0].flat());
        assert_eq!(both[0].len(), prepared[0].seg.sentences.len());
    }

    #[test]
    fn chains_follow_both_sides_within_the_gap() {
        // Three pairs in order, one far off.
        let pairs = [(0, 0, 1.2), (2, 3, 1.2), (5, 6, 1.2), (40, 1, 1.2)];
        assert_eq!(longest_chain(&pairs, 50, 50, 4), 3);
        // Out of order on B.
        assert_eq!(longest_chain(&[(0, 5, 1.1), (1, 2, 1.1)], 10, 10, 4), 1);
        // Three times the sentences on B: its gap is three times as wide.
        assert_eq!(longest_chain(&[(0, 0, 1.1), (2, 12, 1.1)], 10, 30, 4), 2);
        assert_eq!(longest_chain(&[(0, 0, 1.1), (2, 12, 1.1)], 10, 10, 4), 1);
    }
}
