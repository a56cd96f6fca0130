//! A streamed response's bytes, shared by serde_json's streaming parser and an element splitter.
//!
//! serde_json parses an [`io::Read`] one byte per call, several times slower than it parses a
//! slice; a slice, though, means the whole document in memory. A log response is one array of
//! small objects inside a small object. So the streaming parser reads the outer object from a
//! [`Source`] (through [`Shared`]), and inside the array the reader finds where each element
//! ends ([`Source::element`]) and parses just those bytes as a slice. Memory holds one buffer.
//!
//! The source reads from its reader exactly as a `BufReader` of [`CHUNK`] bytes under the
//! streaming parser alone would: a read of `CHUNK` bytes each time the parser needs a byte the
//! reads so far did not give. A reader that counts or checks what it gives (the boundary's cap
//! and UTF-8 check) so sees the same calls whichever parser asks. An element the end of the
//! buffered bytes cuts is read on into the buffer (its bytes moved to the front, the buffer
//! grown up to [`MAX_ELEMENT`] past them) only when its bytes so far are an element's
//! beginning, which the streaming parser would read on from as well. A read that fails then is
//! held, and reported once the bytes before it are consumed, where the reader reported it.
//! Anything else (an element broken before its end, cut by the input's end or larger than
//! [`MAX_ELEMENT`]) is the streaming parser's to read.

use std::cell::RefCell;
use std::io::{self, Read};

#[cfg(test)]
use serde::de::DeserializeOwned;

/// Bytes read at once.
pub(crate) const CHUNK: usize = 64 * 1024;

/// The largest element the buffer grows to hold whole; a larger one is streamed.
pub(crate) const MAX_ELEMENT: usize = 1024 * 1024;

/// A buffered reader shared by the splitter and, through [`Shared`], the streaming parser, and
/// how the splitter left it.
pub(crate) struct Source<R> {
    reader: R,
    /// Read bytes; those from `start` to `end` are unread.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// A read that failed after the buffered bytes: reported once they are consumed.
    failed: Option<io::Error>,
    /// Whether the splitter stopped at an error: nothing more is read, as the streaming parser
    /// reads nothing after its first error but the byte it looks at.
    stopped: bool,
    /// Whether the error the splitter stopped at was a failed read.
    unreadable: bool,
}

