//! Rules 3 and 4: traditional → simplified script, and variant characters.
//!
//! Both are pure char → char maps (same length, so offsets are untouched).
//! Folding at the character level is deliberate: the same map is applied to
//! both texts, so `戰爭`/`战争`, `裏`/`裡`/`里` and `乾`/`幹`/`干` all meet in one
//! form even where a phrase-level converter would choose differently.
//!
//! * The script table is derived from the `ferrous-opencc` crate's `t2s`
//!   converter: every code point of the CJK blocks is converted on its own
//!   (one call on a newline-separated string, so no phrase can match across
//!   two code points) and every single-char result that differs from its
//!   input becomes an entry.  Chains (`a → b → c`) are resolved so the map
//!   is idempotent.  The derivation's result is stored in `t2s_pairs.txt`
//!   (one pair a line) and read from there: deriving it converted 200,000
//!   code points, about 10 ms of CPU at the start of every process (1.5 % of
//!   a `dedup` of 30 MB), reading the file takes a fraction of a
//!   millisecond. A test derives it again and compares (after an update of
//!   `ferrous-opencc`, `PARALLELS_BLESS=1` writes the new file).
//! * [`VARIANTS`] is our own short list of variant characters that OpenCC's
//!   t2s leaves alone (or only folds with the script rule on).
//! * The two are combined into one lookup table per option combination,
//!   built lazily once ([`table`]).

use std::sync::OnceLock;

use crate::chars::{is_han_unified, HanSet};
#[cfg(test)]
use crate::chars::{HAN_FIRST, HAN_LAST};

/// A char → char map as a two-level page table: `index[c >> 8]` names a page
/// of 256 targets (page 0 means "no entry on this page", i.e. identity).
pub(crate) struct CharTable {
    index: Vec<u16>,
    pages: Vec<[char; 256]>,
    /// The characters of the CJK unified block that have an entry: looked
    /// at before the block's 82 pages, which do not stay in the L1 cache;
    /// most Han characters of a text map to themselves.
    han: HanSet,
}

const PAGE_COUNT: usize = 0x11_0000 >> 8;

impl CharTable {
    /// An identity table.
    pub(crate) fn new() -> CharTable {
        CharTable {
            index: vec![0; PAGE_COUNT],
            // Page 0 is a placeholder so that index 0 can mean "no page".
            pages: vec![['\0'; 256]],
            han: HanSet::of(&[]),
        }
    }

    /// Map `from` to `to`.
    pub(crate) fn insert(&mut self, from: char, to: char) {
        let page_no = (from as u32 >> 8) as usize;
        if self.index[page_no] == 0 {
            let base = (page_no as u32) << 8;
            let mut page = ['\0'; 256];
            for (k, slot) in page.iter_mut().enumerate() {
                // Identity for every code point of the page; surrogates
                // cannot occur in a `char`, so the fallback is never read.
                *slot = char::from_u32(base + k as u32).unwrap_or('\u{FFFD}');
            }
            self.pages.push(page);
            self.index[page_no] = (self.pages.len() - 1) as u16;
        }
        let page = self.index[page_no] as usize;
        self.pages[page][(from as u32 & 0xFF) as usize] = to;
        self.han.insert(from);
    }

    /// [`CharTable::get`] for a character of the CJK unified block.
    #[inline]
    pub(crate) fn get_han(&self, c: char) -> char {
        debug_assert!(is_han_unified(c));
        if self.han.contains(c) {
            self.get(c)
        } else {
            c
        }
    }

    /// The image of `c` (itself when there is no entry).
    #[inline]
    pub(crate) fn get(&self, c: char) -> char {
        let page = self.index[(c as u32 >> 8) as usize];
        if page == 0 {
            c
        } else {
            self.pages[page as usize][(c as u32 & 0xFF) as usize]
        }
    }

    /// Number of pages holding entries (for tests/diagnostics).
    #[cfg(test)]
    fn page_count(&self) -> usize {
        self.pages.len() - 1
    }
}

/// Variant characters folded by rule 4, `(variant, canonical)`.
///
/// Kept short on purpose: only pairs that are the same word in running text.
/// Some pairs are also in OpenCC's t2s (`裏`, `綫`, `為`, `峯`, `衆` …); they
/// are listed so that the variants rule works on its own with the script rule
/// off.  Every canonical form here is a fixed point of the script map (tested).
pub(crate) const VARIANTS: &[(char, char)] = &[
    ('著', '着'), // zhe/zhuó: simplified texts write both 着 and 著
    ('裏', '里'),
    ('裡', '里'),
    ('綫', '线'),
    ('線', '线'),
    ('為', '为'),
    ('爲', '为'),
    ('峯', '峰'),
    ('衆', '众'),
    ('眾', '众'),
    ('敍', '叙'),
    ('躱', '躲'),
    ('粧', '妆'),
    ('牠', '它'),
    ('妳', '你'),
    ('祇', '只'), // t2s keeps 祇 (first candidate); in running text it is 只
    ('衹', '只'),
    ('瞭', '了'), // 瞭解/了解
    ('鬪', '斗'),
    ('尅', '克'),
    ('擡', '抬'),
    ('迺', '乃'),
    ('覆', '复'), // s2t writes 复 as 覆 in 反覆, 答覆; t2s keeps 覆
    ('藉', '借'), // s2t writes 借 as 藉 in 藉口, 憑藉; t2s keeps 藉
];

