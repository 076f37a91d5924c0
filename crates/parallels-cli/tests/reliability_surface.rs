//! The catalogue of issue 47 (nothing lost, nothing unbounded), one test
//! per defect, named after its number in the issue (`itemN_…`), and the
//! decisions it asked for (`decision_…`): each runs the real binary on
//! real files and asserts the exit code, the message and what is left on
//! disk.

mod util;

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use util::{fixture_text, Run, Sandbox};

fn line(id: &str, text: &str) -> String {
    format!("{}\n", json!({"id": id, "text": text}))
}

/// The first `n` characters of a fixture.
fn head(name: &str, n: usize) -> String {
    fixture_text(name).chars().take(n).collect()
}

/// A small crawl with one exact duplicate (`b` repeats `a`).
fn crawl() -> String {
    let (a, c) = (head("v1.txt", 600), head("v4.txt", 600));
    [line("a", &a), line("b", &a), line("c", &c)].concat()
}

/// Every file under the sandbox (hidden ones included) with its bytes,
/// sorted: what a refused run must leave unchanged.
fn tree(sb: &Sandbox) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                walk(&p, base, out);
            } else if meta.file_type().is_symlink() {
                out.push((format!("{rel} -> {}", std::fs::read_link(&p).unwrap().display()), Vec::new()));
            } else if meta.is_file() {
                out.push((rel, std::fs::read(&p).unwrap()));
            } else {
                out.push((format!("{rel} (special)"), Vec::new()));
            }
        }
    }
    let mut out = Vec::new();
    walk(sb.path(), sb.path(), &mut out);
    out.sort();
    out
}

/// Run with standard input from `stdin`.
fn run_with_stdin(sb: &Sandbox, args: &[&str], stdin: Stdio) -> Run {
    let output = sb.command(args).stdin(stdin).output().unwrap();
    Run::new(args, output)
}

