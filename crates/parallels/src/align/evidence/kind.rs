//! The interface every kind of bead evidence implements ([`Evidence`]) and
//! what it is asked about ([`Group`]): a leaf, so that the kinds import it
//! and not the registry that imports them.

use crate::align::chain::Region;

/// A bead's two groups: sentences `[a0, a1)` of A and `[b0, b1)` of B
/// (indices into the whole texts), both non-empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// Measure the beads `gs` (inside the last region) again, more closely
    /// and at more cost, if this kind can: later calls of `score` for them
    /// give the closer measure. The bead programme asks this for the few
    /// beads whose choice is close (`beads::CLOSE`); by default nothing
    /// changes.
    fn refine(&mut self, _gs: &[Group]) {}
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
