//! End-to-end tests of `parallels align` (and how it writes its output):
//! every test runs the real binary in a fresh temporary directory on the
//! fixture texts (copies of `corpus/zh-variants`, see
//! `tests/fixtures/zh/README.md`) or on files it writes itself, and checks
//! exit codes, stderr and the output. `eval` is tested in `eval.rs`, the
//! top-level help in `usage.rs`.

mod util;

use serde_json::Value;
use std::collections::BTreeSet;
use util::{fixture_text, link_count, slice_chars, span, Run, Sandbox};

// ---------------------------------------------------------------------------
// helpers

fn chars(text: &str) -> u64 {
    text.chars().count() as u64
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().map(String::as_str).collect()
}

fn set<'a>(items: &[&'a str]) -> BTreeSet<&'a str> {
    items.iter().copied().collect()
}

/// The passages of the only pair of an `align a b` output.
fn only_pair_passages(out: &Value) -> &Value {
    let pairs = out["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 1, "expected exactly one pair: {}", out["pairs"]);
    let passages = &pairs[0]["passages"];
    assert!(!passages.as_array().expect("passages").is_empty(), "a pair without passages");
    passages
}

/// Remove `ESC [ … m` colour sequences.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            assert_eq!(chars.next(), Some('['), "an escape that is not a CSI sequence in {s:?}");
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
                assert!(d.is_ascii_digit() || d == ';', "an escape that is not SGR in {s:?}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// stderr of a run that failed on unreadable inputs: one line per bad
/// input, in the order given, each `parallels: error: <path>: …`, then the
/// summary line `parallels: error: <n> of <m> input(s) could not be read; …`.
fn assert_read_errors(run: &Run, bad: &[(&str, &str)], inputs: usize) {
    run.no_panic().code(2);
    let lines = run.stderr_lines();
    assert_eq!(lines.len(), bad.len() + 1, "one line per bad input and a summary\n{run}");
    for (line, (path, reason)) in lines.iter().zip(bad) {
        let prefix = format!("parallels: error: {path}: ");
        assert!(line.starts_with(&prefix), "line should start with {prefix:?}: {line:?}\n{run}");
        assert!(line.contains(reason), "line should say {reason:?}: {line:?}\n{run}");
    }
    let summary =
        format!("parallels: error: {} of {inputs} input(s) could not be read; nothing was aligned", bad.len());
    assert_eq!(lines[bad.len()], summary, "{run}");
    assert!(run.stdout.is_empty(), "nothing on stdout when nothing was aligned\n{run}");
}

// ---------------------------------------------------------------------------
// 1. the JSON schema

#[test]
fn json_output_follows_schema_v1() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "-o", "out.json"]);
    run.success();
    assert_eq!(run.stderr, "", "{run}");
    assert!(run.stdout.is_empty(), "with -o nothing goes to stdout\n{run}");
    let out: Value = serde_json::from_slice(&sb.read("out.json")).expect("out.json is JSON");

    assert_eq!(keys(&out), set(&["schema", "documents", "pairs"]));
    assert_eq!(out["schema"], "parallels.align/1");

    let texts = [fixture_text("v1.txt"), fixture_text("v2.txt")];
    let docs = out["documents"].as_array().expect("documents");
    assert_eq!(docs.len(), 2);
    for (doc, (id, text)) in docs.iter().zip([("v1", &texts[0]), ("v2", &texts[1])]) {
        assert_eq!(keys(doc), set(&["id", "path", "chars", "encoding"]), "{doc}");
        assert_eq!(doc["id"], id);
        assert_eq!(doc["path"], format!("{id}.txt"));
        assert_eq!(doc["chars"].as_u64(), Some(chars(text)), "{doc}");
        assert_eq!(doc["encoding"], "utf-8");
    }
    // The corpus README's numbers, as a check on the fixtures themselves.
    assert_eq!((chars(&texts[0]), chars(&texts[1])), (4008, 3843));

    let pairs = out["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 1, "{}", out["pairs"]);
    let pair = &pairs[0];
    assert_eq!(keys(pair), set(&["a", "b", "passages"]));
    assert_eq!((pair["a"].as_str(), pair["b"].as_str()), (Some("v1"), Some("v2")));

    let limit = [chars(&texts[0]), chars(&texts[1])];
    let passages = pair["passages"].as_array().expect("passages");
    assert!(!passages.is_empty());
    let mut nonempty_links = 0;
    for p in passages {
        let k = keys(p);
        assert!(
            k.is_superset(&set(&["kind", "a", "b", "score"]))
                && k.is_subset(&set(&["kind", "a", "b", "score", "links"])),
            "passage keys {k:?}"
        );
        let kind = p["kind"].as_str().expect("kind");
        assert!(kind == "verbatim" || kind == "parallel", "kind {kind:?}");
        let score = p["score"].as_f64().expect("score");
        assert!((0.0..=1.0).contains(&score), "passage score {score}");
        let ps = [span(&p["a"]), span(&p["b"])];
        for (side, &(s, e)) in ps.iter().enumerate() {
            assert!(s < e && e <= limit[side], "passage span [{s}, {e}) of a text of {} chars: {p}", limit[side]);
        }
        let links = p.get("links").map(|l| l.as_array().expect("links").as_slice()).unwrap_or_default();
        if kind == "parallel" {
            assert!(!links.is_empty(), "a parallel passage without links: {p}");
        }
        for l in links {
            let k = keys(l);
            assert!(
                k.is_superset(&set(&["a", "b", "score"])) && k.is_subset(&set(&["a", "b", "score", "meaning"])),
                "{l}"
            );
            let score = l["score"].as_f64().expect("link score");
            assert!((0.0..=1.0).contains(&score), "link score {score}");
            if let Some(meaning) = l.get("meaning") {
                let meaning = meaning.as_f64().expect("meaning is a number");
                assert!((0.0..=1.0).contains(&meaning), "link meaning {meaning}");
            }
            let ls = [span(&l["a"]), span(&l["b"])];
            for side in 0..2 {
                let ((s, e), (ps_s, ps_e)) = (ls[side], ps[side]);
                assert!(s < e, "empty link span {l}");
                assert!(ps_s <= s && e <= ps_e, "link {l} outside its passage [{ps_s}, {ps_e})");
            }
            let (ta, tb) = (slice_chars(&texts[0], ls[0]), slice_chars(&texts[1], ls[1]));
            if !ta.trim().is_empty() && !tb.trim().is_empty() {
                nonempty_links += 1;
            }
        }
        for side in 0..2 {
            let mut spans: Vec<(u64, u64)> = links.iter().map(|l| span(&l[["a", "b"][side]])).collect();
            spans.sort_unstable();
            for w in spans.windows(2) {
                assert!(w[0].1 <= w[1].0, "links overlap on side {}: {:?} and {:?}", ["a", "b"][side], w[0], w[1]);
            }
        }
    }
    assert!(nonempty_links >= 100, "only {nonempty_links} links with text on both sides");
}

