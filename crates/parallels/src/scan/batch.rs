//! Building blocks of a scan split over many machines, each over a batch
//! of documents (the Spark driver of the Python package runs them per
//! partition): the library keeps what a document's fingerprint is, so that
//! a distributed run computes exactly what [`super::scan`] computes on one
//! machine (the same pieces of a dedup are [`crate::dedup::batch`]).
//!
//! * [`fingerprints`]: normalize, segment and winnow a batch of texts into
//!   seeds `(hash, token position)`, as `scan` reads its corpus;
//! * [`feature_table`]: the corpus-wide feature counts ([`CorpusDf`]) of a
//!   batch, to be summed over batches ([`add_feature_tables`]) and shared
//!   with every aligning worker;
//! * [`align_candidates`]: align a batch of candidate pairs, given each
//!   document's seeds shared with others and the corpus-wide feature
//!   table, through the very function `scan` aligns its chunks with;
//! * [`clusters`] and [`shared_share`]: the clusters of all passages and
//!   each document's share inside some passage, as `scan` assembles them;
//!   for passages too many for one machine, the clusters' pieces around
//!   the connected components: [`place_edges`] (two spans of a document
//!   that are one place) and [`cluster_members`] (a component's members
//!   and excerpt).
//!
//! Translations (the stage of `scan` in `across`), split the same way:
//!
//! * [`languages`]: each text's language, as `scan` tells it while reading;
//!   the documents counted by language, [`compared_languages`] says which
//!   languages are compared (the library's rule: two or more the encoder
//!   knows, and [`ScanOptions::across`] on);
//! * [`translation_units`]: per batch, each compared document's units and
//!   their cheap vectors, quantized to 16 bits as the bank keeps them (the
//!   costly part, in the tasks);
//! * [`translation_candidates`]: on one machine, every compared
//!   document's units in a [`Bank`] filled in document order, mined, and
//!   the candidate pairs, as `scan` finds them;
//! * [`align_translations`]: a batch of candidate pairs, their documents
//!   encoded in full and aligned by [`mine::passages::align_candidate`], as `scan`
//!   aligns its candidates (each document's rows do not depend on the
//!   documents encoded with it, so any grouping of the pairs gives the
//!   same passages).
//!
//! Every function works on the batch in parallel (rayon) and returns its
//! results in the order of the texts given.

use super::pairs::{align_prepared, ChunkDoc};
use super::{across, cluster, seeds, ScanOptions};
use crate::align::features::CorpusDf;
use crate::align::{Aligner, Passage, Prepared, Span};
use crate::encoder::{Pooled, TokenRows, DIM};
use crate::mine::knn::QVectors;
use crate::mine::{self, Bank, Candidate};
use crate::segment::Segmented;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::io;

/// The fingerprint of one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// Its length in code points.
    pub chars: u64,
    /// Its winnowed seeds `(hash, token position)`, in position order.
    pub seeds: Vec<(u64, u32)>,
}

/// The fingerprints of `texts`, with the normalization and seed
/// parameters of `opts`: the seeds `scan` sorts to find candidate pairs.
pub fn fingerprints(texts: &[&str], opts: &ScanOptions) -> Vec<Fingerprint> {
    let aligner = Aligner::new(opts.align.clone());
    texts.par_iter().map(|t| fingerprint(&aligner.prepare(t), opts)).collect()
}

/// The fingerprint of a prepared text.
fn fingerprint(p: &Prepared, opts: &ScanOptions) -> Fingerprint {
    Fingerprint { chars: p.chars as u64, seeds: seeds::seeds(&p.seg, &opts.seeds) }
}

/// What [`fingerprints`] and [`feature_table`] give, each text prepared
/// once: the pass a distributed scan makes over a part of its corpus.
pub fn fingerprints_and_table(texts: &[&str], opts: &ScanOptions) -> (Vec<Fingerprint>, CorpusDf) {
    let aligner = Aligner::new(opts.align.clone());
    let df = CorpusDf::new(opts.df_bits);
    let fps = texts
        .par_iter()
        .map(|t| {
            let p = aligner.prepare(t);
            df.add(&p.seg);
            fingerprint(&p, opts)
        })
        .collect();
    (fps, df)
}

/// The feature counts of `texts` ([`ScanOptions::df_bits`] wide), as
/// `scan` counts them while reading: one part of the corpus-wide table.
pub fn feature_table(texts: &[&str], opts: &ScanOptions) -> CorpusDf {
    let aligner = Aligner::new(opts.align.clone());
    let df = CorpusDf::new(opts.df_bits);
    texts.par_iter().for_each(|t| df.add(&aligner.prepare(t).seg));
    df
}

/// The sum of feature tables saved with [`CorpusDf::save`] (all of one
/// width), saved the same way: the corpus-wide table of a corpus read in
/// parts. Counts add up (wrapping, as counting does) as they would had one table
/// counted every part.
pub fn add_feature_tables(tables: &[Vec<u8>]) -> io::Result<Vec<u8>> {
    let mut sum: Option<CorpusDf> = None;
    for t in tables {
        let df = CorpusDf::load(&mut &t[..])?;
        match &sum {
            None => sum = Some(df),
            Some(acc) => acc.add_table(&df)?,
        }
    }
    let mut out = Vec::new();
    sum.unwrap_or_else(|| CorpusDf::new(ScanOptions::default().df_bits)).save(&mut out)?;
    Ok(out)
}

