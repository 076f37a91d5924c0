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

pub mod beads;
pub mod chain;
pub mod complete;
mod copies;
pub mod evidence;
pub mod features;
pub mod meaning;
pub mod modes;
pub mod pair;
pub mod parallel;
mod types;
pub mod verbatim;

use std::sync::Arc;

use crate::encoder::Encoder;
use crate::normalize::{NormalizeOptions, Normalizer};
use crate::segment::{segment_with, SentenceMode};

pub use copies::TIGHT_COPY;
use copies::{merge_copies, CopyLimits};
use types::{passage, round4};
pub use types::{Link, Passage, PassageKind, Prepared, Span, Unlinked};

pub use modes::align_sentences;
pub use pair::{language, two_languages, Mode, Pair};
pub use parallel::ParallelParams;

/// Characters covered by the union of `spans` (overlaps counted once).
pub fn covered_chars(mut spans: Vec<Span>) -> u64 {
    spans.sort_unstable();
    let (mut total, mut end) = (0u64, 0u32);
    for s in spans {
        let lo = s[0].max(end);
        if s[1] > lo {
            total += (s[1] - lo) as u64;
        }
        end = end.max(s[1]);
    }
    total
}

/// The longest text `parallels align` takes by default, in bytes of its
/// file (and of its UTF-8 text once decoded): 32 MiB.
///
/// Aligning two texts holds both prepared texts (normalized characters,
/// the offset map, tokens, sentences) and, per pair, the sentences'
/// feature vectors, the candidate cells of the dynamic programme and the
/// chains: memory grows with the texts, not with a budget. Measured with
/// `/usr/bin/time -v` on `bench/gen_parallel.py` pairs of Chinese text
/// (release build, meaning on), peak memory per byte of the two files
/// together: 101 for a 2 MB pair (3.9 MB in all, 375 MiB), 60 for a 10 MB
/// pair (19.5 MB, 1,145 MiB); see BENCHMARKS.md. Up to
/// [`ALIGN_BYTES_PER_BYTE`], then: two texts at this bound need 4–7 GB. Beyond it the command refuses with a message: a long text
/// is better split (by chapter) and aligned in parts, or scanned as a
/// corpus (`parallels scan`, whose memory is bounded by `--memory`).
/// Streaming the alignment of one long pair is not done yet.
pub const MAX_TEXT_BYTES: u64 = 32 << 20;

/// Peak memory of `parallels align` per byte of input (both texts), as
/// measured for [`MAX_TEXT_BYTES`]: what the refusal message estimates with.
pub const ALIGN_BYTES_PER_BYTE: u64 = 100;

/// Everything that decides an alignment.
#[derive(Clone, Debug)]
pub struct Options {
    /// What the matchers see of the text (width, script, numerals, …).
    pub normalize: NormalizeOptions,
    /// The sentence aligner for parallel versions.
    pub parallel: ParallelParams,
    /// The token matcher for copies.
    pub verbatim: verbatim::VerbatimParams,
    /// Drop short passages that cross the main alignment of two versions
    /// (see `coherent` in this module).
    pub coherence: bool,
    /// Ask more of what two texts share when it is all they share: a lone
    /// sentence link must be a near copy ([`NEAR_COPY`]), a copy must have
    /// [`verbatim::VerbatimParams::isolated_tokens`] copied tokens.
    pub isolated: bool,
    /// Use meaning ([`meaning`], the [`crate::encoder`]): in completion
    /// between anchors, and to align texts in two languages (a translation
    /// against its original), completely where they are versions of one
    /// another ([`modes`]). Off, `align` is lexical only.
    pub meaning: bool,
    /// How texts are cut into sentences: at sentence enders (running
    /// text) or one sentence a line, as given.
    pub sentences: SentenceMode,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            normalize: NormalizeOptions::default(),
            parallel: ParallelParams::default(),
            verbatim: verbatim::VerbatimParams::default(),
            coherence: true,
            isolated: true,
            meaning: true,
            sentences: SentenceMode::Text,
        }
    }
}

/// Aligns texts with one set of options.
#[derive(Clone, Debug)]
pub struct Aligner {
    opts: Options,
    normalizer: Normalizer,
    /// The sentence encoder; `None`: the process's ([`Encoder::shared`]),
    /// loaded the first time a pair needs meaning.
    encoder: Option<Arc<Encoder>>,
}

