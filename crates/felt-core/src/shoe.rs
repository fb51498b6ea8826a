//! The shoe: N decks, an unbiased Fisher-Yates shuffle driven by a cryptographically
//! secure generator passed in, a cut card, a discard rack and burns (C-12, LA-4).
//!
//! Layout of `cards`: `[0, discards)` is the discard rack, `[discards, next)` the
//! cards of the round in play, `[next, len)` the undealt cards. The vector is
//! allocated once; nothing allocates afterwards.

use crate::card::{Card, Rank, Suit};
use rand_core::{CryptoRng, RngCore};

/// Why a stacked shoe could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShoeError {
    /// The stacked cards ask for more copies of a card than the decks hold.
    #[error("the stacked cards need more copies of {card} than {decks} deck(s) hold")]
    NotInShoe {
        /// The card asked for once too often.
        card: Card,
        /// The number of decks.
        decks: u8,
    },
    /// A shoe holds 1 to 8 decks.
    #[error("a shoe holds 1 to 8 decks, not {0}")]
    Decks(u8),
    /// Bytes given to [`Shoe::from_bytes`] are not a shoe [`Shoe::to_bytes`] wrote.
    #[error("not a valid saved shoe: {0}")]
    Corrupt(String),
}

/// The first byte of [`Shoe::to_bytes`]: the format's version.
const SHOE_FORMAT: u8 = 1;
/// Bytes before the cards in [`Shoe::to_bytes`].
const SHOE_HEADER: usize = 12;

/// How a shoe shuffles. A shoe keeps the method it was made with (it is saved with
/// it), so a stored round replays with the shuffle it was dealt from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShuffleMethod {
    /// Fisher-Yates drawing one 32-bit word per position (felt before shoes recorded
    /// their method; byte 0 in [`Shoe::to_bytes`]).
    OneWordPerCard,
    /// Fisher-Yates drawing the indices of up to [`BATCH`] positions from one 64-bit
    /// word (byte 1), in place: the order also depends on the order the shoe had.
    Batched,
    /// The batched Fisher-Yates from the decks in pack order (byte 2); what new shoes
    /// use. A shuffle's order depends on the generator alone, so a shoe's seed is
    /// enough to rebuild it (`felt verify` checks a retired shoe's cards this way).
    /// A rack reshuffle mid-round shuffles the rack as it lies, as before.
    FromPackOrder,
}

impl ShuffleMethod {
    fn byte(self) -> u8 {
        match self {
            ShuffleMethod::OneWordPerCard => 0,
            ShuffleMethod::Batched => 1,
            ShuffleMethod::FromPackOrder => 2,
        }
    }

    fn from_byte(b: u8) -> Option<ShuffleMethod> {
        match b {
            0 => Some(ShuffleMethod::OneWordPerCard),
            1 => Some(ShuffleMethod::Batched),
            2 => Some(ShuffleMethod::FromPackOrder),
            _ => None,
        }
    }
}

/// A shoe of 1 to 8 decks with its position, cut card and discard rack.
#[derive(Debug, Clone)]
pub struct Shoe {
    cards: Vec<Card>,
    next: usize,
    discards: usize,
    cut: usize,
    /// The cut card is out although the position has not passed it (the shoe ran
    /// empty, or the rack was reshuffled mid-round). Past the cut, it is out anyway.
    forced_out: bool,
    decks: u8,
    shuffled: bool,
    burn_due: bool,
    /// Set by a shuffle, cleared at the end of a round; fresh also needs no card dealt.
    fresh_mark: bool,
    method: ShuffleMethod,
}

/// Two shoes are equal when everything observable is: cards, positions, flags, method.
impl PartialEq for Shoe {
    fn eq(&self, o: &Shoe) -> bool {
        self.cards == o.cards
            && (self.next, self.discards, self.cut) == (o.next, o.discards, o.cut)
            && self.cut_card_out() == o.cut_card_out()
            && (self.decks, self.shuffled, self.burn_due) == (o.decks, o.shuffled, o.burn_due)
            && self.is_fresh() == o.is_fresh()
            && self.method == o.method
    }
}

impl Eq for Shoe {}

/// An unbiased integer in `0..n` (`n > 0`) by Lemire's multiply-and-reject method.
#[inline]
pub(crate) fn below<R: RngCore + ?Sized>(rng: &mut R, n: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    let mut low = m as u32;
    if low < n {
        let threshold = n.wrapping_neg() % n;
        while low < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
            low = m as u32;
        }
    }
    (m >> 32) as u32
}

/// Shuffles `cards` in place: the unbiased Fisher-Yates, last position first, each
/// position swapped with one drawn by [`below`] among it and those before it.
fn fisher_yates<R: RngCore + ?Sized>(cards: &mut [Card], rng: &mut R) {
    for i in (1..cards.len()).rev() {
        let j = below(rng, (i + 1) as u32) as usize;
        swap_cards(cards, i, j);
    }
}

