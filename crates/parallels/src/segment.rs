//! Segmentation: sentences and tokens of normalized text.
//!
//! Takes a [`Normalized`] text and hands on a [`Segmented`] one: a flat list
//! of [`Token`]s and the [`Sentence`]s that group them. Every span is a
//! half-open range of code points into the *original* text, taken from the
//! normalizer's offset map, so later stages never need the map again.
//!
//! Sentences end after a run of sentence enders (`。！？!?…`, and `.` or `;`
//! followed by a space in Latin text) together with any closing quotes or
//! brackets right after it, and at every newline. A sentence without tokens
//! (a punctuation-only or boilerplate-only line) is dropped. A sentence longer
//! than [`MAX_SENTENCE_TOKENS`] is cut at the last clause mark (`，,；;：:`)
//! before the limit, or at the limit, so a file with no punctuation at all
//! still gives sentences of bounded size.
//!
//! Tokens: every Han, kana or hangul character is a token; a run of letters
//! and digits of other scripts (with combining marks, and an apostrophe inside
//! a word) is one word token; a run of digits with inner decimal points is one
//! number token. Spaces, punctuation and symbols make no tokens. A censored
//! stretch becomes a [`TokenKind::Wildcard`] token that equals no other token.

use crate::chars::{is_alphanumeric, is_cjk, is_combining};
use crate::normalize::{Mark, NChar, Normalized};

/// Longest line, in tokens, that can be a heading.
pub const MAX_HEADING_TOKENS: usize = 24;

/// Sentences longer than this many tokens are cut.
pub const MAX_SENTENCE_TOKENS: usize = 256;

/// Identifier of a token's normalized form; see [`token_id`].
pub type TokenId = u32;

/// Ids at or above this value are multi-character tokens.
pub const MULTI_CHAR_BASE: TokenId = 0x0020_0000;

/// The id of a censored stretch; it never matches anything, itself included.
pub const WILDCARD: TokenId = u32::MAX;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A Han, kana or hangul character.
    Cjk,
    /// A word of another script.
    Word,
    /// A number (canonical digits, possibly with a decimal point).
    Number,
    /// A censored stretch.
    Wildcard,
}

/// One token: a CJK character, a word or a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Equal tokens (after normalization) have equal ids.
    pub id: TokenId,
    /// What it is.
    pub kind: TokenKind,
    /// Original span `[start, end)` in code points.
    pub start: u32,
    /// End of the original span (exclusive).
    pub end: u32,
    /// Does a clause mark (`，,；;：:、`), a sentence end or a newline come
    /// between this token and the previous one?
    pub clause_start: bool,
}

/// One sentence: its span and its tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sentence {
    /// Original span `[start, end)`, trimmed of surrounding spaces.
    pub start: u32,
    /// End of the original span (exclusive).
    pub end: u32,
    /// Index of the first token and one past the last in [`Segmented::tokens`].
    pub tok_start: u32,
    /// One past the index of its last token.
    pub tok_end: u32,
    /// A short line of its own without sentence-final punctuation: a title,
    /// a heading, a caption. Aligners link it alone, never as part of a
    /// group of sentences.
    pub heading: bool,
}

impl Sentence {
    /// Its tokens, in the text they were cut from.
    pub fn tokens<'a>(&self, seg: &'a Segmented) -> &'a [Token] {
        &seg.tokens[self.tok_start as usize..self.tok_end as usize]
    }
}

/// A segmented text.
#[derive(Clone, Debug, Default)]
pub struct Segmented {
    /// Every token, in text order.
    pub tokens: Vec<Token>,
    /// Every sentence, in text order; together they hold every token.
    pub sentences: Vec<Sentence>,
}

impl Segmented {
    /// The indices of the tokens wholly inside the original span `[s, e)`
    /// (code points); empty when there is none.
    pub fn tokens_within(&self, s: u32, e: u32) -> std::ops::Range<usize> {
        let lo = self.tokens.partition_point(|t| t.start < s);
        let hi = self.tokens.partition_point(|t| t.end <= e).max(lo);
        lo..hi
    }
}

/// The id of a token's normalized form: its code point for a single
/// character, a hash above [`MULTI_CHAR_BASE`] for longer forms. Ids depend
/// on the form alone, so texts segmented apart (on other threads, in other
/// runs) agree; two different long forms share an id only by a hash
/// collision, about one pair in two thousand million.
pub fn token_id(s: &str) -> TokenId {
    let mut it = s.chars();
    if let (Some(c), None) = (it.next(), it.next()) {
        return c as u32;
    }
    // FNV-1a, folded into the ids above the code points and below WILDCARD.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    MULTI_CHAR_BASE + (h % (WILDCARD - MULTI_CHAR_BASE) as u64) as u32
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '!' | '?' | '…' | '｡')
}