#[test]
fn json_to_stdout_equals_json_to_file() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let to_stdout = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json"]);
    to_stdout.success();
    sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "--output", "out.json"]).success();
    assert_eq!(sb.read("out.json"), to_stdout.stdout);
    assert!(to_stdout.stdout.ends_with(b"}\n"), "the JSON ends with a newline");
}

// ---------------------------------------------------------------------------
// 2. texts that share nothing

#[test]
fn unrelated_texts_have_no_pair() {
    // v4 is another author's account of the same events. The gold has one
    // loose paraphrase of a quoted letter between v1 and v4; the aligner
    // currently finds nothing, and "nothing shared" is a normal answer.
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v4.txt"]);
    let out = sb.align_json(&["v1.txt", "v4.txt"]);
    assert_eq!(out["pairs"], serde_json::json!([]));
    assert_eq!(out["documents"].as_array().map(Vec::len), Some(2));
    assert_eq!(out["documents"][1]["chars"].as_u64(), Some(chars(&fixture_text("v4.txt"))));

    let run = sb.run(&["align", "v1.txt", "v4.txt"]);
    run.success();
    assert_eq!(run.stdout_str(), "No shared passages between 2 texts.\n");
    assert_eq!(run.stderr, "");
}

// ---------------------------------------------------------------------------
// 3. encodings: the same text in another encoding aligns the same