/// Code point ranges scanned when deriving the script table.
#[cfg(test)]
const SCAN_RANGES: &[(u32, u32)] = &[
    (0x2E80, 0x33FF),      // radicals, CJK symbols, kana, enclosed, compatibility
    (0x3400, 0x4DBF),      // Extension A
    (HAN_FIRST, HAN_LAST), // URO
    (0xF900, 0xFAFF),      // compatibility ideographs
    (0x20000, 0x323AF),    // Extensions B–H
];

/// `(traditional, simplified)` pairs from OpenCC's t2s, chains resolved,
/// as [`build_script_pairs`] derives them: stored in [`STORED_PAIRS`].
fn script_pairs() -> &'static [(char, char)] {
    static PAIRS: OnceLock<Vec<(char, char)>> = OnceLock::new();
    PAIRS.get_or_init(|| parse_pairs(STORED_PAIRS))
}

/// The pairs of [`build_script_pairs`], one a line: the traditional
/// character, then the simplified one; sorted. Checked against the
/// derivation by the test `the_stored_pairs_are_the_derived_ones`.
const STORED_PAIRS: &str = include_str!("t2s_pairs.txt");

/// The pairs of a file in the form of [`STORED_PAIRS`] (a line that is not
/// two characters is skipped).
fn parse_pairs(text: &str) -> Vec<(char, char)> {
    text.lines()
        .filter_map(|line| {
            let mut it = line.chars();
            match (it.next(), it.next(), it.next()) {
                (Some(from), Some(to), None) => Some((from, to)),
                _ => None,
            }
        })
        .collect()
}

/// `(traditional, simplified)` pairs from OpenCC's t2s, chains resolved,
/// sorted. Empty if the converter cannot be built (never panics).
#[cfg(test)]
fn build_script_pairs() -> Vec<(char, char)> {
    use ferrous_opencc::{config::BuiltinConfig, OpenCC};
    let cc = match OpenCC::from_config(BuiltinConfig::T2s) {
        Ok(cc) => cc,
        Err(_) => return Vec::new(),
    };
    let input: Vec<char> = SCAN_RANGES.iter().flat_map(|&(lo, hi)| lo..=hi).filter_map(char::from_u32).collect();
    let text_of = |chars: &[char]| {
        let mut text = String::with_capacity(chars.len() * 5);
        for &c in chars {
            text.push(c);
            text.push('\n');
        }
        text
    };
    // Two halves converted at once (the first run of a process waits for
    // this table); no phrase crosses a line feed, so the halves convert as
    // the whole would, which the alignment check below confirms.
    let (head, tail) = input.split_at(input.len() / 2);
    let (a, b) = rayon::join(|| cc.convert(&text_of(head)), || cc.convert(&text_of(tail)));
    let converted = a + &b;
    let mut pairs = Vec::new();
    let mut parts = converted.split('\n');
    let mut aligned = true;
    for &c in &input {
        match parts.next() {
            Some(p) => push_single(&mut pairs, c, p),
            None => {
                aligned = false;
                break;
            }
        }
    }
    if !aligned || converted.matches('\n').count() != input.len() {
        // Should not happen; fall back to one call per code point.
        pairs.clear();
        let mut buf = [0u8; 4];
        for &c in &input {
            let out = cc.convert(c.encode_utf8(&mut buf));
            push_single(&mut pairs, c, &out);
        }
    }
    pairs.sort_unstable();
    pairs.dedup_by_key(|p| p.0);
    // Resolve chains so that the map is idempotent.
    let lookup = |c: char, pairs: &[(char, char)]| -> char {
        match pairs.binary_search_by_key(&c, |p| p.0) {
            Ok(i) => pairs[i].1,
            Err(_) => c,
        }
    };
    let resolved: Vec<(char, char)> = pairs
        .iter()
        .map(|&(from, to)| {
            let mut t = to;
            for _ in 0..4 {
                let next = lookup(t, &pairs);
                if next == t {
                    break;
                }
                t = next;
            }
            (from, t)
        })
        .filter(|&(from, to)| from != to)
        .collect();
    resolved
}

#[cfg(test)]
fn push_single(pairs: &mut Vec<(char, char)>, from: char, converted: &str) {
    let mut it = converted.chars();
    if let (Some(to), None) = (it.next(), it.next()) {
        if to != from {
            pairs.push((from, to));
        }
    }
}

/// The combined table for the given switches, or `None` when both are off.
pub(crate) fn table(script: bool, variants: bool) -> Option<&'static CharTable> {
    static BOTH: OnceLock<CharTable> = OnceLock::new();
    static SCRIPT: OnceLock<CharTable> = OnceLock::new();
    static VARIANT: OnceLock<CharTable> = OnceLock::new();
    let cell = match (script, variants) {
        (false, false) => return None,
        (true, true) => &BOTH,
        (true, false) => &SCRIPT,
        (false, true) => &VARIANT,
    };
    Some(cell.get_or_init(|| build_table(script, variants)))
}

