//! The legacy Mock log response (`QueryLogsOutput`), read as a stream.
//!
//! `{"success":true,"region":…,"log_topic":…,"query":…,"logs":[{"timestamp","level","service",
//! "instance","message","metrics"}],"total":N,"message":…}`. The `logs` array is handed to a sink
//! one entry at a time, so memory does not grow with the number of entries however large the
//! response. Only `timestamp`, `level`, `service` and `message` are read into strings; `instance`
//! and `metrics` are skipped by the parser and never exist as values in this process.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::io::Read;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::source::{CHUNK, Shared, Source};
use super::text::{Object, TextRef};

/// A timestamp as the legacy side wrote it; parsed later with the run's time zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawStamp {
    /// Text: `yyyy-MM-dd HH:mm:ss` (no offset) or RFC 3339.
    Text(String),
    /// Epoch milliseconds.
    Millis(i64),
    /// Missing or of another type.
    Missing,
}

/// One log entry, reduced to the fields a projector may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// When it was logged.
    pub timestamp: RawStamp,
    /// Its level, as written.
    pub level: Option<String>,
    /// The service that logged it.
    pub service: Option<String>,
    /// The raw message (redacted by the projector before anything else).
    pub message: Option<String>,
}

/// A [`LogEntry`] as the reader parsed it: its strings borrowed from the response's bytes where
/// they hold no escape, so that the projection copies them into its batches without an
/// allocation per string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryRef<'a> {
    pub(crate) timestamp: StampRef<'a>,
    pub(crate) level: Option<Cow<'a, str>>,
    pub(crate) service: Option<Cow<'a, str>>,
    pub(crate) message: Option<Cow<'a, str>>,
}

/// A [`RawStamp`], its text borrowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StampRef<'a> {
    Text(Cow<'a, str>),
    Millis(i64),
    Missing,
}

impl EntryRef<'_> {
    /// The entry with its own strings.
    pub(crate) fn into_owned(self) -> LogEntry {
        LogEntry {
            timestamp: match self.timestamp {
                StampRef::Text(text) => RawStamp::Text(text.into_owned()),
                StampRef::Millis(ms) => RawStamp::Millis(ms),
                StampRef::Missing => RawStamp::Missing,
            },
            level: self.level.map(Cow::into_owned),
            service: self.service.map(Cow::into_owned),
            message: self.message.map(Cow::into_owned),
        }
    }
}

impl LogEntry {
    /// The entry, borrowed.
    pub(crate) fn as_ref(&self) -> EntryRef<'_> {
        EntryRef {
            timestamp: match &self.timestamp {
                RawStamp::Text(text) => StampRef::Text(Cow::Borrowed(text)),
                RawStamp::Millis(ms) => StampRef::Millis(*ms),
                RawStamp::Missing => StampRef::Missing,
            },
            level: self.level.as_deref().map(Cow::Borrowed),
            service: self.service.as_deref().map(Cow::Borrowed),
            message: self.message.as_deref().map(Cow::Borrowed),
        }
    }
}

impl<'de> Deserialize<'de> for LogEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        EntryRef::deserialize(d).map(EntryRef::into_owned)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for EntryRef<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Fields<'a> {
            #[serde(default, borrow)]
            timestamp: StampField<'a>,
            #[serde(default, borrow)]
            level: TextRef<'a>,
            #[serde(default, borrow)]
            service: TextRef<'a>,
            #[serde(default, borrow)]
            message: TextRef<'a>,
        }
        let Object(f) = Object::<Fields>::deserialize(d)?;
        Ok(EntryRef {
            timestamp: f.timestamp.0,
            level: f.level.0,
            service: f.service.0,
            message: f.message.0,
        })
    }
}

struct StampField<'a>(StampRef<'a>);

