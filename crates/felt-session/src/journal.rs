//! The bridge between the engine and the books: every step of a round (its action,
//! its events and the money they move) is written to the store in one transaction
//! before the table shows it, and a stored round can be replayed through the engine.
//!
//! A round's steps:
//!
//! 1. `{"setup": {...}}`: who sits (player names by seat), their balances, the spots per
//!    seat, and the rules (source and SHA-256). The engine's `begin` runs here (a
//!    shuffle when one is due, the burn): it reads only the stored shoe and seed.
//! 2. `{"action": ...}`: each action of the engine ([`Action`] as JSON: bets, the deal,
//!    decisions), with the chance steps (cards, peek, dealer play, settlement) that the
//!    engine runs after it.
//! 3. No action: a chance step nobody decided (rare at the terminal table).
//!
//! Money: every `Moved` event becomes a [`Movement`] of the same step: a seat is the
//! player's wallet, the felt is the table's felt account, the house is the game's
//! house account, a meter is the shared meter account.
//!
//! Progressive meters: a step that may touch a meter is computed while the books are
//! locked ([`Store::record_step_with`]): the engine starts from the meter's current
//! amount in the database, and its contributions, awards and refills are written in
//! the same transaction. Another table sharing the meter waits for the lock, so an
//! award is always the share of the meter as it truly stands, and nothing is counted
//! twice. The meter amount a step started from is an input of the round like an
//! action: a replay takes it from the step's first `meter` event of each meter (its
//! `before` value) and checks everything else against the log.

use crate::dealing::Dealing;
use crate::error::{Result, SessionError};
use felt_core::meter::MemoryMeters;
use felt_core::round::{Account as Acc, Move, Why};
use felt_core::{Action, ActionError, Event, Money, Phase, Round, Rules, Shoe, Table};
use felt_store::{
    Account, Ended, Movement, MovementKind, NewRound, NewWalletCall, RoundId, RoundRecord,
    RoundStatus, Step, StepWrite, Store, StoreError,
};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The engine's round as the table plays it.
pub type PlayRound = Round<ChaCha20Rng>;

/// The action text of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepAction {
    /// Opens the round.
    Setup(Setup),
    /// An engine action.
    Action(Action),
    /// An engine action a client sent under its own id (applied once per round).
    Client(ClientStep),
    /// Engine actions a client sent as one message under its own id (a player's bets:
    /// every wager of every spot), applied all together or not at all, once per round.
    Batch(ClientBatch),
}

impl StepAction {
    /// The engine actions of the step, in order (none for a setup).
    pub fn actions(&self) -> Vec<Action> {
        match self {
            StepAction::Setup(_) => Vec::new(),
            StepAction::Action(a) => vec![*a],
            StepAction::Client(c) => vec![c.action],
            StepAction::Batch(b) => b.actions.clone(),
        }
    }
}

/// Actions a client sent as one, with the id it gave them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientBatch {
    /// The client's id (the same id in a round is applied once).
    pub id: String,
    /// The actions, in order.
    pub actions: Vec<Action>,
}

/// The most actions in one batch (every wager of a seat's spots).
pub const MAX_BATCH: usize = 64;

/// An action a client sent, with the id it gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientStep {
    /// The client's id for the action: the same id in a round is applied once.
    pub id: String,
    /// The action.
    pub action: Action,
}

/// The longest client action id (bytes).
pub const MAX_ACTION_ID: usize = 64;

/// Who plays a round, with what, under which rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The player (wallet) of each seat, seat 0 first.
    pub players: Vec<String>,
    /// Their balances when the round opened.
    pub balances: Vec<Money>,
    /// Betting spots per seat.
    pub spots: u8,
    /// The game as given to `felt play` (a preset name or a rules file).
    pub rules: String,
    /// SHA-256 of the rules' canonical text, which the books keep with the round
    /// (rounds written before the books kept rules: of the rules' JSON form).
    pub rules_sha256: String,
}

/// A table of the books: the rules, the engine's table and the accounts it uses.
pub struct Ctx {
    /// The rules.
    pub rules: Rules,
    /// The game argument the rules came from.
    pub source: String,
    /// The engine's table.
    pub table: Table,
    /// The table id in the books (its felt account and its shoe).
    pub table_id: String,
    /// The house account's name (the game id).
    pub house: String,
    /// The progressive meters the table's side bets name.
    pub meters: Vec<(String, Money)>,
    /// The rules' canonical text (what the books keep with each round).
    pub canonical: String,
}

impl Ctx {
    /// The context for these rules at `table_id`.
    pub fn new(rules: Rules, source: &str, table_id: String) -> Result<Ctx> {
        let table = Table::new(&rules)?;
        let mut meters: Vec<(String, Money)> = Vec::new();
        for (id, reset) in table.meters() {
            if !meters.iter().any(|(m, _)| m == id.as_str()) {
                meters.push((id.as_str().to_string(), reset));
            }
        }
        Ok(Ctx {
            house: rules.game().id.clone(),
            canonical: rules.canonical_toml(),
            rules,
            source: source.to_string(),
            table,
            table_id,
            meters,
        })
    }

    /// SHA-256 of the rules' canonical text, lowercase hex: the key the books keep
    /// them under.
    pub fn rules_hash(&self) -> String {
        felt_store::sha256_hex(self.canonical.as_bytes())
    }

