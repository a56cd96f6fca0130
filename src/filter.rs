//! `aciproj redact`: the redaction catalogue as a filter for any log stream.
//!
//! Line for line and in order: every input line gives exactly one output line, redacted by the
//! same [`Redactor`] as the log projection's timeline, so what an operator pipes through here is
//! what the agent would see of that message. Empty lines stay; invalid UTF-8 is replaced
//! (U+FFFD), never a reason to stop; a line's terminator (`\n`, `\r\n`, none at the end) is kept.
//! One line is in memory at a time, so memory stays flat however long the stream.
//!
//! With `json`, a line that is a JSON document has its string *values* redacted in place: keys,
//! numbers, booleans, nulls, structure and even whitespace stay byte for byte, because only the
//! string tokens are rewritten. A line that is not JSON is redacted as text.
//!
//! With `correlate`, labelled placeholders carry an ordinal per distinct value for the whole
//! stream (`<IP#1>` … `<IP#1>`), numbered by first appearance, as the `logs` timeline does with
//! `redaction.correlate`; the map of values seen is bounded ([`crate::redact::MAX_DISTINCT`] per
//! class), so memory stays flat here too.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use serde::Serialize;
use serde::de::IgnoredAny;

use crate::redact::{Correlator, LineContext, Mark, RedactionCounts, Redactor};

/// How to filter.
#[derive(Clone, Copy, Debug, Default)]
pub struct FilterOptions {
    /// Redact the string values of JSON lines, keeping their structure.
    pub json: bool,
    /// Label identity and credential placeholders per distinct value in the stream (`<IP#1>`).
    pub correlate: bool,
    /// Let a second thread (moved off this one's core) redact every other batch; off, the
    /// stream is filtered on the caller's thread. The bytes are the same either way.
    pub parallel: bool,
}

/// What a filtered stream held, for `--stats` (counts only, never a value).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FilterStats {
    /// Lines read.
    pub lines: u64,
    /// Lines the redactor changed.
    pub changed: u64,
    /// Replacements per class.
    pub by_class: BTreeMap<&'static str, u64>,
    /// Replacements per rule id.
    pub by_rule: BTreeMap<&'static str, u64>,
    /// Distinct values labelled per class, with `correlate` (never a value).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct: Option<BTreeMap<&'static str, u64>>,
}

impl FilterStats {
    /// Adds another part of the stream's counts.
    fn merge(&mut self, other: FilterStats) {
        self.lines += other.lines;
        self.changed += other.changed;
        for (class, n) in other.by_class {
            *self.by_class.entry(class).or_default() += n;
        }
        for (id, n) in other.by_rule {
            *self.by_rule.entry(id).or_default() += n;
        }
    }

    fn absorb(&mut self, counts: &RedactionCounts) {
        for (class, n) in counts.iter().filter(|(_, n)| *n > 0) {
            *self.by_class.entry(class.name()).or_default() += u64::from(n);
        }
        for (id, n) in counts.by_rule() {
            *self.by_rule.entry(id).or_default() += u64::from(n);
        }
    }
}

/// Why a stream could not be filtered to the end.
#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    /// The input could not be read.
    #[error("cannot read the input: {0}")]
    Read(std::io::Error),
    /// The output could not be written.
    #[error("cannot write the output: {0}")]
    Write(std::io::Error),
}

/// Bytes of whole lines read into one batch: the unit the two threads share.
const BATCH_BYTES: usize = 256 * 1024;

