//! `parallels serve`: a read-only web page and JSON API over an index.
//!
//! axum on tokio (the most used Rust HTTP stack, maintained by the tokio
//! project), served by hyper's HTTP/1 connection loop with tokio's timers.
//! The pages are three static files (`serve/`) that read the API; the
//! texts they show are set as text, never as markup. A pair opens in the
//! `align` HTML report (`parallels::report::align_page`), inside a
//! sandboxed frame.
//!
//! # What keeps it up
//!
//! * **Connections**: at most [`MAX_CONNECTIONS`] at once (further ones
//!   wait in the kernel's queue until one closes), far below the usual
//!   limit of 1,024 open files; an accept that fails (no file descriptor
//!   left) is retried after a pause, never a crash.
//! * **Timeouts**: a request's head must arrive within
//!   [`HEADER_TIMEOUT`] (this also closes an idle keep-alive connection),
//!   its body within [`BODY_TIMEOUT`] (408 after), and its answer, the
//!   query included, within `--timeout` (503 after). A client that takes
//!   no byte of its answer for [`conn::WRITE_TIMEOUT`] is disconnected.
//! * **Answers in flight**: large answers being sent hold at most
//!   `--send-budget` MiB together; one more is answered 503 at once, so
//!   that clients that never read their answers cannot fill the memory,
//!   and small answers never wait for them (`serve/conn.rs`).
//! * **Work**: every query runs on the blocking pool, at most
//!   [`MAX_WORK`] at once. A large text (over [`LARGE_TEXT`] bytes) runs
//!   on a pool of its own, one at a time, so that small queries keep
//!   answering beside it. A request that times out or whose client goes
//!   away stops its query between stages ([`Index::query_stoppable`]);
//!   the last stage (the scan's alignment of the candidates) runs to its
//!   end, holding its permits, so that abandoned work never piles up.
//! * **Bodies**: bounded (`--max-upload`).
//! * **Frames**: every answer may be framed by this server's pages only
//!   (`X-Frame-Options: SAMEORIGIN`, and `frame-ancestors 'self'` in the
//!   pages' policy), so that another site cannot show them under its own
//!   buttons.
//!
//! # Who may ask
//!
//! * **Host**: only requests whose `Host` is a loopback name
//!   (`localhost`, `127.0.0.1`, `[::1]`) or the `--bind` address are
//!   answered (421 otherwise), so that a page that rebinds its own domain
//!   name to 127.0.0.1 cannot read the library. `--bind 0.0.0.0` (or `::`)
//!   answers any name: the library is then open to the network anyway.
//! * **Origin**: a POST from another origin (its `Origin` header, or a
//!   browser's `Sec-Fetch-Site: cross-site`) is refused (403), and so is a
//!   cross-site GET of the API and of `/pair`: another site's page can
//!   neither read the API nor make the server align for it.
//!
//! # What it serves
//!
//! The index as it was when the server started: documents added later are
//! served after a restart (an index is a set of files never changed once
//! written, so the open one stays consistent while `index add` runs
//! beside it). The postings are mapped into memory: a segment file
//! truncated in place by another program ends the server (SIGBUS), as it
//! would any program mapping files; the index itself never rewrites a
//! file.

mod conn;

