//! TLS to PostgreSQL, against a real server that speaks it (`scripts/postgres-test
//! start --tls`): its certificate, for `localhost` and `127.0.0.1`, is signed by a
//! throw-away CA, and it refuses TCP connections without TLS. libpq's `sslmode` and
//! `sslrootcert` URL parameters, each mode as libpq means it, and clear errors that
//! never show the password.
// Amounts are written as dollars_cents (100_00 is 100.00).
#![allow(clippy::inconsistent_digit_grouping)]

use felt_core::Money;
use felt_store::testing::{session_tls, TestPostgres};
use felt_store::{Account, PgListener, PgSeatLocks, PgStore, Store, StoreError};
use std::path::Path;
use std::time::Duration;

fn c(cents: i64) -> Money {
    Money::cents(cents)
}

/// The TLS cluster shared by this file's tests.
fn pg() -> &'static TestPostgres {
    TestPostgres::shared_tls()
}

fn ca() -> String {
    let ca = pg().ca_pem().expect("a TLS cluster has a CA");
    ca.display().to_string()
}

fn other_ca() -> String {
    let ca = pg().other_ca_pem().expect("a TLS cluster has a second CA");
    ca.display().to_string()
}

/// The password in a test cluster's URL.
fn password(url: &str) -> String {
    let auth = url.split('@').next().unwrap_or_default();
    auth.rsplit(':').next().unwrap_or_default().to_string()
}

/// `url` (by 127.0.0.1, no parameters) reached by `host`, with the URL parameters
/// `params`.
fn at(url: &str, host: &str, params: &str) -> String {
    let url = url.replacen("@127.0.0.1:", &format!("@{host}:"), 1);
    assert!(url.contains(&format!("@{host}:")), "{url}");
    if params.is_empty() {
        url
    } else {
        format!("{url}?{params}")
    }
}

/// The error of opening the books at `url`: `CannotOpen`, its words (Display and Debug)
/// free of the password.
fn refused(url: &str) -> String {
    let e = PgStore::open(url).expect_err(url);
    assert!(matches!(e, StoreError::CannotOpen { .. }), "{url}: {e:?}");
    let said = format!("{e}\n{e:?}");
    assert!(
        !said.contains(&password(url)),
        "the password is shown: {said}"
    );
    said
}

/// Whether a connection to `url` is encrypted (panics, with the error, if it fails).
fn encrypted(url: &str) -> bool {
    match session_tls(url) {
        Ok(tls) => tls.is_some_and(|v| v.starts_with("TLS")),
        Err(e) => panic!("{url}: {e}"),
    }
}

/// verify-full with the CA that signed the server's certificate, by the name it is
/// issued for: the session is encrypted, and the books work through it (a write, a
/// read, the audit, a read-only store, a listener and seat locks).
#[test]
fn verify_full_with_the_right_ca_is_encrypted_and_keeps_the_books() {
    let url = at(
        &pg().fresh_database(),
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={}", ca()),
    );
    assert!(encrypted(&url));

    let mut s = PgStore::open(&url).unwrap();
    assert!(!s.location().contains(&password(&url)));
    s.deposit("alice", c(50_00)).unwrap();
    s.create_meter("m", c(10_00), &Account::house("ops"))
        .unwrap();
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(50_00));
    assert!(s.check_books().unwrap().is_sound());

    let r = PgStore::open_read_only(&url).unwrap();
    assert_eq!(r.balance(&Account::player("alice")).unwrap(), c(50_00));
    assert!(matches!(
        PgStore::open_read_only(&url)
            .unwrap()
            .deposit("alice", c(1))
            .unwrap_err(),
        StoreError::ReadOnly { .. }
    ));

    let mut listener = PgListener::connect(&url).unwrap();
    let seats = PgSeatLocks::acquire(&url, &["alice".to_string()]).unwrap();
    assert_eq!(seats.len(), 1);
    s.create_meter("m2", c(1_00), &Account::house("ops"))
        .unwrap();
    assert!(!listener.wait(Duration::from_secs(5)).unwrap().is_empty());
}

