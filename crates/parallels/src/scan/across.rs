//! Translations: the stage of a scan that finds documents (and passages
//! inside documents) that translate each other, by meaning.
//!
//! Shared n-grams give no candidates between two languages, so this stage
//! gets its own from [`crate::mine`]: every sentence of the documents in
//! languages the encoder knows is read cheaply as a bag of its tokens,
//! sentence pairs are mined across languages by margin, and pairs of
//! documents with a chain of mined pairs are encoded in full and aligned
//! here by the aligner with meaning on ([`Aligner::align_encoded`]: each
//! candidate document is encoded once, its sentences' pooled rows stored
//! and read back for every pair it is in), which links them completely
//! where they are versions of one another and finds nothing where the
//! mined pairs were chance.
//!
//! It runs only when the corpus holds two or more languages the encoder
//! knows (and [`ScanOptions::across`] is on): a corpus in one language is
//! read, fingerprinted and aligned as if this stage did not exist.
//!
//! # Checkpoints
//!
//! `pooled.bin` (every sentence of the candidates' documents: its token
//! count and pooled row, as little-endian `f32`s, document after
//! document), then `across.json` (the languages, the place of each
//! candidate document's rows, the candidates);
//! the aligned candidates go to `across.NNNNNN.jsonl`, one per chunk, as
//! the lexical candidates go to `aligned.NNNNNN.jsonl`.
//!
//! # What is reported
//!
//! Every passage the aligner keeps between the two documents (a chain of
//! anchors that stand out from the pair's background, then completed;
//! copies inside the pair too, so the lexical stage leaves a pair with
//! passages here alone). A
//! cross-language passage's significance is the sum of its links' scores
//! (their meaning, a cosine each): shared rare tokens, what a lexical
//! passage's significance counts, say nothing across languages.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::store::read_text;
use super::work::{read_json, DocRecord};
use super::{Aligned, ScanOptions};
use crate::align::{Aligner, Options, Prepared};
use crate::encoder::{Pooled, TokenRows, DIM};
use crate::mine::passages::align_candidate;
use crate::mine::{self, Bank, Candidate};
use crate::plumbing::{read_exact_at, write_atomic, AtomicFile, Progress};
use crate::segment::Segmented;

/// Characters of text prepared and encoded together: enough sentences
/// that the encoder's batches are full on every core, few enough that the
/// batch's pooled rows (2 KB a sentence) stay small.
const BATCH_CHARS: usize = 400_000;

/// What the stage leaves in `across.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Across {
    /// Documents compared, by language.
    pub(super) languages: BTreeMap<String, u64>,
    /// Sentences compared (units read as bags of tokens).
    pub(super) sentences: u64,
    /// Sentences encoded in full: those of the candidates' documents.
    pub(super) encoded: u64,
    /// Each candidate document's rows in `pooled.bin`: document, byte
    /// offset, sentences.
    pub(super) rows: Vec<(u32, u64, u32)>,
    /// The candidate pairs, by document numbers.
    pub(super) candidates: Vec<Candidate>,
}

/// The aligner of cross-language candidates: the scan's normalization and
/// sentences, `align`'s defaults otherwise, meaning on.
pub(super) fn aligner(opts: &ScanOptions) -> Aligner {
    Aligner::new(Options {
        normalize: opts.align.normalize.clone(),
        sentences: opts.align.sentences,
        meaning: true,
        ..Options::default()
    })
}

/// The languages the documents are compared in (each document's
/// language, in order): those the encoder knows, when there are two or
/// more of them; with their document counts.
pub(super) fn compared_languages<'a>(docs: impl IntoIterator<Item = Option<&'a str>>) -> BTreeMap<String, u64> {
    let mut langs: BTreeMap<String, u64> = BTreeMap::new();
    for l in docs.into_iter().flatten().filter(|l| mine::encoder_knows(l)) {
        *langs.entry(l.to_owned()).or_default() += 1;
    }
    if langs.len() < 2 {
        langs.clear();
    }
    langs
}