use crate::query::{html, output, prepare};
use anyhow::{Context, Result};
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{from_fn_with_state, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use clap::Args;
use parallels::index::{trim, Asked, Hit, Index, IndexError};
use parallels::read::shown;
use serde::{Deserialize, Serialize};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The index folder (`parallels index build`).
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
    /// Address to listen on. Anything but a loopback address lets other
    /// machines read the whole library: a warning says so.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    bind: IpAddr,
    /// Port to listen on (0: any free port, printed).
    #[arg(long, default_value_t = 8640, value_name = "PORT")]
    port: u16,
    /// Largest text accepted in one request, in KiB (a pasted text or an
    /// uploaded file).
    #[arg(long, default_value_t = 2048, value_name = "KIB",
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    max_upload: u64,
    /// Longest a request may take, in seconds, its body and its query
    /// included (503 after; the query is stopped).
    #[arg(long, default_value_t = 120, value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    /// Time for a request's head to arrive, in seconds (and for an idle
    /// connection to send its next request).
    #[arg(long, default_value_t = HEADER_TIMEOUT.as_secs(), value_name = "SECONDS", hide = true,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_timeout: u64,
    /// Time for a request's body to arrive, in seconds.
    #[arg(long, default_value_t = BODY_TIMEOUT.as_secs(), value_name = "SECONDS", hide = true,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    body_timeout: u64,
    /// Time a client may take no byte of its answer before it is
    /// disconnected, in seconds.
    #[arg(long, default_value_t = conn::WRITE_TIMEOUT.as_secs(), value_name = "SECONDS", hide = true,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    write_timeout: u64,
    /// Memory for large answers (over 64 KiB: documents, reports) being
    /// sent at once, in MiB; beyond it a large answer is refused (503,
    /// retry later), so that clients that do not read their answers
    /// cannot fill the memory.
    #[arg(long, default_value_t = conn::SEND_BUDGET_MIB, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    send_budget: u64,
}

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 512;

/// Time for a request's head to arrive (and for an idle keep-alive
/// connection to send its next request).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Time for a request's body to arrive (408 after).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Queries run at once (more wait their turn).
pub const MAX_WORK: usize = 16;

/// A text of more bytes than this is aligned on the pool of large texts,
/// one at a time.
pub const LARGE_TEXT: usize = 64 << 10;

struct App {
    index: Index,
    max_text: usize,
    /// The `Host` names answered (`None`: any).
    hosts: Option<Vec<String>>,
    timeout: Duration,
    body_timeout: Duration,
    /// Largest body, in bytes.
    body_limit: usize,
    /// Permits of [`MAX_WORK`] queries (held by the work itself, which
    /// may outlive its request).
    work: Arc<Semaphore>,
    /// One permit: the large text being aligned.
    large: Arc<Semaphore>,
    /// The threads of large texts.
    large_pool: rayon::ThreadPool,
    /// The bytes of large answers being sent.
    budget: conn::SendBudget,
}

type Shared = Arc<App>;

/// A request the server refuses: status and message, as JSON.
struct Refused(StatusCode, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (self.0, Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

fn bad(msg: impl Into<String>) -> Refused {
    Refused(StatusCode::BAD_REQUEST, msg.into())
}

fn internal(e: impl std::fmt::Display) -> Refused {
    Refused(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}"))
}

/// An error of the index: a stopped query is the timeout's answer.
fn index_error(e: IndexError) -> Refused {
    match e {
        IndexError::Stopped => Refused(StatusCode::SERVICE_UNAVAILABLE, "the query was stopped".into()),
        e => internal(e),
    }
}

/// The `Host` names a server bound to `bind` answers (`None`: any).
fn allowed_hosts(bind: IpAddr) -> Option<Vec<String>> {
    if bind.is_unspecified() {
        return None;
    }
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]"].map(String::from).to_vec();
    hosts.push(match bind {
        IpAddr::V4(a) => a.to_string(),
        IpAddr::V6(a) => format!("[{a}]"),
    });
    Some(hosts)
}

/// The name of a `Host` header, without its port, in lower case.
fn host_name(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    if host.starts_with('[') {
        return host.split(']').next().map_or(host.clone(), |h| format!("{h}]"));
    }
    host.rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
        .map_or(host.clone(), |(h, _)| h.to_string())
}

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let index = Index::open(&args.index)?;
    let max_text = (args.max_upload << 10) as usize;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let large_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.div_ceil(2))
        .thread_name(|k| format!("large-{k}"))
        .build()
        .context("cannot start the threads of large texts")?;
    let app = Arc::new(App {
        index,
        max_text,
        hosts: allowed_hosts(args.bind),
        timeout: Duration::from_secs(args.timeout),
        body_timeout: Duration::from_secs(args.body_timeout),
        // A JSON-escaped text takes up to 6 bytes per byte; the limit is
        // on the text itself, checked once decoded.
        body_limit: max_text * 6 + 4096,
        work: Arc::new(Semaphore::new(MAX_WORK)),
        large: Arc::new(Semaphore::new(1)),
        large_pool,
        budget: conn::SendBudget::new(args.send_budget),
    });
    let addr = SocketAddr::new(args.bind, args.port);
    if !args.bind.is_loopback() {
        eprintln!(
            "parallels: warning: listening on {}: other machines can read every document of the index (no password)",
            args.bind
        );
    }
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the server")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        let info = app.index.info();
        eprintln!(
            "parallels: serving {} ({} documents) on http://{local}/ (read-only; Ctrl-C stops)",
            shown(&args.index),
            info.documents
        );
        let timeouts = (Duration::from_secs(args.header_timeout), Duration::from_secs(args.write_timeout));
        serve(listener, router(app), timeouts).await;
        Ok::<(), anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Accept connections for ever, at most [`MAX_CONNECTIONS`] at once, each
