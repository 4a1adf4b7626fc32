//! The plain rows of an actions CSV as the JSON lines of their games, for the import's core path
//! (`pipeline.logs.csv_logs.read_csv_lines`): what the Python reader makes of them, at the
//! speed of a JSON Lines file.
//!
//! Only rows that leave no doubt are read here: one line each (no NUL, no carriage return but a
//! line's last byte), UTF-8, as many cells as the header (blank lines and rows skipped), each
//! cell either without a quote or wholly in quotes with no quote inside (`"3d 3c"`, `""`, as
//! R's `write.csv` and database exports write text), whole numbers written as digits, times
//! written as decimals or as ISO 8601 texts, texts that need no JSON escape, a game's rows
//! numbered from 0 or 1 on, under the row cap, nothing in a column the header names not
//! (Excel's trailing empty columns, `,,,`: a value there is the reader's `E_CSV_COLUMN`). At a
//! game that is not so ([`Stop::Python`]), or whose games-CSV row Python does not hand over
//! ([`Head`]: none, seen before, not readable), the Python reader reads the game from its first
//! line, so every message and reject stays its own, and hands the rows back at the next game's.

use std::borrow::Cow;
use std::collections::HashSet;

use memchr::{memchr, memchr2};

use crate::parse::tree::cut;

/// Where an actions CSV's columns are, as the Python reader finds them from its header.
#[derive(Clone, Debug)]
pub struct Layout {
    /// cells a row has (the header's)
    pub width: usize,
    /// the first `seq` column
    pub seq: usize,
    /// the last `seat`, `action` and `ts` columns (a name written twice: its last)
    pub seat: usize,
    pub action: usize,
    pub ts: usize,
    /// the cards and each optional column the header has, in the order the reader writes them
    /// into an action: (name, column, whether its value is a whole number)
    pub optional: Vec<(String, usize, bool)>,
    /// rows a game may have (`MAX_ACTIONS`)
    pub max_rows: usize,
    /// the line cap (`max_line_bytes`): a line this long or longer is Python's
    pub cap: usize,
    /// the columns the header names not (an empty header cell, as Excel writes its trailing
    /// empty columns): a row with a value in one is Python's (the reader's `E_CSV_COLUMN`)
    pub unnamed: Vec<usize>,
}

/// A game's part from its games-CSV row: its JSON object without the closing brace (the
/// actions are appended), and which of [`Layout::optional`] its game may fill (bit k: the
/// k-th; the others, filled, are the Python reader's error).
#[derive(Clone, Debug)]
pub struct Head {
    pub prefix: String,
    pub allowed: u64,
}

/// One game read: its id, the line of its first row, its JSON line, and its rows as they stand
/// (the lines, each without its line end, joined by newlines: most games' rows as they are in
/// the data, borrowed). `quoted`: a cell of them is in quotes, so the reader's raw is not the
/// rows as they stand but as `csv.writer` writes their cells (a cell with a comma in quotes,
/// the others as they are), which the reader makes of them when a reject asks for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Game<'a> {
    pub id: String,
    pub line: i64,
    pub text: String,
    pub rows: Cow<'a, str>,
    pub quoted: bool,
}

/// Whether a row's cells hold a value (not only what `str.strip` strips) in one of the
/// `unnamed` columns.
fn fills(cells: &[&str], unnamed: &[usize]) -> bool {
    unnamed.iter().any(|&k| !strip(cells[k]).is_empty())
}

/// Why [`games`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// every byte was read (at the end of the file)
    End,
    /// the last game may go on past the data given: read it again with more
    More,
    /// a game this reader does not read starts there: the Python reader reads it
    Python,
}

/// Whether the Python reader's `str.strip` removes `c` (its whitespace: Unicode's, and the
/// four separators U+001C to U+001F).
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn strip(cell: &str) -> &str {
    match cell.as_bytes() {
        // most cells: a visible ASCII character at each end, nothing to strip
        [first, .., last] if first.is_ascii_graphic() && last.is_ascii_graphic() => cell,
        [only] if only.is_ascii_graphic() => cell,
        _ => cell.trim_matches(python_space),
    }
}

/// A whole number written as optional `-` and 1 to 18 ASCII digits (what `int` reads
/// alike); None for anything else, which Python reads.
fn whole(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A decimal as JSON writes a number: `-`, digits with no leading zero, an optional
/// fraction (`float` reads it alike, and so does the core's JSON reader).
fn decimal(text: &str) -> bool {
    let b = text.strip_prefix('-').unwrap_or(text).as_bytes();
    let int_end = b
        .iter()
        .position(|&c| !c.is_ascii_digit())
        .unwrap_or(b.len());
    if int_end == 0 || (int_end > 1 && b[0] == b'0') {
        return false;
    }
    match &b[int_end..] {
        [] => true,
        [b'.', frac @ ..] => !frac.is_empty() && frac.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// A text as a JSON string when it needs no escape.
fn push_text(out: &mut String, text: &str) -> Option<()> {
    if text.bytes().any(|b| b < 0x20 || b == b'\\' || b == b'"') {
        return None;
    }
    out.push('"');
    out.push_str(text);
    out.push('"');
    Some(())
}

/// One row's action object appended to `out` (`seq`: the number the row must have, None for
/// a game's first row, which has 0 or 1); the row's seq, or None when Python reads the game.
fn push_action(
    out: &mut String,
    cells: &[&str],
    layout: &Layout,
    allowed: u64,
    seq: Option<i64>,
) -> Option<i64> {
    let got = whole(strip(cells[layout.seq]))?;
    match seq {
        None if got != 0 && got != 1 => return None,
        Some(want) if got != want => return None,
        _ => {}
    }
    let seat = whole(strip(cells[layout.seat]))?;
    out.push_str("{\"seat\":");
    out.push_str(itoa::Buffer::new().format(seat));
    out.push_str(",\"action\":");
    push_text(out, strip(cells[layout.action]))?;
    for (k, (name, at, is_int)) in layout.optional.iter().enumerate() {
        let text = strip(cells[*at]);
        if text.is_empty() {
            continue;
        }
        if allowed & (1 << k) == 0 {
            return None; // another game's column: the reader's E_SCHEMA
        }
        push_key(out, name);
        if *is_int {
            out.push_str(itoa::Buffer::new().format(whole(text)?));
        } else {
            push_text(out, text)?;
        }
    }
    let ts = strip(cells[layout.ts]);
    if !ts.is_empty() {
        out.push_str(",\"ts\":");
        if decimal(ts) {
            out.push_str(ts);
            if memchr(b'.', ts.as_bytes()).is_none() {
                out.push_str(".0"); // `float` reads it: a float in JSON too
            }
        } else if memchr(b':', ts.as_bytes()).is_some() {
            push_text(out, ts)?; // an ISO 8601 time (`float` reads no colon)
        } else {
            return None; // what else `float` reads ("1e3", "nan", "1_0" …) is Python's
        }
    }
    out.push('}');
    Some(got)
}

/// A line's cells into `buf` when it is plain (see the module's notes), and its text without
/// its carriage return and whether a cell of it is in quotes; else None. `checked`: the line is
/// known to be UTF-8 (a part of the data [`games`] checked at once), so only its bytes are
/// looked at.
#[inline(always)]
fn cells<'a>(
    line: &'a [u8],
    checked: Option<&'a str>,
    (width, cap): (usize, usize),
    buf: &mut Vec<&'a str>,
) -> Option<(&'a str, bool)> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() >= cap {
        return None;
    }
    let text = match checked {
        Some(text) => text.get(..line.len())?,
        None => std::str::from_utf8(line).ok()?,
    };
    buf.clear();
    if !split_plain(text, buf) {
        // a quote, a carriage return or a NUL: quoted cells when there is no carriage return
        // and no NUL (then there is a quote)
        if memchr2(b'\r', 0, line).is_some() {
            return None;
        }
        buf.clear();
        quoted_short(text, buf)?;
        return (buf.len() == width).then_some((text, true));
    }
    (buf.len() == width).then_some((text, false))
}

/// The commas (bit k: byte k is one) and the bytes that make a row not plain (a quote, a
/// carriage return, a NUL) of a 16-byte block: SSE2, which every x86-64 has.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn commas16(block: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    // SAFETY: SSE2 is part of x86-64 (every build of this target enables it), and `block` is
    // 16 readable bytes, which an unaligned load reads.
    unsafe {
        let x = _mm_loadu_si128(block.as_ptr().cast());
        let comma = _mm_cmpeq_epi8(x, _mm_set1_epi8(b',' as i8));
        let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
        let cr = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\r' as i8));
        let nul = _mm_cmpeq_epi8(x, _mm_setzero_si128());
        let odd = _mm_or_si128(_mm_or_si128(quote, cr), nul);
        (
            _mm_movemask_epi8(comma) as u32,
            _mm_movemask_epi8(odd) as u32,
        )
    }
}

