//! The output formats of `parallels align`: each a [`Writer`] of one run
//! ([`Run`]: the texts read, their alignment, how a terminal shows
//! them), listed once in [`FORMATS`], from which the command line takes
//! its `--format` values and their help.
//!
//! A writer only writes: what it writes is decided before it is called
//! (the alignment by [`collate`](super::collate), the n-way table by
//! [`Run::table`], built once for every writer and for the HTML view).
//! What a format asks of a run is the format's own, stated here and not
//! by a front end: how many texts it takes ([`Writer::two_texts`]: TMX,
//! the bitext and the ladder pair two), whether its sentences are lines
//! ([`Writer::lines`]: the ladder's indices are the lines sentence
//! aligners read), which way round a pair is written (the ladder's A is
//! the first text given), and the TMX languages.
//!
//! # Adding a format
//!
//! A new file in this folder with a type that implements [`Writer`] (and,
//! in it, a test of the bytes it writes: `testing` aligns texts for it),
//! and its line in [`FORMATS`]: two files.
//!
//! The other output shapes have their writers beside the data they
//! write: a scan's tables ([`crate::scan::write_jsonl`],
//! [`crate::scan::write_parquet`]), the HTML pages ([`crate::report`]).

mod collation;
mod json;
mod ladder;
#[cfg(test)]
mod testing;
mod text;
mod writer;

pub use writer::{Run, WriteError, Writer};

/// Every output format of `parallels align`, in the order `--help` lists
/// them; the first is the default.
pub static FORMATS: &[&dyn Writer] = &[
    &text::Text,
    &json::Json,
    &collation::CollationJson,
    &collation::Delimited { name: "csv", delimiter: b',' },
    &collation::Delimited { name: "tsv", delimiter: b'\t' },
    &collation::Tei,
    &collation::Tmx,
    &collation::Bitext,
    &ladder::Ladder,
];

/// The format named `name`.
pub fn format(name: &str) -> Option<&'static dyn Writer> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

#[cfg(test)]
mod tests {
    use super::super::export::ExportError;
    use super::super::table::{build_table, Table};
    use super::testing::{aligned, docs, written};
    use super::*;
    use crate::align::Prepared;

    #[test]
    fn every_format_has_one_name_and_a_help() {
        let mut names: Vec<&str> = FORMATS.iter().map(|f| f.name()).collect();
        assert_eq!(names[0], "text");
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FORMATS.len());
        assert!(FORMATS.iter().all(|f| !f.about().is_empty() && format(f.name()).is_some()));
        assert!(format("docx").is_none());
    }

    #[test]
    fn a_format_of_two_texts_refuses_three() {
        for name in ["tmx", "bitext", "ladder"] {
            let f = format(name).unwrap();
            assert!(f.check(2).is_ok());
            let refused = f.check(3).unwrap_err().to_string();
            assert!(
                refused.starts_with(&format!("{name} pairs the sentences of exactly two texts, and 3")),
                "{refused}"
            );
        }
        assert!(format("tei").unwrap().check(3).is_ok());
        assert!(format("ladder").unwrap().lines() && !format("tmx").unwrap().lines());
    }

    /// The ladder's A is the first text given, whichever id is smaller
    /// (the output's pairs put the smaller first).
    #[test]
    fn a_ladder_is_written_the_way_round_the_texts_were_given() {
        let long = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。\n\
                    十七世纪中叶，城中约有两万三千名居民，其中三分之一是来自各地的商人、水手和工匠。\n\
                    码头上常年停泊着来自荷兰、英格兰和丹麦的商船。\n";
        let short = "十七世纪中叶，城中约有两万三千名居民，其中三分之一是来自各地的商人、水手和工匠。\n";
        let ladder = format("ladder").unwrap();
        let d = docs(&[("a", long), ("b", short)]);
        let forward = written(ladder, &d).unwrap();
        assert_eq!(forward, "[0]:[]\n[1]:[0]\n[2]:[]\n");
        // The same output, the texts given the other way round: its pair
        // is (a, b), the ladder's A is b.
        let (ids, prepared, output) = aligned(&d);
        let (d, ids, prepared) = (
            [d[1].clone(), d[0].clone()],
            [ids[1].clone(), ids[0].clone()],
            [prepared[1].clone(), prepared[0].clone()],
        );
        let mut backward = Vec::new();
        ladder.write(&Run::new(&d, &ids, &prepared, &output), &mut backward).unwrap();
        let backward = String::from_utf8(backward).unwrap();
        // The same beads, sides swapped.
        let swapped: Vec<String> = forward
            .lines()
            .map(|l| {
                let (a, b) = l.split_once(':').unwrap();
                format!("{b}:{a}")
            })
            .collect();
        assert_eq!(backward.lines().collect::<Vec<_>>(), swapped);
        let json = written(format("json").unwrap(), &docs(&[("a", long), ("b", short)])).unwrap();
        assert!(json.starts_with("{\n  \"schema\": \"parallels.align/1\"") && json.ends_with("}\n"), "{json}");
        let three = docs(&[("a", long), ("b", short), ("c", short)]);
        assert!(matches!(
            written(format("ladder").unwrap(), &three),
            Err(WriteError::Export(ExportError::NotTwo { given: 3, .. }))
        ));
    }

    #[test]
    fn the_table_is_built_once_for_every_writer() {
        let v =
            "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市。城墙修建于一五六〇年代。";
        let docs = docs(&[("a", v), ("b", v), ("c", v)]);
        let (ids, prepared, output) = aligned(&docs);
        let run = Run::new(&docs, &ids, &prepared, &output);
        let first: *const Table = run.table();
        for name in ["collation-json", "csv", "tei"] {
            format(name).unwrap().write(&run, &mut Vec::new()).unwrap();
        }
        assert!(std::ptr::eq(first, run.table()));
        let refs: Vec<&Prepared> = prepared.iter().collect();
        assert_eq!(run.table().rows.len(), build_table(&ids, &run.texts(), &refs, &output).rows.len());
    }
}
