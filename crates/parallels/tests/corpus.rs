//! File-level tests of `parallels::corpus`: real folders, JSON Lines and
//! Parquet files.
//!
//! Fixtures under `tests/fixtures/corpus/`:
//!
//! * `texts/`: a folder of text files. `a.txt` (UTF-8), `2021/06/b.txt`
//!   (UTF-8 with a BOM), `2021/06/c.md`, `2021/empty.txt` (0 bytes),
//!   `2022/gb.txt` (GB18030), `binary.txt` (NUL bytes), `notes.md` and
//!   `notes.txt` (the same id, `notes`), `figure.png` (a real 1×1 PNG,
//!   skipped for its extension), `.hidden.txt` and `.hidden/x.txt` (hidden,
//!   skipped).
//! * `docs.jsonl`: JSON Lines starting with a UTF-8 BOM. Line 1 a record
//!   with extra fields, 2 a numeric id, 3 malformed JSON, 4 no `text`, 5 a
//!   duplicate of id `d1`, 6 blank, 7 an empty text, 8 a numeric text, 9 a
//!   numeric group and extra fields of every JSON type.
//!
//! Parquet files are written here with the Arrow writer.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Float64Array, Int64Array, ListArray, RecordBatch, StringArray};
use parallels::corpus::{
    resolve, CorpusDoc, CorpusError, CorpusOptions, CorpusReader, Format, Input, Position, Problem, ProblemKind,
    Source, Table,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde_json::{json, Map, Value};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus").join(name)
}

fn arg(path: &Path) -> String {
    path.to_str().expect("test paths are UTF-8").to_owned()
}

fn reader<A: AsRef<Path>>(args: &[A], options: CorpusOptions) -> CorpusReader {
    CorpusReader::new(resolve(args).unwrap(), options).unwrap()
}

/// Each item as `Ok((id, source, encoding, group))` or `Err((kind, source))`.
type Row = Result<(String, String, String, Option<String>), (ProblemKind, String)>;

fn rows(items: &[Result<CorpusDoc, Problem>]) -> Vec<Row> {
    items
        .iter()
        .map(|item| match item {
            Ok(d) => Ok((d.id.clone(), d.origin.source.to_string(), d.encoding.clone(), d.group.clone())),
            Err(p) => Err((p.kind, p.source.clone())),
        })
        .collect()
}

fn doc(id: &str, source: &str, encoding: &str, group: Option<&str>) -> Row {
    Ok((id.to_owned(), source.to_owned(), encoding.to_owned(), group.map(str::to_owned)))
}

fn problem(kind: ProblemKind, source: &str) -> Row {
    Err((kind, source.to_owned()))
}

fn meta(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn text_folder_in_path_order_with_every_problem_reported() {
    let root = fixture("texts");
    assert_eq!(resolve(&[arg(&root)]).unwrap(), vec![Input::Dir { path: root.clone(), root: root.clone() }]);
    let mut reader = reader(&[arg(&root)], CorpusOptions::default());
    let items: Vec<_> = reader.by_ref().collect();
    let at = |rel: &str| arg(&root.join(rel));
    assert_eq!(
        rows(&items),
        vec![
            doc("2021/06/b", &at("2021/06/b.txt"), "utf-8", None),
            doc("2021/06/c", &at("2021/06/c.md"), "utf-8", None),
            problem(ProblemKind::Empty, &at("2021/empty.txt")),
            doc("2022/gb", &at("2022/gb.txt"), "gb18030", None),
            doc("a", &at("a.txt"), "utf-8", None),
            problem(ProblemKind::Unreadable, &at("binary.txt")),
            doc("notes", &at("notes.md"), "utf-8", None),
            problem(ProblemKind::DuplicateId, &at("notes.txt")),
        ]
    );

    let docs: Vec<&CorpusDoc> = items.iter().filter_map(|i| i.as_ref().ok()).collect();
    // The BOM is not text; the GB18030 file decodes to the Chinese text.
    assert_eq!(docs[0].text, "十七世纪中叶，城中约有两万三千名居民，其中三分之一是来自各地的商人、水手和工匠。\n");
    assert!(docs[2].text.starts_with("魏斯明德坐落在布伦纳河"), "{}", docs[2].text);
    assert_eq!(docs[2].text.lines().count(), 3);
    assert!(docs.iter().all(|d| d.meta.is_empty() && d.replaced == 0));

    let problems: Vec<&Problem> = items.iter().filter_map(|i| i.as_ref().err()).collect();
    assert_eq!(problems[0].message, "document \"2021/empty\" is empty");
    assert!(problems[1].message.contains("looks like a binary file"), "{}", problems[1]);
    assert!(problems[1].to_string().starts_with(&at("binary.txt")), "{}", problems[1]);
    assert_eq!(
        problems[2].message,
        format!("duplicate id \"notes\": first used by {}; this one is skipped", at("notes.md"))
    );

    let summary = reader.summary();
    assert_eq!(summary.documents, 5);
    // The documents, the empty file, and the duplicate (read, then refused).
    assert_eq!(summary.files, 7);
    assert_eq!(summary.hidden, 2);
    assert_eq!(summary.other_extension, 1);
    assert_eq!(summary.not_regular, 0);
    assert_eq!(summary.skipped_count(ProblemKind::Empty), 1);
    assert_eq!(summary.skipped_count(ProblemKind::Unreadable), 1);
    assert_eq!(summary.skipped_count(ProblemKind::DuplicateId), 1);
    assert_eq!(summary.skipped_total(), 3);
    let sizes: u64 =
        ["2021/06/b.txt", "2021/06/c.md", "2021/empty.txt", "2022/gb.txt", "a.txt", "notes.md", "notes.txt"]
            .iter()
            .map(|rel| fs::metadata(root.join(rel)).unwrap().len())
            .sum();
    assert_eq!(summary.bytes, sizes);
}

#[test]
fn group_by_dir_groups_by_the_relative_folder() {
    let root = fixture("texts");
    let options = CorpusOptions { group_by_dir: true, ..CorpusOptions::default() };
    let groups: Vec<(String, Option<String>)> =
        reader(&[arg(&root)], options).filter_map(Result::ok).map(|d| (d.id, d.group)).collect();
    let expected =
        [("2021/06/b", "2021/06"), ("2021/06/c", "2021/06"), ("2022/gb", "2022"), ("a", "."), ("notes", ".")];
    let expected: Vec<_> = expected.iter().map(|(id, g)| (id.to_string(), Some(g.to_string()))).collect();
    assert_eq!(groups, expected);
}

#[test]
fn no_extension_filter_reads_every_file_and_reports_the_png() {
    let root = fixture("texts");
    let options = CorpusOptions { extensions: vec![], ..CorpusOptions::default() };
    let mut reader = reader(&[arg(&root)], options);
    let items: Vec<_> = reader.by_ref().collect();
    let png = items.iter().find_map(|i| i.as_ref().err().filter(|p| p.source.ends_with("figure.png"))).unwrap();
    assert_eq!(png.kind, ProblemKind::Unreadable);
    assert!(png.message.contains("NUL bytes"), "{png}");
    assert_eq!(reader.summary().other_extension, 0);
    assert_eq!(reader.summary().hidden, 2);
    assert_eq!(reader.summary().documents, 5);
}

#[test]
fn a_glob_over_text_files_makes_ids_relative_to_its_literal_folder() {
    let root = fixture("texts");
    let pattern = format!("{}/**/*.txt", arg(&root));
    let items: Vec<_> = reader(&[pattern], CorpusOptions::default()).collect();
    let at = |rel: &str| arg(&root.join(rel));
    assert_eq!(
        rows(&items),
        vec![
            doc("2021/06/b", &at("2021/06/b.txt"), "utf-8", None),
            problem(ProblemKind::Empty, &at("2021/empty.txt")),
            doc("2022/gb", &at("2022/gb.txt"), "gb18030", None),
            doc("a", &at("a.txt"), "utf-8", None),
            problem(ProblemKind::Unreadable, &at("binary.txt")),
            doc("notes", &at("notes.txt"), "utf-8", None),
        ]
    );
}

#[test]
fn jsonl_records_with_meta_groups_and_problems() {
    let path = fixture("docs.jsonl");
    let file = arg(&path);
    let options = CorpusOptions { group_field: Some("group".to_owned()), ..CorpusOptions::default() };
    let mut reader = reader(std::slice::from_ref(&file), options);
    let items: Vec<_> = reader.by_ref().collect();
    let line = |n: u32| format!("{file}:{n}");
    assert_eq!(
        rows(&items),
        vec![
            doc("d1", &line(1), "utf-8", Some("g1")),
            doc("2", &line(2), "utf-8", Some("g1")),
            problem(ProblemKind::Malformed, &line(3)),
            problem(ProblemKind::MissingField, &line(4)),
            problem(ProblemKind::DuplicateId, &line(5)),
            problem(ProblemKind::Empty, &line(7)),
            problem(ProblemKind::WrongType, &line(8)),
            doc("d9", &line(9), "utf-8", Some("7")),
        ]
    );
    let docs: Vec<&CorpusDoc> = items.iter().filter_map(|i| i.as_ref().ok()).collect();
    assert_eq!(docs[0].text, "魏斯明德坐落在布伦纳河注入波罗的海的河口。");
    assert_eq!(docs[0].meta, meta(json!({"lang": "zh", "year": 1793})));
    assert!(docs[1].meta.is_empty());
    assert_eq!(docs[2].meta, meta(json!({"tags": ["a", "b"], "score": 0.5, "ok": true, "note": null})));

    let messages: Vec<String> = items.iter().filter_map(|i| i.as_ref().err()).map(|p| p.to_string()).collect();
    assert_eq!(
        messages,
        [
            format!("{file}:3: malformed JSON: EOF while parsing a string at column 42"),
            format!("{file}:4: no field \"text\" (the text field, chosen with --text); the record is skipped"),
            format!("{file}:5: duplicate id \"d1\": first used by {file}:1; this one is skipped"),
            format!("{file}:7: document \"d7\" is empty"),
            format!("{file}:8: \"text\" is a number; the text must be a string; the record is skipped"),
        ]
    );

    let summary = reader.summary();
    assert_eq!(summary.documents, 3);
    assert_eq!(summary.files, 1);
    assert_eq!(summary.bytes, fs::metadata(&path).unwrap().len());
    for kind in [
        ProblemKind::Malformed,
        ProblemKind::MissingField,
        ProblemKind::DuplicateId,
        ProblemKind::Empty,
        ProblemKind::WrongType,
    ] {
        assert_eq!(summary.skipped_count(kind), 1, "{kind}");
    }
    assert_eq!(summary.skipped_total(), 5);
}

#[test]
fn jsonl_without_a_group_option_keeps_the_group_field_as_meta() {
    let docs: Vec<CorpusDoc> =
        reader(&[arg(&fixture("docs.jsonl"))], CorpusOptions::default()).filter_map(Result::ok).collect();
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0].group, None);
    assert_eq!(docs[0].meta, meta(json!({"group": "g1", "lang": "zh", "year": 1793})));
    assert_eq!(docs[2].meta["group"], json!(7));
}