/// `text` cut at its commas into `buf` when no byte of it is a quote, a carriage return or a
/// NUL (false, `buf` then partly filled, when one is): sixteen bytes at a time on x86-64
/// ([`commas16`]), the rest one at a time.
#[inline(always)]
fn split_plain<'a>(text: &'a str, buf: &mut Vec<&'a str>) -> bool {
    let b = text.as_bytes();
    let mut at = 0; // where the cell being read starts
    let mut j = 0;
    #[cfg(target_arch = "x86_64")]
    while let Some(block) = b.get(j..j + 16) {
        let (mut commas, odd) = commas16(block.try_into().expect("sixteen bytes"));
        if odd != 0 {
            return false;
        }
        while commas != 0 {
            let k = j + commas.trailing_zeros() as usize;
            buf.push(cut(text, at, k));
            at = k + 1;
            commas &= commas - 1;
        }
        j += 16;
    }
    for (k, &c) in b.iter().enumerate().skip(j) {
        match c {
            b',' => {
                buf.push(cut(text, at, k));
                at = k + 1;
            }
            b'"' | b'\r' | 0 => return false,
            _ => {}
        }
    }
    buf.push(cut(text, at, b.len()));
    true
}

/// [`quoted_cells`] of a line of at most 64 bytes (most rows) from the bits of its commas and
/// quotes ([`commas16`] on the line padded with letters), with no search a cell; a longer
/// line by [`quoted_cells`]. The line has no carriage return and no NUL ([`cells`] checked).
#[inline(never)]
fn quoted_short<'a>(text: &'a str, buf: &mut Vec<&'a str>) -> Option<()> {
    let n = text.len();
    if n > 64 || !cfg!(target_arch = "x86_64") {
        return quoted_cells(text, buf);
    }
    let mut line = [b'a'; 64];
    line[..n].copy_from_slice(text.as_bytes());
    let (mut commas, mut quotes) = (0u64, 0u64);
    #[cfg(target_arch = "x86_64")]
    for (k, block) in line.chunks_exact(16).enumerate() {
        let (c, q) = commas16(block.try_into().expect("sixteen bytes"));
        commas |= u64::from(c) << (16 * k);
        quotes |= u64::from(q) << (16 * k); // quotes only: no CR or NUL, letters after
    }
    let from = |at: usize| u64::MAX.checked_shl(at as u32).unwrap_or(0); // bits at..64
    let mut at = 0;
    loop {
        if quotes & from(at) & !from(at + 1) != 0 {
            // a cell in quotes: to the next quote, then a comma or the line's end
            let close = (quotes & from(at + 1)).trailing_zeros() as usize;
            if close >= n {
                return None;
            }
            buf.push(cut(text, at + 1, close));
            if close + 1 == n {
                return Some(());
            }
            if commas & from(close + 1) & !from(close + 2) == 0 {
                return None;
            }
            at = close + 2;
        } else {
            let end = ((commas & from(at)).trailing_zeros() as usize).min(n);
            if quotes & from(at) & !from(end) != 0 {
                return None; // a quote inside a cell
            }
            buf.push(cut(text, at, end));
            if end == n {
                return Some(());
            }
            at = end + 1;
        }
    }
}

/// The cells of a line with a quote into `buf`, as `csv.reader` reads them, when each cell is
/// either without a quote or wholly in quotes with none inside (its closing quote followed by
/// a comma or the line's end); else None (a quote doubled or inside a cell, text after a
/// closing quote, a quote not closed on the line: the Python reader's). Kept out of line: the
/// loop over plain rows stays as tight as before.
#[inline(never)]
fn quoted_cells<'a>(text: &'a str, buf: &mut Vec<&'a str>) -> Option<()> {
    let b = text.as_bytes();
    let mut at = 0;
    loop {
        if b.get(at) == Some(&b'"') {
            let close = at + 1 + memchr(b'"', &b[at + 1..])?;
            buf.push(&text[at + 1..close]);
            match b.get(close + 1) {
                None => return Some(()),
                Some(b',') => at = close + 2,
                Some(_) => return None,
            }
        } else {
            let end = memchr(b',', &b[at..]).map_or(b.len(), |k| at + k);
            if memchr(b'"', &b[at..end]).is_some() {
                return None;
            }
            buf.push(&text[at..end]);
            if end == b.len() {
                return Some(());
            }
            at = end + 1;
        }
    }
}

/// The part of `data` that is UTF-8, checked at once (most data is all of it): a row within it
/// is sliced from it, not checked alone.
fn utf8_part(data: &[u8]) -> &str {
    match simdutf8::compat::from_utf8(data) {
        Ok(text) => text,
        Err(err) => std::str::from_utf8(&data[..err.valid_up_to()]).unwrap_or_default(),
    }
}

