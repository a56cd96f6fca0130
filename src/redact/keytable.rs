//! A keyword automaton as a flat table: built at build time, walked without a build.
//!
//! The prefilter's keyword scan needs, per message, the set of rules whose keywords it holds.
//! Building the automaton for that was the largest single cost of a short call (2M instructions
//! and a slow NFA walk before the DFA paid off), and the automaton depends only on the
//! catalogue. So the build script (`build.rs`, which includes this file) has `aho-corasick`
//! build its DFA from the rules' keywords as they stand in their source, flattens it with
//! [`KeyTables::write`] into `keywords.table` in `OUT_DIR`, and the binary carries that file:
//! a start-up reads a few headers and walks the transitions where they lie.
//!
//! The table keeps the DFA's states and transitions and adds only what the scan needs:
//!
//! * input bytes map to columns, ASCII capitals to their small letter's column, so the scan
//!   needs no lowercasing and the rows are as narrow as the keywords' alphabet;
//! * a state is the index of its row, rows are padded to a power of two, and every state that
//!   ends a keyword comes after every state that does not, so the next state is one load and a
//!   match one compare;
//! * a match state lists, per keyword it ends, the keyword's length and the rules it opens, and
//!   the scan looks at that list only when the state opens a rule not open yet.
//!
//! The stored table is used only when its fingerprint, a SHA-256 of every rule's keywords in
//! catalogue order, is the catalogue's: otherwise (a rule whose keywords the build script could
//! not read) the table is built at start-up, exactly as the build script builds it, so that
//! costs time, never a rule. A test holds the table in use to the one built at build time.
//!
//! This module takes keyword lists, one per rule in catalogue order, not the rule type: the
//! build script compiles it on its own, with nothing of the crate around it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use aho_corasick::automaton::Automaton;
use aho_corasick::{Anchored, MatchKind, StartKind, dfa};
use sha2::{Digest, Sha256};

/// The file's first bytes, naming its format.
const MAGIC: &[u8; 8] = b"ACIKEYS1";

/// One keyword automaton, flattened.
pub(crate) struct KeyTable {
    /// Per input byte, its column.
    columns: [u8; 256],
    /// Each state's row holds `1 << shift` entries, its columns and then padding.
    shift: u32,
    /// The next state of state `s` on column `c` at `s + c`, as little-endian `u32`; a state is
    /// the index of its row's first entry.
    next: Cow<'static, [u8]>,
    /// The first match state: every state from it on ends a keyword.
    first_match: usize,
    /// Per match state in order, every rule its keywords open.
    unions: Vec<u128>,
    /// Per match state in order, where its keywords start in `matches`, and one past the last.
    offsets: Vec<u32>,
    /// Per keyword a match state ends: its length in bytes and the rules it opens.
    matches: Vec<(usize, u128)>,
    /// The longest keyword's length in bytes.
    longest: usize,
}

/// The prefilter's two keyword tables.
pub(crate) struct KeyTables {
    pub(crate) ascii: KeyTable,
    pub(crate) wide: KeyTable,
}

/// A stored table that does not read back; only an edited or truncated file gives one.
#[derive(Debug)]
pub(crate) struct Malformed;

