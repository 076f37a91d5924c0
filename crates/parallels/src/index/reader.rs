//! An index opened for reading ([`Index`]): its manifest, its segments and
//! its feature table, every file checked against the checksums the
//! manifest holds. `query` and `hits` read through it; `add` opens the
//! index so before it writes.

use super::error::{damaged, io_at, IndexError};
use super::manifest::{read_manifest, Manifest, MANIFEST};
use super::options::{IndexOptions, MIN_QUERY_COPY};
use super::segment::{self, IndexDoc, Segment, Sum, VECTORS};
use super::vectors::{mean, Vectors};
use crate::align::features::CorpusDf;
use crate::align::verbatim::VerbatimParams;
use crate::align::Aligner;
use crate::mine::knn::QVectors;
use crate::mine::Unit;
use crate::scan::ScanOptions;
use serde::Serialize;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub(super) fn check_version(dir: &Path, m: &Manifest) -> Result<(), IndexError> {
    let align = format!("{:?}", m.options.scan().align);
    if align != m.align {
        return Err(IndexError::Version(dir.to_path_buf(), "alignment options differ".into()));
    }
    Ok(())
}

fn load_df(dir: &Path, m: &Manifest) -> Result<CorpusDf, IndexError> {
    if m.segments.is_empty() {
        return Ok(CorpusDf::new(m.options.df_bits));
    }
    let path = dir.join(&m.df);
    let file = File::open(&path).map_err(io_at(&path))?;
    let mut packed = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(file, m.df_sum.len.saturating_add(1)), &mut packed)
        .map_err(io_at(&path))?;
    if Sum::of(&packed) != m.df_sum {
        return Err(damaged(path, "its length or checksum does not match what was written"));
    }
    let mut z = zstd::Decoder::new(&packed[..]).map_err(io_at(&path))?;
    let df = CorpusDf::load(&mut z).map_err(|e| damaged(path.clone(), e.to_string()))?;
    if df.bits() != m.options.df_bits {
        return Err(damaged(
            path,
            format!("a table of 2^{} buckets where 2^{} were made", df.bits(), m.options.df_bits),
        ));
    }
    Ok(df)
}

/// An index opened for reading. Reading never takes the writer's lock: it
/// sees the manifest that was in place when it was opened.
pub struct Index {
    pub(super) dir: PathBuf,
    pub(super) manifest: Manifest,
    pub(super) segments: Vec<Segment>,
    pub(super) df: CorpusDf,
    pub(super) opts: ScanOptions,
    /// `opts` with bars lowered by [`REACH_MARGIN`], for the bound a
    /// query takes before it knows every frequency.
    pub(super) loose: ScanOptions,
    pub(super) aligner: Aligner,
    /// The aligner of documents in two languages (`across`).
    pub(super) across: Aligner,
    /// The sentence vectors of the segments that keep them (read when the
    /// index is opened for queries).
    pub(super) vectors: Option<Vectors>,
    /// Each language's vectors centred on the library's mean, in the
    /// order of `vectors`' shelves (made at the first query that needs
    /// them).
    centred: OnceLock<Vec<(QVectors, Vec<Unit>)>>,
}

/// How much lower the bars of a query's first bound are than the scan's:
/// the bound with some weights raised is never lower in exact arithmetic,
/// and this margin keeps floating-point rounding from making it so.
const REACH_MARGIN: f64 = 1e-6;

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("dir", &self.dir).field("documents", &self.manifest.documents).finish()
    }
}

/// What an index holds, in figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IndexInfo {
    /// Documents.
    pub documents: u64,
    /// Their characters.
    pub chars: u64,
    /// Segments (one per build or add).
    pub segments: usize,
    /// Builds and adds so far.
    pub generation: u64,
    /// The options it was made with.
    pub options: IndexOptions,
    /// The languages of the sentence vectors it keeps, with their counts of
    /// sentences (none: it keeps none, and the field is left out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<(String, usize)>,
}

impl Index {
    /// Open the index at `dir`.
    pub fn open(dir: &Path) -> Result<Index, IndexError> {
        // A writer that commits while this opens removes the files of the
        // manifest read here: then the new manifest is read.
        let mut tries = 0;
        loop {
            match Index::open_once(dir) {
                Err(IndexError::Io { error, .. }) if error.kind() == io::ErrorKind::NotFound && tries < 3 => tries += 1,
                r => return r,
            }
        }
    }

    fn open_once(dir: &Path) -> Result<Index, IndexError> {
        let m = read_manifest(dir)?.ok_or_else(|| IndexError::Missing(dir.to_path_buf()))?;
        check_version(dir, &m)?;
        Index::from_manifest(dir, m, true)
    }