/// Swaps two cards by plain copies (a two-byte card swaps faster than through
/// `slice::swap`).
#[inline(always)]
fn swap_cards(cards: &mut [Card], i: usize, j: usize) {
    let (a, b) = (cards[i], cards[j]);
    cards[i] = b;
    cards[j] = a;
}

/// Positions whose indices one 64-bit word gives in [`fisher_yates_batched`]: six
/// bounds of at most 416 multiply to less than 2^53, so a word is drawn again with a
/// probability below 2^-11.
pub const BATCH: usize = 6;

/// The same unbiased Fisher-Yates as [`fisher_yates`], with the indices of up to
/// [`BATCH`] positions drawn from one 64-bit word (batched ranged random integers,
/// Brackett-Rozinsky and Lemire, 2024): the word times the first bound holds the first
/// index in its high half; the low half times the next bound holds the next index, and
/// so on. If the last low half is below `2^64 mod P` (`P` the product of the bounds)
/// the word is drawn again: every tuple of indices is then exactly equally likely.
fn fisher_yates_batched<R: RngCore + ?Sized>(cards: &mut [Card], rng: &mut R) {
    // Positions `1..open` still to fill, last first (position 0 takes what is left).
    let mut open = cards.len();
    // Every product of bounds stays below 2^53 (see `PRODUCT_BELOW`) for a shoe of up to
    // 8 decks; a longer slice works out every product (only the largest word, which is
    // above any `2^64 mod P`, is kept at once).
    let sure = if open <= MAX_CARDS {
        PRODUCT_BELOW
    } else {
        u64::MAX
    };
    while open > BATCH {
        fill_batch(cards, open, BATCH, sure, rng);
        open -= BATCH;
    }
    if open > 1 {
        fill_batch(cards, open, open - 1, sure, rng);
    }
}

/// The most cards a shoe holds (8 decks).
const MAX_CARDS: usize = 8 * 52;

/// A bound above every product of [`BATCH`] bounds of at most [`MAX_CARDS`]
/// (`416^6 < 2^53`): a last low half at or above it is above `2^64 mod P` whatever
/// the product `P`, so the word is kept without working `P` out.
const PRODUCT_BELOW: u64 = 1 << 53;
const _: () = assert!((MAX_CARDS as u64).pow(BATCH as u32) < PRODUCT_BELOW);

/// Whether a batch's last low half `low` keeps its word: it is not below `2^64 mod P`,
/// `P` the product of the bounds `open, open - 1, ..., open - k + 1`. Rarely needed
/// (kept out of line so the product is not worked out for every word).
#[cold]
#[inline(never)]
fn unbiased(low: u64, open: usize, k: usize) -> bool {
    let product = (0..k).map(|t| (open - t) as u64).product::<u64>();
    low >= product || low >= product.wrapping_neg() % product
}

/// Fills positions `open - 1` down to `open - k` (`k <= BATCH`, `k < open`) from one
/// accepted 64-bit word. A last low half at or above `sure` (a bound above the product
/// of the bounds, or `u64::MAX`) is accepted at once.
#[inline(always)]
fn fill_batch<R: RngCore + ?Sized>(
    cards: &mut [Card],
    open: usize,
    k: usize,
    sure: u64,
    rng: &mut R,
) {
    // Position `open - 1 - t` draws among `open - t` cards.
    let mut index = [0usize; BATCH];
    loop {
        let mut low = rng.next_u64();
        for (t, slot) in index.iter_mut().enumerate().take(k) {
            let m = u128::from(low) * (open - t) as u128;
            *slot = (m >> 64) as usize;
            low = m as u64;
        }
        if low >= sure || unbiased(low, open, k) {
            break;
        }
    }
    // The cards still open: every index of the batch falls inside.
    let open_cards = &mut cards[..open];
    for (t, &j) in index.iter().enumerate().take(k) {
        swap_cards(open_cards, open - 1 - t, j);
    }
}

/// Shuffles `cards` in place with `method`.
fn shuffle_cards<R: RngCore + ?Sized>(cards: &mut [Card], method: ShuffleMethod, rng: &mut R) {
    match method {
        ShuffleMethod::OneWordPerCard => fisher_yates(cards, rng),
        ShuffleMethod::Batched | ShuffleMethod::FromPackOrder => fisher_yates_batched(cards, rng),
    }
}

/// One deck in pack order: the card of [`Card::index`] `i` at position `i`.
const PACK: [Card; 52] = {
    let mut pack = [Card::new(Rank::Ace, Suit::Clubs); 52];
    let mut i = 0;
    while i < 52 {
        pack[i] = Card::new(Rank::ALL[i / 4], Suit::ALL[i % 4]);
        i += 1;
    }
    pack
};

