//! The index's committed state: `manifest.json` (its segments, the
//! feature table, the options), the names the index gives its files (and
//! no other name is its own), and the clean-up of what a killed writer
//! left.

use super::error::{damaged, io_at, IndexError};
use super::options::{IndexOptions, INDEX_SCHEMA};
use super::segment::{Sum, Sums};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io;
use std::path::Path;

/// The committed state.
pub(super) const MANIFEST: &str = "manifest.json";
/// The manifest being written (under the writer's lock, so one name).
pub(super) const MANIFEST_TMP: &str = ".tmp.manifest.json";
/// The writer's lock (present only while a writer runs, or after one was
/// killed).
pub(super) const LOCK: &str = "lock";

/// The folder of the segment of generation `g`.
pub(super) fn segment_name(g: u64) -> String {
    format!("seg.{g:06}")
}

/// The feature table after generation `g`.
pub(super) fn df_name(g: u64) -> String {
    format!("df.{g:06}.zst")
}

/// The generation a name the index makes stands for (`seg.000003`,
/// `df.000003.zst`, and either with `.tmp.` before it), written exactly as
/// the index writes it; `None` for any other name.
pub(super) fn generation_of(name: &str) -> Option<u64> {
    let bare = name.strip_prefix(".tmp.").unwrap_or(name);
    let digits = bare.strip_prefix("seg.").or_else(|| bare.strip_prefix("df.")?.strip_suffix(".zst"))?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let g: u64 = digits.parse().ok()?;
    let canonical = if bare.starts_with("seg.") { segment_name(g) } else { df_name(g) };
    (canonical == bare).then_some(g)
}

/// Whether the index makes entries of this name (see the layout).
pub(super) fn is_index_entry(name: &str) -> bool {
    name == MANIFEST || name == MANIFEST_TMP || name == LOCK || generation_of(name).is_some()
}

/// One segment as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct SegmentEntry {
    /// Its folder's name.
    pub(super) name: String,
    /// The number of its first document.
    pub(super) first: u32,
    /// Its documents.
    pub(super) docs: u32,
    /// Length and CRC-32 of each of its files.
    pub(super) sums: Sums,
}

/// `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Manifest {
    pub(super) schema: String,
    /// Incremented by every build or add.
    pub(super) generation: u64,
    pub(super) options: IndexOptions,
    /// The alignment options in their `Debug` form, to refuse an index made
    /// by a version that aligns otherwise.
    pub(super) align: String,
    pub(super) segments: Vec<SegmentEntry>,
    /// The feature table's file.
    pub(super) df: String,
    /// Its length and CRC-32.
    pub(super) df_sum: Sum,
    /// Documents in all segments.
    pub(super) documents: u64,
    /// Characters in all documents.
    pub(super) chars: u64,
}

/// The manifest at `dir`, checked: its schema, its options, and every name
/// in it one the index makes (so that nothing outside the folder is read
/// or removed), its segments numbered without a gap.
pub(super) fn read_manifest(dir: &Path) -> Result<Option<Manifest>, IndexError> {
    let path = dir.join(MANIFEST);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_at(&path)(e)),
    };
    let bad = |what: String| damaged(path.clone(), what);
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(INDEX_SCHEMA) => {}
        Some(other) => return Err(IndexError::Version(dir.to_path_buf(), format!("format {other}"))),
        None => return Err(bad("it has no schema".into())),
    }
    let m: Manifest = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    if !(8..=30).contains(&m.options.df_bits) {
        return Err(bad(format!("df_bits {} is not between 8 and 30", m.options.df_bits)));
    }
    if generation_of(&m.df).is_none_or(|g| df_name(g) != m.df || g != m.generation) {
        return Err(bad(format!("{:?} is not the feature table of generation {}", m.df, m.generation)));
    }
    let mut next: u64 = 0;
    let mut last = 0;
    for s in &m.segments {
        let g = generation_of(&s.name).filter(|&g| segment_name(g) == s.name && g > last && g <= m.generation);
        let Some(g) = g else { return Err(bad(format!("{:?} is not a segment of this index", s.name))) };
        last = g;
        if u64::from(s.first) != next {
            return Err(bad(format!("segment {} starts at document {} where {next} was expected", s.name, s.first)));
        }
        next += u64::from(s.docs);
    }
    if next != m.documents || next >= u64::from(u32::MAX) {
        return Err(bad(format!("{} documents in its segments, {} in its count", next, m.documents)));
    }
    Ok(Some(m))
}

