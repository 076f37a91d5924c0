//! The scan tables' formats ([`parallels::scan::TABLE_WRITERS`]): each
//! writes the files it names and its tables read back as they were.

use parallels::corpus::{resolve, CorpusOptions, CorpusReader};
use parallels::plumbing::Quiet;
use parallels::scan::{scan, InputKey, ScanOptions, ScanTables, Work, TABLE_WRITERS};

/// Every format of the list writes exactly the files it names (the CLI
/// checks those against the inputs before writing), under the names the
/// reader looks for, and its tables read back as the scan gave them.
#[test]
fn every_table_writer_writes_the_files_it_names_and_they_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let inputs = resolve(&[examples.join("v1.txt"), examples.join("v2.txt")]).unwrap();
    let options = CorpusOptions::default();
    let work = Work { dir: dir.path().join("work"), key: InputKey::new(&inputs, &options), resume: false };
    let mut reader = CorpusReader::new(inputs, options).unwrap();
    let result = scan(&mut reader, &ScanOptions::default(), &work, &Quiet).unwrap();
    let passages = result.passages.to_vec().unwrap();
    assert!(!passages.is_empty(), "two versions of one text share passages");
    for writer in TABLE_WRITERS {
        let out = dir.path().join(writer.name());
        writer.write(&result, &out).unwrap();
        let mut written: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
        written.sort();
        let mut named = writer.files(&out);
        named.sort();
        assert_eq!(written, named, "{}", writer.name());
        let tables = ScanTables::read(&out).unwrap();
        assert_eq!(tables.documents, result.documents, "{}", writer.name());
        assert_eq!(tables.passages, passages, "{}", writer.name());
        assert_eq!(tables.clusters, result.clusters, "{}", writer.name());
    }
}