impl Aligner {
    /// An aligner with these options, encoding with the process's encoder
    /// ([`Encoder::shared`]) when meaning is needed.
    pub fn new(opts: Options) -> Aligner {
        let normalizer = Normalizer::new(opts.normalize.clone());
        Aligner { opts, normalizer, encoder: None }
    }

    /// An aligner with these options and this sentence encoder.
    pub fn with_encoder(opts: Options, encoder: Arc<Encoder>) -> Aligner {
        Aligner { encoder: Some(encoder), ..Aligner::new(opts) }
    }

    /// The encoder it aligns with.
    pub fn encoder(&self) -> &Encoder {
        self.encoder.as_deref().unwrap_or_else(|| Encoder::shared())
    }

    /// The options it aligns with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Normalize and segment one text.
    pub fn prepare(&self, text: &str) -> Prepared {
        let norm = self.normalizer.normalize(text);
        Prepared {
            chars: norm.original_len,
            seg: segment_with(&norm, self.opts.sentences),
            text: Some(std::sync::Arc::from(text)),
        }
    }

    /// Prepare several texts, in parallel.
    pub fn prepare_all(&self, texts: &[&str]) -> Vec<Prepared> {
        use rayon::prelude::*;
        texts.par_iter().map(|t| self.prepare(t)).collect()
    }

    /// Convenience: prepare and align two texts.
    pub fn align_texts(&self, a: &str, b: &str) -> Vec<Passage> {
        self.align(&self.prepare(a), &self.prepare(b))
    }

    /// All passages A and B share, ordered by their start in A. Feature
    /// weights come from the two texts themselves.
    pub fn align(&self, a: &Prepared, b: &Prepared) -> Vec<Passage> {
        self.align_in(a, b, None)
    }

    /// As [`Aligner::align`], with feature weights from a whole corpus when
    /// given: what is common in the corpus (stock phrases of a genre) weighs
    /// little even where the two texts share it and little else.
    pub fn align_in(&self, a: &Prepared, b: &Prepared, corpus: Option<&features::CorpusDf>) -> Vec<Passage> {
        let (va, vb, df) = features::vectors(&a.seg, &b.seg, corpus);
        self.align_vectors(a, &va, b, &vb, &df, None)
    }

    /// As [`Aligner::align_in`] with corpus weights, for texts whose
    /// sentence vectors were weighed once ([`features::corpus_vectors`])
    /// because they take part in many pairs.
    pub fn align_weighed(
        &self,
        a: &Prepared,
        va: &features::Vectors,
        b: &Prepared,
        vb: &features::Vectors,
        corpus: &features::CorpusDf,
    ) -> Vec<Passage> {
        self.align_vectors(a, va, b, vb, &features::Df::of_corpus(corpus), None)
    }

    /// As [`Aligner::align_in`], for two texts whose sentences are already
    /// encoded: `pooled` holds each text's pooled rows, one per sentence of
    /// its [`Prepared`] ([`crate::encoder::Encoder::encode_pooled`]). The
    /// passages are those [`Aligner::align_in`] finds; only the encoding is
    /// not done again. Meaning must be on ([`Options::meaning`]).
    pub fn align_encoded(
        &self,
        a: &Prepared,
        b: &Prepared,
        pooled: [&crate::encoder::Pooled; 2],
        corpus: Option<&features::CorpusDf>,
    ) -> Vec<Passage> {
        let (va, vb, df) = features::vectors(&a.seg, &b.seg, corpus);
        self.align_vectors(a, &va, b, &vb, &df, Some(pooled))
    }

