//! Progress on a terminal for the long commands (`scan`, `dedup`): a bar per
//! stage, the first problems printed, peak memory at the end.

use indicatif::{ProgressBar, ProgressStyle};
use parallels::corpus::Problem;
use parallels::plumbing::Progress;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Progress bars on a terminal, nothing otherwise; problems are printed
/// (the first 20, then only counted).
pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    /// Each stage's name and when it started.
    stages: Mutex<Vec<(String, std::time::Instant)>>,
    show: bool,
    problems: AtomicU64,
    crash: Crash,
}

impl Bars {
    /// Bars when standard error is a terminal, nothing otherwise.
    pub fn new() -> Bars {
        Bars {
            bar: Mutex::new(None),
            stages: Mutex::new(Vec::new()),
            show: std::io::stderr().is_terminal(),
            problems: AtomicU64::new(0),
            crash: Crash::from_env(),
        }
    }

    /// How long each stage took, in order: the time from its start to the
    /// next stage's (the last one's to now).
    pub fn timings(&self) -> Vec<(String, f64)> {
        let stages = self.stages.lock().unwrap();
        let now = std::time::Instant::now();
        stages
            .iter()
            .enumerate()
            .map(|(i, (name, at))| {
                let end = stages.get(i + 1).map_or(now, |s| s.1);
                (name.clone(), end.duration_since(*at).as_secs_f64())
            })
            .collect()
    }

    /// Say how many problems were not printed, if any.
    pub fn hidden_problems(&self) {
        let problems = self.problems.load(Ordering::Relaxed);
        if problems > SHOWN_PROBLEMS {
            eprintln!("parallels: warning: {} more problems not shown", problems - SHOWN_PROBLEMS);
        }
    }
}

/// For the resume tests, with the `test-hooks` feature only:
/// `PARALLELS_TEST_CRASH=STAGE:N` aborts the process (no cleanup, as a kill
/// would) when stage STAGE has reported progress N times (N = 0: when it
/// starts). Stages: documents, candidates, aligning (one report per
/// checkpointed chunk). `STAGE:N:int` sends the process SIGINT instead (as
/// Ctrl-C would), through `kill`, and waits for the handler to end it.
#[cfg(feature = "test-hooks")]
#[derive(Default)]
struct Crash {
    at: Option<(String, u64)>,
    interrupt: bool,
    stage: Mutex<String>,
    reports: AtomicU64,
}

#[cfg(feature = "test-hooks")]
impl Crash {
    fn from_env() -> Crash {
        let value = std::env::var("PARALLELS_TEST_CRASH").unwrap_or_default();
        let (value, interrupt) = match value.strip_suffix(":int") {
            Some(v) => (v.to_string(), true),
            None => (value, false),
        };
        let at = value.split_once(':').and_then(|(stage, n)| Some((stage.to_string(), n.parse().ok()?)));
        Crash { at, interrupt, ..Crash::default() }
    }

    fn check(&self) {
        if let Some((stage, n)) = &self.at {
            if *self.stage.lock().unwrap() == *stage && self.reports.load(Ordering::SeqCst) == *n {
                if self.interrupt {
                    let pid = std::process::id().to_string();
                    let _ = std::process::Command::new("kill").args(["-INT", &pid]).status();
                    std::thread::sleep(std::time::Duration::from_secs(30));
                }
                std::process::abort();
            }
        }
    }

    fn stage(&self, name: &str) {
        *self.stage.lock().unwrap() = name.to_string();
        self.reports.store(0, Ordering::SeqCst);
        self.check();
    }

    fn advance(&self) {
        self.reports.fetch_add(1, Ordering::SeqCst);
        self.check();
    }
}

/// Without the `test-hooks` feature, `PARALLELS_TEST_CRASH` does nothing.
#[cfg(not(feature = "test-hooks"))]
struct Crash;

#[cfg(not(feature = "test-hooks"))]
impl Crash {
    fn from_env() -> Crash {
        Crash
    }

    fn stage(&self, _name: &str) {}

    fn advance(&self) {}
}

const SHOWN_PROBLEMS: u64 = 20;

impl Progress for Bars {
    fn stage(&self, name: &str, total: Option<u64>) {
        self.crash.stage(name);
        self.stages.lock().unwrap().push((name.to_string(), std::time::Instant::now()));
        let mut bar = self.bar.lock().unwrap();
        if let Some(b) = bar.take() {
            b.finish();
        }
        if !self.show || name.is_empty() {
            return;
        }
        let b = match total {
            Some(t) => ProgressBar::new(t).with_style(
                ProgressStyle::with_template("{prefix:>11} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}")
                    .unwrap()
                    .progress_chars("=> "),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{prefix:>11} {spinner} {human_pos} documents {per_sec}").unwrap(),
            ),
        };
        b.set_prefix(name.to_string());
        *bar = Some(b);
    }

    fn advance(&self, n: u64) {
        self.crash.advance();
        if let Some(b) = self.bar.lock().unwrap().as_ref() {
            b.inc(n);
        }
    }

    fn problem(&self, p: &Problem) {
        let k = self.problems.fetch_add(1, Ordering::Relaxed);
        if k < SHOWN_PROBLEMS {
            // Every problem skips something; say so once.
            let text = p.to_string();
            let line = if text.contains("skipped") {
                format!("parallels: warning: {text}")
            } else {
                format!("parallels: warning: {text} (skipped)")
            };
            match self.bar.lock().unwrap().as_ref() {
                Some(b) => b.println(line),
                None => eprintln!("{line}"),
            }
        }
    }
}

/// Peak resident memory of this process, in MiB, where the OS says.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