/// `align v1.txt <reference>` and `align v1.txt <other>` (both already in
/// the sandbox) give the same passages and the same length for the second
/// document, which `other` reports in `encoding`.
fn assert_aligns_like(sb: &Sandbox, reference: &str, other: &str, encoding: &str) {
    let want = sb.align_json(&["v1.txt", reference]);
    let got = sb.align_json(&["v1.txt", other]);
    assert_eq!(got["documents"][1]["encoding"], encoding, "{}", got["documents"]);
    assert_eq!(want["documents"][1]["encoding"], "utf-8");
    assert_eq!(got["documents"][1]["chars"], want["documents"][1]["chars"]);
    let stem = other.trim_end_matches(".txt");
    assert_eq!(got["documents"][1]["id"], stem);
    assert_eq!(got["pairs"][0]["b"], stem);
    assert_eq!(only_pair_passages(&got), only_pair_passages(&want), "passages differ between {reference} and {other}");
}

fn encode(encoding: &'static encoding_rs::Encoding, text: &str) -> Vec<u8> {
    let (bytes, used, unmappable) = encoding.encode(text);
    assert_eq!(used, encoding);
    assert!(!unmappable, "the text has characters {} cannot encode", encoding.name());
    bytes.into_owned()
}

#[test]
fn gb18030_input_aligns_like_utf8() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    sb.write("v2_gb.txt", encode(encoding_rs::GB18030, &fixture_text("v2.txt")));
    assert_aligns_like(&sb, "v2.txt", "v2_gb.txt", "gb18030");
}

#[test]
fn utf16le_with_bom_input_aligns_like_utf8() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    // encoding_rs does not encode to UTF-16 (WHATWG), so by hand.
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(fixture_text("v2.txt").encode_utf16().flat_map(u16::to_le_bytes));
    sb.write("v2_utf16.txt", bytes);
    assert_aligns_like(&sb, "v2.txt", "v2_utf16.txt", "utf-16le");
}

#[test]
fn utf8_bom_is_not_text() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(fixture_text("v2.txt").as_bytes());
    sb.write("v2_bom.txt", bytes);
    // Same chars (3843, not 3844) and the same offsets.
    assert_aligns_like(&sb, "v2.txt", "v2_bom.txt", "utf-8");
}

#[test]
fn big5_input_aligns_like_utf8() {
    // v2_trad has five characters the WHATWG Big5 encoder (encoding_rs)
    // cannot write (they are HKSCS or not in Big5 at all); both files below
    // use the common Big5 form instead, so they hold the same text.
    let text: String = fixture_text("v2_trad.txt")
        .chars()
        .map(|c| match c {
            '裏' => '裡',
            '衆' => '眾',
            '着' => '著',
            '麪' => '麵',
            '爲' => '為',
            c => c,
        })
        .collect();
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("v2t.txt", &text);
    sb.write("v2t_big5.txt", encode(encoding_rs::BIG5, &text));
    assert_aligns_like(&sb, "v2t.txt", "v2t_big5.txt", "big5");
}

// ---------------------------------------------------------------------------
// 4. bad input: a message per file, exit 2 for errors, 0 for warnings

#[test]
fn missing_file_is_an_error_naming_it() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let run = sb.run(&["align", "v1.txt", "in/missing.txt"]);
    assert_read_errors(&run, &[("in/missing.txt", "no such file")], 2);
}

#[test]
fn directory_is_an_error_naming_it() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    std::fs::create_dir(sb.path().join("texts")).unwrap();
    let run = sb.run(&["align", "v1.txt", "texts"]);
    assert_read_errors(&run, &[("texts", "is a directory")], 2);
}

#[test]
fn binary_file_is_an_error_naming_it() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    png.resize(4096, 0);
    sb.write("img/figure.png", png);
    let run = sb.run(&["align", "v1.txt", "img/figure.png"]);
    assert_read_errors(&run, &[("img/figure.png", "binary")], 2);
    // The reason says where: the first NUL is at byte 8.
    assert!(run.stderr_lines()[0].contains("byte 8"), "{run}");
}

#[test]
fn every_bad_input_is_reported_not_just_the_first() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    std::fs::create_dir(sb.path().join("dir")).unwrap();
    sb.write("bin.dat", [0u8, 1, 2, 3, 0, 0, 0, 0]);
    let run = sb.run(&["align", "v1.txt", "nope.txt", "dir", "v2.txt", "bin.dat"]);
    assert_read_errors(&run, &[("nope.txt", "no such file"), ("dir", "is a directory"), ("bin.dat", "binary")], 5);
}