/// The games of `data` (whole lines from a game's first row, `line` the number of its first;
/// `at_eof`: the file ends with them) appended to `out`, each game's [`Head`] from `head`
/// (None: Python reads the game; `seen` ids are Python's too); `(bytes read, the line after
/// them, why it stopped)`. A game is read whole or not at all: the bytes read end where the
/// next game starts.
pub fn games<'a>(
    data: &'a [u8],
    at_eof: bool,
    mut line: i64,
    layout: &Layout,
    seen: &mut HashSet<String>,
    mut head: impl FnMut(&str) -> Option<Head>,
    out: &mut Vec<Game<'a>>,
) -> (usize, i64, Stop) {
    let checked = utf8_part(data);
    let mut pos = 0;
    let mut buf: Vec<&str> = Vec::with_capacity(layout.width);
    let mut rows: Vec<&'a str> = Vec::new(); // the game's rows, each without its line end
    let mut text_room = 0;
    loop {
        if pos == data.len() {
            return (pos, line, if at_eof { Stop::End } else { Stop::More });
        }
        let (start, start_line) = (pos, line);
        let mut game: Option<(String, u64, i64)> = None;
        let mut text = String::new();
        let mut seq = None;
        rows.clear();
        let mut any_quoted = false;
        loop {
            if pos == data.len() {
                if !at_eof {
                    return (start, start_line, Stop::More);
                }
                break;
            }
            let end = memchr(b'\n', &data[pos..]).map(|k| pos + k);
            if end.is_none() && !at_eof {
                return (start, start_line, Stop::More);
            }
            let end = end.unwrap_or(data.len());
            let row = &data[pos..end];
            let row_text = checked.get(pos..end);
            let next = (end + 1).min(data.len());
            if row.is_empty() || row == b"\r" {
                // a blank line: no row (the reader skips it, the game goes on)
                pos = next;
                line += 1;
                continue;
            }
            let cut = (layout.width, layout.cap);
            let Some((row_text, quoted)) = cells(row, row_text, cut, &mut buf) else {
                if let (Some((gid, _, _)), Some(id)) = (&game, first_cell(row, row_text)) {
                    if !id.is_empty() && id != gid {
                        break; // the next game's first row, not plain: Python's
                    }
                }
                return (start, start_line, Stop::Python);
            };
            let id = strip(buf[0]);
            if id.is_empty() {
                if buf.iter().all(|c| strip(c).is_empty()) {
                    pos = next; // a blank row, as a blank line
                    line += 1;
                    continue;
                }
                if game.is_some() {
                    break; // a game with no id starts: the next game's first row
                }
                return (start, start_line, Stop::Python);
            }
            let allowed = match &game {
                Some((gid, _, _)) if id != gid => break, // the next game's first row
                Some((_, allowed, _)) => *allowed,
                None => {
                    if seen.contains(id) {
                        return (start, start_line, Stop::Python);
                    }
                    let Some(h) = head(id) else {
                        return (start, start_line, Stop::Python);
                    };
                    text.reserve(h.prefix.len() + text_room);
                    text.push_str(&h.prefix);
                    text.push_str(",\"actions\":");
                    game = Some((id.to_owned(), h.allowed, line));
                    h.allowed
                }
            };
            if rows.len() >= layout.max_rows || fills(&buf, &layout.unnamed) {
                return (start, start_line, Stop::Python);
            }
            text.push(if rows.is_empty() { '[' } else { ',' });
            let Some(got) = push_action(&mut text, &buf, layout, allowed, seq) else {
                return (start, start_line, Stop::Python);
            };
            seq = Some(got + 1);
            any_quoted |= quoted;
            rows.push(row_text);
            pos = next;
            line += 1;
        }
        let (id, _, game_line) = game.expect("a game has a first row");
        text.push_str("]}");
        text_room = text_room.max(text.len());
        seen.insert(id.clone());
        out.push(Game {
            id,
            line: game_line,
            text,
            rows: joined_rows(data, checked, &rows),
            quoted: any_quoted,
        });
    }
}

/// A game's rows (each a part of `data`) joined by newlines: borrowed from `checked` (the
/// UTF-8 part of `data`) when they stand so in it (no blank line between them, no carriage
/// return), as most do.
fn joined_rows<'a>(data: &[u8], checked: &'a str, rows: &[&'a str]) -> Cow<'a, str> {
    let at = |row: &str| row.as_ptr() as usize - data.as_ptr() as usize;
    let end = rows[rows.len() - 1];
    let (first, last) = (at(rows[0]), at(end) + end.len());
    let next_to = |w: &[&str]| at(w[0]) + w[0].len() + 1 == at(w[1]);
    if last <= checked.len() && rows.windows(2).all(next_to) {
        return Cow::Borrowed(&checked[first..last]);
    }
    Cow::Owned(rows.join("\n"))
}

/// A row's first cell, stripped, when the reader reads it as it stands (no quote, NUL or
/// carriage return in it, UTF-8; the row before ended its line): what tells the next game's
/// first row, plain or not. `checked`: the row, known to be UTF-8.
fn first_cell<'a>(row: &'a [u8], checked: Option<&'a str>) -> Option<&'a str> {
    let mut end = row.len();
    for (k, &b) in row.iter().enumerate() {
        match b {
            b',' => {
                end = k;
                break;
            }
            b'"' | b'\r' | 0 => return None,
            _ => {}
        }
    }
    match checked {
        Some(text) => text.get(..end),
        None => std::str::from_utf8(&row[..end]).ok(),
    }
    .map(strip)
}

/// The games-CSV columns a Big Two or Dou Dizhu game's object is made of (the common ones,
/// Big Two's, then Dou Dizhu's), as [`GamesLayout::at`] holds their places.
pub const GAME_FIELDS: [&str; 34] = [
    "game_id",
    "ruleset",
    "overrides",
    "players",
    "names",
    "game_kind",
    "match_id",
    "table_id",
    "tournament_id",
    "tournament_kind",
    "started_at",
    "game_number",
    "tournament_round",
    "previous_winner",
    "first_leader",
    "hands",
    "stock",
    "start_counts",
    "winner",
    "cards_left",
    "kitty",
    "set_aside",
    "face_up_card",
    "first_bidder",
    "outcome",
    "landlord",
    "base",
    "landlord_won",
    "bombs",
    "rockets",
    "spring",
    "multiplier",
    "amount",
    "scores",
];

/// How many of [`GAME_FIELDS`] both games read (the first), and how many Big Two's own are
/// after them (then Dou Dizhu's).
const COMMON_FIELDS: usize = 13;
const BIG2_FIELDS: usize = 7;

/// The kind a Dou Dizhu row names (`game_kind`); an empty kind is Big Two's.
pub const DOUDIZHU: &str = "doudizhu";

/// Where a games CSV's columns are, as the Python reader finds them from its header (a name
/// written twice: its last column): the cells a row has, the column of each of
/// [`GAME_FIELDS`] (None: not in the header), the columns of games other than Big Two
/// (`foreign`) and other than Dou Dizhu (`foreign_ddz`) the header has, and those it names not
/// (`unnamed`: [`game_rows`] stops at a row with a value in one, the reader's `E_CSV_COLUMN`).
#[derive(Clone, Debug)]
pub struct GamesLayout {
    pub width: usize,
    pub at: [Option<usize>; GAME_FIELDS.len()],
    pub foreign: Vec<usize>,
    pub foreign_ddz: Vec<usize>,
    pub unnamed: Vec<usize>,
}

impl GamesLayout {
    /// The layout of a header of `width` cells whose columns by name are `columns` (names
    /// other than [`GAME_FIELDS`]' are not looked at); None when a column is past the width.
    pub fn new(
        width: usize,
        columns: &[(String, usize)],
        foreign: Vec<usize>,
        foreign_ddz: Vec<usize>,
        unnamed: Vec<usize>,
    ) -> Option<Self> {
        let mut at = [None; GAME_FIELDS.len()];
        for (name, column) in columns {
            if *column >= width {
                return None;
            }
            if let Some(k) = GAME_FIELDS.iter().position(|f| f == name) {
                at[k] = Some(*column);
            }
        }
        if foreign
            .iter()
            .chain(&foreign_ddz)
            .chain(&unnamed)
            .any(|&c| c >= width)
        {
            return None;
        }
        Some(GamesLayout {
            width,
            at,
            foreign,
            foreign_ddz,
            unnamed,
        })
    }
}

/// `,"name":`: a key after an earlier one.
fn push_key(out: &mut String, name: &str) {
    out.push_str(",\"");
    out.push_str(name);
    out.push_str("\":");
}

/// `,"name":` and a whole number, when `text` is one (else None: Python reads it).
fn push_whole(out: &mut String, name: &str, text: &str) -> Option<()> {
    let n = whole(text)?;
    push_key(out, name);
    out.push_str(itoa::Buffer::new().format(n));
    Some(())
}

/// `"name":[…]`, the whole numbers of `text` split at `|` (each written as digits).
fn push_wholes(out: &mut String, name: &str, text: &str) -> Option<()> {
    out.push('"');
    out.push_str(name);
    out.push_str("\":[");
    for (k, piece) in text.split('|').enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str(itoa::Buffer::new().format(whole(piece)?));
    }
    out.push(']');
    Some(())
}

