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
//! learned lexicon — is a new file here and one entry in [`for_pair`];
//! the weights ([`WEIGHTS`]) are fitted together on the dev sets by
//! `tools/bead_weights/fit.py` and frozen here.

pub mod dictionary;
pub mod length;
pub mod meaning;

use super::chain::Region;
use super::meaning::Meaning;
use super::modes::Pair;

/// A bead's two groups: sentences `[a0, a1)` of A and `[b0, b1)` of B
/// (indices into the whole texts), both non-empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// First sentence of A.
    pub a0: u32,
    /// One past the last sentence of A.
    pub a1: u32,
    /// First sentence of B.
    pub b0: u32,
    /// One past the last sentence of B.
    pub b1: u32,
}

/// One kind of evidence about beads.
pub trait Evidence {
    /// Its name, as `align --without` and the weights table give it.
    fn name(&self) -> &'static str;
    /// Get ready for the beads of region `r`: `cells` are the sentence
    /// pairs `(i, j)` (whole-text indices) that a bead of the region's band
    /// may hold, each once.
    fn region(&mut self, r: Region, cells: &[(u32, u32)]);
    /// The evidence that the groups of `g` (inside the last region) are
    /// counterparts: positive for, negative against, about 0 for chance.
    fn score(&self, g: Group) -> f32;
    /// The similarity of the groups that a link shows as its score, if
    /// this kind measures one (meaning does).
    fn similarity(&self, _g: Group) -> Option<f32> {
        None
    }
    /// The score and the parts it is made of, with their names (the score
    /// first, named as the kind): what `tools/bead_weights/fit.py` weighs
    /// when it looks for a better combination.
    fn parts(&self, g: Group) -> Vec<(&'static str, f32)> {
        vec![(self.name(), self.score(g))]
    }
}

/// The weight of each kind in the bead score, by name (see the module
/// doc; fitted by `tools/bead_weights/fit.py` on the dev sets).
pub const WEIGHTS: &[(&str, f32)] = &[("meaning", 1.0), ("length", 0.1), ("dictionary", 0.13)];

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
