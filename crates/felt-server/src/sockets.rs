//! The table sockets open on this server, by account and by address: how many each
//! may open, a rate limit that an account's sockets share, and closing every socket
//! of a session when it ends (log-out, expiry, an operator's exclusion).
//!
//! A socket holds a [`Permit`] for as long as it is open; dropping the permit frees
//! its place. Everything here is bounded by the number of open sockets, which is
//! itself capped.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;
use tokio::sync::watch;

/// How many table sockets may be open, and how fast an account may send.
#[derive(Debug, Clone, Copy)]
pub struct SocketLimits {
    /// Sockets one account may hold open at once (tabs, devices).
    pub per_account: usize,
    /// Sockets one client address may hold open at once.
    pub per_address: usize,
    /// Sockets the server holds open at once.
    pub total: usize,
    /// Messages an account's sockets may send per second together (sustained).
    pub account_rate_per_s: f64,
    /// The account's burst.
    pub account_burst: f64,
}

impl Default for SocketLimits {
    fn default() -> SocketLimits {
        SocketLimits {
            per_account: 8,
            per_address: 64,
            total: 4096,
            account_rate_per_s: 20.0,
            account_burst: 40.0,
        }
    }
}

/// Why a socket is not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TooMany {
    /// The account holds its most sockets.
    Account(usize),
    /// The address holds its most sockets.
    Address(usize),
    /// The server holds its most sockets.
    Server,
}

impl std::fmt::Display for TooMany {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TooMany::Account(n) => write!(
                f,
                "this account has {n} table connections open already: close a tab first"
            ),
            TooMany::Address(n) => write!(
                f,
                "{n} table connections are open from this address already: close some first"
            ),
            TooMany::Server => write!(f, "the server is full: try again in a minute"),
        }
    }
}

/// A token bucket.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn full(burst: f64) -> Bucket {
        Bucket {
            tokens: burst,
            last: Instant::now(),
        }
    }

    /// Takes a token if there is one, refilled at `rate` per second up to `burst`.
    fn take(&mut self, rate: f64, burst: f64) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * rate).min(burst);
        self.last = now;
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }
}

/// One open socket, as the registry knows it.
struct Open {
    account: String,
    session: String,
    addr: Option<IpAddr>,
    close: watch::Sender<Option<Arc<str>>>,
}

#[derive(Default)]
struct Registry {
    open: HashMap<u64, Open>,
    /// Per account: its open sockets and its shared bucket.
    accounts: HashMap<String, (usize, Bucket)>,
    addresses: HashMap<IpAddr, usize>,
}

/// The open table sockets.
pub struct Sockets {
    limits: SocketLimits,
    registry: Mutex<Registry>,
}

/// A socket's place among the open ones; dropping it frees the place.
pub struct Permit {
    sockets: Arc<Sockets>,
    conn: u64,
    /// Changes to `Some(reason)` when the socket must close.
    pub closed: watch::Receiver<Option<Arc<str>>>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.sockets.release(self.conn);
    }
}