/// Filters `input` to `output` line by line; the counts of what was redacted.
///
/// Lines are read in batches of whole lines. Once the input holds more than one batch, a second
/// thread redacts every other batch while this one reads, redacts the batch after it and writes
/// both, in input order: the output bytes and the counts are those of one thread going line by
/// line (each batch starts from the line context this thread works out from the raw lines
/// before it, and the counts add up). A failed read still writes
/// every whole line read before it, as the line-by-line filter did.
pub fn filter_lines(
    redactor: &Redactor,
    mut input: impl BufRead,
    mut output: impl Write,
    options: FilterOptions,
) -> Result<FilterStats, FilterError> {
    let mut stats = FilterStats::default();
    if options.correlate || !options.parallel {
        // Labels are numbered by first appearance across the whole stream: one thread, in order.
        let mut correlator = options.correlate.then(Correlator::new);
        let mut context = LineContext::default();
        loop {
            let (batch, failed) = read_batch(&mut input);
            let out = filter_batch(
                redactor,
                &batch,
                &mut context,
                options,
                &mut stats,
                correlator.as_mut(),
            );
            output.write_all(&out).map_err(FilterError::Write)?;
            if let Some(e) = failed {
                return Err(FilterError::Read(e));
            }
            if batch.is_empty() {
                break;
            }
        }
        output.flush().map_err(FilterError::Write)?;
        stats.distinct = correlator.map(|c| {
            c.distinct()
                .map(|(class, n)| (class.name(), u64::from(n)))
                .collect()
        });
        return Ok(stats);
    }
    let mut write = |out: &[u8]| output.write_all(out).map_err(FilterError::Write);
    let (first, mut failed) = read_batch(&mut input);
    let (second, failed_second) = match failed {
        None if !first.is_empty() => read_batch(&mut input),
        _ => (Vec::new(), None),
    };
    failed = failed.or(failed_second);
    // What the lines before a batch leave open: worked out from the raw lines on this thread,
    // so each batch starts from the context one thread going line by line would have.
    let mut context = LineContext::default();
    if second.is_empty() {
        write(&filter_batch(
            redactor,
            &first,
            &mut context,
            options,
            &mut stats,
            None,
        ))?;
    } else {
        failed = std::thread::scope(|scope| -> Result<Option<std::io::Error>, FilterError> {
            let (to_helper, batches) = std::sync::mpsc::sync_channel::<(Vec<u8>, LineContext)>(1);
            let (to_main, done) = std::sync::mpsc::sync_channel::<(Vec<u8>, FilterStats)>(1);
            crate::cores::beside(|parent| {
                scope.spawn(move || {
                    crate::cores::leave(parent);
                    for (batch, mut context) in batches {
                        let mut own = FilterStats::default();
                        let out =
                            filter_batch(redactor, &batch, &mut context, options, &mut own, None);
                        if to_main.send((out, own)).is_err() {
                            break;
                        }
                    }
                })
            });
            let (mut a, mut b) = (first, second);
            loop {
                // The helper takes `a`; this thread takes `b`, then writes both in order.
                let context_a = context.clone();
                advance_over(&mut context, &a, options);
                let helped =
                    !a.is_empty() && to_helper.send((std::mem::take(&mut a), context_a)).is_ok();
                let out_b = filter_batch(redactor, &b, &mut context, options, &mut stats, None);
                if helped {
                    let (out_a, own) = done
                        .recv()
                        .unwrap_or_else(|_| panic!("the redacting thread panicked"));
                    stats.merge(own);
                    write(&out_a)?;
                }
                write(&out_b)?;
                if failed.is_some() {
                    return Ok(failed);
                }
                (a, failed) = read_batch(&mut input);
                (b, failed) = match failed {
                    None if !a.is_empty() => read_batch(&mut input),
                    f => (Vec::new(), f),
                };
                if a.is_empty() && b.is_empty() {
                    return Ok(failed);
                }
                if b.is_empty() {
                    std::mem::swap(&mut a, &mut b);
                }
            }
        })?;
    }
    if let Some(e) = failed {
        return Err(FilterError::Read(e));
    }
    output.flush().map_err(FilterError::Write)?;
    Ok(stats)
}

/// Whole lines, about [`BATCH_BYTES`] of them (a line longer than that alone), and the read
/// error that ended the batch early, if one did: the lines before it are in the batch.
fn read_batch(input: &mut impl BufRead) -> (Vec<u8>, Option<std::io::Error>) {
    let mut batch = Vec::with_capacity(BATCH_BYTES + 4096);
    while batch.len() < BATCH_BYTES {
        let whole = batch.len();
        match input.read_until(b'\n', &mut batch) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                // The line the error cut is not read, as the line-by-line filter dropped it.
                batch.truncate(whole);
                return (batch, Some(e));
            }
        }
    }
    (batch, None)
}

