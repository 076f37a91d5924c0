//! The n-way alignment of all witnesses: one table whose rows are groups of
//! corresponding sentences, built from the pairwise links.
//!
//! Takes each witness's [`Prepared`] text (its sentences are the units, the
//! same sentences the aligner links) and the `parallels.align/1` output of
//! every pair; hands on a [`Table`]: rows of [`Cell`]s, one per witness, each
//! a run of consecutive sentences of that witness or a gap.
//!
//! # What the table guarantees
//!
//! * Every sentence of every witness is in exactly one cell, and reading a
//!   witness's column from top to bottom reads its sentences in their own
//!   order: a column never jumps back. A cell may cover several consecutive
//!   rows ([`Cell::rows`]): an abridgement's one sentence beside three rows
//!   where two full versions correspond sentence by sentence.
//! * A row's cells correspond (the pairwise links join them); a gap is a
//!   witness without that material *at this place*.
//! * Material a witness has at another place (a moved paragraph) is not
//!   dropped: it stands in its own rows, in that witness's order, and both
//!   places are marked ([`Cell::elsewhere`]): the gap says in which rows the
//!   witness has it, the moved material in which rows the others have it.
//! * The rows do not depend on the order the witnesses were given in: only
//!   the columns follow it (see "Guide order").
//!
//! # Method: progressive alignment on a guide order
//!
//! As multiple-sequence aligners do (Clustal's guide tree, CollateX's
//! witness-by-witness merging), the table is built by adding one witness at
//! a time to a *profile*, the table of the witnesses added so far.
//!
//! 1. **Sentence links.** Each pairwise link (or linkless verbatim passage)
//!    becomes a link between the sentences its spans overlap on each side,
//!    weighing `1 + score` (a link by position and meaning, score 0, still
//!    counts 1).
//! 2. **Guide order.** The *shared size* of a pair is the share of their
//!    sentences the pairwise links join (linked sentences on both sides over
//!    all sentences of both: 1 for two copies). The pair sharing most starts
//!    the profile (its witness with more sentences first); then, repeatedly,
//!    the witness with the largest sum of shared sizes with the witnesses
//!    already in is added. Ties go
//!    to the smaller id, then the smaller text. Ids are file names, so the
//!    order depends on what the witnesses hold, never on where they stood
//!    on the command line. Closest first: the profile grows from the firmest
//!    evidence, and a witness that shares little (an abridgement, a stray
//!    quotation) is fitted last, against everything the others agreed on.
//!    A share rather than a count, because a witness fitted to rows it
//!    groups coarser (a 1–2 link) can only join its sentences to the whole
//!    group: two close versions added first keep their 1–1 rows, and the
//!    looser one spans them (measured on zh-variants, link F1 of the
//!    implied links: 0.970 with counts, 0.978 with shares; EVALUATION.md).
//! 3. **Fitting a witness.** Each sentence `s` of the new witness and each
//!    profile row `r` get an *anchor* weight: the sum of the weights of the
//!    links between `s` and the sentences of `r`, over every witness already
//!    in (a row that two witnesses link to `s` outweighs a row one witness
//!    links). The heaviest chain of anchors increasing in both `r` and `s`
//!    (a longest-increasing-subsequence search with a Fenwick tree of
//!    prefix maxima, `O(k log k)` for `k` anchors, never a rows × sentences
//!    matrix) is the backbone: a 1–1 correspondence that keeps every
//!    column's order. Two backbone anchors side by side that one link
//!    crosses (the new sentence also links the previous row, or the new row
//!    the previous sentence: an n–m group) become one block. Around each
//!    backbone block, the new witness's neighbouring sentences that link
//!    to the block's rows join its cell (a 1–n group), and neighbouring
//!    profile rows that link to the block's sentences join it (n–1): they
//!    stay rows of their own, and the new witness's cell spans them all,
//!    so what the others linked sentence by sentence is not coarsened into
//!    one group. Whether a neighbour links is put to a **vote** of the
//!    witnesses already in that have sentences there (in the neighbouring
//!    row; in the block's rows, for a neighbouring sentence) and any link
//!    with the new witness: each votes for if one of its links joins its
//!    sentences there to the other side, against if none does. The
//!    neighbour joins on a majority or a tie, never without a vote for.
//!    A row joins a cell only if the witnesses in it mostly agree: one
//!    witness's link does not tie to the new witness a row whose other
//!    witnesses link the new one elsewhere or not at all (every row
//!    implies links between all its cells, see "Weak spots"). What is
//!    left between two blocks becomes rows of their own: the profile's
//!    first, then the new witness's, one sentence a row.
//! 4. **Transpositions.** Once every witness is in, each pairwise link
//!    whose two sides ended in disjoint rows is a displacement: in each
//!    row holding one side where the other witness has a gap, the gap is
//!    marked with the rows where that witness has the material.
//!
//! **Conflicts** between pairwise links (A–B and B–C say one thing, A–C
//! another) are resolved in step 3: the backbone keeps the correspondence
//! with the most link weight summed over all witnesses already in, so
//! a majority of witnesses wins over one, and a stronger link over a
//! weaker; around the backbone, a neighbouring row or sentence joins a
//! block by the vote of the witnesses present (one link against the
//! silence of two witnesses loses: zh-variants v1–v3 links a sentence of
//! v1 to v3 that v2, v2_trad and the gold do not, and it is left out of
//! v3's cell rather than implied for v2–v3 too). A link whose two sides
//! end in disjoint rows is shown as a transposition where the other
//! witness has a gap (even when the rows are neighbours), never silently
//! dropped; a link of several sentences that still shares a row with its
//! other side stands there, and its sentences outvoted are not implied.
//!
//! # Weak spots
//!
//! * Progressive alignment never revisits a decision: a witness added early
//!   fixes rows that a later one might have grouped better.
//! * Only the pairwise links are evidence; the table adds no links of its
//!   own, but a row implies links between all its cells (A–B and B–C in one
//!   row imply A–C), right for versions of one text, wrong where one link
//!   of the chain was.
//! * Unlinked material between two anchors is stacked (the profile's rows,
//!   then the new witness's), not interleaved by position.
//! * A cell spanning rows implies its links with each of them: an
//!   abridgement's one sentence beside three is linked to all three, as
//!   coarse as the abridgement is. Where the witnesses in a row disagree
//!   evenly (two in, one linking, one silent), the tie keeps the link, and
//!   the silent witness is implied linked too.
//! * Memory and time grow with the anchors (links × sentences per link ×
//!   rows per sentence), and a fitted witness copies the profile once:
//!   fine for a handful of versions of a book, not meant for a corpus
//!   (`scan` is).

