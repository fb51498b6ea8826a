//! `felt operator-demo`: a reference operator's wallet that keeps the contract of
//! `docs/operators.md`, with its own books ([`books`]) and faults to inject for tests
//! ([`faults`]).
//!
//! It serves `POST /wallet/NAME` for the five calls, checks each signature, answers a
//! transaction id seen before with its first answer, and remembers a rollback of a debit
//! it never saw. `POST /faults` (from this machine only) sets the faults every call
//! meets until they are cleared.

pub mod books;
pub mod faults;

use crate::wallet::signature::{unix_now, verify, HEADER};
use crate::wallet::wire::RefusalCode;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use books::{Answer, BooksError, DemoBooks, Request};
use faults::Faults;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// The reference operator's wallet: its books, the shared secret and the faults.
pub struct DemoWallet {
    books: Arc<Mutex<DemoBooks>>,
    secret: Vec<u8>,
    faults: RwLock<Faults>,
    /// Calls that reached the books and are not answered yet.
    at_books: std::sync::atomic::AtomicUsize,
}

impl DemoWallet {
    /// A wallet on these books, checking signatures with `secret`.
    pub fn new(books: DemoBooks, secret: Vec<u8>, faults: Faults) -> DemoWallet {
        DemoWallet {
            books: Arc::new(Mutex::new(books)),
            secret,
            faults: RwLock::new(faults),
            at_books: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// How many calls have reached the books and are not answered yet (waiting for the
    /// books or being applied): once a call is counted here, it is applied even if its
    /// caller hangs up.
    pub fn calls_at_books(&self) -> usize {
        self.at_books.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Sets the faults every call meets from now on.
    pub fn set_faults(&self, faults: Faults) {
        if let Ok(mut f) = self.faults.write() {
            *f = faults;
        }
    }

    fn faults(&self) -> Faults {
        self.faults.read().map(|f| f.clone()).unwrap_or_default()
    }

    /// Runs `f` on the books, off the async threads.
    pub async fn with_books<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut DemoBooks) -> Result<T, BooksError> + Send + 'static,
    ) -> Result<T, BooksError> {
        let books = self.books.clone();
        tokio::task::spawn_blocking(move || {
            let mut b = books
                .lock()
                .map_err(|_| books_failed("a call failed while holding the books"))?;
            f(&mut b)
        })
        .await
        .map_err(|e| books_failed(&e.to_string()))?
    }
}

fn books_failed(why: &str) -> BooksError {
    BooksError::new(why)
}

/// The launch link of `token` at `table` of the felt server at `felt`:
/// `FELT/?token=T&table=NAME`.
pub fn launch_link(felt: &str, token: &str, table: &str) -> Result<String, String> {
    let mut url = reqwest::Url::parse(felt).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("not an http:// or https:// address".to_string());
    }
    url.set_path("/");
    url.set_fragment(None);
    url.query_pairs_mut()
        .clear()
        .append_pair("token", token)
        .append_pair("table", table);
    Ok(url.to_string())
}

/// The wallet's routes: `POST /wallet/{name}`, and from this machine only `POST
/// /faults` and `POST /players/{id}/blocked` (the casino's back office).
pub fn router(wallet: Arc<DemoWallet>) -> Router {
    Router::new()
        .route("/wallet/{name}", post(call))
        .route("/faults", post(set_faults))
        .route("/players/{id}/blocked", post(set_blocked))
        .with_state(wallet)
}

