//! Correlation labels: `<IP#1>`, `<POD#2>`, the same label for the same value within one call.
//!
//! An agent that sees `<POD>` forty times cannot tell one failing pod from forty. Keeping the
//! value leaks it, and a keyed hash of a small space (IPv4) can be reversed by guessing, so a
//! label here is a *counter*: the n-th distinct value of its class, in the order the values first
//! appear. Nothing of the value goes into the label, and the map from values to counters lives
//! only as long as the call.
//!
//! How it stays out of the rules' way: the rules keep writing plain placeholders, so nothing
//! they match ever meets a label and `redact(redact(x)) == redact(x)` is untouched. While a
//! message is redacted with marks ([`super::Redactor::redact_marked`]), a [`Tracer`] hears every
//! replacement an [`Edit`](super::text::Edit) makes; each placeholder becomes a [`Mark`]
//! (where it sits, which raw value it replaced, whether it takes a label), carried across later
//! passes and rounds as the text around it changes. Labels are written last, by a
//! [`Correlator`], in input order, which is what keeps them deterministic when another thread
//! did the redacting. A pass whose edits cannot be traced (a rule that builds its output by
//! other means) only costs labels: the marks it may have moved are dropped and those
//! placeholders stay plain, which is always safe.
//!
//! Memory: the correlator keeps a 128-bit digest per distinct value (never the value), at most
//! [`MAX_DISTINCT`] per class. A value first seen after its class is full gets the plain
//! placeholder, counted as unlabelled: a label therefore always means one value.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::RedactionClass;
use super::text::Traced;

/// Distinct values labelled per class and call. Past it, new values keep the plain placeholder.
pub const MAX_DISTINCT: u32 = 4096;

/// The class a placeholder labels under, or `None` when it stays plain. Identities (host, pod,
/// IP, e-mail, PID) and credentials (secret, token) get labels: equality is the diagnostic fact
/// ("every timeout talks to one IP", "the rotated key was not picked up"). SQL literals and
/// stacks are data and shape, not identities. Numbering goes by placeholder, so `<SECRET#2>` is
/// the second distinct value behind a `<SECRET>`, whichever rule wrote it.
pub fn labelled_class(placeholder: &str) -> Option<RedactionClass> {
    use super::text::{EMAIL, HOST, IP, PID, POD, SECRET, TOKEN};
    Some(match placeholder {
        SECRET => RedactionClass::Secret,
        TOKEN => RedactionClass::Token,
        HOST => RedactionClass::Host,
        POD => RedactionClass::Pod,
        PID => RedactionClass::Pid,
        IP => RedactionClass::Ip,
        EMAIL => RedactionClass::Email,
        _ => return None,
    })
}

/// A placeholder in redacted text and the raw value it replaced (held only while the message is
/// in flight, never written anywhere). Placeholders that take no label (`<STR>`) are marked too,
/// so a labelled value that later swallows one is still its raw text: two values that differ
/// only inside a SQL literal are two values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    start: usize,
    placeholder: &'static str,
    class: Option<RedactionClass>,
    value: String,
}

impl Mark {
    /// Byte offset of the placeholder in the redacted text.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The class the value is labelled under; `None` for a placeholder that takes no label.
    pub fn class(&self) -> Option<RedactionClass> {
        self.class
    }

    /// Byte offset just past the placeholder.
    pub(crate) fn end(&self) -> usize {
        self.start + self.placeholder.len()
    }

    /// Moves the mark by `by` bytes (the text before it grew or shrank).
    pub(crate) fn shift(&mut self, by: isize) {
        self.start = self.start.wrapping_add_signed(by);
    }

    /// The mark moved by `by` bytes.
    pub(crate) fn moved(mut self, by: isize) -> Mark {
        self.shift(by);
        self
    }

    /// A mark for `placeholder` at `start`, standing for the raw `value`.
    pub(crate) fn new(
        start: usize,
        placeholder: &'static str,
        class: Option<RedactionClass>,
        value: &str,
    ) -> Mark {
        Mark {
            start,
            placeholder,
            class,
            value: value.to_owned(),
        }
    }

