//! Merging templates whose differences are runs of values that differ in length.
//!
//! Why: the miner compares messages position by position, and `spans` (which runs after this)
//! merges templates that differ inside *one* span; an event with two or three parameters of varying length (a list
//! of one to six items *and* a path, a quoted reason *and* a duration) still gives most of its
//! lines a template of their own, because no two of them agree outside one span.
//!
//! What it does, over the finished templates: two templates with the same leading token are
//! aligned on their common constant words (the longest common subsequence of the tokens that
//! are not values), and they are one event when every stretch between those words where they
//! disagree (a *gap*, less the tokens both sides share at its ends) is a non-empty run of
//! values on both sides, and at least one gap differs in length (or is a lone `<*>`, a slot
//! already found variable). Values are tokens holding a mask, a placeholder or a digit, dotted
//! names, paths, `key=value` pairs, names joined by `-` or `@` (`db-primary`, `bob@mq-east`:
//! hosts and identities, seldom an event's constant), the words of a quoted or bracketed
//! group (a bracket may open right after a key: `scopes=[read write]`), the items of a comma-separated list, a whole SQL statement, and the message after a qualified type's `Name:` (or after
//! the `<*>:` the miner prints for such a label once its slot varies), or a statement whose
//! clauses are masked (`SELECT <*>`). Each gap becomes one `<*>`. One plain word against a
//! lone `<*>` (a slot the miner found variable at another length) is read as a value of that
//! slot, but counts only when another gap differs in length: alone it is no evidence. A word
//! joined to values by a separator (`nginx - <IP>:<*>`) against a lone `<*>` is that slot's
//! longer value. An empty side (a field present or absent), bare punctuation (`****`) but
//! between two values (`<*> - <IP>:<*>`), two different keys in one position, and records
//! (`{…}`) with other field names keep events apart: Loghub's labels count each as an event of
//! its own. A side is not left empty when the shared token next to the extra ones is a value
//! (`<IP>:<*>` and `nginx - <IP>:<*>`, `5s` and `1m 5s`): that token stays in the gap. Templates are folded greedily, in order, into the
//! first representative they unify with, and representatives are then unified with each other
//! until nothing changes, so a template only ever generalizes.
//!
//! Why constants stay apart: a plain word outside a group is never part of a gap (but for the
//! one word against a `<*>` above), so `cache hit for` and `cache miss for` never align into one
//! event, whatever values follow. It runs twice: on the miner's templates, where quoted and
//! bracketed groups are whole, and after `spans`, on what that made.
//! Trade-off: two events told apart only by a constant *inside* a quoted or bracketed group of
//! different lengths (`"GET /a HTTP/1.1"` and `"POST /a/b c HTTP/1.1"`) are read as one. Work is
//! bounded: at most [`MAX_REPS`] representatives per leading token are compared, each
//! comparison costs the product of the two lengths (at most 64 tokens each), and it runs over
//! templates, not lines.

use std::collections::HashMap;

use super::spans::Merged;
use super::{WILDCARD, has_placeholder};

/// Representatives compared per leading token; past it a template stays as it is.
const MAX_REPS: usize = 64;
/// Rounds of unifying representatives with each other; each only generalizes.
const MAX_ROUNDS: usize = 4;
/// The most tokens a quoted or bracketed group may span.
const MAX_GROUP: usize = 16;

/// One template: its tokens, which of them may sit in a gap, and which `<*>` stand for a run
/// of values of varying length (made here from such a gap).
#[derive(Clone)]
struct Tpl {
    tokens: Vec<Box<str>>,
    valueish: Vec<bool>,
    spanning: Vec<bool>,
    /// Inside a `{…}` record, whose field names are its shape.
    record: Vec<bool>,
    /// A `<*>:` the miner made from a qualified type's label: what follows is its message.
    labels: Vec<bool>,
}

impl Tpl {
    fn new(tokens: Vec<Box<str>>, spanning: Vec<bool>, labels: Vec<bool>) -> Self {
        let (valueish, record) = valueish(&tokens, &labels);
        Tpl {
            tokens,
            valueish,
            spanning,
            record,
            labels,
        }
    }

