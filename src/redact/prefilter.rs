//! The prefilter: one byte scan and one keyword scan decide which rules may apply to a message.
//!
//! Every gate is a necessary condition of its rule, so skipping a rule never skips a hit; the
//! `redact_ungated` oracle and the tests hold the gates to that. The keyword automaton is built
//! from the catalogue's own keywords: a rule added with its keywords is gated by them, and one
//! whose keywords miss a hit fails the gated-equals-ungated test that names it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::noncontiguous;
use aho_corasick::{Anchored, MatchKind, StartKind, dfa};

use super::rule::Rule;
use super::text::inside_placeholder;
use crate::patterns::FxBuild;

/// What one scan of a message found; each rule runs only where its gate is open.
///
/// Every gate is closed under redaction: replacing any span with a placeholder never opens a
/// gate that was shut, so the features of a message serve every round the redactor runs on it.
/// That holds because a placeholder is `<`, capitals and `>`: it holds no digit, no `@`, `(`,
/// `:` or `.`, cuts every run it touches to at most six token bytes, and a keyword inside one
/// does not count. The gates that look past a keyword or a run are therefore loose: a TLD
/// keyword counts whatever follows it (`.com` in `.commit`, which a placeholder may cut to
/// `.com<TOKEN>`), `sk` whatever precedes it, a pod suffix whatever follows its five bytes.
#[derive(Debug, PartialEq, Eq)]
pub struct Features {
    /// One bit per catalogue rule whose keyword the message holds outside a placeholder.
    pub(crate) triggers: u128,
    pub(crate) at_sign: bool,
    pub(crate) open_paren: bool,
    /// `--`: a command-line flag.
    pub(crate) double_dash: bool,
    /// A space or tab before a `-`: a short flag (`-p`, `-u`).
    pub(crate) spaced_dash: bool,
    /// `/user:`, in any case: `net use`'s user switch.
    pub(crate) slash_user: bool,
    pub(crate) double_colon: bool,
    pub(crate) colons: u32,
    /// `.` between two digits: an IPv4 address has three.
    pub(crate) digit_dots: u32,
    /// A clock time `dd:dd:dd`, as every syslog and logcat header holds.
    pub(crate) clock: bool,
    /// A dotted date `dddd.dd.dd`.
    pub(crate) dotted_date: bool,
    pub(crate) digit: bool,
    pub(crate) bracket_digit: bool,
    pub(crate) hash_digit: bool,
    /// A `-` followed by five `[a-z0-9]`: a pod name's suffix (`-x2k4m`), or its head.
    pub(crate) pod_suffix: bool,
    pub(crate) max_run: u32,
}

/// Byte classes for the feature scan, so the hot loop does one table load per byte.
const B_RUN: u8 = 1; // part of a token-like run: `[A-Za-z0-9+/_-]`
const B_SEG: u8 = 2; // part of a pod-name segment: `[a-z0-9]`
const B_DIGIT: u8 = 4;

static BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut c = 0;
        if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-') {
            c |= B_RUN;
        }
        if b.is_ascii_lowercase() || b.is_ascii_digit() {
            c |= B_SEG;
        }
        if b.is_ascii_digit() {
            c |= B_DIGIT;
        }
        t[i] = c;
        i += 1;
    }
    t
};

impl Features {
    /// Every gate open.
    pub(crate) const OPEN: Features = Features {
        triggers: u128::MAX,
        at_sign: true,
        open_paren: true,
        double_dash: true,
        spaced_dash: true,
        slash_user: true,
        double_colon: true,
        colons: u32::MAX,
        digit_dots: u32::MAX,
        clock: true,
        dotted_date: true,
        digit: true,
        bracket_digit: true,
        hash_digit: true,
        pod_suffix: true,
        max_run: u32::MAX,
    };

