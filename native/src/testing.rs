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