    /// The index `m` describes, every file checked; its sentence vectors
    /// read when `vectors` (a writer only checks them:
    /// [`Index::verify_vectors`]).
    pub(super) fn from_manifest(dir: &Path, m: Manifest, vectors: bool) -> Result<Index, IndexError> {
        let segments = m
            .segments
            .iter()
            .map(|s| Segment::open(&dir.join(&s.name), s.first, s.docs, &s.sums))
            .collect::<Result<Vec<_>, _>>()?;
        let df = load_df(dir, &m)?;
        let mut opts = m.options.scan();
        // Short quotations as `align` finds them, under the scan's bar
        // when their words are the two documents' own.
        opts.report.min_copy_significance = opts.report.min_significance.min(MIN_QUERY_COPY);
        opts.align.verbatim.min_tokens = VerbatimParams::default().min_tokens;
        let aligner = Aligner::new(opts.align.clone());
        let loose = ScanOptions { report: opts.report.lowered(REACH_MARGIN), ..opts.clone() };
        let mut kept: Option<Vectors> = None;
        if vectors {
            for s in &m.segments {
                if let Some(&sum) = s.sums.get(VECTORS) {
                    let path = dir.join(&s.name).join(VECTORS);
                    kept.get_or_insert_with(Vectors::default).read(&path, s.first, s.docs, sum)?;
                }
            }
        }
        let across = super::options::across_aligner(&opts);
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest: m,
            segments,
            df,
            opts,
            loose,
            aligner,
            across,
            vectors: kept,
            centred: OnceLock::new(),
        })
    }

    /// Check every segment's sentence vectors against their length and
    /// checksum, without reading them into memory.
    pub(super) fn verify_vectors(&self) -> Result<(), IndexError> {
        for s in &self.manifest.segments {
            if let Some(&sum) = s.sums.get(VECTORS) {
                super::vectors::verify(&self.dir.join(&s.name).join(VECTORS), sum)?;
            }
        }
        Ok(())
    }

    /// The library's vectors of `lang` centred on their mean, with their
    /// units (empty when it holds none).
    pub(super) fn centred(&self, lang: &str) -> &(QVectors, Vec<Unit>) {
        static NONE: OnceLock<(QVectors, Vec<Unit>)> = OnceLock::new();
        let Some(v) = &self.vectors else { return NONE.get_or_init(Default::default) };
        let all = self.centred.get_or_init(|| {
            use rayon::prelude::*;
            v.shelves.par_iter().map(|s| s.centred(&mean(&s.sum, s.units.len()), None)).collect()
        });
        match v.shelves.iter().position(|s| s.lang == lang) {
            Some(k) => &all[k],
            None => NONE.get_or_init(Default::default),
        }
    }

    /// The languages of the sentence vectors it keeps, with their counts
    /// of units, by code (empty when it keeps none).
    pub fn languages(&self) -> Vec<(String, usize)> {
        self.vectors.as_ref().map_or_else(Vec::new, |v| {
            v.shelves.iter().filter(|s| !s.units.is_empty()).map(|s| (s.lang.clone(), s.units.len())).collect()
        })
    }

    /// Every file the index reads (for the commands that write: none of
    /// their outputs may be one of them).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut out = vec![self.dir.join(MANIFEST), self.dir.join(&self.manifest.df)];
        for s in &self.manifest.segments {
            out.extend(segment::FILES.iter().map(|f| self.dir.join(&s.name).join(f)));
            if s.sums.contains_key(VECTORS) {
                out.push(self.dir.join(&s.name).join(VECTORS));
            }
        }
        out
    }

    /// Its figures.
    pub fn info(&self) -> IndexInfo {
        IndexInfo {
            documents: self.manifest.documents,
            chars: self.manifest.chars,
            segments: self.segments.len(),
            generation: self.manifest.generation,
            options: self.manifest.options.clone(),
            languages: self.languages(),
        }
    }

    /// Number of documents.
    pub fn len(&self) -> u32 {
        self.manifest.documents as u32
    }

    /// Whether it holds no document.
    pub fn is_empty(&self) -> bool {
        self.manifest.documents == 0
    }

    /// The aligner its documents were prepared with (to prepare a text the
    /// same way for display).
    pub fn aligner(&self) -> &Aligner {
        &self.aligner
    }

    fn segment_of(&self, doc: u32) -> Option<&Segment> {
        let k = self.segments.partition_point(|s| s.first <= doc);
        let s = self.segments.get(k.checked_sub(1)?)?;
        (doc < s.first + s.docs.len() as u32).then_some(s)
    }

    /// Document number `doc` (numbered from 0 in the order added).
    pub fn doc(&self, doc: u32) -> Option<&IndexDoc> {
        let s = self.segment_of(doc)?;
        s.docs.get((doc - s.first) as usize)
    }

    /// The text of document `doc`, decompressed (and checked).
    pub fn text(&self, doc: u32) -> Result<String, IndexError> {
        let s = self
            .segment_of(doc)
            .ok_or_else(|| io_at(&self.dir)(io::Error::new(io::ErrorKind::NotFound, format!("no document {doc}"))))?;
        s.text((doc - s.first) as usize)
    }

    /// The documents whose id is `id`.
    pub fn find(&self, id: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for s in &self.segments {
            for (k, d) in s.docs.iter().enumerate() {
                if d.id == id {
                    out.push(s.first + k as u32);
                }
            }
        }
        out
    }
}