/// Puts whole decks in pack order ([`Card::index`] 0..52, deck after deck): one copy
/// of [`PACK`] a deck (a shoe is refilled before every shuffle).
fn fill_pack_order(cards: &mut [Card]) {
    for deck in cards.chunks_mut(52) {
        deck.copy_from_slice(&PACK[..deck.len()]);
    }
}

impl Shoe {
    /// `decks` fresh decks in pack order (1..=8; other counts are clamped), cut card at
    /// 75%. Not yet shuffled: a round shuffles it before the first card.
    pub fn new(decks: u8) -> Shoe {
        let decks = decks.clamp(1, 8);
        let mut cards = vec![Card::new(Rank::Ace, Suit::Clubs); usize::from(decks) * 52];
        fill_pack_order(&mut cards);
        let mut s = Shoe {
            cards,
            next: 0,
            discards: 0,
            cut: 0,
            forced_out: false,
            decks,
            shuffled: false,
            burn_due: false,
            fresh_mark: false,
            method: ShuffleMethod::FromPackOrder,
        };
        s.set_penetration(0.75);
        s
    }

    /// A shoe whose first cards are `first`, in this order, then the rest of the decks
    /// shuffled with `rng`: for exact test scenarios. The cards must exist in the decks.
    /// No burn is due: the next round deals `first[0]` first.
    pub fn stacked<R: RngCore + CryptoRng + ?Sized>(
        decks: u8,
        first: &[Card],
        rng: &mut R,
    ) -> Result<Shoe, ShoeError> {
        if !(1..=8).contains(&decks) {
            return Err(ShoeError::Decks(decks));
        }
        let mut s = Shoe::new(decks);
        s.shuffle(rng);
        for (i, &want) in first.iter().enumerate() {
            let j = s.cards[i..]
                .iter()
                .position(|&c| c == want)
                .ok_or(ShoeError::NotInShoe { card: want, decks })?;
            s.cards.swap(i, i + j);
        }
        s.burn_due = false;
        Ok(s)
    }

    /// Places the cut card after this fraction of the shoe (clamped to 0.05..=1).
    pub fn set_penetration(&mut self, fraction: f64) {
        let f = if fraction.is_finite() {
            fraction.clamp(0.05, 1.0)
        } else {
            0.75
        };
        let len = self.cards.len();
        self.cut = ((len as f64 * f).round() as usize).clamp(1, len);
    }

    /// Gathers every card (rack, play, undealt) and shuffles them with an unbiased
    /// Fisher-Yates; the cut card goes back in and a burn becomes due.
    pub fn shuffle<R: RngCore + CryptoRng + ?Sized>(&mut self, rng: &mut R) {
        self.next = 0;
        self.discards = 0;
        if self.method == ShuffleMethod::FromPackOrder {
            fill_pack_order(&mut self.cards);
        }
        shuffle_cards(&mut self.cards, self.method, rng);
        self.forced_out = false;
        self.shuffled = true;
        self.burn_due = true;
        self.fresh_mark = true;
    }

    /// How this shoe shuffles.
    pub fn shuffle_method(&self) -> ShuffleMethod {
        self.method
    }

    /// Deals the next card; `None` when no undealt card is left.
    #[inline]
    pub fn draw(&mut self) -> Option<Card> {
        match self.deal() {
            Some((c, _)) => Some(c),
            None => {
                self.mark_empty();
                None
            }
        }
    }

    /// Deals the next card and says whether it is the first past the cut card (the
    /// cut card comes out with it); `None`, changing nothing, when the shoe is empty.
    #[inline(always)]
    pub(crate) fn deal(&mut self) -> Option<(Card, bool)> {
        let &c = self.cards.get(self.next)?;
        let cut_now = self.next == self.cut && !self.forced_out;
        self.next += 1;
        Some((c, cut_now))
    }

    /// The shoe ran empty: it is reshuffled before the next round whatever the cut.
    pub(crate) fn mark_empty(&mut self) {
        self.forced_out = true;
    }

    /// Deals the next card straight to the discard rack (a burn); `None` if the shoe is empty.
    pub fn burn(&mut self) -> Option<Card> {
        let c = self.draw()?;
        // Keep the rack contiguous: the burned card moves to the rack's end.
        self.cards.swap(self.discards, self.next - 1);
        self.discards += 1;
        Some(c)
    }

    /// The round is over: its cards go to the discard rack.
    pub fn end_round(&mut self) {
        self.discards = self.next;
        self.fresh_mark = false;
    }

