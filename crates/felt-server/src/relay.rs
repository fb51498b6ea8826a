//! The relay: a player connected to a server that does not deal their table is carried
//! through to the server that does, with the same session (the books, shared by the
//! servers, know it). So a browser, or a load balancer in front of the servers, may
//! reach any server for any table. When the dealing server goes away the relay says
//! so (an `away` error) and closes: the client reconnects, and reaches the table's new
//! host the same way.

use crate::protocol::{error_frame, Code};
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use tokio::sync::{mpsc, Notify};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// Opens the relay to the server at `url` (`http://host:port`): sends `hello` (the
/// client's, as it came) there, then every text given to the returned sender; every
/// frame that server sends goes to `out`. When either side ends, `ended` is notified.
pub fn open(
    url: &str,
    cookie: &str,
    hello: String,
    out: mpsc::Sender<Arc<str>>,
    ended: Arc<Notify>,
) -> mpsc::Sender<String> {
    let (tx, mut rx) = mpsc::channel::<String>(256);
    let ws_url = format!("{}/ws", url.replacen("http", "ws", 1));
    let cookie = cookie.to_string();
    tokio::spawn(async move {
        let away = |why: &str| -> Arc<str> {
            error_frame(
                0,
                Code::Away,
                &format!("the server dealing this table {why}: reconnect in a moment"),
                None,
            )
            .into()
        };
        let upstream = async {
            let mut req = ws_url
                .as_str()
                .into_client_request()
                .map_err(|e| e.to_string())?;
            if !cookie.is_empty() {
                let v = cookie.parse().map_err(|_| "a bad cookie".to_string())?;
                req.headers_mut().insert("cookie", v);
            }
            tokio_tungstenite::connect_async(req)
                .await
                .map(|(ws, _)| ws)
                .map_err(|e| e.to_string())
        };
        let ws = match upstream.await {
            Ok(ws) => ws,
            Err(e) => {
                tracing::warn!(%ws_url, error = %e, "the relay cannot reach the table's server");
                let _ = out.send(away("cannot be reached")).await;
                ended.notify_one();
                return;
            }
        };
        let (mut up_tx, mut up_rx) = ws.split();
        if up_tx.send(Message::text(hello)).await.is_err() {
            let _ = out.send(away("went away")).await;
            ended.notify_one();
            return;
        }
        loop {
            tokio::select! {
                from_client = rx.recv() => match from_client {
                    Some(text) => {
                        if up_tx.send(Message::text(text)).await.is_err() {
                            let _ = out.send(away("went away")).await;
                            break;
                        }
                    }
                    // The client left.
                    None => {
                        let _ = up_tx.close().await;
                        break;
                    }
                },
                from_host = up_rx.next() => match from_host {
                    Some(Ok(Message::Text(t))) => {
                        if out.send(Arc::from(t.as_str())).await.is_err() {
                            let _ = up_tx.close().await;
                            break;
                        }
                    }
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                        let _ = out.send(away("went away")).await;
                        break;
                    }
                    Some(Ok(_)) => {}
                },
            }
        }
        ended.notify_one();
    });
    tx
}