    /// A template's text and the bit set of its tokens that are masked labels.
    fn parse(text: &str, labels: u64) -> Self {
        let tokens: Vec<Box<str>> = text
            .split(' ')
            .filter(|t| !t.is_empty())
            .map(Box::from)
            .collect();
        let spanning = vec![false; tokens.len()];
        let labels = (0..tokens.len())
            .map(|i| i < 64 && labels >> i & 1 == 1)
            .collect();
        Tpl::new(tokens, spanning, labels)
    }

    /// A constant word: the only kind of token an alignment anchors on.
    fn anchor(&self, i: usize) -> bool {
        !self.valueish[i]
    }
}

/// Merges the templates (by their texts, and for each the bit set of its tokens that are a
/// masked qualified label) whose gaps are all runs of values.
pub(super) fn merge(texts: &[Box<str>], labels: &[u64]) -> Merged {
    let mut reps: Vec<Tpl> = Vec::new();
    // forward[r]: the representative r was folded into (itself while alive).
    let mut forward: Vec<u32> = Vec::new();
    let mut by_key: HashMap<Box<str>, Vec<u32>> = HashMap::new();
    let mut of: Vec<u32> = Vec::with_capacity(texts.len());
    for (k, text) in texts.iter().enumerate() {
        let t = Tpl::parse(text, labels.get(k).copied().unwrap_or(0));
        let key: Box<str> = t.tokens.first().cloned().unwrap_or_default();
        let list = by_key.entry(key).or_default();
        let mut joined = None;
        for &r in list.iter().take(MAX_REPS) {
            if let Some(u) = unify(&reps[r as usize], &t) {
                reps[r as usize] = u;
                joined = Some(r);
                break;
            }
        }
        let r = joined.unwrap_or_else(|| {
            let r = reps.len() as u32;
            reps.push(t);
            forward.push(r);
            list.push(r);
            r
        });
        of.push(r);
    }
    // A representative that generalized may now unify with one made before it.
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for list in by_key.values_mut() {
            let mut kept: Vec<u32> = Vec::with_capacity(list.len());
            for &r in list.iter() {
                let mut into = None;
                for &k in kept.iter().take(MAX_REPS) {
                    if let Some(u) = unify(&reps[k as usize], &reps[r as usize]) {
                        into = Some((k, u));
                        break;
                    }
                }
                match into {
                    Some((k, u)) => {
                        reps[k as usize] = u;
                        forward[r as usize] = k;
                        changed = true;
                    }
                    None => kept.push(r),
                }
            }
            *list = kept;
        }
        if !changed {
            break;
        }
    }
    let resolve = |mut r: u32| {
        while forward[r as usize] != r {
            r = forward[r as usize];
        }
        r
    };
    let mut out: Vec<Box<str>> = Vec::new();
    let mut slot: HashMap<u32, u32> = HashMap::new();
    let mut by_text: HashMap<Box<str>, u32> = HashMap::new();
    let of = of
        .iter()
        .map(|&r| {
            let r = resolve(r);
            *slot.entry(r).or_insert_with(|| {
                let text: Box<str> = reps[r as usize].tokens.join(" ").into();
                let next = out.len() as u32;
                let id = *by_text.entry(text.clone()).or_insert(next);
                if id == next {
                    out.push(text);
                }
                id
            })
        })
        .collect();
    Merged { texts: out, of }
}

/// The template both read as, when every gap between their common constant words is a run of
/// values on both sides and at least one gap differs in length.
fn unify(a: &Tpl, b: &Tpl) -> Option<Tpl> {
    if a.tokens == b.tokens {
        return Some(a.clone());
    }
    let (n, m) = (a.tokens.len(), b.tokens.len());
    let same = |i: usize, j: usize| a.anchor(i) && b.anchor(j) && a.tokens[i] == b.tokens[j];
    // lcs[i][j]: the most common anchors of a[i..] and b[j..], in order.
    let w = m + 1;
    let mut lcs = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if same(i, j) {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    if lcs[0] == 0 {
        return None;
    }
    let mut out = Out::default();
    let mut lengths = false;
    let (mut i, mut j) = (0, 0);
    let (mut gi, mut gj) = (0, 0); // where the current gap started
    loop {
        let matched = i < n && j < m && same(i, j);
        if matched || i == n && j == m {
            match gap(a, gi..i, b, gj..j, &mut out) {
                Gap::Constant => return None,
                Gap::Lengths => lengths = true,
                Gap::Values => {}
            }
            if !matched {
                break;
            }
            out.push(&a.tokens[i], false, false);
            i += 1;
            j += 1;
            (gi, gj) = (i, j);
        } else if j == m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            i += 1;
        } else {
            j += 1;
        }
    }
    lengths.then(|| Tpl::new(out.tokens, out.spanning, out.labels))
}

