//! Bytes to text: the rules of the [module docs](super), in code, with
//! their thresholds.

use std::ops::Range;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding};

/// How many decoded characters at the start of the text the binary check
/// looks at.
pub const SNIFF_CHARS: usize = 8192;

/// Above this share (in percent) of control characters among the first
/// [`SNIFF_CHARS`] characters the input is taken for binary.
pub const MAX_CONTROL_PERCENT: usize = 10;

/// Above this share (in percent) of replaced characters the input is
/// [undecodable](DecodeError::Undecodable) rather than text with a few bad
/// bytes.
pub const MAX_REPLACED_PERCENT: usize = 5;

/// Invalid UTF-8 is still read as (lossy) UTF-8 when it has at least this many
/// valid multi-byte characters for each invalid sequence, and at least one
/// (rule 4 of the [module docs](super)).
pub const UTF8_LIKE_VALID_PER_BAD: usize = 1;

/// The legacy-encoding detector sees at most this many bytes, starting at
/// the first non-ASCII byte.
pub const DETECT_BYTES: usize = 64 * 1024;

/// A legacy CJK encoding that the detector ruled out because of invalid
/// sequences is reconsidered when it has at least this many non-ASCII
/// characters for each invalid sequence (rule 5 of the [module docs](super)).
pub const LEGACY_VALID_PER_BAD: usize = 20;

/// UTF-16 without a BOM whose NULs do not say so (CJK text has a NUL byte
/// only where a code unit's byte happens to be zero) is still UTF-16 when
/// at least this share (in percent) of the code units of its first
/// [`SNIFF_CHARS`] are text: CJK ideographs, kana, hangul, CJK and
/// full-width punctuation, printable ASCII and line breaks (rule 2 of the
/// [module docs](super)). Those ranges are 60 % of all code units: bytes
/// that are not UTF-16 text reach 95 % over [`UTF16_TEXT_MIN_UNITS`] units
/// with a chance below 10^-5 (binomial tail; far less over more units), and a Chinese, Japanese or
/// Korean text written in UTF-16 has nearly all of its units there.
pub const UTF16_TEXT_PERCENT: usize = 95;

/// Fewest code units that rule 2's reading of CJK UTF-16 judges.
pub const UTF16_TEXT_MIN_UNITS: usize = 32;

/// The result of [`decode`]: the text, the encoding it was in, and how many
/// undecodable byte sequences were replaced by U+FFFD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The decoded text, without a BOM, line endings untouched.
    pub text: String,
    /// Encoding label: `utf-8`, `utf-16le`, `utf-16be`, `gb18030`, `big5`,
    /// or another `encoding_rs` name in lower case.
    pub encoding: String,
    /// Number of undecodable byte sequences replaced by U+FFFD.
    pub replaced: usize,
}

/// Why a byte string is not text. [`ReadError`](super::ReadError) adds the path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// NUL bytes, or too many control characters.
    #[error("looks like binary data ({reason})")]
    Binary {
        /// What gave it away.
        reason: String,
    },
    /// Even the best guess of the encoding leaves too much undecodable.
    #[error(
        "cannot be decoded as text: read as {encoding}, {replaced} of {chars} characters \
         are undecodable (first bad byte at offset {offset})"
    )]
    Undecodable {
        /// The encoding that was tried (the best guess).
        encoding: String,
        /// Number of replaced sequences.
        replaced: usize,
        /// Number of characters in the decoded text.
        chars: usize,
        /// Byte offset of the first undecodable sequence in the input.
        offset: usize,
    },
}

/// Decode the bytes of a text file: detect the encoding, decode, and check
/// that the result is text (see the module docs for the rules).
pub fn decode(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        check_nul(rest, 3)?;
        return finish(decode_utf8(rest, 3));
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return finish(decode_with(encoding_rs::UTF_16LE, rest, 2));
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return finish(decode_with(encoding_rs::UTF_16BE, rest, 2));
    }
    if bytes.contains(&0) {
        if let Some(utf16) = utf16_without_bom(bytes).or_else(|| utf16_text_without_bom(bytes)) {
            let attempt = decode_with(utf16, bytes, 0);
            if attempt.decoded.replaced == 0 {
                return finish(attempt);
            }
        }
        check_nul(bytes, 0)?;
    }
    if std::str::from_utf8(bytes).is_ok() {
        return finish(decode_utf8(bytes, 0));
    }
    let (valid_multibyte, bad) = utf8_evidence(bytes);
    if valid_multibyte > 0 && valid_multibyte >= bad.saturating_mul(UTF8_LIKE_VALID_PER_BAD) {
        return finish(decode_utf8(bytes, 0));
    }
    let legacy = detect_legacy(bytes);
    if valid_multibyte > 0 && legacy.is_single_byte() {
        return finish(decode_utf8(bytes, 0));
    }
    finish(decode_with(legacy, bytes, 0))
}