    fn meter_ids(&self) -> Vec<&str> {
        self.meters.iter().map(|(m, _)| m.as_str()).collect()
    }

    /// Meters in memory at these amounts (in the order of [`Ctx::meters`]).
    fn memory_meters(&self, values: &[Money]) -> MemoryMeters {
        let mut m = MemoryMeters::new();
        for ((id, _), v) in self.meters.iter().zip(values) {
            if let Some(id) = felt_core::ShortId::new(id) {
                m.set(id, *v);
            }
        }
        m
    }

    /// The store account of an engine account.
    pub fn account(&self, a: &Acc, players: &[String]) -> Result<Account> {
        Ok(match a {
            Acc::Seat { seat } => Account::player(
                players
                    .get(usize::from(*seat))
                    .ok_or_else(|| SessionError::Damaged {
                        round: RoundId(0),
                        what: format!("money moved for seat {}, which has no player", seat + 1),
                    })?
                    .clone(),
            ),
            Acc::Felt => Account::felt(self.table_id.clone()),
            Acc::House => Account::house(self.house.clone()),
            Acc::Meter { id } => Account::meter(id.as_str()),
        })
    }

    /// The movement of the books for an engine `Moved` event.
    pub fn movement(&self, m: &Move, players: &[String]) -> Result<Movement> {
        let kind = match m.why {
            Why::Wager => MovementKind::Wager,
            Why::Withdrawn => MovementKind::Refund,
            Why::StakeReturned | Why::Winnings => MovementKind::Payout,
            Why::StakeLost => MovementKind::Loss,
            Why::MeterIncrement => MovementKind::Contribution,
            Why::MeterShare => MovementKind::Award,
            Why::MeterRefill => MovementKind::Seed,
            Why::Refund => MovementKind::Refund,
        };
        let why = serde_json::to_value(m.why)?;
        let bet = serde_json::to_value(m.bet)?;
        let plain = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let memo = format!(
            "seat {} spot {} hand {}: {} {}",
            m.at.seat + 1,
            m.at.spot + 1,
            m.at.hand + 1,
            plain(&bet),
            plain(&why)
        );
        Ok(Movement::new(
            self.account(&m.from, players)?,
            self.account(&m.to, players)?,
            m.amount,
            kind,
        )
        .with_memo(memo))
    }

    /// A step of the books from an action and the events it produced.
    pub fn step(
        &self,
        action: Option<&StepAction>,
        events: &[Event],
        players: &[String],
    ) -> Result<Step> {
        let mut step = Step {
            action: action.map(serde_json::to_string).transpose()?,
            ..Step::default()
        };
        for e in events {
            step.events.push(serde_json::to_string(e)?);
            if let Event::Moved(m) = e {
                if m.amount > Money::ZERO {
                    step.movements.push(self.movement(m, players)?);
                }
            }
        }
        Ok(step)
    }
}

/// SHA-256 of rules in their JSON form, lowercase hex: how rounds written before the
/// books kept the rules text named their rules.
pub fn legacy_rules_hash(rules: &Rules) -> String {
    let json = serde_json::to_string(rules).unwrap_or_default();
    hex(&Sha256::digest(json.as_bytes()))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The result a finished round stores: each seat's net and balance.
pub fn result_json(setup: &Setup, engine: &PlayRound) -> String {
    let seats: Vec<serde_json::Value> = setup
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let now = engine.balance(i as u8).unwrap_or_default();
            let before = setup.balances.get(i).copied().unwrap_or_default();
            serde_json::json!({
                "seat": i + 1,
                "player": p,
                "net": now - before,
                "balance": now,
            })
        })
        .collect();
    serde_json::json!({ "seats": seats }).to_string()
}

/// What a step writes besides the engine's own money: with an operator's wallet, the
/// money a debit brought in (before the step's movements) or the closing credit takes
/// out (after them), and the wallet calls that go with it. Money coming in or going out
/// this way is a `deposit` from, or a `withdrawal` to, the cashier (the world outside
/// the books); a replay leaves those out, as the engine never makes them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extra {
    /// Movements written before the step's own.
    pub before: Vec<Movement>,
    /// Movements written after the step's own.
    pub after: Vec<Movement>,
    /// Wallet calls written with the step.
    pub wallet: Vec<NewWalletCall>,
}

impl Extra {
    fn add_to(&self, step: &mut Step) {
        if self.before.is_empty() && self.after.is_empty() && self.wallet.is_empty() {
            return;
        }
        let own = std::mem::take(&mut step.movements);
        step.movements = self.before.clone();
        step.movements.extend(own);
        step.movements.extend(self.after.iter().cloned());
        step.wallet.extend(self.wallet.iter().cloned());
    }
}

/// What the step that ends a round adds (the closing credits): computed from the
/// round's id, its setup and every event of the round, the last step's included.
pub type Closing = fn(RoundId, &Setup, &[Event]) -> Extra;

/// The clock a round's end counts its players' usage at ([`Live::usage_clock`]).
pub type UsageClock = std::sync::Arc<dyn Fn() -> i64 + Send + Sync>;

/// Whether a movement of a step is one the engine made (not an [`Extra`]'s).
fn engine_made(m: &Movement) -> bool {
    !matches!(m.kind, MovementKind::Deposit | MovementKind::Withdrawal)
}

