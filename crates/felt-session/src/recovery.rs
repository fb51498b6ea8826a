//! A round the books hold unfinished (a crash, or a player who left mid-hand): resumed
//! exactly where it stopped, or voided, as its rules say (`on_crash`), by every front
//! end alike.

use crate::error::Result;
use crate::journal::{self, Ctx, Live};
use felt_core::rules::OnCrash;
use felt_core::{Event, Shoe};
use felt_store::{RoundRecord, Store};

/// What became of an unfinished round.
pub enum Recovered {
    /// Replayed from its stored seed and actions, identical to its log: it goes on.
    Resumed {
        /// The round, at the state its log reached.
        live: Live,
        /// Every event replayed (to show the table as it was).
        events: Vec<Event>,
        /// How many steps were replayed.
        steps: usize,
    },
    /// Begun but nothing written past its row: it opens now from its stored shoe and seed.
    Opened {
        /// The round.
        live: Live,
        /// Its setup's events.
        events: Vec<Event>,
    },
    /// Voided: every movement reversed (or, when a shared meter moved on, every stake).
    Voided {
        /// Why.
        reason: String,
        /// What was reversed.
        what: String,
    },
}

/// What a front end will do with an unfinished round, decided by [`decide`].
enum Decision {
    /// Void it, for this reason.
    Void(String),
    /// Open it from this shoe (nothing written past its row).
    Open(Shoe),
    /// Go on from its replay, identical to its log.
    Resume(Box<journal::Replayed>),
}

/// How round `rec` (unfinished) is to end under `ctx` (its own rules): the one rule
/// [`recover`] applies and [`ending`] reports.
fn decide(ctx: &Ctx, rec: &RoundRecord) -> Decision {
    if ctx.rules.table().on_crash == OnCrash::Void {
        return Decision::Void("interrupted; the rules say on_crash = \"void\"".into());
    }
    if rec.steps.is_empty() {
        return match rec.shoe_before.as_deref().map(Shoe::from_bytes) {
            None => Decision::Open(ctx.table.new_shoe()),
            Some(Ok(s)) if s.decks() == ctx.rules.shoe().decks => Decision::Open(s),
            Some(Ok(_)) => Decision::Void("its stored shoe does not fit the rules".into()),
            Some(Err(e)) => Decision::Void(format!("its stored shoe is unreadable: {e}")),
        };
    }
    match journal::replay(ctx, rec) {
        Err(e) => Decision::Void(format!("it cannot be replayed: {e}")),
        Ok(r) if !r.differences.is_empty() => Decision::Void(format!(
            "its replay differs from its log: {}",
            r.differences[0]
        )),
        Ok(r) if r.engine.is_some() && r.setup.is_some() => Decision::Resume(Box::new(r)),
        Ok(_) => Decision::Void("it has no setup step".into()),
    }
}

/// How an unfinished round will end when a table takes it up, as [`recover`] will
/// end it (nothing is written).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "ending", rename_all = "kebab-case")]
pub enum Ending {
    /// It opens from its stored shoe (it was begun, nothing written past its row).
    Opens,
    /// It goes on where it stopped, after this many steps replayed.
    Resumes {
        /// Steps replayed.
        steps: usize,
    },
    /// It is voided and its stakes returned, for this reason.
    Voids {
        /// Why.
        reason: String,
    },
}

/// How round `rec` will end under `ctx` (see [`Ending`]).
pub fn ending(ctx: &Ctx, rec: &RoundRecord) -> Ending {
    match decide(ctx, rec) {
        Decision::Void(reason) => Ending::Voids { reason },
        Decision::Open(_) => Ending::Opens,
        Decision::Resume(r) => Ending::Resumes { steps: r.steps },
    }
}

/// Resumes or voids round `rec` (read from the books, unfinished) under `ctx` (its own
/// rules: [`journal::ctx_for`]); `players` and `spots` seat a round that has no setup
/// step yet.
pub fn recover(
    store: &mut dyn Store,
    ctx: &Ctx,
    rec: &RoundRecord,
    players: &[String],
    spots: u8,
) -> Result<Recovered> {
    match decide(ctx, rec) {
        Decision::Void(reason) => {
            let what = journal::void(store, rec, &reason)?;
            Ok(Recovered::Voided { reason, what })
        }
        Decision::Open(shoe) => {
            let (live, events) = Live::setup(store, ctx, rec.id, shoe, rec.seed, players, spots)?;
            Ok(Recovered::Opened { live, events })
        }
        Decision::Resume(r) => match (r.engine, r.setup) {
            (Some(engine), Some(setup)) => Ok(Recovered::Resumed {
                live: Live::resumed(rec.id, engine, setup)
                    .with_applied(r.client_ids)
                    .with_history(r.events.clone()),
                events: r.events,
                steps: r.steps,
            }),
            // `decide` resumes only a replay with both.
            _ => {
                let reason = "it has no setup step".to_string();
                let what = journal::void(store, rec, &reason)?;
                Ok(Recovered::Voided { reason, what })
            }
        },
    }
}

/// Whether a stored round holds a bet: a step after its setup step (a server writes a
/// round's setup step with its first bet, so a round with its setup step only, or no
/// step, was never bet on).
pub fn has_bet(rec: &RoundRecord) -> bool {
    rec.steps.len() > 1
}

/// Which of one table's unfinished rounds (any order) a server resumes: the newest
/// with a bet (a table plays one round at a time). Every other one is to be voided,
/// with the reason given.
pub fn pick(mut rounds: Vec<RoundRecord>) -> (Option<RoundRecord>, Vec<(RoundRecord, String)>) {
    rounds.sort_by_key(|r| std::cmp::Reverse(r.id));
    let newest = rounds.iter().find(|r| has_bet(r)).map(|r| r.id);
    let mut resume = None;
    let mut void = Vec::new();
    for r in rounds {
        match newest {
            Some(id) if id == r.id => resume = Some(r),
            Some(id) if has_bet(&r) => void.push((
                r,
                format!("interrupted, and round {id} of the same table goes on: a table plays one round at a time"),
            )),
            _ => void.push((r, "interrupted before any bet: nothing was staked".to_string())),
        }
    }
    (resume, void)
}
