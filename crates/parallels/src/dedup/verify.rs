//! Verification of candidate pairs: the signatures settle the pairs far
//! from the threshold, exact shingle sets decide the rest.
//!
//! Takes the candidate pairs the band buckets give (`cluster`) and hands
//! on which of them are duplicates, and the exact shingle sets of the
//! documents of the pairs it checked (so that the removed list can give
//! the exact similarity of a removed document to the kept one when the
//! decision needed it).
//!
//! # Why not the estimate alone
//!
//! The share of equal values of two signatures of `k` permutations is a
//! binomial estimate of their Jaccard similarity `J`, with standard error
//! `sqrt(J(1−J)/k)`: 0.035 at `J = 0.8` and `k = 128`. Deciding on it puts
//! a pair at 0.82 below a threshold of 0.8 about a third of the time, and a
//! pair at 0.78 above it as often. Raising `k` shrinks the error only as
//! `1/√k` (0.0125 at 1,024 permutations, still a coin toss within 0.01 of
//! the threshold) and costs memory and hashing for every document.
//!
//! # What is exact and what is estimated
//!
//! Let `m` be the number of equal signature values of a pair. At the
//! threshold `t`, `m` is binomial `B(k, t)`. [`Settle`] finds the two
//! counts beyond which a pair at the threshold lands with probability at
//! most [`SETTLE_ERROR`] (10⁻⁶) on each side: at or below the lower count
//! the pair is turned away, at or above the upper one it is joined, from
//! the signatures alone. (At `t = 0.8`, `k = 128`: `m ≤ 78`, an estimate of
//! 0.61 or less, and `m ≥ 122`, 0.95 or more.) A pair whose true similarity
//! is on the other side of the threshold reaches these counts less often
//! still, so the estimate decides a pair differently from the exact value
//! at most about once in a million pairs near the threshold, and never far
//! from it. Every pair in between is decided by its exact Jaccard
//! similarity.
//!
//! # The second pass
//!
//! Shingle sets are not all kept while sketching (they are about as large
//! as the text): the first pass keeps those of the first documents, up to
//! [`CACHE_BYTES`] (`ShingleCache`), and of the documents that need one
//! (both ends of every pair left to the exact check), those are taken from
//! it. The others are read again and normalized and shingled as in the
//! first pass, and nothing else is:
//!
//! * a JSON Lines record is read from its bytes in the file
//!   ([`Origin::bytes`](crate::corpus::Origin::bytes)) and parsed alone;
//! * when one of them has no bytes of its own (a text file, a Parquet row,
//!   a record of a compressed file),
//!   the corpus is read again from the start and only those documents are
//!   shingled.
//!
//! Each recomputed token sequence is checked against the hash the first
//! pass recorded: a record that changed in between is an error, not a
//! silent mistake.
//!
//! A set is kept as sorted 32-bit values (the high half of each 64-bit
//! shingle hash): 4 bytes per distinct shingle, about 4 bytes per token,
//! for the documents that need one, all at once. Two different shingles of
//! two documents of 1,000 shingles share a 32-bit value with probability
//! about 1,000²/2³² ≈ 2·10⁻⁴ per pair, which moves that pair's similarity
//! by about 1/2,000: this is the only way the check is not exact.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use rayon::prelude::*;

pub use super::exact::CACHE_BYTES;

use super::error::DedupError;
use super::exact::{cached_form, sorted_set, ExactSets};
use super::minhash;
use super::options::{DedupOptions, Verify, BATCH_BYTES, BATCH_DOCS};
use super::outcome::DocEntry;
use super::table::Table;
use crate::corpus::{BatchStop, CorpusOptions, CorpusReader, Input, Origin};
use crate::dedup::MinHasher;
use crate::plumbing::{Progress, Quiet};

/// The probability, for a pair exactly at the threshold, that its
/// signatures' count of equal values settles it on either side.
pub const SETTLE_ERROR: f64 = 1e-6;

/// The counts of equal signature values that settle a pair without the
/// exact check (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settle {
    /// At or below this many equal values, a pair is no duplicate (`-1`
    /// when no count is low enough).
    pub reject_at_most: i64,
    /// At or above this many, it is one (more than `k` when no count is
    /// high enough).
    pub accept_at_least: i64,
}

impl Settle {
    /// The counts for threshold `t` and `k` values per signature.
    pub fn new(t: f64, k: usize) -> Settle {
        let pmf = binomial_pmf(k, t);
        let mut low = 0.0;
        let mut reject_at_most = -1;
        for (m, p) in pmf.iter().enumerate() {
            low += p;
            if low > SETTLE_ERROR {
                break;
            }
            reject_at_most = m as i64;
        }
        let mut high = 0.0;
        let mut accept_at_least = k as i64 + 1;
        for (m, p) in pmf.iter().enumerate().rev() {
            high += p;
            if high > SETTLE_ERROR {
                break;
            }
            accept_at_least = m as i64;
        }
        Settle { reject_at_most, accept_at_least }
    }
}

