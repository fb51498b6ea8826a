//! What stands between the accounts and a guesser: failed log-ins and registrations
//! counted per client address (bounded memory), one log-in at a time per account (its
//! check and its count in one turn), and a bounded number of log-ins and registrations
//! admitted at once, hashing on a few threads (argon2 takes 19 MiB a hash, and each
//! books read in parallel its own connection: an unbounded number at once is an
//! out-of-memory).
//!
//! The rules (docs/server.md, "Log-in"): an address whose log-ins failed
//! [`GuardPolicy::address_failures`] times in [`GuardPolicy::address_window_ms`] is
//! refused (`429 throttled`) until the window ends, before any password is checked. An
//! account locked by its own failures ([`felt_store::LockPolicy`]) is refused whatever
//! the address, as the standards ask ([`crate::lockout`]): the throttle bounds how
//! fast one address guesses, the lock how many guesses an account takes.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How log-ins and registrations are throttled, and how passwords are hashed.
#[derive(Debug, Clone)]
pub struct GuardPolicy {
    /// Failed log-ins from one address that stop its log-ins until its window ends.
    pub address_failures: u32,
    /// The window of an address's failed log-ins (ms, from its first failure).
    pub address_window_ms: u64,
    /// Accounts one address may register in a registration window.
    pub registrations: u32,
    /// The registration window (ms, from the address's first registration).
    pub register_window_ms: u64,
    /// Threads that hash passwords (argon2): this many hashes at once, no more.
    pub hash_threads: usize,
    /// Log-ins and registrations admitted beyond those threads (waiting for one);
    /// one more waits at most [`GuardPolicy::admit_wait_ms`], then is refused
    /// (`503 busy`). An admitted one reads the books, hashes and counts.
    pub hash_queue: usize,
    /// How long a log-in or registration waits to be admitted (ms).
    pub admit_wait_ms: u64,
    /// Addresses each counter remembers at most (the oldest are forgotten first).
    pub max_addresses: usize,
}

impl Default for GuardPolicy {
    fn default() -> GuardPolicy {
        GuardPolicy {
            address_failures: 10,
            address_window_ms: 15 * 60 * 1000,
            registrations: 20,
            register_window_ms: 60 * 60 * 1000,
            hash_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            hash_queue: 32,
            admit_wait_ms: 1000,
            max_addresses: 100_000,
        }
    }
}

/// An address as the counters key it: an IPv4 address, or an IPv6 address's /64 (one
/// subscriber's network: its 2^64 addresses are one client).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressKey {
    /// An IPv4 address (or an IPv4-mapped IPv6 one).
    V4(u32),
    /// An IPv6 /64 prefix.
    V6(u64),
}

impl From<IpAddr> for AddressKey {
    fn from(ip: IpAddr) -> AddressKey {
        match ip.to_canonical() {
            IpAddr::V4(a) => AddressKey::V4(a.into()),
            IpAddr::V6(a) => AddressKey::V6((u128::from(a) >> 64) as u64),
        }
    }
}

/// Counts per key (an address, a session) in a fixed window from each key's first
/// count, remembering at most `cap` keys. Windows start in time order, so they also end
/// in that order: a queue of starts finds the ended ones (and the oldest, when full) at
/// its front.
#[derive(Debug)]
pub struct Window<K = AddressKey> {
    limit: u32,
    span: Duration,
    cap: usize,
    counts: HashMap<K, (u32, Instant)>,
    starts: VecDeque<(K, Instant)>,
}

impl<K: Copy + Eq + std::hash::Hash> Window<K> {
    /// At most `limit` counts per key in `span`, for at most `cap` keys.
    pub fn new(limit: u32, span: Duration, cap: usize) -> Window<K> {
        Window {
            limit,
            span,
            cap: cap.max(1),
            counts: HashMap::new(),
            starts: VecDeque::new(),
        }
    }

