//! Accounts over HTTP: `POST /api/register`, `/api/login`, `/api/logout` and `GET
//! /api/me`, under the [`crate::guard`]'s rules (throttled per client address, one
//! check-and-count at a time per account, the hashing bounded).

use crate::app::{store_error, who, ApiError, Shared};
use crate::auth;
use crate::guard::Busy;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use felt_core::Money;
use felt_store::{Account, NewLogin, Role, StoreError};
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::IpAddr;
use std::time::Duration;

/// The client's address (see [`crate::client`]).
pub(crate) struct ClientIp(pub IpAddr);

impl FromRequestParts<Shared> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, s: &Shared) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<crate::client::Peer>().copied();
        Ok(ClientIp(crate::client::address(
            peer,
            &parts.headers,
            &s.settings().trusted_proxies,
        )))
    }
}

/// The body of a registration or a log-in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Credentials {
    name: String,
    password: String,
}

/// The body of a registration: credentials, and the limits the player sets from the
/// start (optional; [`crate::limits`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Registration {
    name: String,
    password: String,
    #[serde(default)]
    limits: Vec<crate::limits_api::LimitAsk>,
}

/// `429 throttled`: this address has had its share; it may try again after `wait`.
pub(crate) fn throttled(wait: Duration, what: &str) -> Response {
    let secs = wait.as_secs().max(1);
    let mut r = ApiError(
        StatusCode::TOO_MANY_REQUESTS,
        "throttled",
        format!("too many {what} from this address: try again in {secs} second(s)"),
    )
    .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    r
}

/// `503 busy`: every hashing thread is taken and its queue full.
fn busy(_: Busy) -> Response {
    let mut r = ApiError(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        "the server is checking too many passwords at once: try again in a moment".to_string(),
    )
    .into_response();
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(1u64));
    r
}

fn session_response(s: &Shared, token: &str, status: StatusCode, body: Value) -> Response {
    let age = (s.settings().idle_ms / 1000).max(60) as u64;
    (
        status,
        [(header::SET_COOKIE, auth::set_cookie(token, age, s.secure()))],
        Json(body),
    )
        .into_response()
}

fn bad_body(e: JsonRejection) -> Response {
    ApiError(
        StatusCode::BAD_REQUEST,
        "bad-request",
        format!(
            "the body must be JSON {{\"name\": ..., \"password\": ...}}: {}",
            e.body_text()
        ),
    )
    .into_response()
}

/// `POST /api/register`.
pub(crate) async fn register(
    State(s): State<Shared>,
    ClientIp(ip): ClientIp,
    body: Result<Json<Registration>, JsonRejection>,
) -> Result<Response, Response> {
    if s.wallet().is_some() {
        return Err(crate::wallet::launch::refused_in_wallet_mode(
            "registration",
        ));
    }
    let Json(c) = body.map_err(bad_body)?;
    let asks = crate::limits_api::checked_asks(&c.limits).map_err(IntoResponse::into_response)?;
    let bad_name = |m: String| ApiError(StatusCode::BAD_REQUEST, "bad-name", m).into_response();
    let name =
        felt_store::normalize_name("player", &c.name).map_err(|e| bad_name(e.to_string()))?;
    if name.chars().count() > 32 {
        return Err(bad_name("a name has at most 32 characters".to_string()));
    }
    if let Some(p) = auth::password_problem(&name, &c.password) {
        return Err(ApiError(StatusCode::BAD_REQUEST, "bad-password", p).into_response());
    }
    s.guard()
        .begin_registration(ip)
        .map_err(|w| throttled(w, "registrations"))?;
    let _admitted = s.guard().admit().await.map_err(busy)?;
    let password = c.password;
    let hash = s
        .guard()
        .hasher()
        .run(move || auth::hash_password(&password))
        .await
        .map_err(busy)?
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "internal", e).into_response())?;
    let (token, token_hash) = auth::new_token();
    let start = s.settings().starting_balance;
    let n = name.clone();
    let now = s.now_ms();
    let reality = s.reality().clone();
    let made = s
        .books()
        .run(move |st| -> felt_store::Result<()> {
            st.create_login(&NewLogin {
                name: &n,
                password_hash: &hash,
                role: Role::Player,
                starting_balance: start,
                now_ms: now,
            })?;
            for l in crate::limits_api::changes_for(&[], &n, &asks, now) {
                st.append_limit_change(&l)?;
            }
            st.login_succeeded(&n, now)?;
            st.open_web_session(&token_hash, &n, now)?;
            let first_round = st.next_round_id()?;
            reality.logged_in(st, &n, now, first_round)?;
            Ok(())
        })
        .await;
    match made {
        Ok(()) => {
            tracing::info!(player = %name, %ip, "registered");
            Ok(session_response(
                &s,
                &token,
                StatusCode::CREATED,
                json!({
                    "player": name, "role": "player", "balance": start, "previous_login": null,
                    "help_line": s.settings().protection.help_line, "unfinished": [],
                }),
            ))
        }
        Err(StoreError::NameTaken { .. }) => Err(ApiError(
            StatusCode::CONFLICT,
            "name-taken",
            format!("the name `{name}` is taken: choose another"),
        )
        .into_response()),
        Err(e) => Err(store_error(e).into_response()),
    }
}