use crate::align::{Prepared, Span};
use crate::output::AlignOutput;

/// A run of consecutive sentences of one witness: indices `[first, end)`
/// into its [`Segmented::sentences`](crate::segment::Segmented::sentences).
pub type Sentences = [u32; 2];

/// One witness's part of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The sentences it holds; `None` is a gap.
    pub sentences: Option<Sentences>,
    /// Their span in the witness's original text (code points, from the
    /// first sentence's start to the last one's end); `None` for a gap.
    pub span: Option<Span>,
    /// How many rows this cell covers, from this one down: 1 for most; more
    /// where its sentences correspond to several rows of the others (an
    /// abridgement's one sentence for three); 0 in the rows below the first
    /// of such a cell (the same sentences again, *continued*). A gap is 1.
    pub rows: u32,
    /// Rows (indices into [`Table::rows`]) this cell's material is linked
    /// to elsewhere, sorted: for a gap, where this witness has the row's
    /// material; for sentences, where the other witnesses have theirs. Empty
    /// unless something was moved.
    pub elsewhere: Vec<usize>,
}

impl Cell {
    /// Is it a gap (no sentences of its witness)?
    pub fn is_gap(&self) -> bool {
        self.sentences.is_none()
    }

    /// Does it continue the cell above (the same sentences, `rows == 0`)?
    pub fn is_continued(&self) -> bool {
        self.rows == 0
    }
}

/// One row: corresponding sentences of every witness, in input order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// One cell per witness, in the order the witnesses were given.
    pub cells: Vec<Cell>,
}

impl Row {
    /// Does a cell of this row have material elsewhere (a transposition)?
    pub fn transposed(&self) -> bool {
        self.cells.iter().any(|c| !c.elsewhere.is_empty())
    }

