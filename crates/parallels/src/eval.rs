//! Scoring an alignment against gold links.
//!
//! Gold format (as in `corpus/zh-variants/gold.json`):
//! `{"documents": {id: path, …}, "pairs": {"<a>-<b>": [{"a": [s, e], "b": [s, e], …}, …]}}`.
//!
//! Two measures, both over characters, both micro-averaged over pairs:
//!
//! * **link** — a link aligns every character of its A span with every
//!   character of its B span; precision, recall and F1 over those character
//!   pairs. Segmentation differences cost little; over-long links cost a lot.
//!   A predicted passage without links counts as one link.
//! * **coverage** — which characters are aligned at all, on either side;
//!   precision, recall and F1 over characters (A and B counted together).
//!
//! Every unordered pair of gold documents is scored; a pair missing from the
//! gold has no links, so anything predicted there is a false positive.
//!
//! With verse gold (one gold link per verse of two Bible translations, say),
//! [`evaluate_units`] scores each gold link as a *unit*, so that links finer
//! than a verse are not punished:
//!
//! * **unit P** — of the predicted character pairs whose both characters lie
//!   in units, the share whose units are at most one apart (±1-unit
//!   tolerance: a link that straddles a verse boundary is not wrong);
//! * **unit R** — the share of unit characters (both sides) aligned to some
//!   character of their own unit on the other side;
//! * **coverage** — characters aligned at all, where positives are unit
//!   characters and negatives the characters the gold lists as `unmatched`
//!   (present in one version only); other characters are ignored.
//!
//! These are the measures of `corpus/zh-bible/score_bible.py`, computed by a
//! sweep over span boundaries instead of character by character.

use crate::output::AlignOutput;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Gold links for a set of documents.
#[derive(Clone, Debug, Deserialize)]
pub struct Gold {
    /// Document ids (and paths). When absent, the ids are those of the
    /// alignment being scored.
    #[serde(default)]
    pub documents: BTreeMap<String, String>,
    /// Per pair of documents, keyed `"<a>-<b>"`: the gold links.
    pub pairs: BTreeMap<String, Vec<GoldLink>>,
    /// Per pair: spans present in one version only (negatives of the unit
    /// coverage measure).
    #[serde(default)]
    pub unmatched: BTreeMap<String, Unmatched>,
}

/// Spans of a gold pair with no counterpart on the other side.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Unmatched {
    /// Spans of A.
    #[serde(default)]
    pub a: Vec<[u32; 2]>,
    /// Spans of B.
    #[serde(default)]
    pub b: Vec<[u32; 2]>,
}

/// One gold link: a span of A that renders a span of B (code points of
/// the original texts).
#[derive(Clone, Debug, Deserialize)]
pub struct GoldLink {
    /// The span of A.
    pub a: [u32; 2],
    /// The span of B.
    pub b: [u32; 2],
}

/// True positives, predicted and gold counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    /// Predicted and gold at once.
    pub tp: u64,
    /// Predicted.
    pub predicted: u64,
    /// Gold.
    pub gold: u64,
}

/// `num / den`, and 1 when there is nothing to count.
fn share(num: u64, den: u64) -> f64 {
    if den == 0 {
        1.0
    } else {
        num as f64 / den as f64
    }
}

/// Harmonic mean of a precision and a recall.
fn harmonic(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

impl Counts {
    /// True positives among the predicted (1 when nothing is predicted).
    pub fn precision(&self) -> f64 {
        share(self.tp, self.predicted)
    }
    /// True positives among the gold (1 when the gold is empty).
    pub fn recall(&self) -> f64 {
        share(self.tp, self.gold)
    }
    /// Harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        harmonic(self.precision(), self.recall())
    }
    fn add(&mut self, o: Counts) {
        self.tp += o.tp;
        self.predicted += o.predicted;
        self.gold += o.gold;
    }
}

