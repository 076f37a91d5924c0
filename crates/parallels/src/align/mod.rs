//! Alignment: the passages two segmented texts share.
//!
//! [`Aligner`] owns the options and the normalizer; it turns texts into
//! [`Prepared`] ones (normalized and segmented once, whatever the number of
//! pairs they take part in) and aligns pairs of them into [`Passage`]s.
//!
//! The sentence-level search for parallel versions lives in [`parallel`]; its
//! chains become passages here, with spans mapped back to the original text.
//! A passage whose linked sentences are (nearly) the same token sequence is
//! reported as `verbatim`, otherwise as `parallel`; see [`verbatim`] for the
//! token-level check and for copies that do not follow sentence boundaries.

pub mod features;
pub mod parallel;
pub mod verbatim;

use crate::normalize::{NormalizeOptions, Normalizer};
use crate::segment::{segment, Segmented, Vocab};
use serde::{Deserialize, Serialize};

pub use parallel::ParallelParams;

/// A half-open range `[start, end)` of code points into an original text.
pub type Span = [u32; 2];

/// What kind of sharing a passage is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PassageKind {
    /// One text copies the other (possibly with noise, another script or
    /// other punctuation).
    Verbatim,
    /// Both render one source differently: translations, paraphrases,
    /// abridgements.
    Parallel,
}

/// A pair of aligned spans inside a passage (linked sentences).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    pub a: Span,
    pub b: Span,
    /// Similarity in [0, 1].
    pub score: f64,
}

/// A stretch of A and a stretch of B that share material.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Passage {
    pub kind: PassageKind,
    pub a: Span,
    pub b: Span,
    /// Length-weighted mean link similarity, in [0, 1].
    pub score: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
}

/// Everything that decides an alignment.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub normalize: NormalizeOptions,
    pub parallel: ParallelParams,
    pub verbatim: verbatim::VerbatimParams,
}

/// A text made ready for alignment: normalized and segmented.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub seg: Segmented,
    /// Length of the original text in code points.
    pub chars: u32,
}

/// Aligns texts with one set of options.
#[derive(Clone, Debug)]
pub struct Aligner {
    opts: Options,
    normalizer: Normalizer,
}

fn round4(x: f32) -> f64 {
    (x as f64 * 10_000.0).round() / 10_000.0
}

impl Aligner {
    pub fn new(opts: Options) -> Aligner {
        let normalizer = Normalizer::new(opts.normalize.clone());
        Aligner { opts, normalizer }
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Normalize and segment one text. Texts that will be aligned with each
    /// other must share `vocab`.
    pub fn prepare(&self, text: &str, vocab: &mut Vocab) -> Prepared {
        let norm = self.normalizer.normalize(text);
        Prepared { chars: norm.original_len, seg: segment(&norm, vocab) }
    }

    /// Prepare several texts that will be aligned with each other:
    /// normalization runs in parallel, segmentation shares one vocabulary.
    pub fn prepare_all(&self, texts: &[&str]) -> Vec<Prepared> {
        use rayon::prelude::*;
        let normalized: Vec<_> = texts.par_iter().map(|t| self.normalizer.normalize(t)).collect();
        let mut vocab = Vocab::new();
        normalized.iter().map(|n| Prepared { chars: n.original_len, seg: segment(n, &mut vocab) }).collect()
    }

    /// Convenience: prepare and align two texts.
    pub fn align_texts(&self, a: &str, b: &str) -> Vec<Passage> {
        let mut vocab = Vocab::new();
        let pa = self.prepare(a, &mut vocab);
        let pb = self.prepare(b, &mut vocab);
        self.align(&pa, &pb)
    }

    /// All passages A and B share, ordered by their start in A.
    pub fn align(&self, a: &Prepared, b: &Prepared) -> Vec<Passage> {
        let (va, vb, _) = features::vectors(&a.seg, &b.seg);
        let chains = parallel::align_sentences(&va, &vb, &self.opts.parallel);
        let (sa, sb) = (&a.seg.sentences, &b.seg.sentences);
        let mut passages: Vec<Passage> = chains
            .iter()
            .map(|c| {
                let mut links = Vec::with_capacity(c.links.len());
                let (mut wsum, mut w) = (0f64, 0f64);
                let mut same = verbatim::Identity::default();
                for l in &c.links {
                    let la = [sa[l.a0 as usize].start, sa[l.a1 as usize - 1].end];
                    let lb = [sb[l.b0 as usize].start, sb[l.b1 as usize - 1].end];
                    let len = ((la[1] - la[0]) + (lb[1] - lb[0])) as f64;
                    wsum += l.sim as f64 * len;
                    w += len;
                    same.add(
                        &a.seg.tokens[sa[l.a0 as usize].tok_start as usize..sa[l.a1 as usize - 1].tok_end as usize],
                        &b.seg.tokens[sb[l.b0 as usize].tok_start as usize..sb[l.b1 as usize - 1].tok_end as usize],
                    );
                    links.push(Link { a: la, b: lb, score: round4(l.sim) });
                }
                let kind = if same.ratio() >= self.opts.verbatim.min_identity {
                    PassageKind::Verbatim
                } else {
                    PassageKind::Parallel
                };
                Passage {
                    kind,
                    a: [links[0].a[0], links[links.len() - 1].a[1]],
                    b: [links[0].b[0], links[links.len() - 1].b[1]],
                    score: if w > 0.0 { ((wsum / w) * 10_000.0).round() / 10_000.0 } else { 0.0 },
                    links,
                }
            })
            .collect();
        passages.extend(verbatim::uncovered(a, b, &passages, &self.opts.verbatim));
        passages.sort_by(|x, y| x.a.cmp(&y.a).then(x.b.cmp(&y.b)));
        passages
    }
}