impl KeyTable {
    /// The table of `keywords` (lowercased, each with the rules it opens).
    pub(crate) fn build(keywords: &[(Cow<'_, str>, u128)]) -> KeyTable {
        let dfa = dfa::DFA::builder()
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            .start_kind(StartKind::Unanchored)
            .build(keywords.iter().map(|(k, _)| k.as_bytes()))
            .expect("keyword automaton is built from constant patterns");
        let start = dfa
            .start_state(Anchored::No)
            .expect("the DFA is built for unanchored searches");
        // The bytes the scan feeds, each lowercased as the keywords are.
        let fed = |b: u8| b.to_ascii_lowercase();
        // Every state, from the start over every byte.
        let mut states = vec![start];
        let mut seen = HashMap::from([(start, 0usize)]);
        let mut i = 0;
        while i < states.len() {
            for b in 0..=255u8 {
                let to = dfa.next_state(Anchored::No, states[i], fed(b));
                if let Entry::Vacant(e) = seen.entry(to) {
                    e.insert(states.len());
                    states.push(to);
                }
            }
            i += 1;
        }
        // Bytes that lead every state to the same place share a column.
        let mut columns = [0u8; 256];
        let mut by_row: HashMap<Vec<usize>, u8> = Default::default();
        for b in 0..=255u8 {
            let row: Vec<usize> = states
                .iter()
                .map(|&s| seen[&dfa.next_state(Anchored::No, s, fed(b))])
                .collect();
            let n = u8::try_from(by_row.len()).expect("at most 256 columns");
            columns[usize::from(b)] = *by_row.entry(row).or_insert(n);
        }
        let shift = by_row.len().next_power_of_two().trailing_zeros();
        // Non-match states first, the start among them (a start that ends a keyword would
        // mean an empty keyword, which the catalogue test forbids).
        assert!(!dfa.is_match(start), "no keyword is empty");
        let mut order: Vec<usize> = (0..states.len()).collect();
        order.sort_by_key(|&i| (dfa.is_match(states[i]), i));
        let mut place = vec![0usize; states.len()];
        for (n, &i) in order.iter().enumerate() {
            place[i] = n << shift;
        }
        let mut next = vec![0u8; (states.len() << shift) * 4];
        let mut offsets = Vec::new();
        let mut matches = Vec::new();
        let mut first_match = states.len() << shift;
        for &i in &order {
            let s = states[i];
            for b in 0..=255u8 {
                let to = place[seen[&dfa.next_state(Anchored::No, s, fed(b))]];
                let at = (place[i] + usize::from(columns[usize::from(b)])) * 4;
                let to = u32::try_from(to).expect("the keyword table fits u32 states");
                next[at..at + 4].copy_from_slice(&to.to_le_bytes());
            }
            if dfa.is_match(s) {
                first_match = first_match.min(place[i]);
                offsets.push(matches.len() as u32);
                for k in 0..dfa.match_len(s) {
                    let p = dfa.match_pattern(s, k);
                    matches.push((dfa.pattern_len(p), keywords[p.as_usize()].1));
                }
            }
        }
        offsets.push(matches.len() as u32);
        KeyTable {
            columns,
            shift,
            next: Cow::Owned(next),
            first_match,
            unions: unions(&offsets, &matches),
            offsets,
            longest: longest(&matches),
            matches,
        }
    }

    /// The rules whose keywords `s` holds, given a test of whether the match `start..end` lies
    /// inside a placeholder (which does not count). A keyword whose rules are all open already
    /// is not looked at again.
    ///
    /// The walk is one load after another, each waiting on the last; so a message is walked in
    /// two lanes at once, its first part and its second, and the processor overlaps their
    /// loads. The second lane starts the longest keyword's length before its part and counts
    /// only the keywords ending in it: by then its state is the one walking the whole message
    /// reaches (a state is the longest end of the bytes so far that begins a keyword, never
    /// longer than a keyword), so the lanes find what one walk finds.
    ///
    /// A table the builder built never points past itself. Were a stored one to (only a damaged
    /// build output could, and `the_keyword_table_in_use_is_the_build_time_one` compares it with
    /// a fresh build byte for byte), every rule is opened: slower, never a missed rule, never a
    /// panic.
    pub(crate) fn triggers(
        &self,
        s: &(impl AsRef<[u8]> + ?Sized),
        inside: impl Fn(usize, usize) -> bool,
    ) -> u128 {
        let bytes = s.as_ref();
        // Below this the second lane's lead-in would be most of its walk.
        if bytes.len() < 2 * self.longest.max(8) {
            return self.walk(bytes, &inside).unwrap_or(u128::MAX);
        }
        self.two_lanes(bytes, &inside).unwrap_or(u128::MAX)
    }

    /// The length of the longest keyword, in bytes.
    pub(crate) fn longest(&self) -> usize {
        self.longest
    }

    /// One walk over `bytes`; `None` where the table points past itself.
    fn walk(&self, bytes: &[u8], inside: &impl Fn(usize, usize) -> bool) -> Option<u128> {
        let (mut state, mut triggers) = (0, 0);
        for (i, &b) in bytes.iter().enumerate() {
            state = self.next_state(state, b)?;
            if state >= self.first_match {
                self.ends_at(state, i + 1, &mut triggers, inside)?;
            }
        }
        Some(triggers)
    }

    /// [`KeyTable::walk`] in two lanes (see [`KeyTable::triggers`]); `bytes` are at least twice
    /// the longest keyword.
    fn two_lanes(&self, bytes: &[u8], inside: &impl Fn(usize, usize) -> bool) -> Option<u128> {
        // The first lane walks `..mid`, the second `mid - longest..`: the same length, give or
        // take a byte.
        let mid = (bytes.len() + self.longest) / 2;
        let lead = mid - self.longest;
        let (first, second) = (&bytes[..mid], &bytes[lead..]);
        let (mut a, mut b, mut triggers) = (0, 0, 0);
        for (i, (&x, &y)) in first.iter().zip(second).enumerate() {
            a = self.next_state(a, x)?;
            b = self.next_state(b, y)?;
            if a >= self.first_match {
                self.ends_at(a, i + 1, &mut triggers, inside)?;
            }
            if b >= self.first_match && lead + i >= mid {
                self.ends_at(b, lead + i + 1, &mut triggers, inside)?;
            }
        }
        for (i, &y) in second.iter().enumerate().skip(first.len()) {
            b = self.next_state(b, y)?;
            if b >= self.first_match {
                self.ends_at(b, lead + i + 1, &mut triggers, inside)?;
            }
        }
        Some(triggers)
    }

    /// The state after `state` on byte `b`.
    #[inline(always)]
    fn next_state(&self, state: usize, b: u8) -> Option<usize> {
        let at = (state + usize::from(self.columns[usize::from(b)])) * 4;
        let &[b0, b1, b2, b3] = self.next.get(at..at + 4)? else {
            return None;
        };
        Some(u32::from_le_bytes([b0, b1, b2, b3]) as usize)
    }

    /// Adds to `triggers` the rules of the keywords the match state `state` ends at byte `end`,
    /// outside a placeholder, unless all of them are in it already. Out of line: inlined, it
    /// left the walks too few registers for their states.
    #[inline(never)]
    fn ends_at(
        &self,
        state: usize,
        end: usize,
        triggers: &mut u128,
        inside: &impl Fn(usize, usize) -> bool,
    ) -> Option<()> {
        let k = (state - self.first_match) >> self.shift;
        if self.unions.get(k)? & !*triggers == 0 {
            return Some(());
        }
        // `check` holds every match state's range within `matches`.
        let (from, to) = (self.offsets[k] as usize, self.offsets[k + 1] as usize);
        for &(len, mask) in &self.matches[from..to] {
            if mask & !*triggers != 0 && !inside(end.checked_sub(len)?, end) {
                *triggers |= mask;
            }
        }
        Some(())
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.columns);
        for n in [
            self.shift as usize,
            self.next.len(),
            self.first_match,
            self.offsets.len(),
            self.matches.len(),
        ] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.next);
        for o in &self.offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        for &(len, mask) in &self.matches {
            out.extend_from_slice(&(len as u32).to_le_bytes());
            out.extend_from_slice(&mask.to_le_bytes());
        }
    }