/// `"utf-16le"` or `"utf-16be"` when `head` (the first bytes of an input)
/// is UTF-16 by the rules of [`decode`] (a byte-order mark, or no mark and
/// its NULs or its text say so); else `None`. For inputs that must be
/// UTF-8 (JSON Lines), to refuse a UTF-16 one once rather than line by
/// line.
pub fn utf16_label(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\xFF\xFE") {
        return Some("utf-16le");
    }
    if head.starts_with(b"\xFE\xFF") {
        return Some("utf-16be");
    }
    if !head.contains(&0) {
        return None;
    }
    let encoding = utf16_without_bom(head).or_else(|| utf16_text_without_bom(head))?;
    Some(if encoding == encoding_rs::UTF_16LE { "utf-16le" } else { "utf-16be" })
}

/// A decoding before the text checks: the first undecodable byte's offset
/// is kept for the error message.
struct Attempt {
    decoded: Decoded,
    first_bad: Option<usize>,
}

/// Reject text that is mostly control characters or replacement characters.
fn finish(attempt: Attempt) -> Result<Decoded, DecodeError> {
    let Attempt { decoded, first_bad } = attempt;
    let mut sniffed = 0usize;
    let mut controls = 0usize;
    let mut first_control = None;
    for (at, c) in decoded.text.char_indices().take(SNIFF_CHARS) {
        sniffed += 1;
        if c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{0C}') {
            controls += 1;
            first_control.get_or_insert((at, c));
        }
    }
    if controls.saturating_mul(100) > sniffed.saturating_mul(MAX_CONTROL_PERCENT) {
        let (at, c) = first_control.unwrap_or((0, '\0'));
        let reason = format!(
            "{controls} of the first {sniffed} characters are control characters, \
             the first U+{:04X} at character {}",
            u32::from(c),
            decoded.text[..at].chars().count()
        );
        return Err(DecodeError::Binary { reason });
    }
    if decoded.replaced > 0 {
        let chars = decoded.text.chars().count();
        if decoded.replaced.saturating_mul(100) > chars.saturating_mul(MAX_REPLACED_PERCENT) {
            return Err(DecodeError::Undecodable {
                encoding: decoded.encoding,
                replaced: decoded.replaced,
                chars,
                offset: first_bad.unwrap_or(0),
            });
        }
    }
    Ok(decoded)
}

/// NUL bytes mean binary (outside UTF-16). `base` is the offset of `bytes`
/// in the input, so that the reason names the offset in the file.
fn check_nul(bytes: &[u8], base: usize) -> Result<(), DecodeError> {
    let Some(at) = bytes.iter().position(|&b| b == 0) else {
        return Ok(());
    };
    let mut reason = format!("contains NUL bytes, the first at byte {}", base + at);
    if looks_like_utf16_without_bom(bytes) || utf16_text_share(bytes).0 >= 80 {
        reason.push_str(
            "; if it is UTF-16 text without a byte-order mark, convert it to UTF-8 \
             or add a BOM",
        );
    }
    Err(DecodeError::Binary { reason })
}

/// The byte order of UTF-16 without a BOM, if the NULs say so (rule 2):
/// NULs at odd offsets are the high bytes of little-endian ASCII.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    if !looks_like_utf16_without_bom(bytes) {
        return None;
    }
    let head = &bytes[..bytes.len().min(8192)];
    let odd = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    let even = head.iter().step_by(2).filter(|&&b| b == 0).count();
    Some(if odd >= even { encoding_rs::UTF_16LE } else { encoding_rs::UTF_16BE })
}

/// The byte order in which the bytes read as UTF-16 text (CJK text
/// mostly; see [`UTF16_TEXT_PERCENT`]), if one does.
fn utf16_text_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let (share, encoding) = utf16_text_share(bytes);
    (share >= UTF16_TEXT_PERCENT).then_some(encoding)
}

/// The larger share (in percent) of text code units among the first
/// [`SNIFF_CHARS`] code units read as UTF-16LE and as UTF-16BE, and that
/// byte order; 0 for fewer than [`UTF16_TEXT_MIN_UNITS`] units. A lone
/// surrogate counts as not text.
fn utf16_text_share(bytes: &[u8]) -> (usize, &'static Encoding) {
    let head = &bytes[..bytes.len().min(2 * SNIFF_CHARS) & !1];
    let units = head.len() / 2;
    if units < UTF16_TEXT_MIN_UNITS {
        return (0, encoding_rs::UTF_16LE);
    }
    let share = |unit: fn([u8; 2]) -> u16| {
        let units_of = head.chunks_exact(2).map(|c| unit([c[0], c[1]]));
        let text = char::decode_utf16(units_of).filter(|c| c.as_ref().is_ok_and(|&c| text_char(c))).count();
        text * 100 / units
    };
    let (le, be) = (share(u16::from_le_bytes), share(u16::from_be_bytes));
    if le >= be {
        (le, encoding_rs::UTF_16LE)
    } else {
        (be, encoding_rs::UTF_16BE)
    }
}

/// A character that text in UTF-16 is mostly made of (see
/// [`UTF16_TEXT_PERCENT`]).
fn text_char(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~'
        | '\u{2000}'..='\u{206F}' // general punctuation
        | '\u{3000}'..='\u{30FF}' // CJK punctuation, kana
        | '\u{3400}'..='\u{9FFF}' // CJK ideographs
        | '\u{AC00}'..='\u{D7AF}' // hangul
        | '\u{FF00}'..='\u{FFEF}' // full-width forms
    )
}

