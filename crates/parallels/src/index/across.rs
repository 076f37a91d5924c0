//! A query across languages: the library documents a text translates, or
//! that translate it, found by meaning ([`crate::mine`]) in the sentence
//! vectors the index keeps (`vectors.rs`).
//!
//! # Steps
//!
//! 1. The text's language is told from it ([`mine::language`]); nothing
//!    more is done when the encoder does not know it, or the index holds
//!    vectors in no other language.
//! 2. The text is prepared with the aligner `scan` uses across languages
//!    (the index's normalization and sentences, meaning on), and its
//!    units read as bags of tokens ([`mine::bag_units`], the cheap vectors
//!    `scan` mines with); only when it has candidates is it encoded in
//!    full ([`mine::pooled`]) for their alignment.
//! 3. Every language is centred on its mean, as `scan` centres a corpus
//!    ([`mine::Bank::finish`]): the text's language on the mean of the
//!    library's units in it and the text's own (when the text adds less
//!    than a hundredth of them, the library's centred vectors are used
//!    as they are, computed once), every other language on the library's
//!    mean.
//! 4. For each other language, each unit of the text gets its `k`
//!    nearest library units (an exact product, [`knn::nearest`]); each of
//!    those library units gets its `k` nearest among the units of the
//!    text's language, the library's and the text's together (what its
//!    neighbourhood is in a scan of the library with the text added). A
//!    pair is kept, as [`mine::mine`] keeps it, when it is the best of
//!    either side by ratio margin and its margin reaches
//!    [`MineParams::margin`].
//! 5. The mined pairs make candidates as in a scan ([`mine::candidates`],
//!    the text being one side); each candidate document's text is read
//!    from the index, prepared, encoded, and aligned with the text by
//!    [`mine::passages::align_candidate`], which keeps what the evidence supports.
//!
//! # Weak spots
//!
//! * A pair is looked at only when the library unit is among the `k`
//!   nearest of a unit of the text. A scan also keeps a pair that is the
//!   best only from the library unit's side; for that one to stand out by
//!   its margin, the library unit must be close to that sentence and far
//!   from its other neighbours, which is rare.
//! * The candidates' texts are encoded again for every query (the index
//!   keeps their units' vectors, not every sentence's pooled row, which
//!   would be four times larger): a query with many candidates pays for
//!   encoding each of them (BENCHMARKS.md).
//! * A short text in a language the library does not hold is centred on
//!   its own mean: with few sentences that mean is much of their meaning.

use super::error::IndexError;
use super::reader::Index;
use super::vectors::{centre, mean};
use crate::align::{Passage, Prepared};
use crate::encoder::DIM;
use crate::mine::knn::{self, QVectors};
use crate::mine::passages::align_candidate;
use crate::mine::{self, Candidate, MineParams, Mined, Unit};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// The number the text asked takes among the documents (after every
/// library document: it is the `b` side of every candidate).
const QUERY: u32 = u32::MAX;

/// Characters of candidate documents prepared and encoded together, as
/// `scan` batches them.
const BATCH_CHARS: u64 = 400_000;

/// A library document found across languages: its number, its passages
/// (`a` in the text asked, `b` in the document, in the order of the text)
/// and their significance.
pub(super) type Found = (u32, Vec<Passage>, Vec<f64>);

/// What a query across languages did (for `query --timings`).
#[derive(Clone, Debug, Default)]
pub(super) struct Done {
    /// The text's language, when the step ran.
    pub(super) language: Option<&'static str>,
    /// Units of the text encoded.
    pub(super) units: usize,
    /// Sentence pairs mined.
    pub(super) mined: usize,
    /// Candidate documents aligned.
    pub(super) candidates: usize,
    /// Encoding the text and mining, in milliseconds.
    pub(super) mine_ms: f64,
    /// Reading, encoding and aligning the candidates.
    pub(super) align_ms: f64,
}