/// Scores of one document pair.
#[derive(Clone, Debug, PartialEq)]
pub struct PairScore {
    /// Id of the pair's first document (as the gold orients the pair).
    pub a: String,
    /// Id of its second document.
    pub b: String,
    /// Gold links of the pair.
    pub gold_links: usize,
    /// Predicted links of the pair (a passage without links counts one).
    pub predicted_links: usize,
    /// The link measure's counts (character pairs).
    pub link: Counts,
    /// The coverage measure's counts (characters).
    pub coverage: Counts,
}

/// Scores of a whole alignment.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Every unordered pair of documents.
    pub pairs: Vec<PairScore>,
    /// The link measure over all pairs.
    pub link: Counts,
    /// The coverage measure over all pairs.
    pub coverage: Counts,
}

type Rect = ([u32; 2], [u32; 2]);

/// Sorted, merged intervals.
fn merge(mut v: Vec<[u32; 2]>) -> Vec<[u32; 2]> {
    v.retain(|x| x[0] < x[1]);
    v.sort_unstable();
    let mut out: Vec<[u32; 2]> = Vec::with_capacity(v.len());
    for x in v {
        match out.last_mut() {
            Some(l) if x[0] <= l[1] => l[1] = l[1].max(x[1]),
            _ => out.push(x),
        }
    }
    out
}

fn total(v: &[[u32; 2]]) -> u64 {
    v.iter().map(|x| (x[1] - x[0]) as u64).sum()
}

fn intersect(a: &[[u32; 2]], b: &[[u32; 2]]) -> u64 {
    let (mut i, mut j, mut s) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        let lo = a[i][0].max(b[j][0]);
        let hi = a[i][1].min(b[j][1]);
        if lo < hi {
            s += (hi - lo) as u64;
        }
        if a[i][1] < b[j][1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    s
}

/// Character-pair counts of two sets of rectangles (unions, so overlapping
/// links are not counted twice).
fn pair_counts(pred: &[Rect], gold: &[Rect]) -> Counts {
    // Sweep over A positions where the set of covering rectangles changes.
    let mut cuts: Vec<u32> = pred.iter().chain(gold).flat_map(|r| [r.0[0], r.0[1]]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut c = Counts::default();
    for w in cuts.windows(2) {
        let (x0, x1) = (w[0], w[1]);
        let width = (x1 - x0) as u64;
        let cover = |rs: &[Rect]| merge(rs.iter().filter(|r| r.0[0] <= x0 && x1 <= r.0[1]).map(|r| r.1).collect());
        let (p, g) = (cover(pred), cover(gold));
        c.predicted += width * total(&p);
        c.gold += width * total(&g);
        c.tp += width * intersect(&p, &g);
    }
    c
}

fn coverage_counts(pred: &[Rect], gold: &[Rect]) -> Counts {
    let side = |f: fn(&Rect) -> [u32; 2]| {
        let p = merge(pred.iter().map(f).collect());
        let g = merge(gold.iter().map(f).collect());
        Counts { tp: intersect(&p, &g), predicted: total(&p), gold: total(&g) }
    };
    let mut c = side(|r| r.0);
    c.add(side(|r| r.1));
    c
}

/// Split a gold pair key `a-b` into two known document ids.
fn split_key<'a>(key: &'a str, docs: &BTreeMap<String, String>) -> Option<(&'a str, &'a str)> {
    key.match_indices('-')
        .map(|(k, _)| (&key[..k], &key[k + 1..]))
        .find(|(a, b)| docs.contains_key(*a) && docs.contains_key(*b))
}

/// Why a gold file cannot score an alignment.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A key of the gold's `pairs` is not `a-b` for two documents of the
    /// gold (or, when the gold lists none, of the alignment).
    #[error("gold pair {key:?} does not name two documents of the gold")]
    UnknownPair {
        /// The key as the gold spells it.
        key: String,
    },
    /// A span that ends before it starts (a gold link, or a predicted
    /// link or passage): it would count as empty, or as the characters
    /// between its ends.
    #[error(
        "{whose} pair {pair}, link {link} (from 0): the span {:?} of {side} ends before it starts; a span is \
         [start, end) with start ≤ end",
        span
    )]
    Reversed {
        /// `"gold"` or `"predicted"`.
        whose: &'static str,
        /// The pair, `a-b`.
        pair: String,
        /// The link's place in the pair (passages and links counted
        /// together for a prediction).
        link: usize,
        /// `"a"` or `"b"`.
        side: &'static str,
        /// The span.
        span: [u32; 2],
    },
    /// A predicted pair naming a document the prediction does not list.
    #[error("predicted pair {a}-{b} names {id:?}, which is not among the prediction's documents")]
    UnknownDocument {
        /// The pair's ids.
        a: String,
        /// The other.
        b: String,
        /// The id not listed.
        id: String,
    },
    /// A gold and a prediction without a document in common: scoring would
    /// give zeros that measure nothing.
    #[error(
        "no document of the prediction ({}) is in the gold ({}); is this the gold of these texts?",
        predicted.join(", "),
        gold.join(", ")
    )]
    NoCommonDocument {
        /// The prediction's ids.
        predicted: Vec<String>,
        /// The gold's ids.
        gold: Vec<String>,
    },
}

