//! End-to-end tests of the habits a command-line user expects: `-` for
//! standard input (`align`, `query`, `eval`) and for standard output
//! (`-o -`), refused with a reason where a command cannot take a stream
//! (`scan`, `dedup`, `index`), and the shell completions and man pages
//! generated from the flag definitions.

mod util;

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};
use util::{fixture_path, Run, Sandbox, BIN};

/// Run `parallels <args>` in the sandbox with `input` on standard input.
fn run_with_stdin(sb: &Sandbox, args: &[&str], input: &[u8]) -> Run {
    let mut cmd = sb.command(args);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run the parallels binary");
    let mut stdin = child.stdin.take().expect("stdin");
    // A command that refuses its arguments may exit before reading: a
    // closed pipe is then no failure of the test.
    let _ = stdin.write_all(input);
    drop(stdin);
    Run::new(args, child.wait_with_output().expect("wait for parallels"))
}

/// The JSON with `documents[k].path` set to `path` (the one field where a
/// text read from standard input differs from the same text in a file).
fn with_path(mut out: Value, k: usize, path: &str) -> Value {
    out["documents"][k]["path"] = Value::from(path);
    out
}

// ---------------------------------------------------------------------------
// standard input and output

#[test]
fn align_reads_one_text_from_standard_input_as_from_its_file() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    // The text read from `-` has the id `stdin`: the same text in a file
    // of that name gives the same alignment, passage for passage.
    std::fs::copy(fixture_path("v1.txt"), sb.path().join("stdin.txt")).unwrap();
    let v1 = sb.read("v1.txt");

    let file = sb.run(&["align", "stdin.txt", "v2.txt", "--format", "json"]);
    file.success();
    let piped = run_with_stdin(&sb, &["align", "-", "v2.txt", "--format", "json"], &v1);
    piped.success();
    assert_eq!(piped.stderr, "", "{piped}");
    let piped = piped.json();
    assert_eq!(piped["documents"][0]["id"], "stdin");
    assert_eq!(piped["documents"][0]["path"], "<stdin>");
    assert!(!piped["pairs"].as_array().unwrap().is_empty(), "nothing aligned: {piped}");
    assert_eq!(with_path(piped, 0, "stdin.txt"), file.json());

    // Second place, text view: byte for byte what the file gives.
    let file = sb.run(&["align", "v2.txt", "stdin.txt", "--color", "never"]);
    file.success();
    let piped = run_with_stdin(&sb, &["align", "v2.txt", "-", "--color", "never"], &v1);
    piped.success();
    assert_eq!(piped.stdout_str(), file.stdout_str());
}

#[test]
fn standard_input_is_read_once() {
    let sb = Sandbox::new();
    let run = run_with_stdin(&sb, &["align", "-", "-"], "天下大势".as_bytes());
    run.code(2).no_panic();
    assert!(run.stderr.contains("`-` (standard input) is given more than once"), "{run}");
}

#[test]
fn binary_standard_input_is_an_error_naming_it() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt"]);
    let run = run_with_stdin(&sb, &["align", "-", "v1.txt"], b"\0\x01\x02\0\0\0binary\0\0\0");
    run.code(2).no_panic();
    assert!(run.stderr.contains("<stdin>: looks like a binary file"), "{run}");
    assert!(run.stdout.is_empty(), "{run}");
}

#[test]
fn dash_output_is_standard_output() {
    let sb = Sandbox::new();
    sb.fixtures(&["v1.txt", "v2.txt"]);
    let plain = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json"]);
    plain.success();
    let dash = sb.run(&["align", "v1.txt", "v2.txt", "--format", "json", "-o", "-"]);
    dash.success();
    assert_eq!(dash.stdout, plain.stdout);
    assert!(!sb.path().join("-").exists(), "a file named `-` was written");
}

#[test]
fn query_reads_a_text_from_standard_input() {
    let sb = Sandbox::new();
    for name in ["v1.txt", "v2_trad.txt", "v4.txt"] {
        std::fs::create_dir_all(sb.path().join("lib")).unwrap();
        std::fs::copy(fixture_path(name), sb.path().join("lib").join(name)).unwrap();
    }
    sb.run(&["index", "build", "lib", "--index", "lib.idx"]).success();
    std::fs::copy(fixture_path("v2.txt"), sb.path().join("stdin.txt")).unwrap();
    let v2 = sb.read("stdin.txt");

    let file = sb.run(&["query", "stdin.txt", "--index", "lib.idx", "--format", "json"]);
    file.success();
    let piped = run_with_stdin(&sb, &["query", "-", "--index", "lib.idx", "--format", "json", "-o", "-"], &v2);
    piped.success();
    let piped = piped.json();
    assert!(!piped["pairs"].as_array().unwrap().is_empty(), "nothing found: {piped}");
    let k = piped["documents"].as_array().unwrap().iter().position(|d| d["id"] == "stdin").expect("the text asked");
    assert_eq!(piped["documents"][k]["path"], "<stdin>");
    assert_eq!(with_path(piped, k, "stdin.txt"), file.json());
}