    /// Counts one for `key` at `now`; refused (with how long until its window ends)
    /// when it has had its `limit`.
    pub fn take(&mut self, key: K, now: Instant) -> Result<(), Duration> {
        self.forget(now);
        if let Some((n, start)) = self.counts.get_mut(&key) {
            if *n >= self.limit {
                return Err((*start + self.span).saturating_duration_since(now));
            }
            *n += 1;
            return Ok(());
        }
        if self.limit == 0 {
            return Err(self.span);
        }
        while self.counts.len() >= self.cap {
            self.pop();
        }
        self.counts.insert(key, (1, now));
        self.starts.push_back((key, now));
        Ok(())
    }

    /// Takes back one count of `key` (an attempt that turned out not to count).
    pub fn give_back(&mut self, key: K) {
        if let Some((n, _)) = self.counts.get_mut(&key) {
            *n = n.saturating_sub(1);
        }
    }

    /// The addresses remembered.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether no address is remembered.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    fn forget(&mut self, now: Instant) {
        while self
            .starts
            .front()
            .is_some_and(|(_, start)| *start + self.span <= now)
        {
            self.pop();
        }
    }

    fn pop(&mut self) {
        if let Some((key, start)) = self.starts.pop_front() {
            if self.counts.get(&key).is_some_and(|(_, s)| *s == start) {
                self.counts.remove(&key);
            }
        }
    }
}

/// The hashing threads are all busy and their queue is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

type Job = Box<dyn FnOnce() + Send>;

/// A few threads that hash passwords, fed through a bounded queue. Each thread reuses
/// its own allocator arena, so memory stays at a few hashes' worth under any load.
#[derive(Debug)]
pub struct Hasher {
    jobs: SyncSender<Job>,
}

impl Hasher {
    /// `threads` hashing threads (at least one) and `queue` places to wait.
    pub fn new(threads: usize, queue: usize) -> Result<Hasher, String> {
        let (jobs, rx) = sync_channel::<Job>(queue);
        let rx = std::sync::Arc::new(Mutex::new(rx));
        for i in 0..threads.max(1) {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("hash-{i}"))
                .spawn(move || loop {
                    let job = match rx.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => break,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => break,
                    }
                })
                .map_err(|e| format!("starting the hashing threads: {e}"))?;
        }
        Ok(Hasher { jobs })
    }

    /// Runs `f` on a hashing thread; [`Busy`] at once when the queue is full.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Busy> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        match self.jobs.try_send(job) {
            Ok(()) => rx.await.map_err(|_| Busy),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => Err(Busy),
        }
    }
}

/// Accounts share this many turn locks (a name's lock is its hash's stripe).
const STRIPES: usize = 256;

/// The server's guard: the counters, the accounts' turns and the hashing threads.
#[derive(Debug)]
pub struct Guard {
    policy: GuardPolicy,
    failures: Mutex<Window>,
    registrations: Mutex<Window>,
    turns: Vec<tokio::sync::Mutex<()>>,
    admitted: tokio::sync::Semaphore,
    hasher: Hasher,
}

impl Guard {
    /// A guard with this policy (starts its hashing threads).
    pub fn new(policy: GuardPolicy) -> Result<Guard, String> {
        let places = policy.hash_threads.max(1) + policy.hash_queue;
        let hasher = Hasher::new(policy.hash_threads, places)?;
        let ms = Duration::from_millis;
        Ok(Guard {
            failures: Mutex::new(Window::new(
                policy.address_failures,
                ms(policy.address_window_ms),
                policy.max_addresses,
            )),
            registrations: Mutex::new(Window::new(
                policy.registrations,
                ms(policy.register_window_ms),
                policy.max_addresses,
            )),
            turns: (0..STRIPES).map(|_| tokio::sync::Mutex::new(())).collect(),
            admitted: tokio::sync::Semaphore::new(places),
            hasher,
            policy,
        })
    }

    /// The policy.
    pub fn policy(&self) -> &GuardPolicy {
        &self.policy
    }

    /// A log-in attempt from `ip`, counted as a failure at once (so parallel attempts
    /// cannot all pass before any is counted) and given back by [`Guard::login_ok`].
    /// Refused, with the time until the address may try again, past its limit.
    pub fn begin_login(&self, ip: IpAddr) -> Result<(), Duration> {
        let mut w = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        w.take(ip.into(), Instant::now())
    }

