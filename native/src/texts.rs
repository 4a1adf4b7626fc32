//! The card-text columns of Big Two's rows (`*_text`), printed by the core as Arrow string
//! columns (issue 15).
//!
//! `pipeline.warehouse.tables.COLUMNS` stores each card set twice: `<name>_mask` for SQL and
//! `<name>_text` for people, and one card (`highest_single`, `drawn`) as its id and its text.
//! The text is Big Two's printer (`Big2Rows.printer`: `pipeline.cards.format_cards`, run
//! together): the cards of a mask lowest id first (`card = rank * 4 + suit`), each its rank
//! (`3` … `10`, `J`, `Q`, `K`, `A`, `2`) and its suit symbol (`♦♣♥♠`), no separator
//! (`10♦J♦`); an empty mask is the empty string, a NULL mask or card a NULL text. Bits above
//! the deck's 52 print nothing, as the Python printer's chunk tables have no text for them.
//!
//! [`Texts`] holds the seats' and the actions' text columns of a chunk beside the rows of
//! `crate::rows::ChunkRows`, which hands them over with its own columns.

use std::marker::PhantomData;

use crate::cards::{RANK_TEXT, SUIT_SYMBOL};
#[cfg(test)]
use crate::rows::Column;
use crate::rows::{Col, ColumnRef, Str};
use crate::state::ActionRecord;

/// The deck's cards (ids `0..52`).
pub const N_CARDS: usize = 52;

/// The room for a card text in bytes (the longest is 5: `10` and a 3-byte suit symbol): a
/// card is written as one 8-byte store, then the text's end is where the next card goes (or
/// the vector is cut back to it).
const MAX_CARD: usize = 8;

/// The span of a mask's text written in place ([`write_mask_in`]): a power of two above the
/// longest text (52 cards, 212 bytes), so that a card's offset taken modulo the span (which
/// leaves it as it is) is in bounds where the compiler can see it (no check per card).
const TEXT_SPAN: usize = 256;

/// The room for a mask's text written in place: its span and the last card's store past it.
const MASK_ROOM: usize = TEXT_SPAN + MAX_CARD;

/// Each card's text as one word, built from the printer's ranks and suits at compile time:
/// its UTF-8 bytes from the lowest, its length in the highest byte; ids `52..64` have no
/// text (length 0), so that a card id from a mask's bits needs no bounds check.
pub(crate) const fn card_words() -> [u64; 64] {
    let mut out = [0u64; 64];
    let mut c = 0;
    while c < N_CARDS {
        let rank = RANK_TEXT[c >> 2].as_bytes();
        let suit = SUIT_SYMBOL[c & 3].as_bytes();
        let mut word = 0u64;
        let mut n = 0;
        let mut i = 0;
        while i < rank.len() {
            word |= (rank[i] as u64) << (8 * n);
            n += 1;
            i += 1;
        }
        i = 0;
        while i < suit.len() {
            word |= (suit[i] as u64) << (8 * n);
            n += 1;
            i += 1;
        }
        out[c] = word | (n as u64) << 56;
        c += 1;
    }
    out
}

static CARD_WORD: [u64; 64] = card_words();

/// A card's word ([`CARD_WORD`]; 0, no text, beyond the deck).
#[inline(always)]
fn card_word(card: usize) -> u64 {
    CARD_WORD.get(card).copied().unwrap_or(0)
}

/// The length of a card's text in its word.
#[inline(always)]
fn text_len(word: u64) -> usize {
    (word >> 56) as usize
}

/// Append one card's text (`10♦`); a card id beyond the deck appends nothing.
pub fn write_card(card: usize, out: &mut Vec<u8>) {
    let word = card_word(card);
    let end = out.len() + text_len(word);
    out.extend_from_slice(&word.to_le_bytes());
    out.truncate(end);
}