/// Run with `bytes` on standard input (written from a thread, so that a
/// command that stops reading early does not block the test).
fn run_with_input(sb: &Sandbox, args: &[&str], bytes: Vec<u8>) -> Run {
    let mut child =
        sb.command(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    let _ = writer.join();
    Run::new(args, output)
}

/// Run, killing the command (and failing) if it has not ended within
/// `limit`: for runs that used to wait for ever.
fn run_within(sb: &Sandbox, args: &[&str], limit: Duration) -> Run {
    let mut child = sb.command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("parallels {} did not end within {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Run::new(args, child.wait_with_output().unwrap())
}

// ---------------------------------------------------------------------
// Item 1: `dedup -o` over an input that is not a JSON Lines input given
// by name is refused before anything is written.

/// `c/` with v1, v2 and a copy of v2, as the issue made it.
fn folder_with_a_copy(sb: &Sandbox) {
    sb.write("c/v1.txt", head("v1.txt", 900)).write("c/v2.txt", head("v2.txt", 900));
    sb.write("c/v2_copy.txt", head("v2.txt", 900));
}

#[test]
fn item1_dedup_output_over_a_text_file_of_an_input_folder_is_refused() {
    let sb = Sandbox::new();
    folder_with_a_copy(&sb);
    let before = tree(&sb);
    let run = sb.run(&["dedup", "c", "-o", "c/v2_copy.txt", "--removed", "rm.jsonl"]);
    run.code(2);
    assert!(run.stderr.contains("-o c/v2_copy.txt: the same file as the input c/v2_copy.txt"), "{run}");
    assert!(run.stderr.contains("Nothing was written"), "{run}");
    assert_eq!(tree(&sb), before, "nothing written, the copy still text");
}

#[test]
fn item1_dedup_output_over_its_parquet_input_is_refused() {
    let sb = Sandbox::new();
    sb.write("corpus/a.txt", head("v1.txt", 600)).write("corpus/b.txt", head("v4.txt", 600));
    sb.run(&["scan", "corpus", "-o", "results", "--format", "parquet"]).success();
    let before = tree(&sb);
    let run = sb.run(&["dedup", "results/documents.parquet", "--text", "source", "-o", "results/documents.parquet"]);
    run.code(2);
    assert!(
        run.stderr.contains("-o results/documents.parquet: the same file as the input results/documents.parquet"),
        "{run}"
    );
    assert_eq!(tree(&sb), before, "the Parquet file is still Parquet");
}

#[test]
fn item1_dedup_run_again_with_its_output_in_the_input_folder_is_refused() {
    let sb = Sandbox::new();
    folder_with_a_copy(&sb);
    let first = sb.run(&["dedup", "c", "-o", "c/clean.txt"]);
    first.success();
    assert!(first.stderr.contains("documents: 3 in, 2 kept"), "{first}");
    // The output is now a text file of the folder: read back as a
    // document, it would be replaced by JSON Lines holding itself.
    let before = tree(&sb);
    let again = sb.run(&["dedup", "c", "-o", "c/clean.txt"]);
    again.code(2);
    assert!(again.stderr.contains("-o c/clean.txt: the same file as the input c/clean.txt"), "{again}");
    assert_eq!(tree(&sb), before);
}

#[test]
fn item1_dedup_jsonl_output_over_its_jsonl_input_is_still_done_in_place() {
    let sb = Sandbox::new();
    sb.write("crawl.jsonl", crawl());
    let run = sb.run(&["dedup", "crawl.jsonl", "-o", "crawl.jsonl"]);
    run.success();
    let kept = String::from_utf8(sb.read("crawl.jsonl")).unwrap();
    assert_eq!(kept.lines().count(), 2, "{kept}");
    assert_eq!(kept, [crawl().lines().next().unwrap(), crawl().lines().nth(2).unwrap(), ""].join("\n"));
}

// ---------------------------------------------------------------------
// Item 2: a stream under another name (`/dev/stdin`, `<(…)`, a named
// pipe) is refused by the commands that read their inputs twice, before
// anything is read or written; `query` reads it once, as one text.

#[cfg(target_os = "linux")]
#[test]
fn item2_dedup_and_scan_refuse_standard_input_under_another_name() {
    let sb = Sandbox::new();
    sb.write("crawl.jsonl", crawl());
    for args in [&["dedup", "/dev/stdin", "-o", "out.jsonl"][..], &["scan", "/dev/stdin", "-o", "results"][..]] {
        let stdin = std::fs::File::open(sb.path().join("crawl.jsonl")).unwrap();
        // A file on standard input is a file; a pipe is refused.
        let piped = run_with_input(&sb, args, crawl().into_bytes());
        piped.code(2);
        assert!(piped.stderr.contains("/dev/stdin: is a named pipe, which can be read only once"), "{piped}");
        assert!(piped.stderr.contains("save it to a file first"), "{piped}");
        assert!(!sb.path().join(args[3]).exists(), "{piped}");
        let from_file = run_with_stdin(&sb, args, Stdio::from(stdin));
        from_file.success();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn item2_a_named_pipe_nobody_writes_is_refused_at_once() {
    let sb = Sandbox::new();
    let fifo = sb.path().join("crawl.jsonl");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    for args in [&["dedup", "crawl.jsonl", "-o", "out.jsonl"][..], &["scan", "crawl.jsonl", "-o", "results"][..]] {
        let run = run_within(&sb, args, Duration::from_secs(60));
        run.code(2);
        assert!(run.stderr.contains("crawl.jsonl: is a named pipe"), "{run}");
    }
    assert!(util::is_pipe(&fifo));
}

// ---------------------------------------------------------------------
// Item 3: streams are cut at the limit of a file while they are read.

#[cfg(unix)]
#[test]
fn item3_align_cuts_an_endless_standard_input_at_max_size() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let run = run_with_stdin(&sb, &["align", "-", "v1.txt", "--max-size", "1"], Stdio::from(zero));
    run.code(2);
    assert!(run.stderr.contains("<stdin>: more than 1 MiB (read up to the limit, not further)"), "{run}");
    assert!(run.stderr.contains("longer than `align` takes (--max-size 1 MiB)"), "{run}");
    // And a device by its name.
    let run = sb.run(&["align", "/dev/zero", "v1.txt", "--max-size", "1"]);
    run.code(2);
    assert!(run.stderr.contains("/dev/zero: more than 1 MiB"), "{run}");
}

#[cfg(unix)]
#[test]
fn item3_eval_cuts_an_endless_input_at_its_limit() {
    let sb = Sandbox::new();
    sb.write("gold.align", "[0]:[0]\n");
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let run = run_with_stdin(&sb, &["eval", "--beads", "--gold", "gold.align", "-"], Stdio::from(zero));
    run.code(2);
    assert!(run.stderr.contains("<stdin>: more than the limit of 268435456 bytes per document"), "{run}");
}

// ---------------------------------------------------------------------
// Item 5: a ladder that lists a sentence twice, or past the text.

/// A gold ladder of three sentences a side, null beads included.
const GOLD: &str = "[0]:[0]\n[1]:[1, 2]\n[2]:[]\n";

#[test]
fn item5_eval_beads_refuses_a_sentence_listed_twice() {
    let sb = Sandbox::new();
    sb.write("gold.align", GOLD).write("twice.align", GOLD.repeat(2));
    let run = sb.run(&["eval", "--beads", "--gold", "gold.align", "twice.align"]);
    run.code(2);
    assert!(run.stderr.contains("twice.align: line 4: sentence 0 of A is listed twice (also in line 1)"), "{run}");
    sb.write("shared.align", "[0]:[0]\n[1]:[0, 1]\n");
    let run = sb.run(&["eval", "--beads", "--gold", "gold.align", "shared.align"]);
    run.code(2);
    assert!(run.stderr.contains("shared.align: line 2: sentence 0 of B is listed twice"), "{run}");
}

#[test]
fn item5_eval_beads_refuses_a_sentence_past_the_text() {
    let sb = Sandbox::new();
    sb.write("gold.align", GOLD).write("past.align", "[0]:[0]\n[1]:[1, 2]\n[2, 7]:[]\n");
    let run = sb.run(&["eval", "--beads", "--gold", "gold.align", "past.align"]);
    run.code(2);
    assert!(run.stderr.contains("past.align: line 3: sentence 7 of A is past the end of the text"), "{run}");
    // The gold itself scores 1.
    let run = sb.run(&["eval", "--beads", "--gold", "gold.align", "gold.align"]);
    run.success();
    assert!(run.stdout_str().contains("1.0000"), "{run}");
}

// ---------------------------------------------------------------------
// Item 6: a ladder's indices are lines.

#[test]
fn item6_align_ladder_cuts_at_lines_unless_told_otherwise() {
    let sb = Sandbox::new();
    // One line, two sentences: cut at enders, the ladder would count 4
    // sentences where the file has 3 lines.
    let a = "魏斯明德之围，城中粮尽。守将出降，百姓四散。\n援军不至，城遂陷落。\n十室九空，田地荒芜。\n";
    let b = "魏斯明德被围，城里粮食吃完了。守将投降，百姓逃散。\n援军没有来，城于是陷落。\n十家九空，田地荒废。\n";
    sb.write("a.txt", a).write("b.txt", b);
    let default = sb.run(&["align", "a.txt", "b.txt", "--format", "ladder", "--no-semantic"]);
    default.success();
    let lines = sb.run(&["align", "a.txt", "b.txt", "--format", "ladder", "--no-semantic", "--sentences", "lines"]);
    assert_eq!(default.stdout, lines.stdout, "{default}");
    let indices: Vec<u32> = default
        .stdout_str()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(indices.iter().all(|&i| i < 3), "{default}");
    // Asked for, sentences are cut at enders.
    let text = sb.run(&["align", "a.txt", "b.txt", "--format", "ladder", "--no-semantic", "--sentences", "text"]);
    text.success();
    assert!(text.stdout_str().contains('3'), "{text}");
}

// ---------------------------------------------------------------------
// Item 7: an empty prediction is refused.

#[test]
fn item7_eval_beads_refuses_an_empty_prediction() {
    let sb = Sandbox::new();
    sb.write("gold.align", GOLD).write("empty.align", "");
    for args in [
        &["eval", "--beads", "--gold", "gold.align", "empty.align"][..],
        &["eval", "--beads", "--gold", "gold.align", "/dev/null"][..],
        &["eval", "--beads", "--gold", "gold.align", "-"][..],
    ] {
        let run = sb.run(args);
        run.code(2);
        assert!(run.stderr.contains("holds no bead (it is empty)"), "{run}");
        assert_eq!(run.stdout_str(), "");
    }
    std::fs::create_dir_all(sb.path().join("gold")).unwrap();
    std::fs::create_dir_all(sb.path().join("pred")).unwrap();
    let run = sb.run(&["eval", "--beads", "--gold", "gold", "pred"]);
    run.code(2);
    assert!(run.stderr.contains("gold: holds no gold file"), "{run}");
}

// ---------------------------------------------------------------------
// Item 8: the cause of an error is said once.

#[cfg(target_os = "linux")]
#[test]
fn item8_align_on_an_unreadable_file_says_the_cause_once() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    // Reading /proc/self/mem at offset 0 fails (EIO) even for root.
    let run = sb.run(&["align", "/proc/self/mem", "v1.txt"]);
    run.code(2);
    assert_eq!(run.stderr.matches("Input/output error").count(), 1, "{run}");
    assert!(run.stderr.contains("/proc/self/mem: cannot read it: Input/output error"), "{run}");
}

#[cfg(target_os = "linux")]
#[test]
fn item8_scan_on_a_full_disk_says_the_cause_once() {
    let sb = Sandbox::new();
    sb.write("corpus/a.txt", fixture_text("v1.txt")).write("corpus/b.txt", fixture_text("v2.txt"));
    let run = util::run_with_file_limit(&sb, &["scan", "corpus", "-o", "results"], 2000);
    run.code(2);
    assert_eq!(run.stderr.matches("File too large").count(), 1, "{run}");
}

#[cfg(target_os = "linux")]
#[test]
fn item8_a_stream_that_runs_out_of_memory_says_so_once_and_what_to_do() {
    use std::os::unix::process::CommandExt;
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    // 1 GB of address space; a limit far above it lets reading go on
    // until memory runs out.
    let args = ["align", "-", "v1.txt", "--max-size", "100000"];
    let mut cmd = sb.command(args);
    cmd.stdin(Stdio::from(std::fs::File::open("/dev/zero").unwrap()));
    // SAFETY: between fork and exec, one async-signal-safe call.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 1 << 30, rlim_max: 1 << 30 };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let run = Run::new(&args, cmd.output().unwrap());
    run.code(2);
    assert_eq!(run.stderr.matches("out of memory").count(), 1, "{run}");
    assert!(run.stderr.contains("not enough memory to hold it"), "{run}");
    assert!(!run.stderr.contains("check that it is a readable file"), "{run}");
}

// ---------------------------------------------------------------------
// Item 9: every output is checked before any is written.

#[test]
fn item9_dedup_removed_as_a_folder_is_refused_before_anything_is_written() {
    let sb = Sandbox::new();
    sb.write("crawl.jsonl", crawl());
    std::fs::create_dir(sb.path().join("removed")).unwrap();
    let before = tree(&sb);
    let run = sb.run(&["dedup", "crawl.jsonl", "-o", "kept.jsonl", "--removed", "removed"]);
    run.code(2);
    assert!(run.stderr.contains("--removed removed: is a folder"), "{run}");
    assert_eq!(tree(&sb), before, "no kept file on disk");
}

// ---------------------------------------------------------------------
// Item 10: `--html -` is standard output.

#[test]
fn item10_align_html_dash_is_standard_output() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let run =
        sb.run(&["align", "v1.txt", "v2.txt", "--no-semantic", "--html", "-", "-o", "out.json", "--format", "json"]);
    run.success();
    assert!(run.stdout_str().starts_with("<!DOCTYPE html>"), "{run}");
    assert!(!sb.path().join("-").exists(), "no file named -");
    let out: Value = serde_json::from_slice(&sb.read("out.json")).unwrap();
    assert_eq!(out["schema"], "parallels.align/1");
    let both = sb.run(&["align", "v1.txt", "v2.txt", "--html", "-"]);
    both.code(2);
    assert!(both.stderr.contains("--html - and the output both go to standard output"), "{both}");
    assert!(!sb.path().join("-").exists());
}

// ---------------------------------------------------------------------
// Item 11: encodings.

fn utf16le(text: &str, bom: bool) -> Vec<u8> {
    let mut out = if bom { vec![0xFF, 0xFE] } else { Vec::new() };
    out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

#[test]
fn item11_a_ladder_with_a_byte_order_mark_or_in_utf16_is_read() {
    let sb = Sandbox::new();
    sb.write("gold.align", GOLD);
    sb.write("bom.align", [&b"\xEF\xBB\xBF"[..], GOLD.as_bytes()].concat());
    sb.write("utf16.align", utf16le(GOLD, true));
    for pred in ["bom.align", "utf16.align"] {
        let run = sb.run(&["eval", "--beads", "--gold", "gold.align", pred]);
        run.success();
        assert!(run.stdout_str().contains("1.0000"), "{run}");
    }
}

#[test]
fn item11_a_utf16_jsonl_is_refused_once_not_line_by_line() {
    let sb = Sandbox::new();
    sb.write("crawl.jsonl", utf16le(&crawl(), true));
    sb.write("other.jsonl", line("d", &head("v2.txt", 600)));
    let run = sb.run(&["dedup", "crawl.jsonl", "other.jsonl", "-o", "out.jsonl"]);
    run.success();
    assert_eq!(run.stderr.matches("crawl.jsonl").count(), 1, "{run}");
    assert!(run.stderr.contains("crawl.jsonl: is utf-16le, and JSON Lines is read as UTF-8"), "{run}");
}

#[test]
fn item11_chinese_utf16_without_a_byte_order_mark_is_read() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let text = fixture_text("v2.txt");
    sb.write("v2_utf16.txt", utf16le(&text, false));
    let out = sb.align_json(&["v1.txt", "v2_utf16.txt"]);
    assert_eq!(out["documents"][1]["encoding"], "utf-16le");
    assert_eq!(out["documents"][1]["chars"], text.chars().count());
}

// ---------------------------------------------------------------------
// Item 12: `man --dir`, leftovers of killed runs, links to nothing.

#[cfg(unix)]
#[test]
fn item12_man_dir_replaces_a_link_and_leaves_its_target_alone() {
    let sb = Sandbox::new();
    sb.write("precious.txt", "keep me\n");
    std::fs::create_dir(sb.path().join("man")).unwrap();
    std::os::unix::fs::symlink(sb.path().join("precious.txt"), sb.path().join("man/parallels.1")).unwrap();
    sb.run(&["man", "--dir", "man"]).success();
    assert_eq!(sb.read("precious.txt"), b"keep me\n");
    let page = sb.path().join("man/parallels.1");
    assert!(!std::fs::symlink_metadata(&page).unwrap().file_type().is_symlink());
    assert!(String::from_utf8(sb.read("man/parallels.1")).unwrap().contains(".TH parallels"));
}

#[test]
fn item12_what_killed_runs_left_is_removed_by_the_next_run_of_every_command() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    sb.write("lib.jsonl", [line("a", &head("v1.txt", 900)), line("b", &head("v4.txt", 900))].concat());
    sb.write("more.jsonl", line("c", &head("v2.txt", 900)));
    // Left by runs killed with SIGKILL (pids above Linux's maximum are
    // never alive): the postings sort's spill folder of `index`, the
    // temporary file of a `query -o` and of a `man --dir` page.
    let gone = 4_194_304 + 47;
    let spill = format!(".parallels-spill-{gone}-Ab12Cd");
    std::fs::create_dir_all(sb.path().join("new.idx").join(&spill)).unwrap();
    sb.write(&format!("new.idx/{spill}/run.0"), "partial");
    let build = sb.run(&["index", "build", "lib.jsonl", "--index", "new.idx", "--df-bits", "16"]);
    build.success();
    std::fs::create_dir_all(sb.path().join("new.idx").join(&spill)).unwrap();
    sb.run(&["index", "add", "more.jsonl", "--index", "new.idx"]).success();
    sb.write(&format!(".hits.json.{gone}.Zz99Yy.tmp"), "partial");
    sb.run(&["query", "v1.txt", "--index", "new.idx", "--format", "json", "-o", "hits.json"]).success();
    sb.write(&format!("man/.parallels.1.{gone}.Qq11Ww.tmp"), "partial");
    sb.run(&["man", "--dir", "man"]).success();
    let left: Vec<String> = tree(&sb).into_iter().map(|(f, _)| f).filter(|f| f.contains(&gone.to_string())).collect();
    if cfg!(target_os = "linux") {
        assert!(left.is_empty(), "{left:?}");
    }
}

