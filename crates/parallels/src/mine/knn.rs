//! Nearest neighbours of sentence vectors, in 16-bit integers: exactly
//! while two sets are small enough, through lists beyond ([`neighbours`]).
//!
//! Exactly: every row of one set against every row of another, in blocks,
//! keeping each row's `k` best on both sides in one pass ([`nearest`]):
//! the margin of a candidate pair needs both its sides' neighbourhoods.
//! Past [`EXACT_UP_TO`] products, each side is searched through lists of
//! the other ([`by_lists`], an inverted file: the rows grouped by the
//! nearest of about 2·√n centroids, each row searching the [`PROBES`]
//! lists nearest to it), whose cost grows near-linearly with the corpus.
//!
//! # Why exact, and why integers
//!
//! The sets this runs on are the sentences of two languages of one corpus.
//! At the sizes measured (BENCHMARKS.md: tens of thousands of sentences a
//! language), the exact product is a second or two, less than encoding
//! the sentences cost, and it is deterministic: the same neighbours
//! whatever the thread count, which an approximate graph index built in
//! parallel is not. Its cost grows with the product of the two sets'
//! sizes, hence the lists beyond [`EXACT_UP_TO`] (deterministic too: the
//! centroids are trained on rows taken at a fixed stride, their sums made
//! in row order).
//!
//! Vectors are unit vectors quantized row by row to integers of at most
//! [`Q_MAX`] (one scale per row). `vpmaddwd` (AVX2) multiplies 16 pairs of
//! 16-bit integers and adds them pairwise into 32-bit lanes: twice the
//! products of a float fused multiply-add per instruction. The 32-bit sum
//! of [`DIM`] products is exact (512 · 1,023² < 2³¹), so a score does not
//! depend on the order of the additions; the quantization moves a cosine
//! by about 10⁻³ at most, far below the margins that decide.

use rayon::prelude::*;

use crate::encoder::DIM;

/// The largest quantized value.
pub const Q_MAX: f32 = 1023.0;

/// Rows of the first set taken together: their 64 KB stay in the L2 cache
/// while the other set streams past them.
const BLOCK: usize = 64;

/// Unit vectors in 16-bit integers, one scale per row.
#[derive(Clone, Debug, Default)]
pub struct QVectors {
    data: Vec<i16>,
    scale: Vec<f32>,
}

impl QVectors {
    /// An empty set.
    pub fn new() -> QVectors {
        QVectors::default()
    }

    /// Add a vector of [`DIM`] values (scaled so that its largest value is
    /// [`Q_MAX`]; a zero vector stays zero).
    pub fn push(&mut self, v: &[f32]) {
        assert_eq!(v.len(), DIM);
        let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / Q_MAX } else { 1.0 };
        self.data.extend(v.iter().map(|x| (x / scale).round() as i16));
        self.scale.push(scale);
    }

    /// Add a vector already quantized: [`DIM`] values and its scale (as
    /// [`QVectors::row`] and [`QVectors::scale`] give them).
    pub fn push_quantized(&mut self, row: &[i16], scale: f32) {
        assert_eq!(row.len(), DIM);
        self.data.extend_from_slice(row);
        self.scale.push(scale);
    }

    /// The scale of vector `i`: its values are its row's times this.
    pub fn scale(&self, i: usize) -> f32 {
        self.scale[i]
    }

    /// The number of vectors.
    pub fn len(&self) -> usize {
        self.scale.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.scale.is_empty()
    }

    /// Row `i`'s integers.
    pub fn row(&self, i: usize) -> &[i16] {
        &self.data[i * DIM..][..DIM]
    }

    /// Row `i` as floats again.
    pub fn get(&self, i: usize) -> Vec<f32> {
        let s = self.scale[i];
        self.row(i).iter().map(|&q| f32::from(q) * s).collect()
    }

    /// The dot product of row `i` and row `j` of `other` (the same bits
    /// either way round: the two scales are multiplied first).
    pub fn dot(&self, i: usize, other: &QVectors, j: usize) -> f32 {
        dot(self.row(i), other.row(j)) as f32 * (self.scale[i] * other.scale[j])
    }

    /// Its bytes in memory.
    pub fn bytes(&self) -> usize {
        self.data.len() * 2 + self.scale.len() * 4
    }
}

/// Each row's `k` nearest rows of another set, best first (ties: the
/// smaller row number first). A row of a set smaller than `k` has fewer;
/// the rest are [`Neighbours::NONE`].
#[derive(Clone, Debug, PartialEq)]
pub struct Neighbours {
    k: usize,
    ids: Vec<u32>,
    cos: Vec<f32>,
}