/// A mask's text (as [`write_mask`]) written from the start of `out`; its length (the bytes
/// after it are left written over).
#[inline(always)]
fn write_mask_in(mask: u64, out: &mut [u8; MASK_ROOM]) -> usize {
    let mut m = mask & ((1 << N_CARDS) - 1);
    let mut at = 0;
    while m != 0 {
        let word = CARD_WORD[m.trailing_zeros() as usize & 63];
        let slot = at % TEXT_SPAN;
        out[slot..slot + MAX_CARD].copy_from_slice(&word.to_le_bytes());
        at += text_len(word);
        m &= m - 1;
    }
    at
}

/// The room for a mask's text at `at` in `data` (which has [`MASK_ROOM`] bytes there).
#[inline(always)]
fn mask_room(data: &mut [u8], at: usize) -> &mut [u8; MASK_ROOM] {
    (&mut data[at..at + MASK_ROOM])
        .try_into()
        .expect("room for a mask's text")
}

/// Append a mask's text: its cards lowest id first, run together (`5♦5♣`), written in place
/// ([`Printer::mask`]).
pub fn write_mask(mask: u64, out: &mut Vec<u8>) {
    Big2::mask(mask, out);
}

/// How a game prints its cards: one card's text, a mask's (Big Two's here, Dou Dizhu's in
/// `crate::ddz::texts`).
pub(crate) trait Printer {
    /// The room a mask's text takes written in place ([`Printer::mask_in`]).
    const ROOM: usize;

    fn card(card: usize, out: &mut Vec<u8>);

    /// Append a mask's text, written in place ([`Printer::mask_in`]) in room made after `out`.
    fn mask(mask: u64, out: &mut Vec<u8>) {
        let at = out.len();
        out.resize(at + Self::ROOM, 0);
        let n = Self::mask_in(mask, &mut out[at..]);
        out.truncate(at + n);
    }

    /// A mask's text written from the start of `room` (at least [`Printer::ROOM`] bytes; the
    /// bytes after the text are left written over); its length.
    fn mask_in(mask: u64, room: &mut [u8]) -> usize;
}

/// Big Two's printer ([`write_card`], [`write_mask`]).
#[derive(Default)]
pub(crate) struct Big2;

impl Printer for Big2 {
    const ROOM: usize = MASK_ROOM;

    fn card(card: usize, out: &mut Vec<u8>) {
        write_card(card, out);
    }

    #[inline(always)]
    fn mask_in(mask: u64, room: &mut [u8]) -> usize {
        write_mask_in(mask, mask_room(room, 0))
    }
}

/// One string column of card texts (`crate::rows`' string buffer), printed by `P`.
#[derive(Default)]
pub(crate) struct Text<P = Big2>(Str, PhantomData<P>);

impl<P: Printer> Text<P> {
    /// A mask's text; NULL where its `*_mask` column is (NULL, or beyond an `i64`, which
    /// `crate::rows` stores as NULL).
    #[inline]
    pub(crate) fn push_mask(&mut self, mask: Option<u64>) {
        let mask = mask.filter(|&m| i64::try_from(m).is_ok());
        if let Some(m) = mask {
            P::mask(m, self.0.data());
        }
        self.0.close(mask.is_some());
    }

    /// One card's text; NULL for no card.
    #[inline]
    pub(crate) fn push_card(&mut self, card: Option<u32>) {
        if let Some(c) = card {
            P::card(c as usize, self.0.data());
        }
        self.0.close(card.is_some());
    }

    #[cfg(test)]
    pub(crate) fn finish(self) -> Column {
        self.0.column().to_owned()
    }
}

impl<P: Printer> Text<P> {
    /// One mask's text per item as [`Text::push_mask`] writes each, in place
    /// ([`Printer::mask_in`]).
    #[inline(always)]
    pub(crate) fn extend_masks<T>(&mut self, items: &[T], mask: impl Fn(&T) -> Option<u64>) {
        self.0.extend_in_place(items, P::ROOM, |item, data, end| {
            let m = mask(item).filter(|&m| i64::try_from(m).is_ok())?;
            Some(P::mask_in(m, &mut data[end..end + P::ROOM]))
        });
    }
}