/// A round being played live: each step goes to the books before it is shown.
pub struct Live {
    /// The round's id in the books (while the round is [pending](Live::is_pending), the
    /// id it expects to get).
    pub id: RoundId,
    /// The engine.
    pub engine: PlayRound,
    /// Who plays.
    pub setup: Setup,
    /// A round not yet in the books: what opening it writes.
    pending: Option<Pending>,
    /// The game voided the round (the shoe ran out): it ends voided, not finished.
    voided: bool,
    /// The client action ids applied in this round.
    applied: std::collections::BTreeSet<String>,
    /// Written with the next step the books accept, then cleared ([`Extra`]).
    pub funding: Extra,
    /// Adds to the step that ends the round (the closing credits), if set.
    pub closing: Option<Closing>,
    /// If set, the clock (Unix ms) at which the round's end counts what each player
    /// staked and got back against their limits, in the transaction that ends it.
    pub usage_clock: Option<UsageClock>,
    /// Every event of the round so far, kept while a [`Closing`] is set (the
    /// embedded play money keeps only the setup's).
    history: Vec<Event>,
}

/// A round set up in memory and not yet written: its row and its setup step are written
/// together with its first accepted action (a bet), so a round nobody bets on leaves
/// nothing in the books.
struct Pending {
    new: NewRound,
    setup_step: Step,
}

/// What a live step gave.
pub enum Stepped {
    /// Written; these are its events, to show.
    Done(Vec<Event>),
    /// The engine refused the action (nothing changed, nothing written).
    Refused(ActionError),
    /// The action was for another round than the one in play (a late or retried
    /// action): nothing changed.
    OtherRound {
        /// The round the action named.
        asked: RoundId,
        /// The round in play.
        current: RoundId,
    },
    /// An action with this client id was already applied in this round: it is not
    /// applied again (a retry), nothing changed.
    AlreadyApplied,
    /// The client action id is empty, too long or not printable: nothing changed.
    BadActionId,
    /// A batch of no action, or of more than [`MAX_BATCH`]: nothing changed.
    BadBatch,
    /// The books refused the player's action: their wallet holds `balance` (it moved
    /// since the round opened) and cannot pay `amount`. Nothing changed.
    Unfunded {
        /// The wallet's balance in the books.
        balance: Money,
        /// What the step would have taken from it.
        amount: Money,
    },
}

/// The action(s) of a step.
#[derive(Clone, Copy)]
enum Batched<'a> {
    /// Chance steps only.
    Chance,
    /// One action.
    One(Action),
    /// Several, all or none.
    Many(&'a [Action]),
}

impl Batched<'_> {
    fn apply(
        self,
        engine: &mut PlayRound,
        meters: &mut MemoryMeters,
        events: &mut Vec<Event>,
    ) -> std::result::Result<(), ActionError> {
        match self {
            Batched::Chance => {
                engine.run_chance(meters, events);
                Ok(())
            }
            Batched::One(a) => engine.apply(a, meters, events),
            Batched::Many(all) => all
                .iter()
                .try_for_each(|a| engine.apply(*a, meters, events)),
        }
    }

    /// The step's action text: a client's action carries its id.
    fn step_action(self, client_id: Option<&str>) -> Option<StepAction> {
        match (self, client_id) {
            (Batched::Chance, _) => None,
            (Batched::One(a), None) => Some(StepAction::Action(a)),
            (Batched::One(a), Some(id)) => Some(StepAction::Client(ClientStep {
                id: id.to_string(),
                action: a,
            })),
            (Batched::Many(all), id) => Some(StepAction::Batch(ClientBatch {
                id: id.unwrap_or_default().to_string(),
                actions: all.to_vec(),
            })),
        }
    }
}

/// What happened, in a sentence: the refusal's reason (or that the step was written).
impl std::fmt::Display for Stepped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stepped::Done(events) => write!(f, "written ({} events)", events.len()),
            Stepped::Refused(e) => write!(f, "{e}"),
            Stepped::OtherRound { asked, current } => write!(
                f,
                "the action is for round {asked}, but round {current} is in play: nothing \
                 was done"
            ),
            Stepped::AlreadyApplied => {
                write!(
                    f,
                    "an action with this id was already applied in this round"
                )
            }
            Stepped::BadBatch => write!(
                f,
                "a batch holds 1 to {MAX_BATCH} actions: nothing was done"
            ),
            Stepped::BadActionId => write!(
                f,
                "an action id is 1 to {MAX_ACTION_ID} printable ASCII characters"
            ),
            Stepped::Unfunded { balance, amount } => write!(
                f,
                "your balance is {balance} and does not cover {amount}: nothing was done"
            ),
        }
    }
}

impl Live {
    /// Sets a new round up in memory (the engine's `begin`: a shuffle when one is due,
    /// the burn) without writing it: the round, its seed, its shoe (with a new shoe's
    /// commitment), its rules and its setup step go to the books with its first
    /// accepted action ([`Live::step`]), so a round the player leaves before betting
    /// leaves no trace. Returns the round and the setup's events.
    pub fn begin(
        store: &mut dyn Store,
        ctx: &Ctx,
        dealing: Dealing,
        players: &[String],
        spots: u8,
    ) -> Result<(Live, Vec<Event>)> {
        let mut balances = Vec::with_capacity(players.len());
        for p in players {
            balances.push(store.balance(&Account::player(p.clone()))?);
        }
        Live::begin_with(store, ctx, dealing, players, &balances, spots)
    }

