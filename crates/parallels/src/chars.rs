//! Character classes: the ground floor every stage tests characters with.
//!
//! Owns the answers to "what kind of character is this?" that more than one
//! stage (or the text renderer) needs: is it a token on its own
//! ([`is_cjk`]), a letter or digit ([`is_alphanumeric`]), an Arabic digit
//! and of what value ([`digit_value`]), one with no compatibility form
//! ([`has_no_compat_form`]), punctuation that closes a clause or quotation
//! ([`is_closing`]); and the bit set over the CJK unified block that
//! normalization's tables put in front of slower lookups (`HanSet`). It
//! also holds two answers about a whole text that several stages need:
//! [`CharIndex`], its code points by byte offset, with which the renderers
//! and exporters slice the original text by a reported span, and
//! [`script`], the writing system most of its letters belong to.
//! Takes a `char`, hands on a `bool` or a value; it depends on nothing else
//! in the crate, and every stage may use it.
//!
//! A rule's own character lists stay with the rule (the sentence enders of
//! [`segment`](crate::segment), the numerals of the number rule, the
//! brackets of boilerplate headings): they are part of what the rule says,
//! not classes shared across the crate.
//!
//! # Fast paths, and why they are hand-written
//!
//! Most characters of Chinese text are in the CJK unified block
//! (U+4E00–U+9FFF, [`HAN_FIRST`]..=[`HAN_LAST`]), so every class here
//! answers that block with one range comparison before a longer list of
//! ranges or a lookup in the Unicode tables of `std` or
//! `unicode-normalization`; [`is_alphanumeric`] also answers ASCII and the
//! punctuation of Chinese text by range. Measured when they were written
//! (criterion, `benches/sketch.rs`, 29 KB of Chinese): with the block first
//! in the range tests and the other fast paths of that change, normalizing
//! went from 205 to 102 µs; the ASCII/Han/punctuation ranges before
//! `char::is_alphanumeric` made one-thread dedup about 6% faster. Each fast
//! path is checked against the slow definition for every code point in the
//! tests below, so it can only be faster, never different.
//!
//! `HanSet` is one bit per character of the block: 2.6 KB, which stays in
//! the L1 cache where a page table of the block (82 pages of 1 KB) does not.

/// First code point of the CJK unified block, where most characters of
/// Chinese text are.
pub const HAN_FIRST: u32 = 0x4E00;
/// Last code point of the CJK unified block.
pub const HAN_LAST: u32 = 0x9FFF;

/// Is `c` in the CJK unified block (U+4E00–U+9FFF)? One range test.
#[inline]
pub fn is_han_unified(c: char) -> bool {
    (HAN_FIRST..=HAN_LAST).contains(&(c as u32))
}

/// Is `c` a character that is a token on its own (Han, kana, hangul,
/// bopomofo)?
#[inline]
pub fn is_cjk(c: char) -> bool {
    // The CJK unified block alone first.
    is_han_unified(c)
        || matches!(c as u32,
        0x3040..=0x30FF   // hiragana, katakana
        | 0x3105..=0x312F // bopomofo
        | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF // CJK ext A
        | 0xAC00..=0xD7AF // hangul syllables
        | 0x1100..=0x11FF // hangul jamo
        | 0xF900..=0xFAFF // compatibility ideographs
        | 0x20000..=0x3134F) // CJK ext B–G
}

/// `char::is_alphanumeric`, with range tests first for ASCII, the CJK
/// unified block and the punctuation of Chinese text (`，。、“”《》：！`),
/// which would otherwise each take a Unicode table lookup.
#[inline]
pub fn is_alphanumeric(c: char) -> bool {
    match c as u32 {
        0..=0x7F => c.is_ascii_alphanumeric(),
        HAN_FIRST..=HAN_LAST => true,
        // General punctuation; CJK marks and brackets (not 々〆〇 or the
        // Hangzhou numerals); full-width punctuation.
        0x2000..=0x206F | 0x3000..=0x3004 | 0x3008..=0x3020 | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 => false,
        _ => c.is_alphanumeric(),
    }
}

/// Is `c` a combining mark of the common combining blocks (diacritics that
/// belong to the letter before them)?
#[inline]
pub fn is_combining(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// Digit value of an ASCII or full-width digit (`7`, `７`).
#[inline]
pub fn digit_value(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(c as u32 - '0' as u32),
        '０'..='９' => Some(c as u32 - '０' as u32),
        _ => None,
    }
}

