//! What the tests of the formats share (compiled for tests only): texts as
//! documents, aligned as `collate` aligns them, and the bytes a writer
//! writes of them. A leaf, so that a format's own file can test it.

use super::writer::{Run, WriteError, Writer};
use crate::align::{Aligner, Options, Prepared};
use crate::output::{AlignOutput, DocumentInfo, PairOutput};
use crate::read::Document;
use std::path::PathBuf;

/// Documents of these ids and texts, read from `ID.txt`.
pub fn docs(texts: &[(&str, &str)]) -> Vec<Document> {
    texts
        .iter()
        .map(|(id, text)| Document {
            id: id.to_string(),
            path: PathBuf::from(format!("{id}.txt")),
            text: text.to_string(),
            encoding: "utf-8".into(),
            replaced: 0,
        })
        .collect()
}

/// Every pair of `docs` aligned, in input order: ids, prepared texts
/// and the output, as `collate` makes them for ids in order.
pub fn aligned(docs: &[Document]) -> (Vec<String>, Vec<Prepared>, AlignOutput) {
    let aligner = Aligner::new(Options::default());
    let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
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
    let mut pairs = Vec::new();
    for x in 0..docs.len() {
        for y in x + 1..docs.len() {
            let passages = aligner.align(&prepared[x], &prepared[y]);
            if !passages.is_empty() {
                pairs.push(PairOutput { a: ids[x].clone(), b: ids[y].clone(), passages });
            }
        }
    }
    (ids, prepared, AlignOutput::new(infos, pairs))
}

/// What `writer` writes of `docs`, aligned.
pub fn written(writer: &dyn Writer, docs: &[Document]) -> Result<String, WriteError> {
    let (ids, prepared, output) = aligned(docs);
    let run = Run::new(docs, &ids, &prepared, &output);
    let mut out = Vec::new();
    writer.write(&run, &mut out)?;
    Ok(String::from_utf8(out).unwrap())
}