    /// [`Live::begin`] with the players' balances given (with an operator's wallet,
    /// the balances the operator last gave; the books hold none of it between rounds).
    pub fn begin_with(
        store: &mut dyn Store,
        ctx: &Ctx,
        dealing: Dealing,
        players: &[String],
        balances: &[Money],
        spots: u8,
    ) -> Result<(Live, Vec<Event>)> {
        let new = NewRound {
            game_id: ctx.house.clone(),
            table_id: ctx.table_id.clone(),
            seed: dealing.round_seed,
            shoe: Some(dealing.shoe.to_bytes()),
            shoe_seed: dealing.shoe_ref,
            shoe_round: dealing.shoe_round,
            rules: Some(ctx.canonical.clone()),
            lab: dealing.lab,
        };
        let id = store.next_round_id()?;
        let (engine, setup, events, setup_step) = Live::set_up_with(
            ctx,
            dealing.shoe,
            dealing.round_seed,
            players,
            balances,
            spots,
            id,
        )?;
        let live = Live {
            id,
            engine,
            setup,
            pending: Some(Pending { new, setup_step }),
            voided: false,
            applied: Default::default(),
            funding: Extra::default(),
            closing: None,
            usage_clock: None,
            history: events.clone(),
        };
        Ok((live, events))
    }

    /// A round the books already hold, at the state its replay reached.
    pub fn resumed(id: RoundId, engine: PlayRound, setup: Setup) -> Live {
        Live {
            id,
            engine,
            setup,
            pending: None,
            voided: false,
            applied: Default::default(),
            funding: Extra::default(),
            closing: None,
            usage_clock: None,
            history: Vec::new(),
        }
    }

    /// The events of a resumed round so far (from its replay): what its closing
    /// credits are computed from.
    pub fn with_history(mut self, events: Vec<Event>) -> Live {
        self.history = events;
        self
    }

    /// Writes the round now if it is not yet in the books (with its setup step, no
    /// action): so that a wallet call can be written for it before its first bet.
    pub fn open_now(&mut self, store: &mut dyn Store, ctx: &Ctx) -> Result<()> {
        self.open(store, ctx)
    }

    /// Whether the round is not yet in the books (no action of it accepted yet).
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The engine's round, begun, with its setup and the setup step to write.
    #[allow(clippy::too_many_arguments)]
    fn set_up(
        store: &mut dyn Store,
        ctx: &Ctx,
        shoe: Shoe,
        seed: [u8; 32],
        players: &[String],
        spots: u8,
        number: RoundId,
    ) -> Result<(PlayRound, Setup, Vec<Event>, Step)> {
        let mut balances = Vec::with_capacity(players.len());
        for p in players {
            balances.push(store.balance(&Account::player(p.clone()))?);
        }
        Live::set_up_with(ctx, shoe, seed, players, &balances, spots, number)
    }

    /// [`Live::set_up`] with the players' balances given.
    fn set_up_with(
        ctx: &Ctx,
        shoe: Shoe,
        seed: [u8; 32],
        players: &[String],
        balances: &[Money],
        spots: u8,
        number: RoundId,
    ) -> Result<(PlayRound, Setup, Vec<Event>, Step)> {
        let setup = Setup {
            players: players.to_vec(),
            balances: balances.to_vec(),
            spots,
            rules: ctx.source.clone(),
            rules_sha256: ctx.rules_hash(),
        };
        let mut engine = ctx
            .table
            .round(shoe, ChaCha20Rng::from_seed(seed), balances)?;
        // The round's events carry its number in the books.
        engine.number_next_round(u64::try_from(number.0).unwrap_or(0));
        let mut events = Vec::new();
        engine.begin(&mut events)?;
        let step = ctx.step(Some(&StepAction::Setup(setup.clone())), &events, players)?;
        Ok((engine, setup, events, step))
    }

    /// Writes a pending round (its row, then its setup step) and takes its real id. If
    /// the setup step cannot be written, the round is voided at once (best effort: a
    /// round with no bet is voided by the next start of its table anyway).
    fn open(&mut self, store: &mut dyn Store, ctx: &Ctx) -> Result<()> {
        let Some(mut pending) = self.pending.take() else {
            return Ok(());
        };
        let id = store.begin_round(&pending.new)?;
        let written = (|| -> Result<()> {
            if id != self.id {
                // Another table began the round this one expected: set it up again
                // under its real number, the same shoe, seed and balances (the same
                // cards, and the same answer to the bet that opens it).
                let bytes = pending.new.shoe.clone().unwrap_or_default();
                let shoe = Shoe::from_bytes(&bytes)
                    .map_err(|source| SessionError::Shoe { round: id, source })?;
                let (engine, _, _, step) = Live::set_up_with(
                    ctx,
                    shoe,
                    pending.new.seed,
                    &self.setup.players,
                    &self.setup.balances,
                    self.setup.spots,
                    id,
                )?;
                self.engine = engine;
                pending.setup_step = step;
            }
            store.record_step(id, &pending.setup_step)?;
            Ok(())
        })();
        self.id = id;
        if let Err(e) = written {
            void_unbet(store, id, &e.to_string());
            return Err(e);
        }
        Ok(())
    }

