//! The card-text columns of Dou Dizhu's rows (`*_text`), printed by the core (issue 15).
//!
//! The text is Dou Dizhu's printer (`DdzRows.printer`: `pipeline.doudizhu.cards.format_cards`
//! run through `CardPrinter(format_cards, 54, " ")`): the cards of a mask lowest id first, each
//! as Big Two prints it (`crate::texts::write_card`: `3♦` … `2♠`, ids `0..52`) and the jokers
//! last (`BJ` 52, `RJ` 53), one space between cards (`3♦ 3♠ RJ`); an empty mask is the empty
//! string, a NULL mask or card a NULL text. Bits above the deck's 54 print nothing, as the
//! Python printer's chunk tables have no text for them.

use crate::texts::{card_words, write_card as write_big2_card, Printer};

/// The deck's cards (ids `0..54`: Big Two's 52 and the two jokers).
pub const N_CARDS: usize = 54;
const BLACK_JOKER: usize = 52;
const RED_JOKER: usize = 53;

/// Append one card's text (`10♦`, `BJ`); a card id beyond the deck appends nothing.
pub fn write_card(card: usize, out: &mut Vec<u8>) {
    match card {
        BLACK_JOKER => out.extend_from_slice(b"BJ"),
        RED_JOKER => out.extend_from_slice(b"RJ"),
        _ => write_big2_card(card, out),
    }
}

/// Append a mask's text: its cards lowest id first, one space between them (`5♦ 5♣ BJ`),
/// written in place ([`Printer::mask_in`]).
pub fn write_mask(mask: u64, out: &mut Vec<u8>) {
    Ddz::mask(mask, out);
}

/// Each card's text and a space after it as one word (`crate::texts::card_words`' layout:
/// its UTF-8 bytes from the lowest, its length in the highest byte), the jokers' too; ids
/// `54..64` have no text.
const fn spaced_words() -> [u64; 64] {
    let mut out = card_words();
    out[BLACK_JOKER] = u16::from_le_bytes(*b"BJ") as u64 | 2 << 56;
    out[RED_JOKER] = u16::from_le_bytes(*b"RJ") as u64 | 2 << 56;
    let mut c = 0;
    while c < N_CARDS {
        let n = out[c] >> 56;
        out[c] = (out[c] & ((1 << 56) - 1)) | (b' ' as u64) << (8 * n) | (n + 1) << 56;
        c += 1;
    }
    out
}

static SPACED_WORD: [u64; 64] = spaced_words();

/// The span of a mask's text written in place ([`Printer::mask_in`]): a power of two above the
/// longest text (54 cards and a space after each, 270 bytes), so that a card's offset taken
/// modulo the span (which leaves it as it is) is in bounds where the compiler can see it.
const TEXT_SPAN: usize = 512;

/// Dou Dizhu's printer ([`write_card`], [`write_mask`]).
#[derive(Default)]
pub(crate) struct Ddz;

impl Printer for Ddz {
    /// The span and the last card's 8-byte store past it.
    const ROOM: usize = TEXT_SPAN + 8;

    fn card(card: usize, out: &mut Vec<u8>) {
        write_card(card, out);
    }

    /// Each card with a space after it, one 8-byte store each; the last space dropped.
    #[inline(always)]
    fn mask_in(mask: u64, room: &mut [u8]) -> usize {
        let room: &mut [u8; Self::ROOM] = (&mut room[..Self::ROOM]).try_into().expect("room");
        let mut m = mask & ((1 << N_CARDS) - 1);
        let mut at = 0;
        while m != 0 {
            let word = SPACED_WORD[m.trailing_zeros() as usize & 63];
            let slot = at % TEXT_SPAN;
            room[slot..slot + 8].copy_from_slice(&word.to_le_bytes());
            at += (word >> 56) as usize;
            m &= m - 1;
        }
        at.saturating_sub(1)
    }
}

/// One string column of card texts (`crate::texts::Text`, Dou Dizhu's printer).
pub(crate) type Text = crate::texts::Text<Ddz>;

#[cfg(test)]
mod tests {
    use super::*;

    fn mask_text(mask: u64) -> String {
        crate::texts::printed::<Ddz>(mask)
    }

    #[test]
    fn cards_and_jokers() {
        assert_eq!(mask_text(0), "");
        assert_eq!(mask_text(1 << 53 | 1 << 3 | 1), "3♦ 3♠ RJ");
        assert_eq!(mask_text(1 << 52), "BJ");
        assert_eq!(mask_text(1 << 28 | 1 << 32), "10♦ J♦");
        let full = (1u64 << N_CARDS) - 1;
        assert!(mask_text(full).starts_with("3♦ 3♣ 3♥ 3♠ 4♦"));
        assert!(mask_text(full).ends_with("2♥ 2♠ BJ RJ"));
        assert_eq!(mask_text(full).split(' ').count(), 54);
        // bits above the deck print nothing
        assert_eq!(mask_text(u64::MAX), mask_text(full));
        assert_eq!(mask_text(1 << 54 | 1 << 62), "");
        let mut one = Vec::new();
        write_card(54, &mut one);
        assert!(one.is_empty());
    }

    /// A mask's text card by card ([`write_card`], a space between two), the reference the
    /// table's in-place text is held to.
    fn card_by_card(mask: u64) -> String {
        let mut out = Vec::new();
        let mut m = mask & ((1 << N_CARDS) - 1);
        while m != 0 {
            if !out.is_empty() {
                out.push(b' ');
            }
            write_card(m.trailing_zeros() as usize, &mut out);
            m &= m - 1;
        }
        String::from_utf8(out).expect("UTF-8")
    }

    /// A mask's text written in place is the one printed card by card, on every card alone,
    /// the whole deck, bits beyond it and random masks.
    #[test]
    fn in_place_as_card_by_card() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut masks = vec![0, u64::MAX, (1 << N_CARDS) - 1, 1 << 54 | 1 << 63];
        masks.extend((0..64).map(|c| 1u64 << c));
        masks.extend((0..20_000).map(|k| next() & next() >> (k % 40)));
        for mask in masks {
            let mut room = vec![b'x'; Ddz::ROOM];
            let n = Ddz::mask_in(mask, &mut room);
            assert_eq!(
                String::from_utf8_lossy(&room[..n]),
                card_by_card(mask),
                "{mask:#x}"
            );
        }
    }

    #[test]
    fn nulls() {
        let mut t = Text::default();
        t.push_mask(Some(1 << 52));
        t.push_mask(None);
        t.push_card(Some(53));
        t.push_mask(Some(1 << 63));
        let col = t.finish();
        assert_eq!(col.len, 4);
        assert_eq!(col.nulls, 2);
        assert_eq!(col.validity, Some(vec![0b0101]));
        assert_eq!(col.buffers[1], "BJRJ".as_bytes());
    }
}
