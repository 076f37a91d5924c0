//! Completion inside passages: the sentences between two anchors.
//!
//! The parallel aligner ([`super::parallel`]) links sentences by what they
//! share. Between two of its links (anchors) there often remain sentences
//! that share nothing lexical with their counterpart — `水手们！` against
//! `伙计们！`, a command rendered with other verbs, the reworded half of a
//! sentence one translator split in two. A reader pairs them at once: they
//! sit in the same slot between two anchors, and their lengths fit. This
//! module does the same, with three kinds of evidence:
//!
//! * **position** — only sentences in the slot between two consecutive links
//!   of one chain (at most `gap` sentences on a side) are considered, and
//!   groups keep the order of both texts;
//! * **length** — a Gale–Church model fitted on the pair's own links: the
//!   length of a B group is `c` times that of its A group, with a variance
//!   that grows with the length, `δ = (l_b − c·l_a) / √(s²·m)` where `m` is
//!   the mean length of the two in B units. `c` and `s²` are estimated from
//!   the anchors of this very pair (robustly, from the median squared
//!   deviation), so Chinese against Chinese, Chinese against its English
//!   original and a tight copy all get their own model;
//! * **weak lexical evidence** — the group's cosine as a z-score against the
//!   pair's background (mean and deviation of random sentence pairs).
//!
//! A group earns
//!
//! ```text
//! LEN_FIT − δ²/2 + LEX · clamp(z, −1, 4) − shape cost
//! ```
//!
//! — a log-likelihood-like score: a perfect length fit is worth
//! [`LEN_FIT`], each unit of δ² costs a half as under a normal model, and
//! bigger groups pay for their extra freedom. Inside a slot with sentences
//! on both sides, the pair's own rate of sentences without counterpart
//! shifts the score (`slot_prior`): in a loose rendering a drop next to an
//! addition is likelier than in a faithful translation. A small monotone dynamic
//! programme over the slot picks the groups (shapes 1-1 up to 3-1 / 1-3 and
//! 2-2) that maximize the total, a sentence left alone scoring zero; groups
//! scoring above zero become links. A slot with sentences on one side only
//! (one version split a sentence the other kept whole, or added one) is
//! offered to the links on either side: an orphan joins a neighbour when
//! the neighbour's length fit improves by more than a group's extra cost.
//!
//! Links found here carry their own cosine as score, which is low where the
//! evidence was position and length: users can filter them by score. A slot
//! for a meaning-based similarity (a sentence encoder) is the `z` term:
//! whatever similarity is available enters there, as a z-score against the
//! pair's background.

use super::chain::{Chain, SentLink};
use super::features::Vectors;
use super::meaning::Meaning;
use super::pair::Mode;
use super::parallel::Dots;

/// Score of a perfect length fit (δ = 0) with no lexical evidence.
pub const LEN_FIT: f32 = 1.5;
/// Weight of the lexical z-score.
pub const LEX: f32 = 0.5;
/// Extra cost of a group of 3 sentences (2-1, 1-2) and of 4 (2-2, 3-1, 1-3).
const SHAPE_COST: [f32; 2] = [0.25, 0.75];
/// Cost per sentence of slot beyond a 1-1 slot: more room, more chance fits.
const FREEDOM: f32 = 0.25;
/// Least length variance per unit of length: Gale and Church's estimate
/// (6.8, characters of English against French and German). The anchors of
/// a pair are its lexically closest links, whose lengths agree more than
/// those of the paraphrases between them, so their spread is a floor to
/// raise, not the spread of the sentences being completed.
const MIN_S2: f32 = 6.8;

/// Gale–Church style length model of one pair of texts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LengthModel {
    /// B length per unit of A length.
    pub c: f32,
    /// Variance of `l_b − c·l_a` per unit of mean length.
    pub s2: f32,
}