    /// The attempt begun by [`Guard::begin_login`] did not fail: it does not count.
    pub fn login_ok(&self, ip: IpAddr) {
        let mut w = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        w.give_back(ip.into());
    }

    /// A registration from `ip`; refused past the address's limit.
    pub fn begin_registration(&self, ip: IpAddr) -> Result<(), Duration> {
        let mut w = self.registrations.lock().unwrap_or_else(|p| p.into_inner());
        w.take(ip.into(), Instant::now())
    }

    /// The account's turn: one log-in of an account is checked and counted at a time.
    pub async fn turn(&self, name: &str) -> tokio::sync::MutexGuard<'_, ()> {
        let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        self.turns[(h % STRIPES as u64) as usize].lock().await
    }

    /// A place for a log-in or a registration (its books reads, hash and count),
    /// waited for at most [`GuardPolicy::admit_wait_ms`].
    pub async fn admit(&self) -> Result<tokio::sync::SemaphorePermit<'_>, Busy> {
        let wait = Duration::from_millis(self.policy.admit_wait_ms);
        match tokio::time::timeout(wait, self.admitted.acquire()).await {
            Ok(Ok(p)) => Ok(p),
            _ => Err(Busy),
        }
    }

    /// The hashing threads.
    pub fn hasher(&self) -> &Hasher {
        &self.hasher
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn v4(d: u8) -> AddressKey {
        IpAddr::V4(Ipv4Addr::new(10, 0, 0, d)).into()
    }

    #[test]
    fn a_window_counts_to_its_limit_then_refuses_until_it_ends() {
        let mut w = Window::new(2, Duration::from_secs(60), 10);
        let t = Instant::now();
        assert!(w.take(v4(1), t).is_ok());
        assert!(w.take(v4(1), t).is_ok());
        let wait = w.take(v4(1), t + Duration::from_secs(10)).unwrap_err();
        assert_eq!(wait, Duration::from_secs(50));
        assert!(w.take(v4(2), t).is_ok(), "another address is not refused");
        w.give_back(v4(1));
        assert!(w.take(v4(1), t).is_ok(), "a count given back is free again");
        assert!(w.take(v4(1), t + Duration::from_secs(60)).is_ok());
    }

    #[test]
    fn a_window_remembers_at_most_its_cap_forgetting_the_oldest() {
        let mut w = Window::new(1, Duration::from_secs(60), 3);
        let t = Instant::now();
        for d in 0..100 {
            let _ = w.take(v4(d), t + Duration::from_millis(u64::from(d)));
            assert!(w.len() <= 3);
        }
        assert!(w.starts.len() <= 3, "{}", w.starts.len());
        assert!(w.take(v4(99), t).is_err(), "the newest is remembered");
        assert!(w.take(v4(0), t).is_ok(), "the oldest was forgotten");
    }

    #[test]
    fn an_ipv6_network_is_one_address_and_a_mapped_ipv4_is_the_ipv4() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(AddressKey::from(a), AddressKey::from(b));
        assert_ne!(AddressKey::from(a), AddressKey::from(c));
        let m: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(AddressKey::from(m), v4(1));
    }

    #[tokio::test]
    async fn the_hasher_refuses_past_its_queue_and_runs_the_rest() {
        let h = std::sync::Arc::new(Hasher::new(1, 1).unwrap());
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let h1 = h.clone();
        let first = tokio::spawn(async move {
            h1.run(move || {
                let _ = wait.recv();
                1
            })
            .await
        });
        // The first job holds the thread; one waits in the queue; the next is refused.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let h2 = h.clone();
        let second = tokio::spawn(async move { h2.run(|| 2).await });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(h.run(|| 3).await, Err(Busy));
        go.send(()).unwrap();
        assert_eq!(first.await.unwrap(), Ok(1));
        assert_eq!(second.await.unwrap(), Ok(2));
    }
}