/// The merged template being written: a run of `<*>` is kept as one.
#[derive(Default)]
struct Out {
    tokens: Vec<Box<str>>,
    spanning: Vec<bool>,
    labels: Vec<bool>,
}

impl Out {
    fn push(&mut self, token: &str, spanning: bool, label: bool) {
        if token == WILDCARD && self.tokens.last().is_some_and(|l| &**l == WILDCARD) {
            if let Some(s) = self.spanning.last_mut() {
                *s |= spanning;
            }
            return;
        }
        self.tokens.push(token.into());
        self.spanning.push(spanning);
        self.labels.push(label);
    }
}

/// What one gap of an alignment says.
#[derive(PartialEq)]
enum Gap {
    /// Not a run of values on both sides: the templates are different events.
    Constant,
    /// Runs of values of different lengths (or one side a `<*>` that stood for such runs): a
    /// variable-length parameter.
    Lengths,
    /// The same, or runs of values of one length: a parameter position, if the templates are
    /// one event at all.
    Values,
}

/// Reads one gap and writes what the merged template shows there. Tokens the two sides share
/// at its ends are kept; what is left must be non-empty on both sides (an optional field,
/// present or absent, is often an event of its own) and values only.
fn gap(
    a: &Tpl,
    ra: std::ops::Range<usize>,
    b: &Tpl,
    rb: std::ops::Range<usize>,
    out: &mut Out,
) -> Gap {
    let (x, y) = (&a.tokens[ra.clone()], &b.tokens[rb.clone()]);
    if x == y {
        for (k, t) in x.iter().enumerate() {
            let (ka, kb) = (ra.start + k, rb.start + k);
            out.push(
                t,
                a.spanning[ka] || b.spanning[kb],
                a.labels[ka] && b.labels[kb],
            );
        }
        return Gap::Values;
    }
    // A lone `<*>` is not trimmed: it may stand for the whole run on the other side.
    let keep = |p: &str, q: &str| p == q && p != WILDCARD;
    let head = x.iter().zip(y).take_while(|(p, q)| keep(p, q)).count();
    let tail = x[head..]
        .iter()
        .rev()
        .zip(y[head..].iter().rev())
        .take_while(|(p, q)| keep(p, q))
        .count();
    let (head, tail) = widen(a, &ra, b, &rb, head, tail);
    let (ra, rb) = (
        ra.start + head..ra.end - tail,
        rb.start + head..rb.end - tail,
    );
    let values = |t: &Tpl, r: &std::ops::Range<usize>| {
        !r.is_empty() && (r.start..r.end).all(|k| t.valueish[k] || joins_values(t, r, k, false))
    };
    let lone =
        |t: &Tpl, r: &std::ops::Range<usize>| r.len() == 1 && &*t.tokens[r.start] == WILDCARD;
    // One word against a slot the miner found variable (at another length, or in another
    // family): a value of that slot, as long as another gap says the two are one event.
    let word = |t: &Tpl, r: &std::ops::Range<usize>| {
        r.len() == 1
            && !t.valueish[r.start]
            && t.tokens[r.start].bytes().any(|b| b.is_ascii_alphabetic())
    };
    if (lone(a, &ra) && word(b, &rb)) || (lone(b, &rb) && word(a, &ra)) {
        for t in &x[..head] {
            out.push(t, false, false);
        }
        out.push(WILDCARD, false, false);
        for t in &x[x.len() - tail..] {
            out.push(t, false, false);
        }
        return Gap::Values;
    }
    // A word joined to a value by a separator (`nginx - <IP>:<*>`), against a slot the miner
    // found variable: the value's longer form, whose first part the miner saw once.
    let joined = |t: &Tpl, r: &std::ops::Range<usize>| {
        r.len() >= 3
            && word(t, &(r.start..r.start + 1))
            && joins_values(t, &(r.start..r.end), r.start + 1, true)
            && values(t, &(r.start + 2..r.end))
    };
    let a_values = values(a, &ra) || (lone(b, &rb) && joined(a, &ra));
    let b_values = values(b, &rb) || (lone(a, &ra) && joined(b, &rb));
    if !a_values || !b_values {
        return Gap::Constant;
    }
    let spans = |t: &Tpl, r: &std::ops::Range<usize>| t.spanning[r.clone()].iter().any(|&s| s);
    let varies =
        ra.len() != rb.len() || spans(a, &ra) || spans(b, &rb) || lone(a, &ra) || lone(b, &rb);
    // A record's field names are its shape: two records with different fields are two events.
    if !same_fields(a, &ra, b, &rb) {
        return Gap::Constant;
    }
    // Position by position, two different keys are two different fields.
    if !varies
        && a.tokens[ra.clone()]
            .iter()
            .zip(&b.tokens[rb.clone()])
            .any(|(p, q)| matches!((key_of(p), key_of(q)), (Some(k), Some(l)) if k != l))
    {
        return Gap::Constant;
    }
    for (k, t) in x[..head].iter().enumerate() {
        out.push(t, false, a.labels[ra.start - head + k]);
    }
    out.push(WILDCARD, varies, false);
    for (k, t) in x[x.len() - tail..].iter().enumerate() {
        out.push(t, false, a.labels[ra.end + k]);
    }
    if varies { Gap::Lengths } else { Gap::Values }
}