    /// Writes the setup step of round `id` (begun with this shoe and seed), with the
    /// players' balances as the books hold them now.
    pub fn setup(
        store: &mut dyn Store,
        ctx: &Ctx,
        id: RoundId,
        shoe: Shoe,
        seed: [u8; 32],
        players: &[String],
        spots: u8,
    ) -> Result<(Live, Vec<Event>)> {
        let (engine, setup, events, step) =
            Live::set_up(store, ctx, shoe, seed, players, spots, id)?;
        store.record_step(id, &step)?;
        Ok((Live::resumed(id, engine, setup), events))
    }

    /// The client action ids a resumed round had applied (from its replay).
    pub fn with_applied(mut self, ids: impl IntoIterator<Item = String>) -> Live {
        self.applied.extend(ids);
        self
    }

    /// A client's action for round `round` under the client's id `id`: refused if
    /// the round is not the one in play, not applied again if an action with this id
    /// already was in this round, else applied and written like [`Live::step`] (the
    /// id with it, so a replay and a resumed round know it).
    pub fn step_client(
        &mut self,
        store: &mut dyn Store,
        ctx: &Ctx,
        round: RoundId,
        id: &str,
        action: Action,
    ) -> Result<Stepped> {
        if round != self.id {
            return Ok(Stepped::OtherRound {
                asked: round,
                current: self.id,
            });
        }
        self.step_identified(store, ctx, id, Batched::One(action))
    }

    /// A client's actions for round `round`, sent as one under the client's id `id`
    /// (a player's bets): applied all together, in order, as one step of the books, or
    /// not at all (the first refusal is returned); like [`Live::step_client`] otherwise.
    pub fn step_batch(
        &mut self,
        store: &mut dyn Store,
        ctx: &Ctx,
        round: RoundId,
        id: &str,
        actions: &[Action],
    ) -> Result<Stepped> {
        if round != self.id {
            return Ok(Stepped::OtherRound {
                asked: round,
                current: self.id,
            });
        }
        if actions.is_empty() || actions.len() > MAX_BATCH {
            return Ok(Stepped::BadBatch);
        }
        self.step_identified(store, ctx, id, Batched::Many(actions))
    }

    fn step_identified(
        &mut self,
        store: &mut dyn Store,
        ctx: &Ctx,
        id: &str,
        actions: Batched<'_>,
    ) -> Result<Stepped> {
        if id.is_empty() || id.len() > MAX_ACTION_ID || !id.bytes().all(|b| b.is_ascii_graphic()) {
            return Ok(Stepped::BadActionId);
        }
        if self.applied.contains(id) {
            return Ok(Stepped::AlreadyApplied);
        }
        let out = self.step_as(store, ctx, actions, Some(id))?;
        if matches!(out, Stepped::Done(_)) {
            self.applied.insert(id.to_string());
        }
        Ok(out)
    }

    /// Applies `action` (or, with `None`, runs the chance steps due) and writes the
    /// step, with the meters read and moved inside the step's transaction. A step that
    /// ends the round finishes it in the same transaction.
    pub fn step(
        &mut self,
        store: &mut dyn Store,
        ctx: &Ctx,
        action: Option<Action>,
    ) -> Result<Stepped> {
        let actions = match action {
            Some(a) => Batched::One(a),
            None => Batched::Chance,
        };
        self.step_as(store, ctx, actions, None)
    }

    fn step_as(
        &mut self,
        store: &mut dyn Store,
        ctx: &Ctx,
        actions: Batched<'_>,
        client_id: Option<&str>,
    ) -> Result<Stepped> {
        if self.pending.is_some() {
            // The first action of a round not yet in the books: tried on a copy first,
            // so a refused one (a bet over the limit) opens nothing.
            let mut probe = self.engine.clone();
            let mut meters =
                ctx.memory_meters(&ctx.meters.iter().map(|(_, v)| *v).collect::<Vec<_>>());
            if let Err(e) = actions.apply(&mut probe, &mut meters, &mut Vec::new()) {
                return Ok(Stepped::Refused(e));
            }
            self.open(store, ctx)?;
            // The round is in the books with its setup step only: if its first action
            // is not written too, it is voided now, never left open without a bet.
            let out = self.write_step(store, ctx, actions, client_id);
            if !matches!(out, Ok(Stepped::Done(_))) {
                let why = match &out {
                    Ok(s) => s.to_string(),
                    Err(e) => e.to_string(),
                };
                void_unbet(store, self.id, &why);
                self.voided = true;
                return Err(SessionError::NotOpened {
                    round: self.id,
                    why,
                });
            }
            return out;
        }
        self.write_step(store, ctx, actions, client_id)
    }

