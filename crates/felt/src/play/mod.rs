//! `felt play`: the terminal table. One person plays every seat in turn; the legal
//! choices are shown at each step; bad answers are refused with the reason and asked
//! again. Works from piped standard input, one answer a line.
//!
//! The table keeps its books in the store (`--db PATH`, else `FELT_DB`, else `felt.db`
//! in the user's data directory): each player's wallet, the progressive meters, the
//! table's shoe and every round, step by step. Each step is written before the table
//! shows it; a round a crash (or a player who left mid-hand) interrupted is completed
//! at the next `felt play` of the same table (see `journal`).
//!
//! One session per player: the session holds its players' seat locks
//! ([`felt_store::SeatLocks`]) from start to end, so a second session of a player is
//! refused, and a killed session's seats are free again at once.

mod answers;
mod files;
mod input;
pub mod render;

use answers::{choice_menu, parse_amount, parse_decision, parse_yes_no, Choice};
use anyhow::{Context, Result};
use felt_core::round::{Action, Event, Turn};
use felt_core::rules::OnCrash;
use felt_core::{Money, Phase, Rules, Shoe};
use felt_session::dealing::{self, Seeds};
use felt_session::journal::{self, Ctx, Live, Stepped};
use felt_session::seed;
use felt_store::{Account, RoundRecord, SeatLocks, SqliteStore, Store};
use files::{read_shoe_file, stacked_shoe, EventFile};
use input::{Answer, Prompter};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use render::Names;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// Arguments of `felt play`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A preset name (see `felt games`) or the path of a rules file.
    pub game: String,
    /// A test lab's seed. Without it every shoe is shuffled from the operating
    /// system's entropy. With it each new shoe's seed is drawn from it and the number
    /// of rounds the table has begun in the books, so the same seed, the same books and
    /// the same answers replay the same session; every round so dealt is marked in the
    /// books as a lab round.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Seats you play (1 to the table's seats).
    #[arg(long, default_value_t = 1)]
    pub seats: u8,
    /// Betting spots per seat (1 to the game's limit).
    #[arg(long, default_value_t = 1)]
    pub spots: u8,
    /// Bankroll given to a NEW player (a name the books have never seen); a known
    /// player keeps the balance the books hold.
    #[arg(long, default_value = "1000.00")]
    pub bankroll: Money,
    /// Your name in the books. Seat 1 plays as NAME, seats 2, 3, ... as NAME-2,
    /// NAME-3, ...; the table is GAME/NAME. One session per player at a time. Names
    /// that look the same are one name (`alice`, `alice ` with a trailing space or a
    /// no-break space); invisible and control characters are refused. Case counts.
    #[arg(long, default_value = "player")]
    pub player: String,
    /// Adds this amount to every seat's wallet (from the cashier) before play.
    #[arg(long)]
    pub deposit: Option<Money>,
    /// The books (an SQLite file), created on first use. Default: $FELT_DB, else
    /// felt.db in the user's data directory.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Deal these cards first, in order (e.g. `7h 7h Ks ...`), then the shuffled shoe
    /// (a test lab's feature: the rounds are marked in the books).
    #[arg(long)]
    pub shoe: Option<PathBuf>,
    /// Write every event (every card, decision, wager and settlement) as JSON lines.
    #[arg(long)]
    pub events: Option<PathBuf>,
}

/// Runs the table on standard input and output.
pub fn run(a: &Args) -> Result<()> {
    let stdin = std::io::stdin();
    let piped = !stdin.is_terminal();
    let out = std::io::stdout();
    play(a, stdin.lock(), out.lock(), piped)
}

/// The player names of `seats` seats for `player`.
pub fn seat_names(player: &str, seats: u8) -> Vec<String> {
    (0..seats)
        .map(|i| {
            if i == 0 {
                player.to_string()
            } else {
                format!("{player}-{}", i + 1)
            }
        })
        .collect()
}

