//! Verbatim copies folded into the sentence passages of a pair: a tight
//! copy cut out of the links it meets, to the character; a loose one taking
//! them over; what is left of a link beside a copy kept when it holds on
//! its own ([`merge_copies`] says which copies count and how).

use super::pair::Mode;
use super::types::{passage, round4, Link, Passage, PassageKind, Prepared, Span};
use super::verbatim;

fn overlaps(x: Span, y: Span) -> bool {
    x[0] < y[1] && y[0] < x[1]
}

/// The links of a parallel passage that meet a copy at `ca`, `cb` (overlap
/// it on both sides), in order. A parallel passage's links run forward in
/// A (both ends), so those overlapping `ca` are one run, found by a search:
/// a long pair with many copies costs the links near each copy, not all.
fn meeting(links: &[Link], ca: Span, cb: Span) -> impl Iterator<Item = &Link> {
    debug_assert!(links.windows(2).all(|w| w[0].a[0] <= w[1].a[0] && w[0].a[1] <= w[1].a[1]));
    let from = links.partition_point(|l| l.a[1] <= ca[0]);
    links[from..].iter().take_while(move |l| l.a[0] < ca[1]).filter(move |l| overlaps(l.b, cb))
}

fn clip(x: Span, to: Span) -> Span {
    [x[0].max(to[0]), x[1].min(to[1])]
}

/// Share of the sentence links it meets that a copy must cover to take them over.
const TAKEOVER: f64 = 0.9;
/// Share of its tokens seeds must cover for a copy to be tight: a
/// quotation with a few typos at most, not a close paraphrase. A tight
/// copy is cut out of the sentences around it, and counts from 20
/// characters ([`copy_chars`](verbatim::VerbatimParams::copy_chars)); it
/// is a `verbatim` passage whose score is at least this.
pub const TIGHT_COPY: f64 = 0.95;