#[test]
fn empty_file_is_a_warning_and_exit_0() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("in/empty.txt", b"");
    let run = sb.run(&["align", "v1.txt", "in/empty.txt", "--format", "json"]);
    run.success();
    assert_eq!(run.stderr_lines(), ["parallels: warning: in/empty.txt: empty file; it can share nothing"], "{run}");
    let out = run.json();
    assert_eq!(
        out["documents"][1],
        serde_json::json!({"id": "empty", "path": "in/empty.txt", "chars": 0, "encoding": "utf-8"})
    );
    assert_eq!(out["pairs"], serde_json::json!([]));
}

#[test]
fn whitespace_only_file_is_the_same_warning() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("blank.txt", " \n\u{3000}\r\n\t\n");
    let run = sb.run(&["align", "v1.txt", "blank.txt", "--format", "json"]);
    run.success();
    assert_eq!(run.stderr_lines(), ["parallels: warning: blank.txt: empty file; it can share nothing"], "{run}");
    assert_eq!(run.json()["documents"][1]["chars"], 7);
}

#[test]
fn utf8_with_a_few_bad_bytes_is_a_warning_and_exit_0() {
    // Three 0xFF bytes at character boundaries of v2: each is one
    // undecodable sequence, replaced by U+FFFD; the text stays UTF-8.
    let text = fixture_text("v2.txt");
    let cut = |n: usize| text.char_indices().nth(n).unwrap().0;
    let (x, y) = (cut(1000), cut(2500));
    let mut bytes = text.as_bytes()[..x].to_vec();
    bytes.push(0xFF);
    bytes.extend_from_slice(&text.as_bytes()[x..y]);
    bytes.extend_from_slice(b"\xFF\xFF");
    bytes.extend_from_slice(&text.as_bytes()[y..]);
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("in/v2_bad.txt", bytes);
    let run = sb.run(&["align", "v1.txt", "in/v2_bad.txt", "--format", "json"]);
    run.no_panic().success();
    assert_eq!(
        run.stderr_lines(),
        ["parallels: warning: in/v2_bad.txt: 3 undecodable byte sequence(s) replaced by U+FFFD (read as utf-8)"],
        "{run}"
    );
    let out = run.json();
    assert_eq!(out["documents"][1]["encoding"], "utf-8");
    assert_eq!(out["documents"][1]["chars"].as_u64(), Some(chars(&text) + 3));
    only_pair_passages(&out); // v1 and v2 still align
}

#[test]
fn mostly_undecodable_file_is_an_error_naming_it() {
    // One bad byte after every 12 Han characters: too much is lost.
    let mut bytes = Vec::new();
    for _ in 0..50 {
        bytes.extend_from_slice("魏斯明德坐落在布伦纳河注".as_bytes());
        bytes.push(0xFF);
    }
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("damaged.txt", bytes);
    let run = sb.run(&["align", "v1.txt", "damaged.txt"]);
    assert_read_errors(&run, &[("damaged.txt", "cannot be decoded as text")], 2);
    assert!(run.stderr_lines()[0].contains("offset 36"), "names the first bad byte\n{run}");
}

#[test]
fn ten_megabytes_without_a_newline_or_sentence_end_finishes_without_panic() {
    // One 10 MB line of Chinese with commas but no 。 and no newline: one
    // giant "sentence". Currently: exit 0, silent, no shared passage
    // (the line repeats a sentence of v1 ~240,000 times, so nothing in it is
    // rare). Takes ~5 s with the debug binary, ~0.5 s with release.
    const SIZE: usize = 10 * 1024 * 1024;
    let sentence = "魏斯明德坐落在布伦纳河注入波罗的海的河口，是一座以粮食和琥珀贸易闻名的港口城市，";
    let text = sentence.repeat(SIZE / sentence.len() + 1);
    let cut = text.char_indices().map(|(i, _)| i).take_while(|&i| i <= SIZE).last().unwrap();
    let text = &text[..cut];
    assert!(!text.contains('\n') && !text.contains('。'));
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("long.txt", text);
    let run = sb.run(&["align", "v1.txt", "long.txt", "--format", "json"]);
    run.no_panic();
    match run.code {
        Some(0) => {
            assert_eq!(run.stderr, "", "{run}");
            let out = run.json();
            assert_eq!(out["documents"][1]["chars"].as_u64(), Some(chars(text)));
        }
        Some(2) => {
            // Refusing is acceptable if it says which file and why.
            assert_eq!(run.stderr_lines().len(), 2, "{run}");
            assert!(run.stderr_lines()[0].starts_with("parallels: error: long.txt: "), "{run}");
        }
        _ => panic!("unexpected exit\n{run}"),
    }
}