/// The non-zero counters of a feature table: the sentence count and
/// `(bucket, count)` pairs, to be summed over the parts of a corpus (a
/// distributed sum by bucket) and made a table again with
/// [`feature_table_of_counts`].
pub fn feature_counts(table: &CorpusDf) -> io::Result<(u64, Vec<(u32, u32)>)> {
    Ok((table.sentence_count(), table.nonzero_counts()))
}

/// The feature table of `bits` bits with these counts (buckets not given
/// are 0), as [`CorpusDf::from_counts`] makes it.
pub fn feature_table_of_counts(bits: u32, sentences: u64, counts: &[(u32, u64)]) -> io::Result<CorpusDf> {
    CorpusDf::from_counts(bits, sentences, counts)
}

/// The documents of a batch by the numbers a distributed scan gives them
/// (any 64-bit numbers in the corpus's order, not dense: a row's id in
/// Spark), numbered 0, 1, … in that order for the library, and back. The
/// order is kept, so every order and tie-break made by document is the
/// same.
struct Numbers(Vec<i64>);

impl Numbers {
    fn of(docs: impl IntoIterator<Item = i64>) -> Numbers {
        let mut v: Vec<i64> = docs.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        Numbers(v)
    }

    /// The library's number of the corpus's `doc`, if it is one of the batch's.
    fn local(&self, doc: i64) -> Option<u32> {
        self.0.binary_search(&doc).ok().and_then(|k| u32::try_from(k).ok())
    }

    /// The corpus's number of the library's `k`.
    fn global(&self, k: u32) -> i64 {
        self.0[k as usize]
    }
}

/// What [`group_seeds`] gives: the shared places `(doc, pos, document
/// frequency)` and the votes by pair `(a, b, votes)`.
pub type SettledSeeds = (Vec<(i64, u32, u32)>, Vec<(i64, i64, u32)>);

/// What one partition of a distributed scan's seeds gives, as
/// `scan` settles each hash (`seeds::pairs`), when the partition holds every place
/// of each of its hashes (given as `(hash, doc, pos, group)`, documents
/// numbered in the corpus's order, the group
/// `None` for a document without one; documents of one group are never
/// paired): every place of a hash in two documents or more with its
/// document frequency, sorted; and the votes of the hashes in at most
/// `max_df` documents, counted by pair `(a, b, votes)` with `a < b`,
/// sorted, to be summed over the partitions.
pub fn group_seeds(places: &[(u64, i64, u32, Option<u64>)], max_df: u32) -> SettledSeeds {
    let numbers = Numbers::of(places.iter().map(|p| p.1));
    let local = |doc| numbers.local(doc).expect("a document of the batch");
    let group: std::collections::HashMap<u32, Option<u64>> =
        places.iter().map(|&(_, doc, _, g)| (local(doc), g)).collect();
    let differ = |a: u32, b: u32| {
        let g = group[&a];
        g.is_none() || g != group[&b]
    };
    let mut sorted: Vec<seeds::Seed> =
        places.iter().map(|&(hash, doc, pos, _)| seeds::Seed { hash, doc: local(doc), pos }).collect();
    sorted.par_sort_unstable();
    let (mut shared, mut votes) = (Vec::new(), Vec::new());
    let mut docs = Vec::new();
    for run in sorted.chunk_by(|x, y| x.hash == y.hash) {
        let push_shared = |s| -> Result<(), std::convert::Infallible> {
            shared.push(s);
            Ok(())
        };
        let push_vote = |v| -> Result<(), std::convert::Infallible> {
            votes.push(v);
            Ok(())
        };
        let Ok(_) = seeds::settle_hash(run, &mut docs, max_df, differ, push_shared, push_vote);
    }
    shared.par_sort_unstable();
    votes.par_sort_unstable();
    let global = |k| numbers.global(k);
    let shared = shared.into_iter().map(|s| (global(s.doc), s.pos, s.df)).collect();
    let counted =
        votes.chunk_by(|x, y| x == y).map(|run| (global(run[0].a), global(run[0].b), run.len() as u32)).collect();
    (shared, counted)
}

/// One document of a batch of candidate pairs.
#[derive(Clone, Debug)]
pub struct PairDoc<'a> {
    /// Its number in the corpus (any number in the corpus's order; pairs
    /// are `a < b`).
    pub doc: i64,
    /// Its text.
    pub text: &'a str,
    /// Its seeds found in two documents or more of the corpus, as
    /// `(token position, document frequency)`, sorted by position.
    pub shared: Vec<(u32, u32)>,
}

/// A passage [`align_candidates`] reports.
#[derive(Clone, Debug, PartialEq)]
pub struct PairPassage {
    /// The pair's documents (their numbers, `a < b`).
    pub a: i64,
    /// See `a`.
    pub b: i64,
    /// The passage.
    pub passage: Passage,
    /// Its significance.
    pub significance: f64,
}