/// What the signatures say of a candidate pair ([`Settle::decide`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A duplicate, from the signatures alone.
    Duplicate,
    /// No duplicate, from the signatures alone.
    Distinct,
    /// Left to the exact check ([`exact_similarity`]).
    Unsettled,
}

impl Settle {
    /// The counts `dedup` decides its candidate pairs with under `opts`:
    /// with [`Verify::Exact`], [`Settle::new`]; with [`Verify::Signature`],
    /// the estimate against the threshold, nothing left unsettled.
    pub fn of(opts: &DedupOptions) -> Settle {
        // As MinHasher::new counts the permutations.
        let k = opts.perms.max(1);
        match opts.verify {
            Verify::Signature => {
                let at = (opts.threshold * k as f64 - 1e-9).ceil() as i64;
                Settle { reject_at_most: at - 1, accept_at_least: at }
            }
            Verify::Exact => Settle::new(opts.threshold, k),
        }
    }

    /// The decision for a pair whose signatures have `matches` equal
    /// values ([`minhash::matches`]).
    pub fn decide(&self, matches: usize) -> Decision {
        let m = matches as i64;
        if m >= self.accept_at_least {
            Decision::Duplicate
        } else if m > self.reject_at_most {
            Decision::Unsettled
        } else {
            Decision::Distinct
        }
    }
}

/// `P(X = m)` for `X ~ B(k, p)`, `m = 0..=k`, computed in logarithms.
fn binomial_pmf(k: usize, p: f64) -> Vec<f64> {
    let p = p.clamp(0.0, 1.0);
    if p == 0.0 || p == 1.0 {
        return (0..=k).map(|m| f64::from(u8::from(m == if p == 0.0 { 0 } else { k }))).collect();
    }
    let ln_fact: Vec<f64> = std::iter::once(0.0)
        .chain((1..=k).scan(0.0, |acc, i| {
            *acc += (i as f64).ln();
            Some(*acc)
        }))
        .collect();
    (0..=k)
        .map(|m| {
            let ln = ln_fact[k] - ln_fact[m] - ln_fact[k - m] + m as f64 * p.ln() + (k - m) as f64 * (1.0 - p).ln();
            ln.exp()
        })
        .collect()
}

/// A document's set, or why it could not be made.
type Made = Result<Box<[u32]>, String>;

/// The exact shingle set of a token sequence, as stored.
fn set_of(hasher: &MinHasher, tokens: &[u64]) -> Box<[u32]> {
    sorted_set(cached_form(&hasher.shingles_of(tokens)))
}

/// The exact shingle set of a text as the exact check keeps it (sorted
/// 32-bit values, see the module docs).
pub fn exact_set(hasher: &MinHasher, text: &str) -> Box<[u32]> {
    set_of(hasher, &hasher.tokens(text))
}

/// The exact Jaccard similarity of two texts as the exact check of
/// `dedup` measures it (on [`exact_set`]s): what decides a pair
/// [`Decision::Unsettled`] by its signatures.
pub fn exact_similarity(hasher: &MinHasher, a: &str, b: &str) -> f64 {
    minhash::jaccard(&exact_set(hasher, a), &exact_set(hasher, b))
}

