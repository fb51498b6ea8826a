//! What a table does with the operator's wallet (`felt serve --wallet`): the stake of
//! a player's bet or action as one debit, the money it brings into the books (the
//! player's account in felt's books is a mirror, topped up by exactly what each
//! acknowledged debit took and emptied by the round's closing credit), the closing
//! credits of a round, and the sending of a debit from the async runtime, its answer
//! coming back to the table as a message (a table never waits on the wallet).

use super::client::{Outcome, WalletClient};
use super::outbox::{CreditDetail, DebitDetail};
use super::wire::{Balance, BalanceAnswer, Debit, MeterAmount, RefusalCode, Wager, Win, WireMoney};
use crate::protocol::Code;
use felt_core::round::{Account as Acc, BetKind, Move, Why};
use felt_core::{Action, ActionError, Event, Money};
use felt_session::journal::{Ctx, Extra, PlayRound, Setup};
use felt_store::{
    credit_id, Account, Movement, MovementKind, NewWalletCall, RoundId, WalletCallKind,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// Told of a player whose balance changed.
type Listener = Box<dyn Fn(&str) + Send + Sync>;

/// The operator's balances as its last answers gave them, by player (felt's player
/// name is the operator's player id).
#[derive(Default)]
pub struct Balances {
    known: Mutex<HashMap<String, Money>>,
    /// Told of each player whose balance changes (the server tells the player's table).
    changed: OnceLock<Listener>,
}

impl Balances {
    /// The last balance the operator gave for `player`.
    pub fn get(&self, player: &str) -> Option<Money> {
        self.known.lock().ok()?.get(player).copied()
    }

    /// Notes the balance the operator gave for `player` (telling whoever listens
    /// when it changed).
    pub fn set(&self, player: &str, balance: Money) {
        let moved = self
            .known
            .lock()
            .is_ok_and(|mut m| m.insert(player.to_string(), balance) != Some(balance));
        if let (true, Some(tell)) = (moved, self.changed.get()) {
            tell(player);
        }
    }

    /// Calls `tell` with each player whose balance changes from now on (once: a
    /// second listener is not taken).
    pub fn on_change(&self, tell: impl Fn(&str) + Send + Sync + 'static) {
        let _ = self.changed.set(Box::new(tell));
    }
}

/// The wallet as the tables use it.
#[derive(Clone)]
pub struct TableWallet {
    /// The client of the operator's wallet.
    pub client: WalletClient,
    /// Where the calls run.
    pub runtime: tokio::runtime::Handle,
    /// The operator's balances as last answered.
    pub balances: Arc<Balances>,
    /// Wakes the outbox worker (a round closed: its credits are due now).
    pub wake: Arc<tokio::sync::Notify>,
    /// Set when the server stops: the outbox worker ends after its pass.
    pub stopped: Arc<std::sync::atomic::AtomicBool>,
}

/// What a server needs to run its tables through an operator's wallet.
pub struct WalletMode {
    /// Where the wallet is, and its secret.
    pub settings: super::WalletSettings,
    /// The async runtime the calls run on.
    pub runtime: tokio::runtime::Handle,
    /// A connection of the outbox worker's own to the books.
    pub outbox: Box<dyn felt_store::Store + Send>,
    /// How the outbox worker retries.
    pub policy: super::outbox::RetryPolicy,
    /// How often the outbox worker looks for due calls (besides being woken).
    pub every: std::time::Duration,
}

impl WalletMode {
    /// Starts the outbox worker on the runtime; returns the wallet for the tables.
    pub fn start(self, metrics: Arc<crate::metrics::Metrics>) -> Result<TableWallet, String> {
        let client = WalletClient::new(self.settings, metrics)?;
        let wallet = TableWallet {
            client: client.clone(),
            runtime: self.runtime.clone(),
            balances: Arc::default(),
            wake: Arc::default(),
            stopped: Arc::default(),
        };
        let store: super::outbox::SharedStore = Arc::new(Mutex::new(self.outbox));
        let worker = super::outbox::OutboxWorker::new(store, client, self.policy)
            .with_balances(wallet.balances.clone());
        self.runtime.spawn(worker.run_woken(
            self.every,
            wallet.wake.clone(),
            wallet.stopped.clone(),
        ));
        Ok(wallet)
    }
}

/// A debit's answer, delivered to its table.
#[derive(Debug)]
pub struct Answered {
    /// The debit.
    pub transaction_id: String,
    /// What came of it.
    pub outcome: Outcome<BalanceAnswer>,
}

impl TableWallet {
    /// Ends the outbox worker (the server stops; what is left in the outbox is the
    /// next start's, whatever the process does after).
    pub fn stop_worker(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Sends `debit` from the runtime; its answer goes to `reply` (made into the
    /// table's message by `wrap`).
    pub fn send_debit<T: Send + 'static>(
        &self,
        debit: Debit,
        reply: std::sync::mpsc::Sender<T>,
        wrap: fn(Answered) -> T,
    ) {
        let client = self.client.clone();
        self.runtime.spawn(async move {
            let outcome = client.send(&debit).await;
            let _ = reply.send(wrap(Answered {
                transaction_id: debit.transaction_id,
                outcome,
            }));
        });
    }

    /// Asks the operator for `player`'s balance, notes it, and tells the table
    /// (`then`) when it is known.
    pub fn fetch_balance<T: Send + 'static>(
        &self,
        player: &str,
        reply: std::sync::mpsc::Sender<T>,
        then: T,
    ) {
        let (client, balances) = (self.client.clone(), self.balances.clone());
        let call = Balance {
            request_id: super::wire::request_id(),
            player: player.to_string(),
        };
        self.runtime.spawn(async move {
            if let Outcome::Answered(a) = client.send(&call).await {
                balances.set(&call.player, a.balance.0);
                let _ = reply.send(then);
            }
        });
    }
}

/// What a bet or an action stakes, as its debit reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stake {
    /// Everything it takes from the player.
    pub amount: Money,
    /// By wager.
    pub wagers: Vec<Wager>,
    /// The part of the wagers that goes to progressive meters.
    pub jackpot: Vec<MeterAmount>,
}

