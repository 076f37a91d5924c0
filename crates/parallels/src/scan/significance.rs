//! Significance: is a passage evidence of reuse, or what chance and house
//! style give any two documents of this corpus?
//!
//! A newspaper shares with itself photo credits, datelines, organization
//! names, weather forecasts and communiqué formulae; a scan that reports
//! them buries the reprints. Whether a stretch of text is formula is read
//! from the corpus itself, not from a list: the n-grams of a formula are in
//! many documents.
//!
//! # The measure
//!
//! Every seed (a winnowed token 5-gram, numbers as one slot: see `seeds`)
//! has a document frequency `d` in the whole corpus. Its **weight** is
//!
//! ```text
//! w(d) = 1                                    d ≤ 2
//!        ln(max_df / d) / ln(max_df / 2)      2 < d ≤ max_df
//!        0                                    d > max_df
//! ```
//!
//! an inverse document frequency scaled so that an n-gram only two
//! documents share (theirs) weighs 1 and one in `max_df` documents (the
//! boilerplate cap, `--max-df`) weighs nothing. A **token** weighs the mean
//! weight of the seeds that cover it (a seed covers its `n` tokens; a seed
//! in one document only weighs 1), 0 if it is a number (figures are slots,
//! not evidence), 1 if no seed covers it (a text's last tokens). The
//! **evidence** of a side of a passage is the sum of its tokens' weights:
//! its length in tokens that few other documents share. The passage's
//!
//! ```text
//! significance = score × min(evidence in A, evidence in B)
//! ```
//!
//! `score` is the passage's own (share of exactly matched tokens for a
//! copy, mean link similarity for parallel versions), so a loose
//! paraphrase needs more text than a copy; a list counts less (below).
//! The unit is a token: a significance of 40 is worth 40 tokens of text
//! shared by the two documents alone and matched exactly. A `verbatim` passage is reported
//! when its significance is at least [`MIN_SIGNIFICANCE`]; the `parallel`
//! passages of a pair are reported, all of them (headings, moved
//! paragraphs), when those among them that reach [`MIN_SIGNIFICANCE`] add
//! up to [`MIN_PARALLEL_PAIR`]: a paraphrase is evidence of a shared
//! source when the pair shares more than one paragraph of it (evidence in
//! context), as versions of one work do.
//!
//! # Lists
//!
//! Names, titles and places are the rarest words of a corpus, so a list of
//! them — the officials at a meeting, the leaders on a rostrum, the
//! winners of an award — weighs as much per token as a quoted paragraph,
//! though two reports of one event share it without either copying the
//! other. What a list lacks is the connective tissue of running text: the
//! particles, pronouns and function words (的 了 是 在, *the of and*) that
//! are in a large share of any corpus's sentences. So every word token (a
//! CJK character or a word; not a number) has a **commonness**, the share
//! of the corpus's sentences that hold it ([`CorpusDf`], the table the
//! aligner weighs features by). Each side of a passage compares the mean
//! commonness of its words with that of the rest of its document, and the
//! passage's significance is multiplied by
//!
//! ```text
//! prose = min(1, max(ratio in A, ratio in B) / PROSE_RATIO)
//! ratio = mean commonness of the side's words
//!         / mean commonness of the other words of its document
//! ```
//!
//! A passage whose words are at least [`PROSE_RATIO`] (0.85) as common as
//! the text around it counts whole; a roster inside an article loses in
//! proportion (on the dev corpus the rosters judged not reuse have ratios
//! 0.48–0.77, the copies planted in news text a median of 1 and a 5th
//! percentile of 0.82). The larger of the two sides is taken: a list is a
//! list in both documents, while a paragraph quoted in a document of
//! another language or register is ordinary prose in its own. The
//! reference is the document itself, so a corpus of another language reads
//! the same way; a document that is all list (nothing around it) counts
//! whole. This is the stop-word density by which boilerplate removers
//! (jusText: Pomikálek, *Removing Boilerplate and Duplicate Content from
//! Web Corpora*, 2011) tell a menu from prose, measured against the
//! passage's own document instead of a fixed word list. It is weak where
//! a short passage of prose happens to be dense in names (a dateline, a
//! delegation): such a passage can lose a third of its significance.
//!
//! # Parallel passages: what the two sides share
//!
//! Two leading articles of one newspaper paraphrase the same rhetoric
//! paragraph after paragraph (`实现祖国完全统一，是……共同心愿`), as two
//! translations of one chapter render the same sentences: by length,
//! score and how many paragraphs the pair shares, the two look alike (on
//! the dev corpus the pair sums of rhetoric pairs, 220–355, straddle an
//! abridged version's 330). What differs is *what* the linked sentences
//! share. Translations share the wording of their story — names, things,
//! places — which the rest of a corpus rarely uses; rhetoric shares the
//! house's common vocabulary. So every token pair (bigram) found on both
//! sides of a link weighs, by the number of sentences `s` of the whole
//! corpus that hold it ([`CorpusDf`], counted while reading), `w(s)` as
//! above with `max_df` = [`COMMON_PAIR`] of the corpus's sentences (at
//! least [`COMMON_PAIR_FLOOR`]): a pair in more than 1 % of all sentences
//! is common vocabulary and weighs nothing. A document pair's
//! **specificity** is the mean weight over the token pairs its `parallel`
//! links share, and its `parallel` passages are reported only when it is
//! at least [`MIN_SPECIFICITY`]. The share is a fraction, not a count, so
//! the reading holds for a corpus ten or a thousand times larger; in a
//! small corpus the floor keeps the words that only the versions
//! themselves repeat from counting as common.
//!
//! # What it gives, and where it is weak
//!
//! A 200-character reprint in two documents scores about 180; a photo
//! credit or a dateline (the agency formula in hundreds of documents, the
//! reporter's name in tens) a few; a weather forecast against another day's
//! forecast little, as its figures are slots and its words are in every
//! forecast. For `parallel` passages the weights say less: a paraphrase
//! shares few 5-grams with its source, so its tokens weigh about 1 whether
//! its words are rare or the rhetoric of every leading article; the pair
//! bar and the pair's specificity (below) carry the weight there. A text reprinted in many documents of the corpus loses weight
//! as its copies grow in number (in 10 documents a token weighs 0.59 at
//! `max_df` 100): raise `--max-df` for a corpus of many reprints. Names
//! are told apart only as lists are (above): a name inside a sentence is
//! as good as any other shared word.
//!
//! # Short copies
//!
//! The bar is for a corpus's every pair. A query asks of one text what
//! the library holds of it, as `align` asks of two, and reports a tight
//! copy under the bar (20 characters or more) when it is the two
//! documents' own ([`own_copy`]): weighed again with seeds in more than
//! [`COPY_MAX_DF`] documents weighing nothing, each of its words weighs
//! [`COPY_OWN`] or more on both sides, and its prose factor is at least
//! [`COPY_PROSE`]. A title, a slogan or a dateline that half a dozen
//! other documents repeat fails the first, a roster the second.
//!
//! Specificity reads "common" from the corpus, so it can only tell a
//! house's vocabulary from a work's where the corpus holds more than the
//! work: in a corpus of more than 10,000 sentences (where the floor no
//! longer holds) made mostly of translations of one book, the book's words
//! are in over 1 % of its sentences (measured without the floor on the dev
//! sets alone: zh-bible 0.33, zh-variants v2–v3 0.10), and
//! `--min-specificity` must be lowered there (`align` compares versions
//! without it).