impl LengthModel {
    /// Fit on linked groups `(l_a, l_b)`.
    pub fn fit(groups: &[(f32, f32)]) -> LengthModel {
        let (sa, sb): (f32, f32) = groups.iter().fold((0.0, 0.0), |s, g| (s.0 + g.0, s.1 + g.1));
        let c = if sa > 0.0 && sb > 0.0 { sb / sa } else { 1.0 };
        let mut r2: Vec<f32> = groups
            .iter()
            .filter(|g| g.0 > 0.0 && g.1 > 0.0)
            .map(|&(la, lb)| (lb - c * la).powi(2) / ((c * la + lb) / 2.0).max(1.0))
            .collect();
        let s2 = if r2.is_empty() {
            MIN_S2
        } else {
            // The mean squared deviation without the worst tenth (a wrong
            // link, a heading).
            r2.sort_unstable_by(f32::total_cmp);
            let kept = &r2[..r2.len() - r2.len() / 10];
            kept.iter().sum::<f32>() / kept.len() as f32
        };
        LengthModel { c, s2: s2.max(MIN_S2) }
    }

    /// The normalized length deviation of a group.
    pub fn delta(&self, la: f32, lb: f32) -> f32 {
        let m = ((self.c * la + lb) / 2.0).max(1.0);
        (lb - self.c * la) / (self.s2 * m).sqrt()
    }
}

/// What a completion needs to know of the pair.
struct Context<'a> {
    a: &'a Vectors,
    b: &'a Vectors,
    /// Background of random sentence pairs.
    mean: f32,
    sd: f32,
    model: LengthModel,
    /// Log prior odds that a two-sided slot holds counterparts, against a
    /// typical pair (`slot_prior`).
    prior: f32,
    /// How the pair is aligned: between two languages
    /// ([`Mode::MeaningFirst`]) the chains are meaning's anchors.
    mode: Mode,
}

impl Context<'_> {
    fn len(v: &[f32], s0: u32, s1: u32) -> f32 {
        v[s0 as usize..s1 as usize].iter().sum()
    }

    /// The length deviation δ of a group.
    fn delta(&self, a0: u32, a1: u32, b0: u32, b1: u32) -> f32 {
        self.model.delta(Self::len(&self.a.len, a0, a1), Self::len(&self.b.len, b0, b1))
    }

    /// The evidence of a group's similarities as one z-score: the larger
    /// of the lexical and the meaning-based one (OR, not an average: each
    /// is strong where the other is blind).
    fn z(&self, ev: &Evidence, sim: f32, meaning: Option<f32>) -> f32 {
        let lexical = (sim - self.mean) / self.sd.max(1e-6);
        let z = match (meaning, ev.meaning.as_deref()) {
            (Some(cos), Some(m)) => lexical.max(m.z(cos)),
            _ => lexical,
        };
        z.clamp(-1.0, 4.0)
    }

    /// Score of linking `A[a0..a1]` with `B[b0..b1]`, without shape cost,
    /// and the group's lexical and meaning-based cosines.
    fn fit(&self, ev: &mut Evidence, a0: u32, a1: u32, b0: u32, b1: u32) -> (f32, f32, Option<f32>) {
        let (sim, meaning) = ev.group_cos(a0, a1, b0, b1);
        let d = self.delta(a0, a1, b0, b1);
        (LEN_FIT - d * d / 2.0 + LEX * self.z(ev, sim, meaning), sim, meaning)
    }

    fn has_heading(&self, a0: u32, a1: u32, b0: u32, b1: u32) -> bool {
        self.a.heading[a0 as usize..a1 as usize].contains(&true)
            || self.b.heading[b0 as usize..b1 as usize].contains(&true)
    }
}

/// What completion measures similarity with: the lexical dot products,
/// and sentence vectors when meaning is on.
pub(super) struct Evidence<'e, 'd, 't> {
    pub(super) dots: &'e mut Dots<'d>,
    pub(super) meaning: Option<&'e mut Meaning<'t>>,
}

impl Evidence<'_, '_, '_> {
    /// The lexical and (when on) meaning-based cosine of a group.
    fn group_cos(&mut self, a0: u32, a1: u32, b0: u32, b1: u32) -> (f32, Option<f32>) {
        let sim = self.dots.group_cos(a0, a1, b0, b1);
        (sim, self.meaning.as_deref_mut().map(|m| m.group_cos(a0, a1, b0, b1)))
    }
}

