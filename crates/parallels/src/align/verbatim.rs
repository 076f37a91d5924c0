//! Verbatim reuse: copies found token by token, with tight boundaries.
//!
//! # Model
//!
//! Seeds are runs of [`VerbatimParams::seed`] consecutive tokens (normalized
//! ids, so script, width and numeral differences are already folded) that
//! occur in both texts; a seed that occurs more than
//! [`VerbatimParams::max_occurrences`] times in B is boilerplate and no
//! evidence. Seeds on nearby diagonals (the offset `j − i` changes by at most
//! [`VerbatimParams::band`] tokens) with at most [`VerbatimParams::max_gap`]
//! tokens between them chain into one copy, so OCR errors, typos and small
//! insertions do not break a copy apart. Each copy is then extended token by
//! token past its outer seeds as long as the extension keeps more matches
//! than mismatches (X-drop), which puts the boundary on the first and last
//! copied token rather than on a seed edge.
//!
//! A copy is kept when at least [`VerbatimParams::min_tokens`] of its tokens
//! on the A side are covered by seeds (or the exact extensions), and they are
//! at least [`VerbatimParams::min_identity`] of its length.
//!
//! # What it hands on
//!
//! [`find`] returns [`TokenCopy`]s in token coordinates; [`super::Aligner::align`]
//! merges them with the sentence chains of the parallel aligner. A copy
//! becomes a `verbatim` passage whose spans are the copy's own, pushed out
//! over the characters that still agree beyond its first and last token
//! (punctuation, a number copied in part), wherever it starts and ends: a
//! sentence only partly copied is split there, and the quoting text around
//! a quotation belongs to no passage. Its links are cut at A's sentences.
//! Inside two versions of one text (sentences linked beyond the copy, or a
//! translation) the sentence links around a copied run stay whole; a loose
//! copy (a near-copy with edits) takes the sentence links it meets over.
//!
//! # Cost
//!
//! One hash per token of each text, a posting list per distinct seed of B,
//! and work linear in the number of seed hits.

use crate::segment::{Token, WILDCARD};
use rustc_hash::FxHashMap;

/// Parameters of verbatim detection.
#[derive(Clone, Debug)]
pub struct VerbatimParams {
    /// Tokens in a seed.
    pub seed: usize,
    /// Seeds occurring more often than this in B are ignored.
    pub max_occurrences: usize,
    /// Largest diagonal drift between chained seeds, in tokens.
    pub band: u32,
    /// Largest distance between chained seeds, in tokens.
    pub max_gap: u32,
    /// Shortest copy kept, in tokens of A.
    pub min_tokens: u32,
    /// Copied tokens a copy needs when it is all two texts share (no
    /// sentence chain, no longer copy): a dateline, a title with a name, a
    /// political formula recur in texts that are not copies of each other.
    pub isolated_tokens: u32,
    /// A copy this many characters long (on each side, its ends included)
    /// counts as one of `isolated_tokens`: 20 characters of Chinese are a
    /// quotation, although punctuation makes them fewer tokens.
    pub copy_chars: u32,
    /// Share of a copy's tokens that seeds must cover, and share of tokens
    /// in order that makes sentence links `verbatim`.
    pub min_identity: f64,
}

impl Default for VerbatimParams {
    fn default() -> Self {
        VerbatimParams {
            seed: 5,
            max_occurrences: 8,
            band: 8,
            max_gap: 40,
            min_tokens: 12,
            isolated_tokens: 20,
            copy_chars: 20,
            min_identity: 0.6,
        }
    }
}

/// A copy in token coordinates: `A[a0..a1]` copies `B[b0..b1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenCopy {
    /// First token of A.
    pub a0: u32,
    /// One past the last token of A.
    pub a1: u32,
    /// First token of B.
    pub b0: u32,
    /// One past the last token of B.
    pub b1: u32,
    /// Seed hits `(i, j)` inside the copy, by increasing `i`: the token
    /// correspondence, used to place link boundaries.
    pub hits: Vec<(u32, u32)>,
    /// Share of the copy's tokens (both sides) covered by seeds.
    pub identity: f64,
    /// Tokens of A covered by seeds or the exact extensions: what is copied.
    pub copied: u32,
}