/// Align the candidate pairs `(a, b, shared seeds)` of a batch whose
/// documents are `docs` (every document of a pair, once), with the
/// corpus-wide feature table: the passages `scan` reports for these pairs,
/// pairs in document order (by `a`, then `b`), each pair's passages in
/// `scan`'s order. The pairs go through `scan`'s own pair aligner
/// ([`super::pairs::align_prepared`]) in `scan`'s chunks, each chunk's
/// documents prepared from the texts in memory, so a scan split over many
/// machines reports what one machine does, and nothing is written to disk.
pub fn align_candidates(
    pairs: &[(i64, i64, u32)],
    docs: &[PairDoc],
    corpus_df: &CorpusDf,
    opts: &ScanOptions,
) -> io::Result<Vec<PairPassage>> {
    let bad = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    // Local numbers in corpus order, so that `a < b` still holds.
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by_key(|&k| docs[k].doc);
    let numbers = Numbers::of(docs.iter().map(|d| d.doc));
    if numbers.0.len() != docs.len() {
        return Err(bad("a document is given twice".into()));
    }
    let local = |d: i64| numbers.local(d).ok_or(());
    let mut local_pairs = Vec::with_capacity(pairs.len());
    for &(a, b, k) in pairs {
        match (local(a), local(b)) {
            (Ok(x), Ok(y)) if a < b => local_pairs.push((x, y, k)),
            (Ok(_), Ok(_)) => return Err(bad(format!("pair ({a}, {b}): a pair is given as a < b"))),
            _ => return Err(bad(format!("pair ({a}, {b}): a document of the pair is not in the batch"))),
        }
    }
    // In chunks, as `scan` aligns its candidates: a chunk's documents are
    // prepared and held together (memory bounded by the chunk, not the
    // batch), pairs in document order so that a chunk needs few.
    local_pairs.sort_unstable();
    let aligner = Aligner::new(opts.align.clone());
    let mut out = Vec::new();
    for part in local_pairs.chunks(opts.chunk.max(1)) {
        let mut needed: Vec<u32> = part.iter().flat_map(|&(a, b, _)| [a, b]).collect();
        needed.sort_unstable();
        needed.dedup();
        let prepared: Vec<ChunkDoc> = needed
            .par_iter()
            .map(|&l| {
                let d = &docs[order[l as usize]];
                // By position, then frequency: as `scan` sorts its records.
                let mut shared = d.shared.clone();
                shared.sort_unstable();
                ChunkDoc::prepare(d.text.to_owned(), &shared, &aligner, opts)
            })
            .collect();
        let cache: FxHashMap<u32, ChunkDoc> = needed.into_iter().zip(prepared).collect();
        for x in align_prepared(part, cache, &aligner, corpus_df, opts, &|| false) {
            for (passage, significance) in x.passages.into_iter().zip(x.significance) {
                out.push(PairPassage { a: numbers.global(x.a), b: numbers.global(x.b), passage, significance });
            }
        }
    }
    Ok(out)
}

/// The clusters of passages given as `(a, span in a, b, span in b)`, as
/// `scan` makes them: each passage's cluster, and each cluster's members
/// `(document, span)` sorted, and the span of its excerpt (the first 200
/// characters of its longest member, the first of equals).
pub type ClusterParts = (Vec<u32>, Vec<Vec<(i64, Span)>>, Vec<(i64, Span)>);

/// See [`ClusterParts`].
pub fn clusters(passages: &[(i64, Span, i64, Span)]) -> ClusterParts {
    let numbers = Numbers::of(passages.iter().flat_map(|p| [p.0, p.2]));
    let local = |d| numbers.local(d).expect("a document of the passages");
    let passages: Vec<_> = passages.iter().map(|&(a, s, b, t)| (local(a), s, local(b), t)).collect();
    let c = cluster::cluster(&passages);
    let excerpts = c
        .members
        .iter()
        .map(|members| {
            let m = cluster::excerpt(members).expect("a cluster has members");
            (numbers.global(m.doc), m.span)
        })
        .collect();
    let members =
        c.members.into_iter().map(|ms| ms.into_iter().map(|m| (numbers.global(m.doc), m.span)).collect()).collect();
    (c.of_passage, members, excerpts)
}

/// The clusters' pieces for passages too many for one machine, where the
/// connected components are found elsewhere (a distributed driver's
/// iterations). `nodes` are the spans `(document, span, node)` of one
/// document or more: every two of one document that are one place (as
/// [`clusters`] joins them), as pairs of their nodes.
pub fn place_edges(nodes: &[(i64, Span, i64)]) -> Vec<(i64, i64)> {
    let numbers = Numbers::of(nodes.iter().map(|n| n.0));
    let mut local: Vec<(u32, Span, i64)> =
        nodes.iter().map(|&(d, s, n)| (numbers.local(d).expect("a document of the nodes"), s, n)).collect();
    local.sort_unstable();
    let mut edges = Vec::new();
    cluster::for_each_place(&local, |x, y| edges.push((x, y)));
    edges
}

/// A span of a document: `(document, span)`.
pub type Place = (i64, Span);

/// The members of one cluster made of the spans `(document, span)` of its
/// passages' sides (any order), as [`clusters`] gives them (sorted, the
/// overlapping spans of a document merged), with its excerpt's span.
pub fn cluster_members(spans: &[(i64, Span)]) -> (Vec<Place>, Option<Place>) {
    let numbers = Numbers::of(spans.iter().map(|s| s.0));
    let mut local: Vec<(u32, Span)> =
        spans.iter().map(|&(d, s)| (numbers.local(d).expect("a document of the spans"), s)).collect();
    local.sort_unstable();
    let mut members = Vec::new();
    for (doc, span) in local {
        cluster::push_member(&mut members, doc, span);
    }
    let excerpt = cluster::excerpt(&members).map(|m| (numbers.global(m.doc), m.span));
    (members.into_iter().map(|m| (numbers.global(m.doc), m.span)).collect(), excerpt)
}

