//! `felt play`: the terminal table. One person plays every seat in turn; the legal
//! choices are shown at each step; bad answers are refused with the reason and asked
//! again. Works from piped standard input, one answer a line.

mod input;
mod render;

use anyhow::{Context, Result};
use felt_core::round::{Action, Decision, Event, Turn};
use felt_core::{card, MemoryMeters, Money, Rules, Shoe, Table};
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
    /// Seed of the shuffle (default: from the operating system); the same seed and
    /// the same answers replay the same session.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Seats you play (1 to the table's seats).
    #[arg(long, default_value_t = 1)]
    pub seats: u8,
    /// Betting spots per seat (1 to the game's limit).
    #[arg(long, default_value_t = 1)]
    pub spots: u8,
    /// Starting bankroll of each seat.
    #[arg(long, default_value = "1000.00")]
    pub bankroll: Money,
    /// Deal these cards first, in order (e.g. `7h 7h Ks ...`), then the shuffled shoe.
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

/// Runs the table over any input and output (tests drive it with a byte buffer).
pub fn play<R: BufRead, W: Write>(a: &Args, input: R, out: W, echo: bool) -> Result<()> {
    let rules = crate::game_arg::load_game(&a.game)?;
    let table = Table::new(&rules)?;
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
    let seed = a.seed.unwrap_or_else(rand::random);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let shoe = match &a.shoe {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the shoe file {}", path.display()))?;
            let first = card::parse_cards(&text)
                .with_context(|| format!("in the shoe file {}", path.display()))?;
            let mut s = Shoe::stacked(rules.shoe().decks, &first, &mut rng)
                .with_context(|| format!("in the shoe file {}", path.display()))?;
            s.set_penetration(rules.shoe().penetration);
            s
        }
        None => table.new_shoe(),
    };
    let mut events_out = match &a.events {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p)
                .with_context(|| format!("cannot write the event log {}", p.display()))?,
        )),
        None => None,
    };
    let balances = vec![a.bankroll; usize::from(a.seats)];
    let mut round = table.round(shoe, rng, &balances)?;
    let mut meters = MemoryMeters::for_table(&table);
    let mut p = Prompter::new(input, out, echo);
    let names = Names::new(&rules, a.spots);
    let mut session = Session {
        rules: &rules,
        names: &names,
        spots: a.spots,
        last_bets: vec![None; usize::from(a.seats) * usize::from(a.spots)],
    };
    p.say(format!("{} - seed {seed}", rules.game().name));
    p.say("`felt rules` prints the rules card. Answer q to leave the table.");
    loop {
        let mut events = Vec::new();
        round.begin(&mut events)?;
        session.show(&mut p, &mut events_out, &events)?;
        p.say("");
        p.say(format!("Round {}", round.number()));
        if !session.take_bets(&mut p, &mut round, &mut meters, &mut events_out)? {
            break;
        }
        let mut events = Vec::new();
        match round.apply(Action::Deal, &mut meters, &mut events) {
            Ok(()) => {}
            Err(e) => {
                p.say(format!("  ! {e}"));
                continue;
            }
        }
        session.show(&mut p, &mut events_out, &events)?;
        if !session.decisions(&mut p, &mut round, &mut meters, &mut events_out)? {
            break;
        }
        for s in 0..a.seats {
            p.say(format!(
                "Seat {} balance: {}",
                s + 1,
                round.balance(s).unwrap_or_default()
            ));
        }
        for (id, v) in meters.iter() {
            p.say(format!("{} meter: {v}", id.as_str()));
        }
    }
    for s in 0..a.seats {
        p.say(format!(
            "Seat {} leaves the table with {}.",
            s + 1,
            round.balance(s).unwrap_or_default()
        ));
    }
    if let Some(w) = events_out.as_mut() {
        w.flush().context("cannot write the event log")?;
    }
    Ok(())
}

struct Session<'a> {
    rules: &'a Rules,
    names: &'a Names<'a>,
    spots: u8,
    last_bets: Vec<Option<Money>>,
}

type EventLog = Option<std::io::BufWriter<std::fs::File>>;
type PlayRound = felt_core::Round<ChaCha20Rng>;

