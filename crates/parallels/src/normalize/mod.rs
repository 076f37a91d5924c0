//! Normalization: the text the matchers see, with a map back to the original.
//!
//! [`Normalizer::normalize`] turns a text into a sequence of [`NChar`]s: each
//! normalized character carries the half-open span `[start, end)` of the
//! original text it came from, in code points of the original.  Rules that
//! remove characters produce no `NChar`; characters produced from one
//! original stretch (a number `五万` → `50000`, an expansion `㈱` → `(株)`)
//! all carry that stretch's span.  `start` never decreases along the output.
//!
//! # Rules, in the order they run
//!
//! 1. **Line ends** (always): `\r\n` becomes one `\n` spanning both, a lone
//!    `\r` becomes `\n`.  Newlines are always kept (later stages split on them).
//! 2. **width** (`width.rs`): per-char NFKC with exceptions — full-width ASCII
//!    to ASCII, U+3000 to space, half-width katakana to full-width; CJK
//!    punctuation (`。、“”`), circled numbers and superscript digits stay.
//! 3. **case_fold**: lowercase.
//! 4. **script** and **variants** (`script.rs`): one char → char table,
//!    traditional → simplified from OpenCC's t2s, then our variant list.
//!
//!    Steps 1–4 run in one fused pass over the input.
//! 5. **footnotes** (`footnotes.rs`): `[21]`, `①`, `注①`, `¹²` after text are
//!    removed.  Runs before numbers, so `克鲁格[12]说` never yields a number.
//! 6. **censored** (`censored.rs`): runs of 2+ `*`/`＊`/`□` become one
//!    [`WILDCARD`] with [`Mark::Wildcard`].
//! 7. **numbers** (`numbers.rs`): Chinese and Arabic numerals become one
//!    canonical digit string (`五万`, `5万`, `50,000` → `50000`).
//! 8. **boilerplate** (`boilerplate.rs`): detected on the normalized lines
//!    (so after all folding), whole lines are marked [`Mark::Boilerplate`].
//!
//! Each option switches its rule off; the others still run.  Spaces and
//! punctuation are kept as ordinary characters (matchers ignore them).
//!
//! The [`Normalizer`] holds only the options and a `&'static` table built once
//! per process, so it is cheap to clone and `Send + Sync`.

use crate::chars::{HAN_FIRST, HAN_LAST};

mod boilerplate;
mod censored;
mod footnotes;
mod nchar;
mod numbers;
mod script;
mod width;

pub use nchar::{Mark, NChar, WILDCARD};

/// Normalized text: characters in original order, each with its source span.
#[derive(Clone, Debug, Default)]
pub struct Normalized {
    /// The normalized characters, in original order.
    pub chars: Vec<NChar>,
    /// Length of the original text in code points.
    pub original_len: u32,
}

/// Whether the character pass put out a character that can start a
/// footnote marker or a censored run (a character later composed with a
/// combining mark may leave a flag set: the pass then runs for nothing).
#[derive(Default)]
struct Triggers {
    footnote: bool,
    censor: bool,
}

impl Triggers {
    #[inline]
    fn see(&mut self, c: char) {
        match c as u32 {
            // In ASCII only `[` and `*` can start one.
            0..=0x7F => {
                self.footnote |= c == '[';
                self.censor |= c == '*';
            }
            HAN_FIRST..=HAN_LAST => self.footnote |= c == '注',
            _ => {
                self.footnote |= footnotes::is_trigger(c);
                self.censor |= censored::is_censor(c);
            }
        }
    }
}

/// Which rules run. All are on by default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NormalizeOptions {
    /// Full-width and half-width forms folded to one (NFKC plus width folding).
    pub width: bool,
    /// Letters folded to lower case.
    pub case_fold: bool,
    /// Traditional characters folded to simplified.
    pub script: bool,
    /// Variant characters folded to one form.
    pub variants: bool,
    /// Chinese numerals, 万-notation and thousands separators read as numbers.
    pub numbers: bool,
    /// Footnote and reference markers removed.
    pub footnotes: bool,
    /// Censored runs (`**`, `□□`) made wildcards that match nothing.
    pub censored: bool,
    /// Serialization headers and update-time lines marked as boilerplate.
    pub boilerplate: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            width: true,
            case_fold: true,
            script: true,
            variants: true,
            numbers: true,
            footnotes: true,
            censored: true,
            boilerplate: true,
        }
    }
}