#[test]
fn strict_stops_at_the_first_problem_naming_file_and_line() {
    let file = arg(&fixture("docs.jsonl"));
    let options = CorpusOptions { strict: true, ..CorpusOptions::default() };
    let mut reader = reader(std::slice::from_ref(&file), options);
    assert_eq!(reader.next().unwrap().unwrap().id, "d1");
    assert_eq!(reader.next().unwrap().unwrap().id, "2");
    let problem = reader.next().unwrap().unwrap_err();
    assert_eq!(problem.kind, ProblemKind::Malformed);
    assert_eq!(problem.source, format!("{file}:3"));
    let error = CorpusError::from(problem);
    assert!(error.to_string().starts_with(&format!("{file}:3: malformed JSON")), "{error}");
    // The option is named as the library names it; each front end shows
    // its own spelling (`--strict`, `strict=True`).
    assert!(error.to_string().contains("`strict`"), "{error}");
    assert!(reader.next().is_none());
    assert!(reader.next().is_none());
    assert_eq!(reader.summary().documents, 2);
    assert_eq!(reader.summary().skipped_total(), 1);
}

#[test]
fn strict_stops_in_a_folder_too() {
    let options = CorpusOptions { strict: true, ..CorpusOptions::default() };
    let items: Vec<_> = reader(&[arg(&fixture("texts"))], options).collect();
    assert_eq!(items.len(), 3);
    assert_eq!(items[2].as_ref().unwrap_err().kind, ProblemKind::Empty);
}

#[test]
fn jsonl_bad_utf8_and_other_bad_lines_are_skipped_and_reading_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    let mut bytes = b"{\"id\": \"a\", \"text\": \"caf\xE9\"}\r\n".to_vec();
    bytes.extend_from_slice(b"[1, 2]\r\n");
    bytes.extend_from_slice(b"{\"id\": null, \"text\": \"x\"}\n");
    bytes.extend_from_slice(b"{\"id\": \"\", \"text\": \"x\"}\n");
    bytes.extend_from_slice(b"{\"id\": [1], \"text\": \"x\"}\n");
    bytes.extend_from_slice(b"{\"id\": \"b\", \"text\": \" \xE3\x80\x80\\n\"}\n");
    bytes.extend_from_slice("{\"id\": 1.5, \"text\": \"ok\\r\\n\"}\r\n".as_bytes());
    bytes.extend_from_slice("{\"id\": \"c\", \"text\": \"no newline at the end\"}".as_bytes());
    fs::write(&path, &bytes).unwrap();
    let file = arg(&path);
    let mut reader = reader(std::slice::from_ref(&file), CorpusOptions::default());
    let items: Vec<_> = reader.by_ref().collect();
    let line = |n: u32| format!("{file}:{n}");
    assert_eq!(
        rows(&items),
        vec![
            problem(ProblemKind::Malformed, &line(1)),
            problem(ProblemKind::Malformed, &line(2)),
            problem(ProblemKind::MissingField, &line(3)),
            problem(ProblemKind::WrongType, &line(4)),
            problem(ProblemKind::WrongType, &line(5)),
            problem(ProblemKind::Empty, &line(6)),
            doc("1.5", &line(7), "utf-8", None),
            doc("c", &line(8), "utf-8", None),
        ]
    );
    let messages: Vec<&str> = items.iter().filter_map(|i| i.as_ref().err()).map(|p| p.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "not valid UTF-8 (first invalid byte at byte 24 of the line); JSON Lines must be UTF-8",
            "an array, not an object; each line must be one JSON object",
            "\"id\" is null; the record is skipped",
            "\"id\" is an empty string; the record is skipped",
            "\"id\" is an array; an id must be a string or a number; the record is skipped",
            "document \"b\" has only whitespace (3 characters)",
        ]
    );
    assert_eq!(items[6].as_ref().unwrap().text, "ok\r\n");
    assert_eq!(reader.summary().bytes, bytes.len() as u64);
}

#[test]
fn jsonl_missing_group_is_no_group_and_a_bad_one_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("groups.jsonl");
    let lines = [
        r#"{"id": "a", "text": "x", "work": "w1"}"#,
        r#"{"id": "b", "text": "y"}"#,
        r#"{"id": "c", "text": "z", "work": {"name": "w2"}}"#,
        r#"{"id": "d", "text": "z", "work": false}"#,
        r#"{"id": "e", "text": "z", "work": null}"#,
    ];
    fs::write(&path, lines.join("\n")).unwrap();
    let options = CorpusOptions { group_field: Some("work".to_owned()), ..CorpusOptions::default() };
    let items: Vec<_> = reader(&[arg(&path)], options).collect();
    let file = arg(&path);
    let line = |n: u32| format!("{file}:{n}");
    assert_eq!(
        rows(&items),
        vec![
            doc("a", &line(1), "utf-8", Some("w1")),
            // Without the field, or with null: in no group (compared with
            // every document), not skipped.
            doc("b", &line(2), "utf-8", None),
            problem(ProblemKind::WrongType, &line(3)),
            doc("d", &line(4), "utf-8", Some("false")),
            doc("e", &line(5), "utf-8", None),
        ]
    );
}

#[test]
fn a_number_and_a_string_id_that_clash_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.jsonl");
    let lines = [
        r#"{"id": 42, "text": "x"}"#,
        r#"{"id": "42", "text": "y"}"#,
        r#"{"id": "7", "text": "y"}"#,
        r#"{"id": 7, "text": "z"}"#,
        r#"{"id": "7", "text": "z"}"#,
    ];
    fs::write(&path, lines.join("\n")).unwrap();
    let file = arg(&path);
    let messages: Vec<String> =
        reader(&[arg(&path)], CorpusOptions::default()).filter_map(Result::err).map(|p| p.to_string()).collect();
    assert_eq!(
        messages,
        [
            format!(
                "{file}:2: duplicate id \"42\": first used by {file}:1 (there as the number 42, here as a string: \
                 ids are compared as text); this one is skipped"
            ),
            format!(
                "{file}:4: duplicate id \"7\": first used by {file}:3 (there as a string, here as the number 7: \
                 ids are compared as text); this one is skipped"
            ),
            format!("{file}:5: duplicate id \"7\": first used by {file}:3; this one is skipped"),
        ]
    );
}