/// Runs the table over any input and output (tests drive it with a byte buffer).
pub fn play<R: BufRead, W: Write>(a: &Args, input: R, out: W, echo: bool) -> Result<()> {
    let rules = crate::game_arg::load_game(&a.game)?;
    let max_spots = rules.table().max_spots_per_player;
    anyhow::ensure!(
        (1..=rules.table().seats).contains(&a.seats),
        "--seats {}: this table has 1 to {} seats",
        a.seats,
        rules.table().seats
    );
    anyhow::ensure!(
        (1..=max_spots).contains(&a.spots),
        "--spots {}: this game allows 1 to {max_spots} spots per player",
        a.spots
    );
    anyhow::ensure!(a.bankroll > Money::ZERO, "--bankroll must be positive");
    anyhow::ensure!(
        !matches!(a.deposit, Some(d) if d < Money::ZERO),
        "--deposit cannot be negative"
    );
    let limit = felt_core::round::MAX_BALANCE;
    anyhow::ensure!(
        a.bankroll <= limit,
        "--bankroll {}: a wallet holds at most {limit} (the engine's balance limit)",
        a.bankroll
    );
    if let Some(d) = a.deposit {
        anyhow::ensure!(
            d <= limit,
            "--deposit {d}: a wallet holds at most {limit} (the engine's balance limit)"
        );
    }
    // Every argument is checked, and the shoe file read, before the books are touched:
    // a bad one is refused and changes nothing.
    // The name as the books keep it: `alice `, `alice\u{a0}` and `ａlice` are `alice`
    // (and one seat, one wallet); invisible and control characters are refused.
    let player = felt_store::normalize_name("player", &a.player).context("--player")?;
    let players = seat_names(&player, a.seats);
    let table_id = format!("{}/{}", rules.game().id, player);
    for name in &players {
        felt_store::validate_name("player", name).context("--player")?;
    }
    felt_store::validate_name("table", &table_id).context("--player")?;
    let seed = a.seed.unwrap_or_else(rand::random);
    let stacked_cards = match &a.shoe {
        Some(path) => {
            let first = read_shoe_file(path)?;
            // Checked now (the cards fit the shoe); dealt from the session's stream below.
            stacked_shoe(path, &first, &rules, &mut ChaCha20Rng::seed_from_u64(seed))?;
            Some((path, first))
        }
        None => None,
    };
    // The event log is opened now (an unwritable path is refused before the books are
    // touched) but emptied only once the session holds its seats.
    let events_file = match &a.events {
        Some(p) => Some(EventFile::open(p)?),
        None => None,
    };
    let opened = (|| -> Result<_> {
        let path = felt_store::resolve_db_path(a.db.as_deref())?;
        let store = SqliteStore::open(&path)?;
        // One session per player at these books: a second one is refused here, before
        // it writes anything. Held until this process ends, however it ends.
        let seats = SeatLocks::acquire(store.path(), &players)?;
        Ok((path, store, seats))
    })();
    let (path, mut store, _seats) = match opened {
        Ok(o) => o,
        Err(e) => {
            if let Some(f) = events_file {
                f.abandon();
            }
            return Err(e);
        }
    };
    let (mut events_out, appending) = match events_file {
        Some(f) => {
            let (w, earlier) = f.start()?;
            (Some(w), earlier)
        }
        None => (None, false),
    };
    let ctx = Ctx::new(rules, &a.game, table_id)?;
    let rules = &ctx.rules;
    let earlier = store.table_rounds(&ctx.table_id)?;
    let mut rng = seed::session_rng(seed, earlier);
    let stacked = match stacked_cards {
        Some((path, first)) => Some(stacked_shoe(path, &first, rules, &mut rng)?),
        None => None,
    };
    let mut seeds = match (a.seed, &a.shoe) {
        (None, None) => Seeds::Entropy,
        (s, shoe) => {
            let mut mark: Vec<String> = Vec::new();
            if let Some(s) = s {
                mark.push(format!("--seed {s}"));
            }
            if let Some(p) = shoe {
                mark.push(format!("--shoe {}", p.display()));
            }
            Seeds::Lab {
                rng: Box::new(rng),
                mark: format!("test lab: {}", mark.join(", ")),
            }
        }
    };
    for (m, reset) in &ctx.meters {
        store.create_meter(m, *reset, &Account::house(ctx.house.clone()))?;
    }
    let known: Vec<Account> = store.balances()?.into_iter().map(|b| b.account).collect();
    let mut p = Prompter::new(input, out, echo);
    p.say(match &seeds {
        Seeds::Entropy => format!(
            "{} - every shoe is shuffled from the operating system's entropy; its seed's \
             SHA-256 is shown before its first card and the seed once the shoe is retired \
             (`felt verify`)",
            rules.game().name
        ),
        Seeds::Lab { .. } => seed::describe(&rules.game().name, seed, earlier),
    });
    p.say("`felt rules` prints the rules card. Answer q to leave the table.");
    if let (true, Some(path)) = (appending, &a.events) {
        p.say(format!(
            "Events: added after the earlier ones in {} (nothing in it is overwritten).",
            path.display()
        ));
    }
    p.say(format!(
        "Books: {} (table {}; `felt books`, `felt history`).",
        path.display(),
        ctx.table_id
    ));
    // Every wallet is checked against the engine's balance limit before any deposit is
    // written: a refused one leaves the books as they were.
    if let Some(d) = a.deposit.filter(|d| *d > Money::ZERO) {
        for name in &players {
            let acc = Account::player(name.clone());
            let now = if known.contains(&acc) {
                store.balance(&acc)?
            } else {
                a.bankroll
            };
            let limit = felt_core::round::MAX_BALANCE;
            anyhow::ensure!(
                now.as_cents().saturating_add(d.as_cents()) <= limit.as_cents(),
                "--deposit {d}: {name} holds {now}, and a wallet holds at most {limit} (the \
                 engine's balance limit); nothing was deposited"
            );
        }
    }
    for name in &players {
        let acc = Account::player(name.clone());
        if !known.contains(&acc) {
            store.deposit(name, a.bankroll)?;
            p.say(format!(
                "New player {name}: {} from the cashier.",
                a.bankroll
            ));
        }
        if let Some(d) = a.deposit.filter(|d| *d > Money::ZERO) {
            store.deposit(name, d)?;
            p.say(format!("{name}: {d} deposited."));
        }
    }

    // A round this table left unfinished (a crash, or a player who left mid-hand).
    let mut session = Session {
        rules,
        last_bets: Vec::new(),
        names: Names::new(rules, a.spots),
        held: Vec::new(),
    };
    // Every round left open at a table of this session's players is completed (or
    // voided) first, under the rules and the crash rule it was begun with, whatever
    // this session's rules say.
    let open: Vec<RoundRecord> = store
        .unfinished_rounds()?
        .into_iter()
        .filter(|r| {
            r.table_id == ctx.table_id
                || journal::setup_of(r)
                    .ok()
                    .flatten()
                    .is_some_and(|s| s.players.iter().any(|n| players.contains(n)))
        })
        .collect();
    let mut _their_seats = Vec::new();
    for rec in open {
        let round_ctx = match crate::game_arg::round_ctx(&store, &rec, None) {
            Ok(c) => c,
            Err(e) => {
                p.say(format!(
                    "Round {} was interrupted and its rules cannot be read ({e:#}).",
                    rec.id
                ));
                let what = journal::void(
                    &mut store,
                    &rec,
                    &format!("its rules cannot be read: {e:#}"),
                )?;
                p.say(format!("Round {} is void: {what}.", rec.id));
                continue;
            }
        };
        let (round_players, round_spots) = match journal::setup_of(&rec)? {
            Some(s) => (s.players, s.spots),
            None => (players.clone(), a.spots),
        };
        let others: Vec<String> = round_players
            .iter()
            .filter(|n| !players.contains(n))
            .cloned()
            .collect();
        if !others.is_empty() {
            _their_seats.push(SeatLocks::acquire(store.path(), &others)?);
        }
        let Some((mut live, events)) = recover(
            &mut store,
            &round_ctx,
            &rec,
            &round_players,
            round_spots,
            &mut p,
        )?
        else {
            continue;
        };
        let mut resumed = Session {
            rules: &round_ctx.rules,
            last_bets: Vec::new(),
            names: Names::new(&round_ctx.rules, round_spots),
            held: Vec::new(),
        };
        if !resumed.play_round(
            &mut p,
            &mut store,
            &round_ctx,
            &mut live,
            &mut events_out,
            &events,
        )? {
            return leave(&mut p, &mut store, &players, &mut events_out);
        }
    }

    let mut stacked = stacked;
    let mut shoe = match store.shoe(&ctx.table_id)? {
        None => ctx.table.new_shoe(),
        Some(bytes) => match Shoe::from_bytes(&bytes) {
            Ok(s) if s.decks() == rules.shoe().decks => s,
            Ok(s) => {
                p.say(format!(
                    "The table's saved shoe holds {} deck(s), the rules {}: a new shoe is used.",
                    s.decks(),
                    rules.shoe().decks
                ));
                ctx.table.new_shoe()
            }
            Err(e) => {
                p.say(format!(
                    "The table's saved shoe is unreadable ({e}): a new shoe is used."
                ));
                ctx.table.new_shoe()
            }
        },
    };
    session.last_bets = vec![None; usize::from(a.seats) * usize::from(a.spots)];
    loop {
        let dealing =
            dealing::next_dealing(&store, &ctx, shoe.clone(), &mut seeds, stacked.take())?;
        // A new shoe's commitment is shown before any card of it.
        let commitment = dealing.shoe_id.is_none().then(|| {
            format!(
                "\nA new shoe: its seed's SHA-256 is {} (the seed is shown once the shoe is \
                 retired: `felt history`, `felt verify`).",
                dealing.commitment
            )
        });
        let lab = dealing.lab.clone();
        let (mut live, events) = Live::begin(&mut store, &ctx, dealing, &players, a.spots)?;
        if let Some(line) = commitment {
            p.say(line);
            if let Some(lab) = lab {
                p.say(format!(
                    "({lab}: its rounds are marked in the books as lab rounds.)"
                ));
            }
        }
        let go_on = session.play_round(
            &mut p,
            &mut store,
            &ctx,
            &mut live,
            &mut events_out,
            &events,
        )?;
        if live.is_done() {
            shoe = live.engine.shoe().clone();
        }
        if !go_on {
            break;
        }
    }
    leave(&mut p, &mut store, &players, &mut events_out)
}

