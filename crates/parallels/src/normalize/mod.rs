//! Normalization: the text the matchers see, with a map back to the original.
//!
//! INTERFACE STUB — to be implemented (see the issue for the rules).

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
    pub mark: Mark,
}

/// Normalized text: characters in original order, each with its source span.
#[derive(Clone, Debug, Default)]
pub struct Normalized {
    pub chars: Vec<NChar>,
    /// Length of the original text in code points.
    pub original_len: u32,
}

/// Which rules run. All are on by default.
#[derive(Clone, Debug)]
pub struct NormalizeOptions {
    pub width: bool,
    pub case_fold: bool,
    pub script: bool,
    pub variants: bool,
    pub numbers: bool,
    pub footnotes: bool,
    pub censored: bool,
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

/// Holds the options and any loaded tables; build once, normalize many texts.
#[derive(Clone, Debug)]
pub struct Normalizer {
    opts: NormalizeOptions,
}

impl Normalizer {
    pub fn new(opts: NormalizeOptions) -> Normalizer {
        Normalizer { opts }
    }

    /// Normalize `text`. Never panics.
    pub fn normalize(&self, text: &str) -> Normalized {
        let _ = &self.opts;
        let mut chars = Vec::new();
        for (i, ch) in text.chars().enumerate() {
            let i = i as u32;
            for c in ch.to_lowercase() {
                chars.push(NChar { ch: c, start: i, end: i + 1, mark: Mark::Text });
            }
        }
        Normalized { original_len: text.chars().count() as u32, chars }
    }
}
