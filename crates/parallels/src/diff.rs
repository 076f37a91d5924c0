//! Character-level differences inside a link, for display.
//!
//! Given two spans of two prepared texts, [`common`] finds which tokens of
//! each side belong to their longest common subsequence (on normalized token
//! ids, so `五万`/`5万` or `戰`/`战` count as the same) and returns the
//! original spans of those tokens. Everything else in the spans is a
//! difference. Used by the text and HTML renderers; never by the matchers.

use crate::align::{Prepared, Span};
use crate::segment::{Token, WILDCARD};

/// Longest pieces compared; beyond this many tokens on a side nothing is
/// marked common (the quadratic table would be too large).
pub const MAX_DIFF_TOKENS: usize = 4000;

fn tokens_in(p: &Prepared, span: Span) -> &[Token] {
    let t = &p.seg.tokens;
    let lo = t.partition_point(|x| x.start < span[0]);
    let hi = t.partition_point(|x| x.end <= span[1]);
    &t[lo..hi.max(lo)]
}

/// Original spans of the tokens of `a_span` and of `b_span` that are in
/// their longest common token subsequence.
pub fn common(a: &Prepared, a_span: Span, b: &Prepared, b_span: Span) -> (Vec<Span>, Vec<Span>) {
    let (ta, tb) = (tokens_in(a, a_span), tokens_in(b, b_span));
    if ta.is_empty() || tb.is_empty() || ta.len() > MAX_DIFF_TOKENS || tb.len() > MAX_DIFF_TOKENS {
        return (Vec::new(), Vec::new());
    }
    let w = tb.len() + 1;
    let mut t = vec![0u16; (ta.len() + 1) * w];
    for i in (0..ta.len()).rev() {
        for j in (0..tb.len()).rev() {
            t[i * w + j] = if ta[i].id == tb[j].id && ta[i].id != WILDCARD {
                t[(i + 1) * w + j + 1] + 1
            } else {
                t[(i + 1) * w + j].max(t[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let (mut oa, mut ob) = (Vec::new(), Vec::new());
    while i < ta.len() && j < tb.len() {
        if ta[i].id == tb[j].id && ta[i].id != WILDCARD {
            oa.push([ta[i].start, ta[i].end]);
            ob.push([tb[j].start, tb[j].end]);
            i += 1;
            j += 1;
        } else if t[(i + 1) * w + j] >= t[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    (oa, ob)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Aligner, Options};

    #[test]
    fn folded_forms_count_as_common() {
        let al = Aligner::new(Options::default());
        let a = al.prepare("城里有五万人。");
        let b = al.prepare("城裡有5万居民。");
        let (ca, cb) = common(&a, [0, 7], &b, [0, 8]);
        // 城 里/裡 有 五万/5万 人… : 人 vs 居民 differ.
        assert_eq!(ca, vec![[0, 1], [1, 2], [2, 3], [3, 5]]);
        assert_eq!(cb, vec![[0, 1], [1, 2], [2, 3], [3, 5]]);
    }
}