use super::seeds::SeedParams;
use crate::align::features::{token_pairs, CorpusDf, Feature};
use crate::align::{Passage, PassageKind, Span};
use crate::segment::{Segmented, TokenKind};
use serde::{Deserialize, Serialize};

/// The lowest significance `scan` reports by default (see the module doc
/// for its unit). Calibrated on the dev corpora (`bench/gen_news_all.py`,
/// `bench/gen_scan.py` at 10 MB): EVALUATION.md.
pub const MIN_SIGNIFICANCE: f64 = 35.0;

/// The significance the `parallel` passages of one document pair must
/// reach together before any of them is reported. Two versions of one
/// work share chain after chain; two articles in one house style share a
/// paragraph of the same rhetoric, paraphrased, and nothing else.
/// Calibrated with [`MIN_SIGNIFICANCE`].
pub const MIN_PARALLEL_PAIR: f64 = 200.0;

/// The share of a corpus's sentences above which a token pair is common
/// vocabulary (see the module doc).
pub const COMMON_PAIR: f64 = 0.01;

/// The fewest sentences that make a token pair common, whatever the
/// corpus's size: in a corpus of a few texts, the words their versions
/// repeat are theirs, not the house's.
pub const COMMON_PAIR_FLOOR: f64 = 100.0;

