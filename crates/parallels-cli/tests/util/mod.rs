//! Helpers for the end-to-end tests of the `parallels` binary: a scratch
//! directory per test, the fixture texts, running the real binary and
//! reading what it printed.
//!
//! Every run starts in the sandbox directory (so inputs are named by
//! relative paths and messages are predictable) with the variables that
//! change the output (`NO_COLOR`, `COLUMNS`, `RAYON_NUM_THREADS`) removed
//! unless a test sets them.

#![allow(dead_code)] // each test binary uses a different subset

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

/// The binary under test, as built by cargo for this test run.
pub const BIN: &str = env!("CARGO_BIN_EXE_parallels");

/// Variables that change what the binary writes; cleared for every run.
const OUTPUT_VARS: [&str; 3] = ["NO_COLOR", "COLUMNS", "RAYON_NUM_THREADS"];

/// `tests/fixtures/zh/<name>`.
pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zh").join(name)
}

/// The text of a fixture (all are UTF-8).
pub fn fixture_text(name: &str) -> String {
    let path = fixture_path(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fresh temporary directory that every command of a test runs in.
pub struct Sandbox {
    dir: TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox { dir: tempfile::Builder::new().prefix("parallels-cli-test").tempdir().expect("temp dir") }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Copy fixtures into the sandbox under their own names.
    pub fn fixtures(&self, names: &[&str]) -> &Sandbox {
        for name in names {
            std::fs::copy(fixture_path(name), self.path().join(name)).unwrap_or_else(|e| panic!("copy {name}: {e}"));
        }
        self
    }

    /// Write a file (parent directories are created).
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Sandbox {
        let path = self.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create dir");
        }
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {rel}: {e}"));
        self
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Names of the entries of a directory of the sandbox, sorted.
    pub fn list(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path().join(rel))
            .unwrap_or_else(|e| panic!("list {rel}: {e}"))
            .map(|e| e.expect("dir entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The command, in the sandbox, with a clean output environment.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(BIN);
        cmd.args(args).current_dir(self.path()).stdin(Stdio::null());
        for var in OUTPUT_VARS {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Run `parallels <args>` and collect what it wrote.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }

    /// Run with extra environment variables.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        let output = cmd.output().expect("run the parallels binary");
        Run::new(args, output)
    }

    /// `parallels align <files> --format json` (to stdout): must succeed
    /// without a word on stderr; the parsed JSON.
    pub fn align_json(&self, files: &[&str]) -> Value {
        self.align_json_env(files, &[])
    }

    pub fn align_json_env(&self, files: &[&str], env: &[(&str, &str)]) -> Value {
        let mut args = vec!["align"];
        args.extend_from_slice(files);
        args.extend_from_slice(&["--format", "json"]);
        let run = self.run_env(&args, env);
        run.success();
        assert_eq!(run.stderr, "", "{run}");
        run.json()
    }
}

/// What one run of the binary did.
pub struct Run {
    pub args: Vec<String>,
    /// Exit code (`None` if killed by a signal).
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    /// What the run with `args` that gave `output` did.
    pub fn new(args: &[&str], output: Output) -> Run {
        Run {
            args: args.iter().map(|a| a.to_string()).collect(),
            code: output.status.code(),
            stdout: output.stdout,
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// Assert the exit code; the message shows the whole run.
    pub fn code(&self, expected: i32) -> &Run {
        assert_eq!(self.code, Some(expected), "unexpected exit code\n{self}");
        self
    }

    pub fn success(&self) -> &Run {
        self.code(0)
    }

    pub fn stdout_str(&self) -> &str {
        std::str::from_utf8(&self.stdout).expect("stdout is UTF-8")
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{self}"))
    }

    pub fn stderr_lines(&self) -> Vec<&str> {
        self.stderr.lines().collect()
    }

    /// No panic, whatever else happened.
    pub fn no_panic(&self) -> &Run {
        assert!(!self.stderr.contains("panicked"), "the binary panicked\n{self}");
        assert!(self.code.is_some(), "killed by a signal\n{self}");
        self
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stdout = String::from_utf8_lossy(&self.stdout);
        let head: String = stdout.chars().take(2000).collect();
        write!(
            f,
            "$ parallels {}\nexit: {:?}\n--- stderr ---\n{}--- stdout (head) ---\n{}",
            self.args.join(" "),
            self.code,
            self.stderr,
            head
        )
    }
}

/// `[s, e]` of a JSON span.
pub fn span(v: &Value) -> (u64, u64) {
    let a = v.as_array().unwrap_or_else(|| panic!("span is not an array: {v}"));
    assert_eq!(a.len(), 2, "span is not [start, end]: {v}");
    (a[0].as_u64().expect("span start"), a[1].as_u64().expect("span end"))
}

/// The characters `[s, e)` of `text`, counted in code points.
pub fn slice_chars(text: &str, (s, e): (u64, u64)) -> String {
    text.chars().skip(s as usize).take((e - s) as usize).collect()
}

/// A named pipe `name` in the sandbox and a thread that reads it whole:
/// join the thread for the bytes once the writer has closed it.
#[cfg(target_os = "linux")]
pub fn named_pipe(sandbox: &Sandbox, name: &str) -> (PathBuf, std::thread::JoinHandle<Vec<u8>>) {
    let fifo = sandbox.path().join(name);
    let c_path = std::ffi::CString::new(fifo.to_str().expect("test paths are UTF-8")).expect("no NUL");
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
    let path = fifo.clone();
    (fifo, std::thread::spawn(move || std::fs::read(path).expect("read the pipe")))
}

/// Is `path` (not following links) still a named pipe?
#[cfg(target_os = "linux")]
pub fn is_pipe(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// Run on a pseudo-terminal: the binary's stdout is a tty. Returns the exit
/// code and everything written to the terminal (stderr is discarded).
#[cfg(target_os = "linux")]
pub fn run_on_tty(sandbox: &Sandbox, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Vec<u8>) {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::os::unix::fs::OpenOptionsExt;

    // SAFETY: plain libc calls on a descriptor this function owns; the
    // name buffer is large enough and NUL-terminated by ptsname_r.
    let (mut master, slave_name) = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let master = std::fs::File::from_raw_fd(fd);
        assert_eq!(libc::grantpt(fd), 0, "grantpt: {}", std::io::Error::last_os_error());
        assert_eq!(libc::unlockpt(fd), 0, "unlockpt: {}", std::io::Error::last_os_error());
        let mut buf = [0 as libc::c_char; 256];
        assert_eq!(libc::ptsname_r(fd, buf.as_mut_ptr(), buf.len()), 0, "ptsname_r");
        let name = std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
        (master, name)
    };
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(&slave_name)
        .expect("open the pty slave");
    let mut cmd = sandbox.command(args);
    cmd.envs(env.iter().copied()).stdout(Stdio::from(slave)).stderr(Stdio::null());
    let mut child = cmd.spawn().expect("run the parallels binary");
    // `cmd` holds the parent's copy of the slave; drop it so that reading
    // the master ends when the child exits.
    drop(cmd);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            // Linux reports EIO on the master once every slave is closed.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("read the pty: {e}"),
        }
    }
    let status = child.wait().expect("wait for the binary");
    (status.code(), out)
}

/// Number of links an `align` output shows for its pairs, counted as the
/// text summary counts them (a passage without links counts as one).
pub fn link_count(out: &Value) -> usize {
    out["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .flat_map(|p| p["passages"].as_array().expect("passages"))
        .map(|p| p["links"].as_array().map_or(1, |l| l.len().max(1)))
        .sum()
}

/// Run with the size of any file the process writes limited to `bytes`
/// (`RLIMIT_FSIZE`; `SIGXFSZ` ignored, so a write past it fails with
/// "File too large" as a write on a full disk fails with "No space left"):
/// a write error at a chosen file, without a small file system.
#[cfg(target_os = "linux")]
pub fn run_with_file_limit(sb: &Sandbox, args: &[&str], bytes: u64) -> Run {
    use std::os::unix::process::CommandExt;
    let mut cmd = sb.command(args);
    // SAFETY: between fork and exec, only two async-signal-safe calls.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    Run::new(args, cmd.output().expect("run the parallels binary"))
}

/// `parallels serve` on a free port of the loopback, stopped when dropped.
pub struct Server {
    pub child: std::process::Child,
    pub addr: String,
}

/// The `host:port` a starting `parallels serve` says it listens on, read
/// from its standard error line by line (panics with what it said if it
/// stops first).
pub fn listening_address(err: &mut impl std::io::Read) -> String {
    let mut said = Vec::new();
    loop {
        let mut b = [0u8; 1];
        if err.read(&mut b).unwrap_or(0) == 0 {
            panic!("the server stopped: {}", String::from_utf8_lossy(&said));
        }
        said.push(b[0]);
        let text = String::from_utf8_lossy(&said).to_string();
        if text.ends_with('\n') {
            if let Some(rest) = text.split("http://").nth(1) {
                return rest.split('/').next().expect("address").to_string();
            }
        }
    }
}

impl Server {
    /// `parallels serve --index INDEX --port 0 MORE…` in the sandbox, once
    /// it says where it listens.
    pub fn start(sb: &Sandbox, index: &str, more: &[&str]) -> Server {
        use std::io::Read;
        let mut args = vec!["serve", "--index", index, "--port", "0"];
        args.extend_from_slice(more);
        let mut child = sb.command(&args).stderr(Stdio::piped()).spawn().expect("run parallels serve");
        let mut err = child.stderr.take().expect("stderr");
        let addr = listening_address(&mut err);
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = err.read_to_end(&mut sink);
        });
        Server { child, addr }
    }

    /// The head of a GET request of `path` (the connection closed after).
    pub fn get_head(&self, path: &str) -> String {
        format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.addr)
    }

    /// One GET, read whole: status, head (lower case), body.
    pub fn get(&self, path: &str) -> (u16, String, Vec<u8>) {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(std::time::Duration::from_secs(120))).expect("timeout");
        s.write_all(self.get_head(path).as_bytes()).expect("send");
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let at = out.windows(4).position(|w| w == b"\r\n\r\n").map_or(out.len(), |p| p + 4);
        let head = String::from_utf8_lossy(&out[..at]).to_ascii_lowercase();
        let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        (status, head, out[at..].to_vec())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
