//! The prefilter: one byte scan and one keyword scan decide which rules may apply to a message.
//!
//! Every gate is a necessary condition of its rule, so skipping a rule never skips a hit; the
//! `redact_ungated` oracle and the tests hold the gates to that. The keyword automaton is built
//! from the catalogue's own keywords: a rule added with its keywords is gated by them, and one
//! whose keywords miss a hit fails the gated-equals-ungated test that names it.

#[cfg(test)]
use std::borrow::Cow;
#[cfg(test)]
use std::sync::OnceLock;

#[cfg(test)]
use aho_corasick::MatchKind;

use super::RedactionClass;
use super::keytable::{KeyTables, KeywordLists, build_tables, dot_pair};
use super::text::{inside_placeholder, is_word_byte, placeholder_at};

/// The keyword tables the build script wrote from the rules' source (see [`super::keytable`]).
static STORED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/keywords.table"));

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
    /// A `-` and five `[a-z0-9]` where a name can end: a pod name's suffix (`-x2k4m`).
    pub(crate) pod_suffix: bool,
    /// A segment of 5 to 16 `[a-z0-9]` with a digit between two `-`, or of 6 to 12 ending a
    /// name: a generated part of a workload's name (`-x7k2p-` in `nightly-x7k2p-fetch-31874`,
    /// `-ak3vxyz` in `runner-ak3vxyz`).
    pub(crate) pod_infix: bool,
    /// Two blanks in a row or a tab: a table's aligned columns.
    pub(crate) wide_gap: bool,
    /// `:` and three digits or more that end at `]` or at a `:` and a digit, or six digits or
    /// more: a pid after a machine (`[node07:39212]`, `host:4411:4470`, `<HOST>:1048577`). A
    /// clock's two digits are none.
    pub(crate) colon_number: bool,
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

/// Whether `b` can be part of a token-like run, `[A-Za-z0-9+/_-]`: what the features' run
/// length counts and what `token.long-run` looks for.
pub(crate) fn is_run_byte(b: u8) -> bool {
    BYTE_CLASS[usize::from(b)] & B_RUN != 0
}

/// Whether the `-` at `i` starts [`Features::pod_infix`]: 5 to 16 `[a-z0-9]`, a digit among
/// them, then `-`; or 6 to 12 of them where a name ends (a blank, the end, or punctuation that
/// no placeholder holds).
pub(crate) fn is_infix_at(bytes: &[u8], i: usize) -> bool {
    let seg = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let len = bytes[i + 1..]
        .iter()
        .take(17)
        .take_while(|&&b| seg(b))
        .count();
    let next = bytes.get(i + 1 + len);
    let name_end = next.is_none_or(|b| b.is_ascii_whitespace() || b"\"',;:)]}/|=".contains(b));
    ((5..=16).contains(&len) && next == Some(&b'-') || (6..=12).contains(&len) && name_end)
        && bytes[i + 1..i + 1 + len].iter().any(u8::is_ascii_digit)
}

impl Features {
    /// Whether `bytes` hold a `-` and five `[a-z0-9]` anywhere: [`Features::pod_suffix`]
    /// without its test of the name's end.
    fn pod_heads(bytes: &[u8]) -> bool {
        let seg = |b: &u8| BYTE_CLASS[usize::from(*b)] & B_SEG != 0;
        memchr::memchr_iter(b'-', bytes)
            .any(|i| bytes.get(i + 1..i + 6).is_some_and(|w| w.iter().all(seg)))
    }

