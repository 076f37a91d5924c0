//! File-level tests of `parallels::read`: real bytes written to real files.
//!
//! The Chinese fixtures are the first 300 characters of
//! `corpus/zh-variants/v1.txt` (simplified) and of `v2_trad.txt`
//! (traditional; 裏, 着 and 爲, which Big5 lacks, written 裡, 著 and 為).
//! Legacy-encoded files are made from them here with `encoding_rs`.

use std::fs;
use std::path::{Path, PathBuf};

use encoding_rs::Encoding;
use parallels::read::{read_document, ReadError};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/read").join(name)
}

fn fixture_text(name: &str) -> String {
    fs::read_to_string(fixture(name)).expect("fixture is UTF-8")
}

/// Encode `text` and insist that every character was encodable.
fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "fixture text not encodable in {}", encoding.name());
    bytes.into_owned()
}

fn utf16_with_bom(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
    for unit in text.encode_utf16() {
        out.extend_from_slice(&if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() });
    }
    out
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// Every error message is one line that starts with the path.
fn assert_message_names_path(err: &ReadError, path: &Path) {
    let message = err.to_string();
    assert!(message.starts_with(&path.display().to_string()), "{message}");
    assert!(!message.contains('\n'), "{message}");
    assert_eq!(err.path(), path);
}

#[test]
fn utf8_fixture_reads_as_utf8() {
    let path = fixture("zh_utf8.txt");
    let doc = read_document(&path).unwrap();
    assert_eq!(doc.id, "zh_utf8");
    assert_eq!(doc.path, path);
    assert_eq!(doc.encoding, "utf-8");
    assert_eq!(doc.replaced, 0);
    assert_eq!(doc.text.chars().count(), 300);
    assert!(doc.text.starts_with("魏斯明德之围\n\n魏斯明德坐落在布伦纳河"));
}

#[test]
fn gb18030_file_decodes_to_the_same_text_as_utf8() {
    let text = fixture_text("zh_utf8.txt");
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "zh_gb.txt", &encode(encoding_rs::GB18030, &text));
    let doc = read_document(&path).unwrap();
    assert_eq!(doc.encoding, "gb18030");
    assert_eq!(doc.text, text);
    assert_eq!(doc.replaced, 0);
    assert_eq!(doc.id, "zh_gb");
}

#[test]
fn gbk_file_reports_gb18030() {
    // GBK bytes are GB18030 bytes; the label is the superset's.
    let text = fixture_text("zh_utf8.txt");
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "zh_gbk.txt", &encode(encoding_rs::GBK, &text));
    let doc = read_document(&path).unwrap();
    assert_eq!(doc.encoding, "gb18030");
    assert_eq!(doc.text, text);
}

#[test]
fn big5_file_round_trips_traditional_text() {
    let text = fixture_text("zh_trad_utf8.txt");
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "zh_big5.txt", &encode(encoding_rs::BIG5, &text));
    let doc = read_document(&path).unwrap();
    assert_eq!(doc.encoding, "big5");
    assert_eq!(doc.text, text);
    assert_eq!(doc.replaced, 0);
}

#[test]
fn utf16_files_with_bom() {
    let text = fixture_text("zh_utf8.txt");
    let dir = tempfile::tempdir().unwrap();
    for (name, big_endian, label) in [("le.txt", false, "utf-16le"), ("be.txt", true, "utf-16be")] {
        let path = write(&dir, name, &utf16_with_bom(&text, big_endian));
        let doc = read_document(&path).unwrap();
        assert_eq!(doc.encoding, label);
        assert_eq!(doc.text, text);
        assert_eq!(doc.replaced, 0);
    }
}

#[test]
fn utf8_bom_is_not_text() {
    let text = fixture_text("zh_utf8.txt");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(text.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "bom.txt", &bytes);
    let doc = read_document(&path).unwrap();
    assert_eq!(doc.encoding, "utf-8");
    assert!(!doc.text.starts_with('\u{FEFF}'));
    assert_eq!(doc.text.chars().count(), text.chars().count());
    assert_eq!(doc.text, text);
}

#[test]
fn line_endings_are_kept() {
    let text = fixture_text("zh_utf8.txt").replace('\n', "\r\n");
    let dir = tempfile::tempdir().unwrap();
    let utf8 = read_document(&write(&dir, "crlf.txt", text.as_bytes())).unwrap();
    assert_eq!(utf8.text, text);
    let gb = read_document(&write(&dir, "crlf_gb.txt", &encode(encoding_rs::GB18030, &text))).unwrap();
    assert_eq!(gb.text, text);
}