    /// How many witnesses have sentences in it.
    pub fn present(&self) -> usize {
        self.cells.iter().filter(|c| !c.is_gap()).count()
    }
}

/// The n-way alignment of all witnesses (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Witness ids, in input order (the column order).
    pub ids: Vec<String>,
    /// The guide order: indices into `ids`, in the order the witnesses were
    /// added to the table.
    pub guide: Vec<usize>,
    /// The rows, top to bottom.
    pub rows: Vec<Row>,
}

/// A pairwise link between sentence runs of two witnesses.
#[derive(Clone, Copy, Debug)]
struct SentLink {
    x: Sentences,
    y: Sentences,
    weight: f64,
}

/// The sentences of `p` that `span` overlaps, or `None`.
fn sentences_in(p: &Prepared, span: Span) -> Option<Sentences> {
    let s = &p.seg.sentences;
    let first = s.partition_point(|t| t.end <= span[0]);
    let end = s.partition_point(|t| t.start < span[1]);
    (first < end && span[0] < span[1]).then_some([first as u32, end as u32])
}

/// Pairwise sentence links, per ordered pair `(x, y)` with `x < y`.
fn sentence_links(ids: &[String], prepared: &[&Prepared], out: &AlignOutput) -> Vec<Vec<Vec<SentLink>>> {
    let n = ids.len();
    let mut links = vec![vec![Vec::new(); n]; n];
    let index = |id: &str| ids.iter().position(|d| d == id);
    for pair in &out.pairs {
        let (Some(a), Some(b)) = (index(&pair.a), index(&pair.b)) else { continue };
        if a == b {
            continue;
        }
        let (x, y) = (a.min(b), a.max(b));
        for p in &pair.passages {
            let spans: Vec<(Span, Span, f64)> = if p.links.is_empty() {
                vec![(p.a, p.b, p.score)]
            } else {
                p.links.iter().map(|l| (l.a, l.b, l.score)).collect()
            };
            for (sa, sb, score) in spans {
                let (Some(ra), Some(rb)) = (sentences_in(prepared[a], sa), sentences_in(prepared[b], sb)) else {
                    continue;
                };
                let score = if score.is_finite() { score.clamp(0.0, 1.0) } else { 0.0 };
                let (rx, ry) = if a < b { (ra, rb) } else { (rb, ra) };
                links[x][y].push(SentLink { x: rx, y: ry, weight: 1.0 + score });
            }
        }
    }
    for row in &mut links {
        for l in row.iter_mut() {
            l.sort_by(|p, q| p.x.cmp(&q.x).then(p.y.cmp(&q.y)).then(p.weight.total_cmp(&q.weight)));
        }
    }
    links
}

/// The links between witnesses `u` and `v`, oriented `u` → `v`.
fn oriented(links: &[Vec<Vec<SentLink>>], u: usize, v: usize) -> Vec<(Sentences, Sentences, f64)> {
    if u < v {
        links[u][v].iter().map(|l| (l.x, l.y, l.weight)).collect()
    } else {
        links[v][u].iter().map(|l| (l.y, l.x, l.weight)).collect()
    }
}

fn len(s: Sentences) -> u64 {
    (s[1] - s[0]) as u64
}