fn build_table(script: bool, variants: bool) -> CharTable {
    let mut t = CharTable::new();
    let variant_of = |c: char| -> char {
        if variants {
            VARIANTS.iter().find(|p| p.0 == c).map(|p| p.1).unwrap_or(c)
        } else {
            c
        }
    };
    if script {
        for &(from, to) in script_pairs() {
            t.insert(from, variant_of(to));
        }
    }
    if variants {
        for &(from, to) in VARIANTS {
            // With the script rule on, a variant that t2s already maps keeps
            // the (variant-folded) t2s image, which agrees with ours (tested).
            let already = script && t.get(from) != from;
            if !already {
                t.insert(from, to);
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(s: &str, script: bool, variants: bool) -> String {
        match table(script, variants) {
            Some(t) => s.chars().map(|c| t.get(c)).collect(),
            None => s.to_string(),
        }
    }

    #[test]
    fn the_han_bit_table_agrees_with_the_pages() {
        for (script, variants) in [(true, true), (true, false), (false, true)] {
            let t = table(script, variants).unwrap();
            let mut mapped = 0;
            for c in (HAN_FIRST..=HAN_LAST).filter_map(char::from_u32) {
                assert_eq!(t.get_han(c), t.get(c), "{c}");
                mapped += usize::from(t.get(c) != c);
            }
            assert!(mapped > 0);
        }
    }

    #[test]
    fn char_table_basics() {
        let mut t = CharTable::new();
        assert_eq!(t.get('a'), 'a');
        t.insert('戰', '战');
        assert_eq!(t.get('戰'), '战');
        assert_eq!(t.get('戱'), '戱'); // same page, identity
        assert_eq!(t.get('\u{10FFFF}'), '\u{10FFFF}');
        assert_eq!(t.page_count(), 1);
    }

    #[test]
    fn t2s_examples() {
        assert_eq!(fold("這場戰爭", true, false), "这场战争");
        assert_eq!(fold("魏斯明德的軍隊", true, false), "魏斯明德的军队");
        assert_eq!(fold("克魯格", true, false), "克鲁格");
        assert_eq!(fold("乾幹干", true, false), "干干干");
        assert_eq!(fold("裏裡里", true, false), "里里里");
        assert_eq!(fold("萬億兩", true, false), "万亿两");
        // simplified text is a fixed point
        assert_eq!(fold("这场战争", true, false), "这场战争");
    }

    #[test]
    fn variants_examples() {
        assert_eq!(fold("著着", true, true), "着着");
        assert_eq!(fold("著着", true, false), "著着");
        assert_eq!(fold("裏裡綫線為爲峯衆", false, true), "里里线线为为峰众");
        assert_eq!(fold("瞭解", true, true), "了解");
        assert_eq!(fold("〇", true, true), "〇");
    }

    #[test]
    fn variants_agree_with_script() {
        let s = table(true, false).unwrap();
        for &(from, to) in VARIANTS {
            assert_eq!(s.get(to), to, "canonical {to} is changed by t2s");
            let img = s.get(from);
            assert!(img == from || img == to, "{from}: t2s {img} vs variants {to}");
        }
    }

    #[test]
    fn script_map_is_idempotent() {
        let t = table(true, true).unwrap();
        for &(from, _) in script_pairs() {
            let once = t.get(from);
            assert_eq!(t.get(once), once, "{from} → {once} not a fixed point");
        }
        assert!(script_pairs().len() > 3000, "{}", script_pairs().len());
    }

    /// The stored pairs are what `ferrous-opencc` gives today; with
    /// `PARALLELS_BLESS=1`, a difference rewrites the file instead.
    #[test]
    fn the_stored_pairs_are_the_derived_ones() {
        let derived = build_script_pairs();
        assert!(derived.len() > 3000, "{}", derived.len());
        let text: String = derived.iter().map(|&(from, to)| format!("{from}{to}\n")).collect();
        if std::env::var_os("PARALLELS_BLESS").is_some() && text != STORED_PAIRS {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/normalize/t2s_pairs.txt");
            std::fs::write(&path, &text).unwrap();
            return;
        }
        assert!(
            text == STORED_PAIRS,
            "src/normalize/t2s_pairs.txt is not what ferrous-opencc derives ({} pairs stored, {} derived); \
             PARALLELS_BLESS=1 rewrites it",
            parse_pairs(STORED_PAIRS).len(),
            derived.len()
        );
        assert_eq!(parse_pairs(&text), derived);
    }

    #[test]
    #[ignore]
    fn script_table_init_cost() {
        let t0 = std::time::Instant::now();
        let n = build_script_pairs().len();
        eprintln!("t2s char table: {n} pairs derived in {:?}", t0.elapsed());
        let t0 = std::time::Instant::now();
        let n = parse_pairs(STORED_PAIRS).len();
        eprintln!("t2s char table: {n} pairs read in {:?}", t0.elapsed());
    }
}
