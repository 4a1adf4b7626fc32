//! The lines of one range of a plain JSON Lines file, as an import worker reads them
//! (`pipeline.ingest.range_rows`): [`read_range`] reads the range with the checks of
//! `pipeline.ingest.range_items` (the file replaced, shrunk, or no longer cut at a newline),
//! and [`cut`] cuts it into lines as `pipeline.logs.jsonl.iter_jsonl_lines` reads them.
//!
//! [`cut`] hands over only the lines it is sure of: a blank line (skipped, its number
//! counted) and a non-blank line of valid UTF-8 within the cap, without the line 1 BOM
//! (its text, the trailing `\r` cut off, as the reader's `rstrip("\r\n")`). Any other line
//! (over the cap, not UTF-8, a BOM on line 1, or only Unicode spaces and other non-ASCII
//! characters, which Python's `str.strip` may call blank) is [`Line::Raw`]: its bytes go to
//! the Python reader, which writes its reject or reads it, so each of its rules lives there.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

/// A line of a range, as [`cut`] reads it.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// Only spaces (those of Python's `str.isspace` in ASCII): the reader skips it.
    Blank,
    /// A line the reader yields as this text.
    Text(&'a str),
    /// A line for the Python reader (its bytes, to its newline).
    Raw,
}

/// Python's `str.isspace` for an ASCII byte (`\t \n \v \f \r`, `\x1c`-`\x1f`, space).
#[inline]
fn is_py_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1c..=b' ')
}

/// The line starting at `pos` of `data`: the position of the next one (past its newline) and
/// the line. `first`: whether it is line 1 of its file (where the reader drops a BOM);
/// `max_line_bytes`: the reader's cap (a line longer without its newline is rejected). The
/// line's UTF-8 is checked by `simdutf8` (the same answer as `std::str::from_utf8`, a block
/// of bytes at a time: a line of card symbols, `3♦`, is mostly not ASCII, where std's check
/// goes a character at a time).
pub fn cut(data: &[u8], pos: usize, first: bool, max_line_bytes: usize) -> (usize, Line<'_>) {
    let rest = &data[pos..];
    let (end, next) = match memchr::memchr(b'\n', rest) {
        Some(i) => (pos + i, pos + i + 1),
        None => (data.len(), data.len()),
    };
    let content = &data[pos..end];
    if content.len() > max_line_bytes {
        return (next, Line::Raw);
    }
    let Ok(text) = simdutf8::basic::from_utf8(content) else {
        return (next, Line::Raw);
    };
    if first && text.starts_with('\u{feff}') {
        return (next, Line::Raw);
    }
    let text = text.trim_end_matches('\r');
    let bytes = text.as_bytes();
    let line = match bytes.iter().position(|&b| !is_py_space(b)) {
        None => Line::Blank,
        Some(i) if bytes[i] < 0x80 => Line::Text(text),
        // a non-ASCII character first: blank to Python if every character is a space
        Some(i) if bytes[i..].iter().any(|&b| b < 0x80 && !is_py_space(b)) => Line::Text(text),
        Some(_) => Line::Raw,
    };
    (next, line)
}

/// Why a range cannot be read as it was cut (`pipeline.ingest.range_items`' reasons), or a
/// read that failed (`Io`: the Python reader reads the range instead, and says what it finds).
#[derive(Debug)]
pub enum RangeError {
    /// The file cannot be opened (its `errno`).
    Open(i32),
    /// Another file has its name now (device and inode differ).
    Replaced,
    /// The byte before the range is not a newline any more.
    NotCutBefore,
    /// The file ends this many bytes before the range does.
    Shorter(usize),
    /// The range ended with a newline, and its last byte is not one any more.
    NotCutAfter,
    /// Reading failed.
    Io(io::Error),
}

impl From<io::Error> for RangeError {
    fn from(err: io::Error) -> RangeError {
        RangeError::Io(err)
    }
}