/// The name a bet has on the wire.
fn bet_name(bet: BetKind) -> String {
    match bet {
        BetKind::Main => "main".into(),
        BetKind::Double => "double".into(),
        BetKind::Split => "split".into(),
        BetKind::Insurance => "insurance".into(),
        BetKind::Side(id) => id.as_str().to_string(),
    }
}

fn moves(events: &[Event]) -> impl Iterator<Item = &Move> {
    events.iter().filter_map(|e| match e {
        Event::Moved(m) => Some(m),
        _ => None,
    })
}

/// What `actions` of engine seat `seat` stake, tried on a copy of the round (nothing
/// changes); `Ok(None)` when they take nothing from the player (a hit, a stand), the
/// engine's refusal when it refuses them. For bets, the progressive contributions
/// the deal would make of them are reported too.
pub fn stake_of(
    engine: &PlayRound,
    ctx: &Ctx,
    seat: u8,
    actions: &[Action],
) -> Result<Option<Stake>, ActionError> {
    let mut probe = engine.clone();
    let mut meters = felt_core::meter::MemoryMeters::new();
    for (id, reset) in &ctx.meters {
        if let Some(id) = felt_core::ShortId::new(id) {
            meters.set(id, *reset);
        }
    }
    let mut events = Vec::new();
    for a in actions {
        probe.apply(*a, &mut meters, &mut events)?;
    }
    let mut wagers: Vec<Wager> = Vec::new();
    let mut amount = Money::ZERO;
    for m in moves(&events).filter(|m| m.from == Acc::Seat { seat }) {
        amount += m.amount;
        wagers.push(Wager {
            spot: m.at.spot + 1,
            bet: bet_name(m.bet),
            amount: WireMoney(m.amount),
        });
    }
    if amount == Money::ZERO {
        return Ok(None);
    }
    let mut jackpot: BTreeMap<String, Money> = BTreeMap::new();
    if actions.iter().any(|a| matches!(a, Action::Bet { .. })) {
        let mut dealt = Vec::new();
        if probe.apply(Action::Deal, &mut meters, &mut dealt).is_ok() {
            for m in moves(&dealt).filter(|m| m.why == Why::MeterIncrement && m.at.seat == seat) {
                if let Acc::Meter { id } = m.to {
                    let e = jackpot
                        .entry(id.as_str().to_string())
                        .or_insert(Money::ZERO);
                    *e += m.amount;
                }
            }
        }
    }
    Ok(Some(Stake {
        amount,
        wagers,
        jackpot: jackpot
            .into_iter()
            .map(|(meter, amount)| MeterAmount {
                meter,
                amount: WireMoney(amount),
            })
            .collect(),
    }))
}