#[test]
fn eval_scores_a_prediction_from_standard_input() {
    let sb = Sandbox::new();
    let ladder = "[0]:[0]\n[1, 2]:[1]\n[3]:[]\n";
    sb.write("gold.align", ladder).write("pred.align", ladder);
    let file = sb.run(&["eval", "--beads", "--gold", "gold.align", "pred.align"]);
    file.success();
    let piped = run_with_stdin(&sb, &["eval", "--beads", "--gold", "gold.align", "-"], ladder.as_bytes());
    piped.success();
    // The document column names the prediction; the scores are the same.
    let scores = |run: &Run| run.stdout_str().lines().last().map(str::to_string);
    assert_eq!(scores(&piped), scores(&file));
    assert!(piped.stdout_str().contains("1.0000"), "{piped}");
}

#[test]
fn corpus_commands_refuse_standard_input_with_what_to_do() {
    let sb = Sandbox::new();
    for args in [
        &["scan", "-", "-o", "results"][..],
        &["dedup", "-", "-o", "clean.jsonl"],
        &["index", "build", "-", "--index", "lib.idx"],
    ] {
        let run = run_with_stdin(&sb, args, b"{\"id\": \"a\", \"text\": \"x\"}\n");
        run.code(2).no_panic();
        assert!(run.stderr.contains("standard input (`-`) is not read as a corpus"), "{run}");
        assert!(run.stderr.contains("save it to a file first"), "{run}");
    }
    assert!(sb.list(".").is_empty(), "something was written: {:?}", sb.list("."));
}

// ---------------------------------------------------------------------------
// completions and man pages

#[test]
fn bash_completions_name_the_commands_and_load() {
    let sb = Sandbox::new();
    let run = sb.run(&["completions", "bash"]);
    run.success();
    let script = run.stdout_str();
    assert!(!script.is_empty());
    for command in ["align", "scan", "report", "dedup", "eval", "index", "query", "serve", "completions", "man"] {
        assert!(script.contains(command), "the bash completions do not name `{command}`");
    }
    for flag in ["--format", "--sigmas", "--threshold", "--resume"] {
        assert!(script.contains(flag), "the bash completions do not name `{flag}`");
    }
    // Loaded into a bash: `parallels` then has a completion function,
    // which completes the commands.
    let out = Command::new("bash")
        .arg("-c")
        .arg(
            r#"source <("$BIN" completions bash) || exit 1
               complete -p parallels || exit 1
               COMP_WORDS=(parallels al); COMP_CWORD=1; COMP_LINE="parallels al"; COMP_POINT=${#COMP_LINE}
               _parallels parallels al parallels
               printf '%s\n' "${COMPREPLY[@]}""#,
        )
        .env("BIN", BIN)
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "bash could not load the completions: {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("complete") && stdout.contains("parallels"), "{stdout}");
    assert!(stdout.lines().any(|l| l == "align"), "`parallels al<TAB>` does not complete to align: {stdout}");
}

#[test]
fn completions_for_every_shell_are_written() {
    let sb = Sandbox::new();
    for (shell, mark) in [
        ("zsh", "#compdef parallels"),
        ("fish", "complete -c parallels"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion"),
    ] {
        let run = sb.run(&["completions", shell]);
        run.success();
        assert!(run.stdout_str().contains(mark), "{shell}: no `{mark}`\n{run}");
        assert!(run.stdout_str().contains("dedup"), "{shell}: the commands are not named\n{run}");
    }
    sb.run(&["completions", "tcsh"]).code(2).no_panic();
}

#[test]
fn man_pages_render() {
    let sb = Sandbox::new();
    let top = sb.run(&["man"]);
    top.success();
    let roff = top.stdout_str();
    assert!(roff.contains(".TH parallels 1"), "no title header:\n{roff}");
    assert!(roff.contains(".SH NAME") && roff.contains(".SH SYNOPSIS") && roff.contains(".SH SUBCOMMANDS"), "{roff}");
    let align = sb.run(&["man", "align"]);
    align.success();
    assert!(align.stdout_str().contains(".TH parallels-align 1"), "{align}");
    assert!(align.stdout_str().contains("sigmas"), "{align}");
    let build = sb.run(&["man", "index", "build"]);
    build.success();
    assert!(build.stdout_str().contains(".TH parallels-index-build 1"), "{build}");
    let unknown = sb.run(&["man", "nonsense"]);
    unknown.code(2).no_panic();
    assert!(unknown.stderr.contains("nonsense: no such command"), "{unknown}");

    sb.run(&["man", "--dir", "man1"]).success();
    let pages = sb.list("man1");
    for page in ["parallels.1", "parallels-align.1", "parallels-scan.1", "parallels-index-build.1", "parallels-man.1"] {
        assert!(pages.iter().any(|p| p == page), "{page} not written: {pages:?}");
    }

    // Rendered by man itself where it is installed.
    let Ok(out) =
        Command::new("man").arg("-l").arg(sb.path().join("man1/parallels-align.1")).env("MANWIDTH", "100").output()
    else {
        eprintln!("man is not installed: the roff headers above are all that is checked");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "man -l failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("NAME") && text.contains("parallels-align") && text.contains("--sigmas"), "{text}");
}
