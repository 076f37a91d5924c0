//! Shingles and MinHash signatures.
//!
//! A document's text goes through the library's [`Normalizer`] (width,
//! case, traditional → simplified script, variants, numerals, footnote
//! markers, boilerplate lines) and [`segment`], so that a traditional copy
//! or a copy that writes `五万` as `50,000` gives the same tokens. Tokens are
//! single Han/kana/hangul characters, words of other scripts, and numbers;
//! punctuation and spaces are no tokens. A *shingle* is one 64-bit hash of
//! `n` consecutive tokens: character n-grams in Chinese, word n-grams in
//! English, both at once in mixed text. A text with fewer than `n` tokens
//! (but at least one) has one shingle, all of its tokens.
//!
//! # The signature
//!
//! The k values of a signature are the minima, over the document's shingles
//! `h`, of `k` hash functions `g_i(h) = (a_i · h + b_i) mod 2^64`, keeping
//! the high 32 bits (multiply–add–shift: `a_i` odd, `a_i` and `b_i` drawn
//! once from a fixed seed). The scheme costs one 64-bit multiply and add
//! per shingle and permutation, with no modulo by a prime (datasketch uses
//! `(a·h + b) mod (2^61 − 1)`, which needs 128-bit arithmetic or a
//! reduction). The high bits of a multiply–add are the well-mixed ones.
//! Values are kept as `u32`: a signature of 128 permutations is 512 bytes,
//! and two different minima collide with probability 2^-32, which shifts
//! an estimated similarity by far less than its sampling error (about
//! `sqrt(J(1−J)/k)`, 0.035 at J = 0.8 and k = 128).
//!
//! The fraction of positions where two signatures agree estimates the
//! Jaccard similarity of the two shingle sets.

use crate::normalize::{NormalizeOptions, Normalizer};
use crate::segment::{self, TokenKind};

/// The value of every position of an empty signature (a text without
/// tokens); such a document is never a candidate.
pub const EMPTY: u32 = u32::MAX;

/// Fixed seed of the permutation parameters, so that signatures agree
/// across runs, machines and thread counts.
const SEED: u64 = 0x5eed_d0c5_1234_9abc;

/// Turns texts into shingles and signatures; cheap to share across threads.
#[derive(Clone, Debug)]
pub struct MinHasher {
    normalizer: Normalizer,
    ngram: usize,
    /// `a_i` (odd) and `b_i` of each permutation.
    a: Vec<u64>,
    b: Vec<u64>,
}

/// What one document gives the later stages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sketch {
    /// One value per permutation; all [`EMPTY`] for a text without tokens.
    pub signature: Vec<u32>,
    /// Hash of the whole sequence of normalized tokens (exact duplicates);
    /// `None` for a text without tokens.
    pub exact: Option<u128>,
    /// Number of tokens.
    pub tokens: u32,
}

impl MinHasher {
    /// Shingles of `ngram` tokens (at least 1), `perms` permutations (at
    /// least 1), with the library's default normalization.
    pub fn new(ngram: usize, perms: usize) -> MinHasher {
        MinHasher::with_normalizer(ngram, perms, Normalizer::new(NormalizeOptions::default()))
    }

    /// As [`MinHasher::new`], with another normalizer.
    pub fn with_normalizer(ngram: usize, perms: usize, normalizer: Normalizer) -> MinHasher {
        let mut state = SEED;
        let (a, b) = (0..perms.max(1))
            .map(|_| {
                let a = splitmix(&mut state) | 1;
                let b = splitmix(&mut state);
                (a, b)
            })
            .unzip();
        MinHasher { normalizer, ngram: ngram.max(1), a, b }
    }

    /// Number of permutations.
    pub fn perms(&self) -> usize {
        self.a.len()
    }

    /// Tokens of `text` after normalization, as 64-bit ids (wildcards left
    /// out).
    pub fn tokens(&self, text: &str) -> Vec<u64> {
        let mut ids = Vec::new();
        self.for_each_token(text, |id, _| ids.push(id));
        ids
    }

    /// As [`MinHasher::tokens`], with the start of each token in the
    /// original text (in code points).
    pub fn tokens_with_starts(&self, text: &str) -> (Vec<u64>, Vec<u32>) {
        let (mut ids, mut starts) = (Vec::new(), Vec::new());
        self.for_each_token(text, |id, start| {
            ids.push(id);
            starts.push(start);
        });
        (ids, starts)
    }

