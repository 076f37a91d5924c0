//! The text report of an alignment (`parallels align`'s default output): a
//! summary line per pair, then each passage as two columns with linked
//! sentences side by side. Differences are coloured (ANSI) when asked.
//!
//! Takes what [`align_page`](super::align_page) takes — the alignment, the
//! documents' original texts and their prepared token streams — and a
//! width in terminal columns; writes lines of text. Widths are display
//! widths (`unicode-width`: a Han character takes two columns), and a
//! closing punctuation mark ([`is_closing`]) never starts a line.

use crate::align::{Passage, PassageKind, Prepared, Span};
use crate::chars::is_closing;
use crate::output::AlignOutput;
use crate::read::Document;
use std::io::{self, Write};
use unicode_width::UnicodeWidthChar;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const DIM: &str = "\x1b[2m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// Narrowest width [`TextView::width`] may be: two columns of 18.
pub const MIN_WIDTH: usize = 40;

/// The text report of one alignment; [`TextView::write`] writes it.
pub struct TextView<'a> {
    /// The alignment.
    pub out: &'a AlignOutput,
    /// The documents, in the order of `out.documents`.
    pub docs: &'a [Document],
    /// Their prepared texts, in the same order (for the differences).
    pub prepared: &'a [Prepared],
    /// Colour differences with ANSI escapes.
    pub color: bool,
    /// Width of a line in terminal columns (at least [`MIN_WIDTH`]).
    pub width: usize,
    /// Only the summary line of each pair.
    pub summary_only: bool,
}

/// Characters of a text covered by the union of `spans`, and their share.
fn covered(spans: Vec<Span>, chars: u64) -> (u64, f64) {
    let total = crate::align::covered_chars(spans);
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

    /// Write the report to `w`.
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
                        "{} ↔ {}: {} passage(s) ({} verbatim, {} parallel), {} link(s); linked: {} {:.1}% ({} of {} chars), {} {:.1}% ({} of {} chars)",
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
        let col = (self.width.max(MIN_WIDTH) - 3) / 2;
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
            let (ca, cb) = crate::diff::common(&self.prepared[x], la, &self.prepared[y], lb);
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
    /// it moves down with it; a word of a spaced script is not cut.
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
                // Inside a word of a spaced script (English, Russian…), break
                // after the last space of the line instead, if that keeps
                // more than half of it.
                let word = |c: &(char, usize, bool)| c.0.is_alphanumeric() && c.1 == 1;
                if word(&cells[i]) && word(&cells[i - 1]) {
                    if let Some(space) = cells[start..i].iter().rposition(|c| c.0 == ' ') {
                        if 2 * space > i - start {
                            at = start + space + 1;
                        }
                    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{Aligner, Options};
    use crate::output::{DocumentInfo, PairOutput};
    use std::path::PathBuf;

    const A: &str = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。\
                     十七世纪中叶，城中约有两万三千名居民。";
    const B: &str = "布伦纳河在魏斯明德汇入波罗的海，这座港口城市因粮食和琥珀生意而远近闻名。\
                     17世纪中期，城里住着大约23,000人。";

    fn doc(id: &str, text: &str) -> Document {
        Document {
            id: id.to_string(),
            path: PathBuf::from(format!("{id}.txt")),
            text: text.to_string(),
            encoding: "utf-8".to_string(),
            replaced: 0,
        }
    }

    /// The two documents aligned, as `align` gives them.
    fn aligned(docs: &[Document]) -> (AlignOutput, Vec<Prepared>) {
        let aligner = Aligner::new(Options::default());
        let prepared: Vec<Prepared> = docs.iter().map(|d| aligner.prepare(&d.text)).collect();
        let infos = docs
            .iter()
            .map(|d| DocumentInfo {
                id: d.id.clone(),
                path: d.path.clone(),
                chars: d.text.chars().count() as u64,
                encoding: d.encoding.clone(),
            })
            .collect();
        let pair = PairOutput {
            a: docs[0].id.clone(),
            b: docs[1].id.clone(),
            passages: aligner.align(&prepared[0], &prepared[1]),
        };
        (AlignOutput::new(infos, vec![pair]), prepared)
    }

    fn render(width: usize, color: bool, summary_only: bool) -> String {
        let docs = [doc("a", A), doc("b", B)];
        let (out, prepared) = aligned(&docs);
        let view = TextView { out: &out, docs: &docs, prepared: &prepared, color, width, summary_only };
        let mut buf = Vec::new();
        view.write(&mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn columns_fit_the_width_and_no_line_starts_with_a_closing_mark() {
        use unicode_width::UnicodeWidthStr;
        let text = render(MIN_WIDTH, false, false);
        let rows: Vec<&str> = text.lines().filter(|l| l.contains(" │ ")).collect();
        assert!(rows.len() > 4, "{text}");
        for row in rows {
            assert!(row.width() <= MIN_WIDTH, "{row:?}");
            for side in row.split(" │ ") {
                let first = side.trim_start_matches("⋯ ").chars().next();
                assert!(!first.is_some_and(is_closing), "{row:?}");
            }
        }
    }

    #[test]
    fn english_lines_break_between_words() {
        let docs = [doc("a", A), doc("b", B)];
        let (out, prepared) = aligned(&docs);
        let view =
            TextView { out: &out, docs: &docs, prepared: &prepared, color: false, width: 60, summary_only: false };
        let english = "And when he was come out of the ship, immediately there met him out of the tombs a man.";
        let lines = view.wrap(english, [0, english.chars().count() as u32], &[], "", 28);
        let text: Vec<&str> = lines.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(text.concat(), english);
        for (line, width) in &lines {
            assert!(*width <= 28, "{line:?}");
        }
        for pair in text.windows(2) {
            let (end, start) = (pair[0].chars().last().unwrap(), pair[1].chars().next().unwrap());
            assert!(!(end.is_alphanumeric() && start.is_alphanumeric()), "a word cut: {pair:?}");
        }
    }

    #[test]
    fn the_summary_is_one_line_per_pair_and_colour_only_when_asked() {
        let summary = render(100, false, true);
        assert_eq!(summary.lines().count(), 1, "{summary}");
        assert!(summary.starts_with("a ↔ b: 1 passage(s)"), "{summary}");
        assert!(!render(100, false, false).contains('\x1b'));
        assert!(render(100, true, false).contains(RED));
    }
}
