//! A streamed response's bytes, shared by serde_json's streaming parser and an element splitter.
//!
//! serde_json parses an [`io::Read`] one byte per call, several times slower than it parses a
//! slice; a slice, though, means the whole document in memory. A log response is one array of
//! small objects inside a small object. So the streaming parser reads the outer object from a
//! [`Source`] (through [`Shared`]), and inside the array the reader finds where each element
//! ends ([`Source::element`]) and parses just those bytes as a slice. An element that is not
//! whole in the buffer goes to the streaming parser instead: the splitter never reads a byte the
//! streaming parser would not have read, so a read that fails after broken JSON fails the same
//! way for both (the broken JSON is reported, not the read). Memory holds one buffer.

use std::cell::RefCell;
use std::io::{self, BufRead, BufReader, Read};

#[cfg(test)]
use serde::de::DeserializeOwned;

/// The buffer's size: bytes read at once.
pub(crate) const CHUNK: usize = 64 * 1024;

/// A buffered reader shared by the splitter and, through [`Shared`], the streaming parser, and
/// how the splitter left it.
pub(crate) struct Source<R> {
    reader: BufReader<R>,
    /// Whether the splitter stopped at an error: nothing more is read, as the streaming parser
    /// reads nothing after its first error but the byte it looks at.
    stopped: bool,
    /// Whether the error the splitter stopped at was a failed read.
    unreadable: bool,
}

impl<R: Read> Source<R> {
    pub(crate) fn new(reader: R) -> Self {
        Source {
            reader: BufReader::with_capacity(CHUNK, reader),
            stopped: false,
            unreadable: false,
        }
    }

    /// Whether the splitter stopped at a failed read: its error reaches the parser as its own,
    /// not as serde_json's I/O error.
    pub(crate) fn unreadable(&self) -> bool {
        self.unreadable
    }

    /// The unread bytes in the buffer.
    pub(crate) fn unread(&self) -> &[u8] {
        self.reader.buffer()
    }

    /// Marks the first `n` unread bytes as consumed.
    pub(crate) fn consume(&mut self, n: usize) {
        self.reader.consume(n);
    }

    /// Ends the reading at the splitter's error: from now on the source is at its end.
    pub(crate) fn stop(&mut self, unreadable: bool) {
        self.stopped = true;
        self.unreadable = unreadable;
    }