/// Code points that certainly have no compatibility decomposition and
/// compose with no character before them, so width folding leaves them as
/// they are (the bulk of CJK text: Han, kana, hangul syllables, CJK
/// punctuation, and the quotation marks and dashes Chinese text takes from
/// General Punctuation: `“”‘’—`, which took NFKC's path, 25 ns each). The
/// only combining marks among them, the ideographic and hangul tone marks
/// U+302A–U+302F, compose with nothing. Takes the code point, as the width
/// rule holds it.
#[inline]
pub fn has_no_compat_form(u: u32) -> bool {
    // The CJK unified block alone first: most characters of Chinese text
    // are in it, and one range test is cheaper than the whole list.
    (HAN_FIRST..=HAN_LAST).contains(&u)
        || matches!(u,
        0x00B7 // middle dot
        | 0x2010 | 0x2012..=0x2016 // dashes, not U+2011 (a non-breaking hyphen)
        | 0x2018..=0x2023 // quotation marks, daggers, bullets
        | 0x3001..=0x3035 // CJK punctuation and marks
        | 0x3041..=0x3096 // hiragana
        | 0x30A1..=0x30FA // katakana
        | 0x3400..=0x4DBF
        | 0xAC00..=0xD7A3 // hangul syllables
        | 0x20000..=0x2F7FF
        | 0x30000..=0x323AF)
}

/// Punctuation that closes a clause, a sentence or a quotation (`，。、；：！？」』”’）》…`
/// and their ASCII forms): a line of text is not broken before it.
#[inline]
pub fn is_closing(c: char) -> bool {
    matches!(
        c,
        '，' | '。'
            | '、'
            | '；'
            | '：'
            | '！'
            | '？'
            | '」'
            | '』'
            | '”'
            | '’'
            | '）'
            | '》'
            | '…'
            | ','
            | '.'
            | ';'
            | ':'
            | '!'
            | '?'
            | ')'
    )
}

/// A set of characters of the CJK unified block, one bit each: 2.6 KB,
/// which stays in the L1 cache where a table of the whole block does not.
#[derive(Clone)]
pub(crate) struct HanSet([u64; HanSet::WORDS]);

impl HanSet {
    const WORDS: usize = ((HAN_LAST - HAN_FIRST) as usize + 64) / 64;

    /// The characters of `chars` that are in the block.
    pub(crate) const fn of(chars: &[char]) -> HanSet {
        let mut set = HanSet([0; HanSet::WORDS]);
        let mut i = 0;
        while i < chars.len() {
            set.insert(chars[i]);
            i += 1;
        }
        set
    }

    /// Add `c` (nothing if it is outside the block).
    pub(crate) const fn insert(&mut self, c: char) {
        let u = c as u32;
        if u >= HAN_FIRST && u <= HAN_LAST {
            let k = (u - HAN_FIRST) as usize;
            self.0[k / 64] |= 1 << (k % 64);
        }
    }

    /// Whether `c` is in the set (never for a character outside the block).
    #[inline]
    pub(crate) fn contains(&self, c: char) -> bool {
        let k = (c as u32).wrapping_sub(HAN_FIRST) as usize;
        self.0.get(k / 64).is_some_and(|&bits| bits >> (k % 64) & 1 == 1)
    }
}

/// What a script-sensitive look at a text says its writing system is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    /// Han characters (Chinese, or Japanese without kana).
    Han,
    /// Kana at least a tenth of the letters.
    Japanese,
    /// Hangul.
    Hangul,
    /// Latin letters.
    Latin,
    /// Cyrillic letters.
    Cyrillic,
    /// Letters of another script.
    Other,
    /// No letters at all.
    None,
}

/// The writing system most of a text's letters belong to (Japanese when
/// kana are at least a tenth of them, as kanji are Han).
pub fn script(text: &str) -> Script {
    let mut counts = [0usize; 6];
    for c in text.chars().take(200_000) {
        let k = match c as u32 {
            0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9D => 1,
            0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3FFFF => 0,
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => 2,
            0x0400..=0x052F => 4,
            _ if c.is_alphabetic() && (c.is_ascii() || ('\u{00C0}'..='\u{024F}').contains(&c)) => 3,
            _ if c.is_alphabetic() => 5,
            _ => continue,
        };
        counts[k] += 1;
    }
    let total: usize = counts.iter().sum();
    if total == 0 {
        return Script::None;
    }
    if counts[1] * 10 >= total {
        return Script::Japanese;
    }
    let best = (0..6).max_by_key(|&k| (counts[k], std::cmp::Reverse(k))).unwrap_or(5);
    [Script::Han, Script::Japanese, Script::Hangul, Script::Latin, Script::Cyrillic, Script::Other][best]
}

/// Byte offsets of every code point of a text, to slice it by the spans
/// the library reports (code points of the original text).
#[derive(Clone, Debug)]
pub struct CharIndex<'a> {
    text: &'a str,
    /// Byte offset of every code point, and the text's length at the end.
    at: Vec<usize>,
}