// ---------------------------------------------------------------------------
// 5. text output

#[test]
fn text_output_to_a_pipe_has_no_colour() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let run = sb.run(&["align", "v1.txt", "v2.txt"]);
    run.success();
    assert_eq!(run.stderr, "");
    let text = run.stdout_str();
    assert!(!text.contains('\x1b'), "escape sequences on a pipe");
    let first = text.lines().next().expect("a summary line");
    // The versions, and the run they share word for word marked inside them.
    assert!(first.starts_with("v1 ↔ v2: 2 passage(s) (1 verbatim, 1 parallel), "), "{first}");
    let rows = text.lines().filter(|l| l.contains(" │ ")).count();
    assert!(rows >= 100, "only {rows} side-by-side rows");
    assert!(text.contains("── passage 1 · "), "a passage header");
    // The first link of every version of this corpus: the two titles.
    let title = text.lines().find(|l| l.contains(" │ ")).unwrap();
    assert!(title.starts_with("魏斯明德之围 ") && title.ends_with(" │ 魏斯明德围城记"), "{title:?}");
}

#[test]
fn text_inside_a_passage_without_a_counterpart_is_marked() {
    // v1 has a sentence v2 leaves out; v2 adds two sentences of its own.
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--color", "never"]);
    run.success();
    let text = run.stdout_str();
    let omitted = text.lines().find(|l| l.contains("码头上常年停泊着")).expect("the omitted sentence is shown");
    assert!(omitted.starts_with("⋯ 码头上常年停泊着"), "{omitted:?}");
    assert!(omitted.trim_end().ends_with('│'), "nothing opposite it: {omitted:?}");
    let added = text.lines().find(|l| l.contains("城里的孩子们却编了")).expect("the added sentence is shown");
    assert!(added.trim_start().starts_with("│ ⋯ 城里的孩子们却编了"), "{added:?}");
}

#[test]
fn text_summary_agrees_with_json() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let out = sb.align_json(&["v1.txt", "v2.txt"]);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--summary"]);
    run.success();
    let lines: Vec<&str> = run.stdout_str().lines().collect();
    assert_eq!(lines.len(), 1, "--summary prints one line per pair: {lines:?}");
    let passages = out["pairs"][0]["passages"].as_array().unwrap();
    let verbatim = passages.iter().filter(|p| p["kind"] == "verbatim").count();
    let want = format!(
        "v1 ↔ v2: {} passage(s) ({} verbatim, {} parallel), {} link(s); linked: v1 ",
        passages.len(),
        verbatim,
        passages.len() - verbatim,
        link_count(&out)
    );
    assert!(lines[0].starts_with(&want), "{:?} should start with {want:?}", lines[0]);
    assert!(lines[0].contains(" of 4008 chars), v2 "), "{}", lines[0]);
    assert!(lines[0].ends_with(" of 3843 chars)"), "{}", lines[0]);
}

#[test]
fn color_always_paints_and_only_paints() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let plain = sb.run(&["align", "v1.txt", "v2.txt"]);
    let painted = sb.run(&["align", "v1.txt", "v2.txt", "--color", "always"]);
    painted.success();
    let text = painted.stdout_str();
    assert!(text.contains("\x1b["), "no escape sequences with --color always");
    assert!(text.contains("\x1b[0m"), "colours are reset");
    // Colour is the only difference.
    assert_eq!(strip_ansi(text), plain.stdout_str());
    // --color always wins over NO_COLOR (an explicit flag beats the environment).
    let forced = sb.run_env(&["align", "v1.txt", "v2.txt", "--color", "always"], &[("NO_COLOR", "1")]);
    assert_eq!(forced.stdout, painted.stdout);
}

#[test]
fn no_color_with_color_auto_has_no_escapes() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let plain = sb.run(&["align", "v1.txt", "v2.txt", "--color", "never"]);
    let run = sb.run_env(&["align", "v1.txt", "v2.txt", "--color", "auto"], &[("NO_COLOR", "1")]);
    run.success();
    assert!(!run.stdout.contains(&0x1b));
    assert_eq!(run.stdout, plain.stdout);
}