    fn align_vectors(
        &self,
        a: &Prepared,
        va: &features::Vectors,
        b: &Prepared,
        vb: &features::Vectors,
        df: &features::Df,
        pooled: Option<[&crate::encoder::Pooled; 2]>,
    ) -> Vec<Passage> {
        let (sa, sb) = (&a.seg.sentences, &b.seg.sentences);
        let pair = Pair::choose(self.opts.meaning, a.text.as_deref(), b.text.as_deref(), &va.len, &vb.len);
        let mut meaning = match (&a.text, &b.text) {
            (Some(ta), Some(tb)) if pair.mode != Mode::Lexical => {
                let spans = |s: &[crate::segment::Sentence]| s.iter().map(|s| (s.start, s.end)).collect::<Vec<_>>();
                let (texts_a, texts_b) = (
                    meaning::sentence_texts(ta, spans(sa).into_iter()),
                    meaning::sentence_texts(tb, spans(sb).into_iter()),
                );
                // Only a pair aligned completely needs groups' vectors.
                Some(if let Some(pooled) = pooled {
                    meaning::Meaning::encoded(self.encoder(), texts_a, texts_b, pooled)
                } else if pair.mode.across() && self.opts.parallel.beads {
                    meaning::Meaning::with_groups(self.encoder(), texts_a, texts_b)
                } else {
                    meaning::Meaning::new(self.encoder(), texts_a, texts_b)
                })
            }
            _ => None,
        };
        let across = pair.mode.across();
        // Copies are found in the texts' tokens, whatever the chains: on
        // the other core meanwhile.
        let (found, copies) = rayon::join(
            || modes::align_sentences_in(&pair, va, vb, &self.opts.parallel, meaning.as_mut()),
            || verbatim::find(&a.seg.tokens, &b.seg.tokens, &self.opts.verbatim),
        );
        let heading = |l: &chain::SentLink| {
            (l.a1 - l.a0 == 1 && sa[l.a0 as usize].heading) || (l.b1 - l.b0 == 1 && sb[l.b0 as usize].heading)
        };
        let titles = |l: &chain::SentLink| {
            l.a1 - l.a0 == 1 && l.b1 - l.b0 == 1 && sa[l.a0 as usize].heading && sb[l.b0 as usize].heading
        };
        let keep = chains_that_hold(
            &found.chains,
            heading,
            titles,
            |l| lone_link_holds(l, a, b, df, found.tau),
            |l| {
                let tokens = |s: &[crate::segment::Sentence], s0: u32, s1: u32| {
                    s[s1 as usize - 1].tok_end - s[s0 as usize].tok_start
                };
                let min = self.opts.verbatim.min_tokens;
                l.sim >= NEAR_COPY && tokens(sa, l.a0, l.a1) >= min && tokens(sb, l.b0, l.b1) >= min
            },
            self.opts.isolated.then_some(sa.len().min(sb.len())),
        );
        let passages: Vec<Passage> = found
            .chains
            .iter()
            .zip(keep)
            .filter_map(|(c, keep)| keep.then_some(c))
            .map(|c| {
                let links = c
                    .links
                    .iter()
                    .map(|l| {
                        let meaning = l.meaning.map(|m| round4(m.clamp(0.0, 1.0) as f64));
                        Link {
                            a: [sa[l.a0 as usize].start, sa[l.a1 as usize - 1].end],
                            b: [sb[l.b0 as usize].start, sb[l.b1 as usize - 1].end],
                            score: if across { meaning.unwrap_or(0.0) } else { round4(l.sim as f64) },
                            meaning,
                        }
                    })
                    .collect();
                let mut p = passage(PassageKind::Parallel, links, None);
                p.unlinked = c
                    .nulls
                    .iter()
                    .map(|l| {
                        let side = |s: &[crate::segment::Sentence], s0: u32, s1: u32| {
                            (s1 > s0).then(|| [s[s0 as usize].start, s[s1 as usize - 1].end])
                        };
                        Unlinked { a: side(sa, l.a0, l.a1), b: side(sb, l.b0, l.b1) }
                    })
                    .collect();
                // The passage spans its region: sentences without
                // counterpart before its first link or after its last too.
                for u in &p.unlinked {
                    for (span, side) in [(&mut p.a, u.a), (&mut p.b, u.b)] {
                        if let Some(x) = side {
                            *span = [span[0].min(x[0]), span[1].max(x[1])];
                        }
                    }
                }
                p
            })
            .collect();
        let limits = CopyLimits {
            isolated_tokens: if self.opts.isolated { self.opts.verbatim.isolated_tokens } else { 0 },
            within_tokens: self.opts.verbatim.isolated_tokens,
            copy_chars: self.opts.verbatim.copy_chars,
            mode: pair.mode,
        };
        let mut passages = merge_copies(passages, &copies, a, b, limits);
        if self.opts.coherence {
            passages = coherent(passages);
        }
        passages.sort_by(|x, y| x.a.cmp(&y.a).then(x.b.cmp(&y.b)));
        passages
    }
}

/// Links a passage needs to define the main alignment of two texts.
const MAIN_LINKS: usize = 5;
/// Most links of a passage that [`coherent`] may drop.
const SHORT_LINKS: usize = 2;
/// Characters (on the shorter side) from which a passage is kept wherever it lies.
const LONG_CHARS: u32 = 50;
/// Main links a short passage must cross to contradict the main alignment
/// (translators swap neighbouring sentences; a stock phrase lands far away).
const CROSSINGS: usize = 3;