fn leave<R: BufRead, W: Write>(
    p: &mut Prompter<R, W>,
    store: &mut SqliteStore,
    players: &[String],
    log: &mut EventLog,
) -> Result<()> {
    for (s, name) in players.iter().enumerate() {
        p.say(format!(
            "Seat {} leaves the table with {}.",
            s + 1,
            store.balance(&Account::player(name.clone()))?
        ));
    }
    if let Some(w) = log.as_mut() {
        w.flush().context("cannot write the event log")?;
    }
    Ok(())
}

/// Completes or voids a round this table left open. `Some` when it resumes (with the
/// events so far, to show); `None` when it was voided.
fn recover<R: BufRead, W: Write>(
    store: &mut SqliteStore,
    ctx: &Ctx,
    rec: &RoundRecord,
    players: &[String],
    spots: u8,
    p: &mut Prompter<R, W>,
) -> Result<Option<(Live, Vec<Event>)>> {
    let mut void = |store: &mut SqliteStore, reason: String| -> Result<()> {
        let what = journal::void(store, rec, &reason)?;
        p.say(format!(
            "Round {} was interrupted: it is void ({reason}): {what}.",
            rec.id
        ));
        Ok(())
    };
    if ctx.rules.table().on_crash == OnCrash::Void {
        void(
            store,
            "interrupted; the rules say on_crash = \"void\"".into(),
        )?;
        return Ok(None);
    }
    if rec.steps.is_empty() {
        // Begun, nothing dealt, no money moved: it opens now from its stored shoe and seed.
        let shoe = match rec.shoe_before.as_deref().map(Shoe::from_bytes) {
            None => ctx.table.new_shoe(),
            Some(Ok(s)) if s.decks() == ctx.rules.shoe().decks => s,
            Some(Ok(_)) => {
                void(store, "its stored shoe does not fit the rules".into())?;
                return Ok(None);
            }
            Some(Err(e)) => {
                void(store, format!("its stored shoe is unreadable: {e}"))?;
                return Ok(None);
            }
        };
        let (live, events) = Live::setup(store, ctx, rec.id, shoe, rec.seed, players, spots)?;
        p.say(format!(
            "Round {} was interrupted before its first card: it opens now.",
            rec.id
        ));
        return Ok(Some((live, events)));
    }
    match journal::replay(ctx, rec) {
        Err(e) => {
            void(store, format!("it cannot be replayed: {e:#}"))?;
            Ok(None)
        }
        Ok(r) if !r.differences.is_empty() => {
            void(
                store,
                format!("its replay differs from its log: {}", r.differences[0]),
            )?;
            Ok(None)
        }
        Ok(r) => match (r.engine, r.setup) {
            (Some(engine), Some(setup)) => {
                p.say(format!(
                    "Round {} was interrupted: it resumes where it stopped ({} steps replayed \
                     from its stored seed and actions, identical to its log).",
                    rec.id, r.steps
                ));
                Ok(Some((
                    Live::resumed(rec.id, engine, setup).with_applied(r.client_ids),
                    r.events,
                )))
            }
            _ => {
                void(store, "it has no setup step".into())?;
                Ok(None)
            }
        },
    }
}