#[test]
fn binary_file_is_an_error_naming_path_and_reason() {
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x01\x00\x00\x00\x01\x00\x08\x06\x00\x00\x00";
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "picture.png", png);
    let err = read_document(&path).unwrap_err();
    match &err {
        ReadError::Binary { path: p, reason } => {
            assert_eq!(p, &path);
            assert!(reason.contains("NUL bytes"), "{reason}");
            assert!(reason.contains("at byte 8"), "{reason}");
        }
        other => panic!("expected Binary, got {other:?}"),
    }
    assert_message_names_path(&err, &path);
    assert!(err.to_string().contains("binary"), "{err}");
}

#[test]
fn directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_document(dir.path()).unwrap_err();
    assert!(matches!(err, ReadError::IsDirectory { .. }), "{err:?}");
    assert_message_names_path(&err, dir.path());
}

#[test]
fn missing_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nothing here.txt");
    let err = read_document(&path).unwrap_err();
    assert!(matches!(err, ReadError::NotFound { .. }), "{err:?}");
    assert_message_names_path(&err, &path);
}

#[cfg(unix)]
#[test]
fn path_through_a_file_is_an_io_error_with_the_os_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(&dir, "plain.txt", b"text");
    let path = file.join("inside.txt");
    let err = read_document(&path).unwrap_err();
    assert!(matches!(err, ReadError::Io { .. }), "{err:?}");
    assert_message_names_path(&err, &path);
    assert!(err.to_string().contains("Not a directory"), "{err}");
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_an_io_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "secret.txt", b"text");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&path).is_ok() {
        return; // running as root: permissions are not enforced
    }
    let err = read_document(&path).unwrap_err();
    assert!(matches!(err, ReadError::Io { .. }), "{err:?}");
    assert_message_names_path(&err, &path);
    assert!(err.to_string().contains("ermission denied"), "{err}");
}

#[test]
fn empty_files_are_empty_text() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [("empty.txt", &b""[..]), ("bom_only.txt", b"\xEF\xBB\xBF"), ("bom16.txt", b"\xFF\xFE")] {
        let doc = read_document(&write(&dir, name, bytes)).unwrap();
        assert_eq!(doc.text, "", "{name}");
        assert_eq!(doc.replaced, 0, "{name}");
    }
}

#[test]
fn latin1_file_decodes_as_windows_1252() {
    let text = "Il était une fois, à Orléans, un élève très appliqué.\nSa sœur préférait le café.\n";
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "latin1.txt", &encode(encoding_rs::WINDOWS_1252, text));
    let doc = read_document(&path).unwrap();
    assert_eq!(doc.encoding, "windows-1252");
    assert_eq!(doc.text, text);
    assert_eq!(doc.replaced, 0);
}

#[test]
fn utf8_file_with_one_stray_byte_is_lossy_utf8() {
    let text = fixture_text("zh_utf8.txt");
    let at = text.char_indices().nth(150).unwrap().0;
    let mut bytes = text.as_bytes().to_vec();
    bytes.insert(at, 0xFF);
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "stray.txt", &bytes);
    let doc = read_document(&path).unwrap();
    assert_eq!(doc.encoding, "utf-8");
    assert_eq!(doc.replaced, 1);
    assert_eq!(doc.text, format!("{}\u{FFFD}{}", &text[..at], &text[at..]));
}

#[test]
fn gb18030_file_with_a_stray_byte_is_lossy_gb18030() {
    let text = fixture_text("zh_utf8.txt");
    let mut bytes = encode(encoding_rs::GB18030, &text);
    bytes.push(0xB0); // a lead byte cut off at the end of the file
    let dir = tempfile::tempdir().unwrap();
    let doc = read_document(&write(&dir, "cut.txt", &bytes)).unwrap();
    assert_eq!(doc.encoding, "gb18030");
    assert_eq!(doc.replaced, 1);
    assert_eq!(doc.text, format!("{text}\u{FFFD}"));
}

#[test]
fn gb18030_file_starting_in_the_middle_of_a_character() {
    // A file split off a longer one: the first byte is the second half of a
    // character, which throws the first line out of step.
    let text = fixture_text("zh_utf8.txt");
    let bytes = encode(encoding_rs::GB18030, &text);
    let dir = tempfile::tempdir().unwrap();
    let doc = read_document(&write(&dir, "split.txt", &bytes[1..])).unwrap();
    assert_eq!(doc.encoding, "gb18030");
    let body = &text[text.find('\n').unwrap()..];
    assert!(doc.text.ends_with(body));
}