/// The rules a user can switch off (`--no-script`, `--no-numbers`,
/// `--no-footnotes`, `--no-boilerplate`; the Python keywords `script`,
/// `numbers`, `footnotes`, `boilerplate`), as one value: what the front ends
/// take and an index's manifest keeps (flattened, four booleans). The
/// other rules stay on. `script` switches variant folding with it: the
/// two share one table, and a user who keeps traditional characters apart
/// keeps their variants apart too (this is where that rule is stated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Switches {
    /// Traditional/simplified and variant folding.
    pub script: bool,
    /// Chinese numerals read as numbers.
    pub numbers: bool,
    /// Footnote markers dropped.
    pub footnotes: bool,
    /// Serialization headers marked as boilerplate.
    pub boilerplate: bool,
}

impl Default for Switches {
    fn default() -> Self {
        Switches::of(&NormalizeOptions::default())
    }
}

impl Switches {
    /// The switches of `opts` (its `variants` go with `script`).
    pub fn of(opts: &NormalizeOptions) -> Switches {
        Switches {
            script: opts.script,
            numbers: opts.numbers,
            footnotes: opts.footnotes,
            boilerplate: opts.boilerplate,
        }
    }

    /// The default normalization with these rules on or off.
    pub fn options(self) -> NormalizeOptions {
        NormalizeOptions {
            script: self.script,
            variants: self.script,
            numbers: self.numbers,
            footnotes: self.footnotes,
            boilerplate: self.boilerplate,
            ..NormalizeOptions::default()
        }
    }
}

/// Holds the options and any loaded tables; build once, normalize many texts.
#[derive(Clone)]
pub struct Normalizer {
    opts: NormalizeOptions,
    /// Script + variants table (`None` when both rules are off).
    table: Option<&'static script::CharTable>,
}

impl std::fmt::Debug for Normalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Normalizer").field("opts", &self.opts).finish_non_exhaustive()
    }
}

impl Normalizer {
    /// Build a normalizer; the first one with the script rule on pays for
    /// deriving the t2s table (once per process).
    pub fn new(opts: NormalizeOptions) -> Normalizer {
        let table = script::table(opts.script, opts.variants);
        Normalizer { opts, table }
    }

    /// Normalize `text`. Never panics.
    pub fn normalize(&self, text: &str) -> Normalized {
        // Offsets are u32 code points; a text beyond that is cut (4 G
        // chars), which only a text of more than 4 GB can reach.
        let limit = match u32::try_from(text.len()) {
            Ok(_) => u32::MAX,
            Err(_) => u32::try_from(text.chars().count()).unwrap_or(u32::MAX),
        };
        // Room for Chinese text (three bytes a character) without growing.
        let mut a = Vec::with_capacity(text.len() / 2 + 16);
        let mut triggers = Triggers::default();
        let original_len = self.char_pass(text, limit, &mut a, &mut triggers);
        let mut b = Vec::with_capacity(a.len());
        // Each pass copies `a` into `b` (then they swap); a pass whose trigger
        // characters do not occur (the character pass looked for them) is
        // skipped. Removing footnote markers cannot add a censor character.
        let mut step = |needed: bool, f: fn(&[NChar], &mut Vec<NChar>), a: &mut Vec<NChar>| {
            if needed {
                b.clear();
                f(a, &mut b);
                std::mem::swap(a, &mut b);
            }
        };
        let (footnote_triggers, censor_triggers) = (triggers.footnote, triggers.censor);
        if self.opts.footnotes {
            step(footnote_triggers, footnotes::apply, &mut a);
        }
        if self.opts.censored {
            step(censor_triggers, censored::apply, &mut a);
        }
        if self.opts.numbers {
            step(true, numbers::apply, &mut a);
        }
        if self.opts.boilerplate {
            boilerplate::mark(&mut a);
        }
        Normalized { chars: a, original_len }
    }