/// served by hyper with a timer (head timeout, idle keep-alive), a write
/// deadline and a bounded buffer (`serve/conn.rs`).
async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    (header_timeout, write_timeout): (Duration, Duration),
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut failing = false;
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else { return };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, or a connection reset before
                // it was taken: wait a little, go on (said once a spell).
                if !failing {
                    eprintln!("parallels: warning: cannot accept a connection: {e} (retrying)");
                }
                failing = true;
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        failing = false;
        let _ = stream.set_nodelay(true);
        conn::bound_send_buffer(&stream);
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .keep_alive(true)
                .max_buf_size(conn::MAX_BUF);
            let io = hyper_util::rt::TokioIo::new(conn::WriteDeadline::new(stream, write_timeout));
            let _ = http.serve_connection(io, service).await;
            drop(slot);
        });
    }
}

fn router(app: Shared) -> Router {
    let body_limit = app.body_limit;
    Router::new()
        .route("/", get(|| async { page(INDEX_HTML) }))
        .route("/documents/{n}", get(|| async { page(DOC_HTML) }))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/app.css", get(|| async { asset("text/css; charset=utf-8", APP_CSS) }))
        .route("/api/info", get(info))
        .route("/api/query", post(api_query))
        .route("/api/documents", get(api_documents))
        .route("/api/documents/{n}", get(api_document))
        .route("/api/passages", get(api_passages))
        .route("/api/pair", post(api_pair))
        .route("/pair", get(library_pair).post(form_pair))
        .fallback(|| async { Refused(StatusCode::NOT_FOUND, "no such page".into()) })
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Every request: its `Host` and its origin checked, its time bounded,
/// `nosniff` on every answer.
async fn guard(State(app): State<Shared>, req: Request, next: Next) -> Response {
    if let Err(r) = check_request(&app, req.method(), req.uri().path(), req.headers()) {
        return r.into_response();
    }
    let answer = async {
        match read_body(&app, req).await {
            Ok(req) => next.run(req).await,
            Err(r) => r.into_response(),
        }
    };
    let mut response = match tokio::time::timeout(app.timeout, answer).await {
        Ok(r) => r,
        Err(_) => Refused(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the request took more than {} s (--timeout); it was stopped", app.timeout.as_secs()),
        )
        .into_response(),
    };
    response.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response.headers_mut().insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
    within_budget(&app.budget, response).await
}

/// A large answer sent only within the budget of answers in flight
/// (`serve/conn.rs`), holding its share until sent; 503 when the budget
/// is spent.
async fn within_budget(budget: &conn::SendBudget, mut response: Response) -> Response {
    use hyper::body::Body as _;
    let Some(bytes) = response.body().size_hint().exact() else { return response };
    let reserved = response.extensions_mut().remove::<conn::Reserved>().and_then(|r| r.share());
    let share = match reserved {
        Some(share) => Ok(Some(share)),
        None => budget.take(usize::try_from(bytes).unwrap_or(usize::MAX)),
    };
    match share {
        Ok(None) => response,
        Ok(Some(share)) => {
            let (parts, body) = response.into_parts();
            match axum::body::to_bytes(body, usize::MAX).await {
                Ok(bytes) => Response::from_parts(parts, axum::body::Body::new(conn::Chunked::new(bytes, share))),
                Err(e) => internal(e).into_response(),
            }
        }
        Err(()) => budget_spent(budget),
    }
}

/// The answer to a request whose large answer does not fit in the budget
/// of answers in flight: 503, retry later.
fn budget_spent(budget: &conn::SendBudget) -> Response {
    let mut refused = Refused(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("the server is sending {} MiB of other large answers (--send-budget); retry in a while", budget.mib()),
    )
    .into_response();
    refused.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    refused.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    refused.headers_mut().insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
    refused
}

/// The request with its body read whole within `--body-timeout` (a slow
/// or short body holds a connection no longer), at most the body limit.
async fn read_body(app: &App, req: Request) -> Result<Request, Refused> {
    let (parts, body) = req.into_parts();
    let declared = parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let too_large = || {
        Refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the body is larger than {} bytes (--max-upload)", app.body_limit),
        )
    };
    if declared.is_some_and(|n| n > app.body_limit as u64) {
        return Err(too_large());
    }
    let bytes = match tokio::time::timeout(app.body_timeout, axum::body::to_bytes(body, app.body_limit)).await {
        Err(_) => {
            return Err(Refused(
                StatusCode::REQUEST_TIMEOUT,
                format!("the body did not arrive within {} s", app.body_timeout.as_secs()),
            ))
        }
        Ok(Err(e)) if format!("{e:#}").contains("length limit") => return Err(too_large()),
        Ok(Err(e)) => return Err(bad(format!("cannot read the body: {e}"))),
        Ok(Ok(bytes)) => bytes,
    };
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}