/// Group shapes tried inside a slot, with their cost.
const GAP_SHAPES: [(u32, u32, f32); 6] = [
    (1, 1, 0.0),
    (1, 2, SHAPE_COST[0]),
    (2, 1, SHAPE_COST[0]),
    (2, 2, SHAPE_COST[1]),
    (1, 3, SHAPE_COST[1]),
    (3, 1, SHAPE_COST[1]),
];

/// Most sentences (both sides) of a slot linked whole, one against many.
const WHOLE_SLOT: usize = 9;

/// The best links inside the slot `A[a0..a1]` × `B[b0..b1]` (both non-empty).
fn fill_slot(ctx: &Context, ev: &mut Evidence, a0: u32, a1: u32, b0: u32, b1: u32) -> Vec<SentLink> {
    let (n, m) = ((a1 - a0) as usize, (b1 - b0) as usize);
    let freedom = FREEDOM * (n + m - 2) as f32;
    // best[x][y]: best total over A[a0..a0+x] × B[b0..b0+y]; how[x][y] the
    // last step: a group (dx, dy, sim, meaning) or a skip (dx + dy = 1,
    // sim < 0).
    let mut best = vec![vec![0f32; m + 1]; n + 1];
    let mut how = vec![vec![(0u32, 0u32, -1f32, None); m + 1]; n + 1];
    for x in 0..=n {
        for y in 0..=m {
            if x == 0 && y == 0 {
                continue;
            }
            let (mut b, mut h) = (f32::NEG_INFINITY, (0, 0, -1.0, None));
            if x > 0 && best[x - 1][y] > b {
                (b, h) = (best[x - 1][y], (1, 0, -1.0, None));
            }
            if y > 0 && best[x][y - 1] > b {
                (b, h) = (best[x][y - 1], (0, 1, -1.0, None));
            }
            for &(dx, dy, cost) in &GAP_SHAPES {
                let (dx, dy) = (dx as usize, dy as usize);
                if dx > x || dy > y {
                    continue;
                }
                let (ga0, ga1) = (a0 + (x - dx) as u32, a0 + x as u32);
                let (gb0, gb1) = (b0 + (y - dy) as u32, b0 + y as u32);
                if ctx.has_heading(ga0, ga1, gb0, gb1) {
                    continue;
                }
                let (fit, sim, meaning) = ctx.fit(ev, ga0, ga1, gb0, gb1);
                let s = fit + ctx.prior - cost - freedom;
                if s > 0.0 && best[x - dx][y - dy] + s > b {
                    (b, h) = (best[x - dx][y - dy] + s, (dx as u32, dy as u32, sim, meaning));
                }
            }
            // One sentence against a whole slot of several: one version
            // wrote as one sentence (joined by semicolons, commas) what
            // the other wrote as many.
            if (x, y) == (n, m) && n.min(m) == 1 && n + m > 4 && n + m <= WHOLE_SLOT && !ctx.has_heading(a0, a1, b0, b1)
            {
                let (fit, sim, meaning) = ctx.fit(ev, a0, a1, b0, b1);
                let cost = SHAPE_COST[1] + SHAPE_COST[0] * (n + m - 4) as f32;
                let s = fit + ctx.prior - cost - freedom;
                if s > 0.0 && s > b {
                    (b, h) = (s, (n as u32, m as u32, sim, meaning));
                }
            }
            best[x][y] = b;
            how[x][y] = h;
        }
    }
    let mut out = Vec::new();
    let (mut x, mut y) = (n, m);
    while x > 0 || y > 0 {
        let (dx, dy, sim, meaning) = how[x][y];
        if sim >= 0.0 {
            out.push(SentLink {
                a0: a0 + x as u32 - dx,
                a1: a0 + x as u32,
                b0: b0 + y as u32 - dy,
                b1: b0 + y as u32,
                sim,
                meaning,
                filled: true,
            });
        }
        x -= dx as usize;
        y -= dy as usize;
    }
    out.reverse();
    out
}