    /// Whether `bytes` hold a `-` and 5 to 16 `[a-z0-9]` with a digit anywhere:
    /// [`Features::pod_infix`] without its test of what follows (a stack cut may end the name
    /// there: `ss-ss1sss0Stack trace:` becomes `ss-ss1sss0 <STACK>`, a fuzz find).
    fn infix_heads(bytes: &[u8]) -> bool {
        let seg = |b: &u8| BYTE_CLASS[usize::from(*b)] & B_SEG != 0;
        memchr::memchr_iter(b'-', bytes).any(|i| {
            let len = bytes[i + 1..]
                .iter()
                .take(16)
                .take_while(|b| seg(b))
                .count();
            len >= 5 && bytes[i + 1..i + 1 + len].iter().any(u8::is_ascii_digit)
        })
    }

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
        pod_infix: true,
        wide_gap: true,
        colon_number: true,
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
        // `-` and five `[a-z0-9]` where a pod name can end, as `pass_pod_shape` tests it: no
        // letter, digit, `-` or placeholder next. So `-servi` in `user-service` is none. The
        // placeholder keeps the feature closed under redaction: `-abcde<TOKEN>` is not one
        // where `-abcdefgh` was not.
        let (mut pod_suffix, mut double_dash, mut spaced_dash) = (false, false, false);
        let mut pod_infix = false;
        for i in memchr::memchr_iter(b'-', bytes) {
            double_dash |= bytes.get(i + 1) == Some(&b'-');
            spaced_dash |= i > 0 && matches!(bytes[i - 1], b' ' | b'\t');
            pod_suffix |=
                (i + 1..=i + 5).all(seg_at) && name_ends(bytes, i + 6, u8::is_ascii_alphanumeric);
            pod_infix |= !pod_infix && is_infix_at(bytes, i);
        }
        let digits = |from: usize, n: usize| (from..from + n).all(digit_at);
        let mut colons = 0;
        let mut double_colon = false;
        let mut clock = false;
        let mut colon_number = false;
        for i in memchr::memchr_iter(b':', bytes) {
            colons += 1;
            if !colon_number {
                let run = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                let next = bytes.get(i + 1 + run);
                colon_number = run >= 6
                    || run >= 3
                        && (next == Some(&b']') || next == Some(&b':') && digit_at(i + 2 + run));
            }
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
            pod_infix,
            wide_gap: memchr::memchr(b'\t', bytes).is_some()
                || memchr::memmem::find(bytes, b"  ").is_some(),
            colon_number,
            max_run,
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// Whether any of the eight bytes of `word` is not ASCII.
fn holds_non_ascii(word: &[u8]) -> bool {
    let word: [u8; 8] = word.try_into().unwrap_or([0x80; 8]);
    u64::from_ne_bytes(word) & 0x8080_8080_8080_8080 != 0
}

/// The index of the first byte of `bytes` that is not ASCII, eight bytes at a time.
fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    let mut from = 0;
    while from + 8 <= bytes.len() && !holds_non_ascii(&bytes[from..from + 8]) {
        from += 8;
    }
    Some(from + bytes[from..].iter().position(|b| !b.is_ascii())?)
}

/// The index of the last byte of `bytes` that is not ASCII, eight bytes at a time.
fn last_non_ascii(bytes: &[u8]) -> Option<usize> {
    let mut to = bytes.len();
    while to >= 8 && !holds_non_ascii(&bytes[to - 8..to]) {
        to -= 8;
    }
    bytes[..to].iter().rposition(|b| !b.is_ascii())
}

/// The keyword scan over every rule's keywords, and which rules each keyword opens.
///
/// Keywords match ASCII letters in any case: the tables are built over the lowercased keywords
/// and map each capital to its small letter's column. The keywords are split three ways, so that
/// the table every message walks is smaller. The whole set's automaton was 1.9 MB and the scan
/// about a fifth of a large call's time (`perf`), most of it the walk waiting on each next
/// state's load; the split leaves a much smaller table, but the walk is still an eighth of a
/// large call, bound by that load:
///
/// * `.` and two ASCII letters (the country TLDs, 245 of them): looked up by their letters at
///   each `.` that they end a label after, in a 26 x 26 table;
/// * the other ASCII keywords: the table every message walks;
/// * keywords with a non-ASCII byte (`密码`, `пароль`): a second table, walked only over a
///   message that holds a non-ASCII byte, since only such a message can hold one, and there
///   only from a keyword's length before its first such byte to a keyword's length after its
///   last.
///
/// Both tables come stored with the binary ([`super::keytable`]); a start-up builds neither.
pub(crate) struct Prefilter {
    tables: KeyTables,
    /// The stack rules: a message that holds one's keywords may be cut (see
    /// [`Prefilter::scan`]).
    stack_rules: u128,
    /// Per `.xy` keyword, at `26 * x + y` (letters as `0..26`), the rules it opens.
    dot_pairs: Vec<u128>,
    /// A rules file's rules, run with the catalogue's (`super::user`); a redactor's own.
    pub(super) user: Option<std::sync::Arc<super::UserRules>>,
    /// Every keyword, lowercased, with the rules it opens: what the three parts split.
    #[cfg(test)]
    all: Vec<(Cow<'static, str>, u128)>,
    /// For [`Prefilter::triggers_three_ways`]: one search over every keyword, their rules, and
    /// the tables built afresh; built on first use.
    #[cfg(test)]
    oracle: OnceLock<Box<(aho_corasick::AhoCorasick, Vec<u128>, KeyTables)>>,
}

/// The rules that may hold a `.xy` keyword, whose matches end a label (see
/// [`Prefilter::dot_triggers`]); a test holds the catalogue to this list.
#[cfg(test)]
pub(crate) const DOT_PAIR_RULES: [&str; 2] = ["host.fqdn", "host.country"];

/// Whether a name can end at `at` of `bytes`: no byte that goes on a name (`joins`, or `-`)
/// and no placeholder there. The placeholder keeps the features closed under redaction:
/// `.co<SECRET>m` opens nothing that `.com` did not.
fn name_ends(bytes: &[u8], at: usize, joins: impl Fn(&u8) -> bool) -> bool {
    match bytes.get(at) {
        Some(c) if joins(c) || *c == b'-' => false,
        Some(b'<') => !placeholder_at(bytes, at),
        _ => true,
    }
}

/// Whether a host name whose last label ends before `at` in `s` can end there, as
/// `host_apart` tests it: no word byte, `-` or placeholder next.
fn ends_label(s: &str, at: usize) -> bool {
    name_ends(s.as_bytes(), at, |&c| is_word_byte(c))
}

impl Prefilter {
    /// The prefilter of rules with these keywords and classes, in catalogue order: rule `i` is
    /// bit `i` of [`Features::triggers`].
    pub(crate) fn new(rules: &[(&'static [&'static str], RedactionClass)]) -> Prefilter {
        assert!(
            rules.len() <= 128,
            "the catalogue outgrew its 128-bit rule set"
        );
        let keywords: Vec<&[&str]> = rules.iter().map(|&(k, _)| k).collect();
        let mut dot_pairs = vec![0u128; 26 * 26];
        for (i, keywords) in keywords.iter().enumerate() {
            for k in keywords.iter() {
                if let Some(at) = dot_pair(k.as_bytes()) {
                    dot_pairs[at] |= 1 << i;
                }
            }
        }
        let stack_rules = rules
            .iter()
            .enumerate()
            .filter(|(_, (_, class))| *class == RedactionClass::Stack)
            .fold(0, |set, (i, _)| set | 1 << i);
        Prefilter {
            tables: stored_tables(&keywords).unwrap_or_else(|| build_tables(&keywords)),
            stack_rules,
            dot_pairs,
            user: None,
            #[cfg(test)]
            all: super::keytable::keywords_of(&keywords),
            #[cfg(test)]
            oracle: OnceLock::new(),
        }
    }

