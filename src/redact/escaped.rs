//! The escaped view: text that was escaped once more on its way into a log line.
//!
//! Real lines carry text inside a string literal: a JSON log line's `msg` holding a command line
//! (`"--password \"x\""`), a config block flattened with `\n`, a C# call logged through a JSON
//! encoder (`NetworkCredential(\"u\", \"pw\")`), a payload encoded twice (`{\\\"password\\\":…`).
//! The rules read the quotes, line breaks and operators of the text as it was written; behind a
//! backslash those are other bytes, and a value that is plainly quoted in the original runs on
//! past its close or is never seen as quoted at all.
//!
//! So after the rules have read the message as it stands, a message holding an escape is read a
//! second time *decoded* (JSON's escapes, and `\'`), by the same rules, and every replacement
//! made there is carried back onto the escaped text over whole escape sequences: the output stays
//! escaped as it came (a JSON line stays valid JSON) and nothing the decoded reading found
//! survives in it. The escaped reading goes first, and the decoded one can only add: a value
//! that holds a backslash (`password=C:\temp`) is taken whole by the first, where the second
//! would end it at the tab it decodes to. Decoding goes two levels deep, for a payload encoded
//! twice.
//!
//! What is decoded: each stretch between two unescaped double quotes (the quotes of the string
//! the escaped text sits in), on its own. A decoded quote next to the raw one that closes the
//! string would read as a doubled quote, and a value would run on through the closing quote into
//! the line's structure; a stretch ends at that quote, so a replacement never crosses it.
//!
//! How a replacement is carried back: the decoded reading is marked (see [`super::Mark`]), so
//! each placeholder says which decoded text it replaced, and the text between placeholders is the
//! decoded text itself. Where a rule builds its output by other means (a stack cut), the part
//! that differs is found from the common head and tail and carried back whole, re-escaped.

use std::borrow::Cow;

use super::correlate::{Mark, labelled_class};

/// The decoded text of a message and, for every byte of it, where its source (the escape
/// sequence or the raw byte) starts in the message; one more entry holds the message's length.
pub(super) struct Decoded {
    pub(super) text: String,
    from: Vec<usize>,
}

/// Whether `s` holds an escape sequence this view decodes.
pub(super) fn has_escape(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'\\', b).any(|i| escape_at(s, i).is_some())
}

/// The escape sequence at `i` (a backslash): its length and the character it stands for.
fn escape_at(s: &str, i: usize) -> Option<(usize, char)> {
    let b = s.as_bytes();
    let ch = match *b.get(i + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'\'' => '\'',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => return unicode_escape_at(s, i),
        _ => return None,
    };
    Some((2, ch))
}

/// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`; a lone surrogate is no escape of ours.
fn unicode_escape_at(s: &str, i: usize) -> Option<(usize, char)> {
    let hex = |at: usize| {
        let h = s.get(at..at + 4)?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(h, 16).ok()
    };
    let hi = hex(i + 2)?;
    if !(0xD800..0xDC00).contains(&hi) {
        return char::from_u32(hi).map(|c| (6, c));
    }
    if s.get(i + 6..i + 8) != Some("\\u") {
        return None;
    }
    let lo = hex(i + 8)?;
    if !(0xDC00..0xE000).contains(&lo) {
        return None;
    }
    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).map(|c| (12, c))
}

/// The stretches of `s` between unescaped double quotes (and its ends) that hold an escape.
pub(super) fn stretches(s: &str) -> Vec<std::ops::Range<usize>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    // Most messages hold no backslash: one SIMD search, and nothing allocated.
    if memchr::memchr(b'\\', b).is_none() {
        return out;
    }
    let (mut start, mut escaped) = (0, false);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                escaped |= escape_at(s, i).is_some();
                i += 2;
                continue;
            }
            b'"' => {
                if escaped {
                    out.push(start..i);
                }
                (start, escaped) = (i + 1, false);
            }
            _ => {}
        }
        i += 1;
    }
    if escaped {
        out.push(start..b.len());
    }
    out
}

/// `s` with its escapes decoded, or `None` when it holds none.
pub(super) fn decode(s: &str) -> Option<Decoded> {
    if !has_escape(s) {
        return None;
    }
    let mut text = String::with_capacity(s.len());
    let mut from = Vec::with_capacity(s.len() + 1);
    let mut i = 0;
    while i < s.len() {
        let (len, ch) = match s.as_bytes()[i] {
            b'\\' => escape_at(s, i).unwrap_or((1, '\\')),
            _ => {
                let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
                (ch.len_utf8(), ch)
            }
        };
        text.push(ch);
        from.resize(text.len(), i);
        i += len;
    }
    from.push(s.len());
    Some(Decoded { text, from })
}

/// One replacement found on the decoded text: its span there and what goes in its place.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Replacement<'r> {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) with: Cow<'r, str>,
    /// The placeholder and the decoded value it replaced, for a traced replacement.
    pub(super) mark: Option<(&'static str, String)>,
}

impl Replacement<'_> {
    /// The replacement moved onto the escaped text, whose stretch at `offset` `decoded` decodes.
    pub(super) fn onto_source(mut self, decoded: &Decoded, offset: usize) -> Self {
        self.start = offset + decoded.from[self.start];
        self.end = offset + decoded.from[self.end];
        self
    }
}