/// Each line of `batch` as the filter reads it: its body (lossily decoded when the batch is not
/// UTF-8) and its terminator.
fn lines_of(batch: &[u8]) -> impl Iterator<Item = (std::borrow::Cow<'_, str>, &[u8])> {
    // A batch ends at a line's end, so when it is UTF-8 as a whole (the common case, checked
    // at SIMD speed) every line is, and is borrowed from it; otherwise each line is converted.
    let whole = simdutf8::basic::from_utf8(batch).ok();
    let mut rest = batch;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let (line, after) = rest.split_at(cut);
        let at = batch.len() - rest.len();
        rest = after;
        let (body, end) = split_terminator(line);
        let text = match whole.and_then(|all| all.get(at..at + body.len())) {
            Some(text) => std::borrow::Cow::Borrowed(text),
            None => String::from_utf8_lossy(body),
        };
        Some((text, end))
    })
}

/// Moves `context` past every line of `batch`, as [`filter_batch`] would.
fn advance_over(context: &mut LineContext, batch: &[u8], options: FilterOptions) {
    if !options.json {
        for (text, _) in lines_of(batch) {
            context.advance(&text);
        }
    }
}

/// Filters every line of `batch` (whole lines; the last may lack its terminator) into a new
/// buffer, counting into `stats`. Text lines are read after what the lines before them leave
/// open (`context`, moved past the batch); JSON lines each alone.
fn filter_batch(
    redactor: &Redactor,
    batch: &[u8],
    context: &mut LineContext,
    options: FilterOptions,
    stats: &mut FilterStats,
    mut correlator: Option<&mut Correlator>,
) -> Vec<u8> {
    let mut written = Vec::with_capacity(batch.len() + batch.len() / 8);
    let mut out = String::new();
    for (text, end) in lines_of(batch) {
        let mut counts = RedactionCounts::default();
        out.clear();
        let changed = if options.json {
            redact_json_line(
                redactor,
                &text,
                &mut counts,
                correlator.as_deref_mut(),
                &mut out,
            )
        } else {
            let changed = redact_text(
                redactor,
                context,
                &text,
                &mut counts,
                correlator.as_deref_mut(),
                &mut out,
            );
            context.advance(&text);
            changed
        };
        stats.lines += 1;
        stats.changed += u64::from(changed);
        stats.absorb(&counts);
        written.extend_from_slice(out.as_bytes());
        written.extend_from_slice(end);
    }
    written
}

/// Writes `text` redacted (and labelled, with a correlator) to `out`; whether anything changed.
fn redact_text(
    redactor: &Redactor,
    context: &LineContext,
    text: &str,
    counts: &mut RedactionCounts,
    correlator: Option<&mut Correlator>,
    out: &mut String,
) -> bool {
    let Some(correlator) = correlator else {
        let redacted = redactor.redact_line(context, text, None, counts);
        out.push_str(&redacted);
        return matches!(redacted, std::borrow::Cow::Owned(_));
    };
    let mut marks = Vec::new();
    let redacted = redactor.redact_line(context, text, Some(&mut marks), counts);
    if marks.is_empty() {
        out.push_str(&redacted);
    } else {
        out.push_str(&correlator.label(&redacted, &marks));
    }
    matches!(redacted, std::borrow::Cow::Owned(_))
}

/// A line's body and its terminator (`\r\n`, `\n`, or nothing at the end of the input).
fn split_terminator(line: &[u8]) -> (&[u8], &[u8]) {
    if let Some(body) = line.strip_suffix(b"\r\n") {
        (body, b"\r\n")
    } else if let Some(body) = line.strip_suffix(b"\n") {
        (body, b"\n")
    } else {
        (line, b"")
    }
}