/// Drop the short passages that contradict the main alignment of two texts.
///
/// In two versions of one work, the passages of [`MAIN_LINKS`] or more
/// links make the main alignment. A short passage (at most [`SHORT_LINKS`]
/// links and under [`LONG_CHARS`] characters on one side) that *crosses*
/// [`CROSSINGS`] or more of their links — lies before them in A and after
/// them in B, or the reverse — is a stock phrase or formula that recurs in
/// both texts (`所有的……都交在约瑟的手`, a name with its titles), matched
/// out of place: not reuse. Long passages and passages of several links
/// stay, so a moved paragraph of an abridgement is kept; texts with no main
/// alignment keep everything.
fn coherent(passages: Vec<Passage>) -> Vec<Passage> {
    let mut main: Vec<(Span, Span)> = passages
        .iter()
        .filter(|p| p.links.len() >= MAIN_LINKS)
        .flat_map(|p| p.links.iter().map(|l| (l.a, l.b)))
        .collect();
    if main.is_empty() {
        return passages;
    }
    main.sort_unstable();
    passages
        .into_iter()
        .filter(|p| {
            let short = p.links.len() <= SHORT_LINKS && (p.a[1] - p.a[0]).min(p.b[1] - p.b[0]) < LONG_CHARS;
            if !short {
                return true;
            }
            let crossed = main
                .iter()
                .filter(|(la, lb)| (la[1] <= p.a[0] && lb[0] >= p.b[1]) || (la[0] >= p.a[1] && lb[1] <= p.b[0]))
                .count();
            crossed < CROSSINGS
        })
        .collect()
}

/// Similarity at which a link standing alone needs no further evidence.
pub const NEAR_COPY: f32 = 0.5;

/// Which chains become passages.
///
/// A heading is a short line, often a name or a date, so a link with a
/// heading on either side (`heading`) is no evidence that two texts are
/// related. A chain of [`RELATED_LINKS`] or more other links (body links)
/// makes the texts *related*: versions of one work, whose every chain is
/// kept. A chain with one body link is kept if that link holds on its own
/// (`alone`: a near copy or two clause hits), or if headings join it in a
/// related pair. A chain of headings only is kept if it is one heading
/// against another (`titles`) in a related pair: the same title in two
/// versions, where the two-hit rule (made for sentences of unrelated texts)
/// cannot apply, a heading having one clause.
///
/// With `isolated` (the sentence count of the shorter text), what two
/// unrelated texts share needs more evidence the less of it there is: a
/// chain of [`RELATED_LINKS`] body links (or of two covering half the
/// shorter text) relates them; a chain of two body links is kept only if each
/// holds on its own, and a lone link only if it is a near copy
/// (`near_copy`: [`NEAR_COPY`], and as long as a verbatim copy) — same-topic texts share names, dates and a verb in one
/// sentence (`两路援军先后在河边溃败`), and one house style shares formulae
/// (`他们回答说`), far more often than they share a real quotation.
/// Without it, a chain of two body links makes texts related.
fn chains_that_hold(
    chains: &[chain::Chain],
    heading: impl Fn(&chain::SentLink) -> bool,
    titles: impl Fn(&chain::SentLink) -> bool,
    alone: impl Fn(&chain::SentLink) -> bool,
    near_copy: impl Fn(&chain::SentLink) -> bool,
    isolated: Option<usize>,
) -> Vec<bool> {
    // Links by position and length (completion) are no evidence either.
    let evidence = |l: &&chain::SentLink| !heading(l) && !l.filled;
    let body = |c: &chain::Chain| c.links.iter().filter(evidence).count();
    // Two links that cover half the shorter text are not isolated.
    let related_links = match isolated {
        Some(sentences) => RELATED_LINKS.min(2.max(sentences.div_ceil(2))),
        None => 2,
    };
    let isolated = isolated.is_some();
    let related = chains.iter().any(|c| body(c) >= related_links);
    chains
        .iter()
        .map(|c| match body(c) {
            0 => related && c.links.len() == 1 && titles(&c.links[0]),
            1 => {
                let l = c.links.iter().find(evidence).unwrap();
                (related && c.links.len() > 1) || if isolated && !related { near_copy(l) } else { alone(l) }
            }
            n => related || n >= related_links || c.links.iter().filter(evidence).all(&alone),
        })
        .collect()
}

