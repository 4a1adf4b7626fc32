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

/// One card token as a card id, as `pipeline.cards.parse_card` reads it (the token stripped
/// of whitespace, then one card in any notation: [`card_at`]); None where the Python parser
/// decides (no card, or a character `card_at` leaves to it). The common spellings come from
/// the tables.
pub fn token_card(token: &str) -> Option<u8> {
    if let [a, b] = token.as_bytes() {
        if a.is_ascii() && b.is_ascii() {
            let c = short_table()[*a as usize][*b as usize];
            return if c != 255 { Some(c) } else { whole_card(token) }; // `Sq`, `aD`
        }
    }
    if token.len() > TABLE_LONGEST {
        return whole_card(token); // not hashed: `5♦5♣…` run together is the common case
    }
    token_table()
        .get(token)
        .copied()
        .or_else(|| whole_card(token))
}

/// The longest spelling in `token_table` in bytes (`10♦`).
const TABLE_LONGEST: usize = 5;

/// A token that is one card from end to end, as `parse_card`'s `fullmatch` of the stripped
/// token (a rank and a suit start with different characters, so the first that matches is
/// the only one that may span the token).
#[inline(never)]
fn whole_card(token: &str) -> Option<u8> {
    let text = token.trim_matches(py_space);
    let (c, len) = card_at(text)?;
    (len == text.len()).then_some(c)
}

/// Whether `c` is whitespace to Python's `str.strip` and `\s` (`str.isspace`): ASCII's six,
/// the four separators below 0x20, and the non-ASCII ones a log may hold (no-break and
/// ideographic spaces); any other is left to the Python parser (it is no card either).
pub(crate) fn py_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1f' | '\u{a0}' | '\u{3000}'
    )
}

/// Whether `c` separates cards in a string, as `pipeline.cards._SEPARATORS`
/// (`[\s,;/|\-\[\]]`).
fn separator(c: char) -> bool {
    py_space(c) || matches!(c, ',' | ';' | '/' | '|' | '-' | '[' | ']')
}

/// The suits' spellings `pipeline.cards` reads, the longest first as its pattern tries them:
/// the Chinese names, the symbols, the letters (in either case).
#[rustfmt::skip]
const SUITS: [(&str, u8); 24] = [
    ("階磚", 0), ("阶砖", 0), ("方块", 0), ("方塊", 0), ("梅花", 1),
    ("紅心", 2), ("红心", 2), ("紅桃", 2), ("红桃", 2), ("葵扇", 3), ("黑桃", 3), ("黑心", 3),
    ("♦", 0), ("♢", 0), ("♣", 1), ("♧", 1), ("♥", 2), ("♡", 2), ("♠", 3), ("♤", 3),
    ("d", 0), ("c", 1), ("h", 2), ("s", 3),
];

/// The rank at the start of `s` (`10`, `2`-`9`, `T` `J` `Q` `K` `A` in either case) and its
/// length.
fn rank_at(s: &str) -> Option<(u8, usize)> {
    let b = s.as_bytes();
    if b.starts_with(b"10") {
        return Some((7, 2));
    }
    let rank = match b.first()?.to_ascii_lowercase() {
        d @ b'3'..=b'9' => d - b'3',
        b'2' => 12,
        b't' => 7,
        b'j' => 8,
        b'q' => 9,
        b'k' => 10,
        b'a' => 11,
        _ => return None,
    };
    Some((rank, 1))
}

/// The suit at the start of `s` and its length in bytes.
fn suit_at(s: &str) -> Option<(u8, usize)> {
    let first = *s.as_bytes().first()?;
    if first.is_ascii() {
        let suit = match first.to_ascii_lowercase() {
            b'd' => 0,
            b'c' => 1,
            b'h' => 2,
            b's' => 3,
            _ => return None,
        };
        return Some((suit, 1));
    }
    SUITS
        .iter()
        .find(|(name, _)| s.starts_with(name))
        .map(|&(name, suit)| (suit, name.len()))
}

/// The card at the start of `s` as `pipeline.cards._CARD_RE.match` finds it (a rank then a
/// suit, else a suit then a rank; the case of ASCII letters ignored, as its `re.ASCII` folds
/// no other) and its length in bytes; None where the pattern finds none.
pub fn card_at(s: &str) -> Option<(u8, usize)> {
    if let Some((rank, n)) = rank_at(s) {
        if let Some((suit, m)) = suit_at(&s[n..]) {
            return Some((rank * 4 + suit, n + m));
        }
    }
    let (suit, m) = suit_at(s)?;
    let (rank, n) = rank_at(&s[m..])?;
    Some((rank * 4 + suit, m + n))
}

/// The cards of a string in any notation `pipeline.cards.parse_cards` reads (separated by
/// whitespace, commas, semicolons, slashes, bars, dashes, brackets, or run together:
/// `5♦5♣`, `階磚3 紅心10`), in order, each to `add` (which answers None for a card twice);
/// None where the Python parser decides (a character that is no card).
pub fn cards_in(text: &str, mut add: impl FnMut(u8) -> Option<()>) -> Option<()> {
    for chunk in text.split(separator) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let (c, len) = card_at(rest)?;
            add(c)?;
            rest = &rest[len..];
        }
    }
    Some(())
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
            (Some(28), Some(28), Some(28))
        );
        assert_eq!(
            (token_card("3x"), token_card("d"), token_card("")),
            (None, None, None)
        );
        // every two-byte ASCII text: the short table answers as the full table does, and
        // any other spelling as the pattern reads it (`tD`)
        for a in 0..128u8 {
            for b in 0..128u8 {
                let text = String::from_utf8(vec![a, b]).unwrap();
                assert_eq!(
                    token_card(&text),
                    token_table()
                        .get(&text)
                        .copied()
                        .or_else(|| whole_card(&text)),
                    "{text:?}"
                );
            }
        }
        // any notation, token by token (as `parse_card`: stripped, one card end to end)
        for (token, card) in [
            ("紅心10", Some(30)),
            ("10紅心", Some(30)),
            ("阶砖3", Some(0)),
            ("♤a", Some(47)),
            (" 2s\u{3000}", Some(51)),
            ("\x1c3d", Some(0)),
            ("3d4d", None),
            ("3ſ", None),
            ("\u{212a}♠", None),
            ("\u{2003}3d", None), // an em space: Python's too, left to it
            ("1d", None),
            ("紅3", None),
            ("Sq", Some(39)),
            ("aD", Some(44)),
        ] {
            assert_eq!(token_card(token), card, "{token:?}");
        }
        // strings: separated or run together, as `parse_cards` reads them
        let read = |text: &str| {
            let mut out = Vec::new();
            cards_in(text, |c| {
                out.push(c);
                Some(())
            })
            .map(|()| out)
        };
        assert_eq!(read("5♦5♣"), Some(vec![8, 9]));
        assert_eq!(
            read("[3d, 4d]; 5d|6d/7d-8d"),
            Some(vec![0, 4, 8, 12, 16, 20])
        );
        assert_eq!(read("階磚3紅心10 10♠"), Some(vec![0, 30, 31]));
        assert_eq!(read("as10dd3"), Some(vec![47, 28, 0]));
        assert_eq!(read(""), Some(vec![]));
        assert_eq!(read("3d 4x"), None);
        assert_eq!(read("3d3"), None);
        assert_eq!(
            token_table().keys().map(String::len).max(),
            Some(TABLE_LONGEST)
        );
        assert_eq!(fast_ids("3d 3d"), None);
        assert_eq!(format_cards(mask_of(&fast_ids("10d 2s").unwrap())), "10♦2♠");
        assert_eq!(format_cards(0), "");
    }
}
