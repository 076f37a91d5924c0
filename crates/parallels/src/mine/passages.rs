//! From a candidate pair to its passages: the aligner links the two
//! documents completely with meaning on, and only what the evidence
//! supports is kept ([`supported`]). `scan` (`scan/across.rs`), the
//! distributed scan's batches and the index's cross-language queries all
//! go through [`align_candidate`], so that they report the same passages.

use super::Candidate;
use crate::align::{Aligner, Link, Passage, PassageKind, Prepared, Span};
use crate::encoder::Pooled;

/// Align a candidate pair: each document prepared by `aligner` with its
/// pooled rows (every sentence's, as [`super::pooled`] gives them); the
/// passages the evidence supports, each with its significance
/// ([`significance`]).
pub fn align_candidate(
    aligner: &Aligner,
    c: &Candidate,
    a: (&Prepared, &Pooled),
    b: (&Prepared, &Pooled),
) -> Vec<(Passage, f64)> {
    let ((pa, ea), (pb, eb)) = (a, b);
    let found = aligner.align_encoded(pa, pb, [ea, eb], None);
    let mined: Vec<(Span, Span)> = c
        .pairs
        .iter()
        .filter_map(|&(i, j, _)| {
            let (x, y) = (pa.seg.sentences.get(i as usize)?, pb.seg.sentences.get(j as usize)?);
            Some(([x.start, x.end], [y.start, y.end]))
        })
        .collect();
    found
        .into_iter()
        .flat_map(|p| supported(p, &mined))
        .map(|p| {
            let s = significance(&p);
            (p, s)
        })
        .collect()
}

/// A cross-language passage's significance: the sum of its links' scores
/// (each the meaning of the link, a cosine), to four decimals.
pub fn significance(p: &Passage) -> f64 {
    let sum: f64 = p.links.iter().map(|l| l.score).sum();
    (sum * 10_000.0).round() / 10_000.0
}

/// A link's meaning from which it is evidence by itself that its sentences
/// translate each other (centred cosines of unrelated sentences lie around
/// 0 ± 0.11; links of the dev crawl's translations mostly 0.4–0.85).
pub const STRONG_LINK: f64 = 0.35;

/// Consecutive links without support that end a passage: inside two
/// unrelated documents, the complete alignment goes on linking sentence to
/// sentence by position and length.
pub const WEAK_RUN: usize = 3;

/// Supported links a cross-language passage needs: two sentences of
/// unrelated documents on one subject can each find a counterpart by
/// chance (on the dev crawls, the healing of a blind man against the
/// sending of the twelve: two links of 0.43 and 0.45); three in a row
/// rarely do.
pub const MIN_SUPPORTED: usize = 3;

/// The parts of a passage aligned completely that the evidence supports.
///
/// Between two documents that are versions of one another, the aligner
/// links every sentence of a region, the weak links among them too.
/// Between a translated passage and an unrelated document around it, that
/// completion overruns: it goes on pairing the host's sentences with the
/// other document's by position. A link is *supported* when its meaning
/// reaches [`STRONG_LINK`] or it holds a mined sentence pair (`mined`:
/// sentence spans in A and B). A passage is cut at every run of
/// [`WEAK_RUN`] unsupported links or more, and each part's unsupported
/// links at either end are left out; parts with fewer than
/// [`MIN_SUPPORTED`] supported links go. A verbatim passage is kept as it
/// is.
pub fn supported(p: Passage, mined: &[(Span, Span)]) -> Vec<Passage> {
    if p.kind == PassageKind::Verbatim || p.links.is_empty() {
        return vec![p];
    }
    let inside = |outer: Span, inner: Span| outer[0] <= inner[0] && inner[1] <= outer[1];
    let good: Vec<bool> = p
        .links
        .iter()
        .map(|l| l.score >= STRONG_LINK || mined.iter().any(|&(a, b)| inside(l.a, a) && inside(l.b, b)))
        .collect();
    if good.iter().all(|&g| g) && good.len() >= MIN_SUPPORTED {
        return vec![p];
    }
    // Runs of links between long weak runs, trimmed to supported ends.
    let mut parts: Vec<std::ops::Range<usize>> = Vec::new();
    let (mut start, mut weak) = (None::<usize>, 0usize);
    let mut last_good = 0;
    for (i, &g) in good.iter().enumerate() {
        if g {
            if start.is_none() {
                start = Some(i);
            }
            last_good = i;
            weak = 0;
        } else {
            weak += 1;
            if weak >= WEAK_RUN {
                if let Some(s) = start.take() {
                    parts.push(s..last_good + 1);
                }
            }
        }
    }
    if let Some(s) = start {
        parts.push(s..last_good + 1);
    }
    parts
        .into_iter()
        .filter(|r| good[r.clone()].iter().filter(|&&g| g).count() >= MIN_SUPPORTED)
        .map(|r| {
            let links: Vec<Link> = p.links[r].to_vec();
            let mut part = Passage::around(p.kind, links);
            // The sentences without counterpart that lie inside the part.
            part.unlinked = p
                .unlinked
                .iter()
                .filter(|u| {
                    u.a.is_none_or(|s| part.a[0] <= s[0] && s[1] <= part.a[1])
                        && u.b.is_none_or(|s| part.b[0] <= s[0] && s[1] <= part.b[1])
                        && (u.a.is_some() || u.b.is_some())
                })
                .cloned()
                .collect();
            part
        })
        .collect()
}