/// Fold verbatim copies into the sentence passages.
///
/// Copies are taken longest first; one that lies, on both sides, inside
/// copies already taken is an internal repetition and is dropped. A tight
/// copy (seeds cover [`TIGHT_COPY`] of it) becomes a `verbatim`
/// passage whose spans are the copy's own, to the character ([`exact_ends`]),
/// wherever it starts and ends. The sentence links it meets give up the
/// copied run ([`cut_at_copy`]): what is left of a link beside the copy stays
/// a `parallel` link when it holds on its own ([`Remainder`]: the rest of
/// two versions of one sentence, of a translation) — then the link stays
/// whole and the run is marked inside it, unless the texts are a
/// translation, whose bead stays whole and unmarked — and is dropped when
/// it was linked only for the copy (the quoting author's own words beside
/// the quoted ones), the parallel passage cut in two at the copy. A loose
/// copy (a near-copy with edits) has no exact ends: it takes the links it
/// meets over ([`take_over`]).
///
/// Which copies count: a copy that meets the links of a chain and covers
/// less than nearly all ([`TAKEOVER`]) of them on both sides is a phrase two
/// parallel versions happen to share when it is short or loose (a close
/// paraphrase), and a quotation from `within_tokens` copied tokens (or
/// `copy_chars` characters) on when tight; a copy inside links that are
/// there for it alone (a quotation in otherwise unrelated texts: a lone
/// link, or for a tight copy a passage with at most one link beyond it)
/// always counts. When the texts share no sentence passage, a copy needs
/// `isolated_tokens` copied tokens (or `copy_chars` characters), until one
/// has them.
pub(super) fn merge_copies(
    mut passages: Vec<Passage>,
    copies: &[verbatim::TokenCopy],
    a: &Prepared,
    b: &Prepared,
    limits: CopyLimits,
) -> Vec<Passage> {
    let CopyLimits { mut isolated_tokens, within_tokens, copy_chars, mode } = limits;
    let across = mode.across();
    let (ta, tb) = (&a.seg.tokens, &b.seg.tokens);
    let mut order: Vec<&verbatim::TokenCopy> = copies.iter().collect();
    order.sort_by_key(|c| (std::cmp::Reverse(c.a1 - c.a0), c.a0, c.b0));
    let mut taken_spans: Vec<(Span, Span)> = Vec::new();
    let mut out = Vec::new();
    let texts = match (a.text.as_deref(), b.text.as_deref()) {
        (Some(x), Some(y)) if !order.is_empty() => Some((CharAt::new(x), CharAt::new(y))),
        _ => None,
    };
    let ends = |ca: Span, cb: Span| match &texts {
        Some((xa, xb)) => exact_ends(xa, xb, ca, cb),
        None => (ca, cb),
    };
    for c in order {
        let (ca, cb) = ends(
            [ta[c.a0 as usize].start, ta[c.a1 as usize - 1].end],
            [tb[c.b0 as usize].start, tb[c.b1 as usize - 1].end],
        );
        let long = |tokens: u32| c.copied >= tokens || (ca[1] - ca[0]).min(cb[1] - cb[0]) >= copy_chars;
        let inside = |x: Span, side: fn(&(Span, Span)) -> Span| {
            taken_spans.iter().any(|t| side(t)[0] <= x[0] && x[1] <= side(t)[1])
        };
        if inside(ca, |t| t.0) && inside(cb, |t| t.1) {
            continue;
        }
        let meets = |p: &Passage| meeting(&p.links, ca, cb).next().is_some();
        let parallel = || passages.iter().filter(|p| p.kind == PassageKind::Parallel);
        let met: Vec<&Link> = parallel().flat_map(|p| meeting(&p.links, ca, cb)).collect();
        // Met only by passages linked for the copy alone (no more than a
        // link beyond it): the copy is what those texts share.
        // A loose copy (a close paraphrase of a sentence or two) counts
        // alone only inside lone links.
        let tight = c.identity >= TIGHT_COPY;
        let lone = parallel().filter(|p| meets(p)).all(|p| {
            if tight {
                p.links.len() - meeting(&p.links, ca, cb).count() < VERSION_LINKS
            } else {
                p.links.len() == 1
            }
        });
        let share = |side: fn(&Link) -> Span, cspan: Span| {
            let total: u32 = met.iter().map(|l| side(l)[1] - side(l)[0]).sum();
            let inner: u32 = met.iter().map(|l| clip(side(l), cspan)).map(|x| x[1].saturating_sub(x[0])).sum();
            inner as f64 / total.max(1) as f64
        };
        let (share_a, share_b) = (share(|l| l.a, ca), share(|l| l.b, cb));
        let quotation = long(within_tokens) && tight;
        if !met.is_empty() && !lone && share_a < TAKEOVER && share_b < TAKEOVER && !quotation {
            continue;
        }
        // A copy that is all two texts share must be long; once one is,
        // the texts are related and shorter ones count too.
        if met.is_empty() && passages.is_empty() && !long(isolated_tokens) {
            continue;
        }
        let met_any = !met.is_empty();
        if !tight && met_any {
            // A loose copy (a near-copy with edits) has no exact ends: it
            // takes the sentence links over, whole on a side it covers.
            isolated_tokens = 0;
            taken_spans.push((ca, cb));
            let (clip_a, clip_b) = (share_a < TAKEOVER, share_b < TAKEOVER);
            let (rest, v) = take_over(passages, ca, cb, clip_a, clip_b, round4(c.identity.min(1.0)));
            passages = rest;
            out.push(v);
            continue;
        }
        let remainder = Remainder { a, b, translated: across };
        let mut rest: Vec<Passage> = Vec::new();
        let mut cut = false;
        for p in passages.drain(..) {
            if p.kind == PassageKind::Verbatim || !meets(&p) {
                rest.push(p);
            } else {
                let (pieces, was_cut) = cut_at_copy(p, ca, cb, &remainder);
                rest.extend(pieces);
                cut |= was_cut;
            }
        }
        passages = rest;
        // In a translation, a run copied inside sentences that translate each
        // other is part of their bead; the bead stays whole and unmarked.
        if across && met_any && !cut {
            continue;
        }
        isolated_tokens = 0;
        taken_spans.push((ca, cb));
        let links = copy_links(c, a, b, ca, cb);
        let mut v = passage(PassageKind::Verbatim, links, Some(round4(c.identity.min(1.0))));
        (v.a, v.b) = (ca, cb);
        out.push(v);
    }
    out.extend(passages);
    out
}

