//! Rule 7: censored stretches.
//!
//! A run of two or more censor characters (`*`, full-width `＊`, `□` U+25A1,
//! mixed freely) becomes ONE character [`WILDCARD`] with mark
//! [`Mark::Wildcard`] spanning the whole run.  A single `*` is ordinary text.

use super::nchar::{Mark, NChar, WILDCARD};

#[inline]
pub(crate) fn is_censor(c: char) -> bool {
    matches!(c, '*' | '＊' | '□')
}

/// Copy `input` to `out`, collapsing censored runs into wildcards.
pub(crate) fn apply(input: &[NChar], out: &mut Vec<NChar>) {
    let mut i = 0;
    while i < input.len() {
        if is_censor(input[i].ch) {
            let run = input[i..].iter().take_while(|n| is_censor(n.ch)).count();
            if run >= 2 {
                let last = &input[i + run - 1];
                out.push(NChar {
                    ch: WILDCARD,
                    start: input[i].start,
                    end: last.end.max(input[i].start + 1),
                    mark: Mark::Wildcard,
                });
                i += run;
                continue;
            }
        }
        out.push(input[i]);
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str) -> Vec<NChar> {
        let mut out = Vec::new();
        apply(&super::super::nchar::identity_chars(s), &mut out);
        out
    }

    #[test]
    fn runs_become_one_wildcard() {
        let out = run("那些**的瑞典人");
        let s: String = out.iter().map(|n| n.ch).collect();
        assert_eq!(s, "那些\u{FFFC}的瑞典人");
        assert_eq!(out[2].mark, Mark::Wildcard);
        assert_eq!((out[2].start, out[2].end), (2, 4));
        assert_eq!(out[3].start, 4);
        assert_eq!(out.iter().filter(|n| n.mark == Mark::Wildcard).count(), 1);

        let out = run("□□□和＊＊*");
        assert_eq!(out.len(), 3);
        assert_eq!((out[0].start, out[0].end, out[0].mark), (0, 3, Mark::Wildcard));
        assert_eq!((out[2].start, out[2].end, out[2].mark), (4, 7, Mark::Wildcard));
    }

    #[test]
    fn single_star_is_text() {
        let out = run("a*b□c");
        assert!(out.iter().all(|n| n.mark == Mark::Text));
        assert_eq!(out.len(), 5);
    }
}