#[test]
fn a_ten_megabyte_line_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let text = "字".repeat((10 << 20) / 3 + 1); // a little over 10 MiB of UTF-8
    assert!(text.len() > 10 << 20);
    let mut content = serde_json::to_string(&json!({"id": "long", "text": text})).unwrap();
    content.push('\n');
    content.push_str(r#"{"id": "short", "text": "after the long line"}"#);
    content.push('\n');
    fs::write(&path, &content).unwrap();
    let docs: Vec<CorpusDoc> = reader(&[arg(&path)], CorpusOptions::default()).map(Result::unwrap).collect();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0].text, text);
    assert_eq!(docs[1].id, "short");
    assert!(docs[1].origin.source.to_string().ends_with("long.jsonl:2"));
}

#[test]
fn documents_over_the_size_limit_are_skipped_and_reading_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let big = format!("{{\"id\": \"big\", \"text\": \"{}\"}}\n", "x".repeat(5000));
    fs::write(&path, format!("{big}{{\"id\": \"small\", \"text\": \"fits\"}}\n{big}")).unwrap();
    fs::write(dir.path().join("big.txt"), "y".repeat(2000)).unwrap();
    fs::write(dir.path().join("small.txt"), "fits").unwrap();
    let options = CorpusOptions { max_document_bytes: 1000, ..CorpusOptions::default() };
    let file = arg(&path);
    let mut reader = reader(&[file.clone(), arg(dir.path())], options);
    let items: Vec<_> = reader.by_ref().collect();
    assert_eq!(
        rows(&items),
        vec![
            problem(ProblemKind::TooLarge, &format!("{file}:1")),
            doc("small", &format!("{file}:2"), "utf-8", None),
            problem(ProblemKind::TooLarge, &format!("{file}:3")),
            problem(ProblemKind::TooLarge, &arg(&dir.path().join("big.txt"))),
            // The same id as the JSON record: the folder gives ids of its own.
            problem(ProblemKind::DuplicateId, &arg(&dir.path().join("small.txt"))),
        ]
    );
    assert_eq!(
        items[0].as_ref().unwrap_err().message,
        format!("a line of {} bytes, more than the limit of 1000 bytes per document; it is skipped", big.len() - 1)
    );
    assert_eq!(reader.summary().skipped_count(ProblemKind::TooLarge), 3);
}

#[test]
fn the_size_limit_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edge.jsonl");
    // Lines of 1000, 1001, 1002 and 1003 bytes without their line ending.
    let line = |id: &str, len: usize| {
        let head = format!("{{\"id\": \"{id}\", \"text\": \"");
        format!("{head}{}\"}}", "x".repeat(len - head.len() - 2))
    };
    let content = [line("a", 1000), line("b", 1001), line("c", 1002), line("d", 1003), line("e", 40)];
    fs::write(&path, content.join("\r\n")).unwrap();
    let options = CorpusOptions { max_document_bytes: 1000, ..CorpusOptions::default() };
    let mut reader = reader(&[arg(&path)], options);
    let items: Vec<_> = reader.by_ref().collect();
    let kinds: Vec<Result<&str, ProblemKind>> =
        items.iter().map(|i| i.as_ref().map(|d| d.id.as_str()).map_err(|p| p.kind)).collect();
    assert_eq!(
        kinds,
        [Ok("a"), Err(ProblemKind::TooLarge), Err(ProblemKind::TooLarge), Err(ProblemKind::TooLarge), Ok("e")]
    );
    for (item, size) in items[1..4].iter().zip([1001, 1002, 1003]) {
        let message = &item.as_ref().unwrap_err().message;
        assert!(message.starts_with(&format!("a line of {size} bytes")), "{message}");
    }
    assert_eq!(reader.summary().bytes, fs::metadata(&path).unwrap().len());
}

#[test]
fn a_json_array_file_is_refused_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("array.json");
    fs::write(&path, "[\n  {\"id\": \"a\", \"text\": \"x\"},\n  {\"id\": \"b\", \"text\": \"y\"}\n]\n").unwrap();
    let items: Vec<_> = reader(&[arg(&path)], CorpusOptions::default()).collect();
    assert_eq!(items.len(), 1);
    let problem = items[0].as_ref().unwrap_err();
    assert_eq!(problem.kind, ProblemKind::Malformed);
    assert_eq!(problem.source, format!("{}:1", arg(&path)));
    assert!(problem.message.contains("jq -c '.[]'"), "{problem}");
}

fn write_parquet(path: &Path, batch: &RecordBatch, compression: Compression) {
    let properties = WriterProperties::builder().set_compression(compression).build();
    let file = fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

#[test]
fn parquet_rows_are_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.parquet");
    let tags = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1)]),
        None,
        Some(vec![]),
        Some(vec![Some(2), Some(3)]),
    ]);
    let work: DictionaryArray<Int32Type> = vec![Some("w1"), Some("w1"), Some("w2"), Some("w2")].into_iter().collect();
    let data = batch(vec![
        ("id", Arc::new(StringArray::from(vec!["a", "b", "c", "d"])) as ArrayRef),
        ("text", Arc::new(StringArray::from(vec![Some("魏斯明德"), Some("second"), None, Some("fourth")]))),
        ("group", Arc::new(StringArray::from(vec!["g1", "g1", "g2", "g2"]))),
        ("year", Arc::new(Int64Array::from(vec![Some(1793), None, Some(1800), Some(1801)]))),
        ("score", Arc::new(Float64Array::from(vec![0.5, 1.0, 2.0, 0.25]))),
        ("work", Arc::new(work)),
        ("tags", Arc::new(tags)),
    ]);
    write_parquet(&path, &data, Compression::SNAPPY);
    let options = CorpusOptions { group_field: Some("group".to_owned()), ..CorpusOptions::default() };
    let file = arg(&path);
    let mut reader = reader(std::slice::from_ref(&file), options);
    let items: Vec<_> = reader.by_ref().collect();
    assert_eq!(
        rows(&items),
        vec![
            doc("a", &format!("{file}#0"), "utf-8", Some("g1")),
            doc("b", &format!("{file}#1"), "utf-8", Some("g1")),
            problem(ProblemKind::MissingField, &format!("{file}#2")),
            doc("d", &format!("{file}#3"), "utf-8", Some("g2")),
        ]
    );
    let docs: Vec<&CorpusDoc> = items.iter().filter_map(|i| i.as_ref().ok()).collect();
    assert_eq!(docs.iter().map(|d| d.text.as_str()).collect::<Vec<_>>(), ["魏斯明德", "second", "fourth"]);
    assert_eq!(docs[0].meta, meta(json!({"year": 1793, "score": 0.5, "work": "w1"})));
    assert_eq!(docs[1].meta, meta(json!({"year": null, "score": 1.0, "work": "w1"})));
    assert_eq!(docs[2].meta, meta(json!({"year": 1801, "score": 0.25, "work": "w2"})));
    assert_eq!(items[2].as_ref().unwrap_err().message, "\"text\" is null; the record is skipped");
    let summary = reader.summary();
    assert_eq!(summary.documents, 3);
    assert_eq!(summary.files, 1);
    assert_eq!(summary.bytes, fs::metadata(&path).unwrap().len());
    assert_eq!(summary.ignored_columns.keys().collect::<Vec<_>>(), ["tags"]);
    assert!(summary.ignored_columns["tags"].starts_with("List"), "{:?}", summary.ignored_columns);
}