/// The share of a document inside its passages, as the documents table
/// gives it.
pub use super::cluster::shared_share;

/// The language of each text, as `scan` tells it while reading
/// ([`mine::language`]).
pub fn languages(texts: &[&str]) -> Vec<Option<&'static str>> {
    texts.par_iter().map(|t| mine::language(t)).collect()
}

/// The languages `scan` compares for translations, with their document
/// counts, given the corpus's documents counted by language (`None`: no
/// language told; a language given more than once has its counts added):
/// the languages the encoder knows, when there are two or more of them and
/// [`ScanOptions::across`] is on; none otherwise (nothing is encoded then).
pub fn compared_languages(counts: &[(Option<&str>, u64)], opts: &ScanOptions) -> BTreeMap<String, u64> {
    if !opts.across {
        return BTreeMap::new();
    }
    let mut summed: BTreeMap<Option<&str>, u64> = BTreeMap::new();
    for &(l, n) in counts.iter().filter(|c| c.1 > 0) {
        let sum = summed.entry(l).or_default();
        *sum = sum.saturating_add(n);
    }
    // The rule asks which languages are present, each once; the counts
    // are the sums.
    let mut compared = across::compared_languages(summed.keys().copied());
    for (l, n) in compared.iter_mut() {
        *n = summed.get(&Some(l.as_str())).copied().unwrap_or_default();
    }
    compared
}

/// Bytes of text prepared and read together when units are read or
/// documents encoded: the encoder's batches full on every core, the
/// prepared texts and pooled rows of one part small.
const ENCODE_BYTES: usize = 1 << 20;

/// What one document compared for translations puts in the bank.
#[derive(Clone, Debug)]
pub struct DocUnits {
    /// Its language.
    pub language: &'static str,
    /// Its sentences (what the gap of a chain is scaled by).
    pub sentences: u32,
    /// Its units ([`mine::units`]), by sentence number.
    pub units: Vec<u32>,
    /// Their cheap vectors ([`mine::bag_units`]), quantized as
    /// [`Bank::push`] quantizes them, in the same order.
    pub vectors: QVectors,
}

/// Each text's units and their cheap vectors when its language is one of
/// `compared` ([`compared_languages`]), `None` otherwise: what `scan`
/// pushes into its bank, each text prepared by the aligner of
/// translations.
pub fn translation_units(texts: &[&str], compared: &[&str], opts: &ScanOptions) -> Vec<Option<DocUnits>> {
    let aligner = across::aligner(opts);
    let langs = languages(texts);
    let chosen: Vec<(usize, &'static str)> =
        langs.iter().enumerate().filter_map(|(k, l)| l.filter(|l| compared.contains(l)).map(|l| (k, l))).collect();
    let mut out: Vec<Option<DocUnits>> = vec![None; texts.len()];
    let mut rows = TokenRows::new();
    for part in parts_of(&chosen, |&(k, _)| texts[k].len()) {
        let prepared: Vec<Prepared> = part.par_iter().map(|&(k, _)| aligner.prepare(texts[k])).collect();
        let input: Vec<(&str, &Segmented)> =
            part.iter().zip(&prepared).map(|(&(k, _), p)| (texts[k], &p.seg)).collect();
        let bags = mine::bag_units(&input, opts.mine.min_tokens, &mut rows);
        for ((&(k, language), p), (units, vectors)) in part.iter().zip(&prepared).zip(bags) {
            let mut q = QVectors::new();
            for row in vectors.rows() {
                q.push(row);
            }
            out[k] = Some(DocUnits { language, sentences: p.seg.sentences.len() as u32, units, vectors: q });
        }
    }
    out
}

/// `items` in consecutive parts of about [`ENCODE_BYTES`] (by `bytes`).
fn parts_of<T>(items: &[T], bytes: impl Fn(&T) -> usize) -> Vec<&[T]> {
    let mut out = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (k, x) in items.iter().enumerate() {
        size += bytes(x);
        if size >= ENCODE_BYTES || k + 1 == items.len() {
            out.push(&items[start..=k]);
            (start, size) = (k + 1, 0);
        }
    }
    out
}

/// A compared document as [`translation_candidates`] takes it: its number
/// (any number in the corpus's order), language and sentence count.
pub type UnitsDoc<'a> = (i64, &'a str, u32);

/// A unit as [`translation_candidates`] takes it: its document's number,
/// its sentence, its quantized row ([`DIM`] values) and scale.
pub type UnitRow<'a> = (i64, u32, &'a [i16], f32);

/// A candidate pair of documents across languages, by the corpus's
/// document numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct TranslationCandidate {
    /// The document with the smaller number.
    pub a: i64,
    /// The other.
    pub b: i64,
    /// Its mined sentence pairs: sentence of `a`, sentence of `b`, margin.
    pub pairs: Vec<(u32, u32, f32)>,
    /// The mined pairs of its longest chain.
    pub chain: usize,
}