fn is_closer(c: char) -> bool {
    matches!(c, '”' | '’' | '」' | '』' | '"' | '\'' | ')' | '）' | '》' | '】' | ']')
}

fn is_clause_mark(c: char) -> bool {
    matches!(c, '，' | ',' | '；' | ';' | '：' | ':' | '、')
}

fn is_word_char(c: char) -> bool {
    // `is_cjk` first: it is a range test, `is_alphanumeric` a table lookup.
    !is_cjk(c) && is_alphanumeric(c) || is_combining(c)
}

/// Cut `text` into sentences and tokens.
pub fn segment(text: &Normalized) -> Segmented {
    let mut sink = Sentences { out: Segmented::default(), sent_tok: 0 };
    scan(&text.chars, &mut sink);
    sink.out
}

/// How a text is cut into sentences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SentenceMode {
    /// At sentence enders and newlines ([`segment`]): running text.
    #[default]
    Text,
    /// Each non-blank line is one sentence, as given ([`segment_lines`]):
    /// texts already cut one sentence a line, as sentence aligners take
    /// them.
    Lines,
}

impl std::str::FromStr for SentenceMode {
    type Err = String;

    /// `text` or `lines`.
    fn from_str(s: &str) -> Result<SentenceMode, String> {
        match s {
            "text" => Ok(SentenceMode::Text),
            "lines" => Ok(SentenceMode::Lines),
            _ => {
                Err(format!("{s:?} is not a way to cut sentences: `text` (at sentence enders) or `lines` (one a line)"))
            }
        }
    }
}

/// Cut `text` into sentences the way `mode` says.
pub fn segment_with(text: &Normalized, mode: SentenceMode) -> Segmented {
    match mode {
        SentenceMode::Text => segment(text),
        SentenceMode::Lines => segment_lines(text),
    }
}

/// Cut `text` into tokens, one sentence per non-blank line.
///
/// Nothing inside a line ends a sentence, and no line is cut for its
/// length, so sentence `k` is the `k`-th non-blank line of the input
/// whatever it holds: a line of punctuation alone (`……`) is a sentence
/// without tokens. A sentence spans its line without the spaces around
/// it; a heading is a line without sentence-final mark of at most
/// [`MAX_HEADING_TOKENS`] tokens, as in [`segment`].
pub fn segment_lines(text: &Normalized) -> Segmented {
    let mut tokens = Vec::new();
    for_each_token(text, |t| tokens.push(*t));
    let mut sentences = Vec::new();
    let chars = &text.chars;
    let mut next_tok = 0usize;
    let mut i = 0usize;
    while i < chars.len() {
        let line_end = chars[i..].iter().position(|c| c.ch == '\n').map_or(chars.len(), |k| i + k);
        let line = &chars[i..line_end];
        let first = line.iter().position(|c| !c.ch.is_whitespace());
        let last = line.iter().rposition(|c| !c.ch.is_whitespace());
        if let (Some(f), Some(l)) = (first, last) {
            let (start, end) = (line[f].start, line[l].end);
            let tok_start = next_tok;
            while next_tok < tokens.len() && tokens[next_tok].start < end {
                next_tok += 1;
            }
            let ended = line[..=l]
                .iter()
                .rev()
                .find(|c| c.mark == Mark::Text && !is_closer(c.ch))
                .is_some_and(|c| is_sentence_end(c.ch) || c.ch == '.');
            let heading = !ended && next_tok - tok_start <= MAX_HEADING_TOKENS;
            sentences.push(Sentence { start, end, tok_start: tok_start as u32, tok_end: next_tok as u32, heading });
        }
        i = line_end + 1;
    }
    // Tokens after the last non-blank line cannot exist (a token is not
    // blank); the sentences hold every token.
    debug_assert_eq!(next_tok, tokens.len());
    Segmented { tokens, sentences }
}

/// Call `f` with every token of `text`, in order, as [`segment`] finds
/// them, without building sentences (for stages that need tokens only).
pub fn for_each_token(text: &Normalized, f: impl FnMut(&Token)) {
    struct Each<F>(F);
    impl<F: FnMut(&Token)> Sink for Each<F> {
        fn token(&mut self, _: &[NChar], token: Token) {
            (self.0)(&token);
        }
    }
    scan(&text.chars, &mut Each(f));
}

