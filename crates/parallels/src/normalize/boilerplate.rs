//! Rule 8: boilerplate lines (web-serial furniture) are marked, not removed.
//!
//! Detection runs last, on the *normalized* line (after width, script,
//! numbers …), so `第十二章 圍城（３）` and `第12章 围城(3)` look alike; the
//! patterns also accept the unfolded forms so they work with any option off.
//! Every character of a boilerplate line gets [`Mark::Boilerplate`]; the
//! newline that ends the line stays [`Mark::Text`].
//!
//! A line (leading/trailing whitespace ignored) is boilerplate when it is
//!
//! * a chapter heading with a part number in brackets at its end:
//!   `第十二章 围城（3）`, `第12章 围城(3)`, `第3回（上）` — `第`, a numeral,
//!   one of `章节節回卷集部篇`, any title, then `(`…`)` around a numeral or
//!   `上中下`.  A heading without the part number is ordinary text;
//! * an update-time line: starts with [`TIME_PREFIXES`] (`更新时间：…`);
//! * serial furniture: after stripping brackets and punctuation, one of
//!   [`FURNITURE`] (`本章完`, `未完待续` …) or starting with one of
//!   [`FURNITURE_PREFIXES`] (`本章未完，请点击下一页继续阅读`);
//! * any line of at most [`REPEAT_MAX_LEN`] chars that occurs 3 or more times
//!   in the text, has at least 2 letters/digits/ideographs and does not
//!   start with an opening quote (short dialogue such as `“是的。”` repeats in
//!   novels and is content).

use rustc_hash::FxHashMap;

use super::nchar::{Mark, NChar};
use crate::chars::is_alphanumeric;

/// Lines longer than this are never pattern-checked.
const PATTERN_MAX_LEN: usize = 80;
/// Longest line counted by the repeated-line rule.
pub(crate) const REPEAT_MAX_LEN: usize = 40;
/// Occurrences that make a short line boilerplate.
const REPEAT_MIN_COUNT: u32 = 3;

const TIME_PREFIXES: &[&str] = &[
    "更新时间",
    "更新時間",
    "更新日期",
    "更新于",
    "更新於",
    "发布时间",
    "發布時間",
    "發佈時間",
    "发表时间",
    "發表時間",
    "上传时间",
    "上傳時間",
    "本章字数",
    "本章字數",
];

const FURNITURE: &[&str] = &[
    "本章完",
    "本章完结",
    "本章完結",
    "本节完",
    "本節完",
    "未完待续",
    "未完待續",
    "待续",
    "待續",
    "全文完",
    "全书完",
    "全書完",
    "完",
];

const FURNITURE_PREFIXES: &[&str] = &["本章未完", "请点击下一页", "請點擊下一頁", "点击下一页", "點擊下一頁"];

#[inline]
fn is_numeral(c: char) -> bool {
    c.is_ascii_digit()
        || matches!(
            c,
            '０'
                ..='９'
                    | '〇'
                    | '零'
                    | '一'
                    | '二'
                    | '三'
                    | '四'
                    | '五'
                    | '六'
                    | '七'
                    | '八'
                    | '九'
                    | '十'
                    | '百'
                    | '千'
                    | '万'
                    | '萬'
                    | '两'
                    | '兩'
        )
}

#[inline]
fn is_open(c: char) -> bool {
    matches!(c, '(' | '（' | '【' | '[' | '［' | '〔')
}

#[inline]
fn is_close(c: char) -> bool {
    matches!(c, ')' | '）' | '】' | ']' | '］' | '〕')
}

fn starts_with(line: &[char], prefix: &str) -> bool {
    let mut it = line.iter();
    prefix.chars().all(|p| it.next() == Some(&p))
}

fn equals(line: &[char], word: &str) -> bool {
    let mut it = line.iter();
    word.chars().all(|p| it.next() == Some(&p)) && it.next().is_none()
}

