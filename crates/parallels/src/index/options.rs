//! The switches an index is made with ([`IndexOptions`], kept in its
//! manifest), the schema tag of that manifest and the bar of a query's
//! short copies.

use crate::align::{Aligner, Options};
use crate::normalize::Switches;
use crate::scan::{Reporting, ScanOptions, SeedParams};
use serde::{Deserialize, Serialize};

/// The schema tag of `manifest.json`.
pub const INDEX_SCHEMA: &str = "parallels.index/2";

/// The significance from which a query reports a tight copy of 20
/// characters or more whose words are the two documents' own
/// ([`Reporting::min_copy_significance`]): the bar of the scan's bound
/// for such copies more than a measure (the tokens a candidate's shared
/// seeds cover, seeds in more than [`crate::scan::COPY_MAX_DF`] documents
/// weighing nothing). At 7, 237 of 240 copies of 20–400 characters cut
/// anywhere are found and a candidate in four is aligned (at 5: 240, and
/// twice the alignment time of the scan's bar alone; EVALUATION.md).
pub const MIN_QUERY_COPY: f64 = 7.0;

/// The switches an index is made with, kept in its manifest: every query
/// and every `add` uses them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexOptions {
    /// Seeds: n-gram length, window, `max_df`, `min_seeds`.
    pub seeds: SeedParams,
    /// Feature table size (`2^df_bits` buckets).
    pub df_bits: u32,
    /// The scan's reporting bars ([`ScanOptions::report`]), flattened:
    /// `min_significance`, `min_parallel_pair`, `min_specificity` (and
    /// `min_copy_significance` only when it is not the default, which an
    /// index never sets); a bar the manifest lacks is the default.
    #[serde(flatten)]
    pub report: Reporting,
    /// The normalization rules switched on, flattened (`script`,
    /// `numbers`, `footnotes`, `boilerplate`).
    #[serde(flatten)]
    pub normalize: Switches,
    /// Whether the index keeps what a query across languages needs (each
    /// segment's sentence vectors, `vectors.bin`). `build` resolves
    /// [`Translations::Auto`] from its corpus; the manifest keeps `On` or
    /// nothing (an index made before, or without them, reads as `Off`), and
    /// every `add` follows it.
    #[serde(default, skip_serializing_if = "Translations::is_off")]
    pub translations: Translations,
}

/// Whether an index keeps sentence vectors for queries across languages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Translations {
    /// Never (`--no-translations`; an index made before they existed).
    #[default]
    Off,
    /// Always, even for a corpus in one language (`--translations`: a
    /// library in one language that queries in others will ask).
    On,
    /// `build` only: on when its corpus holds two or more languages the
    /// encoder knows ([`crate::mine::encoder_knows`]), as `scan` decides.
    Auto,
}

impl Translations {
    fn is_off(&self) -> bool {
        *self == Translations::Off
    }
}

impl Default for IndexOptions {
    fn default() -> Self {
        let scan = ScanOptions::default();
        IndexOptions {
            seeds: scan.seeds,
            df_bits: scan.df_bits,
            report: scan.report,
            normalize: Switches::default(),
            translations: Translations::Auto,
        }
    }
}

impl IndexOptions {
    /// The scan options these stand for (the scan's defaults otherwise).
    pub fn scan(&self) -> ScanOptions {
        let mut opts = ScanOptions {
            seeds: self.seeds.clone(),
            df_bits: self.df_bits,
            report: self.report.clone(),
            ..ScanOptions::default()
        };
        opts.align.normalize = self.normalize.options();
        opts
    }
}

/// The aligner of documents in two languages: the index's normalization
/// and sentences, `align`'s defaults otherwise, meaning on. The same rule
/// as `scan`'s translations stage (private to `scan`; it belongs in
/// `mine`, where both could take it): the sentences a document's vectors
/// are numbered by are this aligner's, when the index is built and when
/// it is asked.
pub(super) fn across_aligner(opts: &ScanOptions) -> Aligner {
    Aligner::new(Options {
        normalize: opts.align.normalize.clone(),
        sentences: opts.align.sentences,
        meaning: true,
        ..Options::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index made before translations existed says nothing of them:
    /// it reads as `Off`, and an index without them writes nothing new
    /// into its manifest (so its `/api/info` is as it was).
    #[test]
    fn an_index_without_translations_reads_and_writes_as_before() {
        let mut before = serde_json::to_value(IndexOptions::default()).unwrap();
        before.as_object_mut().unwrap().remove("translations");
        let read: IndexOptions = serde_json::from_value(before.clone()).unwrap();
        assert_eq!(read.translations, Translations::Off);
        assert_eq!(serde_json::to_value(&read).unwrap(), before);
        let on = IndexOptions { translations: Translations::On, ..read };
        assert_eq!(serde_json::to_value(&on).unwrap()["translations"], "on");
        let doc: super::super::IndexDoc = serde_json::from_str(
            r#"{"id":"a","hash":"00","source":"a.txt","encoding":"utf-8","chars":1,"bytes":1,"at":[0,9]}"#,
        )
        .unwrap();
        assert_eq!(doc.language, None);
    }
}
