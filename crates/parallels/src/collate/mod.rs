//! Collation: every pair of several documents aligned, as `parallels align`
//! reports them, and the n-way table of all of them.
//!
//! Takes read [`Document`]s and an [`Aligner`]; hands on a [`Collation`]:
//! each document's id and prepared text, and the [`AlignOutput`]
//! (`parallels.align/1`) that the JSON, text and HTML outputs are made
//! from. Every unordered pair is aligned (on the rayon pool; pairs are
//! independent) and reported in the order the documents were given, `a`
//! before `b`; a pair that shares nothing is left out. The aligner is not
//! quite symmetric (which text's sentences start a group), so each pair is
//! aligned with the smaller id as A and its passages turned round when the
//! other came first: a pair's links, and the n-way table built from them,
//! do not depend on the order of the arguments. This is the all-pairs loop for a
//! handful of versions of one text; for a corpus, [`crate::scan`] finds the
//! pairs worth aligning instead.
//!
//! [`table`] builds from those pairwise links one table of all documents
//! (the *witnesses*): rows of corresponding sentences, every sentence of
//! every witness once, moved material marked ([`Collation::table`]);
//! [`export`] writes it as `parallels.collation/1` JSON, CSV/TSV, TEI
//! parallel segmentation, and (two witnesses) TMX and a bitext.
//! [`formats`] lists every output format of `parallels align`, each a
//! [`Writer`] of one [`Run`].
//!
//! # Ids
//!
//! A document's id is its file name without the extension ([`Document::id`]);
//! where two inputs share that name (`a/ch1.txt`, `b/ch1.txt`), both are
//! known by their whole paths instead, as [`read::shown`](crate::read::shown)
//! writes them (so that names which differ only in bytes that are not
//! UTF-8 stay apart). The same path given twice is an error
//! ([`SameInputTwice`]): it would be aligned with itself.

pub mod export;
pub mod formats;
pub mod table;

pub use export::{CollationOutput, ExportError, WitnessInfo, COLLATION_SCHEMA};
pub use formats::{format, Run, WriteError, Writer, FORMATS};
pub use table::{build_table, Cell, Row, Table};

use crate::align::{Aligner, Prepared};
use crate::output::{AlignOutput, DocumentInfo, PairOutput};
use crate::read::Document;
use rayon::prelude::*;

/// The same input given more than once (by the same path).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{id}: given more than once; give each input once")]
pub struct SameInputTwice {
    /// The id (here, the path) given twice.
    pub id: String,
}

/// The ids of `docs`, in order: file names without extension, or the whole
/// path where two inputs share a name (see the module docs).
pub fn document_ids(docs: &[Document]) -> Result<Vec<String>, SameInputTwice> {
    let ids: Vec<String> = docs
        .iter()
        .map(|d| {
            let clash = docs.iter().filter(|o| o.id == d.id).count() > 1;
            if clash {
                crate::read::shown(&d.path).to_string()
            } else {
                d.id.clone()
            }
        })
        .collect();
    for (k, id) in ids.iter().enumerate() {
        if ids[..k].contains(id) {
            return Err(SameInputTwice { id: id.clone() });
        }
    }
    Ok(ids)
}

/// Several documents aligned pair by pair.
#[derive(Clone, Debug)]
pub struct Collation {
    /// Each document's id, in input order.
    pub ids: Vec<String>,
    /// Each document's prepared (normalized, segmented) text, in input
    /// order: what the renderers need besides the passages.
    pub prepared: Vec<Prepared>,
    /// The `parallels.align/1` result.
    pub output: AlignOutput,
}

impl Collation {
    /// The n-way table of all documents ([`table`]); `texts` are their
    /// original texts, in input order (they break ties of the guide order
    /// between equal ids).
    pub fn table(&self, texts: &[&str]) -> Table {
        let prepared: Vec<&Prepared> = self.prepared.iter().collect();
        build_table(&self.ids, texts, &prepared, &self.output)
    }

    /// What the collation output says of each witness
    /// ([`export::witnesses`]).
    pub fn witnesses(&self) -> Vec<WitnessInfo> {
        export::witnesses(&self.output, &self.prepared)
    }