/// The candidate pairs of a bank holding every compared document's units
/// (pushed in document order), `sentences` giving each compared
/// document's sentence count: what a scan aligns across languages,
/// whether the bank was filled here or from a distributed scan's tasks.
pub(super) fn candidates_of(mut bank: Bank, sentences: &FxHashMap<u32, u32>, opts: &ScanOptions) -> Vec<Candidate> {
    bank.finish();
    let mined = mine::mine(&bank, &opts.mine);
    drop(bank);
    mine::candidates(&mined, &|d| sentences.get(&d).copied().unwrap_or(0), &opts.mine)
}

/// What an interrupted run left, if it finished this stage.
pub(super) fn take_over(dir: &Path) -> Option<Across> {
    read_json::<Across>(&dir.join("across.json"))
}

/// Read every sentence as a bag of tokens, mine and find the candidate
/// pairs, then encode the candidates' documents in full; `None` when the
/// corpus holds fewer than two languages the encoder knows (nothing is
/// encoded then).
pub(super) fn run(
    docs: &[DocRecord],
    texts: &File,
    opts: &ScanOptions,
    aligner: &Aligner,
    dir: &Path,
    progress: &dyn Progress,
) -> io::Result<Option<Across>> {
    let languages = compared_languages(docs.iter().map(|d| d.language.as_deref()));
    if !opts.across || languages.is_empty() {
        return Ok(None);
    }
    let compared: Vec<u32> = (0..docs.len() as u32)
        .filter(|&d| docs[d as usize].language.as_deref().is_some_and(|l| languages.contains_key(l)))
        .collect();
    // 1. Every unit's cheap vector, by language.
    progress.stage("reading sentences across languages", Some(compared.len() as u64));
    let mut bank = Bank::new();
    let mut token_rows = TokenRows::new();
    let mut sentences: FxHashMap<u32, u32> = FxHashMap::default();
    for batch in batches(&compared, docs) {
        let prepared = prepare(batch, docs, texts, aligner)?;
        let input: Vec<(&str, &Segmented)> = prepared.iter().map(|(t, p)| (t.as_str(), &p.seg)).collect();
        let bags = mine::bag_units(&input, opts.mine.min_tokens, &mut token_rows);
        for ((&d, (units, vectors)), (_, p)) in batch.iter().zip(&bags).zip(&prepared) {
            let lang = docs[d as usize].language.as_deref().unwrap_or_default();
            sentences.insert(d, p.seg.sentences.len() as u32);
            for (k, &s) in units.iter().enumerate() {
                bank.push(lang, d, s, vectors.row(k));
            }
        }
        progress.advance(batch.len() as u64);
    }
    drop(token_rows);
    let compared_sentences = bank.len() as u64;
    // 2. Mined pairs and the candidates they make.
    progress.stage("pairing sentences across languages", None);
    let candidates = candidates_of(bank, &sentences, opts);
    // 3. The candidates' documents encoded in full, for their alignment.
    let mut needed: Vec<u32> = candidates.iter().flat_map(|c| [c.a, c.b]).collect();
    needed.sort_unstable();
    needed.dedup();
    progress.stage("encoding candidate documents", Some(needed.len() as u64));
    let mut pooled = BufWriter::with_capacity(1 << 20, AtomicFile::create(&dir.join("pooled.bin"))?);
    let mut at = 0u64;
    let mut rows = Vec::with_capacity(needed.len());
    for batch in batches(&needed, docs) {
        let prepared = prepare(batch, docs, texts, aligner)?;
        let input: Vec<(&str, &Segmented)> = prepared.iter().map(|(t, p)| (t.as_str(), &p.seg)).collect();
        for (&d, e) in batch.iter().zip(mine::pooled(&input)) {
            let n = e.len() as u32;
            rows.push((d, at, n));
            for (row, &t) in e.rows().zip(e.tokens()) {
                pooled.write_all(&t.to_le_bytes())?;
                for x in row {
                    pooled.write_all(&x.to_le_bytes())?;
                }
            }
            at += u64::from(n) * (DIM as u64 + 1) * 4;
        }
        progress.advance(batch.len() as u64);
    }
    pooled.into_inner().map_err(|e| e.into_error())?.commit()?;
    let encoded = rows.iter().map(|&(_, _, n)| u64::from(n)).sum();
    let across = Across { languages, sentences: compared_sentences, encoded, rows, candidates };
    write_atomic(&dir.join("across.json"), &serde_json::to_vec(&across)?)?;
    Ok(Some(across))
}