    /// The placeholder written.
    pub(crate) fn placeholder(&self) -> &'static str {
        self.placeholder
    }

    /// The raw value the placeholder replaced.
    pub(crate) fn value(&self) -> &str {
        &self.value
    }
}

/// Updates `marks` (on `cur`, sorted by start) to `next`, the output of one rule's pass over
/// `cur`, given the replacements the tracer heard during that pass.
pub(crate) fn follow(cur: &str, next: &str, traced: &[Traced], marks: &mut Vec<Mark>) {
    let src = (cur.as_ptr() as usize, cur.len());
    let edits: Vec<&Traced> = traced.iter().filter(|t| t.src == src).collect();
    if !explains(cur, next, &edits) {
        follow_untraced(cur, next, marks);
        return;
    }
    let old = std::mem::take(marks);
    let mut old = old.into_iter().peekable();
    let mut shift: isize = 0;
    for e in edits {
        // Marks before the edit move with the text before it.
        while let Some(m) = old.next_if(|m| m.start < e.start) {
            if m.end() <= e.start {
                marks.push(m.moved(shift));
            }
        }
        // Marks inside the replaced span are part of the new value; one straddling its end is
        // lost (no rule cuts a placeholder, so this does not happen).
        let mut inner = Vec::new();
        while let Some(m) = old.next_if(|m| m.start < e.end) {
            if m.end() <= e.end {
                inner.push(m);
            }
        }
        if let Some(placeholder) = e.placeholder {
            let mut value = String::with_capacity(e.end - e.start);
            let mut at = e.start;
            for m in &inner {
                value.push_str(&cur[at..m.start]);
                value.push_str(&m.value);
                at = m.end();
            }
            value.push_str(&cur[at..e.end]);
            marks.push(Mark {
                start: e.start.wrapping_add_signed(shift),
                placeholder,
                class: labelled_class(placeholder),
                value,
            });
        }
        shift += e.with_len as isize - (e.end - e.start) as isize;
    }
    marks.extend(old.map(|m| m.moved(shift)));
}

/// Whether applying `edits` to `cur` gives exactly `next`: then they are the whole pass.
fn explains(cur: &str, next: &str, edits: &[&Traced]) -> bool {
    let (c, n) = (cur.as_bytes(), next.as_bytes());
    let mut last = 0;
    let mut pos = 0;
    for e in edits {
        if e.start < last || e.end < e.start || e.end > c.len() {
            return false;
        }
        let kept = &c[last..e.start];
        let Some(got) = n.get(pos..pos + kept.len()) else {
            return false;
        };
        if got != kept {
            return false;
        }
        pos += kept.len();
        let Some(with) = n.get(pos..pos + e.with_len) else {
            return false;
        };
        if e.placeholder.is_some_and(|p| p.as_bytes() != with) {
            return false;
        }
        pos += e.with_len;
        last = e.end;
    }
    n.get(pos..) == Some(&c[last..])
}