/// The lowest specificity (mean weight of the token pairs a document
/// pair's `parallel` links share) at which its `parallel` passages are
/// reported. Calibrated with [`MIN_SIGNIFICANCE`]: EVALUATION.md.
pub const MIN_SPECIFICITY: f64 = 0.4;

/// Documents above which a seed weighs nothing in the significance of a
/// copy under the scan's bar ([`Reporting::min_copy_significance`]): a
/// short quotation counts when its words are the two documents' own, not
/// a title, a slogan or a dateline that half a dozen others repeat.
///
/// [`Reporting::min_copy_significance`]: Reporting::min_copy_significance
pub const COPY_MAX_DF: u32 = 6;

/// The weight per word a copy under the scan's bar needs on each side to
/// count as the two documents' own ([`own_copy`]).
pub const COPY_OWN: f64 = 0.75;

/// The lowest prose factor of a copy under the scan's bar: a roster of
/// names two reports of one event share is not a quotation.
pub const COPY_PROSE: f64 = 0.5;

/// The share of its document's commonness below which a passage's
/// evidence is discounted, in proportion (see "Lists" in the module doc).
pub const PROSE_RATIO: f64 = 0.85;

/// The weight of a seed in `df` documents, with boilerplate from `max_df`.
pub fn seed_weight(df: u32, max_df: u32) -> f32 {
    if df <= 2 {
        1.0
    } else if df > max_df || max_df <= 2 {
        0.0
    } else {
        ((max_df as f32 / df as f32).ln() / (max_df as f32 / 2.0).ln()).clamp(0.0, 1.0)
    }
}

/// The weight of every token of one document, and prefix sums to total a
/// span.
#[derive(Clone, Debug, Default)]
pub struct TokenWeights {
    /// `sums[i]`: the total weight of tokens `0..i`.
    sums: Vec<f64>,
}

impl TokenWeights {
    /// The weights of `seg`'s tokens, given every seed of the document
    /// (`seeds`: `(hash, position)`, as the seeds of a scan are taken)
    /// and the document frequency of those in two documents or more
    /// (`shared`: `(position, df)`, sorted by position).
    pub fn new(seg: &Segmented, seeds: &[(u64, u32)], shared: &[(u32, u32)], p: &SeedParams) -> TokenWeights {
        let n = seg.tokens.len();
        let width = p.n.max(1);
        let mut sum = vec![0f32; n];
        let mut count = vec![0u16; n];
        let mut k = 0usize;
        for &(_, pos) in seeds {
            while k < shared.len() && shared[k].0 < pos {
                k += 1;
            }
            let df = if k < shared.len() && shared[k].0 == pos { shared[k].1 } else { 1 };
            let w = seed_weight(df, p.max_df);
            let start = pos as usize;
            for t in start..(start + width).min(n) {
                sum[t] += w;
                count[t] = count[t].saturating_add(1);
            }
        }
        let mut sums = Vec::with_capacity(n + 1);
        let mut total = 0f64;
        sums.push(0.0);
        for (t, tok) in seg.tokens.iter().enumerate() {
            let w = if tok.kind == TokenKind::Number {
                0.0
            } else if count[t] == 0 {
                1.0
            } else {
                sum[t] / count[t] as f32
            };
            total += w as f64;
            sums.push(total);
        }
        TokenWeights { sums }
    }