impl<'a> CharIndex<'a> {
    /// The index of `text`.
    pub fn new(text: &'a str) -> CharIndex<'a> {
        let mut at: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
        at.push(text.len());
        CharIndex { text, at }
    }

    /// The text's length in code points.
    pub fn len(&self) -> u32 {
        (self.at.len() - 1) as u32
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.at.len() == 1
    }

    /// The bytes of code points `s..e`, both cut to the text's end (and an
    /// end before the start taken as the start).
    pub fn bytes(&self, s: u32, e: u32) -> std::ops::Range<usize> {
        let n = self.len();
        let (s, e) = (s.min(n), e.min(n));
        self.at[s as usize]..self.at[e.max(s) as usize]
    }

    /// The text of code points `s..e`, as [`CharIndex::bytes`] cuts them.
    pub fn slice(&self, s: u32, e: u32) -> &'a str {
        &self.text[self.bytes(s, e)]
    }
}

#[cfg(test)]
mod tests {
    /// A text's script is that of most of its letters; kana make it
    /// Japanese from a tenth of them, as kanji are Han.
    #[test]
    fn script_of_a_text() {
        use super::{script, Script};
        assert_eq!(script("魏斯明德之围，城中约两万三千人（Weissmünde）。"), Script::Han);
        assert_eq!(script("東京に行きました。"), Script::Japanese);
        assert_eq!(script("서울에 갔습니다."), Script::Hangul);
        assert_eq!(script("And they came to Capernaum; 魏"), Script::Latin);
        assert_eq!(script("Москва, 1812."), Script::Cyrillic);
        assert_eq!(script("١٢٣ ... 42 !"), Script::None);
    }

    /// Spans in code points slice the text at character boundaries, cut
    /// to its end; an end before the start is an empty slice.
    #[test]
    fn char_index_slices_by_code_points() {
        let ix = super::CharIndex::new("魏斯a明德");
        assert_eq!(ix.len(), 5);
        assert!(!ix.is_empty() && super::CharIndex::new("").is_empty());
        assert_eq!(ix.slice(1, 3), "斯a");
        assert_eq!(ix.bytes(1, 3), 3..7);
        assert_eq!(ix.slice(3, 99), "明德");
        assert_eq!(ix.slice(4, 2), "");
        assert_eq!(ix.slice(50, 60), "");
    }

    use super::*;
    use unicode_normalization::UnicodeNormalization;

    fn all_chars() -> impl Iterator<Item = char> {
        (0..=0x10FFFF).filter_map(char::from_u32)
    }

    #[test]
    fn the_fast_alphanumeric_test_agrees_with_std() {
        for c in all_chars() {
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "{c:?}");
        }
    }

    #[test]
    fn characters_without_a_compat_form_are_their_own_nfkc_and_never_combine() {
        for c in all_chars().filter(|&c| has_no_compat_form(c as u32)) {
            assert!(std::iter::once(c).nfkc().eq(std::iter::once(c)), "{c:?} U+{:04X}", c as u32);
            if unicode_normalization::char::is_combining_mark(c) {
                assert!(('\u{302A}'..='\u{302F}').contains(&c), "{c:?}");
            }
        }
    }

    #[test]
    fn the_han_block_is_cjk_and_alphanumeric() {
        for c in all_chars().filter(|&c| is_han_unified(c)) {
            assert!(is_cjk(c) && is_alphanumeric(c) && has_no_compat_form(c as u32), "{c:?}");
        }
        assert!(is_cjk('か') && is_cjk('한') && is_cjk('㐀') && is_cjk('𠀀'));
        assert!(!is_cjk('a') && !is_cjk('，') && !is_cjk('1'));
    }

    #[test]
    fn digit_values_of_ascii_and_full_width_digits_only() {
        assert_eq!(digit_value('7'), Some(7));
        assert_eq!(digit_value('０'), Some(0));
        assert_eq!(digit_value('９'), Some(9));
        assert_eq!(digit_value('七'), None);
        assert_eq!(digit_value('①'), None);
        assert_eq!(all_chars().filter(|&c| digit_value(c).is_some()).count(), 20);
    }

    #[test]
    fn closing_punctuation_includes_clause_marks_not_openers() {
        for c in "，。、；：！？」』”’）》…,.;:!?)".chars() {
            assert!(is_closing(c), "{c:?}");
        }
        for c in "“‘（《「『(a中 ".chars() {
            assert!(!is_closing(c), "{c:?}");
        }
    }

    #[test]
    fn a_han_set_holds_only_what_was_put_in_from_the_block() {
        let set = HanSet::of(&['一', '龥', 'a', '㐀']);
        assert!(set.contains('一') && set.contains('龥'));
        assert!(!set.contains('a') && !set.contains('㐀') && !set.contains('二'));
        let mut set = HanSet::of(&[]);
        assert!(all_chars().all(|c| !set.contains(c)));
        set.insert('\u{9FFF}');
        set.insert('\u{4E00}');
        assert_eq!(all_chars().filter(|&c| set.contains(c)).count(), 2);
    }
}