impl EvalError {
    /// Whether the error is in the prediction (else in the gold).
    pub fn in_prediction(&self) -> bool {
        matches!(
            self,
            EvalError::Reversed { whose: "predicted", .. }
                | EvalError::UnknownDocument { .. }
                | EvalError::NoCommonDocument { .. }
        )
    }
}

/// Refuse spans that end before they start, in the gold and in the
/// prediction, and predicted pairs that name documents the prediction does
/// not list; and a prediction that shares no document with a gold that
/// lists its documents.
fn check(gold: &Gold, pred: &AlignOutput) -> Result<(), EvalError> {
    let reversed = |s: [u32; 2]| s[0] > s[1];
    for (key, links) in &gold.pairs {
        for (k, l) in links.iter().enumerate() {
            for (side, span) in [("a", l.a), ("b", l.b)] {
                if reversed(span) {
                    return Err(EvalError::Reversed { whose: "gold", pair: key.clone(), link: k, side, span });
                }
            }
        }
    }
    let ids: std::collections::BTreeSet<&str> = pred.documents.iter().map(|d| d.id.as_str()).collect();
    for pair in &pred.pairs {
        for id in [&pair.a, &pair.b] {
            if !ids.contains(id.as_str()) {
                return Err(EvalError::UnknownDocument { a: pair.a.clone(), b: pair.b.clone(), id: id.clone() });
            }
        }
        let spans =
            pair.passages.iter().flat_map(|p| std::iter::once((p.a, p.b)).chain(p.links.iter().map(|l| (l.a, l.b))));
        for (k, (a, b)) in spans.enumerate() {
            for (side, span) in [("a", a), ("b", b)] {
                if reversed(span) {
                    let pair = format!("{}-{}", pair.a, pair.b);
                    return Err(EvalError::Reversed { whose: "predicted", pair, link: k, side, span });
                }
            }
        }
    }
    if !gold.documents.is_empty() && !ids.is_empty() && !ids.iter().any(|id| gold.documents.contains_key(*id)) {
        return Err(EvalError::NoCommonDocument {
            predicted: ids.iter().map(|s| s.to_string()).collect(),
            gold: gold.documents.keys().cloned().collect(),
        });
    }
    Ok(())
}

/// One unordered pair of documents: its gold links and the predicted ones,
/// both oriented as the gold orients the pair.
struct Scored {
    a: String,
    b: String,
    key: Option<String>,
    gold: Vec<Rect>,
    pred: Vec<Rect>,
}

