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
//!
//! Refined ([`Evidence::refine`]), a bead's groups of more than one
//! sentence are encoded from their own text instead (the sentences joined,
//! `Meaning::own_groups`), chance measured against the same sample: closer
//! to what the group says (the convolution windows see across each
//! junction), at the cost of encoding the group's tokens again, so the bead
//! programme asks it only for the beads whose choice is close.

use std::collections::HashMap;

use super::kind::{Evidence, Group};
use crate::align::chain::Region;
use crate::align::meaning::Meaning;
use crate::encoder::{dot, DIM};

/// Sentences of the other side sampled for a group's chance similarity.
const CHANCE_SAMPLE: usize = 96;

/// A group's vector encoded from its own text, and its chance similarity.
type OwnGroup = (Vec<f32>, f32);

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
    /// Per side, the sentences (region relative) sampled for chance.
    sample: [Vec<u32>; 2],
    /// Beads refined: their score from their groups' own text.
    refined: HashMap<Group, f32>,
}

impl<'a, 't> MeaningEvidence<'a, 't> {
    /// Meaning evidence for groups of up to `max` sentences a side.
    pub fn new(meaning: &'a mut Meaning<'t>, max: u32) -> Self {
        MeaningEvidence {
            meaning,
            max,
            from: (0, 0),
            vec: Default::default(),
            chance: Default::default(),
            sample: Default::default(),
            refined: HashMap::new(),
        }
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
        self.sample = [sample_a, sample_b];
        self.refined.clear();
    }

    fn refine(&mut self, gs: &[Group]) {
        // The distinct groups of more than one sentence, per side (region
        // relative: first, count); a single sentence's vector is its own
        // text's already.
        let mut groups: [Vec<(u32, u32)>; 2] = Default::default();
        for g in gs {
            for (side, (s0, s1, from)) in [(g.a0, g.a1, self.from.0), (g.b0, g.b1, self.from.1)].into_iter().enumerate()
            {
                if s1 - s0 > 1 {
                    groups[side].push((s0 - from, s1 - s0));
                }
            }
        }
        let mut own: [HashMap<(u32, u32), OwnGroup>; 2] = Default::default();
        for side in 0..2 {
            groups[side].sort_unstable();
            groups[side].dedup();
            let from = if side == 0 { self.from.0 } else { self.from.1 };
            let whole: Vec<(u32, u32)> = groups[side].iter().map(|&(s, k)| (s + from, k)).collect();
            let vectors = self.meaning.own_groups(side, &whole);
            let other = &self.vec[1 - side][0];
            let sample = &self.sample[1 - side];
            for (&key, v) in groups[side].iter().zip(vectors.chunks_exact(DIM)) {
                let chance = sample.iter().map(|&j| dot(v, &other[j as usize * DIM..][..DIM])).sum::<f32>()
                    / sample.len().max(1) as f32;
                own[side].insert(key, (v.to_vec(), chance));
            }
        }
        for &g in gs {
            let side_of = |side: usize, s0: u32, s1: u32, from: u32| -> (&[f32], f32) {
                let (s, k) = (s0 - from, s1 - s0);
                match own[side].get(&(s, k)) {
                    Some((v, c)) => (v, *c),
                    None => (
                        &self.vec[side][k as usize - 1][s as usize * DIM..][..DIM],
                        self.chance[side][k as usize - 1][s as usize],
                    ),
                }
            };
            let (va, ca) = side_of(0, g.a0, g.a1, self.from.0);
            let (vb, cb) = side_of(1, g.b0, g.b1, self.from.1);
            self.refined.insert(g, dot(va, vb) - (ca + cb) / 2.0);
        }
    }

    fn score(&self, g: Group) -> f32 {
        if let Some(&s) = self.refined.get(&g) {
            return s;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoder::Encoder;

    /// A Chinese sentence its English translation splits in two, between
    /// sentences that have nothing to do with it: refined, the 2-1 bead is
    /// scored on the two English sentences read as one text, chance
    /// measured the same way, and it beats each English sentence alone.
    #[test]
    fn a_refined_bead_is_scored_on_its_groups_own_text() {
        let en = vec![
            "The harvest was poor that year.",
            "He pushed the door open.",
            "An old man in white was standing in the courtyard.",
            "Ships sailed out of the harbour at dawn.",
        ];
        let zh = vec!["那年收成不好。", "他推开门，看见院子里站着一个穿白衣的老人。", "天亮时船队驶出了港口。"];
        let encoder = Encoder::shared();
        let mut meaning = Meaning::with_groups(encoder, en.clone(), zh.clone());
        let mut evidence = MeaningEvidence::new(&mut meaning, 4);
        evidence.region(Region { a0: 0, a1: 4, b0: 0, b1: 3 }, &[]);
        let two = Group { a0: 1, a1: 3, b0: 1, b1: 2 };
        let pooled = evidence.score(two);
        evidence.refine(&[two]);
        let refined = evidence.score(two);
        // The same number from the encoder directly.
        let joined = encoder.encode(&["He pushed the door open. An old man in white was standing in the courtyard."]);
        let v = joined.rows().next().unwrap();
        let (en_rows, zh_rows) = (encoder.encode(&en), encoder.encode(&zh));
        let zh_vec: Vec<&[f32]> = zh_rows.rows().collect();
        let chance_a = zh_vec.iter().map(|z| dot(v, z)).sum::<f32>() / 3.0;
        let chance_b = en_rows.rows().map(|e| dot(zh_vec[1], e)).sum::<f32>() / 4.0;
        let expected = dot(v, zh_vec[1]) - (chance_a + chance_b) / 2.0;
        assert!((refined - expected).abs() < 1e-4, "refined {refined}, from the encoder {expected}");
        assert!((refined - pooled).abs() > 1e-5, "refining changed nothing ({pooled})");
        // Beads not refined keep their score; the whole translation beats
        // either half of it.
        for half in [Group { a0: 1, a1: 2, b0: 1, b1: 2 }, Group { a0: 2, a1: 3, b0: 1, b1: 2 }] {
            assert!(refined > evidence.score(half), "{half:?}: {} against {refined}", evidence.score(half));
        }
        // A new region forgets what was refined.
        evidence.region(Region { a0: 0, a1: 4, b0: 0, b1: 3 }, &[]);
        assert!((evidence.score(two) - pooled).abs() < 1e-6);
    }
}