#[test]
fn a_table_in_memory_is_read_as_its_parquet_file() {
    // Awkward rows (an empty id, a blank text, a null text, an id used
    // twice, a numeric column), in two record batches: read from memory,
    // the same documents, problems, meta and summary as from a Parquet
    // file of the same rows, the sources named after the table.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.parquet");
    let part = |ids: Vec<&str>, texts: Vec<Option<&str>>, years: Vec<Option<i64>>| {
        RecordBatch::try_from_iter_with_nullable([
            ("id", Arc::new(StringArray::from(ids)) as ArrayRef, true),
            ("text", Arc::new(StringArray::from(texts)), true),
            ("year", Arc::new(Int64Array::from(years)), true),
        ])
        .unwrap()
    };
    let batches = vec![
        part(vec!["a", "", "b"], vec![Some("天下大势"), Some("x"), Some(" \u{3000}\n")], vec![Some(1), None, Some(3)]),
        part(vec!["b", "c", "a"], vec![Some("分久必合"), None, Some("again")], vec![Some(4), Some(5), None]),
    ];
    let whole = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
    write_parquet(&path, &whole, Compression::SNAPPY);
    let file = arg(&path);
    let mut from_file = reader(std::slice::from_ref(&file), CorpusOptions::default());
    let want: Vec<_> = from_file.by_ref().collect();
    let table = Table::new("table", batches[0].schema(), batches.clone()).unwrap();
    let mut from_memory = CorpusReader::new(vec![Input::Table(table)], CorpusOptions::default()).unwrap();
    let got: Vec<_> = from_memory.by_ref().collect();
    let renamed = |rows: Vec<Row>| -> Vec<Row> {
        rows.into_iter()
            .map(|r| match r {
                Ok((id, source, encoding, group)) => Ok((id, source.replace(&file, "table"), encoding, group)),
                Err((kind, source)) => Err((kind, source.replace(&file, "table"))),
            })
            .collect()
    };
    assert_eq!(rows(&got), renamed(rows(&want)));
    assert_eq!(
        rows(&got),
        vec![
            doc("a", "table#0", "utf-8", None),
            problem(ProblemKind::WrongType, "table#1"),
            problem(ProblemKind::Empty, "table#2"),
            doc("b", "table#3", "utf-8", None),
            problem(ProblemKind::MissingField, "table#4"),
            problem(ProblemKind::DuplicateId, "table#5"),
        ]
    );
    let texts = |items: &[Result<CorpusDoc, Problem>]| -> Vec<(String, Map<String, Value>)> {
        items.iter().filter_map(|i| i.as_ref().ok()).map(|d| (d.text.clone(), d.meta.clone())).collect()
    };
    assert_eq!(texts(&got), texts(&want));
    assert_eq!(from_memory.summary().documents, from_file.summary().documents);
    assert_eq!(from_memory.summary().skipped, from_file.summary().skipped);
    // A missing column is refused before anything is read, naming it.
    let no_text = batch(vec![("id", Arc::new(StringArray::from(vec!["a"])) as ArrayRef)]);
    let table = Table::new("table", no_text.schema(), vec![no_text]).unwrap();
    let error = CorpusReader::new(vec![Input::Table(table)], CorpusOptions::default()).err().unwrap();
    assert!(matches!(&error, CorpusError::MissingColumn { column, .. } if column == "text"), "{error:?}");
    // Batches of two schemas are not one table.
    let other = batch(vec![("id", Arc::new(Int64Array::from(vec![1])) as ArrayRef)]);
    assert!(Table::new("table", batches[0].schema(), vec![batches[0].clone(), other]).is_err());
}

#[test]
fn parquet_integer_ids_across_batches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.parquet");
    let n = 2500;
    let data = batch(vec![
        ("doc_id", Arc::new(Int64Array::from((0..n).map(|i| i * 10).collect::<Vec<i64>>())) as ArrayRef),
        ("body", Arc::new(StringArray::from((0..n).map(|i| format!("document {i}")).collect::<Vec<_>>()))),
    ]);
    write_parquet(&path, &data, Compression::ZSTD(ZstdLevel::default()));
    let options = CorpusOptions { id_field: "doc_id".to_owned(), text_field: "body".to_owned(), ..Default::default() };
    let docs: Vec<CorpusDoc> = reader(&[arg(&path)], options).map(Result::unwrap).collect();
    assert_eq!(docs.len(), 2500);
    for (i, d) in docs.iter().enumerate() {
        assert_eq!(d.id, (i * 10).to_string());
        assert_eq!(d.text, format!("document {i}"));
        assert_eq!(d.origin.source.to_string(), format!("{}#{i}", arg(&path)));
        assert!(d.meta.is_empty());
    }
}

#[test]
fn a_missing_parquet_column_is_one_error_naming_file_column_and_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-text.parquet");
    let data = batch(vec![
        ("id", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
        ("content", Arc::new(StringArray::from(vec!["x"]))),
    ]);
    write_parquet(&path, &data, Compression::UNCOMPRESSED);
    let error = CorpusReader::new(resolve(&[arg(&path)]).unwrap(), CorpusOptions::default()).err().unwrap();
    assert!(matches!(&error, CorpusError::MissingColumn { column, .. } if column == "text"), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "{}: no column \"text\" (the text column, chosen with --text); its columns are: \"id\", \"content\"",
            arg(&path)
        )
    );
    let options = CorpusOptions { group_field: Some("work".to_owned()), ..CorpusOptions::default() };
    let options = CorpusOptions { text_field: "content".to_owned(), ..options };
    let error = CorpusReader::new(resolve(&[arg(&path)]).unwrap(), options).err().unwrap();
    assert!(error.to_string().contains("no column \"work\" (the group column, chosen with --group)"), "{error}");
}

#[test]
fn a_parquet_column_of_the_wrong_type_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("float-text.parquet");
    let data = batch(vec![
        ("id", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
        ("text", Arc::new(Float64Array::from(vec![1.0]))),
    ]);
    write_parquet(&path, &data, Compression::UNCOMPRESSED);
    let error = CorpusReader::new(resolve(&[arg(&path)]).unwrap(), CorpusOptions::default()).err().unwrap();
    assert_eq!(
        error.to_string(),
        format!("{}: column \"text\" is of type Float64; the text column must be a string column", arg(&path))
    );
}

#[test]
fn a_corrupt_parquet_file_is_an_unreadable_problem() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("corrupt.parquet");
    fs::write(&path, b"PAR1 this is not really parquet").unwrap();
    let items: Vec<_> = reader(&[arg(&path)], CorpusOptions::default()).collect();
    assert_eq!(rows(&items), vec![problem(ProblemKind::Unreadable, &arg(&path))]);
    assert!(items[0].as_ref().unwrap_err().message.starts_with("not a readable Parquet file"));
}

#[test]
fn a_glob_over_parquet_files_reads_them_in_sorted_order() {
    let dir = tempfile::tempdir().unwrap();
    // Written in reverse order, so that creation order is not path order.
    for part in [1, 0] {
        let data = batch(vec![
            ("id", Arc::new(StringArray::from(vec![format!("p{part}-a"), format!("p{part}-b")])) as ArrayRef),
            ("text", Arc::new(StringArray::from(vec![format!("part {part} a"), format!("part {part} b")]))),
        ]);
        write_parquet(&dir.path().join(format!("part-{part}.parquet")), &data, Compression::SNAPPY);
    }
    fs::write(dir.path().join("part-2.txt"), "not matched").unwrap();
    let pattern = format!("{}/part-*.parquet", arg(dir.path()));
    let inputs = resolve(std::slice::from_ref(&pattern)).unwrap();
    assert_eq!(
        inputs,
        vec![
            Input::Records { path: dir.path().join("part-0.parquet"), format: Format::PARQUET },
            Input::Records { path: dir.path().join("part-1.parquet"), format: Format::PARQUET }
        ]
    );
    let docs: Vec<CorpusDoc> = reader(&[pattern], CorpusOptions::default()).map(Result::unwrap).collect();
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["p0-a", "p0-b", "p1-a", "p1-b"]);
    assert_eq!(docs[2].origin.source.to_string(), format!("{}#0", arg(&dir.path().join("part-1.parquet"))));
}

#[test]
fn duplicate_ids_across_files_name_both_sources() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("a.jsonl");
    fs::write(&jsonl, "{\"id\": \"x\", \"text\": \"from JSON Lines\"}\n").unwrap();
    let parquet = dir.path().join("b.parquet");
    let data = batch(vec![
        ("id", Arc::new(StringArray::from(vec!["x", "y"])) as ArrayRef),
        ("text", Arc::new(StringArray::from(vec!["from Parquet", "also"]))),
    ]);
    write_parquet(&parquet, &data, Compression::UNCOMPRESSED);
    let items: Vec<_> = reader(&[arg(&jsonl), arg(&parquet)], CorpusOptions::default()).collect();
    let problem = items[1].as_ref().unwrap_err();
    assert_eq!(problem.kind, ProblemKind::DuplicateId);
    assert_eq!(
        problem.to_string(),
        format!("{}#0: duplicate id \"x\": first used by {}:1; this one is skipped", arg(&parquet), arg(&jsonl))
    );
    assert_eq!(items[2].as_ref().unwrap().id, "y");
}

