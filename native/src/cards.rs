//! Cards: the encoding of `pipeline/cards.py` (`card = rank * 4 + suit`, a set is a bit mask),
//! the common one-card spellings the log parser's fast path reads, and the pretty printer.

use std::collections::HashMap;
use std::sync::OnceLock;

pub const FULL_DECK: u64 = (1 << 52) - 1;
pub const RANK_TEXT: [&str; 13] = [
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2",
];
pub const RANK_COMPACT: [&str; 13] = [
    "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2",
];
pub const SUIT_SYMBOL: [&str; 4] = ["♦", "♣", "♥", "♠"];
pub const SUIT_LETTER: [&str; 4] = ["d", "c", "h", "s"];

/// Every common one-card spelling → card id, as `pipeline.logs.records._token_table`.
fn token_table() -> &'static HashMap<String, u8> {
    static TABLE: OnceLock<HashMap<String, u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = HashMap::new();
        for c in 0..52u8 {
            let r = (c >> 2) as usize;
            let s = (c & 3) as usize;
            for rank in [RANK_TEXT[r], RANK_COMPACT[r]] {
                for suit in [SUIT_LETTER[s], SUIT_SYMBOL[s]] {
                    for text in [format!("{rank}{suit}"), format!("{suit}{rank}")] {
                        table.insert(text.to_lowercase(), c);
                        table.insert(text.to_uppercase(), c);
                        table.insert(text, c);
                    }
                }
            }
        }
        table
    })
}

/// The two-byte ASCII entries of `token_table` (`3d`, `TD`, `dt` …) indexed by their bytes,
/// 255 for none: the commonest tokens without hashing.
pub(crate) fn short_table() -> &'static [[u8; 128]; 128] {
    static TABLE: OnceLock<Box<[[u8; 128]; 128]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([[255u8; 128]; 128]);
        for (text, &c) in token_table() {
            if let [a, b] = text.as_bytes() {
                if a.is_ascii() && b.is_ascii() {
                    table[*a as usize][*b as usize] = c;
                }
            }
        }
        table
    })
}

/// One common token as a card id (None: the Python parser decides).
pub fn token_card(token: &str) -> Option<u8> {
    if let [a, b] = token.as_bytes() {
        if a.is_ascii() && b.is_ascii() {
            let c = short_table()[*a as usize][*b as usize];
            return (c != 255).then_some(c);
        }
    }
    token_table().get(token).copied()
}

/// Card ids of ASCII-whitespace-separated common tokens, in order; None when a token is not
/// common or a card repeats (the Python path then gives the answer, or the error).
pub fn fast_ids(text: &str) -> Option<Vec<u8>> {
    let mut seen = 0u64;
    let mut out = Vec::new();
    for tok in text.split_ascii_whitespace() {
        let c = token_card(tok)?;
        if seen >> c & 1 == 1 {
            return None;
        }
        seen |= 1 << c;
        out.push(c);
    }
    Some(out)
}

pub fn mask_of(ids: &[u8]) -> u64 {
    ids.iter().fold(0, |m, &c| m | 1 << c)
}

/// Pretty cards, lowest id first, run together (`5♦5♣`), as `format_cards(mask)`.
pub fn format_cards(mask: u64) -> String {
    let mut out = String::new();
    let mut m = mask;
    while m != 0 {
        let c = m.trailing_zeros() as usize;
        out.push_str(RANK_TEXT[c >> 2]);
        out.push_str(SUIT_SYMBOL[c & 3]);
        m &= m - 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_printing() {
        assert_eq!(token_card("3d"), Some(0));
        assert_eq!(token_card("D3"), Some(0));
        assert_eq!(token_card("♦3"), Some(0));
        assert_eq!(token_card("10d"), Some(28));
        assert_eq!(token_card("Td"), Some(28));
        assert_eq!(token_card("2S"), Some(51));
        assert_eq!(token_card("11x"), None);
        assert_eq!(
            (token_card("td"), token_card("TD"), token_card("tD")),
            (Some(28), Some(28), None)
        );
        assert_eq!(
            (token_card("3x"), token_card("d"), token_card("")),
            (None, None, None)
        );
        // every two-byte ASCII text: the short table answers as the full table does
        for a in 0..128u8 {
            for b in 0..128u8 {
                let text = String::from_utf8(vec![a, b]).unwrap();
                assert_eq!(
                    token_card(&text),
                    token_table().get(&text).copied(),
                    "{text:?}"
                );
            }
        }
        assert_eq!(fast_ids("3d 3d"), None);
        assert_eq!(format_cards(mask_of(&fast_ids("10d 2s").unwrap())), "10♦2♠");
        assert_eq!(format_cards(0), "");
    }
}
