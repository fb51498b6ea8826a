//! Logins and web sessions: a name is one login and one wallet, failures lock, a
//! session stands for its login until it is closed.

use crate::Books;
use felt_core::Money;
use felt_store::{Account, LockPolicy, NewLogin, Role, StoreError};

fn new(name: &str, start: i64) -> NewLogin<'_> {
    NewLogin {
        name,
        password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
        role: Role::Player,
        starting_balance: Money::cents(start),
        now_ms: 1_000,
    }
}

pub fn a_new_login_gets_its_starting_balance_and_a_taken_name_is_refused_without_change(
    s: &mut Books,
) {
    s.create_login(&new("alice", 50_000)).unwrap();
    assert_eq!(
        s.balance(&Account::player("alice")).unwrap(),
        Money::cents(50_000)
    );
    let again = s.create_login(&new("alice", 50_000)).unwrap_err();
    assert!(matches!(again, StoreError::NameTaken { .. }), "{again}");
    assert_eq!(
        s.balance(&Account::player("alice")).unwrap(),
        Money::cents(50_000)
    );
    // A wallet `felt play` made is not taken over by a login of the same name.
    s.deposit("bob", Money::cents(1_000)).unwrap();
    let bob = s.create_login(&new("bob", 50_000)).unwrap_err();
    assert!(matches!(bob, StoreError::NameTaken { .. }), "{bob}");
    assert_eq!(
        s.balance(&Account::player("bob")).unwrap(),
        Money::cents(1_000)
    );
    assert!(s.login("bob").unwrap().is_none());
    assert!(s.check_books().unwrap().is_sound());
}

pub fn failures_lock_the_login_and_a_success_forgets_them_and_returns_the_previous_login(
    s: &mut Books,
) {
    s.create_login(&new("carol", 0)).unwrap();
    let policy = LockPolicy {
        after: 3,
        for_ms: 60_000,
    };
    assert_eq!(
        s.login_failed("carol", 2_000, policy)
            .unwrap()
            .failed_logins,
        1
    );
    let l = s.login_failed("carol", 3_000, policy).unwrap();
    assert_eq!(l.failed_logins, 2);
    assert!(!l.is_locked(3_000));
    let l = s.login_failed("carol", 4_000, policy).unwrap();
    assert!(l.is_locked(4_001) && l.is_locked(63_999) && !l.is_locked(64_000));
    assert_eq!(s.login_succeeded("carol", 70_000).unwrap(), None);
    assert_eq!(s.login_succeeded("carol", 80_000).unwrap(), Some(70_000));
    let l = s.login("carol").unwrap().unwrap();
    assert_eq!((l.failed_logins, l.locked_until_ms), (0, None));
    assert!(matches!(
        s.login_failed("nobody", 1, policy),
        Err(StoreError::UnknownLogin { .. })
    ));
}

pub fn an_operator_lifts_a_lock_and_its_failures_are_forgotten(s: &mut Books) {
    s.create_login(&new("erin", 0)).unwrap();
    let policy = LockPolicy {
        after: 2,
        for_ms: i64::MAX,
    };
    s.login_failed("erin", 2_000, policy).unwrap();
    let l = s.login_failed("erin", 3_000, policy).unwrap();
    assert_eq!(l.locked_until_ms, Some(i64::MAX), "until lifted");
    assert_eq!(s.unlock_login("erin").unwrap(), Some(i64::MAX));
    let l = s.login("erin").unwrap().unwrap();
    assert_eq!((l.failed_logins, l.locked_until_ms), (0, None));
    assert!(!l.is_locked(i64::MAX - 1));
    // One failure after the unlock does not lock again: the count started over.
    s.login_failed("erin", 4_000, policy).unwrap();
    assert!(!s.login("erin").unwrap().unwrap().is_locked(4_001));
    assert_eq!(s.unlock_login("erin").unwrap(), None, "nothing to lift");
    assert!(matches!(
        s.unlock_login("nobody"),
        Err(StoreError::UnknownLogin { .. })
    ));
}

pub fn a_web_session_stands_for_its_login_until_closed_and_roles_change_only_by_set_login(
    s: &mut Books,
) {
    s.create_login(&new("dave", 0)).unwrap();
    let token = "a".repeat(64);
    s.open_web_session(&token, "dave", 5_000).unwrap();
    let w = s.web_session(&token).unwrap().unwrap();
    assert_eq!(
        (w.name.as_str(), w.role, w.last_seen_ms),
        ("dave", Role::Player, 5_000)
    );
    s.touch_web_session(&token, 9_000).unwrap();
    assert_eq!(s.web_session(&token).unwrap().unwrap().last_seen_ms, 9_000);
    s.set_login("dave", "$argon2id$other", Role::Operator)
        .unwrap();
    assert_eq!(s.web_session(&token).unwrap().unwrap().role, Role::Operator);
    s.close_web_session(&token).unwrap();
    assert!(s.web_session(&token).unwrap().is_none());
    assert!(s.open_web_session(&"b".repeat(64), "nobody", 1).is_err());
    assert!(s.web_session(&"b".repeat(64)).unwrap().is_none());
}

pub fn every_session_of_a_login_is_listed_and_closed_but_the_one_kept(s: &mut Books) {
    s.create_login(&new("erin", 0)).unwrap();
    s.create_login(&new("fay", 0)).unwrap();
    let (a, b, c, f) = (
        "a".repeat(64),
        "b".repeat(64),
        "c".repeat(64),
        "f".repeat(64),
    );
    s.open_web_session(&a, "erin", 1_000).unwrap();
    s.open_web_session(&b, "erin", 2_000).unwrap();
    s.open_web_session(&c, "erin", 3_000).unwrap();
    s.open_web_session(&f, "fay", 4_000).unwrap();
    let all = s.web_sessions_of("erin").unwrap();
    let opened: Vec<i64> = all.iter().map(|w| w.created_ms).collect();
    assert_eq!(opened, vec![1_000, 2_000, 3_000]);
    assert_eq!(s.close_web_sessions_of("erin", Some(&b)).unwrap(), 2);
    assert!(s.web_session(&a).unwrap().is_none());
    assert!(s.web_session(&b).unwrap().is_some(), "the kept one stands");
    assert!(
        s.web_session(&f).unwrap().is_some(),
        "another login's stands"
    );
    assert_eq!(s.close_web_sessions_of("erin", None).unwrap(), 1);
    assert!(s.web_sessions_of("erin").unwrap().is_empty());
}
