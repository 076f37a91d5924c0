//! Text output: a summary line per pair, then each passage as two columns
//! with linked sentences side by side. Differences are coloured when asked.

use parallels::align::{Passage, PassageKind, Prepared, Span};
use parallels::chars::is_closing;
use parallels::output::AlignOutput;
use parallels::read::Document;
use std::io::{self, Write};
use unicode_width::UnicodeWidthChar;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const DIM: &str = "\x1b[2m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// Width of the terminal from `COLUMNS`, else 100; at least 40.
pub fn terminal_width() -> usize {
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100).max(40)
}

pub struct TextView<'a> {
    pub out: &'a AlignOutput,
    pub docs: &'a [Document],
    pub prepared: &'a [Prepared],
    pub color: bool,
    pub width: usize,
    pub summary_only: bool,
}

/// Characters of a text covered by the union of `spans`, and their share.
fn covered(spans: Vec<Span>, chars: u64) -> (u64, f64) {
    let total = parallels::align::covered_chars(spans);
    (total, if chars == 0 { 0.0 } else { total as f64 / chars as f64 })
}

fn link_spans(ps: &[Passage], side_a: bool) -> Vec<Span> {
    ps.iter()
        .flat_map(|p| {
            if p.links.is_empty() {
                vec![if side_a { p.a } else { p.b }]
            } else {
                p.links.iter().map(|l| if side_a { l.a } else { l.b }).collect()
            }
        })
        .collect()
}