/// The replacements that turn `decoded` into `redacted`, given the marks of that redaction.
///
/// Marks are walked in order while the text between them matches; from the first place where it
/// does not (an untraced edit), the rest is one replacement: what lies between the common head
/// and the common tail of the two remainders.
pub(super) fn replacements<'r>(
    decoded: &str,
    redacted: &'r str,
    marks: &[Mark],
) -> Vec<Replacement<'r>> {
    let mut out = Vec::new();
    let (mut d, mut r) = (0, 0);
    for m in marks {
        let Some(gap) = redacted.get(r..m.start()) else {
            break;
        };
        let at = d + gap.len();
        if decoded.get(d..at) != Some(gap) || !decoded[at..].starts_with(m.value()) {
            break;
        }
        let end = at + m.value().len();
        out.push(Replacement {
            start: at,
            end,
            with: Cow::Borrowed(m.placeholder()),
            mark: Some((m.placeholder(), m.value().to_owned())),
        });
        (d, r) = (end, m.end());
    }
    let (dr, rr) = (&decoded[d..], &redacted[r..]);
    if dr != rr {
        let head = common_head(dr, rr);
        let tail = common_tail(&dr[head..], &rr[head..]);
        out.push(Replacement {
            start: d + head,
            end: decoded.len() - tail,
            with: Cow::Borrowed(&rr[head..rr.len() - tail]),
            mark: None,
        });
    }
    out
}

/// Bytes `a` and `b` share at their start, cut back to a character boundary.
fn common_head(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Bytes `a` and `b` share at their end, cut back to a character boundary.
fn common_tail(a: &str, b: &str) -> usize {
    let mut n = (a.bytes().rev().zip(b.bytes().rev()))
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - n) {
        n -= 1;
    }
    n
}

/// `escaped` with `replacements` (spans of it, [moved there](Replacement::onto_source), sorted)
/// made. Text a replacement brings that is not a placeholder is escaped as JSON escapes it.
/// With `marks` (those on `escaped`, sorted), the marks are moved to the output: kept where the
/// text around them stays, dropped inside a replaced span, and a new one for each traced
/// placeholder.
pub(super) fn carry_back(
    escaped: &str,
    replacements: &[Replacement<'_>],
    mut marks: Option<&mut Vec<Mark>>,
) -> String {
    let mut out = String::with_capacity(escaped.len());
    let old = marks.as_deref_mut().map(std::mem::take).unwrap_or_default();
    let mut old = old.into_iter().peekable();
    let mut last = 0;
    for rep in replacements {
        let (start, end) = (rep.start, rep.end);
        if start < last {
            continue;
        }
        let shift = out.len() as isize - last as isize;
        // Marks before the span move with the text; those inside it go with it.
        while let Some(m) = old.next_if(|m| m.start() < end) {
            if m.end() <= start
                && let Some(marks) = marks.as_deref_mut()
            {
                marks.push(m.moved(shift));
            }
        }
        out.push_str(&escaped[last..start]);
        if let (Some((placeholder, value)), Some(marks)) = (&rep.mark, marks.as_deref_mut()) {
            marks.push(Mark::new(
                out.len(),
                placeholder,
                labelled_class(placeholder),
                value,
            ));
        }
        escape_into(&rep.with, &mut out);
        last = end;
    }
    let shift = out.len() as isize - last as isize;
    if let Some(marks) = marks {
        marks.extend(old.map(|m| m.moved(shift)));
    }
    out.push_str(&escaped[last..]);
    out
}

/// Appends `text` escaped as a JSON string's content (placeholders hold nothing to escape).
fn escape_into(text: &str, out: &mut String) {
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_maps_every_byte_to_its_escape() {
        let d = decode(r#"a\"é\n\u00e9\\x"#).expect("escapes");
        assert_eq!(d.text, "a\"é\né\\x");
        // a, ", é (2 bytes), \n, é (2 bytes from one \u escape), \, x, end.
        assert_eq!(d.from, vec![0, 1, 3, 3, 5, 7, 7, 13, 15, 16]);
    }

    #[test]
    fn text_without_escapes_is_not_decoded() {
        assert!(decode(r"C:\Windows\System32 \x41 \d+").is_none());
        assert!(decode(r"lone \ud800 surrogate").is_none());
    }

    #[test]
    fn a_surrogate_pair_is_one_character() {
        assert_eq!(decode(r"\ud83d\ude00!").map(|d| d.text), Some("😀!".into()));
    }

    #[test]
    fn untraced_edits_become_one_replacement_between_head_and_tail() {
        let reps = replacements(
            "keep this\tat x.y(Z.java:1) end",
            "keep this <STACK> end",
            &[],
        );
        assert_eq!(reps.len(), 1);
        assert_eq!((reps[0].start, reps[0].end), (9, 26));
        assert_eq!(reps[0].with, " <STACK>");
    }

    #[test]
    fn carried_back_text_is_escaped_again() {
        let escaped = r#"x\n\"a\"\ty"#;
        let d = decode(escaped).expect("escapes");
        let reps = vec![Replacement {
            start: 1,
            end: 5,
            with: Cow::Borrowed("\"q\"\n"),
            mark: None,
        }];
        let reps: Vec<_> = reps.into_iter().map(|r| r.onto_source(&d, 0)).collect();
        assert_eq!(carry_back(escaped, &reps, None), r#"x\"q\"\n\ty"#);
    }

    #[test]
    fn stretches_end_at_the_quotes_the_escaped_text_sits_in() {
        let s = r#"{"a":"x \"y\"","b":"plain","c":"z\n"} tail\t"#;
        let got: Vec<&str> = stretches(s).into_iter().map(|r| &s[r]).collect();
        assert_eq!(got, [r#"x \"y\""#, r"z\n", r"} tail\t"]);
    }
}
