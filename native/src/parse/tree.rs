//! A game line read once into a tree of slices of its text (no copy, no allocation per
//! value): the typed reader (`super::fast_raw`) and the content hash (`rows::tree_hash`) both
//! walk it, so a line is scanned once.
//!
//! The scanner accepts a strict subset of what serde_json reads, with the same meaning: no
//! escape sequence in any string (a `\` anywhere), no control character, numbers of at most
//! 15 digits without an exponent (`-?(0|[1-9][0-9]*)(.[0-9]+)?`, which serde reads exactly),
//! nesting below 100. Anything else answers `None`, and the caller reads the line as before
//! (serde), so no answer changes.

/// One JSON value: literals, a number's text, a string's text between its quotes (no escape
/// in it), or a container: its entries `links[start .. start + len]` and its text `from..to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node<'a> {
    Null,
    True,
    False,
    Num(&'a str),
    Str(&'a str),
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

struct Scanner<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    nodes: Vec<Node<'a>>,
    links: Vec<(&'a str, u32)>,
    stack: Vec<(&'a str, u32)>,
}

impl<'a> Scanner<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn push(&mut self, node: Node<'a>) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// The text of a string, the scanner on its opening quote; None for an escape or a
    /// control character (the quote byte never occurs inside a UTF-8 sequence). Eight bytes
    /// at a time while none of them ends the plain run.
    #[inline(always)]
    fn string(&mut self) -> Option<&'a str> {
        let start = self.i + 1;
        let mut j = start;
        while let Some(chunk) = self.b.get(j..j + 8) {
            let m = stops(u64::from_le_bytes(chunk.try_into().ok()?));
            if m != 0 {
                j += (m.trailing_zeros() / 8) as usize;
                break;
            }
            j += 8;
        }
        while !STOP[usize::from(*self.b.get(j)?)] {
            j += 1;
        }
        if self.b[j] != b'"' {
            return None;
        }
        self.i = j + 1;
        Some(&self.text[start..j])
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Option<&'a str> {
        let start = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        let whole = match self.b.get(self.i) {
            Some(b'0') => {
                self.i += 1;
                1
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return None,
        };
        let mut frac = 0;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            frac = self.digits();
            if frac == 0 {
                return None;
            }
        }
        if whole + frac > 15 || matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            return None;
        }
        Some(&self.text[start..self.i])
    }

    fn literal(&mut self, word: &[u8], node: Node<'a>) -> Option<u32> {
        if !self.b[self.i..].starts_with(word) {
            return None;
        }
        self.i += word.len();
        Some(self.push(node))
    }

    fn value(&mut self, depth: usize) -> Option<u32> {
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => self.container(depth, b'}'),
            b'[' => self.container(depth, b']'),
            b'"' => {
                let s = self.string()?;
                Some(self.push(Node::Str(s)))
            }
            b't' => self.literal(b"true", Node::True),
            b'f' => self.literal(b"false", Node::False),
            b'n' => self.literal(b"null", Node::Null),
            b'-' | b'0'..=b'9' => {
                let n = self.number()?;
                Some(self.push(Node::Num(n)))
            }
            _ => None,
        }
    }

    /// An object (`close` = `}`) or an array, the scanner on its opening bracket.
    fn container(&mut self, depth: usize, close: u8) -> Option<u32> {
        if depth >= MAX_DEPTH {
            return None;
        }
        let from = self.i;
        self.i += 1;
        let mark = self.stack.len();
        self.ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
        } else {
            loop {
                let key = if close == b'}' {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return None;
                    }
                    let key = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    key
                } else {
                    ""
                };
                let v = self.value(depth + 1)?;
                self.stack.push((key, v));
                self.ws();
                match *self.b.get(self.i)? {
                    b',' => self.i += 1,
                    c if c == close => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let start = self.links.len() as u32;
        let len = (self.stack.len() - mark) as u32;
        self.links.extend_from_slice(&self.stack[mark..]);
        self.stack.truncate(mark);
        let (from, to) = (from as u32, self.i as u32);
        let node = if close == b'}' {
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
        };
        Some(self.push(node))
    }
}

impl<'a> Tree<'a> {
    /// The line's tree, or None when the line holds anything outside the scanner's subset
    /// (or is not JSON, or has text after its value).
    pub fn read(text: &'a str) -> Option<Tree<'a>> {
        if text.len() >= u32::MAX as usize {
            return None;
        }
        let mut s = Scanner {
            text,
            b: text.as_bytes(),
            i: 0,
            nodes: Vec::with_capacity(text.len() / 8),
            links: Vec::with_capacity(text.len() / 8),
            stack: Vec::with_capacity(64),
        };
        let root = s.value(0)?;
        s.ws();
        if s.i != s.b.len() {
            return None;
        }
        Some(Tree {
            text,
            nodes: s.nodes,
            links: s.links,
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
        for bad in [
            r#"{"a": "\n"}"#,
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": 1e5}"#,
            r#"{"a": 1234567890123456}"#,
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
        let deep = "[".repeat(150) + &"]".repeat(150);
        assert!(Tree::read(&deep).is_none());
    }
}