/// How many shared tokens to keep at a gap's head and tail: all, unless that leaves one side
/// empty while the other holds more, and the shared token next to the extra ones is a value
/// (`<IP>:<*>` and `nginx - <IP>:<*>`, `5s` and `1m 5s`): then that token stays in the gap, so
/// the gap reads as one value that takes more tokens on one side. An extra run next to a shared
/// word (`from <IP>` and `from <IP> port <*>`), or one holding a `key=value` (`rhost=<*>` and
/// `rhost=<*> user=<*>`), still leaves a side empty: a field present or absent.
fn widen(
    a: &Tpl,
    ra: &std::ops::Range<usize>,
    b: &Tpl,
    rb: &std::ops::Range<usize>,
    head: usize,
    tail: usize,
) -> (usize, usize) {
    let (n, m) = (ra.len(), rb.len());
    if n == m || head + tail < n.min(m) {
        return (head, tail);
    }
    // A `key=value` names a field: one more of them is a field present or absent.
    let keyed = |t: &Tpl, r: &std::ops::Range<usize>| {
        t.tokens[r.clone()].iter().any(|x| key_of(x).is_some())
    };
    if keyed(a, ra) || keyed(b, rb) {
        return (head, tail);
    }
    let value = |ka: usize, kb: usize| a.valueish[ka] && b.valueish[kb];
    if tail > 0 && value(ra.end - tail, rb.end - tail) {
        (head, tail - 1)
    } else if head > 0 && value(ra.start + head - 1, rb.start + head - 1) {
        (head - 1, tail)
    } else {
        (head, tail)
    }
}

/// Bare punctuation of one or two characters between two values of a run (`<*> - <IP>:<*>`,
/// `<*> -> <*>`), or after a word when `word_before` says so: a separator inside one value. At
/// a run's end it stays a constant marker.
fn joins_values(t: &Tpl, r: &std::ops::Range<usize>, k: usize, word_before: bool) -> bool {
    let token = &t.tokens[k];
    k > r.start
        && k + 1 < r.end
        && token.len() <= 2
        && token.bytes().all(|b| b.is_ascii_punctuation())
        && (word_before || t.valueish[k - 1])
        && t.valueish[k + 1]
}

