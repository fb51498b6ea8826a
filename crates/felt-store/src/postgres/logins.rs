//! Logins and web sessions in PostgreSQL (schema 3).

use super::conn::{get, Conn};
use super::error::{damaged, R};
use crate::error::StoreError;
use crate::login::{LockPolicy, Login, NewLogin, Role, WebSession};
use ::postgres::Row;

const LOGIN_COLUMNS: &str =
    "name, password_hash, role, created_ms, last_login_ms, failed_logins, locked_until_ms";

fn login_row(r: &Row) -> R<Login> {
    let name: String = get(r, 0)?;
    let role: String = get(r, 2)?;
    let role =
        Role::parse(&role).ok_or_else(|| damaged(format!("login `{name}` has role `{role}`")))?;
    Ok(Login {
        name,
        password_hash: get(r, 1)?,
        role,
        created_ms: get(r, 3)?,
        last_login_ms: get(r, 4)?,
        failed_logins: get::<i64>(r, 5)?.clamp(0, i64::from(u32::MAX)) as u32,
        locked_until_ms: get(r, 6)?,
    })
}

/// The login of `name`; `lock`: locked for the rest of the transaction (a write).
fn find(c: &mut Conn, name: &str, lock: bool) -> R<Option<Login>> {
    let sql = if lock {
        format!("SELECT {LOGIN_COLUMNS} FROM logins WHERE name = $1 FOR UPDATE")
    } else {
        format!("SELECT {LOGIN_COLUMNS} FROM logins WHERE name = $1")
    };
    c.opt(&sql, &[&name])?.map(|r| login_row(&r)).transpose()
}

/// The login of `name`.
pub(crate) fn login(c: &mut Conn, name: &str) -> R<Option<Login>> {
    find(c, name, false)
}

fn unknown(name: &str) -> StoreError {
    StoreError::UnknownLogin {
        name: name.to_string(),
    }
}

/// Makes a login; refused if the name is taken (by a login or by a wallet the books
/// already know, so nobody takes over another player's money).
pub(crate) fn create(c: &mut Conn, new: &NewLogin<'_>) -> R<()> {
    let taken = || StoreError::NameTaken {
        name: new.name.to_string(),
    };
    if login(c, new.name)?.is_some() {
        return Err(taken().into());
    }
    if c.opt(
        "SELECT id FROM accounts WHERE kind = 'player' AND name = $1",
        &[&new.name],
    )?
    .is_some()
    {
        return Err(taken().into());
    }
    // Another server may make the same login at this instant: then it is taken.
    let made = c.exec(
        "INSERT INTO logins (name, password_hash, role, created_ms, failed_logins) \
         VALUES ($1, $2, $3, $4, 0) ON CONFLICT (name) DO NOTHING",
        &[
            &new.name,
            &new.password_hash,
            &new.role.as_str(),
            &new.now_ms,
        ],
    )?;
    if made == 0 {
        return Err(taken().into());
    }
    Ok(())
}

/// A successful login: the failures are forgotten, the time kept; returns the previous
/// successful login's time.
pub(crate) fn succeeded(c: &mut Conn, name: &str, now_ms: i64) -> R<Option<i64>> {
    let before = find(c, name, true)?.ok_or_else(|| unknown(name))?;
    c.exec(
        "UPDATE logins SET last_login_ms = $2, failed_logins = 0, locked_until_ms = NULL \
         WHERE name = $1",
        &[&name, &now_ms],
    )?;
    Ok(before.last_login_ms)
}

/// An operator lifts a login's lock: the failures are forgotten. Returns the end of
/// the lock it had.
pub(crate) fn unlock(c: &mut Conn, name: &str) -> R<Option<i64>> {
    let before = find(c, name, true)?.ok_or_else(|| unknown(name))?;
    c.exec(
        "UPDATE logins SET failed_logins = 0, locked_until_ms = NULL WHERE name = $1",
        &[&name],
    )?;
    Ok(before.locked_until_ms)
}