    /// Applies `actions` and writes the step (see [`Live::step_as`]).
    fn write_step(
        &mut self,
        store: &mut dyn Store,
        ctx: &Ctx,
        actions: Batched<'_>,
        client_id: Option<&str>,
    ) -> Result<Stepped> {
        let mut out: Option<Result<Stepped>> = None;
        // The engine after the step, kept only once the books have written it: a step
        // the books refuse leaves the round as it was.
        let mut after: Option<(PlayRound, bool)> = None;
        let ids = ctx.meter_ids();
        let written = {
            let engine = &self.engine;
            let setup = &self.setup;
            let (id, funding, closing, history) =
                (self.id, &self.funding, self.closing, &self.history);
            let usage_clock = self.usage_clock.as_deref();
            let voided = self.voided;
            let out = &mut out;
            let after = &mut after;
            let mut compute = |values: &[Money]| -> StepWrite {
                *after = None;
                let mut meters = ctx.memory_meters(values);
                let mut events = Vec::new();
                // A batch is all or nothing: it is applied to a copy, kept if whole.
                let mut next = engine.clone();
                if let Err(e) = actions.apply(&mut next, &mut meters, &mut events) {
                    *out = Some(Ok(Stepped::Refused(e)));
                    return StepWrite::Nothing;
                }
                let act = actions.step_action(client_id);
                let mut step = match ctx.step(act.as_ref(), &events, &setup.players) {
                    Ok(s) => s,
                    Err(e) => {
                        *out = Some(Err(e));
                        return StepWrite::Nothing;
                    }
                };
                funding.add_to(&mut step);
                if let (Some(close), Phase::Done) = (closing, next.phase()) {
                    let all: Vec<Event> = history.iter().chain(&events).cloned().collect();
                    close(id, setup, &all).add_to(&mut step);
                }
                let voided = voided || events.iter().any(|e| matches!(e, Event::Voided));
                *out = Some(Ok(Stepped::Done(events)));
                let write = if next.phase() == Phase::Done {
                    StepWrite::Finish {
                        last: step,
                        result_json: result_json(setup, &next),
                        shoe_after: Some(next.shoe().to_bytes()),
                        ended: if voided {
                            Ended::Voided(SHOE_RAN_OUT.to_string())
                        } else {
                            Ended::Finished
                        },
                        // The next round shuffles: no card of this shoe is dealt again.
                        retire_shoe: ctx.table.shuffle_due(next.shoe()).is_some(),
                        counted_at_ms: usage_clock.map(|now| now()),
                    }
                } else {
                    StepWrite::Step(step)
                };
                *after = Some((next, voided));
                write
            };
            store.record_step_with(self.id, &ids, &mut compute)
        };
        match written {
            Ok(_) => {}
            // A player's own action that their wallet cannot pay (their balance moved
            // since the round opened): refused like any illegal action; the books and
            // the round are as they were.
            Err(StoreError::InsufficientFunds {
                account,
                balance,
                amount,
            }) if client_id.is_some() && account.starts_with("player ") => {
                return Ok(Stepped::Unfunded { balance, amount });
            }
            Err(source) => {
                return Err(SessionError::StepNotWritten {
                    round: self.id,
                    source,
                })
            }
        }
        if let Some((next, voided)) = after {
            self.engine = next;
            self.voided = voided;
            self.funding = Extra::default();
            // Only a round that adds closing credits needs its events again.
            if let (Some(_), Some(Ok(Stepped::Done(events)))) = (self.closing, &out) {
                self.history.extend(events.iter().cloned());
            }
        }
        out.unwrap_or_else(|| {
            Err(SessionError::Damaged {
                round: self.id,
                what: "the books wrote a step the engine did not compute".to_string(),
            })
        })
    }

    /// Whether the round is over.
    pub fn is_done(&self) -> bool {
        self.engine.phase() == Phase::Done
    }
}

/// Voids round `id`, which has its setup step at most and no bet, as its opening
/// failed (`why`); best effort: if the books refuse this too, the next start of the
/// table voids it (a round with no bet is never resumed by a server).
fn void_unbet(store: &mut dyn Store, id: RoundId, why: &str) {
    let reason = format!("its first bet was not written ({why}): nothing was staked");
    // A refusal here (the books are down, the table moved) leaves the round to the
    // table's next start, which voids a round with no bet.
    let _ = store.void_round(id, &reason, &[]);
}

/// Why a round the game itself voided is void.
pub const SHOE_RAN_OUT: &str =
    "the shoe ran out of cards (no discards to reshuffle): every unsettled stake returned";

/// A stored round replayed through the engine.
pub struct Replayed {
    /// The engine after the last stored step (`None` if the round has no step).
    pub engine: Option<PlayRound>,
    /// The round's setup, if it has one.
    pub setup: Option<Setup>,
    /// Every event the replay produced, step by step (for display).
    pub events: Vec<Event>,
    /// How many steps were replayed.
    pub steps: usize,
    /// Everything that differs from the stored log; empty when the replay is identical.
    pub differences: Vec<String>,
    /// Differences past the listed ones (counted, not listed).
    pub unlisted: usize,
    /// The client action ids of the replayed steps, in order.
    pub client_ids: Vec<String>,
}

/// The meter amounts a stored step started from: each meter's first `before`.
fn meter_inputs(events: &[&str]) -> Vec<(String, Money)> {
    let mut out: Vec<(String, Money)> = Vec::new();
    // Stored events read back as the engine's typed events; one that does not read
    // back is a difference the replay reports when it compares the texts.
    for e in events {
        let Ok(Event::Meter { change, .. }) = serde_json::from_str::<Event>(e) else {
            continue;
        };
        let id = change.id.as_str();
        if !out.iter().any(|(m, _)| m == id) {
            out.push((id.to_string(), change.before));
        }
    }
    out
}

/// The differences listed per round; past it, one line says how many more there are.
const MAX_DIFFERENCES: usize = 50;

/// Replays round `rec` through the engine from its stored shoe, seed, setup, actions
/// and meter inputs, comparing every event, movement, the result and the shoe it left
/// with the stored ones.
pub fn replay(ctx: &Ctx, rec: &RoundRecord) -> Result<Replayed> {
    let mut r = replay_steps(ctx, rec)?;
    if r.unlisted > 0 {
        let more = format!("... and {} more differences", r.unlisted);
        r.differences.push(more);
    }
    Ok(r)
}