    /// The features of `s`.
    ///
    /// A `.xy` keyword, a pod suffix and a pod infix count only where a name can end after
    /// them, as the rules they open test it; a placeholder put next to one leaves it as it was.
    /// But a stack rule cuts the text before a trace and puts a space after it:
    /// `web-7d9f8c6b5-x2k4mTraceback (…` becomes `web-7d9f8c6b5-x2k4m <STACK>`, whose pod name
    /// ends now. Only a message that holds a stack rule's keywords can be cut, so there all
    /// three count wherever they are.
    pub(crate) fn scan(&self, s: &str) -> Features {
        let mut f = Features::bytes(s.as_bytes());
        let triggers = Prefilter::triggers_of(&self.tables, s);
        let may_be_cut = triggers & self.stack_rules != 0;
        f.triggers = triggers | self.dot_triggers(s, may_be_cut);
        if may_be_cut {
            f.pod_suffix |= Features::pod_heads(s.as_bytes());
            f.pod_infix |= Features::infix_heads(s.as_bytes());
        }
        f
    }

    /// The rules whose keywords (other than `.xy`) `s` holds outside a placeholder, by `tables`.
    /// `<SECRET>`, `<TOKEN>`, `<HOST>`… spell keywords; counted, they would open a gate on
    /// every redacted line and keep the features from being closed under redaction.
    ///
    /// Every keyword of the wide table holds a non-ASCII byte, so each match lies within a
    /// keyword's length of the first and the last such byte: only that span is walked, which
    /// spares a Chinese message's long ASCII stack trace or URL a second walk.
    fn triggers_of(tables: &KeyTables, s: &str) -> u128 {
        let inside = |start, end| inside_placeholder(s, start, end);
        let mut triggers = tables.ascii.triggers(s, inside);
        let b = s.as_bytes();
        if let Some(first) = first_non_ascii(b) {
            let last = last_non_ascii(b).unwrap_or(first);
            let reach = tables.wide.longest().max(1);
            let from = (first + 1).saturating_sub(reach);
            let to = (last + reach).min(b.len());
            triggers |= tables
                .wide
                .triggers(&b[from..to], |start, end| inside(from + start, from + end));
        }
        triggers
    }

