//! Meaning evidence: the cosine of two groups' sentence vectors, less what
//! each group earns by chance.
//!
//! A group's vector is that of its sentences read as one text (a sentence
//! a translator split in two reads as one again), made from the
//! sentences' pooled encoder rows added up (`Meaning::region_groups`).
//! `r(x)`, the mean cosine of group `x` against a sample of the other
//! side's sentences, is what a group earns by chance: long groups and
//! generic lines earn more, so this normalization (Vecalign's, Thompson &
//! Koehn 2019) keeps them from absorbing their neighbours. The evidence is
//!
//! ```text
//! cos(A-group, B-group) − (r(A-group) + r(B-group)) / 2
//! ```

use super::kind::{Evidence, Group};
use crate::align::chain::Region;
use crate::align::meaning::Meaning;
use crate::encoder::{dot, DIM};

/// Sentences of the other side sampled for a group's chance similarity.
const CHANCE_SAMPLE: usize = 96;

/// Meaning evidence over a pair's [`Meaning`].
pub struct MeaningEvidence<'a, 't> {
    meaning: &'a mut Meaning<'t>,
    /// Most sentences of a group.
    max: u32,
    /// The region's first sentences.
    from: (u32, u32),
    /// Per side, per group size `k` (1..=max), the unit vectors of the
    /// groups by start sentence (region relative), [`DIM`] values each.
    vec: [Vec<Vec<f32>>; 2],
    /// The same, each group's chance similarity.
    chance: [Vec<Vec<f32>>; 2],
}

impl<'a, 't> MeaningEvidence<'a, 't> {
    /// Meaning evidence for groups of up to `max` sentences a side.
    pub fn new(meaning: &'a mut Meaning<'t>, max: u32) -> Self {
        MeaningEvidence { meaning, max, from: (0, 0), vec: Default::default(), chance: Default::default() }
    }

    /// The cosine of a bead's two group vectors.
    pub fn cos(&self, g: Group) -> f32 {
        let (da, db) = ((g.a1 - g.a0) as usize, (g.b1 - g.b0) as usize);
        let va = &self.vec[0][da - 1][(g.a0 - self.from.0) as usize * DIM..][..DIM];
        let vb = &self.vec[1][db - 1][(g.b0 - self.from.1) as usize * DIM..][..DIM];
        dot(va, vb)
    }
}

impl Evidence for MeaningEvidence<'_, '_> {
    fn name(&self) -> &'static str {
        "meaning"
    }

    fn region(&mut self, r: Region, _: &[(u32, u32)]) {
        let [vec_a, vec_b] = self.meaning.region_groups(r, self.max);
        let sample = |len: u32| -> Vec<u32> {
            let k = (len as usize).min(CHANCE_SAMPLE);
            (0..k).map(|i| (i as u64 * len as u64 / k as u64) as u32).collect()
        };
        let chance = |mine: &[Vec<f32>], other: &[Vec<f32>], sample: &[u32]| -> Vec<Vec<f32>> {
            mine.iter()
                .map(|groups| {
                    groups
                        .chunks_exact(DIM)
                        .map(|v| {
                            let s: f32 = sample.iter().map(|&j| dot(v, &other[0][j as usize * DIM..][..DIM])).sum();
                            s / sample.len().max(1) as f32
                        })
                        .collect()
                })
                .collect()
        };
        let (sample_a, sample_b) = (sample(r.a1 - r.a0), sample(r.b1 - r.b0));
        self.chance = [chance(&vec_a, &vec_b, &sample_b), chance(&vec_b, &vec_a, &sample_a)];
        self.vec = [vec_a, vec_b];
        self.from = (r.a0, r.b0);
    }

    fn score(&self, g: Group) -> f32 {
        let (da, db) = ((g.a1 - g.a0) as usize, (g.b1 - g.b0) as usize);
        let ca = self.chance[0][da - 1][(g.a0 - self.from.0) as usize];
        let cb = self.chance[1][db - 1][(g.b0 - self.from.1) as usize];
        self.cos(g) - (ca + cb) / 2.0
    }

    fn similarity(&self, g: Group) -> Option<f32> {
        Some(self.cos(g))
    }

    fn parts(&self, g: Group) -> Vec<(&'static str, f32)> {
        let (da, db) = ((g.a1 - g.a0) as usize, (g.b1 - g.b0) as usize);
        let ca = self.chance[0][da - 1][(g.a0 - self.from.0) as usize];
        let cb = self.chance[1][db - 1][(g.b0 - self.from.1) as usize];
        vec![("meaning", self.score(g)), ("meaning.cos", self.cos(g)), ("meaning.chance", (ca + cb) / 2.0)]
    }
}
