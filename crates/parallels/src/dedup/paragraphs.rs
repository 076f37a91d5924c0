//! Paragraphs repeated across documents.
//!
//! A paragraph is a line of the original text (cut at `\n`; a `\r` before
//! it belongs to the line). Its key is a hash of its normalized tokens, so
//! two lines that differ only in script, width, numerals, punctuation or
//! spacing are the same paragraph. A line with fewer than
//! [`DedupOptions::min_paragraph_tokens`](super::DedupOptions) tokens (a
//! blank line, a lone punctuation mark) has no key and is always kept.
//!
//! Over the kept documents in input order, a line whose key was seen in an
//! *earlier* document is dropped; repeats inside one document are kept
//! (they are its own structure, not cross-document boilerplate). A document
//! all of whose keyed lines are dropped is removed as
//! [`Reason::EmptyAfterParagraphs`], and then its lines do not count as
//! first occurrences either (they were not).

use rustc_hash::FxHashMap;

use super::minhash::sequence_hash;
use super::outcome::{DocEntry, Fate, Reason};
use super::table::Table;

/// One key per line of `text` (0 for a line without enough tokens), from
/// the document's tokens and their starts (code points).
pub fn line_hashes(text: &str, tokens: &[u64], starts: &[u32], min_tokens: usize) -> Vec<u64> {
    // Start of each line in code points.
    let mut line_starts = vec![0u32];
    for (i, c) in text.chars().enumerate() {
        if c == '\n' {
            line_starts.push(i as u32 + 1);
        }
    }
    let mut out = Vec::with_capacity(line_starts.len());
    let mut t = 0usize;
    for (k, _) in line_starts.iter().enumerate() {
        let end = line_starts.get(k + 1).copied().unwrap_or(u32::MAX);
        let from = t;
        while t < starts.len() && starts[t] < end {
            t += 1;
        }
        let line = &tokens[from..t];
        let key = if line.len() >= min_tokens.max(1) { (sequence_hash(line) as u64).max(1) } else { 0 };
        out.push(key);
    }
    out
}

/// Mark the repeated lines of kept documents (see the module docs).
pub(crate) fn drop_repeated(table: &Table, docs: &mut [DocEntry]) {
    // Key -> the first kept document that has it.
    let mut first: FxHashMap<u64, u32> = FxHashMap::default();
    for (d, doc) in docs.iter_mut().enumerate() {
        if !matches!(doc.fate, Fate::Kept) {
            continue;
        }
        let lines = &table.lines[d];
        let mut dropped = Vec::new();
        let mut keyed = 0usize;
        let mut last_owner = None;
        for (i, &key) in lines.iter().enumerate() {
            if key == 0 {
                continue;
            }
            keyed += 1;
            if let Some(&owner) = first.get(&key) {
                if owner != d as u32 {
                    dropped.push(i as u32);
                    last_owner = Some(owner);
                }
            }
        }
        if keyed > 0 && dropped.len() == keyed {
            let of = last_owner.expect("a dropped line has an owner");
            doc.fate = Fate::Removed { reason: Reason::EmptyAfterParagraphs, of, similarity: 0.0 };
            continue;
        }
        for &key in lines.iter().filter(|&&k| k != 0) {
            first.entry(key).or_insert(d as u32);
        }
        if !dropped.is_empty() {
            doc.fate = Fate::Trimmed(dropped);
        }
    }
}

/// `text` without the given lines (0-based, ascending), each dropped with
/// its line ending.
pub fn without_lines(text: &str, dropped: &[u32]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut next = dropped.iter().peekable();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if next.peek().is_some_and(|&&d| d == i as u32) {
            next.next();
            continue;
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::MinHasher;

    #[test]
    fn lines_get_keys_from_their_tokens() {
        let m = MinHasher::new(5, 4);
        let text = "第一段文字。\n\n第二段文字。\r\n第一段文字。";
        let (tokens, starts) = m.tokens_with_starts(text);
        let keys = line_hashes(text, &tokens, &starts, 1);
        assert_eq!(keys.len(), 4);
        assert_eq!(keys[1], 0);
        assert_eq!(keys[0], keys[3]);
        assert_ne!(keys[0], keys[2]);
    }

    #[test]
    fn dropped_lines_go_with_their_endings() {
        assert_eq!(without_lines("a\nb\r\nc\nd", &[1, 3]), "a\nc\n");
    }
}
