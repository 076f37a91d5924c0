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
//! # Choosing `b` and `r`
//!
//! Given a threshold `t`, a pair below it that still becomes a candidate is
//! a false positive (it costs a verification), and a pair above it that
//! does not is a false negative (a duplicate missed). Taking `s` as uniform
//! on `[0, 1]`, the two error masses are the areas
//!
//! ```text
//! FP(b, r) = ∫_0^t P(s) ds          FN(b, r) = ∫_t^1 (1 − P(s)) ds
//! ```
//!
//! and [`optimal_params`] returns the `(b, r)` with `b·r ≤ k` that minimizes
//! `w_fp·FP + w_fn·FN` (weights ½ and ½ by default). This is the criterion
//! datasketch's `MinHashLSH` uses; here the integrals are computed with
//! Simpson's rule on 256 intervals (the integrands are smooth polynomials
//! in `s`, so this is exact to far below any difference that changes the
//! choice, except for exact ties).

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
    fn the_curve_is_steep_near_the_threshold() {
        let b = optimal_params(0.8, 128, 0.5, 0.5);
        assert!(candidate_probability(0.95, b) > 0.99);
        assert!(candidate_probability(0.9, b) > 0.9);
        assert!(candidate_probability(0.5, b) < 0.01);
    }
}