    /// Once every buffered byte is consumed, reads the next bytes; how many came (0 at the end).
    fn fill(&mut self) -> io::Result<usize> {
        debug_assert!(self.unread().is_empty(), "a fill never drops unread bytes");
        if self.stopped {
            return Ok(0);
        }
        loop {
            match self.reader.fill_buf() {
                Ok(bytes) => return Ok(bytes.len()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Consumes JSON whitespace; the byte after it, not consumed, or `None` at the end.
    pub(crate) fn peek_past_whitespace(&mut self) -> io::Result<Option<u8>> {
        loop {
            let unread = self.unread();
            match unread
                .iter()
                .position(|b| !matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
            {
                Some(i) => {
                    let next = unread[i];
                    self.consume(i);
                    return Ok(Some(next));
                }
                None => {
                    self.consume(unread.len());
                    if self.fill()? == 0 {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// The object or array that starts at the first unread byte, parsed from the buffer and
    /// consumed, when all of it is in the buffer; `None` when it is not. Reading on to find its
    /// end could read past broken JSON in the bytes at hand, where the streaming parser would
    /// have stopped; so an element not whole in the buffer is the streaming parser's to read.
    /// An element that fails to parse stays unread, so the streaming parser stops where this
    /// one did.
    #[cfg(test)]
    pub(crate) fn take_element<T: DeserializeOwned>(&mut self) -> Option<serde_json::Result<T>> {
        let len = self.element()?.len();
        let parsed = serde_json::from_slice(&self.unread()[..len]);
        if parsed.is_ok() {
            self.consume(len);
        }
        Some(parsed)
    }

    /// The bytes of the object or array that starts at the first unread byte, when all of it is
    /// in the buffer (see [`Source::take_element`]); nothing is consumed.
    pub(crate) fn element(&self) -> Option<&[u8]> {
        let unread = self.unread();
        Some(&unread[..end_of_value(unread)?])
    }
}

/// The [`Source`] as an [`io::Read`] for serde_json's streaming parser, which takes it byte by
/// byte (`io::Bytes`) and never reads ahead of the byte it is looking at: whatever it has not
/// asked for stays in the buffer for the splitter. That is serde_json's behaviour, not its
/// promise; `the_streaming_parser_reads_no_further_than_its_value` holds it to it.
pub(crate) struct Shared<'s, R>(pub(crate) &'s RefCell<Source<R>>);

impl<R: Read> Read for Shared<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut s = self.0.borrow_mut();
        if s.unread().is_empty() && s.fill()? == 0 {
            return Ok(0);
        }
        let n = out.len().min(s.unread().len());
        out[..n].copy_from_slice(&s.unread()[..n]);
        s.consume(n);
        Ok(n)
    }
}

/// The length of the object or array that starts at `bytes[0]`, if `bytes` holds its end.
/// Exact for valid JSON: brackets inside strings do not count, and an escaped quote does not end
/// one. On anything else it stops somewhere, and the parser rejects what it is given.
fn end_of_value(bytes: &[u8]) -> Option<usize> {
    let (mut at, mut depth) = (0, 0usize);
    while at < bytes.len() {
        match bytes[at] {
            b'"' => loop {
                // To the closing quote; an escape takes the byte after it along.
                let i = at + 1 + memchr::memchr2(b'"', b'\\', bytes.get(at + 1..)?)?;
                if bytes[i] == b'"' {
                    at = i;
                    break;
                }
                at = i + 1;
            },
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// A reader handing out at most `step` bytes per call, so values straddle reads; with `fails`,
/// it fails once its bytes are out instead of ending.
#[cfg(test)]
pub(crate) struct Steps<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) step: usize,
    pub(crate) fails: bool,
}

#[cfg(test)]
impl Read for Steps<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.bytes.is_empty() && self.fails {
            return Err(io::Error::other("the pipe broke"));
        }
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
        /// The scan ends exactly where the serialized value does, whatever follows, and finds
        /// no end in any shorter prefix.
        #[test]
        fn an_element_ends_where_its_json_ends(
            v in container(),
            pretty in any::<bool>(),
            tail in "[ ,\\]{}\"]{0,4}",
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            let input = format!("{text}{tail}");
            prop_assert_eq!(end_of_value(input.as_bytes()), Some(text.len()));
            for cut in 0..text.len() {
                prop_assert_eq!(end_of_value(&text.as_bytes()[..cut]), None, "{}", cut);
            }
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
            let source = RefCell::new(Source::new(Steps { bytes: input.as_bytes(), step, fails: false }));
            let mut de = serde_json::Deserializer::from_reader(Shared(&source));
            let parsed: Value = serde::Deserialize::deserialize(&mut de).unwrap();
            prop_assert_eq!(parsed, v);
            let mut rest = Vec::new();
            Shared(&source).read_to_end(&mut rest).unwrap();
            prop_assert_eq!(rest, b",\"rest\"".to_vec());
        }
    }

    #[test]
    fn only_an_element_whole_in_the_buffer_is_cut() {
        let long = format!("[\"{}\"]", "x".repeat(CHUNK));
        let mut source = Source::new(long.as_bytes());
        assert_eq!(source.peek_past_whitespace().unwrap(), Some(b'['));
        assert!(
            source.take_element::<Value>().is_none(),
            "the rest is the streaming parser's"
        );
        assert_eq!(
            source.unread().len(),
            CHUNK,
            "and nothing was read past the buffer"
        );
        let mut short = Source::new(&b"{\"a\":[1,2]} ,"[..]);
        short.peek_past_whitespace().unwrap();
        let parsed: Value = short.take_element().unwrap().unwrap();
        assert_eq!(parsed, serde_json::json!({"a": [1, 2]}));
        assert_eq!(
            short.unread(),
            b" ,",
            "the element is consumed, what follows is not"
        );
        let mut broken = Source::new(&b"{\"a\":1]} ,"[..]);
        broken.peek_past_whitespace().unwrap();
        assert!(broken.take_element::<Value>().unwrap().is_err());
        assert_eq!(
            broken.unread(),
            b"{\"a\":1]} ,",
            "a failed element stays unread"
        );
    }

    #[test]
    fn a_stopped_source_reads_nothing_more() {
        let source = RefCell::new(Source::new(&b"abc"[..]));
        source.borrow_mut().stop(false);
        let mut rest = Vec::new();
        Shared(&source).read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty());
    }
}
