//! Hits made output: which of a text's hits are shown ([`trim`]) and the
//! `parallels.align/1` document of texts and their hits
//! ([`align_output`]), the rules `parallels query`, `parallels serve` and
//! any other caller share.

use super::error::IndexError;
use super::query::Hit;
use super::reader::Index;
use crate::output::{AlignOutput, DocumentInfo, PairOutput};
use crate::read::Document;
use rustc_hash::FxHashMap;
use std::path::PathBuf;

/// One text asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asked {
    /// Its id in the output.
    pub id: String,
    /// Its path (or the written form of its source).
    pub path: PathBuf,
    /// The encoding its text was decoded from.
    pub encoding: String,
    /// Its text.
    pub text: String,
}

/// The hits of one text cut to `top` documents and passages of at least
/// `min_chars` characters in the text.
pub fn trim(mut hits: Vec<Hit>, top: usize, min_chars: u32) -> Vec<Hit> {
    for h in &mut hits {
        let keep: Vec<bool> = h.passages.iter().map(|p| p.a[1] - p.a[0] >= min_chars).collect();
        let mut k = keep.iter();
        h.passages.retain(|_| *k.next().unwrap_or(&false));
        let mut k = keep.iter();
        h.significance.retain(|_| *k.next().unwrap_or(&false));
    }
    hits.retain(|h| !h.passages.is_empty());
    hits.truncate(top);
    hits
}

/// The `align` output of texts and their hits, with every document's
/// text (for the text view and the HTML report). Library
/// documents are listed once, after the texts asked; an id met twice gets
/// ` (N)` appended (ids are unique in the schema).
pub fn align_output(
    index: &Index,
    asked: &[Asked],
    hits: &[Vec<Hit>],
) -> Result<(AlignOutput, Vec<Document>), IndexError> {
    let mut infos = Vec::new();
    let mut docs = Vec::new();
    let mut seen: FxHashMap<String, u32> = FxHashMap::default();
    let mut unique = |id: &str| {
        let n = seen.entry(id.to_string()).or_insert(0);
        *n += 1;
        if *n == 1 {
            id.to_string()
        } else {
            format!("{id} ({n})")
        }
    };
    for a in asked {
        let id = unique(&a.id);
        infos.push(DocumentInfo {
            id: id.clone(),
            path: a.path.clone(),
            chars: a.text.chars().count() as u64,
            encoding: a.encoding.clone(),
        });
        docs.push(Document {
            id,
            path: a.path.clone(),
            text: a.text.clone(),
            encoding: a.encoding.clone(),
            replaced: 0,
        });
    }
    let mut lib_id: FxHashMap<u32, String> = FxHashMap::default();
    let mut pairs = Vec::new();
    for (k, hs) in hits.iter().enumerate() {
        for h in hs {
            if let std::collections::hash_map::Entry::Vacant(slot) = lib_id.entry(h.doc) {
                let d = index.doc(h.doc).ok_or(IndexError::NoDocument(h.doc))?;
                let id = unique(&d.id);
                let path = PathBuf::from(d.source.to_string());
                let text = index.text(h.doc).map_err(|e| IndexError::Text { doc: h.doc, error: Box::new(e) })?;
                infos.push(DocumentInfo {
                    id: id.clone(),
                    path: path.clone(),
                    chars: d.chars,
                    encoding: d.encoding.clone(),
                });
                docs.push(Document { id: id.clone(), path, text, encoding: d.encoding.clone(), replaced: 0 });
                slot.insert(id);
            }
            pairs.push(PairOutput { a: infos[k].id.clone(), b: lib_id[&h.doc].clone(), passages: h.passages.clone() });
        }
    }
    Ok((AlignOutput::new(infos, pairs), docs))
}