fn check_request(app: &App, method: &Method, path: &str, headers: &HeaderMap) -> Result<(), Refused> {
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let host = text(header::HOST);
    if let Some(hosts) = &app.hosts {
        let Some(host) = host else { return Err(bad("no Host header")) };
        let name = host_name(host);
        if !hosts.contains(&name) {
            return Err(Refused(
                StatusCode::MISDIRECTED_REQUEST,
                format!("this server answers only {} (Host {host:?}); see --bind", hosts.join(", ")),
            ));
        }
    }
    let cross_site = headers.get("sec-fetch-site").is_some_and(|v| v == "cross-site" || v == "same-site");
    let costly = path.starts_with("/api/") || path == "/pair";
    if *method == Method::POST || costly {
        let foreign_origin = match (text(header::ORIGIN), host) {
            (Some(origin), Some(host)) => origin != format!("http://{host}"),
            (Some(_), None) => true,
            (None, _) => false,
        };
        if cross_site || foreign_origin {
            return Err(Refused(StatusCode::FORBIDDEN, "requests from other sites are refused".into()));
        }
    }
    Ok(())
}

/// Set when dropped: the request whose query this stops is gone (its
/// client left, or its time ran out).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Run the query work `f` on the blocking pool (queries align, which takes
/// a while): at most [`MAX_WORK`] at once, a large text (`bytes`) on the
/// pool of large texts, one at a time. `f` gets the flag that says its
/// request is gone.
async fn work<T: Send + 'static>(
    app: &Shared,
    bytes: usize,
    f: impl FnOnce(&App, &AtomicBool) -> Result<T, Refused> + Send + 'static,
) -> Result<T, Refused> {
    let large = bytes > LARGE_TEXT;
    // The permits go with the work: a request that times out stops
    // waiting, but work already started holds its permits to its end (the
    // last stage of a query cannot be stopped), so that no more than
    // these run at once whatever the clients do.
    let turn = if large { Some(app.large.clone().acquire_owned().await.map_err(internal)?) } else { None };
    let permit = app.work.clone().acquire_owned().await.map_err(internal)?;
    let stop = Arc::new(AtomicBool::new(false));
    let _guard = StopOnDrop(stop.clone());
    let app = app.clone();
    tokio::task::spawn_blocking(move || {
        let _held = (turn, permit);
        if large {
            app.large_pool.install(|| f(&app, &stop))
        } else {
            f(&app, &stop)
        }
    })
    .await
    .map_err(internal)?
}