/// What [`scan`] hands on.
trait Sink {
    fn token(&mut self, chars: &[NChar], token: Token);
    /// The current sentence ends just before normalized index `end_idx`.
    fn end_sentence(&mut self, _chars: &[NChar], _end_idx: usize) {}
    /// After a step that may have made the current sentence too long.
    fn check_length(&mut self, _chars: &[NChar]) {}
}

/// The sink of [`segment`]: tokens and sentences.
struct Sentences {
    out: Segmented,
    /// Index of the current sentence's first token.
    sent_tok: usize,
}

impl Sink for Sentences {
    #[inline]
    fn token(&mut self, _: &[NChar], token: Token) {
        self.out.tokens.push(token);
    }

    fn end_sentence(&mut self, chars: &[NChar], end_idx: usize) {
        close_sentence(chars, &mut self.out, &mut self.sent_tok, end_idx);
    }

    #[inline]
    fn check_length(&mut self, chars: &[NChar]) {
        if self.out.tokens.len() - self.sent_tok >= MAX_SENTENCE_TOKENS {
            split_long(chars, &mut self.out, &mut self.sent_tok);
        }
    }
}

/// Find the tokens and sentence ends of `chars`.
fn scan(chars: &[NChar], sink: &mut impl Sink) {
    let mut buf = String::new();
    let mut brk = true;
    let mut i = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if c.mark == Mark::Boilerplate {
            i += 1;
            continue;
        }
        if c.mark == Mark::Wildcard {
            push(sink, chars, &mut brk, WILDCARD, TokenKind::Wildcard, c.start, c.end);
            i += 1;
            continue;
        }
        let ch = c.ch;
        if ch == '\n' || ch == '\r' {
            brk = true;
            sink.end_sentence(chars, i);
            i += 1;
            continue;
        }
        if is_cjk(ch) {
            push(sink, chars, &mut brk, ch as u32, TokenKind::Cjk, c.start, c.end);
            i += 1;
            // The rest of a run of CJK characters, one token each.
            while let Some(&c) = chars.get(i) {
                if c.mark != Mark::Text || !is_cjk(c.ch) {
                    break;
                }
                sink.check_length(chars);
                push(sink, chars, &mut brk, c.ch as u32, TokenKind::Cjk, c.start, c.end);
                i += 1;
            }
        } else if ch.is_ascii_digit() {
            let mut j = i;
            buf.clear();
            while j < chars.len() && chars[j].mark == Mark::Text {
                let d = chars[j].ch;
                let decimal = d == '.' && j + 1 < chars.len() && chars[j + 1].ch.is_ascii_digit() && !buf.is_empty();
                if d.is_ascii_digit() || decimal {
                    buf.push(d);
                    j += 1;
                } else {
                    break;
                }
            }
            push(sink, chars, &mut brk, token_id(&buf), TokenKind::Number, c.start, chars[j - 1].end.max(c.start + 1));
            i = j;
        } else if is_word_char(ch) {
            let mut j = i;
            buf.clear();
            while j < chars.len() && chars[j].mark == Mark::Text {
                let d = chars[j].ch;
                let apostrophe =
                    (d == '\'' || d == '’') && !buf.is_empty() && j + 1 < chars.len() && is_word_char(chars[j + 1].ch);
                if (is_word_char(d) && !d.is_ascii_digit()) || apostrophe || (d.is_ascii_digit() && !buf.is_empty()) {
                    buf.push(d);
                    j += 1;
                } else {
                    break;
                }
            }
            if j == i {
                // A lone combining mark or similar: no token.
                i += 1;
                continue;
            }
            push(sink, chars, &mut brk, token_id(&buf), TokenKind::Word, c.start, chars[j - 1].end);
            i = j;
        } else if is_sentence_end(ch) || ((ch == '.' || ch == ';') && next_is_space(chars, i)) {
            let mut j = i + 1;
            while j < chars.len() && (is_sentence_end(chars[j].ch) || chars[j].ch == '.') {
                j += 1;
            }
            while j < chars.len() && is_closer(chars[j].ch) {
                j += 1;
            }
            sink.end_sentence(chars, j);
            brk = true;
            i = j;
        } else {
            brk |= is_clause_mark(ch);
            i += 1;
        }
        sink.check_length(chars);
    }
    sink.end_sentence(chars, chars.len());
}