/// Every unordered pair of the gold's documents (or, when the gold names
/// none, of the alignment's), with gold and predicted links. Errors name a
/// gold pair key that does not split into two known documents.
fn scored_pairs(gold: &Gold, pred: &AlignOutput) -> Result<Vec<Scored>, EvalError> {
    check(gold, pred)?;
    let docs: BTreeMap<String, String> = if gold.documents.is_empty() {
        pred.documents.iter().map(|d| (d.id.clone(), d.path.display().to_string())).collect()
    } else {
        gold.documents.clone()
    };
    let mut gold_rects: BTreeMap<(String, String), (String, Vec<Rect>)> = BTreeMap::new();
    for (key, links) in &gold.pairs {
        let (a, b) = split_key(key, &docs).ok_or_else(|| EvalError::UnknownPair { key: key.clone() })?;
        gold_rects.insert((a.to_string(), b.to_string()), (key.clone(), links.iter().map(|l| (l.a, l.b)).collect()));
    }
    let ids: Vec<&String> = docs.keys().collect();
    let mut out = Vec::new();
    for (x, a) in ids.iter().enumerate() {
        for b in &ids[x + 1..] {
            // Orient as the gold does, if it has the pair.
            let (a, b) = if gold_rects.contains_key(&((*b).clone(), (*a).clone())) { (*b, *a) } else { (*a, *b) };
            let (key, g) = match gold_rects.get(&(a.clone(), b.clone())) {
                Some((k, g)) => (Some(k.clone()), g.clone()),
                None => (None, Vec::new()),
            };
            let mut p: Vec<Rect> = Vec::new();
            for pair in &pred.pairs {
                let flip = if &pair.a == a && &pair.b == b {
                    false
                } else if &pair.a == b && &pair.b == a {
                    true
                } else {
                    continue;
                };
                for ps in &pair.passages {
                    let rects: Vec<Rect> = if ps.links.is_empty() {
                        vec![(ps.a, ps.b)]
                    } else {
                        ps.links.iter().map(|l| (l.a, l.b)).collect()
                    };
                    p.extend(rects.into_iter().map(|(ra, rb)| if flip { (rb, ra) } else { (ra, rb) }));
                }
            }
            out.push(Scored { a: a.clone(), b: b.clone(), key, gold: g, pred: p });
        }
    }
    Ok(out)
}

/// Score `pred` against `gold` with the link and coverage measures. Errors
/// name a gold pair key that does not split into two known documents, a
/// span that ends before it starts, a predicted pair of unlisted
/// documents, or a prediction without a document of the gold.
pub fn evaluate(gold: &Gold, pred: &AlignOutput) -> Result<Report, EvalError> {
    let mut report = Report { pairs: Vec::new(), link: Counts::default(), coverage: Counts::default() };
    for s in scored_pairs(gold, pred)? {
        let score = PairScore {
            gold_links: s.gold.len(),
            predicted_links: s.pred.len(),
            link: pair_counts(&s.pred, &s.gold),
            coverage: coverage_counts(&s.pred, &s.gold),
            a: s.a,
            b: s.b,
        };
        report.link.add(score.link);
        report.coverage.add(score.coverage);
        report.pairs.push(score);
    }
    Ok(report)
}

/// Score `pred` against verse-like gold units: unit precision with a ±1-unit
/// tolerance, unit recall, and coverage with the gold's `unmatched` spans as
/// negatives (see the module docs).
pub fn evaluate_units(gold: &Gold, pred: &AlignOutput) -> Result<UnitReport, EvalError> {
    let mut report = UnitReport::default();
    for s in scored_pairs(gold, pred)? {
        let unmatched = s.key.as_ref().and_then(|k| gold.unmatched.get(k)).cloned().unwrap_or_default();
        let score = UnitPairScore {
            gold_links: s.gold.len(),
            predicted_links: s.pred.len(),
            units: unit_counts(&s.pred, &s.gold),
            coverage: unit_coverage(&s.pred, &s.gold, &unmatched),
            a: s.a,
            b: s.b,
        };
        report.units.add(score.units);
        report.coverage.add(score.coverage);
        report.pairs.push(score);
    }
    Ok(report)
}

