//! The second convolution's product in 16-bit integers, with AVX2.
//!
//! Four fifths of the encoder's arithmetic is one product per branch: the
//! tokens' hidden rows (n × 256) times the convolution's window matrices
//! side by side (256 × 512 … 1,280). AVX2 has no faster float product than
//! a fused multiply-add of 8 lanes, but `vpmaddwd` multiplies 16 pairs of
//! 16-bit integers and adds them pairwise into 8 32-bit lanes, and on the
//! CPUs we run on it issues as often as an FMA: twice the products per
//! instruction.
//!
//! # Quantization
//!
//! Each column `j` of the weights is scaled by its own `sw[j]` to integers
//! of at most [`W_MAX`] (once, when the model is loaded), each hidden row
//! `t` by its own `sx[t]` to at most [`X_MAX`] (per product); the 32-bit sum
//! of 256 products is then exact (256 · 2,047 · 4,095 < 2³¹) and the result
//! is `sum · sx[t] · sw[j]`. The rounding errors are a few ten-thousandths
//! of a row's or a column's largest value, far below what the parity test
//! allows (vectors within cosine 0.999 of the Python package's; measured:
//! EVALUATION.md). Integer sums do not depend on their order: the results
//! are the same whatever the batch or thread.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Rows of the products' inner dimension (a branch's width).
const K: usize = 256;
/// Pairs of inner values, one 32-bit lane each.
const PAIRS: usize = K / 2;
/// Columns of one packed panel (two vectors of 8 lanes).
const NR: usize = 16;
/// Rows of one tile: 6 × 2 accumulators, 2 panel vectors and a broadcast
/// take 15 of the 16 vector registers.
const MR: usize = 6;
/// The largest quantized hidden value.
const X_MAX: f32 = 2047.0;
/// The largest quantized weight.
const W_MAX: f32 = 4095.0;

/// A 256 × `width` weight matrix in 16-bit integers, packed in panels of
/// 16 columns: for each pair of rows `(2p, 2p + 1)`, the 16 columns'
/// values interleaved (`w[2p][j], w[2p + 1][j], w[2p][j + 1], …`).
pub(crate) struct QuantMatrix {
    width: usize,
    panels: Vec<i16>,
    scale: Vec<f32>,
}

impl QuantMatrix {
    /// Quantize row-major `w` (256 × `width`, `width` a multiple of 16).
    pub(crate) fn new(w: &[f32], width: usize) -> QuantMatrix {
        assert!(width % NR == 0 && w.len() == K * width);
        let scale: Vec<f32> = (0..width)
            .map(|j| {
                let max = (0..K).map(|k| w[k * width + j].abs()).fold(0.0f32, f32::max);
                if max > 0.0 {
                    max / W_MAX
                } else {
                    1.0
                }
            })
            .collect();
        let mut panels = Vec::with_capacity(K * width);
        for panel in 0..width / NR {
            for p in 0..PAIRS {
                for j in panel * NR..(panel + 1) * NR {
                    for k in [2 * p, 2 * p + 1] {
                        panels.push((w[k * width + j] / scale[j]).round() as i16);
                    }
                }
            }
        }
        QuantMatrix { width, panels, scale }
    }
}

/// Per-call buffers of [`product`]: the quantized rows and their scales.
#[derive(Default)]
pub(crate) struct Quantized {
    pairs: Vec<i32>,
    scale: Vec<f32>,
}

/// `out = x · w` for `rows` rows of 256 values in `x` (row `t` at
/// `t · ldx`), into `out` (`w.width` columns, row `t` at `t · ldo`).
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn product(
    x: &[f32],
    ldx: usize,
    rows: usize,
    w: &QuantMatrix,
    out: &mut [f32],
    ldo: usize,
    q: &mut Quantized,
) {
    if rows == 0 {
        return;
    }
    assert!(ldx >= K && ldo >= w.width);
    assert!(x.len() >= (rows - 1) * ldx + K && out.len() >= (rows - 1) * ldo + w.width);
    // Quantize the rows: two values of a row per 32-bit lane.
    q.pairs.clear();
    q.scale.clear();
    for t in 0..rows {
        let row = &x[t * ldx..][..K];
        let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let s = if max > 0.0 { max / X_MAX } else { 1.0 };
        let r = 1.0 / s;
        q.scale.push(s);
        q.pairs.extend(row.chunks_exact(2).map(|v| {
            let lo = (v[0] * r).round() as i16 as u16 as u32;
            let hi = (v[1] * r).round() as i16 as u16 as u32;
            (lo | (hi << 16)) as i32
        }));
    }
    for panel in 0..w.width / NR {
        let b = &w.panels[panel * PAIRS * NR * 2..][..PAIRS * NR * 2];
        let sw = &w.scale[panel * NR..][..NR];
        let mut row = 0;
        while row + MR <= rows {
            tile::<MR>(&q.pairs[row * PAIRS..], b, &q.scale[row..], sw, &mut out[row * ldo + panel * NR..], ldo);
            row += MR;
        }
        if row == rows {
            continue;
        }
        // The last rows, fewer than a tile.
        let (a, sx, o) = (&q.pairs[row * PAIRS..], &q.scale[row..], &mut out[row * ldo + panel * NR..]);
        match rows - row {
            1 => tile::<1>(a, b, sx, sw, o, ldo),
            2 => tile::<2>(a, b, sx, sw, o, ldo),
            3 => tile::<3>(a, b, sx, sw, o, ldo),
            4 => tile::<4>(a, b, sx, sw, o, ldo),
            _ => tile::<5>(a, b, sx, sw, o, ldo),
        }
    }
}