#[inline(always)]
fn push(sink: &mut impl Sink, chars: &[NChar], brk: &mut bool, id: TokenId, kind: TokenKind, start: u32, end: u32) {
    sink.token(chars, Token { id, kind, start, end, clause_start: *brk });
    *brk = false;
}

fn next_is_space(chars: &[NChar], i: usize) -> bool {
    match chars.get(i + 1) {
        None => true,
        Some(n) => n.ch.is_whitespace() || is_closer(n.ch),
    }
}

/// End the current sentence just before normalized index `end_idx`.
///
/// The sentence's span runs from its first token (or first non-space char
/// before it on the same stretch) to the last non-space char before `end_idx`.
fn close_sentence(chars: &[NChar], out: &mut Segmented, sent_tok: &mut usize, end_idx: usize) {
    let tok_start = *sent_tok;
    let tok_end = out.tokens.len();
    *sent_tok = tok_end;
    if tok_start == tok_end {
        return;
    }
    let first = out.tokens[tok_start];
    let last_tok = out.tokens[tok_end - 1];
    // Extend the start back over leading punctuation (an opening quote)
    // that follows the previous sentence's end.
    let prev_end = out.sentences.last().map_or(0, |s| s.end);
    let mut start = first.start;
    let mut k = chars.partition_point(|c| c.start < first.start);
    while k > 0 {
        let c = chars[k - 1];
        if c.start < prev_end || c.ch.is_whitespace() || c.mark != Mark::Text || is_cjk(c.ch) || is_alphanumeric(c.ch) {
            break;
        }
        start = c.start;
        k -= 1;
    }
    // Extend the end forward over trailing punctuation up to `end_idx`.
    let mut end = last_tok.end;
    let mut k = chars.partition_point(|c| c.start < last_tok.end);
    while k < end_idx.min(chars.len()) {
        let c = chars[k];
        if c.ch.is_whitespace() || c.mark != Mark::Text {
            break;
        }
        end = end.max(c.end);
        k += 1;
    }
    // A heading: the sentence runs to a line end (or the end of the text),
    // started a line, has no sentence-final mark, and is short.
    let at_line_end = chars.get(end_idx).is_none_or(|c| c.ch == '\n');
    let line_start = chars.partition_point(|c| c.start < start);
    let starts_line = line_start == 0
        || chars[..line_start]
            .iter()
            .rev()
            .take_while(|c| c.ch != '\n')
            .all(|c| c.ch.is_whitespace() || c.mark != Mark::Text);
    let last = chars[..end_idx.min(chars.len())]
        .iter()
        .rev()
        .find(|c| !c.ch.is_whitespace() && c.mark == Mark::Text && !is_closer(c.ch));
    let ended = last.is_some_and(|c| is_sentence_end(c.ch) || c.ch == '.');
    let heading = at_line_end && starts_line && !ended && tok_end - tok_start <= MAX_HEADING_TOKENS;
    out.sentences.push(Sentence { start, end, tok_start: tok_start as u32, tok_end: tok_end as u32, heading });
}

