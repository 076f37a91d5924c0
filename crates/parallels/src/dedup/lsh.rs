//! LSH banding: how many bands of how many rows, and the band keys.
//!
//! A signature of `k` values is cut into `b` bands of `r` rows (`b·r ≤ k`;
//! positions past `b·r` serve only the similarity estimate). Two documents
//! become a candidate pair when all `r` values of at least one band agree.
//! For two documents of Jaccard similarity `s`, one band agrees with
//! probability `s^r`, so the pair is a candidate with probability
//! `P(s) = 1 − (1 − s^r)^b`, an S-shaped curve whose steep part sits near
//! `(1/b)^(1/r)`.
//!
//! # Choosing `b` and `r`: recall at the threshold
//!
//! Every candidate pair is verified afterwards (exactly, by default; see
//! the `dedup` module), so a pair below the threshold that becomes a
//! candidate costs one verification and nothing else, while a pair above
//! it that never becomes one is a duplicate lost for good. The bands are
//! therefore chosen for recall: [`recall_params`] takes, among the `(b, r)`
//! with `b·r ≤ k` whose curve catches a pair *at* the threshold `t` with
//! probability at least [`CANDIDATE_RECALL`] (pairs above it are caught
//! more often still), the one that lets through the fewest pairs below the
//! threshold, the false-positive area
//!
//! ```text
//! FP(b, r) = ∫_0^t P(s) ds
//! ```
//!
//! (`s` taken as uniform on `[0, 1]`): of the curves that reach the recall,
//! the steepest. At `t = 0.8` and `k = 128` this is 16 bands of 6 rows:
//! `P(0.8) = 0.992`, `P(0.85) = 0.9995`, `P(0.7) = 0.87`, `P(0.5) = 0.22`,
//! `P(0.3) = 0.012`; at 0.7 it is 17 × 4, at 0.9 it is 11 × 10. Unrelated
//! documents (similarity near 0) are still almost never candidates; pairs at
//! 0.5–0.8 often are, and verification turns them away. The price against
//! the datasketch choice below is more band records (16 instead of 9 per
//! document) and more verifications; BENCHMARKS.md measures it.
//!
//! # The datasketch choice
//!
//! A tool without a verification step must balance the two errors of the
//! curve: a pair below `t` that becomes a candidate (a false positive) and
//! a pair above it that does not (a false negative). [`optimal_params`]
//! minimizes `w_fp·FP + w_fn·FN` with
//!
//! ```text
//! FP(b, r) = ∫_0^t P(s) ds          FN(b, r) = ∫_t^1 (1 − P(s)) ds
//! ```
//!
//! (weights ½ and ½), as datasketch's `MinHashLSH` does: 9 bands of 13 rows
//! at 0.8, whose curve starts its climb at about 0.85 and catches a pair at
//! 0.8 only 40% of the time. It is no longer the default. The integrals are
//! computed with Simpson's rule on 256 intervals (the integrands are smooth
//! polynomials in `s`, so this is exact to far below any difference that
//! changes the choice, except for exact ties).

/// The probability with which the default bands make a pair *at* the
/// threshold a candidate ([`recall_params`]); pairs above it are caught
/// more often.
pub const CANDIDATE_RECALL: f64 = 0.99;

/// Bands and rows of the LSH index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bands {
    /// Bands, each a run of `rows` signature values.
    pub bands: usize,
    /// Signature values per band.
    pub rows: usize,
}

/// Probability that a pair of Jaccard similarity `s` shares at least one
/// band.
pub fn candidate_probability(s: f64, b: Bands) -> f64 {
    1.0 - (1.0 - s.powi(b.rows as i32)).powi(b.bands as i32)
}

fn simpson(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    const N: usize = 256;
    if hi <= lo {
        return 0.0;
    }
    let h = (hi - lo) / N as f64;
    let mut sum = f(lo) + f(hi);
    for i in 1..N {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * f(lo + i as f64 * h);
    }
    sum * h / 3.0
}

/// The false-positive and false-negative areas of `b` at threshold `t`.
pub fn error_areas(t: f64, b: Bands) -> (f64, f64) {
    let fp = simpson(|s| candidate_probability(s, b), 0.0, t);
    let fn_ = simpson(|s| 1.0 - candidate_probability(s, b), t, 1.0);
    (fp, fn_)
}