    /// The total weight of tokens `lo..hi` (clipped to the document).
    pub fn tokens(&self, lo: usize, hi: usize) -> f64 {
        let last = self.sums.len().saturating_sub(1);
        let hi = hi.min(last);
        self.sums[hi] - self.sums[lo.min(hi)]
    }

    /// The evidence of `span` (original code points): the total weight of
    /// the tokens inside it.
    pub fn evidence(&self, seg: &Segmented, span: Span) -> f64 {
        let within = seg.tokens_within(span[0], span[1]);
        let hi = within.end.min(self.sums.len().saturating_sub(1));
        let lo = within.start.min(hi);
        let lo = lo.min(hi);
        self.sums[hi] - self.sums[lo]
    }
}

/// How common the words of one document are in the corpus: every word
/// token (a CJK character or a word; numbers and censored stretches are
/// not words) weighs the share of the corpus's sentences that hold it
/// ([`CorpusDf`]), and prefix sums total a span (see "Lists" in the module
/// doc).
#[derive(Clone, Debug)]
pub struct Commonness {
    /// `sums[i]`: the total commonness of tokens `0..i`.
    sums: Vec<f64>,
    /// `words[i]`: the number of word tokens among `0..i`.
    words: Vec<u32>,
}

impl Commonness {
    /// No document: every span counts whole.
    pub const EMPTY: Commonness = Commonness { sums: Vec::new(), words: Vec::new() };

    /// The commonness of `seg`'s tokens in `corpus`.
    pub fn new(seg: &Segmented, corpus: &CorpusDf) -> Commonness {
        let sentences = corpus.sentences().max(1.0) as f64;
        let mut sums = Vec::with_capacity(seg.tokens.len() + 1);
        let mut words = Vec::with_capacity(seg.tokens.len() + 1);
        let (mut total, mut count) = (0f64, 0u32);
        sums.push(0.0);
        words.push(0);
        for t in &seg.tokens {
            if matches!(t.kind, TokenKind::Cjk | TokenKind::Word) {
                total += (corpus.df(t.id as Feature) as f64 / sentences).min(1.0);
                count += 1;
            }
            sums.push(total);
            words.push(count);
        }
        Commonness { sums, words }
    }

    /// The mean commonness of the word tokens inside `lo..hi` and of
    /// those outside it; `None` for a side without one.
    fn inside_outside(&self, lo: usize, hi: usize) -> (Option<f64>, Option<f64>) {
        let last = self.sums.len().saturating_sub(1);
        let (hi, all) = (hi.min(last), self.sums[last]);
        let lo = lo.min(hi);
        let mean = |n: u32, sum: f64| (n > 0).then(|| sum / n as f64);
        let (n_in, s_in) = (self.words[hi] - self.words[lo], self.sums[hi] - self.sums[lo]);
        (mean(n_in, s_in), mean(self.words[last] - n_in, all - s_in))
    }

    /// The prose factor of `span` on this side: 1 when its words are at
    /// least [`PROSE_RATIO`] as common as those of the rest of its
    /// document, less in proportion below (a list of names, titles and
    /// places in an article); 1 when either has no word.
    pub fn prose(&self, seg: &Segmented, span: Span) -> f64 {
        if self.sums.is_empty() {
            return 1.0;
        }
        let within = seg.tokens_within(span[0], span[1]);
        let (Some(here), Some(rest)) = self.inside_outside(within.start, within.end) else {
            return 1.0;
        };
        if rest <= 0.0 {
            return 1.0;
        }
        (here / rest / PROSE_RATIO).min(1.0)
    }
}

/// One side of a passage as [`significance`] reads it: the document's
/// tokens, their weights and their commonness.
pub type Side<'a> = (&'a Segmented, &'a TokenWeights, &'a Commonness);

/// The significance of `passage` between two documents (see the module
/// doc), rounded to two decimals.
pub fn significance(passage: &Passage, a: Side<'_>, b: Side<'_>) -> f64 {
    let ea = a.1.evidence(a.0, passage.a);
    let eb = b.1.evidence(b.0, passage.b);
    let prose = a.2.prose(a.0, passage.a).max(b.2.prose(b.0, passage.b));
    let s = passage.score.clamp(0.0, 1.0) * ea.min(eb) * prose;
    (s * 100.0).round() / 100.0
}