/// On a pipe `--color auto` is colourless whatever NO_COLOR says, so the
/// test above cannot tell whether NO_COLOR is honoured; on a terminal it can.
#[cfg(target_os = "linux")]
#[test]
fn color_auto_on_a_terminal_honours_no_color() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let args = ["align", "v1.txt", "v2.txt", "--summary"];
    let (code, tty) = util::run_on_tty(&sb, &args, &[]);
    assert_eq!(code, Some(0));
    let tty = String::from_utf8(tty).expect("UTF-8 on the terminal");
    assert!(tty.contains("\x1b[1mv1 ↔ v2: "), "auto colours on a terminal: {tty:?}");

    let (code, tty) = util::run_on_tty(&sb, &args, &[("NO_COLOR", "1")]);
    assert_eq!(code, Some(0));
    let tty = String::from_utf8(tty).unwrap();
    assert!(tty.starts_with("v1 ↔ v2: ") && !tty.contains('\x1b'), "NO_COLOR=1: {tty:?}");

    // no-color.org: an empty NO_COLOR is as if unset.
    let (_, tty) = util::run_on_tty(&sb, &args, &[("NO_COLOR", "")]);
    assert!(String::from_utf8(tty).unwrap().contains('\x1b'), "empty NO_COLOR");

    let never = ["align", "v1.txt", "v2.txt", "--summary", "--color", "never"];
    let (_, tty) = util::run_on_tty(&sb, &never, &[]);
    assert!(!tty.contains(&0x1b), "--color never on a terminal");
}

#[test]
fn side_by_side_rows_fit_columns() {
    use unicode_width::UnicodeWidthStr;
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    for columns in [40usize, 61, 100, 160] {
        let run = sb.run_env(&["align", "v1.txt", "v2.txt"], &[("COLUMNS", &columns.to_string())]);
        run.success();
        let bar = run.stdout_str().lines().filter(|l| l.contains(" │ ")).map(|l| (l, l.width())).find(|&(l, w)| {
            // the bar sits in the middle: left column padded to (columns - 3) / 2
            let left = l.split(" │ ").next().unwrap().width();
            w > columns || left != (columns - 3) / 2
        });
        assert_eq!(bar, None, "COLUMNS={columns}: a row too wide or its bar off the middle");
    }
}

// ---------------------------------------------------------------------------
// 6. help

#[test]
fn align_help_mentions_every_option() {
    let sb = Sandbox::new();
    let run = sb.run(&["align", "--help"]);
    run.success();
    let help = run.stdout_str();
    for option in [
        "--format",
        "--output",
        "-o,",
        "--color",
        "--summary",
        "--sigmas",
        "--gap",
        "--no-script",
        "--no-numbers",
        "--no-footnotes",
        "--no-boilerplate",
        "--help",
    ] {
        assert!(help.contains(option), "align --help does not mention {option}\n{help}");
    }
    for value in ["text", "json", "auto", "always", "never"] {
        assert!(help.contains(&format!("- {value}")), "align --help does not list the value {value}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    for args in [
        &["align", "v1.txt"][..],
        &["align"],
        &["align", "v1.txt", "v2.txt", "--format", "xml"],
        &["align", "v1.txt", "v2.txt", "--color", "sometimes"],
        &["align", "v1.txt", "v2.txt", "--gap", "-1"],
        &["align", "v1.txt", "v2.txt", "--frobnicate"],
        &["eval", "out.json"],
        &["frobnicate"],
    ] {
        let run = sb.run(args);
        run.no_panic().code(2);
        assert!(run.stderr.starts_with("error: "), "{run}");
        assert!(run.stdout.is_empty(), "{run}");
    }
}

// ---------------------------------------------------------------------------
// 8. determinism

#[test]
fn same_command_same_bytes() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    for args in
        [&["align", "v1.txt", "v2.txt", "--format", "json"][..], &["align", "v1.txt", "v2.txt", "--color", "always"]]
    {
        let first = sb.run(args);
        first.success();
        let second = sb.run(args);
        assert!(first.stdout == second.stdout, "two runs of `{}` differ", args.join(" "));
    }
}

#[test]
fn thread_count_does_not_change_the_output() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt", "v4.txt"]);
    let files = ["v1.txt", "v2.txt", "v4.txt"];
    let default = sb.align_json(&files);
    assert_eq!(default["documents"].as_array().map(Vec::len), Some(3));
    let pairs: Vec<(&str, &str)> = default["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["a"].as_str().unwrap(), p["b"].as_str().unwrap()))
        .collect();
    // Currently v1-v2 only; at least that one.
    assert!(pairs.contains(&("v1", "v2")), "{pairs:?}");
    let mut args = vec!["align"];
    args.extend_from_slice(&files);
    args.extend_from_slice(&["--format", "json"]);
    let bytes = sb.run(&args).stdout;
    for threads in ["1", "3", "8"] {
        let run = sb.run_env(&args, &[("RAYON_NUM_THREADS", threads)]);
        run.success();
        assert!(run.stdout == bytes, "RAYON_NUM_THREADS={threads} changes the output");
    }
}