/// The certificate is issued for 127.0.0.1 too: verify-full by the address works.
#[test]
fn verify_full_by_the_address_in_the_certificate() {
    let url = at(
        pg().url(),
        "127.0.0.1",
        &format!("sslmode=verify-full&sslrootcert={}", ca()),
    );
    assert!(encrypted(&url));
    PgStore::open(&url).unwrap();
}

/// A server whose certificate another CA signed is not trusted, whatever the mode
/// that checks it (require with sslrootcert checks as verify-ca, as in libpq).
#[test]
fn a_server_signed_by_another_ca_is_not_trusted() {
    for (host, mode) in [
        ("localhost", "verify-full"),
        ("127.0.0.1", "verify-full"),
        ("localhost", "verify-ca"),
        ("localhost", "require"),
    ] {
        let url = at(
            pg().url(),
            host,
            &format!("sslmode={mode}&sslrootcert={}", other_ca()),
        );
        let said = refused(&url);
        assert!(
            said.contains("certificate is not trusted"),
            "{mode}: {said}"
        );
        assert!(
            said.contains(&format!("sslrootcert={}", other_ca())),
            "{said}"
        );
        assert!(said.contains(&format!("sslmode={mode}")), "{said}");
        assert!(session_tls(&url).is_err());
    }
}

/// A certificate that is not issued for the name connected by (the host `db.felt.test`,
/// reached at hostaddr 127.0.0.1): verify-ca takes it (the chain is all it checks),
/// verify-full does not.
#[test]
fn verify_ca_ignores_the_host_name_and_verify_full_does_not() {
    let url = pg().fresh_database();
    let ca_only = at(
        &url,
        "db.felt.test",
        &format!("hostaddr=127.0.0.1&sslmode=verify-ca&sslrootcert={}", ca()),
    );
    assert!(encrypted(&ca_only));
    let mut s = PgStore::open(&ca_only).unwrap();
    s.deposit("bob", c(1_00)).unwrap();
    assert_eq!(s.balance(&Account::player("bob")).unwrap(), c(1_00));

    let full = at(
        &url,
        "db.felt.test",
        &format!(
            "hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={}",
            ca()
        ),
    );
    let said = refused(&full);
    assert!(said.contains("not issued for the host name"), "{said}");
}

/// require, prefer (the default) and allow without a CA: encrypted, the certificate
/// not checked (issued for another name here, and nothing to check it against).
#[test]
fn require_prefer_and_allow_without_a_ca_are_encrypted() {
    for params in [
        "hostaddr=127.0.0.1&sslmode=require",
        "hostaddr=127.0.0.1&sslmode=prefer",
        "hostaddr=127.0.0.1",
        "hostaddr=127.0.0.1&sslmode=allow",
    ] {
        let url = at(pg().url(), "db.felt.test", params);
        assert!(encrypted(&url), "{params}");
        PgStore::open(&url).unwrap_or_else(|e| panic!("{params}: {e}"));
    }
    // The cluster's own URL says nothing of TLS: prefer.
    assert!(encrypted(pg().url()));
}

/// sslmode=disable against a server that wants TLS: the server refuses, and says why.
#[test]
fn disable_is_refused_by_a_server_that_wants_tls() {
    let url = at(pg().url(), "127.0.0.1", "sslmode=disable");
    let said = refused(&url);
    assert!(said.contains("no pg_hba.conf entry"), "{said}");
    assert!(said.contains("no encryption"), "{said}");
    assert!(PgListener::connect(&url).is_err());
}

