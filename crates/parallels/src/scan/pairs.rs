//! The pair aligner `scan`, the index's queries and Spark's batches share:
//! each document of a chunk prepared once ([`ChunkDoc`]: its text, seeds,
//! token weights), the bound that tells which pairs can reach the
//! reporting bars before any alignment ([`can_reach`]), and the alignment,
//! weighing and filtering of the pairs that can ([`align_prepared`]).

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::seeds::{self, SeedParams};
#[cfg(doc)]
use super::significance::Reporting;
use super::significance::{own_copy, shared_wording, significance, Commonness, TokenWeights, COPY_MAX_DF};
use super::{Aligned, ScanOptions};
use crate::align::features::{corpus_vectors, CorpusDf, Vectors};
use crate::align::{Aligner, Passage, PassageKind, Prepared, Span};

/// What scan's `align_chunk` does, on documents already prepared (`cache`: every document
/// of the chunk by number), for callers that hold them (the index's
/// queries). When `stop` says so, the pairs not begun yet are left
/// unaligned (a query whose client went away; the caller discards the
/// result).
pub fn align_prepared(
    chunk: &[seeds::Candidate],
    mut cache: FxHashMap<u32, ChunkDoc>,
    aligner: &Aligner,
    corpus_df: &CorpusDf,
    opts: &ScanOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Aligned> {
    let reach: Vec<bool> = chunk.par_iter().map(|&(a, b, _)| can_reach(&cache[&a], &cache[&b], opts)).collect();
    // Sentence vectors only for the documents of pairs to align.
    let mut wanted: Vec<u32> =
        chunk.iter().zip(&reach).filter(|(_, &r)| r).flat_map(|(&(a, b, _), _)| [a, b]).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let vectors: Vec<Vectors> = wanted.par_iter().map(|d| corpus_vectors(&cache[d].p.seg, corpus_df)).collect();
    for (d, v) in wanted.iter().zip(vectors) {
        if let Some(c) = cache.get_mut(d) {
            c.vectors = Some(v);
        }
    }
    let aligned: Vec<Aligned> = chunk
        .par_iter()
        .zip(&reach)
        .filter(|(_, &r)| r)
        .map(|(&(a, b, _), _)| {
            let (da, db) = (&cache[&a], &cache[&b]);
            let x = Aligned { a, b, passages: Vec::new(), significance: Vec::new(), dropped: Vec::new() };
            let (Some(va), Some(vb)) = (&da.vectors, &db.vectors) else { return x };
            // Asked to stop (a server's client gone or out of time): the
            // pairs not begun yet are left unaligned.
            if stop() {
                return x;
            }
            weigh_pair(x, (da, va), (db, vb), aligner, corpus_df, opts)
        })
        .collect();
    aligned.into_iter().filter(|x| !x.passages.is_empty() || !x.dropped.is_empty()).collect()
}

/// One candidate pair aligned (`x`: its numbers, nothing found yet), each
/// passage weighed ([`significance`]) and kept or dropped by the
/// reporting rule ([`Reporting::reported`](super::Reporting::reported)).
fn weigh_pair(
    mut x: Aligned,
    (da, va): (&ChunkDoc, &Vectors),
    (db, vb): (&ChunkDoc, &Vectors),
    aligner: &Aligner,
    corpus_df: &CorpusDf,
    opts: &ScanOptions,
) -> Aligned {
    let found = aligner.align_weighed(&da.p, va, &db.p, vb, corpus_df);
    // How common their words are, for the documents with a passage.
    let (ca, cb) = if found.is_empty() {
        (&Commonness::EMPTY, &Commonness::EMPTY)
    } else {
        (da.commonness(corpus_df), db.commonness(corpus_df))
    };
    let sig: Vec<f64> =
        found.iter().map(|p| significance(p, (&da.p.seg, &da.weights, ca), (&db.p.seg, &db.weights, cb))).collect();
    let specificity = || {
        let (total, count) = found
            .iter()
            .filter(|p| p.kind == PassageKind::Parallel)
            .map(|p| shared_wording(p, &da.p.seg, &db.p.seg, corpus_df))
            .fold((0.0, 0u32), |(t, c), (x, n)| (t + x, c + n));
        (count > 0).then(|| total / count as f64)
    };
    let own = |p: &Passage| {
        let (wa, wb) = (da.copy_weights(&opts.seeds), db.copy_weights(&opts.seeds));
        own_copy(p, (&da.p.seg, wa, ca), (&db.p.seg, wb, cb))
    };
    let reported = opts.report.reported(&found, &sig, opts.align.verbatim.copy_chars, specificity, own);
    for ((p, s), enough) in found.into_iter().zip(sig).zip(reported) {
        if enough {
            x.passages.push(p);
            x.significance.push(s);
        } else {
            x.dropped.push(da.template(p.a, &opts.seeds));
        }
    }
    x
}

/// One document as a chunk of the align stage needs it.
pub struct ChunkDoc {
    text: String,
    p: Prepared,
    /// Its sentence vectors, when a pair of the chunk is aligned.
    vectors: Option<Vectors>,
    weights: TokenWeights,
    /// How common its words are in the corpus, once a pair of the chunk
    /// has found a passage in it.
    common: std::sync::OnceLock<Commonness>,
    /// Its seeds found in two documents or more: position, document
    /// frequency, hash.
    shared: Vec<(u32, u32, u64)>,
    /// Its token weights for copies under the scan's bar (computed once,
    /// when asked: [`ChunkDoc::copy_weights`]).
    copy: std::sync::OnceLock<TokenWeights>,
    /// Every seed `(hash, position)`, by hash.
    by_hash: Vec<(u64, u32)>,
}

impl ChunkDoc {
    /// The document of `text` as a chunk needs it: prepared by `aligner`,
    /// its seeds found with `opts`' parameters, `shared` its seeds found in
    /// two documents or more (`(position, document frequency)`, sorted).
    pub fn prepare(text: String, shared: &[(u32, u32)], aligner: &Aligner, opts: &ScanOptions) -> ChunkDoc {
        let p = aligner.prepare(&text);
        let all = seeds::seeds(&p.seg, &opts.seeds);
        ChunkDoc::new(text, p, all, shared, opts)
    }

    /// A document of `text` prepared as `p`, with every seed `all`
    /// (`(hash, position)`, by position) and those in two documents or
    /// more (`shared`: `(position, df)`, by position).
    pub fn new(
        text: String,
        p: Prepared,
        mut all: Vec<(u64, u32)>,
        shared: &[(u32, u32)],
        opts: &ScanOptions,
    ) -> ChunkDoc {
        let mut d = ChunkDoc {
            text,
            p,
            vectors: None,
            weights: TokenWeights::default(),
            common: std::sync::OnceLock::new(),
            shared: Vec::new(),
            copy: std::sync::OnceLock::new(),
            by_hash: Vec::new(),
        };
        d.weigh(&all, shared, opts);
        all.sort_unstable();
        d.by_hash = all;
        d
    }

    /// Its token weights with seeds in more than [`COPY_MAX_DF`]
    /// documents weighing nothing: what a copy under the scan's bar is
    /// weighed by ([`Reporting::min_copy_significance`]).
    fn copy_weights(&self, p: &SeedParams) -> &TokenWeights {
        self.copy.get_or_init(|| {
            let mut all: Vec<(u64, u32)> = self.by_hash.clone();
            all.sort_unstable_by_key(|&(_, pos)| pos);
            let shared: Vec<(u32, u32)> = self.shared.iter().map(|&(pos, df, _)| (pos, df)).collect();
            TokenWeights::new(&self.p.seg, &all, &shared, &SeedParams { max_df: COPY_MAX_DF, ..p.clone() })
        })
    }

    /// How common its words are in `corpus` (computed once).
    fn commonness(&self, corpus: &CorpusDf) -> &Commonness {
        self.common.get_or_init(|| Commonness::new(&self.p.seg, corpus))
    }

    /// Weigh its tokens (again) from its seeds `all` (by position) and
    /// the frequencies of those in two documents or more (`shared`).
    pub fn weigh(&mut self, all: &[(u64, u32)], shared: &[(u32, u32)], opts: &ScanOptions) {
        self.weights = TokenWeights::new(&self.p.seg, all, shared, &opts.seeds);
        self.copy = std::sync::OnceLock::new();
        // The hash of each shared seed, for the templates.
        let mut k = 0;
        self.shared = Vec::with_capacity(shared.len());
        for &(hash, pos) in all {
            while k < shared.len() && shared[k].0 < pos {
                k += 1;
            }
            if k < shared.len() && shared[k].0 == pos {
                self.shared.push((pos, shared[k].1, hash));
            }
        }
    }

    /// The template an insignificant passage over `span` is made of: its
    /// most widespread seed (key and document frequency; 0 and 0 when it
    /// has none in two documents or more) and the template's own words:
    /// the clauses that seed is in, inside the passage (not the passage's
    /// first characters, which may be any text the template happened to
    /// start: a story before its dateline).
    fn template(&self, span: Span, p: &SeedParams) -> (u64, u32, String) {
        let within = self.p.seg.tokens_within(span[0], span[1]);
        let top = self
            .shared
            .iter()
            .filter(|&&(pos, _, _)| pos as usize >= within.start && pos as usize + p.n <= within.end)
            .max_by_key(|&&(pos, df, _)| (df, std::cmp::Reverse(pos)));
        match top {
            // Only a template's text is ever shown.
            None => (0, 0, String::new()),
            Some(&(pos, df, hash)) => {
                // The clauses the seed is in, inside the passage.
                let all = &self.p.seg.tokens;
                let (pos, end) = (pos as usize, pos as usize + p.n);
                let lo = (within.start..=pos).rev().find(|&k| all[k].clause_start).unwrap_or(within.start);
                let hi = (end..within.end).find(|&k| all[k].clause_start).unwrap_or(within.end);
                let tokens = &all[lo..hi];
                let (start, end) = (tokens[0].start as usize, tokens[tokens.len() - 1].end as usize);
                let text = self.text.chars().skip(start).take((end - start).min(TEMPLATE_CHARS)).collect();
                (hash, df, text)
            }
        }
    }
}

/// The most characters of a template's text `summary.json` shows.
const TEMPLATE_CHARS: usize = 80;

/// Whether aligning `a` with `b` can give a passage that is reported: a
/// cheap bound on what they share, from the seeds both hold, taken
/// before any alignment (most candidate pairs of a newspaper corpus share
/// only formula).
///
/// The seeds the two share are matched `(i in a, j in b)` and chained as
/// `verbatim` chains them: a match joins a chain when it starts at most
/// `3(n + window − 1)` tokens after the chain's last match (three times
/// the stretch in which winnowing guarantees a shared seed, as a noisy
/// copy's edits break seeds) and its diagonal `j − i` is within the
/// verbatim band of the chain's. Each chain is widened by half that gap on
/// both sides, and weighs the smaller of its tokens' weights
/// ([`TokenWeights`]) in `a` and in `b`. A `verbatim` passage lies inside
/// one chain and its significance is its score (at most 1) times at most
/// that weight. The `parallel` passages of a pair paraphrase and need not
/// share seeds in order: they are bounded, more loosely, by the weight of
/// all shared seeds' surroundings in each document. The pair is aligned
/// when its heaviest chain reaches [`Reporting::min_significance`] (or
/// [`Reporting::min_copy_significance`], when lower: the copy rule
/// measures a short copy's significance as any verbatim passage's, with
/// the pair's own weights, and only its bar is lower) or the
/// surroundings reach [`Reporting::min_parallel_pair`]; always when
/// every passage is reported (a bar of 0). The bound is measured, not
/// proven: on news-all and the planted 10 MB and 100 MB corpora every pair
/// with a reported passage was kept (BENCHMARKS.md, issue 17).
pub fn can_reach(a: &ChunkDoc, b: &ChunkDoc, opts: &ScanOptions) -> bool {
    let bars = &opts.report;
    if bars.min_significance <= 0.0 {
        return true;
    }
    let matches = shared_matches(a, b);
    let p = &opts.seeds;
    let n = p.n.max(1);
    let stretch = n + p.window.max(1) - 1;
    let (gap, widen) = (3 * stretch, 3 * stretch / 2);
    // A short copy is measured as every verbatim passage is (the pair's
    // own weights: `significance`), only against a lower bar: the chain
    // that bounds one bounds the other.
    let verbatim_bar = bars.min_significance.min(bars.min_copy_significance);
    if heaviest_chain(&matches, (&a.weights, &b.weights), n, gap, widen, VERBATIM_BAND) >= verbatim_bar {
        return true;
    }
    let mut pa: Vec<u32> = matches.iter().map(|m| m.0).collect();
    let mut pb: Vec<u32> = matches.iter().map(|m| m.1).collect();
    pa.sort_unstable();
    pa.dedup();
    pb.sort_unstable();
    pb.dedup();
    let x = runs_weight(&pa, &a.weights, n, gap, widen);
    let y = runs_weight(&pb, &b.weights, n, gap, widen);
    x.min(y) >= bars.min_parallel_pair
}

/// How far the diagonal of chained matches may drift, in tokens: as
/// `verbatim` chains its seeds.
const VERBATIM_BAND: i64 = 8;
/// Occurrences of one seed in one document matched at most (a seed
/// repeated more often is formula; its first occurrences stand for it).
const MATCHES_PER_SEED: usize = 8;

/// The seeds `a` and `b` share, as matches `(position in a, position in
/// b)` sorted by position in a.
fn shared_matches(a: &ChunkDoc, b: &ChunkDoc) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let (x, y) = (&a.by_hash, &b.by_hash);
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        let (h, g) = (x[i].0, y[j].0);
        if h < g {
            i += 1;
        } else if g < h {
            j += 1;
        } else {
            let i0 = i;
            while i < x.len() && x[i].0 == h {
                i += 1;
            }
            let j0 = j;
            while j < y.len() && y[j].0 == h {
                j += 1;
            }
            for &(_, pa) in x[i0..i].iter().take(MATCHES_PER_SEED) {
                for &(_, pb) in y[j0..j].iter().take(MATCHES_PER_SEED) {
                    out.push((pa, pb));
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// The weight of the heaviest chain of `matches` (sorted by position in
/// a; each covers `n` tokens on both sides): a match joins the chain
/// whose last match ends at most `gap` tokens before it, on both sides,
/// with a diagonal at most `band` away; chains are widened by `widen`
/// tokens on both sides and weigh the lighter side.
fn heaviest_chain(
    matches: &[(u32, u32)],
    w: (&TokenWeights, &TokenWeights),
    n: usize,
    gap: usize,
    widen: usize,
    band: i64,
) -> f64 {
    // (first i, first j, last i, last j, lowest j, highest j)
    let mut chains: Vec<(usize, usize, usize, usize, usize, usize)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut best = 0f64;
    let weigh = |c: &(usize, usize, usize, usize, usize, usize)| {
        let wa = w.0.tokens(c.0.saturating_sub(widen), c.2 + n + widen);
        let wb = w.1.tokens(c.4.saturating_sub(widen), c.5 + n + widen);
        wa.min(wb)
    };
    for &(i, j) in matches {
        let (i, j) = (i as usize, j as usize);
        // Chains too far behind are closed.
        open.retain(|&k| {
            let keep = chains[k].2 + n + gap >= i;
            if !keep {
                best = best.max(weigh(&chains[k]));
            }
            keep
        });
        let joined = open.iter().copied().find(|&k| {
            let c = &chains[k];
            let diagonal = (j as i64 - i as i64) - (c.3 as i64 - c.2 as i64);
            diagonal.abs() <= band && j + gap + n >= c.3 && j <= c.3 + n + gap
        });
        match joined {
            Some(k) => {
                let c = &mut chains[k];
                c.2 = i;
                c.3 = j;
                c.4 = c.4.min(j);
                c.5 = c.5.max(j);
            }
            None => {
                open.push(chains.len());
                chains.push((i, j, i, j, j, j));
            }
        }
    }
    for &k in &open {
        best = best.max(weigh(&chains[k]));
    }
    best
}

/// Chain seeds at `pos` (sorted; each covers `n` tokens) into runs, a seed
/// joining a run when it starts at most `gap` tokens after its end; widen
/// each run by `widen` tokens on both sides. The weight of all runs.
fn runs_weight(pos: &[u32], w: &TokenWeights, n: usize, gap: usize, widen: usize) -> f64 {
    let mut total = 0f64;
    let mut run: Option<(usize, usize)> = None;
    for &q in pos {
        let (lo, hi) = (q as usize, q as usize + n);
        match &mut run {
            Some((_, e)) if lo <= *e + gap => *e = (*e).max(hi),
            _ => {
                if let Some((s, e)) = run.take() {
                    total += w.tokens(s.saturating_sub(widen), e + widen);
                }
                run = Some((lo, hi));
            }
        }
    }
    if let Some((s, e)) = run {
        total += w.tokens(s.saturating_sub(widen), e + widen);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `chars` pseudo-random Han characters, a `。` every 20 (seeded).
    fn han(seed: u64, chars: usize) -> String {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..chars)
            .map(|i| {
                if i % 20 == 19 {
                    return '。';
                }
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                char::from_u32(0x4e00 + ((x >> 33) % 0x5000) as u32).unwrap()
            })
            .collect()
    }

    /// A document as the align stage holds it, every seed in it alone.
    fn chunk_doc(aligner: &Aligner, text: &str, opts: &ScanOptions) -> ChunkDoc {
        let p = aligner.prepare(text);
        let mut all = seeds::seeds(&p.seg, &opts.seeds);
        let weights = TokenWeights::new(&p.seg, &all, &[], &opts.seeds);
        all.sort_unstable();
        ChunkDoc {
            text: text.to_owned(),
            p,
            vectors: None,
            weights,
            common: std::sync::OnceLock::new(),
            shared: Vec::new(),
            copy: std::sync::OnceLock::new(),
            by_hash: all,
        }
    }

    use crate::scan::Reporting;

    #[test]
    fn only_pairs_that_can_reach_the_bar_are_aligned() {
        let opts = ScanOptions::default();
        let aligner = Aligner::new(opts.align.clone());
        let copy = han(1, 200);
        let formula = han(2, 12);
        let a = chunk_doc(&aligner, &format!("{}{copy}{}{formula}", han(3, 300), han(4, 100)), &opts);
        let b = chunk_doc(&aligner, &format!("{formula}{}{copy}{}", han(5, 500), han(6, 50)), &opts);
        let c = chunk_doc(&aligner, &format!("{}{formula}{}", han(7, 400), han(8, 400)), &opts);
        // A 200-character copy is worth aligning; a shared 12-character
        // formula alone is not, unless every passage is reported.
        assert!(can_reach(&a, &b, &opts));
        assert!(!can_reach(&a, &c, &opts));
        assert!(can_reach(&a, &c, &ScanOptions { report: opts.report.clone().every_passage(), ..opts.clone() }));
        // The copy is one chain, as heavy as its tokens (it weighs the
        // lighter side, and a chain is widened beyond the copy).
        let m = shared_matches(&a, &b);
        let n = opts.seeds.n;
        let heaviest = heaviest_chain(&m, (&a.weights, &b.weights), n, 24, 12, VERBATIM_BAND);
        assert!((180.0..=260.0).contains(&heaviest), "{heaviest}");
        // The same copy in another order on one side is not one chain.
        let half = copy.chars().count() / 2;
        let (x, y): (String, String) = (copy.chars().take(half).collect(), copy.chars().skip(half).collect());
        let d = chunk_doc(&aligner, &format!("{y}{}{x}", han(9, 300)), &opts);
        let split = heaviest_chain(&shared_matches(&a, &d), (&a.weights, &d.weights), n, 24, 12, VERBATIM_BAND);
        assert!(split < 0.7 * heaviest, "{split} of {heaviest}");
    }

    #[test]
    fn a_template_is_shown_by_its_own_words_not_the_passage_start() {
        let opts = ScanOptions::default();
        let aligner = Aligner::new(opts.align.clone());
        // A story, then a dateline formula in many documents (its seed
        // the most widespread of the passage), then more story.
        let (story, after) = (han(11, 40), han(12, 40));
        let text = format!("{story}新华社北京一月二十日电记者报道{after}");
        assert!(story.ends_with('。'));
        let mut d = chunk_doc(&aligner, &text, &opts);
        let formula = text.chars().position(|c| c == '新').unwrap() as u32;
        let tokens = &d.p.seg.tokens;
        let at = tokens.iter().position(|t| t.start == formula).unwrap();
        d.shared = d
            .by_hash
            .iter()
            // The formula's seeds (winnowing keeps some of its 5-grams).
            .map(|&(hash, pos)| {
                let inside = (at..=at + 14 - opts.seeds.n).contains(&(pos as usize));
                (pos, if inside { 180 } else { 2 }, hash)
            })
            .collect();
        d.shared.sort_unstable();
        let whole = [0, text.chars().count() as u32];
        let (key, df, shown) = d.template(whole, &opts.seeds);
        assert_eq!(df, 180);
        assert_ne!(key, 0);
        // Its own words, a few tokens either side, inside the passage.
        assert!(shown.contains("北京一月二十"), "{shown}");
        assert!(!shown.starts_with(&story.chars().take(3).collect::<String>()), "{shown}");
        assert_eq!(shown, format!("新华社北京一月二十日电记者报道{}", after.split('。').next().unwrap()));
        // A passage without a seed in two documents has no template.
        let lone = chunk_doc(&aligner, &text, &opts);
        assert_eq!(lone.template(whole, &opts.seeds), (0, 0, String::new()));
    }

    /// A pseudo-random generator of test data (a linear congruential one).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, m: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % m.max(1)
        }
    }

    /// Two documents over `alphabet` Han characters (a small one makes
    /// chance matches), `b` holding `copies` stretches of about `len`
    /// characters of `a`, each character replaced by another with
    /// probability `edits`/100 (near copies, and paraphrases when many
    /// are).
    fn related_pair(seed: u64, alphabet: u64, copies: usize, len: usize, edits: u64) -> (String, String) {
        let mut r = Lcg(seed);
        let sentence = |r: &mut Lcg| -> String {
            let n = 8 + r.below(24);
            let mut s: String = (0..n).map(|_| char::from_u32(0x4e00 + r.below(alphabet) as u32).unwrap()).collect();
            s.push(if r.below(5) == 0 { '\n' } else { '。' });
            s
        };
        let a: String = (0..40).map(|_| sentence(&mut r)).collect();
        let chars: Vec<char> = a.chars().collect();
        let mut b = String::new();
        for _ in 0..copies {
            for _ in 0..1 + r.below(6) {
                b.push_str(&sentence(&mut r));
            }
            let start = r.below(chars.len() as u64) as usize;
            for &c in chars[start..(start + len).min(chars.len())].iter() {
                if r.below(100) < edits {
                    b.push(char::from_u32(0x4e00 + r.below(alphabet) as u32).unwrap());
                } else {
                    b.push(c);
                }
            }
        }
        for _ in 0..1 + r.below(10) {
            b.push_str(&sentence(&mut r));
        }
        (a, b)
    }

    /// Both documents as a chunk holds them, their shared seeds in 2 to
    /// `spread` + 1 documents (by hash), and the feature table of the two.
    fn prepared_pair(a: &str, b: &str, spread: u64, opts: &ScanOptions) -> (ChunkDoc, ChunkDoc, CorpusDf, Aligner) {
        let aligner = Aligner::new(opts.align.clone());
        let (pa, pb) = (aligner.prepare(a), aligner.prepare(b));
        let (sa, sb) = (seeds::seeds(&pa.seg, &opts.seeds), seeds::seeds(&pb.seg, &opts.seeds));
        let hashes: rustc_hash::FxHashSet<u64> = sa.iter().map(|s| s.0).collect();
        let both: rustc_hash::FxHashSet<u64> = sb.iter().map(|s| s.0).filter(|h| hashes.contains(h)).collect();
        let shared = |all: &[(u64, u32)]| -> Vec<(u32, u32)> {
            let mut v: Vec<(u32, u32)> = all
                .iter()
                .filter(|s| both.contains(&s.0))
                .map(|&(h, pos)| (pos, 2 + (h % spread.max(1)) as u32))
                .collect();
            v.sort_unstable();
            v
        };
        let corpus = CorpusDf::new(16);
        corpus.add(&pa.seg);
        corpus.add(&pb.seg);
        let (ha, hb) = (shared(&sa), shared(&sb));
        let da = ChunkDoc::new(a.to_owned(), pa, sa, &ha, opts);
        let db = ChunkDoc::new(b.to_owned(), pb, sb, &hb, opts);
        (da, db, corpus, aligner)
    }

    /// Bars drawn by the property test below.
    struct Drawn {
        seed: u64,
        alphabet: u64,
        copies: usize,
        len: usize,
        edits: u64,
        spread: u64,
        bar: f64,
        pair_bar: f64,
        copy_share: f64,
        specificity: f64,
    }

    /// What a pair of related texts reports under drawn bars, when
    /// `can_reach` turns that pair away (`None` when it does not, or when
    /// nothing is reported).
    fn reported_but_turned_away(d: &Drawn) -> Option<String> {
        // Bars not drawn here (any a later change adds) keep their defaults.
        let report = Reporting {
            min_parallel_pair: d.pair_bar,
            min_specificity: d.specificity,
            min_copy_significance: (d.bar * d.copy_share).min(d.bar),
            ..Reporting::default().with_min_significance(d.bar)
        };
        let opts = ScanOptions { report, ..ScanOptions::default() };
        let (a, b) = related_pair(d.seed, d.alphabet, d.copies, d.len, d.edits);
        let (da, db, corpus, aligner) = prepared_pair(&a, &b, d.spread, &opts);
        let (va, vb) = (corpus_vectors(&da.p.seg, &corpus), corpus_vectors(&db.p.seg, &corpus));
        let x = Aligned { a: 0, b: 1, passages: Vec::new(), significance: Vec::new(), dropped: Vec::new() };
        let measured = weigh_pair(x, (&da, &va), (&db, &vb), &aligner, &corpus, &opts);
        (!measured.passages.is_empty() && !can_reach(&da, &db, &opts)).then(|| {
            format!(
                "reported {:?} (significance {:?}) but turned away",
                measured.passages.iter().map(|p| (p.kind, p.a, p.b)).collect::<Vec<_>>(),
                measured.significance
            )
        })
    }

    /// A case the property test found (2026-12-06): a short copy reported
    /// by the copy rule (its significance over the copy bar, under the
    /// main bar) that `can_reach` turns away, because the bound weighs a
    /// short copy with the copy weights while the rule measures it with
    /// the pair's own. Fixed (issue 46): the bound weighs it as the rule
    /// measures it.
    #[test]
    fn a_short_copy_reported_under_the_main_bar_is_reached() {
        let d = Drawn {
            seed: 12699100279131795527,
            alphabet: 432,
            copies: 1,
            len: 259,
            edits: 28,
            spread: 96,
            bar: 40.944689985171934,
            pair_bar: 226.0731908682624,
            copy_share: 0.31024079511013847,
            specificity: 0.0,
        };
        assert_eq!(reported_but_turned_away(&d), None);
    }

    proptest::proptest! {
        // A fixed seed, so that a run of CI is repeatable: 40 cases drawn
        // the same way every time (a new seed is a new search:
        // `PARALLELS_PROPTEST_SEED=7 PARALLELS_PROPTEST_CASES=400 cargo
        // nextest run -p parallels --lib can_reach_never` searches again).
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: std::env::var("PARALLELS_PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(40),
            failure_persistence: None,
            rng_seed: proptest::test_runner::RngSeed::Fixed(
                std::env::var("PARALLELS_PROPTEST_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or(46),
            ),
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// The bound is a bound: a pair that `can_reach` turns away would
        /// have had no passage reported, whatever the texts and the bars.
        #[test]
        fn can_reach_never_falls_below_the_measure(
            seed in proptest::prelude::any::<u64>(),
            alphabet in 30u64..3000,
            copies in 0usize..4,
            len in 10usize..400,
            edits in 0u64..40,
            spread in 1u64..160,
            bar in 5.0f64..80.0,
            pair_bar in 10.0f64..300.0,
            copy_share in 0.0f64..1.2,
            specificity in 0.0f64..0.8,
        ) {
            let d = Drawn { seed, alphabet, copies, len, edits, spread, bar, pair_bar, copy_share, specificity };
            let found = reported_but_turned_away(&d);
            proptest::prop_assert!(found.is_none(), "{}", found.unwrap_or_default());
        }
    }
}
