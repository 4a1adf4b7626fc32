//! The games' keys of an import chunk (`pipeline.warehouse.known.game_keys`), 24 bytes a game:
//! the 128-bit BLAKE2b digest of the game id as two little-endian words, and the first 64
//! bits of the content hash (its first 16 hex digits, big-endian). An import worker hands
//! these back instead of the ids and hashes; computed here, from the games rows' Arrow
//! columns, there is no Python string a game to make and no `hashlib` call a game.

use blake2::digest::{Update, VariableOutput};
use blake2::Blake2bVar;

/// Bytes of one game's key.
pub const KEY_BYTES: usize = 24;

/// One game's key, appended to `out`; false (nothing appended) when `hash` does not start
/// with 16 hex digits (Python then computes the keys and says what is wrong).
pub fn push_key(game_id: &[u8], hash: &[u8], out: &mut Vec<u8>) -> bool {
    let Some(prefix) = hash
        .get(..16)
        .and_then(|h| std::str::from_utf8(h).ok())
        .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
    else {
        return false;
    };
    out.extend_from_slice(&id_digest(game_id));
    out.extend_from_slice(&prefix.to_le_bytes());
    true
}

/// A game id's 128-bit BLAKE2b digest (`hashlib.blake2b(id, digest_size=16)`): how the
/// games index and the CSV reader's id table (`crate::ids`) keep an id.
pub fn id_digest(game_id: &[u8]) -> [u8; 16] {
    let mut digest = [0u8; 16];
    let mut hasher = Blake2bVar::new(16).expect("16 bytes is a BLAKE2b digest size");
    hasher.update(game_id);
    hasher
        .finalize_variable(&mut digest)
        .expect("the buffer has the digest's size");
    digest
}

/// The keys of the games `ids[i]` with content hashes `hashes[i]`, in order (`KEY_BYTES`
/// each, three little-endian `u64` words: the layout of `game_keys`' `(n, 3)` array); None
/// when a hash is not hex.
pub fn game_keys<'a>(
    ids: impl IntoIterator<Item = &'a [u8]>,
    hashes: impl IntoIterator<Item = &'a [u8]>,
) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for (id, hash) in ids.into_iter().zip(hashes) {
        if !push_key(id, hash, &mut out) {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hashlib.blake2b(b"g1", digest_size=16).hexdigest()` is `a05bfb42565443c273befd7bd97cb8a4`.
    #[test]
    fn a_key_is_the_id_digest_and_the_hash_prefix() {
        let keys = game_keys([&b"g1"[..]], [&b"abababababababab00"[..]]).unwrap();
        assert_eq!(keys.len(), KEY_BYTES);
        let hex: String = keys[..16].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "a05bfb42565443c273befd7bd97cb8a4");
        let prefix = u64::from_le_bytes(keys[16..].try_into().unwrap());
        assert_eq!(prefix, 0xabab_abab_abab_abab);
    }

    #[test]
    fn a_hash_that_is_not_hex_has_no_key() {
        assert_eq!(game_keys([&b"g1"[..]], [&b"zz"[..]]), None);
        assert_eq!(game_keys([&b"g1"[..]], [&b"+bababababababab"[..]]), None);
    }
}
