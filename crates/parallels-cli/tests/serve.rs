//! `parallels serve`: the JSON API over HTTP (answers, and 4xx for bad
//! requests without a crash), and the pages in headless Chromium
//! (`tests/browser/serve.test.mjs`, set up as tests/browser.rs sets up
//! the report tests).

mod util;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use util::{fixture_text, Sandbox};

/// The markup a library document carries in its id and text.
const INJECTION_ID: &str = "<img src=x onerror=alert(1)>";

/// A library: filler documents, two holding a paragraph of v1 (`copy1`
/// first, so that document 0 shares something), one with markup in its
/// id and text holding another paragraph. The text asked holds both
/// paragraphs.
fn library(sb: &Sandbox) -> String {
    let v1 = fixture_text("v1.txt");
    let paras: Vec<&str> = v1.lines().filter(|l| l.chars().count() > 60).collect();
    let v4 = fixture_text("v4.txt");
    let v4: Vec<char> = v4.chars().collect();
    let filler = |k: usize| -> String { v4[k * 200..k * 200 + 200].iter().collect() };
    let mut docs = vec![
        json!({"id": "copy1", "text": format!("{}\n{}", filler(0), paras[1])}),
        json!({"id": "copy2", "text": format!("{}\n{}", paras[1], filler(2))}),
        json!({"id": INJECTION_ID, "text": format!("<script>alert(2)</script><b>粗体</b>\n{}\n{}", paras[3], filler(3))}),
    ];
    for k in 4..12 {
        docs.push(json!({"id": format!("other{k}"), "text": filler(k)}));
    }
    let lines: String = docs.iter().map(|d| d.to_string() + "\n").collect();
    sb.write("lib.jsonl", lines);
    sb.run(&["index", "build", "lib.jsonl", "--index", "lib.idx", "--df-bits", "16"]).success();
    format!("开头一句无关的话。\n{}\n<b>粗体</b>\n{}\n", paras[1], paras[3])
}

