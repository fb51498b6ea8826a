//! Logins and web sessions in SQLite (schema 3).

use super::{damaged, R};
use crate::error::StoreError;
use crate::login::{LockPolicy, Login, NewLogin, Role, WebSession};
use rusqlite::{params, Connection, OptionalExtension, Row};

const LOGIN_COLUMNS: &str =
    "name, password_hash, role, created_ms, last_login_ms, failed_logins, locked_until_ms";

fn login_row(r: &Row<'_>) -> rusqlite::Result<(Login, String)> {
    let role: String = r.get(2)?;
    Ok((
        Login {
            name: r.get(0)?,
            password_hash: r.get(1)?,
            role: Role::Player,
            created_ms: r.get(3)?,
            last_login_ms: r.get(4)?,
            failed_logins: r.get::<_, i64>(5)?.clamp(0, i64::from(u32::MAX)) as u32,
            locked_until_ms: r.get(6)?,
        },
        role,
    ))
}

fn with_role((mut login, role): (Login, String)) -> R<Login> {
    login.role = Role::parse(&role)
        .ok_or_else(|| damaged(format!("login `{}` has role `{role}`", login.name)))?;
    Ok(login)
}

/// The login of `name`.
pub(crate) fn login(c: &Connection, name: &str) -> R<Option<Login>> {
    let found = c
        .prepare_cached(&format!(
            "SELECT {LOGIN_COLUMNS} FROM logins WHERE name = ?1"
        ))?
        .query_row([name], login_row)
        .optional()?;
    found.map(with_role).transpose()
}

/// Makes a login; refused if the name is taken (by a login or by a wallet the books
/// already know, so nobody takes over another player's money).
pub(crate) fn create(c: &Connection, new: &NewLogin<'_>) -> R<()> {
    if login(c, new.name)?.is_some() {
        return Err(StoreError::NameTaken {
            name: new.name.to_string(),
        }
        .into());
    }
    let wallet: Option<i64> = c
        .query_row(
            "SELECT id FROM accounts WHERE kind = 'player' AND name = ?1",
            [new.name],
            |r| r.get(0),
        )
        .optional()?;
    if wallet.is_some() {
        return Err(StoreError::NameTaken {
            name: new.name.to_string(),
        }
        .into());
    }
    c.prepare_cached(
        "INSERT INTO logins (name, password_hash, role, created_ms, failed_logins) \
         VALUES (?1, ?2, ?3, ?4, 0)",
    )?
    .execute(params![
        new.name,
        new.password_hash,
        new.role.as_str(),
        new.now_ms
    ])?;
    Ok(())
}

/// A successful login: the failures are forgotten, the time kept; returns the previous
/// successful login's time.
pub(crate) fn succeeded(c: &Connection, name: &str, now_ms: i64) -> R<Option<i64>> {
    let before = login(c, name)?.ok_or_else(|| StoreError::UnknownLogin {
        name: name.to_string(),
    })?;
    c.prepare_cached(
        "UPDATE logins SET last_login_ms = ?2, failed_logins = 0, locked_until_ms = NULL \
         WHERE name = ?1",
    )?
    .execute(params![name, now_ms])?;
    Ok(before.last_login_ms)
}

/// An operator lifts a login's lock: the failures are forgotten. Returns the end of
/// the lock it had.
pub(crate) fn unlock(c: &Connection, name: &str) -> R<Option<i64>> {
    let before = login(c, name)?.ok_or_else(|| StoreError::UnknownLogin {
        name: name.to_string(),
    })?;
    c.prepare_cached(
        "UPDATE logins SET failed_logins = 0, locked_until_ms = NULL WHERE name = ?1",
    )?
    .execute([name])?;
    Ok(before.locked_until_ms)
}