#[test]
fn ten_megabytes_without_a_newline() {
    let unit = fixture_text("zh_utf8.txt").replace('\n', "");
    let text = unit.repeat(10_000_000 / unit.len() + 1);
    let dir = tempfile::tempdir().unwrap();
    let doc = read_document(&write(&dir, "long.txt", text.as_bytes())).unwrap();
    assert_eq!(doc.encoding, "utf-8");
    assert_eq!(doc.text.len(), text.len());
    let gb = read_document(&write(&dir, "long_gb.txt", &encode(encoding_rs::GB18030, &text))).unwrap();
    assert_eq!(gb.encoding, "gb18030");
    assert!(gb.text == text);
}

#[test]
fn id_is_the_file_name_without_extension() {
    let dir = tempfile::tempdir().unwrap();
    let doc = read_document(&write(&dir, "第一卷.v2.txt", "文字".as_bytes())).unwrap();
    assert_eq!(doc.id, "第一卷.v2");
    let doc = read_document(&write(&dir, "README", b"text")).unwrap();
    assert_eq!(doc.id, "README");
}

// ---------------------------------------------------------------------
// Compressed files and paths in messages (issue 15, items 10 and 11).

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn compressed_files_are_decoded_as_their_contents() {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture_text("zh_utf8.txt");
    let gb = encode(encoding_rs::GB18030, &text);
    for (name, bytes, encoding) in [
        ("a.txt.gz", gzip(text.as_bytes()), "utf-8"),
        ("b.txt.zst", zstd::encode_all(text.as_bytes(), 1).unwrap(), "utf-8"),
        ("c.md.GZ", gzip(&gb), "gb18030"),
        ("d.zstd", zstd::encode_all(utf16_with_bom(&text, false).as_slice(), 1).unwrap(), "utf-16le"),
    ] {
        let path = write(&dir, name, &bytes);
        let doc = read_document(&path).unwrap();
        assert_eq!((doc.text.as_str(), doc.encoding.as_str()), (text.as_str(), encoding), "{name}");
        assert_eq!(doc.path, path);
    }
    assert_eq!(read_document(&dir.path().join("a.txt.gz")).unwrap().id, "a");
    assert_eq!(read_document(&dir.path().join("d.zstd")).unwrap().id, "d");
}

#[test]
fn a_damaged_compressed_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let whole = gzip("第一章 风起\n".repeat(100).as_bytes());
    let path = write(&dir, "cut.txt.gz", &whole[..whole.len() / 2]);
    let error = read_document(&path).unwrap_err();
    assert!(matches!(error, ReadError::Io { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.starts_with(&format!("{}: cannot read it: ", path.display())), "{message}");
    assert!(
        message.ends_with("a complete, undamaged compressed file (test it with `gzip -t` or `zstd -t`)"),
        "{message}"
    );
    let path = write(&dir, "not.txt.zst", b"plain text, not zstd");
    assert!(matches!(read_document(&path).unwrap_err(), ReadError::Io { .. }));
}

#[test]
fn the_size_limit_counts_decompressed_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "big.txt.gz", &gzip(&vec![b'x'; 100_000]));
    let error = parallels::read::read_document_within(&path, 99_999).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{}: more than the limit of 99999 bytes per document once decompressed", path.display())
    );
    assert_eq!(parallels::read::read_document_within(&path, 100_000).unwrap().text.len(), 100_000);
    let plain = write(&dir, "big.txt", &[b'x'; 100]);
    let error = parallels::read::read_document_within(&plain, 99).unwrap_err();
    assert_eq!(error.to_string(), format!("{}: more than the limit of 99 bytes per document", plain.display()));
}

#[test]
fn paths_in_messages_are_escaped() {
    use parallels::read::shown;
    let show = |p: &str| shown(Path::new(p)).to_string();
    assert_eq!(show("corpus/第一章 a.txt"), "corpus/第一章 a.txt");
    assert_eq!(show("a\nb\r\tc.txt"), "a\\nb\\r\\tc.txt");
    assert_eq!(show("\x1b[31mred\x1b[0m.txt"), "\\u{1b}[31mred\\u{1b}[0m.txt");
    assert_eq!(show("\u{7f}\u{85}.txt"), "\\u{7f}\\u{85}.txt");
    assert_eq!(show("abc\u{202e}txt.exe"), "abc\\u{202e}txt.exe");
    let error = read_document(Path::new("missing\x1b]0;title\x07.txt")).unwrap_err();
    assert_eq!(error.to_string(), "missing\\u{1b}]0;title\\u{7}.txt: no such file; check the path");
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"a\xFF\xFEb\xE4\xB8.txt"));
        assert_eq!(shown(path).to_string(), "a\\xFF\\xFEb\\xE4\\xB8.txt");
        assert_eq!(parallels::read::document_id(path), "a\\xFF\\xFEb\\xE4\\xB8");
    }
}