/// A query of `text` that stops when `stop` is set.
fn query(app: &App, text: &str, exclude: Option<u32>, stop: &AtomicBool) -> Result<Vec<Hit>, Refused> {
    let stopped = || stop.load(Ordering::Relaxed);
    // With the `test-hooks` feature, `PARALLELS_TEST_SLOW_QUERY_MS=N`
    // makes every query a slow one (N ms, stoppable), for the tests of
    // the time limit and of stopping (tests/reliability_index.rs).
    #[cfg(feature = "test-hooks")]
    if let Some(ms) = std::env::var("PARALLELS_TEST_SLOW_QUERY_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_millis(ms) {
            if stopped() {
                eprintln!("parallels: test: a query was stopped");
                return Err(index_error(IndexError::Stopped));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    app.index.query_stoppable(text, exclude, &stopped).map(|(h, _)| h).map_err(index_error)
}

const INDEX_HTML: &str = include_str!("serve/index.html");
const DOC_HTML: &str = include_str!("serve/document.html");
const APP_JS: &str = include_str!("serve/app.js");
const APP_CSS: &str = include_str!("serve/app.css");

/// The pages load nothing but this server's files. A pair's report is a
/// self-contained page with inline scripts, shown in a frame made from its
/// source (`srcdoc`), which takes this policy: inline scripts are allowed,
/// and the frame is sandboxed (an origin of its own, no access to the
/// page). The pages themselves have no inline script and insert no
/// markup.
const CSP: &str = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; \
                   img-src 'self' data:; frame-src 'self' about:; connect-src 'self'; frame-ancestors 'self'";

/// A pair's report (`/pair`): a self-contained page, its own inline
/// scripts and styles and nothing else, framed by this server's pages
/// only.
const REPORT_CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                          img-src data:; frame-ancestors 'self'";

fn page(body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::X_CONTENT_TYPE_OPTIONS, "nosniff")], body).into_response()
}

async fn info(State(app): State<Shared>) -> Json<parallels::index::IndexInfo> {
    Json(app.index.info())
}

#[derive(Deserialize)]
struct QueryBody {
    text: String,
    #[serde(default)]
    top: Option<usize>,
    #[serde(default)]
    min_chars: Option<u32>,
}

/// One library document a text shares passages with, for the result list.
#[derive(Serialize)]
struct HitRow {
    /// Its number (for `/api/documents/{n}`).
    doc: u32,
    id: String,
    source: String,
    passages: usize,
    /// Characters of the text asked inside its passages.
    chars: u64,
    /// Its most significant passage's significance.
    significance: f64,
    /// Found across languages (by meaning): only then is this, and what
    /// follows, in the answer.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    across: bool,
    /// The document's language.
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    /// Both sides of its first passages, as the page shows them: the text
    /// asked (`a`) and the document (`b`), in two languages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    excerpts: Vec<Excerpt>,
}

/// The beginning of a passage on both sides.
#[derive(Serialize)]
struct Excerpt {
    a: String,
    b: String,
}

/// Characters of a passage the page shows, on each side.
const EXCERPT_CHARS: usize = 80;

/// Passages of a hit across languages shown both sides.
const EXCERPTS: usize = 3;