/// Where a range lies: `length` bytes from `offset` of the file `device`/`inode` (as the main
/// process cut it), ending with a newline or not (`ends_line`).
pub struct Span {
    pub offset: u64,
    pub length: usize,
    pub ends_line: bool,
    pub device: u64,
    pub inode: u64,
}

/// `path` opened to read from `offset`: still the file `device`/`inode`, and a newline before
/// `offset` (unless it is the file's start).
fn open_at(path: &Path, offset: u64, device: u64, inode: u64) -> Result<File, RangeError> {
    let file = File::open(path).map_err(|e| RangeError::Open(e.raw_os_error().unwrap_or(0)))?;
    let meta = file.metadata()?;
    if (meta.dev(), meta.ino()) != (device, inode) {
        return Err(RangeError::Replaced);
    }
    if offset > 0 {
        let mut before = [0u8; 1];
        let n = read_at(&file, &mut before, offset - 1)?;
        if n != 1 || before[0] != b'\n' {
            return Err(RangeError::NotCutBefore);
        }
    }
    Ok(file)
}

/// Read a range of `path` into `buf` (from its start; `buf` keeps its memory from range to
/// range and is not shortened: the range is `buf[..length]`), with `range_items`' checks in
/// its order.
pub fn read_range(path: &Path, span: &Span, buf: &mut Vec<u8>) -> Result<(), RangeError> {
    let file = open_at(path, span.offset, span.device, span.inode)?;
    if buf.len() < span.length {
        buf.resize(span.length, 0);
    }
    let mut done = 0;
    while done < span.length {
        let n = read_at(
            &file,
            &mut buf[done..span.length],
            span.offset + done as u64,
        )?;
        if n == 0 {
            break;
        }
        done += n;
    }
    if done < span.length {
        return Err(RangeError::Shorter(span.length - done));
    }
    if span.ends_line && (done == 0 || buf[done - 1] != b'\n') {
        return Err(RangeError::NotCutAfter);
    }
    Ok(())
}

/// How `pipeline.ingest._cut` cuts a plain file into runs of whole lines, and how long a run
/// the core holds: a run ends at the newline of its `games`-th non-blank line or at the first
/// end of a line (or of a run of blank lines) past `bytes` from its start, a run of blank lines
/// ending at a `scan`-byte block of the file (the blocks `pipeline.ingest._ranges` reads from
/// its start) as there; a run longer than `limit` is left to the Python reader.
pub struct RunRule {
    pub games: usize,
    pub bytes: usize,
    pub scan: usize,
    pub limit: usize,
}

/// A run of whole lines [`read_run`] read: its length, the newlines in it, whether it ends
/// with one, and whether the file was seen to end with it.
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub length: usize,
    pub newlines: usize,
    pub ends_line: bool,
    pub at_end: bool,
}

/// What [`read_run`] found from its offset: a run (in the buffer), the end of the file, or a
/// run longer than the rule's `limit` (not read whole).
#[derive(Debug, PartialEq, Eq)]
pub enum RunRead {
    Run(Run),
    End,
    Long,
}

/// `_cut`'s scan of a run: where it stands and what it has counted.
struct Cutter {
    items: usize,
    newlines: usize,
    at_start: bool,
}

impl Cutter {
    /// Scan `data[from..]` (a block of the file: a run of blank lines ends at its end), the
    /// run starting at `data[0]`: where the run ends, if it does in it.
    fn scan(&mut self, data: &[u8], from: usize, rule: &RunRule) -> Option<usize> {
        let mut i = from;
        while i < data.len() {
            let end = if self.at_start && data[i] == b'\n' {
                let blank = data[i..].iter().take_while(|&&b| b == b'\n').count();
                self.newlines += blank;
                i + blank
            } else {
                let Some(k) = memchr::memchr(b'\n', &data[i..]) else {
                    self.at_start = false;
                    return None;
                };
                self.newlines += 1;
                self.items += 1;
                self.at_start = true;
                i + k + 1
            };
            i = end;
            if self.items >= rule.games || i >= rule.bytes {
                return Some(i);
            }
        }
        None
    }
}