/// The sentence links a loose copy meets move into one `verbatim` passage,
/// whole on a side the copy covers, cut to the copy on a side where the
/// linked sentences hold more (`clip_a`, `clip_b`: a copy set into other
/// text); what is left of each parallel passage stays, cut into runs of
/// consecutive links.
fn take_over(
    passages: Vec<Passage>,
    ca: Span,
    cb: Span,
    clip_a: bool,
    clip_b: bool,
    identity: f64,
) -> (Vec<Passage>, Passage) {
    let meets = |l: &Link| overlaps(l.a, ca) && overlaps(l.b, cb);
    let mut taken: Vec<Link> = Vec::new();
    let mut rest: Vec<Passage> = Vec::new();
    for p in passages {
        if p.kind == PassageKind::Verbatim || meeting(&p.links, ca, cb).next().is_none() {
            rest.push(p);
            continue;
        }
        let mut run: Vec<Link> = Vec::new();
        for l in p.links {
            if meets(&l) {
                taken.push(Link {
                    a: if clip_a { clip(l.a, ca) } else { l.a },
                    b: if clip_b { clip(l.b, cb) } else { l.b },
                    ..l
                });
                if !run.is_empty() {
                    rest.push(passage(PassageKind::Parallel, std::mem::take(&mut run), None));
                }
            } else {
                run.push(l);
            }
        }
        if !run.is_empty() {
            rest.push(passage(PassageKind::Parallel, run, None));
        }
    }
    taken.sort_by_key(|x| x.a);
    let mut v = passage(PassageKind::Verbatim, taken, Some(identity));
    v.a = [v.a[0].min(ca[0]), v.a[1].max(ca[1])];
    v.b = [v.b[0].min(cb[0]), v.b[1].max(cb[1])];
    (rest, v)
}

/// A copy's spans pushed out over the characters that agree on both sides
/// beyond its first and last token, up to a space or a line end: the
/// punctuation around a copied run, a number copied only in part. The copy
/// then ends where the copied text ends, not where its tokens do.
fn exact_ends(xa: &CharAt, xb: &CharAt, mut ca: Span, mut cb: Span) -> (Span, Span) {
    // Never across a space or a line end: a copy's edge there is the edge
    // of a paragraph, a line or a word, not a character to add.
    let agree = |&(x, y): &(char, char)| same_char(x, y) && !x.is_whitespace() && !y.is_whitespace();
    let before = xa.text[..xa.byte(ca[0])].chars().rev().zip(xb.text[..xb.byte(cb[0])].chars().rev());
    let n = before.take_while(agree).count() as u32;
    (ca[0], cb[0]) = (ca[0] - n, cb[0] - n);
    let after = xa.text[xa.byte(ca[1])..].chars().zip(xb.text[xb.byte(cb[1])..].chars());
    let n = after.take_while(agree).count() as u32;
    (ca[1], cb[1]) = (ca[1] + n, cb[1] + n);
    (ca, cb)
}

/// Byte offsets of a text's code points, found from a mark every
/// [`CharAt::STEP`] code points: a copy's ends are looked up in constant
/// time however long the text (a lookup from the start, per copy, made a
/// 10 MB text with many copies quadratic).
struct CharAt<'a> {
    text: &'a str,
    marks: Vec<u32>,
}

impl<'a> CharAt<'a> {
    const STEP: usize = 64;

    fn new(text: &'a str) -> CharAt<'a> {
        let marks = text.char_indices().step_by(Self::STEP).map(|(i, _)| i as u32).collect();
        CharAt { text, marks }
    }

    /// The byte offset of code point `at` (the text's length past its end).
    fn byte(&self, at: u32) -> usize {
        let (k, rest) = (at as usize / Self::STEP, at as usize % Self::STEP);
        let Some(&from) = self.marks.get(k) else { return self.text.len() };
        let from = from as usize;
        self.text[from..].char_indices().nth(rest).map_or(self.text.len(), |(i, _)| from + i)
    }
}

/// Two characters that a copy may have for one another at its ends: equal,
/// or one punctuation mark in full and half width (`。` and `.`, `，` and
/// `,`: another punctuation keeps a copy whole).
fn same_char(x: char, y: char) -> bool {
    fn mark(c: char) -> char {
        match c {
            '。' | '．' | '｡' => '.',
            '，' | '、' | '､' => ',',
            '；' => ';',
            '：' => ':',
            '！' => '!',
            '？' => '?',
            '（' => '(',
            '）' => ')',
            '“' | '”' | '「' | '」' | '＂' => '"',
            '‘' | '’' | '『' | '』' | '＇' => '\'',
            _ => c,
        }
    }
    x == y || (!x.is_alphanumeric() && mark(x) == mark(y))
}

/// What [`merge_copies`] needs to know besides the copies.
#[derive(Clone, Copy, Debug)]
pub(super) struct CopyLimits {
    /// Copied tokens a copy needs when it is all two texts share.
    pub(super) isolated_tokens: u32,
    /// Copied tokens from which a copy inside parallel passages is a quotation.
    pub(super) within_tokens: u32,
    /// Characters (on each side) that count as many tokens as either limit.
    pub(super) copy_chars: u32,
    /// How the pair is aligned: between two languages
    /// ([`Mode::MeaningFirst`]) what is left of a link beside a copy is the
    /// rest of a translated sentence.
    pub(super) mode: Mode,
}

/// Tokens in a shorter remainder below which whole tokens are compared, not pairs.
const REMAINDER_FEW: usize = 4;
/// Share of the shorter remainder's token pairs (or tokens, when few) the
/// other side must have for the two to stay linked.
const REMAINDER_SHARED: f64 = 0.25;

/// Decides whether what is left of a sentence link beside a copy holds on
/// its own: two pieces of text in one language do when they share
/// [`REMAINDER_SHARED`] of their token pairs (random prose shares few,
/// two versions of one clause many); what is left of a translated sentence
/// pair does, even on one side only.
#[derive(Clone, Copy)]
struct Remainder<'a> {
    a: &'a Prepared,
    b: &'a Prepared,
    /// What is left says the rest of a sentence in its own words (a
    /// translation, or two versions linked beyond the copy): it holds.
    translated: bool,
}