/// The order in which witnesses join the table (module docs, step 2).
fn guide_order(ids: &[String], texts: &[&str], prepared: &[&Prepared], links: &[Vec<Vec<SentLink>>]) -> Vec<usize> {
    let n = ids.len();
    let sentences = |w: usize| prepared[w].seg.sentences.len();
    // The share of their sentences two witnesses link: 1 for two copies.
    let mut shared = vec![vec![0f64; n]; n];
    for x in 0..n {
        for y in x + 1..n {
            let s: u64 = links[x][y].iter().map(|l| len(l.x) + len(l.y)).sum();
            let s = s as f64 / (sentences(x) + sentences(y)).max(1) as f64;
            shared[x][y] = s;
            shared[y][x] = s;
        }
    }
    // Smaller key first: by id, then by text (ids are unique, but keep the
    // rule total).
    let key = |w: usize| (ids[w].as_str(), texts.get(w).copied().unwrap_or(""));
    let mut order: Vec<usize> = Vec::with_capacity(n);
    if n == 0 {
        return order;
    }
    let mut best: Option<(usize, usize)> = None;
    for x in 0..n {
        for y in 0..n {
            if x == y {
                continue;
            }
            // x goes first: more sentences, then the smaller key.
            if (sentences(x), std::cmp::Reverse(key(x))) < (sentences(y), std::cmp::Reverse(key(y))) {
                continue;
            }
            let better = match best {
                None => true,
                Some((bx, by)) => {
                    let (s, t) = (shared[x][y], shared[bx][by]);
                    s > t || (s == t && (key(x), key(y)) < (key(bx), key(by)))
                }
            };
            if better {
                best = Some((x, y));
            }
        }
    }
    match best {
        Some((x, y)) => order.extend([x, y]),
        None => order.push(0),
    }
    while order.len() < n {
        let next = (0..n)
            .filter(|w| !order.contains(w))
            .max_by(|&p, &q| {
                let (sp, sq): (f64, f64) =
                    (order.iter().map(|&o| shared[p][o]).sum(), order.iter().map(|&o| shared[q][o]).sum());
                sp.total_cmp(&sq).then(key(q).cmp(&key(p)))
            })
            .expect("a witness is left");
        order.push(next);
    }
    order
}

/// A row of the profile while it is built: per witness, its sentences.
type ProfileRow = Vec<Option<Sentences>>;

/// A witness already in the profile and its links with the one being added
/// (the new witness's sentences first).
type Evidence = (usize, Vec<(Sentences, Sentences, f64)>);

/// Fenwick tree of prefix maxima over positions `0..n`: `(weight, anchor)`.
struct PrefixMax {
    tree: Vec<(f64, usize)>,
}

impl PrefixMax {
    const NONE: (f64, usize) = (0.0, usize::MAX);

    fn new(n: usize) -> PrefixMax {
        PrefixMax { tree: vec![PrefixMax::NONE; n + 1] }
    }

    /// The best entry at positions `< pos`.
    fn below(&self, pos: usize) -> (f64, usize) {
        let (mut i, mut best) = (pos, PrefixMax::NONE);
        while i > 0 {
            if better(self.tree[i], best) {
                best = self.tree[i];
            }
            i &= i - 1;
        }
        best
    }

    fn set(&mut self, pos: usize, v: (f64, usize)) {
        let mut i = pos + 1;
        while i < self.tree.len() {
            if better(v, self.tree[i]) {
                self.tree[i] = v;
            }
            i += i & i.wrapping_neg();
        }
    }
}