/// A Big Two or Dou Dizhu game's JSON object made of its games-CSV row `line` (without its
/// line end), as the Python reader makes it (`csv_logs._game_obj`, written by orjson), without
/// its closing brace (the actions are appended). Only for a row that leaves no doubt: one line
/// with no NUL, each cell without a quote or wholly in quotes with none inside, as many cells
/// as the header, `game_kind` empty, `big2` or
/// `doudizhu`, `overrides` empty or `{}`, no other game's column filled, whole numbers written
/// as digits, `true` or `false`, texts that need no JSON escape. None for any other row: the
/// Python reader makes its object (or names its error).
pub fn game_head(layout: &GamesLayout, line: &str) -> Option<String> {
    // an empty line is no cell to csv.reader, not one empty cell
    if line.is_empty() || line.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0)) {
        return None;
    }
    let mut buf = Vec::with_capacity(layout.width);
    cells(
        line.as_bytes(),
        Some(line),
        (layout.width, usize::MAX),
        &mut buf,
    )?;
    head_of_cells(layout, &buf, line.len())
}

/// [`game_head`] of a row's cells (as many as the header's, none with a quote, NUL or line
/// end), `size` the row's length.
fn head_of_cells(layout: &GamesLayout, cells: &[&str], size: usize) -> Option<String> {
    let mut fields = [""; GAME_FIELDS.len()];
    for (value, at) in fields.iter_mut().zip(layout.at) {
        if let Some(k) = at {
            *value = strip(cells[k]);
        }
    }
    let (common, games) = fields.split_at(COMMON_FIELDS);
    let &[game_id, ruleset, overrides, players, names, kind, match_id, table_id, tournament_id, tournament_kind, started_at, game_number, tournament_round] =
        common
    else {
        unreachable!("the common columns");
    };
    let (big2, ddz_only) = games.split_at(BIG2_FIELDS);
    let ddz = kind == DOUDIZHU;
    let foreign = if ddz {
        &layout.foreign_ddz
    } else {
        &layout.foreign
    };
    if foreign.iter().any(|&k| !strip(cells[k]).is_empty()) {
        return None;
    }
    if !(kind.is_empty() || kind == "big2" || ddz) || !(overrides.is_empty() || overrides == "{}") {
        return None;
    }
    let mut out = String::with_capacity(size + 256);
    out.push_str("{\"format_version\":1,\"game_kind\":");
    out.push_str(if ddz { "\"doudizhu\"" } else { "\"big2\"" });
    out.push_str(",\"game_id\":");
    push_text(&mut out, game_id)?;
    out.push_str(",\"ruleset\":{\"preset\":");
    push_text(&mut out, ruleset)?;
    out.push_str(",\"overrides\":{}},\"seats\":[");
    if !players.is_empty() {
        let names: Vec<&str> = if names.is_empty() {
            Vec::new()
        } else {
            names.split('|').collect()
        };
        for (seat, player) in players.split('|').enumerate() {
            if seat > 0 {
                out.push(',');
            }
            out.push_str("{\"seat\":");
            out.push_str(itoa::Buffer::new().format(seat));
            out.push_str(",\"player_id\":");
            push_text(&mut out, strip(player))?;
            if let Some(name) = names.get(seat).filter(|n| !n.is_empty()) {
                out.push_str(",\"name\":");
                push_text(&mut out, name)?;
            }
            out.push('}');
        }
    }
    out.push(']');
    let texts = [
        ("match_id", match_id),
        ("table_id", table_id),
        ("tournament_id", tournament_id),
        ("tournament_kind", tournament_kind),
        ("started_at", started_at),
    ];
    for (name, text) in texts {
        if !text.is_empty() {
            push_key(&mut out, name);
            push_text(&mut out, text)?;
        }
    }
    for (name, text) in [
        ("game_number", game_number),
        ("tournament_round", tournament_round),
    ] {
        if !text.is_empty() {
            push_whole(&mut out, name, text)?;
        }
    }
    if ddz {
        let &[_, _, hands, _, _, winner, _] = big2 else {
            unreachable!("Big Two's seven columns");
        }; // the two Dou Dizhu reads too
        ddz_fill(hands, winner, ddz_only, &mut out)?;
    } else {
        big2_fill(big2, &mut out)?;
    }
    Some(out)
}