    /// The rules the `.xy` keywords in `s` open where one ends a label ([`ends_label`]), or
    /// wherever one is with `anywhere`. Such a keyword holds a `.`, which no placeholder does,
    /// so it is never inside one.
    ///
    /// Only the host rules hold `.xy` keywords (a test holds the catalogue to that), and a host
    /// they cut ends with its top-level label, where `host_apart` wants no word byte, `-` or
    /// placeholder next. So `.co` in `.com` and `.in` in `.internal` open nothing: on the
    /// bench's messages that spared `host.country` 417,000 of its 500,000 runs, all of which
    /// found nothing.
    fn dot_triggers(&self, s: &str, anywhere: bool) -> u128 {
        let b = s.as_bytes();
        memchr::memchr_iter(b'.', b)
            .filter(|&i| anywhere || ends_label(s, i + 3))
            .filter_map(|i| b.get(i..i + 3).and_then(dot_pair))
            .fold(0, |triggers, at| triggers | self.dot_pairs[at])
    }

    /// The triggers of `s` from the prefilter's own tables, from tables built afresh from the
    /// catalogue, and from `AhoCorasick`'s own case-insensitive overlapping search over every
    /// keyword, for the test that they agree.
    #[cfg(test)]
    pub(crate) fn triggers_three_ways(&self, s: &str) -> [u128; 3] {
        let (reference, masks, built) = &**self.oracle.get_or_init(|| {
            let (patterns, masks): (Vec<&str>, Vec<u128>) =
                self.all.iter().map(|(k, m)| (k.as_ref(), *m)).unzip();
            let reference = aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .expect("constant patterns");
            Box::new((reference, masks, build_tables(&super::catalogue_keywords())))
        });
        // The keywords but the `.xy` ones; those that end a label; all of those.
        let (mut want, mut ending, mut pairs) = (0, 0, 0);
        for m in reference.find_overlapping_iter(s) {
            let mask = masks[m.pattern().as_usize()];
            if dot_pair(&s.as_bytes()[m.range()]).is_some() {
                pairs |= mask;
                if ends_label(s, m.end()) {
                    ending |= mask;
                }
            } else if !inside_placeholder(s, m.start(), m.end()) {
                want |= mask;
            }
        }
        let may_be_cut = want & self.stack_rules != 0;
        want |= if may_be_cut { pairs } else { ending };
        let dots = self.dot_triggers(s, may_be_cut);
        let own = self.scan(s).triggers;
        // The wide table on every text, not only where `scan` walks it.
        let inside = |start, end| inside_placeholder(s, start, end);
        let fresh = built.ascii.triggers(s, inside) | built.wide.triggers(s, inside) | dots;
        [own, fresh, want]
    }
}

/// The tables the build script stored, if they were built for `rules`' keywords.
fn stored_tables(rules: &KeywordLists<'_>) -> Option<KeyTables> {
    KeyTables::stored(STORED, rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keyword tables in use are the ones built at build time from the rules' source: the
    /// build script read every rule's keywords as the catalogue holds them (same fingerprint),
    /// and built them as the crate builds them, byte for byte. Nothing here can go stale: the
    /// table is rebuilt with every build that changes a rule.
    #[test]
    fn the_keyword_table_in_use_is_the_build_time_one() {
        let keywords = super::super::catalogue_keywords();
        assert!(
            stored_tables(&keywords).is_some(),
            "build.rs read other keywords than the catalogue holds: a rule's `keywords` it \
             cannot read, or a rule missing from its reading of `CATALOGUE`"
        );
        assert!(
            STORED == build_tables(&keywords).write(&keywords).as_slice(),
            "build.rs built another table than `build_tables` does"
        );
    }
}