/// Fewest NUL bytes that can make a file UTF-16 without a BOM: in a few
/// bytes, one or two NULs on one side happen by chance (`C2 80 00 20` is
/// valid UTF-8 with one NUL, and not two UTF-16 characters).
const UTF16_MIN_NULS: usize = 4;

/// Mostly-ASCII UTF-16 has a NUL in every other byte, all on one side.
fn looks_like_utf16_without_bom(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    let (mut even, mut odd) = (0usize, 0usize);
    for (i, &b) in head.iter().enumerate() {
        if b == 0 {
            if i % 2 == 0 {
                even += 1;
            } else {
                odd += 1;
            }
        }
    }
    let nuls = even + odd;
    nuls >= UTF16_MIN_NULS && nuls * 4 >= head.len() && even.max(odd) * 10 >= nuls * 9
}

/// Valid multi-byte UTF-8 characters, and invalid sequences (rule 4).
fn utf8_evidence(bytes: &[u8]) -> (usize, usize) {
    let mut valid_multibyte = 0usize;
    let mut bad = 0usize;
    for chunk in bytes.utf8_chunks() {
        valid_multibyte += chunk.valid().bytes().filter(|&b| b >= 0xC0).count();
        if !chunk.invalid().is_empty() {
            bad += 1;
        }
    }
    (valid_multibyte, bad)
}

/// Decode as UTF-8, replacing each invalid sequence (maximal subpart) by
/// U+FFFD. `base` is the offset of `bytes` in the input.
fn decode_utf8(bytes: &[u8], base: usize) -> Attempt {
    let (text, replaced, first_bad) = match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), 0, None),
        Err(_) => {
            let mut text = String::with_capacity(bytes.len() + 16);
            let mut replaced = 0usize;
            let mut first_bad = None;
            let mut at = 0usize;
            for chunk in bytes.utf8_chunks() {
                text.push_str(chunk.valid());
                at += chunk.valid().len();
                if !chunk.invalid().is_empty() {
                    text.push('\u{FFFD}');
                    replaced += 1;
                    first_bad.get_or_insert(base + at);
                    at += chunk.invalid().len();
                }
            }
            (text, replaced, first_bad)
        }
    };
    Attempt { decoded: Decoded { text, encoding: "utf-8".into(), replaced }, first_bad }
}

/// Decode with `encoding_rs`, counting the replaced sequences. `base` is the
/// offset of `bytes` in the input.
fn decode_with(encoding: &'static Encoding, bytes: &[u8], base: usize) -> Attempt {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let capacity = decoder
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .unwrap_or_else(|| bytes.len().saturating_mul(3));
    let mut text = String::with_capacity(capacity);
    let mut replaced = 0usize;
    let mut first_bad = None;
    let mut pos = 0usize;
    loop {
        let rest = bytes.get(pos..).unwrap_or_default();
        let (result, read) = decoder.decode_to_string_without_replacement(rest, &mut text, true);
        pos += read;
        match result {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => {
                let more =
                    decoder.max_utf8_buffer_length_without_replacement(bytes.len().saturating_sub(pos)).unwrap_or(4096);
                text.reserve(more.max(16));
            }
            DecoderResult::Malformed(bad, after) => {
                replaced += 1;
                let start = pos.saturating_sub(usize::from(bad) + usize::from(after));
                first_bad.get_or_insert(base + start);
                text.push('\u{FFFD}');
            }
        }
    }
    let encoding = encoding.name().to_ascii_lowercase();
    Attempt { decoded: Decoded { text, encoding, replaced }, first_bad }
}

/// Guess a legacy (non-UTF) encoding; GBK comes back as GB18030.
fn detect_legacy(bytes: &[u8]) -> &'static Encoding {
    // The detector ignores ASCII and is slow (a few MB/s): show it the
    // window of DETECT_BYTES that starts at the first non-ASCII byte, which
    // begins a character in every ASCII-compatible encoding.
    let start = bytes.iter().position(|&b| b >= 0x80).unwrap_or(bytes.len());
    let end = bytes.len().min(start.saturating_add(DETECT_BYTES));
    let window = bytes.get(start..end).unwrap_or_default();
    let last = end == bytes.len();
    let guess = widen(chardetng_guess(window, last));
    if RESCUE_CANDIDATES.contains(&guess) {
        return guess;
    }
    // chardetng rules out an encoding on its first invalid sequence, so a
    // CJK file with a stray byte comes back as a single-byte encoding.
    // Reconsider the East Asian encodings that leave a few (but some)
    // invalid sequences. (One that leaves none the detector has weighed
    // already and found worse.)
    let mut few: Vec<(&'static Encoding, Vec<Range<usize>>)> = RESCUE_CANDIDATES
        .iter()
        .filter_map(|&candidate| few_invalid_sequences(candidate, window, last).map(|bad| (candidate, bad)))
        .filter(|(_, bad)| !bad.is_empty())
        .collect();
    few.sort_by_key(|(_, bad)| bad.len());
    // Is it East Asian text at all? Ask the detector again, about the bytes
    // without the segments that hold a candidate's invalid sequences (a
    // stray byte can shift the rest of its segment out of step into valid
    // garbage, which the detector's scores punish in the right encoding as
    // much as in a wrong one), or failing that without just those sequences.
    let is_candidate = |answer: &&'static Encoding| few.iter().any(|(c, _)| c == answer);
    let mut named = Vec::new();
    for (_, bad) in &few {
        let answer = [whole_segments(window, bad), bad.clone()]
            .iter()
            .map(|cut| widen(chardetng_guess(&without(window, cut), last)))
            .find(is_candidate);
        named.extend(answer);
    }
    let Some((first, fewest)) = few.first().filter(|_| !named.is_empty()) else {
        return guess;
    };
    // Which one? The invalid sequences a stray byte makes are invalid in
    // every candidate, while text in one encoding has more in the others:
    // take a candidate with the fewest, give or take one; among those, the
    // first the detector named.
    let close = |answer: &&'static Encoding| few.iter().any(|(c, bad)| c == answer && bad.len() <= fewest.len() + 1);
    named.iter().copied().find(close).unwrap_or(first)
}