impl Neighbours {
    /// The id of an empty place.
    pub const NONE: u32 = u32::MAX;

    fn new(rows: usize, k: usize) -> Neighbours {
        Neighbours { k, ids: vec![Self::NONE; rows * k], cos: vec![f32::NEG_INFINITY; rows * k] }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.ids.len() / self.k.max(1)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Row `i`'s neighbours: (row of the other set, cosine), best first.
    pub fn of(&self, i: usize) -> impl Iterator<Item = (u32, f32)> + '_ {
        let r = i * self.k..(i + 1) * self.k;
        self.ids[r.clone()].iter().copied().zip(self.cos[r].iter().copied()).filter(|&(id, _)| id != Self::NONE)
    }

    /// The mean cosine of row `i`'s neighbours (0 when it has none).
    pub fn mean(&self, i: usize) -> f32 {
        let (mut sum, mut n) = (0.0f32, 0u32);
        for (_, c) in self.of(i) {
            sum += c;
            n += 1;
        }
        if n == 0 {
            0.0
        } else {
            sum / n as f32
        }
    }

    /// Offer `(id, cos)` to row `i`'s list.
    #[inline]
    fn offer(ids: &mut [u32], cos: &mut [f32], id: u32, c: f32) {
        let k = ids.len();
        // Better than the last kept: (higher cosine, or equal and smaller id).
        let better = |c: f32, id: u32, c2: f32, id2: u32| c > c2 || (c == c2 && id < id2);
        if !better(c, id, cos[k - 1], ids[k - 1]) {
            return;
        }
        let mut at = k - 1;
        while at > 0 && better(c, id, cos[at - 1], ids[at - 1]) {
            ids[at] = ids[at - 1];
            cos[at] = cos[at - 1];
            at -= 1;
        }
        ids[at] = id;
        cos[at] = c;
    }

    /// Merge another partial list of the same rows into this one.
    fn merge(mut self, other: Neighbours) -> Neighbours {
        let k = self.k;
        for i in 0..self.len() {
            for j in 0..k {
                let (id, c) = (other.ids[i * k + j], other.cos[i * k + j]);
                if id != Self::NONE {
                    let r = i * k..(i + 1) * k;
                    Self::offer(&mut self.ids[r.clone()], &mut self.cos[r], id, c);
                }
            }
        }
        self
    }
}

/// The `k` nearest rows of `y` for every row of `x`, and of `x` for every
/// row of `y`, by dot product (cosine, for unit vectors).
pub fn nearest(x: &QVectors, y: &QVectors, k: usize) -> (Neighbours, Neighbours) {
    let k = k.max(1);
    let mut of_x = Neighbours::new(x.len(), k);
    if x.is_empty() || y.is_empty() {
        return (of_x, Neighbours::new(y.len(), k));
    }
    let kernel = dot4_kernel();
    let of_y = of_x
        .ids
        .par_chunks_mut(BLOCK * k)
        .zip(of_x.cos.par_chunks_mut(BLOCK * k))
        .enumerate()
        .fold(
            || Neighbours::new(y.len(), k),
            |mut ny, (block, (ids, cos))| {
                let rows = block * BLOCK..(block * BLOCK + BLOCK).min(x.len());
                let last = y.len() - 1;
                let mut j = 0;
                while j < y.len() {
                    let take = (y.len() - j).min(4);
                    // Past the end, the last row again (its scores unused).
                    let four = [0, 1, 2, 3].map(|t| y.row((j + t).min(last)));
                    for (r, i) in rows.clone().enumerate() {
                        let scores = kernel(x.row(i), four);
                        for (t, &s) in scores.iter().enumerate().take(take) {
                            let jj = j + t;
                            let c = s as f32 * (x.scale[i] * y.scale[jj]);
                            let at = r * k..(r + 1) * k;
                            Neighbours::offer(&mut ids[at.clone()], &mut cos[at], jj as u32, c);
                            let at = jj * k..(jj + 1) * k;
                            Neighbours::offer(&mut ny.ids[at.clone()], &mut ny.cos[at], i as u32, c);
                        }
                    }
                    j += take;
                }
                ny
            },
        )
        .reduce(|| Neighbours::new(y.len(), k), Neighbours::merge);
    (of_x, of_y)
}

