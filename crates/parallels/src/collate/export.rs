//! Exports of the collation [`Table`]: the `parallels.collation/1` JSON
//! document, CSV and TSV (one row per table row, one column per witness),
//! TEI P5 parallel segmentation (`<app>`/`<rdg wit="…">`), and, for exactly
//! two witnesses, TMX 1.4 and a bitext (two tab-separated columns of linked
//! sentences, as hunalign, Bertalign and LF Aligner write them).
//!
//! Takes the table, the witnesses' original texts and what the output says
//! about each ([`WitnessInfo`]); hands on bytes. Cell texts are slices of
//! the original texts, never normalized text. XML is written by
//! `quick-xml` (escaping text and attributes); characters XML 1.0 cannot
//! hold (control characters other than tab, line feed and carriage return,
//! U+FFFE, U+FFFF) are written as U+FFFD. CSV and TSV are written by the
//! `csv` crate: a field holding the delimiter, a quote or a line break is
//! quoted, quotes doubled (RFC 4180), so a CSV reader gets every cell back
//! as it was.

use super::table::Table;
use crate::align::{Link, Passage, PassageKind, Prepared, Span};
use crate::chars::{script, CharIndex, Script};
use crate::output::{AlignOutput, DocumentInfo, PairOutput};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::PathBuf;

/// The schema tag of [`CollationOutput`].
pub const COLLATION_SCHEMA: &str = "parallels.collation/1";

/// An export that cannot be made from these witnesses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// TMX and the bitext pair two texts; this many were given.
    #[error(
        "{format} pairs the sentences of exactly two texts, and {given} were given; align two texts for {format}, \
         or use --format collation-json, tsv, csv or tei for {given}"
    )]
    NotTwo {
        /// The format asked for.
        format: &'static str,
        /// How many witnesses the table has.
        given: usize,
    },
    /// Writing failed (only an I/O error of the writer, which writes to
    /// memory: not expected).
    #[error("cannot write {format}: {message}")]
    Write {
        /// The format being written.
        format: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// What the collation output says of each witness: the output's
/// document fields and the number of sentences of its prepared text.
pub fn witnesses(output: &AlignOutput, prepared: &[Prepared]) -> Vec<WitnessInfo> {
    output
        .documents
        .iter()
        .zip(prepared)
        .map(|(d, p)| WitnessInfo {
            id: d.id.clone(),
            path: d.path.clone(),
            chars: d.chars,
            encoding: d.encoding.clone(),
            sentences: p.seg.sentences.len() as u32,
        })
        .collect()
}

/// One witness as the collation output describes it: the fields of
/// [`DocumentInfo`] and its number of sentences.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WitnessInfo {
    /// Its id (unique in the output).
    pub id: String,
    /// The path it was read from, byte for byte ([`crate::corpus::json_path`]).
    #[serde(with = "crate::corpus::json_path")]
    pub path: PathBuf,
    /// Length of the decoded text in code points.
    pub chars: u64,
    /// The encoding it was decoded from.
    pub encoding: String,
    /// How many sentences it was cut into (the table's units).
    pub sentences: u32,
}

/// One witness's cell of a row in `parallels.collation/1`; a plain gap is
/// `null` instead.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellOutput {
    /// Sentence indices `[first, end)`; absent in a gap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences: Option<[u32; 2]>,
    /// Code points of the original text `[start, end)`; absent in a gap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// The same span in bytes of the original text as UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<[u64; 2]>,
    /// The original text of the span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Rows (0-based indices into `rows`) this material is linked to at
    /// another place: for a gap, where this witness has it; for text, where
    /// the others have it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<usize>,
    /// How many rows the cell covers when more than one (the rows below
    /// hold `{"continued": true}` for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    /// The cell above continues here (same sentences; no text repeated).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
}

/// One row of `parallels.collation/1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowOutput {
    /// One cell per witness, in the order of `witnesses`; `null` for a gap.
    pub cells: Vec<Option<CellOutput>>,
    /// Some cell has material at another place (`elsewhere`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transposed: bool,
}

/// The whole `parallels align --format collation-json` document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CollationOutput {
    /// [`COLLATION_SCHEMA`].
    pub schema: String,
    /// Every witness, in the order given (the column order).
    pub witnesses: Vec<WitnessInfo>,
    /// Witness ids in the order they were added to the table.
    pub guide: Vec<String>,
    /// The rows, top to bottom.
    pub rows: Vec<RowOutput>,
}