    /// Steps 1–4: line ends, width, case, script/variants; the number of
    /// code points read (at most `len`).
    fn char_pass(&self, text: &str, len: u32, out: &mut Vec<NChar>, triggers: &mut Triggers) -> u32 {
        let bytes = text.as_bytes();
        let mut pos = 0usize;
        let mut idx: u32 = 0;
        while pos < bytes.len() && idx < len {
            // The bulk of Chinese text: runs of characters of the CJK
            // unified block (U+4E00–U+9FFF, three bytes led by E4 B8…E9),
            // decoded here directly, a whole run in one tight loop. They
            // have no width form, no case and are never combining marks;
            // only the script table applies.
            if han_at(bytes, pos) {
                (pos, idx) = match self.table {
                    Some(t) => han_run(bytes, pos, idx, len, out, triggers, |c| t.get_han(c)),
                    None => han_run(bytes, pos, idx, len, out, triggers, |c| c),
                };
                continue;
            }
            let start = idx;
            idx += 1;
            let Some(c) = text.get(pos..).and_then(|rest| rest.chars().next()) else {
                break;
            };
            pos += c.len_utf8();
            if c == '\r' || c == '\n' {
                if c == '\r' && bytes.get(pos) == Some(&b'\n') && idx < len {
                    pos += 1;
                    idx += 1;
                }
                out.push(NChar { ch: '\n', start, end: idx, mark: Mark::Text });
                continue;
            }
            let end = idx;
            if self.opts.width {
                width::fold(c, &mut |w| self.push_folded(w, start, end, true, out, triggers));
            } else {
                self.push_folded(c, start, end, false, out, triggers);
            }
        }
        idx
    }

    /// Case and script/variants for one width-folded char.
    #[inline]
    fn push_folded(&self, c: char, start: u32, end: u32, compose: bool, out: &mut Vec<NChar>, triggers: &mut Triggers) {
        if compose {
            if let Some(prev) = out.last_mut() {
                if prev.ch != '\n' {
                    if let Some(x) = width::compose(prev.ch, c) {
                        triggers.see(x);
                        prev.ch = x;
                        prev.end = end;
                        return;
                    }
                }
            }
        }
        let mut push = |c: char| {
            let c = match self.table {
                Some(t) => t.get(c),
                None => c,
            };
            triggers.see(c);
            out.push(NChar { ch: c, start, end, mark: Mark::Text });
        };
        if self.opts.case_fold {
            width::fold_case(c, &mut push);
        } else {
            push(c);
        }
    }
}

/// Whether the UTF-8 text `bytes` has a character of the CJK unified block
/// (U+4E00–U+9FFF: lead byte E5–E9, or E4 followed by B8 or more) at byte
/// `pos`, all three of its bytes there.
#[inline(always)]
fn han_at(bytes: &[u8], pos: usize) -> bool {
    match bytes.get(pos..pos + 3) {
        Some(&[b0, b1, _]) => (0xE5..=0xE9).contains(&b0) || (b0 == 0xE4 && b1 >= 0xB8),
        _ => false,
    }
}

