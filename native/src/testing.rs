//! What the unit tests share (compiled for `cargo test` only).

/// A xorshift64 stream from `seed` (not zero): the unit tests' random hands, lines and numbers,
/// the same on every run.
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// `line`'s bytes with `edits` random edits, each a byte of `alphabet` inserted or put in place
/// of one, a byte removed, or a run of up to 19 bytes cut out: the property tests' damaged
/// lines.
pub(crate) fn edited(
    line: &str,
    edits: usize,
    alphabet: &[u8],
    next: &mut impl FnMut() -> u64,
) -> Vec<u8> {
    let mut b = line.as_bytes().to_vec();
    for _ in 0..edits {
        let at = next() as usize % b.len();
        let c = alphabet[next() as usize % alphabet.len()];
        match next() % 4 {
            0 => drop(b.remove(at)),
            1 => b.insert(at, c),
            2 => b[at] = c,
            _ => drop(b.drain(at..(at + next() as usize % 20).min(b.len()))),
        }
    }
    b
}