/// What an insurance bet of `amount` on spot `spot` (from 0) stakes: a debit of its
/// own, before the dealer's peek (nothing of it goes to a meter).
pub fn insurance_stake(spot: u8, amount: Money) -> Stake {
    Stake {
        amount,
        wagers: vec![Wager {
            spot: spot + 1,
            bet: bet_name(BetKind::Insurance),
            amount: WireMoney(amount),
        }],
        jackpot: Vec::new(),
    }
}

/// The debit of `stake` for `player` in `round`, as the outbox keeps it.
pub fn debit_call(id: &str, player: &str, stake: &Stake) -> Result<NewWalletCall, String> {
    let detail = DebitDetail {
        wagers: stake.wagers.clone(),
        jackpot: stake.jackpot.clone(),
    };
    Ok(NewWalletCall {
        transaction_id: id.to_string(),
        kind: WalletCallKind::Debit,
        player: player.to_string(),
        amount: stake.amount,
        detail_json: serde_json::to_string(&detail).map_err(|e| e.to_string())?,
    })
}

/// The debit as it goes on the wire.
pub fn debit_request(call: &NewWalletCall, round: RoundId, stake: &Stake) -> Debit {
    Debit {
        request_id: super::wire::request_id(),
        transaction_id: call.transaction_id.clone(),
        player: call.player.clone(),
        round: round.0.to_string(),
        amount: WireMoney(call.amount),
        wagers: stake.wagers.clone(),
        jackpot: stake.jackpot.clone(),
    }
}

/// What an acknowledged debit brings into the books with the step that uses it: its
/// amount, into the player's (mirror) account.
pub fn funding(debit: &str, player: &str, amount: Money) -> Extra {
    Extra {
        before: vec![Movement::new(
            Account::Cashier,
            Account::player(player),
            amount,
            MovementKind::Deposit,
        )
        .with_memo(felt_store::funding_memo(debit))],
        ..Extra::default()
    }
}

/// The closing credits of a round ([`felt_session::journal::Closing`]): for every
/// player who staked, one credit with `round_closed`, paying what the round paid
/// them (wins, pushes, refunds, a progressive's award; `0.00` when nothing), and the
/// money out of their mirror account to the operator. A round the game voids (its
/// shoe ran out) pays nothing by credit: the books roll its debits back instead.
pub fn closing(round: RoundId, setup: &Setup, events: &[Event]) -> Extra {
    let mut extra = Extra::default();
    let voided = events.iter().any(|e| matches!(e, Event::Voided));
    for (i, player) in setup.players.iter().enumerate() {
        let seat = i as u8;
        let me = Acc::Seat { seat };
        if !moves(events).any(|m| m.from == me) {
            continue;
        }
        let mut wins: BTreeMap<(u8, u8, String), Money> = BTreeMap::new();
        let mut award: Option<MeterAmount> = None;
        let mut total = Money::ZERO;
        for m in moves(events).filter(|m| m.to == me) {
            total += m.amount;
            match (m.why, m.from) {
                (Why::MeterShare, Acc::Meter { id }) if award.is_none() => {
                    award = Some(MeterAmount {
                        meter: id.as_str().to_string(),
                        amount: WireMoney(m.amount),
                    });
                }
                _ => {
                    let key = (m.at.spot + 1, m.at.hand + 1, bet_name(m.bet));
                    let w = wins.entry(key).or_insert(Money::ZERO);
                    *w += m.amount;
                }
            }
        }
        if voided {
            wins.clear();
            award = None;
        }
        let detail = CreditDetail {
            round_closed: true,
            wins: wins
                .into_iter()
                .map(|((spot, hand, bet), amount)| Win {
                    spot,
                    hand,
                    bet,
                    amount: WireMoney(amount),
                })
                .collect(),
            jackpot_award: award,
        };
        let id = credit_id(round, seat);
        if total > Money::ZERO {
            let memo = match voided {
                true => format!("wallet rollbacks of round {}", round.0),
                false => format!("wallet credit {id}"),
            };
            extra.after.push(
                Movement::new(
                    Account::player(player.clone()),
                    Account::Cashier,
                    total,
                    MovementKind::Withdrawal,
                )
                .with_memo(memo),
            );
        }
        extra.wallet.push(NewWalletCall {
            transaction_id: id,
            kind: WalletCallKind::Credit,
            player: player.clone(),
            amount: if voided { Money::ZERO } else { total },
            detail_json: serde_json::to_string(&detail).unwrap_or_default(),
        });
    }
    extra
}

