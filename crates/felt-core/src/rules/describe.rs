//! The plain-language rules card: every rule and every pay table of a game.

use super::{
    DoubleOn, InsuranceOffer, LateNatural, LinePay, OnCrash, Peek, Rounding, Rules, SideBetRules,
    Soft17, SplitPairs, Surrender, ThirdCard,
};
use crate::money::Basis;
use crate::sidebet::SideBetKind;
use std::fmt::Write;

/// The rules card of a game, as plain text (one rule a line, pay tables as tables).
pub fn rules_card(r: &Rules) -> String {
    let mut o = String::new();
    let g = r.game();
    let _ = writeln!(o, "{} ({})", g.name, g.id);
    if !g.summary.is_empty() {
        let _ = writeln!(o, "{}", g.summary);
    }
    let _ = writeln!(o);
    let s = r.shoe();
    let _ = writeln!(o, "Shoe");
    if s.csm {
        let _ = writeln!(
            o,
            "  {} deck(s) in a continuous shuffling machine: every round's cards go back and the shoe is reshuffled before each round.",
            s.decks
        );
    } else {
        let _ = writeln!(
            o,
            "  {} deck(s); cut card at {:.0}% of the shoe; reshuffle after the round the cut card comes out.",
            s.decks,
            s.penetration * 100.0
        );
    }
    if s.burn > 0 {
        let _ = writeln!(o, "  {} card(s) burned after each shuffle.", s.burn);
    }
    let d = r.dealer();
    let _ = writeln!(o, "Dealer");
    let _ = writeln!(
        o,
        "  {}",
        match d.soft_17 {
            Soft17::Stand => "Dealer stands on all 17s (S17).",
            Soft17::Hit => "Dealer hits soft 17 (H17).",
        }
    );
    let _ = writeln!(
        o,
        "  {}",
        match d.peek {
            Peek::TenAndAce => "Dealer peeks for blackjack under a ten or an ace.",
            Peek::AceOnly => "Dealer peeks for blackjack under an ace only.",
            Peek::None => "Dealer does not peek; the hole card is turned after the players play.",
        }
    );
    if d.peek != Peek::TenAndAce {
        let _ = writeln!(
            o,
            "  A dealer blackjack found after the players' decisions: {}",
            match d.late_natural {
                LateNatural::AllBetsLose => "all bets lose, doubles and splits included.",
                LateNatural::OriginalBetsOnly => {
                    "only original bets lose; double and split amounts are returned."
                }
            }
        );
    }
    let i = r.insurance();
    let _ = writeln!(o, "Insurance");
    let _ = writeln!(
        o,
        "  {}",
        match i.offer {
            InsuranceOffer::Off => "No insurance.".to_string(),
            InsuranceOffer::Half => format!(
                "Insurance under an ace: exactly half the bet, pays {} to {}.",
                i.pays.num, i.pays.den
            ),
            InsuranceOffer::UpToHalf => format!(
                "Insurance under an ace: any amount up to half the bet, pays {} to {}.",
                i.pays.num, i.pays.den
            ),
        }
    );
    if i.even_money {
        let _ = writeln!(o, "  Even money offered to a blackjack under an ace.");
    }
    let p = r.player();
    let m = r.main_bet();
    let _ = writeln!(o, "Player");
    let _ = writeln!(
        o,
        "  Blackjack pays {} to {}.",
        m.blackjack_pays.num, m.blackjack_pays.den
    );
    let double = match p.double {
        DoubleOn::None => "No doubling.".to_string(),
        DoubleOn::AnyTwo => "Double on any first two cards".to_string(),
        DoubleOn::NineToEleven => "Double on 9, 10 or 11".to_string(),
        DoubleOn::TenToEleven => "Double on 10 or 11".to_string(),
    };
    if p.double != DoubleOn::None {
        let _ = writeln!(
            o,
            "  {double}{}{}.",
            if p.double_after_split {
                ", also after a split"
            } else {
                ", not after a split"
            },
            if p.double_for_less {
                "; for any amount from the table minimum up to the bet"
            } else {
                "; for the full bet"
            }
        );
    } else {
        let _ = writeln!(o, "  {double}");
    }
    if p.max_split_hands <= 1 {
        let _ = writeln!(o, "  No splitting.");
    } else {
        let _ = writeln!(
            o,
            "  Split pairs of the same {} up to {} hands; aces {}{}.",
            match p.split_pairs {
                SplitPairs::Value => "value (J-Q is a pair)",
                SplitPairs::Rank => "rank",
            },
            p.max_split_hands,
            if p.resplit_aces {
                "may be resplit"
            } else {
                "split once"
            },
            if p.one_card_split_aces {
                ", one card each"
            } else if p.hit_split_aces {
                ", and may be hit"
            } else {
                ""
            }
        );
        let _ = writeln!(
            o,
            "  A two-card 21 after a split is not a blackjack and pays 1 to 1."
        );
    }
    let _ = writeln!(
        o,
        "  {}",
        match (p.surrender, p.surrender_after_split) {
            (Surrender::None, _) => "No surrender.",
            (Surrender::Late, false) => "Late surrender of the first two cards, after the peek.",
            (Surrender::Late, true) => {
                "Late surrender of any two-card hand, split hands too, after the peek."
            }
            (Surrender::Early, false) => "Early surrender of the first two cards, before the peek.",
            (Surrender::Early, true) => "Early surrender of any two-card hand, before the peek.",
        }
    );
    let _ = writeln!(
        o,
        "  A hard 21 stands. {}",
        if p.hit_soft_21 {
            "A soft 21 may be hit."
        } else {
            "A soft 21 stands."
        }
    );
    let t = r.table();
    let _ = writeln!(o, "Table");
    let _ = writeln!(
        o,
        "  {} seat(s); up to {} spot(s) per player.",
        t.seats, t.max_spots_per_player
    );
    let _ = writeln!(
        o,
        "  Main bet {} to {} in steps of {}.",
        m.min, m.max, m.increment
    );
    if t.naturals_paid_in_turn {
        let _ = writeln!(o, "  Blackjacks are paid in turn, before the dealer plays.");
    }
    let _ = writeln!(
        o,
        "  {}",
        match t.rounding {
            Rounding::Exact => "Bets that would pay a fraction of a cent are refused.",
            Rounding::Down => "A payout of a fraction of a cent is rounded down (and logged).",
        }
    );
    let _ = writeln!(
        o,
        "  {}",
        match t.on_crash {
            OnCrash::Resume =>
                "A round interrupted by a crash is resumed where it stopped, from its stored \
                 cards and decisions.",
            OnCrash::Void =>
                "A round interrupted by a crash is void: every stake and payout of it is returned.",
        }
    );
    for b in r.side_bets() {
        let _ = writeln!(o);
        side_bet_card(&mut o, b, s.decks);
    }
    o
}

