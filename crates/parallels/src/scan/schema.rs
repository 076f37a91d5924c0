//! The rows of a scan's results, as `parallels.scan/1` writes them
//! (`documents.jsonl`, `passages.jsonl`, `clusters.jsonl` and
//! `summary.json`; the Parquet tables of [`super::parquet_out`] hold the
//! same rows), and [`ScanResult`], which holds them until they are written.

use crate::align::{Passage, Span};
use crate::corpus::{Source, Summary};
use crate::normalize::Switches;
use crate::plumbing::AtomicFile;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The schema tag written in `documents.jsonl`'s companion `summary.json`.
pub const SCAN_SCHEMA: &str = "parallels.scan/1";

/// One document as `documents.jsonl` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanDocument {
    /// Its id in the corpus.
    pub id: String,
    /// Written `path`, `path:line` or `path#row` (see [`Source`]).
    pub source: Source,
    /// Length of its text in code points.
    pub chars: u64,
    /// The encoding its text was decoded from.
    pub encoding: String,
    /// Its language, when its text tells it ([`crate::mine::language`]:
    /// `zh`, `en`, `de`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Its group, if the corpus has groups.
    pub group: Option<String>,
    /// Passages this document takes part in.
    pub passages: u64,
    /// Share of its characters inside some passage, in [0, 1].
    pub shared: f64,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    /// The other fields of its record.
    pub meta: serde_json::Map<String, serde_json::Value>,
}

/// One line of `passages.jsonl`: an aligned passage between two documents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanPassage {
    /// The id of the first document (the earlier one read).
    pub a_doc: String,
    /// The id of the other document.
    pub b_doc: String,
    /// The cluster it belongs to (an id of `clusters.jsonl`).
    pub cluster: u32,
    /// How strong a sign of reuse it is: its length in tokens that few
    /// other documents of the corpus share, times its score (see
    /// [`significance`](mod@super::significance)).
    #[serde(default)]
    pub significance: f64,
    #[serde(flatten)]
    /// The passage, as `align` gives it (flattened into the row).
    pub passage: Passage,
}

/// One place of a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterMember {
    /// The document id.
    pub doc: String,
    /// The span in its text.
    pub span: Span,
}

/// One line of `clusters.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanCluster {
    /// Its id: clusters are numbered from 0 in order of their first member
    /// (by document, then position).
    pub id: u32,
    /// Number of places (members).
    pub size: u32,
    /// The places, sorted by document and span.
    pub members: Vec<ClusterMember>,
    /// The start of the longest member's text.
    pub excerpt: String,
}

/// `summary.json`: what `scan` writes beside its tables and `report` reads
/// back.
///
/// Written with its keys, and those of [`ScanStats`], in alphabetical order
/// (as `parallels.scan/1` has always had them), whatever the order of the
/// fields here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanSummary {
    /// [`SCAN_SCHEMA`].
    pub schema: String,
    #[serde(default)]
    /// Counts of the scan.
    pub stats: ScanStats,
    /// Where the texts are: `parallels report` reads them back from the
    /// documents' sources with these fields.
    #[serde(default)]
    pub fields: ScanFields,
    /// The files the documents were read from, with their sizes and
    /// hashes: the only files `parallels report` reads back, and only
    /// while they are unchanged. `None` in the summaries of versions
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<InputFile>>,
    /// The normalization rules the scan ran with: `parallels report`
    /// prepares the texts it shows with them, so that its marks are what
    /// the scan compared. Written only when a rule was switched off (a
    /// summary without it is a scan with every rule on).
    #[serde(default, skip_serializing_if = "is_every_rule")]
    pub normalize: Switches,
}

fn is_every_rule(s: &Switches) -> bool {
    *s == Switches::default()
}

impl ScanSummary {
    /// The summary of `result`: its counts, and every file its documents
    /// came from, read again to be hashed ([`InputFile::of`]); a table in
    /// memory is no file and is not listed.
    pub fn of(result: &ScanResult) -> io::Result<ScanSummary> {
        let mut files: Vec<&Path> = Vec::new();
        let mut seen: rustc_hash::FxHashSet<&Path> = result.tables.iter().map(PathBuf::as_path).collect();
        for d in &result.documents {
            if seen.insert(&d.source.file) {
                files.push(&d.source.file);
            }
        }
        let inputs = files.par_iter().map(|f| InputFile::of(f)).collect::<io::Result<Vec<_>>>()?;
        Ok(ScanSummary {
            schema: SCAN_SCHEMA.to_string(),
            stats: result.stats.clone(),
            fields: result.fields.clone(),
            inputs: Some(inputs),
            normalize: result.normalize,
        })
    }