    /// Call `f` with the id and original start (in code points) of every
    /// token of `text` after normalization (wildcards left out); the length
    /// of `text` in code points.
    pub fn for_each_token(&self, text: &str, mut f: impl FnMut(u64, u32)) -> u32 {
        let normalized = self.normalizer.normalize(text);
        segment::for_each_token(&normalized, |t| {
            if t.kind != TokenKind::Wildcard {
                f(t.id as u64, t.start)
            }
        });
        normalized.original_len
    }

    /// The shingle hashes of a token sequence, in text order (repeats kept).
    pub fn shingles_of(&self, tokens: &[u64]) -> Vec<u64> {
        if tokens.is_empty() {
            return Vec::new();
        }
        let n = self.ngram.min(tokens.len());
        let mut out = vec![0; tokens.len() - n + 1];
        shingle_hashes(tokens, n, &mut out);
        out
    }

    /// The set of shingles of `text`: sorted, without repeats.
    pub fn shingle_set(&self, text: &str) -> Vec<u64> {
        let mut s = self.shingles_of(&self.tokens(text));
        s.sort_unstable();
        s.dedup();
        s
    }

    /// Signature, exact-duplicate hash and token count of `text`.
    pub fn sketch(&self, text: &str) -> Sketch {
        let tokens = self.tokens(text);
        self.sketch_tokens(&tokens)
    }

    /// As [`MinHasher::sketch`], from tokens made by [`MinHasher::tokens`].
    pub fn sketch_tokens(&self, tokens: &[u64]) -> Sketch {
        let exact = if tokens.is_empty() { None } else { Some(sequence_hash(tokens)) };
        Sketch { signature: self.signature(tokens), exact, tokens: tokens.len().min(u32::MAX as usize) as u32 }
    }

    /// The signature of a token sequence (all [`EMPTY`] for none).
    pub fn signature(&self, tokens: &[u64]) -> Vec<u32> {
        self.signature_of_shingles(&self.shingles_of(tokens))
    }

    /// The signature of shingle hashes made by [`MinHasher::shingles_of`]
    /// (all [`EMPTY`] for none).
    pub fn signature_of_shingles(&self, shingles: &[u64]) -> Vec<u32> {
        let mut signature = vec![EMPTY; self.a.len()];
        fold(&mut signature, &self.a, &self.b, shingles);
        signature
    }
}

/// Fold shingle hashes into a signature. On x86-64 the same loop is also
/// compiled for AVX-512 (512-bit vectors with a native 64-bit multiply) and
/// for AVX2 (256-bit vectors, the 64-bit multiply emulated from 32-bit
/// ones), and the best the CPU has is chosen at run time: the permutations
/// are independent lanes, so the compiler vectorizes them, [`BLOCK`]
/// permutations at a time. The values are the same on every path.
fn fold(signature: &mut [u32], a: &[u64], b: &[u64], shingles: &[u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq") {
            // SAFETY: the CPU supports AVX-512 F and DQ, checked just above.
            unsafe { fold_avx512(signature, a, b, shingles) };
            return;
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { fold_avx2(signature, a, b, shingles) };
            return;
        }
    }
    fold_portable(signature, a, b, shingles);
}