impl Default for StampField<'_> {
    fn default() -> Self {
        StampField(StampRef::Missing)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for StampField<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StampRef<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a timestamp")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<StampRef<'de>, E> {
                Ok(StampRef::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StampRef<'de>, E> {
                Ok(StampRef::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<StampRef<'de>, E> {
                Ok(StampRef::Millis(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<StampRef<'de>, E> {
                Ok(i64::try_from(v).map_or(StampRef::Missing, StampRef::Millis))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<StampRef<'de>, E> {
                Ok(StampRef::Missing)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<StampRef<'de>, E> {
                Ok(StampRef::Missing)
            }
            fn visit_unit<E: de::Error>(self) -> Result<StampRef<'de>, E> {
                Ok(StampRef::Missing)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StampRef<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(StampRef::Missing)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StampRef<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(StampRef::Missing)
            }
        }
        d.deserialize_any(V).map(StampField)
    }
}

/// What the response said about itself, besides its entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogsSummary {
    /// The `success` flag.
    pub success: Option<bool>,
    /// The legacy `total`, when it is a non-negative integer.
    pub total: Option<u64>,
    /// Whether a `logs` array was present.
    pub has_logs: bool,
    /// Entries handed to the sink.
    pub entries: u64,
}

/// Why a log response could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFailure {
    /// Not JSON, or not the Mock shape, or ambiguous (duplicate keys).
    Malformed,
    /// The legacy tool reported `success:false`.
    Failure,
    /// The bytes could not be read (an I/O error, a directory): not a statement about the shape.
    Unreadable,
}

/// Streams a Mock log response, handing each entry to `sink`.
pub fn read<R: Read>(
    reader: R,
    sink: &mut dyn FnMut(LogEntry),
) -> Result<LogsSummary, ReadFailure> {
    read_with(reader, &mut |e| sink(e.into_owned()), true)
}

/// [`read`], each entry handed over as parsed, its strings borrowed where they can be.
pub(crate) fn read_entries<R: Read>(
    reader: R,
    sink: &mut dyn for<'e> FnMut(EntryRef<'e>),
) -> Result<LogsSummary, ReadFailure> {
    read_with(reader, sink, true)
}

/// [`read`] with every entry parsed by serde_json's streaming parser instead of being cut out of
/// the buffer and parsed as a slice. The two must agree on every input; this one is the oracle
/// the tests and the fuzz target hold [`read`] to.
#[doc(hidden)]
pub fn read_unsplit<R: Read>(
    reader: R,
    sink: &mut dyn FnMut(LogEntry),
) -> Result<LogsSummary, ReadFailure> {
    read_with(reader, &mut |e| sink(e.into_owned()), false)
}

fn read_with<R: Read>(
    reader: R,
    sink: &mut dyn for<'e> FnMut(EntryRef<'e>),
    split: bool,
) -> Result<LogsSummary, ReadFailure> {
    let reader = without_bom(reader).map_err(|_| ReadFailure::Unreadable)?;
    let parsed = if split {
        let source = RefCell::new(Source::new(reader));
        let mut de = serde_json::Deserializer::from_reader(Shared(&source));
        let top = TopVisitor {
            sink,
            source: Some(&source),
        };
        let parsed = de.deserialize_map(top).and_then(|s| de.end().map(|()| s));
        if parsed.is_err() && source.borrow().unreadable() {
            return Err(ReadFailure::Unreadable);
        }
        parsed
    } else {
        // The oracle reads as this reader did before it split: no shared buffer.
        let buffered = std::io::BufReader::with_capacity(CHUNK, reader);
        let mut de = serde_json::Deserializer::from_reader(buffered);
        let top = TopVisitor::<R> { sink, source: None };
        de.deserialize_map(top).and_then(|s| de.end().map(|()| s))
    };
    let summary = parsed.map_err(|e| {
        if e.is_io() {
            ReadFailure::Unreadable
        } else {
            ReadFailure::Malformed
        }
    })?;
    // Without its `logs` array a response is not the Mock shape (a RAG response handed to `logs`
    // by mistake, say): say so rather than report "no evidence".
    match summary.success {
        Some(false) => Err(ReadFailure::Failure),
        _ if summary.has_logs => Ok(summary),
        _ => Err(ReadFailure::Malformed),
    }
}