/// Whether the record fields in two gap sides have the same names in the same order.
fn same_fields(a: &Tpl, ra: &std::ops::Range<usize>, b: &Tpl, rb: &std::ops::Range<usize>) -> bool {
    let fields = |t: &'_ Tpl, r: &std::ops::Range<usize>| -> Vec<Box<str>> {
        r.clone()
            .filter(|&k| t.record[k])
            .filter_map(|k| key_of(&t.tokens[k]).map(Box::from))
            .collect()
    };
    fields(a, ra) == fields(b, rb)
}

/// Which tokens may sit in a gap: values, and every token of a bound group.
fn valueish(tokens: &[Box<str>], labels: &[bool]) -> (Vec<bool>, Vec<bool>) {
    let mut v: Vec<bool> = tokens.iter().map(|t| is_value_token(t)).collect();
    let mut record = vec![false; tokens.len()];
    let mut i = 0;
    while i < tokens.len() {
        if let Some(end) = group_end(tokens, i) {
            if tokens[i].starts_with('{') {
                record[i..=end].iter_mut().for_each(|x| *x = true);
            }
            // Bare punctuation stays a marker, even inside a group.
            for k in i..=end {
                v[k] |= tokens[k]
                    .bytes()
                    .any(|b| b.is_ascii_alphanumeric() || b >= 0x80);
            }
            i = end + 1;
        } else if let Some(end) = list_end(tokens, i) {
            // `cors, gzip, tracing`: the items of an unbracketed list are one value.
            v[i..=end].iter_mut().for_each(|x| *x = true);
            i = end + 1;
        } else if let Some(end) = statement_end(tokens, i) {
            // A whole SQL statement is one value: its shape varies with every query.
            v[i..=end].iter_mut().for_each(|x| *x = true);
            i = end + 1;
        } else if labels[i] || is_qualified_label(&tokens[i]) {
            // `java.io.IOException: disk is full`: the message belongs to the exception.
            v[i..].iter_mut().for_each(|x| *x = true);
            break;
        } else {
            i += 1;
        }
    }
    (v, record)
}

/// A value on its own: a mask, a placeholder, a digit, a dotted name, a path, or
/// `key=value`. Bare punctuation (`****`, `-`) is not one: it is a constant marker.
fn is_value_token(t: &str) -> bool {
    t.contains(WILDCARD)
        || has_placeholder(t)
        || t.bytes().any(|b| b.is_ascii_digit())
        || t.bytes().filter(|&b| b == b'.').count() >= 2
        || (t.contains('/') && t.len() > 1)
        || key_of(t).is_some()
        || is_compound_name(t)
}

/// A name joined from parts by `-` or `@` (`db-primary`, `alice@mq-east`): a host or an
/// identity, which a constant word of an event seldom is.
fn is_compound_name(t: &str) -> bool {
    let t = t.trim_end_matches([',', ';', ':', '.']);
    let b = t.as_bytes();
    b.len() >= 3
        && (1..b.len() - 1).any(|k| {
            matches!(b[k], b'-' | b'@')
                && b[k - 1].is_ascii_alphanumeric()
                && b[k + 1].is_ascii_alphanumeric()
        })
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'@' | b'.' | b'_'))
}

