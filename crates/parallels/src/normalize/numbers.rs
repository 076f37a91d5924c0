//! Rule 5: Chinese and Arabic numerals become one canonical digit string.
//!
//! `五万` = `5万` = `50000` = `五萬` = `50,000` → `50000`; `1.8万` → `18000`;
//! `一七九三年` → `1793年`; `十六年` → `16年`.
//!
//! A *run* is a maximal stretch of numeral items: Arabic numbers (ASCII or
//! full-width digits, with thousands separators and one decimal part),
//! Chinese digits `〇零○一二三四五六七八九两兩`, small units `十百千` and big
//! units `万萬亿億`.  A run is read as follows:
//!
//! * a lone Arabic number is kept; thousands separators (`,` `，` `;` `；`)
//!   are dropped (`23,000` → `23000`).  A separator counts only after a
//!   leading group of 1–3 digits and when followed by exactly 3 digits and
//!   then a non-digit.  A decimal part stays (`1.5`).
//! * a run of only Chinese digits (no `两`, no units) of length ≥ 2 is read
//!   digit by digit (`一九四五` → `1945`, `二〇〇八` → `2008`), except the
//!   two-char pairs that are words or estimates rather than numbers: `一一`
//!   and ascending neighbours (`三四天`, `五六个`).
//! * any other run is parsed positionally (`两万三千` → `23000`, `二百零八` →
//!   `208`, `一万五` → `15000`, `3亿5000万` → `350000000`).  Arabic numbers
//!   combine only with a following big unit (`5万`, `1.8万`), or with a small
//!   unit after a big unit (`5万3千`), so `3千米` (3 km) is left alone.  The
//!   run must be well formed: units decreasing, no two digits in a row, no
//!   leading `百`/`千`/`万`/`亿` (so `千万`, `万一`, `万万`, `百姓` stay text);
//!   otherwise it is left as it is (Arabic parts still lose their separators).
//! * a single Chinese numeral character converts only before a unit/measure
//!   word ([`UNITS`]) or after `第` (`三年前` → `3年前`, `第三` → `第3`, but
//!   `统一`, `一些`, `一样` stay).
//! * `两`/`兩` is 2 only when followed by a unit inside the run (`两万`) or by
//!   a measure word (`两人` → `2人`); a trailing `两` (the weight unit, as in
//!   `三十两银子`) ends the run before it.
//! * a run made only of `○` (U+25CB, a common stand-in for `〇`) is left.
//!
//! Converted output digits all carry the span of the whole run.  Arithmetic is
//! checked `u128`; anything too large is left as text.

use super::nchar::NChar;
use crate::chars::{digit_value, is_han_unified, HanSet};