/// Unit precision and recall counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnitCounts {
    /// Predicted character pairs with both characters in units.
    pub predicted: u64,
    /// ... of which the two units are at most one apart.
    pub predicted_ok: u64,
    /// Unit characters, both sides.
    pub unit_chars: u64,
    /// ... aligned to some character of their own unit.
    pub unit_hit: u64,
}

impl UnitCounts {
    /// Unit precision (±1 unit).
    pub fn precision(&self) -> f64 {
        share(self.predicted_ok, self.predicted)
    }
    /// Unit recall.
    pub fn recall(&self) -> f64 {
        share(self.unit_hit, self.unit_chars)
    }
    /// Harmonic mean of unit precision and recall.
    pub fn f1(&self) -> f64 {
        harmonic(self.precision(), self.recall())
    }
    fn add(&mut self, o: UnitCounts) {
        self.predicted += o.predicted;
        self.predicted_ok += o.predicted_ok;
        self.unit_chars += o.unit_chars;
        self.unit_hit += o.unit_hit;
    }
}

/// Unit scores of one document pair.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitPairScore {
    /// Id of the pair's first document (as the gold orients the pair).
    pub a: String,
    /// Id of its second document.
    pub b: String,
    /// Gold links of the pair.
    pub gold_links: usize,
    /// Predicted links of the pair (a passage without links counts one).
    pub predicted_links: usize,
    /// Unit precision and recall counts.
    pub units: UnitCounts,
    /// Unit coverage counts (unmatched spans as negatives).
    pub coverage: Counts,
}

/// Unit scores of a whole alignment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitReport {
    /// Every unordered pair of documents.
    pub pairs: Vec<UnitPairScore>,
    /// Unit counts over all pairs.
    pub units: UnitCounts,
    /// Unit coverage over all pairs.
    pub coverage: Counts,
}

/// Where the units lie on one side: `(span, unit index)`, empty spans left out.
fn unit_spans(gold: &[Rect], side: fn(&Rect) -> [u32; 2]) -> Vec<([u32; 2], usize)> {
    gold.iter().enumerate().map(|(k, r)| (side(r), k)).filter(|(s, _)| s[0] < s[1]).collect()
}

/// Unit precision and recall counts of one pair (`score_bible.py`'s
/// `pred_ok`/`pred_pairs` and `unit_hit`/`unit_tot`).
fn unit_counts(pred: &[Rect], gold: &[Rect]) -> UnitCounts {
    let mut c = UnitCounts::default();
    let b_units = merge(gold.iter().map(|r| r.1).collect());
    // From A: every A character in a unit, against the union of the B spans
    // linked to it.
    let a_units = unit_spans(gold, |r| r.0);
    let side_hits = |units: &[([u32; 2], usize)],
                     mine: fn(&Rect) -> [u32; 2],
                     theirs: fn(&Rect) -> [u32; 2],
                     c: &mut UnitCounts,
                     precision: bool| {
        for &(span, k) in units {
            let mut cuts: Vec<u32> = vec![span[0], span[1]];
            for r in pred {
                let m = mine(r);
                if m[0] < span[1] && span[0] < m[1] {
                    cuts.extend([m[0].max(span[0]), m[1].min(span[1])]);
                }
            }
            cuts.sort_unstable();
            cuts.dedup();
            let own = theirs(&gold[k]);
            for w in cuts.windows(2) {
                let (x0, x1) = (w[0], w[1]);
                let width = (x1 - x0) as u64;
                let cover = merge(pred.iter().filter(|r| mine(r)[0] <= x0 && x1 <= mine(r)[1]).map(theirs).collect());
                c.unit_chars += width;
                if intersect(&cover, &[own]) > 0 {
                    c.unit_hit += width;
                }
                if precision {
                    c.predicted += width * intersect(&cover, &b_units);
                    let near: Vec<[u32; 2]> =
                        (k.saturating_sub(1)..=(k + 1).min(gold.len() - 1)).map(|v| theirs(&gold[v])).collect();
                    // Gold units may overlap in principle; count each
                    // neighbour's overlap as the scorer does.
                    c.predicted_ok += width * near.iter().map(|s| intersect(&cover, &[*s])).sum::<u64>();
                }
            }
        }
    };
    side_hits(&a_units, |r| r.0, |r| r.1, &mut c, true);
    let b_spans = unit_spans(gold, |r| r.1);
    side_hits(&b_spans, |r| r.1, |r| r.0, &mut c, false);
    c
}