/// Big Two's columns of a row (`pipeline.big2.logformat._csv_fill`): the previous winner, the
/// first leader, the deal, the start counts and the result.
fn big2_fill(fields: &[&str], out: &mut String) -> Option<()> {
    let &[previous_winner, first_leader, hands, stock, start_counts, winner, cards_left] = fields
    else {
        unreachable!("Big Two's seven columns");
    };
    for (name, text) in [
        ("previous_winner", previous_winner),
        ("first_leader", first_leader),
    ] {
        if !text.is_empty() {
            push_whole(out, name, text)?;
        }
    }
    if !hands.is_empty() {
        out.push_str(",\"deal\":{\"hands\":[");
        push_texts(out, hands)?;
        out.push_str("],\"stock\":");
        push_text(out, stock)?;
        out.push('}');
    }
    if !start_counts.is_empty() {
        out.push(',');
        push_wholes(out, "start_counts", start_counts)?;
    }
    if !winner.is_empty() || !cards_left.is_empty() {
        out.push_str(",\"result\":{");
        if !winner.is_empty() {
            out.push_str("\"winner\":");
            out.push_str(itoa::Buffer::new().format(whole(winner)?));
            if !cards_left.is_empty() {
                out.push(',');
            }
        }
        if !cards_left.is_empty() {
            push_wholes(out, "cards_left", cards_left)?;
        }
        out.push('}');
    }
    Some(())
}

/// Dou Dizhu's columns of a row (`pipeline.doudizhu.game._csv_fill`): the deal, the first
/// bidder and the declared result, in the order that function fills them. `hands` and
/// `winner` are columns Big Two reads too; `fields` Dou Dizhu's own, in [`GAME_FIELDS`]' order.
fn ddz_fill(hands: &str, winner: &str, fields: &[&str], out: &mut String) -> Option<()> {
    let &[kitty, set_aside, face_up_card, first_bidder, outcome, landlord, base, landlord_won, bombs, rockets, spring, multiplier, amount, scores] =
        fields
    else {
        unreachable!("Dou Dizhu's fourteen columns");
    };
    if !hands.is_empty() {
        out.push_str(",\"deal\":{\"hands\":[");
        push_texts(out, hands)?;
        out.push_str("],\"kitty\":");
        push_text(out, kitty)?;
        for (name, text) in [("set_aside", set_aside), ("face_up_card", face_up_card)] {
            if !text.is_empty() {
                push_key(out, name);
                push_text(out, text)?;
            }
        }
        out.push('}');
    } else if [kitty, set_aside, face_up_card]
        .iter()
        .any(|t| !t.is_empty())
    {
        return None; // a deal is whole or absent: the Python reader names the error
    }
    if !first_bidder.is_empty() {
        push_whole(out, "first_bidder", first_bidder)?;
    }
    let mut result = String::new();
    for (name, text) in [("outcome", outcome), ("spring", spring)] {
        if !text.is_empty() {
            push_key(&mut result, name);
            push_text(&mut result, text)?;
        }
    }
    let wholes = [
        ("landlord", landlord),
        ("base", base),
        ("winner", winner),
        ("bombs", bombs),
        ("rockets", rockets),
        ("multiplier", multiplier),
    ];
    for (name, text) in wholes {
        if !text.is_empty() {
            push_whole(&mut result, name, text)?;
        }
    }
    match landlord_won {
        "" => {}
        won @ ("true" | "false") => {
            push_key(&mut result, "landlord_won");
            result.push_str(won);
        }
        _ => return None,
    }
    if !amount.is_empty() {
        push_whole(&mut result, "amount", amount)?; // a decimal: Python's float
    }
    if !scores.is_empty() {
        result.push(',');
        push_wholes(&mut result, "scores", scores)?;
    }
    if !result.is_empty() {
        out.push_str(",\"result\":{");
        out.push_str(&result[1..]); // its first key's comma
        out.push('}');
    }
    Some(())
}

/// The texts of `text` split at `|`, each quoted, separated by commas.
fn push_texts(out: &mut String, text: &str) -> Option<()> {
    for (k, piece) in text.split('|').enumerate() {
        if k > 0 {
            out.push(',');
        }
        push_text(out, piece)?;
    }
    Some(())
}

/// A games-CSV row read by [`game_rows`]: its game id (stripped), its line, its text (without
/// its line end) and its Big Two object's head ([`game_head`]; None: the Python reader's).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub id: String,
    pub line: i64,
    pub text: String,
    pub head: Option<String>,
}