/// Widen each range to the segment around it, between bytes below 0x40,
/// where every East Asian multi-byte encoding is back in step. A stray byte
/// can shift the rest of its segment out of step without another invalid
/// sequence; dropping the segment drops that garbage too.
fn whole_segments(bytes: &[u8], ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let is_sync = |b: &u8| *b < 0x40;
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        if out.last().is_some_and(|last| range.end <= last.end) {
            continue; // inside the segment already taken: no need to scan again
        }
        let head = bytes.get(..range.start.min(bytes.len())).unwrap_or_default();
        let start = head.iter().rposition(is_sync).map_or(0, |i| i + 1);
        let tail = bytes.get(range.end.min(bytes.len())..).unwrap_or_default();
        let end = tail.iter().position(is_sync).map_or(bytes.len(), |i| range.end + i);
        match out.last_mut() {
            Some(last) if start <= last.end => last.end = last.end.max(end),
            _ => out.push(start..end),
        }
    }
    out
}

/// `bytes` without the byte ranges `cut` (sorted, not overlapping).
fn without(bytes: &[u8], cut: &[Range<usize>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = 0;
    for range in cut {
        out.extend_from_slice(bytes.get(from..range.start).unwrap_or_default());
        from = from.max(range.end);
    }
    out.extend_from_slice(bytes.get(from..).unwrap_or_default());
    out
}

/// `last`: whether `bytes` runs to the end of the input (otherwise a
/// character cut at the end of the window is not an error).
fn chardetng_guess(bytes: &[u8], last: bool) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(bytes, last);
    detector.guess(None, Utf8Detection::Deny)
}

/// The multi-byte encodings reconsidered by [`detect_legacy`], in order.
const RESCUE_CANDIDATES: [&Encoding; 5] =
    [encoding_rs::GB18030, encoding_rs::BIG5, encoding_rs::SHIFT_JIS, encoding_rs::EUC_JP, encoding_rs::EUC_KR];

