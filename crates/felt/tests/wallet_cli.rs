//! `felt wallet`: the outbox of wallet calls as the staff read it, all, pending only, or
//! one round's, in text and JSON.
// Amounts are written as units_cents (500_00 is 500.00).
#![allow(clippy::inconsistent_digit_grouping)]

mod common;

use felt_core::Money;
use felt_store::{
    funding_memo, Account, Movement, MovementKind, NewRound, NewWalletCall, SqliteStore, Step,
    Store, WalletAnswer, WalletCallKind,
};

fn call(kind: WalletCallKind, id: &str, cents: i64) -> NewWalletCall {
    NewWalletCall {
        transaction_id: id.into(),
        kind,
        player: "p-1001".into(),
        amount: Money::cents(cents),
        detail_json: "{}".into(),
    }
}

fn felt_wallet(db: &std::path::Path, extra: &[&str]) -> String {
    let mut args = vec!["wallet", "--db", db.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = common::run(&args, common::NO_DB, "");
    assert!(o.status.success(), "{}", common::stderr(&o));
    common::stdout(&o)
}

#[test]
fn the_staff_list_every_call_with_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("felt.db");
    let (r1, r2) = {
        let mut s = SqliteStore::open(&db).unwrap();
        let new = |seed| NewRound {
            game_id: "blazing-7s".into(),
            table_id: "t1".into(),
            seed: [seed; 32],
            ..NewRound::default()
        };
        let r1 = s.begin_round(&new(1)).unwrap();
        // The step brings the money of the debit it uses into the player's mirror
        // (a finished round rolls back a debit no step used).
        let funded = Movement::new(
            Account::Cashier,
            Account::player("p-1001"),
            Money::cents(10_00),
            MovementKind::Deposit,
        )
        .with_memo(funding_memo("felt-1-d1"));
        let bet = Step {
            wallet: vec![
                call(WalletCallKind::Debit, "felt-1-d1", 10_00),
                call(WalletCallKind::Debit, "felt-1-d2", 5_00),
            ],
            movements: vec![funded],
            ..Step::default()
        };
        s.record_step(r1, &bet).unwrap();
        s.wallet_answer(
            "felt-1-d1",
            &WalletAnswer::Acknowledged {
                balance: Money::cents(90_00),
            },
        )
        .unwrap();
        s.wallet_answer(
            "felt-1-d2",
            &WalletAnswer::Lost {
                detail: "timeout: 5 s".into(),
            },
        )
        .unwrap();
        let end = Step {
            wallet: vec![call(WalletCallKind::Credit, "felt-1-c", 0)],
            ..Step::default()
        };
        s.finish_round(r1, &end, "{}", None).unwrap();
        let r2 = s.begin_round(&new(2)).unwrap();
        let refused = Step {
            wallet: vec![call(WalletCallKind::Debit, "felt-2-d1", 500_00)],
            ..Step::default()
        };
        s.record_step(r2, &refused).unwrap();
        s.wallet_answer(
            "felt-2-d1",
            &WalletAnswer::Refused {
                code: "insufficient-funds".into(),
                message: "the balance is 90.00".into(),
            },
        )
        .unwrap();
        (r1, r2)
    };

    let text = felt_wallet(&db, &[]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    let line = |id: &str| {
        *lines
            .iter()
            .find(|l| l.split_whitespace().nth(1) == Some(id))
            .unwrap_or_else(|| panic!("no line of {id} in\n{text}"))
    };
    assert!(line("felt-1-d1").contains("acknowledged"), "{text}");
    assert!(line("felt-1-d1").contains("balance 90.00"), "{text}");
    assert!(
        line("felt-1-d2").contains("pending")
            && line("felt-1-d2").contains("rolled back by felt-1-d2-rollback"),
        "{text}"
    );
    assert!(
        line("felt-1-d2-rollback").contains("rolls back felt-1-d2"),
        "{text}"
    );
    assert!(
        line("felt-2-d1").contains("failed")
            && line("felt-2-d1").contains("refused: insufficient-funds: the balance is 90.00"),
        "{text}"
    );

    let pending = felt_wallet(&db, &["--pending", "--round", &r1.0.to_string(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&pending).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["transaction_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["felt-1-d2", "felt-1-d2-rollback", "felt-1-c"]);
    assert_eq!(v[0]["state"], "pending");
    assert_eq!(v[0]["amount"], "5.00");
    let other = felt_wallet(&db, &["--round", &r2.0.to_string(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&other).unwrap();
    assert_eq!(v[0]["state"], "failed");
    assert_eq!(v.as_array().unwrap().len(), 1);
}