/// The most products of two sets' rows that [`neighbours`] takes exactly
/// (a few seconds on two cores); above it, it searches through lists
/// ([`by_lists`]).
pub const EXACT_UP_TO: u64 = 1_000_000_000;

/// The lists of the other set each row searches ([`by_lists`]).
pub const PROBES: usize = 16;

/// Rounds of Lloyd's algorithm that place the lists' centroids.
const ROUNDS: usize = 4;

/// Rows of the other set, per list, that train the centroids.
const TRAIN_PER_LIST: usize = 16;

/// Each row's `k` nearest rows of the other set, both ways: exactly
/// ([`nearest`]) while the two sets' product is at most [`EXACT_UP_TO`],
/// through lists otherwise ([`by_lists`]), so that the cost grows about as
/// each set's size times the square root of the other's rather than as
/// their product. Deterministic either way.
pub fn neighbours(x: &QVectors, y: &QVectors, k: usize) -> (Neighbours, Neighbours) {
    if exact(x, y) {
        nearest(x, y, k)
    } else {
        (by_lists(x, y, k), by_lists(y, x, k))
    }
}

/// The rows of a set grouped by their nearest centroid: what
/// [`by_lists`] searches, made once per set ([`Lists::new`]) and searched
/// from any number of other sets ([`search`]).
#[derive(Clone, Debug)]
pub struct Lists {
    centroids: QVectors,
    members: Vec<Vec<u32>>,
}

impl Lists {
    /// The lists of `set`: about 2·√n centroids placed by a few rounds
    /// of Lloyd's algorithm (spherical: a centroid is its members' mean
    /// made unit length) on rows taken at a fixed stride, then every row
    /// in the list of its nearest centroid, in row order.
    pub fn new(set: &QVectors) -> Lists {
        lists(set, dot4_kernel())
    }
}

/// Whether [`neighbours`] takes `x` and `y` exactly.
pub fn exact(x: &QVectors, y: &QVectors) -> bool {
    (x.len() as u64) * (y.len() as u64) <= EXACT_UP_TO
}

/// Row `i` of `set` against every centroid: (score, centroid), the
/// centroids' scales applied (a row's own scale changes no order).
fn centroid_scores(set: &QVectors, i: usize, centroids: &QVectors, kernel: Dot4, out: &mut Vec<(f32, u32)>) {
    out.clear();
    let last = centroids.len() - 1;
    let mut t = 0;
    while t < centroids.len() {
        let take = (centroids.len() - t).min(4);
        let four = [0, 1, 2, 3].map(|u| centroids.row((t + u).min(last)));
        for (u, &s) in kernel(set.row(i), four).iter().enumerate().take(take) {
            out.push((s as f32 * centroids.scale[t + u], (t + u) as u32));
        }
        t += take;
    }
}

/// The centroid nearest to row `i` of `set` (ties: the first).
fn nearest_centroid(set: &QVectors, i: usize, centroids: &QVectors, kernel: Dot4) -> u32 {
    let mut scores = Vec::with_capacity(centroids.len());
    centroid_scores(set, i, centroids, kernel, &mut scores);
    scores.iter().fold((f32::NEG_INFINITY, 0), |best, &(c, t)| if c > best.0 { (c, t) } else { best }).1
}

/// [`Lists::new`].
fn lists(set: &QVectors, kernel: Dot4) -> Lists {
    let n = set.len();
    let c = ((2.0 * (n as f64).sqrt()).round() as usize).clamp(1, n);
    let trained = (c * TRAIN_PER_LIST).min(n);
    let sample: Vec<usize> = (0..trained).map(|s| (s as u64 * n as u64 / trained as u64) as usize).collect();
    let mut centroids: Vec<Vec<f32>> = (0..c).map(|t| set.get(sample[t * trained / c])).collect();
    let quantize = |rows: &[Vec<f32>]| {
        let mut q = QVectors::new();
        rows.iter().for_each(|r| q.push(r));
        q
    };
    for _ in 0..ROUNDS {
        let q = quantize(&centroids);
        let nearest: Vec<u32> = sample.par_iter().map(|&i| nearest_centroid(set, i, &q, kernel)).collect();
        let mut sums = vec![vec![0.0f32; DIM]; c];
        for (&i, &t) in sample.iter().zip(&nearest) {
            let s = set.scale[i];
            sums[t as usize].iter_mut().zip(set.row(i)).for_each(|(a, &x)| *a += f32::from(x) * s);
        }
        for (centroid, sum) in centroids.iter_mut().zip(sums) {
            let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                *centroid = sum.into_iter().map(|x| x / norm).collect();
            }
        }
    }
    let centroids = quantize(&centroids);
    let nearest: Vec<u32> = (0..n).into_par_iter().map(|i| nearest_centroid(set, i, &centroids, kernel)).collect();
    let mut members = vec![Vec::new(); c];
    for (i, &t) in nearest.iter().enumerate() {
        members[t as usize].push(i as u32);
    }
    Lists { centroids, members }
}

