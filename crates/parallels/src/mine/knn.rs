//! Nearest neighbours of sentence vectors, in 16-bit integers: exactly
//! while two sets are small enough ([`exact`]), through lists beyond.
//!
//! Exactly: every row of one set against every row of another, in blocks,
//! keeping each row's `k` best on both sides in one pass ([`nearest`]):
//! the margin of a candidate pair needs both its sides' neighbourhoods.
//! Past [`EXACT_UP_TO`] products, rows are searched through lists of
//! the other set ([`by_lists`], [`search_rows`], an inverted file: the
//! rows grouped by the nearest of `n /` [`LIST_ROWS`] centroids, each row
//! searching the [`PROBES`] (or [`WIDE_PROBES`]) lists nearest to it,
//! found through a coarser level of centroids, [`Lists`]): what one row
//! costs hardly grows with the set, so the whole grows near-linearly with
//! the corpus (BENCHMARKS.md).
//!
//! Lists miss neighbours: on the sentences of a 10 M-character crawl
//! (15,535 English against 176,667 Chinese), the nearest Chinese sentence
//! of an English one is found for 90 % of those whose nearest is at a
//! cosine of 0.5 or more, 75 % at 0.4, through 32 lists (94 % and 84 %
//! through 128; 97 % and 90 % the other way through 32).
//! A missed neighbour lowers a row's mean and so raises the margins of
//! its pairs a little; the chains that make candidates are what keeps
//! that from making false ones (EVALUATION.md, "Lists at scale").
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

    /// Replace vector `i` by `v` (quantized as [`QVectors::push`] does).
    pub fn set(&mut self, i: usize, v: &[f32]) {
        assert_eq!(v.len(), DIM);
        let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / Q_MAX } else { 1.0 };
        self.data[i * DIM..][..DIM].iter_mut().zip(v).for_each(|(q, x)| *q = (x / scale).round() as i16);
        self.scale[i] = scale;
    }

    /// Put the rows in the order `order` (position `p` takes row
    /// `order[p]`), in place: `order` must hold every row once.
    pub fn reorder(&mut self, order: &[u32]) {
        let (data, scale) = (&mut self.data, &mut self.scale);
        permute(order, |a, b| {
            scale.swap(a, b);
            let (lo, hi) = (a.min(b), a.max(b));
            let (left, right) = data.split_at_mut(hi * DIM);
            left[lo * DIM..][..DIM].swap_with_slice(&mut right[..DIM]);
        });
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

/// Apply `order` (position `p` takes the item at `order[p]`) to whatever
/// `swap` exchanges, in place, by following the permutation's cycles.
pub fn permute(order: &[u32], mut swap: impl FnMut(usize, usize)) {
    let mut done = vec![false; order.len()];
    for start in 0..order.len() {
        if done[start] {
            continue;
        }
        // Position `at` takes the item now at `order[at]`; walking the
        // cycle, each swap puts one item in its place.
        let mut at = start;
        done[at] = true;
        while order[at] as usize != start {
            let from = order[at] as usize;
            swap(at, from);
            done[from] = true;
            at = from;
        }
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

/// The most products of two sets' rows that are taken exactly
/// (a few seconds on two cores); above it, rows are searched through
/// lists ([`search_rows`]).
pub const EXACT_UP_TO: u64 = 1_000_000_000;

/// The lists of the other set each row searches ([`by_lists`]).
pub const PROBES: usize = 32;

/// The lists searched by each row of the smaller of two sets, which
/// [`crate::mine::mine`] searches in full (the larger only for the rows
/// those find): the smaller set's rows are few, and what its search
/// misses, no search back finds.
pub const WIDE_PROBES: usize = 4 * PROBES;

/// The rows a list holds on average: the lists of a set are its size
/// over this, so that what a row searches ([`PROBES`] lists) does not
/// grow with the set.
pub const LIST_ROWS: usize = 128;

/// Groups of centroids whose members a row scores to find its lists.
pub const GROUP_PROBES: usize = 8;

/// Rounds of Lloyd's algorithm that place the centroids.
const ROUNDS: usize = 4;

/// Rows of the set, per list, that train the centroids.
const TRAIN_PER_LIST: usize = 16;

/// Queries searched together ([`search`]): sorted by their nearest list,
/// neighbours in the order share most of their lists, which then stay
/// in the cache while the block's queries are scored against them.
const QUERY_BLOCK: usize = 64;

/// Whether `x` and `y` are searched exactly ([`nearest`]): their product
/// is at most [`EXACT_UP_TO`] (beyond, [`crate::mine::mine`] searches
/// through lists).
pub fn exact(x: &QVectors, y: &QVectors) -> bool {
    (x.len() as u64) * (y.len() as u64) <= EXACT_UP_TO
}

/// The rows of a set grouped by their nearest centroid (an inverted
/// file), the centroids grouped in turn under coarser ones: what
/// [`search`] reads, made once per set ([`Lists::new`]) and searched from
/// any number of other sets.
///
/// A set of `n` rows has about `n /` [`LIST_ROWS`] lists and the square
/// root of that many groups. A row finds its lists by scoring the groups,
/// then the centroids of its [`GROUP_PROBES`] best groups: with lists of
/// a fixed size, what one row costs grows as the square root of the
/// number of lists, far below the lists' own rows at the sizes scanned.
/// The lists hold row numbers; [`Lists::sort`] puts a set's rows in the
/// lists' order, so that each list's rows lie side by side in memory
/// without a second copy of the set.
#[derive(Debug)]
pub struct Lists {
    /// The coarse centroids.
    groups: QVectors,
    /// Group `g`'s centroids: `group_starts[g]..group_starts[g + 1]`.
    group_starts: Vec<u32>,
    /// The lists' centroids, by group.
    centroids: QVectors,
    /// List `t`'s rows: `starts[t]..starts[t + 1]` of `ids`.
    starts: Vec<u32>,
    /// The set's row numbers, list by list (in row order within a list).
    ids: Vec<u32>,
}

impl Lists {
    /// The lists of `set`. Centroids are placed by a few rounds of
    /// Lloyd's algorithm (spherical: a centroid is its members' mean made
    /// unit length) on rows taken at a fixed stride, the groups first,
    /// then each group's centroids on its own rows; every row then goes
    /// to the list of its nearest centroid among its best groups'.
    /// Deterministic: sums are made in row order.
    pub fn new(set: &QVectors) -> Lists {
        let kernel = dot4_kernel();
        let n = set.len();
        if n == 0 {
            return Lists {
                groups: QVectors::new(),
                group_starts: vec![0],
                centroids: QVectors::new(),
                starts: vec![0],
                ids: Vec::new(),
            };
        }
        let c = n.div_ceil(LIST_ROWS).clamp(1, n);
        let g = ((c as f64).sqrt().ceil() as usize).clamp(1, c);
        let trained = (c * TRAIN_PER_LIST).min(n);
        let sample: Vec<u32> = (0..trained).map(|s| (s as u64 * n as u64 / trained as u64) as u32).collect();
        // The groups, on the whole sample.
        let (groups, of_sample) = kmeans(set, &sample, g, kernel);
        let mut by_group: Vec<Vec<u32>> = vec![Vec::new(); groups.len()];
        for (&i, &t) in sample.iter().zip(&of_sample) {
            by_group[t as usize].push(i);
        }
        // Each group's centroids, as many as its share of the sample.
        let fine: Vec<QVectors> = by_group
            .par_iter()
            .map(|rows| {
                if rows.is_empty() {
                    return QVectors::new();
                }
                let share = ((c * rows.len()) as f64 / trained as f64).round() as usize;
                kmeans(set, rows, share.clamp(1, rows.len()), kernel).0
            })
            .collect();
        // A group no sample row chose is left out: every group kept has
        // centroids, so every row finds a list.
        let (mut kept, mut centroids, mut group_starts) = (QVectors::new(), QVectors::new(), vec![0u32]);
        for (t, f) in fine.iter().enumerate().filter(|(_, f)| !f.is_empty()) {
            kept.push_quantized(groups.row(t), groups.scale(t));
            for u in 0..f.len() {
                centroids.push_quantized(f.row(u), f.scale(u));
            }
            group_starts.push(centroids.len() as u32);
        }
        let groups = kept;
        let mut lists = Lists { groups, group_starts, centroids, starts: Vec::new(), ids: Vec::new() };
        // Every row to its list.
        let nearest: Vec<u32> = (0..n)
            .into_par_iter()
            .map_init(Scratch::default, |scratch, i| {
                lists.probes(set.row(i), 1, kernel, scratch);
                scratch.picked[0]
            })
            .collect();
        let mut starts = vec![0u32; lists.centroids.len() + 1];
        nearest.iter().for_each(|&t| starts[t as usize + 1] += 1);
        for t in 0..lists.centroids.len() {
            starts[t + 1] += starts[t];
        }
        let mut at = starts.clone();
        let mut ids = vec![0u32; n];
        for (i, &t) in nearest.iter().enumerate() {
            ids[at[t as usize] as usize] = i as u32;
            at[t as usize] += 1;
        }
        lists.starts = starts;
        lists.ids = ids;
        lists
    }

    /// The lists of `set` ([`Lists::new`]), with `set`'s rows put in the
    /// lists' order in place, and that order (position `p` of `set` now
    /// holds the row that was at `order[p]`): for whoever keeps other
    /// things by row to follow ([`permute`]). The lists then number rows
    /// by their new places.
    pub fn sort(set: &mut QVectors) -> (Lists, Vec<u32>) {
        let mut lists = Lists::new(set);
        set.reorder(&lists.ids);
        let order = std::mem::replace(&mut lists.ids, (0..set.len() as u32).collect());
        (lists, order)
    }

    /// The number of lists.
    pub fn len(&self) -> usize {
        self.centroids.len()
    }

    /// Whether there are none (an empty set's).
    pub fn is_empty(&self) -> bool {
        self.centroids.is_empty()
    }

    /// The `take` lists whose centroids are nearest to `row`, best first,
    /// into `scratch.picked` (fewer when there are fewer lists).
    fn probes(&self, row: &[i16], take: usize, kernel: Dot4, scratch: &mut Scratch) {
        scratch.picked.clear();
        if self.centroids.is_empty() {
            return;
        }
        scores(row, &self.groups, 0..self.groups.len() as u32, kernel, &mut scratch.scores);
        let best = best_first(&mut scratch.scores, GROUP_PROBES);
        let groups: Vec<u32> = best.iter().map(|&(_, t)| t).collect();
        scratch.scores.clear();
        let mut fine = std::mem::take(&mut scratch.fine);
        fine.clear();
        for t in groups {
            let range = self.group_starts[t as usize]..self.group_starts[t as usize + 1];
            scores(row, &self.centroids, range, kernel, &mut scratch.scores);
            fine.append(&mut scratch.scores);
        }
        scratch.picked.extend(best_first(&mut fine, take).iter().map(|&(_, t)| t));
        scratch.fine = fine;
    }
}

/// Buffers a row's search reuses.
#[derive(Default)]
struct Scratch {
    scores: Vec<(f32, u32)>,
    fine: Vec<(f32, u32)>,
    picked: Vec<u32>,
}

/// `row` against rows `range` of `set`: (score, row) appended to `out`,
/// the rows' scales applied (the asking row's own scale changes no order).
fn scores(row: &[i16], set: &QVectors, range: std::ops::Range<u32>, kernel: Dot4, out: &mut Vec<(f32, u32)>) {
    let (start, end) = (range.start as usize, range.end as usize);
    let mut t = start;
    while t < end {
        let take = (end - t).min(4);
        let four = [0, 1, 2, 3].map(|u| set.row((t + u).min(end - 1)));
        for (u, &s) in kernel(row, four).iter().enumerate().take(take) {
            out.push((s as f32 * set.scale[t + u], (t + u) as u32));
        }
        t += take;
    }
}

/// The `take` best of `scores` (higher score, then smaller number),
/// best first, at the front of the slice it returns.
fn best_first(scores: &mut [(f32, u32)], take: usize) -> &[(f32, u32)] {
    let order = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    let take = take.min(scores.len());
    if take == 0 {
        return &scores[..0];
    }
    if take < scores.len() {
        scores.select_nth_unstable_by(take - 1, order);
    }
    scores[..take].sort_unstable_by(order);
    &scores[..take]
}

/// `k` centroids of rows `rows` of `set` by spherical Lloyd's algorithm
/// ([`ROUNDS`] rounds, started from rows at a fixed stride), and the
/// number of each row's nearest centroid.
fn kmeans(set: &QVectors, rows: &[u32], k: usize, kernel: Dot4) -> (QVectors, Vec<u32>) {
    let quantize = |vs: &[Vec<f32>]| {
        let mut q = QVectors::new();
        vs.iter().for_each(|v| q.push(v));
        q
    };
    let mut centroids: Vec<Vec<f32>> = (0..k).map(|t| set.get(rows[t * rows.len() / k] as usize)).collect();
    let assign = |q: &QVectors| -> Vec<u32> {
        rows.par_iter()
            .map_init(Vec::new, |buf, &i| {
                buf.clear();
                scores(set.row(i as usize), q, 0..q.len() as u32, kernel, buf);
                best_first(buf, 1)[0].1
            })
            .collect()
    };
    for _ in 0..ROUNDS {
        let nearest = assign(&quantize(&centroids));
        let mut sums = vec![vec![0.0f32; DIM]; k];
        for (&i, &t) in rows.iter().zip(&nearest) {
            let s = set.scale[i as usize];
            sums[t as usize].iter_mut().zip(set.row(i as usize)).for_each(|(a, &x)| *a += f32::from(x) * s);
        }
        for (centroid, sum) in centroids.iter_mut().zip(sums) {
            let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                *centroid = sum.into_iter().map(|x| x / norm).collect();
            }
        }
    }
    let q = quantize(&centroids);
    let nearest = assign(&q);
    (q, nearest)
}

/// Each row of `x`'s `k` nearest rows of `y`, searched in the [`PROBES`]
/// lists of `y` whose centroids are nearest to it: a row's
/// true nearest is missed only when it lies in none of those lists.
pub fn by_lists(x: &QVectors, y: &QVectors, k: usize) -> Neighbours {
    search(x, y, &Lists::new(y), k)
}

/// [`by_lists`] with the lists of `y` made already.
pub fn search(x: &QVectors, y: &QVectors, lists: &Lists, k: usize) -> Neighbours {
    let all: Vec<u32> = (0..x.len() as u32).collect();
    search_rows(x, &all, y, lists, k, PROBES)
}

/// Queries whose lists are found together ([`search_rows`]): what their
/// lists' numbers take stays small whatever the set.
const QUERY_CHUNK: usize = 1 << 16;

/// [`search`] for the rows `rows` of `x` only (in any order, each once),
/// each in its `probes` nearest lists; the other rows are left without
/// neighbours.
pub fn search_rows(x: &QVectors, rows: &[u32], y: &QVectors, lists: &Lists, k: usize, probes: usize) -> Neighbours {
    let k = k.max(1);
    let mut out = Neighbours::new(x.len(), k);
    if rows.is_empty() || lists.is_empty() {
        return out;
    }
    assert_eq!(lists.ids.len(), y.len(), "lists made from another set");
    let width = probes.max(1);
    let kernel = dot4_kernel();
    for chunk in rows.chunks(QUERY_CHUNK) {
        // Each query's lists, best first, `width` a query.
        let picked: Vec<u32> = chunk
            .par_iter()
            .map_init(Scratch::default, |scratch, &i| {
                lists.probes(x.row(i as usize), width, kernel, scratch);
                let mut picked = vec![u32::MAX; width];
                picked[..scratch.picked.len()].copy_from_slice(&scratch.picked);
                picked
            })
            .flatten_iter()
            .collect();
        let probes_of = |r: usize| picked[r * width..(r + 1) * width].iter().copied().filter(|&t| t != u32::MAX);
        let mut order: Vec<u32> = (0..chunk.len() as u32).collect();
        order.sort_unstable_by_key(|&r| (picked[r as usize * width], r));
        let found: Vec<(Vec<u32>, Vec<f32>)> = order
            .par_chunks(QUERY_BLOCK)
            .map(|block| {
                let mut ids = vec![Neighbours::NONE; block.len() * k];
                let mut cos = vec![f32::NEG_INFINITY; block.len() * k];
                // (list, query of the block), list by list.
                let mut asked: Vec<(u32, u32)> = block
                    .iter()
                    .enumerate()
                    .flat_map(|(b, &r)| probes_of(r as usize).map(move |t| (t, b as u32)))
                    .collect();
                asked.sort_unstable();
                for run in asked.chunk_by(|a, b| a.0 == b.0) {
                    let t = run[0].0 as usize;
                    let (start, end) = (lists.starts[t] as usize, lists.starts[t + 1] as usize);
                    let mut j = start;
                    while j < end {
                        let take = (end - j).min(4);
                        let at4 = [0, 1, 2, 3].map(|u| lists.ids[(j + u).min(end - 1)] as usize);
                        let four = at4.map(|a| y.row(a));
                        for &(_, b) in run {
                            let i = chunk[block[b as usize] as usize] as usize;
                            for (u, &s) in kernel(x.row(i), four).iter().enumerate().take(take) {
                                let c = s as f32 * (x.scale[i] * y.scale[at4[u]]);
                                let at = b as usize * k..(b as usize + 1) * k;
                                Neighbours::offer(&mut ids[at.clone()], &mut cos[at], at4[u] as u32, c);
                            }
                        }
                        j += take;
                    }
                }
                (ids, cos)
            })
            .collect();
        for (block, (ids, cos)) in order.chunks(QUERY_BLOCK).zip(found) {
            for (b, &r) in block.iter().enumerate() {
                let i = chunk[r as usize] as usize;
                out.ids[i * k..(i + 1) * k].copy_from_slice(&ids[b * k..(b + 1) * k]);
                out.cos[i * k..(i + 1) * k].copy_from_slice(&cos[b * k..(b + 1) * k]);
            }
        }
    }
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
        let noise = vectors(12500, 12);
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
        let (x, y) = (quantized(&around(500, 0)), quantized(&around(12000, 500)));
        let lists = Lists::new(&y);
        // More lists than a row searches, each row in one of them.
        assert!(lists.len() > PROBES, "{} lists", lists.len());
        let mut ids = lists.ids.clone();
        ids.sort_unstable();
        assert_eq!(ids, (0..y.len() as u32).collect::<Vec<_>>());
        let (exact, _) = nearest(&x, &y, 4);
        let listed = by_lists(&x, &y, 4);
        let same = (0..x.len()).filter(|&i| exact.of(i).next() == listed.of(i).next()).count();
        assert!(same * 100 >= x.len() * 95, "{same} of {}", x.len());
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| by_lists(&x, &y, 4));
        assert_eq!(one, listed);
        // Small sets are searched exactly.
        assert!(super::exact(&x, &y));
    }

    #[test]
    fn a_close_counterpart_is_found_through_the_lists() {
        // Rows of y near 60 topics, as sentence vectors are; rows of x with
        // a counterpart in y (cosine about 0.9): the counterpart is every
        // such row's nearest, found through the lists.
        let (topics, noise) = (vectors(60, 21), vectors(20300, 22));
        let unit = |v: Vec<f32>| {
            let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt();
            v.into_iter().map(|a| a / norm).collect::<Vec<f32>>()
        };
        let y: Vec<Vec<f32>> = (0..20000)
            .map(|i| unit(topics[i % 60].iter().zip(&noise[i]).map(|(t, e)| 0.7 * t + 0.7 * e).collect()))
            .collect();
        let x: Vec<Vec<f32>> = (0..300)
            .map(|i| unit(y[i * 61].iter().zip(&noise[20000 + i]).map(|(b, e)| 0.9 * b + 0.43 * e).collect()))
            .collect();
        let (x, y) = (quantized(&x), quantized(&y));
        assert!(Lists::new(&y).len() > PROBES);
        let listed = by_lists(&x, &y, 4);
        for i in 0..x.len() {
            assert_eq!(listed.of(i).next().map(|p| p.0), Some(i as u32 * 61), "row {i}");
        }
    }

    #[test]
    fn a_set_of_one_repeated_row_makes_lists_that_every_row_finds() {
        // Boilerplate: most rows the same sentence, so that most centroids
        // start alike and most groups are chosen by no row.
        let mut y = vec![vectors(1, 31)[0].clone(); 9000];
        y.extend(vectors(1000, 32));
        let (x, y) = (quantized(&vectors(200, 33)), quantized(&y));
        let lists = Lists::new(&y);
        assert!(!lists.is_empty());
        let listed = search(&x, &y, &lists, 4);
        assert!((0..x.len()).all(|i| listed.of(i).count() == 4));
        let back = by_lists(&y, &x, 4);
        assert!((0..y.len()).all(|j| back.of(j).count() == 4));
    }

    #[test]
    fn a_set_sorted_in_the_lists_order_is_searched_alike() {
        let topics = vectors(30, 41);
        let noise = vectors(6000, 42);
        let y: Vec<Vec<f32>> = (0..6000)
            .map(|i| {
                let v: Vec<f32> = topics[i % 30].iter().zip(&noise[i]).map(|(t, e)| 0.8 * t + 0.6 * e).collect();
                let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt();
                v.into_iter().map(|a| a / norm).collect()
            })
            .collect();
        let (x, y) = (quantized(&vectors(300, 43)[..]), quantized(&y));
        let unsorted = by_lists(&x, &y, 4);
        let mut sorted = y.clone();
        let (lists, order) = Lists::sort(&mut sorted);
        // Every row once, each where the order says.
        let mut seen = order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..y.len() as u32).collect::<Vec<_>>());
        for (p, &from) in order.iter().enumerate() {
            assert_eq!((sorted.row(p), sorted.scale(p)), (y.row(from as usize), y.scale(from as usize)));
        }
        // The same neighbours, numbered by their new places.
        let found = search(&x, &sorted, &lists, 4);
        for i in 0..x.len() {
            let back: Vec<(u32, f32)> = found.of(i).map(|(p, c)| (order[p as usize], c)).collect();
            assert_eq!(back, unsorted.of(i).collect::<Vec<_>>(), "row {i}");
        }
        // Some rows only: those alike, the others without neighbours.
        let some: Vec<u32> = (0..x.len() as u32).filter(|i| i % 7 == 3).rev().collect();
        let part = search_rows(&x, &some, &sorted, &lists, 4, PROBES);
        for i in 0..x.len() {
            if some.contains(&(i as u32)) {
                assert_eq!(part.of(i).collect::<Vec<_>>(), found.of(i).collect::<Vec<_>>());
            } else {
                assert_eq!(part.of(i).count(), 0);
            }
        }
    }

    #[test]
    fn a_permutation_is_applied_in_place() {
        let mut items: Vec<char> = "abcdefg".chars().collect();
        let order = [3u32, 0, 6, 1, 2, 5, 4];
        permute(&order, |a, b| items.swap(a, b));
        assert_eq!(items.iter().collect::<String>(), "dagbcfe");
        let mut same: Vec<u32> = (0..5).collect();
        permute(&[0, 1, 2, 3, 4], |a, b| same.swap(a, b));
        assert_eq!(same, vec![0, 1, 2, 3, 4]);
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
