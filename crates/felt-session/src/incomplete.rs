//! The report of incomplete games a regulator asks of an operator: every round the
//! books hold unfinished, the stakes it holds for each player, and how it will end
//! (resumed or voided by its own rules, as [`crate::recovery`] will end it).

use crate::error::Result;
use crate::journal;
use crate::recovery::{self, Ending};
use felt_core::Money;
use felt_store::{Account, RoundId, RoundRecord, Store};
use serde::Serialize;
use std::collections::BTreeMap;

/// One unfinished round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Incomplete {
    /// The round.
    pub round: RoundId,
    /// Its table.
    pub table: String,
    /// Its game.
    pub game: String,
    /// When it began (UTC, RFC 3339).
    pub started_at: String,
    /// What each player has staked in it, net of anything already paid back (players
    /// by name; only those with a stake).
    pub stakes: Vec<Stake>,
    /// Whether a server is dealing it now.
    pub state: State,
    /// How it will end if its table is taken up as it stands (a crash, a failover, or
    /// the player coming back to `felt play`).
    pub ending: Ending,
}

/// A player's stake in an unfinished round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stake {
    /// The player.
    pub player: String,
    /// Staked, net of anything paid back.
    pub amount: Money,
}

/// Whether an unfinished round is being played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum State {
    /// Its table's lease is live: this server is dealing it; it ends as rounds end.
    InPlay {
        /// The server.
        server: String,
    },
    /// No server holds its table: it waits for the next one that takes the table (or
    /// for its player, at the terminal table).
    Interrupted,
}

/// Every unfinished round in the books, oldest first.
pub fn report(store: &dyn Store) -> Result<Vec<Incomplete>> {
    let leases = store.table_leases()?;
    let mut by_table: BTreeMap<String, Vec<RoundRecord>> = BTreeMap::new();
    for r in store.unfinished_rounds()? {
        by_table.entry(r.table_id.clone()).or_default().push(r);
    }
    let mut out = Vec::new();
    for (table, rounds) in by_table {
        let state = match leases.iter().find(|l| l.table == table && l.live) {
            Some(l) => State::InPlay {
                server: l.server.clone(),
            },
            None => State::Interrupted,
        };
        let (resume, void) = recovery::pick(rounds);
        let mut endings: Vec<(RoundRecord, Ending)> = void
            .into_iter()
            .map(|(r, reason)| (r, Ending::Voids { reason }))
            .collect();
        if let Some(r) = resume {
            let ending = match journal::ctx_for(store, &r) {
                Ok(ctx) => recovery::ending(&ctx, &r),
                Err(e) => Ending::Voids {
                    reason: format!("its rules cannot be read: {e}"),
                },
            };
            endings.push((r, ending));
        }
        for (r, ending) in endings {
            out.push(Incomplete {
                round: r.id,
                table: table.clone(),
                game: r.game_id.clone(),
                started_at: r.started_at.clone(),
                stakes: stakes(&r),
                state: state.clone(),
                ending,
            });
        }
    }
    out.sort_by_key(|i| i.round);
    Ok(out)
}

/// Each player's net stake in a round: what left the player's wallet in it less what
/// came back.
fn stakes(r: &RoundRecord) -> Vec<Stake> {
    let mut net: BTreeMap<String, i64> = BTreeMap::new();
    for m in &r.movements {
        let m = &m.movement;
        if let Account::Player(p) = &m.from {
            *net.entry(p.clone()).or_default() += m.amount.0;
        }
        if let Account::Player(p) = &m.to {
            *net.entry(p.clone()).or_default() -= m.amount.0;
        }
    }
    net.into_iter()
        .filter(|(_, cents)| *cents != 0)
        .map(|(player, cents)| Stake {
            player,
            amount: Money(cents),
        })
        .collect()
}