/// The original text of every cell, row by row: `None` for a gap; a cell
/// covering several rows has its text in each of them.
fn cell_texts<'a>(table: &Table, texts: &[&'a str]) -> Vec<Vec<Option<&'a str>>> {
    let index: Vec<CharIndex> = texts.iter().map(|t| CharIndex::new(t)).collect();
    table
        .rows
        .iter()
        .map(|r| r.cells.iter().zip(&index).map(|(c, ix)| c.span.map(|s| ix.slice(s[0], s[1]))).collect())
        .collect()
}

impl CollationOutput {
    /// The output of `table`, whose witnesses are `witnesses` with these
    /// original `texts` (both in the table's column order).
    pub fn new(table: &Table, witnesses: Vec<WitnessInfo>, texts: &[&str]) -> CollationOutput {
        let index: Vec<CharIndex> = texts.iter().map(|t| CharIndex::new(t)).collect();
        let rows = table
            .rows
            .iter()
            .map(|r| RowOutput {
                cells: r
                    .cells
                    .iter()
                    .zip(&index)
                    .map(|(c, ix)| {
                        if c.is_gap() && c.elsewhere.is_empty() {
                            return None;
                        }
                        if c.is_continued() {
                            return Some(CellOutput {
                                sentences: None,
                                span: None,
                                bytes: None,
                                text: None,
                                elsewhere: Vec::new(),
                                rows: None,
                                continued: true,
                            });
                        }
                        Some(CellOutput {
                            sentences: c.sentences,
                            span: c.span,
                            bytes: c.span.map(|s| ix.bytes(s[0], s[1])).map(|r| [r.start as u64, r.end as u64]),
                            text: c.span.map(|s| ix.slice(s[0], s[1]).to_string()),
                            elsewhere: c.elsewhere.clone(),
                            rows: (c.rows > 1).then_some(c.rows),
                            continued: false,
                        })
                    })
                    .collect(),
                transposed: r.transposed(),
            })
            .collect();
        CollationOutput {
            schema: COLLATION_SCHEMA.to_string(),
            guide: table.guide.iter().filter_map(|&w| table.ids.get(w).cloned()).collect(),
            witnesses,
            rows,
        }
    }

    /// The pairwise links the table implies, as a `parallels.align/1`
    /// document that `parallels eval` scores: for every pair of witnesses
    /// (in column order), one link per row where both have text, and one per
    /// transposition between them (`x` has text in row `r` where `y` has a
    /// gap pointing to row `o`, and in row `o` `y` has text where `x` has a
    /// gap pointing back to `r`), all in one passage. Link scores are 0:
    /// the table groups, it does not measure.
    pub fn implied_links(&self) -> AlignOutput {
        let documents: Vec<DocumentInfo> = self
            .witnesses
            .iter()
            .map(|w| DocumentInfo {
                id: w.id.clone(),
                path: w.path.clone(),
                chars: w.chars,
                encoding: w.encoding.clone(),
            })
            .collect();
        let mut pairs = Vec::new();
        let n = self.witnesses.len();
        // Each row's span per witness, a continued cell's from above.
        let mut spans: Vec<Vec<Option<Span>>> = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            let above = spans.last().cloned().unwrap_or_else(|| vec![None; n]);
            let here: Vec<Option<Span>> = (0..n)
                .map(|w| match row.cells.get(w).and_then(Option::as_ref) {
                    Some(c) if c.continued => above.get(w).copied().flatten(),
                    Some(c) => c.span,
                    None => None,
                })
                .collect();
            spans.push(here);
        }
        for x in 0..n {
            for y in x + 1..n {
                let span = |r: usize, w: usize| spans.get(r)?.get(w).copied().flatten();
                let away = |r: usize, w: usize| -> &[usize] {
                    match self.rows.get(r).and_then(|row| row.cells.get(w)).and_then(Option::as_ref) {
                        Some(c) if c.span.is_none() && !c.continued => &c.elsewhere,
                        _ => &[],
                    }
                };
                let mut links: Vec<Link> = Vec::new();
                for r in 0..self.rows.len() {
                    if let (Some(a), Some(b)) = (span(r, x), span(r, y)) {
                        links.push(Link { a, b, score: 0.0, meaning: None });
                    }
                    // Moved material: x here, y at another row, each gap
                    // pointing to the other's place.
                    for (p, q) in [(x, y), (y, x)] {
                        let Some(here) = span(r, p) else { continue };
                        for &o in away(r, q) {
                            if span(o, p).is_none() && away(o, p).contains(&r) {
                                if let Some(there) = span(o, q) {
                                    let (a, b) = if p == x { (here, there) } else { (there, here) };
                                    links.push(Link { a, b, score: 0.0, meaning: None });
                                }
                            }
                        }
                    }
                }
                links.sort_by(|l, m| l.a.cmp(&m.a).then(l.b.cmp(&m.b)));
                links.dedup_by(|l, m| l.a == m.a && l.b == m.b);
                if links.is_empty() {
                    continue;
                }
                let a =
                    [links.iter().map(|l| l.a[0]).min().unwrap_or(0), links.iter().map(|l| l.a[1]).max().unwrap_or(0)];
                let b =
                    [links.iter().map(|l| l.b[0]).min().unwrap_or(0), links.iter().map(|l| l.b[1]).max().unwrap_or(0)];
                pairs.push(PairOutput {
                    a: self.witnesses[x].id.clone(),
                    b: self.witnesses[y].id.clone(),
                    passages: vec![Passage {
                        kind: PassageKind::Parallel,
                        a,
                        b,
                        score: 0.0,
                        links,
                        unlinked: Vec::new(),
                    }],
                });
            }
        }
        AlignOutput::new(documents, pairs)
    }
}

