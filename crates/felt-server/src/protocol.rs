//! The protocol: JSON messages over one WebSocket per table, version [`VERSION`].
//! `docs/protocol.md` gives an example of every message.
//!
//! A client's first message is `hello` (the table, and the last sequence number seen
//! when reconnecting). Every message the server sends carries `seq`, the sequence
//! number of the player's stream at this table (a spectator's: the connection's). An
//! action names its round, its hand and a client action id; a refused one gets an
//! `error` with a [`Code`] and a sentence, and changes nothing.
//!
//! Seats, spots and hands are numbered from 1; amounts are decimal strings (`"10.00"`);
//! cards are `7h`, `Ts`, `Qs`.

use felt_core::Money;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The protocol's version. Version 2 sends what does not change at a table (its
/// game, limits and hints) once, in the welcome; version 1 repeats it in every view.
pub const VERSION: u32 = 2;

/// The oldest version still served.
pub const OLDEST_VERSION: u32 = 1;

/// The largest message a client may send (bytes).
pub const MAX_MESSAGE: usize = 4 * 1024;

/// A message from a client.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ClientMsg {
    /// Joins a table's stream (first message of a connection).
    Hello {
        /// The protocol version the client speaks.
        version: u32,
        /// The table's name.
        table: String,
        /// The last `seq` the client saw at this table (reconnecting).
        #[serde(default)]
        last_seq: Option<u64>,
    },
    /// Takes a seat (the first free one without `seat`), between rounds.
    Sit {
        /// The seat (1..).
        #[serde(default)]
        seat: Option<u8>,
    },
    /// Leaves the seat (at once between rounds, else when the round ends).
    Leave {},
    /// Places every wager of the player for the round, all or none.
    Bet {
        /// The round the bets are for.
        round: i64,
        /// The client's id for this message.
        id: String,
        /// One entry per spot played.
        spots: Vec<SpotBet>,
    },
    /// A decision on a hand (or an offer on a spot).
    Act {
        /// The round.
        round: i64,
        /// The spot (1..).
        spot: u8,
        /// The hand of the spot (1.., more than 1 after a split).
        hand: u8,
        /// The decision.
        decision: Word,
        /// The amount of a double or an insurance (default: the full amount).
        #[serde(default, deserialize_with = "amount::optional")]
        amount: Option<Money>,
        /// The client's id for this action.
        id: String,
    },
    /// Asks for a fresh view (answered with `view`).
    Sync {},
    /// Keeps the connection alive (answered with `pong`).
    Ping {},
}
// The messages without fields are empty struct variants, not unit variants: serde
// ignores unknown fields beside a unit variant's tag, and this protocol refuses them.

/// A spot's wagers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpotBet {
    /// The spot (1..).
    pub spot: u8,
    /// The main bet.
    #[serde(deserialize_with = "amount::one")]
    pub main: Money,
    /// Side bets by id (`"lucky-ladies": "5.00"`).
    #[serde(default, deserialize_with = "amount::by_id")]
    pub side: BTreeMap<String, Money>,
}

/// Amounts a client sends: never negative (a negative amount is not a message of
/// this protocol, `bad-message`, before any rule looks at it).
mod amount {
    use felt_core::Money;
    use serde::de::Error;
    use serde::{Deserialize, Deserializer};
    use std::collections::BTreeMap;

    fn checked<E: Error>(m: Money) -> Result<Money, E> {
        if m < Money::ZERO {
            return Err(E::custom(format!("an amount is never negative ({m})")));
        }
        Ok(m)
    }

    pub fn one<'de, D: Deserializer<'de>>(d: D) -> Result<Money, D::Error> {
        checked(Money::deserialize(d)?)
    }

    pub fn optional<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Money>, D::Error> {
        Option::<Money>::deserialize(d)?.map(checked).transpose()
    }

    pub fn by_id<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Money>, D::Error> {
        let all = BTreeMap::<String, Money>::deserialize(d)?;
        for m in all.values() {
            checked::<D::Error>(*m)?;
        }
        Ok(all)
    }
}

/// A decision, as a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Word {
    /// Take a card.
    Hit,
    /// Take no more cards.
    Stand,
    /// Double (for `amount`, default the full bet).
    Double,
    /// Split the pair.
    Split,
    /// Surrender the hand.
    Surrender,
    /// Insure (for `amount`, default half the bet).
    Insurance,
    /// Take even money.
    EvenMoney,
    /// Decline the offer.
    Decline,
}

/// Why the server refused a message. Each comes with a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// Not JSON, or not a message of this protocol.
    BadMessage,
    /// A message type this protocol does not have.
    UnknownType,
    /// Larger than [`MAX_MESSAGE`].
    TooLarge,
    /// Another protocol version.
    Version,
    /// A message before `hello`, or a second `hello`.
    Hello,
    /// No such table.
    NoTable,
    /// The table is closed (by an operator, or the server is stopping).
    TableClosed,
    /// The message needs a seat.
    NotSeated,
    /// The seat is taken, or does not exist.
    SeatTaken,
    /// The player sits at another table.
    SeatedElsewhere,
    /// Already seated here.
    AlreadySeated,
    /// No round takes bets now, or the player is not in this round.
    NotBetting,
    /// The player has bet this round already.
    AlreadyBet,
    /// The action is for another round.
    OtherRound,
    /// An action with this id was applied already.
    AlreadyApplied,
    /// The action id is empty, too long or not printable.
    BadActionId,
    /// It is not this player's turn.
    NotYourTurn,
    /// The action names a hand that is not the one deciding (or not the player's).
    NotThisHand,
    /// The engine refused it (the sentence says why).
    Refused,
    /// The player's wallet in the books cannot pay for the action (its balance moved
    /// since the round opened): nothing was done.
    InsufficientFunds,
    /// The player's balance in the books is not the one the round opened with (they
    /// left and came back, or money arrived): bet again, or in the next round.
    BalanceChanged,
    /// The stake would pass a limit the player set (the sentence names it and when it
    /// resets), or the operator's wallet refused the debit for a responsible-gaming or
    /// operator limit: nothing was done.
    LimitReached,
    /// The player is on a break or excluded (the sentence says until when), or the
    /// operator's wallet refused the debit: the player may not play.
    PlayerBlocked,
    /// The operator's wallet refused the debit: the player's session there ended.
    SessionExpired,
    /// The operator's wallet did not answer the debit (or not as the contract says):
    /// the bet or action is refused and the debit rolled back.
    WalletUnavailable,
    /// A debit for this player is waiting for the operator's wallet: wait for its
    /// answer.
    WalletPending,
    /// Too many messages: slow down.
    RateLimited,
    /// The table's inbox is full: the message was dropped; send it again later.
    Busy,
    /// Only an operator may do this.
    Forbidden,
    /// A reality check waits for the player's answer (`POST
    /// /api/session/reality-check`): no bet until then.
    RealityCheck,
    /// The socket's session ended (log-out, expiry, an operator's exclusion): the
    /// socket closes; log in again.
    SessionEnded,
    /// The table is not dealt anywhere this instant (its server stopped, the books
    /// failed, or it moves to another server): reconnect in a moment, it resumes from
    /// the books where it stopped.
    Away,
}

/// The text of an error frame.
pub fn error_frame(seq: u64, code: Code, message: &str, id: Option<&str>) -> String {
    let mut v = serde_json::json!({
        "type": "error",
        "seq": seq,
        "code": code,
        "message": message,
    });
    if let Some(id) = id {
        v["id"] = id.into();
    }
    v.to_string()
}