#[cfg(unix)]
#[test]
fn item12_an_output_that_is_a_link_to_nothing_is_refused_naming_its_target() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    std::os::unix::fs::symlink("missing/out.json", sb.path().join("out.json")).unwrap();
    let before = tree(&sb);
    let run = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "-o", "out.json"]);
    run.code(2);
    assert!(run.stderr.contains("-o out.json: a symbolic link to missing/out.json, which does not exist"), "{run}");
    assert_eq!(tree(&sb), before);
}

// ---------------------------------------------------------------------
// Decision: JSON `eval` refuses reversed spans and predictions that share
// no document with the gold.

#[test]
fn decision_eval_refuses_reversed_spans_and_unknown_documents() {
    let sb = Sandbox::new();
    let gold = json!({"documents": {"a": "a.txt", "b": "b.txt"}, "pairs": {"a-b": [{"a": [0, 5], "b": [0, 5]}]}});
    let pred = |a: [u32; 2], ids: [&str; 2]| {
        json!({"schema": "parallels.align/1",
               "documents": [{"id": ids[0], "path": "a.txt", "chars": 10, "encoding": "utf-8"},
                             {"id": ids[1], "path": "b.txt", "chars": 10, "encoding": "utf-8"}],
               "pairs": [{"a": ids[0], "b": ids[1], "passages": [{"kind": "parallel", "a": a, "b": [0, 5], "score": 1.0,
                          "links": []}]}]})
    };
    sb.write("gold.json", gold.to_string());
    sb.write("good.json", pred([0, 5], ["a", "b"]).to_string());
    sb.run(&["eval", "--gold", "gold.json", "good.json"]).success();
    sb.write("reversed.json", pred([5, 0], ["a", "b"]).to_string());
    let run = sb.run(&["eval", "--gold", "gold.json", "reversed.json"]);
    run.code(2);
    assert!(
        run.stderr
            .contains("reversed.json: predicted pair a-b, link 0 (from 0): the span [5, 0] of a ends before it starts"),
        "{run}"
    );
    sb.write("other.json", pred([0, 5], ["x", "y"]).to_string());
    let run = sb.run(&["eval", "--gold", "gold.json", "other.json"]);
    run.code(2);
    assert!(run.stderr.contains("other.json: no document of the prediction (x, y) is in the gold (a, b)"), "{run}");
    let mut gold = gold;
    gold["pairs"]["a-b"][0]["b"] = json!([5, 1]);
    sb.write("gold.json", gold.to_string());
    let run = sb.run(&["eval", "--gold", "gold.json", "good.json"]);
    run.code(2);
    assert!(run.stderr.contains("gold.json: gold pair a-b, link 0 (from 0): the span [5, 1] of b"), "{run}");
}