/// The table as delimited text through the `csv` crate: a header of
/// witness ids, then one record per row, a gap an empty field. A cell
/// covering several rows is written in each of them: in a spreadsheet a
/// record is read, sorted and filtered on its own, so it has to say all
/// that its row holds, and an empty field has to mean a gap only (an
/// abridgement's one sentence beside three rows is not missing from the
/// second and third). The price: such a sentence stands in its column
/// more than once; `parallels.collation/1` and TEI hold it once. `b','` for
/// CSV, `b'\t'` for TSV (fields holding a tab, a quote or a line break are
/// quoted there too).
pub fn delimited(table: &Table, texts: &[&str], delimiter: u8) -> Result<Vec<u8>, ExportError> {
    let format = if delimiter == b'\t' { "tsv" } else { "csv" };
    let fail = |e: &dyn std::fmt::Display| ExportError::Write { format, message: e.to_string() };
    let mut w = csv::WriterBuilder::new().delimiter(delimiter).from_writer(Vec::new());
    w.write_record(&table.ids).map_err(|e| fail(&e))?;
    for row in cell_texts(table, texts) {
        w.write_record(row.iter().map(|c| c.unwrap_or(""))).map_err(|e| fail(&e))?;
    }
    w.into_inner().map_err(|e| fail(&e))
}

/// Per block of rows ([`Table::blocks`]): the rows, and each witness's
/// text in them (`None` for a gap throughout).
fn block_texts<'a>(table: &Table, texts: &[&'a str]) -> Vec<(std::ops::Range<usize>, Vec<Option<&'a str>>)> {
    let index: Vec<CharIndex> = texts.iter().map(|t| CharIndex::new(t)).collect();
    table
        .blocks()
        .into_iter()
        .map(|b| {
            let cells = index
                .iter()
                .enumerate()
                .map(|(w, ix)| table.span_in(b.clone(), w).map(|s| ix.slice(s[0], s[1])))
                .collect();
            (b, cells)
        })
        .collect()
}

/// Text XML 1.0 can hold: characters it forbids become U+FFFD.
fn xml_text(s: &str) -> Cow<'_, str> {
    let bad =
        |c: char| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}');
    if s.chars().any(bad) {
        Cow::Owned(s.chars().map(|c| if bad(c) { '\u{fffd}' } else { c }).collect())
    } else {
        Cow::Borrowed(s)
    }
}

/// A valid, unique `xml:id` (an XML name) for each witness id: letters,
/// digits, `-`, `_` and `.` kept, anything else `_`, a leading non-letter
/// prefixed with `w`, and a number appended where two would clash.
pub fn xml_ids(ids: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(ids.len());
    for id in ids {
        let mut s: String =
            id.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
        if !s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
            s.insert(0, 'w');
        }
        let base = s.clone();
        let mut k = 2;
        while out.contains(&s) {
            s = format!("{base}-{k}");
            k += 1;
        }
        out.push(s);
    }
    out
}

struct Xml {
    w: Writer<Vec<u8>>,
    format: &'static str,
}

impl Xml {
    fn new(format: &'static str) -> Result<Xml, ExportError> {
        let mut x = Xml { w: Writer::new_with_indent(Vec::new(), b' ', 1), format };
        x.event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        Ok(x)
    }

    fn event(&mut self, e: Event) -> Result<(), ExportError> {
        let format = self.format;
        self.w.write_event(e).map_err(|e| ExportError::Write { format, message: e.to_string() })
    }