/// Write `m` as the committed state: a temporary file of one name (the
/// writer holds the lock), synced, renamed, the folder synced.
pub(super) fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), IndexError> {
    let tmp = dir.join(MANIFEST_TMP);
    let bytes = serde_json::to_vec_pretty(m).map_err(|e| io_at(&tmp)(e.into()))?;
    // A new file (never another writer's, whose lock file was removed).
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(io_at(&tmp))?;
    let written = io::Write::write_all(&mut f, &bytes).and_then(|()| f.sync_all());
    drop(f);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_at(&tmp)(e));
    }
    let path = dir.join(MANIFEST);
    std::fs::rename(&tmp, &path).map_err(io_at(&path))?;
    sync_dir(dir);
    Ok(())
}

/// Make the renames in `dir` durable (where the platform allows syncing a
/// folder).
pub(super) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Remove what a killed writer can have left (only called under the
/// lock): the files of the generation after the committed one, the
/// manifest's temporary file, and the feature table of the generation
/// before (a writer killed after its commit). Named one by one: nothing
/// else in the folder is touched, whatever its name.
pub(super) fn remove_leftovers(dir: &Path, m: Option<&Manifest>) -> Result<(), IndexError> {
    let g = m.map_or(0, |m| m.generation);
    let mut names = vec![
        format!(".tmp.{}", segment_name(g + 1)),
        segment_name(g + 1),
        format!(".tmp.{}", df_name(g + 1)),
        df_name(g + 1),
        MANIFEST_TMP.to_string(),
    ];
    if g >= 1 {
        names.push(df_name(g - 1));
    }
    for name in names {
        let path = dir.join(&name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        let r = if meta.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        match r {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_at(&path)(e)),
            _ => {}
        }
    }
    Ok(())
}

/// The first entry of `dir` the index does not make, if any.
pub(super) fn foreign_entry(dir: &Path) -> Result<Option<String>, IndexError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_at(dir)(e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let name = entry.map_err(io_at(dir))?.file_name().to_string_lossy().into_owned();
        if !is_index_entry(&name) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names.into_iter().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the names the index writes, exactly as it writes them, are
    /// its own: what a user puts in the folder under a similar name is
    /// not, and is never removed.
    #[test]
    fn only_the_exact_names_the_index_writes_are_its_own() {
        for (name, g) in [
            ("seg.000001", 1),
            (".tmp.seg.000002", 2),
            ("df.000003.zst", 3),
            (".tmp.df.000004.zst", 4),
            ("seg.1000000", 1_000_000),
        ] {
            assert_eq!(generation_of(name), Some(g), "{name}");
            assert!(is_index_entry(name), "{name}");
        }
        for name in [
            "seg.01",
            "seg.photos",
            "seg.01.jsonl",
            "seg.0000001",
            "df.csv",
            "df.000003.zst.bak",
            "df.000003",
            ".tmp.draft.txt",
            ".tmp.seg.x",
            "seg.000001/../x",
            "../other.idx/seg.000001",
            "seg.-00001",
            "lock.old",
            "manifest.json.bak",
        ] {
            assert_eq!(generation_of(name), None, "{name}");
            assert!(!is_index_entry(name), "{name}");
        }
        for name in ["manifest.json", ".tmp.manifest.json", "lock"] {
            assert!(is_index_entry(name), "{name}");
        }
    }
}