/// The key of a `key=value` token.
fn key_of(t: &str) -> Option<&str> {
    let k = t.find('=')?;
    let key = t[..k].trim_start_matches(['{', '(', '[', ',']);
    (!key.is_empty()
        && k + 1 < t.len()
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    .then_some(key)
}

/// The last token of a list of at least two items, separated by commas, that starts at token
/// `i` (`cors, gzip, tracing`): the first item that does not end in a comma ends it.
fn list_end(tokens: &[Box<str>], i: usize) -> Option<usize> {
    let item = |t: &str| t.len() > 1 && t.ends_with(',') && !t[..t.len() - 1].ends_with(',');
    let run = tokens[i..].iter().take_while(|t| item(t)).count();
    (run > 0 && i + run < tokens.len()).then_some(i + run)
}

/// The last token of a SQL statement that starts at token `i`: a verb, then clauses whose
/// keywords are capitals, each followed by names, values and punctuation; it ends before the
/// first plain word that no keyword or comma leads into. `None` without a clause keyword.
fn statement_end(tokens: &[Box<str>], i: usize) -> Option<usize> {
    const VERBS: [&str; 4] = ["SELECT", "INSERT", "UPDATE", "DELETE"];
    const CLAUSES: [&str; 5] = ["FROM", "SET", "INTO", "WHERE", "VALUES"];
    if !VERBS.contains(&&*tokens[i]) {
        return None;
    }
    let keyword = |t: &str| t.len() >= 2 && t.bytes().all(|b| b.is_ascii_uppercase());
    let mut end = i;
    let mut clause = false;
    for k in i + 1..tokens.len() {
        let t = &*tokens[k];
        let prev = &*tokens[k - 1];
        let led =
            keyword(prev) || prev.ends_with([',', '(', '=']) || matches!(prev, "=" | "<" | ">");
        let part = keyword(t)
            || is_value_token(t)
            || t.bytes()
                .any(|b| matches!(b, b'(' | b')' | b',' | b'=' | b'*' | b'\''))
            || led;
        if !part {
            break;
        }
        // `SELECT <*>`: a statement whose clauses were already found variable.
        clause |= CLAUSES.contains(&t) || (k == i + 1 && t == WILDCARD);
        end = k;
    }
    clause.then_some(end)
}

/// A qualified type name ending in a colon (`java.io.IOException:`): what follows is its message.
pub(super) fn is_qualified_label(t: &str) -> bool {
    t.len() > 1
        && t.ends_with(':')
        && t.bytes().filter(|&b| b == b'.').count() >= 2
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'$' | b':'))
}