/// Least z-score (meaning against the pair's background) of a local
/// anchor inside a slot.
const LOCAL_Z: f32 = 2.0;
/// Most length deviation |δ| of a local anchor.
const LOCAL_DELTA: f32 = 2.0;

/// Fill a slot, first anchoring it by meaning when meaning is on.
///
/// Sentence pairs of the slot that are each other's best match in meaning
/// (among the slot's sentences only: a few candidates, placed by the
/// anchors around them), clear [`LOCAL_Z`] and fit in length become links
/// first, the largest set of them in order on both sides; the smaller
/// slots between them are then filled by [`fill_slot`]. In a wide slot
/// (two versions that reword a whole stretch, or two languages) length
/// alone cannot place sentences, meaning can.
fn fill_slot_anchored(ctx: &Context, ev: &mut Evidence, a0: u32, a1: u32, b0: u32, b1: u32) -> Vec<SentLink> {
    let Some(meaning) = ev.meaning.as_deref_mut() else {
        return fill_slot(ctx, ev, a0, a1, b0, b1);
    };
    let (n, m) = ((a1 - a0) as usize, (b1 - b0) as usize);
    let mut cos = vec![0f32; n * m];
    for x in 0..n {
        for y in 0..m {
            let (i, j) = (a0 + x as u32, b0 + y as u32);
            cos[x * m + y] = if ctx.a.heading[i as usize] == ctx.b.heading[j as usize] {
                meaning.group_cos(i, i + 1, j, j + 1)
            } else {
                f32::NEG_INFINITY
            };
        }
    }
    let best_in = |it: &mut dyn Iterator<Item = (usize, f32)>| it.max_by(|p, q| p.1.total_cmp(&q.1)).map(|p| p.0);
    let mut found: Vec<(u32, u32, f32)> = Vec::new();
    for x in 0..n {
        let Some(y) = best_in(&mut (0..m).map(|y| (y, cos[x * m + y]))) else { continue };
        let c = cos[x * m + y];
        let (i, j) = (a0 + x as u32, b0 + y as u32);
        if best_in(&mut (0..n).map(|x| (x, cos[x * m + y]))) == Some(x)
            && meaning.z(c) >= LOCAL_Z
            && ctx.delta(i, i + 1, j, j + 1).abs() <= LOCAL_DELTA
        {
            found.push((i, j, c));
        }
    }
    // The heaviest subset in order on both sides (few: quadratic is fine).
    let mut h: Vec<f32> = found.iter().map(|f| meaning.z(f.2)).collect();
    let mut back = vec![usize::MAX; found.len()];
    for k in 0..found.len() {
        for p in 0..k {
            let w = meaning.z(found[k].2);
            if found[p].0 < found[k].0 && found[p].1 < found[k].1 && h[p] + w > h[k] {
                (h[k], back[k]) = (h[p] + w, p);
            }
        }
    }
    let mut path = Vec::new();
    let mut k = (0..found.len()).max_by(|&x, &y| h[x].total_cmp(&h[y])).unwrap_or(usize::MAX);
    while k != usize::MAX {
        path.push(found[k]);
        k = back[k];
    }
    path.reverse();
    let mut out = Vec::new();
    let (mut pa, mut pb) = (a0, b0);
    for (i, j, c) in path {
        if i > pa && j > pb {
            out.extend(fill_slot(ctx, ev, pa, i, pb, j));
        }
        let sim = ev.dots.group_cos(i, i + 1, j, j + 1);
        out.push(SentLink { a0: i, a1: i + 1, b0: j, b1: j + 1, sim, meaning: Some(c), filled: true });
        (pa, pb) = (i + 1, j + 1);
    }
    if a1 > pa && b1 > pb {
        out.extend(fill_slot(ctx, ev, pa, a1, pb, b1));
    }
    out
}

/// Cost of a group of `x` + `y` sentences.
fn shape_cost(x: u32, y: u32) -> f32 {
    match x + y {
        0..=2 => 0.0,
        3 => SHAPE_COST[0],
        _ => SHAPE_COST[1],
    }
}