/// Recompute the shingle sets of the documents `needed` (indices, sorted,
/// without repeats) by reading them again (see the module docs).
pub(crate) fn shingle_sets(
    needed: &[u32],
    docs: &[DocEntry],
    table: &Table,
    inputs: &[Input],
    corpus: &CorpusOptions,
    hasher: &MinHasher,
    progress: &dyn Progress,
) -> Result<ExactSets, DedupError> {
    let mut sets: Vec<Option<Box<[u32]>>> = vec![None; docs.len()];
    progress.stage("verifying", Some(needed.len() as u64));
    // The documents the first pass kept shingles for; the others are read
    // again.
    let cached: Vec<(u32, Option<Box<[u32]>>)> = needed.par_iter().map(|&d| (d, table.cache.set(d))).collect();
    let mut rest = Vec::with_capacity(needed.len());
    for (d, set) in cached {
        match set {
            Some(set) => sets[d as usize] = Some(set),
            None => rest.push(d),
        }
    }
    progress.advance((needed.len() - rest.len()) as u64);
    let needed = &rest[..];
    let reread = needed.len();
    let own_bytes = |d: u32| {
        let origin = &docs[d as usize].origin;
        // A compressed file has no byte offsets to seek to: it is read
        // again from its start, below.
        origin.bytes.is_some()
            && matches!(inputs.get(origin.input), Some(Input::Records { path, format })
                if format.rereads_bytes() && crate::read::Compression::of(path).is_none())
    };
    // One document's set, from its text, checked against the first pass.
    let make = |d: u32, text: &str| -> Made {
        let tokens = hasher.tokens(text);
        let same = !tokens.is_empty() && Some(minhash::sequence_hash(&tokens)) == table.exact[d as usize];
        if same {
            Ok(set_of(hasher, &tokens))
        } else {
            Err(format!("{}: the document changed since it was read", docs[d as usize].origin.source))
        }
    };
    if needed.iter().all(|&d| own_bytes(d)) {
        let mut at = 0;
        while at < needed.len() {
            // A batch of records of one file, read in order, then shingled
            // in parallel.
            let input = docs[needed[at] as usize].origin.input;
            let Some(Input::Records { path, .. }) = inputs.get(input) else { unreachable!("checked above") };
            let mut file = File::open(path).map_err(|source| DedupError::Io { path: path.clone(), source })?;
            let mut batch: Vec<(u32, Vec<u8>)> = Vec::new();
            let mut bytes = 0;
            let of_this = |at: usize| at < needed.len() && docs[needed[at] as usize].origin.input == input;
            while of_this(at) {
                let d = needed[at];
                let range = docs[d as usize].origin.bytes.clone().expect("checked above");
                let record = read_range(&mut file, range.start, range.end)
                    .map_err(|source| DedupError::Io { path: path.clone(), source })?;
                bytes += record.len();
                batch.push((d, record));
                at += 1;
                if batch.len() == BATCH_DOCS || bytes >= BATCH_BYTES || !of_this(at) {
                    let made: Vec<(u32, Made)> = std::mem::take(&mut batch)
                        .into_par_iter()
                        .map(|(d, record)| {
                            let text = text_of(&record, &docs[d as usize].origin, corpus);
                            (d, text.and_then(|t| make(d, &t)))
                        })
                        .collect();
                    progress.advance(made.len() as u64);
                    for (d, set) in made {
                        sets[d as usize] = Some(set.map_err(|e| changed(path, e))?);
                    }
                    bytes = 0;
                }
            }
        }
    } else {
        // Read everything again; shingle only the documents needed.
        let mut reader = CorpusReader::new(inputs.to_vec(), corpus.clone())?;
        let mut next = 0u32;
        let mut wanted = needed.iter().copied().peekable();
        let read = reader.read_batches(BATCH_DOCS, BATCH_BYTES, &Quiet, |batch| {
            let first = next;
            next += batch.len() as u32;
            let mut mine = Vec::new();
            while let Some(&d) = wanted.peek() {
                if d >= next {
                    break;
                }
                mine.push((d, &batch[(d - first) as usize]));
                wanted.next();
            }
            let made: Vec<(u32, Made)> = mine.into_par_iter().map(|(d, doc)| (d, make(d, &doc.text))).collect();
            progress.advance(made.len() as u64);
            for (d, set) in made {
                let doc = &docs[d as usize];
                sets[d as usize] = Some(set.map_err(|e| changed(Path::new(doc.origin.source.file.as_ref()), e))?);
            }
            Ok(())
        });
        match read {
            Ok(()) => {}
            Err(BatchStop::Consumer(e)) => return Err(e),
            Err(BatchStop::Strict(problem)) => {
                return Err(changed(Path::new(problem.source.as_str()), problem.message.clone()));
            }
        }
        if let Some(d) = wanted.next() {
            let doc = &docs[d as usize];
            return Err(changed(
                Path::new(doc.origin.source.file.as_ref()),
                format!("{}: the document is no longer there", doc.origin.source),
            ));
        }
    }
    Ok(ExactSets { sets, reread })
}

/// The error of a document that is not what the first pass read.
fn changed(path: &Path, what: String) -> DedupError {
    DedupError::Io {
        path: path.to_path_buf(),
        source: io::Error::other(format!(
            "{what} (the exact check reads documents a second time); was the input modified during the run?"
        )),
    }
}

/// Bytes `start..end` of `file`.
fn read_range(file: &mut File, start: u64, end: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; (end - start) as usize];
    file.seek(SeekFrom::Start(start))?;
    file.read_exact(&mut buf)?;
    Ok(buf)
}