/// A heavier chain, or of equal weight the one ending at the earlier anchor
/// (anchors are sorted, so this is deterministic).
fn better(a: (f64, usize), b: (f64, usize)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// The heaviest chain of anchors `(row, sentence, weight)` strictly
/// increasing in both row and sentence; anchors must be sorted by row, then
/// sentence.
fn heaviest_chain(anchors: &[(u32, u32, f64)], sentences: usize) -> Vec<usize> {
    // Rows ascending, sentences descending within a row, so that anchors of
    // one row never chain to each other.
    let mut order: Vec<usize> = (0..anchors.len()).collect();
    order.sort_by(|&p, &q| anchors[p].0.cmp(&anchors[q].0).then(anchors[q].1.cmp(&anchors[p].1)));
    let mut tree = PrefixMax::new(sentences);
    let mut total = vec![0.0f64; anchors.len()];
    let mut prev = vec![usize::MAX; anchors.len()];
    for &k in &order {
        let (_, s, w) = anchors[k];
        let (t, from) = tree.below(s as usize);
        total[k] = t + w;
        prev[k] = from;
        tree.set(s as usize, (total[k], k));
    }
    let Some(mut k) = (0..anchors.len()).fold(None, |best: Option<usize>, k| match best {
        Some(b) if !better((total[k], k), (total[b], b)) => Some(b),
        _ => Some(k),
    }) else {
        return Vec::new();
    };
    let mut chain = vec![k];
    while prev[k] != usize::MAX {
        k = prev[k];
        chain.push(k);
    }
    chain.reverse();
    chain
}

/// For each sentence of witness `x`, the first and last row holding it (a
/// cell may span several consecutive rows); `[u32::MAX, 0]` if none.
fn sentence_rows(profile: &[ProfileRow], x: usize) -> Vec<[u32; 2]> {
    let n = profile.iter().filter_map(|r| r[x]).map(|s| s[1]).max().unwrap_or(0);
    let mut v = vec![[u32::MAX, 0]; n as usize];
    for (r, row) in profile.iter().enumerate() {
        if let Some(s) = row[x] {
            for i in s[0]..s[1] {
                let e = &mut v[i as usize];
                e[0] = e[0].min(r as u32);
                e[1] = e[1].max(r as u32);
            }
        }
    }
    v
}

/// Every row holding a sentence of the run `s`, sorted.
fn rows_of_run(rows: &[[u32; 2]], s: Sentences) -> Vec<usize> {
    let mut v: Vec<usize> = (s[0]..s[1])
        .filter_map(|i| rows.get(i as usize))
        .filter(|e| e[0] <= e[1])
        .flat_map(|e| e[0] as usize..=e[1] as usize)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Add witness `w` to the profile (module docs, step 3).
fn fit(profile: Vec<ProfileRow>, n: usize, w: usize, sentences: u32, evidence: &[Evidence]) -> Vec<ProfileRow> {
    let n_rows = profile.len();
    // Rows of each sentence of each witness already in.
    let row_of: Vec<Vec<[u32; 2]>> = evidence.iter().map(|(x, _)| sentence_rows(&profile, *x)).collect();
    // Anchors: (row, sentence of w) with summed weight, once per link.
    let mut anchors: Vec<(u32, u32, f64)> = Vec::new();
    for ((_, links), rows) in evidence.iter().zip(&row_of) {
        for &(sw, sx, weight) in links {
            let rs = rows_of_run(rows, sx);
            for s in sw[0]..sw[1].min(sentences) {
                for &r in &rs {
                    anchors.push((r as u32, s, weight));
                }
            }
        }
    }
    anchors.sort_by(|p, q| p.0.cmp(&q.0).then(p.1.cmp(&q.1)));
    let mut merged: Vec<(u32, u32, f64)> = Vec::with_capacity(anchors.len());
    for a in anchors {
        match merged.last_mut() {
            Some(m) if m.0 == a.0 && m.1 == a.1 => m.2 += a.2,
            _ => merged.push(a),
        }
    }
    let anchors = merged;
    let linked = |r: u32, s: u32| anchors.binary_search_by(|a| a.0.cmp(&r).then(a.1.cmp(&s))).is_ok();
    // Per witness already in: for each sentence of w, the runs of that
    // witness its links join to it.
    let by_sentence: Vec<Vec<Vec<Sentences>>> = evidence
        .iter()
        .map(|(_, links)| {
            let mut v = vec![Vec::new(); sentences as usize];
            for &(sw, sx, _) in links {
                for s in sw[0]..sw[1].min(sentences) {
                    v[s as usize].push(sx);
                }
            }
            v
        })
        .collect();
    // Does material next to a block join it (module docs, step 3)? The
    // witnesses with sentences in `rows` and any link with w vote: for, if
    // a link joins their sentences there to one of `sents`; against, if
    // none does. A majority of them, or a tie, and at least one for.
    let joins = |rows: std::ops::RangeInclusive<u32>, sents: std::ops::RangeInclusive<u32>| -> bool {
        let (mut yes, mut no) = (0usize, 0usize);
        for (k, (x, links)) in evidence.iter().enumerate() {
            if links.is_empty() {
                continue;
            }
            let held: Vec<Sentences> = rows.clone().filter_map(|r| profile[r as usize][*x]).collect();
            if held.is_empty() {
                continue;
            }
            let joined = sents.clone().any(|s| {
                by_sentence[k][s as usize].iter().any(|run| held.iter().any(|h| h[0] < run[1] && run[0] < h[1]))
            });
            if joined {
                yes += 1;
            } else {
                no += 1;
            }
        }
        yes > 0 && yes >= no
    };
    let chain = heaviest_chain(&anchors, sentences as usize);

    // Blocks: rows [r0, r1] of the profile with sentences [s0, s1] of w.
    let mut blocks: Vec<[u32; 4]> = Vec::with_capacity(chain.len());
    for &k in &chain {
        let (r, s) = (anchors[k].0, anchors[k].1);
        // Two backbone anchors side by side that a link crosses (an n–m
        // group: the new sentence also links the previous rows, or the new
        // row the previous sentences) are one block.
        match blocks.last_mut() {
            Some(b)
                if b[1] + 1 == r
                    && b[3] + 1 == s
                    && ((b[0]..=b[1]).any(|q| linked(q, s)) || (b[2]..=b[3]).any(|t| linked(r, t))) =>
            {
                b[1] = r;
                b[3] = s;
            }
            _ => blocks.push([r, r, s, s]),
        }
    }
    for k in 0..=blocks.len() {
        // The region between block k-1 and block k.
        let (row_lo, s_lo) = if k == 0 { (0, 0) } else { (blocks[k - 1][1] + 1, blocks[k - 1][3] + 1) };
        let (row_hi, s_hi) = if k == blocks.len() { (n_rows as u32, sentences) } else { (blocks[k][0], blocks[k][2]) };
        let (mut s_a, mut s_b) = (s_lo, s_hi);
        let (mut r_a, mut r_b) = (row_lo, row_hi);
        if k > 0 {
            let b = blocks[k - 1];
            // Sentences of w after the previous block that link to its rows.
            while s_a < s_b && joins(b[0]..=b[1], s_a..=s_a) {
                s_a += 1;
            }
            blocks[k - 1][3] = s_a - 1;
            let b = blocks[k - 1];
            // Profile rows after it that link to its sentences.
            while r_a < r_b && joins(r_a..=r_a, b[2]..=b[3]) {
                r_a += 1;
            }
            blocks[k - 1][1] = r_a - 1;
        }
        if k < blocks.len() {
            let b = blocks[k];
            while s_b > s_a && joins(b[0]..=b[1], s_b - 1..=s_b - 1) {
                s_b -= 1;
            }
            blocks[k][2] = s_b;
            let b = blocks[k];
            while r_b > r_a && joins(r_b - 1..=r_b - 1, b[2]..=b[3]) {
                r_b -= 1;
            }
            blocks[k][0] = r_b;
        }
    }
    // The new profile: region by region, the profile's unmatched rows, the
    // new witness's unmatched sentences, then the block.
    let mut out: Vec<ProfileRow> = Vec::with_capacity(n_rows + sentences as usize);
    let (mut next_row, mut next_s) = (0u32, 0u32);
    let emit_until = |out: &mut Vec<ProfileRow>, row_end: u32, s_end: u32, next_row: &mut u32, next_s: &mut u32| {
        for r in *next_row..row_end {
            out.push(profile[r as usize].clone());
        }
        for s in *next_s..s_end {
            let mut row: ProfileRow = vec![None; n];
            row[w] = Some([s, s + 1]);
            out.push(row);
        }
        *next_row = (*next_row).max(row_end);
        *next_s = (*next_s).max(s_end);
    };
    for b in &blocks {
        emit_until(&mut out, b[0], b[2], &mut next_row, &mut next_s);
        // The block's rows stay rows; the new witness's cell spans them.
        for r in b[0]..=b[1] {
            let mut row = profile[r as usize].clone();
            row[w] = Some([b[2], b[3] + 1]);
            out.push(row);
        }
        next_row = b[1] + 1;
        next_s = b[3] + 1;
    }
    emit_until(&mut out, n_rows as u32, sentences, &mut next_row, &mut next_s);
    out
}

/// Build the table of all witnesses from their prepared texts and the
/// pairwise alignment (module docs). `ids` and `prepared` are in input
/// order, as are the documents of `out`; `texts` are the original texts
/// (they only break ties of the guide order between equal ids).
pub fn build_table(ids: &[String], texts: &[&str], prepared: &[&Prepared], out: &AlignOutput) -> Table {
    let n = ids.len().min(prepared.len());
    let (ids, prepared) = (&ids[..n], &prepared[..n]);
    let links = sentence_links(ids, prepared, out);
    let guide = guide_order(ids, texts, prepared, &links);
    let count = |w: usize| prepared[w].seg.sentences.len() as u32;
    let mut profile: Vec<ProfileRow> = Vec::new();
    for (k, &w) in guide.iter().enumerate() {
        if k == 0 {
            profile = (0..count(w))
                .map(|s| {
                    let mut row = vec![None; n];
                    row[w] = Some([s, s + 1]);
                    row
                })
                .collect();
            continue;
        }
        let evidence: Vec<Evidence> = guide[..k].iter().map(|&x| (x, oriented(&links, w, x))).collect();
        profile = fit(profile, n, w, count(w), &evidence);
    }
    // Rows of every sentence, for the transpositions.
    let row_of: Vec<Vec<[u32; 2]>> = (0..n).map(|w| sentence_rows(&profile, w)).collect();
    let mut elsewhere: Vec<Vec<Vec<usize>>> = vec![vec![Vec::new(); n]; profile.len()];
    let rows_of = |w: usize, s: Sentences| rows_of_run(&row_of[w], s);
    for x in 0..n {
        for y in x + 1..n {
            for l in &links[x][y] {
                let (rx, ry) = (rows_of(x, l.x), rows_of(y, l.y));
                if rx.iter().any(|r| ry.contains(r)) {
                    continue;
                }
                for &r in &rx {
                    if profile[r][y].is_none() {
                        elsewhere[r][y].extend(&ry);
                    }
                }
                for &r in &ry {
                    if profile[r][x].is_none() {
                        elsewhere[r][x].extend(&rx);
                    }
                }
            }
        }
    }
    let rows = profile
        .into_iter()
        .zip(elsewhere)
        .enumerate()
        .map(|(r, (row, mut away))| Row {
            cells: row
                .into_iter()
                .enumerate()
                .map(|(w, s)| {
                    let mut e = std::mem::take(&mut away[w]);
                    e.sort_unstable();
                    e.dedup();
                    let sents = &prepared[w].seg.sentences;
                    let (first, last) = match s {
                        Some(s) => (row_of[w][s[0] as usize][0] as usize, row_of[w][s[0] as usize][1] as usize),
                        None => (r, r),
                    };
                    Cell {
                        sentences: s,
                        span: s.map(|s| [sents[s[0] as usize].start, sents[s[1] as usize - 1].end]),
                        rows: if r == first { (last - first + 1) as u32 } else { 0 },
                        elsewhere: e,
                    }
                })
                .collect(),
        })
        .collect();
    Table { ids: ids.to_vec(), guide, rows }
}

impl Table {
    /// Rows joined by cells that span them: each range is one or more
    /// consecutive rows, and no cell crosses from one range into another.
    /// The exports that need whole readings (TEI, TMX, the bitext) write
    /// one unit per range.
    pub fn blocks(&self) -> Vec<std::ops::Range<usize>> {
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        for (r, row) in self.rows.iter().enumerate() {
            match out.last_mut() {
                Some(b) if row.cells.iter().any(Cell::is_continued) => b.end = r + 1,
                _ => out.push(r..r + 1),
            }
        }
        out
    }

    /// The text witness `w` has in the rows `rows`: from its first cell's
    /// start to its last one's end, or `None` if it has a gap in all.
    pub fn span_in(&self, rows: std::ops::Range<usize>, w: usize) -> Option<Span> {
        let spans = self.rows.get(rows)?.iter().filter_map(|r| r.cells.get(w)?.span);
        spans.fold(None, |acc: Option<Span>, s| Some(acc.map_or(s, |a| [a[0].min(s[0]), a[1].max(s[1])])))
    }

    /// The links the table implies between witnesses `x` and `y` (indices
    /// into [`Table::ids`]): the spans of every row where both have
    /// sentences, in row order.
    pub fn implied_links(&self, x: usize, y: usize) -> Vec<(Span, Span)> {
        self.rows
            .iter()
            .filter_map(|r| match (r.cells.get(x)?.span, r.cells.get(y)?.span) {
                (Some(a), Some(b)) => Some((a, b)),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Aligner, Link, Options, Passage, PassageKind};
    use crate::output::{DocumentInfo, PairOutput};

    /// Three sentences a text, each naming its witness and place.
    fn text(w: &str, n: usize) -> String {
        (0..n).map(|k| format!("这是版本{w}的第{k}句话，内容各不相同。\n")).collect()
    }

    /// The table of witnesses `ids` (with `counts` sentences each) from
    /// hand-made sentence links: `(x, y, [x sentences], [y sentences])`.
    fn table_of(ids: &[&str], counts: &[usize], links: &[(usize, usize, Sentences, Sentences)]) -> Table {
        let texts: Vec<String> = ids.iter().zip(counts).map(|(w, &n)| text(w, n)).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let prepared = Aligner::new(Options::default()).prepare_all(&texts);
        for (p, &n) in prepared.iter().zip(counts) {
            assert_eq!(p.seg.sentences.len(), n);
        }
        let span = |w: usize, s: Sentences| {
            let sents = &prepared[w].seg.sentences;
            [sents[s[0] as usize].start, sents[s[1] as usize - 1].end]
        };
        let mut pairs: Vec<PairOutput> = Vec::new();
        for &(x, y, sx, sy) in links {
            let link = Link { a: span(x, sx), b: span(y, sy), score: 0.5, meaning: None };
            match pairs.iter_mut().find(|p| p.a == ids[x] && p.b == ids[y]) {
                Some(p) => p.passages[0].links.push(link),
                None => pairs.push(PairOutput {
                    a: ids[x].to_string(),
                    b: ids[y].to_string(),
                    passages: vec![Passage {
                        kind: PassageKind::Parallel,
                        a: link.a,
                        b: link.b,
                        score: 0.5,
                        links: vec![link],
                        unlinked: Vec::new(),
                    }],
                }),
            }
        }
        let documents = ids
            .iter()
            .zip(&texts)
            .map(|(id, t)| DocumentInfo {
                id: id.to_string(),
                path: format!("{id}.txt").into(),
                chars: t.chars().count() as u64,
                encoding: "utf-8".into(),
            })
            .collect();
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        let prepared: Vec<&Prepared> = prepared.iter().collect();
        build_table(&ids, &texts, &prepared, &AlignOutput::new(documents, pairs))
    }

    /// The sentences of witness `w` in each row (a continued cell's too).
    fn column(t: &Table, w: usize) -> Vec<Option<Sentences>> {
        t.rows.iter().map(|r| r.cells[w].sentences).collect()
    }

    /// a and b (and d, a copy of b) correspond sentence by sentence; c, the
    /// abridgement, has two sentences. a links c's first to its first two
    /// sentences; b (and d) only to their second. c = witness 2.
    fn abridged(with_copy: bool) -> Table {
        let one = |x, y, s: u32| (x, y, [s, s + 1], [s, s + 1]);
        let mut links = vec![one(0, 1, 0), one(0, 1, 1), one(0, 1, 2)];
        links.extend([(0, 2, [0, 2], [0, 1]), (0, 2, [2, 3], [1, 2])]);
        links.extend([(1, 2, [1, 2], [0, 1]), (1, 2, [2, 3], [1, 2])]);
        if with_copy {
            links.extend([one(0, 3, 0), one(0, 3, 1), one(0, 3, 2), one(1, 3, 0), one(1, 3, 1), one(1, 3, 2)]);
            links.extend([(2, 3, [0, 1], [1, 2]), (2, 3, [1, 2], [2, 3])]);
            table_of(&["a", "b", "c", "d"], &[3, 3, 2, 3], &links)
        } else {
            table_of(&["a", "b", "c"], &[3, 3, 2], &links)
        }
    }

    #[test]
    fn a_row_the_witnesses_in_it_mostly_do_not_link_stays_out_of_a_spanning_cell() {
        let t = abridged(true);
        // Rows: a, b and d sentence by sentence; c's first sentence only
        // beside their second (b and d outvote a), its second beside the
        // third.
        assert_eq!(column(&t, 0), [Some([0, 1]), Some([1, 2]), Some([2, 3])]);
        assert_eq!(column(&t, 2), [None, Some([0, 1]), Some([1, 2])]);
        assert!(t.rows.iter().all(|r| r.cells[2].rows == 1 && !r.transposed()));
    }

    #[test]
    fn on_a_tie_the_link_keeps_the_row_in_the_spanning_cell() {
        let t = abridged(false);
        // a links, b is silent: c's first sentence spans the first two rows.
        assert_eq!(column(&t, 2), [Some([0, 1]), Some([0, 1]), Some([1, 2])]);
        assert_eq!(t.rows[0].cells[2].rows, 2);
        assert!(t.rows[1].cells[2].is_continued());
    }
}