/// The rows of a games CSV's `data` (whole lines after its header, `line` the number of the
/// first; `at_eof`: the file ends with them) appended to `out`, as `csv.reader` reads them,
/// blank lines and rows skipped, while they are plain: one line each with no NUL, no carriage
/// return but its last byte, each cell without a quote or wholly in quotes with none inside,
/// UTF-8, under the line cap `cap`, as many cells as the header (a row's text is its line as it
/// stands, quotes and all, as the reader keeps it), no value in a column the header names not.
/// At a row that is not ([`Stop::Python`]) the Python reader reads it (and names its error):
/// `(bytes read, the line after them, why it stopped)`.
pub fn game_rows(
    data: &[u8],
    at_eof: bool,
    mut line: i64,
    layout: &GamesLayout,
    cap: usize,
    out: &mut Vec<GameRow>,
) -> (usize, i64, Stop) {
    let checked = utf8_part(data);
    let Some(id_at) = layout.at[0] else {
        return (0, line, Stop::Python); // no game_id column: the reader's header error
    };
    let mut pos = 0;
    let mut buf: Vec<&str> = Vec::with_capacity(layout.width);
    loop {
        if pos == data.len() {
            return (pos, line, if at_eof { Stop::End } else { Stop::More });
        }
        let end = memchr(b'\n', &data[pos..]).map(|k| pos + k);
        if end.is_none() && !at_eof {
            return (pos, line, Stop::More);
        }
        let end = end.unwrap_or(data.len());
        let row = &data[pos..end];
        if !(row.is_empty() || row == b"\r") {
            let cut = (layout.width, cap);
            let Some((text, _)) = cells(row, checked.get(pos..end), cut, &mut buf) else {
                return (pos, line, Stop::Python);
            };
            if fills(&buf, &layout.unnamed) {
                return (pos, line, Stop::Python);
            }
            if !buf.iter().all(|cell| strip(cell).is_empty()) {
                out.push(GameRow {
                    id: strip(buf[id_at]).to_owned(),
                    line,
                    text: text.to_owned(),
                    head: head_of_cells(layout, &buf, text.len()),
                });
            }
        }
        pos = (end + 1).min(data.len());
        line += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memchr::memchr3;

    /// A games header's columns by name, each at its place.
    fn columns_of(names: &[&str]) -> Vec<(String, usize)> {
        names
            .iter()
            .enumerate()
            .map(|(k, n)| (n.to_string(), k))
            .collect()
    }

    /// A games row as `_game_obj` and orjson write it (`tests/native/test_csv_game_heads.py`
    /// holds the two to each other on any header and cells), and rows left to Python.
    #[test]
    fn game_heads() {
        let names = [
            "game_id",
            "ruleset",
            "players",
            "names",
            "hands",
            "winner",
            "cards_left",
        ];
        let columns = columns_of(&names);
        let layout = GamesLayout::new(7, &columns, vec![], vec![], vec![]).expect("a layout");
        assert_eq!(
            game_head(&layout, "g1 ,hk, p0 |p1,A|,3d|4d,1,0|2").as_deref(),
            Some(concat!(
                r#"{"format_version":1,"game_kind":"big2","game_id":"g1","#,
                r#""ruleset":{"preset":"hk","overrides":{}},"seats":[{"seat":0,"#,
                r#""player_id":"p0","name":"A"},{"seat":1,"player_id":"p1"}],"#,
                r#""deal":{"hands":["3d","4d"],"stock":""},"result":{"winner":1,"#,
                r#""cards_left":[0,2]}"#
            ))
        );
        // cells wholly in quotes read as csv.reader reads them
        assert_eq!(
            game_head(&layout, "\"g1 \",hk,\" p0 |p1\",\"A|\",\"3d|4d\",1,\"0|2\""),
            game_head(&layout, "g1 ,hk, p0 |p1,A|,3d|4d,1,0|2"),
        );
        for row in [
            "g1,hk,p0,,,+1,",
            "g1,hk,p0,,,1",
            "\"g\"\"1\",hk,p0,,,,", // a quote doubled
            "\"g1\"x,hk,p0,,,,",    // text after the closing quote
            "g\"1,hk,p0,,,,",       // a quote inside a cell
            "\"g1,hk,p0,,,,",       // a quote not closed
            "g1,hk,p\u{1},,,,",
            "",
        ] {
            let got = game_head(&layout, row);
            assert_eq!(got, None, "{row:?}");
        }
        let foreign = GamesLayout::new(7, &columns, vec![6], vec![], vec![]).expect("a layout");
        assert_eq!(game_head(&foreign, "g1,hk,p0,,,,3"), None);
        assert!(GamesLayout::new(6, &columns, vec![], vec![], vec![]).is_none());
    }

    /// A Dou Dizhu row's object, its keys in `_csv_fill`'s order; Big Two's columns are
    /// foreign to it, and a kitty without the hands, `True` or a decimal amount are Python's.
    #[test]
    fn dou_dizhu_heads() {
        let names = [
            "game_id",
            "game_kind",
            "ruleset",
            "players",
            "hands",
            "kitty",
            "first_bidder",
            "outcome",
            "landlord",
            "winner",
            "landlord_won",
            "spring",
            "amount",
            "scores",
            "stock",
        ];
        let layout =
            GamesLayout::new(15, &columns_of(&names), vec![], vec![14], vec![]).expect("a layout");
        let row = |cells: [&str; 15]| game_head(&layout, &cells.join(","));
        let mut cells = [
            "d1",
            "doudizhu",
            "ddz",
            "a|b|c",
            "3d|4d|5d",
            "BJ RJ",
            "1",
            "played_out",
            "1",
            "1",
            "true",
            "spring",
            "6",
            "-3|6|-3",
            "",
        ];
        assert_eq!(
            row(cells).as_deref(),
            Some(concat!(
                r#"{"format_version":1,"game_kind":"doudizhu","game_id":"d1","#,
                r#""ruleset":{"preset":"ddz","overrides":{}},"seats":[{"seat":0,"#,
                r#""player_id":"a"},{"seat":1,"player_id":"b"},{"seat":2,"player_id":"c"}],"#,
                r#""deal":{"hands":["3d","4d","5d"],"kitty":"BJ RJ"},"first_bidder":1,"#,
                r#""result":{"outcome":"played_out","spring":"spring","landlord":1,"winner":1,"#,
                r#""landlord_won":true,"amount":6,"scores":[-3,6,-3]}"#
            ))
        );
        for (k, odd) in [(14, "2d"), (4, ""), (10, "True"), (12, "1.5"), (13, "1| 2")] {
            let kept = cells[k];
            cells[k] = odd;
            assert_eq!(row(cells), None, "{odd:?}");
            cells[k] = kept;
        }
    }

    /// The games rows `csv.reader` reads as they stand are read, blank lines and rows skipped,
    /// each with its line, text and head; the first that is not stops the reading there, and
    /// a last line may wait for more of the file.
    #[test]
    fn game_rows_while_plain() {
        let columns = columns_of(&["ruleset", "game_id"]);
        let layout = GamesLayout::new(3, &columns, vec![], vec![], vec![]).expect("a layout");
        let read = |data: &[u8], at_eof| {
            let mut out = Vec::new();
            (game_rows(data, at_eof, 2, &layout, 40, &mut out), out)
        };
        let data = "hk, g1 ,x\r\n\n , ,\r\nhk,g2,y\n";
        let (got, out) = read(data.as_bytes(), true);
        assert_eq!(got, (data.len(), 6, Stop::End));
        let rows: Vec<_> = out
            .iter()
            .map(|r| (&r.id[..], r.line, &r.text[..]))
            .collect();
        assert_eq!(rows, [("g1", 2, "hk, g1 ,x"), ("g2", 5, "hk,g2,y")]);
        assert!(out[0]
            .head
            .as_deref()
            .unwrap()
            .contains(r#""game_id":"g1""#));
        let (got, out) = read(&data.as_bytes()[..data.len() - 1], false);
        assert_eq!(
            (got, out.len()),
            ((data.find("hk,g2").unwrap(), 5, Stop::More), 1)
        );
        let quoted = "hk,\"g1\",\"x,y\"\n";
        let (got, out) = read(quoted.as_bytes(), true);
        assert_eq!((got, out.len()), ((quoted.len(), 3, Stop::End), 1));
        assert_eq!((&*out[0].id, &*out[0].text), ("g1", "hk,\"g1\",\"x,y\""));
        for bad in [
            &b"hk,\"g3\"\"\",z\n"[..],                           // a quote doubled
            b"hk,g3\n",                                          // a cell short
            b"hk,g3,z,\n",                                       // a cell too many
            b"hk,g3,z\0\n",                                      // a NUL
            b"hk,g3,z\rx\n",                                     // a carriage return inside
            b"hk,g3,\xff\n",                                     // not UTF-8
            b"hk,g3,zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n", // the cap
        ] {
            let data = [&b"hk,g1,x\n"[..], bad, b"hk,g4,w\n"].concat();
            let (got, out) = read(&data, true);
            assert_eq!((got, out.len()), ((8, 3, Stop::Python), 1), "{bad:?}");
        }
    }

    /// The cells of a line one byte at a time, as [`cells`] read them before it went sixteen
    /// bytes at a time: the reference of the brute-force check below.
    fn cells_bytewise(line: &[u8], width: usize) -> Option<(Vec<&str>, bool)> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let quoted = match memchr3(b'"', b'\r', 0, line) {
            None => false,
            Some(k) if line[k] == b'"' && memchr2(b'\r', 0, &line[k..]).is_none() => true,
            Some(_) => return None,
        };
        let text = std::str::from_utf8(line).ok()?;
        let mut buf = Vec::new();
        if quoted {
            quoted_cells(text, &mut buf)?;
        } else {
            buf.extend(text.split(','));
        }
        (buf.len() == width).then_some((buf, quoted))
    }

    /// Lines of commas, quotes, carriage returns, NULs, spaces, letters and a two-byte
    /// character, of every length around the sixteen-byte blocks: the same cells (or none)
    /// as the byte-wise reading, whether the line was checked as UTF-8 before or not.
    #[test]
    fn cells_as_read_byte_by_byte() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let pieces: [&[u8]; 9] = [
            b",",
            b"\"",
            b"\r",
            b"\0",
            b" ",
            b"a",
            b"7",
            "\u{e9}".as_bytes(),
            b"pl",
        ];
        for round in 0..40_000 {
            let n = (next() % 48) as usize;
            // mostly plain lines (quotes, carriage returns and NULs rare), some anything
            let plain = round % 4 != 0;
            let mut line = Vec::new();
            for _ in 0..n {
                let k = (next() % 9) as usize;
                let k = if plain && (1..=3).contains(&k) { 0 } else { k };
                line.extend_from_slice(pieces[k]);
            }
            if next().is_multiple_of(5) {
                line.push(b'\r');
            }
            let mut buf = Vec::new();
            for width in [1, 3, 6] {
                let want = cells_bytewise(&line, width);
                let checked = std::str::from_utf8(&line).ok();
                for given in [None, checked] {
                    let got = cells(&line, given, (width, 1 << 20), &mut buf)
                        .map(|(text, quoted)| (buf.clone(), quoted, text.len()));
                    let want = want.clone().map(|(cells, quoted)| {
                        let len = line.strip_suffix(b"\r").unwrap_or(&line).len();
                        (cells, quoted, len)
                    });
                    assert_eq!(got, want, "{line:?} width {width}");
                }
            }
        }
    }

    /// Lines of cells in quotes or not (texts of letters, digits, spaces, commas inside
    /// quotes, a two-byte character), some spoilt (a quote inside a cell, a letter after a
    /// closing quote, a quote not closed), from empty to past 64 bytes: [`quoted_short`]
    /// reads the cells [`quoted_cells`] reads, or none when it reads none.
    #[test]
    fn quoted_short_as_quoted_cells() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let letters: [&str; 6] = ["a", "7", " ", "\u{e9}", "pl", "3d"];
        let mut lengths = std::collections::BTreeSet::new();
        for _ in 0..60_000 {
            let mut line = String::new();
            for c in 0..1 + next() % 9 {
                if c > 0 {
                    line.push(',');
                }
                let quoted = next().is_multiple_of(2);
                if quoted {
                    line.push('"');
                }
                for _ in 0..next() % 8 {
                    line.push_str(letters[(next() % 6) as usize]);
                    if quoted && next().is_multiple_of(6) {
                        line.push(',');
                    }
                }
                if quoted {
                    line.push('"');
                }
            }
            match next() % 12 {
                0 => {
                    let mut k = next() as usize % (line.len() + 1);
                    while !line.is_char_boundary(k) {
                        k -= 1;
                    }
                    line.insert(k, '"');
                }
                1 => line.push('x'),
                2 => line.push('"'),
                _ => {}
            }
            let line = line.as_str();
            lengths.insert(line.len());
            let (mut want, mut got) = (Vec::new(), Vec::new());
            let want = quoted_cells(line, &mut want).map(|()| want);
            let got = quoted_short(line, &mut got).map(|()| got);
            assert_eq!(got, want, "{line:?}");
        }
        assert!(
            (0..=70).all(|n| lengths.contains(&n)),
            "every length to past 64"
        );
    }

    fn layout() -> Layout {
        Layout {
            width: 6,
            seq: 1,
            seat: 2,
            action: 3,
            ts: 5,
            optional: vec![("cards".into(), 4, false)],
            max_rows: 3,
            cap: 1 << 20,
            unnamed: vec![],
        }
    }

    fn read(data: &str, at_eof: bool) -> (Vec<Game<'_>>, (usize, i64, Stop)) {
        read_bytes(data.as_bytes(), at_eof)
    }

    fn read_bytes(data: &[u8], at_eof: bool) -> (Vec<Game<'_>>, (usize, i64, Stop)) {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let head = |id: &str| {
            (id != "nohead").then(|| Head {
                prefix: format!("{{\"game_id\":\"{id}\""),
                allowed: 1,
            })
        };
        let got = games(data, at_eof, 2, &layout(), &mut seen, head, &mut out);
        (out, got)
    }

    #[test]
    fn plain_rows_become_json_lines() {
        let data =
            "g1,1,0,play,3d 3c, 7\r\ng1,2,1,pass,,8.25\r\ng2,0,2,play,4d,2026-11-01T12:00:00Z\n";
        let (out, got) = read(data, true);
        assert_eq!(got, (data.len(), 5, Stop::End));
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[0].text,
            "{\"game_id\":\"g1\",\"actions\":[{\"seat\":0,\"action\":\"play\",\"cards\":\"3d 3c\",\"ts\":7.0},{\"seat\":1,\"action\":\"pass\",\"ts\":8.25}]}"
        );
        assert_eq!((out[0].line, out[1].line), (2, 4));
        assert_eq!(out[0].rows, "g1,1,0,play,3d 3c, 7\ng1,2,1,pass,,8.25");
        // a carriage return cut between rows: joined anew; rows as they stand: borrowed
        assert!(matches!(out[0].rows, Cow::Owned(_)));
        assert!(matches!(out[1].rows, Cow::Borrowed(_)));
        assert!(out[1].text.ends_with("\"ts\":\"2026-11-01T12:00:00Z\"}]}"));
    }

    #[test]
    fn a_game_that_may_go_on_is_read_again_with_more() {
        let data = "g1,1,0,play,3d,1\ng2,1,1,play,4d,2\ng2,2,2,pass,,3";
        let (out, got) = read(data, false);
        assert_eq!(out.len(), 1);
        assert_eq!(got, (17, 3, Stop::More));
        let (out, got) = read(data, true);
        assert_eq!((out.len(), got.2), (2, Stop::End));
    }

    #[test]
    fn cells_in_quotes_read_as_csv_reader_reads_them() {
        let plain = "g1,1,0,play,3d 3c,7\ng1,2,1,pass,,8.5\n";
        let quoted = "\"g1\",1,0,\"play\",\"3d 3c\",7\n\"g1\",\"2\",1,\"pass\",\"\",8.5\n";
        let ((want, _), (got, stop)) = (read(plain, true), read(quoted, true));
        assert_eq!(stop, (quoted.len(), 4, Stop::End));
        assert_eq!((got.len(), &got[0].text), (1, &want[0].text));
        // the rows as they stand, said to have a cell in quotes (the Python reader writes
        // them anew for a reject); a game with none is not
        assert_eq!(got[0].rows, quoted.trim_end());
        assert!(got[0].quoted && !want[0].quoted);
        // a quoted row after plain ones
        let later = "g1,1,0,play,3d 3c,7\n\"g1\",2,1,\"pass\",,8.5\n";
        let (got, _) = read(later, true);
        assert_eq!((&*got[0].rows, got[0].quoted), (later.trim_end(), true));
        let comma = "g1,1,0,\"play\",\"3d,3c\",7\n";
        let (got, _) = read(comma, true);
        assert_eq!(got[0].rows, comma.trim_end());
        assert!(got[0].text.contains(r#""cards":"3d,3c""#));
    }

    #[test]
    fn what_python_reads_stops_at_its_game() {
        let good = "g1,1,0,play,3d,1\n";
        for bad in [
            "g2,1,0,play,\"3\"\"d\",1", // a quote doubled
            "g2,1,0,play,\"3d\"x,1",    // after its quote
            "g2,1,0,play,\"3d,1",       // not closed
            "g2,1,0,play,3d",           // a cell short
            "g2,2,0,play,3d,1",         // starts at seq 2
            "g2,1,+1,play,3d,1",        // a seat int() reads, not digits
            "g2,1,0,play,3d,1e3",       // a time float() reads
            "g2,1,0,play,3d,nan",       // and another
            "g2,1,0,pl\\ay,3d,1",       // a text to escape
            ",1,0,play,3d,1",           // no game id
            "nohead,1,0,play,3d,1",     // no games-CSV row handed over
            "g2,1,0,play,3d,1\u{0}",    // a NUL
            "g2,1,0,play,3d,1\rx",      // a carriage return inside
            "g2,0,0,play,3d,1\ng2,1,1,pass,,2\ng2,2,2,pass,,3\ng2,3,3,pass,,4", // too many rows
        ] {
            let data = format!("{good}{bad}\n");
            let (out, got) = read(&data, true);
            assert_eq!(out.len(), 1, "{bad}");
            assert_eq!(got, (good.len(), 3, Stop::Python), "{bad}");
        }
    }

    /// Excel's trailing empty columns (`,,,`, no name in the header): a row with nothing in
    /// them is read; a value in one (what `str.strip` leaves) makes its game Python's, from its
    /// first row (the reader's `E_CSV_COLUMN`), and a games row there stops the games rows.
    #[test]
    fn a_value_in_a_column_the_header_names_not_is_python_s() {
        let layout = Layout {
            width: 8,
            unnamed: vec![6, 7],
            ..layout()
        };
        let read = |data: &str| {
            let (mut out, mut seen) = (Vec::new(), HashSet::new());
            let head = |id: &str| {
                Some(Head {
                    prefix: format!("{{\"game_id\":\"{id}\""),
                    allowed: 1,
                })
            };
            let got = games(data.as_bytes(), true, 2, &layout, &mut seen, head, &mut out);
            (out.len(), got)
        };
        let good = "g1,1,0,play,3d,1, ,\u{3000}\ng1,2,1,pass,,2,,\n";
        assert_eq!(read(good), (1, (good.len(), 4, Stop::End)));
        for bad in ["g2,1,0,play,4d,3,x,", "g2,1,0,play,4d,3,,0"] {
            let data = format!("{good}g2,0,3,play,3c,3,,\n{bad}\n");
            assert_eq!(read(&data), (1, (good.len(), 4, Stop::Python)), "{bad}");
        }
        let columns = columns_of(&["ruleset", "game_id", ""]);
        let games_layout =
            GamesLayout::new(3, &columns, vec![], vec![], vec![2]).expect("a layout");
        let data = "hk,g1, \nhk,g2,x\nhk,g3,\n";
        let mut out = Vec::new();
        let got = game_rows(data.as_bytes(), true, 2, &games_layout, 40, &mut out);
        assert_eq!((got, out.len()), ((8, 3, Stop::Python), 1));
        assert!(GamesLayout::new(3, &columns, vec![], vec![], vec![3]).is_none());
    }

    /// The data's UTF-8 is checked once, up to its first byte that is not: the games before
    /// it are read (their texts as they are), the game of that byte is Python's; a first cell
    /// that is not UTF-8 tells no game's end, so the game before it is Python's too.
    #[test]
    fn bytes_that_are_not_utf8_are_python_s_from_their_game() {
        let good = "g1,1,0,play,3♦ 3♣,1\ng2,1,0,play,4d,2\n";
        for (bad, read_to, line) in [
            (
                &b"g3,1,0,play,4\xffd,3\ng4,1,0,play,5d,4\n"[..],
                good.len(),
                4,
            ),
            (&b"g\xff3,1,0,play,4d,3\n"[..], good.find("g2").unwrap(), 3),
        ] {
            let data = [good.as_bytes(), bad].concat();
            let (out, got) = read_bytes(&data, true);
            assert_eq!(got, (read_to, line, Stop::Python));
            assert!(out[0].text.contains("\"cards\":\"3♦ 3♣\""));
            assert_eq!(out.len(), usize::try_from(line).unwrap() - 2);
        }
    }

    #[test]
    fn a_game_with_a_bad_row_is_python_s_from_its_first() {
        let (out, got) = read("g1,1,0,play,3d,1\ng1,1,1,pass,,2\n", true);
        assert!(out.is_empty());
        assert_eq!(got, (0, 2, Stop::Python));
    }

    #[test]
    fn blank_lines_are_no_rows_and_a_game_seen_is_python_s() {
        let data =
            "\ng1,1,0,play,3d,1\n\r\n , ,,,,\ng1,2,1,pass,,2\n\ng2,1,0,play,4d,3\ng1,3,1,pass,,4\n";
        let (out, got) = read(data, true);
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].line, out[1].line), (3, 8));
        assert_eq!(out[0].rows, "g1,1,0,play,3d,1\ng1,2,1,pass,,2");
        assert!(matches!(out[0].rows, Cow::Owned(_))); // blank lines between its rows
        let g1_again = data.rfind("g1").unwrap();
        assert_eq!(got, (g1_again, 9, Stop::Python));
    }

    #[test]
    fn cells_are_stripped_as_python_strips_them() {
        let data = "\u{3000}g1\u{1f},\t1 ,0\u{a0},play ,3d,\u{85}1.5\n";
        let (out, got) = read(data, true);
        assert_eq!(got.2, Stop::End);
        assert!(out[0]
            .text
            .contains("{\"seat\":0,\"action\":\"play\",\"cards\":\"3d\",\"ts\":1.5}"));
        assert!(!python_space('♦') && python_space('\u{1c}') && python_space('\u{2028}'));
    }

    #[test]
    fn numbers() {
        assert_eq!(whole("007"), Some(7));
        assert_eq!(whole("-0"), Some(0));
        assert_eq!(whole("1_0"), None);
        assert_eq!(whole("١"), None);
        assert!(decimal("0.5") && decimal("-12") && decimal("1793534401.7"));
        assert!(!decimal("01") && !decimal("1.") && !decimal(".5") && !decimal("1e3"));
    }
}