/// Why a password check refused.
pub(crate) enum Refusal {
    /// No such account, or the wrong password (counted).
    Wrong,
    /// Locked, busy, or the books failed: the answer to send as it is.
    Other(Response),
}

/// What a password check holds until its caller is done: the account's turn (one
/// check and count at a time per account) and the admission.
pub(crate) struct Held<'g> {
    _turn: tokio::sync::MutexGuard<'g, ()>,
    _admitted: tokio::sync::SemaphorePermit<'g>,
}

/// Checks `password` for the account `name` as a log-in does, once the address's
/// attempt is counted (`Guard::begin_login`): one check at a time per account, a
/// locked account refused with the right password too (N.J.A.C. 13:69O-1.4(i)), a
/// wrong one counted towards the lock; a right one gives the address's attempt back.
pub(crate) async fn check_password<'g>(
    s: &'g Shared,
    ip: std::net::IpAddr,
    name: &str,
    password: String,
) -> Result<(felt_store::Login, Held<'g>), Refusal> {
    let guard = s.guard();
    let admitted = guard.admit().await.map_err(|b| {
        guard.login_ok(ip); // not checked: not a failure
        Refusal::Other(busy(b))
    })?;
    // The account's check and count in one turn.
    let turn = guard.turn(name).await;
    let n = name.to_string();
    let login = s
        .books()
        .read_async(move |st| st.login(&n))
        .await
        .map_err(|e| Refusal::Other(store_error(e).into_response()))?;
    // A locked account is refused, the right password or not, checked in the
    // account's turn (parallel guesses cannot pass the count): counted as the
    // address's failure, so a guesser is throttled as before.
    if let Some(until) = login
        .as_ref()
        .and_then(|l| l.is_locked(s.now_ms()).then_some(l.locked_until_ms))
    {
        tracing::warn!(player = %name, %ip, "a log-in to a locked account");
        return Err(Refusal::Other(crate::lockout::refused(until)));
    }
    let hash = login.as_ref().map(|l| l.password_hash.clone());
    let checked = guard
        .hasher()
        .run(move || match hash {
            Some(h) => auth::verify_password(&password, &h),
            None => {
                auth::verify_nothing(&password);
                false
            }
        })
        .await;
    let ok = match checked {
        Ok(ok) => ok,
        Err(b) => {
            guard.login_ok(ip); // not checked: not a failure
            return Err(Refusal::Other(busy(b)));
        }
    };
    let Some(login) = login else {
        tracing::warn!(%ip, "a failed login (no such name)");
        return Err(Refusal::Wrong);
    };
    if !ok {
        let (n, now, policy) = (name.to_string(), s.now_ms(), s.settings().lock);
        let after = s
            .books()
            .run(move |st| st.login_failed(&n, now, policy))
            .await
            .map_err(|e| Refusal::Other(store_error(e).into_response()))?;
        tracing::warn!(player = %name, %ip, locked = after.is_locked(s.now_ms()), "a failed login");
        return Err(Refusal::Wrong);
    }
    guard.login_ok(ip);
    Ok((
        login,
        Held {
            _turn: turn,
            _admitted: admitted,
        },
    ))
}