/// Body links of a chain that make two texts related (with `isolated`).
const RELATED_LINKS: usize = 3;

/// Does a link that forms a passage on its own hold up?
///
/// A chain of several links is evidence in itself; a lone link is where
/// same-topic texts produce false matches — one shared date, name or stock
/// phrase. So a lone link must either be a near copy ([`NEAR_COPY`]) or show
/// two separate matches in order: two clauses of A that each match a clause
/// of B above the pair's threshold, in the same order (the "two-hit" rule of
/// seed-and-extend search).
fn lone_link_holds(l: &chain::SentLink, a: &Prepared, b: &Prepared, df: &features::Df, tau: f32) -> bool {
    if l.sim >= NEAR_COPY {
        return true;
    }
    let clauses = |p: &Prepared, s0: u32, s1: u32| -> Vec<_> {
        let s = &p.seg.sentences;
        let toks = &p.seg.tokens[s[s0 as usize].tok_start as usize..s[s1 as usize - 1].tok_end as usize];
        let mut out = Vec::new();
        let mut start = 0;
        for k in 1..=toks.len() {
            if k == toks.len() || toks[k].clause_start {
                out.push(df.vector(&toks[start..k]));
                start = k;
            }
        }
        out
    };
    let (ca, cb) = (clauses(a, l.a0, l.a1), clauses(b, l.b0, l.b1));
    // Longest chain of hits in order (a small LCS over the clause grid).
    let mut best = vec![vec![0u32; cb.len() + 1]; ca.len() + 1];
    for x in 0..ca.len() {
        for y in 0..cb.len() {
            let hit = features::cosine(&ca[x], &cb[y]) >= tau;
            best[x + 1][y + 1] = if hit { best[x][y] + 1 } else { best[x][y + 1].max(best[x + 1][y]) };
        }
    }
    best[ca.len()][cb.len()] >= 2
}

#[cfg(test)]
mod tests {
    use super::chain::{Chain, SentLink};
    use super::*;

    /// Sentences 0 and 10 are headings on both sides; a link holds alone
    /// when its similarity is at least 0.5 (as a near copy would).
    fn link(a: u32, b: u32, sim: f32) -> SentLink {
        SentLink { a0: a, a1: a + 1, b0: b, b1: b + 1, sim, meaning: None, filled: false }
    }

    fn keep(chains: &[Chain]) -> Vec<bool> {
        let is_heading = |x: u32| x == 0 || x == 10;
        chains_that_hold(
            chains,
            |l| is_heading(l.a0) || is_heading(l.b0),
            |l| is_heading(l.a0) && is_heading(l.b0),
            |l| l.sim >= 0.5,
            |l| l.sim >= 0.5,
            None,
        )
    }

    /// As `keep`, with the isolation rule; a link holds alone (two clause
    /// hits, say) from 0.3, a near copy is 0.5.
    fn keep_isolated(chains: &[Chain]) -> Vec<bool> {
        chains_that_hold(chains, |_| false, |_| false, |l| l.sim >= 0.3, |l| l.sim >= 0.5, Some(100))
    }

    #[test]
    fn what_unrelated_texts_share_needs_more_the_less_there_is() {
        // Alone in a pair: a lone link must be a near copy.
        assert_eq!(keep_isolated(&[chain(vec![link(5, 5, 0.4)])]), [false]);
        assert_eq!(keep_isolated(&[chain(vec![link(5, 5, 0.6)])]), [true]);
        // Two links: each must hold on its own.
        assert_eq!(keep_isolated(&[chain(vec![link(5, 5, 0.4), link(6, 6, 0.2)])]), [false]);
        assert_eq!(keep_isolated(&[chain(vec![link(5, 5, 0.4), link(6, 6, 0.35)])]), [true]);
        // Three links make the texts related: then a lone link that holds
        // on its own is kept, as without the rule.
        let three = chain(vec![link(1, 1, 0.2), link(2, 2, 0.2), link(3, 3, 0.2)]);
        assert_eq!(keep_isolated(&[three, chain(vec![link(9, 9, 0.4)])]), [true, true]);
        // A link found by position between two weak ones adds no evidence.
        let filled = SentLink { filled: true, ..link(6, 6, 0.0) };
        assert_eq!(keep_isolated(&[chain(vec![link(5, 5, 0.4), filled, link(7, 7, 0.2)])]), [false]);
        // Two links that are (half of) all the shorter text has relate it.
        let two = [chain(vec![link(5, 5, 0.4), link(6, 6, 0.2)])];
        assert_eq!(chains_that_hold(&two, |_| false, |_| false, |l| l.sim >= 0.3, |l| l.sim >= 0.5, Some(4)), [true]);
        // Without the rule, two weak links make texts related.
        assert_eq!(
            keep(&[chain(vec![link(5, 5, 0.4), link(6, 6, 0.2)]), chain(vec![link(20, 20, 0.2)])]),
            [true, false]
        );
    }

