//! The results of simulated log lines, as numbers: what `big2 simulate` counts for its table of
//! the run (`pipeline.sim.tally`, whose regular expressions are the reference). The simulator's
//! writers put each line's `"result": {…}` near its end, with keys in a fixed order and no
//! object inside, so it is found backwards from the line's end and read with the GIL let go:
//! the Python reading held the GIL ~2.5 µs a game, which slowed the worker threads' play.

use memchr::memmem;

/// Where a line's result starts.
const RESULT: &[u8] = b"\"result\": {";

/// Each line's result, its numbers one after the other: a Big Two line gives
/// `[winner (−1: none, a redeal), cards_left × players]`, a Dou Dizhu line
/// `[played out (1) or void (0), landlord (−1: none), landlord won (1, 0; −1: none),
/// scores × players]` (a score is a float under a stake such as 2.5). None when a line has no
/// result of that shape (the caller then reads the block the reference way, which names the
/// line).
pub fn results(data: &[u8], players: usize, dou_dizhu: bool) -> Option<Vec<f64>> {
    let per_line = players + if dou_dizhu { 3 } else { 1 };
    let ends: Vec<usize> = memchr::memchr_iter(b'\n', data)
        .chain(std::iter::once(data.len()))
        .collect();
    let mut out = Vec::with_capacity(per_line * ends.len());
    let finder = memmem::FinderRev::new(RESULT);
    let mut start = 0;
    for end in ends {
        // the lines cut at memchr's pace (a byte-by-byte split was ~4 µs of a 3.8 KB line)
        let line = &data[start..end];
        start = end + 1;
        if line.is_empty() {
            continue;
        }
        let at = finder.rfind(line)? + RESULT.len();
        let end = at + memchr::memchr(b'}', &line[at..])?;
        let mut r = Reader(&line[at..end]);
        let before = out.len();
        if dou_dizhu {
            let played = match r.after(b"\"outcome\": \"")?.word()? {
                b"played_out" => 1.0,
                b"redeal" => 0.0,
                _ => return None,
            };
            out.push(played);
            out.push(r.after(b"\"landlord\": ")?.number_or_null()?);
            let won = match r.after(b"\"landlord_won\": ")?.word()? {
                b"true" => 1.0,
                b"false" => 0.0,
                b"null" => -1.0,
                _ => return None,
            };
            out.push(won);
            r.after(b"\"scores\": [")?;
        } else {
            out.push(r.after(b"\"winner\": ")?.number_or_null()?);
            r.after(b", \"cards_left\": [")?;
        }
        for k in 0..players {
            if k > 0 {
                r.after(b", ")?;
            }
            out.push(r.number()?);
        }
        r.after(b"]")?;
        if out.len() - before != per_line {
            return None;
        }
    }
    Some(out)
}

/// A cursor over one result's bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// Past the next `text` (None when there is none).
    fn after(&mut self, text: &[u8]) -> Option<&mut Self> {
        let at = memmem::find(self.0, text)?;
        self.0 = &self.0[at + text.len()..];
        Some(self)
    }

    /// A JSON number here (`3`, `-12`, `7.5`, `1e-05`), as Python's `float()` reads it.
    fn number(&mut self) -> Option<f64> {
        let end = self
            .0
            .iter()
            .take_while(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        let text = std::str::from_utf8(&self.0[..end]).ok()?;
        self.0 = &self.0[end..];
        text.parse().ok()
    }

    /// A number here, or `null` (−1).
    fn number_or_null(&mut self) -> Option<f64> {
        if let Some(rest) = self.0.strip_prefix(b"null") {
            self.0 = rest;
            return Some(-1.0);
        }
        self.number()
    }

    /// The word here: letters, digits and `_` (inside or outside quotes).
    fn word(&mut self) -> Option<&'a [u8]> {
        let n = self
            .0
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let (word, rest) = self.0.split_at(n);
        self.0 = rest;
        (n > 0).then_some(word)
    }
}

#[cfg(test)]
mod tests {
    use super::results;

    #[test]
    fn big_two_lines() {
        let data = b"{\"seats\": [], \"result\": {\"winner\": 1, \"cards_left\": [7, 0, 13]}, \"truth\": {\"x\": {}}}\n\
            {\"result\": {\"winner\": 0, \"cards_left\": [0, 3, 2]}}\n";
        assert_eq!(
            results(data, 3, false),
            Some(vec![1.0, 7.0, 0.0, 13.0, 0.0, 0.0, 3.0, 2.0])
        );
        let redeal = b"{\"result\": {\"winner\": null, \"cards_left\": [13, 13]}}\n";
        assert_eq!(results(redeal, 2, false), Some(vec![-1.0, 13.0, 13.0]));
        assert_eq!(results(b"", 3, false), Some(vec![]));
        assert_eq!(results(b"{\"result\": {\"winner\": 1}}\n", 3, false), None);
        assert_eq!(results(b"{\"no\": 1}\n", 3, false), None);
    }

    #[test]
    fn dou_dizhu_lines() {
        let data = b"{\"result\": {\"outcome\": \"played_out\", \"landlord\": 2, \"base\": 3, \"winner\": 0, \"landlord_won\": false, \"bombs\": 0, \"rockets\": 0, \"spring\": null, \"multiplier\": 2, \"amount\": 7.5, \"scores\": [7.5, 7.5, -15.0]}, \"truth\": {}}\n\
            {\"result\": {\"outcome\": \"redeal\", \"landlord\": null, \"base\": 0, \"winner\": null, \"landlord_won\": null, \"bombs\": 0, \"rockets\": 0, \"spring\": null, \"multiplier\": 1, \"amount\": 0, \"scores\": [0, 0, 0]}}";
        assert_eq!(
            results(data, 3, true),
            Some(vec![
                1.0, 2.0, 0.0, 7.5, 7.5, -15.0, 0.0, -1.0, -1.0, 0.0, 0.0, 0.0
            ])
        );
    }
}
