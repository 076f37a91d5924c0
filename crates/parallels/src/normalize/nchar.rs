//! The normalized character and its marks: what every rule of
//! normalization reads and writes (a leaf, so that the rule files import it
//! and not the module that runs them).

/// The character a censored stretch becomes (OBJECT REPLACEMENT CHARACTER).
pub const WILDCARD: char = '\u{FFFC}';

/// What a normalized character is, for the stages after this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Ordinary text (letters, Han, digits, punctuation, spaces, newlines).
    Text,
    /// A censored stretch (`**`, `□□`): one wildcard character that matches nothing.
    Wildcard,
    /// Part of a boilerplate line (serialization header, update-time line):
    /// never matched as content.
    Boilerplate,
}

/// One character of normalized text and the original span it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NChar {
    /// The normalized character.
    pub ch: char,
    /// Start of the original span, in code points of the original text.
    pub start: u32,
    /// End (exclusive) of the original span; `start < end` always.
    pub end: u32,
    /// What the character is to the matchers (text, boilerplate, …).
    pub mark: Mark,
}

/// Test input for a single rule: each character of `s` as itself, spanning
/// its own position.
#[cfg(test)]
pub(super) fn identity_chars(s: &str) -> Vec<NChar> {
    s.chars().enumerate().map(|(i, ch)| NChar { ch, start: i as u32, end: i as u32 + 1, mark: Mark::Text }).collect()
}
