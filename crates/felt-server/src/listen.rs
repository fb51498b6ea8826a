//! The accept loop: at most [`ConnLimits::max`] connections open at once (one more
//! waits in the kernel's backlog, so the process never runs out of files), a request's
//! header read within [`ConnLimits::header_read`], and a connection with nothing read
//! or written for [`ConnLimits::idle`] closed. A WebSocket keeps its place in the count
//! while it lives; the idle rule stops at its upgrade (the table's own timers rule it).

use crate::client::Peer;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Files kept for the books, the logs and the relays when the connection cap is
/// derived from the open-files limit.
pub const RESERVED_FILES: u64 = 128;

/// How connections are bounded.
#[derive(Debug, Clone)]
pub struct ConnLimits {
    /// Connections open at once (WebSockets included).
    pub max: usize,
    /// Time to send a request's header, from its first byte (or the connection's).
    pub header_read: Duration,
    /// A connection with nothing read nor written this long is closed.
    pub idle: Duration,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            max: max_for_files(open_files_limit()),
            header_read: Duration::from_secs(10),
            idle: Duration::from_secs(60),
        }
    }
}

/// The process's open-files limit (its soft limit), 1,024 if it cannot be read.
pub fn open_files_limit() -> u64 {
    rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(1024, |(soft, _)| soft)
}

/// Raises the open-files soft limit to the hard one; returns the limit now in force.
pub fn raise_open_files() -> u64 {
    rlimit::increase_nofile_limit(u64::MAX).unwrap_or_else(|_| open_files_limit())
}

/// The connection cap for an open-files limit: the limit less [`RESERVED_FILES`]
/// (at least 16).
pub fn max_for_files(limit: u64) -> usize {
    usize::try_from(limit.saturating_sub(RESERVED_FILES).max(16)).unwrap_or(usize::MAX)
}

/// A connection's stream, noting when it last read or wrote, and holding its place in
/// the count until it is dropped (after a WebSocket's end, too).
struct Watched {
    stream: TcpStream,
    born: Instant,
    last: Arc<AtomicU64>,
    _place: OwnedSemaphorePermit,
}

impl Watched {
    fn touch(&self) {
        let ms = self.born.elapsed().as_millis() as u64;
        self.last.store(ms, Ordering::Relaxed);
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.touch();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Serves `app` on `listener` within `limits` until `stop` resolves; then closes the
/// connections as their requests end (as `axum::serve`'s graceful shutdown) and
/// returns once they are closed.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let places = Arc::new(Semaphore::new(limits.max.max(1)));
    let (closing, _) = tokio::sync::watch::channel(());
    let (open_tx, open_rx) = tokio::sync::watch::channel(());
    let mut stop = pin!(stop);
    loop {
        let place = tokio::select! {
            p = places.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut stop => break,
        };
        let (stream, peer) = tokio::select! {
            a = listener.accept() => match a {
                Ok(a) => a,
                Err(e) => {
                    // Out of files or memory for a moment: wait rather than spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let last = Arc::new(AtomicU64::new(0));
        let io = Watched {
            stream,
            born: Instant::now(),
            last: last.clone(),
            _place: place,
        };
        let born = io.born;
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<_>| {
            req.extensions_mut().insert(Peer(peer));
            let mut app = app.clone();
            async move { tower_service::Service::call(&mut app, req).await }
        });
        let mut closing = closing.subscribe();
        let open = open_rx.clone();
        let limits = limits.clone();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read)
                .serve_connection(TokioIo::new(io), service)
                .with_upgrades();
            let mut conn = pin!(conn);
            let idle_since = || {
                let ms = last.load(Ordering::Relaxed);
                born.elapsed().saturating_sub(Duration::from_millis(ms))
            };
            let mut shutting = false;
            loop {
                let left = limits.idle.saturating_sub(idle_since());
                tokio::select! {
                    _ = conn.as_mut() => break,
                    r = closing.changed(), if !shutting => {
                        let _ = r;
                        shutting = true;
                        conn.as_mut().graceful_shutdown();
                    }
                    () = tokio::time::sleep(left) => {
                        if idle_since() >= limits.idle {
                            break;
                        }
                    }
                }
            }
            drop(open);
        });
    }
    drop(listener);
    let _ = closing.send(());
    drop(open_rx);
    open_tx.closed().await;
    Ok(())
}
