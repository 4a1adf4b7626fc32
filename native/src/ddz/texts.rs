//! The card-text columns of Dou Dizhu's rows (`*_text`), printed by the core (issue 15).
//!
//! The text is Dou Dizhu's printer (`DdzRows.printer`: `pipeline.doudizhu.cards.format_cards`
//! run through `CardPrinter(format_cards, 54, " ")`): the cards of a mask lowest id first, each
//! as Big Two prints it (`crate::texts::write_card`: `3♦` … `2♠`, ids `0..52`) and the jokers
//! last (`BJ` 52, `RJ` 53), one space between cards (`3♦ 3♠ RJ`); an empty mask is the empty
//! string, a NULL mask or card a NULL text. Bits above the deck's 54 print nothing, as the
//! Python printer's chunk tables have no text for them.

use crate::texts::{write_card as write_big2_card, Printer};

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

/// Append a mask's text: its cards lowest id first, one space between them (`5♦ 5♣ BJ`).
pub fn write_mask(mask: u64, out: &mut Vec<u8>) {
    let mut m = mask & ((1 << N_CARDS) - 1);
    let mut first = true;
    while m != 0 {
        if !first {
            out.push(b' ');
        }
        first = false;
        write_card(m.trailing_zeros() as usize, out);
        m &= m - 1;
    }
}

/// Dou Dizhu's printer ([`write_card`], [`write_mask`]).
#[derive(Default)]
pub(crate) struct Ddz;

impl Printer for Ddz {
    fn card(card: usize, out: &mut Vec<u8>) {
        write_card(card, out);
    }

    fn mask(mask: u64, out: &mut Vec<u8>) {
        write_mask(mask, out);
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