    fn start(&mut self, name: &str, attrs: &[(&str, &str)]) -> Result<(), ExportError> {
        let mut e = BytesStart::new(name);
        for (k, v) in attrs {
            e.push_attribute((*k, xml_text(v).as_ref()));
        }
        self.event(Event::Start(e))
    }

    fn empty(&mut self, name: &str, attrs: &[(&str, &str)]) -> Result<(), ExportError> {
        let mut e = BytesStart::new(name);
        for (k, v) in attrs {
            e.push_attribute((*k, xml_text(v).as_ref()));
        }
        self.event(Event::Empty(e))
    }

    fn end(&mut self, name: &str) -> Result<(), ExportError> {
        self.event(Event::End(BytesEnd::new(name)))
    }

    fn text(&mut self, t: &str) -> Result<(), ExportError> {
        self.event(Event::Text(BytesText::new(&xml_text(t))))
    }

    /// `<name attrs>text</name>`.
    fn element(&mut self, name: &str, attrs: &[(&str, &str)], t: &str) -> Result<(), ExportError> {
        self.start(name, attrs)?;
        self.text(t)?;
        self.end(name)
    }

    fn finish(self) -> Vec<u8> {
        let mut v = self.w.into_inner();
        v.push(b'\n');
        v
    }
}

/// TEI P5, parallel segmentation: the witnesses declared in a `<listWit>`
/// (`<witness xml:id="…">`, ids made valid by [`xml_ids`]), and in the body
/// one `<app>` per block of rows ([`Table::blocks`]; `n` gives its rows,
/// counted from 1, as `7` or `7-9`), its readings `<rdg wit="#a #b">`
/// grouping the witnesses whose text is the same (an empty `<rdg>` for
/// those with a gap). An `app` with material at another place has
/// `type="transposition"` and its readings name the `app`s of the other
/// place in `corresp` (`#app-N`; every `app` has `xml:id="app-N"`).
pub fn tei(table: &Table, witnesses: &[WitnessInfo], texts: &[&str]) -> Result<Vec<u8>, ExportError> {
    let ids = xml_ids(&table.ids);
    let mut x = Xml::new("tei")?;
    x.start("TEI", &[("xmlns", "http://www.tei-c.org/ns/1.0")])?;
    x.start("teiHeader", &[])?;
    x.start("fileDesc", &[])?;
    x.start("titleStmt", &[])?;
    x.element("title", &[], &format!("Collation of {}", table.ids.join(", ")))?;
    x.end("titleStmt")?;
    x.start("publicationStmt", &[])?;
    x.element("p", &[], &format!("Aligned by parallels {}.", env!("CARGO_PKG_VERSION")))?;
    x.end("publicationStmt")?;
    x.start("sourceDesc", &[])?;
    x.start("listWit", &[])?;
    for (k, id) in ids.iter().enumerate() {
        let label = match witnesses.get(k) {
            Some(w) => format!("{} ({})", table.ids[k], crate::read::shown(&w.path)),
            None => table.ids[k].clone(),
        };
        x.element("witness", &[("xml:id", id)], &label)?;
    }
    x.end("listWit")?;
    x.end("sourceDesc")?;
    x.end("fileDesc")?;
    x.start("encodingDesc", &[])?;
    x.empty("variantEncoding", &[("method", "parallel-segmentation"), ("location", "internal")])?;
    x.end("encodingDesc")?;
    x.end("teiHeader")?;
    x.start("text", &[])?;
    x.start("body", &[])?;
    x.start("ab", &[])?;
    let blocks = block_texts(table, texts);
    // The app holding each row.
    let mut app_of = vec![0usize; table.rows.len()];
    for (k, (b, _)) in blocks.iter().enumerate() {
        for r in b.clone() {
            app_of[r] = k;
        }
    }
    for (k, (b, cells)) in blocks.iter().enumerate() {
        let rows = &table.rows[b.clone()];
        let n = if b.len() == 1 { (b.start + 1).to_string() } else { format!("{}-{}", b.start + 1, b.end) };
        let xml_id = format!("app-{}", k + 1);
        let mut attrs = vec![("xml:id", xml_id.as_str()), ("n", n.as_str())];
        if rows.iter().any(|r| r.transposed()) {
            attrs.push(("type", "transposition"));
        }
        x.start("app", &attrs)?;
        // Readings in column order of their first witness; equal texts share one.
        let mut readings: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
        for (w, t) in cells.iter().enumerate() {
            match readings.iter_mut().find(|(u, _)| *u == *t) {
                Some((_, ws)) => ws.push(w),
                None => readings.push((*t, vec![w])),
            }
        }
        for (t, ws) in readings {
            let wit: Vec<String> = ws.iter().map(|&w| format!("#{}", ids[w])).collect();
            let wit = wit.join(" ");
            let mut away: Vec<usize> = Vec::new();
            for &w in &ws {
                for r in rows {
                    away.extend(r.cells[w].elsewhere.iter().map(|&o| app_of[o]));
                }
            }
            away.sort_unstable();
            away.dedup();
            away.retain(|&a| a != k);
            let corresp: Vec<String> = away.iter().map(|a| format!("#app-{}", a + 1)).collect();
            let corresp = corresp.join(" ");
            let mut attrs = vec![("wit", wit.as_str())];
            if !corresp.is_empty() {
                attrs.push(("corresp", corresp.as_str()));
            }
            match t {
                Some(t) => x.element("rdg", &attrs, t)?,
                None => x.empty("rdg", &attrs)?,
            }
        }
        x.end("app")?;
    }
    x.end("ab")?;
    x.end("body")?;
    x.end("text")?;
    x.end("TEI")?;
    Ok(x.finish())
}

