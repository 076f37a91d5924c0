//! Rules 1 and 2: width / compatibility folding, and case folding.
//!
//! Width folding is NFKC applied to one character at a time, with a fast path
//! for the common blocks and a few deliberate exceptions ([`keep_as_is`]):
//!
//! * full-width ASCII forms fold to ASCII (`！` → `!`, `１２` → `12`,
//!   `，` → `,`, `（` → `(`), U+3000 ideographic space to `' '`, half-width
//!   katakana to full-width, compatibility ideographs and Kangxi radicals to
//!   unified ideographs, `㈱` → `(株)` (several chars, one span);
//! * CJK punctuation (`。`, `、`, `“”`, `《》`) has no compatibility mapping
//!   and stays as it is;
//! * kept as they are: circled / enclosed numbers (`①`, `㉑`) and superscript
//!   digits (`¹²³`) — they are footnote markers, handled by the footnotes
//!   rule; the ellipsis `…`/`‥` (NFKC would turn it into dots); and spacing
//!   marks whose NFKC is a space plus a combining mark (`゛`, `´`).
//!
//! A combining mark that follows a character it composes with (e.g. the
//! half-width voiced mark in `ｶﾞ`, after folding `カ` + U+3099) is merged
//! into that character (`ガ`), the merged char spanning both originals.

use crate::chars::has_no_compat_form;
use unicode_normalization::UnicodeNormalization;

/// Largest NFKC expansion of one code point is 18 (U+FDFA).
const MAX_EXPANSION: usize = 24;

/// Characters deliberately left unfolded (see the module doc).
#[inline]
pub(crate) fn keep_as_is(c: char) -> bool {
    matches!(c,
        '\u{2460}'..='\u{24FF}' // enclosed alphanumerics: ① ⑴ ⒈ ⓐ
        | '\u{3251}'..='\u{325F}' // ㉑–㉟
        | '\u{32B1}'..='\u{32BF}' // ㊱–㊿
        | '¹' | '²' | '³'
        | '\u{2070}'..='\u{209F}' // superscripts and subscripts
        | '…' | '‥')
}

/// Fold one character for width/compatibility; `emit` receives the output
/// characters in order (one or more).
#[inline]
pub(crate) fn fold(c: char, emit: &mut impl FnMut(char)) {
    let u = c as u32;
    if u < 0xA0 || has_no_compat_form(u) {
        emit(c);
        return;
    }
    if (0xFF01..=0xFF5E).contains(&u) {
        // Full-width ASCII: a fixed offset.
        emit(char::from_u32(u - 0xFEE0).unwrap_or(c));
        return;
    }
    if u == 0x3000 {
        emit(' ');
        return;
    }
    if keep_as_is(c) {
        emit(c);
        return;
    }
    let mut buf = ['\0'; MAX_EXPANSION];
    let mut n = 0;
    for d in std::iter::once(c).nfkc() {
        if n == MAX_EXPANSION {
            // Cannot happen (see MAX_EXPANSION); keep the original.
            emit(c);
            return;
        }
        buf[n] = d;
        n += 1;
    }
    if n == 0 || (n > 1 && buf[0] == ' ') {
        // A spacing mark such as `゛` (NFKC: space + combining mark).
        emit(c);
        return;
    }
    for &d in &buf[..n] {
        emit(d);
    }
}

/// Lowercase one character (`emit` may be called more than once, e.g. `İ`).
#[inline]
pub(crate) fn fold_case(c: char, emit: &mut impl FnMut(char)) {
    if c.is_ascii() {
        emit(c.to_ascii_lowercase());
    } else if matches!(c as u32, 0x2000..=0x206F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0x20000..) {
        // General punctuation (`“”—…`) and the CJK blocks have no case.
        emit(c);
    } else {
        for l in c.to_lowercase() {
            emit(l);
        }
    }
}

/// If `mark` is a combining mark that composes canonically with `prev`, the
/// composed character.
#[inline]
pub(crate) fn compose(prev: char, mark: char) -> Option<char> {
    let u = mark as u32;
    // Han, kana and hangul (most of CJK text) are never combining marks:
    // no table lookup for them.
    if u < 0x300 || has_no_compat_form(u) || !unicode_normalization::char::is_combining_mark(mark) {
        return None;
    }
    unicode_normalization::char::compose(prev, mark)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> String {
        let mut out = String::new();
        let mut prev: Option<char> = None;
        for c in s.chars() {
            fold(c, &mut |d| {
                if let Some(p) = prev {
                    if let Some(x) = compose(p, d) {
                        out.pop();
                        out.push(x);
                        prev = Some(x);
                        return;
                    }
                }
                out.push(d);
                prev = Some(d);
            });
        }
        out
    }

    #[test]
    fn full_width_ascii() {
        assert_eq!(w("！１２，；：（）ＡＢ＊［］"), "!12,;:()AB*[]");
        assert_eq!(w("\u{3000}"), " ");
        assert_eq!(w("\u{00A0}"), " ");
    }

    #[test]
    fn cjk_punctuation_stays() {
        assert_eq!(w("。、“”‘’《》「」…—"), "。、“”‘’《》「」…—");
        assert_eq!(w("魏斯明德"), "魏斯明德");
    }

    #[test]
    fn half_width_katakana() {
        assert_eq!(w("ｶﾀｶﾅ"), "カタカナ");
        assert_eq!(w("ｶﾞｷﾞ"), "ガギ");
        assert_eq!(w("ﾊﾟ"), "パ");
        assert_eq!(w("｡､"), "。、");
    }

    #[test]
    fn expansions_and_exceptions() {
        assert_eq!(w("㈱"), "(株)");
        assert_eq!(w("①²"), "①²");
        assert_eq!(w("゛"), "゛");
        assert_eq!(w("\u{F900}"), "\u{8C48}"); // compatibility ideograph
        assert_eq!(w("⼀"), "一"); // Kangxi radical
        assert_eq!(w("e\u{301}"), "é");
    }

    #[test]
    fn case() {
        let lc = |s: &str| {
            let mut o = String::new();
            for c in s.chars() {
                fold_case(c, &mut |d| o.push(d));
            }
            o
        };
        assert_eq!(lc("ABC Été 戰"), "abc été 戰");
        assert_eq!(lc("İ").chars().count(), 2);
        // The ranges taken as caseless are: every character lowercases to
        // itself alone.
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut out = Vec::new();
            fold_case(c, &mut |d| out.push(d));
            assert_eq!(out, c.to_lowercase().collect::<Vec<_>>(), "{c:?}");
        }
    }
}