/// GBK is a subset of GB18030: decode (and report) with the superset.
fn widen(encoding: &'static Encoding) -> &'static Encoding {
    if encoding == encoding_rs::GBK {
        encoding_rs::GB18030
    } else {
        encoding
    }
}

/// The byte ranges of the invalid sequences of `bytes` in `encoding` if they
/// are few, at most one per [`LEGACY_VALID_PER_BAD`] non-ASCII characters
/// (possibly none); `None` if there are more.
fn few_invalid_sequences(encoding: &'static Encoding, bytes: &[u8], last: bool) -> Option<Vec<Range<usize>>> {
    // There are at most as many non-ASCII characters as bytes: stop early
    // once the errors can no longer be few.
    let limit = bytes.len() / LEGACY_VALID_PER_BAD + 1;
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut buffer = [0u8; 8192];
    let mut bad = Vec::new();
    let mut non_ascii = 0usize;
    let mut pos = 0usize;
    loop {
        let rest = bytes.get(pos..).unwrap_or_default();
        let (result, read, written) = decoder.decode_to_utf8_without_replacement(rest, &mut buffer, last);
        pos += read;
        non_ascii += buffer[..written].iter().filter(|&&b| b >= 0xC0).count();
        match result {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(len, after) => {
                let end = pos.saturating_sub(usize::from(after));
                bad.push(end.saturating_sub(usize::from(len))..end);
                if bad.len() > limit {
                    return None;
                }
            }
        }
    }
    let few = non_ascii > 0 && non_ascii >= bad.len().saturating_mul(LEGACY_VALID_PER_BAD);
    few.then_some(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A simplified-Chinese paragraph (from corpus/zh-variants v1).
    const ZH: &str = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。\
        十七世纪中叶，城中约有两万三千名居民，其中三分之一是来自各地的商人、水手和工匠。\
        码头上常年停泊着来自荷兰、英格兰和丹麦的商船。";
    /// Its traditional form, in characters that Big5 has.
    const ZH_TRAD: &str = "布倫納河在魏斯明德匯入波羅的海，這座港口城市因糧食和琥珀生意而遠近聞名。\
        十七世紀中期，城裡住著大約兩萬三千人，商人、水手和手藝人佔了三分之一，他們來自四面八方。";

    fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable, "test text not encodable in {}", encoding.name());
        bytes.into_owned()
    }

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        let mut out = if big_endian { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
        for unit in text.encode_utf16() {
            let b = if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() };
            out.extend_from_slice(&b);
        }
        out
    }

    #[test]
    fn empty_input_is_empty_utf8_text() {
        let d = decode(b"").unwrap();
        assert_eq!((d.text.as_str(), d.encoding.as_str(), d.replaced), ("", "utf-8", 0));
        for bom in [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"] {
            let d = decode(bom).unwrap();
            assert_eq!(d.text, "");
            assert_eq!(d.replaced, 0);
        }
    }

    #[test]
    fn utf8_with_and_without_bom() {
        let plain = decode(ZH.as_bytes()).unwrap();
        assert_eq!(plain.text, ZH);
        assert_eq!(plain.encoding, "utf-8");
        let mut with_bom = b"\xEF\xBB\xBF".to_vec();
        with_bom.extend_from_slice(ZH.as_bytes());
        let bom = decode(&with_bom).unwrap();
        assert_eq!(bom.text, ZH);
        assert_eq!(bom.encoding, "utf-8");
        assert_eq!(bom.text.chars().count(), plain.text.chars().count());
    }

    #[test]
    fn line_endings_are_kept() {
        let text = "第一行\r\n第二行\r第三行\n";
        assert_eq!(decode(text.as_bytes()).unwrap().text, text);
        let gb = encode(encoding_rs::GB18030, &format!("{ZH}\r\n{ZH}\r\n"));
        assert_eq!(decode(&gb).unwrap().text, format!("{ZH}\r\n{ZH}\r\n"));
    }

    #[test]
    fn utf16_with_bom_both_byte_orders() {
        let text = "汉字 and 𠀀 (outside the BMP)\r\n";
        let le = decode(&utf16(text, false)).unwrap();
        assert_eq!((le.text.as_str(), le.encoding.as_str(), le.replaced), (text, "utf-16le", 0));
        let be = decode(&utf16(text, true)).unwrap();
        assert_eq!((be.text.as_str(), be.encoding.as_str(), be.replaced), (text, "utf-16be", 0));
    }

    #[test]
    fn utf16_odd_trailing_byte_is_one_replacement() {
        let mut bytes = utf16(ZH, false);
        bytes.push(b'x');
        let d = decode(&bytes).unwrap();
        assert_eq!(d.replaced, 1);
        assert_eq!(d.text, format!("{ZH}\u{FFFD}"));
    }

    #[test]
    fn utf16_full_of_lone_surrogates_is_undecodable() {
        let mut bytes = vec![0xFF, 0xFE];
        for _ in 0..100 {
            bytes.extend_from_slice(&[0x00, 0xD8, b'A', 0x00]);
        }
        match decode(&bytes) {
            Err(DecodeError::Undecodable { encoding, replaced, chars, offset }) => {
                assert_eq!(encoding, "utf-16le");
                assert_eq!((replaced, chars, offset), (100, 200, 2));
            }
            other => panic!("expected Undecodable, got {other:?}"),
        }
    }

    #[test]
    fn gb18030_is_detected_and_decoded() {
        let bytes = encode(encoding_rs::GB18030, ZH);
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "gb18030");
        assert_eq!(d.text, ZH);
        assert_eq!(d.replaced, 0);
    }

    #[test]
    fn gb18030_four_byte_sequences_decode() {
        // U+20000 is outside GBK; GB18030 encodes it in four bytes.
        let text = format!("{ZH}𠀀{ZH}");
        let d = decode(&encode(encoding_rs::GB18030, &text)).unwrap();
        assert_eq!(d.encoding, "gb18030");
        assert_eq!(d.text, text);
    }

    #[test]
    fn big5_is_detected_and_decoded() {
        let bytes = encode(encoding_rs::BIG5, ZH_TRAD);
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "big5");
        assert_eq!(d.text, ZH_TRAD);
        assert_eq!(d.replaced, 0);
    }

    #[test]
    fn gbk_with_a_stray_byte_stays_gb18030() {
        let mut bytes = encode(encoding_rs::GB18030, ZH);
        let middle = bytes.len() / 2 / 2 * 2; // a character boundary: all chars are 2 bytes
        bytes.insert(middle, 0xFF);
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "gb18030");
        assert_eq!(d.replaced, 1);
        assert_eq!(d.text.replace('\u{FFFD}', ""), ZH);
    }

    #[test]
    fn gbk_cut_in_the_middle_of_a_character_stays_gb18030() {
        let mut bytes = encode(encoding_rs::GB18030, ZH);
        bytes.pop();
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "gb18030");
        assert_eq!(d.replaced, 1);
        assert!(d.text.ends_with('\u{FFFD}'));
    }

    #[test]
    fn big5_with_a_stray_byte_stays_big5() {
        let mut bytes = encode(encoding_rs::BIG5, ZH_TRAD);
        bytes.push(0x80);
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "big5");
        assert_eq!(d.replaced, 1);
        assert_eq!(d.text, format!("{ZH_TRAD}\u{FFFD}"));
    }

    #[test]
    fn euc_kr_with_a_stray_byte_stays_euc_kr() {
        let text = "이 도시는 강 하구에 자리 잡은 항구 도시로, 곡물과 호박 무역으로 유명했다. \
                    사람들은 매일 아침 시장에 모였다. 성벽은 십육 세기에 지어졌다.";
        let mut bytes = encode(encoding_rs::EUC_KR, text);
        bytes.push(0xC8); // a lead byte cut off at the end
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "euc-kr");
        assert_eq!(d.text, format!("{text}\u{FFFD}"));
    }

    #[test]
    fn european_text_with_stray_bytes_is_not_taken_for_east_asian() {
        let text = "Die Größe der Straße überraschte uns; für König und Bürger war es ein \
                    schöner Tag. Später gingen wir über die Brücke zurück, müde, aber glücklich.";
        let mut bytes = encode(encoding_rs::WINDOWS_1252, text);
        bytes.insert(40, 0x81);
        bytes.insert(90, 0xFF);
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "windows-1252");
        assert_eq!(d.replaced, 0);
    }

    #[test]
    fn latin1_decodes_as_windows_1252() {
        let text = "Le café était très animé ce soir-là; la crème brûlée coûtait deux francs.\n";
        let bytes = encode(encoding_rs::WINDOWS_1252, text);
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "windows-1252");
        assert_eq!(d.text, text);
        assert_eq!(d.replaced, 0);
    }

    #[test]
    fn other_legacy_encodings_keep_their_detection() {
        let cases: [(&'static Encoding, &str); 6] = [
            (
                encoding_rs::WINDOWS_1252,
                "Die Größe der Straße überraschte uns; für König und Bürger war es ein schöner Tag. \
                 Später gingen wir über die Brücke zurück, müde, aber glücklich.\n",
            ),
            (
                encoding_rs::WINDOWS_1252,
                "Élève de l'école, il préférait la liberté à la sécurité; il était né à Orléans.\n",
            ),
            (
                encoding_rs::WINDOWS_1251,
                "Город стоял на берегу реки, и каждое утро рыбаки выходили в море за уловом.\n",
            ),
            (
                encoding_rs::SHIFT_JIS,
                "町は川の河口にあり、琥珀と穀物の貿易で知られる港町であった。人々は毎朝市場に集まった。\n",
            ),
            (encoding_rs::EUC_KR, "이 도시는 강 하구에 자리 잡은 항구 도시로, 곡물과 호박 무역으로 유명했다.\n"),
            (encoding_rs::GB18030, ZH),
        ];
        for (encoding, text) in cases {
            let d = decode(&encode(encoding, text)).unwrap();
            assert_eq!(d.encoding, encoding.name().to_ascii_lowercase(), "{text}");
            assert_eq!(d.text, text);
        }
    }

    #[test]
    fn heavily_damaged_utf8_is_undecodable_with_offset() {
        // One bad byte after every 12 Han characters: clearly UTF-8, but 1 in 13
        // characters is lost.
        let mut bytes = Vec::new();
        for _ in 0..20 {
            bytes.extend_from_slice("魏斯明德坐落在布伦纳河注".as_bytes());
            bytes.push(0xFF);
        }
        match decode(&bytes) {
            Err(DecodeError::Undecodable { encoding, replaced, chars, offset }) => {
                assert_eq!(encoding, "utf-8");
                assert_eq!((replaced, chars, offset), (20, 260, 36));
            }
            other => panic!("expected Undecodable, got {other:?}"),
        }
    }

    #[test]
    fn utf8_with_one_stray_byte_is_lossy_utf8() {
        let mut bytes = ZH.as_bytes().to_vec();
        let at = ZH.char_indices().nth(20).unwrap().0;
        bytes.insert(at, 0xFF);
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "utf-8");
        assert_eq!(d.replaced, 1);
        assert_eq!(d.text.replace('\u{FFFD}', ""), ZH);
    }

    #[test]
    fn utf8_cut_in_the_middle_of_a_character_is_lossy_utf8() {
        let mut bytes = ZH.as_bytes().to_vec();
        bytes.pop();
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "utf-8");
        assert_eq!(d.replaced, 1);
        assert!(d.text.ends_with('\u{FFFD}'));
    }

    #[test]
    fn english_utf8_with_curly_quotes_and_a_cp1252_apostrophe_stays_utf8() {
        let mut bytes = "“One,” “two,” “three,” “four,” “five,” “six.” ".as_bytes().to_vec();
        bytes.extend_from_slice(b"It\x92s done.");
        let d = decode(&bytes).unwrap();
        assert_eq!(d.encoding, "utf-8");
        assert_eq!(d.replaced, 1);
        assert!(d.text.starts_with("“One,”"));
    }

    /// What [`decode`] made of damaged UTF-8, in order of severity; a
    /// legacy reading while a valid UTF-8 character is left fails the test.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    enum Outcome {
        Clean,
        Warned,
        Refused,
        /// Not a single valid multi-byte character left: no evidence of
        /// UTF-8, whatever the detector makes of it (rule 4's limit).
        NoUtf8Left,
    }

    fn outcome(bytes: &[u8], what: &str) -> Outcome {
        match decode(bytes) {
            Ok(d) if d.encoding == "utf-8" && d.replaced == 0 => Outcome::Clean,
            Ok(d) if d.encoding == "utf-8" => Outcome::Warned,
            Err(DecodeError::Undecodable { encoding, .. }) if encoding == "utf-8" => Outcome::Refused,
            _ if utf8_evidence(bytes).0 == 0 => Outcome::NoUtf8Left,
            other => panic!("{what}: read as something other than UTF-8: {other:?}"),
        }
    }

    /// `n` characters of Chinese text (ZH repeated).
    fn chinese(n: usize) -> String {
        ZH.chars().cycle().take(n).collect()
    }

    /// `k` bad bytes: inserted between characters, spread evenly, or
    /// written over the first `k` bytes of a fixed scrambled order (so that
    /// more damage always destroys a superset).
    fn damaged(text: &str, k: usize, overwrite: bool) -> Vec<u8> {
        let mut bytes = text.as_bytes().to_vec();
        if overwrite {
            let mut order: Vec<usize> = (0..bytes.len()).collect();
            order.sort_by_key(|&i| ((i * 7919) % 10007, i));
            for &at in order.iter().take(k) {
                bytes[at] = 0xFF;
            }
        } else {
            let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            for j in (0..k).rev() {
                let at = starts[j * starts.len() / k.max(1)];
                bytes.insert(at, [0xFF, 0x80, 0xC3][j % 3]);
            }
        }
        bytes
    }

    #[test]
    fn damaged_utf8_grid_is_never_a_legacy_encoding() {
        let lengths = [5, 10, 20, 40, 60, 80, 200, 1000, 4000];
        let damage = [0, 1, 2, 3, 5, 10, 20, 50, 100, 400];
        for overwrite in [false, true] {
            let mut grid = Vec::new();
            for &n in &lengths {
                let text = chinese(n);
                let row: Vec<Outcome> = damage
                    .iter()
                    .map(|&k| outcome(&damaged(&text, k, overwrite), &format!("{n} chars, {k} bad (over {overwrite})")))
                    .collect();
                // Monotone in the damage.
                assert!(row.windows(2).all(|w| w[0] <= w[1]), "{n} chars (overwrite {overwrite}): {row:?}");
                grid.push(row);
            }
            // Monotone in the length: the same damage in a longer text is
            // no worse.
            for (k, bad) in damage.iter().enumerate() {
                let column: Vec<Outcome> = grid.iter().map(|row| row[k]).collect();
                assert!(column.windows(2).all(|w| w[0] >= w[1]), "{bad} bad bytes (overwrite {overwrite}): {column:?}");
            }
        }
    }

    #[test]
    fn the_cases_of_issue_15_are_utf8() {
        // 正常的文字 + 3 bad bytes + 后面: refused, named as UTF-8.
        let mut bytes = "正常的文字".as_bytes().to_vec();
        bytes.extend_from_slice(b"\xFF\xFE\x80");
        bytes.extend_from_slice("后面".as_bytes());
        assert_eq!(outcome(&bytes, "5+3+2"), Outcome::Refused);
        // 12 KB of Chinese with 400 bytes overwritten: refused as UTF-8.
        let text = chinese(4000);
        assert_eq!(outcome(&damaged(&text, 400, true), "12 KB"), Outcome::Refused);
        // The same file with 20 bad bytes: a warning counting them.
        let d = decode(&damaged(&text, 20, false)).unwrap();
        assert_eq!((d.encoding.as_str(), d.replaced), ("utf-8", 20));
    }

    #[test]
    fn legacy_text_of_twenty_characters_and_more_keeps_its_encoding() {
        let ja = "町は川の河口にあり、琥珀と穀物の貿易で知られる港町であった。人々は毎朝市場に集まった。";
        let ko = "이 도시는 강 하구에 자리 잡은 항구 도시로, 곡물과 호박 무역으로 유명했다. 사람들은 매일 아침 시장에 모였다.";
        let cases: [(&'static Encoding, &str); 5] = [
            (encoding_rs::GB18030, ZH),
            (encoding_rs::BIG5, ZH_TRAD),
            (encoding_rs::SHIFT_JIS, ja),
            (encoding_rs::EUC_JP, ja),
            (encoding_rs::EUC_KR, ko),
        ];
        for (encoding, text) in cases {
            let chars: Vec<char> = text.chars().collect();
            for n in [20, 30, 40] {
                let part: String = chars[..n.min(chars.len())].iter().collect();
                let bytes = encode(encoding, &part);
                if std::str::from_utf8(&bytes).is_ok() {
                    continue;
                }
                let (valid, bad) = utf8_evidence(&bytes);
                assert!(valid < bad, "{} {n}: {valid} valid, {bad} bad", encoding.name());
            }
        }
    }

    #[test]
    fn bomless_utf16_is_read() {
        let text = "Plain text, 汉字 too.\r\nA second line.\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let d = decode(&le).unwrap();
        assert_eq!((d.text.as_str(), d.encoding.as_str(), d.replaced), (text, "utf-16le", 0));
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let d = decode(&be).unwrap();
        assert_eq!((d.text.as_str(), d.encoding.as_str()), (text, "utf-16be"));
    }

    #[test]
    fn bomless_chinese_utf16_is_read() {
        // Hardly a NUL byte: the NUL rule cannot see it; the text can.
        let text = "魏斯明德之围。城中粮尽，守将出降；百姓四散，十室九空。\n".repeat(20);
        for (bytes, label) in [
            (text.encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>(), "utf-16le"),
            (text.encode_utf16().flat_map(u16::to_be_bytes).collect(), "utf-16be"),
        ] {
            assert!(bytes.contains(&0));
            let d = decode(&bytes).unwrap();
            assert_eq!((d.text.as_str(), d.encoding.as_str(), d.replaced), (text.as_str(), label, 0));
        }
        // Binary with NULs is still binary.
        let binary: Vec<u8> = (0..4096u32).map(|k| (k.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        assert!(matches!(decode(&binary), Err(DecodeError::Binary { .. })));
    }

    #[test]
    fn utf16_is_told_from_the_first_bytes() {
        let le: Vec<u8> = "{\"id\": 1}\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(utf16_label(&le), Some("utf-16le"));
        assert_eq!(utf16_label(&[&[0xFE, 0xFF][..], b"\0{"].concat()), Some("utf-16be"));
        assert_eq!(utf16_label(b"{\"id\": 1}\n"), None);
        assert_eq!(utf16_label("{\"text\": \"汉字\"}".as_bytes()), None);
    }

    #[test]
    fn nul_bytes_are_binary_with_offset() {
        let err = decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").unwrap_err();
        match &err {
            DecodeError::Binary { reason } => assert!(reason.contains("at byte 8"), "{reason}"),
            other => panic!("expected Binary, got {other:?}"),
        }
        let err = decode(b"\xEF\xBB\xBFabc\x00").unwrap_err();
        assert!(err.to_string().contains("at byte 6"), "{err}");
    }

    #[test]
    fn bomless_utf16_that_does_not_decode_gets_a_hint() {
        let mut bytes: Vec<u8> = "plain ASCII as UTF-16".encode_utf16().flat_map(u16::to_le_bytes).collect();
        bytes.extend_from_slice(&[0x00, 0xD8, b'x', 0x00]); // a lone surrogate
        let err = decode(&bytes).unwrap_err().to_string();
        assert!(err.contains("at byte 1"), "{err}");
        assert!(err.contains("UTF-16"), "{err}");
    }

    #[test]
    fn control_characters_are_binary() {
        let bytes: Vec<u8> = (0..2000u32).map(|i| if i % 4 == 0 { 0x01 } else { b'a' }).collect();
        match decode(&bytes) {
            Err(DecodeError::Binary { reason }) => {
                assert!(reason.contains("500 of the first 2000"), "{reason}");
                assert!(reason.contains("U+0001 at character 0"), "{reason}");
            }
            other => panic!("expected Binary, got {other:?}"),
        }
        // Tabs, newlines, carriage returns and form feeds are text.
        let text = "a\tb\r\n\x0C".repeat(100);
        assert_eq!(decode(text.as_bytes()).unwrap().text, text);
        // A few other control characters are tolerated.
        let text = format!("{}\x1b[0m", "x".repeat(100));
        assert_eq!(decode(text.as_bytes()).unwrap().text, text);
    }

    #[test]
    fn a_nul_or_two_in_a_few_bytes_is_not_utf16() {
        // Found by `never_panics`: valid UTF-8 with one NUL was read as
        // two UTF-16 characters.
        assert!(matches!(decode(&[0xC2, 0x80, 0x00, 0x20]), Err(DecodeError::Binary { .. })));
        assert!(matches!(decode(b"h\0i\0"), Err(DecodeError::Binary { .. })));
        assert_eq!(decode(b"h\0e\0l\0l\0o\0").unwrap().text, "hello");
    }

    #[test]
    fn long_line_without_newline() {
        let text = "字".repeat(100_000);
        let d = decode(text.as_bytes()).unwrap();
        assert_eq!(d.text.len(), text.len());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            if let Ok(d) = decode(&bytes) {
                // Valid UTF-8 without a BOM is returned unchanged (with NUL
                // bytes it may be UTF-16 without a BOM, or binary).
                if let Ok(s) = std::str::from_utf8(&bytes) {
                    if !s.starts_with('\u{FEFF}') && !s.contains('\0') {
                        proptest::prop_assert_eq!(d.text.as_str(), s);
                    }
                }
            }
        }

        #[test]
        fn never_panics_with_a_bom(
            bom in 0usize..3,
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
        ) {
            let mut input = [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"][bom].to_vec();
            input.extend_from_slice(&bytes);
            let _ = decode(&input);
        }

        #[test]
        fn any_text_round_trips_through_utf8_and_utf16(text in "\\PC{0,200}") {
            let d = decode(text.as_bytes()).unwrap();
            proptest::prop_assert_eq!(&d.text, &text);
            let d = decode(&utf16(&text, false)).unwrap();
            proptest::prop_assert_eq!(&d.text, &text);
            let d = decode(&utf16(&text, true)).unwrap();
            proptest::prop_assert_eq!(&d.text, &text);
        }
    }
}