fn replay_steps(ctx: &Ctx, rec: &RoundRecord) -> Result<Replayed> {
    let mut r = Replayed {
        engine: None,
        setup: None,
        events: Vec::new(),
        steps: 0,
        differences: Vec::new(),
        unlisted: 0,
        client_ids: Vec::new(),
    };
    let diff = |r: &mut Replayed, d: String| {
        if r.differences.len() < MAX_DIFFERENCES {
            r.differences.push(d);
        } else {
            r.unlisted += 1;
        }
    };
    let mut meters = ctx.memory_meters(&ctx.meters.iter().map(|(_, v)| *v).collect::<Vec<_>>());
    for step in &rec.steps {
        let stored_events: Vec<&str> = rec
            .events
            .iter()
            .filter(|e| e.step_seq == step.seq)
            .map(|e| e.json.as_str())
            .collect();
        let stored_moves: Vec<&Movement> = rec
            .movements
            .iter()
            .filter(|m| m.step_seq == Some(step.seq))
            .map(|m| &m.movement)
            .filter(|m| engine_made(m))
            .collect();
        let action: Option<StepAction> = match &step.action {
            None => None,
            Some(t) => match serde_json::from_str(t) {
                Ok(a) => Some(a),
                Err(e) => {
                    diff(
                        &mut r,
                        format!(
                            "step {}: the stored action is unreadable ({e}): {t}",
                            step.seq
                        ),
                    );
                    return Ok(r);
                }
            },
        };
        for (id, v) in meter_inputs(&stored_events) {
            if let Some(id) = felt_core::ShortId::new(&id) {
                meters.set(id, v);
            }
        }
        let mut events = Vec::new();
        match action {
            Some(StepAction::Setup(s)) => {
                if r.engine.is_some() {
                    diff(&mut r, format!("step {}: a second setup", step.seq));
                    return Ok(r);
                }
                if s.rules_sha256 != ctx.rules_hash()
                    && s.rules_sha256 != legacy_rules_hash(&ctx.rules)
                {
                    diff(
                        &mut r,
                        format!(
                            "step {}: the round was played under other rules (`{}`, SHA-256 {}) \
                             than those given (`{}`, SHA-256 {})",
                            step.seq,
                            s.rules,
                            s.rules_sha256,
                            ctx.source,
                            ctx.rules_hash()
                        ),
                    );
                    return Ok(r);
                }
                let shoe = match &rec.shoe_before {
                    Some(b) => Shoe::from_bytes(b).map_err(|source| SessionError::Shoe {
                        round: rec.id,
                        source,
                    })?,
                    None => ctx.table.new_shoe(),
                };
                let mut engine =
                    ctx.table
                        .round(shoe, ChaCha20Rng::from_seed(rec.seed), &s.balances)?;
                // The number the round was begun under, as its log says (rounds written
                // before rounds were numbered as the books number them say 1).
                if let Some(Ok(Event::RoundStarted { round })) = stored_events
                    .first()
                    .map(|e| serde_json::from_str::<Event>(e))
                {
                    engine.number_next_round(round);
                }
                engine.begin(&mut events)?;
                r.engine = Some(engine);
                r.setup = Some(s);
            }
            Some(StepAction::Batch(b)) => {
                r.client_ids.push(b.id.clone());
                let Some(engine) = r.engine.as_mut() else {
                    diff(
                        &mut r,
                        format!("step {}: an action before the setup", step.seq),
                    );
                    return Ok(r);
                };
                if let Err(e) = Batched::Many(&b.actions).apply(engine, &mut meters, &mut events) {
                    diff(
                        &mut r,
                        format!(
                            "step {}: the engine refuses the stored actions {} ({e})",
                            step.seq,
                            step.action.as_deref().unwrap_or("")
                        ),
                    );
                    return Ok(r);
                }
            }
            Some(StepAction::Action(a) | StepAction::Client(ClientStep { action: a, .. })) => {
                if let Some(StepAction::Client(c)) = &action {
                    r.client_ids.push(c.id.clone());
                }
                let Some(engine) = r.engine.as_mut() else {
                    diff(
                        &mut r,
                        format!("step {}: an action before the setup", step.seq),
                    );
                    return Ok(r);
                };
                if let Err(e) = engine.apply(a, &mut meters, &mut events) {
                    diff(
                        &mut r,
                        format!(
                            "step {}: the engine refuses the stored action {} ({e})",
                            step.seq,
                            step.action.as_deref().unwrap_or("")
                        ),
                    );
                    return Ok(r);
                }
            }
            None => {
                let Some(engine) = r.engine.as_mut() else {
                    diff(
                        &mut r,
                        format!("step {}: a chance step before the setup", step.seq),
                    );
                    return Ok(r);
                };
                engine.run_chance(&mut meters, &mut events);
            }
        }
        r.steps += 1;
        let players = r
            .setup
            .as_ref()
            .map(|s| s.players.clone())
            .unwrap_or_default();
        let replayed = ctx.step(None, &events, &players)?;
        let n = replayed.events.len().max(stored_events.len());
        for i in 0..n {
            let (a, b) = (stored_events.get(i).copied(), replayed.events.get(i));
            if a != b.map(String::as_str) {
                diff(
                    &mut r,
                    format!(
                        "step {} event {}: stored {} / replayed {}",
                        step.seq,
                        i + 1,
                        a.unwrap_or("(none)"),
                        b.map_or("(none)", String::as_str)
                    ),
                );
            }
        }
        let n = replayed.movements.len().max(stored_moves.len());
        for i in 0..n {
            let (a, b) = (stored_moves.get(i).copied(), replayed.movements.get(i));
            let same = match (a, b) {
                (Some(a), Some(b)) => {
                    a.from == b.from && a.to == b.to && a.amount == b.amount && a.kind == b.kind
                }
                (None, None) => true,
                _ => false,
            };
            if !same {
                let show = |m: Option<&Movement>| {
                    m.map_or("(none)".to_string(), |m| {
                        format!("{} {} from {} to {}", m.kind, m.amount, m.from, m.to)
                    })
                };
                diff(
                    &mut r,
                    format!(
                        "step {} movement {}: stored {} / replayed {}",
                        step.seq,
                        i + 1,
                        show(a),
                        show(b)
                    ),
                );
            }
        }
        r.events.extend(events);
    }
    let mut end = Vec::new();
    match rec.status {
        RoundStatus::Finished => match (r.engine.as_ref(), r.setup.as_ref()) {
            (Some(engine), Some(setup)) => {
                if engine.phase() != Phase::Done {
                    end.push(
                        "the round is stored as finished but the replay has not ended".to_string(),
                    );
                } else {
                    let result = result_json(setup, engine);
                    if rec.result.as_deref() != Some(result.as_str()) {
                        end.push(format!(
                            "result: stored {} / replayed {result}",
                            rec.result.as_deref().unwrap_or("(none)")
                        ));
                    }
                    let shoe = engine.shoe().to_bytes();
                    if rec.shoe_after.as_deref() != Some(shoe.as_slice()) {
                        end.push("the shoe the round left differs from the replay's".to_string());
                    }
                }
            }
            _ => end.push("the round is finished but has no setup step".to_string()),
        },
        RoundStatus::Open => {
            if r.engine.as_ref().is_some_and(|e| e.phase() == Phase::Done) {
                end.push("the round is stored as open but the replay has ended".to_string());
            }
        }
        RoundStatus::Voided => {}
    }
    for d in end {
        diff(&mut r, d);
    }
    Ok(r)
}