/// Read the run of whole lines of `path` from `start` (where a run starts: the file's start or
/// past a newline) into `buf` (from its start; the run is `buf[..length]`), cut where
/// `pipeline.ingest._cut` cuts it (`rule`), reading each byte of the file once: what one worker
/// does instead of reading the ranges the main thread cut (`pipeline.ingest.process_run`).
/// The checks of [`read_range`] that apply: the file replaced, not cut at a newline before.
pub fn read_run(
    path: &Path,
    start: u64,
    device: u64,
    inode: u64,
    rule: &RunRule,
    buf: &mut Vec<u8>,
) -> Result<RunRead, RangeError> {
    let file = open_at(path, start, device, inode)?;
    let scan = rule.scan.max(1);
    let mut cutter = Cutter {
        items: 0,
        newlines: 0,
        at_start: true,
    };
    let mut filled = 0;
    loop {
        let at = start + filled as u64;
        let want = scan - (at % scan as u64) as usize;
        if buf.len() < filled + want {
            buf.resize(filled + want, 0);
        }
        let mut got = 0;
        while got < want {
            let n = read_at(
                &file,
                &mut buf[filled + got..filled + want],
                at + got as u64,
            )?;
            if n == 0 {
                break;
            }
            got += n;
        }
        let ended = got < want;
        if let Some(length) = cutter.scan(&buf[..filled + got], filled, rule) {
            if length > rule.limit {
                return Ok(RunRead::Long);
            }
            return Ok(RunRead::Run(Run {
                length,
                newlines: cutter.newlines,
                ends_line: true,
                at_end: ended && length == filled + got,
            }));
        }
        filled += got;
        if ended {
            if filled == 0 {
                return Ok(RunRead::End);
            }
            if filled > rule.limit {
                return Ok(RunRead::Long);
            }
            return Ok(RunRead::Run(Run {
                length: filled,
                newlines: cutter.newlines,
                ends_line: cutter.at_start,
                at_end: true,
            }));
        }
        if filled > rule.limit {
            return Ok(RunRead::Long);
        }
    }
}

