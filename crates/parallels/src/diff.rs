//! Character-level differences inside a link, for display.
//!
//! Given two spans of two prepared texts, [`common`] finds which tokens of
//! each side belong to a longest common subsequence (on normalized token
//! ids, so `五万`/`5万` or `戰`/`战` count as the same) and returns the
//! original spans of those tokens. Everything else in the spans is a
//! difference. Used by the text and HTML renderers; never by the matchers.
//!
//! Pieces of up to [`TABLE_TOKENS`] tokens a side are compared with the
//! classic dynamic-programming table, whose ties (several common
//! subsequences of one length) go to the one that keeps the earliest
//! tokens of `a` together — what the reports have always shown. Myers'
//! diff (the `similar` crate) finds a subsequence of the same length but
//! breaks ties its own way (on the bundled example it splits `港口的入口`
//! as `港|口的入|口`), so it serves only the longer pieces, where the table
//! (two bytes a cell: 32 MB at the limit) would be too large: its time grows with length
//! times the number of differences, so a chapter copied with a few
//! changes is compared as fast as a sentence. Wildcard tokens (a censored
//! `□`, `*`) never count as common.

use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::align::{Prepared, Span};
use crate::segment::{Token, WILDCARD};

fn tokens_in(p: &Prepared, span: Span) -> &[Token] {
    let t = &p.seg.tokens;
    let lo = t.partition_point(|x| x.start < span[0]);
    let hi = t.partition_point(|x| x.end <= span[1]);
    &t[lo..hi.max(lo)]
}

/// Longest pieces compared with the table (see the module doc).
pub const TABLE_TOKENS: usize = 4000;

/// What the diff compares for each token: its id, or for a wildcard a key
/// of its own that matches nothing (ids are 32-bit; the keys start above).
fn keys(tokens: &[Token], side: u64) -> Vec<u64> {
    tokens
        .iter()
        .enumerate()
        .map(|(k, t)| if t.id == WILDCARD { (side << 33) | (1 << 32) | k as u64 } else { u64::from(t.id) })
        .collect()
}

/// Original spans of the tokens of `a_span` and of `b_span` that are in
/// their longest common token subsequence.
pub fn common(a: &Prepared, a_span: Span, b: &Prepared, b_span: Span) -> (Vec<Span>, Vec<Span>) {
    let (ta, tb) = (tokens_in(a, a_span), tokens_in(b, b_span));
    let pairs = if ta.is_empty() || tb.is_empty() {
        Vec::new()
    } else if ta.len() <= TABLE_TOKENS && tb.len() <= TABLE_TOKENS {
        table(ta, tb)
    } else {
        myers(ta, tb)
    };
    pairs.into_iter().map(|(i, j)| ([ta[i].start, ta[i].end], [tb[j].start, tb[j].end])).unzip()
}

fn same(x: &Token, y: &Token) -> bool {
    x.id == y.id && x.id != WILDCARD
}

/// The common subsequence by the full table, as index pairs.
fn table(ta: &[Token], tb: &[Token]) -> Vec<(usize, usize)> {
    let w = tb.len() + 1;
    let mut t = vec![0u16; (ta.len() + 1) * w];
    for i in (0..ta.len()).rev() {
        for j in (0..tb.len()).rev() {
            t[i * w + j] = if same(&ta[i], &tb[j]) {
                t[(i + 1) * w + j + 1] + 1
            } else {
                t[(i + 1) * w + j].max(t[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < ta.len() && j < tb.len() {
        if same(&ta[i], &tb[j]) {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if t[(i + 1) * w + j] >= t[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The common subsequence by Myers' diff, as index pairs.
fn myers(ta: &[Token], tb: &[Token]) -> Vec<(usize, usize)> {
    let (ka, kb) = (keys(ta, 0), keys(tb, 1));
    let mut out = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &ka, &kb) {
        if let DiffOp::Equal { old_index, new_index, len } = op {
            out.extend((0..len).map(|k| (old_index + k, new_index + k)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Aligner, Options};

    fn aligner() -> Aligner {
        Aligner::new(Options { meaning: false, ..Options::default() })
    }

    #[test]
    fn folded_forms_count_as_common() {
        let al = aligner();
        let a = al.prepare("城里有五万人。");
        let b = al.prepare("城裡有5万居民。");
        let (ca, cb) = common(&a, [0, 7], &b, [0, 8]);
        // 城 里/裡 有 五万/5万 人… : 人 vs 居民 differ.
        assert_eq!(ca, vec![[0, 1], [1, 2], [2, 3], [3, 5]]);
        assert_eq!(cb, vec![[0, 1], [1, 2], [2, 3], [3, 5]]);
    }

    #[test]
    fn wildcards_are_never_common() {
        let al = aligner();
        let a = al.prepare("他说□□是对的。");
        let b = al.prepare("他说□□是对的。");
        let (ca, _) = common(&a, [0, 8], &b, [0, 8]);
        assert!(ca.iter().all(|s| !matches!(s, [2, 3] | [3, 4])), "{ca:?}");
        assert!(ca.contains(&[0, 1]) && ca.contains(&[4, 5]), "{ca:?}");
    }

    #[test]
    fn table_and_myers_agree_on_length() {
        let al = aligner();
        let a =
            al.prepare("当天下午，瑞典骑兵切断了通往内陆的所有道路。五月初，九艘瑞典战舰驶入海湾，封锁了港口的入口。");
        let b = al.prepare("当天下午，通往内地的道路全被瑞典骑兵截断了。5月初，9艘瑞典军舰开进海湾，堵住了港口。");
        let (ta, tb) = (&a.seg.tokens[..], &b.seg.tokens[..]);
        let (t, m) = (table(ta, tb), myers(ta, tb));
        assert!(t.len() >= 20, "{t:?}");
        assert_eq!(t.len(), m.len());
        for pairs in [&t, &m] {
            assert!(pairs.iter().all(|&(i, j)| same(&ta[i], &tb[j])));
            assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        }
    }

    #[test]
    fn long_pieces_are_compared_too() {
        // Beyond the table's 4,000 tokens: 5,000 sentences with one changed
        // character are all common but that one.
        let al = aligner();
        let text: String = (0..5_000).map(|k| format!("第{}句。", k % 10)).collect();
        let changed = text.replacen("第3句", "第7句", 1);
        let (a, b) = (al.prepare(&text), al.prepare(&changed));
        let n = text.chars().count() as u32;
        let (ca, cb) = common(&a, [0, n], &b, [0, n]);
        assert_eq!(ca.len(), a.seg.tokens.len() - 1);
        assert_eq!(cb.len(), ca.len());
        assert!(!ca.contains(&[13, 14]), "the changed 3 of the fourth sentence is not common");
    }
}
