//! The encoder's tokenizer: SentencePiece's `nmt_nfkc` normalization and
//! unigram segmentation, for the one model we ship.
//!
//! Both steps look strings up in a sorted list of byte strings
//! ([`SortedKeys`]): the normalization map (224,680 keys, each a byte
//! sequence of the input and its replacement) and the vocabulary (128,000
//! pieces with their log-probabilities). A walk narrows the range of keys
//! that share the bytes read so far — the first two bytes by a table, each
//! further byte by two binary searches — and reports every key that is a
//! prefix of the input. That replaces both the
//! double-array trie the model stores and a hash map of every prefix
//! (which would cost some 20 MB), at no cost that shows next to the
//! network.
//!
//! What the tokenizer does, step by step, as SentencePiece does it:
//!
//! 1. Normalize: at each position take the longest key of the map that
//!    starts there and write its replacement (or copy one character);
//!    drop leading whitespace, collapse runs of it, drop it at the end;
//!    write spaces as `▁` and put one `▁` in front of the text.
//! 2. Segment: the unigram model's best split, a left-to-right dynamic
//!    program over byte positions. Every piece that starts at a position
//!    extends the best path that ends there; on equal scores the path that
//!    got there first stays (ties break towards earlier starts). A
//!    character no piece covers is one unknown token, scored ten below the
//!    rarest piece.
//! 3. Frame: the ids of the pieces between begin (1) and end (2) markers;
//!    an empty text is the unknown token alone.

use super::model::{Container, ModelError};

const UNK: u32 = 0;
const BOS: u32 = 1;
const EOS: u32 = 2;
const SPACE: &str = "\u{2581}";

/// Byte strings laid end to end, found by index.
struct Strings {
    blob: Vec<u8>,
    /// `(start, end)` of string `i` in `blob`.
    spans: Vec<(u32, u32)>,
}

impl Strings {
    /// `ends[i]` is where string `i` ends (and string `i + 1` starts).
    fn new(blob: Vec<u8>, ends: &[u32]) -> Strings {
        let starts = std::iter::once(0).chain(ends.iter().copied());
        Strings { spans: starts.zip(ends.iter().copied()).collect(), blob }
    }

    fn get(&self, i: usize) -> &[u8] {
        let (start, end) = self.spans[i];
        &self.blob[start as usize..end as usize]
    }
}

/// Byte strings in sorted order, each with its index as value, searched by
/// prefix.
struct SortedKeys {
    blob: Vec<u8>,
    /// `(start, end, value)` into `blob`, sorted by the bytes.
    keys: Vec<(u32, u32, u32)>,
    /// The range of keys that start with each two bytes `b0 · 256 + b1`
    /// (empty where none does): the walk starts there instead of with two
    /// binary searches over every key and two more over the keys of `b0`.
    pairs: Vec<(u32, u32)>,
    /// The value of the key of one byte `b`, if there is one.
    ones: [Option<u32>; 256],
}

impl SortedKeys {
    fn new(strings: Strings) -> SortedKeys {
        let Strings { blob, spans } = strings;
        let mut keys: Vec<(u32, u32, u32)> =
            spans.into_iter().enumerate().map(|(value, (start, end))| (start, end, value as u32)).collect();
        keys.sort_unstable_by(|x, y| blob[x.0 as usize..x.1 as usize].cmp(&blob[y.0 as usize..y.1 as usize]));
        let mut pairs = vec![(0, 0); 1 << 16];
        let mut ones = [None; 256];
        for (i, k) in keys.iter().enumerate() {
            if let [b] = blob[k.0 as usize..k.1 as usize] {
                ones[usize::from(b)] = Some(k.2);
            }
            if let [b0, b1, ..] = blob[k.0 as usize..k.1 as usize] {
                let range = &mut pairs[usize::from(b0) << 8 | usize::from(b1)];
                if range.0 == range.1 {
                    range.0 = i as u32;
                }
                range.1 = i as u32 + 1;
            }
        }
        SortedKeys { blob, keys, pairs, ones }
    }

