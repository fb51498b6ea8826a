//! Which tables this server deals. Every server of a casino reads the same tables file;
//! each table is dealt by one server at a time, the one holding its lease in the
//! books. A server renews its leases every [`Hosting::renew`] and claims, at the same
//! time, every table whose lease is free or expired: so a server that dies loses its
//! tables within one lease ([`Hosting::lease`]) and another live server deals them,
//! resuming each unfinished round from the books. The books refuse a round's step from
//! a server that no longer holds the table's lease (a fence), so a server that was
//! only slow, not dead, cannot write over its successor.

use felt_store::TableLease;
use std::collections::BTreeMap;
use std::sync::RwLock;
use std::time::Duration;

/// How this server takes part in hosting.
#[derive(Debug, Clone)]
pub struct Hosting {
    /// This server's name in the leases (stable across restarts: a restarted server
    /// takes its own tables back at once).
    pub server: String,
    /// Where clients reach this server (`http://host:port`), shown in the lobby.
    pub url: String,
    /// A lease's length: a dead server's tables move after at most this long.
    pub lease: Duration,
    /// How often leases are renewed and free tables claimed.
    pub renew: Duration,
}

impl Hosting {
    /// A server named `server`, reached at `url`, with 5 s leases renewed each second.
    pub fn new(server: impl Into<String>, url: impl Into<String>) -> Hosting {
        Hosting {
            server: server.into(),
            url: url.into(),
            lease: Duration::from_secs(5),
            renew: Duration::from_secs(1),
        }
    }

    /// The lease in milliseconds.
    pub fn lease_ms(&self) -> i64 {
        i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX)
    }
}

/// Where each table is dealt, as the books said at the last renewal.
#[derive(Debug, Default)]
pub struct Hosts {
    by_table: RwLock<BTreeMap<String, TableLease>>,
}

impl Hosts {
    /// Replaces what is known; returns whether anything changed (a table moved).
    pub fn set(&self, leases: Vec<TableLease>) -> bool {
        let next: BTreeMap<String, TableLease> =
            leases.into_iter().map(|l| (l.table.clone(), l)).collect();
        let mut g = self.by_table.write().unwrap_or_else(|p| p.into_inner());
        let changed = g.len() != next.len()
            || g.iter().zip(next.iter()).any(|((a, la), (b, lb))| {
                a != b || la.server != lb.server || la.live != lb.live || la.url != lb.url
            });
        *g = next;
        changed
    }

    /// The lease of the books' table `table_id`, if any.
    pub fn get(&self, table_id: &str) -> Option<TableLease> {
        self.by_table
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(table_id)
            .cloned()
    }
}