    fn chain(links: Vec<SentLink>) -> Chain {
        Chain { links, score: 1.0, nulls: Vec::new() }
    }

    /// A passage of one link `a` ↔ `b` (spans of 10 characters at those
    /// starts) or of `n` such links on the diagonal.
    fn short(kind: PassageKind, a: u32, b: u32) -> Passage {
        passage(kind, vec![Link { a: [a, a + 10], b: [b, b + 10], score: 1.0, meaning: None }], None)
    }

    fn diagonal(from: u32, n: u32) -> Passage {
        let links = (0..n)
            .map(|k| Link {
                meaning: None,
                a: [from + 20 * k, from + 20 * k + 20],
                b: [from + 20 * k, from + 20 * k + 20],
                score: 0.5,
            })
            .collect();
        passage(PassageKind::Parallel, links, None)
    }

    #[test]
    fn a_short_passage_across_the_main_alignment_is_dropped() {
        // The main chain links [0, 200) of A to [0, 200) of B, sentence by
        // sentence; a stock phrase at 20 in A matches one at 150 in B.
        let main = diagonal(0, 10);
        let stock = short(PassageKind::Verbatim, 20, 150);
        let kept = coherent(vec![main.clone(), stock]);
        assert_eq!(kept, vec![main.clone()]);
        // Two neighbouring sentences swapped by a translator stay.
        let swap = short(PassageKind::Parallel, 205, 185);
        assert_eq!(coherent(vec![main.clone(), swap.clone()]).len(), 2);
        // Beyond the main chain, on both sides, nothing is contradicted.
        let after = short(PassageKind::Verbatim, 400, 300);
        assert_eq!(coherent(vec![main.clone(), after]).len(), 2);
        // A long copy out of place is reuse all the same.
        let long =
            passage(PassageKind::Verbatim, vec![Link { a: [20, 80], b: [150, 210], score: 1.0, meaning: None }], None);
        assert_eq!(coherent(vec![main.clone(), long]).len(), 2);
        // So is a moved paragraph of several links.
        let moved = passage(
            PassageKind::Parallel,
            (0..3)
                .map(|k| Link {
                    a: [20 + 10 * k, 30 + 10 * k],
                    b: [150 + 10 * k, 160 + 10 * k],
                    score: 0.5,
                    meaning: None,
                })
                .collect(),
            None,
        );
        assert_eq!(coherent(vec![main, moved]).len(), 2);
        // Without a main alignment, a lone copy is all there is.
        assert_eq!(coherent(vec![short(PassageKind::Verbatim, 20, 150)]).len(), 1);
    }

    #[test]
    fn a_heading_is_no_evidence_of_related_texts() {
        // A name as a title line plus one weak sentence: dropped.
        assert_eq!(keep(&[chain(vec![link(0, 0, 0.9), link(1, 1, 0.2)])]), [false]);
        // ... kept if the sentence holds alone.
        assert_eq!(keep(&[chain(vec![link(0, 0, 0.9), link(1, 1, 0.6)])]), [true]);
        // A lone title against a title, or against a sentence: dropped.
        assert_eq!(keep(&[chain(vec![link(0, 0, 1.0)])]), [false]);
        assert_eq!(keep(&[chain(vec![link(0, 5, 1.0)])]), [false]);
    }

    #[test]
    fn in_related_texts_titles_and_short_chains_with_headings_hold() {
        let body = chain(vec![link(2, 2, 0.3), link(3, 3, 0.3), link(4, 4, 0.3)]);
        let got = keep(&[
            body,
            chain(vec![link(10, 10, 0.4)]),                    // the chapter title
            chain(vec![link(10, 12, 0.4)]),                    // a title against a sentence
            chain(vec![link(10, 10, 0.4), link(11, 11, 0.2)]), // title and one weak sentence
            chain(vec![link(20, 20, 0.2)]),                    // a lone weak sentence
        ]);
        assert_eq!(got, [true, true, false, true, false]);
    }
}