/// The AVX2 path, written out: AVX2 has no 64-bit multiply and no 64-bit
/// minimum, and the compiler's emulation of both made this loop a third of
/// `dedup`'s time. Only the high 32 bits of `a·h + b` are kept, so only
/// they are computed exactly: with `a = aH·2^32 + aL` and `h = hH·2^32 +
/// hL`, `a·h + b ≡ aL·hL + b + ((aH·hL + aL·hH) << 32) (mod 2^64)`, three
/// 32×32→64 multiplies; and the running minimum is taken on 32-bit lanes
/// (`vpminud`), of which only the high half of each 64-bit lane is read —
/// the minimum of the high halves is the high half of the minimum. The
/// values are those of [`fold_portable`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_avx2(signature: &mut [u32], a: &[u64], b: &[u64], shingles: &[u64]) {
    use std::arch::x86_64::*;
    /// Permutations folded in one pass over the shingles: four vectors of
    /// four, whose running minima stay in registers (with eight, the
    /// compiler kept them on the stack).
    const STEP: usize = 16;
    let k = signature.len().min(a.len()).min(b.len());
    let whole = k - k % STEP;
    for start in (0..whole).step_by(STEP) {
        let at = |v: &[u64], j: usize| -> __m256i {
            // SAFETY: `start + 4j + 4 <= whole <= v.len()`; `loadu` has no
            // alignment requirement.
            unsafe { _mm256_loadu_si256(v.as_ptr().add(start + 4 * j).cast()) }
        };
        let (a0, a1, a2, a3) = (at(a, 0), at(a, 1), at(a, 2), at(a, 3));
        let (h0, h1, h2, h3) = (
            _mm256_srli_epi64::<32>(a0),
            _mm256_srli_epi64::<32>(a1),
            _mm256_srli_epi64::<32>(a2),
            _mm256_srli_epi64::<32>(a3),
        );
        let (b0, b1, b2, b3) = (at(b, 0), at(b, 1), at(b, 2), at(b, 3));
        let init = |j: usize| -> __m256i {
            let s = &signature[start + 4 * j..start + 4 * j + 4];
            let hi = |v: u32| ((v as u64) << 32) as i64;
            _mm256_set_epi64x(hi(s[3]), hi(s[2]), hi(s[1]), hi(s[0]))
        };
        let (mut m0, mut m1, mut m2, mut m3) = (init(0), init(1), init(2), init(3));
        for &h in shingles {
            let hl = _mm256_set1_epi64x(h as i64);
            let hh = _mm256_set1_epi64x((h >> 32) as i64);
            let value = |al: __m256i, ah: __m256i, b: __m256i| -> __m256i {
                let ll = _mm256_mul_epu32(al, hl);
                let cross = _mm256_add_epi64(_mm256_mul_epu32(ah, hl), _mm256_mul_epu32(al, hh));
                _mm256_add_epi64(_mm256_add_epi64(ll, b), _mm256_slli_epi64::<32>(cross))
            };
            m0 = _mm256_min_epu32(m0, value(a0, h0, b0));
            m1 = _mm256_min_epu32(m1, value(a1, h1, b1));
            m2 = _mm256_min_epu32(m2, value(a2, h2, b2));
            m3 = _mm256_min_epu32(m3, value(a3, h3, b3));
        }
        for (j, m) in [m0, m1, m2, m3].into_iter().enumerate() {
            let mut out = [0u64; 4];
            // SAFETY: `out` holds 32 bytes; `storeu` has no alignment
            // requirement.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), m) };
            for (slot, m) in signature[start + 4 * j..start + 4 * j + 4].iter_mut().zip(out) {
                *slot = (m >> 32) as u32;
            }
        }
    }
    let rest = &mut signature[whole..k];
    for &h in shingles {
        for (i, slot) in rest.iter_mut().enumerate() {
            let v = (a[whole + i].wrapping_mul(h).wrapping_add(b[whole + i]) >> 32) as u32;
            *slot = (*slot).min(v);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn fold_avx512(signature: &mut [u32], a: &[u64], b: &[u64], shingles: &[u64]) {
    fold_portable(signature, a, b, shingles);
}

/// Permutations folded together in one pass over the shingles: their
/// running minima, multipliers and addends fit in vector registers (12 of
/// AVX-512's 32), so the inner loop only multiplies, adds and takes minima.
const BLOCK: usize = 32;

#[inline(always)]
fn fold_portable(signature: &mut [u32], a: &[u64], b: &[u64], shingles: &[u64]) {
    let k = signature.len().min(a.len()).min(b.len());
    let (signature, a, b) = (&mut signature[..k], &a[..k], &b[..k]);
    let mut blocks = signature.chunks_exact_mut(BLOCK).zip(a.chunks_exact(BLOCK).zip(b.chunks_exact(BLOCK)));
    for (sig, (a, b)) in &mut blocks {
        // `min` commutes with taking the high half, so the minima are kept
        // in 64 bits and shifted once at the end.
        let a: &[u64; BLOCK] = a.try_into().expect("a block");
        let b: &[u64; BLOCK] = b.try_into().expect("a block");
        let mut low = [u64::MAX; BLOCK];
        for (slot, &v) in low.iter_mut().zip(sig.iter()) {
            if v != EMPTY {
                *slot = (v as u64) << 32;
            }
        }
        for &h in shingles {
            for i in 0..BLOCK {
                low[i] = low[i].min(a[i].wrapping_mul(h).wrapping_add(b[i]));
            }
        }
        for (v, &m) in sig.iter_mut().zip(&low) {
            *v = (m >> 32) as u32;
        }
    }
    let rest = k - k % BLOCK;
    let (signature, a, b) = (&mut signature[rest..], &a[rest..], &b[rest..]);
    for &h in shingles {
        for i in 0..signature.len() {
            let v = (a[i].wrapping_mul(h).wrapping_add(b[i]) >> 32) as u32;
            signature[i] = signature[i].min(v);
        }
    }
}

/// The fraction of positions where two signatures agree: the estimate of
/// the Jaccard similarity of their shingle sets. Empty signatures agree
/// with nothing.
pub fn estimate(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() || a.len() != b.len() || a[0] == EMPTY && a.iter().all(|&v| v == EMPTY) {
        return 0.0;
    }
    matches(a, b) as f64 / a.len() as f64
}

/// The number of positions where two signatures agree.
pub fn matches(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

/// Exact Jaccard similarity of two sorted sets without repeats.
pub fn jaccard<T: Ord>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common as f64 / (a.len() + b.len() - common) as f64
}

/// splitmix64: the parameter stream.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Finalizer of a 64-bit value (murmur3's fmix64).
pub(crate) fn fmix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Windows hashed side by side in vector lanes by [`shingle_hashes`].
const LANES: usize = 8;

/// `out[i] = shingle_hash(&tokens[i..i + n])` for every window. Windows are
/// independent, so [`LANES`] of them are hashed at once, which the compiler
/// vectorizes (AVX-512 or AVX2 chosen at run time, as for [`fold`]); the
/// values are those of [`shingle_hash`].
fn shingle_hashes(tokens: &[u64], n: usize, out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq") {
            // SAFETY: the CPU supports AVX-512 F and DQ, checked just above.
            unsafe { shingle_hashes_avx512(tokens, n, out) };
            return;
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { shingle_hashes_avx2(tokens, n, out) };
            return;
        }
    }
    shingle_hashes_portable(tokens, n, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn shingle_hashes_avx2(tokens: &[u64], n: usize, out: &mut [u64]) {
    shingle_hashes_portable(tokens, n, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn shingle_hashes_avx512(tokens: &[u64], n: usize, out: &mut [u64]) {
    shingle_hashes_portable(tokens, n, out);
}

#[inline(always)]
fn shingle_hashes_portable(tokens: &[u64], n: usize, out: &mut [u64]) {
    let windows = out.len().min((tokens.len() + 1).saturating_sub(n));
    let full = windows - windows % LANES;
    for (i, chunk) in out[..full].chunks_exact_mut(LANES).enumerate() {
        let start = i * LANES;
        let mut h = [SHINGLE_SEED ^ n as u64; LANES];
        for k in 0..n {
            let t: &[u64; LANES] = tokens[start + k..start + k + LANES].try_into().expect("a lane block");
            for l in 0..LANES {
                h[l] = shingle_step(h[l], t[l]);
            }
        }
        for (o, &h) in chunk.iter_mut().zip(&h) {
            *o = fmix(h);
        }
    }
    for (i, o) in out[full..windows].iter_mut().enumerate() {
        *o = shingle_hash(&tokens[full + i..full + i + n]);
    }
}

/// Start of every shingle hash (before the window's length is mixed in).
const SHINGLE_SEED: u64 = 0x243f_6a88_85a3_08d3;

#[inline(always)]
fn shingle_step(h: u64, t: u64) -> u64 {
    (h ^ t).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
}

/// One 64-bit hash of an n-gram of token ids.
fn shingle_hash(w: &[u64]) -> u64 {
    let mut h: u64 = SHINGLE_SEED ^ w.len() as u64;
    for &t in w {
        h = shingle_step(h, t);
    }
    fmix(h)
}

/// 128-bit hash of a whole token sequence: two independent 64-bit lanes,
/// so that two different documents are taken for exact copies only with
/// probability about 2^-128.
pub(crate) fn sequence_hash(tokens: &[u64]) -> u128 {
    let mut h1: u64 = 0x1319_8a2e_0370_7344 ^ tokens.len() as u64;
    let mut h2: u64 = 0xa409_3822_299f_31d0;
    for &t in tokens {
        h1 = (h1 ^ t).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(31);
        h2 = (h2 ^ t.wrapping_add(0x2545_f491)).wrapping_mul(0xff51_afd7_ed55_8ccd).rotate_left(27);
    }
    ((fmix(h1) as u128) << 64) | fmix(h2 ^ h1) as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traditional_and_numeral_variants_give_one_signature() {
        let m = MinHasher::new(5, 64);
        let a = m.sketch("魏斯明德城中约有五万居民，以粮食和琥珀贸易闻名。");
        let b = m.sketch("魏斯明德城中約有50,000居民，以糧食和琥珀貿易聞名。");
        assert_eq!(a.exact, b.exact);
        assert_eq!(a.signature, b.signature);
    }

    #[test]
    fn estimate_follows_jaccard() {
        let m = MinHasher::new(3, 256);
        let base = "春眠不觉晓处处闻啼鸟夜来风雨声花落知多少";
        let text_a = format!("{base}白日依山尽黄河入海流欲穷千里目更上一层楼");
        let text_b = format!("{base}床前明月光疑是地上霜举头望明月低头思故乡");
        let (sa, sb) = (m.shingle_set(&text_a), m.shingle_set(&text_b));
        let j = jaccard(&sa, &sb);
        let e = estimate(&m.sketch(&text_a).signature, &m.sketch(&text_b).signature);
        assert!((j - e).abs() < 0.15, "jaccard {j}, estimate {e}");
    }

    #[test]
    fn a_text_without_tokens_has_an_empty_signature() {
        let m = MinHasher::new(5, 8);
        let s = m.sketch("，。！？  ");
        assert_eq!(s.exact, None);
        assert!(s.signature.iter().all(|&v| v == EMPTY));
        assert_eq!(estimate(&s.signature, &s.signature), 0.0);
    }

    /// Every path of `fold` (blocks of [`BLOCK`] permutations, the
    /// remainder, the vector paths the CPU has) gives each permutation's
    /// minimum, also when folding into a signature that already has values.
    #[test]
    fn fold_gives_the_minimum_of_every_permutation() {
        let mut state = 7;
        let shingles: Vec<u64> = (0..300).map(|_| splitmix(&mut state)).collect();
        for k in [1, 5, 31, 32, 33, 64, 100, 128, 130] {
            let a: Vec<u64> = (0..k).map(|_| splitmix(&mut state) | 1).collect();
            let b: Vec<u64> = (0..k).map(|_| splitmix(&mut state)).collect();
            let naive = |sh: &[u64], init: &[u32]| -> Vec<u32> {
                (0..k)
                    .map(|i| {
                        sh.iter()
                            .map(|&h| (a[i].wrapping_mul(h).wrapping_add(b[i]) >> 32) as u32)
                            .fold(init[i], u32::min)
                    })
                    .collect()
            };
            let mut sig = vec![EMPTY; k];
            fold(&mut sig, &a, &b, &shingles[..200]);
            assert_eq!(sig, naive(&shingles[..200], &vec![EMPTY; k]), "k = {k}");
            let before = sig.clone();
            fold(&mut sig, &a, &b, &shingles[200..]);
            assert_eq!(sig, naive(&shingles[200..], &before), "k = {k}, second fold");
            let mut portable = vec![EMPTY; k];
            fold_portable(&mut portable, &a, &b, &shingles);
            assert_eq!(sig, portable, "k = {k}, portable path");
        }
    }

    /// The lane-wise hashing gives every window the value of
    /// [`shingle_hash`], for any length and remainder.
    #[test]
    fn shingle_hashes_are_the_window_hashes() {
        let mut state = 3;
        let tokens: Vec<u64> = (0..100).map(|_| splitmix(&mut state) % 5000).collect();
        for n in [1, 2, 5, 9] {
            for len in [n, n + 1, n + 7, n + 8, n + 9, 100] {
                let t = &tokens[..len];
                let mut out = vec![0; len - n + 1];
                shingle_hashes(t, n, &mut out);
                let expected: Vec<u64> = t.windows(n).map(shingle_hash).collect();
                assert_eq!(out, expected, "n {n}, {len} tokens");
                let mut portable = vec![0; len - n + 1];
                shingle_hashes_portable(t, n, &mut portable);
                assert_eq!(portable, expected, "n {n}, {len} tokens, portable path");
            }
        }
    }

    #[test]
    fn short_texts_have_one_shingle() {
        let m = MinHasher::new(5, 8);
        assert_eq!(m.shingle_set("你好").len(), 1);
        assert_eq!(m.shingle_set("hello brave new world of text").len(), 2);
    }
}
