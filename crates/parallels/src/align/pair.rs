//! What is decided once about a pair before any sentence is aligned: its
//! [`Mode`] and the languages of its texts ([`Pair`]); a leaf, so that
//! every step takes the value and none imports the module that runs them
//! ([`super::modes`]).
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
//! meaning is all there is.
//!
//! The mode is chosen once per pair, by [`Pair::choose`], and travels as a
//! value ([`Pair`], with the languages told) into every step: completion,
//! beads, the copies folded in. Adding a mode or a language rule touches
//! this file (and [`super::modes`], which runs the steps); adding a kind of
//! evidence, [`super::evidence`].

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
        Pair::choose(true, Some(a), Some(b), &[], &[]).mode
    }

    /// Are the texts taken as two languages (meaning first)?
    pub fn across(self) -> bool {
        self == Mode::MeaningFirst
    }
}

/// What is decided once about a pair, before any sentence is aligned: its
/// [`Mode`] and the languages told ([`language`]; which kinds of evidence
/// apply, [`super::evidence`]), with the sentence lengths every step reads.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    /// How the pair is aligned.
    pub mode: Mode,
    /// The language of each text, when told (looked at only in
    /// [`Mode::MeaningFirst`]).
    pub languages: [Option<whatlang::Lang>; 2],
    /// Each side's sentence lengths (characters).
    pub lengths: [&'a [f32]; 2],
}

impl<'a> Pair<'a> {
    /// The one place a pair's mode is chosen: [`Mode::Lexical`] without
    /// meaning (`meaning` off, or a text not at hand), else
    /// [`Mode::MeaningFirst`] for two languages ([`two_languages`]) and
    /// [`Mode::LexicalThenMeaning`] for one.
    pub fn choose(meaning: bool, a: Option<&str>, b: Option<&str>, len_a: &'a [f32], len_b: &'a [f32]) -> Pair<'a> {
        let lengths = [len_a, len_b];
        let (Some(a), Some(b), true) = (a, b, meaning) else {
            return Pair { mode: Mode::Lexical, languages: [None, None], lengths };
        };
        let languages = [language(a), language(b)];
        let (sx, sy) = (script(a), script(b));
        let scripts_differ = sx != sy && ![sx, sy].contains(&Script::None);
        let languages_differ = matches!(languages, [Some(x), Some(y)] if x != y);
        let mode = if scripts_differ || languages_differ { Mode::MeaningFirst } else { Mode::LexicalThenMeaning };
        Pair { mode, languages, lengths }
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
    Mode::of(a, b).across()
}
