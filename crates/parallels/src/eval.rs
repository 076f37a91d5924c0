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

use crate::output::AlignOutput;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Gold links for a set of documents.
#[derive(Clone, Debug, Deserialize)]
pub struct Gold {
    pub documents: BTreeMap<String, String>,
    pub pairs: BTreeMap<String, Vec<GoldLink>>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct GoldLink {
    pub a: [u32; 2],
    pub b: [u32; 2],
}

/// True positives, predicted and gold counts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    pub tp: u64,
    pub predicted: u64,
    pub gold: u64,
}

impl Counts {
    pub fn precision(&self) -> f64 {
        if self.predicted == 0 {
            1.0
        } else {
            self.tp as f64 / self.predicted as f64
        }
    }
    pub fn recall(&self) -> f64 {
        if self.gold == 0 {
            1.0
        } else {
            self.tp as f64 / self.gold as f64
        }
    }
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
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
    pub a: String,
    pub b: String,
    pub gold_links: usize,
    pub predicted_links: usize,
    pub link: Counts,
    pub coverage: Counts,
}

/// Scores of a whole alignment.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub pairs: Vec<PairScore>,
    pub link: Counts,
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

/// Score `pred` against `gold`. Errors name a gold pair key that does not
/// split into two known documents.
pub fn evaluate(gold: &Gold, pred: &AlignOutput) -> Result<Report, String> {
    let mut gold_rects: BTreeMap<(String, String), Vec<Rect>> = BTreeMap::new();
    for (key, links) in &gold.pairs {
        let (a, b) = split_key(key, &gold.documents)
            .ok_or_else(|| format!("gold pair {key:?} does not name two documents of the gold"))?;
        gold_rects.insert((a.to_string(), b.to_string()), links.iter().map(|l| (l.a, l.b)).collect());
    }
    let ids: Vec<&String> = gold.documents.keys().collect();
    let mut report = Report { pairs: Vec::new(), link: Counts::default(), coverage: Counts::default() };
    for (x, a) in ids.iter().enumerate() {
        for b in &ids[x + 1..] {
            // Orient as the gold does, if it has the pair.
            let (a, b) = if gold_rects.contains_key(&((*b).clone(), (*a).clone())) { (*b, *a) } else { (*a, *b) };
            let g = gold_rects.get(&(a.clone(), b.clone())).cloned().unwrap_or_default();
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
            let score = PairScore {
                a: a.clone(),
                b: b.clone(),
                gold_links: g.len(),
                predicted_links: p.len(),
                link: pair_counts(&p, &g),
                coverage: coverage_counts(&p, &g),
            };
            report.link.add(score.link);
            report.coverage.add(score.coverage);
            report.pairs.push(score);
        }
    }
    Ok(report)
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
