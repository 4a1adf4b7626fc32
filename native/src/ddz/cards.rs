//! Dou Dizhu cards, as `pipeline/doudizhu/cards.py`: ids `0..52` are Big Two's
//! (`rank * 4 + suit`), 52 the black joker `BJ`, 53 the red joker `RJ`; a set is a bit mask.
//! A rank is `0..15` (13 BJ, 14 RJ), also the order of strength.

use crate::cards::{token_card, RANK_TEXT, SUIT_SYMBOL};

pub const N_CARDS: u32 = 54;
pub const N_RANKS: usize = 15;
pub const FULL_DECK: u64 = (1 << 54) - 1;
pub const BJ_RANK: usize = 13;
pub const RJ_RANK: usize = 14;
pub const TWO_RANK: usize = 12;
pub const ACE_RANK: usize = 11;

/// A rank multiset: cards per rank.
pub type Counts = [u8; N_RANKS];

pub fn rank_of(c: u32) -> usize {
    let r = (c >> 2) as usize;
    if r < 13 {
        r
    } else {
        13 + (c & 1) as usize
    }
}

pub fn rank_text(rank: usize) -> &'static str {
    match rank {
        BJ_RANK => "BJ",
        RJ_RANK => "RJ",
        r => RANK_TEXT[r],
    }
}

/// The 15 rank counts of a set of cards (`counts_of`).
pub fn counts_of(mask: u64) -> Counts {
    let mut out = [0u8; N_RANKS];
    for (r, slot) in out.iter_mut().enumerate().take(13) {
        *slot = (mask >> (4 * r) & 15).count_ones() as u8;
    }
    out[BJ_RANK] = (mask >> 52 & 1) as u8;
    out[RJ_RANK] = (mask >> 53 & 1) as u8;
    out
}

/// A card as `format_card` prints it (`3♦`, `10♠`): the printer's own spelling, read without
/// a table lookup.
fn printed_card(token: &str) -> Option<u32> {
    let suit = match token.as_bytes() {
        [.., 0xE2, 0x99, 0xA6] => 0,
        [.., 0xE2, 0x99, 0xA3] => 1,
        [.., 0xE2, 0x99, 0xA5] => 2,
        [.., 0xE2, 0x99, 0xA0] => 3,
        _ => return None,
    };
    // the printer's ranks (`RANK_TEXT`: `3` … `9`, `10`, `J`, `Q`, `K`, `A`, `2`)
    let r = match token.as_bytes()[..token.len() - 3] {
        [d @ b'3'..=b'9'] => usize::from(d - b'3'),
        [b'1', b'0'] => 7,
        [b'J'] => 8,
        [b'Q'] => 9,
        [b'K'] => 10,
        [b'A'] => 11,
        [b'2'] => 12,
        _ => return None,
    };
    Some((r * 4 + suit) as u32)
}

/// One joker spelling (`_JOKERS`, any case), or a common Big Two spelling; None: Python decides.
pub fn token_id(token: &str) -> Option<u32> {
    if let Some(c) = printed_card(token) {
        return Some(c);
    }
    let joker = match token.as_bytes() {
        [a, b] => match [a.to_ascii_lowercase(), b.to_ascii_lowercase()] {
            [b'b', b'j'] | [b's', b'j'] | [b'j', b'b'] => Some(52),
            [b'r', b'j'] | [b'l', b'j'] | [b'j', b'r'] => Some(53),
            _ => None,
        },
        _ => match token {
            "小王" | "小怪" | "小鬼" => Some(52),
            "大王" | "大怪" | "大鬼" => Some(53),
            _ => None,
        },
    };
    joker.or_else(|| token_card(token).map(u32::from))
}

/// Cards separated by ASCII whitespace, read with the common spellings; None for anything
/// else (another separator, an unusual spelling, a card twice: the Python reader's line).
pub fn fast_mask(text: &str) -> Option<u64> {
    let mut m = 0u64;
    for tok in text.split_ascii_whitespace() {
        let c = token_id(tok)?;
        if m >> c & 1 == 1 {
            return None;
        }
        m |= 1 << c;
    }
    Some(m)
}

/// One card printed (`10♦`, `BJ`).
pub fn format_card(c: u32) -> String {
    if c >= 52 {
        rank_text(rank_of(c)).to_owned()
    } else {
        format!(
            "{}{}",
            RANK_TEXT[(c >> 2) as usize],
            SUIT_SYMBOL[(c & 3) as usize]
        )
    }
}

/// Cards low to high, space-separated (`format_cards`; id order is rank then suit order).
pub fn format_cards(mask: u64) -> String {
    let mut parts = Vec::new();
    let mut m = mask;
    while m != 0 {
        parts.push(format_card(m.trailing_zeros()));
        m &= m - 1;
    }
    parts.join(" ")
}

/// A rank multiset the way players write a play: the larger groups first, then by rank.
pub fn format_ranks(counts: &Counts) -> String {
    let mut order: Vec<usize> = (0..N_RANKS).filter(|&r| counts[r] > 0).collect();
    order.sort_by_key(|&r| (std::cmp::Reverse(counts[r]), r));
    let mut parts = Vec::new();
    for r in order {
        for _ in 0..counts[r] {
            parts.push(rank_text(r));
        }
    }
    parts.join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `printed_card` reads a rank as the printer's `RANK_TEXT` spells it, nothing else: every
    /// one- and two-byte ASCII rank before each suit symbol.
    #[test]
    fn printed_ranks() {
        for (suit, symbol) in SUIT_SYMBOL.iter().enumerate() {
            let mut ranks: Vec<String> = (0u8..128).map(|a| char::from(a).to_string()).collect();
            ranks.extend(["10", "11", "01", "1", "T", "j", " 3", "3 "].map(String::from));
            for rank in ranks {
                let token = format!("{rank}{symbol}");
                let want = RANK_TEXT
                    .iter()
                    .position(|&t| t == rank)
                    .map(|r| (r * 4 + suit) as u32);
                assert_eq!(printed_card(&token), want, "{token:?}");
            }
        }
    }

    #[test]
    fn cards() {
        assert_eq!(fast_mask("3d 10s 小王 RJ"), Some(1 | 1 << 31 | 3 << 52));
        assert_eq!(
            format_cards(fast_mask("大王 BJ 2s 2h").unwrap()),
            "2♥ 2♠ BJ RJ"
        );
        assert_eq!(fast_mask("BJ bj"), None);
        assert_eq!(fast_mask("XJ"), None);
        assert_eq!(
            (rank_of(0), rank_of(51), rank_of(52), rank_of(53)),
            (0, 12, 13, 14)
        );
        assert_eq!(
            format_ranks(&counts_of(fast_mask("3d 9d 9c 9s").unwrap())),
            "9-9-9-3"
        );
    }
}