    /// When the undealt cards run out during a round: the discard rack (not the cards
    /// in play) is shuffled and becomes the undealt shoe. `false` if the rack is empty.
    pub fn reshuffle_discards<R: RngCore + CryptoRng + ?Sized>(&mut self, rng: &mut R) -> bool {
        if self.discards == 0 || self.next < self.cards.len() {
            return false;
        }
        let rack = self.discards;
        self.cards.rotate_left(rack);
        let start = self.cards.len() - rack;
        shuffle_cards(&mut self.cards[start..], self.method, rng);
        self.next = start;
        self.discards = 0;
        self.forced_out = true;
        self.fresh_mark = false;
        true
    }

    /// Whether the shoe must be shuffled before the next round (never shuffled, or
    /// the cut card came out).
    pub fn needs_shuffle(&self) -> bool {
        !self.shuffled || self.cut_card_out()
    }

    /// Whether a burn is due after a shuffle (cleared by [`Shoe::burn_done`]).
    pub fn burn_due(&self) -> bool {
        self.burn_due
    }

    /// Marks the post-shuffle burn as done.
    pub fn burn_done(&mut self) {
        self.burn_due = false;
    }

    /// Whether no card was dealt since the last shuffle (a CSM does not reshuffle then).
    pub fn is_fresh(&self) -> bool {
        self.fresh_mark && self.next == 0
    }

    /// Whether the cut card has come out.
    #[inline]
    pub fn cut_card_out(&self) -> bool {
        self.forced_out || self.next > self.cut
    }

    /// The cut card's position: it comes out before the card at this index.
    pub fn cut_position(&self) -> usize {
        self.cut
    }

    /// The number of decks.
    pub fn decks(&self) -> u8 {
        self.decks
    }

    /// All cards of the shoe.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// Whether the shoe holds no card at all (never: a shoe has at least one deck).
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// Cards not yet dealt.
    pub fn remaining(&self) -> usize {
        self.cards.len() - self.next
    }

    /// Cards in the discard rack (burns included).
    pub fn discards(&self) -> usize {
        self.discards
    }

    /// Cards dealt since the shuffle (rack and play).
    pub fn dealt(&self) -> usize {
        self.next
    }

    /// The cards of the round in play (dealt, not yet in the rack).
    pub fn in_play(&self) -> &[Card] {
        &self.cards[self.discards..self.next]
    }

    /// The undealt cards in dealing order. For tests and audits only: never show
    /// these to a player (C-11).
    pub fn undealt(&self) -> &[Card] {
        &self.cards[self.next..]
    }

    /// The shoe as bytes, to save between rounds and processes: a version byte, the
    /// decks, the flags, the shuffle method (0 one word per card, 1 batched), the
    /// position, rack, cut card and length (little-endian `u16`s), then one byte per
    /// card (its [`Card::index`]). [`Shoe::from_bytes`] reads it back.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(SHOE_HEADER + self.cards.len());
        b.push(SHOE_FORMAT);
        b.push(self.decks);
        let flags = u8::from(self.cut_card_out())
            | (u8::from(self.shuffled) << 1)
            | (u8::from(self.burn_due) << 2)
            | (u8::from(self.is_fresh()) << 3);
        b.push(flags);
        b.push(self.method.byte());
        for n in [self.next, self.discards, self.cut, self.cards.len()] {
            // At most 8 * 52 = 416 cards: always fits.
            b.extend_from_slice(&(n as u16).to_le_bytes());
        }
        b.extend(self.cards.iter().map(|c| c.index() as u8));
        b
    }

    /// Reads a shoe [`Shoe::to_bytes`] wrote. Everything is checked (the format, 1 to 8
    /// decks, exactly `decks` copies of each card, positions inside the shoe): bytes that
    /// are not a valid shoe are an error, never a panic.
    pub fn from_bytes(b: &[u8]) -> Result<Shoe, ShoeError> {
        let bad = |why: String| Err(ShoeError::Corrupt(why));
        if b.len() < SHOE_HEADER {
            return bad(format!(
                "{} bytes, the header alone is {SHOE_HEADER}",
                b.len()
            ));
        }
        if b[0] != SHOE_FORMAT {
            return bad(format!("format {}, this felt reads {SHOE_FORMAT}", b[0]));
        }
        let decks = b[1];
        if !(1..=8).contains(&decks) {
            return bad(format!("{decks} decks"));
        }
        let flags = b[2];
        if flags & !0x0f != 0 {
            return bad(format!("unknown flags {flags:#04x}"));
        }
        let Some(method) = ShuffleMethod::from_byte(b[3]) else {
            return bad(format!("unknown shuffle method {}", b[3]));
        };
        let word = |i: usize| usize::from(u16::from_le_bytes([b[4 + 2 * i], b[5 + 2 * i]]));
        let (next, discards, cut, len) = (word(0), word(1), word(2), word(3));
        if len != usize::from(decks) * 52 || b.len() != SHOE_HEADER + len {
            return bad(format!(
                "{len} cards in {} bytes for {decks} deck(s)",
                b.len()
            ));
        }
        if discards > next || next > len || cut == 0 || cut > len {
            return bad(format!(
                "position {next}, rack {discards}, cut card {cut} in {len} cards"
            ));
        }
        let mut cards = Vec::with_capacity(len);
        for &i in &b[SHOE_HEADER..] {
            match Card::from_index(usize::from(i)) {
                Some(c) if usize::from(i) < 52 => cards.push(c),
                _ => return bad(format!("card index {i}")),
            }
        }
        let s = Shoe {
            cards,
            next,
            discards,
            cut,
            // Past the cut the card is out anyway: the flag keeps only what it adds.
            forced_out: flags & 1 != 0 && next <= cut,
            decks,
            shuffled: flags & 2 != 0,
            burn_due: flags & 4 != 0,
            fresh_mark: flags & 8 != 0,
            method,
        };
        if !s.is_complete() {
            return bad(format!("not {decks} copies of every card"));
        }
        Ok(s)
    }

    /// Whether the shoe holds exactly `decks` copies of each of the 52 cards.
    pub fn is_complete(&self) -> bool {
        let mut count = [0u8; 52];
        for c in &self.cards {
            count[c.index()] += 1;
        }
        self.cards.len() == usize::from(self.decks) * 52 && count.iter().all(|&n| n == self.decks)
    }
}

