//! Rule 6: footnote / reference markers are removed.
//!
//! A marker is removed only when it follows text on its line (the previous
//! kept character is not whitespace or a newline); a marker that starts a
//! line is the note itself and is kept.  Markers:
//!
//! * 1–3 digits in brackets: `[21]`, `［21］` (ASCII or full-width digits);
//! * circled numbers `①`–`⑳`, `㉑`–`㊿`, `❶`–`❿`, `⓫`–`⓴`, `➀`–`➓`;
//! * `注` followed by a circled number (`注①`), or by 1–2 digits that are not
//!   followed by a letter, digit or ideograph (`注1，` but not `关注12月`);
//! * runs of superscript digits `¹²³⁴…⁰`, except a lone `²`/`³` right after a
//!   Latin letter (units: `m²`, `cm³`).

use super::nchar::NChar;
use crate::chars::{digit_value, is_alphanumeric, is_han_unified};

#[inline]
fn is_circled_number(c: char) -> bool {
    matches!(c,
        '\u{2460}'..='\u{2473}' // ①–⑳
        | '\u{3251}'..='\u{325F}' // ㉑–㉟
        | '\u{32B1}'..='\u{32BF}' // ㊱–㊿
        | '\u{24EB}'..='\u{24F4}' // ⓫–⓴
        | '\u{2776}'..='\u{2793}') // ❶–❿, ➀–➉, ➊–➓
}

#[inline]
fn is_superscript_digit(c: char) -> bool {
    matches!(c, '¹' | '²' | '³' | '\u{2070}' | '\u{2074}'..='\u{2079}')
}

/// Length of a `[12]` / `［12］` marker at the start of `s`.
fn bracket_marker(s: &[NChar]) -> Option<usize> {
    if !matches!(s.first()?.ch, '[' | '［') {
        return None;
    }
    let digits = s[1..].iter().take(4).take_while(|n| digit_value(n.ch).is_some()).count();
    if !(1..=3).contains(&digits) {
        return None;
    }
    match s.get(1 + digits)?.ch {
        ']' | '］' => Some(digits + 2),
        _ => None,
    }
}

/// Length of a `注①` / `注1` marker at the start of `s`.
fn zhu_marker(s: &[NChar]) -> Option<usize> {
    if s.first()?.ch != '注' {
        return None;
    }
    let next = s.get(1)?.ch;
    if is_circled_number(next) {
        return Some(2);
    }
    let digits = s[1..].iter().take(3).take_while(|n| digit_value(n.ch).is_some()).count();
    if !(1..=2).contains(&digits) {
        return None;
    }
    match s.get(1 + digits) {
        Some(n) if is_alphanumeric(n.ch) => None,
        _ => Some(1 + digits),
    }
}

/// Can a footnote marker start at `c`?
#[inline]
pub(crate) fn is_trigger(c: char) -> bool {
    // In the CJK unified block only 注 starts a marker (one range test for
    // most characters of Chinese text).
    if is_han_unified(c) {
        return c == '注';
    }
    matches!(c, '[' | '［') || is_circled_number(c) || is_superscript_digit(c)
}

/// Copy `input` to `out` without footnote markers.
pub(crate) fn apply(input: &[NChar], out: &mut Vec<NChar>) {
    let mut i = 0;
    while i < input.len() {
        // Copy the stretch up to the next possible marker at once.
        let n = input[i..].iter().position(|x| is_trigger(x.ch)).unwrap_or(input.len() - i);
        out.extend_from_slice(&input[i..i + n]);
        i += n;
        if i == input.len() {
            break;
        }
        let c = input[i].ch;
        let after_text = out.last().is_some_and(|p| !p.ch.is_whitespace());
        if after_text {
            let skip = match c {
                '[' | '［' => bracket_marker(&input[i..]),
                '注' => zhu_marker(&input[i..]),
                _ if is_circled_number(c) => Some(1),
                _ if is_superscript_digit(c) => {
                    let run = input[i..].iter().take_while(|n| is_superscript_digit(n.ch)).count();
                    let unit =
                        run == 1 && matches!(c, '²' | '³') && out.last().is_some_and(|p| p.ch.is_ascii_alphabetic());
                    (!unit).then_some(run)
                }
                _ => None,
            };
            if let Some(n) = skip {
                i += n;
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

    fn run(s: &str) -> (String, Vec<(u32, u32)>) {
        let mut out = Vec::new();
        apply(&super::super::nchar::identity_chars(s), &mut out);
        (out.iter().map(|n| n.ch).collect(), out.iter().map(|n| (n.start, n.end)).collect())
    }

    fn f(s: &str) -> String {
        run(s).0
    }

    #[test]
    fn bracket_markers() {
        let (s, spans) = run("克鲁格[12]说");
        assert_eq!(s, "克鲁格说");
        assert_eq!(spans, vec![(0, 1), (1, 2), (2, 3), (7, 8)]);
        assert_eq!(f("麦克唐纳［21］。"), "麦克唐纳。");
        assert_eq!(f("麦克唐纳［２１］。"), "麦克唐纳。");
        assert_eq!(f("他说。[3][4]然后"), "他说。然后");
        // A line that starts with the marker is the note itself.
        assert_eq!(f("[12]克鲁格，前引书"), "[12]克鲁格，前引书");
        assert_eq!(f("正文\n[12]注文"), "正文\n[12]注文");
        assert_eq!(f("正文 [12]"), "正文 [12]");
        // Not markers.
        assert_eq!(f("年份[2021]"), "年份[2021]");
        assert_eq!(f("见[a]"), "见[a]");
        assert_eq!(f("见[]"), "见[]");
        assert_eq!(f("见[12"), "见[12");
    }

    #[test]
    fn circled_and_zhu() {
        assert_eq!(f("战争①爆发"), "战争爆发");
        assert_eq!(f("①战争爆发"), "①战争爆发");
        assert_eq!(f("战争注①爆发"), "战争爆发");
        assert_eq!(f("战争注1，爆发"), "战争，爆发");
        assert_eq!(f("他关注12月的会议"), "他关注12月的会议");
        assert_eq!(f("注1：出处"), "注1：出处");
        assert_eq!(f("战争㉑。"), "战争。");
    }

    #[test]
    fn superscripts() {
        assert_eq!(f("战争¹²。"), "战争。");
        assert_eq!(f("面积10m²"), "面积10m²");
        assert_eq!(f("Smith¹"), "Smith");
        assert_eq!(f("¹ 注文"), "¹ 注文");
    }
}
