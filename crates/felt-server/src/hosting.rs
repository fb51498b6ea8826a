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
    /// Replaces what is known; returns whether anything changed (a table moved, or its
    /// host said something new of it).
    pub fn set(&self, leases: Vec<TableLease>) -> bool {
        let next: BTreeMap<String, TableLease> =
            leases.into_iter().map(|l| (l.table.clone(), l)).collect();
        let mut g = self.by_table.write().unwrap_or_else(|p| p.into_inner());
        let changed = g.len() != next.len()
            || g.iter().zip(next.iter()).any(|((a, la), (b, lb))| {
                a != b
                    || la.server != lb.server
                    || la.live != lb.live
                    || la.url != lb.url
                    || la.status != lb.status
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

/// The lease rows that announce a live server (claimed with its tables each renewal),
/// so that each server knows how many share the tables.
pub const PRESENCE: &str = "presence/";

/// What one renewal claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The lease ids to claim: this server's presence, the tables it holds, and free
    /// tables up to its share.
    pub claim: Vec<String>,
    /// This server's share of the tables: the tables divided by the live servers,
    /// rounded up.
    pub share: usize,
}

/// The renewal of server `me`, given every lease: it renews what it holds and claims
/// free (unleased or expired) tables while it holds fewer than its share, so tables
/// spread over the live servers, and a dead server's tables go to the others.
pub fn plan(me: &str, tables: &[String], leases: &[TableLease]) -> Plan {
    let mut servers: Vec<&str> = leases
        .iter()
        .filter(|l| l.live && l.table.starts_with(PRESENCE))
        .map(|l| l.server.as_str())
        .chain(std::iter::once(me))
        .collect();
    servers.sort_unstable();
    servers.dedup();
    let share = tables.len().div_ceil(servers.len().max(1));
    let holder = |t: &str| leases.iter().find(|l| l.table == t);
    let mine: Vec<String> = tables
        .iter()
        .filter(|t| holder(t).is_some_and(|l| l.server == me))
        .cloned()
        .collect();
    let free = tables
        .iter()
        .filter(|t| holder(t).is_none_or(|l| !l.live && l.server != me))
        .take(share.saturating_sub(mine.len()))
        .cloned();
    let mut claim = vec![format!("{PRESENCE}{me}")];
    claim.extend(mine.iter().cloned());
    claim.extend(free);
    Plan { claim, share }
}

/// The leases of tables, without the servers' presence rows.
pub fn tables_only(leases: Vec<TableLease>) -> Vec<TableLease> {
    leases
        .into_iter()
        .filter(|l| !l.table.starts_with(PRESENCE))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(table: &str, server: &str, live: bool) -> TableLease {
        TableLease {
            table: table.into(),
            server: server.into(),
            url: format!("http://{server}"),
            epoch: 1,
            expires_ms: 0,
            live,
            status: None,
        }
    }

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("online/t{i}")).collect()
    }

    #[test]
    fn a_lone_server_claims_every_table() {
        let p = plan("a", &names(6), &[]);
        assert_eq!(p.share, 6);
        assert_eq!(p.claim.len(), 7);
        assert_eq!(p.claim[0], "presence/a");
    }

    #[test]
    fn servers_share_the_tables_and_take_a_dead_servers_tables() {
        let tables = names(6);
        // b and c are live and hold two tables each; a has just started.
        let mut leases = vec![
            lease("presence/b", "b", true),
            lease("presence/c", "c", true),
            lease("online/t1", "b", true),
            lease("online/t2", "b", true),
            lease("online/t3", "c", true),
            lease("online/t4", "c", true),
        ];
        let p = plan("a", &tables, &leases);
        assert_eq!(p.share, 2);
        assert_eq!(p.claim, ["presence/a", "online/t5", "online/t6"]);
        // b dies: its presence and leases lapse; c (two tables, share 3 of 6 over two
        // live servers) claims one of them, a the other.
        for l in &mut leases {
            if l.server == "b" {
                l.live = false;
            }
        }
        leases.push(lease("presence/a", "a", true));
        leases.push(lease("online/t5", "a", true));
        leases.push(lease("online/t6", "a", true));
        let c = plan("c", &tables, &leases);
        assert_eq!(c.share, 3);
        assert_eq!(
            c.claim,
            ["presence/c", "online/t3", "online/t4", "online/t1"]
        );
        let a = plan("a", &tables, &leases);
        assert_eq!(
            a.claim,
            ["presence/a", "online/t5", "online/t6", "online/t1"]
        );
    }

    #[test]
    fn a_server_renews_what_it_holds_even_above_its_share() {
        let tables = names(4);
        let leases = vec![
            lease("presence/b", "b", true),
            lease("online/t1", "a", true),
            lease("online/t2", "a", true),
            lease("online/t3", "a", true),
        ];
        let p = plan("a", &tables, &leases);
        assert_eq!(p.share, 2);
        assert_eq!(
            p.claim,
            ["presence/a", "online/t1", "online/t2", "online/t3"]
        );
    }
}