/// A pass the tracer could not explain: keep the marks in the unchanged head and tail, drop the
/// rest (their placeholders stay plain).
fn follow_untraced(cur: &str, next: &str, marks: &mut Vec<Mark>) {
    let (c, n) = (cur.as_bytes(), next.as_bytes());
    let head = c.iter().zip(n).take_while(|(a, b)| a == b).count();
    let room = c.len().min(n.len()) - head;
    let tail = c
        .iter()
        .rev()
        .zip(n.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let shift = n.len() as isize - c.len() as isize;
    marks.retain_mut(|m| {
        if m.end() <= head {
            true
        } else if m.start >= c.len() - tail {
            m.shift(shift);
            true
        } else {
            false
        }
    });
}

/// Assigns labels in the order it is shown marks: one counter per class, one entry per distinct
/// value (a digest, never the value), [`MAX_DISTINCT`] per class at most.
#[derive(Clone, Debug, Default)]
pub struct Correlator {
    seen: HashMap<(RedactionClass, [u8; 16]), u32>,
    distinct: [u32; 9],
    unlabelled: u64,
}

impl Correlator {
    /// A correlator for one call or stream.
    pub fn new() -> Correlator {
        Correlator::default()
    }

    /// The label number of a value of `class`, assigning the next one on first sight; `None`
    /// when the class is full.
    fn ordinal(&mut self, class: RedactionClass, value: &str) -> Option<u32> {
        let digest: [u8; 32] = Sha256::digest(value.as_bytes()).into();
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        let slot = &mut self.distinct[class as usize];
        match self.seen.entry((class, key)) {
            std::collections::hash_map::Entry::Occupied(o) => Some(*o.get()),
            std::collections::hash_map::Entry::Vacant(v) => {
                if *slot >= MAX_DISTINCT {
                    return None;
                }
                *slot += 1;
                Some(*v.insert(*slot))
            }
        }
    }

    /// Takes in the values of `marks` (in order) without writing anything: for text that is not
    /// shown but must still number the values it holds.
    pub fn observe(&mut self, marks: &[Mark]) {
        for m in marks {
            if let Some(class) = m.class
                && self.ordinal(class, &m.value).is_none()
            {
                self.unlabelled += 1;
            }
        }
    }

    /// `text` (redacted, with `marks` on it) with each marked placeholder labelled: `<IP>`
    /// becomes `<IP#n>`. A mark that does not sit on its placeholder is skipped.
    pub fn label(&mut self, text: &str, marks: &[Mark]) -> String {
        let mut out = String::with_capacity(text.len() + 3 * marks.len());
        let mut last = 0;
        for m in marks {
            let Some(class) = m.class else {
                continue;
            };
            let on_it = m.start >= last
                && text
                    .get(m.start..)
                    .is_some_and(|t| t.starts_with(m.placeholder));
            if !on_it {
                continue;
            }
            let Some(n) = self.ordinal(class, &m.value) else {
                self.unlabelled += 1;
                continue;
            };
            out.push_str(&text[last..m.start]);
            out.push_str(&m.placeholder[..m.placeholder.len() - 1]);
            out.push('#');
            out.push_str(&n.to_string());
            out.push('>');
            last = m.end();
        }
        out.push_str(&text[last..]);
        out
    }

    /// Distinct values labelled per class, in [`RedactionClass::ALL`] order, zeros left out.
    pub fn distinct(&self) -> impl Iterator<Item = (RedactionClass, u32)> + '_ {
        RedactionClass::ALL
            .iter()
            .map(|&c| (c, self.distinct[c as usize]))
            .filter(|(_, n)| *n > 0)
    }

    /// Placeholders left plain because their class was full.
    pub fn unlabelled(&self) -> u64 {
        self.unlabelled
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;

    use super::super::{RedactionCounts, Redactor, catalogue, redact};
    use super::*;

    fn marked(s: &str) -> (String, Vec<Mark>, RedactionCounts) {
        let mut marks = Vec::new();
        let mut counts = RedactionCounts::default();
        let out = Redactor::shared()
            .redact_marked(s, &mut marks, &mut counts)
            .into_owned();
        (out, marks, counts)
    }

    /// Labels `lines` as one call would, in order.
    fn labelled(lines: &[&str]) -> Vec<String> {
        let mut c = Correlator::new();
        lines
            .iter()
            .map(|l| {
                let (out, marks, _) = marked(l);
                c.label(&out, &marks)
            })
            .collect()
    }

    /// Marked redaction gives the text and counts plain redaction gives, and every mark sits on
    /// a labelled placeholder and holds a value that occurs in the input.
    #[track_caller]
    fn holds(input: &str) {
        let mut want_counts = RedactionCounts::default();
        let want = redact(input, &mut want_counts);
        let (out, marks, counts) = marked(input);
        assert_eq!(out, want, "text differs for {input:?}");
        assert_eq!(counts, want_counts, "counts differ for {input:?}");
        let mut last = 0;
        for m in &marks {
            assert!(m.start >= last, "marks out of order for {input:?}");
            assert!(
                out[m.start..].starts_with(m.placeholder),
                "mark off its placeholder for {input:?}: {m:?} in {out:?}"
            );
            assert!(
                input.contains(&m.value),
                "value not from the input for {input:?}"
            );
            last = m.end();
        }
    }

    #[test]
    fn marked_redaction_is_plain_redaction_on_every_example_and_the_corpus() {
        for rule in catalogue() {
            for e in rule.examples {
                holds(e.input);
            }
            for n in rule.negatives {
                holds(n);
            }
        }
        let text = include_str!("../../fixtures/redaction/corpus.jsonl");
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("corpus line is JSON");
            if let Some(l) = v["line"].as_str() {
                holds(l);
            }
        }
    }

    /// The fuzz finds are the inputs where rounds and rules meet oddly: the marks must follow.
    #[test]
    fn marked_redaction_is_plain_redaction_on_every_fuzz_find() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz/redact");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).expect("the fuzz finds are in the repository") {
            let bytes = std::fs::read(entry.expect("a readable entry").path()).unwrap();
            holds(&String::from_utf8_lossy(&bytes));
            n += 1;
        }
        assert!(n > 10, "{n} fuzz finds");
    }

    #[test]
    fn the_same_value_gets_the_same_label_by_first_appearance() {
        let got = labelled(&[
            "connect 10.0.0.1:6379 timeout",
            "connect 10.0.0.2:6379 timeout",
            "connect 10.0.0.1:6379 timeout from pod web-7d9f8c6b5-x2k4m",
            "pod api-5f6d7c8b9-q8w7e and pod web-7d9f8c6b5-x2k4m: password=hunter2",
            "retry password=hunter2 then password=swordfish",
        ]);
        assert_eq!(
            got,
            [
                "connect <IP#1>:6379 timeout",
                "connect <IP#2>:6379 timeout",
                "connect <IP#1>:6379 timeout from pod <POD#1>",
                "pod <POD#2> and pod <POD#1>: password=<SECRET#1>",
                "retry password=<SECRET#1> then password=<SECRET#2>",
            ]
        );
    }

    #[test]
    fn sql_literals_and_stacks_stay_plain() {
        let got =
            labelled(&["SELECT * FROM t WHERE name = 'bob' AND host = 'db1.corp.example.com'"]);
        assert!(!got[0].contains('#'), "{got:?}");
    }

    #[test]
    fn a_full_class_leaves_new_values_plain_and_keeps_old_labels() {
        let mut c = Correlator::new();
        for i in 0..MAX_DISTINCT {
            let line = format!("from 10.{}.{}.1", i / 256, i % 256);
            let (out, marks, _) = marked(&line);
            assert!(c.label(&out, &marks).ends_with(&format!("<IP#{}>", i + 1)));
        }
        let (out, marks, _) = marked("from 10.200.0.1 and 10.0.0.1");
        assert_eq!(c.label(&out, &marks), "from <IP> and <IP#1>");
        assert_eq!(c.unlabelled(), 1);
        assert_eq!(
            c.distinct().collect::<Vec<_>>(),
            [(RedactionClass::Ip, MAX_DISTINCT)]
        );
    }

    #[test]
    fn an_untraced_pass_keeps_the_marks_it_did_not_touch() {
        // The stack rules build their output without an `Edit`: the head's marks survive.
        let input = "call 10.0.0.9 failed\nTraceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: bad";
        let (out, marks, _) = marked(input);
        let got = Correlator::new().label(&out, &marks);
        assert!(got.starts_with("call <IP#1> failed"), "{got:?}");
    }

    /// Values of four labelled classes, six each, and a phrase that plants one.
    const POOL: [(&str, [&str; 6]); 4] = [
        (
            "IP",
            [
                "10.0.0.1",
                "10.0.0.2",
                "192.168.7.40",
                "172.16.0.3",
                "10.9.8.7",
                "8.8.4.4",
            ],
        ),
        (
            "EMAIL",
            [
                "a@example.com",
                "b@example.com",
                "ops@corp.example.org",
                "x.y@example.net",
                "z@example.io",
                "q@example.de",
            ],
        ),
        (
            "POD",
            [
                "web-7d9f8c6b5-x2k4m",
                "web-7d9f8c6b5-q8w7e",
                "api-5f6d7c8b9-zz9pq",
                "api-5f6d7c8b9-b4c5d",
                "job-6c7d8f9b5-kq2mx",
                "db-8f9c6b5d7-w2x4z",
            ],
        ),
        (
            "SECRET",
            [
                "hunter2",
                "swordfish",
                "Tr0ub4dor",
                "correcthorse",
                "p4ssw0rd!",
                "letmein99",
            ],
        ),
    ];

    fn phrase(class: usize, value: &str) -> String {
        match class {
            0 => format!("connect {value}:443 refused"),
            1 => format!("mail to {value} bounced"),
            2 => format!("pod {value} restarted"),
            _ => format!("login password={value} rejected"),
        }
    }

    /// `<IP#3>` → `<IP>`: what the labels add, taken away.
    pub(crate) fn strip_labels(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(i) = rest.find('#') {
            let digits = rest[i + 1..].bytes().take_while(u8::is_ascii_digit).count();
            out.push_str(&rest[..i]);
            let after = &rest[i + 1 + digits..];
            let named = rest[..i]
                .bytes()
                .last()
                .is_some_and(|b| b.is_ascii_uppercase());
            if digits > 0 && named && after.starts_with('>') {
                rest = after;
            } else {
                out.push('#');
                rest = &rest[i + 1..];
            }
        }
        out.push_str(rest);
        out
    }

    proptest! {
        /// Equal values get equal labels and different values different ones, however the
        /// values are spread over lines; the labels only add ordinals to the plain output; no
        /// raw value survives.
        #[test]
        fn labels_follow_values(
            lines in proptest::collection::vec(
                proptest::collection::vec((0usize..4, 0usize..6), 1..4), 1..30),
            noise in "[ a-z0-9#<>=:.-]{0,12}",
        ) {
            let texts: Vec<String> = lines
                .iter()
                .map(|picks| {
                    let parts: Vec<String> =
                        picks.iter().map(|&(c, v)| phrase(c, POOL[c].1[v])).collect();
                    format!("{} ; {noise}", parts.join(" ; "))
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let out = labelled(&refs);
            let mut by_value: std::collections::BTreeMap<(usize, usize), String> = Default::default();
            let mut by_label: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
            for ((picks, line), raw) in lines.iter().zip(&out).zip(&texts) {
                prop_assert_eq!(strip_labels(line), redact(raw, &mut RedactionCounts::default()).into_owned());
                for (_, values) in POOL {
                    for v in values {
                        prop_assert!(!line.contains(v), "{} in {:?} from {:?}", v, line, raw);
                    }
                }
                let segments: Vec<&str> = line.split(" ; ").collect();
                for (&(c, v), segment) in picks.iter().zip(&segments) {
                    let label = segment
                        .split('<')
                        .nth(1)
                        .and_then(|t| t.split_once('>'))
                        .map(|(l, _)| l.to_owned())
                        .unwrap_or_default();
                    prop_assert!(label.starts_with(&format!("{}#", POOL[c].0)), "{} in {:?}", label, line);
                    let old = by_value.insert((c, v), label.clone());
                    prop_assert!(old.is_none_or(|o| o == label), "{:?}", line);
                    let old = by_label.insert(label, (c, v));
                    prop_assert!(old.is_none_or(|o| o == (c, v)), "{:?}", line);
                }
            }
        }
    }
}