/// `第…章 title（3）`
fn is_part_heading(line: &[char]) -> bool {
    if line.first() != Some(&'第') {
        return false;
    }
    let num = line[1..].iter().take_while(|&&c| is_numeral(c)).count();
    if num == 0 {
        return false;
    }
    let Some(&kind) = line.get(1 + num) else {
        return false;
    };
    if !matches!(kind, '章' | '节' | '節' | '回' | '卷' | '集' | '部' | '篇') {
        return false;
    }
    let rest = &line[2 + num..];
    let Some((&close, inner)) = rest.split_last() else {
        return false;
    };
    if !is_close(close) {
        return false;
    }
    let Some(open) = inner.iter().rposition(|&c| is_open(c)) else {
        return false;
    };
    let part = &inner[open + 1..];
    !part.is_empty()
        && part.len() <= 6
        && (part.iter().all(|&c| is_numeral(c)) || matches!(part, ['上'] | ['中'] | ['下']))
}

/// Whether `c` is the first character of a word of [`TIME_PREFIXES`],
/// [`FURNITURE`] or [`FURNITURE_PREFIXES`] (tested): most short lines start
/// with none of them and are settled without comparing them with each word.
#[inline]
fn may_start_word(c: char) -> bool {
    matches!(c, '更' | '发' | '發' | '上' | '本' | '未' | '待' | '全' | '完' | '请' | '請' | '点' | '點')
}

fn is_time_line(line: &[char]) -> bool {
    line.first().is_some_and(|&c| may_start_word(c)) && TIME_PREFIXES.iter().any(|p| starts_with(line, p))
}

fn is_furniture(line: &[char]) -> bool {
    let strip = |c: &char| {
        c.is_whitespace()
            || is_open(*c)
            || is_close(*c)
            || matches!(
                c,
                '-' | '—' | '=' | '~' | '～' | '*' | '·' | '.' | '。' | '!' | '！' | '…' | '<' | '>' | '《' | '》'
            )
    };
    let s = line.iter().position(|c| !strip(c)).unwrap_or(line.len());
    let e = line.iter().rposition(|c| !strip(c)).map_or(s, |e| e + 1);
    let core = &line[s..e];
    if !core.first().is_some_and(|&c| may_start_word(c)) {
        return false;
    }
    FURNITURE.iter().any(|w| equals(core, w))
        || (core.len() <= REPEAT_MAX_LEN && FURNITURE_PREFIXES.iter().any(|p| starts_with(core, p)))
}

/// Pattern rules (not the repetition rule) on a trimmed line.
pub(crate) fn is_pattern_line(line: &[char]) -> bool {
    line.len() <= PATTERN_MAX_LEN && (is_part_heading(line) || is_time_line(line) || is_furniture(line))
}

fn repeat_candidate(line: &[char]) -> bool {
    line.len() <= REPEAT_MAX_LEN
        && !matches!(line.first(), Some('“' | '「' | '『' | '"' | '‘' | '\''))
        && line.iter().filter(|&&c| is_alphanumeric(c)).count() >= 2
}

/// A line of at most [`PATTERN_MAX_LEN`] characters (trimmed), as `mark`
/// reads it.
struct ShortLine {
    /// Its span in the normalized characters.
    span: (usize, usize),
    /// Its characters in `mark`'s `text`.
    text: (usize, usize),
    /// The number of its text among the repeat candidates.
    number: Option<u32>,
}