/// Writes `line` to `out` with the string values of its JSON redacted, or the whole line
/// redacted as text when it is not one JSON document; whether anything changed. With a
/// correlator, labelled placeholders carry its labels (values numbered left to right).
pub fn redact_json_line(
    redactor: &Redactor,
    line: &str,
    counts: &mut RedactionCounts,
    mut correlator: Option<&mut Correlator>,
    out: &mut String,
) -> bool {
    if serde_json::from_str::<IgnoredAny>(line).is_err() {
        return redact_text(
            redactor,
            &LineContext::default(),
            line,
            counts,
            correlator,
            out,
        );
    }
    let bytes = line.as_bytes();
    let mut changed = false;
    let mut last = 0;
    let mut key: Option<&str> = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {}
            // A key belongs to the value right after it, not to later elements.
            b',' | b'{' | b'[' | b'}' | b']' => {
                key = None;
                i += 1;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        let end = string_end(bytes, i);
        let token = &line[i..end];
        if line[end..].trim_start().starts_with(':') {
            key = Some(token);
        } else if let Some(new) = redact_value(
            redactor,
            key.take(),
            token,
            counts,
            correlator.as_deref_mut(),
        ) {
            out.push_str(&line[last..i]);
            out.push_str(&new);
            last = end;
            changed = true;
        }
        i = end;
    }
    out.push_str(&line[last..]);
    changed
}

/// The JSON string `token` redacted and re-encoded, or `None` when it stays. A value is read
/// with its key (`"password": "x"`), as the text redactor reads a JSON log line, so a secret key
/// names its value here too; then the value is redacted on its own, decoded.
fn redact_value(
    redactor: &Redactor,
    key: Option<&str>,
    token: &str,
    counts: &mut RedactionCounts,
    correlator: Option<&mut Correlator>,
) -> Option<String> {
    let value: String = serde_json::from_str(token).ok()?;
    let mut keyed = None;
    // With a correlator: the marks on the value, carried from the keyed pass into its own.
    let mut marks = Vec::new();
    if let Some(key) = key {
        let pair = format!("{key}: {token}");
        let prefix = format!("{key}: ");
        let mut pair_counts = RedactionCounts::default();
        let mut pair_marks = Vec::new();
        let redacted = match correlator {
            Some(_) => redactor.redact_marked(&pair, &mut pair_marks, &mut pair_counts),
            None => redactor.redact(&pair, &mut pair_counts),
        };
        if let std::borrow::Cow::Owned(redacted) = redacted
            && let Some(rest) = redacted.strip_prefix(&prefix)
            && let Ok(v) = serde_json::from_str::<String>(rest)
        {
            counts.merge(&pair_counts);
            marks = decoded_marks(rest, prefix.len(), pair_marks, &v);
            keyed = Some(v);
        }
    }
    let base = keyed.as_deref().unwrap_or(&value);
    let own = match correlator {
        Some(_) => redactor.redact_marked(base, &mut marks, counts),
        None => redactor.redact(base, counts),
    };
    if keyed.is_none() && matches!(own, std::borrow::Cow::Borrowed(_)) {
        return None;
    }
    match correlator {
        Some(c) if !marks.is_empty() => serde_json::to_string(&c.label(&own, &marks)).ok(),
        _ => serde_json::to_string(own.as_ref()).ok(),
    }
}

