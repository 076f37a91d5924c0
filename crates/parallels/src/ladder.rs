//! Beads as sentence indices: the sentence aligners' convention.
//!
//! Sentence aligners (Gale–Church, Hunalign, Vecalign, Bertalign) take two
//! texts cut one sentence a line and write their alignment as a *ladder*:
//! one bead a line, the sentence indices of each side, `[0, 1]:[0]`, with
//! the null beads `[5]:[]` and `[]:[7]` for sentences without counterpart;
//! the field's scorers read that. This module turns the passages of one
//! pair into such beads ([`beads_of_pair`]), writes and reads the format
//! ([`write()`], [`parse`]), and scores beads against a gold ([`score`]):
//! strict and lax precision, recall and F1 as Sennrich and Volk defined
//! them and as the published tables count them — counts summed over the
//! documents, precision counting the null beads of the output.

use crate::align::{Passage, Span};
use crate::segment::Sentence;
use std::fmt::Write as _;

/// One bead: sentence indices of A and of B, in order; one side may be
/// empty (a null bead), never both.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bead {
    /// Sentences of A.
    pub a: Vec<u32>,
    /// Sentences of B.
    pub b: Vec<u32>,
}

impl Bead {
    /// Sentences on both sides.
    pub fn linked(&self) -> bool {
        !self.a.is_empty() && !self.b.is_empty()
    }
}

/// The sentences whose span lies more than half inside `span` (by code
/// points), as indices into `sentences`.
fn sentences_in(sentences: &[Sentence], span: Span) -> Vec<u32> {
    let lo = sentences.partition_point(|s| s.end <= span[0]);
    let mut out = Vec::new();
    for (k, s) in sentences.iter().enumerate().skip(lo) {
        if s.start >= span[1] {
            break;
        }
        let inside = s.end.min(span[1]).saturating_sub(s.start.max(span[0]));
        if 2 * inside > s.end - s.start {
            out.push(k as u32);
        }
    }
    out
}