/// The run of CJK unified characters of the UTF-8 text `bytes` from byte
/// `pos` (at least one, [`han_at`]), the first of them original character
/// `idx`, at most up to character `len`: each put out as `fold` maps it,
/// spanning itself. Returns the byte and character positions after the run.
///
/// One tight loop for what is most of Chinese text (the rule of the
/// character pass for these characters, written once for a run, with the
/// table chosen outside it): the general loop decided the kind of every
/// character anew, with its table lookup behind an `Option`.
#[inline(always)]
fn han_run(
    bytes: &[u8],
    mut pos: usize,
    mut idx: u32,
    len: u32,
    out: &mut Vec<NChar>,
    triggers: &mut Triggers,
    fold: impl Fn(char) -> char,
) -> (usize, u32) {
    // Every character of the run takes three bytes.
    out.reserve((bytes.len() - pos) / 3);
    let mut footnote = false;
    while idx < len {
        let Some(&[b0, b1, b2]) = bytes.get(pos..pos + 3) else { break };
        if !((0xE5..=0xE9).contains(&b0) || (b0 == 0xE4 && b1 >= 0xB8)) {
            break;
        }
        let u = (u32::from(b0) & 0x0F) << 12 | (u32::from(b1) & 0x3F) << 6 | (u32::from(b2) & 0x3F);
        // U+4E00–U+9FFF: never a surrogate, so always a char.
        let Some(c) = char::from_u32(u) else { break };
        let ch = fold(c);
        // In the CJK unified block only 注 starts a footnote marker
        // (traditional 註 becomes it).
        footnote |= ch == '注';
        out.push(NChar { ch, start: idx, end: idx + 1, mark: Mark::Text });
        pos += 3;
        idx += 1;
    }
    triggers.footnote |= footnote;
    (pos, idx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all_on() -> Normalizer {
        Normalizer::new(NormalizeOptions::default())
    }

    fn norm(s: &str) -> String {
        all_on().normalize(s).chars.iter().map(|c| c.ch).collect()
    }

    fn norm_with(s: &str, f: impl Fn(&mut NormalizeOptions)) -> String {
        let mut o = NormalizeOptions::default();
        f(&mut o);
        Normalizer::new(o).normalize(s).chars.iter().map(|c| c.ch).collect()
    }

    /// All invariants of a normalization of `text`.
    fn check_invariants(text: &str, n: &Normalized) {
        let len = text.chars().count() as u32;
        assert_eq!(n.original_len, len);
        let mut last_start = 0;
        for c in &n.chars {
            assert!(c.start < c.end, "{c:?} in {text:?}");
            assert!(c.end <= len, "{c:?} in {text:?}");
            assert!(c.start >= last_start, "{c:?} in {text:?}");
            last_start = c.start;
            if c.mark == Mark::Wildcard {
                assert_eq!(c.ch, WILDCARD);
            }
        }
        // Newlines survive one for one.
        let lines_in = text.replace("\r\n", "\n").matches(['\n', '\r']).count();
        let lines_out = n.chars.iter().filter(|c| c.ch == '\n').count();
        assert_eq!(lines_in, lines_out, "{text:?}");
    }

    fn option_sets() -> Vec<NormalizeOptions> {
        let mut v = vec![NormalizeOptions::default()];
        for k in 0..8 {
            let mut o = NormalizeOptions::default();
            match k {
                0 => o.width = false,
                1 => o.case_fold = false,
                2 => o.script = false,
                3 => o.variants = false,
                4 => o.numbers = false,
                5 => o.footnotes = false,
                6 => o.censored = false,
                _ => o.boilerplate = false,
            }
            v.push(o);
        }
        v
    }

    proptest! {
        /// The character pass flags every trigger character it puts out, so
        /// a footnote or censor pass is skipped only when it has nothing to do.
        #[test]
        fn the_character_pass_flags_every_trigger(
            s in proptest::collection::vec(proptest::sample::select(vec![
                '[', '［', '*', '＊', '□', '注', '註', '①', '⑳', '¹', '²', 'e', '\u{301}', 'a', '1', '１',
                ']', '］', '汉', '戰', '\n', '\r', ' ', '　', '。',
            ]), 0..40)
        ) {
            let text: String = s.into_iter().collect();
            for opts in option_sets() {
                let n = Normalizer::new(opts);
                let (mut out, mut triggers) = (Vec::new(), Triggers::default());
                n.char_pass(&text, u32::MAX, &mut out, &mut triggers);
                if out.iter().any(|c| footnotes::is_trigger(c.ch)) {
                    prop_assert!(triggers.footnote, "{text:?}");
                }
                if out.iter().any(|c| censored::is_censor(c.ch)) {
                    prop_assert!(triggers.censor, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn examples_from_the_brief() {
        assert_eq!(norm("这场戰爭"), "这场战争");
        assert_eq!(norm("魏斯明德的軍隊"), "魏斯明德的军队");
        assert_eq!(norm("克魯格"), "克鲁格");
        assert_eq!(norm("两万三千名"), "23000名");
        assert_eq!(norm("一六五九年三月十二日"), "1659年3月12日");
        assert_eq!(norm("1659年3月12日"), "1659年3月12日");
        assert_eq!(norm("15票对8票"), norm("十五票对八票"));
        assert_eq!(norm("2,300个兵"), "2300个兵");
        assert_eq!(norm("300,000塔勒"), norm("三十万塔勒"));
        assert_eq!(norm("300,000塔勒"), "300000塔勒");
        assert_eq!(norm("五萬"), "50000");
        assert_eq!(norm("５万"), "50000");
        assert_eq!(norm("５０，０００"), "50000");
        assert_eq!(norm("23；000"), "23000");
        assert_eq!(norm("兩萬"), "20000");
        assert_eq!(norm("！１２，；：（）ＡＢ"), "!12,;:()ab");
        assert_eq!(norm("著名的裏面"), "着名的里面");
        assert_eq!(norm("第十二章"), "第12章");
        assert_eq!(norm("一九四五年八月十五日"), "1945年8月15日");
        assert_eq!(norm("三年前"), "3年前");
        assert_eq!(norm("麦克唐纳［２１］说"), "麦克唐纳说");
        assert_eq!(norm("战争注①爆发"), "战争爆发");
    }

    #[test]
    fn spans_survive() {
        let n = all_on().normalize("约五万人");
        let s: String = n.chars.iter().map(|c| c.ch).collect();
        assert_eq!(s, "约50000人");
        for c in &n.chars[1..6] {
            assert_eq!((c.start, c.end), (1, 3));
        }
        let n = all_on().normalize("克鲁格[12]说");
        let s: String = n.chars.iter().map(|c| c.ch).collect();
        assert_eq!(s, "克鲁格说");
        assert_eq!((n.chars[3].start, n.chars[3].end), (7, 8));
        let n = all_on().normalize("a\r\nb\rc");
        let got: Vec<_> = n.chars.iter().map(|c| (c.ch, c.start, c.end)).collect();
        assert_eq!(got, vec![('a', 0, 1), ('\n', 1, 3), ('b', 3, 4), ('\n', 4, 5), ('c', 5, 6)]);
        let n = all_on().normalize("㈱");
        assert_eq!(n.chars.len(), 3);
        assert!(n.chars.iter().all(|c| (c.start, c.end) == (0, 1)));
        let n = all_on().normalize("ｶﾞ");
        assert_eq!(n.chars.len(), 1);
        assert_eq!((n.chars[0].ch, n.chars[0].start, n.chars[0].end), ('ガ', 0, 2));
    }

    #[test]
    fn wildcard_and_boilerplate() {
        let n = all_on().normalize("那些**的瑞典人");
        let w: Vec<_> = n.chars.iter().filter(|c| c.mark == Mark::Wildcard).collect();
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].start, w[0].end), (2, 4));
        assert_eq!(n.chars.len(), 7);
        let n = all_on().normalize("那些＊＊的瑞典人");
        assert_eq!(n.chars.iter().filter(|c| c.mark == Mark::Wildcard).count(), 1);

        let n = all_on().normalize("第十二章 围城（3）\n正文");
        let line1: Vec<_> = n.chars.iter().take_while(|c| c.ch != '\n').collect();
        assert!(line1.iter().all(|c| c.mark == Mark::Boilerplate));
        let tail: Vec<_> = n.chars.iter().skip(line1.len()).collect();
        assert!(tail.iter().all(|c| c.mark == Mark::Text));
        assert_eq!(tail.iter().map(|c| c.ch).collect::<String>(), "\n正文");
        for s in ["第12章 围城(3)\n正文", "第十二章 圍城（３）\n正文"] {
            let n = all_on().normalize(s);
            assert_eq!(n.chars[0].mark, Mark::Boilerplate, "{s}");
        }
        let n = all_on().normalize("四、地下的战争\n正文");
        assert!(n.chars.iter().all(|c| c.mark == Mark::Text));
    }

    #[test]
    fn options_turn_rules_off() {
        assert_eq!(norm_with("ＡＢ", |o| o.width = false), "ａｂ");
        assert_eq!(norm_with("ＡＢ", |o| o.case_fold = false), "AB");
        assert_eq!(norm_with("戰爭", |o| o.script = false), "戰爭");
        assert_eq!(norm_with("著", |o| o.variants = false), "著");
        assert_eq!(norm_with("五万", |o| o.numbers = false), "五万");
        assert_eq!(norm_with("说[12]", |o| o.footnotes = false), "说[12]");
        assert_eq!(norm_with("**", |o| o.censored = false), "**");
        let o = NormalizeOptions { boilerplate: false, ..Default::default() };
        let n = Normalizer::new(o).normalize("（本章完）");
        assert!(n.chars.iter().all(|c| c.mark == Mark::Text));
        // width off still reads full-width numbers
        assert_eq!(norm_with("２３，０００", |o| o.width = false), "23000");
    }

    #[test]
    fn normalizer_is_shareable() {
        fn assert_send_sync<T: Send + Sync + Clone>() {}
        assert_send_sync::<Normalizer>();
    }

    #[test]
    fn odd_inputs() {
        let inputs = [
            "",
            "\r",
            "\r\r\n\n",
            "\u{FFFD}\u{0}\u{7}",
            "e\u{301}\u{301}\u{301}",
            "\u{301}abc",
            "👨‍👩‍👧 emoji 🎉",
            "[",
            "[1",
            "第",
            "注",
            "*",
            "□",
            "﷽",
            "ﾞﾞﾞ",
            "\u{3099}",
            "一万万万亿亿亿",
            "999999999999999999999999999999999999999999万亿",
            "１,２３４,５６７.８９万",
        ];
        let opts = option_sets();
        for s in inputs {
            for o in &opts {
                let n = Normalizer::new(o.clone()).normalize(s);
                check_invariants(s, &n);
            }
        }
    }

    #[test]
    fn long_line_without_newline() {
        let s = "魏斯明德的军队有两万三千人，".repeat(20_000) + &"9".repeat(100_000);
        let n = all_on().normalize(&s);
        check_invariants(&s, &n);
    }

    /// Throughput, run by hand: `cargo test --release -p parallels
    /// normalize::tests::throughput -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn throughput() {
        let t0 = std::time::Instant::now();
        let nz = all_on();
        eprintln!("Normalizer::new (table init): {:?}", t0.elapsed());
        let para = "第十二章 围城（3）\n\
            一六五九年三月十二日，魏斯明德的軍隊约有两万三千人，其中瑞典人**占了一半[12]。\
            克鲁格说：“这场戰爭已经打了十六年，我们还有300,000塔勒。”他们在城里住了三年，\
            每天都有十五票对八票的争论，卡尔·古斯塔夫国王的骑兵部队则在丹麦的岛屿上过冬。\n";
        let text = para.repeat(10 * 1024 * 1024 / para.len());
        let one_line = text.replace('\n', "");
        let dialogue = "“是的。”他说。\n“我们明天出发吗？”\n".repeat(10 * 1024 * 1024 / 60);
        let latin = "The Swedish army of 23,000 men wintered on the Danish islands.\n".repeat(10 * 1024 * 1024 / 64);
        for (name, t) in [("lines", &text), ("one line", &one_line), ("short lines", &dialogue), ("latin", &latin)] {
            let t0 = std::time::Instant::now();
            let n = nz.normalize(t);
            let dt = t0.elapsed();
            eprintln!(
                "{name}: {} MB, {} chars -> {} in {:?}: {:.1} MB/s",
                t.len() / 1_000_000,
                t.chars().count(),
                n.chars.len(),
                dt,
                t.len() as f64 / 1e6 / dt.as_secs_f64()
            );
        }
    }

    fn cjk_mix() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "一",
            "二",
            "三",
            "十",
            "百",
            "千",
            "万",
            "亿",
            "两",
            "兩",
            "零",
            "〇",
            "○",
            "萬",
            "億",
            "第",
            "年",
            "人",
            "个",
            "章",
            "注",
            "①",
            "²",
            "¹",
            "0",
            "1",
            "2",
            "5",
            "9",
            "１",
            ",",
            "，",
            ";",
            "；",
            ".",
            "．",
            "[",
            "]",
            "［",
            "］",
            "(",
            ")",
            "（",
            "）",
            "*",
            "＊",
            "□",
            "\r",
            "\n",
            "\r\n",
            " ",
            "\u{3000}",
            "戰",
            "爭",
            "裏",
            "著",
            "的",
            "更新时间：",
            "本章完",
            "ｶ",
            "ﾞ",
            "\u{301}",
            "㈱",
            "A",
            "İ",
            "é",
            "…",
        ]);
        prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
    }

    fn special() -> impl Strategy<Value = String> {
        "[\r\n\\[\\]*□一十万0-9,注①a ]{0,40}"
    }

    fn any_text() -> impl Strategy<Value = String> {
        prop_oneof!["\\PC*".boxed(), any::<String>().boxed(), cjk_mix().boxed(), special().boxed(),]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn invariants_hold(text in any_text()) {
            for o in option_sets() {
                let n = Normalizer::new(o).normalize(&text);
                check_invariants(&text, &n);
            }
        }

        #[test]
        fn repeated_lines_invariants(line in cjk_mix(), k in 0usize..5) {
            let text = format!("{line}\n").repeat(k);
            let n = all_on().normalize(&text);
            check_invariants(&text, &n);
        }
    }
}