/// Every card of `decks` decks once per deck, pack order (ranks ace..king, suits c d h s).
pub fn full_decks(decks: u8) -> impl Iterator<Item = Card> {
    (0..decks).flat_map(|_| {
        Rank::ALL
            .into_iter()
            .flat_map(|r| Suit::ALL.into_iter().map(move |s| Card::new(r, s)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn c_12_shuffle_is_a_permutation_and_the_cut_card_comes_out() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut s = Shoe::new(2);
        s.set_penetration(0.5);
        s.shuffle(&mut rng);
        assert!(s.is_complete());
        assert!(s.is_fresh());
        assert_eq!(s.cut_position(), 52);
        for _ in 0..52 {
            s.draw().unwrap();
            assert!(!s.is_fresh());
            assert!(!s.cut_card_out());
        }
        s.draw().unwrap();
        assert!(s.cut_card_out());
        assert!(s.needs_shuffle());
        assert_eq!(full_decks(2).count(), 104);
    }

    #[test]
    fn c_12_fisher_yates_is_unbiased_on_a_small_range() {
        // Every card of a 52-card deck lands in position 0 about equally often.
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let mut first = [0u32; 52];
        let mut s = Shoe::new(1);
        for _ in 0..52_000 {
            s.shuffle(&mut rng);
            first[s.undealt()[0].index()] += 1;
        }
        assert!(first.iter().all(|&n| (800..1200).contains(&n)), "{first:?}");
        let mut hits = [0u32; 3];
        for _ in 0..30_000 {
            hits[below(&mut rng, 3) as usize] += 1;
        }
        assert!(hits.iter().all(|&n| (9_500..10_500).contains(&n)));
    }

    fn distinct(n: usize) -> Vec<Card> {
        (0..n).filter_map(Card::from_index).collect()
    }

    #[test]
    fn c_12_batched_shuffle_deals_every_permutation_equally_often() {
        // 4 cards: one batch of 3 positions, 24 permutations, 2000 expected each
        // (standard deviation about 44).
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let base = distinct(4);
        let mut count = std::collections::HashMap::new();
        for _ in 0..48_000 {
            let mut c = base.clone();
            fisher_yates_batched(&mut c, &mut rng);
            *count.entry(c).or_insert(0u32) += 1;
        }
        assert_eq!(count.len(), 24);
        assert!(
            count.values().all(|&n| (1_700..2_300).contains(&n)),
            "{count:?}"
        );
    }

    #[test]
    fn c_12_batched_shuffle_puts_every_card_everywhere_equally_often() {
        // 9 cards: a full batch of 6 positions, then a last batch of 2.
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let base = distinct(9);
        let mut at = [[0u32; 9]; 9];
        for _ in 0..90_000 {
            let mut c = base.clone();
            fisher_yates_batched(&mut c, &mut rng);
            for (pos, card) in c.iter().enumerate() {
                at[card.index()][pos] += 1;
            }
        }
        for row in at {
            assert!(row.iter().all(|&n| (9_500..10_500).contains(&n)), "{row:?}");
        }
    }

    /// A generator that plays back fixed 64-bit words.
    struct Words(Vec<u64>);

    impl RngCore for Words {
        fn next_u32(&mut self) -> u32 {
            self.next_u64() as u32
        }
        fn next_u64(&mut self) -> u64 {
            self.0.remove(0)
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            for b in dest {
                *b = self.next_u32() as u8;
            }
        }
        fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
            self.fill_bytes(dest);
            Ok(())
        }
    }

    #[test]
    fn c_12_a_biased_word_is_drawn_again() {
        // 4 cards: bounds 4, 3, 2, product 24; 2^64 mod 24 = 16, so the word 0 (last
        // low half 0) must be rejected and the next word used instead.
        let word = 0x9e37_79b9_7f4a_7c15;
        let mut with_reject = distinct(4);
        let mut words = Words(vec![0, word]);
        fisher_yates_batched(&mut with_reject, &mut words);
        assert!(words.0.is_empty(), "the second word was not drawn");
        let mut direct = distinct(4);
        fisher_yates_batched(&mut direct, &mut Words(vec![word]));
        assert_eq!(with_reject, direct);
        // The accepted word's indices: high halves of word*4, then low*3, then low*2.
        let m = u128::from(word) * 4;
        let i0 = (m >> 64) as usize;
        let m = u128::from(m as u64) * 3;
        let i1 = (m >> 64) as usize;
        let i2 = ((u128::from(m as u64) * 2) >> 64) as usize;
        let mut expect = distinct(4);
        expect.swap(3, i0);
        expect.swap(2, i1);
        expect.swap(1, i2);
        assert_eq!(direct, expect);
    }

    /// How many words of `bits` bits a multiply-and-reject draw keeps for outcome `q`
    /// of `p`: the words `w` with `q 2^bits + t <= w p < (q + 1) 2^bits`, `t` being
    /// `2^bits mod p`.
    fn kept_words(q: u128, p: u128, bits: u32) -> u128 {
        let (two, t) = (1u128 << bits, (1u128 << bits) % p);
        ((q + 1) * two).div_ceil(p) - (q * two + t).div_ceil(p)
    }

    #[test]
    fn below_rejects_exactly_the_uneven_words() {
        // `felt rng-test` cites this test: every outcome of a one-word draw below n
        // keeps exactly floor(2^32 / n) words, and the code keeps exactly those.
        for n in 1..=416u32 {
            let t = (1u64 << 32) % u64::from(n);
            for k in 0..u128::from(n) {
                assert_eq!(
                    kept_words(k, u128::from(n), 32),
                    (1u128 << 32) / u128::from(n)
                );
            }
            // The first word of each outcome's range, and its neighbours.
            for k in [0, n / 2, n - 1] {
                let first = ((u64::from(k) << 32).div_ceil(u64::from(n))) as u32;
                for x in [first, first.wrapping_add(1), first.wrapping_sub(1)] {
                    let m = u64::from(x) * u64::from(n);
                    let mut words = Words(vec![u64::from(x), 7]);
                    let got = below(&mut words, n);
                    if (m as u32 as u64) < t {
                        assert!(words.0.is_empty(), "n {n}: word {x} kept");
                        assert_eq!(got, ((7u64 * u64::from(n)) >> 32) as u32);
                    } else {
                        assert_eq!(words.0.len(), 1, "n {n}: word {x} drawn again");
                        assert_eq!(got, (m >> 32) as u32);
                    }
                }
            }
        }
    }

    #[test]
    fn batched_words_are_the_mixed_radix_digits_and_rejection_is_exact() {
        // `felt rng-test` cites this test: a word w gives the mixed-radix digits of
        // floor(w P / 2^64), is drawn again exactly when w P mod 2^64 < 2^64 mod P, and
        // so keeps floor(2^64 / P) words for every tuple of indices.
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        // A slice of `open` cards (repeating after 52): the swaps are still told apart.
        let cards_of = |open: usize| -> Vec<Card> {
            (0..open).filter_map(|i| Card::from_index(i % 52)).collect()
        };
        for open in [2usize, 3, 7, 52, 53, 104, 312, 416, 500] {
            let k = (open - 1).min(BATCH);
            let bounds: Vec<u128> = (0..k).map(|t| (open - t) as u128).collect();
            let p: u128 = bounds.iter().product();
            let t = (1u128 << 64) % p;
            for q in [0, 1, p / 2, p - 1] {
                assert_eq!(kept_words(q, p, 64), (1u128 << 64) / p);
            }
            let first_of = |q: u128| ((q << 64).div_ceil(p)) as u64;
            let mut words: Vec<u64> = (0..50).map(|_| rng.next_u64()).collect();
            for q in [0, 1, p / 3, p - 1] {
                words.extend([first_of(q), first_of(q).wrapping_sub(1), first_of(q) + 1]);
            }
            for w in words {
                let product = u128::from(w) * p;
                let keep = (product as u64 as u128) >= t;
                // The digits of floor(w P / 2^64), most significant first.
                let mut rest = product >> 64;
                let mut digits = vec![0usize; k];
                for (slot, b) in digits.iter_mut().zip(&bounds).rev() {
                    *slot = (rest % b) as usize;
                    rest /= b;
                }
                // Past 8 decks only the exact rule holds (the products pass 2^53).
                let sures: &[u64] = if open <= MAX_CARDS {
                    &[u64::MAX, PRODUCT_BELOW]
                } else {
                    &[u64::MAX]
                };
                for &sure in sures {
                    let mut cards = cards_of(open);
                    let mut script = Words(vec![w, 0x9e37_79b9_7f4a_7c15]);
                    fill_batch(&mut cards, open, k, sure, &mut script);
                    assert_eq!(script.0.is_empty(), !keep, "open {open}, word {w:#x}");
                    if keep {
                        let mut expect = cards_of(open);
                        for (t, &j) in digits.iter().enumerate() {
                            expect.swap(open - 1 - t, j);
                        }
                        assert_eq!(cards, expect, "open {open}, word {w:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_slice_longer_than_eight_decks_still_draws_an_uneven_word_again() {
        // 500 cards: bounds 500..495 first; the word 0 leaves a last low half of 0,
        // below 2^64 mod P, so it must be drawn again (84 batches, 85 words).
        let mut rng = ChaCha20Rng::seed_from_u64(22);
        let p: u128 = (495..=500u128).product();
        assert!(!(1u128 << 64).is_multiple_of(p));
        let mut script = vec![0u64];
        script.extend((0..200).map(|_| rng.next_u64()));
        let mut words = Words(script);
        let mut cards: Vec<Card> = (0..500).filter_map(|i| Card::from_index(i % 52)).collect();
        fisher_yates_batched(&mut cards, &mut words);
        assert_eq!(201 - words.0.len(), 85);
    }

    #[test]
    fn c_12_a_shoe_keeps_its_shuffle_method_through_bytes() {
        let mut s = Shoe::new(2);
        assert_eq!(s.shuffle_method(), ShuffleMethod::FromPackOrder);
        let mut b = s.to_bytes();
        assert_eq!(b[3], 2);
        // A shoe saved before shoes recorded their method (byte 0) shuffles one word
        // per card, as it was dealt then.
        b[3] = 0;
        let mut old = Shoe::from_bytes(&b).unwrap();
        assert_eq!(old.shuffle_method(), ShuffleMethod::OneWordPerCard);
        old.shuffle(&mut ChaCha20Rng::seed_from_u64(5));
        let mut expect = Shoe::new(2).cards;
        fisher_yates(&mut expect, &mut ChaCha20Rng::seed_from_u64(5));
        assert_eq!(old.undealt(), &expect[..]);
        assert_eq!(Shoe::from_bytes(&old.to_bytes()).unwrap(), old);
        // Byte 1: the batched shuffle in place (shoes saved before byte 2 existed).
        b[3] = 1;
        let mut batched = Shoe::from_bytes(&b).unwrap();
        assert_eq!(batched.shuffle_method(), ShuffleMethod::Batched);
        batched.shuffle(&mut ChaCha20Rng::seed_from_u64(5));
        let mut expect = Shoe::new(2).cards;
        fisher_yates_batched(&mut expect, &mut ChaCha20Rng::seed_from_u64(5));
        assert_eq!(batched.undealt(), &expect[..]);
        s.shuffle(&mut ChaCha20Rng::seed_from_u64(5));
        assert_ne!(s.undealt(), old.undealt());
        b[3] = 3;
        assert!(matches!(Shoe::from_bytes(&b), Err(ShoeError::Corrupt(_))));
    }

    #[test]
    fn a_new_shoe_holds_its_decks_in_pack_order() {
        for decks in [1, 6, 8] {
            let s = Shoe::new(decks);
            assert_eq!(s.undealt().len(), usize::from(decks) * 52);
            for (i, c) in s.undealt().iter().enumerate() {
                assert_eq!(c.index(), i % 52, "{decks} decks, position {i}");
            }
        }
    }

    #[test]
    fn c_12_a_new_shoe_shuffles_from_pack_order_so_its_seed_alone_gives_the_order() {
        // Two shoes in different orders, shuffled with the same seed, give one order:
        // the seed is all a verifier needs to rebuild a shoe.
        let mut a = Shoe::new(6);
        a.shuffle(&mut ChaCha20Rng::seed_from_u64(1));
        let mut b = a.clone();
        b.shuffle(&mut ChaCha20Rng::seed_from_u64(2));
        assert_ne!(a.undealt(), b.undealt());
        for _ in 0..40 {
            a.draw();
        }
        a.end_round();
        a.shuffle(&mut ChaCha20Rng::seed_from_u64(9));
        b.shuffle(&mut ChaCha20Rng::seed_from_u64(9));
        assert_eq!(a.undealt(), b.undealt());
        assert_eq!(a.undealt().len(), 312);
        // The in-place method does depend on the order it starts from.
        let mut c = Shoe::new(6);
        c.method = ShuffleMethod::Batched;
        c.shuffle(&mut ChaCha20Rng::seed_from_u64(1));
        let mut d = c.clone();
        c.shuffle(&mut ChaCha20Rng::seed_from_u64(9));
        d.cards.reverse();
        d.shuffle(&mut ChaCha20Rng::seed_from_u64(9));
        assert_ne!(c.undealt(), d.undealt());
    }

    #[test]
    fn la_4_burn_goes_to_the_rack_and_stacked_cards_come_first() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let first = parse_cards("7h 7h Kd").unwrap();
        let mut s = Shoe::stacked(6, &first, &mut rng).unwrap();
        assert!(s.is_complete());
        assert!(!s.burn_due());
        assert_eq!(s.draw().unwrap(), first[0]);
        assert_eq!(s.burn().unwrap(), first[1]);
        assert_eq!(s.discards(), 1);
        assert_eq!(s.in_play(), &[first[0]]);
        assert_eq!(s.draw().unwrap(), first[2]);
        let e = Shoe::stacked(1, &parse_cards("7h 7h").unwrap(), &mut rng).unwrap_err();
        assert!(matches!(e, ShoeError::NotInShoe { .. }));
    }

    #[test]
    fn a_shoe_round_trips_through_bytes_and_bad_bytes_are_an_error() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let mut s = Shoe::new(6);
        s.set_penetration(0.8);
        assert_eq!(Shoe::from_bytes(&s.to_bytes()).unwrap(), s);
        s.shuffle(&mut rng);
        for _ in 0..30 {
            s.draw();
        }
        s.burn();
        s.end_round();
        s.draw();
        let b = s.to_bytes();
        assert_eq!(Shoe::from_bytes(&b).unwrap(), s);
        // Every truncation, and every single-byte change, is an error or a valid shoe:
        // never a panic.
        for n in 0..b.len() {
            assert!(Shoe::from_bytes(&b[..n]).is_err());
        }
        for i in 0..b.len() {
            for v in [0u8, 1, 7, 52, 0xff] {
                let mut c = b.clone();
                c[i] = v;
                if let Ok(t) = Shoe::from_bytes(&c) {
                    assert!(t.is_complete());
                }
            }
        }
        let mut c = b.clone();
        c[SHOE_HEADER] = 99;
        assert!(matches!(Shoe::from_bytes(&c), Err(ShoeError::Corrupt(_))));
        assert!(Shoe::from_bytes(b"garbage").is_err());
    }

    #[test]
    fn an_exhausted_shoe_reshuffles_only_the_rack() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let mut s = Shoe::new(1);
        s.shuffle(&mut rng);
        for _ in 0..40 {
            s.draw();
        }
        s.end_round();
        let mut play = Vec::new();
        while let Some(c) = s.draw() {
            play.push(c);
        }
        assert!(s.reshuffle_discards(&mut rng));
        assert_eq!(s.in_play(), &play[..]);
        assert_eq!(s.remaining(), 40);
        assert!(s.is_complete());
        // The position is back before the cut, yet the shoe is shuffled before the
        // next round, and no second cut card comes out.
        assert!(s.dealt() <= s.cut_position());
        assert!(s.cut_card_out() && s.needs_shuffle());
        for _ in 0..40 {
            assert!(matches!(s.deal(), Some((_, false))));
        }
    }

    #[test]
    fn c_12_the_cut_card_comes_out_with_the_card_at_its_position_once() {
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let mut s = Shoe::new(1);
        s.set_penetration(0.5);
        s.shuffle(&mut rng);
        let came_out: Vec<bool> = std::iter::from_fn(|| s.deal().map(|(_, cut)| cut)).collect();
        assert_eq!(came_out.len(), 52);
        assert_eq!(came_out.iter().position(|&c| c), Some(26));
        assert_eq!(came_out.iter().filter(|&&c| c).count(), 1);
        // Empty: nothing is dealt and nothing changes until `draw` marks it.
        assert!(s.deal().is_none());
        assert!(s.cut_card_out());
        // A round that ends with no card dealt leaves the shoe no longer fresh.
        let mut t = Shoe::new(1);
        t.shuffle(&mut rng);
        assert!(t.is_fresh());
        t.end_round();
        assert!(!t.is_fresh());
        assert_eq!(Shoe::from_bytes(&t.to_bytes()).unwrap(), t);
    }
}
