//! A streamed response's bytes, shared by serde_json's streaming parser and an element splitter.
//!
//! serde_json parses an [`io::Read`] one byte per call, several times slower than it parses a
//! slice; a slice, though, means the whole document in memory. A log response is one array of
//! small objects inside a small object. So the streaming parser reads the outer object from a
//! [`Source`] (through [`Shared`]), and inside the array the reader finds where each element
//! ends ([`Source::element`]) and parses just those bytes as a slice. Memory holds one element,
//! not the document; an element too long to hold goes back to the streaming parser.

use std::cell::RefCell;
use std::io::{self, Read};

/// Bytes read at once, and the buffer's starting size.
const CHUNK: usize = 64 * 1024;

/// A reader with its own buffer: `buf[pos..end]` is read from `reader` and not yet consumed.
pub(crate) struct Source<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Whether a read failed: the response is then unreadable, whatever the parser made of it.
    failed: bool,
}

impl<R: Read> Source<R> {
    pub(crate) fn new(reader: R) -> Self {
        Source {
            reader,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            failed: false,
        }
    }

    /// Whether a read from the underlying reader failed.
    pub(crate) fn failed(&self) -> bool {
        self.failed
    }

    /// The unread bytes in the buffer.
    pub(crate) fn unread(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Marks the first `n` unread bytes as consumed.
    pub(crate) fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }

    /// Reads once more after the unread bytes, keeping them; how many bytes came (0 at the end).
    /// Unread bytes move to the front when the buffer is full, and the buffer grows only when
    /// they fill it all.
    fn fill(&mut self) -> io::Result<usize> {
        if self.pos == self.end {
            (self.pos, self.end) = (0, 0);
        } else if self.end == self.buf.len() {
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                (self.pos, self.end) = (0, self.end - self.pos);
            } else {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
    }

    /// Consumes JSON whitespace; the byte after it, not consumed, or `None` at the end.
    pub(crate) fn peek_past_whitespace(&mut self) -> io::Result<Option<u8>> {
        loop {
            match self
                .unread()
                .iter()
                .position(|b| !matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
            {
                Some(i) => {
                    self.pos += i;
                    return Ok(Some(self.buf[self.pos]));
                }
                None => {
                    self.pos = self.end;
                    if self.fill()? == 0 {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// The length of the object or array that starts at the first unread byte, once all of it
    /// is in the buffer; `None` when it is longer than `limit` bytes. At the end of the input
    /// the length is whatever is left, for the parser to report as cut short.
    pub(crate) fn element(&mut self, limit: usize) -> io::Result<Option<usize>> {
        let mut scan = Scan::default();
        loop {
            if let Some(len) = scan.end_of_value(self.unread()) {
                return Ok(Some(len));
            }
            if self.end - self.pos >= limit {
                return Ok(None);
            }
            if self.fill()? == 0 {
                return Ok(Some(self.end - self.pos));
            }
        }
    }
}

/// The [`Source`] as an [`io::Read`] for serde_json's streaming parser, which takes it byte by
/// byte and never reads ahead of the byte it is looking at: whatever it has not asked for stays
/// in the buffer for the splitter.
pub(crate) struct Shared<'s, R>(pub(crate) &'s RefCell<Source<R>>);

impl<R: Read> Read for Shared<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut s = self.0.borrow_mut();
        if s.pos == s.end && s.fill()? == 0 {
            return Ok(0);
        }
        let n = out.len().min(s.end - s.pos);
        out[..n].copy_from_slice(&s.buf[s.pos..s.pos + n]);
        s.pos += n;
        Ok(n)
    }
}

/// How far a scan for the end of a JSON object or array got: it can stop at the end of the
/// bytes in hand and go on when more come.
#[derive(Debug, Default)]
struct Scan {
    at: usize,
    depth: usize,
    in_string: bool,
}

impl Scan {
    /// The length of the object or array that starts at `bytes[0]`, if `bytes` holds its end.
    /// Exact for valid JSON: brackets inside strings do not count, and an escaped quote does not
    /// end one. On anything else it stops somewhere, and the parser rejects what it is given.
    fn end_of_value(&mut self, bytes: &[u8]) -> Option<usize> {
        while self.at < bytes.len() {
            if self.in_string {
                match memchr::memchr2(b'"', b'\\', &bytes[self.at..]) {
                    None => self.at = bytes.len(),
                    Some(i) if bytes[self.at + i] == b'"' => {
                        self.at += i + 1;
                        self.in_string = false;
                    }
                    // An escape takes the next byte with it; wait for that byte if it has not come.
                    Some(i) if self.at + i + 1 == bytes.len() => {
                        self.at += i;
                        return None;
                    }
                    Some(i) => self.at += i + 2,
                }
                continue;
            }
            match bytes[self.at] {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(self.at + 1);
                    }
                }
                _ => {}
            }
            self.at += 1;
        }
        None
    }
}

/// A reader handing out at most `step` bytes per call, so values straddle reads.
#[cfg(test)]
pub(crate) struct Steps<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) step: usize,
}