/// Voids an open round: every movement of it reversed (newest first). If the books
/// refuse that (a shared meter moved on since and cannot give back what the round put
/// in), the movements that do not touch a meter are reversed instead: every stake and
/// payout goes back, contributions and awards stand. Returns what was done.
pub fn void(store: &mut dyn Store, rec: &RoundRecord, reason: &str) -> Result<String> {
    let all = rec.reversal();
    match store.void_round(rec.id, reason, &all) {
        Ok(()) => Ok(format!(
            "every movement of it reversed ({} entries)",
            all.len()
        )),
        Err(felt_store::StoreError::InsufficientFunds { .. }) => {
            let partial: Vec<Movement> = all
                .into_iter()
                .filter(|m| !m.kind.is_meter_kind())
                .collect();
            store.void_round(
                rec.id,
                &format!(
                    "{reason} (the shared meter moved on: its contributions and awards stand)"
                ),
                &partial,
            )?;
            Ok(format!(
                "every stake and payout reversed ({} entries); the progressive meter's \
                 contributions and awards stand",
                partial.len()
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// The rules a stored round was played under: the canonical text the books keep with
/// it, whatever became of the file it came from. A round written before the books kept
/// rules names them instead (a preset or a file):
/// [`SessionError::RulesNotKept`] says which, for the caller to load and pass to
/// [`Ctx::new`].
pub fn ctx_for(store: &dyn Store, rec: &RoundRecord) -> Result<Ctx> {
    let source = setup_of(rec)?
        .map(|s| s.rules)
        .unwrap_or_else(|| rec.game_id.clone());
    let Some(sha) = &rec.rules_sha256 else {
        return Err(SessionError::RulesNotKept {
            round: rec.id,
            named: source,
        });
    };
    let text = store
        .rules_text(sha)?
        .ok_or_else(|| SessionError::Damaged {
            round: rec.id,
            what: format!("the books do not hold its rules (SHA-256 {sha})"),
        })?;
    if felt_store::sha256_hex(text.as_bytes()) != *sha {
        return Err(SessionError::Damaged {
            round: rec.id,
            what: format!("its stored rules do not match their SHA-256 {sha}"),
        });
    }
    let origin = format!("the rules of round {} (as the books keep them)", rec.id);
    let rules = Rules::from_toml(&text, &origin).map_err(|source| SessionError::Rules {
        round: rec.id,
        what: "its stored rules".to_string(),
        source: Box::new(source),
    })?;
    let mut ctx = Ctx::new(rules, &source, rec.table_id.clone())?;
    // The text as stored is the record, even if this felt writes rules otherwise.
    ctx.canonical = text;
    Ok(ctx)
}

/// The setup of a stored round (its first step), if it has one.
pub fn setup_of(rec: &RoundRecord) -> Result<Option<Setup>> {
    let Some(first) = rec.steps.first().and_then(|s| s.action.as_deref()) else {
        return Ok(None);
    };
    match serde_json::from_str::<StepAction>(first) {
        Ok(StepAction::Setup(s)) => Ok(Some(s)),
        Ok(_) => Ok(None),
        Err(e) => Err(SessionError::Damaged {
            round: rec.id,
            what: format!("its first step is unreadable ({e})"),
        }),
    }
}