    /// A table as [`KeyTable::write`] wrote it, borrowing its transitions from `bytes`.
    fn read(bytes: &mut &'static [u8]) -> Result<KeyTable, Malformed> {
        let columns: [u8; 256] = take(bytes, 256)?.try_into().map_err(|_| Malformed)?;
        let mut n = [0usize; 5];
        for v in &mut n {
            *v = u32::from_le_bytes(take(bytes, 4)?.try_into().map_err(|_| Malformed)?) as usize;
        }
        let [shift, next_len, first_match, offsets_len, matches_len] = n;
        let next = take(bytes, next_len)?;
        let offsets: Vec<u32> = take(bytes, offsets_len.checked_mul(4).ok_or(Malformed)?)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let matches: Vec<(usize, u128)> =
            take(bytes, matches_len.checked_mul(20).ok_or(Malformed)?)?
                .chunks_exact(20)
                .map(|c| {
                    let (len, mask) = c.split_at(4);
                    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
                    let mask = u128::from_le_bytes(mask.try_into().expect("16 bytes"));
                    (len, mask)
                })
                .collect();
        let table = KeyTable {
            columns,
            shift: u32::try_from(shift).map_err(|_| Malformed)?,
            next: Cow::Borrowed(next),
            first_match,
            unions: unions(&offsets, &matches),
            offsets,
            longest: longest(&matches),
            matches,
        };
        table.check()?;
        Ok(table)
    }