/// Each row of `x`'s `k` nearest rows of `y`, searched in the [`PROBES`]
/// lists of `y` whose centroids are nearest to it: a row's
/// true nearest is missed only when it lies in none of those lists.
pub fn by_lists(x: &QVectors, y: &QVectors, k: usize) -> Neighbours {
    if x.is_empty() || y.is_empty() {
        return Neighbours::new(x.len(), k.max(1));
    }
    search(x, y, &Lists::new(y), k)
}

/// [`by_lists`] with the lists of `y` made already.
pub fn search(x: &QVectors, y: &QVectors, lists: &Lists, k: usize) -> Neighbours {
    let k = k.max(1);
    let mut out = Neighbours::new(x.len(), k);
    if x.is_empty() || y.is_empty() {
        return out;
    }
    let kernel = dot4_kernel();
    out.ids.par_chunks_mut(BLOCK * k).zip(out.cos.par_chunks_mut(BLOCK * k)).enumerate().for_each(
        |(block, (ids, cos))| {
            let mut scores = Vec::with_capacity(lists.centroids.len());
            let mut rows: Vec<u32> = Vec::new();
            for (r, i) in (block * BLOCK..(block * BLOCK + BLOCK).min(x.len())).enumerate() {
                centroid_scores(x, i, &lists.centroids, kernel, &mut scores);
                let probes = PROBES.min(scores.len());
                scores.select_nth_unstable_by(probes - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                rows.clear();
                for &(_, t) in &scores[..probes] {
                    rows.extend_from_slice(&lists.members[t as usize]);
                }
                if rows.is_empty() {
                    continue;
                }
                let last = rows.len() - 1;
                let mut j = 0;
                while j < rows.len() {
                    let take = (rows.len() - j).min(4);
                    let four = [0, 1, 2, 3].map(|t| y.row(rows[(j + t).min(last)] as usize));
                    for (t, &s) in kernel(x.row(i), four).iter().enumerate().take(take) {
                        let jj = rows[j + t];
                        let c = s as f32 * (x.scale[i] * y.scale[jj as usize]);
                        let at = r * k..(r + 1) * k;
                        Neighbours::offer(&mut ids[at.clone()], &mut cos[at], jj, c);
                    }
                    j += take;
                }
            }
        },
    );
    out
}

/// The dot product of two rows (exact, so the same as any kernel's).
pub fn dot(a: &[i16], b: &[i16]) -> i32 {
    portable(a, b)
}

/// One row against four.
type Dot4 = fn(&[i16], [&[i16]; 4]) -> [i32; 4];

/// The kernel of one row against four for this CPU, chosen once per
/// [`nearest`] (AVX2 where it has it).
fn dot4_kernel() -> Dot4 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        fn with_avx2(a: &[i16], b: [&[i16]; 4]) -> [i32; 4] {
            // SAFETY: chosen only when the CPU has AVX2 (above).
            unsafe { avx2::dot4(a, b) }
        }
        return with_avx2;
    }
    |a, b| b.map(|r| portable(a, r))
}

