//! Group commits and read-only connections.

use crate::{assert_sound, c, Books};
use felt_core::Money;
use felt_store::{Account, StoreError};

pub fn a_group_commits_its_calls_together_and_a_failed_call_leaves_no_trace(s: &mut Books) {
    s.deposit("alice", c(10_00)).unwrap();
    let other = s.reader();
    s.begin_group().unwrap();
    assert!(s.begin_group().is_err(), "a group inside a group");
    s.deposit("alice", c(5_00)).unwrap();
    // A call that fails inside the group is undone alone.
    let e = s.withdraw("alice", c(1_000_00)).unwrap_err();
    assert!(matches!(e, StoreError::InsufficientFunds { .. }), "{e}");
    s.deposit("bob", c(7_00)).unwrap();
    // The writer sees the group; another connection sees nothing of it yet.
    assert_eq!(s.balance(&Account::player("alice")).unwrap(), c(15_00));
    assert_eq!(other.balance(&Account::player("alice")).unwrap(), c(10_00));
    assert_eq!(other.balance(&Account::player("bob")).unwrap(), Money::ZERO);
    s.end_group().unwrap();
    assert_eq!(other.balance(&Account::player("alice")).unwrap(), c(15_00));
    assert_eq!(other.balance(&Account::player("bob")).unwrap(), c(7_00));
    assert_sound(s);
    // Without a group, end_group does nothing; the next group works as the first.
    s.end_group().unwrap();
    s.begin_group().unwrap();
    s.withdraw("bob", c(2_00)).unwrap();
    s.end_group().unwrap();
    assert_eq!(other.balance(&Account::player("bob")).unwrap(), c(5_00));
}

pub fn a_reader_refuses_writes(s: &mut Books) {
    s.deposit("alice", c(7_00)).unwrap();
    let mut ro = s.reader();
    let e = ro.deposit("alice", c(1)).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e}");
    let said = e.to_string();
    assert!(
        said.contains("cannot be written") && said.contains(&s.at().to_string()),
        "{said}"
    );
    assert!(!said.contains("--db"), "{said}");
    assert_eq!(ro.balance(&Account::player("alice")).unwrap(), c(7_00));
    assert!(ro.check_books().unwrap().is_sound());
    // The writer goes on.
    s.deposit("alice", c(1)).unwrap();
    assert_eq!(ro.balance(&Account::player("alice")).unwrap(), c(7_01));
}