/// Cut an over-long running sentence at its last clause mark, or right here.
fn split_long(chars: &[NChar], out: &mut Segmented, sent_tok: &mut usize) {
    let toks = &out.tokens[*sent_tok..];
    let half = toks.len() / 2;
    // Find a clause mark between token half and the last token.
    let lo = chars.partition_point(|c| c.start < toks[half].end);
    let hi = chars.partition_point(|c| c.start < toks[toks.len() - 1].start);
    let cut_char = (lo..hi).rev().find(|&k| is_clause_mark(chars[k].ch));
    let cut_tok = match cut_char {
        Some(k) => *sent_tok + toks.partition_point(|t| t.end <= chars[k].start),
        None => out.tokens.len(),
    };
    let rest: Vec<Token> = out.tokens.drain(cut_tok..).collect();
    let end_idx = match cut_char {
        Some(k) => k + 1,
        None => chars.partition_point(|c| c.start < out.tokens[out.tokens.len() - 1].end),
    };
    close_sentence(chars, out, sent_tok, end_idx);
    out.tokens.extend(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::{NormalizeOptions, Normalizer};

    fn seg(text: &str) -> (Segmented, Vec<String>) {
        let n = Normalizer::new(NormalizeOptions::default()).normalize(text);
        let s = segment(&n);
        let chars: Vec<char> = text.chars().collect();
        let sents = s.sentences.iter().map(|x| chars[x.start as usize..x.end as usize].iter().collect()).collect();
        (s, sents)
    }

    #[test]
    fn lines_mode_keeps_every_non_blank_line_as_one_sentence() {
        let text = "他说：“走吧。”大家都走了！\n\n  ……  \nStanton shook his head. He left.\n第三章";
        let n = Normalizer::new(NormalizeOptions::default()).normalize(text);
        let s = segment_lines(&n);
        let chars: Vec<char> = text.chars().collect();
        let got: Vec<String> =
            s.sentences.iter().map(|x| chars[x.start as usize..x.end as usize].iter().collect()).collect();
        assert_eq!(got, ["他说：“走吧。”大家都走了！", "……", "Stanton shook his head. He left.", "第三章"]);
        // The punctuation line has no tokens; every token is in one line.
        assert_eq!(s.sentences[1].tok_start, s.sentences[1].tok_end);
        assert_eq!(s.sentences.last().unwrap().tok_end as usize, s.tokens.len());
        assert_eq!(s.sentences.iter().map(|x| x.heading).collect::<Vec<_>>(), [false, false, false, true]);
        // The same text as running text is cut at its sentence enders.
        assert_eq!(segment(&n).sentences.len(), 5);
    }

    #[test]
    fn chinese_sentences_keep_closing_quotes() {
        let (_, s) = seg("他说：“走吧。”大家都走了！真的吗？\n　　第二段。");
        assert_eq!(s, vec!["他说：“走吧。”", "大家都走了！", "真的吗？", "第二段。"]);
    }

    #[test]
    fn quote_said_quote_is_one_sentence() {
        let (_, s) = seg("“城墙是石头砌的，”雷登说，“火药总有用完的一天。”下一句。");
        assert_eq!(s, vec!["“城墙是石头砌的，”雷登说，“火药总有用完的一天。”", "下一句。"]);
    }

    #[test]
    fn latin_sentences_and_words() {
        let (seg_, s) = seg("And he said, Go. They went; don't stop! The end");
        assert_eq!(s, vec!["And he said, Go.", "They went;", "don't stop!", "The end"]);
        let words: Vec<TokenKind> = seg_.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(words.len(), 10);
        assert!(words.iter().all(|k| *k == TokenKind::Word));
    }

    #[test]
    fn each_han_char_is_a_token_and_numbers_are_one() {
        let (s, _) = seg("共23,000人");
        let kinds: Vec<TokenKind> = s.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(kinds, vec![TokenKind::Cjk, TokenKind::Number, TokenKind::Cjk]);
        assert_eq!((s.tokens[1].start, s.tokens[1].end), (1, 7));
    }

    #[test]
    fn same_number_in_two_notations_gets_one_id() {
        let norm = Normalizer::new(NormalizeOptions::default());
        let a = segment(&norm.normalize("共两万三千人"));
        let b = segment(&norm.normalize("共23,000人"));
        let ids = |s: &Segmented| s.tokens.iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b));
    }

    #[test]
    fn clause_marks_start_clauses() {
        let (s, _) = seg("甲乙，丙；丁。戊");
        let starts: Vec<bool> = s.tokens.iter().map(|t| t.clause_start).collect();
        assert_eq!(starts, vec![true, false, true, true, true]);
    }

    #[test]
    fn short_lines_without_a_sentence_end_are_headings() {
        let (s, _) =
            seg("魏斯明德之围（下）\n\n四、地下的战争\n\n八月初，克鲁格注意到了。他说：“走吧”\n第二行没有句号\n");
        let h: Vec<bool> = s.sentences.iter().map(|x| x.heading).collect();
        assert_eq!(h, vec![true, true, false, false, true]);
    }

    #[test]
    fn punctuation_only_lines_make_no_sentence() {
        let (_, s) = seg("……\n\n一句话。\n——\n");
        assert_eq!(s, vec!["一句话。"]);
    }

    #[test]
    fn long_text_without_punctuation_is_cut() {
        let text = "字".repeat(MAX_SENTENCE_TOKENS * 3 + 5);
        let (s, _) = seg(&text);
        assert_eq!(s.sentences.len(), 4);
        assert!(s.sentences.iter().all(|x| (x.tok_end - x.tok_start) as usize <= MAX_SENTENCE_TOKENS));
        assert_eq!(s.sentences.last().unwrap().end as usize, text.chars().count());
    }

    #[test]
    fn long_sentence_is_cut_at_a_clause_mark() {
        let clause = format!("{}，", "字".repeat(100));
        let text = clause.repeat(4);
        let (s, strs) = seg(&text);
        assert!(s.sentences.len() >= 2);
        assert!(strs[0].ends_with('，'), "{:?}", strs[0]);
    }
}