/// Links of a passage beyond a copy that make its texts versions of each other there.
const VERSION_LINKS: usize = 2;

/// What is left of a link on one side of a copy.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rest {
    /// No token on either side.
    Nothing,
    /// Text on both sides that holds on its own.
    Holds,
    /// Text on one side only, or two pieces that share too little.
    Fails,
}

impl Remainder<'_> {
    fn rest(&self, l: &Link) -> Rest {
        let ids = |p: &Prepared, x: Span| -> Vec<u32> {
            let t = &p.seg.tokens;
            let lo = t.partition_point(|k| k.start < x[0]);
            let hi = t.partition_point(|k| k.end <= x[1]);
            t[lo..hi.max(lo)].iter().map(|k| k.id).collect()
        };
        let (xa, xb) = (ids(self.a, l.a), ids(self.b, l.b));
        match (xa.is_empty(), xb.is_empty()) {
            (true, true) => return Rest::Nothing,
            // A translation says a sentence's rest in its own order and length.
            _ if self.translated => return Rest::Holds,
            (false, false) => {}
            _ => return Rest::Fails,
        }
        let (short, long) = if xa.len() <= xb.len() { (&xa, &xb) } else { (&xb, &xa) };
        let shared = if short.len() < REMAINDER_FEW {
            // A word or two against a clause is no evidence either way.
            if long.len() > 2 * short.len() + 2 {
                return Rest::Fails;
            }
            short.iter().filter(|t| long.contains(t)).count() as f64 / short.len() as f64
        } else {
            let pairs: rustc_hash::FxHashSet<(u32, u32)> = long.windows(2).map(|w| (w[0], w[1])).collect();
            let n = short.len() - 1;
            short.windows(2).filter(|w| pairs.contains(&(w[0], w[1]))).count() as f64 / n as f64
        };
        if shared >= REMAINDER_SHARED {
            Rest::Holds
        } else {
            Rest::Fails
        }
    }
}