/// The table's code for an operator's refusal.
pub fn code_of(refusal: RefusalCode) -> Code {
    match refusal {
        RefusalCode::InsufficientFunds => Code::InsufficientFunds,
        RefusalCode::LimitReached => Code::LimitReached,
        RefusalCode::PlayerBlocked => Code::PlayerBlocked,
        RefusalCode::SessionExpired => Code::SessionExpired,
        RefusalCode::TransactionMismatch | RefusalCode::BadSignature => Code::WalletUnavailable,
    }
}

#[cfg(test)]
// Amounts are written as units_cents (100_00 is 100.00).
#[allow(clippy::inconsistent_digit_grouping)]
mod tests {
    use super::*;
    use felt_core::round::Place;

    fn moved(from: Acc, to: Acc, cents: i64, why: Why) -> Event {
        Event::Moved(Move {
            from,
            to,
            amount: Money::cents(cents),
            at: Place {
                seat: 0,
                spot: 0,
                hand: 0,
            },
            bet: BetKind::Main,
            why,
        })
    }

    fn setup() -> Setup {
        Setup {
            players: vec!["p-1".into(), "p-2".into()],
            balances: vec![Money::cents(100_00); 2],
            spots: 1,
            rules: "classic".into(),
            rules_sha256: String::new(),
        }
    }

    #[test]
    fn the_closing_credit_pays_what_the_round_paid_and_empties_the_mirror() {
        let seat = Acc::Seat { seat: 0 };
        let events = [
            moved(seat, Acc::Felt, 10_00, Why::Wager),
            moved(Acc::Felt, seat, 10_00, Why::StakeReturned),
            moved(Acc::House, seat, 10_00, Why::Winnings),
        ];
        let extra = closing(RoundId(7), &setup(), &events);
        // Only the player who staked is credited.
        assert_eq!(extra.wallet.len(), 1);
        let credit = &extra.wallet[0];
        assert_eq!(credit.transaction_id, "felt-7-s1-c");
        assert_eq!(credit.amount, Money::cents(20_00));
        let detail: CreditDetail = serde_json::from_str(&credit.detail_json).unwrap();
        assert!(detail.round_closed);
        assert_eq!(detail.wins.len(), 1);
        assert_eq!(detail.wins[0].amount, WireMoney(Money::cents(20_00)));
        assert_eq!(extra.after.len(), 1);
        assert_eq!(extra.after[0].amount, Money::cents(20_00));
        assert_eq!(extra.after[0].to, Account::Cashier);
    }

    #[test]
    fn a_round_the_game_voids_closes_with_nothing_credited() {
        let seat = Acc::Seat { seat: 0 };
        let events = [
            moved(seat, Acc::Felt, 10_00, Why::Wager),
            Event::Voided,
            moved(Acc::Felt, seat, 10_00, Why::Refund),
        ];
        let extra = closing(RoundId(7), &setup(), &events);
        assert_eq!(extra.wallet[0].amount, Money::ZERO);
        // The refunded stake still leaves the mirror: the rollbacks return it.
        assert_eq!(extra.after[0].amount, Money::cents(10_00));
    }
}