/// `read_at`, again when interrupted by a signal.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    loop {
        match file.read_at(buf, offset) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_run` cuts where `_cut` does (the Python test holds it to `_ranges` at random;
    /// these are cases by hand), from a run's start only, and says why not.
    #[test]
    fn runs_of_a_file() {
        let dir = std::env::temp_dir().join(format!("big2-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.jsonl");
        let rule = RunRule {
            games: 2,
            bytes: 100,
            scan: 8,
            limit: 1000,
        };
        let runs = |text: &[u8], rule: &RunRule, starts: &[u64]| {
            std::fs::write(&path, text).unwrap();
            let meta = std::fs::metadata(&path).unwrap();
            let mut buf = Vec::new();
            let read = |&start: &u64| {
                let got = read_run(&path, start, meta.dev(), meta.ino(), rule, &mut buf);
                match got {
                    Ok(RunRead::Run(r)) => {
                        format!("{} {} {} {}", r.length, r.newlines, r.ends_line, r.at_end)
                    }
                    other => format!("{other:?}"),
                }
            };
            starts.iter().map(read).collect::<Vec<_>>()
        };
        // two lines a run; the last without a newline, then a file ending with one
        let text = b"[1]\n[2]\n[3]\n\n\n\n[4]\n[5]";
        let got = runs(text, &rule, &[0, 8, 19, 22, 2]);
        assert_eq!(
            got[..3],
            ["8 2 true false", "11 5 true false", "3 0 false true"]
        );
        assert!(got[3].contains("NotCutBefore") && got[4].contains("NotCutBefore"));
        assert_eq!(runs(b"[1]\n", &rule, &[0, 4]), ["4 1 true true", "Ok(End)"]);
        // past `bytes` a run of blank lines ends at its 8-byte block (8), not at its end (10)
        let bytes = RunRule { bytes: 6, ..rule };
        let blank = b"[1]\n\n\n\n\n\n\n[2]\n";
        assert_eq!(
            runs(blank, &bytes, &[0, 8, 14]),
            ["8 5 true false", "6 3 true true", "Ok(End)"]
        );
        let short = RunRule { limit: 5, ..rule };
        assert_eq!(runs(text, &short, &[8]), ["Ok(Long)"]);
        let meta = std::fs::metadata(&path).unwrap();
        let other = read_run(&path, 0, meta.dev(), meta.ino() + 1, &rule, &mut Vec::new());
        assert!(matches!(other, Err(RangeError::Replaced)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn lines(data: &[u8], max: usize) -> Vec<(usize, Line<'_>)> {
        let (mut pos, mut out, mut no) = (0, Vec::new(), 1);
        while pos < data.len() {
            let (next, line) = cut(data, pos, no == 1, max);
            out.push((no, line));
            pos = next;
            no += 1;
        }
        out
    }

    #[test]
    fn the_shapes_of_a_line() {
        let data = "\u{feff}{}\n{\"a\":1}\r\n\n \t\r\n\u{3000}\n\u{3000}x\n\u{feff}[]\n\u{ff}\n[1234567]\n[1]";
        let mut data = data.as_bytes().to_vec();
        let at = data.len() - 15;
        data[at] = 0xff; // the line of U+00FF: not UTF-8 now
        let got = lines(&data, 8);
        assert_eq!(
            got,
            vec![
                (1, Line::Raw),
                (2, Line::Text("{\"a\":1}")),
                (3, Line::Blank),
                (4, Line::Blank),
                (5, Line::Raw),
                (6, Line::Text("\u{3000}x")),
                (7, Line::Text("\u{feff}[]")),
                (8, Line::Raw),
                (9, Line::Raw),
                (10, Line::Text("[1]")),
            ]
        );
        // the cap counts the line without its newline, a `\r` included
        assert_eq!(cut(b"[1234]\r\n", 0, false, 6).1, Line::Raw);
        assert_eq!(cut(b"[1234]\n", 0, false, 6).1, Line::Text("[1234]"));
        assert_eq!(cut(b"\x0b\x0c\x1c\x1f", 0, false, 6).1, Line::Blank);
        assert_eq!(cut(b"\x1b", 0, false, 6).1, Line::Text("\x1b"));
    }

    #[test]
    fn a_range_as_it_was_cut() {
        let dir = std::env::temp_dir().join(format!("big2-lines-{}", std::process::id()));
        std::fs::write(&dir, b"[1]\n[2]\n[3]").unwrap();
        let meta = std::fs::metadata(&dir).unwrap();
        let span = |offset, length, ends_line| Span {
            offset,
            length,
            ends_line,
            device: meta.dev(),
            inode: meta.ino(),
        };
        let mut buf = Vec::new();
        read_range(&dir, &span(4, 4, true), &mut buf).unwrap();
        assert_eq!(&buf[..4], b"[2]\n");
        read_range(&dir, &span(8, 3, false), &mut buf).unwrap();
        assert_eq!(&buf[..3], b"[3]");
        assert!(matches!(
            read_range(&dir, &span(3, 4, true), &mut buf),
            Err(RangeError::NotCutBefore)
        ));
        assert!(matches!(
            read_range(&dir, &span(8, 5, false), &mut buf),
            Err(RangeError::Shorter(2))
        ));
        assert!(matches!(
            read_range(&dir, &span(4, 3, true), &mut buf),
            Err(RangeError::NotCutAfter)
        ));
        let other = Span {
            inode: meta.ino() + 1,
            ..span(0, 4, true)
        };
        assert!(matches!(
            read_range(&dir, &other, &mut buf),
            Err(RangeError::Replaced)
        ));
        std::fs::remove_file(&dir).unwrap();
        assert!(matches!(
            read_range(&dir, &span(0, 4, true), &mut buf),
            Err(RangeError::Open(2))
        ));
    }
}
