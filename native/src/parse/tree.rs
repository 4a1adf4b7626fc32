//! A game line read once into a tree of slices of its text (no copy, no allocation per
//! value): the typed reader (`super::fast_raw`) and the content hash (`rows::tree_hash`) both
//! walk it, so a line is scanned once.
//!
//! The scanner accepts a strict subset of what serde_json reads, with the same meaning: no
//! escape sequence in a key, escapes in a string value only as serde reads them (a `\u`
//! escape of a surrogate only as a pair: `Node::Esc`), no control character, numbers as JSON
//! writes them (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`: those of at most 15 digits
//! without an exponent as `Node::Num`, which serde reads exactly, the others as `Node::Long`),
//! nesting at most 100 deep (the property test `reads_what_serde_reads` holds it to this).
//! Anything else answers `None`, and the caller reads the line as before (serde), so no answer
//! changes.

/// One JSON value: literals, a number's text, a string's text between its quotes (no escape
/// in it), a string with an escape, or a container: its entries `links[start .. start + len]`
/// and its text `from..to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node<'a> {
    Null,
    True,
    False,
    Num(&'a str),
    /// A number of more than 15 digits, or with an exponent (`1785000012.3456789`, `1e-7`):
    /// its text. Read with `str::parse`, which rounds once, correctly, as Python's `float`
    /// and orjson do (serde's fast reading may be a unit off in the last place).
    Long(&'a str),
    Str(&'a str),
    /// A string holding an escape (`"\u9ec3\u5927"`, `"a\"b"`): its text with its quotes, as
    /// serde reads it ([`esc_text`]). Rare in a game line but for names: Python's `json.dumps`
    /// writes every character beyond ASCII so.
    Esc(&'a str),
    Arr {
        start: u32,
        len: u32,
        from: u32,
        to: u32,
    },
    Obj {
        start: u32,
        len: u32,
        from: u32,
        to: u32,
    },
}

/// A line's values; `links` holds each container's entries (key, node), contiguous; an array
/// item's key is `""`.
pub struct Tree<'a> {
    pub text: &'a str,
    pub nodes: Vec<Node<'a>>,
    pub links: Vec<(&'a str, u32)>,
    pub root: u32,
}

const MAX_DEPTH: usize = 100;

/// The bytes that end a string's plain run: its closing quote, an escape, a control character.
const STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        table[c] = true;
        c += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The bytes of `w` (little-endian) that are a quote, a backslash or below 0x20, as their
/// high bits: exact from the lowest such byte up (the bit tricks of "has a zero byte" borrow
/// only upwards, so a byte above a stop may be marked falsely, never one below), so the
/// lowest bit names the first stop.
fn stops(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\'))) | control
}

/// A container being read: the key it sits under in its parent (`""` in an array or at the
/// root), where its text begins, whether it is an object, and where its entries begin: in
/// `links` while it is `direct` (no container opened in it yet, as in most: an action, a
/// seat, a hand), else on the entries stack, to be copied into `links` when it closes.
struct Open<'a> {
    key: &'a str,
    mark: usize,
    from: usize,
    object: bool,
    direct: bool,
}

/// The first byte from `i` on that is not JSON whitespace, and its position (None at the
/// end). The byte is loaded once and compared with what the caller expects: most bytes
/// after a value, a key or a separator are not whitespace, or one space (`", "`, `": "`),
/// so these two cases take no loop; longer runs go to [`skip_run`].
#[inline(always)]
fn next(b: &[u8], i: usize) -> Option<(usize, u8)> {
    let c = *b.get(i)?;
    if c > b' ' {
        return Some((i, c));
    }
    if c == b' ' {
        let d = *b.get(i + 1)?;
        if d > b' ' {
            return Some((i + 1, d));
        }
    }
    skip_run(b, i)
}

/// [`next`] over a run of whitespace, or on a control character (answered as it is, for the
/// caller to refuse).
#[inline(never)]
fn skip_run(b: &[u8], mut i: usize) -> Option<(usize, u8)> {
    let mut c = *b.get(i)?;
    while matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
        i += 1;
        c = *b.get(i)?;
    }
    Some((i, c))
}

/// The number of ASCII digits from `i` on, eight bytes at a time: a byte is a digit when its
/// high nibble is 3 both as it is and with 6 added (`0x3a..=0x3f` carry into 4). The carry
/// out of a byte `0xfa..` may spoil the bytes above it, never one below, so the lowest
/// non-digit is exact.
#[inline(always)]
fn digits(b: &[u8], i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut j = i;
    while let Some(chunk) = b.get(j..j + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let odd = ((w & (ONES * 0xf0)) ^ (ONES * 0x30))
            | ((w.wrapping_add(ONES * 6) & (ONES * 0xf0)) ^ (ONES * 0x30));
        // each byte's high bit: whether the byte is not zero (no carry crosses a byte)
        let other = (((odd & (ONES * 0x7f)) + ONES * 0x7f) | odd) & (ONES * 0x80);
        if other != 0 {
            return j - i + (other.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    while b.get(j).is_some_and(u8::is_ascii_digit) {
        j += 1;
    }
    j - i
}

/// `text[from..to]` where both ends are known to be character boundaries: each is the
/// position of an ASCII byte or the one after an ASCII byte (a quote, a digit, a sign, a
/// comma), or the end. `&text[from..to]` would check both again: 7 % of the scan.
#[inline(always)]
pub(crate) fn cut(text: &str, from: usize, to: usize) -> &str {
    debug_assert!(text.is_char_boundary(from) && text.is_char_boundary(to) && from <= to);
    // SAFETY: `from <= to <= text.len()` and both are character boundaries (the callers'
    // positions: next to an ASCII byte, which is never part of a longer UTF-8 sequence).
    unsafe { text.get_unchecked(from..to) }
}

/// The bytes of a 16-byte block that end a string's plain run (a quote, a backslash, below
/// 0x20), as the low 16 bits of a mask: SSE2, which every x86-64 has (two words of [`stops`]
/// in fewer instructions).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stops16(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of x86-64 (every build of this target enables it), and `block` is
    // 16 readable bytes, which an unaligned load reads.
    unsafe {
        let x = _mm_loadu_si128(block.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
        // below 0x20 (unsigned): a byte that is its own minimum with 0x1f
        let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

/// The first byte from `j` on that ends a string's plain run, and its position (None at the
/// end): sixteen bytes at a time on x86-64 ([`stops16`]), eight at a time ([`stops`]), then
/// one at a time.
#[inline(always)]
fn plain_end(b: &[u8], mut j: usize) -> Option<(usize, u8)> {
    #[cfg(target_arch = "x86_64")]
    while let Some(block) = b.get(j..j + 16) {
        let block: &[u8; 16] = block.try_into().expect("sixteen bytes");
        let m = stops16(block);
        if m != 0 {
            let k = m.trailing_zeros() as usize;
            return Some((j + k, block[k & 15]));
        }
        j += 16;
    }
    loop {
        let Some(chunk) = b.get(j..j + 8) else {
            while !STOP[usize::from(*b.get(j)?)] {
                j += 1;
            }
            return Some((j, b[j]));
        };
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let m = stops(w);
        if m != 0 {
            // the stop byte taken from the word: no second load, no bounds check
            let bits = m.trailing_zeros() & !7;
            return Some((j + (bits / 8) as usize, (w >> bits) as u8));
        }
        j += 8;
    }
}

/// The text of the string whose opening quote is at `i`, and the position after its closing
/// quote; None for an escape or a control character (the quote byte never occurs inside a
/// UTF-8 sequence).
#[inline(always)]
fn string(text: &str, i: usize) -> Option<(&str, usize)> {
    let start = i + 1;
    let (j, stop) = plain_end(text.as_bytes(), start)?;
    if stop != b'"' {
        return None;
    }
    Some((cut(text, start, j), j + 1))
}

/// [`string`] for a string that holds an escape: its text with its quotes, and the position
/// after its closing quote; None for a control character, an escape serde refuses, or a `\u`
/// escape of a surrogate that is not the first of a pair followed by its second (serde may
/// read a lone one otherwise than Python: the line is left to serde and Python, as before).
#[inline(never)]
fn escaped(text: &str, i: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    let mut j = i + 1;
    loop {
        let (k, stop) = plain_end(b, j)?;
        match stop {
            b'"' => return Some((cut(text, i, k + 1), k + 1)),
            b'\\' => {}
            _ => return None,
        }
        j = k + 2;
        match *b.get(k + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
            b'u' => {
                let unit = hex4(b, k + 2)?;
                j = k + 6;
                if (0xdc00..0xe000).contains(&unit) {
                    return None;
                }
                if (0xd800..0xdc00).contains(&unit) {
                    if b.get(j..j + 2) != Some(b"\\u") {
                        return None;
                    }
                    if !(0xdc00..0xe000).contains(&hex4(b, j + 2)?) {
                        return None;
                    }
                    j += 6;
                }
            }
            _ => return None,
        }
    }
}

/// The four hex digits at `i` as a number.
fn hex4(b: &[u8], i: usize) -> Option<u32> {
    b.get(i..i + 4)?
        .iter()
        .try_fold(0, |n, &c| Some(n * 16 + char::from(c).to_digit(16)?))
}

/// The value of a string with an escape (`Node::Esc`'s text), as serde reads it.
pub fn esc_text(quoted: &str) -> Option<String> {
    serde_json::from_str(quoted).ok()
}

/// The ASCII digits of a 16-byte block, as the low 16 bits of a mask (SSE2).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn digits16(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8,
        _mm_sub_epi8,
    };
    // SAFETY: as in `stops16`: SSE2 is part of x86-64, and `block` is 16 readable bytes.
    unsafe {
        let x = _mm_loadu_si128(block.as_ptr().cast());
        // a digit less `0` is at most 9 (unsigned): its own minimum with 9
        let d = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
        _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d)) as u32
    }
}

/// The number at `i` (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`), the position after
/// it, and whether it is long (more than 15 digits, or an exponent: `Node::Long`). On x86-64,
/// a short number that ends within the 16 bytes after its sign is read from one mask of their
/// digits ([`digits16`]: a game line's seats, times, counts); any other as [`number_words`]
/// reads it.
#[inline(always)]
fn number(text: &str, i: usize) -> Option<(&str, usize, bool)> {
    #[cfg(target_arch = "x86_64")]
    {
        let b = text.as_bytes();
        let j = i + usize::from(b[i] == b'-');
        if let Some(block) = b.get(j..j + 16) {
            let block: &[u8; 16] = block.try_into().expect("sixteen bytes");
            let m = digits16(block);
            let whole = if block[0] == b'0' {
                1
            } else {
                m.trailing_ones() as usize
            };
            if whole == 0 {
                return None;
            }
            // the point, and a digit after it, within the block
            if whole < 15 {
                let (mut end, mut frac) = (whole, 0);
                if block[whole] == b'.' {
                    frac = (m >> (whole + 1)).trailing_ones() as usize;
                    if frac == 0 {
                        return None;
                    }
                    end = whole + 1 + frac;
                }
                if end < 16 && whole + frac <= 15 && !matches!(block[end], b'e' | b'E') {
                    return Some((cut(text, i, j + end), j + end, false));
                }
            }
        }
    }
    number_words(text, i)
}

/// [`number`] eight bytes at a time ([`digits`]).
#[inline(always)]
fn number_words(text: &str, i: usize) -> Option<(&str, usize, bool)> {
    let b = text.as_bytes();
    let mut j = i + usize::from(b[i] == b'-');
    let whole = match b.get(j) {
        Some(b'0') => 1,
        Some(b'1'..=b'9') => digits(b, j),
        _ => return None,
    };
    j += whole;
    let mut frac = 0;
    if b.get(j) == Some(&b'.') {
        frac = digits(b, j + 1);
        if frac == 0 {
            return None;
        }
        j += 1 + frac;
    }
    if whole + frac > 15 || matches!(b.get(j), Some(b'e' | b'E')) {
        return long_tail(text, i, j, whole);
    }
    Some((cut(text, i, j), j, false))
}

/// A long number's end (its exponent, if any, from `j`; `whole` digits before its point),
/// as [`number_words`] answers it; None beyond a double (`1e400`: serde refuses it, Python
/// reads infinity), which only a number with an exponent or of more than 308 digits before
/// its point can be (the others are read once, by their readers).
#[inline(never)]
fn long_tail(text: &str, i: usize, mut j: usize, whole: usize) -> Option<(&str, usize, bool)> {
    let b = text.as_bytes();
    let exponent = matches!(b.get(j), Some(b'e' | b'E'));
    if exponent {
        j += 1;
        j += usize::from(matches!(b.get(j), Some(b'+' | b'-')));
        let exp = digits(b, j);
        if exp == 0 {
            return None;
        }
        j += exp;
    }
    let n = cut(text, i, j);
    if exponent || whole > 308 {
        n.parse::<f64>().ok().filter(|v| v.is_finite())?;
    }
    Some((n, j, true))
}

/// An object's key at `i` (whitespace may come first) up to its colon: the key and the
/// position after the colon.
#[inline(always)]
fn key(text: &str, i: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    let (i, b'"') = next(b, i)? else {
        return None;
    };
    let (key, j) = string(text, i)?;
    let (j, b':') = next(b, j)? else {
        return None;
    };
    Some((key, j + 1))
}

/// Where [`scalars`] leaves a container's entries to the general loop: before a value that
/// is not a scalar (`at` its key), or after a scalar (`v`, not yet an entry) that no comma
/// follows.
enum Left<'a> {
    Value { at: &'a str, i: usize },
    Closing { at: &'a str, v: u32, i: usize },
}

/// The scalar at byte `j` of the line (`c`, its first byte) and where it ends; `Some(None)`
/// when `c` starts none (a container, or not JSON), None when it is one the scanner does not
/// read (both loops read scalars so: inlined in each).
#[inline(always)]
fn scalar(text: &str, j: usize, c: u8) -> Option<Option<(Node<'_>, usize)>> {
    let b = text.as_bytes();
    Some(Some(match c {
        b'"' => match string(text, j) {
            Some((s, k)) => (Node::Str(s), k),
            None => {
                let (s, k) = escaped(text, j)?;
                (Node::Esc(s), k)
            }
        },
        b'-' | b'0'..=b'9' => {
            let (n, k, long) = number(text, j)?;
            (if long { Node::Long(n) } else { Node::Num(n) }, k)
        }
        b't' if b[j..].starts_with(b"true") => (Node::True, j + 4),
        b'f' if b[j..].starts_with(b"false") => (Node::False, j + 5),
        b'n' if b[j..].starts_with(b"null") => (Node::Null, j + 4),
        _ => return Some(None),
    }))
}

/// The entries of the innermost open container while it is `direct` and its values are
/// scalars (an action's, a seat's: most of a game line), from its value at `i` (key `at`,
/// `""` in an array): each value into `nodes`, each entry but the last into `links`, in a loop
/// of its own, which keeps the few values it uses in registers (inlined in the general loop:
/// no call per container). None where the line is not JSON, as the general loop answers.
#[inline(always)]
fn scalars<'a>(
    text: &'a str,
    object: bool,
    mut at: &'a str,
    mut i: usize,
    nodes: &mut Vec<Node<'a>>,
    links: &mut Vec<(&'a str, u32)>,
) -> Option<Left<'a>> {
    let b = text.as_bytes();
    loop {
        let (j, c) = next(b, i)?;
        let Some((node, k)) = scalar(text, j, c)? else {
            return Some(Left::Value { at, i: j });
        };
        i = k;
        let v = nodes.len() as u32;
        nodes.push(node);
        let (j, c) = next(b, i)?;
        if c != b',' {
            return Some(Left::Closing { at, v, i });
        }
        links.push((at, v));
        (at, i) = if object {
            key(text, j + 1)?
        } else {
            ("", j + 1)
        };
    }
}

/// The line's values into `nodes` and `links` (children before their container), one loop
/// over the text with the open containers on a stack (no call per value); the root's node,
/// or None. A container's entries are contiguous in `links`, the containers' runs in the
/// order they close: the innermost open container writes its entries there directly, and a
/// container that gets a container in it moves its entries to the stack until it closes.
fn scan<'a>(
    text: &'a str,
    nodes: &mut Vec<Node<'a>>,
    links: &mut Vec<(&'a str, u32)>,
) -> Option<u32> {
    let b = text.as_bytes();
    let mut open: Vec<Open<'a>> = Vec::with_capacity(8);
    // the entries of the open containers that are not direct, each container's last (room
    // for a game line's top level and its actions: no growing on the way)
    let mut entries: Vec<(&'a str, u32)> = Vec::with_capacity(64 + text.len() / 32);
    let mut i = 0;
    // the key of the value read next
    let mut at = "";
    'values: loop {
        let mut v = 'value: {
            if let Some(top) = open.last().filter(|top| top.direct) {
                match scalars(text, top.object, at, i, nodes, links)? {
                    Left::Value { at: key, i: j } => (at, i) = (key, j),
                    Left::Closing { at: key, v, i: j } => {
                        (at, i) = (key, j);
                        break 'value v;
                    }
                }
            }
            let (j, c) = next(b, i)?;
            i = j;
            let node = match c {
                b'{' | b'[' => {
                    if open.len() >= MAX_DEPTH {
                        return None;
                    }
                    let object = c == b'{';
                    let close = if object { b'}' } else { b']' };
                    let (inner, first) = next(b, i + 1)?;
                    if first != close {
                        if let Some(parent) = open.last_mut().filter(|p| p.direct) {
                            let mark = entries.len();
                            entries.extend_from_slice(&links[parent.mark..]);
                            links.truncate(parent.mark);
                            (parent.mark, parent.direct) = (mark, false);
                        }
                        open.push(Open {
                            key: at,
                            mark: links.len(),
                            from: i,
                            object,
                            direct: true,
                        });
                        (at, i) = if object {
                            key(text, inner)?
                        } else {
                            ("", inner)
                        };
                        continue 'values;
                    }
                    // where its entries would be: before any of a direct parent's
                    let start = match open.last() {
                        Some(parent) if parent.direct => parent.mark,
                        _ => links.len(),
                    };
                    let (start, from) = (start as u32, i as u32);
                    i = inner + 1;
                    let to = i as u32;
                    if object {
                        Node::Obj {
                            start,
                            len: 0,
                            from,
                            to,
                        }
                    } else {
                        Node::Arr {
                            start,
                            len: 0,
                            from,
                            to,
                        }
                    }
                }
                _ => {
                    let (node, j) = scalar(text, i, c)??;
                    i = j;
                    node
                }
            };
            nodes.push(node);
            (nodes.len() - 1) as u32
        };
        // the value is an entry of the innermost open container; close the containers it
        // ends, until a comma asks for the next value
        loop {
            let Some(top) = open.last() else {
                // the root: only whitespace may follow it
                return next(b, i).is_none().then_some(v);
            };
            if top.direct {
                links.push((at, v));
            } else {
                entries.push((at, v));
            }
            let (j, c) = next(b, i)?;
            match c {
                b',' => {
                    (at, i) = if top.object {
                        key(text, j + 1)?
                    } else {
                        ("", j + 1)
                    };
                    break;
                }
                b'}' if top.object => {}
                b']' if !top.object => {}
                _ => return None,
            }
            i = j + 1;
            let top = open.pop().expect("an open container");
            let start = if top.direct {
                top.mark
            } else {
                let start = links.len();
                links.extend_from_slice(&entries[top.mark..]);
                entries.truncate(top.mark);
                start
            };
            let len = (links.len() - start) as u32;
            let (start, from, to) = (start as u32, top.from as u32, i as u32);
            nodes.push(if top.object {
                Node::Obj {
                    start,
                    len,
                    from,
                    to,
                }
            } else {
                Node::Arr {
                    start,
                    len,
                    from,
                    to,
                }
            });
            v = (nodes.len() - 1) as u32;
            at = top.key;
        }
    }
}

impl<'a> Tree<'a> {
    /// The line's tree, or None when the line holds anything outside the scanner's subset
    /// (or is not JSON, or has text after its value).
    pub fn read(text: &'a str) -> Option<Tree<'a>> {
        if text.len() >= u32::MAX as usize {
            return None;
        }
        let mut nodes = Vec::with_capacity(text.len() / 8);
        let mut links = Vec::with_capacity(text.len() / 8);
        let root = scan(text, &mut nodes, &mut links)?;
        Some(Tree {
            text,
            nodes,
            links,
            root,
        })
    }

    pub fn node(&self, i: u32) -> Node<'a> {
        self.nodes[i as usize]
    }

    /// An object's entries (None: not an object).
    pub fn object(&self, i: u32) -> Option<&[(&'a str, u32)]> {
        match self.node(i) {
            Node::Obj { start, len, .. } => {
                Some(&self.links[start as usize..(start + len) as usize])
            }
            _ => None,
        }
    }

    /// An array's items (None: not an array).
    pub fn array(&self, i: u32) -> Option<impl Iterator<Item = u32> + '_> {
        match self.node(i) {
            Node::Arr { start, len, .. } => Some(
                self.links[start as usize..(start + len) as usize]
                    .iter()
                    .map(|&(_, v)| v),
            ),
            _ => None,
        }
    }

    /// A container's text.
    pub fn span(&self, i: u32) -> &'a str {
        match self.node(i) {
            Node::Arr { from, to, .. } | Node::Obj { from, to, .. } => {
                &self.text[from as usize..to as usize]
            }
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `stops` names the first stop byte as the byte table does, for every pair of bytes in
    /// every pair of positions.
    #[test]
    fn stops_is_the_table() {
        for c in 0..=255u8 {
            for d in 0..=255u8 {
                for (k, l) in [(0, 7), (2, 3), (5, 1), (6, 6), (7, 0)] {
                    let mut bytes = *b"abcdefgh";
                    bytes[k] = c;
                    bytes[l] = d;
                    let want = bytes.iter().position(|&b| STOP[usize::from(b)]);
                    let m = stops(u64::from_le_bytes(bytes));
                    let got = (m != 0).then(|| (m.trailing_zeros() / 8) as usize);
                    assert_eq!(got, want, "{c} at {k}, {d} at {l}");
                }
            }
        }
    }

    /// `stops16` marks the stop bytes as the byte table does, for every byte in every position
    /// of a block, beside every other byte.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn stops16_is_the_table() {
        for c in 0..=255u8 {
            for d in 0..=255u8 {
                for (k, l) in [(0, 15), (3, 4), (7, 8), (9, 2), (15, 0), (12, 12)] {
                    let mut block = *b"abcdefghijklmnop";
                    block[k] = c;
                    block[l] = d;
                    let want = (0..16)
                        .filter(|&n| STOP[usize::from(block[n])])
                        .fold(0u32, |m, n| m | 1 << n);
                    assert_eq!(stops16(&block), want, "{c} at {k}, {d} at {l}");
                }
            }
        }
    }

    /// `string` finds a string's end as a byte loop does, on strings of every length with a
    /// stop byte (or none) in every position, near the end of the text and far from it.
    #[test]
    fn strings_as_the_loop() {
        for len in 0..40 {
            for stop in [b'"', b'\\', 0x01, 0x1f, b'x', 0x7f, 0xc3] {
                for at in 0..=len {
                    for tail in [0usize, 1, 9, 20] {
                        let mut bytes = vec![b'"'];
                        bytes.extend((0..len).map(|k| b'a' + (k % 26) as u8));
                        if at < len {
                            bytes[1 + at] = stop;
                        }
                        bytes.push(b'"');
                        bytes.extend(std::iter::repeat_n(b' ', tail));
                        let Ok(text) = std::str::from_utf8(&bytes) else {
                            continue;
                        };
                        let end = 1 + bytes[1..]
                            .iter()
                            .position(|&c| STOP[usize::from(c)])
                            .unwrap();
                        let want = (bytes[end] == b'"').then(|| (&text[1..end], end + 1));
                        assert_eq!(string(text, 0), want, "{text:?}");
                    }
                }
            }
        }
    }

    /// `number` (one mask of sixteen bytes' digits) reads what `number_words` reads, on
    /// random numbers of every shape and length, cut anywhere, with what may follow them.
    #[test]
    fn numbers_as_words() {
        let mut next = crate::testing::xorshift(0x6a09_e667_f3bc_c908);
        let pieces: &[u8] = b"0123456789000-.eE ,]x";
        for _ in 0..300_000 {
            let n = 1 + (next() % 24) as usize;
            let mut text: Vec<u8> = (0..n)
                .map(|_| pieces[next() as usize % pieces.len()])
                .collect();
            if next().is_multiple_of(2) {
                text[0] = b'-';
            }
            if next().is_multiple_of(2) && n > 1 {
                let first = usize::from(text[0] == b'-');
                text[first] = b'1' + (next() % 9) as u8;
            }
            let text = std::str::from_utf8(&text).expect("ASCII");
            if !matches!(text.as_bytes()[0], b'-' | b'0'..=b'9') {
                continue;
            }
            assert_eq!(number(text, 0), number_words(text, 0), "{text}");
        }
    }

    /// `digits` counts a run of digits as a byte loop does, for every byte after runs of
    /// every length in every position of a word.
    #[test]
    fn digits_is_the_loop() {
        for c in 0..=255u8 {
            for run in 0..12 {
                for lead in [0, 3] {
                    let mut bytes = vec![b'x'; lead];
                    bytes.extend((0..run).map(|k| b'0' + (k * 7 % 10) as u8));
                    bytes.push(c);
                    bytes.extend_from_slice(b"12345678");
                    let want = bytes[lead..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                    assert_eq!(digits(&bytes, lead), want, "{c} after {run}");
                    let short = &bytes[..lead + run + 1];
                    assert_eq!(digits(short, lead), want.min(run + 1), "{c} after {run}");
                }
            }
        }
    }

    /// A tree as serde's value (an object keeps its last entry of a key, as serde does).
    fn as_value(t: &Tree<'_>, i: u32) -> serde_json::Value {
        use serde_json::Value;
        match t.node(i) {
            Node::Null => Value::Null,
            Node::True => Value::Bool(true),
            Node::False => Value::Bool(false),
            Node::Num(n) => serde_json::from_str(n).expect(n),
            // serde's reading (its fast one may be a unit off: the tree's reader is
            // `str::parse`, held to Python's by the Python tests)
            Node::Long(n) => serde_json::from_str(n).expect(n),
            Node::Str(s) => Value::String(s.to_owned()),
            Node::Esc(s) => Value::String(esc_text(s).expect(s)),
            Node::Arr { .. } => Value::Array(t.array(i).unwrap().map(|v| as_value(t, v)).collect()),
            Node::Obj { .. } => Value::Object(
                t.object(i)
                    .unwrap()
                    .iter()
                    .map(|&(k, v)| (k.to_owned(), as_value(t, v)))
                    .collect(),
            ),
        }
    }

    /// What a line holds outside the scanner's subset: the deepest nesting of brackets
    /// outside strings, whether a key holds an escape, whether a `\u` escape is of a
    /// surrogate (the scanner reads a pair, never a lone one).
    fn outside(text: &str) -> (usize, bool, bool) {
        let b = text.as_bytes();
        let (mut depth, mut most, mut escaped_key, mut surrogate) = (0usize, 0, false, false);
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    let mut escape = false;
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' {
                            escape = true;
                            let unit = b.get(i + 1..i + 4).map(<[u8]>::to_ascii_lowercase);
                            surrogate |= matches!(unit.as_deref(), Some([b'u', b'd', c]) if b"89abcdef".contains(c));
                            i += 1;
                        }
                        i += 1;
                    }
                    let after = b.get(i + 1..).unwrap_or_default();
                    let colon = after.iter().find(|c| !c.is_ascii_whitespace());
                    escaped_key |= escape && colon == Some(&b':');
                }
                b'[' | b'{' => {
                    depth += 1;
                    most = most.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        (most, escaped_key, surrogate)
    }

    /// The scanner's contract on random edits of game lines (bytes removed, added, changed,
    /// runs cut, the line cut in two): it reads a line exactly when serde reads it and the line
    /// is in the subset (no escape in a key, no `\u` escape of a lone surrogate, nesting at
    /// most 100), and then to serde's value.
    #[test]
    fn reads_what_serde_reads() {
        let lines = [
            r#"{"format_version": 1, "game_kind": "big2", "game_id": "g7",
                "ruleset": {"preset": "hk", "overrides": {}}, "match_id": null,
                "seats": [{"seat": 0, "player_id": "p0", "name": "Ann", "balance": -12.5},
                          {"seat": 1, "player_id": "p1", "name": null}],
                "deal": {"hands": ["3d 4d", ["5d", "6d"]], "stock": []},
                "actions": [{"seat": 0, "action": "play", "cards": "3d", "ts": 1785000000.5},
                            {"seat": 1, "action": "pass", "ts": 1785000001}],
                "result": {"winner": 0, "cards_left": [0, 2]},
                "truth": {"seed": 1, "k": [true, false, 0.125, -0]}}"#,
            concat!(
                "{\"a\":[1,-2.5e3,\"x\\\"y\",\t{\"b\" :\r\n[ ]}], ",
                "\"\u{e9}\u{2660}\": 123456789012345, \"c\": 0.0001234567890}",
            ),
            r#"{"name": "\u9ec3\u5927", "q": ["a\"b\\c\/d\b\f\n\r\t", "\ud83c\udca1", "\u00e9"],
                "k": {"x": "\u0000"}}"#,
        ];
        let alphabet: &[u8] = b" \t\n\r\x0c{}[]\",:-.0123456789eE+tfnrulsadDc\\\\x\x01\x7f";
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut read, mut tried, mut escapes) = (0, 0, 0);
        for line in lines {
            for round in 0..6_000 {
                let b = crate::testing::edited(line, round % 3, alphabet, &mut next);
                let cut = next() as usize % (b.len() + 1);
                for piece in [&b[..], &b[..cut], &b[cut..]] {
                    let Ok(text) = std::str::from_utf8(piece) else {
                        continue;
                    };
                    tried += 1;
                    let serde = serde_json::from_str::<serde_json::Value>(text).ok();
                    let (depth, escaped_key, surrogate) = outside(text);
                    let subset = !escaped_key && depth <= 100;
                    match Tree::read(text) {
                        Some(t) => {
                            assert!(subset, "{text}");
                            assert_eq!(Some(as_value(&t, t.root)), serde, "{text}");
                            read += 1;
                            escapes += usize::from(text.contains('\\'));
                        }
                        None => assert!(serde.is_none() || !subset || surrogate, "{text}"),
                    }
                }
            }
        }
        assert!(read > tried / 20, "{read} of {tried}");
        assert!(escapes > tried / 40, "{escapes} of {tried}");
        for depth in [99, 100, 101, 120] {
            let text = "[".repeat(depth) + &"]".repeat(depth);
            assert_eq!(Tree::read(&text).is_some(), depth <= 100, "{depth}");
        }
    }

    #[test]
    fn reads_the_subset() {
        let t =
            Tree::read(r#" {"a": [1, -2.5, "x", true, null, {}], "b": {"c": false}} "#).unwrap();
        let top = t.object(t.root).unwrap();
        assert_eq!(top.len(), 2);
        assert_eq!(top[0].0, "a");
        let items: Vec<Node> = t.array(top[0].1).unwrap().map(|i| t.node(i)).collect();
        assert_eq!(items[1], Node::Num("-2.5"));
        assert_eq!(items[2], Node::Str("x"));
        assert_eq!(t.span(top[1].1), r#"{"c": false}"#);
        let t = Tree::read(r#"["\u9ec3 \"x\"", "\ud83c\udca1\n"]"#).unwrap();
        let items: Vec<Node> = t.array(t.root).unwrap().map(|i| t.node(i)).collect();
        assert_eq!(
            items,
            [
                Node::Esc(r#""\u9ec3 \"x\"""#),
                Node::Esc(r#""\ud83c\udca1\n""#)
            ]
        );
        assert_eq!(esc_text(r#""\u9ec3 \"x\"""#).unwrap(), "\u{9ec3} \"x\"");
        assert_eq!(esc_text(r#""\ud83c\udca1\n""#).unwrap(), "\u{1f0a1}\n");
        for bad in [
            r#"{"\n": 1}"#,
            r#"{"a": "\x"}"#,
            r#"{"a": "\u12"}"#,
            r#"{"a": "\u12g4"}"#,
            r#"{"a": "\ud800"}"#,
            r#"{"a": "\ud800\u0041"}"#,
            r#"{"a": "\udc00\ud800"}"#,
            r#"{"a": "\"}"#,
            "{\"a\": \"\\n\u{1}\"}",
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": 1e}"#,
            r#"{"a": 1e+}"#,
            r#"{"a": 1e400}"#,
            r#"{"a": 1,}"#,
            r#"{"a": 1} x"#,
            r#"{"a" 1}"#,
            r#"[1 2]"#,
            r#"{"a": tru}"#,
            "{\"a\": \"\u{1}\"}",
            r#"{"a": -}"#,
            "",
        ] {
            assert!(Tree::read(bad).is_none(), "{bad}");
        }
        assert!(Tree::read(r#"{"a": 123456789012345, "b": 12345678901.2345}"#).is_some());
        // an integer beyond a double (1e309) is not read, one below it (1e308) is
        assert!(Tree::read(&format!("[1{}]", "0".repeat(309))).is_none());
        assert!(Tree::read(&format!("[1{}.5]", "0".repeat(308))).is_some());
        // longer numbers, and exponents: Long, read with `str::parse`
        let t = Tree::read(r#"[1234567890123456, 1785000012.3456789, 1e5, -2.5E-7, 0.1e+2]"#);
        let t = t.unwrap();
        let items: Vec<Node> = t.array(t.root).unwrap().map(|i| t.node(i)).collect();
        assert_eq!(
            items,
            [
                Node::Long("1234567890123456"),
                Node::Long("1785000012.3456789"),
                Node::Long("1e5"),
                Node::Long("-2.5E-7"),
                Node::Long("0.1e+2"),
            ]
        );
        let deep = "[".repeat(150) + &"]".repeat(150);
        assert!(Tree::read(&deep).is_none());
    }
}