/// The text of one JSON line (with or without its line ending), read as
/// the first pass read it ([`crate::corpus::record_text`]: a record read
/// with its lone surrogates repaired is read so again).
fn text_of(record: &[u8], origin: &Origin, corpus: &CorpusOptions) -> Result<String, String> {
    let line = record.strip_suffix(b"\n").unwrap_or(record);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    crate::corpus::record_text(line, origin.clone(), corpus)
        .map_err(|p| format!("the record no longer reads as it did ({})", p.message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::exact::ShingleCache;

    /// The exact check reads a record as the first pass read it: a lone
    /// surrogate escape (as Python writes text it could not decode) is
    /// U+FFFD again, with or without a CRLF line ending; a record changed
    /// into one without text is named.
    #[test]
    fn a_record_is_read_again_as_the_first_pass_read_it() {
        let origin =
            Origin { input: 0, source: crate::corpus::Source::whole(Path::new("in.jsonl")), bytes: Some(0..1) };
        let corpus = CorpusOptions::default();
        let line = br#"{"id": "a", "text": "\u7532\ud800\u4e59", "n": 1}"#;
        assert_eq!(text_of(line, &origin, &corpus).unwrap(), "甲\u{fffd}乙");
        let crlf = [&line[..], b"\r\n"].concat();
        assert_eq!(text_of(&crlf, &origin, &corpus).unwrap(), "甲\u{fffd}乙");
        let gone = text_of(br#"{"id": "a", "body": "x"}"#, &origin, &corpus).unwrap_err();
        assert!(gone.contains("no longer reads as it did") && gone.contains("text"), "{gone}");
    }

    /// A set taken from the cache is the set the second pass makes from the
    /// text; documents past the budget (or without tokens) are not held.
    #[test]
    fn the_cache_gives_the_sets_of_the_second_pass_within_its_budget() {
        let hasher = MinHasher::new(5, 128);
        let texts = [
            "天下大势，分久必合，合久必分。周末七国分争，并入于秦。",
            "",
            "天下大勢，分久必合，合久必分。周末七國分爭，並入於秦。及秦滅之後，楚、漢分爭，又並入於漢。",
            "The quick brown fox jumps over the lazy dog, and the dog sleeps on.",
        ];
        let shingles: Vec<Vec<u32>> =
            texts.iter().map(|t| cached_form(&hasher.shingles_of(&hasher.tokens(t)))).collect();
        // Room for the first three documents' shingles, not the fourth's.
        let budget = 4 * (shingles[0].len() + shingles[2].len());
        let mut cache = ShingleCache::new(budget);
        for (d, s) in shingles.into_iter().enumerate() {
            assert!(cache.has_room() || d == 3, "document {d}");
            cache.push(d as u32, s);
        }
        assert_eq!(cache.set(0), Some(set_of(&hasher, &hasher.tokens(texts[0]))));
        assert_eq!(cache.set(1), None, "a text without tokens");
        assert_eq!(cache.set(2), Some(set_of(&hasher, &hasher.tokens(texts[2]))));
        assert_eq!(cache.set(3), None, "past the budget");
        assert_eq!(cache.set(4), None, "never pushed");
        assert!(!cache.has_room());
        let none = ShingleCache::new(0);
        assert!(!none.has_room());
    }

    #[test]
    fn settle_counts_at_0_8_and_128_permutations() {
        let s = Settle::new(0.8, 128);
        assert_eq!(s, Settle { reject_at_most: 78, accept_at_least: 122 });
        // The probabilities at the threshold are at most SETTLE_ERROR, and
        // one count further they are not.
        let pmf = binomial_pmf(128, 0.8);
        let below: f64 = pmf[..=78].iter().sum();
        let above: f64 = pmf[122..].iter().sum();
        assert!(below <= SETTLE_ERROR && below + pmf[79] > SETTLE_ERROR);
        assert!(above <= SETTLE_ERROR && above + pmf[121] > SETTLE_ERROR);
    }

    #[test]
    fn few_permutations_settle_nothing() {
        let s = Settle::new(0.8, 8);
        assert_eq!(s, Settle { reject_at_most: -1, accept_at_least: 9 });
        // A threshold of 1: any mismatch says the pair is none, and a full
        // match is checked (a pair below 1 can match fully).
        let s = Settle::new(1.0, 16);
        assert_eq!(s, Settle { reject_at_most: 15, accept_at_least: 17 });
    }

    #[test]
    fn the_pmf_sums_to_one() {
        for (k, p) in [(1, 0.5), (128, 0.8), (1024, 0.3)] {
            let sum: f64 = binomial_pmf(k, p).iter().sum();
            assert!((sum - 1.0).abs() < 1e-9, "{k} {p}: {sum}");
        }
    }
}