/// Whether a copy is the two documents' own: on each side, its tokens
/// weigh [`COPY_OWN`] per word (numbers left out) or more, weighed as `a`
/// and `b` give them (with [`COPY_MAX_DF`]: no title, slogan or dateline
/// that half a dozen other documents repeat), and it is not a list (its
/// [prose](Commonness::prose) factor at least [`COPY_PROSE`]).
pub fn own_copy(passage: &Passage, a: Side<'_>, b: Side<'_>) -> bool {
    let own = |side: Side<'_>, span: Span| {
        let seg = side.0;
        let words =
            seg.tokens[seg.tokens_within(span[0], span[1])].iter().filter(|t| t.kind != TokenKind::Number).count();
        words > 0 && side.1.evidence(seg, span) >= COPY_OWN * words as f64
    };
    let prose = a.2.prose(a.0, passage.a).max(b.2.prose(b.0, passage.b));
    own(a, passage.a) && own(b, passage.b) && prose >= COPY_PROSE
}

/// What the links of `passage` share, weighed by how rare it is in the
/// corpus: the total weight and the number of the token pairs found on
/// both sides of a link (see the module doc). Add over passages, then
/// divide for a pair's specificity.
pub fn shared_wording(passage: &Passage, a: &Segmented, b: &Segmented, corpus: &CorpusDf) -> (f64, u32) {
    let common = (COMMON_PAIR * corpus.sentences() as f64).max(COMMON_PAIR_FLOOR);
    let common = common.min(u32::MAX as f64) as u32;
    let (mut total, mut count) = (0.0, 0u32);
    for link in &passage.links {
        let pa = token_pairs(&a.tokens[a.tokens_within(link.a[0], link.a[1])]);
        let pb = token_pairs(&b.tokens[b.tokens_within(link.b[0], link.b[1])]);
        let (mut i, mut j) = (0, 0);
        while i < pa.len() && j < pb.len() {
            match pa[i].cmp(&pb[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    total += seed_weight(corpus.df(pa[i]), common) as f64;
                    count += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
    }
    (total, count)
}

/// When `scan` reports a passage: the bars and the rule, one value that
/// every caller takes whole — the scan ([`ScanOptions::report`]), the pair
/// aligner ([`align_prepared`](super::align_prepared), its bound
/// [`can_reach`](super::can_reach)), the index's manifest (flattened into
/// [`IndexOptions`](crate::index::IndexOptions), so `manifest.json` keeps
/// the form it had), the work folder's manifest of a resumable scan, and
/// the front ends (the command line, the Python extension, the Spark
/// driver), which name the bars they expose and hand the values here.
///
/// The rule ([`Reporting::reported`]; the module doc says why): a
/// `verbatim` passage is reported when its significance reaches
/// `min_significance`, or when it is a tight copy of
/// [`VerbatimParams::copy_chars`](crate::align::verbatim::VerbatimParams::copy_chars)
/// characters a side or more that reaches `min_copy_significance` (when
/// lower) and is the two documents' own ([`own_copy`]); the `parallel`
/// passages of a pair are reported, all of them, when those that reach
/// `min_significance` add up to `min_parallel_pair` and the wording their
/// links share is at least `min_specificity` specific. A
/// `min_significance` of 0 reports every passage.
///
/// [`ScanOptions::report`]: super::ScanOptions::report
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reporting {
    /// Passages less significant than this are not reported (0 reports
    /// every passage): [`MIN_SIGNIFICANCE`].
    pub min_significance: f64,
    /// The significance the `parallel` passages of a pair must reach
    /// together ([`MIN_PARALLEL_PAIR`]; not asked when `min_significance`
    /// is 0).
    pub min_parallel_pair: f64,
    /// The specificity (rarity of the wording their links share) a pair's
    /// `parallel` passages must have ([`MIN_SPECIFICITY`]; not asked when
    /// `min_significance` is 0).
    pub min_specificity: f64,
    /// The significance from which a tight copy (a `verbatim` passage whose
    /// seeds cover [`TIGHT_COPY`](crate::align::TIGHT_COPY) of it, at least
    /// [`VerbatimParams::copy_chars`](crate::align::verbatim::VerbatimParams::copy_chars)
    /// characters a side) is reported under `min_significance`, when its
    /// words are the two documents' own ([`own_copy`]); the bound takes
    /// such a copy by what its shared seeds cover, seeds in more than
    /// [`COPY_MAX_DF`] documents weighing nothing. `scan` asks the same of
    /// every passage (this is [`MIN_SIGNIFICANCE`] too); a query asks less
    /// ([`crate::index::MIN_QUERY_COPY`]), as `align` reports a quotation
    /// of 20 characters between two texts. Written into a manifest only
    /// when it is not the default (an index's manifest never held it).
    #[serde(skip_serializing_if = "is_default_copy_bar")]
    pub min_copy_significance: f64,
}

fn is_default_copy_bar(x: &f64) -> bool {
    *x == MIN_SIGNIFICANCE
}

impl Default for Reporting {
    fn default() -> Self {
        Reporting {
            min_significance: MIN_SIGNIFICANCE,
            min_parallel_pair: MIN_PARALLEL_PAIR,
            min_specificity: MIN_SPECIFICITY,
            min_copy_significance: MIN_SIGNIFICANCE,
        }
    }
}

impl Reporting {
    /// Every passage found reported (`scan --all`, `all=True`).
    pub fn every_passage(self) -> Reporting {
        Reporting { min_significance: 0.0, ..self }
    }

    /// These bars with `min_significance` at `x` as a front end takes it:
    /// below 0 is 0 (every passage); not a number stays one, for
    /// [`Reporting::check`] to refuse.
    pub fn with_min_significance(self, x: f64) -> Reporting {
        Reporting { min_significance: if x.is_finite() { x.max(0.0) } else { x }, ..self }
    }

    /// Every bar lowered by `by` but the specificity (a share, not a
    /// significance): what a caller gives [`can_reach`](super::can_reach)
    /// to keep a margin under the bound (the index's queries).
    pub fn lowered(&self, by: f64) -> Reporting {
        Reporting {
            min_significance: self.min_significance - by,
            min_parallel_pair: self.min_parallel_pair - by,
            min_copy_significance: self.min_copy_significance - by,
            ..self.clone()
        }
    }

    /// Bars that cannot work, named as the fields are named here.
    pub fn check(&self) -> Result<(), String> {
        for (name, x) in [
            ("min_significance", self.min_significance),
            ("min_parallel_pair", self.min_parallel_pair),
            ("min_copy_significance", self.min_copy_significance),
        ] {
            if !x.is_finite() || x < 0.0 {
                return Err(format!("{name} = {x}: must be a finite number, at least 0"));
            }
        }
        if !(0.0..=1.0).contains(&self.min_specificity) {
            return Err(format!("min_specificity = {}: must be from 0 to 1", self.min_specificity));
        }
        Ok(())
    }

    /// Whether a short `verbatim` passage may pass under
    /// `min_significance` by `min_copy_significance`: a tight copy
    /// (`score` at least [`TIGHT_COPY`](crate::align::TIGHT_COPY)) of
    /// `copy_chars` characters a side or more, with a copy bar lower than
    /// the bar.
    pub fn short_copy(&self, p: &Passage, copy_chars: u32) -> bool {
        self.min_copy_significance < self.min_significance
            && p.score >= crate::align::TIGHT_COPY
            && p.a[1] - p.a[0] >= copy_chars
            && p.b[1] - p.b[0] >= copy_chars
    }

    /// The rule: which of the passages `found` between two documents
    /// (their significance `sig`, one each) are reported. `specificity`
    /// gives the pair's (the mean weight of what its `parallel` links
    /// share, [`shared_wording`]; `None` when they share nothing), asked
    /// only when a bar is set; `own` tells whether a short copy is the two
    /// documents' own ([`own_copy`]), asked only of a copy that needs it;
    /// `copy_chars` is the shortest short copy
    /// ([`Reporting::short_copy`]).
    pub fn reported(
        &self,
        found: &[Passage],
        sig: &[f64],
        copy_chars: u32,
        specificity: impl FnOnce() -> Option<f64>,
        own: impl Fn(&Passage) -> bool,
    ) -> Vec<bool> {
        let parallel: f64 = found
            .iter()
            .zip(sig)
            .filter(|(p, &s)| p.kind == PassageKind::Parallel && s >= self.min_significance)
            .map(|(_, s)| s)
            .sum();
        let parallel_bar = if self.min_significance > 0.0 { self.min_parallel_pair } else { 0.0 };
        // What the parallel links share must be the pair's own wording,
        // not the corpus's common vocabulary.
        let specific = self.min_significance <= 0.0 || specificity().is_some_and(|x| x >= self.min_specificity);
        found
            .iter()
            .zip(sig)
            .map(|(p, &s)| match p.kind {
                // In a pair of versions, every parallel passage holds (a
                // heading, a moved paragraph), as `align` keeps them.
                PassageKind::Parallel => parallel >= parallel_bar && specific,
                PassageKind::Verbatim => {
                    s >= self.min_significance
                        || (self.short_copy(p, copy_chars) && s >= self.min_copy_significance && own(p))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::{NormalizeOptions, Normalizer};
    use crate::scan::seeds::seeds;
    use crate::segment::segment;

    fn seg(s: &str) -> Segmented {
        segment(&Normalizer::new(NormalizeOptions::default()).normalize(s))
    }

    #[test]
    fn rare_seeds_weigh_one_and_boilerplate_nothing() {
        assert_eq!(seed_weight(1, 100), 1.0);
        assert_eq!(seed_weight(2, 100), 1.0);
        assert!((seed_weight(10, 100) - 0.589).abs() < 0.01);
        assert_eq!(seed_weight(100, 100), 0.0);
        assert_eq!(seed_weight(500, 100), 0.0);
        assert!(seed_weight(3, 100) > seed_weight(4, 100));
    }

    #[test]
    fn text_shared_by_many_documents_is_weak_evidence_and_numbers_none() {
        let p = SeedParams::default();
        let text = "今年1月全国各地天气晴朗气温回升";
        let s = seg(text);
        let all = seeds(&s, &p);
        let span = [0, text.chars().count() as u32];
        let rare = TokenWeights::new(&s, &all, &[], &p);
        // Every token but the number weighs 1.
        assert_eq!(rare.evidence(&s, span), (s.tokens.len() - 1) as f64);
        let common: Vec<(u32, u32)> = all.iter().map(|&(_, pos)| (pos, 60)).collect();
        let banal = TokenWeights::new(&s, &all, &common, &p);
        assert!(banal.evidence(&s, span) < 0.2 * rare.evidence(&s, span));
        // A span counts only the tokens inside it.
        assert_eq!(rare.evidence(&s, [0, 2]), 2.0);
        assert_eq!(rare.evidence(&s, [2, 3]), 0.0);
        assert_eq!(rare.evidence(&s, [5, 5]), 0.0);
        assert_eq!(rare.evidence(&s, [100, 200]), 0.0);
    }

    /// One link over the whole of two texts.
    fn linked(a: &str, b: &str) -> Passage {
        let (la, lb) = (a.chars().count() as u32, b.chars().count() as u32);
        let link = crate::align::Link { a: [0, la], b: [0, lb], score: 0.5, meaning: None };
        Passage {
            kind: crate::align::PassageKind::Parallel,
            a: [0, la],
            b: [0, lb],
            score: 0.5,
            links: vec![link],
            unlinked: Vec::new(),
        }
    }

    #[test]
    fn paraphrase_sharing_only_the_corpus_common_words_is_not_specific() {
        // A corpus whose every other sentence is the house's rhetoric, and
        // one whose sentences are about other things.
        let rhetoric = "实现祖国完全统一是全体中国人民的共同心愿。";
        let house = CorpusDf::new(16);
        let other = CorpusDf::new(16);
        for k in 0..300 {
            let filler = format!("第{k}号文件讨论了河流治理和道路修建。");
            house.add(&seg(&format!("{rhetoric}{filler}")));
            other.add(&seg(&format!("{filler}{filler}")));
        }
        // Two articles paraphrase the rhetoric; two translations render a
        // sentence of a story.
        let (a, b) = ("实现祖国的完全统一，是全体中国人民的共同心愿。", "全体中国人民的共同心愿，就是实现祖国统一。");
        let (sa, sb) = (seg(a), seg(b));
        let specificity = |corpus: &CorpusDf| {
            let (total, count) = shared_wording(&linked(a, b), &sa, &sb, corpus);
            assert!(count >= 8, "{count} token pairs shared");
            total / count as f64
        };
        // In the house's corpus the shared wording is common: nothing.
        assert!(specificity(&house) < 0.1, "{}", specificity(&house));
        // Where nobody else says it, the same wording is the pair's own.
        assert!(specificity(&other) > 0.9, "{}", specificity(&other));
        assert!(specificity(&house) < MIN_SPECIFICITY && specificity(&other) >= MIN_SPECIFICITY);
        // Texts that share no token pair share no wording.
        let (c, d) = ("水手们爬上了桅杆。", "船长下令起锚。");
        assert_eq!(shared_wording(&linked(c, d), &seg(c), &seg(d), &house), (0.0, 0));
    }

    #[test]
    fn a_list_of_names_counts_less_than_the_prose_around_it() {
        // A corpus of running text: every sentence holds the function
        // words, each its own content.
        let corpus = CorpusDf::new(16);
        let mut article = String::new();
        for k in 0..200 {
            let sentence = format!("他们在第{k}次会议上说了这是我们的工作。");
            corpus.add(&seg(&sentence));
            if k < 6 {
                article.push_str(&sentence);
            }
        }
        // A roster of names none of those sentences holds, inside the
        // article, and the article's own prose.
        let roster = "出席的有甄宓骞、禚翊鹍、蒯骧晟、郦邗璩、逄彧岚。";
        let text = format!("{article}{roster}{article}");
        let s = seg(&text);
        corpus.add(&s);
        let common = Commonness::new(&s, &corpus);
        let start = article.chars().count() as u32;
        let list_span = [start, start + roster.chars().count() as u32];
        let prose_span = [0, start];
        let list = common.prose(&s, list_span);
        assert!(list < 0.5, "{list}");
        assert_eq!(common.prose(&s, prose_span), 1.0);
        // Its significance against a copy of the same text is discounted
        // by as much; the prose's is not.
        let p = SeedParams::default();
        let weights = TokenWeights::new(&s, &seeds(&s, &p), &[], &p);
        let side = (&s, &weights, &common);
        let copy = |span: Span| Passage {
            kind: crate::align::PassageKind::Verbatim,
            a: span,
            b: span,
            score: 1.0,
            links: Vec::new(),
            unlinked: Vec::new(),
        };
        let plain = Commonness::EMPTY;
        let undiscounted = significance(&copy(list_span), (&s, &weights, &plain), (&s, &weights, &plain));
        let discounted = significance(&copy(list_span), side, side);
        assert!((discounted - undiscounted * list).abs() < 0.01, "{discounted} {undiscounted} {list}");
        let prose = significance(&copy(prose_span), side, side);
        assert_eq!(prose, significance(&copy(prose_span), (&s, &weights, &plain), (&s, &weights, &plain)));
        // A document that is all list has nothing to be compared with.
        let alone = seg(roster);
        let whole = [0, roster.chars().count() as u32];
        let alone_common = Commonness::new(&alone, &corpus);
        assert_eq!(alone_common.prose(&alone, whole), 1.0);
        // The passage is a list only when it is one on both sides: against
        // a document where it is all the text, it counts whole.
        let alone_weights = TokenWeights::new(&alone, &seeds(&alone, &p), &[], &p);
        let across = Passage { b: whole, ..copy(list_span) };
        assert_eq!(
            significance(&across, side, (&alone, &alone_weights, &alone_common)),
            significance(&across, (&s, &weights, &plain), (&alone, &alone_weights, &plain))
        );
    }
}