/// Coverage with positives the unit characters and negatives the unmatched
/// ones; other characters are ignored.
fn unit_coverage(pred: &[Rect], gold: &[Rect], unmatched: &Unmatched) -> Counts {
    let side = |f: fn(&Rect) -> [u32; 2], neg: &[[u32; 2]]| {
        let p = merge(pred.iter().map(f).collect());
        let g = merge(gold.iter().map(f).collect());
        let n = merge(neg.to_vec());
        let tp = intersect(&p, &g);
        Counts { tp, predicted: tp + intersect(&p, &n), gold: total(&g) }
    };
    let mut c = side(|r| r.0, &unmatched.a);
    c.add(side(|r| r.1, &unmatched.b));
    c
}

impl UnitReport {
    /// A plain-text table: one row per pair, then the totals.
    pub fn table(&self) -> String {
        let width = self.pairs.iter().map(|p| p.a.chars().count() + p.b.chars().count() + 1).max().unwrap_or(0).max(24);
        let mut s = format!(
            "{:<width$} {:>5} {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
            "pair", "gold", "pred", "unit P", "unit R", "unit F1", "cov P", "cov R", "cov F1"
        );
        let row = |name: &str, g: usize, p: usize, u: &UnitCounts, c: &Counts| {
            format!(
                "{name:<width$} {g:>5} {p:>5} {:>8.4} {:>8.4} {:>8.4} {:>8.4} {:>8.4} {:>8.4}\n",
                u.precision(),
                u.recall(),
                u.f1(),
                c.precision(),
                c.recall(),
                c.f1()
            )
        };
        for p in &self.pairs {
            s.push_str(&row(&format!("{}-{}", p.a, p.b), p.gold_links, p.predicted_links, &p.units, &p.coverage));
        }
        let (g, p): (usize, usize) =
            (self.pairs.iter().map(|x| x.gold_links).sum(), self.pairs.iter().map(|x| x.predicted_links).sum());
        s.push_str(&row("ALL (micro)", g, p, &self.units, &self.coverage));
        s
    }
}