/// `R` rows × 16 columns of the product: rows' pairs from `a` (128 per
/// row), the panel `b`, written into `out` (row stride `stride`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tile<const R: usize>(a: &[i32], b: &[i16], sx: &[f32], sw: &[f32], out: &mut [f32], stride: usize) {
    assert!(a.len() >= R * PAIRS && b.len() >= PAIRS * NR * 2 && sx.len() >= R && sw.len() >= NR);
    assert!(out.len() >= (R - 1) * stride + NR);
    let mut acc = [[_mm256_setzero_si256(); 2]; R];
    let bp = b.as_ptr() as *const __m256i;
    let ap = a.as_ptr();
    for p in 0..PAIRS {
        // SAFETY: p < 128 and the asserts above: the panel holds 128 × 2
        // vectors and each of the R rows 128 pairs.
        let (b0, b1) = (_mm256_loadu_si256(bp.add(2 * p)), _mm256_loadu_si256(bp.add(2 * p + 1)));
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = _mm256_set1_epi32(*ap.add(r * PAIRS + p));
            acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(x, b0));
            acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(x, b1));
        }
    }
    let (w0, w1) = (_mm256_loadu_ps(sw.as_ptr()), _mm256_loadu_ps(sw.as_ptr().add(8)));
    for (r, acc) in acc.iter().enumerate() {
        let s = _mm256_set1_ps(sx[r]);
        let o = out.as_mut_ptr().add(r * stride);
        _mm256_storeu_ps(o, _mm256_mul_ps(_mm256_cvtepi32_ps(acc[0]), _mm256_mul_ps(w0, s)));
        _mm256_storeu_ps(o.add(8), _mm256_mul_ps(_mm256_cvtepi32_ps(acc[1]), _mm256_mul_ps(w1, s)));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// A deterministic pseudo-random value in [-1, 1).
    fn value(i: usize) -> f32 {
        let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    }

    #[test]
    fn the_integer_product_equals_the_float_product_to_rounding() {
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        let width = 48;
        let w: Vec<f32> = (0..K * width).map(|i| value(i) * 0.1).collect();
        let m = QuantMatrix::new(&w, width);
        // Every tile height, with an all-zero row and a row of large values.
        for rows in [1, 5, 6, 7, 13] {
            let mut x: Vec<f32> = (0..rows * K).map(|i| value(i + 7_777) * 3.0).collect();
            x[..K].fill(0.0);
            if rows > 1 {
                x[K..2 * K].iter_mut().for_each(|v| *v *= 1000.0);
            }
            // Output rows wider than the product: the rest stays untouched.
            let ldo = width + 3;
            let mut out = vec![f32::NAN; rows * ldo];
            // SAFETY: AVX2 was detected above.
            unsafe { product(&x, K, rows, &m, &mut out, ldo, &mut Quantized::default()) };
            for t in 0..rows {
                let row = &x[t * K..][..K];
                let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt();
                for j in 0..width {
                    let exact: f32 = (0..K).map(|k| row[k] * w[k * width + j]).sum();
                    let col = (0..K).map(|k| w[k * width + j].powi(2)).sum::<f32>().sqrt();
                    let got = out[t * ldo + j];
                    // Within a thousandth of the largest the product can be.
                    assert!((got - exact).abs() <= 1e-3 * norm * col + 1e-6, "row {t} col {j}: {got} vs {exact}");
                }
                assert!(out[t * ldo + width..(t + 1) * ldo].iter().all(|v| v.is_nan()));
            }
        }
    }
}