/// Serves the wallet on `listener` until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    wallet: Arc<DemoWallet>,
) -> std::io::Result<()> {
    axum::serve(
        listener,
        router(wallet).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await
}

fn json(answer: &Answer, body: Body) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn call(
    State(w): State<Arc<DemoWallet>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let faults = w.faults();
    if faults.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(faults.delay_ms)).await;
    }
    let signature = headers.get(HEADER).and_then(|v| v.to_str().ok());
    if let Err(problem) = verify(&w.secret, signature, &body, unix_now()) {
        let a = Answer::refusal(RefusalCode::BadSignature, &problem.to_string());
        return json(&a, Body::from(a.body.clone()));
    }
    let request = match Request::parse(&name, &body) {
        None => return (StatusCode::NOT_FOUND, "no such call").into_response(),
        Some(Err(e)) => return (StatusCode::BAD_REQUEST, e).into_response(),
        Some(Ok(r)) => r,
    };
    if faults.fail_before_commit {
        return (StatusCode::SERVICE_UNAVAILABLE, "fault: fail-before-commit").into_response();
    }
    let deliveries = if faults.duplicate { 2 } else { 1 };
    let mut answer = None;
    for _ in 0..deliveries {
        let r = request.clone();
        let wallet = w.clone();
        w.at_books.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // Applied on a blocking thread, which runs to its end whatever the caller does.
        let applied = w
            .with_books(move |b| {
                let a = b.answer(&r, unix_now());
                wallet
                    .at_books
                    .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                a
            })
            .await;
        match applied {
            Ok(a) => answer = Some(a),
            Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
        }
    }
    let Some(answer) = answer else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    if faults.drop_after_commit {
        let cut = futures_util::stream::once(async {
            Err::<Bytes, std::io::Error>(std::io::Error::other("fault: drop-after-commit"))
        });
        return json(&answer, Body::from_stream(cut));
    }
    if faults.slow_ms > 0 {
        return json(
            &answer,
            slow_body(answer.body.clone().into_bytes(), faults.slow_ms),
        );
    }
    json(&answer, Body::from(answer.body.clone()))
}

/// `bytes` one at a time, spread over `over_ms`.
fn slow_body(bytes: Vec<u8>, over_ms: u64) -> Body {
    let pause = Duration::from_millis(over_ms / (bytes.len() as u64).max(1));
    let stream = futures_util::stream::unfold(0usize, move |i| {
        let next = bytes.get(i).copied();
        async move {
            let b = next?;
            tokio::time::sleep(pause).await;
            Some((Ok::<Bytes, std::io::Error>(Bytes::from(vec![b])), i + 1))
        }
    });
    Body::from_stream(stream)
}

async fn set_faults(
    State(w): State<Arc<DemoWallet>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Json(faults): Json<Faults>,
) -> Response {
    if !peer.ip().is_loopback() {
        return (
            StatusCode::FORBIDDEN,
            "faults are set from this machine only",
        )
            .into_response();
    }
    if let Err(e) = faults.check() {
        return (StatusCode::BAD_REQUEST, e).into_response();
    }
    w.set_faults(faults);
    StatusCode::NO_CONTENT.into_response()
}

/// The body of `POST /players/{id}/blocked`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BlockedBody {
    /// Blocked (every further debit refused `player-blocked`), or not.
    blocked: bool,
}

/// `POST /players/{id}/blocked`: the casino blocks a player (a self-exclusion taken at
/// the casino, say) or lifts it, as its back office would; from this machine only.
async fn set_blocked(
    State(w): State<Arc<DemoWallet>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    Json(body): Json<BlockedBody>,
) -> Response {
    if !peer.ip().is_loopback() {
        return (
            StatusCode::FORBIDDEN,
            "players are blocked from this machine only",
        )
            .into_response();
    }
    match w
        .with_books(move |b| b.set_blocked(&id, body.blocked))
        .await
    {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => (StatusCode::NOT_FOUND, e.to_string()).into_response(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_launch_link_names_the_token_and_the_table() {
        assert_eq!(
            super::launch_link("http://127.0.0.1:8080", "lt-1", "high limit").unwrap(),
            "http://127.0.0.1:8080/?token=lt-1&table=high+limit"
        );
        assert_eq!(
            super::launch_link("https://felt.example.com/lobby?x=1#y", "t", "a&b").unwrap(),
            "https://felt.example.com/?token=t&table=a%26b"
        );
        assert!(super::launch_link("ftp://x", "t", "a").is_err());
        assert!(super::launch_link("felt", "t", "a").is_err());
    }
}
