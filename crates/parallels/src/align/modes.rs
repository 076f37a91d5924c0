//! Which evidence aligns a pair's sentences: one name per mode, one place
//! that picks it.
//!
//! | mode | when | chains from | between their links |
//! | --- | --- | --- | --- |
//! | [`Mode::Lexical`] | meaning off (`--no-semantic`, `scan`) | shared n-grams ([`super::parallel`]) | position and length ([`super::complete`]) |
//! | [`Mode::LexicalThenMeaning`] | two texts of one language | shared n-grams | position, length and meaning |
//! | [`Mode::MeaningFirst`] | two languages ([`two_languages`]) | meaning's anchors ([`super::meaning`]) | meaning and length, then every region aligned completely ([`super::beads`]) |
//!
//! Between two texts of one language, meaning is never searched globally:
//! against a different book on the same events a good share of sentence
//! pairs look alike in meaning, while shared wording is rare; so lexical
//! evidence finds the regions and meaning only fills what lies between
//! their links. Between two languages shared wording is nearly nil and
//! meaning is all there is. Adding a mode or a language rule touches this
//! file.

use super::chain::SentenceAlignment;
use super::features::Vectors;
use super::meaning::{anchor_chains, Meaning};
use super::parallel::{background, lexical_chains, Dots, ParallelParams};
use super::{beads, complete};
use crate::chars::{script, Script};

/// How a pair's sentences are aligned (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Shared n-grams alone.
    Lexical,
    /// Shared n-grams find the chains; meaning helps fill between links.
    LexicalThenMeaning,
    /// Meaning anchors the chains, which are then aligned completely.
    MeaningFirst,
}

impl Mode {
    /// The mode for two texts when meaning is on.
    pub fn of(a: &str, b: &str) -> Mode {
        if two_languages(a, b) {
            Mode::MeaningFirst
        } else {
            Mode::LexicalThenMeaning
        }
    }
}

/// Characters of a text read to tell its language, from three places.
pub const LANGUAGE_SAMPLE: usize = 1500;

/// The language of a text, when it can be told: `whatlang` on up to three
/// samples of [`LANGUAGE_SAMPLE`] characters (start, middle, end), kept
/// only when it calls its answer reliable.
pub fn language(text: &str) -> Option<whatlang::Lang> {
    let chars = text.chars().count();
    let mut sample = String::new();
    if chars <= 3 * LANGUAGE_SAMPLE {
        sample.push_str(text);
    } else {
        for from in [0, chars / 2 - LANGUAGE_SAMPLE / 2, chars - LANGUAGE_SAMPLE] {
            sample.extend(text.chars().skip(from).take(LANGUAGE_SAMPLE));
            sample.push('\n');
        }
    }
    whatlang::detect(&sample).filter(|i| i.is_reliable()).map(|i| i.lang())
}

/// Are two texts in two languages? Yes when their scripts differ (Han
/// against Latin) or when both languages can be told and differ (German
/// against French); Chinese in its two scripts is one language.
pub fn two_languages(a: &str, b: &str) -> bool {
    let (sx, sy) = (script(a), script(b));
    if sx != sy && ![sx, sy].contains(&Script::None) {
        return true;
    }
    matches!((language(a), language(b)), (Some(x), Some(y)) if x != y)
}

/// Align two texts' sentence vectors with lexical evidence alone
/// ([`Mode::Lexical`]).
pub fn align_sentences(a: &Vectors, b: &Vectors, p: &ParallelParams) -> SentenceAlignment {
    align_sentences_in(Mode::Lexical, a, b, p, None)
}

/// The chains of a pair in `mode`; `meaning` holds the sentences' texts
/// for the encoder (ignored in [`Mode::Lexical`]; without it the meaning
/// modes fall back to it).
pub(super) fn align_sentences_in(
    mode: Mode,
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
    let meaning = if mode == Mode::Lexical { None } else { meaning };
    let Some(meaning) = meaning else {
        let mut chains = lexical_chains(a, b, p, &mut dots, &bg, tau);
        if p.complete {
            let mut ev = complete::Evidence { dots: &mut dots, meaning: None };
            complete::complete(&mut chains, a, b, (bg.mean, bg.sd), &mut ev, false);
        }
        return SentenceAlignment { chains, tau };
    };
    let across = mode == Mode::MeaningFirst;
    let mut chains = if across {
        anchor_chains(meaning, &a.heading, &b.heading)
    } else {
        lexical_chains(a, b, p, &mut dots, &bg, tau)
    };
    if p.complete {
        let mut ev = complete::Evidence { dots: &mut dots, meaning: Some(&mut *meaning) };
        complete::complete(&mut chains, a, b, (bg.mean, bg.sd), &mut ev, across);
    }
    if across && p.beads {
        chains = beads::complete_chains(&chains, a, b, meaning);
    }
    SentenceAlignment { chains, tau }
}