fn portable(a: &[i16], b: &[i16]) -> i32 {
    let mut acc = [0i32; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for t in 0..8 {
            acc[t] += i32::from(x[t]) * i32::from(y[t]);
        }
    }
    acc.iter().sum()
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use crate::encoder::DIM;

    /// One row against four, 16 values a step.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot4(a: &[i16], b: [&[i16]; 4]) -> [i32; 4] {
        assert!(a.len() == DIM && b.iter().all(|r| r.len() == DIM));
        let mut acc = [_mm256_setzero_si256(); 4];
        let mut i = 0;
        while i < DIM {
            // SAFETY: i + 16 <= DIM, the length of every row (asserted).
            let x = unsafe { _mm256_loadu_si256(a.as_ptr().add(i) as *const __m256i) };
            for r in 0..4 {
                let y = unsafe { _mm256_loadu_si256(b[r].as_ptr().add(i) as *const __m256i) };
                acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(x, y));
            }
            i += 16;
        }
        let mut out = [0i32; 4];
        for r in 0..4 {
            let mut lanes = [0i32; 8];
            // SAFETY: 8 lanes of 32 bits into an array of 8 i32.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc[r]) };
            out[r] = lanes.iter().sum();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random unit vectors.
    fn vectors(n: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f32 / (1u64 << 53) as f32 - 0.5
        };
        (0..n)
            .map(|_| {
                let v: Vec<f32> = (0..DIM).map(|_| next()).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.into_iter().map(|x| x / norm).collect()
            })
            .collect()
    }

    fn quantized(v: &[Vec<f32>]) -> QVectors {
        let mut q = QVectors::new();
        v.iter().for_each(|r| q.push(r));
        q
    }

    #[test]
    fn the_kernels_agree_and_quantized_cosines_are_close() {
        let v = vectors(9, 7);
        let q = quantized(&v);
        for i in 0..9 {
            for j in 0..9 {
                let kernel = dot4_kernel()(q.row(i), [q.row(j); 4]);
                assert_eq!(kernel, [portable(q.row(i), q.row(j)); 4]);
                let exact: f32 = v[i].iter().zip(&v[j]).map(|(a, b)| a * b).sum();
                assert!((q.dot(i, &q, j) - exact).abs() < 2e-3, "{i} {j}");
            }
        }
        let four = dot4_kernel()(q.row(0), [q.row(1), q.row(2), q.row(3), q.row(4)]);
        assert_eq!(four, [1, 2, 3, 4].map(|j| portable(q.row(0), q.row(j))));
    }

    #[test]
    fn nearest_finds_the_brute_force_neighbours_both_ways() {
        let (x, y) = (quantized(&vectors(150, 1)), quantized(&vectors(77, 2)));
        let (nx, ny) = nearest(&x, &y, 3);
        let brute = |a: &QVectors, b: &QVectors, i: usize| {
            let mut all: Vec<(u32, f32)> = (0..b.len()).map(|j| (j as u32, a.dot(i, b, j))).collect();
            all.sort_by(|p, q| q.1.total_cmp(&p.1).then(p.0.cmp(&q.0)));
            all.truncate(3);
            all
        };
        for i in 0..x.len() {
            assert_eq!(nx.of(i).collect::<Vec<_>>(), brute(&x, &y, i));
        }
        for j in 0..y.len() {
            assert_eq!(ny.of(j).collect::<Vec<_>>(), brute(&y, &x, j));
        }
    }

    #[test]
    fn lists_find_most_exact_neighbours_and_do_not_depend_on_the_thread_count() {
        // Clustered data, as sentence vectors are: 40 topics, rows near them.
        let topics = vectors(40, 11);
        let noise = vectors(3000, 12);
        let around = |n: usize, from: usize| -> Vec<Vec<f32>> {
            (0..n)
                .map(|i| {
                    let v: Vec<f32> =
                        topics[i % 40].iter().zip(&noise[from + i]).map(|(t, e)| 0.8 * t + 0.6 * e).collect();
                    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    v.into_iter().map(|x| x / norm).collect()
                })
                .collect()
        };
        let (x, y) = (quantized(&around(500, 0)), quantized(&around(2000, 1000)));
        let (exact, _) = nearest(&x, &y, 4);
        let listed = by_lists(&x, &y, 4);
        let same = (0..x.len()).filter(|&i| exact.of(i).next() == listed.of(i).next()).count();
        assert!(same * 100 >= x.len() * 95, "{same} of {}", x.len());
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| by_lists(&x, &y, 4));
        assert_eq!(one, listed);
        // Small sets are searched exactly.
        assert_eq!(neighbours(&x, &y, 4), nearest(&x, &y, 4));
    }

    #[test]
    fn a_set_smaller_than_k_leaves_places_empty() {
        let (x, y) = (quantized(&vectors(5, 3)), quantized(&vectors(2, 4)));
        let (nx, ny) = nearest(&x, &y, 4);
        assert!((0..5).all(|i| nx.of(i).count() == 2));
        assert!((0..2).all(|j| ny.of(j).count() == 4));
        let (nx, ny) = nearest(&x, &QVectors::new(), 4);
        assert_eq!((nx.of(0).count(), ny.len()), (0, 0));
    }

    #[test]
    fn the_result_does_not_depend_on_the_thread_count() {
        let (x, y) = (quantized(&vectors(300, 5)), quantized(&vectors(200, 6)));
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| nearest(&x, &y, 4));
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| nearest(&x, &y, 4));
        assert_eq!(one, three);
    }
}
