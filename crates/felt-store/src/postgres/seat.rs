//! Seat locks of PostgreSQL books: one playing session per player, as session-level
//! advisory locks (the equivalent of the lock files beside an SQLite file, see
//! [`crate::SeatLocks`]).
//!
//! The locks live on a connection of their own and are the server's to free: when the
//! [`PgSeatLocks`] is dropped, when its process ends in any way (the connection closes),
//! or when the connection is lost. The holder's connection says its process id in its
//! `application_name`, so a refused session can say which process holds the seat.

use super::conn::close_off_thread;
use super::error::{classify, Fail, R};
use super::{connect, location_of};
use crate::error::{Result, StoreError};
use ::postgres::Client;
use sha2::{Digest, Sha256};

/// The seats a session holds at PostgreSQL books; dropping it (or ending the process)
/// frees them.
pub struct PgSeatLocks {
    client: Option<Client>,
    location: String,
    held: usize,
}

impl std::fmt::Debug for PgSeatLocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgSeatLocks")
            .field("location", &self.location)
            .field("held", &self.held)
            .finish()
    }
}

/// The advisory lock key of `player`'s seat (a hash of the canonical name).
pub fn seat_key(player: &str) -> i64 {
    let mut h = Sha256::new();
    h.update(b"felt seat\0");
    h.update(player.as_bytes());
    let d = h.finalize();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&d[..8]);
    i64::from_be_bytes(bytes)
}

impl PgSeatLocks {
    /// Takes the seats of `players` at the books at `url`, or fails with
    /// [`StoreError::SeatInUse`] naming the first player (in name order) whose seat
    /// another session holds, and its process id when the holder said it. Never waits.
    /// A failed call holds nothing. Names are taken in their canonical form
    /// ([`crate::normalize_name`]).
    pub fn acquire(url: &str, players: &[String]) -> Result<PgSeatLocks> {
        let location = location_of(url);
        let names = crate::seat::seat_names(players)?;
        let app = format!("felt seats (pid {})", std::process::id());
        let mut client = connect(url, &location, &app)?;
        for name in &names {
            match try_lock(&mut client, name) {
                Ok(true) => {}
                Ok(false) => {
                    let pid = holder_pid(&mut client, name).ok().flatten();
                    close_off_thread(client, true);
                    return Err(StoreError::SeatInUse {
                        player: name.clone(),
                        books: location,
                        pid,
                    });
                }
                Err(e) => {
                    close_off_thread(client, true);
                    return Err(classify(&location, 0, e, false));
                }
            }
        }
        Ok(PgSeatLocks {
            client: Some(client),
            location,
            held: names.len(),
        })
    }

    /// How many seats are held.
    pub fn len(&self) -> usize {
        self.held
    }

    /// Whether no seat is held.
    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// Checks that the seats are still held: an error once the connection that holds
    /// them is lost (the database server restarted), after which another session may
    /// take them.
    pub fn check(&mut self) -> Result<()> {
        let Some(client) = self.client.as_mut() else {
            return Err(StoreError::Unavailable {
                location: self.location.clone(),
                detail: "the connection holding the seats was lost: they are free".to_string(),
            });
        };
        match client.simple_query("SELECT 1") {
            Ok(_) => Ok(()),
            Err(e) => {
                if let Some(c) = self.client.take() {
                    close_off_thread(c, false);
                }
                Err(classify(&self.location, 0, Fail::Pg(e), false))
            }
        }
    }
}

fn try_lock(client: &mut Client, name: &str) -> R<bool> {
    let row = client.query_one("SELECT pg_try_advisory_lock($1)", &[&seat_key(name)])?;
    row.try_get(0).map_err(Fail::Pg)
}

/// The process id the holder of `name`'s seat wrote in its application name.
fn holder_pid(client: &mut Client, name: &str) -> R<Option<u32>> {
    let key = seat_key(name).to_be_bytes();
    let high = u32::from_be_bytes([key[0], key[1], key[2], key[3]]);
    let low = u32::from_be_bytes([key[4], key[5], key[6], key[7]]);
    let rows = client.query(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 \
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
         AND l.classid = $1 AND l.objid = $2",
        &[&high, &low],
    )?;
    let app: Option<String> = match rows.first() {
        Some(r) => r.try_get(0).map_err(Fail::Pg)?,
        None => None,
    };
    Ok(app.and_then(|a| {
        let pid = a.split("(pid ").nth(1)?.split(')').next()?;
        pid.trim().parse().ok()
    }))
}

impl Drop for PgSeatLocks {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            close_off_thread(c, true);
        }
    }
}
