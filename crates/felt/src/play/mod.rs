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
mod bets;
mod files;
mod help;
mod input;
pub mod render;

use answers::{choice_menu, decision_help, parse_amount, parse_decision, parse_yes_no, Choice};
use anyhow::{Context, Result};
use bets::LastBets;
use felt_core::round::{Action, Event, Turn};
use felt_core::rules::OnCrash;
use felt_core::{Money, Phase, Rules, Shoe};
use felt_session::dealing::{self, Seeds};
use felt_session::journal::{self, Ctx, Live, Stepped};
use felt_session::recovery::{self, Recovered};
use felt_session::seed;
use felt_store::{Account, HeldSeats, RoundRecord, Store};
use files::{read_shoe_file, stacked_shoe, EventFile};
use help::Help;
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
    /// Bankroll given to a NEW player (a name the books have never seen) [default:
    /// 1000.00]; a known player keeps the balance the books hold (the table says so):
    /// `--deposit` adds money to it.
    #[arg(long)]
    pub bankroll: Option<Money>,
    /// Your name in the books. Seat 1 plays as NAME, seats 2, 3, ... as NAME-2,
    /// NAME-3, ...; the table is GAME/NAME. One session per player at a time. Names
    /// that look the same are one name (`alice`, `alice ` with a trailing space or a
    /// no-break space); invisible and control characters are refused. Case counts.
    #[arg(long, default_value = "player")]
    pub player: String,
    /// Adds this amount to every seat's wallet (from the cashier) before play.
    #[arg(long)]
    pub deposit: Option<Money>,
    /// The books: an SQLite file (created on first use), or a PostgreSQL database
    /// (`postgres://...`). Default: $FELT_DB, else felt.db in the user's data directory.
    #[arg(long)]
    pub db: Option<String>,
    /// Deal these cards first, in order (e.g. `7h 7h Ks ...`), then the shuffled shoe
    /// (a test lab's feature: the rounds are marked in the books).
    #[arg(long)]
    pub shoe: Option<PathBuf>,
    /// Write every event (every card, decision, wager and settlement) as JSON lines.
    #[arg(long)]
    pub events: Option<PathBuf>,
}

/// The bankroll a new player gets without `--bankroll`.
const DEFAULT_BANKROLL: Money = Money::cents(100_000);

