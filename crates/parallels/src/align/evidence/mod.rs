//! Evidence that two groups of sentences are counterparts: one interface,
//! each kind in a file of its own, one registry.
//!
//! The bead score of a region aligned completely ([`super::beads`]) is a
//! weighted sum of what every kind of evidence registered for the pair
//! says about the bead, plus the price of its shape:
//!
//! ```text
//! score(bead) = Σ_e  w_e · e.score(bead)  −  shape cost
//! ```
//!
//! | kind | file | says | applies to |
//! | --- | --- | --- | --- |
//! | `meaning` | [`meaning`] | the groups' sentence vectors' cosine, less what each group earns by chance | every pair aligned by meaning |
//! | `length` | [`length`] | −δ²/2, the Gale–Church deviation of the groups' lengths | every pair |
//! | `dictionary` | [`dictionary`] | the share of each side's words a bilingual table translates on the other side, less chance | zh–en, de–fr |
//!
//! A kind is an [`Evidence`]: told the region it will be asked about (and
//! the sentence pairs the programme's band holds) once, so it can encode,
//! look up and cache in batch; then asked for the score of any bead
//! inside. Adding a kind — a new dictionary, a language pair's rule, a
//! learned lexicon — is a new file here and one entry in `for_pair`;
//! the weights ([`WEIGHTS`]) are fitted together on the dev sets by
//! `tools/bead_weights/fit.py` and frozen here.

pub mod dictionary;
mod kind;
pub mod length;
pub mod meaning;

pub use kind::{Evidence, Group};

use super::meaning::Meaning;
use super::pair::Pair;

/// The weight of each kind in the bead score, by name (see the module
/// doc; fitted by `tools/bead_weights/fit.py` on the dev sets, and the
/// dictionary's again by `close.py` with close beads refined: 0.1, where
/// without refining 0.13 did best).
pub const WEIGHTS: &[(&str, f32)] = &[("meaning", 1.0), ("length", 0.1), ("dictionary", 0.1)];

/// The weight of a kind.
pub fn weight(name: &str) -> f32 {
    WEIGHTS.iter().find(|w| w.0 == name).map_or(0.0, |w| w.1)
}

/// A registered kind with its weight.
pub struct Weighted<'a> {
    /// Its weight in the bead score.
    pub weight: f32,
    /// The evidence.
    pub evidence: Box<dyn Evidence + 'a>,
}

/// Every kind of evidence for the beads of a pair, each with its weight:
/// the registry. `without` names kinds switched off, `reweigh` other
/// weights (evaluation only).
pub(super) fn for_pair<'a>(
    pair: &Pair<'a>,
    meaning: &'a mut Meaning<'_>,
    max_side: u32,
    without: &[String],
    reweigh: &[(String, f32)],
) -> Vec<Weighted<'a>> {
    let dictionary = dictionary::for_languages(pair.languages, [meaning.texts(0), meaning.texts(1)]);
    let mut kinds: Vec<Box<dyn Evidence + 'a>> = vec![
        Box::new(length::Length::new(pair.lengths[0], pair.lengths[1])),
        Box::new(meaning::MeaningEvidence::new(meaning, max_side)),
    ];
    if let Some(d) = dictionary {
        kinds.push(Box::new(d));
    }
    kinds
        .into_iter()
        .filter(|e| !without.iter().any(|w| w == e.name()))
        .map(|evidence| {
            let name = evidence.name();
            let weight = reweigh.iter().find(|w| w.0 == name).map_or_else(|| weight(name), |w| w.1);
            Weighted { weight, evidence }
        })
        .collect()
}