fn seed_hashes(toks: &[Token], k: usize) -> Vec<Option<u64>> {
    if toks.len() < k {
        return Vec::new();
    }
    (0..=toks.len() - k)
        .map(|i| {
            let w = &toks[i..i + k];
            if w.iter().any(|t| t.id == WILDCARD) {
                return None;
            }
            // FNV-1a over the ids.
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for t in w {
                h ^= t.id as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            Some(h)
        })
        .collect()
}

/// Extend a match from `(i, j)` (exclusive ends when `forward`, else the
/// inclusive starts) while matches outweigh mismatches; returns how far.
fn extend(a: &[Token], b: &[Token], i: u32, j: u32, forward: bool) -> u32 {
    let (mut best, mut score, mut k) = (0u32, 0i32, 0u32);
    loop {
        let (x, y) = if forward {
            ((i + k) as usize, (j + k) as usize)
        } else {
            if k >= i || k >= j {
                break;
            }
            ((i - k - 1) as usize, (j - k - 1) as usize)
        };
        if x >= a.len() || y >= b.len() {
            break;
        }
        k += 1;
        if a[x].id == b[y].id && a[x].id != WILDCARD {
            score += 1;
            if score > 0 {
                best = k;
                score = 0;
            }
        } else {
            score -= 1;
            if score < -2 {
                break;
            }
        }
    }
    best
}

/// Find the copies shared by two token sequences.
pub fn find(a: &[Token], b: &[Token], p: &VerbatimParams) -> Vec<TokenCopy> {
    let k = p.seed.max(1);
    let hb = seed_hashes(b, k);
    let mut index: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
    for (j, h) in hb.iter().enumerate() {
        if let Some(h) = h {
            index.entry(*h).or_default().push(j as u32);
        }
    }
    let mut hits: Vec<(u32, u32)> = Vec::new();
    for (i, h) in seed_hashes(a, k).iter().enumerate() {
        let Some(h) = h else { continue };
        if let Some(js) = index.get(h) {
            if js.len() > p.max_occurrences {
                continue;
            }
            for &j in js {
                // Guard against hash collisions.
                if a[i..i + k].iter().zip(&b[j as usize..j as usize + k]).all(|(x, y)| x.id == y.id) {
                    hits.push((i as u32, j));
                }
            }
        }
    }
    // Chain hits: each open chain remembers its last hit; a hit joins the
    // open chain whose diagonal is closest within the band.
    let mut chains: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for &(i, j) in &hits {
        open.retain(|&c| {
            let (li, _) = *chains[c].last().unwrap();
            i <= li + k as u32 + p.max_gap
        });
        let d = j as i64 - i as i64;
        let mut pick: Option<(i64, usize)> = None;
        for &c in &open {
            let (li, lj) = *chains[c].last().unwrap();
            if j < lj || (j > lj + k as u32 + p.max_gap) {
                continue;
            }
            let drift = (d - (lj as i64 - li as i64)).abs();
            if drift <= p.band as i64 && pick.is_none_or(|(b, _)| drift < b) {
                pick = Some((drift, c));
            }
        }
        match pick {
            Some((_, c)) => chains[c].push((i, j)),
            None => {
                chains.push(vec![(i, j)]);
                open.push(chains.len() - 1);
            }
        }
    }
    let mut copies = Vec::new();
    for hits in chains {
        let (fi, fj) = hits[0];
        let (li, lj) = *hits.last().unwrap();
        let back = extend(a, b, fi, fj, false);
        let fwd = extend(a, b, li + k as u32, lj + k as u32, true);
        let (a0, b0) = (fi - back, fj - back);
        let (a1, b1) = (li + k as u32 + fwd, lj + k as u32 + fwd);
        if a1 - a0 < p.min_tokens {
            continue;
        }
        // Tokens covered by seeds, on A, plus the exact extensions.
        let mut covered = back + fwd;
        let mut end = 0u32;
        for &(i, _) in &hits {
            let lo = i.max(end);
            covered += (i + k as u32).saturating_sub(lo);
            end = end.max(i + k as u32);
        }
        let identity = covered as f64 / (a1 - a0).max(b1 - b0) as f64;
        // Two short runs across a gap (a byline with the same two names) are
        // not a copy of `min_tokens`: the copied tokens must add up to it.
        if identity < p.min_identity || covered < p.min_tokens {
            continue;
        }
        copies.push(TokenCopy { a0, a1, b0, b1, hits, identity, copied: covered });
    }
    copies.sort_by_key(|c| (c.a0, c.b0));
    copies
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::TokenKind;

    fn toks(s: &str) -> Vec<Token> {
        s.chars()
            .enumerate()
            .map(|(k, c)| Token {
                id: c as u32,
                kind: TokenKind::Cjk,
                start: k as u32,
                end: k as u32 + 1,
                clause_start: k == 0,
            })
            .collect()
    }

    #[test]
    fn an_exact_copy_is_found_with_exact_boundaries() {
        let quote = "倘若援军在九月之前不能到达我们将不得不为这座城市的存续作出艰难的抉择";
        let a = toks(&format!("甲乙丙丁戊己庚{quote}辛壬癸子丑"));
        let b = toks(&format!("寅卯辰{quote}巳午未申酉戌亥"));
        let c = find(&a, &b, &VerbatimParams::default());
        assert_eq!(c.len(), 1);
        let n = quote.chars().count() as u32;
        assert_eq!((c[0].a0, c[0].a1, c[0].b0, c[0].b1), (7, 7 + n, 3, 3 + n));
    }

    #[test]
    fn a_copy_with_scattered_edits_stays_one_copy() {
        let orig: Vec<char> = "城里的钟声响了整整一个上午召集市民到广场上集合雷登站在台阶上宣读了瑞典人的劝降信信里说如果拒绝这座城市将承受战争的全部法则".chars().collect();
        let mut noisy = orig.clone();
        noisy[12] = '乙';
        noisy[30] = '丙';
        noisy[47] = '丁';
        let a = toks(&format!("前言{}", orig.iter().collect::<String>()));
        let b = toks(&format!("后记后记{}", noisy.iter().collect::<String>()));
        let c = find(&a, &b, &VerbatimParams::default());
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!((c[0].a0, c[0].a1), (2, 2 + orig.len() as u32));
        assert_eq!((c[0].b0, c[0].b1), (4, 4 + orig.len() as u32));
    }

    #[test]
    fn unrelated_texts_share_no_copy() {
        let a = toks("今天提起魏斯明德大多数人只记得琥珀门和那场漫长的围城");
        let b = toks("城里的钟声响了整整一个上午召集市民到广场上集合");
        assert!(find(&a, &b, &VerbatimParams::default()).is_empty());
    }

    #[test]
    fn two_short_runs_across_a_gap_are_not_a_long_copy() {
        // A byline with the same two names, then different news: 12 + 5
        // shared characters over a span of 27.
        let a = toks("记者谢国明、王尧报道：在虎年春节即将到来之际，广东大亚湾");
        let b = toks("记者谢国明、王尧报道：在大亚湾地震灾区，来自广东大亚湾");
        let p = VerbatimParams { min_tokens: 20, ..VerbatimParams::default() };
        assert!(find(&a, &b, &p).is_empty(), "{:?}", find(&a, &b, &p));
        // The 12 copied characters alone are a copy where 12 suffice.
        let c = find(&a, &b, &VerbatimParams { min_tokens: 12, ..VerbatimParams::default() });
        assert!(c.iter().any(|c| (c.a0, c.b0) == (0, 0) && c.a1 >= 12), "{c:?}");
    }

    #[test]
    fn a_short_shared_phrase_is_not_a_copy() {
        let a = toks("甲乙丙丁戊魏斯明德之围己庚辛壬");
        let b = toks("子丑寅卯魏斯明德之围辰巳午未");
        assert!(find(&a, &b, &VerbatimParams::default()).is_empty());
    }
}
