//! The types every step of `align` hands on (a text made ready, the
//! passages and links of a pair, with spans into the original text) and the
//! two rules they are built with (a passage from its links, scores to four
//! decimals): a leaf, so that the steps import it and not the module that
//! runs them.

use crate::segment::Segmented;
use serde::{Deserialize, Serialize};

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
    /// The linked sentences of A (original code points).
    pub a: Span,
    /// The linked sentences of B.
    pub b: Span,
    /// The similarity the link stands on, in [0, 1]: between texts of one
    /// language the cosine of the sentences' n-gram vectors (lexical);
    /// between two languages the cosine of their sentence vectors
    /// (meaning, as in `meaning`).
    pub score: f64,
    /// The cosine of the two sides' sentence vectors ([`meaning`](super::meaning)), where
    /// the aligner measured it: links found between anchors, and every
    /// link between two languages (there with each text's vectors centred
    /// on their mean, which removes what they say about the language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meaning: Option<f64>,
}

/// A stretch of A and a stretch of B that share material.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Passage {
    /// A copy or two versions of one source.
    pub kind: PassageKind,
    /// The passage's stretch of A (original code points).
    pub a: Span,
    /// The passage's stretch of B.
    pub b: Span,
    /// Length-weighted mean link similarity, in [0, 1].
    pub score: f64,
    /// The linked sentences inside the passage, in order (a verbatim copy
    /// has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
    /// Sentences inside a passage aligned completely that have no
    /// counterpart: what one version adds or leaves out (the null beads
    /// 1-0 and 0-1 of sentence aligners), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlinked: Vec<Unlinked>,
}

impl Passage {
    /// A passage around `links` (non-empty, in order), as the aligner
    /// makes one: its spans from the first to the last link, its score
    /// the length-weighted mean link score.
    pub fn around(kind: PassageKind, links: Vec<Link>) -> Passage {
        passage(kind, links, None)
    }

    /// The same passage seen from B: sides swapped, links in the order of
    /// the new A.
    pub fn flipped(mut self) -> Passage {
        std::mem::swap(&mut self.a, &mut self.b);
        for l in &mut self.links {
            std::mem::swap(&mut l.a, &mut l.b);
        }
        self.links.sort_by(|l, m| l.a.cmp(&m.a).then(l.b.cmp(&m.b)));
        for u in &mut self.unlinked {
            std::mem::swap(&mut u.a, &mut u.b);
        }
        self
    }
}

/// A sentence of one side with no counterpart in its passage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unlinked {
    /// The sentence, when it is in A.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<Span>,
    /// The sentence, when it is in B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub b: Option<Span>,
}

/// A text made ready for alignment: normalized and segmented.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Sentences and tokens, with spans into the original text.
    pub seg: Segmented,
    /// Length of the original text in code points.
    pub chars: u32,
    /// The original text (the encoder reads sentences as written; a
    /// verbatim copy ends where the characters stop agreeing).
    pub text: Option<std::sync::Arc<str>>,
}

/// Scores are written with four decimals.
pub(super) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// A passage around `links` (non-empty, in order); its score is the
/// length-weighted mean link score unless given.
pub(super) fn passage(kind: PassageKind, links: Vec<Link>, score: Option<f64>) -> Passage {
    let (mut wsum, mut w) = (0f64, 0f64);
    for l in &links {
        let len = ((l.a[1] - l.a[0]) + (l.b[1] - l.b[0])) as f64;
        wsum += l.score * len;
        w += len;
    }
    let score = score.unwrap_or(if w > 0.0 { wsum / w } else { 0.0 });
    Passage {
        kind,
        a: [links.iter().map(|l| l.a[0]).min().unwrap_or(0), links.iter().map(|l| l.a[1]).max().unwrap_or(0)],
        b: [links.iter().map(|l| l.b[0]).min().unwrap_or(0), links.iter().map(|l| l.b[1]).max().unwrap_or(0)],
        score: round4(score),
        links,
        unlinked: Vec::new(),
    }
}