/// The first `EXCERPT_CHARS` characters of `span` of `text`, `…` after
/// when there are more.
fn excerpt(text: &str, span: [u32; 2]) -> String {
    let n = (span[1].saturating_sub(span[0])) as usize;
    let mut s: String = text.chars().skip(span[0] as usize).take(n.min(EXCERPT_CHARS)).collect();
    if n > EXCERPT_CHARS {
        s.push('…');
    }
    s
}

#[derive(Serialize)]
struct QueryAnswer {
    /// The language of the text asked, when the index keeps sentence
    /// vectors (and so was asked across languages too).
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<&'static str>,
    /// The library documents, most significant first.
    hits: Vec<HitRow>,
    /// The same passages in the `parallels.align/1` schema.
    align: parallels::output::AlignOutput,
}

const DEFAULT_TOP: usize = 20;

fn answer(index: &Index, asked: Asked, hits: Vec<Hit>) -> Result<QueryAnswer, Refused> {
    let rows = hits
        .iter()
        .map(|h| {
            let d = index.doc(h.doc).ok_or_else(|| internal("a hit names a missing document"))?;
            let mut row = HitRow {
                doc: h.doc,
                id: d.id.clone(),
                source: d.source.to_string(),
                passages: h.passages.len(),
                chars: h.query_chars(),
                significance: h.best(),
                across: h.across,
                language: None,
                excerpts: Vec::new(),
            };
            if h.across {
                let text = index.text(h.doc).map_err(index_error)?;
                row.language = d.language.clone();
                row.excerpts = h
                    .passages
                    .iter()
                    .take(EXCERPTS)
                    .map(|p| Excerpt { a: excerpt(&asked.text, p.a), b: excerpt(&text, p.b) })
                    .collect();
            }
            Ok(row)
        })
        .collect::<Result<Vec<_>, Refused>>()?;
    let language = if index.languages().is_empty() { None } else { parallels::mine::language(&asked.text) };
    let (align, _) = output(index, &[asked], &[hits]).map_err(internal)?;
    Ok(QueryAnswer { language, hits: rows, align })
}

fn check_text(app: &App, text: &str) -> Result<(), Refused> {
    if text.trim().is_empty() {
        return Err(bad("the text is empty"));
    }
    if text.len() > app.max_text {
        return Err(Refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the text is {} bytes; this server takes at most {} (--max-upload)", text.len(), app.max_text),
        ));
    }
    Ok(())
}

/// The JSON object of an API request: `Content-Type: application/json`
/// (415 otherwise), an object (not an array: serde would take `["x"]`
/// for `{"text": "x"}`), a lone surrogate escape (`"\ud800"`, which
/// JavaScript strings may hold) read as U+FFFD, as in JSON Lines inputs.
fn json_body<T: serde::de::DeserializeOwned>(
    headers: &HeaderMap,
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<T, Refused> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        return Err(Refused(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send the body as application/json".into()));
    }
    let body = body.map_err(|e| Refused(e.status(), e.body_text()))?;
    let text = std::str::from_utf8(&body).map_err(|e| bad(format!("the body is not UTF-8: {e}")))?;
    let repaired = parallels::corpus::repair_lone_surrogates(text);
    let text = repaired.as_ref().map_or(text, |(t, _)| t.as_str());
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(format!("the body is not JSON: {e}")))?;
    if !value.is_object() {
        return Err(bad("the body is a JSON object, such as {\"text\": \"…\"}"));
    }
    serde_json::from_value(value).map_err(|e| Refused(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))
}

/// `POST /api/query` `{"text": …, "top": N, "min_chars": N}`.
async fn api_query(
    State(app): State<Shared>,
    headers: HeaderMap,
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    let body: QueryBody = match json_body(&headers, body) {
        Ok(b) => b,
        Err(r) => return r.into_response(),
    };
    if let Err(r) = check_text(&app, &body.text) {
        return r.into_response();
    }
    let result = work(&app, body.text.len(), move |app, stop| {
        let hits = query(app, &body.text, None, stop)?;
        let hits = trim(hits, body.top.unwrap_or(DEFAULT_TOP), body.min_chars.unwrap_or(0));
        let asked = Asked { id: "query".into(), path: "query".into(), encoding: "utf-8".into(), text: body.text };
        answer(&app.index, asked, hits)
    })
    .await;
    match result {
        Ok(a) => Json(a).into_response(),
        Err(r) => r.into_response(),
    }
}