impl Session<'_> {
    fn show<R: BufRead, W: Write>(
        &self,
        p: &mut Prompter<R, W>,
        log: &mut EventLog,
        events: &[Event],
    ) -> Result<()> {
        for e in events {
            if let Some(w) = log.as_mut() {
                serde_json::to_writer(&mut *w, e).context("cannot write the event log")?;
                writeln!(w).context("cannot write the event log")?;
            }
            if let Some(line) = render::event_line(e, self.names) {
                p.say(line);
            }
        }
        Ok(())
    }

    /// Main and side bets for every seat and spot; `false` if the player quits.
    fn take_bets<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        round: &mut PlayRound,
        meters: &mut MemoryMeters,
        log: &mut EventLog,
    ) -> Result<bool> {
        loop {
            let limits = self.rules.main_bet().limits();
            let mut any = false;
            for seat in 0..round.seats() {
                for spot in 0..self.spots {
                    let slot = usize::from(seat) * usize::from(self.spots) + usize::from(spot);
                    let default = self.last_bets[slot].unwrap_or(limits.min);
                    let who = self.names.place(
                        felt_core::round::Place {
                            seat,
                            spot,
                            hand: 0,
                        },
                        false,
                    );
                    let q = format!(
                        "{who} (balance {}): main bet {} to {} in steps of {}, 0 for none [{default}]?",
                        round.balance(seat).unwrap_or_default(),
                        limits.min,
                        limits.max,
                        limits.increment
                    );
                    let placed = loop {
                        let amount = match p.ask(&q, |s| parse_amount(s, default)) {
                            Answer::Quit => return Ok(false),
                            Answer::Value(a) => a,
                        };
                        if amount == Money::ZERO {
                            break false;
                        }
                        let mut ev = Vec::new();
                        match round.apply(Action::Bet { seat, spot, amount }, meters, &mut ev) {
                            Ok(()) => {
                                self.show(p, log, &ev)?;
                                self.last_bets[slot] = Some(amount);
                                break true;
                            }
                            Err(e) => p.say(format!("  ! {e}")),
                        }
                    };
                    if !placed {
                        continue;
                    }
                    any = true;
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
                            let mut ev = Vec::new();
                            let act = Action::SideBet {
                                seat,
                                spot,
                                bet: i as u8,
                                amount,
                            };
                            match round.apply(act, meters, &mut ev) {
                                Ok(()) => {
                                    self.show(p, log, &ev)?;
                                    break;
                                }
                                Err(e) => p.say(format!("  ! {e}")),
                            }
                        }
                    }
                }
            }
            if any {
                return Ok(true);
            }
            p.say("  ! no bet on the table: place a main bet to play, or q to leave.");
        }
    }

    /// Every decision of the round until it ends; `false` if the player quits.
    fn decisions<R: BufRead, W: Write>(
        &mut self,
        p: &mut Prompter<R, W>,
        round: &mut PlayRound,
        meters: &mut MemoryMeters,
        log: &mut EventLog,
    ) -> Result<bool> {
        loop {
            let legal = round.legal_actions();
            match legal.turn {
                Turn::Done | Turn::Bets => return Ok(true),
                Turn::Chance => {
                    let mut ev = Vec::new();
                    round.run_chance(meters, &mut ev);
                    self.show(p, log, &ev)?;
                    continue;
                }
                Turn::Seat { seat, .. } => {
                    for l in render::table_lines(&round.view(seat), self.names) {
                        p.say(l);
                    }
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
                    let q = format!("{}: {offer}{}?", self.place_of(&legal), menu);
                    let decision = match p.ask(&q, |s| parse_decision(s, &legal)) {
                        Answer::Quit => return Ok(false),
                        Answer::Value(d) => d,
                    };
                    let mut ev = Vec::new();
                    match round.apply(Action::Play { seat, decision }, meters, &mut ev) {
                        Ok(()) => self.show(p, log, &ev)?,
                        Err(e) => p.say(format!("  ! {e}")),
                    }
                }
            }
        }
    }

    fn place_of(&self, legal: &felt_core::Legal) -> String {
        match legal.turn {
            Turn::Seat { seat, spot, hand } => self
                .names
                .place(felt_core::round::Place { seat, spot, hand }, hand > 0),
            _ => String::new(),
        }
    }
}