    /// Write it to `path` (through an [`AtomicFile`]).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        self.write_uncommitted(path)?.commit()
    }

    /// Write it to a temporary file for `path`, to commit with the tables.
    pub(super) fn write_uncommitted(&self, path: &Path) -> io::Result<AtomicFile> {
        // Through a `Value`, whose maps keep their keys sorted, but for the
        // input files: a path that is not UTF-8 is written with escapes a
        // `Value` cannot hold (`corpus::json_path`), so they are written
        // from their own type, in the place of their key.
        let value = serde_json::to_value(ScanSummary { inputs: None, ..self.clone() })?;
        let sorted = SummaryJson { value: &value, inputs: self.inputs.as_deref() };
        let mut f = AtomicFile::create(path)?;
        f.write_all(&serde_json::to_vec_pretty(&sorted)?)?;
        Ok(f)
    }
}

/// A summary's `Value` with its input files put back in key order.
struct SummaryJson<'a> {
    value: &'a serde_json::Value,
    inputs: Option<&'a [InputFile]>,
}

impl Serialize for SummaryJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Some(object) = self.value.as_object() else { return self.value.serialize(serializer) };
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        if self.inputs.is_some() {
            keys.push("inputs");
        }
        keys.sort_unstable();
        let mut map = serializer.serialize_map(Some(keys.len()))?;
        for key in keys {
            match (key, self.inputs) {
                ("inputs", Some(inputs)) => map.serialize_entry(key, inputs)?,
                _ => map.serialize_entry(key, &object[key])?,
            }
        }
        map.end()
    }
}

/// One file a scan read, as `summary.json` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as the documents' sources write it ([`Source::file`]; not
    /// necessarily UTF-8, written as [`crate::corpus::json_path`] writes
    /// it).
    #[serde(with = "crate::corpus::json_path")]
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// XXH3-128 of its bytes, 32 hexadecimal digits. Not a cryptographic
    /// hash: it tells a changed file from the one scanned, and `report`
    /// embeds a file's text only if it matches (so only text whose exact
    /// bytes the results' author had).
    pub xxh3_128: String,
}

impl InputFile {
    /// Read the file at `path` and record its size and hash.
    pub fn of(path: &Path) -> io::Result<InputFile> {
        let bytes =
            std::fs::read(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", crate::read::shown(path))))?;
        Ok(InputFile::of_bytes(path, &bytes))
    }

    /// The record of a file `path` holding `bytes`.
    pub fn of_bytes(path: &Path, bytes: &[u8]) -> InputFile {
        let hash = twox_hash::XxHash3_128::oneshot(bytes);
        InputFile { path: path.to_path_buf(), size: bytes.len() as u64, xxh3_128: format!("{hash:032x}") }
    }
}

/// The id and text fields of JSON Lines and Parquet input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanFields {
    /// The id field (`--id`).
    pub id: String,
    /// The text field (`--text`).
    pub text: String,
}

impl Default for ScanFields {
    /// `id` and `text`, the defaults of [`crate::corpus::CorpusOptions`].
    fn default() -> Self {
        let corpus = crate::corpus::CorpusOptions::default();
        ScanFields { id: corpus.id_field, text: corpus.text_field }
    }
}

/// Counts for the summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScanStats {
    /// Documents read.
    pub documents: u64,
    /// Records, files and folders skipped (problems).
    pub skipped: u64,
    /// Characters read, in code points.
    pub chars: u64,
    /// Seeds taken (winnowed n-grams).
    pub seeds: u64,
    /// Pairs sharing enough seeds to be aligned.
    pub candidate_pairs: u64,
    /// Candidate pairs with at least one passage.
    pub aligned_pairs: u64,
    /// Passages found.
    pub passages: u64,
    /// Clusters of passages.
    pub clusters: u64,
    /// Most frequent boilerplate n-grams (over `max_df` documents): document
    /// frequency and the text of one occurrence.
    pub boilerplate: Vec<(u32, String)>,
    /// Passages found but not reported as less significant than
    /// [`Reporting::min_significance`](super::Reporting::min_significance).
    #[serde(default)]
    pub insignificant: u64,
    /// The templates most of those passages were made of, most passages
    /// first (at most [`TEMPLATES_LISTED`]).
    #[serde(default)]
    pub templates: Vec<Template>,
    /// Documents compared across languages for translations, by language
    /// ([`crate::mine::language`]); empty when the corpus holds fewer than
    /// two languages the encoder knows, or translations were not looked
    /// for ([`ScanOptions::across`](super::ScanOptions::across)).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub languages: BTreeMap<String, u64>,
    /// Sentences compared across languages to find translations (each
    /// read as a bag of tokens, [`crate::encoder::Encoder::encode_bag`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub across_sentences: u64,
    /// Sentences encoded in full: every sentence of the documents of the
    /// candidate pairs, for their alignment.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub across_encoded: u64,
    /// Pairs of documents in two languages aligned as candidate
    /// translations ([`crate::mine::candidates`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub across_candidates: u64,
    /// Of those, pairs with at least one passage.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub across_pairs: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// How many templates `summary.json` lists.