/// The gain in score of growing `l` to cover `A[a.0..a.1]` and
/// `B[b.0..b.1]` too, with the grown link: the change in length fit, plus
/// the lexical evidence of the added sentences against the link's other
/// side (their own cosine as a z-score: the link's may be saturated), less
/// the cost of the bigger group. `None` when the result would not fit well
/// (|δ| > 1.5), hold a heading or more than four sentences a side.
fn grow(ctx: &Context, ev: &mut Evidence, l: SentLink, a: (u32, u32), b: (u32, u32)) -> Option<(f32, SentLink)> {
    let (a0, a1, b0, b1) = (l.a0.min(a.0), l.a1.max(a.1), l.b0.min(b.0), l.b1.max(b.1));
    if a1 - a0 > 4 || b1 - b0 > 4 || ctx.has_heading(a0, a1, b0, b1) {
        return None;
    }
    let (old, new) = (ctx.delta(l.a0, l.a1, l.b0, l.b1), ctx.delta(a0, a1, b0, b1));
    // The added sentences against the other side of the link.
    // Meaning judges an orphan only between two languages: in one, the
    // sentence an abridgement dropped is as close in meaning to its
    // neighbour's counterpart as a split half (same scene, same topic),
    // while a split half still shares words with it.
    let group_cos = |ev: &mut Evidence, a0, a1, b0, b1| {
        if ctx.mode.across() {
            ev.group_cos(a0, a1, b0, b1)
        } else {
            (ev.dots.group_cos(a0, a1, b0, b1), None)
        }
    };
    let (added, added_meaning) = if a.1 > a.0 && (a.0 < l.a0 || a.1 > l.a1) {
        group_cos(ev, a.0, a.1, l.b0, l.b1)
    } else {
        group_cos(ev, l.a0, l.a1, b.0, b.1)
    };
    let gain = (old * old - new * new) / 2.0 + LEX * ctx.z(ev, added, added_meaning)
        - (shape_cost(a1 - a0, b1 - b0) - shape_cost(l.a1 - l.a0, l.b1 - l.b0));
    let (sim, meaning) = group_cos(ev, a0, a1, b0, b1);
    (new.abs() <= 1.5).then_some((gain, SentLink { a0, a1, b0, b1, sim, meaning, filled: l.filled }))
}

fn mark(used: &mut [bool], s0: u32, s1: u32) {
    used[s0 as usize..s1 as usize].iter_mut().for_each(|u| *u = true);
}

fn all_used(used: &[bool], s0: u32, s1: u32) -> bool {
    used[s0 as usize..s1 as usize].iter().all(|&u| u)
}

fn all_free(used: &[bool], s0: u32, s1: u32) -> bool {
    used[s0 as usize..s1 as usize].iter().all(|&u| !u)
}

/// The sentences left alone on one side between `links[k]` and
/// `links[k + 1]`, where the other side has none: the first `t` may join
/// the link before, the last `u` the link after; the split with the best
/// total gain above zero is taken.
fn absorb(
    ctx: &Context,
    ev: &mut Evidence,
    links: &mut [SentLink],
    k: usize,
    side_a: bool,
    used: (&mut [bool], &mut [bool]),
) {
    let (l, n) = (links[k], links[k + 1]);
    let ((start, end), (ostart, oend)) =
        if side_a { ((l.a1, n.a0), (l.b1, n.b0)) } else { ((l.b1, n.b0), (l.a1, n.a0)) };
    let (mine, other) = if side_a { (used.0, used.1) } else { (used.1, used.0) };
    if start >= end || end - start > 3 || oend < ostart || !all_used(other, ostart, oend) || !all_free(mine, start, end)
    {
        return;
    }
    let grown = |ev: &mut Evidence, l: SentLink, s0: u32, s1: u32| -> Option<(f32, SentLink)> {
        if s0 == s1 {
            return Some((0.0, l));
        }
        if side_a {
            grow(ctx, ev, l, (s0, s1), (l.b0, l.b1))
        } else {
            grow(ctx, ev, l, (l.a0, l.a1), (s0, s1))
        }
    };
    let r = end - start;
    let mut best: Option<(f32, u32, u32, SentLink, SentLink)> = None;
    for t in 0..=r {
        for u in 0..=r - t {
            if t + u == 0 {
                continue;
            }
            let (Some((g1, x)), Some((g2, y))) = (grown(ev, l, start, start + t), grown(ev, n, end - u, end)) else {
                continue;
            };
            if g1 + g2 > 0.0 && best.is_none_or(|b| g1 + g2 > b.0) {
                best = Some((g1 + g2, t, u, x, y));
            }
        }
    }
    if let Some((_, t, u, x, y)) = best {
        links[k] = x;
        links[k + 1] = y;
        mark(mine, start, start + t);
        mark(mine, end - u, end);
    }
}