struct Session<'a> {
    rules: &'a Rules,
    last_bets: Vec<Option<Money>>,
    /// How the lines name seats, spots and hands; follows the round's events.
    names: Names<'a>,
    /// Events shown of a round not yet in the books: they go to the event file with
    /// its first accepted bet, so a round nobody bets on leaves no line there either.
    held: Vec<Event>,
}

type EventLog = Option<std::io::BufWriter<std::fs::File>>;

impl Session<'_> {
    fn show<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        log: &mut EventLog,
        events: &[Event],
        spots: u8,
    ) -> Result<()> {
        self.names.set_spots(spots);
        if let Some(w) = log.as_mut() {
            for e in self.held.drain(..) {
                serde_json::to_writer(&mut *w, &e.public())
                    .context("cannot write the event log")?;
                writeln!(w).context("cannot write the event log")?;
            }
        }
        for e in events {
            self.names.observe(e);
            if let Some(w) = log.as_mut() {
                // The player's file holds what the player saw: a face-down card has no
                // value in it (the full log is the books', for the operator).
                serde_json::to_writer(&mut *w, &e.public())
                    .context("cannot write the event log")?;
                writeln!(w).context("cannot write the event log")?;
            }
            if let Some(line) = render::event_line(e, &self.names) {
                p.say(line);
            }
        }
        // What was shown is in the file before the next question.
        if let Some(w) = log.as_mut() {
            w.flush().context("cannot write the event log")?;
        }
        Ok(())
    }

    /// Plays a round to its end from wherever it stands (`so_far`: the events it has
    /// had, shown under its header); `false` if the player quits.
    fn play_round<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &mut SqliteStore,
        ctx: &Ctx,
        live: &mut Live,
        log: &mut EventLog,
        so_far: &[Event],
    ) -> Result<bool> {
        let spots = live.setup.spots;
        let mut header = live.id;
        p.say("");
        p.say(format!("Round {header}"));
        if live.is_pending() {
            // Not in the books yet: shown now, written to the event file with its
            // first bet.
            self.show(p, &mut None, so_far, spots)?;
            self.held = so_far.to_vec();
        } else {
            self.show(p, log, so_far, spots)?;
        }
        while live.engine.phase() == Phase::Betting {
            if !self.take_bets(p, store, ctx, live, log)? {
                if live.is_pending() {
                    // No bet was taken: the round was never written, and is not one.
                    return Ok(false);
                }
                // Nothing was dealt: the round is void and every bet on it returned.
                if let Some(rec) = store.round(live.id)? {
                    let what =
                        journal::void(store, &rec, "the player left the table before the deal")?;
                    p.say(format!(
                        "Round {} is void: you left before the deal, and your bets are \
                         returned ({what}).",
                        live.id
                    ));
                }
                return Ok(false);
            }
            if live.id != header {
                p.say(format!(
                    "(This round is round {} in the books: another table began round {header} \
                     first.)",
                    live.id
                ));
                header = live.id;
            }
            match live.step(store, ctx, Some(Action::Deal))? {
                Stepped::Done(ev) => self.show(p, log, &ev, spots)?,
                refused => p.say(format!("  ! {refused}")),
            }
        }
        if !self.decisions(p, store, ctx, live, log)? {
            let next = match ctx.rules.table().on_crash {
                OnCrash::Resume => "completes it",
                OnCrash::Void => "voids it (on_crash = \"void\") and returns the stakes",
            };
            p.say(format!(
                "Round {} is not finished: the next `felt play` of this table {next}.",
                live.id
            ));
            return Ok(false);
        }
        for (s, name) in live.setup.players.iter().enumerate() {
            p.say(format!(
                "Seat {} balance: {}",
                s + 1,
                store.balance(&Account::player(name.clone()))?
            ));
        }
        for (id, _) in &ctx.meters {
            if let Some(m) = store.meter(id)? {
                p.say(format!("{id} meter: {}", m.amount));
            }
        }
        Ok(true)
    }

    /// Main and side bets for every seat and spot that has none yet; `false` if the
    /// player quits.
    fn take_bets<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &mut SqliteStore,
        ctx: &Ctx,
        live: &mut Live,
        log: &mut EventLog,
    ) -> Result<bool> {
        let spots = live.setup.spots;
        self.names.set_spots(spots);
        if self.last_bets.len() < usize::from(live.engine.seats()) * usize::from(spots) {
            self.last_bets = vec![None; usize::from(live.engine.seats()) * usize::from(spots)];
        }
        loop {
            let limits = self.rules.main_bet().limits();
            for seat in 0..live.engine.seats() {
                for spot in 0..spots {
                    let has_bet = live
                        .engine
                        .view(seat)
                        .spots
                        .iter()
                        .any(|s| s.seat == seat && s.spot == spot);
                    if has_bet {
                        continue;
                    }
                    let slot = usize::from(seat) * usize::from(spots) + usize::from(spot);
                    let default = self.last_bets[slot].unwrap_or(limits.min);
                    let who = self.names.spot(seat, spot);
                    let placed = loop {
                        let q = format!(
                            "{who} (balance {}): main bet {} to {} in steps of {}, 0 for none [{default}]?",
                            live.engine.balance(seat).unwrap_or_default(),
                            limits.min,
                            limits.max,
                            limits.increment
                        );
                        let amount = match p.ask(&q, |s| parse_amount(s, default)) {
                            Answer::Quit => return Ok(false),
                            Answer::Value(a) => a,
                        };
                        if amount == Money::ZERO {
                            break false;
                        }
                        match live.step(store, ctx, Some(Action::Bet { seat, spot, amount }))? {
                            Stepped::Done(ev) => {
                                self.show(p, log, &ev, spots)?;
                                self.last_bets[slot] = Some(amount);
                                break true;
                            }
                            refused => p.say(format!("  ! {refused}")),
                        }
                    };
                    if !placed {
                        continue;
                    }
                    for (i, b) in self.rules.side_bets().iter().enumerate() {
                        let fixed = b.min == b.max;
                        let q = if fixed {
                            format!("  {} side bet of {}? [y/N]", b.name, b.min)
                        } else {
                            format!(
                                "  {} side bet, {} to {} in steps of {}, 0 for none [0]?",
                                b.name, b.min, b.max, b.increment
                            )
                        };
                        loop {
                            let amount = match p.ask(&q, |s| {
                                if fixed {
                                    parse_yes_no(s).map(|y| if y { b.min } else { Money::ZERO })
                                } else {
                                    parse_amount(s, Money::ZERO)
                                }
                            }) {
                                Answer::Quit => return Ok(false),
                                Answer::Value(a) => a,
                            };
                            if amount == Money::ZERO {
                                break;
                            }
                            let act = Action::SideBet {
                                seat,
                                spot,
                                bet: i as u8,
                                amount,
                            };
                            match live.step(store, ctx, Some(act))? {
                                Stepped::Done(ev) => {
                                    self.show(p, log, &ev, spots)?;
                                    break;
                                }
                                refused => p.say(format!("  ! {refused}")),
                            }
                        }
                    }
                }
            }
            if !live.engine.view(0).spots.is_empty() {
                return Ok(true);
            }
            p.say("  ! no bet on the table: place a main bet to play, or q to leave.");
        }
    }

    /// Every decision of the round until it ends; `false` if the player quits.
    fn decisions<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &mut SqliteStore,
        ctx: &Ctx,
        live: &mut Live,
        log: &mut EventLog,
    ) -> Result<bool> {
        let spots = live.setup.spots;
        self.names.set_spots(spots);
        loop {
            let legal = live.engine.legal_actions();
            match legal.turn {
                Turn::Done | Turn::Bets => return Ok(true),
                Turn::Chance => match live.step(store, ctx, None)? {
                    Stepped::Done(ev) => self.show(p, log, &ev, spots)?,
                    refused => p.say(format!("  ! {refused}")),
                },
                Turn::Seat { seat, spot, hand } => {
                    let view = live.engine.view(seat);
                    // After a split every hand of the spot is named, the first one too.
                    if view
                        .spots
                        .iter()
                        .any(|s| s.seat == seat && s.spot == spot && s.hands.len() > 1)
                    {
                        self.names.mark_split(seat, spot);
                    }
                    for l in render::table_lines(&view, &self.names) {
                        p.say(l);
                    }
                    let who = self
                        .names
                        .hand(felt_core::round::Place { seat, spot, hand });
                    let menu = choice_menu(&legal);
                    use felt_core::round::Decisions as D;
                    let offer = if legal.decisions.contains(D::EVEN_MONEY) {
                        "the dealer shows an ace: even money? "
                    } else if legal.decisions.contains(D::INSURE) {
                        "the dealer shows an ace: insurance? "
                    } else if legal.decisions.contains(D::DECLINE) {
                        "surrender now? "
                    } else {
                        ""
                    };
                    let q = format!("{who}: {offer}{menu}?");
                    let at = felt_core::round::HandRef { spot, hand };
                    let stake = view
                        .spots
                        .iter()
                        .find(|s| s.seat == seat && s.spot == spot)
                        .and_then(|s| s.hands.get(usize::from(hand)))
                        .map_or(Money::ZERO, |h| h.stake);
                    let engine = &live.engine;
                    let choice = Choice {
                        legal: &legal,
                        stake,
                        check: |d| engine.check_decision(seat, Some(at), d),
                    };
                    let decision = match p.ask(&q, |s| parse_decision(s, &choice)) {
                        Answer::Quit => return Ok(false),
                        Answer::Value(d) => d,
                    };
                    match live.step(
                        store,
                        ctx,
                        // The decision names its hand: it cannot land on another.
                        Some(Action::Play {
                            seat,
                            at: Some(at),
                            decision,
                        }),
                    )? {
                        Stepped::Done(ev) => self.show(p, log, &ev, spots)?,
                        refused => p.say(format!("  ! {refused}")),
                    }
                }
            }
        }
    }
}
