//! The launch by token (`felt serve --wallet`): the operator's launch link
//! `/?token=T&table=NAME` brings a player who logged in at the operator. felt calls
//! `authenticate`, keeps the operator's player as a login of its own (named by the
//! operator's player id, with no password: [`OPERATOR_PLAYER`]), opens a web session
//! for it and sends the browser on to the table's page, `/#/table/NAME` (the token
//! leaves the address bar). In wallet mode the page's registration, password log-in
//! of players and top-ups are refused ([`refused_in_wallet_mode`]).

use super::client::Outcome;
use super::wire::{Authenticate, RefusalCode};
use crate::app::{ApiError, Shared};
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use felt_store::{NewLogin, Role, StoreError};

/// The password hash of an operator's player: no password matches it (it is not a
/// hash), so such a login is opened only by a launch.
pub const OPERATOR_PLAYER: &str = "!operator-player";

/// The longest launch token taken.
const MAX_TOKEN: usize = 512;

/// `403 wallet-mode`: what the operator's wallet replaces is refused.
pub(crate) fn refused_in_wallet_mode(what: &str) -> Response {
    ApiError(
        StatusCode::FORBIDDEN,
        "wallet-mode",
        format!(
            "{what} is not offered here: the operator's site keeps the players' accounts and \
             money; come to the tables through the operator's launch link"
        ),
    )
    .into_response()
}

/// A launch link's query.
#[derive(serde::Deserialize)]
struct LaunchQuery {
    token: String,
    table: Option<String>,
}

/// The token and table of a launch link's query, if it is one.
fn launch_query(uri: &axum::http::Uri) -> Option<(String, Option<String>)> {
    let q = axum::extract::Query::<LaunchQuery>::try_from_uri(uri)
        .ok()?
        .0;
    Some((q.token, q.table))
}

/// In front of the page: a `GET /?token=...` in wallet mode is a launch; anything
/// else goes on.
pub(crate) async fn intercept(State(s): State<Shared>, req: Request, next: Next) -> Response {
    let link = (req.method() == Method::GET && req.uri().path() == "/")
        .then(|| launch_query(req.uri()))
        .flatten();
    match (link, s.wallet().is_some()) {
        (Some((token, table)), true) => match launch(&s, &token, table.as_deref()).await {
            Ok(r) | Err(r) => r,
        },
        _ => next.run(req).await,
    }
}

/// Authenticates `token` at the operator, opens the player's session, and sends the
/// browser to the table.
async fn launch(s: &Shared, token: &str, table: Option<&str>) -> Result<Response, Response> {
    let Some(wallet) = s.wallet() else {
        return Err(refused_in_wallet_mode("a launch"));
    };
    let refuse = |status, code, m: &str| ApiError(status, code, m.to_string()).into_response();
    if token.is_empty() || token.len() > MAX_TOKEN {
        let m = "the launch link's token is empty or too long";
        return Err(refuse(StatusCode::BAD_REQUEST, "bad-token", m));
    }
    if let Some(t) = table.filter(|t| s.table(t).is_none()) {
        let m = format!("there is no table `{t}`");
        return Err(refuse(StatusCode::NOT_FOUND, "no-table", &m));
    }
    let call = Authenticate {
        request_id: super::wire::request_id(),
        token: token.to_string(),
    };
    let who = match wallet.client.send(&call).await {
        Outcome::Answered(a) => a,
        Outcome::Refused(r) => {
            let status = match r.error {
                RefusalCode::PlayerBlocked => StatusCode::FORBIDDEN,
                _ => StatusCode::UNAUTHORIZED,
            };
            let m = format!("the operator refused the launch: {}", r.message);
            return Err(refuse(status, r.error.as_str(), &m));
        }
        Outcome::Lost(_) => {
            let m = "the operator's wallet did not answer: try the launch link again";
            return Err(refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "wallet-unavailable",
                m,
            ));
        }
    };
    // felt's player is named by the operator's player id, as the books keep names.
    let name = match felt_store::normalize_name("player", &who.player) {
        Ok(n) if n == who.player => n,
        _ => {
            let m = format!(
                "the operator's player id `{}` is not a name felt keeps as it is (lower-case \
                 letters, digits and dashes)",
                who.player.escape_debug()
            );
            return Err(refuse(StatusCode::BAD_GATEWAY, "bad-player-id", &m));
        }
    };
    wallet.balances.set(&name, who.balance.0);
    let (session, session_hash) = crate::auth::new_token();
    let now = s.now_ms();
    let (n, reality) = (name.clone(), s.reality().clone());
    let opened = s
        .books()
        .run(move |st| -> Result<(), StoreError> {
            match st.login(&n)? {
                Some(l) if l.password_hash != OPERATOR_PLAYER => {
                    return Err(StoreError::NameTaken { name: n.clone() })
                }
                Some(_) => {}
                None => st.create_login(&NewLogin {
                    name: &n,
                    password_hash: OPERATOR_PLAYER,
                    role: Role::Player,
                    starting_balance: felt_core::Money::ZERO,
                    now_ms: now,
                })?,
            }
            st.login_succeeded(&n, now)?;
            st.open_web_session(&session_hash, &n, now)?;
            // The session's figures and reality checks count from this launch.
            let first_round = st.next_round_id()?;
            reality.logged_in(st, &n, now, first_round)?;
            Ok(())
        })
        .await;
    match opened {
        Ok(()) => {}
        Err(StoreError::NameTaken { .. }) => {
            let m = format!("`{name}` is a player of this felt's own, not the operator's");
            return Err(refuse(StatusCode::CONFLICT, "name-taken", &m));
        }
        Err(e) => return Err(crate::app::store_error(e).into_response()),
    }
    tracing::info!(player = %name, "launched by the operator");
    let mut to = reqwest::Url::parse("http://felt/").map_err(|e| {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()).into_response()
    })?;
    to.set_fragment(table.map(|t| format!("/table/{t}")).as_deref());
    let to = match to.fragment() {
        Some(f) => format!("/#{f}"),
        None => "/".to_string(),
    };
    let age = (s.settings().idle_ms / 1000).max(60) as u64;
    Ok((
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, to),
            (
                header::SET_COOKIE,
                crate::auth::set_cookie(&session, age, s.secure()),
            ),
        ],
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_link_names_a_token_and_maybe_a_table() {
        let q = |s: &str| launch_query(&s.parse().unwrap());
        assert_eq!(
            q("/?token=lt-1&table=high%20rollers"),
            Some(("lt-1".into(), Some("high rollers".into())))
        );
        assert_eq!(q("/?table=t"), None);
        assert_eq!(q("/"), None);
        assert_eq!(q("/?token=x"), Some(("x".into(), None)));
    }
}