/// The bands and rows (`bands·rows ≤ perms`) that minimize the weighted sum
/// of the error areas at threshold `t`; the first minimum in order of
/// increasing `bands`, then `rows`.
pub fn optimal_params(t: f64, perms: usize, fp_weight: f64, fn_weight: f64) -> Bands {
    let t = t.clamp(0.0, 1.0);
    let perms = perms.max(1);
    let mut best = Bands { bands: 1, rows: 1 };
    let mut best_err = f64::INFINITY;
    for bands in 1..=perms {
        for rows in 1..=perms / bands {
            let b = Bands { bands, rows };
            let (fp, fn_) = error_areas(t, b);
            let err = fp_weight * fp + fn_weight * fn_;
            if err < best_err {
                best_err = err;
                best = b;
            }
        }
    }
    best
}

/// The bands and rows (`bands·rows ≤ perms`) whose curve catches a pair at
/// threshold `t` with probability at least `recall` and that have the
/// smallest false-positive area below `t` (see the module docs); the first
/// such in order of increasing `bands`, then `rows`. When no split reaches
/// `recall` (too few permutations), the one that comes closest.
pub fn recall_params(t: f64, perms: usize, recall: f64) -> Bands {
    let t = t.clamp(0.0, 1.0);
    let perms = perms.max(1);
    // (reaches the recall, its recall or false-positive area to order by)
    let mut best: Option<(Bands, bool, f64)> = None;
    for bands in 1..=perms {
        for rows in 1..=perms / bands {
            let b = Bands { bands, rows };
            let at_t = candidate_probability(t, b);
            let reaches = at_t >= recall;
            let better = match best {
                None => true,
                Some((_, true, fp)) => reaches && error_areas(t, b).0 < fp,
                Some((_, false, closest)) => reaches || at_t > closest,
            };
            if better {
                best = Some((b, reaches, if reaches { error_areas(t, b).0 } else { at_t }));
            }
        }
    }
    best.map_or(Bands { bands: 1, rows: 1 }, |(b, ..)| b)
}

/// The key of band `band` of a signature: a 64-bit hash of its rows and the
/// band number.
pub fn band_key(signature: &[u32], b: Bands, band: usize) -> u64 {
    let rows = &signature[band * b.rows..(band + 1) * b.rows];
    let mut h: u64 = 0x6a09_e667_f3bc_c909 ^ (band as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for &v in rows {
        h = (h ^ v as u64).wrapping_mul(0xff51_afd7_ed55_8ccd).rotate_left(23);
    }
    super::minhash::fmix(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimal_params_match_datasketch() {
        // datasketch 2.0's MinHashLSH(threshold, num_perm).b, .r
        assert_eq!(optimal_params(0.8, 128, 0.5, 0.5), Bands { bands: 9, rows: 13 });
        assert_eq!(optimal_params(0.5, 128, 0.5, 0.5), Bands { bands: 25, rows: 5 });
        assert_eq!(optimal_params(0.9, 256, 0.5, 0.5), Bands { bands: 9, rows: 28 });
        assert_eq!(optimal_params(0.7, 64, 0.5, 0.5), Bands { bands: 8, rows: 8 });
    }

    #[test]
    fn recall_params_catch_pairs_at_the_threshold() {
        assert_eq!(recall_params(0.8, 128, CANDIDATE_RECALL), Bands { bands: 16, rows: 6 });
        assert_eq!(recall_params(0.7, 128, CANDIDATE_RECALL), Bands { bands: 17, rows: 4 });
        assert_eq!(recall_params(0.9, 128, CANDIDATE_RECALL), Bands { bands: 11, rows: 10 });
        for t in [0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95] {
            for perms in [32, 64, 128, 256] {
                let b = recall_params(t, perms, CANDIDATE_RECALL);
                assert!(b.bands * b.rows <= perms, "{t} {perms}: {b:?}");
                assert!(candidate_probability(t, b) >= CANDIDATE_RECALL, "{t} {perms}: {b:?}");
            }
        }
        // One permutation cannot reach 0.99 at 0.8: the closest there is.
        assert_eq!(recall_params(0.8, 1, CANDIDATE_RECALL), Bands { bands: 1, rows: 1 });
    }

    #[test]
    fn the_curve_is_steep_near_the_threshold() {
        let b = optimal_params(0.8, 128, 0.5, 0.5);
        assert!(candidate_probability(0.95, b) > 0.99);
        assert!(candidate_probability(0.9, b) > 0.9);
        assert!(candidate_probability(0.5, b) < 0.01);
    }
}