/// The beads of one pair: every link of every passage mapped to the
/// sentences it covers (more than half of a sentence), links that share a
/// sentence joined into one bead, each passage's unlinked sentences and
/// every sentence in no bead as null beads of one sentence. In text order:
/// linked beads by their first sentence of A, each null bead before the
/// first linked bead that comes after it on its side.
pub fn beads_of_pair(sa: &[Sentence], sb: &[Sentence], passages: &[Passage]) -> Vec<Bead> {
    let (n, m) = (sa.len(), sb.len());
    // Union–find over links; a sentence points to the first link taking it.
    let mut links: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    for p in passages {
        if p.links.is_empty() {
            links.push((sentences_in(sa, p.a), sentences_in(sb, p.b)));
        }
        for l in &p.links {
            links.push((sentences_in(sa, l.a), sentences_in(sb, l.b)));
        }
    }
    let mut parent: Vec<usize> = (0..links.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let (mut owner_a, mut owner_b) = (vec![usize::MAX; n], vec![usize::MAX; m]);
    for (k, (la, lb)) in links.iter().enumerate() {
        for (owner, idx) in [(&mut owner_a, la), (&mut owner_b, lb)] {
            for &i in idx {
                match owner[i as usize] {
                    usize::MAX => owner[i as usize] = k,
                    o => {
                        let (x, y) = (find(&mut parent, o), find(&mut parent, k));
                        parent[x.max(y)] = x.min(y);
                    }
                }
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Bead> = Default::default();
    for (k, (la, lb)) in links.iter().enumerate() {
        let g = groups.entry(find(&mut parent, k)).or_insert_with(|| Bead { a: Vec::new(), b: Vec::new() });
        g.a.extend(la);
        g.b.extend(lb);
    }
    let mut linked: Vec<Bead> = Vec::new();
    let (mut used_a, mut used_b) = (vec![false; n], vec![false; m]);
    for mut g in groups.into_values() {
        if g.a.is_empty() || g.b.is_empty() {
            continue;
        }
        g.a.sort_unstable();
        g.a.dedup();
        g.b.sort_unstable();
        g.b.dedup();
        g.a.iter().for_each(|&i| used_a[i as usize] = true);
        g.b.iter().for_each(|&j| used_b[j as usize] = true);
        linked.push(g);
    }
    linked.sort();
    in_text_order(linked, &used_a, &used_b)
}

/// Linked beads (sorted) with a null bead for every unused sentence.
fn in_text_order(linked: Vec<Bead>, used_a: &[bool], used_b: &[bool]) -> Vec<Bead> {
    // Where each null bead goes: before the first linked bead whose
    // first sentence on its side comes after it.
    let mut slots: Vec<Vec<Bead>> = vec![Vec::new(); linked.len() + 1];
    let first_a: Vec<u32> = linked.iter().map(|b| b.a[0]).collect();
    let first_b: Vec<u32> = linked.iter().map(|b| b.b[0]).collect();
    let mut running_max = Vec::with_capacity(first_b.len());
    let mut hi = 0u32;
    for &j in &first_b {
        hi = hi.max(j);
        running_max.push(hi);
    }
    for (i, _) in used_a.iter().enumerate().filter(|(_, &u)| !u) {
        let k = first_a.partition_point(|&x| x < i as u32);
        slots[k].push(Bead { a: vec![i as u32], b: Vec::new() });
    }
    for (j, _) in used_b.iter().enumerate().filter(|(_, &u)| !u) {
        let k = running_max.partition_point(|&x| x < j as u32);
        slots[k].push(Bead { a: Vec::new(), b: vec![j as u32] });
    }
    let mut out = Vec::with_capacity(linked.len() + slots.iter().map(Vec::len).sum::<usize>());
    for (k, mut slot) in slots.into_iter().enumerate() {
        slot.sort_by_key(|b| (b.b.first().copied(), b.a.first().copied()));
        out.extend(slot);
        if let Some(b) = linked.get(k) {
            out.push(b.clone());
        }
    }
    out
}

/// The ladder text: one bead a line, `[0, 1]:[0]`.
pub fn write(beads: &[Bead]) -> String {
    let mut out = String::new();
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    for b in beads {
        let _ = writeln!(out, "[{}]:[{}]", list(&b.a), list(&b.b));
    }
    out
}

/// What is wrong with a line of a ladder file.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {what} (a bead is `[0, 1]:[2]`: sentence indices of each side, `[]` for none)")]
pub struct ParseError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// Read a ladder file: one bead a line, blank lines skipped (and a
/// byte-order mark before the first). A sentence may be in one bead only:
/// a ladder that lists a sentence twice (the same bead twice, or a
/// sentence in two beads) is refused, naming the line, since scoring it
/// would count one bead as two hits.
pub fn parse(text: &str) -> Result<Vec<Bead>, ParseError> {
    Ok(parse_numbered(text)?.into_iter().map(|(_, b)| b).collect())
}

/// [`parse`], each bead with its line number (from 1), for messages.
pub fn parse_numbered(text: &str) -> Result<Vec<(usize, Bead)>, ParseError> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut out = Vec::new();
    // The line of the bead each sentence is in, per side.
    let mut seen: [std::collections::HashMap<u32, usize>; 2] = Default::default();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let bad = |what: &str| ParseError { line: k + 1, what: what.to_string() };
        let (a, b) = line.split_once(':').ok_or_else(|| bad("no `:` between the two sides"))?;
        let side = |s: &str| -> Result<Vec<u32>, ParseError> {
            let inner = s
                .trim()
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .ok_or_else(|| bad("a side is not a bracketed list"))?;
            inner
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|x| x.parse::<u32>().map_err(|_| bad(&format!("{x:?} is not a sentence index"))))
                .collect()
        };
        let bead = Bead { a: side(a)?, b: side(b)? };
        if bead.a.is_empty() && bead.b.is_empty() {
            return Err(bad("a bead with no sentence on either side"));
        }
        for (s, (indices, name)) in [(&bead.a, "A"), (&bead.b, "B")].into_iter().enumerate() {
            for &i in indices {
                if let Some(&first) = seen[s].get(&i) {
                    let place = if first == k + 1 { "this bead".to_string() } else { format!("line {first}") };
                    return Err(bad(&format!(
                        "sentence {i} of {name} is listed twice (also in {place}); a sentence is in one bead only"
                    )));
                }
                seen[s].insert(i, k + 1);
            }
        }
        out.push((k + 1, bead));
    }
    Ok(out)
}

/// Refuse predicted beads (`pred`, with their lines) that name a sentence
/// past the end of the text, as the gold knows it: when the gold accounts
/// for every sentence of a side (sentences 0 to n − 1 each in a bead, null
/// beads included, as the field's gold sets do), a predicted index of n or
/// more names no sentence. A gold with gaps on a side says nothing of
/// that side's end, and is not used for it.
pub fn check_within_gold(gold: &[Bead], pred: &[(usize, Bead)]) -> Result<(), ParseError> {
    for (side, name) in [(0usize, "A"), (1, "B")] {
        let indices = |b: &Bead| if side == 0 { b.a.clone() } else { b.b.clone() };
        let mut all: Vec<u32> = gold.iter().flat_map(indices).collect();
        all.sort_unstable();
        all.dedup();
        let complete = all.iter().enumerate().all(|(k, &i)| k as u32 == i);
        let Some(&last) = all.last().filter(|_| complete) else { continue };
        for (line, bead) in pred {
            if let Some(&i) = indices(bead).iter().find(|&&i| i > last) {
                return Err(ParseError {
                    line: *line,
                    what: format!(
                        "sentence {i} of {name} is past the end of the text: the gold's {name} has {} sentences \
                         (0 to {last}); is it the prediction of this document?",
                        last + 1
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Bead counts of one document (or summed over several).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Gold beads with sentences on both sides.
    pub gold: usize,
    /// Predicted beads with sentences on both sides.
    pub pred: usize,
    /// Predicted null beads.
    pub pred_null: usize,
    /// Predicted linked beads equal to a gold bead.
    pub strict_p: usize,
    /// Gold linked beads equal to a predicted bead.
    pub strict_r: usize,
    /// Predicted null beads equal to a gold null bead.
    pub null_hits: usize,
    /// Predicted linked beads sharing a sentence pair with a gold bead.
    pub lax_p: usize,
    /// Gold linked beads sharing a sentence pair with a predicted bead.
    pub lax_r: usize,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.gold += o.gold;
        self.pred += o.pred;
        self.pred_null += o.pred_null;
        self.strict_p += o.strict_p;
        self.strict_r += o.strict_r;
        self.null_hits += o.null_hits;
        self.lax_p += o.lax_p;
        self.lax_r += o.lax_r;
    }
}

/// Precision, recall and F1 of one convention.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prf {
    /// Precision.
    pub p: f64,
    /// Recall.
    pub r: f64,
    /// Their harmonic mean.
    pub f1: f64,
}

fn prf(hits_p: usize, pred: usize, hits_r: usize, gold: usize) -> Prf {
    let div = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let (p, r) = (div(hits_p, pred), div(hits_r, gold));
    Prf { p, r, f1: if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 } }
}

impl Counts {
    /// Strict scores, precision counting the null beads (the published
    /// convention).
    pub fn strict(&self) -> Prf {
        prf(self.strict_p + self.null_hits, self.pred + self.pred_null, self.strict_r, self.gold)
    }
    /// Lax scores, precision counting the null beads.
    pub fn lax(&self) -> Prf {
        prf(self.lax_p + self.null_hits, self.pred + self.pred_null, self.lax_r, self.gold)
    }
    /// Strict scores over linked beads only.
    pub fn strict_linked(&self) -> Prf {
        prf(self.strict_p, self.pred, self.strict_r, self.gold)
    }
}

/// Score predicted beads against gold beads of one document. Beads are
/// compared as sets of indices on each side.
pub fn score(gold: &[Bead], pred: &[Bead]) -> Counts {
    use std::collections::{HashMap, HashSet};
    let norm = |b: &Bead| {
        let (mut a, mut c) = (b.a.clone(), b.b.clone());
        a.sort_unstable();
        a.dedup();
        c.sort_unstable();
        c.dedup();
        Bead { a, b: c }
    };
    let gold: Vec<Bead> = gold.iter().map(norm).collect();
    let pred: Vec<Bead> = pred.iter().map(norm).collect();
    let (g_linked, g_null): (Vec<&Bead>, Vec<&Bead>) = gold.iter().partition(|b| b.linked());
    let (p_linked, p_null): (Vec<&Bead>, Vec<&Bead>) = pred.iter().partition(|b| b.linked());
    let gset: HashSet<&Bead> = g_linked.iter().copied().collect();
    let pset: HashSet<&Bead> = p_linked.iter().copied().collect();
    let gnull: HashSet<&Bead> = g_null.iter().copied().collect();
    let pairs = |beads: &[&Bead]| -> HashMap<u32, HashSet<u32>> {
        let mut m: HashMap<u32, HashSet<u32>> = HashMap::new();
        for b in beads {
            for &i in &b.a {
                m.entry(i).or_default().extend(b.b.iter().copied());
            }
        }
        m
    };
    let (gp, pp) = (pairs(&g_linked), pairs(&p_linked));
    let lax = |beads: &[&Bead], other: &HashMap<u32, HashSet<u32>>| {
        beads
            .iter()
            .filter(|b| b.a.iter().any(|i| other.get(i).is_some_and(|s| b.b.iter().any(|j| s.contains(j)))))
            .count()
    };
    Counts {
        gold: g_linked.len(),
        pred: p_linked.len(),
        pred_null: p_null.len(),
        strict_p: p_linked.iter().filter(|b| gset.contains(*b)).count(),
        strict_r: g_linked.iter().filter(|b| pset.contains(*b)).count(),
        null_hits: p_null.iter().filter(|b| gnull.contains(*b)).count(),
        lax_p: lax(&p_linked, &gp),
        lax_r: lax(&g_linked, &pp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bead(a: &[u32], b: &[u32]) -> Bead {
        Bead { a: a.to_vec(), b: b.to_vec() }
    }

    #[test]
    fn a_ladder_reads_back_as_written() {
        let beads = vec![bead(&[0], &[0, 1]), bead(&[1], &[]), bead(&[], &[2]), bead(&[2, 3], &[3])];
        let text = write(&beads);
        assert_eq!(text, "[0]:[0, 1]\n[1]:[]\n[]:[2]\n[2, 3]:[3]\n");
        assert_eq!(parse(&text).unwrap(), beads);
        let e = parse("[0]:[0]\n\n[1] [1]\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(parse("[x]:[1]").unwrap_err().to_string().contains("\"x\" is not a sentence index"));
        assert!(parse("[]:[]").is_err());
        assert_eq!(parse("\u{FEFF}[0]:[0]\n").unwrap(), [bead(&[0], &[0])]);
    }

    #[test]
    fn a_sentence_listed_twice_is_refused_naming_both_lines() {
        let e = parse("[0]:[0]\n[1]:[1]\n[0]:[0]\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.what.contains("sentence 0 of A is listed twice (also in line 1)"), "{e}");
        let e = parse("[0]:[0]\n[1]:[0, 1]\n").unwrap_err();
        assert!(e.what.contains("sentence 0 of B"), "{e}");
        assert!(parse("[2, 2]:[0]").unwrap_err().what.contains("also in this bead"));
    }

    #[test]
    fn an_index_past_a_complete_gold_is_refused() {
        let gold = parse("[0]:[0]\n[1]:[]\n[2]:[1, 2]\n").unwrap();
        let ok = parse_numbered("[0, 1]:[0]\n[2]:[1]\n[]:[2]\n").unwrap();
        assert!(check_within_gold(&gold, &ok).is_ok());
        let past = parse_numbered("[0]:[0]\n[3]:[1]\n").unwrap();
        let e = check_within_gold(&gold, &past).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.what.contains("sentence 3 of A is past the end"), "{e}");
        // A gold with a gap on a side says nothing of its end.
        let gappy = parse("[0]:[0]\n[2]:[2]\n").unwrap();
        assert!(check_within_gold(&gappy, &past).is_ok());
    }

    #[test]
    fn scores_count_null_beads_in_precision_as_published() {
        let gold = vec![bead(&[0], &[0]), bead(&[1], &[1, 2]), bead(&[2], &[]), bead(&[3], &[3])];
        // One bead exact, one split finer (lax only), the null bead right,
        // the last bead wrong.
        let pred = vec![bead(&[0], &[0]), bead(&[1], &[1]), bead(&[], &[2]), bead(&[2], &[]), bead(&[3], &[4])];
        let c = score(&gold, &pred);
        assert_eq!((c.gold, c.pred, c.pred_null), (3, 3, 2));
        assert_eq!((c.strict_p, c.strict_r, c.null_hits, c.lax_p, c.lax_r), (1, 1, 1, 2, 2));
        let s = c.strict();
        assert!((s.p - 2.0 / 5.0).abs() < 1e-9 && (s.r - 1.0 / 3.0).abs() < 1e-9, "{s:?}");
        assert!((c.strict_linked().p - 1.0 / 3.0).abs() < 1e-9);
        assert!((c.lax().p - 3.0 / 5.0).abs() < 1e-9);
    }

    fn sentence(start: u32, end: u32) -> Sentence {
        Sentence { start, end, tok_start: 0, tok_end: 0, heading: false }
    }

    #[test]
    fn passages_become_beads_in_text_order_with_every_sentence_once() {
        use crate::align::{Link, PassageKind, Unlinked};
        // A: four sentences of 10 characters; B: five.
        let sa: Vec<Sentence> = (0..4).map(|k| sentence(10 * k, 10 * k + 10)).collect();
        let sb: Vec<Sentence> = (0..5).map(|k| sentence(10 * k, 10 * k + 10)).collect();
        let link = |a: Span, b: Span| Link { a, b, score: 0.5, meaning: None };
        let p = Passage {
            kind: PassageKind::Parallel,
            a: [0, 30],
            b: [0, 40],
            score: 0.5,
            // A0 ↔ B0 B1 (as two links sharing A0), A2 ↔ B3.
            links: vec![link([0, 10], [0, 10]), link([0, 10], [10, 20]), link([20, 30], [30, 40])],
            unlinked: vec![Unlinked { a: None, b: Some([20, 30]) }],
        };
        let beads = beads_of_pair(&sa, &sb, &[p]);
        assert_eq!(
            beads,
            [bead(&[0], &[0, 1]), bead(&[1], &[]), bead(&[], &[2]), bead(&[2], &[3]), bead(&[3], &[]), bead(&[], &[4])]
        );
    }
}
