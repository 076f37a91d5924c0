//! The sentence pairs of a scan's translated passages, written the way
//! parallel-corpus miners write them: a tab-separated file of score,
//! source and target, one pair a line (the form of LASER's and LaBSE's
//! mining scripts, CCMatrix, WikiMatrix), or TMX 1.4.
//!
//! A pair is a link of a passage between two documents whose languages
//! differ (`documents`' `language`); its score is the link's (the cosine
//! of its sentences' vectors). Each pair is turned so that the language
//! first by code is the source (`en` before `zh`), whatever the order of
//! the documents in the passage.

use quick_xml::escape::escape;
use rustc_hash::FxHashMap;

use super::ScanTables;

/// One linked sentence pair of a passage between two languages.
#[derive(Clone, Debug, PartialEq)]
pub struct SentencePair {
    /// The link's score.
    pub score: f64,
    /// The source side's language and document id.
    pub source_lang: String,
    /// The source document's id.
    pub source_doc: String,
    /// The target side's language.
    pub target_lang: String,
    /// The target document's id.
    pub target_doc: String,
    /// The source sentences, as the document has them.
    pub source: String,
    /// The target sentences.
    pub target: String,
}

/// Every link of the passages between documents of two languages, in the
/// order of the passages; `text` gives a document's text by id (a
/// document without one is skipped).
pub fn sentence_pairs<'t>(tables: &ScanTables, text: &dyn Fn(&str) -> Option<&'t str>) -> Vec<SentencePair> {
    let lang: FxHashMap<&str, &str> =
        tables.documents.iter().filter_map(|d| Some((d.id.as_str(), d.language.as_deref()?))).collect();
    let mut cut: FxHashMap<&str, crate::chars::CharIndex<'t>> = FxHashMap::default();
    let mut out = Vec::new();
    for p in &tables.passages {
        let (Some(&la), Some(&lb)) = (lang.get(p.a_doc.as_str()), lang.get(p.b_doc.as_str())) else { continue };
        if la == lb {
            continue;
        }
        let (Some(ta), Some(tb)) = (text(&p.a_doc), text(&p.b_doc)) else { continue };
        cut.entry(p.a_doc.as_str()).or_insert_with(|| crate::chars::CharIndex::new(ta));
        cut.entry(p.b_doc.as_str()).or_insert_with(|| crate::chars::CharIndex::new(tb));
        for l in &p.passage.links {
            let sa = cut[p.a_doc.as_str()].slice(l.a[0], l.a[1]).to_owned();
            let sb = cut[p.b_doc.as_str()].slice(l.b[0], l.b[1]).to_owned();
            let (a, b) = ((la, &p.a_doc, sa), (lb, &p.b_doc, sb));
            let (s, t) = if la <= lb { (a, b) } else { (b, a) };
            out.push(SentencePair {
                score: l.score,
                source_lang: s.0.to_owned(),
                source_doc: s.1.clone(),
                target_lang: t.0.to_owned(),
                target_doc: t.1.clone(),
                source: s.2,
                target: t.2,
            });
        }
    }
    out
}

/// A sentence on one line: tabs and line breaks become spaces.
fn one_line(s: &str) -> String {
    s.split(['\t', '\n', '\r']).filter(|x| !x.is_empty()).collect::<Vec<_>>().join(" ")
}

/// `score<TAB>source<TAB>target`, one pair a line.
pub fn tsv(pairs: &[SentencePair]) -> Vec<u8> {
    let mut out = String::new();
    for p in pairs {
        out.push_str(&format!("{:.4}\t{}\t{}\n", p.score, one_line(&p.source), one_line(&p.target)));
    }
    out.into_bytes()
}

/// Characters XML 1.0 does not allow, dropped.
fn xml_chars(s: &str) -> String {
    s.chars()
        .filter(|&c| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..))
        .collect()
}

/// TMX 1.4: one `<tu>` per pair, its score as a `<prop type="x-score">`,
/// each side a `<tuv xml:lang="…">` holding a `<seg>`.
pub fn tmx(pairs: &[SentencePair]) -> Vec<u8> {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tmx version=\"1.4\">\n");
    let srclang = pairs.first().map_or("und", |p| p.source_lang.as_str());
    out.push_str(&format!(
        " <header creationtool=\"parallels\" creationtoolversion=\"{}\" segtype=\"sentence\" o-tmf=\"parallels.scan/1\" adminlang=\"en\" srclang=\"{}\" datatype=\"plaintext\"/>\n <body>\n",
        env!("CARGO_PKG_VERSION"),
        escape(srclang)
    ));
    for p in pairs {
        out.push_str(&format!("  <tu>\n   <prop type=\"x-score\">{:.4}</prop>\n", p.score));
        for (lang, doc, text) in
            [(&p.source_lang, &p.source_doc, &p.source), (&p.target_lang, &p.target_doc, &p.target)]
        {
            out.push_str(&format!(
                "   <tuv xml:lang=\"{}\">\n    <prop type=\"x-document\">{}</prop>\n    <seg>{}</seg>\n   </tuv>\n",
                escape(lang.as_str()),
                escape(xml_chars(doc).as_str()),
                escape(xml_chars(&one_line(text)).as_str())
            ));
        }
        out.push_str("  </tu>\n");
    }
    out.push_str(" </body>\n</tmx>\n");
    out.into_bytes()
}