/// Where a response that [`read`] found malformed broke, as (line, column), for the operator's
/// diagnostic: the same bytes parsed again as one stream (the [`read_unsplit`] oracle, which
/// accepts and refuses exactly what [`read`] does), so the position is the document's own and
/// not one inside an entry cut out of a buffer. `None` when the JSON itself is well-formed and
/// only the shape is wrong (no `logs` array), or the bytes could not be read again.
pub fn malformed_at<R: Read>(reader: R) -> Option<(u64, u64)> {
    let reader = without_bom(reader).ok()?;
    let buffered = std::io::BufReader::with_capacity(CHUNK, reader);
    let mut de = serde_json::Deserializer::from_reader(buffered);
    let mut sink = |_: EntryRef<'_>| {};
    let top = TopVisitor::<R> {
        sink: &mut sink,
        source: None,
    };
    match de.deserialize_map(top).and_then(|s| de.end().map(|()| s)) {
        Err(e) if !e.is_io() => Some((e.line() as u64, e.column() as u64)),
        _ => None,
    }
}

/// Drops one leading UTF-8 byte-order mark, as [`super::strip_bom`] does for the RAG reader.
/// The first three bytes are gathered across reads, so a mark split between reads is still seen.
fn without_bom<R: Read>(mut reader: R) -> std::io::Result<impl Read> {
    let mut head = [0u8; 3];
    let mut n = 0;
    while n < head.len() {
        match reader.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let keep = if head[..n] == *b"\xEF\xBB\xBF" { 0 } else { n };
    Ok(std::io::Cursor::new(head).take(keep as u64).chain(reader))
}

struct TopVisitor<'s, R> {
    sink: &'s mut dyn for<'e> FnMut(EntryRef<'e>),
    /// Where the entries are cut from, or `None` to parse them as a stream.
    source: Option<&'s RefCell<Source<R>>>,
}

impl<'de, R: Read> Visitor<'de> for TopVisitor<'_, R> {
    type Value = LogsSummary;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Mock QueryLogsOutput object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LogsSummary, A::Error> {
        let mut summary = LogsSummary::default();
        let (mut seen_success, mut seen_total) = (false, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let once = |seen: &mut bool| {
                if std::mem::replace(seen, true) {
                    Err(de::Error::custom("duplicate field"))
                } else {
                    Ok(())
                }
            };
            match key.as_ref() {
                "success" => {
                    once(&mut seen_success)?;
                    summary.success = map.next_value::<Option<bool>>()?;
                }
                "total" => {
                    once(&mut seen_total)?;
                    summary.total = map.next_value::<Count>()?.0;
                }
                "logs" => {
                    once(&mut summary.has_logs)?;
                    summary.entries = map.next_value_seed(Entries {
                        sink: &mut *self.sink,
                        source: self.source,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(summary)
    }
}

struct Entries<'s, R> {
    sink: &'s mut dyn for<'e> FnMut(EntryRef<'e>),
    source: Option<&'s RefCell<Source<R>>>,
}

impl<'de, R: Read> DeserializeSeed<'de> for Entries<'_, R> {
    type Value = u64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, R: Read> Visitor<'de> for Entries<'_, R> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of log entries")
    }

    fn visit_unit<E: de::Error>(self) -> Result<u64, E> {
        Ok(0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        if let Some(source) = self.source {
            return split_entries(source, self.sink).map_err(|e| {
                // The streaming parser reads nothing after its first error; nor does this one.
                source.borrow_mut().stop(e.is_read());
                de::Error::custom(e)
            });
        }
        let mut n = 0u64;
        while let Some(entry) = seq.next_element::<EntryRef>()? {
            (self.sink)(entry);
            n += 1;
        }
        Ok(n)
    }
}

/// Why the entries could not be cut out of the array.
#[derive(Debug, thiserror::Error)]
enum SplitError {
    #[error("reading the response: {0}")]
    Read(#[from] std::io::Error),
    #[error(transparent)]
    Parse(#[from] serde_json::Error),
    #[error("{0}")]
    Shape(&'static str),
}

impl SplitError {
    /// Whether a read failed, here or in the streaming parser reading a long entry.
    fn is_read(&self) -> bool {
        match self {
            SplitError::Read(_) => true,
            SplitError::Parse(e) => e.is_io(),
            SplitError::Shape(_) => false,
        }
    }
}

/// Hands every element of the array whose `[` the streaming parser just read to `sink`, and
/// leaves the closing `]` for the streaming parser. An object the source can hold whole (read on
/// if the buffer's end cuts it, [`Source::element`]) is parsed from its own bytes; anything else
/// goes to the streaming parser, which refuses what is not an object as [`LogEntry`] does,
/// reading as far as it reads to say so.
/// The commas and the closing bracket follow serde_json's array grammar: one comma between
/// elements, whitespace anywhere between, no trailing comma.
fn split_entries<R: Read>(
    source: &RefCell<Source<R>>,
    sink: &mut dyn for<'e> FnMut(EntryRef<'e>),
) -> Result<u64, SplitError> {
    let mut n = 0u64;
    loop {
        let mut s = source.borrow_mut();
        let next = match (s.peek_past_whitespace()?, n) {
            (Some(b']'), _) => return Ok(n),
            (Some(b','), 1..) => {
                s.consume(1);
                match s.peek_past_whitespace()? {
                    Some(b']') => return Err(SplitError::Shape("a trailing comma")),
                    next => next,
                }
            }
            (_, 1..) => return Err(SplitError::Shape("expected a comma or the array's end")),
            (next, 0) => next,
        };
        // The streaming parser reads on where an entry's bytes so far parse to their end.
        let begins = |bytes: &[u8]| parse_element(bytes).is_err_and(|e| e.is_eof());
        let cut = if next == Some(b'{') {
            s.element(begins)
        } else {
            None
        };
        match cut {
            Some(bytes) => {
                // Handed over while its strings still borrow from the buffer, then consumed; one
                // that fails to parse stays unread, where the streaming parser stopped too.
                let len = bytes.len();
                sink(parse_element(bytes)?);
                s.consume(len);
            }
            None => {
                drop(s);
                let mut stream = serde_json::Deserializer::from_reader(Shared(source));
                sink(EntryRef::deserialize(&mut stream)?);
            }
        }
        n += 1;
    }
}

/// One entry's bytes, parsed. serde_json checks the UTF-8 of every string it reads from a slice,
/// one string at a time; bytes known to be UTF-8 are parsed as a `str`, which it does not check
/// again. The whole element is checked at once (SIMD), and bytes that fail go to the slice
/// parser, which says what it says of them today: the two parse valid UTF-8 alike.
fn parse_element(bytes: &[u8]) -> serde_json::Result<EntryRef<'_>> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// A count that ignores values that are not non-negative integers.
struct Count(Option<u64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<u64>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a count")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<u64>, E> {
                Ok(Some(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<u64>, E> {
                Ok(u64::try_from(v).ok())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<u64>, E> {
                Ok(None)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<u64>, E> {
                Ok(None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<u64>, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Option<u64>, E> {
                Ok(None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<u64>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(None)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<u64>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(None)
            }
        }
        d.deserialize_any(V).map(Count)
    }
}

#[cfg(test)]
mod tests {
    use super::super::source::{MAX_ELEMENT, Recorded, Steps};
    use super::*;
    use proptest::prelude::*;

    fn collect(doc: &str) -> Result<(LogsSummary, Vec<LogEntry>), ReadFailure> {
        let mut entries = Vec::new();
        let summary = read(doc.as_bytes(), &mut |e| entries.push(e))?;
        Ok((summary, entries))
    }

    #[test]
    fn reads_the_mock_shape_without_instance_or_metrics() {
        let (s, e) = collect(
            r#"{"success":true,"region":"cn-hangzhou","log_topic":"application-logs","query":"x",
            "logs":[{"timestamp":"2026-11-29 09:58:01","level":"ERROR","service":"payment-service",
            "instance":"pod-payment-service-7d8f9c6b5-x2k4m","message":"timeout","metrics":{"cpu":0.9}},
            {"timestamp":1764381481000,"level":"INFO","message":"ok"}],"total":7,"message":"成功"}"#,
        )
        .unwrap();
        assert_eq!(
            s,
            LogsSummary {
                success: Some(true),
                total: Some(7),
                has_logs: true,
                entries: 2
            }
        );
        assert_eq!(e[0].timestamp, RawStamp::Text("2026-11-29 09:58:01".into()));
        assert_eq!(e[0].service.as_deref(), Some("payment-service"));
        assert_eq!(e[1].timestamp, RawStamp::Millis(1_764_381_481_000));
        assert!(
            !format!("{e:?}").contains("pod-payment"),
            "instance is never read"
        );
    }

    #[test]
    fn failure_and_malformed() {
        assert_eq!(
            collect(r#"{"success":false,"message":"x"}"#).unwrap_err(),
            ReadFailure::Failure
        );
        for doc in [
            "",
            "[]",
            "null",
            "{}",
            r#"{"success":true,"logs":[1]}"#,
            r#"{"success":true,"logs":{}}"#,
            // An entry as an array of field values would be read positionally: refused.
            r#"{"success":true,"logs":[["2026-11-29 09:00:00","ERROR","svc","disk full"]]}"#,
            r#"{"success":true,"logs":[[]]}"#,
            r#"{"success":true,"success":true}"#,
            r#"{"success":true,"logs":[],"logs":[]}"#,
            r#"{"success":true} {}"#,
            r#"{"success":"true"}"#,
        ] {
            assert_eq!(collect(doc).unwrap_err(), ReadFailure::Malformed, "{doc}");
        }
    }

    #[test]
    fn a_leading_byte_order_mark_is_tolerated_once() {
        let doc = "\u{feff}{\"success\":true,\"logs\":[{\"timestamp\":1,\"message\":\"m\"}]}";
        let (s, e) = collect(doc).unwrap();
        assert_eq!((s.entries, e.len()), (1, 1));
        // Split across reads, one byte at a time.
        let mut n = 0;
        let trickle = Steps {
            bytes: doc.as_bytes(),
            step: 1,
            fails: false,
        };
        assert!(read(trickle, &mut |_| n += 1).is_ok());
        assert_eq!(n, 1);
        // Short documents are not mistaken for a mark; a second mark or a lone one is not JSON.
        for doc in [
            "\u{feff}\u{feff}{\"success\":true}",
            "\u{feff}",
            "{",
            "\u{feff}1",
        ] {
            assert_eq!(collect(doc).unwrap_err(), ReadFailure::Malformed, "{doc:?}");
        }
        assert!(collect("{\"success\":true,\"logs\":[]} ").is_ok());
    }

    #[test]
    fn read_errors_are_unreadable_not_malformed() {
        for bytes in [&b""[..], b"{\"su", b"{\"success\":true,\"logs\":[]"] {
            let trickle = Steps {
                bytes,
                step: 1,
                fails: true,
            };
            assert_eq!(
                read(trickle, &mut |_| {}).unwrap_err(),
                ReadFailure::Unreadable
            );
        }
    }

    #[test]
    fn empty_and_missing_arrays() {
        let (s, e) = collect(r#"{"success":true,"logs":[],"total":0}"#).unwrap();
        assert!(s.has_logs && e.is_empty());
        let (s, _) = collect(r#"{"success":true,"logs":null,"total":"many"}"#).unwrap();
        assert_eq!(s.total, None);
        assert!(s.has_logs, "an explicit null array is an empty one");
        // Without the array it is not the Mock shape (a RAG response, say).
        let rag_shaped = r#"{"success":true,"contextPack":{"blocks":[]}}"#;
        assert_eq!(collect(rag_shaped).unwrap_err(), ReadFailure::Malformed);
    }

    /// Both readers on `doc` handed out `step` bytes at a time; with `fails`, the reader fails
    /// once `doc` is out instead of ending.
    fn both(
        doc: &[u8],
        step: usize,
        fails: bool,
    ) -> [Result<(LogsSummary, Vec<LogEntry>), ReadFailure>; 2] {
        let run = |split| {
            let mut entries = Vec::new();
            let calls = RefCell::new(Vec::new());
            let reader = Recorded {
                inner: Steps {
                    bytes: doc,
                    step,
                    fails,
                },
                calls: &calls,
            };
            let read = read_with(reader, &mut |e| entries.push(e.into_owned()), split);
            (read.map(|s| (s, entries)), calls.into_inner())
        };
        let ((split, split_calls), (unsplit, unsplit_calls)) = (run(true), run(false));
        // A reader that counts or checks its bytes (the boundary's cap) sees no read the
        // streaming parser would not have made: the splitter's reads are the first of its,
        // to the first that ended or failed (after which it may ask again, for nothing). The
        // splitter can stop sooner: a slice parser sees a break without the byte after it.
        let to_the_end = |calls: Vec<(usize, Option<usize>)>| {
            let end = calls.iter().position(|&(_, n)| matches!(n, None | Some(0)));
            calls[..end.map_or(calls.len(), |e| e + 1)].to_vec()
        };
        let (split_calls, unsplit_calls) = (to_the_end(split_calls), to_the_end(unsplit_calls));
        assert!(
            unsplit_calls.starts_with(&split_calls),
            "the reads made of the reader: {split_calls:?} against {unsplit_calls:?}"
        );
        [split, unsplit]
    }

    /// A field value: mostly what the Mock writes, sometimes another type or nested JSON with
    /// the brackets, quotes and escapes the splitter must count right.
    fn field() -> impl Strategy<Value = String> {
        let text = "[a-z0-9 :{}\\[\\],\"\\\\é中\u{1}]{0,16}";
        prop_oneof![
            4 => text.prop_map(|t| serde_json::to_string(&t).unwrap()),
            1 => any::<i64>().prop_map(|n| n.to_string()),
            1 => Just("null".to_owned()),
            1 => prop::collection::vec(text, 0..3)
                .prop_map(|v| format!("{{\"a\":{}}}", serde_json::to_string(&v).unwrap())),
        ]
    }

    fn entry() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("timestamp"),
            Just("level"),
            Just("service"),
            Just("message"),
            Just("metrics"),
            Just("x"),
        ];
        prop::collection::vec((key, field(), " ?\n?"), 0..6).prop_map(|fields| {
            let body: Vec<String> = fields
                .into_iter()
                .map(|(k, v, ws)| format!("{ws}\"{k}\"{ws}:{ws}{v}"))
                .collect();
            format!("{{{}}}", body.join(","))
        })
    }

    /// A Mock-shaped document, then possibly one byte deleted, inserted or replaced.
    fn document() -> impl Strategy<Value = Vec<u8>> {
        let doc = (
            prop::collection::vec((entry(), "[ \n]{0,2}"), 0..8),
            any::<bool>(),
        )
            .prop_map(|(entries, logs_first)| {
                let logs: Vec<String> = entries.into_iter().map(|(e, ws)| e + &ws).collect();
                let logs = format!("\"logs\": [{}]", logs.join(","));
                let rest = "\"success\":true,\"total\":3,\"query\":{\"q\":[1,\"]\"]}";
                if logs_first {
                    format!("{{{logs},{rest}}}")
                } else {
                    format!("{{{rest},{logs}}}")
                }
            });
        let edit = prop_oneof![
            Just(None),
            (
                any::<prop::sample::Index>(),
                0..3u8,
                prop::sample::select(&b"{}[],:\"\\ a1"[..])
            )
                .prop_map(Some),
        ];
        (doc, edit).prop_map(|(doc, edit)| {
            let mut bytes = doc.into_bytes();
            if let Some((at, how, b)) = edit {
                let i = at.index(bytes.len());
                match how {
                    0 => {
                        bytes.remove(i);
                    }
                    1 => bytes.insert(i, b),
                    _ => bytes[i] = b,
                }
            }
            bytes
        })
    }

    proptest! {
        /// Cutting entries out of the buffer reads every document exactly as the streaming
        /// parser does: the same entries, the same summary, the same failure.
        #[test]
        fn split_entries_read_as_the_streaming_parser_does(doc in document(), step in 1usize..40) {
            let [split, unsplit] = both(&doc, step, false);
            prop_assert_eq!(split, unsplit, "{}", String::from_utf8_lossy(&doc));
        }

        /// A read that fails part-way fails both readers the same way: after broken JSON the
        /// splitter reads no further than the streaming parser, so both report the JSON.
        #[test]
        fn a_failing_read_fails_both_readers_alike(
            doc in document(),
            cut in any::<prop::sample::Index>(),
            step in 1usize..40,
        ) {
            let doc = &doc[..cut.index(doc.len() + 1)];
            let [split, unsplit] = both(doc, step, true);
            prop_assert_eq!(split, unsplit, "{}", String::from_utf8_lossy(doc));
        }
    }

    /// Review find: the splitter read on past broken JSON to find an entry's end, so a read
    /// failing later (a broken pipe, standard input over its cap) turned a malformed response
    /// into an unreadable one.
    #[test]
    fn broken_json_before_a_failed_read_is_malformed() {
        let long = format!(
            r#"{{"success":true,"logs":[{{"message":"m"x{}"#,
            "y".repeat(300_000)
        );
        for doc in [r#"{"logs":[{"a":1x"#, r#"{"logs":[{"a" 1}"#, long.as_str()] {
            for step in [1, 7, 4096, usize::MAX] {
                let [split, unsplit] = both(doc.as_bytes(), step, true);
                assert_eq!(split, Err(ReadFailure::Malformed), "{step}");
                assert_eq!(unsplit, Err(ReadFailure::Malformed), "{step}");
            }
        }
    }

    /// Property find: serde_json reads a value that is not an object to name its type in the
    /// error, so a string entry followed by a failed read is unreadable to it. The splitter
    /// refused the string at its first byte and said malformed; such entries now go to the
    /// streaming parser.
    #[test]
    fn a_non_object_entry_is_refused_as_serde_json_refuses_it() {
        for doc in [r#"{"logs":[{}, ""#, r#"{"logs":["x"#, r#"{"logs":[1"#] {
            let [split, unsplit] = both(doc.as_bytes(), 1, true);
            assert_eq!(split, Err(ReadFailure::Unreadable), "{doc}");
            assert_eq!(unsplit, Err(ReadFailure::Unreadable), "{doc}");
        }
        for doc in [
            r#"{"logs":[{}, "x"]}"#,
            r#"{"logs":[1]}"#,
            r#"{"logs":[,{}]}"#,
        ] {
            let [split, unsplit] = both(doc.as_bytes(), 1, true);
            assert_eq!(split, Err(ReadFailure::Malformed), "{doc}");
            assert_eq!(unsplit, Err(ReadFailure::Malformed), "{doc}");
        }
    }

    /// An entry longer than a read is read on and cut whole; one longer than the source holds
    /// goes to the streaming parser. Either way the entries are the streaming parser's.
    #[test]
    fn an_entry_longer_than_a_read_is_read_as_the_streaming_parser_reads_it() {
        for (len, step) in [(200_000, 4096), (MAX_ELEMENT + CHUNK, CHUNK)] {
            let message = "m".repeat(len);
            let doc = format!(
                r#"{{"success":true,"logs":[{{"message":"a"}},{{"message":"{message}","metrics":[{{}}]}}, {{"level":"x"}}]}}"#
            );
            let [split, unsplit] = both(doc.as_bytes(), step, false);
            let (summary, entries) = split.unwrap();
            assert_eq!(summary.entries, 3);
            assert_eq!(entries[1].message.as_deref(), Some(message.as_str()));
            assert_eq!(entries[2].level.as_deref(), Some("x"));
            assert_eq!(Ok((summary, entries)), unsplit);
        }
    }

    #[test]
    fn the_array_grammar_is_serde_jsons() {
        for (doc, ok) in [
            (r#"{"logs":[ ]}"#, true),
            (r#"{"logs":[{} , {}]}"#, true),
            (r#"{"logs":[{},]}"#, false),
            (r#"{"logs":[,{}]}"#, false),
            (r#"{"logs":[{}{}]}"#, false),
            (r#"{"logs":[{},,{}]}"#, false),
            (r#"{"logs":[{}"#, false),
            (r#"{"logs":[{"a":"}"]}"#, false),
            (r#"{"logs":[{"a":"\"}"}]}"#, true),
            (r#"{"logs":[{"a":1]]}"#, false),
        ] {
            let [split, unsplit] = both(doc.as_bytes(), 3, false);
            assert_eq!(split.is_ok(), ok, "{doc}");
            assert_eq!(split, unsplit, "{doc}");
        }
    }
}
