//! The player's own unfinished rounds, shown at log-in (issue 26, item 5; GLI-19
//! 4.16.2-4.16.3): each round in the books not finished that holds their stake, at
//! which table, how much, and what happens next. The operator's report of every such
//! round is [`felt_session::incomplete::report`]; this is its rows for one player.

use felt_core::Money;
use felt_session::incomplete::{self, State};
use felt_session::recovery::Ending;
use felt_store::{RoundId, Store};
use serde::Serialize;

/// One unfinished round that holds the player's stake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unfinished {
    /// The round.
    pub round: RoundId,
    /// The table's name (the page's `#/table/NAME`), when this server's tables file
    /// has it.
    pub table: Option<String>,
    /// The player's stake in it, net of anything paid back.
    pub stake: Money,
    /// Whether a server deals it now (`true`), or it waits for one to take the table.
    pub in_play: bool,
    /// What happens next, as the player reads it.
    pub next: String,
}

/// The unfinished rounds holding `player`'s stake, oldest first; `table_name` maps a
/// table id of the books to the name a player opens it by.
pub fn of_player(
    st: &dyn Store,
    player: &str,
    table_name: impl Fn(&str) -> Option<String>,
) -> felt_session::Result<Vec<Unfinished>> {
    Ok(incomplete::report(st)?
        .into_iter()
        .filter_map(|r| {
            let stake = r.stakes.iter().find(|s| s.player == player)?.amount;
            let in_play = matches!(r.state, State::InPlay { .. });
            Some(Unfinished {
                round: r.round,
                table: table_name(&r.table),
                stake,
                in_play,
                next: next(in_play, &r.ending),
            })
        })
        .collect())
}

/// What happens next to a round, in a sentence.
fn next(in_play: bool, ending: &Ending) -> String {
    match (in_play, ending) {
        (_, Ending::Voids { reason }) => {
            format!("it will be voided and your stake returned ({reason})")
        }
        (true, _) => "it is being played now: your hands wait for you (or are stood for you \
                      when their time runs out, by the table's rules)"
            .to_string(),
        (false, _) => "it resumes where it stopped when its table is dealt again".to_string(),
    }
}