/// A failed attempt: counted; at `policy.after` in a row the login is locked for
/// `policy.for_ms` (and the count starts again). Returns the login as it now stands.
pub(crate) fn failed(c: &mut Conn, name: &str, now_ms: i64, policy: LockPolicy) -> R<Login> {
    let before = find(c, name, true)?.ok_or_else(|| unknown(name))?;
    let failures = before.failed_logins.saturating_add(1);
    let (failures, locked) = if failures >= policy.after.max(1) {
        (0, Some(now_ms.saturating_add(policy.for_ms)))
    } else {
        (failures, before.locked_until_ms)
    };
    c.exec(
        "UPDATE logins SET failed_logins = $2, locked_until_ms = $3 WHERE name = $1",
        &[&name, &i64::from(failures), &locked],
    )?;
    login(c, name)?.ok_or_else(|| damaged(format!("login `{name}` vanished")))
}

/// Sets a login's password hash and role.
pub(crate) fn set(c: &mut Conn, name: &str, hash: &str, role: Role) -> R<()> {
    let n = c.exec(
        "UPDATE logins SET password_hash = $2, role = $3 WHERE name = $1",
        &[&name, &hash, &role.as_str()],
    )?;
    if n == 0 {
        return Err(unknown(name).into());
    }
    Ok(())
}

/// Opens a web session for a login.
pub(crate) fn open_session(c: &mut Conn, token_sha256: &str, name: &str, now_ms: i64) -> R<()> {
    if find(c, name, false)?.is_none() {
        return Err(unknown(name).into());
    }
    c.exec(
        "INSERT INTO web_sessions (token_sha256, name, created_ms, last_seen_ms) \
         VALUES ($1, $2, $3, $3)",
        &[&token_sha256, &name, &now_ms],
    )?;
    Ok(())
}

/// The session a token's hash stands for.
pub(crate) fn session(c: &mut Conn, token_sha256: &str) -> R<Option<WebSession>> {
    let Some(r) = c.opt(
        "SELECT s.name, l.role, s.created_ms, s.last_seen_ms FROM web_sessions s \
         JOIN logins l ON l.name = s.name WHERE s.token_sha256 = $1",
        &[&token_sha256],
    )?
    else {
        return Ok(None);
    };
    let name: String = get(&r, 0)?;
    let role: String = get(&r, 1)?;
    let role =
        Role::parse(&role).ok_or_else(|| damaged(format!("login `{name}` has role `{role}`")))?;
    Ok(Some(WebSession {
        name,
        role,
        created_ms: get(&r, 2)?,
        last_seen_ms: get(&r, 3)?,
    }))
}

/// Marks a session used now.
pub(crate) fn touch_session(c: &mut Conn, token_sha256: &str, now_ms: i64) -> R<()> {
    c.exec(
        "UPDATE web_sessions SET last_seen_ms = $2 WHERE token_sha256 = $1",
        &[&token_sha256, &now_ms],
    )?;
    Ok(())
}

/// Every session of a login in the books.
pub(crate) fn sessions_of(c: &mut Conn, name: &str) -> R<Vec<WebSession>> {
    let rows = c.query(
        "SELECT s.name, l.role, s.created_ms, s.last_seen_ms FROM web_sessions s \
         JOIN logins l ON l.name = s.name WHERE s.name = $1 ORDER BY s.created_ms",
        &[&name],
    )?;
    let mut out = Vec::new();
    for r in &rows {
        let name: String = get(r, 0)?;
        let role: String = get(r, 1)?;
        let role = Role::parse(&role)
            .ok_or_else(|| damaged(format!("login `{name}` has role `{role}`")))?;
        out.push(WebSession {
            name,
            role,
            created_ms: get(r, 2)?,
            last_seen_ms: get(r, 3)?,
        });
    }
    Ok(out)
}

/// Ends every session of a login but `keep`; how many.
pub(crate) fn close_sessions_of(c: &mut Conn, name: &str, keep: Option<&str>) -> R<u64> {
    c.exec(
        "DELETE FROM web_sessions WHERE name = $1 AND ($2::text IS NULL OR token_sha256 <> $2)",
        &[&name, &keep],
    )
}

/// Ends a session (log out, or timed out).
pub(crate) fn close_session(c: &mut Conn, token_sha256: &str) -> R<()> {
    c.exec(
        "DELETE FROM web_sessions WHERE token_sha256 = $1",
        &[&token_sha256],
    )?;
    Ok(())
}
