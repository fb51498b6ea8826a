//! The ledger's rules that hold whatever engine keeps the books: what a movement may
//! do to two balances, and how an entry's two postings read back as a movement.

use crate::error::StoreError;
use crate::model::{Account, Movement, MovementKind, MovementRecord, RoundId};
use felt_core::money::Money;
use felt_core::round::MAX_BALANCE;

/// Whether a movement may take a player's wallet above the engine's balance limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    /// Refused above the limit: movements outside a round (deposits, adjustments),
    /// which nothing forces the books to take.
    Checked,
    /// Taken whatever the limit: a round's own money (its settlements and refunds),
    /// which the engine has already moved and the books must record.
    Round,
}

/// The balances of `m.from` and `m.to` after `m`, given theirs before: or why the
/// movement is refused (an overdraft, a wallet over the limit, an overflow).
pub(crate) fn balances_after(
    m: &Movement,
    from_balance: i64,
    to_balance: i64,
    limit: Limit,
) -> Result<(i64, i64), StoreError> {
    let amount = m.amount.as_cents();
    if m.from.must_stay_non_negative() && from_balance < amount {
        return Err(StoreError::InsufficientFunds {
            account: m.from.to_string(),
            balance: Money::cents(from_balance),
            amount: m.amount,
        });
    }
    if limit == Limit::Checked
        && matches!(m.to, Account::Player(_))
        && !matches!(to_balance.checked_add(amount), Some(b) if b <= MAX_BALANCE.as_cents())
    {
        return Err(StoreError::BalanceLimit {
            account: m.to.to_string(),
            balance: Money::cents(to_balance),
            amount: m.amount,
            limit: MAX_BALANCE,
        });
    }
    let from = from_balance
        .checked_sub(amount)
        .ok_or_else(|| too_large(m))?;
    let to = to_balance.checked_add(amount).ok_or_else(|| too_large(m))?;
    Ok((from, to))
}

/// `m` would take an account (or a meter's counter) past what an amount can hold.
pub(crate) fn too_large(m: &Movement) -> StoreError {
    StoreError::InvalidMovement {
        reason: format!(
            "{} of {} from {} to {} would overflow an account",
            m.kind, m.amount, m.from, m.to
        ),
    }
}

/// One posting as read, with its entry's columns (the rows of an entry come together,
/// ordered by entry).
pub(crate) struct PostingRow {
    pub entry: i64,
    pub round: Option<i64>,
    pub step: Option<i64>,
    pub kind: String,
    pub memo: String,
    pub at: String,
    pub account: Account,
    pub amount: i64,
}

/// The entries of these postings as movements; `Err` says what is damaged (an unknown
/// kind, postings that do not balance, a step number out of range).
pub(crate) fn movement_records(rows: Vec<PostingRow>) -> Result<Vec<MovementRecord>, String> {
    let mut out = Vec::new();
    let mut rows = rows.into_iter().peekable();
    while let Some(first) = rows.next() {
        let entry = first.entry;
        let mut postings = vec![(first.account, first.amount)];
        while let Some(next) = rows.next_if(|r| r.entry == entry) {
            postings.push((next.account, next.amount));
        }
        let kind = MovementKind::parse(&first.kind)
            .ok_or_else(|| format!("ledger entry {entry} has the unknown kind `{}`", first.kind))?;
        let movement = match postings.as_slice() {
            [(a, x), (b, y)] if *x == -*y && *x != 0 => {
                let (from, to) = if *x < 0 { (a, b) } else { (b, a) };
                Movement {
                    from: from.clone(),
                    to: to.clone(),
                    amount: Money::cents(x.abs()),
                    kind,
                    memo: first.memo,
                }
            }
            _ => {
                return Err(format!(
                    "ledger entry {entry} does not have two postings that balance"
                ))
            }
        };
        let step_seq = first
            .step
            .map(|s| {
                u32::try_from(s).map_err(|_| format!("a ledger entry has sequence number {s}"))
            })
            .transpose()?;
        out.push(MovementRecord {
            entry_id: entry,
            round: first.round.map(RoundId),
            step_seq,
            movement,
            at: first.at,
        });
    }
    Ok(out)
}

/// The filter (on `entries e`, for the engines' `movements`) of a player's newest
/// deposit outside any round with a given memo; `memo` and `player` are the
/// engine's placeholders of the two parameters.
pub(crate) fn last_deposit_filter(memo: &str, player: &str) -> String {
    format!(
        "e.id = (SELECT MAX(e2.id) FROM entries e2 \
         JOIN postings p2 ON p2.entry_id = e2.id \
         JOIN accounts a2 ON a2.id = p2.account_id \
         WHERE e2.kind = 'deposit' AND e2.round_id IS NULL AND e2.memo = {memo} \
         AND a2.kind = 'player' AND a2.name = {player})"
    )
}