/// The candidate pairs across languages of a corpus whose compared
/// documents are `docs` (every one, once; [`translation_units`] gives
/// them) with the units `units` (any order): the bank filled in document
/// order, each document's units by sentence, then mined as `scan` mines
/// it, so a scan split over many machines finds the candidates one machine
/// does. Pairs by `a`, then `b`.
pub fn translation_candidates(
    docs: &[UnitsDoc],
    units: &[UnitRow],
    opts: &ScanOptions,
) -> io::Result<Vec<TranslationCandidate>> {
    let bad = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    let numbers = Numbers::of(docs.iter().map(|d| d.0));
    if numbers.0.len() != docs.len() {
        return Err(bad("a document is given twice".into()));
    }
    let mut language = vec![""; docs.len()];
    let mut sentences: FxHashMap<u32, u32> = FxHashMap::default();
    for &(doc, lang, n) in docs {
        let l = numbers.local(doc).ok_or_else(|| bad(format!("document {doc}: too many documents")))?;
        language[l as usize] = lang;
        sentences.insert(l, n);
    }
    let mut order: Vec<(u32, u32, usize)> = Vec::with_capacity(units.len());
    for (k, &(doc, sentence, row, _)) in units.iter().enumerate() {
        let l = numbers.local(doc).ok_or_else(|| bad(format!("a unit of document {doc}, which is not given")))?;
        if row.len() != DIM {
            return Err(bad(format!("document {doc}, sentence {sentence}: a row of {} values, not {DIM}", row.len())));
        }
        order.push((l, sentence, k));
    }
    order.par_sort_unstable();
    if let Some(w) = order.windows(2).find(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1)) {
        return Err(bad(format!("document {}, sentence {}: a unit given twice", numbers.global(w[0].0), w[0].1)));
    }
    let mut bank = Bank::new();
    for &(l, sentence, k) in &order {
        let (_, _, row, scale) = units[k];
        bank.push_quantized(language[l as usize], l, sentence, row, scale);
    }
    drop(order);
    Ok(across::candidates_of(bank, &sentences, opts)
        .into_iter()
        .map(|c| TranslationCandidate {
            a: numbers.global(c.a),
            b: numbers.global(c.b),
            pairs: c.pairs,
            chain: c.chain,
        })
        .collect())
}

