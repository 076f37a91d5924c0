//! The HTML reports in a real browser: Debian's Chromium, driven headless by
//! Playwright (`tests/browser/report.test.mjs`). Chromium is installed with
//! apt-get and `playwright-core` with npm when missing, so a fresh machine
//! (and CI) runs these tests too. Screenshots land in
//! `target/tmp/report-screenshots/<test>/`.

mod util;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use util::{fixture_text, Sandbox};

const CHROMIUM: &str = "/usr/bin/chromium";
const CJK_FONT: &str = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";

fn browser_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

fn run(cmd: &mut Command) -> bool {
    cmd.status().map(|s| s.success()).unwrap_or(false)
}

/// Chromium and playwright-core, installed once per test run.
fn browser() -> &'static Result<(), String> {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    READY.get_or_init(|| {
        if !Path::new(CHROMIUM).exists() {
            let install = || run(Command::new("apt-get").args(["install", "-y", "-q", "chromium"]));
            if !install() {
                run(Command::new("apt-get").args(["update", "-q"]));
                install();
            }
            if !Path::new(CHROMIUM).exists() {
                return Err(format!("{CHROMIUM} is missing and `apt-get install chromium` did not install it"));
            }
        }
        // CJK fonts, so that the screenshots show the text (the checks do
        // not need them; a reader's machine has its own).
        if !Path::new(CJK_FONT).exists() {
            run(Command::new("apt-get").args(["install", "-y", "-q", "fonts-noto-cjk"]));
        }
        let dir = browser_dir();
        if !dir.join("node_modules/playwright-core").exists() {
            let ok = run(Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--silent"]).current_dir(&dir));
            if !ok {
                return Err(format!("`npm ci` in {} failed (is Node.js installed?)", dir.display()));
            }
        }
        Ok(())
    })
}

/// Where a test's screenshots go: `target/tmp/report-screenshots/<name>/`.
fn shots(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the browser check `script` (a file of `tests/browser/`) on `args`.
fn drive_script(script: &str, args: &[&Path]) {
    if let Err(e) = browser() {
        panic!("no browser to test with: {e}");
    }
    let out = Command::new("node").arg(browser_dir().join(script)).args(args).output().expect("run node");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "browser check failed:\n{stdout}\n{stderr}");
    eprintln!("{stdout}");
}

/// Runs `report.test.mjs` on `args`.
fn drive(args: &[&Path]) {
    drive_script("report.test.mjs", args);
}

/// The bundled examples `names`, as paths.
fn examples(names: &[&str]) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    names.iter().map(|f| dir.join(f).display().to_string()).collect()
}

#[test]
fn the_align_report_of_the_bundled_example_works_in_chromium() {
    let sb = Sandbox::new();
    let files = examples(&["v1.txt", "v2.txt", "v3.txt"]);
    let mut args = vec!["align"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--html", "compare.html", "--format", "json", "-o", "out.json"]);
    sb.run(&args).success();
    let mode = PathBuf::from("align");
    let differ = PathBuf::from("differ");
    drive(&[&mode, &sb.path().join("compare.html"), &sb.path().join("out.json"), &shots("example"), &differ]);
}

#[test]
fn a_script_in_a_document_is_shown_as_text() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    sb.write("a.txt", format!("<script>alert('x')</script><img src=x onerror=alert(1)>\n{v1}"));
    sb.write("b.txt", &v1);
    sb.run(&["align", "a.txt", "b.txt", "--html", "r.html", "--format", "json", "-o", "out.json"]).success();
    let html = String::from_utf8(sb.read("r.html")).unwrap();
    assert!(html.contains("&lt;script&gt;alert("), "the tag is not escaped");
    assert!(!html.contains("<script>alert(") && !html.contains("<img src=x"), "raw markup from a document");
    // In the browser: no dialog opens, no script error (checked by the driver).
    let mode = PathBuf::from("align");
    // The linked text is the same on both sides: nothing is marked changed.
    let same = PathBuf::from("same");
    drive(&[&mode, &sb.path().join("r.html"), &sb.path().join("out.json"), &shots("script"), &same]);
}

