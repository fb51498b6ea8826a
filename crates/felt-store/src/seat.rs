//! Seat locks: one playing session per player on a set of books.
//!
//! Two sessions that play the same player's wallet at once would both hold its
//! balance. A session therefore takes, for each player it seats, an exclusive lock
//! held by the operating system (`flock`) on a small file beside the database
//! (`felt.db-seats/<hash of the name>.lock`) and keeps it until it ends. The kernel
//! drops the lock when the process ends in any way, a `SIGKILL` or a power cut
//! included, so a crashed session never leaves a stale lock behind, and a reused
//! process id cannot fake one. The holder writes its process id into the file, so a
//! refused session can say which process holds the seat.
//!
//! The files are never deleted (deleting a lock file another process is about to lock
//! would let two sessions hold "the same" lock); each is a few bytes.
//!
//! Enforced on Unix (Linux, macOS, the BSDs). Elsewhere the files are written but
//! nothing is locked.

use crate::error::{Result, StoreError};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The seats a session holds; dropping it (or ending the process) frees them.
#[derive(Debug)]
pub struct SeatLocks {
    // Each open file holds its lock for as long as it is open.
    files: Vec<File>,
}

impl SeatLocks {
    /// Takes the seats of `players` at the books in the file `db` (which must exist:
    /// open the store first), or fails with [`StoreError::SeatInUse`] naming the
    /// first player whose seat another session holds, and that session's process id
    /// when it wrote one. Never waits. A failed call holds nothing. Names are taken in
    /// their canonical form ([`crate::normalize_name`]): `alice ` is `alice`'s seat.
    pub fn acquire(db: &Path, players: &[String]) -> Result<SeatLocks> {
        let dir = lock_dir(db)?;
        std::fs::create_dir_all(&dir).map_err(|e| StoreError::SeatLockFailed {
            path: dir.clone(),
            cause: Box::new(e),
        })?;
        let names = seat_names(players)?;
        let mut files = Vec::with_capacity(names.len());
        for name in &names {
            files.push(lock_one(&dir, db, name)?);
        }
        Ok(SeatLocks { files })
    }

    /// How many seats are held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no seat is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The directory of the seat locks of the books at `db`: `<db>-seats` beside it, from
/// the file's canonical path (so `./felt.db` and `/home/me/felt.db` are one table).
pub fn lock_dir(db: &Path) -> Result<PathBuf> {
    let canonical = std::fs::canonicalize(db).map_err(|e| StoreError::SeatLockFailed {
        path: db.to_path_buf(),
        cause: Box::new(e),
    })?;
    let mut name = canonical
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push("-seats");
    Ok(canonical.with_file_name(name))
}

/// The lock file of `player` in `dir`: a hash of the name (any name is a valid file
/// name that way, and names differing only in case stay apart).
pub fn lock_file(dir: &Path, player: &str) -> PathBuf {
    let hash = Sha256::digest(player.as_bytes());
    let hex: String = hash.iter().take(16).map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{hex}.lock"))
}

fn lock_one(dir: &Path, db: &Path, player: &str) -> Result<File> {
    let path = lock_file(dir, player);
    let failed = |e: std::io::Error| StoreError::SeatLockFailed {
        path: path.clone(),
        cause: Box::new(e),
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(failed)?;
    if !try_lock(&file).map_err(failed)? {
        let mut text = String::new();
        // The holder may be writing its id this very moment: then it is unknown.
        let pid = file
            .read_to_string(&mut text)
            .ok()
            .and_then(|_| text.lines().next()?.trim().parse::<u32>().ok());
        return Err(StoreError::SeatInUse {
            player: player.to_string(),
            books: db.display().to_string(),
            pid,
        });
    }
    // Ours now: say who holds it (the process id, then the name, for a person who
    // looks at the file).
    let id = format!("{}\n{player}\n", std::process::id());
    file.set_len(0).map_err(failed)?;
    file.rewind().map_err(failed)?;
    file.write_all(id.as_bytes()).map_err(failed)?;
    Ok(file)
}

/// Takes the file's exclusive lock without waiting; `false` if another open file
/// (in this process or another) holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use rustix::fs::{flock, FlockOperation};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Without `flock` the seat is not locked (see the module docs).
#[cfg(not(unix))]
fn try_lock(_file: &File) -> std::io::Result<bool> {
    Ok(true)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn books() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("felt.db");
        std::fs::write(&db, b"").unwrap();
        (dir, db)
    }

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_held_seat_is_refused_with_the_holders_pid_until_it_is_freed() {
        let (_dir, db) = books();
        let held = SeatLocks::acquire(&db, &names(&["ann", "ann-2"])).unwrap();
        assert_eq!(held.len(), 2);
        match SeatLocks::acquire(&db, &names(&["bob", "ann-2"])) {
            Err(StoreError::SeatInUse { player, pid, .. }) => {
                assert_eq!(player, "ann-2");
                assert_eq!(pid, Some(std::process::id()));
            }
            other => panic!("expected SeatInUse, got {other:?}"),
        }
        // The refused call holds nothing: bob is free.
        let bob = SeatLocks::acquire(&db, &names(&["bob"])).unwrap();
        drop(held);
        let again = SeatLocks::acquire(&db, &names(&["ann", "ann-2"])).unwrap();
        assert_eq!(again.len() + bob.len(), 3);
    }

    #[test]
    fn another_path_to_the_same_books_is_the_same_seat() {
        let (dir, db) = books();
        let _held = SeatLocks::acquire(&db, &names(&["ann"])).unwrap();
        let other = dir.path().join(".").join("felt.db");
        assert!(matches!(
            SeatLocks::acquire(&other, &names(&["ann"])),
            Err(StoreError::SeatInUse { .. })
        ));
    }

    #[test]
    fn the_error_says_who_and_what_to_do() {
        let e = StoreError::SeatInUse {
            player: "ann".into(),
            books: "/b/felt.db".into(),
            pid: Some(42),
        };
        let t = e.to_string();
        assert!(t.contains("ann") && t.contains("process 42"), "{t}");
        assert!(t.contains("nothing was changed"), "{t}");
    }

    #[test]
    fn books_that_do_not_exist_are_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let e = SeatLocks::acquire(&dir.path().join("none.db"), &names(&["ann"])).unwrap_err();
        assert!(matches!(e, StoreError::SeatLockFailed { .. }), "{e}");
    }
}

/// The seats `players` take, each once, in order: a seat is a wallet, so `alice `
/// sits in `alice`'s seat (see [`crate::normalize_name`]). Both engines' seat locks.
pub(crate) fn seat_names(players: &[String]) -> Result<Vec<String>> {
    let mut names = players
        .iter()
        .map(|p| crate::normalize_name("player", p))
        .collect::<Result<Vec<String>>>()?;
    names.sort();
    names.dedup();
    Ok(names)
}