impl<R: Read> Source<R> {
    pub(crate) fn new(reader: R) -> Self {
        Source {
            reader,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            failed: None,
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
        &self.buf[self.start..self.end]
    }

    /// Marks the first `n` unread bytes as consumed.
    pub(crate) fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// Ends the reading at the splitter's error: from now on the source is at its end.
    pub(crate) fn stop(&mut self, unreadable: bool) {
        self.stopped = true;
        self.unreadable = unreadable;
    }

    /// Reads up to [`CHUNK`] bytes after the unread ones, which the buffer has room for; how
    /// many came (0 at the end). A failed read is returned, or with `hold`, kept for
    /// [`Source::fill`] to report.
    fn read_more(&mut self, hold: bool) -> io::Result<usize> {
        if self.stopped {
            return Ok(0);
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let room = self.end..self.end + CHUNK;
        loop {
            match self.reader.read(&mut self.buf[room.clone()]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if hold => {
                    self.failed = Some(e);
                    return Ok(0);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Once every buffered byte is consumed, reads the next bytes; how many came (0 at the end).
    fn fill(&mut self) -> io::Result<usize> {
        debug_assert!(self.unread().is_empty(), "a fill never drops unread bytes");
        (self.start, self.end) = (0, 0);
        self.read_more(false)
    }

    /// Moves the unread bytes to the buffer's front, makes room for a read after them and
    /// reads; whether more bytes came. Not once they reach [`MAX_ELEMENT`], so the buffer
    /// holds less than `MAX_ELEMENT + CHUNK`.
    fn read_on(&mut self) -> bool {
        if self.stopped || self.failed.is_some() || self.unread().len() >= MAX_ELEMENT {
            return false;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            (self.start, self.end) = (0, self.end - self.start);
        }
        if self.buf.len() < self.end + CHUNK {
            self.buf.resize(self.end + CHUNK, 0);
        }
        matches!(self.read_more(true), Ok(1..))
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
    /// consumed, when [`Source::element`] finds all of it (`T`'s beginnings read on). An
    /// element that fails to parse stays unread, so the streaming parser stops where this one
    /// did.
    #[cfg(test)]
    pub(crate) fn take_element<T: DeserializeOwned>(&mut self) -> Option<serde_json::Result<T>> {
        let begins = |bytes: &[u8]| serde_json::from_slice::<T>(bytes).is_err_and(|e| e.is_eof());
        let len = self.element(begins)?.len();
        let parsed = serde_json::from_slice(&self.unread()[..len]);
        if parsed.is_ok() {
            self.consume(len);
        }
        Some(parsed)
    }

    /// The bytes of the object or array that starts at the first unread byte, once the buffer
    /// holds all of it, read on while `begins` says the bytes so far are an element's
    /// beginning (see the module documentation); `None` when it is not whole by then. Nothing
    /// is consumed.
    pub(crate) fn element(&mut self, begins: impl Fn(&[u8]) -> bool) -> Option<&[u8]> {
        let mut scan = Scan::default();
        let len = loop {
            if let Some(len) = scan.end(self.unread()) {
                break len;
            }
            if !begins(self.unread()) || !self.read_on() {
                return None;
            }
        };
        Some(&self.unread()[..len])
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
#[cfg(test)]
fn end_of_value(bytes: &[u8]) -> Option<usize> {
    Scan::default().end(bytes)
}

/// How far [`Scan::end`] got through an element's bytes: each time more of them come, the scan
/// goes on from there instead of from the element's first byte.
#[derive(Clone, Copy, Default)]
struct Scan {
    /// The first byte not scanned yet.
    at: usize,
    /// Brackets open at `at`.
    depth: usize,
    /// Whether `at` is inside a string.
    in_string: bool,
}

impl Scan {
    /// The element's length, if `bytes` holds its end. `bytes` are the bytes of the last call
    /// and maybe more after them.
    #[inline]
    fn end(&mut self, bytes: &[u8]) -> Option<usize> {
        // In locals while it runs (the loop is the reader's hottest), kept when it stops.
        let Scan {
            mut at,
            mut depth,
            mut in_string,
        } = *self;
        let stop = |scan: &mut Scan, at, depth, in_string| {
            *scan = Scan {
                at,
                depth,
                in_string,
            };
            None
        };
        loop {
            if in_string {
                // To the closing quote; an escape takes the byte after it along, so an escape
                // at the end is scanned again when that byte has come.
                loop {
                    let Some(i) = memchr::memchr2(b'"', b'\\', &bytes[at..]) else {
                        return stop(self, bytes.len(), depth, true);
                    };
                    let i = at + i;
                    if bytes[i] == b'"' {
                        at = i;
                        break;
                    }
                    if i + 1 == bytes.len() {
                        return stop(self, i, depth, true);
                    }
                    at = i + 2;
                }
                in_string = false;
            } else if at == bytes.len() {
                return stop(self, at, depth, false);
            } else {
                match bytes[at] {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
            }
            at += 1;
        }
    }
}

/// A reader that notes every call made of it: how many bytes were asked for, how many came
/// (`None` for a failed read).
#[cfg(test)]
pub(crate) struct Recorded<'a, R> {
    pub(crate) inner: R,
    pub(crate) calls: &'a RefCell<Vec<(usize, Option<usize>)>>,
}

#[cfg(test)]
impl<R: Read> Read for Recorded<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let got = self.inner.read(out);
        let n = got.as_ref().ok().copied();
        self.calls.borrow_mut().push((out.len(), n));
        got
    }
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

        /// A scan resumed as more bytes come ends where a scan of all of them does.
        #[test]
        fn a_resumed_scan_ends_where_a_whole_one_does(
            v in container(),
            tail in "[ ,\\]{}\"]{0,4}",
            cuts in prop::collection::vec(0usize..400, 0..6),
        ) {
            let input = format!("{}{tail}", serde_json::to_string(&v).unwrap());
            let bytes = input.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut scan = Scan::default();
            let mut found = None;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                found = scan.end(&bytes[..cut]);
                if found.is_some() {
                    prop_assert_eq!(found, end_of_value(&bytes[..cut]), "cut at {}", cut);
                    break;
                }
            }
            prop_assert_eq!(found, end_of_value(bytes));
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

    /// An element the buffer's end cuts is read on until it is whole, also when it is larger
    /// than the first buffer; one larger than [`MAX_ELEMENT`] is left to the streaming parser,
    /// with nothing read past the grown buffer.
    #[test]
    fn an_element_the_buffer_cuts_is_read_on_up_to_its_bound() {
        let element = |n: usize| format!("{{\"m\":\"{}\"}}", "x".repeat(n));
        let one = element(100);
        let input = format!("[{}]", vec![one.as_str(); 2 * CHUNK / one.len()].join(","));
        let mut source = Source::new(input.as_bytes());
        let mut n = 0;
        loop {
            match source.peek_past_whitespace().unwrap() {
                Some(b'[' | b',') => source.consume(1),
                Some(b']') => break,
                other => panic!("{other:?}"),
            }
            let parsed: Value = source.take_element().unwrap().unwrap();
            assert_eq!(parsed, serde_json::json!({"m": "x".repeat(100)}));
            n += 1;
        }
        assert_eq!(n, 2 * CHUNK / one.len(), "every element, the cut ones too");
        for (len, whole) in [(3 * CHUNK, true), (MAX_ELEMENT + CHUNK, false)] {
            let big = format!("[{}]", element(len));
            let mut source = Source::new(big.as_bytes());
            source.peek_past_whitespace().unwrap();
            source.consume(1);
            assert_eq!(source.take_element::<Value>().is_some(), whole, "{len}");
            if !whole {
                let held = source.unread().len();
                assert!(
                    (MAX_ELEMENT..MAX_ELEMENT + CHUNK).contains(&held),
                    "read to the bound, no further: {held}"
                );
            }
        }
    }

    /// A read that fails while an element is read on is reported where the reader reported it:
    /// after every byte it gave before, to whichever parser reads them.
    #[test]
    fn a_read_that_fails_while_reading_on_is_reported_after_the_bytes_before_it() {
        let input = format!("{{\"m\":\"{}", "x".repeat(CHUNK));
        for step in [1, 1000, CHUNK] {
            let source = RefCell::new(Source::new(Steps {
                bytes: input.as_bytes(),
                step,
                fails: true,
            }));
            assert_eq!(
                source.borrow_mut().peek_past_whitespace().unwrap(),
                Some(b'{')
            );
            assert!(
                source.borrow_mut().take_element::<Value>().is_none(),
                "{step}"
            );
            let mut got = Vec::new();
            let err = Shared(&source).read_to_end(&mut got).unwrap_err();
            assert_eq!(err.to_string(), "the pipe broke");
            assert_eq!(got, input.as_bytes(), "{step}");
        }
    }

    /// An element broken before the buffered bytes end is not read on: the streaming parser
    /// would stop at the break, and a reader that counts its bytes must see no read past it.
    #[test]
    fn an_element_broken_before_the_cut_is_not_read_on() {
        let input = format!("{{\"m\":1x \"{}\"}}", "y".repeat(CHUNK));
        let mut source = Source::new(input.as_bytes());
        assert_eq!(source.peek_past_whitespace().unwrap(), Some(b'{'));
        assert!(source.take_element::<Value>().is_none());
        assert_eq!(
            source.unread().len(),
            CHUNK,
            "nothing read past the first chunk"
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