fn parse_amount(s: &str, default: Money) -> Result<Money, String> {
    if s.is_empty() {
        return Ok(default);
    }
    let m: Money = s
        .parse()
        .map_err(|e: felt_core::money::ParseMoneyError| e.to_string())?;
    if m < Money::ZERO {
        return Err("an amount cannot be negative".to_string());
    }
    Ok(m)
}

fn parse_yes_no(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "" | "n" | "no" => Ok(false),
        "y" | "yes" => Ok(true),
        _ => Err("answer y or n".to_string()),
    }
}

/// The menu of legal choices, e.g. `[h]it, [s]tand, [d]ouble 5.00, s[p]lit`.
fn choice_menu(legal: &felt_core::Legal) -> String {
    use felt_core::round::Decisions as D;
    let d = legal.decisions;
    let mut items = Vec::new();
    if d.contains(D::HIT) {
        items.push("[h]it".to_string());
    }
    if d.contains(D::STAND) {
        items.push("[s]tand".to_string());
    }
    if d.contains(D::DOUBLE) {
        match legal.double {
            Some(r) if r.min != r.max => {
                items.push(format!("[d]ouble (d AMOUNT, {} to {})", r.min, r.max))
            }
            Some(r) => items.push(format!("[d]ouble {}", r.max)),
            None => items.push("[d]ouble".to_string()),
        }
    }
    if d.contains(D::SPLIT) {
        items.push("s[p]lit".to_string());
    }
    if d.contains(D::SURRENDER) {
        items.push("su[r]render".to_string());
    }
    if d.contains(D::INSURE) {
        match legal.insurance {
            Some(r) if r.min != r.max => {
                items.push(format!("[i]nsurance (i AMOUNT, {} to {})", r.min, r.max))
            }
            Some(r) => items.push(format!("[i]nsurance {}", r.max)),
            None => items.push("[i]nsurance".to_string()),
        }
    }
    if d.contains(D::EVEN_MONEY) {
        items.push("[e]ven money".to_string());
    }
    if d.contains(D::DECLINE) {
        items.push("[n]o thanks".to_string());
    }
    items.join(", ")
}

/// Reads a choice; refuses what is not offered, saying what is.
fn parse_decision(s: &str, legal: &felt_core::Legal) -> Result<Decision, String> {
    let mut words = s.split_whitespace();
    let word = words.next().unwrap_or("").to_ascii_lowercase();
    let amount = words.next();
    let pick = |range: Option<felt_core::round::AmountRange>| -> Result<Money, String> {
        let r = range.ok_or("no amount is offered")?;
        match amount {
            None => Ok(r.max),
            Some(t) => {
                let m: Money = t
                    .parse()
                    .map_err(|e: felt_core::money::ParseMoneyError| e.to_string())?;
                if r.allows(m) {
                    Ok(m)
                } else {
                    Err(format!("{m} is not allowed: {} to {}", r.min, r.max))
                }
            }
        }
    };
    let d = match word.as_str() {
        "h" | "hit" => Decision::Hit,
        "s" | "stand" => Decision::Stand,
        "d" | "double" => Decision::Double(pick(legal.double)?),
        "p" | "split" => Decision::Split,
        "r" | "surrender" => Decision::Surrender,
        "i" | "insurance" | "insure" => Decision::Insure(pick(legal.insurance)?),
        "e" | "even" | "even-money" => Decision::EvenMoney,
        "n" | "no" => Decision::Decline,
        "" => return Err(format!("choose one of: {}", choice_menu(legal))),
        other => return Err(format!("`{other}` is not a choice: {}", choice_menu(legal))),
    };
    if amount.is_some() && !matches!(d, Decision::Double(_) | Decision::Insure(_)) {
        return Err(format!("`{word}` takes no amount"));
    }
    if words.next().is_some() {
        return Err("too many words: give a choice and at most one amount".to_string());
    }
    if !legal.decisions.allows(d) {
        return Err(format!(
            "not offered now; choose one of: {}",
            choice_menu(legal)
        ));
    }
    Ok(d)
}