#[cfg(test)]
impl Read for Steps<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.step.min(out.len()).min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Any JSON value; strings drawn to hold the bytes the scan must see past.
    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[\\[\\]{}\"\\\\/a-z\u{0}-\u{1f}é中]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[\\[\\]{}\"\\\\a-z]{0,6}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    fn container() -> impl Strategy<Value = Value> {
        json().prop_filter("an object or array", |v| v.is_object() || v.is_array())
    }

    proptest! {
        /// However the bytes arrive, the scan ends exactly where the serialized value does, and
        /// what follows stays unread.
        #[test]
        fn an_element_ends_where_its_json_ends(
            v in container(),
            pretty in any::<bool>(),
            step in 1usize..64,
            tail in "[ ,\\]{}\"]{0,4}",
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            let input = format!("{text}{tail}");
            let mut source = Source::new(Steps { bytes: input.as_bytes(), step });
            prop_assert_eq!(source.peek_past_whitespace().unwrap(), Some(text.as_bytes()[0]));
            let len = source.element(usize::MAX).unwrap();
            prop_assert_eq!(len, Some(text.len()));
            prop_assert_eq!(source.unread()[..text.len()].to_vec(), text.into_bytes());
        }

        /// The streaming parser reading through [`Shared`] takes exactly one value's bytes: the
        /// rest is still unread after it.
        #[test]
        fn the_streaming_parser_reads_no_further_than_its_value(
            v in container(),
            step in 1usize..64,
        ) {
            let text = serde_json::to_string(&v).unwrap();
            let input = format!("{text},\"rest\"");
            let source = RefCell::new(Source::new(Steps { bytes: input.as_bytes(), step }));
            let mut de = serde_json::Deserializer::from_reader(Shared(&source));
            let parsed: Value = serde::Deserialize::deserialize(&mut de).unwrap();
            prop_assert_eq!(parsed, v);
            let mut rest = Vec::new();
            Shared(&source).read_to_end(&mut rest).unwrap();
            prop_assert_eq!(rest, b",\"rest\"".to_vec());
        }
    }

    #[test]
    fn a_long_element_is_refused_at_the_limit_and_left_unread() {
        let long = format!("[\"{}\"]", "x".repeat(3 * CHUNK));
        let mut source = Source::new(long.as_bytes());
        assert_eq!(source.element(CHUNK).unwrap(), None);
        assert!(source.unread().len() >= CHUNK);
        assert_eq!(source.element(usize::MAX).unwrap(), Some(long.len()));
    }

    #[test]
    fn an_unclosed_element_is_handed_over_whole_at_the_end() {
        let mut source = Source::new(&b"{\"a\":[1,2"[..]);
        assert_eq!(source.element(usize::MAX).unwrap(), Some(9));
        let mut escaped = Source::new(&b"[\"\\"[..]);
        assert_eq!(escaped.element(usize::MAX).unwrap(), Some(3));
    }
}