impl Text<Big2> {
    /// One card's text per item as [`Text::push_card`] writes each, in place.
    #[inline(always)]
    fn extend_cards<T>(&mut self, items: &[T], card: impl Fn(&T) -> Option<u8>) {
        self.0.extend_in_place(items, MAX_CARD, |item, data, end| {
            let word = card_word(usize::from(card(item)?));
            data[end..end + MAX_CARD].copy_from_slice(&word.to_le_bytes());
            Some(text_len(word))
        });
    }
}

impl<P> Col for Text<P> {
    fn column(&self) -> ColumnRef<'_> {
        self.0.column()
    }

    fn clear(&mut self) {
        self.0.clear();
    }

    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        self.0.each_vec(f);
    }
}

/// A mask's text by `P`, as a string (for tests).
#[cfg(test)]
pub(crate) fn printed<P: Printer>(mask: u64) -> String {
    let mut out = Vec::new();
    P::mask(mask, &mut out);
    String::from_utf8(out).expect("UTF-8")
}

/// The `*_text` columns of a chunk's seats and actions rows (the games and tricks rows of
/// Big Two have none: `kitty_text`, `set_aside_text` and `face_up_card_text` are Dou
/// Dizhu's, NULL here).
#[derive(Default)]
pub struct Texts {
    deal: Text,
    final_hand: Text,
    cards: Text,
    top_before: Text,
    hand_before: Text,
    highest_single: Text,
    drawn: Text,
}

impl Texts {
    /// One seats row's texts, from its `deal_mask` and `final_hand_mask`.
    pub fn seat(&mut self, deal: Option<u64>, final_hand: Option<u64>) {
        self.deal.push_mask(deal);
        self.final_hand.push_mask(final_hand);
    }

    /// A game's actions rows' texts, from the engine's records of its actions, a column at
    /// a time.
    pub fn actions(&mut self, acts: &[ActionRecord]) {
        self.cards.extend_masks(acts, |a| Some(a.cards));
        self.top_before.extend_masks(acts, |a| Some(a.top_before));
        self.hand_before.extend_masks(acts, |a| a.hand_before());
        self.highest_single.extend_cards(acts, |a| a.highest_single);
        self.drawn.extend_cards(acts, |a| a.drawn);
    }

    /// The seats' and the actions' text columns, each by its name, as they stand.
    pub fn columns(&self) -> [Vec<(&'static str, ColumnRef<'_>)>; 2] {
        let seats = vec![
            ("deal_text", self.deal.0.column()),
            ("final_hand_text", self.final_hand.0.column()),
        ];
        let actions = vec![
            ("cards_text", self.cards.0.column()),
            ("top_before_text", self.top_before.0.column()),
            ("hand_before_text", self.hand_before.0.column()),
            ("highest_single_text", self.highest_single.0.column()),
            ("drawn_text", self.drawn.0.column()),
        ];
        [seats, actions]
    }

    /// Empty the columns (their memory kept).
    pub fn clear(&mut self) {
        for t in self.all() {
            t.0.clear();
        }
    }