impl TextView<'_> {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("{code}{s}{RESET}")
        } else {
            s.to_string()
        }
    }

    pub fn write(&self, w: &mut dyn Write) -> io::Result<()> {
        let index = |id: &str| self.out.documents.iter().position(|d| d.id == id).unwrap_or(0);
        if self.out.pairs.is_empty() {
            writeln!(w, "No shared passages between {} texts.", self.out.documents.len())?;
        }
        for pair in &self.out.pairs {
            let (x, y) = (index(&pair.a), index(&pair.b));
            let (da, db) = (&self.out.documents[x], &self.out.documents[y]);
            let (ca, fa) = covered(link_spans(&pair.passages, true), da.chars);
            let (cb, fb) = covered(link_spans(&pair.passages, false), db.chars);
            let links: usize = pair.passages.iter().map(|p| p.links.len().max(1)).sum();
            let verbatim = pair.passages.iter().filter(|p| p.kind == PassageKind::Verbatim).count();
            writeln!(
                w,
                "{}",
                self.paint(
                    BOLD,
                    &format!(
                        "{} ↔ {}: {} passage(s) ({} verbatim, {} parallel), {} link(s); shared: {} {:.1}% ({} of {} chars), {} {:.1}% ({} of {} chars)",
                        pair.a,
                        pair.b,
                        pair.passages.len(),
                        verbatim,
                        pair.passages.len() - verbatim,
                        links,
                        pair.a,
                        fa * 100.0,
                        ca,
                        da.chars,
                        pair.b,
                        fb * 100.0,
                        cb,
                        db.chars
                    )
                )
            )?;
            if self.summary_only {
                continue;
            }
            for (k, p) in pair.passages.iter().enumerate() {
                self.passage(w, k + 1, p, (x, &pair.a), (y, &pair.b))?;
            }
            writeln!(w)?;
        }
        Ok(())
    }

    fn passage(
        &self,
        w: &mut dyn Write,
        n: usize,
        p: &Passage,
        (x, a): (usize, &str),
        (y, b): (usize, &str),
    ) -> io::Result<()> {
        let kind = match p.kind {
            PassageKind::Verbatim => "verbatim",
            PassageKind::Parallel => "parallel",
        };
        writeln!(w)?;
        writeln!(
            w,
            "{}",
            self.paint(
                BOLD,
                &format!(
                    "── passage {n} · {kind} · score {:.2} · {a} [{}, {}) ↔ {b} [{}, {})",
                    p.score, p.a[0], p.a[1], p.b[0], p.b[1]
                )
            )
        )?;
        let col = (self.width - 3) / 2;
        let whole = [(p.a, p.b, p.score)];
        let links: Vec<(Span, Span, f64)> =
            if p.links.is_empty() { whole.to_vec() } else { p.links.iter().map(|l| (l.a, l.b, l.score)).collect() };
        let (ta, tb) = (&self.docs[x].text, &self.docs[y].text);
        let mut prev: Option<(Span, Span)> = None;
        for (la, lb, _) in links {
            // Text inside the passage between two links has no counterpart:
            // shown dimmed, each line marked with `⋯`.
            if let Some((pa, pb)) = prev {
                let (ga, gb) = (trimmed(ta, [pa[1], la[0]]), trimmed(tb, [pb[1], lb[0]]));
                if ga.is_some() || gb.is_some() {
                    let unlinked = |t: &str, g: Option<Span>| match g {
                        None => Vec::new(),
                        Some(g) => self
                            .wrap(t, g, &[g], DIM, col - 2)
                            .into_iter()
                            .map(|(l, lw)| (self.paint(DIM, &format!("⋯ {l}")), lw + 2))
                            .collect(),
                    };
                    self.rows(w, &unlinked(ta, ga), &unlinked(tb, gb), col)?;
                }
            }
            prev = Some((la, lb));
            let (ca, cb) = parallels::diff::common(&self.prepared[x], la, &self.prepared[y], lb);
            self.rows(w, &self.wrap(ta, la, &ca, RED, col), &self.wrap(tb, lb, &cb, GREEN, col), col)?;
        }
        Ok(())
    }

    /// Two columns side by side, then a separator line.
    fn rows(
        &self,
        w: &mut dyn Write,
        left: &[(String, usize)],
        right: &[(String, usize)],
        col: usize,
    ) -> io::Result<()> {
        for r in 0..left.len().max(right.len()) {
            let (l, lw) = left.get(r).cloned().unwrap_or_default();
            let (rt, _) = right.get(r).cloned().unwrap_or_default();
            writeln!(w, "{l}{} {} {rt}", " ".repeat(col.saturating_sub(lw)), self.paint(DIM, "│"))?;
        }
        writeln!(w, "{}", self.paint(DIM, &format!("{}┼{}", "─".repeat(col + 1), "─".repeat(col + 1))))
    }

    /// Lines of at most `col` display columns of `text[span]`, with the
    /// characters outside `common` painted; each with its display width.
    /// A closing punctuation mark never starts a line: the character before
    /// it moves down with it.
    fn wrap(&self, text: &str, span: Span, common: &[Span], code: &str, col: usize) -> Vec<(String, usize)> {
        // (character, display width, differs) for the span.
        let mut cells: Vec<(char, usize, bool)> = Vec::with_capacity((span[1] - span[0]) as usize);
        let mut k = 0usize;
        for (pos, ch) in text.chars().enumerate().skip(span[0] as usize).take((span[1] - span[0]) as usize) {
            let pos = pos as u32;
            // Line breaks become spaces; other control characters of the
            // input must never reach the terminal.
            let ch = match ch {
                '\n' | '\r' | '\t' => ' ',
                c if c.is_control() => '\u{FFFD}',
                c => c,
            };
            while k < common.len() && common[k][1] <= pos {
                k += 1;
            }
            let is_common = k < common.len() && common[k][0] <= pos;
            let differs = !is_common && !ch.is_whitespace() && !ch.is_ascii_punctuation() && !is_closing(ch);
            cells.push((ch, ch.width().unwrap_or(0), differs));
        }
        // Break into lines.
        let mut breaks = Vec::new();
        let (mut start, mut w) = (0usize, 0usize);
        let mut i = 0usize;
        while i < cells.len() {
            if w + cells[i].1 > col && i > start {
                let mut at = i;
                if is_closing(cells[i].0) && at - start > 1 {
                    at -= 1;
                }
                breaks.push((start, at));
                start = at;
                w = cells[start..i].iter().map(|c| c.1).sum();
            }
            w += cells[i].1;
            i += 1;
        }
        breaks.push((start, cells.len()));
        breaks
            .into_iter()
            .map(|(lo, hi)| {
                let mut line = String::new();
                let mut painted = false;
                for &(ch, _, differs) in &cells[lo..hi] {
                    if self.color && differs != painted {
                        line.push_str(if differs { code } else { RESET });
                        painted = differs;
                    }
                    line.push(ch);
                }
                if painted {
                    line.push_str(RESET);
                }
                (line, cells[lo..hi].iter().map(|c| c.1).sum())
            })
            .collect()
    }
}

/// `span` of `text` without surrounding whitespace, or `None` if nothing is left.
fn trimmed(text: &str, span: Span) -> Option<Span> {
    if span[0] >= span[1] {
        return None;
    }
    let chars: Vec<char> = text.chars().skip(span[0] as usize).take((span[1] - span[0]) as usize).collect();
    let lo = chars.iter().position(|c| !c.is_whitespace())?;
    let hi = chars.iter().rposition(|c| !c.is_whitespace())? + 1;
    Some([span[0] + lo as u32, span[0] + hi as u32])
}