#[test]
fn resolve_sorts_out_arguments_and_refuses_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.jsonl", "b.ndjson", "c.JSON", "d.parquet", "e.txt", "f.csv", "g.jsonl.gz"] {
        fs::write(dir.path().join(name), "").unwrap();
    }
    let path = |name: &str| dir.path().join(name);
    let args: Vec<String> = ["a.jsonl", "b.ndjson", "c.JSON", "d.parquet", "e.txt", "f.csv"]
        .iter()
        .map(|n| arg(&path(n)))
        .chain([arg(dir.path())])
        .collect();
    assert_eq!(
        resolve(&args).unwrap(),
        vec![
            Input::Records { path: path("a.jsonl"), format: Format::JSONL },
            Input::Records { path: path("b.ndjson"), format: Format::JSONL },
            Input::Records { path: path("c.JSON"), format: Format::JSONL },
            Input::Records { path: path("d.parquet"), format: Format::PARQUET },
            Input::Text { path: path("e.txt"), root: dir.path().to_path_buf() },
            Input::Text { path: path("f.csv"), root: dir.path().to_path_buf() },
            Input::Dir { path: dir.path().to_path_buf(), root: dir.path().to_path_buf() },
        ]
    );
    assert_eq!(
        resolve(&[arg(&path("g.jsonl.gz"))]).unwrap(),
        vec![Input::Records { path: path("g.jsonl.gz"), format: Format::JSONL }]
    );
    for name in ["h.tar.gz", "i.jsonl.bz2", "j.parquet.gz", "k.zip"] {
        fs::write(path(name), "").unwrap();
        let error = resolve(&[arg(&path(name))]).unwrap_err();
        assert!(matches!(error, CorpusError::Unsupported { .. }), "{error:?}");
        assert!(error.to_string().starts_with(&format!("{}: ", arg(&path(name)))), "{error}");
        assert!(error.to_string().contains("decompress"), "{error}");
    }
    let error = resolve(&[arg(&path("missing.jsonl"))]).unwrap_err();
    assert_eq!(error.to_string(), format!("{}: no such file or folder; check the path", arg(&path("missing.jsonl"))));
    let pattern = arg(&path("*.nothing"));
    let error = resolve(std::slice::from_ref(&pattern)).unwrap_err();
    assert!(matches!(error, CorpusError::NoMatch { .. }), "{error:?}");
    assert!(error.to_string().starts_with(&pattern), "{error}");
    assert!(matches!(resolve::<String>(&[]).unwrap_err(), CorpusError::NoInput));
    assert!(matches!(resolve(&[arg(&path("a**b"))]).unwrap_err(), CorpusError::Pattern { .. }));
}

#[test]
fn a_text_file_named_alone_has_its_stem_as_id() {
    let path = fixture("texts/2022/gb.txt");
    let options = CorpusOptions { group_by_dir: true, ..CorpusOptions::default() };
    let docs: Vec<CorpusDoc> = reader(&[arg(&path)], options).map(Result::unwrap).collect();
    assert_eq!(rows(&docs.into_iter().map(Ok).collect::<Vec<_>>()), vec![doc("gb", &arg(&path), "gb18030", Some("."))]);
}

#[test]
fn contradictory_options_are_refused() {
    let texts = resolve(&[arg(&fixture("texts"))]).unwrap();
    let jsonl = resolve(&[arg(&fixture("docs.jsonl"))]).unwrap();
    let check = |inputs: &[Input], options: CorpusOptions, expected: &str| {
        let error = CorpusReader::new(inputs.to_vec(), options).err().unwrap();
        assert!(matches!(error, CorpusError::Options(_)), "{error:?}");
        assert!(error.to_string().contains(expected), "{error}");
    };
    let group = CorpusOptions { group_field: Some("group".to_owned()), ..CorpusOptions::default() };
    check(&texts, group.clone(), "use `group_by_dir`");
    check(&jsonl, CorpusOptions { group_by_dir: true, ..CorpusOptions::default() }, "use `group`");
    check(&jsonl, CorpusOptions { group_by_dir: true, ..group }, "cannot be used together");
    check(&jsonl, CorpusOptions { text_field: "id".to_owned(), ..CorpusOptions::default() }, "different fields");
}

#[test]
fn hidden_folders_and_files_are_never_read_and_symlinked_folders_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("real/sub")).unwrap();
    fs::write(dir.path().join("real/sub/a.txt"), "text a").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("real/sub/a.txt"), dir.path().join("b.txt")).unwrap();
    let mut reader = reader(&[arg(dir.path())], CorpusOptions::default());
    let ids: Vec<String> = reader.by_ref().map(|d| d.unwrap().id).collect();
    if cfg!(unix) {
        assert_eq!(ids, ["b", "real/sub/a"]);
        assert_eq!(reader.summary().not_regular, 1);
    } else {
        assert_eq!(ids, ["real/sub/a"]);
    }
}

#[test]
fn two_folders_with_the_same_file_names_give_distinct_ids() {
    let dir = tempfile::tempdir().unwrap();
    for (folder, text) in [("a", "甲的文字。"), ("b", "乙的文字。")] {
        std::fs::create_dir_all(dir.path().join(folder).join("sub")).unwrap();
        std::fs::write(dir.path().join(folder).join("x.txt"), text).unwrap();
        std::fs::write(dir.path().join(folder).join("sub/y.txt"), text).unwrap();
    }
    let (a, b) = (arg(&dir.path().join("a")), arg(&dir.path().join("b")));
    let options = CorpusOptions { group_by_dir: true, ..CorpusOptions::default() };
    let items: Vec<_> = reader(&[a.clone(), b.clone()], options.clone()).collect();
    let sep = std::path::MAIN_SEPARATOR;
    assert_eq!(
        rows(&items),
        vec![
            doc("a/sub/y", &format!("{a}{sep}sub{sep}y.txt"), "utf-8", Some("a/sub")),
            doc("a/x", &format!("{a}{sep}x.txt"), "utf-8", Some("a")),
            doc("b/sub/y", &format!("{b}{sep}sub{sep}y.txt"), "utf-8", Some("b/sub")),
            doc("b/x", &format!("{b}{sep}x.txt"), "utf-8", Some("b")),
        ]
    );
    // One folder alone keeps ids relative to itself.
    let items: Vec<_> = reader(&[a], options).collect();
    assert_eq!(rows(&items)[1], doc("x", &format!("{}{sep}x.txt", arg(&dir.path().join("a"))), "utf-8", Some(".")));
}

/// Everything `next_batch` gives, batch by batch, until an empty batch.
fn batched(reader: &mut CorpusReader, max_items: usize, max_bytes: usize) -> (Vec<Result<CorpusDoc, Problem>>, usize) {
    let mut items = Vec::new();
    let mut batches = 0;
    loop {
        let batch = reader.next_batch(max_items, max_bytes);
        if batch.is_empty() {
            break;
        }
        assert!(batch.len() <= max_items.max(1), "a batch of {} items, more than {max_items}", batch.len());
        batches += 1;
        items.extend(batch);
    }
    (items, batches)
}

fn texts_of(items: &[Result<CorpusDoc, Problem>]) -> Vec<Option<(String, Map<String, Value>)>> {
    items.iter().map(|i| i.as_ref().ok().map(|d| (d.text.clone(), d.meta.clone()))).collect()
}

#[test]
fn batches_hold_the_same_items_in_the_same_order_as_the_iterator() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    let mut bytes = b"{\"id\": \"a\", \"text\": \"caf\xE9\"}\r\n[1, 2]\r\n\n".to_vec();
    bytes.extend_from_slice("{\"id\": \"d1\", \"text\": \"又一条\"}\n{\"id\": \"z\", \"text\": \"完\"}".as_bytes());
    fs::write(&bad, &bytes).unwrap();
    let inputs = [arg(&fixture("texts")), arg(&fixture("docs.jsonl")), arg(&bad)];
    for strict in [false, true] {
        let options = || CorpusOptions { strict, ..CorpusOptions::default() };
        let mut one_by_one = reader(&inputs, options());
        let expected: Vec<_> = one_by_one.by_ref().collect();
        assert!(expected.len() >= if strict { 3 } else { 20 }, "{} items", expected.len());
        for (max_items, max_bytes) in [(1, usize::MAX), (3, usize::MAX), (1000, usize::MAX), (1000, 40)] {
            let mut batch_reader = reader(&inputs, options());
            let (items, _) = batched(&mut batch_reader, max_items, max_bytes);
            let case = format!("strict {strict}, batches of {max_items} items / {max_bytes} bytes");
            assert_eq!(rows(&items), rows(&expected), "{case}");
            assert_eq!(texts_of(&items), texts_of(&expected), "{case}");
            assert_eq!(batch_reader.summary().documents, one_by_one.summary().documents, "{case}");
            assert_eq!(batch_reader.summary().skipped, one_by_one.summary().skipped, "{case}");
            if !strict {
                assert_eq!(batch_reader.summary().bytes, one_by_one.summary().bytes, "{case}");
            }
        }
    }
    let (_, batches) = batched(&mut reader(&inputs[1..2], CorpusOptions::default()), 2, usize::MAX);
    assert!(batches >= 4, "docs.jsonl in batches of two items: {batches} batches");
}