/// The server, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(sb: &Sandbox, more: &[&str]) -> Server {
        let mut args = vec!["serve", "--index", "lib.idx", "--port", "0"];
        args.extend_from_slice(more);
        let mut child = sb.command(&args).stderr(Stdio::piped()).spawn().expect("start the server");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut said = String::new();
        let addr = loop {
            let Some(Ok(line)) = lines.next() else { panic!("the server stopped: {said}") };
            said.push_str(&line);
            said.push('\n');
            if let Some(rest) = line.split("http://").nth(1) {
                break rest.split('/').next().unwrap().to_string();
            }
        };
        // Keep reading what it says, so that it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server { child, addr }
    }

    /// One request: status and body.
    fn request(&self, method: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        // A server may answer and close before reading a body it refuses.
        let _ = s.write_all(body);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        let status: u16 =
            text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("no answer: {text}"));
        let at = out.windows(4).position(|w| w == b"\r\n\r\n").map_or(out.len(), |p| p + 4);
        (status, out[at..].to_vec())
    }

    fn get(&self, path: &str) -> (u16, Value) {
        let (status, body) = self.request("GET", path, "text/plain", b"");
        (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }

    fn post(&self, path: &str, body: &Value) -> (u16, Vec<u8>) {
        self.request("POST", path, "application/json", body.to_string().as_bytes())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_api_answers_and_refuses_bad_requests_with_4xx() {
    let sb = Sandbox::new();
    let text = library(&sb);
    let server = Server::start(&sb, &["--max-upload", "8"]);
    // A query: the two copies and the document with markup, spans in
    // the text asked.
    let (status, body) = server.post("/api/query", &json!({ "text": text }));
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let answer: Value = serde_json::from_slice(&body).unwrap();
    let ids: Vec<&str> = answer["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [INJECTION_ID, "copy1", "copy2"]);
    assert_eq!(answer["align"]["schema"], "parallels.align/1");
    let p = &answer["align"]["pairs"][0]["passages"][0];
    let (s, e) = util::span(&p["a"]);
    assert!(text.chars().skip(s as usize).take((e - s) as usize).collect::<String>().len() > 100);
    // Documents, one document, its passages.
    let (status, list) = server.get("/api/documents?offset=1&limit=2");
    assert_eq!(status, 200);
    assert_eq!(list["total"], 11);
    assert_eq!(list["documents"][0]["id"], "copy2");
    assert_eq!(list["documents"].as_array().unwrap().len(), 2);
    let (status, doc) = server.get("/api/documents/2");
    assert_eq!(status, 200);
    assert_eq!(doc["id"], INJECTION_ID);
    assert!(doc["text"].as_str().unwrap().starts_with("<script>"));
    let (status, of) = server.get("/api/passages?doc=0");
    assert_eq!(status, 200);
    assert_eq!(of["hits"][0]["id"], "copy2");
    // The pair report of the text and a document is the align report.
    let (status, page) = server.post("/api/pair", &json!({ "text": text, "doc": 0 }));
    assert_eq!(status, 200);
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("id=\"pair-0\""), "no pair view in the report");
    // The document with markup in its id and text: escaped in its pair.
    let (status, page) = server.post("/api/pair", &json!({ "text": text, "doc": 2 }));
    assert_eq!(status, 200);
    let page = String::from_utf8(page).unwrap();
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;") && page.contains("&lt;b&gt;"), "not escaped");
    assert!(!page.contains("<img src=x") && !page.contains("<b>粗体"), "markup from the library in the report");
    let (status, page) = server.request("GET", "/pair?a=0&b=1", "text/plain", b"");
    assert_eq!(status, 200);
    assert!(String::from_utf8(page).unwrap().contains("copy2"));
    // Bad requests: 4xx with a message.
    for (path, code) in [
        ("/api/documents/99", 404),
        ("/api/documents/x", 400),
        ("/api/documents/-1", 400),
        ("/api/passages", 400),
        ("/api/passages?doc=abc", 400),
        ("/api/documents?offset=zz", 400),
        ("/pair?a=0", 400),
        ("/pair?a=0&b=0", 400),
        ("/nothing/here", 404),
    ] {
        let (status, v) = server.get(path);
        assert_eq!(status, code, "{path}");
        assert!(v["error"].as_str().is_some_and(|m| !m.is_empty()), "{path}: no message");
    }
    let (status, _) = server.request("POST", "/api/query", "application/json", b"{\"text\": ");
    assert_eq!(status, 400);
    let (status, _) = server.request("POST", "/api/query", "text/plain", b"hello");
    assert_eq!(status, 415);
    let (status, _) = server.post("/api/query", &json!({ "text": "   " }));
    assert_eq!(status, 400);
    let (status, _) = server.post("/api/pair", &json!({ "text": text, "doc": 500 }));
    assert_eq!(status, 404);
    // Over --max-upload (8 KiB): refused, in the text or in the body.
    let long = "字".repeat(4000);
    let (status, body) = server.post("/api/query", &json!({ "text": long }));
    assert_eq!(status, 413, "{}", String::from_utf8_lossy(&body));
    let huge = vec![b'a'; 200_000];
    let (status, _) = server.request("POST", "/api/query", "application/json", &huge);
    assert_eq!(status, 413);
    // Still serving.
    let (status, _) = server.get("/api/info");
    assert_eq!(status, 200);
}

#[test]
fn serve_listens_on_loopback_and_warns_on_other_addresses() {
    let sb = Sandbox::new();
    library(&sb);
    let server = Server::start(&sb, &[]);
    assert!(server.addr.starts_with("127.0.0.1:"), "{}", server.addr);
    drop(server);
    let mut child = sb
        .command(["serve", "--index", "lib.idx", "--port", "0", "--bind", "0.0.0.0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = BufReader::new(child.stderr.take().unwrap()).lines().next().unwrap().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.contains("warning") && first.contains("other machines"), "{first}");
    let missing = sb.run(&["serve", "--index", "nothing.idx"]);
    missing.code(2);
    assert!(missing.stderr.contains("no index here"), "{missing}");
}

const CHROMIUM: &str = "/usr/bin/chromium";

fn browser_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

/// Chromium and playwright-core, installed when missing (as
/// tests/browser.rs does).
fn browser_ready() -> Result<(), String> {
    let run = |cmd: &mut Command| cmd.status().map(|s| s.success()).unwrap_or(false);
    if !Path::new(CHROMIUM).exists() {
        if !run(Command::new("apt-get").args(["install", "-y", "-q", "chromium"])) {
            run(Command::new("apt-get").args(["update", "-q"]));
            run(Command::new("apt-get").args(["install", "-y", "-q", "chromium"]));
        }
        if !Path::new(CHROMIUM).exists() {
            return Err(format!("{CHROMIUM} is missing and `apt-get install chromium` did not install it"));
        }
    }
    let dir = browser_dir();
    if !dir.join("node_modules/playwright-core").exists()
        && !run(Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--silent"]).current_dir(&dir))
    {
        return Err(format!("`npm ci` in {} failed (is Node.js installed?)", dir.display()));
    }
    Ok(())
}

#[test]
fn search_open_and_see_the_pair_in_a_browser() {
    browser_ready().unwrap_or_else(|e| panic!("no browser to test with: {e}"));
    let sb = Sandbox::new();
    let text = library(&sb);
    sb.write("asked.txt", &text);
    let server = Server::start(&sb, &[]);
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots").join("serve");
    std::fs::create_dir_all(&shots).unwrap();
    let url = format!("http://{}/", server.addr);
    let out = Command::new("node")
        .arg(browser_dir().join("serve.test.mjs"))
        .args([url.as_str(), sb.path().join("asked.txt").to_str().unwrap(), "copy1", INJECTION_ID])
        .arg(&shots)
        .output()
        .expect("run node");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "browser check failed:\n{stdout}\n{stderr}");
    eprintln!("{stdout}");
}