/// The part of the rules card about one side bet: what it reads, its limits and its
/// pay table, for a shoe of `decks` decks.
pub fn side_bet_card_text(b: &SideBetRules, decks: u8) -> String {
    let mut o = String::new();
    side_bet_card(&mut o, b, decks);
    o
}

fn side_bet_card(o: &mut String, b: &SideBetRules, decks: u8) {
    let _ = writeln!(o, "{} (side bet `{}`)", b.name, b.id);
    let _ = writeln!(o, "  Reads {}.", b.kind.cards_read());
    let amount = if b.min == b.max {
        format!("exactly {}", b.min)
    } else {
        format!("{} to {} in steps of {}", b.min, b.max, b.increment)
    };
    let _ = writeln!(
        o,
        "  Needs a main bet on the same spot; {amount}; placed before the first card."
    );
    if b.kind == SideBetKind::Sevens {
        let _ = writeln!(
            o,
            "  Third card: {}.",
            match b.third_card_source() {
                ThirdCard::NextCard => "the next card the hand receives (a hit, a double, or the first split hand's card)",
                ThirdCard::UpCard => "the dealer's up card",
            }
        );
        let _ = writeln!(
            o,
            "  On a dealer blackjack, two 7s {}.",
            if b.third_card_on_dealer_natural {
                "still receive a third card for this bet"
            } else {
                "get no third card and are paid as two 7s"
            }
        );
    }
    let _ = writeln!(o, "  Pays (only the first matching line, top down):");
    for (_, line) in b.active_lines() {
        let basis = match line.basis {
            Basis::To => "to",
            Basis::For => "for",
        };
        let pay = match line.pay() {
            LinePay::Odds(r) => format!("{} {basis} {}", r.num, r.den),
            LinePay::Meter(p) => format!("{p}% of the meter ({basis} 1)"),
        };
        let note = if line.hand.min_decks() > decks && b.kind == SideBetKind::LuckyLucky {
            "   (cannot occur with this many decks)"
        } else {
            ""
        };
        let _ = writeln!(o, "    {:<44} {pay}{note}", line.hand.describe());
    }
    if !b.one_seven_pays {
        let _ = writeln!(o, "  One 7 does not pay (one_seven_pays = false).");
    }
    if let Some(p) = &b.progressive {
        let _ = writeln!(
            o,
            "  Progressive meter `{}`: reset {}, each wager adds {}.",
            p.meter, p.reset, p.increment
        );
        let _ = writeln!(
            o,
            "  The meter is shared by every table that names it, on every server. Hits at\n  \
             the same moment are paid one after the other, in the order the books record\n  \
             them: the first is paid from the meter as it stands, the next from the meter\n  \
             after that award (its reset plus what was added since). The meter never shows\n  \
             less than its reset."
        );
    }
}