    /// Whether the table's parts fit one another, so that a walk never indexes past them: every
    /// column within a row, and every match state's keywords in `matches`. The transitions
    /// themselves are not read here (that would touch every page of the table at start-up):
    /// [`KeyTable::triggers`] checks each one it follows.
    fn check(&self) -> Result<(), Malformed> {
        let Some(row) = 1usize.checked_shl(self.shift).filter(|&r| r <= 256) else {
            return Err(Malformed);
        };
        let entries = self.next.len() / 4;
        let fits = self.next.len() == entries / row * row * 4
            && self.columns.iter().all(|&c| usize::from(c) < row)
            && self.first_match.is_multiple_of(row)
            && self.first_match <= entries
            && self.offsets.len() == (entries - self.first_match) / row + 1
            && self.offsets.windows(2).all(|w| w[0] <= w[1])
            && self
                .offsets
                .last()
                .is_some_and(|&o| o as usize == self.matches.len())
            && self.matches.iter().all(|&(len, _)| len > 0);
        if fits { Ok(()) } else { Err(Malformed) }
    }
}

/// The longest keyword among the matches.
fn longest(matches: &[(usize, u128)]) -> usize {
    matches.iter().map(|&(len, _)| len).max().unwrap_or(0)
}

/// Per match state, the union of the rules its keywords open.
fn unions(offsets: &[u32], matches: &[(usize, u128)]) -> Vec<u128> {
    offsets
        .windows(2)
        .map(|w| {
            (matches
                .get(w[0] as usize..w[1] as usize)
                .unwrap_or_default()
                .iter())
            .fold(0, |all, &(_, mask)| all | mask)
        })
        .collect()
}