impl Report {
    /// A plain-text table: one row per pair, then the totals.
    pub fn table(&self) -> String {
        let mut s = String::new();
        s.push_str("pair                      gold  pred   link P   link R  link F1    cov P    cov R   cov F1\n");
        let row = |name: &str, g: String, p: String, l: &Counts, c: &Counts| {
            format!(
                "{name:<24} {g:>5} {p:>5} {:>8.4} {:>8.4} {:>8.4} {:>8.4} {:>8.4} {:>8.4}\n",
                l.precision(),
                l.recall(),
                l.f1(),
                c.precision(),
                c.recall(),
                c.f1()
            )
        };
        for p in &self.pairs {
            s.push_str(&row(
                &format!("{}-{}", p.a, p.b),
                p.gold_links.to_string(),
                p.predicted_links.to_string(),
                &p.link,
                &p.coverage,
            ));
        }
        let (g, p): (usize, usize) =
            (self.pairs.iter().map(|x| x.gold_links).sum(), self.pairs.iter().map(|x| x.predicted_links).sum());
        s.push_str(&row("ALL (micro)", g.to_string(), p.to_string(), &self.link, &self.coverage));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_links_score_one() {
        let r = vec![([0, 10], [0, 8]), ([10, 20], [8, 20])];
        let c = pair_counts(&r, &r);
        assert_eq!(c.tp, 10 * 8 + 10 * 12);
        assert_eq!(c.f1(), 1.0);
    }

    #[test]
    fn an_over_long_link_costs_precision() {
        let gold = vec![([0, 10], [0, 10]), ([10, 20], [10, 20])];
        let pred = vec![([0, 20], [0, 20])];
        let c = pair_counts(&pred, &gold);
        assert_eq!(c.tp, 200);
        assert_eq!(c.predicted, 400);
        assert!((c.precision() - 0.5).abs() < 1e-9);
        assert_eq!(c.recall(), 1.0);
    }

    #[test]
    fn overlapping_predictions_are_not_counted_twice() {
        let gold = vec![([0, 10], [0, 10])];
        let pred = vec![([0, 10], [0, 10]), ([5, 10], [5, 10])];
        assert_eq!(pair_counts(&pred, &gold), Counts { tp: 100, predicted: 100, gold: 100 });
    }

    #[test]
    fn coverage_counts_both_sides() {
        let gold = vec![([0, 10], [0, 10])];
        let pred = vec![([5, 15], [0, 10])];
        let c = coverage_counts(&pred, &gold);
        assert_eq!(c, Counts { tp: 15, predicted: 20, gold: 20 });
    }

    /// Three verses of 10 characters on each side.
    fn verses() -> Vec<Rect> {
        vec![([0, 10], [0, 10]), ([10, 20], [10, 20]), ([20, 30], [20, 30])]
    }

    #[test]
    fn links_finer_than_a_unit_lose_nothing() {
        let pred = vec![([0, 5], [0, 4]), ([5, 10], [4, 10]), ([10, 30], [10, 30])];
        let c = unit_counts(&pred, &verses());
        assert_eq!((c.precision(), c.recall()), (1.0, 1.0), "{c:?}");
    }

    #[test]
    fn a_link_one_unit_off_is_tolerated_two_is_not() {
        // Verse 1 of A linked to verse 2 of B: within ±1.
        let c = unit_counts(&[([0, 10], [10, 20])], &verses());
        assert_eq!(c.precision(), 1.0);
        // ... but no character is aligned to its own verse.
        assert_eq!(c.unit_hit, 0);
        assert_eq!(c.unit_chars, 60);
        // Verse 1 against verse 3: wrong.
        let c = unit_counts(&[([0, 10], [20, 30])], &verses());
        assert_eq!(c, UnitCounts { predicted: 100, predicted_ok: 0, unit_chars: 60, unit_hit: 0 });
    }

    #[test]
    fn unit_recall_counts_each_side() {
        // A's verse 1 half linked to B's verse 1: 5 A chars and 10 B chars hit.
        let c = unit_counts(&[([0, 5], [0, 10])], &verses());
        assert_eq!((c.unit_hit, c.unit_chars), (15, 60));
    }

    #[test]
    fn unit_coverage_counts_unmatched_spans_as_negatives() {
        let unmatched = Unmatched { a: vec![[40, 50]], b: vec![] };
        // 30 unit chars of A, 30 of B aligned; 5 unmatched chars of A; 5
        // chars outside both are ignored.
        let pred = vec![([0, 30], [0, 30]), ([40, 45], [35, 40]), ([60, 65], [30, 35])];
        let c = unit_coverage(&pred, &verses(), &unmatched);
        assert_eq!(c, Counts { tp: 60, predicted: 65, gold: 60 });
    }

    #[test]
    fn pair_keys_split_on_known_ids() {
        let docs: BTreeMap<String, String> = [("v2_trad", ""), ("v3", ""), ("a-b", ""), ("c", "")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(split_key("v2_trad-v3", &docs), Some(("v2_trad", "v3")));
        assert_eq!(split_key("a-b-c", &docs), Some(("a-b", "c")));
        assert_eq!(split_key("x-y", &docs), None);
    }
}