/// A failed attempt: counted; at `policy.after` in a row the login is locked for
/// `policy.for_ms` (and the count starts again). Returns the login as it now stands.
pub(crate) fn failed(c: &Connection, name: &str, now_ms: i64, policy: LockPolicy) -> R<Login> {
    let before = login(c, name)?.ok_or_else(|| StoreError::UnknownLogin {
        name: name.to_string(),
    })?;
    let failures = before.failed_logins.saturating_add(1);
    let (failures, locked) = if failures >= policy.after.max(1) {
        (0, Some(now_ms.saturating_add(policy.for_ms)))
    } else {
        (failures, before.locked_until_ms)
    };
    c.prepare_cached("UPDATE logins SET failed_logins = ?2, locked_until_ms = ?3 WHERE name = ?1")?
        .execute(params![name, i64::from(failures), locked])?;
    login(c, name)?.ok_or_else(|| damaged(format!("login `{name}` vanished")))
}

/// Sets a login's password hash and role.
pub(crate) fn set(c: &Connection, name: &str, hash: &str, role: Role) -> R<()> {
    let n = c
        .prepare_cached("UPDATE logins SET password_hash = ?2, role = ?3 WHERE name = ?1")?
        .execute(params![name, hash, role.as_str()])?;
    if n == 0 {
        return Err(StoreError::UnknownLogin {
            name: name.to_string(),
        }
        .into());
    }
    Ok(())
}

/// Opens a web session for a login.
pub(crate) fn open_session(c: &Connection, token_sha256: &str, name: &str, now_ms: i64) -> R<()> {
    if login(c, name)?.is_none() {
        return Err(StoreError::UnknownLogin {
            name: name.to_string(),
        }
        .into());
    }
    c.prepare_cached(
        "INSERT INTO web_sessions (token_sha256, name, created_ms, last_seen_ms) \
         VALUES (?1, ?2, ?3, ?3)",
    )?
    .execute(params![token_sha256, name, now_ms])?;
    Ok(())
}

/// The session a token's hash stands for.
pub(crate) fn session(c: &Connection, token_sha256: &str) -> R<Option<WebSession>> {
    let found = c
        .prepare_cached(
            "SELECT s.name, l.role, s.created_ms, s.last_seen_ms FROM web_sessions s \
             JOIN logins l ON l.name = s.name WHERE s.token_sha256 = ?1",
        )?
        .query_row([token_sha256], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })
        .optional()?;
    found
        .map(|(name, role, created_ms, last_seen_ms)| {
            let role = Role::parse(&role)
                .ok_or_else(|| damaged(format!("login `{name}` has role `{role}`")))?;
            Ok(WebSession {
                name,
                role,
                created_ms,
                last_seen_ms,
            })
        })
        .transpose()
}

/// Marks a session used now.
pub(crate) fn touch_session(c: &Connection, token_sha256: &str, now_ms: i64) -> R<()> {
    c.prepare_cached("UPDATE web_sessions SET last_seen_ms = ?2 WHERE token_sha256 = ?1")?
        .execute(params![token_sha256, now_ms])?;
    Ok(())
}

/// Every session of a login in the books.
pub(crate) fn sessions_of(c: &Connection, name: &str) -> R<Vec<WebSession>> {
    let mut st = c.prepare_cached(
        "SELECT s.name, l.role, s.created_ms, s.last_seen_ms FROM web_sessions s \
         JOIN logins l ON l.name = s.name WHERE s.name = ?1 ORDER BY s.created_ms",
    )?;
    let rows = st.query_map([name], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (name, role, created_ms, last_seen_ms) = row?;
        let role = Role::parse(&role)
            .ok_or_else(|| damaged(format!("login `{name}` has role `{role}`")))?;
        out.push(WebSession {
            name,
            role,
            created_ms,
            last_seen_ms,
        });
    }
    Ok(out)
}

/// Ends every session of a login but `keep`; how many.
pub(crate) fn close_sessions_of(c: &Connection, name: &str, keep: Option<&str>) -> R<u64> {
    let n = c
        .prepare_cached(
            "DELETE FROM web_sessions WHERE name = ?1 AND (?2 IS NULL OR token_sha256 <> ?2)",
        )?
        .execute(params![name, keep])?;
    Ok(n as u64)
}

/// Ends a session (log out, or timed out).
pub(crate) fn close_session(c: &Connection, token_sha256: &str) -> R<()> {
    c.prepare_cached("DELETE FROM web_sessions WHERE token_sha256 = ?1")?
        .execute([token_sha256])?;
    Ok(())
}