/// The marks of a redacted `key: "…"` pair moved onto `decoded`, the JSON string token `rest`
/// (which starts `skip` bytes into the pair) decoded. Each stretch between placeholders is
/// decoded on its own (a placeholder holds nothing JSON escapes); a stretch that does not
/// decode, or a result that differs from `decoded`, costs the labels, never the redaction.
fn decoded_marks(rest: &str, skip: usize, marks: Vec<Mark>, decoded: &str) -> Vec<Mark> {
    let mut out = Vec::with_capacity(marks.len());
    let mut text = String::with_capacity(decoded.len());
    let mut at = 0;
    for mut m in marks {
        let Some(start) = m.start().checked_sub(skip) else {
            continue;
        };
        let Some(stretch) = rest.get(at..start) else {
            return Vec::new();
        };
        let quoted = match (at == 0, stretch.strip_prefix('"')) {
            (true, Some(inner)) => format!("\"{inner}\""),
            (true, None) => return Vec::new(),
            (false, _) => format!("\"{stretch}\""),
        };
        let Ok(piece) = serde_json::from_str::<String>(&quoted) else {
            return Vec::new();
        };
        text.push_str(&piece);
        m.shift(text.len() as isize - m.start() as isize);
        let end = start + (m.end() - m.start());
        text.push_str(&rest[start..end]);
        at = end;
        out.push(m);
    }
    let tail = if at == 0 {
        rest.to_owned()
    } else {
        format!("\"{}", &rest[at..])
    };
    match serde_json::from_str::<String>(&tail) {
        Ok(piece) => text.push_str(&piece),
        Err(_) => return Vec::new(),
    }
    if text == decoded { out } else { Vec::new() }
}

