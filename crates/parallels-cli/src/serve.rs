//! `parallels serve`: a read-only web page and JSON API over an index.
//!
//! axum on tokio (the most used Rust HTTP stack, maintained by the tokio
//! project): loopback by default, every request body bounded
//! (`--max-upload`), every query run on the blocking pool so that the
//! server keeps answering while one aligns. The pages are three static
//! files (`serve/`) that read the API; the texts they show are set as
//! text, never as markup. A pair opens in the `align` HTML report
//! (`parallels::report::align_page`), inside a sandboxed frame.

use crate::query::{html, output, prepare, trim, Asked};
use anyhow::{Context, Result};
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use clap::Args;
use parallels::index::{Hit, Index};
use parallels::read::shown;
use serde::{Deserialize, Serialize};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

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
}

struct App {
    index: Index,
    max_text: usize,
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

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let index = Index::open(&args.index)?;
    let max_text = (args.max_upload << 10) as usize;
    let app = Arc::new(App { index, max_text });
    let addr = SocketAddr::new(args.bind, args.port);
    if !args.bind.is_loopback() {
        eprintln!(
            "parallels: warning: listening on {}: other machines can read every document of the index (no password)",
            args.bind
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_io().build().context("cannot start the server")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        let info = app.index.info();
        eprintln!(
            "parallels: serving {} ({} documents) on http://{local}/ (read-only; Ctrl-C stops)",
            shown(&args.index),
            info.documents
        );
        axum::serve(listener, router(app)).await.context("the server stopped")
    })?;
    Ok(ExitCode::SUCCESS)
}

fn router(app: Shared) -> Router {
    // A JSON-escaped text takes up to 6 bytes per byte; the limit is on
    // the text itself, checked once decoded.
    let body_limit = app.max_text * 6 + 4096;
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
        .with_state(app)
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
                   img-src 'self' data:; frame-src 'self' about:; connect-src 'self'";

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

/// Run `f` on the blocking pool (queries align, which takes a while).
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, Refused> + Send + 'static) -> Result<T, Refused> {
    tokio::task::spawn_blocking(f).await.map_err(internal)?
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
}

#[derive(Serialize)]
struct QueryAnswer {
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
            Ok(HitRow {
                doc: h.doc,
                id: d.id.clone(),
                source: d.source.to_string(),
                passages: h.passages.len(),
                chars: h.query_chars(),
                significance: h.best(),
            })
        })
        .collect::<Result<Vec<_>, Refused>>()?;
    let (align, _) = output(index, &[asked], &[hits]).map_err(internal)?;
    Ok(QueryAnswer { hits: rows, align })
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

/// `POST /api/query` `{"text": …, "top": N, "min_chars": N}`.
async fn api_query(
    State(app): State<Shared>,
    body: Result<Json<QueryBody>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(body) = match body {
        Ok(b) => b,
        Err(e) => return Refused(e.status(), e.body_text()).into_response(),
    };
    let result = blocking(move || {
        check_text(&app, &body.text)?;
        let hits = app.index.query(&body.text, None).map_err(internal)?;
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
        let text = app.index.text(n).map_err(internal)?;
        Ok::<_, Refused>(serde_json::json!({
            "doc": n, "id": d.id, "source": d.source.to_string(), "chars": d.chars,
            "encoding": d.encoding, "meta": d.meta, "text": text,
        }))
    })();
    match r {
        Ok(v) => Json(v).into_response(),
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
    let result = blocking(move || {
        let n = number(&doc, &app)?;
        let d = app.index.doc(n).ok_or_else(|| internal("missing"))?;
        let text = app.index.text(n).map_err(internal)?;
        let hits = trim(app.index.query(&text, Some(n)).map_err(internal)?, q.top.unwrap_or(DEFAULT_TOP), 0);
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
        let text = app.index.text(doc).map_err(internal)?;
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
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
}

/// `POST /api/pair` `{"text": …, "doc": N}`: the HTML report of the text
/// and one library document side by side.
async fn api_pair(
    State(app): State<Shared>,
    body: Result<Json<PairBody>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(body) = match body {
        Ok(b) => b,
        Err(e) => return Refused(e.status(), e.body_text()).into_response(),
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
    let result = blocking(move || {
        check_text(&app, &body.text)?;
        let n = number(&body.doc.to_string(), &app)?;
        let hit = app.index.query(&body.text, None).map_err(internal)?.into_iter().find(|h| h.doc == n);
        let asked = Asked { id: "query".into(), path: "query".into(), encoding: "utf-8".into(), text: body.text };
        report(&app, asked, hit, n)
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
    let result = blocking(move || {
        let (a, b) = (number(&a, &app)?, number(&b, &app)?);
        if a == b {
            return Err(bad("a and b are the same document"));
        }
        let d = app.index.doc(a).ok_or_else(|| internal("missing"))?;
        let text = app.index.text(a).map_err(internal)?;
        let hit = app.index.query(&text, Some(a)).map_err(internal)?.into_iter().find(|h| h.doc == b);
        let asked = Asked { id: d.id.clone(), path: d.source.to_string().into(), encoding: d.encoding.clone(), text };
        report(&app, asked, hit, b)
    })
    .await;
    result.unwrap_or_else(IntoResponse::into_response)
}