#[test]
fn every_origin_names_its_input_its_place_and_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // A BOM, CRLF and LF endings, a blank line, a line over the size
    // limit, a malformed line, and a last line without a line feed.
    let lines: [&[u8]; 7] = [
        b"\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"one\"}\r\n",
        b"\n",
        b"{\"id\":\"b\",\"text\":\"two\"}\n",
        b"{\"id\":\"long\",\"text\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n",
        b"{not json}\n",
        b"  {\"id\":\"c\",\"text\":\"three\"}  \r\n",
        b"{\"id\":\"d\",\"text\":\"four\"}",
    ];
    let path = dir.path().join("docs.jsonl");
    fs::write(&path, lines.concat()).unwrap();
    fs::write(dir.path().join("e.txt"), "five").unwrap();
    let options = CorpusOptions { max_document_bytes: 60, ..CorpusOptions::default() };
    let args = [arg(&path), arg(&dir.path().join("e.txt"))];
    let docs: Vec<CorpusDoc> = reader(&args, options).filter_map(Result::ok).collect();
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    let file = fs::read(&path).unwrap();
    let mut line_start = vec![0u64];
    for line in lines {
        line_start.push(line_start.last().unwrap() + line.len() as u64);
    }
    for (doc, (line, bom)) in docs.iter().zip([(1usize, 3u64), (3, 0), (6, 0), (7, 0)]) {
        let origin = &doc.origin;
        assert_eq!(origin.input, 0);
        assert_eq!(
            origin.source,
            Source {
                file: Path::new(&arg(&path)).into(),
                position: Position::Line(line as u64),
                format: Some(Format::JSONL)
            }
        );
        assert_eq!(origin.source.to_string(), format!("{}:{line}", arg(&path)));
        let bytes = origin.bytes.clone().unwrap();
        assert_eq!(bytes, line_start[line - 1] + bom..line_start[line], "line {line}");
        assert_eq!(&file[bytes.start as usize..bytes.end as usize], &lines[line - 1][bom as usize..]);
    }
    let text = &docs[4].origin;
    assert_eq!((text.input, text.bytes.clone()), (1, None));
    assert_eq!(text.source, Source::whole(arg(&dir.path().join("e.txt"))));
}

#[test]
fn sources_read_back_as_they_are_written() {
    let written = [
        Source::whole("corpus/2021/a.txt"),
        Source {
            file: Path::new("data/crawl.jsonl").into(),
            position: Position::Line(12),
            format: Some(Format::JSONL),
        },
        Source { file: Path::new("x.NDJSON").into(), position: Position::Line(1), format: Some(Format::JSONL) },
        Source {
            file: Path::new("data/part-0.parquet").into(),
            position: Position::Row(0),
            format: Some(Format::PARQUET),
        },
        Source::whole("notes:12"),
        Source::whole("a#3.txt"),
    ];
    for source in written {
        assert_eq!(Source::parse(&source.to_string()), source);
        let json = serde_json::to_string(&source).unwrap();
        assert_eq!(json, serde_json::to_string(&source.to_string()).unwrap());
        assert_eq!(serde_json::from_str::<Source>(&json).unwrap(), source);
    }
    // Only what the reader writes is read as a place in a file.
    assert_eq!(Source::parse("x.txt:3"), Source::whole("x.txt:3"));
    assert_eq!(Source::parse("x.jsonl#3"), Source::whole("x.jsonl#3"));
    assert_eq!(Source::parse("x.jsonl:"), Source::whole("x.jsonl:"));
    assert_eq!(Source::parse("x.jsonl:+3"), Source::whole("x.jsonl:+3"));
}

// ---------------------------------------------------------------------
// Compressed input (issue 15, item 11).

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 3).unwrap()
}

/// JSON Lines with a BOM, CRLF, a blank line, a malformed line, a missing
/// text and a last line without a line feed.
const CRAWL: &[u8] =
    b"\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"one\",\"url\":\"u\"}\r\n\n{\"id\":\"b\",\"text\":\"two\"}\n\
{not json}\n{\"id\":\"c\"}\n{\"id\":\"d\",\"text\":\"four\"}";

/// Items with their sources' file names replaced by `FILE`, the texts and
/// metadata, and each record's bytes in `plain`.
fn described(items: &[Result<CorpusDoc, Problem>], file: &Path, plain: &[u8]) -> Vec<String> {
    let file = arg(file);
    items
        .iter()
        .map(|item| match item {
            Ok(d) => {
                let bytes = d.origin.bytes.clone().unwrap();
                let record = String::from_utf8_lossy(&plain[bytes.start as usize..bytes.end as usize]).into_owned();
                format!("{} {} {:?} {:?} {record:?}", d.id, d.origin.source, d.text, d.meta).replace(&file, "FILE")
            }
            Err(p) => p.to_string().replace(&file, "FILE"),
        })
        .collect()
}

#[test]
fn gzip_and_zstd_json_lines_read_as_the_plain_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("crawl.jsonl");
    fs::write(&plain, CRAWL).unwrap();
    let expected = described(&reader(&[arg(&plain)], CorpusOptions::default()).collect::<Vec<_>>(), &plain, CRAWL);
    assert_eq!(expected.len(), 5, "{expected:#?}");
    assert!(expected[2].starts_with("FILE:4: malformed JSON"), "{expected:#?}");
    for (name, bytes) in [
        ("crawl.jsonl.gz", gzip(CRAWL)),
        ("crawl.jsonl.zst", zstd(CRAWL)),
        ("crawl.ndjson.ZSTD", zstd(CRAWL)),
        ("crawl.jsonl.GZ", gzip(CRAWL)),
    ] {
        let path = dir.path().join(name);
        fs::write(&path, &bytes).unwrap();
        assert_eq!(resolve(&[arg(&path)]).unwrap(), vec![Input::Records { path: path.clone(), format: Format::JSONL }]);
        let items: Vec<_> = reader(&[arg(&path)], CorpusOptions::default()).collect();
        assert_eq!(described(&items, &path, CRAWL), expected, "{name}");
    }
}

#[test]
fn gzip_members_and_zstd_frames_are_read_one_after_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) =
        (b"{\"id\":\"a\",\"text\":\"one\"}\n".as_slice(), b"{\"id\":\"b\",\"text\":\"two\"}\n".as_slice());
    for (name, bytes) in
        [("m.jsonl.gz", [gzip(first), gzip(second)].concat()), ("m.jsonl.zst", [zstd(first), zstd(second)].concat())]
    {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let ids: Vec<String> = reader(&[arg(&path)], CorpusOptions::default()).map(|d| d.unwrap().id).collect();
        assert_eq!(ids, ["a", "b"], "{name}");
    }
}