/// `POST /api/login`: refused at once past the address's failures, and while the
/// account is locked by its own failures ([`crate::lockout`]).
pub(crate) async fn login(
    State(s): State<Shared>,
    ClientIp(ip): ClientIp,
    body: Result<Json<Credentials>, JsonRejection>,
) -> Result<Response, Response> {
    let Json(c) = body.map_err(bad_body)?;
    let refused = || {
        ApiError(
            StatusCode::UNAUTHORIZED,
            "bad-login",
            "the name or the password is wrong".to_string(),
        )
        .into_response()
    };
    let guard = s.guard();
    // Counted as a failure now, given back if it succeeds: parallel attempts cannot
    // all be checked before one is counted.
    guard
        .begin_login(ip)
        .map_err(|w| throttled(w, "failed log-ins"))?;
    let name = match felt_store::normalize_name("player", &c.name) {
        Ok(n) if c.password.len() <= auth::MAX_PASSWORD => n,
        _ => return Err(refused()),
    };
    let (login, held) = match check_password(&s, ip, &name, c.password).await {
        Ok(checked) => checked,
        Err(Refusal::Wrong) => return Err(refused()),
        Err(Refusal::Other(r)) => return Err(r),
    };
    // With the operator's wallet only its staff log in here; players come by launch.
    if s.wallet().is_some() && login.role == Role::Player {
        return Err(crate::wallet::launch::refused_in_wallet_mode(
            "a player's log-in",
        ));
    }
    let (token, token_hash) = auth::new_token();
    let n = name.clone();
    let now = s.now_ms();
    let reality = s.reality().clone();
    let created_ms = login.created_ms;
    let (previous, blocked, review) = s
        .books()
        .run(move |st| -> felt_store::Result<_> {
            let prev = st.login_succeeded(&n, now)?;
            st.open_web_session(&token_hash, &n, now)?;
            let blocked = crate::limits::exclusion(st, &n, now)?;
            let blocked = blocked.map(|e| crate::limits::exclusion_sentence(&e));
            let first_round = st.next_round_id()?;
            reality.logged_in(st, &n, now, first_round)?;
            let review = crate::limits::review_due(st, &n, created_ms, now)?;
            Ok((prev, blocked, review))
        })
        .await
        .map_err(|e| store_error(e).into_response())?;
    // A player's limits are reviewed every six months; staff have none.
    let review = review.filter(|_| login.role == Role::Player);
    drop(held);
    let unfinished = unfinished_of(&s, &name).await;
    tracing::info!(player = %name, %ip, "logged in");
    Ok(session_response(
        &s,
        &token,
        StatusCode::OK,
        json!({
            "player": name, "role": login.role, "previous_login": previous.map(iso),
            "help_line": s.settings().protection.help_line, "unfinished": unfinished,
            "blocked": blocked,
            "limits_review": review.map(|last| json!({ "last_reviewed": iso(last) })),
        }),
    ))
}

/// The player's unfinished rounds ([`crate::unfinished`]); none when the books cannot
/// say now (the log-in does not fail for it; the lobby's tables show the seat).
async fn unfinished_of(s: &Shared, player: &str) -> Vec<crate::unfinished::Unfinished> {
    let (p, server) = (player.to_string(), s.clone());
    s.books()
        .read_async(move |st| {
            crate::unfinished::of_player(st, &p, |id| server.table_name_of(id))
                .map_err(|e| e.to_string())
        })
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the player's unfinished rounds cannot be read");
            Vec::new()
        })
}

/// Milliseconds since the epoch as an RFC 3339 UTC time (to the second).
pub(crate) fn iso(ms: i64) -> String {
    use time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default()
}

/// `POST /api/logout`.
pub(crate) async fn logout(State(s): State<Shared>, headers: HeaderMap) -> Response {
    if let Some(hash) = auth::session_hash(&headers) {
        // Every table socket of the session closes with it.
        s.sockets().close_session(&hash, "you logged out");
        let (life, now) = (crate::app::life(&s), s.now_ms());
        let closed = s
            .books()
            .run(move |st| -> felt_store::Result<()> {
                // The session's logged-in time is counted before it closes.
                if let Some(w) = st.web_session(&hash)? {
                    crate::logged_in::record(st, &w.name, life, now)?;
                }
                st.close_web_session(&hash)
            })
            .await;
        if let Err(e) = closed {
            return store_error(e).into_response();
        }
    }
    (
        StatusCode::NO_CONTENT,
        [(header::SET_COOKIE, auth::clear_cookie(s.secure()))],
    )
        .into_response()
}

/// `GET /api/me`.
pub(crate) async fn me(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    let w = who(&s, &headers).await?;
    let n = w.name.clone();
    let (balance, last, top_up) = s
        .books()
        .read_async(
            move |st| -> felt_store::Result<(Money, Option<i64>, Option<String>)> {
                let b = st.balance(&Account::player(n.clone()))?;
                let l = st.login(&n)?.and_then(|l| l.last_login_ms);
                let t = st.last_deposit(&n, crate::topup::MEMO)?.map(|m| m.at);
                Ok((b, l, t))
            },
        )
        .await
        .map_err(store_error)?;
    let mut top_up = crate::topup::offer(s.settings().top_up, top_up.as_deref(), s.now_ms());
    // With the operator's wallet: its balance, and no top-up.
    let balance = match s.wallet() {
        Some(wallet) => {
            top_up = Value::Null;
            wallet.balances.get(&w.name).unwrap_or(balance)
        }
        None => balance,
    };
    Ok(Json(json!({
        "player": w.name, "role": w.role, "balance": balance, "last_login": last.map(iso),
        "top_up": top_up, "operator_wallet": s.wallet().is_some(),
    }))
    .into_response())
}