// ---------------------------------------------------------------------
// Items 2, 3, 10 with an index (`query`), item 4 and the framing
// decision (`serve`).

/// `lib.idx` of a few documents, one of them (`big`) of `big_bytes`
/// bytes.
fn library(sb: &Sandbox, big_bytes: usize) {
    let v1 = fixture_text("v1.txt");
    let v4 = fixture_text("v4.txt");
    let mut big = String::new();
    while big.len() < big_bytes {
        big.push_str(&v4);
    }
    let docs = [line("copy", &v1), line("other", &head("v2.txt", 400)), line("big", &big)].concat();
    sb.write("lib.jsonl", docs);
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx", "--df-bits", "16"]).success();
}

#[test]
fn item2_item3_item10_query_reads_streams_once_bounded_and_html_dash_is_standard_output() {
    let sb = Sandbox::new();
    library(&sb, 1000);
    let asked = head("v1.txt", 800);
    sb.write("asked.txt", &asked);
    // A pipe under another name is one text, as `-` is.
    let run = run_with_input(
        &sb,
        &["query", "/dev/stdin", "--index", "lib.idx", "--format", "json"],
        asked.clone().into_bytes(),
    );
    run.success();
    let out = run.json();
    assert_eq!(out["documents"][0]["id"], "stdin");
    assert!(out["pairs"].as_array().unwrap().iter().any(|p| p["b"] == "copy"), "{run}");
    // `--html -` is standard output.
    let run = sb.run(&["query", "asked.txt", "--index", "lib.idx", "--html", "-", "-o", "hits.txt"]);
    run.success();
    assert!(run.stdout_str().starts_with("<!DOCTYPE html>"), "{run}");
    assert!(!sb.path().join("-").exists());
    assert!(sb.path().join("hits.txt").exists());
    // An endless standard input is cut at the limit of a document.
    #[cfg(unix)]
    {
        let zero = std::fs::File::open("/dev/zero").unwrap();
        let run = run_with_stdin(&sb, &["query", "-", "--index", "lib.idx"], Stdio::from(zero));
        run.code(2);
        assert!(run.stderr.contains("<stdin>: more than the limit of 268435456 bytes per document"), "{run}");
    }
}