    /// Each byte vector of the columns, in a fixed order.
    pub(crate) fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        for t in self.all() {
            t.0.each_vec(f);
        }
    }

    fn all(&mut self) -> [&mut Text; 7] {
        [
            &mut self.deal,
            &mut self.final_hand,
            &mut self.cards,
            &mut self.top_before,
            &mut self.hand_before,
            &mut self.highest_single,
            &mut self.drawn,
        ]
    }

    /// [`Texts::columns`] as owned buffers.
    #[cfg(test)]
    fn finish(self) -> [Vec<(&'static str, Column)>; 2] {
        self.columns()
            .map(|cols| cols.into_iter().map(|(n, c)| (n, c.to_owned())).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::format_cards;

    fn mask_text(mask: u64) -> String {
        printed::<Big2>(mask)
    }

    /// The strings of a finished column (None for NULL), read back from its buffers.
    fn strings(col: &Column) -> Vec<Option<String>> {
        let offsets: Vec<usize> = col.buffers[0]
            .chunks(4)
            .map(|b| i32::from_le_bytes(b.try_into().unwrap()) as usize)
            .collect();
        assert_eq!(offsets.len(), col.len + 1);
        (0..col.len)
            .map(|i| {
                let valid = col
                    .validity
                    .as_ref()
                    .is_none_or(|v| v[i / 8] >> (i % 8) & 1 == 1);
                let text = std::str::from_utf8(&col.buffers[1][offsets[i]..offsets[i + 1]]);
                valid.then(|| text.unwrap().to_owned())
            })
            .collect()
    }

    #[test]
    fn every_card() {
        let ranks = [
            "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2",
        ];
        let suits = ["♦", "♣", "♥", "♠"];
        for c in 0..N_CARDS {
            let want = format!("{}{}", ranks[c / 4], suits[c % 4]);
            assert_eq!(mask_text(1 << c), want, "card {c}");
            let mut one = Vec::new();
            write_card(c, &mut one);
            assert_eq!(String::from_utf8(one).unwrap(), want);
        }
        let mut none = Vec::new();
        write_card(N_CARDS, &mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn masks() {
        assert_eq!(mask_text(0), "");
        assert_eq!(mask_text(1 << 28 | 1 << 32), "10♦J♦");
        assert_eq!(mask_text(1 << 51 | 1), "3♦2♠");
        let full = (1u64 << N_CARDS) - 1;
        assert_eq!(mask_text(full), format_cards(full));
        assert_eq!(mask_text(full).chars().count(), 52 * 2 + 4);
        assert!(mask_text(full).starts_with("3♦3♣3♥3♠4♦") && mask_text(full).ends_with("2♥2♠"));
        // bits above the deck print nothing (the Python printer's tables have no text there)
        assert_eq!(mask_text(u64::MAX), mask_text(full));
        assert_eq!(mask_text(1 << 52 | 1 << 63), "");
        // a 13-card hand
        let hand = [0u64, 5, 10, 15, 20, 25, 30, 35, 40, 45, 48, 50, 51];
        let m = hand.iter().fold(0, |m, &c| m | 1 << c);
        assert_eq!(mask_text(m), "3♦4♣5♥6♠8♦9♣10♥J♠K♦A♣2♦2♥2♠");
    }

    #[test]
    fn columns_with_and_without_nulls() {
        let mut t = Texts::default();
        t.seat(Some(1 << 28 | 1 << 32), None);
        t.seat(Some(0), Some(1));
        let [seats, _] = t.finish();
        assert_eq!(seats[0].0, "deal_text");
        assert_eq!(
            strings(&seats[0].1),
            [Some("10♦J♦".to_owned()), Some(String::new())]
        );
        assert!(seats[0].1.validity.is_none() && seats[0].1.nulls == 0);
        assert_eq!(strings(&seats[1].1), [None, Some("3♦".to_owned())]);
        assert_eq!(seats[1].1.nulls, 1);
        assert_eq!(seats[1].1.validity, Some(vec![0b10]));
        // a mask the mask column cannot hold (beyond an i64) is NULL there, and here
        let mut t = Text::<Big2>::default();
        t.push_mask(Some(1 << 63 | 1));
        t.push_mask(Some(i64::MAX as u64));
        assert_eq!(strings(&t.finish())[0], None);
    }

    #[test]
    fn cards_as_texts() {
        let mut t = Text::<Big2>::default();
        for c in [Some(0), None, Some(51), Some(28)] {
            t.push_card(c);
        }
        let col = t.finish();
        assert_eq!(
            strings(&col),
            [
                Some("3♦".into()),
                None,
                Some("2♠".into()),
                Some("10♦".into())
            ]
        );
    }
}