    /// Everything but the keyword triggers. Rare bytes are found with `memchr` and looked at
    /// where they are; only the run length needs every byte, in one branch-free loop.
    pub(crate) fn bytes(bytes: &[u8]) -> Features {
        let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
        let seg_at = |i: usize| {
            bytes
                .get(i)
                .is_some_and(|&b| BYTE_CLASS[usize::from(b)] & B_SEG != 0)
        };
        // The run so far starts at `start`; keeping where it starts rather than its length
        // leaves one select, not an add and a multiply, on the chain from byte to byte.
        let (mut max_run, mut start) = (0usize, 0usize);
        let mut digit = false;
        for (i, &b) in bytes.iter().enumerate() {
            let class = BYTE_CLASS[usize::from(b)];
            if class & B_RUN == 0 {
                start = i + 1;
            }
            max_run = max_run.max(i + 1 - start);
            digit |= class & B_DIGIT != 0;
        }
        let max_run = u32::try_from(max_run).unwrap_or(u32::MAX);
        // `-` and five `[a-z0-9]`: a pod name's suffix, or the head of one once a placeholder
        // replaces what follows.
        let (mut pod_suffix, mut double_dash, mut spaced_dash) = (false, false, false);
        for i in memchr::memchr_iter(b'-', bytes) {
            double_dash |= bytes.get(i + 1) == Some(&b'-');
            spaced_dash |= i > 0 && matches!(bytes[i - 1], b' ' | b'\t');
            pod_suffix |= (i + 1..=i + 5).all(seg_at);
        }
        let digits = |from: usize, n: usize| (from..from + n).all(digit_at);
        let mut colons = 0;
        let mut double_colon = false;
        let mut clock = false;
        for i in memchr::memchr_iter(b':', bytes) {
            colons += 1;
            double_colon |= i > 0 && bytes[i - 1] == b':';
            // The first colon of `dd:dd:dd`.
            clock |= i >= 2
                && digits(i - 2, 2)
                && digits(i + 1, 2)
                && bytes.get(i + 3) == Some(&b':')
                && digits(i + 4, 2);
        }
        let (mut digit_dots, mut dotted_date) = (0, false);
        for i in memchr::memchr_iter(b'.', bytes) {
            if i > 0 && digit_at(i - 1) && digit_at(i + 1) {
                digit_dots += 1;
                // The first dot of `dddd.dd.dd`.
                dotted_date |= i >= 4
                    && digits(i - 4, 4)
                    && digits(i + 1, 2)
                    && bytes.get(i + 3) == Some(&b'.')
                    && digits(i + 4, 2);
            }
        }
        let slash_user = memchr::memchr_iter(b'/', bytes).any(|i| {
            bytes
                .get(i + 1..i + 6)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"user:"))
        });
        Features {
            triggers: 0,
            at_sign: memchr::memchr(b'@', bytes).is_some(),
            open_paren: memchr::memchr(b'(', bytes).is_some(),
            double_dash,
            spaced_dash,
            slash_user,
            double_colon,
            colons,
            digit_dots,
            clock,
            dotted_date,
            digit,
            bracket_digit: digit && memchr::memchr_iter(b'[', bytes).any(|i| digit_at(i + 1)),
            hash_digit: digit && memchr::memchr_iter(b'#', bytes).any(|i| digit_at(i + 1)),
            pod_suffix,
            max_run,
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// The keyword scan over every rule's keywords, and which rules each keyword opens.
///
/// Keywords match ASCII letters in any case. The scan lowercases each byte as it goes and walks
/// automata built over the lowercased keywords, which matches the same as a
/// case-insensitive automaton at half its build and with a smaller alphabet. The keywords are
/// split three ways, so that the automaton every message walks is smaller. The whole set's DFA
/// was 1.9 MB and the scan about a fifth of a large call's time (`perf`), most of it the walk
/// waiting on each next state's load; the split leaves a 0.4 MB DFA and a third of the build,
/// but the walk is still an eighth of a large call, bound by that load:
///
/// * `.` and two ASCII letters (the country TLDs, 245 of them): looked up by their letters at
///   each `.`, in a 26 x 26 table;
/// * the other ASCII keywords: the automaton every message walks (a 0.4 MB DFA);
/// * keywords with a non-ASCII byte (`密码`, `пароль`): a second automaton, walked only over a
///   message that holds a non-ASCII byte, since only such a message can hold one.
pub(crate) struct Prefilter {
    ascii: Keywords,
    wide: Keywords,
    /// Per `.xy` keyword, at `26 * x + y` (letters as `0..26`), the rules it opens.
    dot_pairs: Vec<u128>,
    /// Every keyword, lowercased, with the rules it opens: what the three parts split.
    #[cfg(test)]
    all: Vec<(Cow<'static, str>, u128)>,
    /// For [`Prefilter::triggers_three_ways`]: one search over every keyword, their rules, and
    /// this prefilter past its switch to the DFAs; built on first use.
    #[cfg(test)]
    oracle: OnceLock<Box<(aho_corasick::AhoCorasick, Vec<u128>, Prefilter)>>,
}

/// Lowercased keywords, which rules each opens, and the automata that find them.
///
/// It comes in two builds of the same patterns that find the same matches. A DFA scans a message
/// faster but costs more to build than a whole 100-entry call spends scanning; so the scan walks
/// its first [`DFA_AFTER`] messages with the NFA (the noncontiguous one, the cheapest to build)
/// and builds the DFA only once it will pay off. The count is the automaton's own, and either
/// build gives the same answer, so output never depends on it.
///
/// The scan walks the automaton byte by byte itself rather than through `AhoCorasick`'s
/// overlapping iterator, which returns to its caller once per match and cost about 40
/// instructions a byte: a message needs only the set of rules its keywords open, and a keyword
/// whose rules are already open is not looked at again.
struct Keywords {
    patterns: Vec<Cow<'static, str>>,
    /// Per pattern, the rules (one bit each, by catalogue index) it opens.
    masks: Vec<u128>,
    nfa: noncontiguous::NFA,
    dfa: OnceLock<dfa::DFA>,
    scanned: AtomicU32,
}

/// Messages an automaton scans with its NFA before it switches to its DFA.
const DFA_AFTER: u32 = 2048;

fn build_nfa(patterns: &[Cow<'static, str>]) -> noncontiguous::NFA {
    noncontiguous::NFA::builder()
        .match_kind(MatchKind::Standard)
        .prefilter(false)
        .build(patterns.iter().map(|p| p.as_bytes()))
        .expect("keyword automaton is built from constant patterns")
}

fn build_dfa(patterns: &[Cow<'static, str>]) -> dfa::DFA {
    dfa::DFA::builder()
        .match_kind(MatchKind::Standard)
        .prefilter(false)
        .start_kind(StartKind::Unanchored)
        .build(patterns.iter().map(|p| p.as_bytes()))
        .expect("keyword automaton is built from constant patterns")
}

/// The letters of a `.xy` keyword as its index in [`Prefilter::dot_pairs`].
fn dot_pair(keyword: &[u8]) -> Option<usize> {
    let letter = |b: u8| {
        b.is_ascii_alphabetic()
            .then(|| usize::from(b.to_ascii_lowercase() - b'a'))
    };
    match keyword {
        [b'.', x, y] => Some(26 * letter(*x)? + letter(*y)?),
        _ => None,
    }
}

impl Keywords {
    fn new(keywords: Vec<(Cow<'static, str>, u128)>) -> Keywords {
        let (patterns, masks): (Vec<Cow<'static, str>>, Vec<u128>) = keywords.into_iter().unzip();
        let nfa = build_nfa(&patterns);
        Keywords {
            patterns,
            masks,
            nfa,
            dfa: OnceLock::new(),
            scanned: AtomicU32::new(0),
        }
    }

    /// The same keywords, past the switch to the DFA.
    #[cfg(test)]
    fn switched(&self) -> Keywords {
        let k = Keywords::new(
            self.patterns
                .iter()
                .cloned()
                .zip(self.masks.iter().copied())
                .collect(),
        );
        k.scanned.store(DFA_AFTER, Ordering::Relaxed);
        k
    }

    /// The rules whose keywords `s` holds outside a placeholder.
    fn triggers(&self, s: &str) -> u128 {
        // Relaxed is enough: either automaton gives the same answer, this only picks the faster.
        if self.scanned.load(Ordering::Relaxed) < DFA_AFTER {
            self.scanned.fetch_add(1, Ordering::Relaxed);
            self.walk(&self.nfa, s)
        } else {
            self.walk(self.dfa.get_or_init(|| build_dfa(&self.patterns)), s)
        }
    }

    /// [`Keywords::triggers`], walking automaton `a` over the lowercased bytes of `s`.
    fn walk(&self, a: &impl Automaton, s: &str) -> u128 {
        let Ok(mut sid) = a.start_state(Anchored::No) else {
            // Both builds support unanchored searches; were one not to, every rule runs.
            return u128::MAX;
        };
        let mut triggers = 0u128;
        for (i, &b) in s.as_bytes().iter().enumerate() {
            sid = a.next_state(Anchored::No, sid, b.to_ascii_lowercase());
            if !a.is_special(sid) {
                continue;
            }
            if a.is_dead(sid) {
                break;
            }
            for k in 0..a.match_len(sid) {
                let pattern = a.match_pattern(sid, k);
                let Some(&mask) = self.masks.get(pattern.as_usize()) else {
                    continue;
                };
                if mask & !triggers == 0 {
                    continue;
                }
                // Lowercasing keeps lengths, so a match ends here and is as long as its pattern.
                let end = i + 1;
                let start = end - a.pattern_len(pattern);
                // `<SECRET>`, `<TOKEN>`, `<HOST>`… spell keywords; counted, they would open a
                // gate on every redacted line and keep the features from being closed under
                // redaction.
                if inside_placeholder(s, start, end) {
                    continue;
                }
                triggers |= mask;
            }
        }
        triggers
    }
}

impl Prefilter {
    /// The prefilter of `rules`: rule `i` is bit `i` of [`Features::triggers`].
    pub(crate) fn new(rules: &[&Rule]) -> Prefilter {
        assert!(
            rules.len() <= 128,
            "the catalogue outgrew its 128-bit rule set"
        );
        // Each keyword with its rules, in first-seen order (a linear search per keyword was
        // 2.3M instructions of a 100-entry call). Most keywords are written in small letters
        // already and are borrowed.
        let mut all: Vec<(Cow<'static, str>, u128)> = Vec::new();
        let mut place: HashMap<Cow<'static, str>, usize, FxBuild> = HashMap::default();
        for (i, rule) in rules.iter().enumerate() {
            for &k in rule.keywords {
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
        let mut dot_pairs = vec![0u128; 26 * 26];
        let (mut ascii, mut wide) = (Vec::new(), Vec::new());
        for (k, mask) in &all {
            match dot_pair(k.as_bytes()) {
                Some(at) => dot_pairs[at] |= mask,
                None if k.is_ascii() => ascii.push((k.clone(), *mask)),
                None => wide.push((k.clone(), *mask)),
            }
        }
        Prefilter {
            ascii: Keywords::new(ascii),
            wide: Keywords::new(wide),
            dot_pairs,
            #[cfg(test)]
            all,
            #[cfg(test)]
            oracle: OnceLock::new(),
        }
    }

    /// The features of `s`.
    pub(crate) fn scan(&self, s: &str) -> Features {
        let mut f = Features::bytes(s.as_bytes());
        f.triggers = self.triggers(s);
        f
    }

    /// The rules whose keywords `s` holds outside a placeholder.
    fn triggers(&self, s: &str) -> u128 {
        let mut triggers = self.ascii.triggers(s) | self.dot_triggers(s);
        if !s.is_ascii() {
            triggers |= self.wide.triggers(s);
        }
        triggers
    }

    /// The rules the `.xy` keywords in `s` open. Such a keyword holds a `.`, which no
    /// placeholder does, so it is never inside one.
    fn dot_triggers(&self, s: &str) -> u128 {
        let b = s.as_bytes();
        memchr::memchr_iter(b'.', b)
            .filter_map(|i| b.get(i..i + 3).and_then(dot_pair))
            .fold(0, |triggers, at| triggers | self.dot_pairs[at])
    }

    /// The triggers of `s` from the NFAs, from the DFAs, and from `AhoCorasick`'s own
    /// case-insensitive overlapping search over every keyword, for the test that they agree.
    #[cfg(test)]
    pub(crate) fn triggers_three_ways(&self, s: &str) -> [u128; 3] {
        let (reference, masks, switched) = &**self.oracle.get_or_init(|| {
            let (patterns, masks): (Vec<&str>, Vec<u128>) =
                self.all.iter().map(|(k, m)| (k.as_ref(), *m)).unzip();
            let reference = aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .expect("constant patterns");
            let switched = Prefilter {
                ascii: self.ascii.switched(),
                wide: self.wide.switched(),
                dot_pairs: self.dot_pairs.clone(),
                all: Vec::new(),
                oracle: OnceLock::new(),
            };
            Box::new((reference, masks, switched))
        });
        let mut want = 0;
        for m in reference.find_overlapping_iter(s) {
            if !inside_placeholder(s, m.start(), m.end()) {
                want |= masks[m.pattern().as_usize()];
            }
        }
        // The NFAs walk every message; the DFAs go through `triggers`, which skips the wide
        // keywords on an ASCII message.
        let nfa = self.ascii.walk(&self.ascii.nfa, s)
            | self.wide.walk(&self.wide.nfa, s)
            | self.dot_triggers(s);
        let dfa = switched.triggers(s);
        [nfa, dfa, want]
    }
}