/// The size of library document `n` (0 if it has none).
fn doc_bytes(app: &App, n: &str) -> usize {
    n.parse().ok().and_then(|n| app.index.doc(n)).map_or(0, |d| d.bytes as usize)
}

#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    offset: u32,
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Serialize)]
struct DocRow {
    doc: u32,
    id: String,
    source: String,
    chars: u64,
}

/// `GET /api/documents?offset=&limit=`: the documents in the order added.
async fn api_documents(
    State(app): State<Shared>,
    q: Result<Query<Page>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(p)) = q else { return bad("offset and limit are numbers").into_response() };
    let limit = p.limit.unwrap_or(100).min(1000);
    let end = p.offset.saturating_add(limit).min(app.index.len());
    let rows: Vec<DocRow> = (p.offset.min(end)..end)
        .filter_map(|n| {
            let d = app.index.doc(n)?;
            Some(DocRow { doc: n, id: d.id.clone(), source: d.source.to_string(), chars: d.chars })
        })
        .collect();
    Json(serde_json::json!({ "total": app.index.len(), "offset": p.offset, "documents": rows })).into_response()
}

fn number(n: &str, app: &App) -> Result<u32, Refused> {
    let n: u32 = n.parse().map_err(|_| bad(format!("{n:?} is not a document number")))?;
    if n >= app.index.len() {
        return Err(Refused(StatusCode::NOT_FOUND, format!("no document {n} (the index holds {})", app.index.len())));
    }
    Ok(n)
}

/// `GET /api/documents/{n}`: a document with its text.
async fn api_document(State(app): State<Shared>, UrlPath(n): UrlPath<String>) -> Response {
    let r = (|| {
        let n = number(&n, &app)?;
        let d = app.index.doc(n).ok_or_else(|| internal("missing"))?;
        // A large document's share of the budget of answers in flight is
        // taken before its text is read (serve/conn.rs).
        let Ok(reserved) = app.budget.reserve(d.bytes as usize) else { return Ok(None) };
        let text = app.index.text(n).map_err(index_error)?;
        let v = serde_json::json!({
            "doc": n, "id": d.id, "source": d.source.to_string(), "chars": d.chars,
            "encoding": d.encoding, "meta": d.meta, "text": text,
        });
        Ok::<_, Refused>(Some((v, reserved)))
    })();
    match r {
        Ok(Some((v, reserved))) => {
            let mut response = Json(v).into_response();
            if let Some(reserved) = reserved {
                response.extensions_mut().insert(reserved);
            }
            response
        }
        Ok(None) => budget_spent(&app.budget),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
struct PassagesOf {
    doc: Option<String>,
    #[serde(default)]
    top: Option<usize>,
}

/// `GET /api/passages?doc=N`: the document against the rest of the
/// library.
async fn api_passages(
    State(app): State<Shared>,
    q: Result<Query<PassagesOf>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else { return bad("give doc=N").into_response() };
    let Some(doc) = q.doc else { return bad("give doc=N (a document number)").into_response() };
    let bytes = doc_bytes(&app, &doc);
    let result = work(&app, bytes, move |app, stop| {
        let n = number(&doc, app)?;
        let d = app.index.doc(n).ok_or_else(|| internal("missing"))?;
        let text = app.index.text(n).map_err(index_error)?;
        let hits = trim(query(app, &text, Some(n), stop)?, q.top.unwrap_or(DEFAULT_TOP), 0);
        let asked = Asked { id: d.id.clone(), path: d.source.to_string().into(), encoding: d.encoding.clone(), text };
        answer(&app.index, asked, hits)
    })
    .await;
    match result {
        Ok(a) => Json(a).into_response(),
        Err(r) => r.into_response(),
    }
}

#[derive(Deserialize)]
struct PairBody {
    text: String,
    doc: u32,
}

fn report(app: &App, asked: Asked, hit: Option<Hit>, doc: u32) -> Result<Response, Refused> {
    let hits = vec![hit.into_iter().collect::<Vec<Hit>>()];
    let (out, docs) = output(&app.index, &[asked], &hits).map_err(internal)?;
    // A pair without passages still shows both texts.
    let mut docs = docs;
    let mut out = out;
    if docs.len() == 1 {
        let d = app.index.doc(doc).ok_or_else(|| internal("missing"))?;
        let text = app.index.text(doc).map_err(index_error)?;
        let path = PathBuf::from(d.source.to_string());
        out.documents.push(parallels::output::DocumentInfo {
            id: d.id.clone(),
            path: path.clone(),
            chars: d.chars,
            encoding: d.encoding.clone(),
        });
        docs.push(parallels::read::Document {
            id: d.id.clone(),
            path,
            text,
            encoding: d.encoding.clone(),
            replaced: 0,
        });
    }
    let prepared = prepare(&app.index, &docs);
    let page = html(&out, &docs, &prepared).map_err(internal)?;
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CONTENT_SECURITY_POLICY, REPORT_CSP)], page)
        .into_response())
}

