//! What must hold once the harness has settled: felt's books and the operator's agree
//! round by round and player by player, every round that took money is closed at the
//! operator by one credit, no transaction moved money twice, no call is left pending,
//! and `felt books` and `felt replay --all` are clean.

use felt_server::operator_demo::books::{LedgerRow, TransactionRow};
use felt_store::{
    Account, BooksAt, RoundStatus, Store, WalletCall, WalletCallKind, WalletQuery, WalletState,
};
use std::collections::{BTreeMap, BTreeSet};

/// A round and a player: `(round id, player)`.
type Key = (i64, String);

/// The operator's books after the run.
pub struct OperatorBooks {
    /// Every change of a balance.
    pub ledger: Vec<LedgerRow>,
    /// Every transaction with its first answer.
    pub transactions: Vec<TransactionRow>,
    /// Each player's balance at the start and now.
    pub balances: BTreeMap<String, (i64, i64)>,
}

/// What the books hold after the run, for the figures.
#[derive(Debug, Default)]
pub struct Counts {
    /// Rounds finished.
    pub finished: usize,
    /// Rounds voided.
    pub voided: usize,
    /// Wallet calls, by kind and state.
    pub calls: BTreeMap<String, usize>,
    /// Sends past each call's first.
    pub resends: u64,
}

/// Every non-zero change of each round for each player.
fn nonzero(m: BTreeMap<Key, i64>) -> BTreeMap<Key, i64> {
    m.into_iter().filter(|(_, v)| *v != 0).collect()
}

/// What each round moved between each player and the operator in felt's books: a
/// debit's money comes in from the cashier, the closing credit (or the rollbacks of a
/// voided round) goes back out. Seen from the operator: out is a credit.
fn felt_rounds(books: &dyn Store) -> (BTreeMap<Key, i64>, Counts) {
    let mut out = BTreeMap::new();
    let mut counts = Counts::default();
    for r in books.history(usize::MAX).expect("the rounds") {
        match r.status {
            RoundStatus::Finished => counts.finished += 1,
            RoundStatus::Voided => counts.voided += 1,
            RoundStatus::Open => panic!("round {} is still open after the settle", r.id.0),
        }
        for m in &r.movements {
            let m = &m.movement;
            let (player, change) = match (&m.from, &m.to) {
                (Account::Cashier, Account::Player(p)) => (p, -m.amount.as_cents()),
                (Account::Player(p), Account::Cashier) => (p, m.amount.as_cents()),
                _ => continue,
            };
            *out.entry((r.id.0, player.clone())).or_insert(0) += change;
        }
    }
    (nonzero(out), counts)
}

/// What each round moved for each player in the operator's ledger; no transaction
/// moved money twice.
fn operator_rounds(ledger: &[LedgerRow]) -> BTreeMap<Key, i64> {
    let mut seen = BTreeSet::new();
    let mut out = BTreeMap::new();
    for r in ledger {
        assert!(
            seen.insert(&r.transaction_id),
            "the operator applied {} twice",
            r.transaction_id
        );
        let round: i64 = r.round.parse().expect("felt's round ids are numbers");
        *out.entry((round, r.player.clone())).or_insert(0) += r.delta.as_cents();
    }
    nonzero(out)
}

/// Every round and player a debit took money from at the operator has exactly one
/// credit, `round_closed`, done, and after every rollback of that round and player.
fn every_round_closed(transactions: &[TransactionRow]) -> usize {
    let mut by_key: BTreeMap<(&str, &str), Vec<&TransactionRow>> = BTreeMap::new();
    for t in transactions {
        by_key.entry((&t.round, &t.player)).or_default().push(t);
    }
    let mut closed = 0;
    for ((round, player), ts) in by_key {
        if !ts.iter().any(|t| t.call == "debit" && t.status == 200) {
            continue;
        }
        let credits: Vec<usize> = (0..ts.len()).filter(|i| ts[*i].call == "credit").collect();
        assert_eq!(
            credits.len(),
            1,
            "round {round} of {player}: one credit closes it at the operator: {ts:#?}"
        );
        let credit = ts[credits[0]];
        assert_eq!(credit.status, 200, "{credit:#?}");
        assert!(
            credit.content.contains(r#""round_closed":true"#),
            "{credit:#?}"
        );
        assert!(
            !ts[credits[0]..].iter().any(|t| t.call == "rollback"),
            "round {round} of {player}: a rollback after the closing credit: {ts:#?}"
        );
        closed += 1;
    }
    closed
}

/// The counts of felt's outbox; none is pending.
fn outbox(calls: &[WalletCall], counts: &mut Counts) {
    let pending: Vec<&WalletCall> = calls
        .iter()
        .filter(|c| c.state == WalletState::Pending)
        .collect();
    assert!(pending.is_empty(), "calls left pending: {pending:#?}");
    for c in calls {
        let kind = match c.kind {
            WalletCallKind::Debit => "debit",
            WalletCallKind::Credit => "credit",
            WalletCallKind::Rollback => "rollback",
        };
        *counts
            .calls
            .entry(format!("{kind} {}", c.state))
            .or_insert(0) += 1;
        counts.resends += u64::from(c.attempts.saturating_sub(1));
    }
}

/// Every check of the settled run on the books at `at`; the counts for the figures.
pub fn settled(at: &BooksAt, op: &OperatorBooks) -> Counts {
    let books = felt_store::open_books_read_only(at).expect("felt's books open");
    let calls = books
        .wallet_calls(&WalletQuery::default())
        .expect("the outbox");
    let (felt, mut counts) = felt_rounds(books.as_ref());
    outbox(&calls, &mut counts);
    let operator = operator_rounds(&op.ledger);
    let differ: Vec<(&Key, Option<&i64>, Option<&i64>)> = felt
        .keys()
        .chain(operator.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|k| felt.get(*k) != operator.get(*k))
        .map(|k| (k, felt.get(k), operator.get(k)))
        .collect();
    if !differ.is_empty() {
        for ((round, player), _, _) in &differ {
            let ours: Vec<&WalletCall> = calls
                .iter()
                .filter(|c| c.round.0 == *round && &c.player == player)
                .collect();
            let theirs: Vec<&TransactionRow> = op
                .transactions
                .iter()
                .filter(|t| t.round == round.to_string() && &t.player == player)
                .collect();
            eprintln!(
                "round {round} of {player}: felt's calls {ours:#?}\nthe operator's {theirs:#?}"
            );
        }
        panic!("(round, player), felt's books, the operator's ledger: {differ:#?}");
    }
    let closed = every_round_closed(&op.transactions);
    assert!(closed > 0, "no round took money");
    for (player, (start, now)) in &op.balances {
        let moved: i64 = op
            .ledger
            .iter()
            .filter(|r| &r.player == player)
            .map(|r| r.delta.as_cents())
            .sum();
        assert_eq!(start + moved, *now, "{player}: the operator's balance");
    }
    let report = books.check_books().expect("the audit");
    assert!(report.is_sound(), "{report}");
    counts
}