/// Share of sentences with no counterpart in a typical pair of versions,
/// and how many links that guess is worth.
const ORPHAN_RATE: f32 = 0.03;
const ORPHAN_PRIOR_LINKS: f32 = 20.0;

/// How likely a two-sided slot is to hold counterparts, in this pair.
///
/// A slot between two anchors with sentences on both sides holds either
/// counterparts the lexical evidence missed (a paraphrase) or a sentence
/// one version dropped next to one the other added. Which is likelier
/// depends on the pair: where one-sided slots are common (an abridgement
/// dropping sentences, a rendering adding its own), so is a drop next to an
/// addition. The rate `q` of sentences in one-sided slots among the
/// chains' links (shrunk towards [`ORPHAN_RATE`]) gives log odds
/// `ln((1 − q)/q)`, returned relative to a typical pair: positive for a
/// faithful translation, negative for a loose rendering.
fn slot_prior(chains: &[Chain]) -> f32 {
    let (mut orphans, mut links) = (0f32, 0f32);
    for c in chains {
        links += c.links.len() as f32;
        for w in c.links.windows(2) {
            let (ga, gb) = (w[1].a0 - w[0].a1, w[1].b0 - w[0].b1);
            if (ga == 0) != (gb == 0) {
                orphans += (ga + gb) as f32;
            }
        }
    }
    let q = (orphans + ORPHAN_RATE * ORPHAN_PRIOR_LINKS) / (orphans + links + ORPHAN_PRIOR_LINKS);
    let odds = |q: f32| ((1.0 - q) / q).ln();
    odds(q) - odds(ORPHAN_RATE)
}

/// The sentences completion may look at in each text: those in the slots
/// between the links of each chain, and (`across`) the links next to a
/// one-sided slot (a sentence there may join them). Encoding them in one batch is
/// what keeps meaning cheap.
fn slots(chains: &[Chain], across: bool) -> (Vec<u32>, Vec<u32>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for c in chains {
        for w in c.links.windows(2) {
            let (l, n) = (w[0], w[1]);
            let (ga, gb) = (n.a0.saturating_sub(l.a1), n.b0.saturating_sub(l.b1));
            if ga > 0 && gb > 0 {
                a.extend(l.a1..n.a0);
                b.extend(l.b1..n.b0);
            } else if across && (ga > 0) != (gb > 0) && ga + gb <= 3 {
                a.extend(l.a0..n.a1);
                b.extend(l.b0..n.b1);
            }
        }
    }
    (a, b)
}