#[test]
fn the_scan_report_works_in_chromium() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    let v2 = fixture_text("v2.txt");
    let v4 = fixture_text("v4.txt");
    let para = v1.lines().filter(|l| !l.trim().is_empty()).nth(1).unwrap().to_string();
    let v4c: Vec<char> = v4.chars().collect();
    let half: String = v4c[..900].iter().collect();
    sb.write("corpus/a.txt", &v1).write("corpus/b.txt", format!("{half}\n{para}")).write("corpus/c.txt", &v2);
    // Markup in shared text reaches the page's data and its excerpts: it
    // must stay text (the driver fails on a dialog or a script error).
    let markup = "</script><script>alert(1)</script><img src=x onerror=alert(2)>";
    sb.write("corpus/d.txt", format!("甲方来函。\n{markup}{para}\n"));
    sb.write("corpus/e.txt", format!("乙方复函，另有附件。\n{markup}{para}\n"));
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    let run = sb.run(&["report", "results", "-o", "report"]);
    run.success();
    assert!(run.stderr.contains("pair page(s)"), "{run}");
    let mode = PathBuf::from("scan");
    drive(&[&mode, &sb.path().join("report"), &shots("scan")]);
}

/// Text no other document shares: code points of the CJK block drawn by a
/// small generator, so that two fillers share no n-gram by chance.
fn filler(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|k| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if k % 23 == 22 {
                '。'
            } else {
                char::from_u32(0x4E00 + ((x >> 33) % 0x4000) as u32).unwrap()
            }
        })
        .collect()
}

/// Issue 17: hundreds of passages in many clusters, both kinds: the ranked
/// tables page, sort and filter, and the graph leads to pair pages.
#[test]
fn the_scan_report_ranks_filters_and_pages_many_passages_in_chromium() {
    let sb = Sandbox::new();
    let v1 = fixture_text("v1.txt");
    let paragraphs: Vec<&str> = v1.lines().filter(|l| l.chars().count() >= 100).take(16).collect();
    assert!(paragraphs.len() >= 12, "{} paragraphs", paragraphs.len());
    // 36 documents of three paragraphs each (every paragraph in about
    // seven), between text of their own; and a parallel version.
    for d in 0..36usize {
        let mut text = filler(d as u64, 150);
        for k in 0..3 {
            text.push('\n');
            text.push_str(paragraphs[(d * 5 + k * 7) % paragraphs.len()]);
            text.push('\n');
            text.push_str(&filler((d * 10 + k + 1000) as u64, 120));
        }
        sb.write(&format!("corpus/d{d:02}.txt"), text);
    }
    sb.write("corpus/v1.txt", &v1).write("corpus/v2.txt", fixture_text("v2.txt"));
    sb.run(&["scan", "corpus", "-o", "results"]).success();
    sb.run(&["report", "results", "-o", "report"]).success();
    let passages = String::from_utf8(sb.read("results/passages.jsonl")).unwrap();
    let pairs: std::collections::HashSet<(String, String)> = passages
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["a_doc"].to_string(), v["b_doc"].to_string())
        })
        .collect();
    assert!(pairs.len() > 100, "{} pairs: the second page is not exercised", pairs.len());
    assert!(passages.contains("\"kind\":\"parallel\"") && passages.contains("\"kind\":\"verbatim\""));
    let mode = PathBuf::from("scan");
    drive(&[&mode, &sb.path().join("report"), &shots("scan-many")]);
}

/// Issue 18: the "All versions" view with the abridged version first (the
/// order that used to hide what the two full versions share): every
/// sentence of every version in the page, a version hidden and a column
/// moved without changing the rows, a transposed row leading to its other
/// place (`tests/browser/collation.test.mjs`).
#[test]
fn the_all_versions_view_shows_every_sentence_and_follows_moves_in_chromium() {
    let sb = Sandbox::new();
    let files = examples(&["v3.txt", "v1.txt", "v2.txt"]);
    let mut args = vec!["align"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--html", "compare.html", "--format", "collation-json", "-o", "collation.json"]);
    sb.run(&args).success();
    drive_script(
        "collation.test.mjs",
        &[&sb.path().join("compare.html"), &sb.path().join("collation.json"), &shots("collation")],
    );
}