impl Sockets {
    /// No socket open yet.
    pub fn new(limits: SocketLimits) -> Arc<Sockets> {
        Arc::new(Sockets {
            limits,
            registry: Mutex::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens socket `conn` of `account`'s session `session` (the token's hash) from
    /// `addr`, or says which cap it would pass.
    pub fn open(
        self: &Arc<Self>,
        conn: u64,
        account: &str,
        session: &str,
        addr: Option<IpAddr>,
    ) -> Result<Permit, TooMany> {
        let l = self.limits;
        let mut r = self.lock();
        if r.open.len() >= l.total {
            return Err(TooMany::Server);
        }
        if r.accounts
            .get(account)
            .is_some_and(|a| a.0 >= l.per_account)
        {
            return Err(TooMany::Account(l.per_account));
        }
        if let Some(a) = addr {
            if r.addresses.get(&a).is_some_and(|n| *n >= l.per_address) {
                return Err(TooMany::Address(l.per_address));
            }
            *r.addresses.entry(a).or_default() += 1;
        }
        r.accounts
            .entry(account.to_string())
            .or_insert_with(|| (0, Bucket::full(l.account_burst)))
            .0 += 1;
        let (close, closed) = watch::channel(None);
        r.open.insert(
            conn,
            Open {
                account: account.to_string(),
                session: session.to_string(),
                addr,
                close,
            },
        );
        Ok(Permit {
            sockets: self.clone(),
            conn,
            closed,
        })
    }

    fn release(&self, conn: u64) {
        let mut r = self.lock();
        let Some(o) = r.open.remove(&conn) else {
            return;
        };
        if let Some(a) = r.accounts.get_mut(&o.account) {
            a.0 -= 1;
            if a.0 == 0 {
                r.accounts.remove(&o.account);
            }
        }
        if let Some(addr) = o.addr {
            if let Some(n) = r.addresses.get_mut(&addr) {
                *n -= 1;
                if *n == 0 {
                    r.addresses.remove(&addr);
                }
            }
        }
    }

    /// Whether `account` may send one more message now (the rate its sockets share).
    pub fn allow(&self, account: &str) -> bool {
        let l = self.limits;
        let mut r = self.lock();
        r.accounts
            .get_mut(account)
            .is_none_or(|a| a.1.take(l.account_rate_per_s, l.account_burst))
    }

    /// Closes every socket of the session `session` (a token's hash), telling each
    /// `reason`; returns how many.
    pub fn close_session(&self, session: &str, reason: &str) -> usize {
        self.close_where(|o| o.session == session, reason)
    }

    /// Closes every socket of `account` but those of session `keep` (a token's
    /// hash); returns how many.
    pub fn close_account(&self, account: &str, keep: Option<&str>, reason: &str) -> usize {
        self.close_where(
            |o| o.account == account && keep != Some(o.session.as_str()),
            reason,
        )
    }

    fn close_where(&self, which: impl Fn(&Open) -> bool, reason: &str) -> usize {
        let r = self.lock();
        let reason: Arc<str> = Arc::from(reason);
        let mut closed = 0;
        for o in r.open.values().filter(|o| which(o)) {
            o.close.send_replace(Some(reason.clone()));
            closed += 1;
        }
        closed
    }

    /// Sockets open now.
    pub fn len(&self) -> usize {
        self.lock().open.len()
    }

    /// Whether no socket is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> SocketLimits {
        SocketLimits {
            per_account: 2,
            per_address: 3,
            total: 4,
            account_rate_per_s: 0.0,
            account_burst: 3.0,
        }
    }

    #[test]
    fn each_cap_refuses_past_its_count_and_a_dropped_permit_frees_its_place() {
        let s = Sockets::new(limits());
        let ip = |n: u8| Some(IpAddr::from([10, 0, 0, n]));
        let a1 = s.open(1, "ana", "s1", ip(1)).unwrap();
        let _a2 = s.open(2, "ana", "s1", ip(1)).unwrap();
        assert_eq!(
            s.open(3, "ana", "s2", ip(2)).err(),
            Some(TooMany::Account(2))
        );
        let _b1 = s.open(4, "bo", "s3", ip(1)).unwrap();
        assert_eq!(
            s.open(5, "cy", "s4", ip(1)).err(),
            Some(TooMany::Address(3))
        );
        let _c1 = s.open(6, "cy", "s4", ip(2)).unwrap();
        assert_eq!(s.open(7, "di", "s5", ip(3)).err(), Some(TooMany::Server));
        assert_eq!(s.len(), 4);
        drop(a1);
        assert_eq!(s.len(), 3);
        assert!(s.open(8, "ana", "s1", ip(1)).is_ok());
    }

    #[test]
    fn an_accounts_sockets_share_one_bucket() {
        let s = Sockets::new(limits());
        let _a = s.open(1, "ana", "s1", None).unwrap();
        let _b = s.open(2, "ana", "s1", None).unwrap();
        let _c = s.open(3, "bo", "s2", None).unwrap();
        // A burst of 3 for ana's two sockets together, none refilled.
        let allowed = (0..10).filter(|_| s.allow("ana")).count();
        assert_eq!(allowed, 3);
        assert!(s.allow("bo"), "another account has its own bucket");
    }

    #[test]
    fn closing_a_session_signals_its_sockets_only() {
        let s = Sockets::new(limits());
        let a = s.open(1, "ana", "s1", None).unwrap();
        let b = s.open(2, "ana", "s2", None).unwrap();
        assert_eq!(s.close_session("s1", "logged out"), 1);
        assert_eq!(a.closed.borrow().as_deref(), Some("logged out"));
        assert!(b.closed.borrow().is_none());
        assert_eq!(s.close_account("ana", None, "excluded"), 2);
        assert_eq!(b.closed.borrow().as_deref(), Some("excluded"));
    }
}