/// Cut a parallel passage at a copy: the links it meets give up the copied
/// run and keep what [`Remainder::holds`]; links before the copy (in A) make
/// one passage, links after it another; sentences without counterpart go
/// with the passage on their side of the copy.
fn cut_at_copy(p: Passage, ca: Span, cb: Span, remainder: &Remainder) -> (Vec<Passage>, bool) {
    let meets = |l: &Link| overlaps(l.a, ca) && overlaps(l.b, cb);
    // Two versions linked beyond the copy say the rest of a sentence in
    // their own words: what is left of a link there holds as a translation's.
    let beyond = p.links.len() - meeting(&p.links, ca, cb).count();
    let remainder = Remainder { translated: remainder.translated || beyond >= VERSION_LINKS, ..*remainder };
    // What is left of a met link before and after the copy, when the link
    // is cut (`None`: two versions of one sentence around a shared run, the
    // link stays whole and the copy lies inside it).
    let cut_link = |l: &Link| {
        let pre = Link { a: [l.a[0], ca[0].clamp(l.a[0], l.a[1])], b: [l.b[0], cb[0].clamp(l.b[0], l.b[1])], ..*l };
        let post = Link { a: [ca[1].clamp(l.a[0], l.a[1]), l.a[1]], b: [cb[1].clamp(l.b[0], l.b[1]), l.b[1]], ..*l };
        let rests = [remainder.rest(&pre), remainder.rest(&post)];
        let whole = rests.contains(&Rest::Holds) && !rests.contains(&Rest::Fails);
        (!whole).then(|| [(pre, rests[0]), (post, rests[1])].map(|(x, r)| (r == Rest::Holds).then_some(x)))
    };
    if !meeting(&p.links, ca, cb).any(|l| cut_link(l).is_some()) {
        return (vec![p], false);
    }
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for l in p.links {
        match meets(&l).then(|| cut_link(&l)).flatten() {
            Some([pre, post]) => {
                before.extend(pre);
                after.extend(post);
            }
            None if l.a[0] < ca[0] => before.push(l),
            None => after.push(l),
        }
    }
    let (mut u_before, mut u_after) = (Vec::new(), Vec::new());
    for u in p.unlinked {
        let clear = |x: Option<Span>, c: Span| x.is_none_or(|x| !overlaps(x, c));
        if !clear(u.a, ca) || !clear(u.b, cb) {
            continue;
        }
        let first = u.a.map(|x| x[1] <= ca[0]).or(u.b.map(|x| x[1] <= cb[0])).unwrap_or(false);
        if first {
            u_before.push(u);
        } else {
            u_after.push(u);
        }
    }
    let pieces = [(before, u_before), (after, u_after)]
        .into_iter()
        .filter(|(links, _)| !links.is_empty())
        .map(|(links, unlinked)| {
            let mut q = passage(PassageKind::Parallel, links, None);
            for u in &unlinked {
                for (span, side) in [(&mut q.a, u.a), (&mut q.b, u.b)] {
                    if let Some(x) = side {
                        *span = [span[0].min(x[0]), span[1].max(x[1])];
                    }
                }
            }
            q.unlinked = unlinked;
            q
        })
        .collect();
    (pieces, true)
}

/// Links of a copy cut at A's sentences: one piece per sentence of A the
/// copy touches, its A side the sentence's part inside the copy, its B side
/// the same stretch carried along the diagonal of the nearest seed hit —
/// the same character offsets around the same tokens, for an exact copy.
/// The first and last pieces end where the copy does.
fn copy_links(c: &verbatim::TokenCopy, a: &Prepared, b: &Prepared, ca: Span, cb: Span) -> Vec<Link> {
    let (ta, tb) = (&a.seg.tokens, &b.seg.tokens);
    // B token for A token `t`: along the diagonal of the nearest seed hit.
    let map = |t: u32| -> usize {
        let t = t.clamp(c.a0, c.a1 - 1);
        let k = c.hits.partition_point(|h| h.0 <= t);
        let (i, j) = if k == 0 { c.hits[0] } else { c.hits[k - 1] };
        (j as i64 + t as i64 - i as i64).clamp(c.b0 as i64, c.b1 as i64 - 1) as usize
    };
    // B position of A position `x`, from the token at or after it (a start)
    // or at or before it (an end).
    let start_b = |x: u32| {
        let t = ta.partition_point(|k| k.start < x) as u32;
        let t = t.min(c.a1 - 1);
        let (ka, kb) = (&ta[t as usize], &tb[map(t)]);
        (kb.start as i64 - (ka.start as i64 - x as i64)).clamp(cb[0] as i64, cb[1] as i64) as u32
    };
    let end_b = |x: u32| {
        let t = (ta.partition_point(|k| k.end <= x) as u32).saturating_sub(1).max(c.a0);
        let (ka, kb) = (&ta[t as usize], &tb[map(t)]);
        (kb.end as i64 + (x as i64 - ka.end as i64)).clamp(cb[0] as i64, cb[1] as i64) as u32
    };
    let score = round4(c.identity.min(1.0));
    let pieces: Vec<Span> =
        a.seg.sentences.iter().map(|s| [s.start.max(ca[0]), s.end.min(ca[1])]).filter(|x| x[0] < x[1]).collect();
    let mut links: Vec<Link> = Vec::with_capacity(pieces.len());
    for (k, x) in pieces.iter().enumerate() {
        let y0 = if k == 0 { cb[0] } else { start_b(x[0]) };
        let y1 = if k + 1 == pieces.len() { cb[1] } else { end_b(x[1]) };
        let y0 = y0.max(links.last().map_or(cb[0], |l| l.b[1]));
        if y0 < y1 {
            links.push(Link { a: *x, b: [y0, y1], score, meaning: None });
        }
    }
    if links.is_empty() {
        links.push(Link { a: ca, b: cb, score, meaning: None });
    }
    links
}