    /// A run of the output formats ([`formats`]) over `docs`, the
    /// documents this collation was made of, in the same order.
    pub fn run<'a>(&'a self, docs: &'a [Document]) -> Run<'a> {
        Run::new(docs, &self.ids, &self.prepared, &self.output)
    }
}

/// The passages of B and A from those of A and B: sides swapped, in the
/// order of the new A.
fn flipped(passages: Vec<crate::align::Passage>) -> Vec<crate::align::Passage> {
    let mut passages: Vec<_> = passages.into_iter().map(crate::align::Passage::flipped).collect();
    passages.sort_by(|p, q| p.a.cmp(&q.a).then(p.b.cmp(&q.b)));
    passages
}

/// Align every pair of `docs` (see the module docs).
pub fn collate(aligner: &Aligner, docs: &[Document]) -> Result<Collation, SameInputTwice> {
    let ids = document_ids(docs)?;
    let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let prepared = aligner.prepare_all(&texts);
    let mut jobs = Vec::new();
    for x in 0..docs.len() {
        for y in x + 1..docs.len() {
            jobs.push((x, y));
        }
    }
    let pairs: Vec<PairOutput> = jobs
        .par_iter()
        .map(|&(x, y)| PairOutput {
            a: ids[x].clone(),
            b: ids[y].clone(),
            passages: if ids[x] <= ids[y] {
                aligner.align(&prepared[x], &prepared[y])
            } else {
                flipped(aligner.align(&prepared[y], &prepared[x]))
            },
        })
        .filter(|p| !p.passages.is_empty())
        .collect();
    let documents: Vec<DocumentInfo> = docs
        .iter()
        .zip(&ids)
        .zip(&prepared)
        .map(|((d, id), p)| DocumentInfo {
            id: id.clone(),
            path: d.path.clone(),
            chars: p.chars as u64,
            encoding: d.encoding.clone(),
        })
        .collect();
    Ok(Collation { ids, prepared, output: AlignOutput::new(documents, pairs) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::Options;
    use std::path::PathBuf;

    fn doc(path: &str, text: &str) -> Document {
        let path = PathBuf::from(path);
        Document {
            id: path.file_stem().unwrap().to_string_lossy().into_owned(),
            path,
            text: text.to_string(),
            encoding: "utf-8".to_string(),
            replaced: 0,
        }
    }

    #[test]
    fn ids_are_file_stems_unless_two_inputs_share_one() {
        let docs = [doc("a/ch1.txt", ""), doc("b/ch1.txt", ""), doc("b/ch2.txt", "")];
        assert_eq!(document_ids(&docs).unwrap(), ["a/ch1.txt", "b/ch1.txt", "ch2"]);
    }

    #[test]
    fn the_same_path_twice_is_an_error() {
        let docs = [doc("a/ch1.txt", ""), doc("a/ch1.txt", "")];
        let err = document_ids(&docs).unwrap_err();
        assert_eq!(err.id, "a/ch1.txt");
        assert_eq!(err.to_string(), "a/ch1.txt: given more than once; give each input once");
    }

    #[test]
    fn pairs_come_in_input_order_and_a_pair_sharing_nothing_is_left_out() {
        let text = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。\
                    十七世纪中叶，城中约有两万三千名居民。城里有七座教堂和一座大学。";
        let other = "The quick brown fox jumps over the lazy dog, again and again, all day long.";
        let docs = [doc("x.txt", text), doc("y.txt", other), doc("z.txt", text)];
        let c = collate(&Aligner::new(Options::default()), &docs).unwrap();
        assert_eq!(c.ids, ["x", "y", "z"]);
        assert_eq!(c.prepared.len(), 3);
        let pairs: Vec<(&str, &str)> = c.output.pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
        assert_eq!(pairs, [("x", "z")]);
        assert_eq!(c.output.documents[2].chars, text.chars().count() as u64);
        assert_eq!(c.output.documents[1].path, PathBuf::from("y.txt"));
    }
}