    /// Calls `found(length, value)` for every key that is a prefix of
    /// `text`, shortest first.
    fn prefixes(&self, text: &[u8], mut found: impl FnMut(usize, u32)) {
        let blob = &self.blob;
        let bytes = |k: &(u32, u32, u32)| &blob[k.0 as usize..k.1 as usize];
        let (mut lo, mut hi) = (0, self.keys.len());
        let mut skip = 0;
        if let [b0, b1, ..] = *text {
            // The key of one byte, if any, from its table; the keys that
            // start with both bytes are a range of the other.
            if let Some(value) = self.ones[usize::from(b0)] {
                found(1, value);
            }
            let (start, end) = self.pairs[usize::from(b0) << 8 | usize::from(b1)];
            if start == end {
                return;
            }
            (lo, hi, skip) = (start as usize, end as usize, 2);
            if bytes(&self.keys[lo]).len() == 2 {
                found(2, self.keys[lo].2);
            }
        }
        for (depth, &byte) in text.iter().enumerate().skip(skip) {
            // The keys in lo..hi all start with text[..depth], and the one
            // that is exactly that long (if any) comes first.
            lo += self.keys[lo..hi].partition_point(|k| {
                let key = bytes(k);
                key.len() <= depth || key[depth] < byte
            });
            hi = lo + self.keys[lo..hi].partition_point(|k| bytes(k)[depth] == byte);
            if lo == hi {
                return;
            }
            if bytes(&self.keys[lo]).len() == depth + 1 {
                found(depth + 1, self.keys[lo].2);
            }
        }
    }
}

/// Normalization map and vocabulary of the shipped model.
pub(crate) struct Tokenizer {
    normalization: SortedKeys,
    replacements: Strings,
    pieces: SortedKeys,
    scores: Vec<f32>,
    unknown_score: f32,
}

impl Tokenizer {
    pub(crate) fn new(model: &Container) -> Result<Tokenizer, ModelError> {
        let blob = |name: &str| model.bytes(name).map(|t| model.data[t.bytes.clone()].to_vec());
        let pieces = SortedKeys::new(Strings::new(blob("sp.pieces")?, &model.u32s("sp.piece_ends")?));
        let count = pieces.keys.len();
        let scores = model.f32s("sp.scores", &[count])?;
        let unknown_score = scores.iter().copied().fold(f32::INFINITY, f32::min) - 10.0;
        let normalization = SortedKeys::new(Strings::new(blob("norm.keys")?, &model.u32s("norm.key_ends")?));
        // Replacements are looked up by the index of their key.
        let replacements = Strings::new(blob("norm.values")?, &model.u32s("norm.value_ends")?);
        if replacements.spans.len() != normalization.keys.len() {
            return Err(ModelError("normalization keys and values differ in number".into()));
        }
        Ok(Tokenizer { normalization, replacements, pieces, scores, unknown_score })
    }

    /// The vocabulary size (ids run from 0 to this, exclusive).
    pub(crate) fn vocabulary(&self) -> usize {
        self.scores.len()
    }

    /// Token ids of `text`, framed by the begin and end markers.
    pub(crate) fn encode(&self, text: &str, ids: &mut Vec<u32>) {
        ids.clear();
        ids.push(BOS);
        let normalized = self.normalize(text);
        if normalized.is_empty() {
            ids.push(UNK);
        } else {
            self.segment(&normalized, ids);
        }
        ids.push(EOS);
    }