/// Complete the chains of two texts: fill the slots between the links of
/// each chain, then let the sentences left alone in a one-sided slot join
/// a neighbouring link. The length model is fitted on the chains' links
/// (headings left out); `mean` and `sd` are the pair's background.
///
/// In [`Mode::MeaningFirst`] the chains are 1-1 anchors by meaning (two
/// languages), whose one-sided slots are mostly sentences one version
/// split, not sentences without counterpart: the slot prior is left
/// neutral.
pub(super) fn complete(
    chains: &mut [Chain],
    a: &Vectors,
    b: &Vectors,
    (mean, sd): (f32, f32),
    ev: &mut Evidence,
    mode: Mode,
) {
    let anchored = mode.across();
    let (mut used_a, mut used_b) = (vec![false; a.len()], vec![false; b.len()]);
    let mut groups = Vec::new();
    for l in chains.iter().flat_map(|c| &c.links) {
        mark(&mut used_a, l.a0, l.a1);
        mark(&mut used_b, l.b0, l.b1);
        if !(a.heading[l.a0 as usize] || b.heading[l.b0 as usize]) {
            groups.push((Context::len(&a.len, l.a0, l.a1), Context::len(&b.len, l.b0, l.b1)));
        }
    }
    let ctx = &Context {
        a,
        b,
        mean,
        sd,
        model: LengthModel::fit(&groups),
        prior: if anchored { 0.0 } else { slot_prior(chains) },
        mode,
    };
    if let Some(meaning) = ev.meaning.as_deref_mut() {
        let (slot_a, slot_b) = slots(chains, anchored);
        if !slot_a.is_empty() || !slot_b.is_empty() {
            meaning.ensure(&slot_a, &slot_b);
        }
    }
    for c in chains.iter_mut() {
        let mut links: Vec<SentLink> = Vec::with_capacity(c.links.len());
        for &l in &c.links {
            if let Some(&prev) = links.last() {
                let prev: SentLink = prev;
                if l.a0 > prev.a1
                    && l.b0 > prev.b1
                    && all_free(&used_a, prev.a1, l.a0)
                    && all_free(&used_b, prev.b1, l.b0)
                {
                    for g in fill_slot_anchored(ctx, ev, prev.a1, l.a0, prev.b1, l.b0) {
                        mark(&mut used_a, g.a0, g.a1);
                        mark(&mut used_b, g.b0, g.b1);
                        links.push(g);
                    }
                }
            }
            links.push(l);
        }
        for k in 0..links.len().saturating_sub(1) {
            absorb(ctx, ev, &mut links, k, true, (&mut used_a, &mut used_b));
            absorb(ctx, ev, &mut links, k, false, (&mut used_a, &mut used_b));
        }
        c.links = links;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_length_model_learns_the_ratio_and_spread_of_the_pair() {
        // B is 1.5 times as long as A, give or take 4·√l_a: the squared
        // deviation per unit of mean length (1.5·l_a) is 16 / 1.5.
        let groups: Vec<(f32, f32)> = (0..40)
            .map(|k| {
                let la = 10.0 + k as f32;
                (la, 1.5 * la + if k % 2 == 0 { 4.0 } else { -4.0 } * la.sqrt())
            })
            .collect();
        let m = LengthModel::fit(&groups);
        assert!((m.c - 1.5).abs() < 0.02, "{m:?}");
        assert!((m.s2 - 16.0 / 1.5).abs() < 1.0, "{m:?}");
        // A group that fits has a small δ, one far too long a large one.
        assert!(m.delta(20.0, 30.0).abs() < 0.5, "{m:?}");
        assert!(m.delta(20.0, 80.0) > 2.0, "{m:?}");
    }

    fn link(a0: u32, a1: u32, b0: u32, b1: u32) -> SentLink {
        SentLink { a0, a1, b0, b1, sim: 0.5, meaning: None, filled: false }
    }

    #[test]
    fn slots_are_trusted_less_where_versions_drop_and_add_sentences() {
        // Forty links in a row: a faithful translation.
        let faithful =
            Chain { links: (0..40).map(|k| link(k, k + 1, k, k + 1)).collect(), score: 1.0, nulls: Vec::new() };
        // The same with a sentence dropped after every fourth link.
        let loose = Chain {
            links: (0..40).map(|k| link(k + k / 4, k + k / 4 + 1, k, k + 1)).collect(),
            score: 1.0,
            nulls: Vec::new(),
        };
        let (f, l) = (slot_prior(&[faithful]), slot_prior(&[loose]));
        assert!(f > 0.0 && l < 0.0, "{f} {l}");
    }

    #[test]
    fn without_links_the_model_is_the_prior() {
        let m = LengthModel::fit(&[]);
        assert_eq!(m, LengthModel { c: 1.0, s2: MIN_S2 });
    }
}