/// Measure words after which a single numeral character converts.
pub(crate) const UNITS: &[char] = &[
    '年', '月', '日', '天', '人', '岁', '名', '个', '次', '票', '门', '艘', '座', '条', '只', '吨', '磅', '里', '位',
    '周', '倍', // traditional forms, for use with the script rule off
    '歲', '個', '門', '條', '隻', '噸', '週',
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cn {
    Digit(u8),
    /// `〇` `零` `○`
    Zero,
    /// `两` `兩`
    Liang,
    /// `十百千` as a power of ten
    Small(u32),
    /// `万亿` as a power of ten
    Big(u32),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Arabic { has_sep: bool, frac: u32, non_ascii: bool },
    Cn(Cn),
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Kind,
    /// Index range into the input.
    s: usize,
    e: usize,
}

/// Every character that starts a numeral: Arabic digits (ASCII and
/// full-width) and the characters of [`cn_class`].
const NUMERALS: &[char] = &[
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '０', '１', '２', '３', '４', '５', '６', '７', '８', '９', '〇',
    '零', '○', '一', '二', '三', '四', '五', '六', '七', '八', '九', '两', '兩', '十', '百', '千', '万', '萬', '亿',
    '億',
];

/// The Han characters of [`NUMERALS`]: most characters of Chinese text are
/// in the CJK unified block and are settled by one bit.
const HAN_NUMERALS: HanSet = HanSet::of(NUMERALS);

/// Does `c` start a numeral (an Arabic digit or a Chinese numeral)?
#[inline]
fn is_numeral(c: char) -> bool {
    if is_han_unified(c) {
        return HAN_NUMERALS.contains(c);
    }
    digit_value(c).is_some() || cn_class(c).is_some()
}

#[inline]
fn cn_class(c: char) -> Option<Cn> {
    Some(match c {
        '〇' | '零' | '○' => Cn::Zero,
        '一' => Cn::Digit(1),
        '二' => Cn::Digit(2),
        '三' => Cn::Digit(3),
        '四' => Cn::Digit(4),
        '五' => Cn::Digit(5),
        '六' => Cn::Digit(6),
        '七' => Cn::Digit(7),
        '八' => Cn::Digit(8),
        '九' => Cn::Digit(9),
        '两' | '兩' => Cn::Liang,
        '十' => Cn::Small(1),
        '百' => Cn::Small(2),
        '千' => Cn::Small(3),
        '万' | '萬' => Cn::Big(4),
        '亿' | '億' => Cn::Big(8),
        _ => return None,
    })
}

#[inline]
fn is_sep(c: char) -> bool {
    matches!(c, ',' | '，' | ';' | '；')
}

#[inline]
fn is_point(c: char) -> bool {
    matches!(c, '.' | '．')
}

fn is_digit_at(input: &[NChar], i: usize) -> bool {
    input.get(i).is_some_and(|n| digit_value(n.ch).is_some())
}

/// Scan an Arabic number starting at `i` (which holds a digit).
fn scan_arabic(input: &[NChar], i: usize) -> Tok {
    let mut j = i;
    let mut non_ascii = false;
    while j < input.len() {
        match input[j].ch {
            '0'..='9' => {}
            c if digit_value(c).is_some() => non_ascii = true,
            _ => break,
        }
        j += 1;
    }
    let mut has_sep = false;
    if j - i <= 3 {
        while j < input.len()
            && is_sep(input[j].ch)
            && (1..=3).all(|k| is_digit_at(input, j + k))
            && !is_digit_at(input, j + 4)
        {
            non_ascii |= (1..=3).any(|k| !input[j + k].ch.is_ascii_digit());
            has_sep = true;
            j += 4;
        }
    }
    let mut frac = 0;
    if j < input.len() && is_point(input[j].ch) && is_digit_at(input, j + 1) {
        non_ascii |= input[j].ch != '.';
        j += 1;
        while j < input.len() {
            match input[j].ch {
                '0'..='9' => {}
                c if digit_value(c).is_some() => non_ascii = true,
                _ => break,
            }
            j += 1;
            frac += 1;
        }
    }
    Tok { kind: Kind::Arabic { has_sep, frac, non_ascii }, s: i, e: j }
}

/// Rewrite numerals in `input` into `out`.
pub(crate) fn apply(input: &[NChar], out: &mut Vec<NChar>) {
    let mut toks: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < input.len() {
        if !is_numeral(input[i].ch) {
            // Copy the stretch up to the next numeral at once.
            let n = input[i..].iter().position(|x| is_numeral(x.ch)).unwrap_or(input.len() - i);
            out.extend_from_slice(&input[i..i + n]);
            i += n;
            continue;
        }
        toks.clear();
        let mut j = i;
        while j < input.len() {
            let c = input[j].ch;
            if digit_value(c).is_some() {
                let t = scan_arabic(input, j);
                j = t.e;
                toks.push(t);
            } else if let Some(k) = cn_class(c) {
                toks.push(Tok { kind: Kind::Cn(k), s: j, e: j + 1 });
                j += 1;
            } else {
                break;
            }
        }
        // A trailing 两 is the weight unit (三十两), not a digit.
        let trailing_liang = toks.len() >= 2 && toks.last().is_some_and(|t| t.kind == Kind::Cn(Cn::Liang));
        if trailing_liang {
            toks.pop();
            j -= 1;
        }
        emit_run(input, i, j, &toks, out);
        if trailing_liang {
            out.push(input[j]);
            j += 1;
        }
        i = j;
    }
}

enum Reading {
    /// Leave the run as it is (Arabic parts canonicalized).
    Keep,
    /// Chinese digits read one by one.
    DigitByDigit,
    /// A value scaled by `10^frac`.
    Value(u128, u32),
}

fn emit_run(input: &[NChar], s: usize, e: usize, toks: &[Tok], out: &mut Vec<NChar>) {
    let prev = s.checked_sub(1).map(|p| input[p].ch);
    let next = input.get(e).map(|n| n.ch);
    let span = NChar { ch: '0', start: input[s].start, end: input[e - 1].end, mark: input[s].mark };
    match read(input, toks, prev, next) {
        Reading::Keep => {
            for t in toks {
                match t.kind {
                    Kind::Arabic { .. } => emit_arabic(input, t, out),
                    Kind::Cn(_) => out.extend_from_slice(&input[t.s..t.e]),
                }
            }
        }
        Reading::DigitByDigit => {
            for t in toks {
                let d = match t.kind {
                    Kind::Cn(Cn::Digit(d)) => (b'0' + d) as char,
                    _ => '0',
                };
                out.push(NChar { ch: d, ..span });
            }
        }
        Reading::Value(v, f) => push_number(v, f, span, out),
    }
}

/// Emit a lone Arabic number: unchanged, except that separators are dropped
/// (whole-span output) and full-width digits become ASCII (per char).
fn emit_arabic(input: &[NChar], t: &Tok, out: &mut Vec<NChar>) {
    let Kind::Arabic { has_sep, non_ascii, .. } = t.kind else {
        return;
    };
    let ascii = |c: char| match digit_value(c) {
        Some(d) => char::from_digit(d, 10).unwrap_or(c),
        None if is_point(c) => '.',
        None => c,
    };
    if has_sep {
        let span = NChar { ch: '0', start: input[t.s].start, end: input[t.e - 1].end, mark: input[t.s].mark };
        for n in &input[t.s..t.e] {
            if !is_sep(n.ch) {
                out.push(NChar { ch: ascii(n.ch), ..span });
            }
        }
    } else if non_ascii {
        for n in &input[t.s..t.e] {
            out.push(NChar { ch: ascii(n.ch), ..*n });
        }
    } else {
        out.extend_from_slice(&input[t.s..t.e]);
    }
}

/// Decide how to read a run.
fn read(input: &[NChar], toks: &[Tok], prev: Option<char>, next: Option<char>) -> Reading {
    let all_cn = toks.iter().all(|t| matches!(t.kind, Kind::Cn(_)));
    if !all_cn {
        if toks.len() == 1 {
            return Reading::Keep;
        }
        return match parse(input, toks) {
            Some((v, f)) => Reading::Value(v, f),
            None => Reading::Keep,
        };
    }
    if toks.iter().all(|t| input[t.s].ch == '○') {
        return Reading::Keep;
    }
    if toks.len() == 1 {
        let ok = prev == Some('第') || next.is_some_and(|c| UNITS.contains(&c));
        if !ok {
            return Reading::Keep;
        }
    }
    let digits_only = toks.iter().all(|t| matches!(t.kind, Kind::Cn(Cn::Digit(_) | Cn::Zero)));
    if digits_only && toks.len() >= 2 {
        if toks.len() == 2 {
            let d = |t: &Tok| match t.kind {
                Kind::Cn(Cn::Digit(d)) => d,
                _ => 0,
            };
            let (a, b) = (d(&toks[0]), d(&toks[1]));
            if (a == 1 && b == 1) || b == a + 1 {
                return Reading::Keep;
            }
        }
        return Reading::DigitByDigit;
    }
    match parse(input, toks) {
        Some((v, f)) => Reading::Value(v, f),
        None => Reading::Keep,
    }
}

fn pow10(e: u32) -> Option<u128> {
    10u128.checked_pow(e)
}

/// Value of an Arabic token scaled by `10^f` (`f` ≥ its own decimals).
fn arabic_value(input: &[NChar], t: &Tok, f: u32) -> Option<u128> {
    let Kind::Arabic { frac, .. } = t.kind else {
        return None;
    };
    let mut v: u128 = 0;
    for n in &input[t.s..t.e] {
        if let Some(d) = digit_value(n.ch) {
            v = v.checked_mul(10)?.checked_add(d as u128)?;
        }
    }
    v.checked_mul(pow10(f.checked_sub(frac)?)?)
}

/// Positional reading of a run; `None` if malformed or too large.
/// Returns the value scaled by `10^f` and `f`.
fn parse(input: &[NChar], toks: &[Tok]) -> Option<(u128, u32)> {
    let f = toks
        .iter()
        .map(|t| match t.kind {
            Kind::Arabic { frac, .. } => frac,
            _ => 0,
        })
        .max()
        .unwrap_or(0);
    if f > 20 {
        return None;
    }
    let scale = pow10(f)?;
    let mut total: u128 = 0;
    let mut section: u128 = 0;
    let mut num: Option<u128> = None;
    // Power of the unit right before the current (Chinese) digit: `一万五`.
    let mut abbrev: Option<u32> = None;
    let mut last_small = 4;
    let mut wan_seen = false;
    let mut big_seen = false;
    let mut prev: Option<Kind> = None;
    for (k, t) in toks.iter().enumerate() {
        match t.kind {
            Kind::Cn(Cn::Digit(_) | Cn::Liang) => {
                if num.is_some() {
                    return None;
                }
                let d = match t.kind {
                    Kind::Cn(Cn::Digit(d)) => d as u128,
                    _ => 2,
                };
                num = Some(d.checked_mul(scale)?);
                abbrev = match prev {
                    Some(Kind::Cn(Cn::Small(e) | Cn::Big(e))) => Some(e),
                    _ => None,
                };
            }
            Kind::Cn(Cn::Zero) => {
                if num.is_some() || k == 0 {
                    return None;
                }
                abbrev = None;
            }
            Kind::Arabic { .. } => {
                if num.is_some() {
                    return None;
                }
                match toks.get(k + 1).map(|t| t.kind) {
                    Some(Kind::Cn(Cn::Big(_))) => {}
                    Some(Kind::Cn(Cn::Small(_))) if big_seen => {}
                    _ => return None,
                }
                num = Some(arabic_value(input, t, f)?);
                abbrev = None;
            }
            Kind::Cn(Cn::Small(e)) => {
                let n = match num {
                    Some(n) => n,
                    None => {
                        let bare_ten = e == 1 && (k == 0 || prev == Some(Kind::Cn(Cn::Zero)));
                        let bare_hundred =
                            e == 2 && k == 0 && matches!(toks.get(1).map(|t| t.kind), Some(Kind::Cn(Cn::Big(_))));
                        if bare_ten || bare_hundred {
                            scale
                        } else {
                            return None;
                        }
                    }
                };
                if e >= last_small {
                    return None;
                }
                last_small = e;
                section = section.checked_add(n.checked_mul(pow10(e)?)?)?;
                num = None;
                abbrev = None;
            }
            Kind::Cn(Cn::Big(e)) => {
                if section == 0 && num.is_none() && (e == 4 || total == 0) {
                    return None;
                }
                if e == 4 {
                    if wan_seen {
                        return None;
                    }
                    let v = section.checked_add(num.unwrap_or(0))?;
                    total = total.checked_add(v.checked_mul(pow10(4)?)?)?;
                    wan_seen = true;
                } else {
                    if prev == Some(Kind::Cn(Cn::Big(8))) {
                        return None;
                    }
                    let v = total.checked_add(section)?.checked_add(num.unwrap_or(0))?;
                    total = v.checked_mul(pow10(e)?)?;
                    wan_seen = false;
                }
                section = 0;
                num = None;
                abbrev = None;
                last_small = 4;
                big_seen = true;
            }
        }
        prev = Some(t.kind);
    }
    let mut tail = num.unwrap_or(0);
    if let (Some(n), Some(e)) = (num, abbrev) {
        if e >= 2 {
            tail = n.checked_mul(pow10(e - 1)?)?;
        }
    }
    let v = total.checked_add(section)?.checked_add(tail)?;
    Some((v, f))
}

/// Push the decimal digits of `v / 10^f` (trailing fractional zeros trimmed),
/// each with the span of `span`.
fn push_number(v: u128, f: u32, span: NChar, out: &mut Vec<NChar>) {
    // u128 has at most 39 digits; f ≤ 20.
    let mut buf = [b'0'; 64];
    let mut n = 0;
    let mut x = v;
    loop {
        buf[n] = b'0' + (x % 10) as u8;
        n += 1;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    let f = f as usize;
    if n <= f {
        n = f + 1; // leading zeros already in buf
    }
    let mut trim = 0;
    while trim < f && buf[trim] == b'0' {
        trim += 1;
    }
    for k in (f..n).rev() {
        out.push(NChar { ch: buf[k] as char, ..span });
    }
    if trim < f {
        out.push(NChar { ch: '.', ..span });
        for k in (trim..f).rev() {
            out.push(NChar { ch: buf[k] as char, ..span });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numeral_prefilter_agrees_with_the_classes() {
        for u in 0..=0x3_FFFFu32 {
            let Some(c) = char::from_u32(u) else { continue };
            assert_eq!(is_numeral(c), digit_value(c).is_some() || cn_class(c).is_some(), "{c:?} U+{u:04X}");
        }
    }

    fn run(s: &str) -> Vec<NChar> {
        let mut out = Vec::new();
        apply(&super::super::nchar::identity_chars(s), &mut out);
        out
    }

    fn n(s: &str) -> String {
        run(s).iter().map(|c| c.ch).collect()
    }

    fn spans(s: &str) -> Vec<(char, u32, u32)> {
        run(s).iter().map(|c| (c.ch, c.start, c.end)).collect()
    }

    #[test]
    fn fifty_thousand_all_ways() {
        for s in ["五万", "5万", "50000", "五萬", "50,000", "50，000", "5萬"] {
            assert_eq!(n(s), "50000", "{s}");
        }
    }

    #[test]
    fn spans_of_converted_run() {
        let sp = spans("约五万人");
        assert_eq!(sp[0], ('约', 0, 1));
        for c in &sp[1..6] {
            assert_eq!((c.1, c.2), (1, 3));
        }
        assert_eq!(sp[6], ('人', 3, 4));
        let sp = spans("2,300个兵");
        assert_eq!(sp.iter().map(|c| c.0).collect::<String>(), "2300个兵");
        assert!(sp[..4].iter().all(|c| (c.1, c.2) == (0, 5)));
        // unchanged Arabic digits keep their own spans
        assert_eq!(spans("12")[1], ('2', 1, 2));
    }

    #[test]
    fn positional() {
        let cases = [
            ("两万三千", "23000"),
            ("两万三千名", "23000名"),
            ("十六年", "16年"),
            ("二十", "20"),
            ("两千", "2000"),
            ("二百零八", "208"),
            ("一千二百", "1200"),
            ("三十万", "300000"),
            ("三十万塔勒", "300000塔勒"),
            ("一万五", "15000"),
            ("两千三", "2300"),
            ("一千零十", "1010"),
            ("三亿五千万", "350000000"),
            ("一万亿", "1000000000000"),
            ("十一月", "11月"),
            ("第一千零一夜", "第1001夜"),
            ("百万", "1000000"),
            ("一百〇八", "108"),
        ];
        for (a, b) in cases {
            assert_eq!(n(a), b, "{a}");
        }
    }

    #[test]
    fn digit_by_digit() {
        assert_eq!(n("一七九三年"), "1793年");
        assert_eq!(n("一六五九年三月十二日"), "1659年3月12日");
        assert_eq!(n("二〇〇八年"), "2008年");
        assert_eq!(n("一九○○年"), "1900年");
        assert_eq!(n("二零零八"), "2008");
        // estimates and words stay
        assert_eq!(n("三四天"), "三四天");
        assert_eq!(n("一一道来"), "一一道来");
    }

    #[test]
    fn arabic() {
        assert_eq!(n("1659年3月12日"), "1659年3月12日");
        assert_eq!(n("1.8万"), "18000");
        assert_eq!(n("1.85万"), "18500");
        assert_eq!(n("1.23456万"), "12345.6");
        assert_eq!(n("2亿"), "200000000");
        assert_eq!(n("3亿5000万"), "350000000");
        assert_eq!(n("5万3千"), "53000");
        assert_eq!(n("3千米"), "3千米");
        assert_eq!(n("1.5"), "1.5");
        assert_eq!(n("0.5"), "0.5");
        assert_eq!(n("300,000塔勒"), "300000塔勒");
        for s in ["23,000", "23，000", "23；000", "23;000"] {
            assert_eq!(n(s), "23000", "{s}");
        }
        assert_eq!(n("18,000,000"), "18000000");
        assert_eq!(n("23,000.5"), "23000.5");
        // not separators
        assert_eq!(n("1,2,3"), "1,2,3");
        assert_eq!(n("1990,1991"), "1990,1991");
        assert_eq!(n("23,0000"), "23,0000");
        assert_eq!(n("23,000,5"), "23000,5");
        assert_eq!(n("１２"), "12");
        assert_eq!(n("1.2.3"), "1.2.3");
    }

    #[test]
    fn votes() {
        assert_eq!(n("15票对8票"), "15票对8票");
        assert_eq!(n("十五票对八票"), "15票对8票");
    }

    #[test]
    fn single_characters() {
        assert_eq!(n("三年前"), "3年前");
        assert_eq!(n("第三"), "第3");
        assert_eq!(n("第十"), "第10");
        assert_eq!(n("十年"), "10年");
        for s in ["统一", "一些", "万一", "一样", "十分", "千万不要", "万万没想到", "百姓", "千里"]
        {
            assert_eq!(n(s), s, "{s}");
        }
        assert_eq!(n("两人"), "2人");
        assert_eq!(n("两万"), "20000");
        assert_eq!(n("两国"), "两国");
        assert_eq!(n("两三个"), "两三个");
        assert_eq!(n("三十两银子"), "30两银子");
        assert_eq!(n("十两"), "十两");
        assert_eq!(n("九九八十一"), "九九八十一");
        assert_eq!(n("○"), "○");
        assert_eq!(n("○○"), "○○");
    }

    #[test]
    fn no_overflow() {
        let big = "9".repeat(60);
        assert_eq!(n(&big), big);
        let s = format!("{big}万");
        assert_eq!(n(&s), s);
        let s = "九千九百九十九万".repeat(2) + "亿亿亿";
        assert_eq!(n(&s), s);
        let s = "九亿".repeat(10);
        assert_eq!(n(&s), s);
        let s = format!("1.{}万", "5".repeat(30));
        assert_eq!(n(&s), s);
    }
}