    /// The longest normalization key at the start of `rest`, as the
    /// replacement and the number of bytes it consumes; one character as
    /// it is when no key matches.
    fn normalize_prefix<'a>(&'a self, rest: &'a str) -> (&'a [u8], usize) {
        let mut longest = None;
        self.normalization.prefixes(rest.as_bytes(), |len, value| longest = Some((len, value)));
        match longest {
            Some((len, value)) => (self.replacements.get(value as usize), len),
            None => {
                let len = rest.chars().next().map_or(1, char::len_utf8);
                (&rest.as_bytes()[..len], len)
            }
        }
    }

    pub(crate) fn normalize(&self, text: &str) -> String {
        let mut pos = 0;
        while pos < text.len() {
            let (piece, len) = self.normalize_prefix(&text[pos..]);
            if piece != b" " {
                break;
            }
            pos += len;
        }
        let mut out = Vec::with_capacity(text.len() + 8);
        if pos >= text.len() {
            return String::new();
        }
        out.extend_from_slice(SPACE.as_bytes());
        let mut after_space = true;
        while pos < text.len() {
            let (mut piece, len) = self.normalize_prefix(&text[pos..]);
            pos += len;
            if after_space {
                while let [b' ', rest @ ..] = piece {
                    piece = rest;
                }
            }
            let Some(&last) = piece.last() else { continue };
            for &byte in piece {
                if byte == b' ' {
                    out.extend_from_slice(SPACE.as_bytes());
                } else {
                    out.push(byte);
                }
            }
            after_space = last == b' ';
        }
        while out.ends_with(SPACE.as_bytes()) {
            out.truncate(out.len() - SPACE.len());
        }
        // Replacements are whole UTF-8 sequences and a key match never
        // splits a character, so the bytes are valid; lossy only in name.
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// The unigram model's best segmentation of a normalized text.
    fn segment(&self, text: &str, ids: &mut Vec<u32>) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        // For each end position: where its best last piece starts, and which.
        let mut from = vec![0usize; n + 1];
        let mut piece = vec![UNK; n + 1];
        best[0] = 0.0;
        for (start, ch) in text.char_indices() {
            let base = best[start];
            let one = ch.len_utf8();
            let mut covered = false;
            self.pieces.prefixes(&bytes[start..], |len, id| {
                let score = base + self.scores[id as usize];
                let end = start + len;
                if score > best[end] {
                    best[end] = score;
                    from[end] = start;
                    piece[end] = id;
                }
                covered |= len == one;
            });
            if !covered {
                let score = base + self.unknown_score;
                let end = start + one;
                if score > best[end] {
                    best[end] = score;
                    from[end] = start;
                    piece[end] = UNK;
                }
            }
        }
        let first = ids.len();
        let mut end = n;
        while end > 0 {
            ids.push(piece[end]);
            end = from[end];
        }
        ids[first..].reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk (two-byte table, then binary searches) reports exactly the
    /// keys that are prefixes of the text, shortest first, for texts of
    /// every length and keys of one, two and more bytes.
    #[test]
    fn prefixes_are_every_key_that_starts_the_text() {
        let words: [&[u8]; 11] = [
            b"a",
            b"ab",
            b"abc",
            b"abd",
            b"b",
            b"ba",
            b"bab",
            "\u{4e2d}".as_bytes(),
            "\u{4e2d}\u{6587}".as_bytes(),
            b"c",
            b"zz",
        ];
        let mut blob = Vec::new();
        let mut ends = Vec::new();
        for w in words {
            blob.extend_from_slice(w);
            ends.push(blob.len() as u32);
        }
        let keys = SortedKeys::new(Strings::new(blob, &ends));
        let texts: [&[u8]; 10] =
            [b"", b"a", b"ab", b"abcx", b"abd", b"bax", b"zz", b"z", b"q", "\u{4e2d}\u{6587}\u{5b57}".as_bytes()];
        for text in texts {
            let mut got = Vec::new();
            keys.prefixes(text, |len, value| got.push((len, value)));
            let mut want: Vec<(usize, u32)> =
                (0..words.len()).filter(|&i| text.starts_with(words[i])).map(|i| (words[i].len(), i as u32)).collect();
            want.sort();
            assert_eq!(got, want, "text {:?}", String::from_utf8_lossy(text));
        }
    }
}
