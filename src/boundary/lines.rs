//! Reading a ledger a line at a time, with a bound on a line's length (SPEC §6).
//!
//! The ledger can hold millions of records, and its path is the operator's: a file that never
//! ends a line (`/dev/zero`, a damaged file, a binary put there by mistake) must be an error
//! after [`MAX_LINE_BYTES`], not an allocation of its size. Both the appender's scan and `ledger
//! verify` read through this one reader, so they agree on what a line, a blank line and a torn
//! last line are, and both keep one line in memory whatever the size of the file.

use std::io::{self, BufRead};

/// The longest line a ledger may hold (its newline not counted): 1 MiB. A record is a few
/// hundred bytes; anything longer is damage, never a record.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line as read.
#[derive(Debug)]
pub(crate) struct Line<'a> {
    /// Its 1-based number in the file.
    pub number: u64,
    /// The offset of its first byte in the file.
    pub start: u64,
    /// Its bytes, without the newline.
    pub bytes: &'a [u8],
    /// Whether a newline ended it (false only for the bytes after the last newline: a torn line).
    pub complete: bool,
}

impl Line<'_> {
    /// Whether the line holds only whitespace (skipped by every reader of the ledger).
    pub fn is_blank(&self) -> bool {
        self.bytes.iter().all(u8::is_ascii_whitespace)
    }

    /// The offset just past the line and its newline.
    pub fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64 + u64::from(self.complete)
    }
}

/// Why a line could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LineError {
    /// The line on this number runs past [`MAX_LINE_BYTES`].
    #[error("line {0} is longer than 1 MiB")]
    TooLong(u64),
    /// The operating system's reason.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// A bounded line reader over any buffered source, counting lines and bytes as it goes.
pub(crate) struct LineReader<R> {
    inner: R,
    line: Vec<u8>,
    offset: u64,
    number: u64,
}

impl<R: BufRead> LineReader<R> {
    /// Reads `inner` from its start, which is byte `offset` and line `number + 1` of the file.
    pub fn new(inner: R, offset: u64, number: u64) -> Self {
        Self {
            inner,
            line: Vec::new(),
            offset,
            number,
        }
    }

    /// The next line, blank or not; `None` at the end of the file.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, LineError> {
        self.line.clear();
        let start = self.offset;
        let mut complete = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if available.is_empty() {
                break;
            }
            let (take, used, newline) = match memchr::memchr(b'\n', available) {
                Some(i) => (i, i + 1, true),
                None => (available.len(), available.len(), false),
            };
            if self.line.len() + take > MAX_LINE_BYTES {
                return Err(LineError::TooLong(self.number + 1));
            }
            self.line.extend_from_slice(&available[..take]);
            self.inner.consume(used);
            self.offset += used as u64;
            if newline {
                complete = true;
                break;
            }
        }
        if !complete && self.line.is_empty() {
            return Ok(None);
        }
        self.number += 1;
        Ok(Some(Line {
            number: self.number,
            start,
            bytes: &self.line,
            complete,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8]) -> Vec<(u64, u64, String, bool)> {
        let mut r = LineReader::new(io::BufReader::with_capacity(3, bytes), 0, 0);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            let text = String::from_utf8(l.bytes.to_vec()).unwrap();
            out.push((l.number, l.start, text, l.complete));
        }
        assert_eq!(r.offset, bytes.len() as u64);
        out
    }

    #[test]
    fn lines_numbers_offsets_and_the_torn_tail() {
        assert_eq!(
            read_all(b"ab\n\ncde\nf"),
            [
                (1, 0, "ab".into(), true),
                (2, 3, String::new(), true),
                (3, 4, "cde".into(), true),
                (4, 8, "f".into(), false)
            ]
        );
        assert!(read_all(b"").is_empty());
        assert_eq!(read_all(b"x\n").len(), 1);
    }

    #[test]
    fn a_line_past_the_bound_is_an_error_naming_it_not_an_allocation() {
        let mut bytes = b"ok\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'0', MAX_LINE_BYTES + 1));
        let mut r = LineReader::new(&bytes[..], 0, 0);
        assert!(r.next_line().unwrap().is_some());
        assert!(matches!(r.next_line(), Err(LineError::TooLong(2))));
        // Exactly at the bound is still a line.
        let at = vec![b'1'; MAX_LINE_BYTES];
        let mut r = LineReader::new(&at[..], 0, 0);
        assert_eq!(r.next_line().unwrap().unwrap().bytes.len(), MAX_LINE_BYTES);
        // An endless source stops at the bound.
        let mut r = LineReader::new(io::BufReader::new(io::repeat(0)), 0, 0);
        assert!(matches!(r.next_line(), Err(LineError::TooLong(1))));
    }
}