// ---------------------------------------------------------------------------
// 9. writing the output file

fn temp_leftovers(sb: &Sandbox, dir: &str) -> Vec<String> {
    sb.list(dir).into_iter().filter(|n| n.contains(".tmp")).collect()
}

#[test]
fn output_into_a_missing_directory_is_an_error() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "-o", "nodir/out.json"]);
    run.no_panic().code(2);
    assert_eq!(run.stderr_lines().len(), 1, "{run}");
    assert!(run.stderr.starts_with("parallels: error: nodir/"), "{run}");
    assert!(run.stderr.contains("cannot write"), "{run}");
    assert!(!sb.path().join("nodir").exists());
    assert!(run.stdout.is_empty());
}

#[test]
fn output_error_names_the_path_given() {
    // $ parallels align v1.txt v2.txt -o nodir/out.json
    // parallels: error: nodir/.out.json.tmp995: cannot write: No such file or directory (os error 2)
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "-o", "nodir/out.json"]);
    run.code(2);
    assert!(run.stderr.starts_with("parallels: error: nodir/out.json: "), "{run}");
    assert!(!run.stderr.contains(".tmp"), "{run}");
}

#[test]
fn successful_output_leaves_no_temp_files() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    std::fs::create_dir(sb.path().join("results")).unwrap();
    sb.write("results/out.json", "old contents");
    for format in ["json", "text"] {
        let run = sb.run(&["align", "v1.txt", "v2.txt", "--format", format, "-o", "results/out.json"]);
        run.success();
        assert_eq!(run.stderr, "");
        assert_eq!(sb.list("results"), ["out.json"]);
    }
    // The last run (text) replaced the file written before it.
    let text = String::from_utf8(sb.read("results/out.json")).unwrap();
    assert!(text.starts_with("v1 ↔ v2: "), "{text}");
    assert!(!text.contains('\x1b'), "--color auto writing to a file: no colour");
    // -o in the current directory.
    sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "-o", "here.json"]).success();
    assert_eq!(temp_leftovers(&sb, "."), Vec::<String>::new());
}