/// A connection to `addr` that takes almost nothing of what it is sent
/// (a receive buffer of a few KiB, never read).
#[cfg(target_os = "linux")]
fn stalled_client(addr: &str) -> std::net::TcpStream {
    use std::os::fd::FromRawFd;
    let sock: std::net::SocketAddrV4 = addr.parse().unwrap();
    // SAFETY: plain socket calls on a descriptor this function owns and
    // hands to the TcpStream.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let size: libc::c_int = 4096;
        let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        assert_eq!(
            libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, (&size as *const libc::c_int).cast(), len),
            0
        );
        let to = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: sock.port().to_be(),
            sin_addr: libc::in_addr { s_addr: u32::from(*sock.ip()).to_be() },
            sin_zero: [0; 8],
        };
        let r = libc::connect(
            fd,
            (&to as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        assert_eq!(r, 0, "connect: {}", std::io::Error::last_os_error());
        std::net::TcpStream::from_raw_fd(fd)
    }
}

#[cfg(target_os = "linux")]
#[test]
fn item4_serve_bounds_what_slow_readers_hold_and_disconnects_them() {
    let sb = Sandbox::new();
    library(&sb, 3 << 20);
    let server = util::Server::start(&sb, "lib.idx", &["--write-timeout", "2", "--send-budget", "4"]);
    let (status, _, body) = server.get("/api/documents?limit=10");
    assert_eq!(status, 200);
    let listing: Value = serde_json::from_slice(&body).unwrap();
    let big = listing["documents"].as_array().unwrap().iter().find(|d| d["id"] == "big").unwrap()["doc"].clone();
    let path = format!("/api/documents/{big}");
    // A client that reads takes the whole document.
    let (status, head, whole) = server.get(&path);
    assert_eq!(status, 200, "{head}");
    assert!(whole.len() > 3 << 20);
    // A client that asks for it and never reads holds its share of the
    // 4 MiB budget: a second large answer is refused at once, while small
    // ones are answered.
    // The stalled client's own answer begun (its status line read, the
    // rest left unread): asked at once after the answer before it, it may
    // find that answer's share not yet given back and be told to retry.
    let begun = Instant::now() + Duration::from_secs(30);
    let mut stalled = loop {
        let mut client = stalled_client(&server.addr);
        client.write_all(server.get_head(&path).as_bytes()).unwrap();
        let mut status = [0u8; 12];
        client.read_exact(&mut status).unwrap();
        if &status[9..] == b"200" {
            break client;
        }
        assert_eq!(&status[9..], b"503", "{}", String::from_utf8_lossy(&status));
        assert!(Instant::now() < begun, "the stalled client's answer never began");
        std::thread::sleep(Duration::from_millis(50));
    };
    let refused = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, head, body) = server.get(&path);
        if status == 503 {
            assert!(String::from_utf8_lossy(&body).contains("--send-budget"), "{head}");
            assert!(head.contains("retry-after"), "{head}");
            break;
        }
        assert_eq!(status, 200, "{head}");
        assert!(Instant::now() < refused, "a second large answer was never refused");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (status, _, _) = server.get("/api/info");
    assert_eq!(status, 200, "a small answer is not held up");
    // After the write timeout the stalled client is disconnected, its
    // answer cut, and the budget is back.
    std::thread::sleep(Duration::from_secs(4));
    stalled.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut got = Vec::new();
    let _ = stalled.read_to_end(&mut got);
    assert!(got.len() < whole.len(), "the stalled answer was cut ({} bytes)", got.len());
    let (status, _, again) = server.get(&path);
    assert_eq!((status, again.len()), (200, whole.len()));
}

#[test]
fn decision_serve_pages_may_be_framed_by_the_server_only() {
    let sb = Sandbox::new();
    library(&sb, 1000);
    let server = util::Server::start(&sb, "lib.idx", &[]);
    for path in ["/", "/api/info", "/documents/0"] {
        let (status, head, _) = server.get(path);
        assert_eq!(status, 200, "{path}: {head}");
        assert!(head.contains("x-frame-options: sameorigin"), "{path}: {head}");
    }
    let (_, head, _) = server.get("/");
    assert!(head.contains("frame-ancestors 'self'"), "{head}");
}
