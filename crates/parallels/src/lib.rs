//! `parallels` finds and aligns the passages that texts share: verbatim
//! copies, noisy reprints, quotations, and *parallel versions* (different
//! translations, paraphrases and abridgements of one source).
//!
//! The library is a pipeline of stages, one module each; data only moves
//! forward:
//!
//! ```text
//! read (decode) → normalize (+offset map) → segment → align → output
//! ```
//!
//! * [`read`] turns bytes into text and records the encoding.
//! * [`normalize`] folds width, script, variants, numerals, footnote markers
//!   and boilerplate into the text the matchers see, keeping for every
//!   normalized character the span of the original it came from.
//! * [`segment`] cuts the normalized text into sentences and tokens whose
//!   spans point into the original text.
//! * [`align`] finds shared passages between two segmented texts: sentence
//!   chains for parallel versions, token runs for verbatim reuse; where
//!   lexical evidence runs out (a reworded sentence between two anchors, a
//!   translation against its original in another language) it asks the
//!   [`encoder`], a multilingual sentence encoder compiled into the
//!   library, what the sentences mean.
//! * [`output`] holds the versioned JSON schema (`parallels.align/1`).
//! * [`collate`] aligns every pair of a few documents (`parallels align`);
//!   [`report`] shows an alignment as text ([`report::text`]) or as a
//!   self-contained HTML page, and a scan's results as a folder of pages;
//!   [`diff`] marks, inside aligned spans, what two texts have in common.
//! * [`eval`] scores alignments against gold links; [`ladder`] writes two
//!   texts' beads as sentence indices (`[0, 1]:[0]`) and scores beads
//!   against a gold.
//!
//! Two commands run over whole corpora, reading documents through
//! [`corpus`] (folders of text files, JSON Lines, Parquet, or Arrow record
//! batches in memory, [`corpus::Table`]; each document
//! with its typed [`Origin`](corpus::Origin), batches read ahead on a
//! thread of their own by
//! [`CorpusReader::read_batches`](corpus::CorpusReader::read_batches)):
//!
//! * [`scan`] finds every shared passage without comparing all pairs
//!   (rare shared n-grams pick the pairs worth aligning), clusters them and
//!   writes the `parallels.scan/1` tables;
//! * [`dedup`] removes exact and near-duplicate documents (MinHash, LSH)
//!   and repeated paragraphs.
//!
//! [`index`] keeps a corpus as a persistent library (immutable segments,
//! one writer) that new texts are looked up in with scan's seeds, bound
//! and aligner (`parallels index`, `query`, `serve`). The pieces a
//! distributed driver runs per batch are [`scan::batch`] and
//! [`dedup::batch`].
//!
//! Under the stages is a ground floor that any of them may use and none
//! owns: [`chars`], the character classes they share (is this a CJK token,
//! a letter or digit, a digit of what value), with the fast paths for
//! Chinese text measured and explained there; and [`plumbing`]: the
//! external sorter, the union–find, the [`Progress`](plumbing::Progress)
//! trait, files written whole or not at all, the Parquet writer
//! settings, the `Problem` a long stage reports, and how messages show a
//! path ([`plumbing::shown`], re-exported as [`read::shown`]). Nothing on
//! the ground floor depends on a stage (`tools/floors.py` checks it).
//!
//! Every offset that leaves the library is a half-open range of Unicode code
//! points into the original decoded text.
//!
//! ```
//! use parallels::{Aligner, Options};
//!
//! let a = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。\
//!          十七世纪中叶，城中约有两万三千名居民。";
//! let b = "布伦纳河在魏斯明德汇入波罗的海，这座港口城市因粮食和琥珀生意而远近闻名。\
//!          17世纪中期，城里住着大约23,000人。";
//! let aligner = Aligner::new(Options::default());
//! let passages = aligner.align_texts(a, b);
//! assert_eq!(passages.len(), 1);
//! assert_eq!(passages[0].links.len(), 2);
//! ```

#![warn(missing_docs)]

/// What the library compiles in that is not its own code, with its
/// licence, source and checksum: the sentence encoder's weights, the
/// word tables of `align`'s dictionary evidence (CC BY-SA), the script
/// table. The repository's NOTICE, which `parallels licenses` prints.
pub const NOTICE: &str = include_str!("../../../NOTICE");

pub mod align;
pub mod chars;
pub mod collate;
pub mod corpus;
pub mod dedup;
pub mod diff;
pub mod encoder;
pub mod eval;
pub mod index;
pub mod ladder;
pub mod mine;
pub mod normalize;
pub mod output;
pub mod plumbing;
pub mod read;
pub mod report;
pub mod scan;
pub mod segment;

pub use align::{Aligner, Link, Options, Passage, PassageKind, Span};