#[test]
fn a_damaged_or_truncated_stream_keeps_the_records_before_and_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (1..=2000).map(|i| format!("{{\"id\":\"{i}\",\"text\":\"text number {i}\"}}\n")).collect();
    for (name, compressed) in [("t.jsonl.gz", gzip(lines.as_bytes())), ("t.jsonl.zst", zstd(lines.as_bytes()))] {
        for cut in [compressed.len() / 2, compressed.len() - 3] {
            let path = dir.path().join(name);
            fs::write(&path, &compressed[..cut]).unwrap();
            let items: Vec<_> = reader(&[arg(&path)], CorpusOptions::default()).collect();
            let (docs, problems): (Vec<_>, Vec<_>) = items.into_iter().partition(Result::is_ok);
            assert_eq!(problems.len(), 1, "{name} cut at {cut}: {problems:?}");
            let problem = problems[0].as_ref().unwrap_err();
            assert_eq!(problem.kind, ProblemKind::Unreadable);
            // Reading stopped at the line after the last whole record.
            assert_eq!(problem.source, format!("{}:{}", arg(&path), docs.len() + 1), "{problem}");
            assert!(problem.message.starts_with("cannot read on from this line: "), "{problem}");
            assert!(problem.message.ends_with("; the rest of the file is skipped"), "{problem}");
            // Cut in its trailer, the stream still gives every record.
            assert!(docs.len() < 2000 || cut == compressed.len() - 3, "{name} cut at {cut}");
            // The records before are whole and in order.
            for (k, d) in docs.iter().enumerate() {
                assert_eq!(d.as_ref().unwrap().id, (k + 1).to_string());
            }
        }
    }
    // Not compressed at all.
    let path = dir.path().join("plain.jsonl.gz");
    fs::write(&path, "{\"id\":\"a\",\"text\":\"b\"}\n").unwrap();
    let items: Vec<_> = reader(&[arg(&path)], CorpusOptions::default()).collect();
    assert_eq!(rows(&items), vec![problem(ProblemKind::Unreadable, &format!("{}:1", arg(&path)))]);
}

#[test]
fn compressed_text_files_in_folders_count_by_their_inner_extension() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("texts");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::write(root.join("a.txt.gz"), gzip("第一篇".as_bytes())).unwrap();
    fs::write(root.join("sub/b.md.zst"), zstd("第二篇".as_bytes())).unwrap();
    fs::write(root.join("c.txt"), "第三篇").unwrap();
    fs::write(root.join("d.csv.gz"), gzip(b"x,y")).unwrap();
    // GB18030 inside gzip is detected as any text file.
    let (gb, _, _) = encoding_rs::GB18030.encode("中华人民共和国的历史很长，文献也很多。");
    fs::write(root.join("gb.txt.gz"), gzip(&gb)).unwrap();
    fs::write(root.join("broken.txt.gz"), &gzip("第四篇".as_bytes())[..12]).unwrap();
    let mut reader = reader(&[arg(&root)], CorpusOptions::default());
    let items: Vec<_> = reader.by_ref().collect();
    let path = |name: &str| arg(&root.join(name));
    assert_eq!(
        rows(&items),
        vec![
            doc("a", &path("a.txt.gz"), "utf-8", None),
            problem(ProblemKind::Unreadable, &path("broken.txt.gz")),
            doc("c", &path("c.txt"), "utf-8", None),
            doc("gb", &path("gb.txt.gz"), "gb18030", None),
            doc("sub/b", &path("sub/b.md.zst"), "utf-8", None),
        ]
    );
    let texts: Vec<&str> = items.iter().filter_map(|d| d.as_ref().ok()).map(|d| d.text.as_str()).collect();
    assert_eq!(texts, ["第一篇", "第三篇", "中华人民共和国的历史很长，文献也很多。", "第二篇"]);
    let broken = items[1].as_ref().unwrap_err();
    assert!(broken.message.contains("cannot read it"), "{broken}");
    assert!(broken.message.contains("gzip -t"), "{broken}");
    assert_eq!(reader.summary().other_extension, 1);
}

#[test]
fn a_compressed_text_file_that_inflates_past_the_limit_is_too_large() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.txt.gz");
    // 1 MB of text in a file of about a kilobyte.
    fs::write(&path, gzip(&vec![b'a'; 1 << 20])).unwrap();
    assert!(fs::metadata(&path).unwrap().len() < 5000);
    let options = CorpusOptions { max_document_bytes: 1000, ..CorpusOptions::default() };
    let items: Vec<_> = reader(&[arg(&path)], options).collect();
    assert_eq!(rows(&items), vec![problem(ProblemKind::TooLarge, &arg(&path))]);
    let message = &items[0].as_ref().unwrap_err().message;
    assert_eq!(message, "more than the limit of 1000 bytes per document once decompressed; it is skipped");
    // Exactly the limit is read.
    fs::write(&path, gzip(&vec![b'a'; 1000])).unwrap();
    let options = CorpusOptions { max_document_bytes: 1000, ..CorpusOptions::default() };
    let docs: Vec<_> = reader(&[arg(&path)], options).map(Result::unwrap).collect();
    assert_eq!((docs[0].id.as_str(), docs[0].text.len()), ("bomb", 1000));
}

// ---------------------------------------------------------------------
// Lone surrogates (issue 15, item 10).

#[test]
fn lone_surrogate_escapes_are_read_as_replacement_characters_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("py.jsonl");
    let lines = [
        r#"{"id":"a","text":"x\ud800y"}"#,             // a lone high surrogate
        r#"{"id":"b","text":"\udc80\udcff end"}"#,     // lone low ones (surrogateescape)
        r#"{"id":"c","text":"pair \ud83d\ude00 ok"}"#, // a pair is one character
        r#"{"id":"d","text":"not an escape: \\ud800"}"#,
        r#"{"id":"e","text":"cut \ud83d"}"#, // a high one at the end
        r#"{"id":"f\udfff","text":"in the id", "\ud800k": "in a key"}"#,
        r#"{"id":"g","text":"\ud800" "broken"}"#,    // malformed anyway
        r#"{"id":"h","text":"\ud800\ud83d\ude00"}"#, // lone, then a pair
    ];
    fs::write(&path, lines.join("\n")).unwrap();
    let mut reader = reader(&[arg(&path)], CorpusOptions::default());
    let items: Vec<_> = reader.by_ref().collect();
    let got: Vec<Result<(String, String, usize), String>> = items
        .iter()
        .map(|item| match item {
            Ok(d) => Ok((d.id.clone(), d.text.clone(), d.replaced)),
            Err(p) => Err(p.to_string().replace(&arg(&path), "FILE")),
        })
        .collect();
    let ok = |id: &str, text: &str, replaced: usize| Ok((id.to_owned(), text.to_owned(), replaced));
    assert_eq!(
        got,
        vec![
            ok("a", "x\u{FFFD}y", 1),
            ok("b", "\u{FFFD}\u{FFFD} end", 2),
            ok("c", "pair 😀 ok", 0),
            ok("d", "not an escape: \\ud800", 0),
            ok("e", "cut \u{FFFD}", 1),
            ok("f\u{FFFD}", "in the id", 2),
            Err("FILE:7: malformed JSON: expected `,` or `}` at column 27".to_owned()),
            ok("h", "\u{FFFD}😀", 1),
        ]
    );
    assert_eq!(items[5].as_ref().unwrap().meta, meta(json!({"\u{FFFD}k": "in a key"})));
    let summary = reader.summary();
    assert_eq!(summary.repaired, 5);
    assert_eq!(summary.first_repaired.as_deref(), Some(format!("{}:1", arg(&path)).as_str()));
    let warning = summary.repaired_warning().unwrap();
    assert!(warning.starts_with("5 JSON Lines record(s) held lone surrogate escapes"), "{warning}");
    assert!(warning.ends_with(&format!("the first at {}:1", arg(&path))), "{warning}");
    // Nothing repaired: no warning, and the summary is written as before.
    assert_eq!(parallels::corpus::Summary::default().repaired_warning(), None);
    let value = serde_json::to_value(parallels::corpus::Summary::default()).unwrap();
    assert!(value.get("repaired").is_none() && value.get("first_repaired").is_none(), "{value}");
}

// ---------------------------------------------------------------------
// File names that are not UTF-8 (issue 15, item 3).

#[cfg(unix)]
fn os_path(dir: &Path, name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    dir.join(std::ffi::OsStr::from_bytes(name))
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_stay_two_documents_with_their_exact_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("texts");
    fs::create_dir(&root).unwrap();
    let (ff, fe) = (os_path(&root, b"\xFF.txt"), os_path(&root, b"\xFE.txt"));
    if fs::write(&ff, "第一篇").is_err() {
        return; // a file system that refuses such names
    }
    fs::write(&fe, "第二篇").unwrap();
    fs::write(os_path(&root, b"new\nline\x1b[31m.txt"), "第三篇").unwrap();
    let docs: Vec<CorpusDoc> = reader(&[arg(&root)], CorpusOptions::default()).map(Result::unwrap).collect();
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["new\\nline\\u{1b}[31m", "\\xFE", "\\xFF"]);
    assert_eq!(*docs[1].origin.source.file, *fe);
    assert_eq!(*docs[2].origin.source.file, *ff);
    assert_eq!(docs[2].origin.source.to_string(), format!("{}/\\xFF.txt", arg(&root)));
    // Written in JSON with lone surrogate escapes, read back exactly.
    for d in &docs {
        let json = serde_json::to_string(&d.origin.source).unwrap();
        assert_eq!(serde_json::from_str::<Source>(&json).unwrap(), d.origin.source, "{json}");
    }
    let json = serde_json::to_string(&docs[2].origin.source).unwrap();
    assert_eq!(json, format!("\"{}/\\udcff.txt\"", arg(&root)));
    let json = serde_json::to_string(&docs[0].origin.source).unwrap();
    assert_eq!(json, format!("\"{}/new\\nline\\u001b[31m.txt\"", arg(&root)));
    // The path read back finds the file again.
    let back: Source = serde_json::from_str(&serde_json::to_string(&docs[2].origin.source).unwrap()).unwrap();
    let again: Vec<CorpusDoc> =
        reader(&[back.file.to_path_buf()], CorpusOptions::default()).map(Result::unwrap).collect();
    assert_eq!(again[0].text, "第一篇");
}