/// A wrong sslmode, a CA file that is missing or holds no certificate, and
/// sslrootcert=system with a weaker mode are clear errors naming the parameter, the
/// problem and the file; never the password.
#[test]
fn a_wrong_tls_parameter_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-ca.pem");
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate\n").unwrap();
    let with_password_param = {
        let url = pg().url();
        let pw = password(url);
        format!(
            "{}?password={pw}&sslmode=verify-everything",
            url.replacen(&format!(":{pw}@"), "@", 1)
        )
    };
    assert!(with_password_param.contains("?password="));
    for (params, says) in [
        (
            "sslmode=verify-everything".to_string(),
            "sslmode=verify-everything is not a TLS mode",
        ),
        (
            "sslmode=verify%2Dfulll".to_string(),
            "sslmode=verify-fulll is not",
        ),
        (
            format!("sslmode=verify-full&sslrootcert={}", missing.display()),
            "cannot be read",
        ),
        (
            format!("sslmode=verify-full&sslrootcert={}", junk.display()),
            "holds no certificate",
        ),
        (
            "sslmode=require&sslrootcert=system".to_string(),
            "sslrootcert=system needs sslmode=verify-full",
        ),
        ("sslrootcert=".to_string(), "sslrootcert is empty"),
    ] {
        let url = at(pg().url(), "localhost", &params);
        let said = refused(&url);
        assert!(said.contains(says), "{params}: {said}");
        let e = PgListener::connect(&url).unwrap_err();
        assert!(!e.to_string().contains(&password(&url)), "{e}");
        let e = PgSeatLocks::acquire(&url, &["ann".to_string()]).unwrap_err();
        assert!(!e.to_string().contains(&password(&url)), "{e}");
    }
    for (path, says) in [
        (&missing, "cannot be read"),
        (&junk, "holds no certificate"),
    ] {
        let said = refused(&at(
            pg().url(),
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={}", path.display()),
        ));
        assert!(
            said.contains(&format!("sslrootcert={}", path.display())),
            "{said}"
        );
        assert!(said.contains(says), "{said}");
    }
    // A password given as a parameter is not shown either.
    let e = PgStore::open(&with_password_param).unwrap_err();
    let said = format!("{e}\n{e:?}");
    assert!(said.contains("sslmode=verify-everything"), "{said}");
    assert!(!said.contains(&password(pg().url())), "{said}");
    // A percent-encoded path is decoded.
    let spaced = dir.path().join("my ca.pem");
    std::fs::copy(Path::new(&ca()), &spaced).unwrap();
    let url = at(
        pg().url(),
        "localhost",
        &format!(
            "sslmode=verify-full&sslrootcert={}",
            spaced.display().to_string().replace(' ', "%20")
        ),
    );
    assert!(encrypted(&url));
}

/// The system's CAs (sslrootcert=system, and verify-* without sslrootcert) do not
/// include the throw-away CA: the server is not trusted.
#[test]
fn the_system_cas_do_not_trust_a_private_ca() {
    for params in [
        "sslrootcert=system",
        "sslmode=verify-full&sslrootcert=system",
        "sslmode=verify-full",
        "sslmode=verify-ca",
    ] {
        let said = refused(&at(pg().url(), "localhost", params));
        assert!(
            said.contains("certificate is not trusted") || said.contains("no system CA"),
            "{params}: {said}"
        );
        assert!(said.contains("the system's CAs"), "{params}: {said}");
    }
}

/// A server without TLS: prefer connects without it, require and verify-full refuse.
#[test]
fn a_server_without_tls_is_refused_when_tls_is_required() {
    let plain = TestPostgres::shared();
    let url = plain.url();
    assert_eq!(session_tls(url).unwrap(), None);
    assert_eq!(
        session_tls(&at(url, "127.0.0.1", "sslmode=prefer")).unwrap(),
        None
    );
    for params in [
        "sslmode=require".to_string(),
        format!("sslmode=verify-full&sslrootcert={}", ca()),
    ] {
        let said = refused(&at(url, "localhost", &params));
        assert!(
            said.contains("server does not support TLS"),
            "{params}: {said}"
        );
    }
}

/// A restart of the TLS server: the store's connection is replaced (with TLS again)
/// and the next call works.
#[test]
fn a_restarted_server_is_reached_again_with_tls() {
    let pg = TestPostgres::start_tls();
    let ca = pg.ca_pem().unwrap().display().to_string();
    let url = at(
        &pg.fresh_database(),
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    );
    let mut s = PgStore::open(&url).unwrap();
    s.deposit("ann", c(10_00)).unwrap();
    pg.restart();
    s.deposit("ann", c(1)).unwrap();
    assert_eq!(s.balance(&Account::player("ann")).unwrap(), c(10_01));
    assert!(encrypted(&url));
}