/// Align a batch of candidate pairs across languages whose documents are
/// `docs` (number and text; every document of a pair, once): each
/// document prepared by the aligner of translations and encoded in full
/// once, each pair aligned by [`mine::passages::align_candidate`]; the passages
/// `scan` reports for these pairs (every one, whatever the lexical
/// reporting bar), pairs by `a`, then `b`, each pair's passages in
/// `scan`'s order. Memory holds the pooled rows of the batch's documents
/// (2 KB a sentence).
pub fn align_translations(
    candidates: &[TranslationCandidate],
    docs: &[(i64, &str)],
    opts: &ScanOptions,
) -> io::Result<Vec<PairPassage>> {
    let bad = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    let numbers = Numbers::of(docs.iter().map(|d| d.0));
    if numbers.0.len() != docs.len() {
        return Err(bad("a document is given twice".into()));
    }
    let mut text = vec![""; docs.len()];
    for &(doc, t) in docs {
        text[numbers.local(doc).ok_or_else(|| bad(format!("document {doc}: too many documents")))? as usize] = t;
    }
    let mut local: Vec<Candidate> = Vec::with_capacity(candidates.len());
    for c in candidates {
        match (numbers.local(c.a), numbers.local(c.b)) {
            (Some(a), Some(b)) if c.a < c.b => local.push(Candidate { a, b, pairs: c.pairs.clone(), chain: c.chain }),
            (Some(_), Some(_)) => return Err(bad(format!("pair ({}, {}): a pair is given as a < b", c.a, c.b))),
            _ => return Err(bad(format!("pair ({}, {}): a document of the pair is not in the batch", c.a, c.b))),
        }
    }
    local.sort_by_key(|c| (c.a, c.b));
    let mut needed: Vec<u32> = local.iter().flat_map(|c| [c.a, c.b]).collect();
    needed.sort_unstable();
    needed.dedup();
    let aligner = across::aligner(opts);
    let mut encoded: FxHashMap<u32, (Prepared, Pooled)> = FxHashMap::default();
    for part in parts_of(&needed, |&d| text[d as usize].len()) {
        let prepared: Vec<Prepared> = part.par_iter().map(|&d| aligner.prepare(text[d as usize])).collect();
        let input: Vec<(&str, &Segmented)> =
            part.iter().zip(&prepared).map(|(&d, p)| (text[d as usize], &p.seg)).collect();
        let pooled = mine::pooled(&input);
        encoded.extend(part.iter().copied().zip(prepared.into_iter().zip(pooled)));
    }
    let found: Vec<Vec<PairPassage>> = local
        .par_iter()
        .map(|c| {
            let ((pa, ea), (pb, eb)) = (&encoded[&c.a], &encoded[&c.b]);
            let (a, b) = (numbers.global(c.a), numbers.global(c.b));
            mine::passages::align_candidate(&aligner, c, (pa, ea), (pb, eb))
                .into_iter()
                .map(|(passage, significance)| PairPassage { a, b, passage, significance })
                .collect()
        })
        .collect();
    Ok(found.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plumbing::sort::Sorter;
    use crate::scan::Reporting;

    /// Pseudo-random numbers below `m` (a linear congruential generator
    /// from `seed`): test data the same on every run.
    fn numbers_below(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |m| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        }
    }

    const A: &str = "天下大势，分久必合，合久必分。周末七国分争，并入于秦。及秦灭之后，楚、汉分争，又并入于汉。";
    const B: &str = "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。";

    #[test]
    fn a_partition_of_seeds_settles_as_the_scan_does() {
        // Seeds of 40 documents (some in groups), their hashes in one
        // partition, given in no order: the shared places and the votes by
        // pair of `group_seeds` are those of `seeds::pairs` over the sorted
        // seeds (every pair with at least one vote).
        let mut next = numbers_below(7);
        let group: Vec<u32> = (0..40).map(|d| if d % 3 == 0 { u32::MAX } else { d % 4 }).collect();
        let mut all = Vec::new();
        for doc in 0..40u32 {
            for pos in 0..60u32 {
                all.push(seeds::Seed { hash: next(300), doc, pos });
            }
        }
        let params = seeds::SeedParams { max_df: 6, min_seeds: 1, ..Default::default() };
        let dir = tempfile::tempdir().unwrap();
        let mut sorted = all.clone();
        sorted.sort();
        let mut shared = Sorter::new(dir.path(), "df", 1 << 10);
        let (want, _) =
            seeds::pairs(sorted.into_iter().map(Ok), &group, &params, dir.path(), 1 << 10, &mut shared).unwrap();
        let want_shared: Vec<seeds::SeedDf> = shared.finish().unwrap().map(Result::unwrap).collect();
        // Documents numbered as a distributed scan numbers them: in order,
        // not dense.
        let number = |d: u32| (i64::from(d) << 33) + 5;
        let places: Vec<_> = all
            .iter()
            .rev()
            .map(|s| {
                (s.hash, number(s.doc), s.pos, Some(group[s.doc as usize]).filter(|&g| g != u32::MAX).map(u64::from))
            })
            .collect();
        let (got_shared, got) = group_seeds(&places, params.max_df);
        let want_shared: Vec<(i64, u32, u32)> = want_shared.iter().map(|s| (number(s.doc), s.pos, s.df)).collect();
        let want: Vec<(i64, i64, u32)> = want.iter().map(|&(a, b, k)| (number(a), number(b), k)).collect();
        assert!(want.len() > 50 && want_shared.len() > 500, "{} {}", want.len(), want_shared.len());
        assert_eq!(got, want);
        assert_eq!(got_shared, want_shared);
    }

    #[test]
    fn fingerprints_are_the_seeds_of_each_prepared_text() {
        let opts = ScanOptions::default();
        let got = fingerprints(&[A, B, ""], &opts);
        let aligner = Aligner::new(opts.align.clone());
        for (t, f) in [A, B, ""].iter().zip(&got) {
            let p = aligner.prepare(t);
            assert_eq!(f.chars, t.chars().count() as u64);
            assert_eq!(f.seeds, seeds::seeds(&p.seg, &opts.seeds));
        }
        assert!(!got[0].seeds.is_empty() && got[2].seeds.is_empty());
        // A and B share seeds where they share text.
        let shared = got[0].seeds.iter().filter(|(h, _)| got[1].seeds.iter().any(|(g, _)| g == h)).count();
        assert!(shared > 0);
    }

    #[test]
    fn one_pass_gives_the_fingerprints_and_the_feature_table() {
        let opts = ScanOptions { df_bits: 10, ..ScanOptions::default() };
        let (fps, df) = fingerprints_and_table(&[A, B, ""], &opts);
        assert_eq!(fps, fingerprints(&[A, B, ""], &opts));
        let save = |t: &CorpusDf| {
            let mut out = Vec::new();
            t.save(&mut out).unwrap();
            out
        };
        assert_eq!(save(&df), save(&feature_table(&[A, B, ""], &opts)));
        assert!(df.sentence_count() > 0);
    }

    #[test]
    fn feature_tables_of_parts_add_up_to_the_whole() {
        let opts = ScanOptions { df_bits: 10, ..ScanOptions::default() };
        let save = |df: CorpusDf| {
            let mut out = Vec::new();
            df.save(&mut out).unwrap();
            out
        };
        let whole = save(feature_table(&[A, B, A], &opts));
        let parts = [save(feature_table(&[A], &opts)), save(feature_table(&[B, A], &opts))];
        assert_eq!(add_feature_tables(&parts).unwrap(), whole);
        let other = save(feature_table(&[A], &ScanOptions { df_bits: 11, ..opts }));
        assert!(add_feature_tables(&[parts[0].clone(), other]).is_err());
    }

    #[test]
    fn candidate_pairs_align_through_the_scan_aligner() {
        let opts = ScanOptions { df_bits: 12, report: Reporting::default().every_passage(), ..ScanOptions::default() };
        let (x, y) = (format!("{A}{A}{B}"), format!("无关的开头。{A}"));
        let texts = [x.as_str(), y.as_str()];
        let df = feature_table(&texts, &opts);
        let docs = [
            PairDoc { doc: 9, text: texts[1], shared: Vec::new() },
            PairDoc { doc: 4, text: texts[0], shared: Vec::new() },
        ];
        let got = align_candidates(&[(4, 9, 5)], &docs, &df, &opts).unwrap();
        assert!(!got.is_empty());
        assert!(got.iter().all(|p| (p.a, p.b) == (4, 9)));
        // The passage of B holds A's text, after the unrelated opening.
        let p = &got[0].passage;
        assert_eq!(p.b[0], "无关的开头。".chars().count() as u32);
        assert!(align_candidates(&[(9, 4, 5)], &docs, &df, &opts).is_err());
        assert!(align_candidates(&[(4, 7, 5)], &docs, &df, &opts).is_err());
    }

    #[test]
    fn clusters_join_passages_by_their_spans() {
        // (Documents numbered in order, not densely.)
        let (x, y, z) = (3, 1 << 33, (1 << 34) + 7);
        let (of, members, excerpts) = clusters(&[(x, [0, 10], y, [5, 15]), (y, [6, 15], z, [0, 300])]);
        assert_eq!(of, vec![0, 0]);
        assert_eq!(members[0], vec![(x, [0, 10]), (y, [5, 15]), (z, [0, 300])]);
        assert_eq!(excerpts, vec![(z, [0, 200])]);
        assert_eq!(shared_share(20, vec![[0, 5], [3, 10]]), 0.5);
    }

    #[test]
    fn clusters_from_their_pieces_are_the_clusters() {
        // Random passages among a few documents (numbered sparsely): the
        // components of the passages' sides joined by `place_edges`, each
        // made into members by `cluster_members`, are `clusters`' own.
        let mut next = numbers_below(11);
        for round in 0..20 {
            let docs = 2 + round % 5;
            let passages: Vec<(i64, Span, i64, Span)> = (0..5 + round * 3)
                .map(|_| {
                    let (a, b) = (next(docs) as i64, next(docs) as i64);
                    let (s, t) = (next(300) as u32, next(300) as u32);
                    let (s, t) = ([s, s + 1 + next(120) as u32], [t, t + 1 + next(120) as u32]);
                    ((a << 20) + 9, s, (b << 20) + 9, t)
                })
                .collect();
            let (of, members, excerpts) = clusters(&passages);
            // Nodes 2k and 2k + 1: the sides of passage k.
            let nodes: Vec<(i64, Span, i64)> = passages
                .iter()
                .enumerate()
                .flat_map(|(k, &(a, s, b, t))| [(a, s, 2 * k as i64), (b, t, 2 * k as i64 + 1)])
                .collect();
            let mut uf = crate::plumbing::UnionFind::new(nodes.len());
            for k in 0..passages.len() as u32 {
                uf.union(2 * k, 2 * k + 1);
            }
            for (x, y) in place_edges(&nodes) {
                uf.union(x as u32, y as u32);
            }
            let mut by_root: std::collections::BTreeMap<u32, Vec<Place>> = Default::default();
            for &(d, s, n) in &nodes {
                by_root.entry(uf.find(n as u32)).or_default().push((d, s));
            }
            let mut got: Vec<(Vec<Place>, Place)> = by_root
                .values()
                .map(|spans| {
                    let (m, e) = cluster_members(spans);
                    (m, e.unwrap())
                })
                .collect();
            got.sort();
            let mut want: Vec<(Vec<Place>, Place)> = members.into_iter().zip(excerpts).collect();
            want.sort();
            assert_eq!(got, want, "round {round}");
            assert_eq!(of.len(), passages.len());
        }
        assert_eq!(cluster_members(&[]), (Vec::new(), None));
    }

    /// A corpus in two languages: the English rendering of paragraphs of
    /// the bundled Chinese example, the example, another version of it,
    /// and Mark in English with one of the rendered paragraphs inside.
    fn two_languages() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
        let en = read("examples/v1.en.txt");
        let mark: Vec<char> = read("eval/en-bible/mark_kjv.txt").chars().take(9000).collect();
        let paragraph = en.split("\n\n").nth(3).unwrap().trim().to_owned();
        let host = format!(
            "{}\n\n{paragraph}\n\n{}",
            mark[..5000].iter().collect::<String>(),
            mark[5000..].iter().collect::<String>()
        );
        vec![en, host, read("examples/v1.txt"), read("examples/v2.txt")]
    }

    #[test]
    fn translations_found_in_pieces_are_the_scans() {
        // The scan on one machine.
        let texts = two_languages();
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let p = dir.path().join(format!("{k}.txt"));
                std::fs::write(&p, t).unwrap();
                p.to_str().unwrap().to_owned()
            })
            .collect();
        let inputs = crate::corpus::resolve(&paths).unwrap();
        let corpus = crate::corpus::CorpusOptions::default();
        let work = super::super::Work {
            dir: dir.path().join("work"),
            key: super::super::InputKey::new(&inputs, &corpus),
            resume: false,
        };
        let mut reader = crate::corpus::CorpusReader::new(inputs, corpus).unwrap();
        let opts = ScanOptions::default();
        let result = super::super::scan(&mut reader, &opts, &work, &crate::plumbing::Quiet).unwrap();
        let ids: Vec<String> = result.documents.iter().map(|d| d.id.clone()).collect();
        let want = result.passages.to_vec().unwrap();

        // The pieces, over documents numbered sparsely, in two batches.
        let number = |k: usize| ((k as i64) << 33) + 3;
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let langs = languages(&refs);
        assert_eq!(langs, [Some("en"), Some("en"), Some("zh"), Some("zh")]);
        let counts: Vec<(Option<&str>, u64)> = langs.iter().map(|&l| (l, 1)).collect();
        let compared = compared_languages(&counts, &opts);
        assert_eq!(compared, BTreeMap::from([("en".to_owned(), 2), ("zh".to_owned(), 2)]));
        let keys: Vec<&str> = compared.keys().map(String::as_str).collect();
        let units: Vec<Option<DocUnits>> =
            [&refs[..1], &refs[1..]].into_iter().flat_map(|part| translation_units(part, &keys, &opts)).collect();
        let docs: Vec<UnitsDoc> = units
            .iter()
            .enumerate()
            .map(|(k, u)| (number(k), u.as_ref().unwrap().language, u.as_ref().unwrap().sentences))
            .collect();
        // Units in no order.
        let mut rows: Vec<UnitRow> = Vec::new();
        for (k, u) in units.iter().enumerate().rev() {
            let u = u.as_ref().unwrap();
            for (i, &s) in u.units.iter().enumerate() {
                rows.push((number(k), s, u.vectors.row(i), u.vectors.scale(i)));
            }
        }
        rows.reverse();
        rows.swap(0, 1);
        let candidates = translation_candidates(&docs, &rows, &opts).unwrap();
        // Each pair aligned in a batch of its own.
        let with_texts: Vec<(i64, &str)> = refs.iter().enumerate().map(|(k, &t)| (number(k), t)).collect();
        let mut got = Vec::new();
        for c in &candidates {
            let docs: Vec<(i64, &str)> = with_texts.iter().copied().filter(|&(d, _)| d == c.a || d == c.b).collect();
            got.extend(align_translations(std::slice::from_ref(c), &docs, &opts).unwrap());
        }
        // The translation and the paragraph inside Mark, as the scan reports
        // them (the pairs with passages by meaning, in order).
        let pairs: Vec<(i64, i64)> = got.iter().map(|p| (p.a, p.b)).collect();
        assert!(pairs.contains(&(number(0), number(2))) && pairs.contains(&(number(1), number(2))), "{pairs:?}");
        let local = |d: i64| (d >> 33) as usize;
        let want: Vec<_> = want
            .into_iter()
            .filter(|p| {
                pairs
                    .iter()
                    .any(|&(a, b)| (ids[local(a)].as_str(), ids[local(b)].as_str()) == (&p.a_doc[..], &p.b_doc[..]))
            })
            .map(|p| (p.a_doc, p.b_doc, p.passage, p.significance))
            .collect();
        let got: Vec<_> = got
            .into_iter()
            .map(|p| (ids[local(p.a)].clone(), ids[local(p.b)].clone(), p.passage, p.significance))
            .collect();
        assert_eq!(got, want);
        // In one batch, the same.
        let all = align_translations(&candidates, &with_texts, &opts).unwrap();
        assert_eq!(all.len(), got.len());

        // Translations off, or one language: nothing compared.
        let off = ScanOptions { across: false, ..ScanOptions::default() };
        assert!(compared_languages(&counts, &off).is_empty());
        assert!(compared_languages(&[(Some("zh"), 3), (None, 2), (Some("epo"), 4)], &opts).is_empty());
        assert!(compared_languages(&[(Some("zh"), 3), (Some("en"), 0)], &opts).is_empty());
        let summed = compared_languages(&[(Some("zh"), 3), (Some("en"), 1), (Some("zh"), u64::MAX), (None, 9)], &opts);
        assert_eq!(summed, BTreeMap::from([("en".to_owned(), 1), ("zh".to_owned(), u64::MAX)]));
        // Bad input is an error, not a panic.
        let (zero, short) = ([0i16; DIM], [0i16; 3]);
        let stranger: UnitRow = (number(9), 0, &zero, 1.0);
        let cut: UnitRow = (number(0), 0, &short, 1.0);
        assert!(translation_candidates(&docs, &[stranger], &opts).is_err());
        assert!(translation_candidates(&docs, &[cut], &opts).is_err());
        assert!(translation_candidates(&docs, &[rows[0], rows[0]], &opts).is_err());
        if let Some(c) = candidates.first() {
            let turned = TranslationCandidate { a: c.b, b: c.a, ..c.clone() };
            assert!(align_translations(&[turned], &with_texts, &opts).is_err());
            assert!(align_translations(std::slice::from_ref(c), &with_texts[..1], &opts).is_err());
        }
    }

    #[test]
    fn feature_counts_make_the_table_again() {
        let opts = ScanOptions { df_bits: 10, ..ScanOptions::default() };
        let df = feature_table(&[A, B], &opts);
        let (sentences, counts) = feature_counts(&df).unwrap();
        let wide: Vec<(u32, u64)> = counts.iter().map(|&(k, n)| (k, n as u64)).collect();
        let again = feature_table_of_counts(10, sentences, &wide).unwrap();
        let save = |t: &CorpusDf| {
            let mut out = Vec::new();
            t.save(&mut out).unwrap();
            out
        };
        assert_eq!(save(&again), save(&df));
        assert!(feature_table_of_counts(10, 0, &[(1 << 10, 1)]).is_err());
    }
}