fn take(bytes: &mut &'static [u8], n: usize) -> Result<&'static [u8], Malformed> {
    if bytes.len() < n {
        return Err(Malformed);
    }
    let (head, tail) = bytes.split_at(n);
    *bytes = tail;
    Ok(head)
}

/// Each rule's keywords, in catalogue order: rule `i` is bit `i` of a table's masks.
pub(crate) type KeywordLists<'k> = [&'k [&'k str]];

/// The fingerprint of `rules`' keywords: which rule holds which keyword, in order.
pub(crate) fn fingerprint(rules: &KeywordLists<'_>) -> [u8; 32] {
    let mut h = Sha256::new();
    for keywords in rules {
        for k in keywords.iter() {
            h.update(k.as_bytes());
            h.update([0]);
        }
        h.update([0xff]);
    }
    h.finalize().into()
}

/// The letters of a `.xy` keyword as an index in `26 * 26`, or `None` for any other keyword.
pub(crate) fn dot_pair(keyword: &[u8]) -> Option<usize> {
    let letter = |b: u8| {
        b.is_ascii_alphabetic()
            .then(|| usize::from(b.to_ascii_lowercase() - b'a'))
    };
    match keyword {
        [b'.', x, y] => Some(26 * letter(*x)? + letter(*y)?),
        _ => None,
    }
}

/// Each keyword of `rules`, lowercased, with the rules it opens, in first-seen order.
pub(crate) fn keywords_of<'k>(rules: &KeywordLists<'k>) -> Vec<(Cow<'k, str>, u128)> {
    let mut all: Vec<(Cow<'k, str>, u128)> = Vec::new();
    let mut place: HashMap<Cow<'k, str>, usize> = HashMap::new();
    for (i, keywords) in rules.iter().enumerate() {
        for &k in keywords.iter() {
            let k = if k.bytes().any(|b| b.is_ascii_uppercase()) {
                Cow::Owned(k.to_ascii_lowercase())
            } else {
                Cow::Borrowed(k)
            };
            match place.get(&k) {
                Some(&at) => all[at].1 |= 1 << i,
                None => {
                    place.insert(k.clone(), all.len());
                    all.push((k, 1 << i));
                }
            }
        }
    }
    all
}

/// The keyword tables of `rules` but their `.xy` keywords (which the prefilter looks up on its
/// own): what the build script stores, and what a start-up builds when the stored table's
/// fingerprint is not the catalogue's.
pub(crate) fn build_tables(rules: &KeywordLists<'_>) -> KeyTables {
    let (mut ascii, mut wide) = (Vec::new(), Vec::new());
    for (k, mask) in keywords_of(rules) {
        match dot_pair(k.as_bytes()) {
            Some(_) => {}
            None if k.is_ascii() => ascii.push((k, mask)),
            None => wide.push((k, mask)),
        }
    }
    KeyTables {
        ascii: KeyTable::build(&ascii),
        wide: KeyTable::build(&wide),
    }
}

impl KeyTables {
    /// The tables stored in `bytes`, if they were written for `rules`.
    pub(crate) fn stored(bytes: &'static [u8], rules: &KeywordLists<'_>) -> Option<KeyTables> {
        KeyTables::read(bytes, &fingerprint(rules)).ok().flatten()
    }

    /// `bytes` as [`KeyTables::write`] wrote them, or `None` when written for other keywords.
    fn read(mut bytes: &'static [u8], want: &[u8; 32]) -> Result<Option<KeyTables>, Malformed> {
        if take(&mut bytes, MAGIC.len())? != MAGIC {
            return Err(Malformed);
        }
        if take(&mut bytes, 32)? != want {
            return Ok(None);
        }
        let ascii = KeyTable::read(&mut bytes)?;
        let wide = KeyTable::read(&mut bytes)?;
        if !bytes.is_empty() {
            return Err(Malformed);
        }
        Ok(Some(KeyTables { ascii, wide }))
    }

    /// The file the build script stores for `rules`.
    #[cfg_attr(
        not(test),
        allow(dead_code, reason = "build.rs writes; the crate only reads")
    )]
    pub(crate) fn write(&self, rules: &KeywordLists<'_>) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&fingerprint(rules));
        self.ascii.write(&mut out);
        self.wide.write(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::redact::catalogue;

    #[test]
    fn a_table_reads_back_as_written_and_rejects_a_cut() {
        let k = |s: &'static str, m: u128| (Cow::Borrowed(s), m);
        let tables = KeyTables {
            ascii: KeyTable::build(&[k("pass", 1), k("sk", 2), k("ass", 4)]),
            wide: KeyTable::build(&[k("密码", 8)]),
        };
        let bytes: &'static [u8] = tables.write(&[]).leak();
        let read = KeyTables::read(bytes, &fingerprint(&[]))
            .expect("well formed")
            .expect("same fingerprint");
        let none = |_: usize, _: usize| false;
        for s in ["", "PASS", "a sk b", "xpasss", "密码", "ass"] {
            assert_eq!(
                read.ascii.triggers(s, none),
                tables.ascii.triggers(s, none),
                "{s}"
            );
            assert_eq!(
                read.wide.triggers(s, none),
                tables.wide.triggers(s, none),
                "{s}"
            );
        }
        assert_eq!(tables.ascii.triggers("my Password", none), 1 | 4);
        assert_eq!(tables.ascii.triggers("ask", none), 2);
        assert_eq!(tables.ascii.triggers("PassKey", none), 1 | 2 | 4);
        assert_eq!(tables.ascii.triggers("pas", none), 0);
        assert_eq!(tables.wide.triggers("密码: x", none), 8);
        assert!(
            KeyTables::read(bytes, &[0; 32])
                .expect("well formed")
                .is_none()
        );
        for cut in [0, 8, 40, 300, bytes.len() - 1] {
            assert!(
                KeyTables::read(&bytes[..cut], &fingerprint(&[])).is_err(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_transition_past_the_table_opens_every_rule() {
        let tables = KeyTables {
            ascii: KeyTable::build(&[(Cow::Borrowed("pass"), 1)]),
            wide: KeyTable::build(&[(Cow::Borrowed("密码"), 2)]),
        };
        let mut bytes = tables.write(&[]);
        // The first transition: the start state's on column 0, after the magic, the
        // fingerprint, the columns and five counts.
        let first = MAGIC.len() + 32 + 256 + 5 * 4;
        bytes[first..first + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let bytes: &'static [u8] = bytes.leak();
        let read = KeyTables::read(bytes, &fingerprint(&[]))
            .expect("well formed")
            .expect("same fingerprint");
        assert_eq!(
            read.ascii.triggers("pass", |_, _| false),
            1,
            "no column-0 byte"
        );
        assert_eq!(read.ascii.triggers("a pass", |_, _| false), u128::MAX);
        let long = format!("{}pass {}", "p".repeat(40), "s".repeat(40));
        assert_eq!(read.ascii.triggers(&long, |_, _| false), 1, "two lanes");
        let long = format!("{}pass {}", "p".repeat(40), "s a".repeat(40));
        assert_eq!(
            read.ascii.triggers(&long, |_, _| false),
            u128::MAX,
            "two lanes"
        );
    }

    #[test]
    fn a_match_inside_a_placeholder_does_not_count() {
        let table = KeyTable::build(&[(Cow::Borrowed("secret"), 1)]);
        assert_eq!(table.triggers("a secret", |_, _| true), 0);
        assert_eq!(
            table.triggers("a secret", |start, end| (start, end) == (2, 8)),
            0
        );
        assert_eq!(table.triggers("a secret", |start, _| start != 2), 1);
        // Both lanes, the second's lead-in too: a keyword is asked about once, where it is.
        let text = format!("{}secret{}secret", "-".repeat(30), "-".repeat(30));
        let asked = std::cell::RefCell::new(Vec::new());
        let at = |start, end| {
            asked.borrow_mut().push((start, end));
            true
        };
        assert_eq!(table.triggers(&text, at), 0);
        assert_eq!(*asked.borrow(), [(30, 36), (66, 72)]);
    }

    proptest::proptest! {
        /// The two lanes find what one walk finds, wherever the keywords fall (in the second
        /// lane's lead-in, across the lanes' meeting point), in any case and any script, and
        /// with placeholders refusing some of them.
        #[test]
        fn two_lanes_find_what_one_walk_finds(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(every_keyword()),
                    "[ a-zA-Z0-9=:_.<>-]{0,12}",
                    "[é中密码ü ]{0,4}",
                ],
                0..40,
            ),
            refused in 0usize..7,
        ) {
            let text: String = parts.concat();
            let inside = |start: usize, end: usize| refused > 0 && (start + end).is_multiple_of(refused);
            let tables = build_tables(&crate::redact::catalogue_keywords());
            for table in [&tables.ascii, &tables.wide] {
                proptest::prop_assert_eq!(
                    table.triggers(&text, inside),
                    table.walk(text.as_bytes(), &inside).unwrap_or(u128::MAX),
                    "{:?}", text
                );
            }
        }
    }

    /// Every keyword of the catalogue, as written and in capitals.
    fn every_keyword() -> Vec<String> {
        catalogue()
            .iter()
            .flat_map(|rule| rule.keywords.iter())
            .flat_map(|k| [k.to_string(), k.to_uppercase()])
            .collect()
    }
}