/// The library documents `text` shares passages with across languages
/// (none when the index keeps no vectors, or none in a language other
/// than the text's); `exclude`: a library document asked against the
/// rest (its own units are left out of its language's neighbourhoods).
pub(super) fn query(
    index: &Index,
    text: &str,
    exclude: Option<u32>,
    stopped: &dyn Fn() -> Result<(), IndexError>,
) -> Result<(Vec<Found>, Done), IndexError> {
    let mut done = Done::default();
    let Some(vectors) = index.vectors.as_ref() else { return Ok((Vec::new(), done)) };
    let Some(lang) = mine::language(text).filter(|l| mine::encoder_knows(l)) else {
        return Ok((Vec::new(), done));
    };
    let others: Vec<usize> = (0..vectors.shelves.len())
        .filter(|&k| vectors.shelves[k].lang != lang && !vectors.shelves[k].units.is_empty())
        .collect();
    if others.is_empty() {
        return Ok((Vec::new(), done));
    }
    done.language = Some(lang);
    let clock = std::time::Instant::now();
    let p = &index.opts.mine;
    let prepared = index.across.prepare(text);
    let input = [(text, &prepared.seg)];
    let (text_units, unit_vectors) =
        mine::bag_units(&input, p.min_tokens, &mut crate::encoder::TokenRows::new()).pop().expect("one document");
    done.units = text_units.len();
    if text_units.is_empty() {
        return Ok((Vec::new(), done));
    }
    stopped()?;
    // The text's language: its mean over the library's units and the
    // text's (a library document asked is in the library already).
    let own = vectors.shelf(lang);
    let mut sum = own.map_or_else(|| vec![0.0; DIM], |s| s.sum.clone());
    let mut count = own.map_or(0, |s| s.units.len());
    if exclude.is_none() {
        for row in unit_vectors.rows() {
            sum.iter_mut().zip(row).for_each(|(s, &x)| *s += f64::from(x));
        }
        count += text_units.len();
    }
    let m = mean(&sum, count);
    let mut asked = QVectors::new();
    for row in unit_vectors.rows() {
        let mut v = row.to_vec();
        centre(&mut v, &m);
        asked.push(&v);
    }
    // The library's units of that language, as neighbours of the others'.
    let library_own: Option<(QVectors, Vec<Unit>)> = own.map(|s| {
        let share_is_small = exclude.is_none() && text_units.len() * 100 <= s.units.len();
        if share_is_small {
            let (q, u) = index.centred(lang);
            (q.clone(), u.clone())
        } else {
            s.centred(&m, exclude)
        }
    });
    let mut mined: Vec<Mined> = Vec::new();
    for &k in &others {
        stopped()?;
        let shelf = &vectors.shelves[k];
        let (theirs, units) = index.centred(&shelf.lang);
        mine_against(&asked, &text_units, theirs, units, library_own.as_ref().map(|(q, _)| q), p, &mut mined);
    }
    done.mined = mined.len();
    let sentences = |d: u32| {
        if d == QUERY {
            prepared.seg.sentences.len() as u32
        } else {
            vectors.sentences.get(&d).copied().unwrap_or(0)
        }
    };
    let candidates: Vec<Candidate> =
        mine::candidates(&mined, &sentences, p).into_iter().filter(|c| c.b == QUERY && Some(c.a) != exclude).collect();
    done.candidates = candidates.len();
    done.mine_ms = clock.elapsed().as_secs_f64() * 1000.0;
    let clock = std::time::Instant::now();
    if candidates.is_empty() {
        return Ok((Vec::new(), done));
    }
    // The text encoded in full only now that it has candidates.
    let pooled = mine::pooled(&input).pop().expect("one document");
    let found = align(index, &candidates, (&prepared, &pooled), stopped)?;
    done.align_ms = clock.elapsed().as_secs_f64() * 1000.0;
    Ok((found, done))
}