/// Mark boilerplate lines in place.
pub(crate) fn mark(chars: &mut [NChar]) {
    let mut lines: Vec<ShortLine> = Vec::new();
    let mut text: Vec<char> = Vec::new();
    let mut s = 0;
    while s <= chars.len() {
        let e = chars[s..].iter().position(|n| n.ch == '\n').map_or(chars.len(), |p| s + p);
        let line = &chars[s..e];
        let ts = line.iter().position(|n| !n.ch.is_whitespace()).unwrap_or(line.len());
        let te = line.iter().rposition(|n| !n.ch.is_whitespace()).map_or(ts, |p| p + 1);
        if ts < te && te - ts <= PATTERN_MAX_LEN {
            let t0 = text.len();
            text.extend(line[ts..te].iter().map(|n| n.ch));
            lines.push(ShortLine { span: (s, e), text: (t0, text.len()), number: None });
        }
        s = e + 1;
    }
    // Each candidate text is hashed once: its number, then counted.
    let mut numbers: FxHashMap<&[char], u32> = FxHashMap::default();
    let mut counts: Vec<u32> = Vec::new();
    for line in &mut lines {
        let t = &text[line.text.0..line.text.1];
        if repeat_candidate(t) {
            let next = numbers.len() as u32;
            let k = *numbers.entry(t).or_insert(next);
            if k == next {
                counts.push(0);
            }
            counts[k as usize] += 1;
            line.number = Some(k);
        }
    }
    for line in &lines {
        let repeated = line.number.is_some_and(|k| counts[k as usize] >= REPEAT_MIN_COUNT);
        if repeated || is_pattern_line(&text[line.text.0..line.text.1]) {
            for n in &mut chars[line.span.0..line.span.1] {
                n.mark = Mark::Boilerplate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> bool {
        let v: Vec<char> = s.chars().collect();
        is_pattern_line(&v)
    }

    fn marks(s: &str) -> String {
        let mut v: Vec<NChar> = s
            .chars()
            .enumerate()
            .map(|(i, ch)| NChar { ch, start: i as u32, end: i as u32 + 1, mark: Mark::Text })
            .collect();
        mark(&mut v);
        v.iter()
            .map(|n| match n.mark {
                Mark::Boilerplate => 'B',
                _ if n.ch == '\n' => '\n',
                _ => '.',
            })
            .collect()
    }

    #[test]
    fn every_listed_word_starts_with_a_first_character_of_the_quick_test() {
        for word in TIME_PREFIXES.iter().chain(FURNITURE).chain(FURNITURE_PREFIXES) {
            let first = word.chars().next().unwrap();
            assert!(may_start_word(first), "{word}");
        }
    }

    #[test]
    fn part_headings() {
        assert!(p("第十二章 围城（3）"));
        assert!(p("第12章 围城(3)"));
        assert!(p("第12章围城(3)"));
        assert!(p("第三回（上）"));
        assert!(p("第１２章 圍城（３）"));
        assert!(!p("第十二章 围城"));
        assert!(!p("四、地下的战争"));
        assert!(!p("第十二章 围城（注）"));
        assert!(!p("第一个人(3)"));
    }

    #[test]
    fn time_and_furniture() {
        assert!(p("更新时间：2021-06-08 21:30"));
        assert!(p("更新時間：2021-06-08 21:30"));
        assert!(p("发布时间：2021-06-08"));
        assert!(p("更新于2021-06-08"));
        assert!(p("（本章完）"));
        assert!(p("(本章完)"));
        assert!(p("（未完待续）"));
        assert!(p("本章未完，请点击下一页继续阅读"));
        assert!(p("——全文完——"));
        assert!(!p("他说本章完了"));
        assert!(!p("完成了任务"));
        assert!(!p("更新了他的想法，这一时间……"));
    }

    #[test]
    fn marks_whole_line_only() {
        assert_eq!(marks("第十二章 围城（3）\n正文"), "BBBBBBBBBB\n..");
        assert_eq!(marks("  （本章完）\n"), "BBBBBBB\n");
        assert_eq!(marks(""), "");
        assert_eq!(marks("\n\n"), "\n\n");
    }

    #[test]
    fn repeated_lines() {
        let s = "魏斯明德之战\n甲\n魏斯明德之战\n乙乙乙\n魏斯明德之战";
        assert_eq!(marks(s), "BBBBBB\n.\nBBBBBB\n...\nBBBBBB");
        // twice is not enough
        let s = "魏斯明德之战\n甲\n魏斯明德之战";
        assert!(!marks(s).contains('B'));
        // dialogue and one-letter lines are content
        let s = "“是的。”\n“是的。”\n“是的。”\n嗯\n嗯\n嗯";
        assert!(!marks(s).contains('B'));
        // long lines are never counted
        let long = "长".repeat(41);
        let s = format!("{long}\n{long}\n{long}");
        assert!(!marks(&s).contains('B'));
    }
}
