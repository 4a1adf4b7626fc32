//! The card-text columns of Dou Dizhu's rows (`*_text`), printed by the core (issue 15).
//!
//! The text is Dou Dizhu's printer (`DdzRows.printer`: `pipeline.doudizhu.cards.format_cards`
//! run through `CardPrinter(format_cards, 54, " ")`): the cards of a mask lowest id first, each
//! as Big Two prints it (`crate::texts::write_card`: `3♦` … `2♠`, ids `0..52`) and the jokers
//! last (`BJ` 52, `RJ` 53), one space between cards (`3♦ 3♠ RJ`); an empty mask is the empty
//! string, a NULL mask or card a NULL text. Bits above the deck's 54 print nothing, as the
//! Python printer's chunk tables have no text for them.

use crate::rows::Column;
use crate::texts::write_card as write_big2_card;

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

/// One string column of card texts (offsets, UTF-8 data, validity where a value is NULL).
pub struct Text {
    offsets: Vec<u8>,
    data: Vec<u8>,
    validity: Vec<u8>,
    len: usize,
    nulls: usize,
}

impl Default for Text {
    fn default() -> Text {
        Text {
            offsets: 0i32.to_le_bytes().to_vec(),
            data: Vec::new(),
            validity: Vec::new(),
            len: 0,
            nulls: 0,
        }
    }
}

impl Text {
    fn close(&mut self, valid: bool) {
        if self.len.is_multiple_of(8) {
            self.validity.push(0);
        }
        if valid {
            *self.validity.last_mut().expect("a byte") |= 1 << (self.len % 8);
        } else {
            self.nulls += 1;
        }
        self.len += 1;
        let end = i32::try_from(self.data.len()).expect("a chunk's texts fit 2 GiB");
        self.offsets.extend_from_slice(&end.to_le_bytes());
    }

    /// A mask's text; NULL where its `*_mask` column is (NULL, or beyond an `i64`).
    pub fn push_mask(&mut self, mask: Option<u64>) {
        let mask = mask.filter(|&m| i64::try_from(m).is_ok());
        if let Some(m) = mask {
            write_mask(m, &mut self.data);
        }
        self.close(mask.is_some());
    }

    /// One card's text; NULL for no card.
    pub fn push_card(&mut self, card: Option<u32>) {
        if let Some(c) = card {
            write_card(c as usize, &mut self.data);
        }
        self.close(card.is_some());
    }

    pub fn finish(self) -> Column {
        Column {
            len: self.len,
            nulls: self.nulls,
            validity: (self.nulls > 0).then_some(self.validity),
            buffers: vec![self.offsets, self.data],
            children: vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask_text(mask: u64) -> String {
        let mut out = Vec::new();
        write_mask(mask, &mut out);
        String::from_utf8(out).expect("UTF-8")
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