/// The command that adds money to this session's wallets.
fn deposit_command(a: &Args) -> String {
    let mut c = format!("felt play {}", a.game);
    if a.player != "player" {
        c.push_str(&format!(" --player {}", a.player));
    }
    if let Some(db) = &a.db {
        c.push_str(&format!(" --db {db}"));
    }
    c.push_str(" --deposit AMOUNT");
    c
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
    let bankroll = a.bankroll.unwrap_or(DEFAULT_BANKROLL);
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
    anyhow::ensure!(bankroll > Money::ZERO, "--bankroll must be positive");
    anyhow::ensure!(
        !matches!(a.deposit, Some(d) if d < Money::ZERO),
        "--deposit cannot be negative"
    );
    let limit = felt_core::round::MAX_BALANCE;
    anyhow::ensure!(
        bankroll <= limit,
        "--bankroll {bankroll}: a wallet holds at most {limit} (the engine's balance limit)"
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
        let path = felt_store::resolve_books(a.db.as_deref())?;
        let store = felt_store::open_books(&path)?;
        // One session per player at these books: a second one is refused here, before
        // it writes anything. Held until this process ends, however it ends.
        let seats = HeldSeats::acquire(&path, &players)?;
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
    let store: &mut dyn Store = store.as_mut();

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
        path, ctx.table_id
    ));
    // Every wallet is checked against the engine's balance limit before any deposit is
    // written: a refused one leaves the books as they were.
    if let Some(d) = a.deposit.filter(|d| *d > Money::ZERO) {
        for name in &players {
            let acc = Account::player(name.clone());
            let now = if known.contains(&acc) {
                store.balance(&acc)?
            } else {
                bankroll
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
            store.deposit(name, bankroll)?;
            p.say(format!("New player {name}: {bankroll} from the cashier."));
        } else if a.bankroll.is_some() {
            p.say(format!(
                "{name} is known to the books: the balance of {} is kept (--bankroll is \
                 for a new player). To add money:",
                store.balance(&acc)?
            ));
            p.say(format!("  {}", deposit_command(a)));
        }
        if let Some(d) = a.deposit.filter(|d| *d > Money::ZERO) {
            store.deposit(name, d)?;
            p.say(format!("{name}: {d} deposited."));
        }
    }

    // A round this table left unfinished (a crash, or a player who left mid-hand).
    let nsides = rules.side_bets().len();
    let slots = players.len() * usize::from(a.spots);
    // A returning player starts at the bets of the last round the books hold.
    let last = LastBets::from_books(&*store, &ctx.table_id, &players, a.spots, nsides)?
        .unwrap_or_else(|| LastBets::new(slots, nsides));
    let mut session = Session {
        rules,
        last,
        names: Names::new(rules, a.spots),
        held: Vec::new(),
        help: Help::new(rules),
        intro: None,
        deposit: deposit_command(a),
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
        let round_ctx = match crate::game_arg::round_ctx(&*store, &rec, None) {
            Ok(c) => c,
            Err(e) => {
                p.say(format!(
                    "Round {} was interrupted and its rules cannot be read ({e:#}).",
                    rec.id
                ));
                let what = journal::void(
                    &mut *store,
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
            _their_seats.push(HeldSeats::acquire(&path, &others)?);
        }
        let Some((mut live, events)) = recover(
            &mut *store,
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
            last: LastBets::default(),
            names: Names::new(&round_ctx.rules, round_spots),
            held: Vec::new(),
            help: Help::new(&round_ctx.rules),
            intro: None,
            deposit: deposit_command(a),
        };
        if !resumed.play_round(
            &mut p,
            &mut *store,
            &round_ctx,
            &mut live,
            &mut events_out,
            &events,
        )? {
            return leave(&mut p, &mut *store, &players, &mut events_out);
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
    loop {
        let dealing =
            dealing::next_dealing(&*store, &ctx, shoe.clone(), &mut seeds, stacked.take())?;
        // A new shoe's commitment is shown before any card of it.
        let commitment = dealing.shoe_id.is_none().then(|| {
            format!(
                "\nA new shoe: its seed's SHA-256 is {} (the seed is shown once the shoe is \
                 retired: `felt history`, `felt verify`).",
                dealing.commitment
            )
        });
        let lab = dealing.lab.clone();
        let (mut live, events) = Live::begin(&mut *store, &ctx, dealing, &players, a.spots)?;
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
            &mut *store,
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
    leave(&mut p, &mut *store, &players, &mut events_out)
}

fn leave<R: BufRead, W: Write>(
    p: &mut Prompter<R, W>,
    store: &mut dyn Store,
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
    store: &mut dyn Store,
    ctx: &Ctx,
    rec: &RoundRecord,
    players: &[String],
    spots: u8,
    p: &mut Prompter<R, W>,
) -> Result<Option<(Live, Vec<Event>)>> {
    Ok(match recovery::recover(store, ctx, rec, players, spots)? {
        Recovered::Voided { reason, what } => {
            p.say(format!(
                "Round {} was interrupted: it is void ({reason}): {what}.",
                rec.id
            ));
            None
        }
        Recovered::Opened { live, events } => {
            p.say(format!(
                "Round {} was interrupted before its first card: it opens now.",
                rec.id
            ));
            Some((live, events))
        }
        Recovered::Resumed {
            live,
            events,
            steps,
        } => {
            p.say(format!(
                "Round {} was interrupted: it resumes where it stopped ({steps} steps replayed \
                 from its stored seed and actions, identical to its log).",
                rec.id
            ));
            Some((live, events))
        }
    })
}

struct Session<'a> {
    rules: &'a Rules,
    /// Each spot's last bets: the defaults of the next.
    last: LastBets,
    /// `?`, `rules`, `pays` and `hint`.
    help: Help<'a>,
    /// The round whose bets were introduced (the limits, the meters).
    intro: Option<felt_store::RoundId>,
    /// The command that adds money.
    deposit: String,
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
        store: &mut dyn Store,
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
            self.apply(p, store, ctx, live, log, Action::Deal)?;
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

    /// Applies `action` and shows its events; a refusal is said. `true` if applied.
    fn apply<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &mut dyn Store,
        ctx: &Ctx,
        live: &mut Live,
        log: &mut EventLog,
        action: Action,
    ) -> Result<bool> {
        match live.step(store, ctx, Some(action))? {
            Stepped::Done(ev) => {
                self.show(p, log, &ev, live.setup.spots)?;
                Ok(true)
            }
            refused => {
                p.say(format!("  ! {refused}"));
                Ok(false)
            }
        }
    }

    /// The side bets' pay tables, with the meters as the books hold them now.
    fn pays(&self, store: &dyn Store) -> String {
        self.help
            .pays(|id| store.meter(id).ok().flatten().map(|m| m.amount))
    }

    /// Before a round's first bet: each progressive's meter, and in the session's first
    /// round the limits and the words a bet question takes.
    fn introduce_bets<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &dyn Store,
        live: &Live,
    ) -> Result<()> {
        if self.intro == Some(live.id) {
            return Ok(());
        }
        let first = self.intro.is_none();
        self.intro = Some(live.id);
        let l = self.rules.main_bet().limits();
        if first {
            p.say(format!(
                "Main bet {} to {} in steps of {}: Enter takes the amount in brackets, 0 no \
             bet, r all of the last bets, ? help.",
                l.min, l.max, l.increment
            ));
        }
        for b in self.rules.side_bets() {
            if let Some(pr) = &b.progressive {
                if let Some(m) = store.meter(&pr.meter)? {
                    p.say(format!(
                        "{} meter: {} (pays: its pay table).",
                        b.name, m.amount
                    ));
                }
            }
        }
        Ok(())
    }

    /// Main and side bets for every seat and spot that has none yet; `false` if the
    /// player quits.
    fn take_bets<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &mut dyn Store,
        ctx: &Ctx,
        live: &mut Live,
        log: &mut EventLog,
    ) -> Result<bool> {
        let spots = live.setup.spots;
        self.names.set_spots(spots);
        let nsides = self.rules.side_bets().len();
        self.last.fit(
            usize::from(live.engine.seats()) * usize::from(spots),
            nsides,
        );
        self.introduce_bets(p, store, live)?;
        loop {
            let limits = self.rules.main_bet().limits();
            let mut can_bet = false;
            for seat in 0..live.engine.seats() {
                let balance = live.engine.balance(seat).unwrap_or_default();
                if balance < limits.min {
                    p.say(format!(
                        "{} has {balance}, less than the {} minimum bet. To add money, \
                         leave the table and run:",
                        self.names.seat(seat),
                        limits.min,
                    ));
                    p.say(format!("  {}", self.deposit));
                    continue;
                }
                can_bet = true;
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
                    if !self.bet_spot(p, store, ctx, live, log, seat, spot)? {
                        return Ok(false);
                    }
                }
            }
            if !live.engine.view(0).spots.is_empty() {
                return Ok(true);
            }
            if !can_bet {
                p.say("No seat can cover the minimum bet: you leave the table.");
                return Ok(false);
            }
            p.say("  ! no bet on the table: place a main bet to play, or q to leave.");
        }
    }

    /// The bets of one spot: its main bet, then its side bets (`r`: all of the spot's
    /// last bets at once); `false` if the player quits.
    #[allow(clippy::too_many_arguments)]
    fn bet_spot<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &mut dyn Store,
        ctx: &Ctx,
        live: &mut Live,
        log: &mut EventLog,
        seat: u8,
        spot: u8,
    ) -> Result<bool> {
        let spots = live.setup.spots;
        let limits = self.rules.main_bet().limits();
        let slot = usize::from(seat) * usize::from(spots) + usize::from(spot);
        let last_main = self.last.main[slot];
        let default = last_main.unwrap_or(limits.min);
        let who = self.names.spot(seat, spot);
        let choices = format!(
            "  AMOUNT: a main bet of {} to {} in steps of {}\n  Enter: {default}\n  \
             0: no bet on this spot\n  r: all of this spot's last bets (main and side bets)",
            limits.min, limits.max, limits.increment
        );
        // (main bet, whether the side bets are the last ones, unasked)
        let (placed, rebet) = loop {
            let q = format!(
                "{who} (balance {}): main bet [{default}]?",
                live.engine.balance(seat).unwrap_or_default()
            );
            let pays = || self.pays(store);
            let help = |w: &str| self.help.answer(w, &choices, pays, None);
            let answer = p.ask_with(&q, help, |s| match s.to_ascii_lowercase().as_str() {
                "r" | "rebet" => last_main
                    .map(|m| (m, true))
                    .ok_or_else(|| "no last bet yet: give an amount".to_string()),
                _ => parse_amount(s, default).map(|m| (m, false)),
            });
            let (amount, rebet) = match answer {
                Answer::Quit => return Ok(false),
                Answer::Value(a) => a,
            };
            if amount == Money::ZERO {
                break (false, false);
            }
            if self.apply(p, store, ctx, live, log, Action::Bet { seat, spot, amount })? {
                self.last.main[slot] = Some(amount);
                break (true, rebet);
            }
        };
        if !placed {
            return Ok(true);
        }
        for (i, b) in self.rules.side_bets().iter().enumerate() {
            let last = self.last.side[slot][i];
            if rebet {
                if last > Money::ZERO {
                    let act = Action::SideBet {
                        seat,
                        spot,
                        bet: i as u8,
                        amount: last,
                    };
                    self.apply(p, store, ctx, live, log, act)?;
                }
                continue;
            }
            let fixed = b.min == b.max;
            let (q, choices) = if fixed {
                let yes = if last > Money::ZERO { "[Y/n]" } else { "[y/N]" };
                (
                    format!("  {} side bet of {}? {yes}", b.name, b.min),
                    format!("  y: a {} side bet of {}\n  n: none", b.name, b.min),
                )
            } else {
                (
                    format!("  {} side bet [{last}]?", b.name),
                    format!(
                        "  AMOUNT: a {} side bet of {} to {} in steps of {}\n  Enter: \
                         {last}\n  0: none",
                        b.name, b.min, b.max, b.increment
                    ),
                )
            };
            loop {
                let pays = || self.pays(store);
                let help = |w: &str| self.help.answer(w, &choices, pays, None);
                let answer = p.ask_with(&q, help, |s| {
                    if fixed {
                        parse_yes_no(s, last > Money::ZERO)
                            .map(|y| if y { b.min } else { Money::ZERO })
                    } else {
                        parse_amount(s, last)
                    }
                });
                let amount = match answer {
                    Answer::Quit => return Ok(false),
                    Answer::Value(a) => a,
                };
                if amount == Money::ZERO {
                    self.last.side[slot][i] = Money::ZERO;
                    break;
                }
                let act = Action::SideBet {
                    seat,
                    spot,
                    bet: i as u8,
                    amount,
                };
                if self.apply(p, store, ctx, live, log, act)? {
                    self.last.side[slot][i] = amount;
                    break;
                }
            }
        }
        Ok(true)
    }

    /// Every decision of the round until it ends; `false` if the player quits.
    fn decisions<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        store: &mut dyn Store,
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
                    let offer = if legal.decisions.contains(D::INSURE)
                        || legal.decisions.contains(D::EVEN_MONEY)
                    {
                        " (dealer ace)"
                    } else if legal.decisions.contains(D::DECLINE) {
                        " (early surrender)"
                    } else {
                        ""
                    };
                    let q = format!("{who}{offer}: {menu}?");
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
                    let cards: Vec<felt_core::Card> = view
                        .spots
                        .iter()
                        .find(|s| s.seat == seat && s.spot == spot)
                        .and_then(|s| s.hands.get(usize::from(hand)))
                        .map(|h| h.cards.clone())
                        .unwrap_or_default();
                    let hint = || self.help.hint(&cards, view.dealer.up, &legal);
                    let pays = || self.pays(store);
                    let help = |w: &str| {
                        self.help
                            .answer(w, &decision_help(&legal), pays, Some(&hint))
                    };
                    let decision = match p.ask_with(&q, help, |s| parse_decision(s, &choice)) {
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
