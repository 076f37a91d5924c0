//! The formats of the n-way table ([`Run::table`]): `collation-json`,
//! `csv`, `tsv`, `tei`, and of two texts `tmx` and `bitext`; the writing
//! itself is [`export`](super::super::export)'s.

use super::super::export::{self, CollationOutput};
use super::writer::{Run, WriteError, Writer};

/// The table as `parallels.collation/1` JSON.
pub struct CollationJson;

impl Writer for CollationJson {
    fn name(&self) -> &'static str {
        "collation-json"
    }

    fn about(&self) -> &'static str {
        "The table of all texts at once (`parallels.collation/1` JSON): rows of corresponding sentences, every \
         sentence of every text once"
    }

    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        let table = CollationOutput::new(run.table(), run.witnesses(), &run.texts());
        serde_json::to_writer_pretty(&mut *out, &table)?;
        out.push(b'\n');
        Ok(())
    }
}

/// The table as CSV or TSV: one column per text, one record per row.
pub struct Delimited {
    /// `csv` or `tsv`.
    pub name: &'static str,
    /// `,` or a tab.
    pub delimiter: u8,
}

impl Writer for Delimited {
    fn name(&self) -> &'static str {
        self.name
    }

    fn about(&self) -> &'static str {
        if self.delimiter == b'\t' {
            "That table as TSV (fields with a tab, quote or line break quoted)"
        } else {
            "That table as CSV: one column per text, one record per row"
        }
    }

    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        out.extend(export::delimited(run.table(), &run.texts(), self.delimiter)?);
        Ok(())
    }
}

/// The table as TEI P5 parallel segmentation.
pub struct Tei;

impl Writer for Tei {
    fn name(&self) -> &'static str {
        "tei"
    }

    fn about(&self) -> &'static str {
        "That table as TEI P5 parallel segmentation (`<app>`/`<rdg wit>`)"
    }

    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        out.extend(export::tei(run.table(), &run.witnesses(), &run.texts())?);
        Ok(())
    }
}

/// Two texts' linked sentences as a TMX 1.4 translation memory.
pub struct Tmx;

impl Writer for Tmx {
    fn name(&self) -> &'static str {
        "tmx"
    }

    fn about(&self) -> &'static str {
        "TMX 1.4 translation memory of two texts' linked sentences"
    }

    fn two_texts(&self) -> bool {
        true
    }

    /// Each text's language is the one given for it, or guessed from its
    /// text ([`export::guess_language`]).
    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        let texts = run.texts();
        let lang = |k: usize| {
            run.langs
                .get(k)
                .map(String::as_str)
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| export::guess_language(texts[k]))
        };
        self.check(texts.len())?;
        out.extend(export::tmx(run.table(), &texts, [lang(0), lang(1)])?);
        Ok(())
    }
}

/// Two texts' linked sentences, one pair a line, tab-separated.
pub struct Bitext;

impl Writer for Bitext {
    fn name(&self) -> &'static str {
        "bitext"
    }

    fn about(&self) -> &'static str {
        "Two texts' linked sentences, one pair a line, tab-separated"
    }

    fn two_texts(&self) -> bool {
        true
    }

    fn write(&self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        out.extend(export::bitext(run.table(), &run.texts())?);
        Ok(())
    }
}