/// `POST /api/pair` `{"text": …, "doc": N}`: the HTML report of the text
/// and one library document side by side.
async fn api_pair(
    State(app): State<Shared>,
    headers: HeaderMap,
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Response {
    let body: PairBody = match json_body(&headers, body) {
        Ok(b) => b,
        Err(r) => return r.into_response(),
    };
    pair_of_text(app, body).await
}

/// `POST /pair` (a form: `text`, `doc`): as `/api/pair`, for a frame to
/// load, so that the report's own links (`#pair-0`) stay inside it.
async fn form_pair(
    State(app): State<Shared>,
    body: Result<axum::Form<PairBody>, axum::extract::rejection::FormRejection>,
) -> Response {
    let axum::Form(body) = match body {
        Ok(b) => b,
        Err(e) => return Refused(e.status(), e.body_text()).into_response(),
    };
    pair_of_text(app, body).await
}

async fn pair_of_text(app: Shared, body: PairBody) -> Response {
    if let Err(r) = check_text(&app, &body.text) {
        return r.into_response();
    }
    let result = work(&app, body.text.len(), move |app, stop| {
        let n = number(&body.doc.to_string(), app)?;
        let hit = query(app, &body.text, None, stop)?.into_iter().find(|h| h.doc == n);
        let asked = Asked { id: "query".into(), path: "query".into(), encoding: "utf-8".into(), text: body.text };
        report(app, asked, hit, n)
    })
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}

#[derive(Deserialize)]
struct PairOf {
    a: Option<String>,
    b: Option<String>,
}

/// `GET /pair?a=N&b=M`: the HTML report of two library documents.
async fn library_pair(
    State(app): State<Shared>,
    q: Result<Query<PairOf>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else { return bad("give a=N&b=M").into_response() };
    let (Some(a), Some(b)) = (q.a, q.b) else { return bad("give a=N&b=M (document numbers)").into_response() };
    let bytes = doc_bytes(&app, &a);
    let result = work(&app, bytes, move |app, stop| {
        let (a, b) = (number(&a, app)?, number(&b, app)?);
        if a == b {
            return Err(bad("a and b are the same document"));
        }
        let d = app.index.doc(a).ok_or_else(|| internal("missing"))?;
        let text = app.index.text(a).map_err(index_error)?;
        let hit = query(app, &text, Some(a), stop)?.into_iter().find(|h| h.doc == b);
        let asked = Asked { id: d.id.clone(), path: d.source.to_string().into(), encoding: d.encoding.clone(), text };
        report(app, asked, hit, b)
    })
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