pub const TEMPLATES_LISTED: usize = 20;

/// Text that many documents share with other figures, names or dates: the
/// passages a scan found but did not report because they were mostly made
/// of it, grouped by their most widespread n-gram (numbers as one slot).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Template {
    /// Passages found and not reported that it makes.
    pub passages: u64,
    /// Documents of the corpus holding its most widespread n-gram.
    pub documents: u32,
    /// The first such passage's text (in the first document, at most 80
    /// characters).
    pub text: String,
}

/// The passages of a scan, in output order. A scan leaves them on disk,
/// in the aligned chunks of its work folder, and they are read back one
/// chunk at a time when written: memory holds only their spans.
#[derive(Clone, Debug, PartialEq)]
pub enum Passages {
    /// Held in memory (tests, small results).
    Memory(Vec<ScanPassage>),
    /// The chunk files in order, the document ids, and each passage's
    /// cluster.
    Chunks {
        /// The chunk files (`aligned.NNNNNN.jsonl`), in order.
        files: Vec<PathBuf>,
        /// Document ids by index.
        ids: Vec<String>,
        /// The cluster of each passage, in order.
        cluster_of: Vec<u32>,
    },
}

impl Passages {
    /// Hand every passage to `f`, in order.
    pub fn for_each(&self, mut f: impl FnMut(ScanPassage) -> io::Result<()>) -> io::Result<()> {
        match self {
            Passages::Memory(v) => v.iter().try_for_each(|p| f(p.clone())),
            Passages::Chunks { files, ids, cluster_of } => {
                let mut k = 0usize;
                for path in files {
                    let bytes = std::fs::read(path)?;
                    for line in bytes.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
                        let x: Aligned = serde_json::from_slice(line)?;
                        for (i, passage) in x.passages.into_iter().enumerate() {
                            let cluster = *cluster_of.get(k).ok_or_else(|| {
                                io::Error::new(
                                    io::ErrorKind::InvalidData,
                                    format!("{}: more passages than counted", path.display()),
                                )
                            })?;
                            k += 1;
                            f(ScanPassage {
                                a_doc: ids[x.a as usize].clone(),
                                b_doc: ids[x.b as usize].clone(),
                                cluster,
                                significance: x.significance.get(i).copied().unwrap_or(0.0),
                                passage,
                            })?;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// All passages in memory.
    pub fn to_vec(&self) -> io::Result<Vec<ScanPassage>> {
        let mut v = Vec::new();
        self.for_each(|p| {
            v.push(p);
            Ok(())
        })?;
        Ok(v)
    }
}

/// The whole result of a scan.
///
/// It owns the scan's work folder, where its passages stay until they are
/// written: [`ScanResult::remove_work`] removes the folder and consumes the
/// result, so nothing can read the passages after. A result dropped without
/// it leaves the folder for a resumed run (a failed write, say). Not
/// `Clone`, for the same reason.
#[derive(Debug, PartialEq)]
pub struct ScanResult {
    /// Every document read, in input order.
    pub documents: Vec<ScanDocument>,
    /// Every passage, in output order.
    pub passages: Passages,
    /// Every cluster, by id.
    pub clusters: Vec<ScanCluster>,
    /// Counts.
    pub stats: ScanStats,
    /// What the corpus reader read and skipped.
    pub corpus: Summary,
    /// What was taken over from an interrupted run.
    pub resumed: Resumed,
    /// The id and text fields of JSON Lines and Parquet input.
    pub fields: ScanFields,
    /// The normalization rules switched on ([`ScanSummary::normalize`]).
    pub normalize: Switches,
    /// The work folder the passages are read from, if any.
    pub(super) work: Option<PathBuf>,
    /// The names of the inputs that were tables in memory, not files.
    pub(super) tables: Vec<PathBuf>,
}

impl ScanResult {
    /// Remove the work folder, once the tables are written; the passages,
    /// kept there, go with it.
    pub fn remove_work(self) -> io::Result<()> {
        match &self.work {
            Some(dir) => std::fs::remove_dir_all(dir),
            None => Ok(()),
        }
    }
}

/// What a resumed scan took over from an interrupted one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resumed {
    /// The work folder held an interrupted run of the same inputs and
    /// options.
    pub matched: bool,
    /// Reading (documents, seeds, feature counts) was done.
    pub read: bool,
    /// Candidate pairs were found.
    pub candidates: bool,
    /// Chunks of candidate pairs already aligned, of all chunks.
    pub chunks: (u64, u64),
}

/// One pair of an aligned chunk that has passages, as the chunk files
/// (`aligned.NNNNNN.jsonl`) hold it and [`super::align_prepared`] returns
/// it.
#[derive(Serialize, Deserialize)]
pub struct Aligned {
    /// The first document's number.
    pub a: u32,
    /// The other document's number.
    pub b: u32,
    /// The passages reported.
    pub passages: Vec<Passage>,
    /// The significance of each passage.
    #[serde(default)]
    pub significance: Vec<f64>,
    /// Passages found and not reported, as template key, document
    /// frequency and text (a key of 0: no template).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<(u64, u32, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_is_written_with_sorted_keys_and_reads_back() {
        let summary = ScanSummary {
            schema: SCAN_SCHEMA.to_string(),
            stats: ScanStats {
                documents: 3,
                passages: 14,
                boilerplate: vec![(120, "本报讯".into())],
                ..Default::default()
            },
            fields: ScanFields { id: "url".into(), text: "body".into() },
            inputs: Some(vec![InputFile::of_bytes(Path::new("corpus/a.txt"), "本报讯".as_bytes())]),
            normalize: Switches::default(),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        summary.write(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let keys: Vec<&str> =
            text.lines().filter_map(|l| l.trim_start().strip_prefix('"')?.split_once("\":")).map(|(k, _)| k).collect();
        let stats_keys = &keys[keys.iter().position(|&k| k == "stats").unwrap() + 1..];
        assert_eq!(&keys[..8], ["fields", "id", "text", "inputs", "path", "size", "xxh3_128", "schema"]);
        let mut sorted = stats_keys.to_vec();
        sorted.sort_unstable();
        assert_eq!(stats_keys, sorted);
        assert_eq!(serde_json::from_str::<ScanSummary>(&text).unwrap(), summary);
    }

    #[test]
    fn a_summary_without_fields_reads_with_the_default_fields() {
        let mut written = serde_json::to_value(ScanSummary {
            schema: SCAN_SCHEMA.to_string(),
            stats: ScanStats::default(),
            fields: ScanFields { id: "url".into(), text: "body".into() },
            inputs: None,
            normalize: Switches::default(),
        })
        .unwrap();
        written.as_object_mut().unwrap().remove("fields");
        let s: ScanSummary = serde_json::from_value(written).unwrap();
        assert_eq!(s.fields, ScanFields { id: "id".into(), text: "text".into() });
        assert_eq!(s.inputs, None);
        // Every rule on is written as nothing, and read back as every rule.
        assert_eq!(s.normalize, Switches::default());
        let off = ScanSummary { normalize: Switches { script: false, ..Switches::default() }, ..s.clone() };
        let value = serde_json::to_value(&off).unwrap();
        assert_eq!(value["normalize"]["script"], false);
        assert_eq!(serde_json::from_value::<ScanSummary>(value).unwrap(), off);
    }

    #[test]
    fn an_input_file_is_recorded_with_its_size_and_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "天下大势").unwrap();
        let f = InputFile::of(&path).unwrap();
        assert_eq!(f.path, path.display().to_string());
        assert_eq!(f.size, 12);
        assert_eq!(f.xxh3_128.len(), 32);
        assert_eq!(f, InputFile::of_bytes(&f.path, "天下大势".as_bytes()));
        assert_ne!(f.xxh3_128, InputFile::of_bytes(&f.path, "天下大勢".as_bytes()).xxh3_128);
        let err = InputFile::of(&dir.path().join("gone.txt")).unwrap_err();
        assert!(err.to_string().contains("gone.txt"), "{err}");
    }
}