#[test]
fn failed_output_leaves_no_temp_file() {
    // $ mkdir od && parallels align v1.txt v2.txt -o od
    // parallels: error: od: cannot write: Is a directory (os error 21)
    // $ ls -a   →   .od.tmp1008  (64 KB of output left behind)
    // (Now refused before anything is aligned: issue 47.)
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    std::fs::create_dir(sb.path().join("od")).unwrap();
    let run = sb.run(&["align", "v1.txt", "v2.txt", "-o", "od"]);
    run.no_panic().code(2);
    assert!(run.stderr.starts_with("parallels: error: -o od: is a folder"), "{run}");
    assert_eq!(temp_leftovers(&sb, "."), Vec::<String>::new());
    assert_eq!(sb.list("od"), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// document ids

#[test]
fn clashing_file_names_get_their_paths_as_ids() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path().join("a")).unwrap();
    std::fs::create_dir_all(sb.path().join("b")).unwrap();
    std::fs::copy(util::fixture_path("v1.txt"), sb.path().join("a/v1.txt")).unwrap();
    std::fs::copy(util::fixture_path("v1.txt"), sb.path().join("b/v1.txt")).unwrap();
    let out = sb.align_json(&["a/v1.txt", "b/v1.txt"]);
    let ids: Vec<&str> = out["documents"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a/v1.txt", "b/v1.txt"]);
    let pair = &out["pairs"][0];
    assert_eq!((pair["a"].as_str(), pair["b"].as_str()), (Some("a/v1.txt"), Some("b/v1.txt")));
    // Two copies of one text: one verbatim passage with a perfect score.
    let passages = only_pair_passages(&out).as_array().unwrap();
    assert_eq!(passages.len(), 1, "{passages:?}");
    assert_eq!(passages[0]["kind"], "verbatim");
    assert_eq!(passages[0]["score"].as_f64(), Some(1.0));
    assert_eq!(passages[0]["a"], passages[0]["b"]);
}

#[test]
fn the_same_file_twice_does_not_give_duplicate_ids() {
    // $ parallels align v1.txt v1.txt --format json
    // documents: [{"id": "v1.txt", …}, {"id": "v1.txt", …}], pairs: [{"a": "v1.txt", "b": "v1.txt", …}]
    // Either refuse (exit 2, naming the file) or keep the ids unique.
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let run = sb.run(&["align", "v1.txt", "v1.txt", "--format", "json"]);
    run.no_panic();
    if run.code == Some(2) {
        assert!(run.stderr.contains("v1.txt"), "{run}");
        return;
    }
    run.success();
    let out = run.json();
    let ids: BTreeSet<&str> = out["documents"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "ids are not unique: {}", out["documents"]);
    for pair in out["pairs"].as_array().unwrap() {
        assert_ne!(pair["a"], pair["b"], "a pair of a document with itself");
    }
}

// ---------------------------------------------------------------------------
// robustness

#[test]
fn closed_pipe_is_not_an_error() {
    // `parallels align … | head -1`: the reader goes away early.
    use std::io::{BufRead, BufReader};
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let mut cmd = sb.command(["align", "v1.txt", "v2.txt"]);
    // Wide rows: well over a pipe buffer (64 KiB) of output.
    cmd.env("COLUMNS", "400").stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("run the parallels binary");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("v1 ↔ v2: "), "{first:?}");
    // The reader is dropped here: the pipe is closed.
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn text_output_does_not_pass_control_characters_through() {
    // $ printf '…\e[2J\e]0;pwned\a…' into v2.txt; parallels align v1.txt v2.txt --color never | cat -v
    // … │ ^[[2J^[]0;pwned^G布伦纳河在魏斯明德…
    // The decoder accepts a few control characters (under 10%), and
    // render.rs prints the text as is (it only maps \n \r \t to spaces), so
    // an input file can clear the screen or retitle the terminal. They
    // should be shown escaped or as U+FFFD / a visible placeholder.
    let text = fixture_text("v2.txt");
    let at = text.find("布伦纳河").unwrap();
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    sb.write("v2.txt", format!("{}\x1b[2J\x1b]0;pwned\x07{}", &text[..at], &text[at..]));
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--color", "never"]);
    run.success();
    assert!(run.stdout_str().contains("布伦纳河在魏斯明德"), "the sentence is shown");
    let controls: Vec<char> = run.stdout_str().chars().filter(|c| c.is_control() && *c != '\n').collect();
    assert_eq!(controls, Vec::<char>::new(), "control characters in the text output");
}

#[test]
fn the_largest_gap_is_a_large_gap() {
    // $ parallels align v1.txt v2.txt --summary --gap 4294967295
    // debug:   thread 'main' panicked at crates/parallels/src/align/parallel.rs:399:46: attempt to add with overflow
    // release: v1 ↔ v2: 71 passage(s) (0 verbatim, 71 parallel), 71 link(s); …   (with --gap 100000: 1 passage, 126 links)
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let big = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "--gap", "100000"]);
    big.success();
    let max = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "--gap", "4294967295"]);
    max.no_panic().success();
    assert!(max.stdout == big.stdout, "--gap u32::MAX differs from --gap 100000");
}

#[test]
fn sigmas_must_be_a_number() {
    // $ parallels align v1.txt v2.txt --sigmas nan   → exit 0, 1 passage, 127 links
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--sigmas", "nan"]);
    run.no_panic().code(2);
    assert!(run.stderr.contains("--sigmas"), "{run}");
}

/// `-o` naming a named pipe (or `/dev/stdout`) writes into it instead of
/// replacing it with a renamed temporary file.
#[cfg(target_os = "linux")]
#[test]
fn output_to_a_named_pipe_is_written_not_replaced() {
    let sb = Sandbox::new();
    sb.write("v1.txt", fixture_text("v1.txt")).write("v2.txt", fixture_text("v2.txt"));
    let (fifo, reader) = util::named_pipe(&sb, "out.pipe");
    sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "-o", "out.pipe"]).success();
    assert!(util::is_pipe(&fifo), "the pipe is still a pipe");
    let doc: Value = serde_json::from_slice(&reader.join().unwrap()).unwrap();
    assert_eq!(doc["pairs"].as_array().map(Vec::len), Some(1));
}
