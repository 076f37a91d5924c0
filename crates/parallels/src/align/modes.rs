//! The steps that align a pair's sentences in its [`Mode`] (chosen once,
//! [`super::pair`]): chains from shared n-grams or from meaning's anchors,
//! completion between their links, and between two languages every region
//! aligned completely.

use super::beads;
use super::chain::SentenceAlignment;
use super::complete;
use super::features::Vectors;
use super::meaning::{anchor_chains, Meaning};
use super::pair::{Mode, Pair};
use super::parallel::{background, lexical_chains, Dots, ParallelParams};

/// Align two texts' sentence vectors with lexical evidence alone
/// ([`Mode::Lexical`]).
pub fn align_sentences(a: &Vectors, b: &Vectors, p: &ParallelParams) -> SentenceAlignment {
    let pair = Pair { mode: Mode::Lexical, languages: [None, None], lengths: [&a.len, &b.len] };
    align_sentences_in(&pair, a, b, p, None)
}

/// The chains of a pair in its mode; `meaning` holds the sentences' texts
/// for the encoder (ignored in [`Mode::Lexical`]; without it the meaning
/// modes fall back to it).
pub(super) fn align_sentences_in(
    pair: &Pair,
    a: &Vectors,
    b: &Vectors,
    p: &ParallelParams,
    meaning: Option<&mut Meaning>,
) -> SentenceAlignment {
    if a.is_empty() || b.is_empty() {
        return SentenceAlignment { chains: Vec::new(), tau: p.min_threshold };
    }
    let mut dots = Dots::new(a, b);
    let bg = background(&dots);
    let tau = (bg.mean + p.sigmas * bg.sd).max(p.min_threshold);
    let (mut meaning, mode) = match meaning {
        Some(m) if pair.mode != Mode::Lexical => (Some(m), pair.mode),
        _ => (None, Mode::Lexical),
    };
    let mut chains = match (mode, meaning.as_deref_mut()) {
        (Mode::MeaningFirst, Some(m)) => anchor_chains(m, &a.heading, &b.heading),
        _ => lexical_chains(a, b, p, &mut dots, &bg, tau),
    };
    let Some(meaning) = meaning else {
        if p.complete {
            let mut ev = complete::Evidence { dots: &mut dots, meaning: None };
            complete::complete(&mut chains, a, b, (bg.mean, bg.sd), &mut ev, mode);
        }
        return SentenceAlignment { chains, tau };
    };
    if p.complete {
        let mut ev = complete::Evidence { dots: &mut dots, meaning: Some(&mut *meaning) };
        complete::complete(&mut chains, a, b, (bg.mean, bg.sd), &mut ev, mode);
    }
    if mode.across() && p.beads {
        chains = beads::complete_chains(&chains, pair, meaning, p);
    }
    SentenceAlignment { chains, tau }
}