/// `docs` (document numbers, in order) in batches of about
/// [`BATCH_CHARS`] characters.
fn batches<'a>(docs: &'a [u32], records: &'a [DocRecord]) -> impl Iterator<Item = &'a [u32]> + 'a {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= docs.len() {
            return None;
        }
        let mut end = start;
        let mut chars = 0;
        while end < docs.len() && (end == start || chars < BATCH_CHARS) {
            chars += records[docs[end] as usize].chars as usize;
            end += 1;
        }
        let batch = &docs[start..end];
        start = end;
        Some(batch)
    })
}

/// The texts of a batch of documents, each prepared by `aligner`.
fn prepare(batch: &[u32], docs: &[DocRecord], texts: &File, aligner: &Aligner) -> io::Result<Vec<(String, Prepared)>> {
    batch
        .par_iter()
        .map(|&d| {
            let r = &docs[d as usize];
            let text = read_text(texts, r.offset, r.len)?;
            let p = aligner.prepare(&text);
            Ok((text, p))
        })
        .collect()
}

/// The pooled rows of document `d` from `pooled.bin`.
fn read_pooled(file: &File, offset: u64, n: u32) -> io::Result<Pooled> {
    let mut bytes = vec![0u8; n as usize * (DIM + 1) * 4];
    read_exact_at(file, &mut bytes, offset)?;
    let mut data = Vec::with_capacity(n as usize * DIM);
    let mut tokens = Vec::with_capacity(n as usize);
    for row in bytes.chunks_exact((DIM + 1) * 4) {
        let mut values = row.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")));
        tokens.push(values.next().unwrap_or_default());
        data.extend(values);
    }
    Ok(Pooled::from_parts(data, tokens))
}

/// Align one chunk of cross-language candidates: each document prepared
/// once, its pooled rows read back.
pub(super) fn align_chunk(
    chunk: &[Candidate],
    docs: &[DocRecord],
    texts: &File,
    pooled: &File,
    rows: &FxHashMap<u32, (u64, u32)>,
    aligner: &Aligner,
) -> io::Result<Vec<Aligned>> {
    let mut needed: Vec<u32> = chunk.iter().flat_map(|c| [c.a, c.b]).collect();
    needed.sort_unstable();
    needed.dedup();
    let prepared: Vec<(u32, Prepared, Pooled)> = needed
        .par_iter()
        .map(|&d| {
            let r = &docs[d as usize];
            let text = read_text(texts, r.offset, r.len)?;
            let p = aligner.prepare(&text);
            let &(offset, n) = rows.get(&d).ok_or_else(|| io::Error::other("a candidate document was not encoded"))?;
            let pooled = read_pooled(pooled, offset, n)?;
            if pooled.len() != p.seg.sentences.len() {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "pooled.bin does not match the documents"));
            }
            Ok((d, p, pooled))
        })
        .collect::<io::Result<_>>()?;
    let by_doc: FxHashMap<u32, (&Prepared, &Pooled)> = prepared.iter().map(|(d, p, e)| (*d, (p, e))).collect();
    let aligned: Vec<Aligned> = chunk
        .par_iter()
        .map(|c| {
            let ((pa, ea), (pb, eb)) = (by_doc[&c.a], by_doc[&c.b]);
            let (passages, significance) = align_candidate(aligner, c, (pa, ea), (pb, eb)).into_iter().unzip();
            Aligned { a: c.a, b: c.b, passages, significance, dropped: Vec::new() }
        })
        .collect();
    Ok(aligned.into_iter().filter(|x| !x.passages.is_empty()).collect())
}