#[cfg(unix)]
#[test]
fn a_json_lines_file_whose_name_is_not_utf8_keeps_its_name_in_every_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = os_path(dir.path(), b"crawl-\xE4.jsonl.gz");
    if fs::write(&path, gzip(b"{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"a\",\"text\":\"two\"}\n")).is_err() {
        return;
    }
    let items: Vec<_> = reader(std::slice::from_ref(&path), CorpusOptions::default()).collect();
    let doc = items[0].as_ref().unwrap();
    assert_eq!(
        doc.origin.source,
        Source { file: path.as_path().into(), position: Position::Line(1), format: Some(Format::JSONL) }
    );
    let json = serde_json::to_string(&doc.origin.source).unwrap();
    assert!(json.ends_with("/crawl-\\udce4.jsonl.gz:1\""), "{json}");
    assert_eq!(serde_json::from_str::<Source>(&json).unwrap(), doc.origin.source);
    let duplicate = items[1].as_ref().unwrap_err();
    let shown = format!("{}/crawl-\\xE4.jsonl.gz", arg(dir.path()));
    assert_eq!(
        duplicate.to_string(),
        format!("{shown}:2: duplicate id \"a\": first used by {shown}:1; this one is skipped")
    );
}

#[test]
fn a_path_that_is_utf8_is_written_as_before() {
    for source in [Source::whole("a/b c.txt"), Source::whole("引号\"与\\反斜杠.txt")] {
        let json = serde_json::to_string(&source).unwrap();
        assert_eq!(json, serde_json::to_string(source.file.to_str().unwrap()).unwrap());
        assert_eq!(serde_json::from_str::<Source>(&json).unwrap(), source);
    }
    // Other lone surrogates in a written source (not from us) read as U+FFFD.
    let source: Source = serde_json::from_str(r#""a\ud800.txt""#).unwrap();
    assert_eq!(source, Source::whole("a\u{FFFD}.txt"));
}

// ---------------------------------------------------------------------
// Properties: random and mutated JSON Lines, plain and compressed, and
// damaged Parquet files never make the reader panic, and compressed input
// reads as the plain bytes do.

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Every item, with the file name taken out.
    fn read_all(path: &Path, options: &CorpusOptions) -> Vec<String> {
        let items: Vec<_> = CorpusReader::new(
            vec![Input::Records { path: path.to_path_buf(), format: Format::JSONL }],
            options.clone(),
        )
        .unwrap()
        .collect();
        let file = arg(path);
        items
            .iter()
            .map(|item| match item {
                Ok(d) => format!("{:?} {:?} {:?} {:?} {:?}", d.id, d.text, d.meta, d.origin.bytes, d.replaced),
                Err(p) => p.to_string().replacen(&file, "FILE", 1),
            })
            .collect()
    }

    /// Lines of JSON-ish text: records, escapes (surrogates among them),
    /// broken syntax, BOMs and line endings.
    fn jsonish() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"{\"id\":\"".to_vec()),
            Just(b"\",\"text\":\"".to_vec()),
            Just(b"\"}\n".to_vec()),
            Just(b"\\ud800".to_vec()),
            Just(b"\\udc80".to_vec()),
            Just(b"\\ud83d\\ude00".to_vec()),
            Just(b"\\\\".to_vec()),
            Just(b"\\u00".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\xEF\xBB\xBF".to_vec()),
            Just(b"[".to_vec()),
            Just("中文".as_bytes().to_vec()),
            proptest::collection::vec(any::<u8>(), 0..8),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn jsonl_reading_never_panics_and_compression_changes_nothing(bytes in jsonish(), limit in 8u64..200) {
            let dir = tempfile::tempdir().unwrap();
            let options = CorpusOptions { max_document_bytes: limit, ..CorpusOptions::default() };
            let plain = dir.path().join("x.jsonl");
            fs::write(&plain, &bytes).unwrap();
            let expected = read_all(&plain, &options);
            for (name, compressed) in [("x.jsonl.gz", gzip(&bytes)), ("x.jsonl.zst", zstd(&bytes))] {
                let path = dir.path().join(name);
                fs::write(&path, compressed).unwrap();
                prop_assert_eq!(&read_all(&path, &options), &expected);
            }
        }

        #[test]
        fn damaged_compressed_input_never_panics(
            bytes in jsonish(),
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            cut in any::<prop::sample::Index>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            for (name, mut compressed) in [("x.jsonl.gz", gzip(&bytes)), ("x.jsonl.zst", zstd(&bytes))] {
                for (at, byte) in &flips {
                    let at = at.index(compressed.len());
                    compressed[at] ^= byte;
                }
                compressed.truncate(cut.index(compressed.len() + 1));
                let path = dir.path().join(name);
                fs::write(&path, &compressed).unwrap();
                read_all(&path, &CorpusOptions::default());
                let text = dir.path().join(name.replace("jsonl", "txt"));
                fs::write(&text, &compressed).unwrap();
                let _ = CorpusReader::new(resolve(&[arg(&text)]).unwrap(), CorpusOptions::default()).unwrap().count();
            }
        }

        #[test]
        fn damaged_parquet_never_panics(
            texts in proptest::collection::vec("[a-z中文]{1,30}", 1..20),
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
            cut in any::<prop::sample::Index>(),
            zstd_pages in any::<bool>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("x.parquet");
            let ids: Vec<String> = (0..texts.len()).map(|k| format!("d{k}")).collect();
            let data = batch(vec![
                ("id", Arc::new(StringArray::from(ids)) as ArrayRef),
                ("text", Arc::new(StringArray::from(texts.clone()))),
            ]);
            let compression = if zstd_pages { Compression::ZSTD(ZstdLevel::default()) } else { Compression::SNAPPY };
            write_parquet(&path, &data, compression);
            let intact = CorpusReader::new(resolve(&[arg(&path)]).unwrap(), CorpusOptions::default()).unwrap();
            prop_assert_eq!(intact.filter(Result::is_ok).count(), texts.len());
            let mut bytes = fs::read(&path).unwrap();
            for (at, byte) in &flips {
                let at = at.index(bytes.len());
                bytes[at] ^= byte;
            }
            bytes.truncate(cut.index(bytes.len() + 1).max(bytes.len() / 2));
            fs::write(&path, &bytes).unwrap();
            // Whatever the damage: no panic, and never more records than
            // the file held.
            if let Ok(reader) = CorpusReader::new(resolve(&[arg(&path)]).unwrap(), CorpusOptions::default()) {
                prop_assert!(reader.count() <= texts.len() + 1);
            }
        }

        #[cfg(unix)]
        #[test]
        fn any_path_is_written_and_read_back_exactly(name in proptest::collection::vec(1u8..=255, 1..24), line in 0u64..5) {
            use std::os::unix::ffi::OsStrExt;
            let name: Vec<u8> = b"f".iter().copied().chain(name.into_iter().filter(|&b| b != b'/')).collect();
            let file = Path::new(std::ffi::OsStr::from_bytes(&name));
            let source = if line == 0 { Source::whole(file) } else {
                Source { file: file.with_extension("jsonl").into(), position: Position::Line(line), format: Some(Format::JSONL) }
            };
            let json = serde_json::to_string(&source).unwrap();
            let back: Source = serde_json::from_str(&json).unwrap();
            // A text file whose own name ends in `.jsonl:7` is the one form
            // that cannot be told apart (see `Source::parse`).
            if Source::parse_path(&source.file) == Source::whole(&source.file) {
                prop_assert_eq!(back, source);
            }
        }
    }
}