/// The last token of the quoted or bracketed group that opens at token `i`, if it closes
/// within [`MAX_GROUP`] tokens.
fn group_end(tokens: &[Box<str>], i: usize) -> Option<usize> {
    let token = &*tokens[i];
    // A bracket may open right after a key: `scopes=[read`.
    let body = match (key_of(token), token.find('=')) {
        (Some(_), Some(k)) if token[k + 1..].starts_with(['[', '(', '{']) => &token[k + 1..],
        _ => token,
    };
    let open = *body.as_bytes().first()?;
    let close = match open {
        b'"' => b'"',
        b'\'' => b'\'',
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        _ => return None,
    };
    let quote = open == close;
    let mut depth = 0i32;
    for (k, t) in tokens.iter().enumerate().skip(i).take(MAX_GROUP) {
        let bytes = t.as_bytes();
        if quote {
            let trimmed = t.trim_end_matches([',', '.', ';', ':', ')', ']']);
            let closes = trimmed.as_bytes().last() == Some(&close);
            if closes && (k > i || trimmed.len() > 1) {
                return Some(k);
            }
            continue;
        }
        for &b in bytes {
            if b == open {
                depth += 1;
            } else if b == close {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::templates_of as templates;

    #[test]
    fn a_list_and_a_path_of_varying_length_fold_into_one_event() {
        let t = templates(&[
            "mounted volume /a/b/c at /mnt/x options [ro, noexec] now",
            "mounted volume /d at /mnt/y/z options [rw] now",
            "mounted volume /e/f at /srv options [ro, nosuid, noatime, sync] now",
        ]);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "mounted volume <*> at <*> options <*> now");
    }

    #[test]
    fn durations_sizes_and_sql_of_any_shape_are_one_value() {
        let t = templates(&[
            "query took 5 ms: SELECT id FROM users WHERE id IN (1, 2) on shard 3",
            "query took 1 min 3 s: UPDATE carts SET total = 4 WHERE id = 9 on shard 1",
            "query took 2 h 5 min 10 s: DELETE FROM orders WHERE id IN (7) on shard 2",
        ]);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
    }

    #[test]
    fn two_events_differing_in_one_constant_word_stay_apart() {
        let t = templates(&[
            "cache hit for key [a, b] took 5 ms",
            "cache miss for key [c] took 1 min 3 s",
            "cache hit for key [d, e, f] took 2 s",
            "cache miss for key [g, h] took 7 ms",
            "session opened for \"Ann Lee\" from /dev/pts/1",
            "session closed for \"Bob\" from /dev/pts/22",
        ]);
        assert_eq!(t[0], t[2]);
        assert_eq!(t[1], t[3]);
        assert_ne!(t[0], t[1]);
        assert_ne!(t[4], t[5]);
    }

    #[test]
    fn an_optional_field_or_a_record_of_other_fields_stays_apart() {
        // Present or absent, a trailing field makes another event; so do other record fields.
        let t = templates(&[
            "auth failure; rhost=10.0.0.1",
            "auth failure; rhost=10.0.0.2 user=root",
            "skip Intent { flg=0x1 cmp=a.b/.C (has extras) }",
            "skip Intent { act=x.y.z flg=0x2 cmp=a.b/.D }",
            "Fan speeds ( 3552 3534 **** 3515 )",
            "Fan speeds ( 3552 3534 3375 3515 )",
        ]);
        assert_ne!(t[0], t[1]);
        assert_ne!(t[2], t[3]);
        assert_ne!(t[4], t[5]);
    }
    #[test]
    fn a_value_that_takes_more_tokens_before_a_shared_one_is_one_value() {
        // A peer is `host:port` or `program - host:port`: the shared `host:port` stays in the
        // gap, and the dash between two values is a separator inside the one value.
        let mut lines: Vec<String> = Vec::new();
        for (k, prog) in ["sshd", "cron", "nginx", "envoy", "haproxy"]
            .iter()
            .enumerate()
        {
            lines.push(format!("peer 10.0.{k}.1:80 joined pool east"));
            lines.push(format!("peer {prog} - 10.0.{k}.2:443 joined pool east"));
        }
        lines.push("wait 5s before retry of job 3".into());
        lines.push("wait 1m 5s before retry of job 4".into());
        lines.push("wait 7s before retry of job 5".into());
        lines.push("wait 2m 15s before retry of job 6".into());
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let t = templates(&refs);
        assert!(t[..10].iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "peer <*> joined pool east");
        assert!(t[10..].iter().all(|x| *x == t[10]), "{t:?}");
    }

    #[test]
    fn a_word_joined_to_a_value_is_that_value_where_the_slot_varies() {
        // The slot after `from` varied (`<*>`) in the common lines; a rare line shows it as
        // `program - host:port` with a program seen once, and a name of three words.
        let mut lines: Vec<String> = Vec::new();
        for k in 0..6 {
            lines.push(format!("user \"u{k}\" signed in from 10.0.{k}.1:80"));
            lines.push(format!(
                "user \"Ann Lee\" signed in from tool{k} - 10.0.{k}.2:80"
            ));
        }
        lines.push("user \"Ann Mary Lee\" signed in from sshd - 10.0.9.9:22".into());
        // Without a slot found variable, a word before the separator is a constant.
        for k in 0..3 {
            lines.push(format!(
                "disk read - 10.0.{k}.1:80 on dev {k} for part [a, b]"
            ));
            lines.push(format!(
                "disk write - 10.0.{k}.1:80 on dev {k} for part [c]"
            ));
        }
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let t = templates(&refs);
        assert!(t[..13].iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "user <*> signed in from <*>");
        assert_ne!(t[13], t[14]);
    }

    #[test]
    fn a_bracket_opened_after_a_key_is_a_group() {
        let texts: Vec<Box<str>> = [
            "grant for <*> scopes=[<*> <*> admin <*>]",
            "grant for <*>",
            "grant for <*> scopes=[<*> admin] now",
            "grant for <*> roles=[<*> admin] now",
        ]
        .iter()
        .map(|&t| t.into())
        .collect();
        let m = super::merge(&texts, &[]);
        // The words inside `scopes=[…]` are the list's values, against a slot that varied.
        assert_eq!(m.of[0], m.of[1]);
        assert_eq!(&*m.texts[m.of[0] as usize], "grant for <*>");
        // Two keys in one position are two fields.
        assert_ne!(m.of[2], m.of[3]);
    }

    #[test]
    fn an_extra_field_after_a_shared_word_or_key_stays_apart() {
        // Next to a word, or as one more `key=value`, the extra tokens are a field present or
        // absent: another event.
        let t = templates(&[
            "accepted from 10.0.0.1:22 now",
            "accepted from 10.0.0.2:22 now",
            "accepted from 10.0.0.3 port 22 now",
            "accepted from 10.0.0.4 port 23 now",
            "login refused; rhost=10.0.0.1",
            "login refused; rhost=10.0.0.2",
            "login refused; rhost=10.0.0.3 user=ann",
            "login refused; rhost=10.0.0.4 user=bob",
            "link up - 10.0.0.1:80 -",
            "link up 10.0.0.2:80",
        ]);
        assert_eq!(t[0], t[1]);
        assert_ne!(t[0], t[2]);
        assert_eq!(t[4], t[5]);
        assert_ne!(t[4], t[6]);
        // A dash at a run's end is a marker, not a separator inside a value.
        assert_ne!(t[8], t[9]);
    }

    #[test]
    fn an_exception_message_after_a_masked_class_is_its_value() {
        // The class slot varies, so it prints `<*>:`; the message of any length belongs to it.
        let t = templates(&[
            "Caused by: java.io.IOException: disk full",
            "Caused by: java.lang.IllegalStateException: not open",
            "Caused by: java.net.SocketTimeoutException: read timed out after retry",
            "Caused by: com.acme.LedgerException: negative",
            "request aborted due to java.io.IOException: broken pipe",
            "request aborted due to java.lang.IllegalStateException: closed",
        ]);
        assert!(t[..4].iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "Caused by: <*>");
        assert_eq!(t[4], t[5]);
        assert_ne!(t[0], t[4]);
    }

    #[test]
    fn host_names_without_digits_are_values_but_words_around_them_are_not() {
        let t = templates(&[
            "rebalancing [1, 2] replicas from cache03 to node12",
            "rebalancing [3] replicas from gw01 to cache17",
            "rebalancing [7, 8] replicas from node12 to gw01",
            "rebalancing [4, 5, 6] replicas from db-primary to mq-east",
            "token refresh for cache03 succeeded",
            "token refresh for node12 succeeded",
            "token refresh for gw01 succeeded",
            "token refresh for alice@mq-east succeeded",
            "token refresh for <IP> failed: timed out",
        ]);
        assert!(t[..4].iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "rebalancing <*> replicas from <*> to <*>");
        assert!(t[4..8].iter().all(|x| *x == t[4]), "{t:?}");
        assert_ne!(t[4], t[8]);
    }
    #[test]
    fn a_word_in_a_slot_found_variable_elsewhere_is_its_value() {
        // `trent` against the `<*>` that five other names made at another length: a value,
        // since the quoted comment says the two are one event.
        let mut lines: Vec<String> = ["ann", "bob", "eve", "raj", "wei"]
            .iter()
            .map(|u| format!("user {u} posted comment \"nice one\" on thread 7"))
            .collect();
        lines.push("user trent posted comment \"a b c d e f\" on thread 8".into());
        // A word against a `<*>` with no gap of another length is no evidence: it stays.
        lines.push("user trent deleted comment 12 on thread 8".into());
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let t = templates(&refs);
        assert!(t[..6].iter().all(|x| *x == t[0]), "{t:?}");
        assert_ne!(t[0], t[6]);
    }

    #[test]
    fn a_statement_whose_clauses_were_masked_is_still_one_value() {
        let t = templates(&[
            "executing statement SELECT id FROM users WHERE id IN (1, 2) on shard 3",
            "executing statement SELECT name, email FROM orders WHERE id IN (4) on shard 1",
            "executing statement SELECT qty FROM carts WHERE owner = 5 on shard 2",
            "executing statement DELETE FROM orders WHERE id IN (7, 8, 9) on shard 2",
            "executing statement UPDATE carts SET total = 4 WHERE id = 9 on shard 4",
        ]);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
    }
    #[test]
    fn an_unbracketed_list_of_any_length_is_one_value() {
        let t = templates(&[
            "loaded 3 plugins: cors, gzip, tracing in 5 ms",
            "loaded 2 plugins: auth, cors in 2 ms",
            "loaded 2 plugins: metrics, cache in 7 ms",
            "loaded 5 plugins: auth, cors, gzip, cache, metrics in 1 ms",
            "loaded 2 plugins: metrics, cache at boot",
        ]);
        assert!(t[..4].iter().all(|x| *x == t[0]), "{t:?}");
        assert_ne!(t[0], t[4]);
    }
}