fn two(table: &Table, format: &'static str) -> Result<(), ExportError> {
    if table.ids.len() == 2 {
        Ok(())
    } else {
        Err(ExportError::NotTwo { format, given: table.ids.len() })
    }
}

/// TMX 1.4 of two witnesses: one `<tu>` per block of rows
/// ([`Table::blocks`]) where both have text, each
/// side a `<tuv xml:lang="…"><seg>…</seg></tuv>`; `langs` are the two
/// languages (BCP 47 codes, see [`guess_language`]). The header names the
/// first as `srclang`. An [`ExportError::NotTwo`] for more or fewer.
pub fn tmx(table: &Table, texts: &[&str], langs: [&str; 2]) -> Result<Vec<u8>, ExportError> {
    two(table, "tmx")?;
    let mut x = Xml::new("tmx")?;
    x.start("tmx", &[("version", "1.4")])?;
    x.empty(
        "header",
        &[
            ("creationtool", "parallels"),
            ("creationtoolversion", env!("CARGO_PKG_VERSION")),
            ("segtype", "sentence"),
            ("o-tmf", "parallels.collation/1"),
            ("adminlang", "en"),
            ("srclang", langs[0]),
            ("datatype", "plaintext"),
        ],
    )?;
    x.start("body", &[])?;
    for (_, cells) in block_texts(table, texts) {
        let (Some(a), Some(b)) = (cells[0], cells[1]) else { continue };
        x.start("tu", &[])?;
        for (t, lang) in [(a, langs[0]), (b, langs[1])] {
            x.start("tuv", &[("xml:lang", lang)])?;
            x.element("seg", &[], t)?;
            x.end("tuv")?;
        }
        x.end("tu")?;
    }
    x.end("body")?;
    x.end("tmx")?;
    Ok(x.finish())
}

/// A bitext of two witnesses: one line per block of rows where both have
/// text, the
/// two texts separated by a tab, each on one line (tabs and line breaks
/// inside a text become spaces). An [`ExportError::NotTwo`] for more or
/// fewer.
pub fn bitext(table: &Table, texts: &[&str]) -> Result<Vec<u8>, ExportError> {
    two(table, "bitext")?;
    let flat = |s: &str| s.split(['\t', '\n', '\r']).collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    for (_, cells) in block_texts(table, texts) {
        if let (Some(a), Some(b)) = (cells[0], cells[1]) {
            out.push_str(&flat(a));
            out.push('\t');
            out.push_str(&flat(b));
            out.push('\n');
        }
    }
    Ok(out.into_bytes())
}

/// A guess at a text's language from its script ([`script`]), for TMX's
/// `xml:lang`: `zh` for Han, `ja` for Japanese, `ko` for hangul, `en` for
/// Latin text where English function words are common, `und`
/// (undetermined) otherwise. `--lang` overrides it.
pub fn guess_language(text: &str) -> &'static str {
    match script(text) {
        Script::Han => "zh",
        Script::Japanese => "ja",
        Script::Hangul => "ko",
        Script::Latin => {
            let words: Vec<String> = text
                .split(|c: char| !c.is_alphabetic())
                .filter(|w| !w.is_empty())
                .take(50_000)
                .map(str::to_lowercase)
                .collect();
            let english =
                words.iter().filter(|w| matches!(w.as_str(), "the" | "and" | "of" | "to" | "is" | "that")).count();
            if !words.is_empty() && english * 12 >= words.len() {
                "en"
            } else {
                "und"
            }
        }
        Script::Cyrillic | Script::Other | Script::None => "und",
    }
}