/// Index just past the closing quote of the JSON string starting at `open` (valid JSON: the
/// line was parsed before).
fn string_end(b: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8], json: bool) -> (String, FilterStats) {
        run_with(input, json, false)
    }

    fn run_with(input: &[u8], json: bool, correlate: bool) -> (String, FilterStats) {
        let mut out = Vec::new();
        let options = FilterOptions {
            json,
            correlate,
            parallel: true,
        };
        let stats = filter_lines(Redactor::shared(), input, &mut out, options)
            .expect("in-memory streams do not fail");
        (String::from_utf8(out).expect("output is UTF-8"), stats)
    }

    /// `input` filtered as text on one thread or two.
    fn filter_threads(input: &str, parallel: bool) -> (String, FilterStats) {
        let mut out = Vec::new();
        let options = FilterOptions {
            parallel,
            ..FilterOptions::default()
        };
        let stats = filter_lines(Redactor::shared(), input.as_bytes(), &mut out, options)
            .expect("in-memory streams do not fail");
        (String::from_utf8(out).expect("UTF-8"), stats)
    }

    /// A value whose key is on the line before, in the batch before, is found by either thread.
    #[test]
    fn a_value_on_the_line_after_its_key_is_hidden_across_batches() {
        // Multi-line records of varying length, so that batch ends fall between a record's
        // lines: the context a batch starts with must be the one its first line had.
        let input: String = (0..21_000)
            .map(|i| {
                let pad = "x".repeat(i % 37);
                match i % 3 {
                    0 => format!("<apiToken>\n    tok{i}Qz7Wk2\n</apiToken> {pad}\n"),
                    1 => format!("curl -k https://svc/{pad} \\\n  -u dev:pw{i}Qz7Wk2\n"),
                    _ => format!("machine h{i}{pad}\n  login deploy\n  password pw{i}Qz7Wk2\n"),
                }
            })
            .collect();
        assert!(input.len() > 3 * BATCH_BYTES);
        let (out, stats) = filter_threads(&input, true);
        assert_eq!((out.clone(), stats.clone()), filter_threads(&input, false));
        assert!(!out.contains("Qz7Wk2"), "a planted value survived");
        assert_eq!(stats.by_rule.get("credential.xml"), Some(&7000));
        assert_eq!(stats.by_rule.get("credential.cli-password"), Some(&7000));
        assert_eq!(stats.by_rule.get("credential.spaced"), Some(&7000));
    }

    /// A stream of several batches gives the same bytes and counts on one thread as on two.
    #[test]
    fn one_thread_gives_the_bytes_two_threads_give() {
        let input: String = (0..20_000)
            .map(|i| format!("req {i} from 10.0.{}.{} password=p{i}\n", i % 200, i % 250))
            .collect();
        assert!(input.len() > 3 * BATCH_BYTES);
        assert_eq!(filter_threads(&input, false), filter_threads(&input, true));
    }

    #[test]
    fn lines_are_kept_one_for_one_with_their_terminators() {
        let (out, stats) = run(b"a 10.0.0.1\n\nb\r\npassword=x", false);
        assert_eq!(out, "a <IP>\n\nb\r\npassword=<SECRET>");
        assert_eq!(stats.lines, 4);
        assert_eq!(stats.changed, 2);
        assert_eq!(stats.by_class.get("ip"), Some(&1));
        assert_eq!(stats.by_rule.get("credential.assignment"), Some(&1));
    }

    #[test]
    fn invalid_utf8_is_replaced_and_the_stream_goes_on() {
        let (out, stats) = run(b"bad \xff byte 10.0.0.1\nnext\n", false);
        assert_eq!(out, "bad \u{fffd} byte <IP>\nnext\n");
        assert_eq!(stats.lines, 2);
    }

    #[test]
    fn json_lines_keep_keys_numbers_and_spacing() {
        let line = br#"{"password": "x", "ip":"10.0.0.1", "n": 1.50, "ok": true, "nested": {"a": ["pod web-7d9f8c6b5-x2k4m"]}}"#;
        let (out, stats) = run(line, true);
        assert_eq!(
            out,
            r#"{"password": "<SECRET>", "ip":"<IP>", "n": 1.50, "ok": true, "nested": {"a": ["pod <POD>"]}}"#
        );
        assert_eq!(stats.changed, 1);
    }

    #[test]
    fn a_json_string_holding_a_secret_assignment_is_redacted_inside() {
        let (out, _) = run(br#"{"msg":"login password=hunter2 ok \"q\""}"#, true);
        assert_eq!(out, r#"{"msg":"login password=<SECRET> ok \"q\""}"#);
    }

    #[test]
    fn a_line_that_is_not_json_is_redacted_as_text() {
        let (out, _) = run(b"{not json password=x\n", true);
        assert_eq!(out, "{not json password=<SECRET>\n");
    }

    #[test]
    fn every_line_is_what_redact_gives_for_it() {
        let text = include_str!("../fixtures/redaction/corpus.jsonl");
        let lines: Vec<String> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["line"].as_str().map(|s| s.replace('\n', " ")))
            .collect();
        let input = lines.join("\n");
        let (out, _) = run(input.as_bytes(), false);
        let want: Vec<String> = lines
            .iter()
            .map(|l| crate::redact::redact(l, &mut RedactionCounts::default()).into_owned())
            .collect();
        assert_eq!(out, want.join("\n"));
    }

    #[test]
    fn correlate_only_adds_ordinals_in_text_and_json_modes() {
        let text = include_str!("../fixtures/redaction/corpus.jsonl");
        let lines: Vec<String> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["line"].as_str().map(|s| s.replace(['\n', '\r'], " ")))
            .collect();
        let as_json: Vec<String> = lines
            .iter()
            .map(|l| serde_json::json!({"msg": l, "password": l, "n": 1}).to_string())
            .collect();
        let strip = crate::redact::correlate::tests::strip_labels;
        for (input, json) in [(lines.join("\n"), false), (as_json.join("\n"), true)] {
            let (plain, _) = run_with(input.as_bytes(), json, false);
            let (labelled, stats) = run_with(input.as_bytes(), json, true);
            assert_eq!(strip(&labelled), plain, "json: {json}");
            assert!(labelled.contains("#2>"), "labels were given (json: {json})");
            assert!(stats.distinct.is_some_and(|d| !d.is_empty()));
        }
    }

    #[test]
    fn correlate_labels_json_values_with_escapes_around_them() {
        let line = br#"{"password": "a\"b\u00e9", "m": "x \u00e9 10.0.0.1 \" 10.0.0.1", "k": "\ttoken=abc 10.0.0.2"}"#;
        let (out, _) = run_with(line, true, true);
        assert_eq!(
            out,
            r#"{"password": "<SECRET#1>", "m": "x é <IP#1> \" <IP#1>", "k": "\ttoken=<SECRET#2> <IP#2>"}"#
        );
    }
}