/// The pairs of the text's units (`asked`, sentences `asked_units`) and
/// one other language's library units (`theirs`, `units`) that `mine`
/// would keep: the best of either side by ratio margin, at least
/// [`MineParams::margin`]. A library unit's neighbourhood is taken among
/// the text's units and `own` (the library's units of the text's
/// language).
fn mine_against(
    asked: &QVectors,
    asked_units: &[u32],
    theirs: &QVectors,
    units: &[Unit],
    own: Option<&QVectors>,
    p: &MineParams,
    out: &mut Vec<Mined>,
) {
    let (forward, _) = knn::nearest(asked, theirs, p.k);
    // The library units some unit of the text has among its nearest.
    let mut near: Vec<u32> = (0..forward.len()).flat_map(|i| forward.of(i).map(|(j, _)| j)).collect();
    near.sort_unstable();
    near.dedup();
    if near.is_empty() {
        return;
    }
    let mut picked = QVectors::new();
    for &j in &near {
        picked.push(&theirs.get(j as usize));
    }
    // Their neighbourhoods: the text's units (`true`) and the library's
    // own (`false`), the best `k` of both.
    let (of_asked, _) = knn::nearest(&picked, asked, p.k);
    let of_own = own.map(|o| knn::nearest(&picked, o, p.k).0);
    let backward: Vec<Vec<(bool, u32, f32)>> = (0..near.len())
        .map(|r| {
            let mut all: Vec<(bool, u32, f32)> = of_asked.of(r).map(|(i, c)| (true, i, c)).collect();
            if let Some(o) = &of_own {
                all.extend(o.of(r).map(|(i, c)| (false, i, c)));
            }
            all.sort_by(|x, y| y.2.total_cmp(&x.2).then(y.0.cmp(&x.0)).then(x.1.cmp(&y.1)));
            all.truncate(p.k.max(1));
            all
        })
        .collect();
    let knn_asked: Vec<f32> = (0..forward.len()).map(|i| forward.mean(i)).collect();
    let knn_near: Vec<f32> = backward
        .iter()
        .map(|b| if b.is_empty() { 0.0 } else { b.iter().map(|x| x.2).sum::<f32>() / b.len() as f32 })
        .collect();
    let row_of: FxHashMap<u32, usize> = near.iter().enumerate().map(|(r, &j)| (j, r)).collect();
    // Each side's best by margin (ties: the smaller number), as `mine`.
    let mut best: FxHashMap<(u32, u32), (f32, f32)> = FxHashMap::default();
    for (i, &mean) in knn_asked.iter().enumerate() {
        let of = |j: u32, c: f32| mine::ratio_margin(c, mean, knn_near[row_of[&j]]);
        if let Some((j, c, m)) = mine::best_by_margin(forward.of(i), of, p.margin) {
            best.insert((i as u32, j), (c, m));
        }
    }
    for (r, b) in backward.iter().enumerate() {
        // The best among the units of the text in the neighbourhood. A
        // library unit of the text's language may stand out more: its
        // margin needs its own neighbourhood, which this query does not
        // compute; the text's best is taken instead (see Weak spots).
        let asked = b.iter().filter(|t| t.0).map(|&(_, i, c)| (i, c));
        let of = |i: u32, c: f32| mine::ratio_margin(c, knn_asked[i as usize], knn_near[r]);
        if let Some((i, c, m)) = mine::best_by_margin(asked, of, p.margin) {
            best.insert((i, near[r]), (c, m));
        }
    }
    let mut pairs: Vec<((u32, u32), (f32, f32))> = best.into_iter().collect();
    pairs.sort_unstable_by_key(|&(key, _)| key);
    out.extend(pairs.into_iter().map(|((i, j), (cos, margin))| Mined {
        a: Unit { doc: QUERY, sentence: asked_units[i as usize] },
        b: units[j as usize],
        cos,
        margin,
    }));
}

/// Align each candidate with the text: the candidates read, prepared and
/// encoded a batch at a time; passages turned so that `a` is the text.
fn align(
    index: &Index,
    candidates: &[Candidate],
    asked: (&Prepared, &crate::encoder::Pooled),
    stopped: &dyn Fn() -> Result<(), IndexError>,
) -> Result<Vec<Found>, IndexError> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < candidates.len() {
        stopped()?;
        let mut end = start;
        let mut chars = 0;
        while end < candidates.len() && (end == start || chars < BATCH_CHARS) {
            chars += index.doc(candidates[end].a).map_or(0, |d| d.chars);
            end += 1;
        }
        let batch = &candidates[start..end];
        let texts: Vec<(String, Prepared)> = batch
            .par_iter()
            .map(|c| {
                let text = index.text(c.a)?;
                let p = index.across.prepare(&text);
                Ok((text, p))
            })
            .collect::<Result<_, IndexError>>()?;
        let input: Vec<(&str, &crate::segment::Segmented)> = texts.iter().map(|(t, p)| (t.as_str(), &p.seg)).collect();
        let encoded = mine::pooled(&input);
        stopped()?;
        let found: Vec<Found> = batch
            .par_iter()
            .zip(texts.par_iter().zip(encoded.par_iter()))
            .map(|(c, ((_, prepared), e))| {
                let both = align_candidate(&index.across, c, (prepared, e), asked);
                let mut both: Vec<(Passage, f64)> = both.into_iter().map(|(x, s)| (x.flipped(), s)).collect();
                both.sort_by(|(x, _), (y, _)| x.a.cmp(&y.a).then(x.b.cmp(&y.b)));
                let (passages, significance) = both.into_iter().unzip();
                (c.a, passages, significance)
            })
            .collect();
        out.extend(found.into_iter().filter(|f| !f.1.is_empty()));
        start = end;
    }
    Ok(out)
}
