//! Brute-force references shared by the main-game test files: independent of the
//! analyser, they enumerate every draw.
#![allow(dead_code)]

/// The best total of `cards` (card values 0 = ace .. 9 = ten) and whether it is soft.
pub fn hard_total(cards: &[usize]) -> (u32, bool) {
    let hard: u32 = cards.iter().map(|&c| c as u32 + 1).sum();
    if cards.contains(&0) && hard + 10 <= 21 {
        (hard + 10, true)
    } else {
        (hard, false)
    }
}

/// Dealer outcome distribution [17, 18, 19, 20, 21, bust, natural] by
/// enumerating every draw sequence from `shoe` after the dealer's `cards`.
pub fn brute_dealer(
    cards: &mut Vec<usize>,
    shoe: &mut [u32; 10],
    h17: bool,
    out: &mut [f64; 7],
    p: f64,
) {
    let (t, soft) = hard_total(cards);
    if cards.len() == 2 && t == 21 {
        out[6] += p;
        return;
    }
    if t < 17 || (h17 && t == 17 && soft) {
        let n: u32 = shoe.iter().sum();
        for c in 0..10 {
            if shoe[c] == 0 {
                continue;
            }
            let q = p * f64::from(shoe[c]) / f64::from(n);
            shoe[c] -= 1;
            cards.push(c);
            brute_dealer(cards, shoe, h17, out, q);
            cards.pop();
            shoe[c] += 1;
        }
    } else if t > 21 {
        out[5] += p;
    } else {
        out[(t - 17) as usize] += p;
    }
}

/// One deck, H17, no hole-card peek (every value unconditioned, as the
/// enumerators count them), up to `m` hands per pair, aces resplit with one
/// card each, no surrender, CDZ- after a split.
pub fn no_peek_split_rules(m: u32, obo: bool, das: bool) -> felt_math::main_game::MainGameRules {
    use felt_math::main_game::*;
    MainGameRules {
        decks: 1,
        dealer_hits_soft_17: true,
        peek: Peek::None,
        no_peek_loss: if obo {
            NoPeekLoss::OriginalBetsOnly
        } else {
            NoPeekLoss::AllBets
        },
        blackjack_pays: (3, 2),
        double: DoubleOn::AnyTwo,
        double_after_split: das,
        max_split_hands: m,
        resplit_aces: true,
        one_card_to_split_aces: true,
        hit_split_aces: false,
        surrender: Surrender::None,
        surrender_after_split: false,
        split_by_rank: false,
        post_split: PostSplit::Cdz,
    }
}
