//! Redaction of Agent-facing log text: the last line of defence between legacy ops tools and
//! the LLM agent.
//!
//! Every log message the log projection shows to the agent passes through [`redact`] first, so a
//! credential, a token, an internal host or pod name, a PID, an IP address, an e-mail address, a
//! SQL literal or a stack trace never reaches the model. Each hit is replaced by a typed
//! placeholder (`<SECRET>`, `<TOKEN>`, `<HOST>`, `<POD>`, `<PID>`, `<IP>`, `<EMAIL>`, `<STR>` /
//! `<NUM>`, `<STACK>`) and counted per [`RedactionClass`] for the harness control view.
//!
//! Trade-offs, in the order they bite:
//!
//! * **Leaks are worse than over-redaction, but over-redaction is a defect too.** Error codes,
//!   HTTP statuses, durations, versions, service names, topics and ordinary words stay, so the
//!   agent can still reason. Where a form is ambiguous the rules lean on context (a key, a SQL
//!   statement, a TLD, the Kubernetes name alphabet) rather than on shape alone.
//! * **Speed.** A million log lines must cost within a small factor of parsing their JSON, so
//!   every regex is compiled once, and one byte scan plus one Aho-Corasick pass decide which rule
//!   families can possibly apply; a typical line runs two or three cheap regexes or none, and a
//!   line without a hit is returned borrowed, without allocation.
//! * **Rules run in a fixed order** (PEM, stack, SQL, URL credentials, key/value secrets, tokens,
//!   e-mail, hosts, IPs, pods, PIDs); each rule treats the placeholders of earlier ones as inert,
//!   which makes `redact(redact(x)) == redact(x)`.
//!
//! Decisions a reader might not guess:
//!
//! * UUIDs (`8-4-4-4-12`) stay: they are order, request and trace ids the agent correlates on,
//!   not credentials; a UUID used as a credential sits behind a secret key (`token=…`) and goes.
//!   A bare 32+ hex run is redacted as `<TOKEN>` unless a trace/span/request-id key labels it.
//! * Git short SHAs (7–12 hex) stay; a full 40-hex SHA cannot be told from a hex API key, so it
//!   goes as `<TOKEN>`.
//! * A bare StatefulSet name (`kafka-0`) stays: it is a stable, low-cardinality identity the agent
//!   needs ("kafka-0 is the leader") and cannot be told from `retry-1`. After a pod keyword
//!   (`pod/kafka-0`, `pod=kafka-0`, `pod kafka-0`) it becomes `<POD>`. Deployment and DaemonSet
//!   pod names are recognised by Kubernetes' generated suffixes.
//! * IP ports stay (`<IP>:6379`): a port says which service failed and reveals nothing.
//! * Inside a detected SQL statement every literal goes, `LIMIT 10` included (`LIMIT <NUM>`), as
//!   database statement normalisers do; numbers outside SQL stay.
//! * A Python traceback keeps its final exception line (`<STACK> ValueError: …`), which is the
//!   headline a Java trace carries before its frames; `Caused by:` starts a stack even without
//!   frames, as the spec lists it.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;

/// The kind of sensitive value a placeholder replaced; one counter each in the control view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RedactionClass {
    /// A credential value after a secret key (`password=…`, `Authorization: Bearer …`).
    Secret,
    /// A token-like value recognised by its shape (cloud keys, JWTs, PEM blocks, long hex).
    Token,
    /// A host name (FQDN or a host key's value).
    Host,
    /// A Kubernetes pod identifier.
    Pod,
    /// A process id.
    Pid,
    /// An IPv4 or IPv6 address.
    Ip,
    /// An e-mail address.
    Email,
    /// A SQL string or numeric literal (`<STR>` / `<NUM>`).
    SqlLiteral,
    /// A stack trace suffix.
    Stack,
}

impl RedactionClass {
    /// Every class, in the fixed order used by [`RedactionCounts::iter`].
    pub const ALL: [RedactionClass; 9] = [
        RedactionClass::Secret,
        RedactionClass::Token,
        RedactionClass::Host,
        RedactionClass::Pod,
        RedactionClass::Pid,
        RedactionClass::Ip,
        RedactionClass::Email,
        RedactionClass::SqlLiteral,
        RedactionClass::Stack,
    ];

    /// The stable snake_case name used in the control view.
    pub fn name(self) -> &'static str {
        match self {
            RedactionClass::Secret => "secret",
            RedactionClass::Token => "token",
            RedactionClass::Host => "host",
            RedactionClass::Pod => "pod",
            RedactionClass::Pid => "pid",
            RedactionClass::Ip => "ip",
            RedactionClass::Email => "email",
            RedactionClass::SqlLiteral => "sql_literal",
            RedactionClass::Stack => "stack",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Replacement counts per [`RedactionClass`]; a fixed array so iteration order is stable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedactionCounts {
    by_class: [u32; 9],
}

impl RedactionCounts {
    /// Adds `n` replacements of `class`, saturating at `u32::MAX`.
    pub fn add(&mut self, class: RedactionClass, n: u32) {
        let slot = &mut self.by_class[class.index()];
        *slot = slot.saturating_add(n);
    }

    /// The number of replacements of `class`.
    pub fn get(&self, class: RedactionClass) -> u32 {
        self.by_class[class.index()]
    }

    /// Adds every counter of `other` to this one (saturating).
    pub fn merge(&mut self, other: &RedactionCounts) {
        for class in RedactionClass::ALL {
            self.add(class, other.get(class));
        }
    }

    /// The sum over all classes.
    pub fn total(&self) -> u64 {
        self.by_class.iter().map(|&n| u64::from(n)).sum()
    }

    /// Every class with its count, in [`RedactionClass::ALL`] order, zeros included.
    pub fn iter(&self) -> impl Iterator<Item = (RedactionClass, u32)> + '_ {
        RedactionClass::ALL.iter().map(move |&c| (c, self.get(c)))
    }
}

const SECRET: &str = "<SECRET>";
const TOKEN: &str = "<TOKEN>";
const HOST: &str = "<HOST>";
const POD: &str = "<POD>";
const PID: &str = "<PID>";
const IP: &str = "<IP>";
const EMAIL: &str = "<EMAIL>";
const STR: &str = "<STR>";
const NUM: &str = "<NUM>";
const STACK: &str = "<STACK>";

const PLACEHOLDERS: [&str; 10] = [SECRET, TOKEN, HOST, POD, PID, IP, EMAIL, STR, NUM, STACK];

fn is_placeholder(s: &str) -> bool {
    PLACEHOLDERS.contains(&s)
}

/// Redacts one log message; counts each replacement by class. Returns Borrowed when nothing matched.
///
/// Never panics, whatever the input; the output contains no raw value any rule recognised, and
/// `redact(redact(x)) == redact(x)`.
pub fn redact<'a>(message: &'a str, counts: &mut RedactionCounts) -> Cow<'a, str> {
    let mut cur = Cow::Borrowed(message);
    if message.is_empty() {
        return cur;
    }
    let f = Features::scan(message);
    let c = counts;
    if f.has(T_PEM) {
        step(&mut cur, |s| pass_pem(s, c));
    }
    if f.has(T_STACK) {
        step(&mut cur, |s| pass_stack(s, c));
    }
    if f.has(T_SQL) {
        step(&mut cur, |s| pass_sql_statements(s, c));
        step(&mut cur, |s| pass_sql_messages(s, c));
    }
    if f.has(T_URL) && f.at_sign {
        step(&mut cur, |s| pass_url_userinfo(s, c));
    }
    if f.has(T_SECRET) {
        step(&mut cur, |s| pass_key_values(s, c));
        step(&mut cur, |s| {
            pass_regex_groups(s, &CLI_FLAG_RE, SECRET, RedactionClass::Secret, c)
        });
        step(&mut cur, |s| pass_auth_scheme(s, c));
    }
    if f.max_run >= 15 {
        step(&mut cur, |s| pass_vendor_tokens(s, c));
        if f.max_run >= 32 {
            step(&mut cur, |s| pass_long_tokens(s, c));
        }
    }
    if f.at_sign {
        step(&mut cur, |s| pass_email(s, c));
    }
    if f.has(T_HOST) {
        step(&mut cur, |s| pass_hosts(s, c));
    }
    if f.colons >= 2 {
        step(&mut cur, |s| pass_ipv6(s, c));
    }
    if f.dots >= 3 && f.digit {
        step(&mut cur, |s| pass_ipv4(s, c));
    }
    if f.has(T_POD) {
        step(&mut cur, |s| pass_pod_context(s, c));
    }
    if f.hyphens >= 1 && f.digit {
        step(&mut cur, |s| pass_pod_shape(s, c));
    }
    if f.digit && (f.has(T_PID) || f.bracket_digit || f.hash_digit) {
        step(&mut cur, |s| pass_pid(s, c));
    }
    cur
}

fn step<'a>(cur: &mut Cow<'a, str>, pass: impl FnOnce(&str) -> Option<String>) {
    if let Some(next) = pass(cur.as_ref()) {
        *cur = Cow::Owned(next);
    }
}

// ---------------------------------------------------------------------------------------------
// Prefilter: one byte scan and one keyword scan decide which rule families may apply. Every gate
// is a necessary condition of its rule, so skipping a rule never skips a hit.

const T_PEM: u32 = 1;
const T_STACK: u32 = 1 << 1;
const T_SQL: u32 = 1 << 2;
const T_SECRET: u32 = 1 << 3;
const T_HOST: u32 = 1 << 4;
const T_POD: u32 = 1 << 5;
const T_PID: u32 = 1 << 6;
const T_URL: u32 = 1 << 7;

const KEYWORDS: &[(&str, u32)] = &[
    ("-----begin", T_PEM),
    ("at ", T_STACK),
    ("at\t", T_STACK),
    ("caused by:", T_STACK),
    ("traceback", T_STACK),
    ("goroutine ", T_STACK),
    ("file \"", T_STACK),
    ("select", T_SQL),
    ("insert", T_SQL),
    ("update", T_SQL),
    ("delete", T_SQL),
    ("replace", T_SQL),
    ("merge", T_SQL),
    ("upsert", T_SQL),
    ("duplicate entry", T_SQL),
    ("parameters:", T_SQL),
    ("binding parameter", T_SQL),
    ("key (", T_SQL),
    ("pass", T_SECRET),
    ("pwd", T_SECRET),
    ("secret", T_SECRET),
    ("token", T_SECRET),
    ("key", T_SECRET),
    ("credential", T_SECRET),
    ("auth", T_SECRET),
    ("cookie", T_SECRET),
    ("signature", T_SECRET),
    ("session", T_SECRET),
    ("bearer", T_SECRET),
    ("basic", T_SECRET),
    ("sk", T_SECRET),
    ("密码", T_SECRET),
    ("口令", T_SECRET),
    ("令牌", T_SECRET),
    ("密钥", T_SECRET),
    ("秘钥", T_SECRET),
    ("host", T_HOST),
    ("node", T_HOST),
    ("ip-", T_HOST),
    (".internal", T_HOST),
    (".local", T_HOST),
    (".lan", T_HOST),
    (".corp", T_HOST),
    (".intra", T_HOST),
    (".svc", T_HOST),
    (".consul", T_HOST),
    (".com", T_HOST),
    (".net", T_HOST),
    (".org", T_HOST),
    (".io", T_HOST),
    (".cn", T_HOST),
    (".cloud", T_HOST),
    (".edu", T_HOST),
    (".gov", T_HOST),
    (".arpa", T_HOST),
    (".jp", T_HOST),
    (".uk", T_HOST),
    (".hk", T_HOST),
    (".sg", T_HOST),
    (".tw", T_HOST),
    (".de", T_HOST),
    (".ru", T_HOST),
    (".xyz", T_HOST),
    (".top", T_HOST),
    (".tech", T_HOST),
    (".info", T_HOST),
    (".biz", T_HOST),
    (".ai", T_HOST),
    (".co", T_HOST),
    ("pod", T_POD),
    ("pid", T_PID),
    ("process", T_PID),
    ("进程", T_PID),
    ("://", T_URL),
];

static KEYWORD_AC: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(KEYWORDS.iter().map(|(k, _)| k))
        .expect("keyword automaton is built from constant patterns")
});

struct Features {
    triggers: u32,
    at_sign: bool,
    colons: u32,
    dots: u32,
    hyphens: u32,
    digit: bool,
    bracket_digit: bool,
    hash_digit: bool,
    max_run: u32,
}

impl Features {
    fn scan(s: &str) -> Features {
        let mut f = Features {
            triggers: 0,
            at_sign: false,
            colons: 0,
            dots: 0,
            hyphens: 0,
            digit: false,
            bracket_digit: false,
            hash_digit: false,
            max_run: 0,
        };
        let bytes = s.as_bytes();
        let mut run = 0u32;
        let mut prev = 0u8;
        for &b in bytes {
            if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-') {
                run += 1;
                if run > f.max_run {
                    f.max_run = run;
                }
            } else {
                run = 0;
            }
            match b {
                b'@' => f.at_sign = true,
                b':' => f.colons += 1,
                b'.' => f.dots += 1,
                b'-' => f.hyphens += 1,
                b'0'..=b'9' => {
                    f.digit = true;
                    if prev == b'[' {
                        f.bracket_digit = true;
                    } else if prev == b'#' {
                        f.hash_digit = true;
                    }
                }
                _ => {}
            }
            prev = b;
        }
        for m in KEYWORD_AC.find_overlapping_iter(s) {
            if let Some((_, t)) = KEYWORDS.get(m.pattern().as_usize()) {
                f.triggers |= t;
            }
        }
        f
    }

    fn has(&self, t: u32) -> bool {
        self.triggers & t != 0
    }
}

// ---------------------------------------------------------------------------------------------
// A copy-on-first-edit string builder: a pass that finds nothing allocates nothing.

struct Edit<'s> {
    src: &'s str,
    out: Option<String>,
    last: usize,
}

impl<'s> Edit<'s> {
    fn new(src: &'s str) -> Self {
        Edit {
            src,
            out: None,
            last: 0,
        }
    }

    /// Replaces `src[start..end]`; spans must come in order and not overlap (others are ignored).
    fn replace(&mut self, start: usize, end: usize, with: &str) -> bool {
        if start < self.last
            || end < start
            || end > self.src.len()
            || !self.src.is_char_boundary(start)
            || !self.src.is_char_boundary(end)
        {
            return false;
        }
        let src = self.src;
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(src.len() + 16));
        out.push_str(&src[self.last..start]);
        out.push_str(with);
        self.last = end;
        true
    }

    fn finish(self) -> Option<String> {
        let mut out = self.out?;
        out.push_str(&self.src[self.last..]);
        Some(out)
    }
}

fn byte_at(s: &str, i: usize) -> Option<u8> {
    s.as_bytes().get(i).copied()
}

fn byte_before(s: &str, i: usize) -> Option<u8> {
    i.checked_sub(1).and_then(|j| byte_at(s, j))
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Index just past the character starting at `i` (for resuming a search after a reject).
fn next_char(s: &str, i: usize) -> usize {
    let mut j = i + 1;
    while j < s.len() && !s.is_char_boundary(j) {
        j += 1;
    }
    j
}

fn pass_regex_groups(
    s: &str,
    re: &Regex,
    placeholder: &str,
    class: RedactionClass,
    c: &mut RedactionCounts,
) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in re.captures_iter(s) {
        if let Some(v) = caps.get(1)
            && !is_placeholder(v.as_str())
            && e.replace(v.start(), v.end(), placeholder)
        {
            c.add(class, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// PEM blocks: multi-line, so they go first, before any line-oriented rule sees their body.

static PEM_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-----BEGIN [A-Z0-9 ]{0,40}-----(?s:.*?)(?:-----END [A-Z0-9 ]{0,40}-----|\z)")
        .expect("constant regex")
});

fn pass_pem(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in PEM_RE.find_iter(s) {
        if e.replace(m.start(), m.end(), TOKEN) {
            c.add(RedactionClass::Token, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// Stack suffixes: everything from the first frame (or `Caused by:`, a Python traceback, a Go
// goroutine dump) onward becomes one `<STACK>`; the headline before it stays.

static STACK_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?-u:\b)at[ \t]+(?:async[ \t]+)?[A-Za-z_$][A-Za-z0-9_$]*(?:[./$][A-Za-z0-9_$<>-]+)+",
        r"(?: \[as [A-Za-z0-9_$]+\])?[ ]?\([^()\n]{0,300}\)",
        r"|Caused by:",
        r"|Traceback \(most recent call last\):",
        r"|(?-u:\b)goroutine [0-9]+ \[[^\]\n]{0,80}\]:",
        r#"|(?-u:\b)File "[^"\n]{1,300}", line [0-9]+"#,
    ))
    .expect("constant regex")
});

#[derive(Clone, Copy, PartialEq, Eq)]
enum StackKind {
    Python,
    Other,
}

fn find_stack_start(s: &str) -> Option<(usize, StackKind)> {
    for m in STACK_RE.find_iter(s) {
        let text = m.as_str();
        if text.starts_with("at") {
            if is_frame_location(text) {
                return Some((m.start(), StackKind::Other));
            }
        } else if text.starts_with("Traceback") || text.starts_with("File") {
            return Some((m.start(), StackKind::Python));
        } else {
            return Some((m.start(), StackKind::Other));
        }
    }
    None
}

/// Whether the parenthesised part of an `at …(…)` candidate is a real frame location.
fn is_frame_location(frame: &str) -> bool {
    let Some(open) = frame.rfind('(') else {
        return false;
    };
    let inner = frame[open + 1..].trim_end_matches(')');
    if matches!(inner, "Native Method" | "Unknown Source" | "<generated>") {
        return true;
    }
    const EXTS: [&str; 9] = [
        ".java", ".kt", ".scala", ".groovy", ".clj", ".js", ".mjs", ".cjs", ".ts",
    ];
    if EXTS.iter().any(|e| inner.ends_with(e)) {
        return true;
    }
    // `File.java:42`, `/app/x.js:10:5`, `Unknown Source:12`.
    match inner.rsplit_once(':') {
        Some((before, digits)) => {
            !before.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

fn pass_stack(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let (start, kind) = find_stack_start(s)?;
    let head = s[..start].trim_end();
    let mut out = String::with_capacity(head.len() + 48);
    out.push_str(head);
    if !head.is_empty() {
        out.push(' ');
    }
    out.push_str(STACK);
    if kind == StackKind::Python
        && let Some(tail) = python_exception_line(&s[start..])
    {
        out.push(' ');
        out.push_str(tail);
    }
    c.add(RedactionClass::Stack, 1);
    Some(out)
}

/// The final `SomeError: message` line of a Python traceback, the part a reader needs.
fn python_exception_line(stack: &str) -> Option<&str> {
    let last = stack.lines().rev().map(str::trim).find(|l| !l.is_empty())?;
    let name = last.split(':').next().unwrap_or(last);
    let is_name = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic());
    const SUFFIXES: [&str; 6] = [
        "Error",
        "Exception",
        "Warning",
        "Exit",
        "Interrupt",
        "Fault",
    ];
    let ok = is_name && SUFFIXES.iter().any(|suf| name.ends_with(suf));
    (ok && find_stack_start(last).is_none()).then_some(last)
}

// ---------------------------------------------------------------------------------------------
// SQL literals: only inside a detected statement (from its verb to `;` or the end of the line),
// plus the few driver and server messages that quote bound values.

static SQL_START_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(?-u:\b)(?:",
        r"select[ \t\r\n]+(?:distinct[ \t]+)?",
        r"[^ \t\r\n,]+(?:[ \t]+as[ \t]+[^ \t\r\n,]+)?",
        r"(?:[ \t]*,[ \t\r\n]*[^ \t\r\n,]+(?:[ \t]+as[ \t]+[^ \t\r\n,]+)?)*",
        r"[ \t\r\n]+from",
        r"|insert[ \t]+(?:ignore[ \t]+)?into",
        r"|update[ \t]+[A-Za-z0-9_.`\x22]+[ \t]+set",
        r"|delete[ \t]+from",
        r"|replace[ \t]+into",
        r"|merge[ \t]+into",
        r"|upsert[ \t]+into",
        r")(?-u:\b)",
    ))
    .expect("constant regex")
});

fn pass_sql_statements(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    let mut pos = 0;
    while pos < s.len() {
        let Some(m) = SQL_START_RE.find_at(s, pos) else {
            break;
        };
        let end = sql_literals(s, m.start(), &mut e, c);
        pos = end.max(m.end());
    }
    e.finish()
}

fn is_sql_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
}

/// Scans one statement from `start`, replacing literals; returns where the statement ends.
fn sql_literals(s: &str, start: usize, e: &mut Edit<'_>, c: &mut RedactionCounts) -> usize {
    let b = s.as_bytes();
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b';' | b'\n' => return i + 1,
            b'\'' => {
                let end = quoted_end(b, i, b'\'');
                // Keep an N'…' / X'…' / E'…' prefix with the literal.
                let lit_start = match (byte_before(s, i), byte_before(s, i.saturating_sub(1))) {
                    (Some(p), before)
                        if matches!(p, b'N' | b'n' | b'X' | b'x' | b'B' | b'b' | b'E' | b'e')
                            && !before.is_some_and(is_sql_ident_byte) =>
                    {
                        i - 1
                    }
                    _ => i,
                };
                if e.replace(lit_start, end, STR) {
                    c.add(RedactionClass::SqlLiteral, 1);
                }
                i = end;
            }
            b'"' => {
                let end = quoted_end(b, i, b'"');
                if sql_value_position(s, i) && e.replace(i, end, STR) {
                    c.add(RedactionClass::SqlLiteral, 1);
                }
                i = end;
            }
            b'`' => i = quoted_end(b, i, b'`'),
            b'0'..=b'9' => {
                let prev = byte_before(s, i);
                let mut j = i;
                while j < b.len() && is_sql_ident_byte(b[j]) {
                    j += 1;
                }
                let run = &s[i..j];
                let numeric = is_sql_number(run);
                let bound_param = prev.is_some_and(|p| matches!(p, b':' | b'@' | b'?'));
                let next_ok = !b.get(j).is_some_and(|&n| n == b':');
                if numeric && !bound_param && next_ok && e.replace(i, j, NUM) {
                    c.add(RedactionClass::SqlLiteral, 1);
                }
                i = j;
            }
            x if is_sql_ident_byte(x) => {
                while i < b.len() && is_sql_ident_byte(b[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    b.len()
}

/// `42`, `3.14`, `1e9`: a numeric literal and nothing else (`10ms`, `t1`, `1.2.3` are not).
fn is_sql_number(run: &str) -> bool {
    let mut seen_dot = false;
    let mut seen_exp = false;
    let bytes = run.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' => {}
            b'.' if !seen_dot && !seen_exp && i + 1 < bytes.len() => seen_dot = true,
            b'e' | b'E' if !seen_exp && i > 0 && i + 1 < bytes.len() => seen_exp = true,
            _ => return false,
        }
        i += 1;
    }
    !bytes.is_empty()
}

/// Whether a double-quoted token sits where a value goes (MySQL strings) rather than a name.
fn sql_value_position(s: &str, quote: usize) -> bool {
    let before = s[..quote].trim_end();
    match before.bytes().last() {
        Some(b'=' | b'<' | b'>' | b'(' | b',') => true,
        Some(_) => {
            let word = before
                .rsplit(|ch: char| !ch.is_ascii_alphabetic())
                .next()
                .unwrap_or("");
            ["like", "in", "values", "then", "else", "regexp"]
                .iter()
                .any(|w| word.eq_ignore_ascii_case(w))
        }
        None => false,
    }
}

/// Index just past the closing `q` of a quoted run starting at `open` (backslash and doubled
/// quotes escape); the end of input when unterminated.
fn quoted_end(b: &[u8], open: usize, q: u8) -> usize {
    let mut i = open + 1;
    while i < b.len() {
        if b[i] == b'\\' && q != b'`' {
            i += 2;
            continue;
        }
        if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

static DUPLICATE_ENTRY_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)duplicate entry ('(?:[^'\\]|\\.)*'?)").expect("constant regex")
});

static PG_KEY_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Key \([^)\n]*\)=\(([^\n]*?)\) (?:already exists|is not present|conflicts)")
        .expect("constant regex")
});

static MYBATIS_PARAMS_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Parameters:[ \t]*([^\n]*)").expect("constant regex"));

static MYBATIS_TYPE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\((String|Integer|Long|Short|Byte|Double|Float|BigDecimal|BigInteger|Boolean|",
        r"Timestamp|Date|LocalDateTime|LocalDate|LocalTime|Time|Character|UUID|Instant|Object)\)",
        r"(?:, |[ \t\r]*\z)"
    ))
    .expect("constant regex")
});

static HIBERNATE_BIND_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"binding parameter \[[0-9]+\] as \[([A-Z_]+)\] - \[([^\n]*)\]")
        .expect("constant regex")
});

fn is_numeric_sql_type(t: &str) -> bool {
    const NUMERIC: [&str; 16] = [
        "Integer",
        "Long",
        "Short",
        "Byte",
        "Double",
        "Float",
        "BigDecimal",
        "BigInteger",
        "BIGINT",
        "INTEGER",
        "SMALLINT",
        "TINYINT",
        "NUMERIC",
        "DECIMAL",
        "DOUBLE",
        "FLOAT",
    ];
    NUMERIC.contains(&t) || t == "REAL"
}

fn pass_sql_messages(s: &str, c: &mut RedactionCounts) -> Option<String> {
    // Spans from the four message forms, merged into one ordered edit.
    let mut spans: Vec<(usize, usize, &'static str)> = Vec::new();
    for caps in DUPLICATE_ENTRY_RE.captures_iter(s) {
        if let Some(v) = caps.get(1) {
            spans.push((v.start(), v.end(), STR));
        }
    }
    for caps in PG_KEY_RE.captures_iter(s) {
        if let Some(v) = caps.get(1)
            && !v.as_str().is_empty()
            && !is_placeholder(v.as_str())
        {
            spans.push((v.start(), v.end(), STR));
        }
    }
    for caps in MYBATIS_PARAMS_RE.captures_iter(s) {
        let Some(rest) = caps.get(1) else { continue };
        let base = rest.start();
        let text = rest.as_str();
        let mut prev_end = 0;
        for t in MYBATIS_TYPE_RE.captures_iter(text) {
            let (Some(whole), Some(ty)) = (t.get(0), t.get(1)) else {
                continue;
            };
            let raw = &text[prev_end..whole.start()];
            let value = raw.trim();
            let lead = raw.len() - raw.trim_start().len();
            if !value.is_empty()
                && value != "null"
                && ty.as_str() != "Boolean"
                && !is_placeholder(value)
            {
                let start = base + prev_end + lead;
                let ph = if is_numeric_sql_type(ty.as_str()) {
                    NUM
                } else {
                    STR
                };
                spans.push((start, start + value.len(), ph));
            }
            prev_end = whole.end();
        }
    }
    for caps in HIBERNATE_BIND_RE.captures_iter(s) {
        let (Some(ty), Some(v)) = (caps.get(1), caps.get(2)) else {
            continue;
        };
        if v.as_str().is_empty() || v.as_str() == "null" || is_placeholder(v.as_str()) {
            continue;
        }
        let ph = if is_numeric_sql_type(ty.as_str()) {
            NUM
        } else {
            STR
        };
        spans.push((v.start(), v.end(), ph));
    }
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable();
    let mut e = Edit::new(s);
    for (start, end, ph) in spans {
        if e.replace(start, end, ph) {
            c.add(RedactionClass::SqlLiteral, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// URL userinfo: `scheme://user:password@host` loses the password; the host goes later.

static URL_AUTH_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"[A-Za-z][A-Za-z0-9+.-]*://[^ \t\r\n/?#"']*@"#).expect("constant regex")
});

fn pass_url_userinfo(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in URL_AUTH_RE.find_iter(s) {
        let text = m.as_str();
        let Some(scheme_end) = text.find("://") else {
            continue;
        };
        let info_start = scheme_end + 3;
        let info_end = text.len() - 1; // the final `@`
        let Some(info) = text.get(info_start..info_end) else {
            continue;
        };
        let Some(colon) = info.find(':') else {
            continue;
        };
        let pw = &info[colon + 1..];
        if pw.is_empty() || is_placeholder(pw) {
            continue;
        }
        let start = m.start() + info_start + colon + 1;
        if e.replace(start, start + pw.len(), SECRET) {
            c.add(RedactionClass::Secret, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// Key/value secrets: `key=value`, `key: value`, JSON/YAML, headers, connection strings, query
// strings, Chinese keys. The regex finds candidate keys cheaply; `is_secret_key` decides.

static KV_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?:\\?["'])?"#,
        r"(?:[A-Za-z0-9_.\-]*(?i:pass|pwd|secret|token|key|credential|auth|cookie|signature|session|sk)",
        r"[A-Za-z0-9_.\-]*|密码|口令|令牌|密钥|秘钥)",
        r#"(?:\\?["'])?[ \t]{0,3}(?:[:=]|：)[ \t]*"#,
    ))
    .expect("constant regex")
});

/// Words that make a key secret when the key ends with them (`db_password`, `x-auth-token`).
const SECRET_WORD_SUFFIXES: [&str; 16] = [
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "credential",
    "credentials",
    "cookie",
    "signature",
    "sessionid",
    "authorization",
];
/// Words that are secret only as a whole word (`pass` but not `bypass`).
const SECRET_WORDS_EXACT: [&str; 4] = ["pass", "auth", "sk", "secrets"];
/// Two-word keys (`api_key`, `accessKey`, `session_id`).
const SECRET_PAIRS: [(&str, &str); 11] = [
    ("api", "key"),
    ("access", "key"),
    ("secret", "key"),
    ("private", "key"),
    ("encryption", "key"),
    ("signing", "key"),
    ("master", "key"),
    ("app", "key"),
    ("auth", "key"),
    ("client", "key"),
    ("session", "id"),
];
/// Words after a secret word that keep the key secret (`password_hash`, `secret_id`).
const SECRET_CONTINUATIONS: [&str; 18] = [
    "id",
    "value",
    "hash",
    "str",
    "string",
    "b64",
    "base64",
    "encrypted",
    "enc",
    "plain",
    "plaintext",
    "raw",
    "text",
    "data",
    "md5",
    "digest",
    "hex",
    "header",
];
/// Values that are prose, not secrets, after `token: ` or `secret: ` in a sentence.
const PROSE_VALUES: [&str; 34] = [
    "not",
    "is",
    "was",
    "are",
    "has",
    "invalid",
    "expired",
    "missing",
    "empty",
    "required",
    "null",
    "none",
    "nil",
    "unknown",
    "malformed",
    "failed",
    "failure",
    "denied",
    "mismatch",
    "revoked",
    "incorrect",
    "wrong",
    "rejected",
    "error",
    "timeout",
    "ok",
    "blank",
    "absent",
    "unset",
    "undefined",
    "changed",
    "updated",
    "reset",
    "no",
];
const AUTH_SCHEMES: [&str; 7] = [
    "bearer",
    "basic",
    "digest",
    "token",
    "negotiate",
    "ntlm",
    "aws4-hmac-sha256",
];

fn key_words(key: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let b = key.as_bytes();
    let mut start = None;
    for i in 0..b.len() {
        let ch = b[i];
        if !ch.is_ascii_alphanumeric() {
            if let Some(st) = start.take() {
                words.push(&key[st..i]);
            }
            continue;
        }
        if let Some(st) = start {
            let prev = b[i - 1];
            let camel = prev.is_ascii_lowercase() && ch.is_ascii_uppercase();
            let acronym_end = prev.is_ascii_uppercase()
                && ch.is_ascii_uppercase()
                && b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if camel || (acronym_end && i > st) {
                words.push(&key[st..i]);
                start = Some(i);
            }
        } else {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        words.push(&key[st..]);
    }
    words
}

fn ends_with_ci(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.as_bytes()[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

fn is_secret_word(w: &str) -> bool {
    SECRET_WORDS_EXACT.iter().any(|x| w.eq_ignore_ascii_case(x))
        || SECRET_WORD_SUFFIXES.iter().any(|x| ends_with_ci(w, x))
}

fn is_secret_pair(a: &str, b: &str) -> bool {
    SECRET_PAIRS
        .iter()
        .any(|(x, y)| a.eq_ignore_ascii_case(x) && b.eq_ignore_ascii_case(y))
        || (ends_with_ci(a, "api") && b.eq_ignore_ascii_case("key"))
}

fn is_secret_key(key: &str) -> bool {
    if ["密码", "口令", "令牌", "密钥", "秘钥"]
        .iter()
        .any(|k| key.ends_with(k))
    {
        return true;
    }
    let w = key_words(key);
    let n = w.len();
    if n == 0 {
        return false;
    }
    if is_secret_word(w[n - 1]) || (n >= 2 && is_secret_pair(w[n - 2], w[n - 1])) {
        return true;
    }
    n >= 2
        && SECRET_CONTINUATIONS
            .iter()
            .any(|x| w[n - 1].eq_ignore_ascii_case(x))
        && (is_secret_word(w[n - 2]) || (n >= 3 && is_secret_pair(w[n - 3], w[n - 2])))
}

fn is_cookie_key(key: &str) -> bool {
    ends_with_ci(key, "cookie")
}

/// Characters that end an unquoted value.
fn ends_value(ch: char) -> bool {
    ch.is_whitespace()
        || matches!(
            ch,
            '&' | ';'
                | ','
                | '"'
                | '\''
                | '}'
                | ')'
                | ']'
                | '|'
                | '，'
                | '；'
                | '。'
                | '）'
                | '】'
                | '、'
        )
}

/// Span of an unquoted value starting at `start` (cookies continue across `; name=value`).
fn unquoted_end(s: &str, start: usize, cookie: bool) -> usize {
    let mut end = start;
    let mut i = start;
    while let Some(ch) = s[i..].chars().next() {
        if cookie && ch == ';' {
            // `a=1; b=2`: keep going while another pair follows.
            let rest = &s[i + 1..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            if trimmed.chars().next().is_some_and(|n| !ends_value(n)) {
                i = s.len() - trimmed.len();
                end = i;
                continue;
            }
            break;
        }
        if ends_value(ch) {
            break;
        }
        i += ch.len_utf8();
        end = i;
    }
    end
}

/// How a value after a separator is delimited: (content start, content end, resume at).
fn value_span(s: &str, at: usize, cookie: bool) -> Option<(usize, usize, usize, bool)> {
    let b = s.as_bytes();
    match b.get(at) {
        None => None,
        Some(b'\\') if b.get(at + 1) == Some(&b'"') => {
            let open = at + 2;
            let close = s[open..].find("\\\"").map_or(s.len(), |k| open + k);
            Some((open, close, (close + 2).min(s.len()), true))
        }
        Some(&q @ (b'"' | b'\'')) => {
            let end = quoted_end(b, at, q);
            let close = if end > at + 1 && b.get(end - 1) == Some(&q) {
                end - 1
            } else {
                end
            };
            Some((at + 1, close.max(at + 1), end, true))
        }
        Some(_) => {
            let end = unquoted_end(s, at, cookie);
            Some((at, end, end, false))
        }
    }
}

/// If `value` starts with an auth scheme (`Bearer xyz`), the offset of the credential after it.
fn after_auth_scheme(value: &str) -> Option<usize> {
    let (scheme, rest) = value.split_once([' ', '\t'])?;
    if !AUTH_SCHEMES.iter().any(|x| scheme.eq_ignore_ascii_case(x)) {
        return None;
    }
    let skipped = rest.len() - rest.trim_start().len();
    Some(scheme.len() + 1 + skipped)
}

/// `invalid token: signature mismatch` is a sentence, not a credential: after `key: ` a lowercase
/// word from a short list, or (for keys weaker than a password) one followed by more words.
fn is_prose_value(s: &str, key: &str, value: &str, value_end: usize) -> bool {
    // MySQL's own `(using password: YES)`.
    if value == "YES" || value == "NO" {
        return true;
    }
    if !value.bytes().all(|b| b.is_ascii_lowercase()) {
        return false;
    }
    if PROSE_VALUES.contains(&value) {
        return true;
    }
    let strong = ["password", "passwd", "pwd", "pass", "passphrase"]
        .iter()
        .any(|k| ends_with_ci(key, k))
        || !key.is_ascii();
    let rest = &s[value_end..];
    let next_word = rest
        .strip_prefix(' ')
        .map(|r| {
            r.split(|ch: char| !ch.is_ascii_alphanumeric())
                .next()
                .unwrap_or("")
        })
        .unwrap_or("");
    let continues = !next_word.is_empty()
        && next_word.bytes().all(|b| b.is_ascii_lowercase())
        && !rest[1 + next_word.len()..].starts_with(['=', ':']);
    !strong && continues
}

fn is_inert_value(v: &str) -> bool {
    v.is_empty()
        || is_placeholder(v)
        || v.bytes().all(|b| b == b'*')
        || ["null", "none", "nil", "undefined"]
            .iter()
            .any(|x| v.eq_ignore_ascii_case(x))
}

fn pass_key_values(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    let mut pos = 0;
    while pos < s.len() {
        let Some(m) = KV_RE.find_at(s, pos) else {
            break;
        };
        pos = m.end().max(next_char(s, m.start()));
        let text = m.as_str();
        let key = text
            .trim_end_matches([' ', '\t', ':', '=', '：'])
            .trim_matches(|ch| ch == '"' || ch == '\'' || ch == '\\');
        if !is_secret_key(key)
            || byte_before(s, m.start()).is_some_and(|p| p.is_ascii_alphanumeric())
        {
            continue;
        }
        let spaced = text.ends_with([' ', '\t']);
        let colon = text.trim_end_matches([' ', '\t']).ends_with([':', '：']);
        let cookie = is_cookie_key(key);
        // `Authorization: Bearer xyz` with the credential after the scheme.
        let Some((mut vs, mut ve, resume, quoted)) = value_span(s, m.end(), cookie) else {
            continue;
        };
        if !cookie {
            if quoted {
                if let Some(off) = after_auth_scheme(&s[vs..ve]) {
                    vs += off;
                }
            } else if let Some(off) = after_auth_scheme(&s[vs..]) {
                vs += off;
                ve = unquoted_end(s, vs, false);
            }
        }
        let resume = resume.max(ve);
        let value = &s[vs..ve];
        if is_inert_value(value) {
            pos = pos.max(resume);
            continue;
        }
        if colon && spaced && !quoted && is_prose_value(s, key, value, ve) {
            continue;
        }
        if e.replace(vs, ve, SECRET) {
            c.add(RedactionClass::Secret, 1);
        }
        pos = pos.max(resume);
    }
    e.finish()
}

static CLI_FLAG_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"--[A-Za-z0-9-]*(?i:password|passwd|token|secret|api-key|apikey)[ \t]+([^ \t\r\n"'\-][^ \t\r\n"']*)"#,
    )
    .expect("constant regex")
});

static AUTH_SCHEME_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(?i:bearer|basic)[ \t]+([A-Za-z0-9._~+/=\-]{6,})").expect("constant regex")
});

fn pass_auth_scheme(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in AUTH_SCHEME_RE.captures_iter(s) {
        let Some(v) = caps.get(1) else { continue };
        // `Bearer token expired`, `basic authentication`, `Bearer realm="x"`: not a credential.
        if v.as_str()
            .trim_end_matches('=')
            .bytes()
            .all(|b| b.is_ascii_lowercase())
        {
            continue;
        }
        if e.replace(v.start(), v.end(), SECRET) {
            c.add(RedactionClass::Secret, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// Token-like values recognised by shape alone.

static VENDOR_TOKEN_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}",
        r"|LTAI[A-Za-z0-9]{12,30}",
        r"|gh[pousr]_[A-Za-z0-9]{30,}",
        r"|github_pat_[A-Za-z0-9_]{30,}",
        r"|xox[abposr]-[A-Za-z0-9-]{10,}",
        r"|[rs]k_(?:live|test)_[A-Za-z0-9]{10,}",
        r"|AIza[A-Za-z0-9_-]{30,40}",
        r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
    ))
    .expect("constant regex")
});

static LONG_RUN_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/_-]{32,}={0,2}").expect("constant regex"));

fn pass_vendor_tokens(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    let mut pos = 0;
    while pos < s.len() {
        let Some(m) = VENDOR_TOKEN_RE.find_at(s, pos) else {
            break;
        };
        let before_ok = !byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric());
        let after_ok = !byte_at(s, m.end()).is_some_and(|b| b.is_ascii_alphanumeric());
        if before_ok && after_ok && e.replace(m.start(), m.end(), TOKEN) {
            c.add(RedactionClass::Token, 1);
            pos = m.end();
        } else {
            pos = next_char(s, m.start());
        }
    }
    e.finish()
}

fn pass_long_tokens(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in LONG_RUN_RE.find_iter(s) {
        if is_token_like(m.as_str()) && !labelled_as_trace_id(s, m.start()) {
            if e.replace(m.start(), m.end(), TOKEN) {
                c.add(RedactionClass::Token, 1);
            }
        }
    }
    e.finish()
}

/// Long hex with letters and digits, or base64-ish text whose character classes keep switching
/// (random data does, `CamelCaseIdentifiers` and `/url/paths` do not).
fn is_token_like(run: &str) -> bool {
    let body = run.trim_end_matches('=');
    if body.len() < 32 {
        return false;
    }
    let b = body.as_bytes();
    let hex = b.iter().all(|x| x.is_ascii_hexdigit());
    let digits = b.iter().any(|x| x.is_ascii_digit());
    let letters = b.iter().any(|x| x.is_ascii_alphabetic());
    if hex {
        return digits && letters;
    }
    let upper = b.iter().any(|x| x.is_ascii_uppercase());
    let lower = b.iter().any(|x| x.is_ascii_lowercase());
    if !(upper && lower && digits) || body.starts_with('/') || body.contains("//") {
        return false;
    }
    let class = |x: u8| {
        if x.is_ascii_uppercase() {
            0
        } else if x.is_ascii_lowercase() {
            1
        } else if x.is_ascii_digit() {
            2
        } else {
            3
        }
    };
    let switches = b.windows(2).filter(|w| class(w[0]) != class(w[1])).count();
    switches * 10 >= body.len() * 4
}

/// Whether the value at `start` follows a trace/span/request id key (kept for correlation).
fn labelled_as_trace_id(s: &str, start: usize) -> bool {
    let before = s[..start].trim_end_matches([' ', '\t', '"', '\'', ':', '=']);
    let key_start = before
        .char_indices()
        .rev()
        .find(|&(_, ch)| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-'))
        .map_or(0, |(i, ch)| i + ch.len_utf8());
    let key: String = before[key_start..]
        .chars()
        .filter(|ch| ch.is_ascii_alphanumeric())
        .map(|ch| ch.to_ascii_lowercase())
        .collect();
    [
        "traceid",
        "spanid",
        "requestid",
        "reqid",
        "correlationid",
        "traceparent",
    ]
    .iter()
    .any(|k| key.ends_with(k))
}

// ---------------------------------------------------------------------------------------------
// E-mail addresses.

static EMAIL_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?",
        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}"
    ))
    .expect("constant regex")
});

fn pass_email(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in EMAIL_RE.find_iter(s) {
        if e.replace(m.start(), m.end(), EMAIL) {
            c.add(RedactionClass::Email, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// Host names: an FQDN must end in a known public or internal suffix, so `com.foo.Bar`,
// `Bar.java`, `order.created` and `spring.redis.host` stay.

static HOST_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.",
        r"(?:internal|intranet|intra|localdomain|local|lan|corp|svc|consul|com|net|org|io|cn|",
        r"cloud|edu|gov|arpa|jp|uk|hk|sg|tw|de|ru|xyz|top|tech|info|biz|ai|co)",
    ))
    .expect("constant regex")
});

static HOST_KEY_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?i:[a-z0-9_]*(?:host|hostname|node|nodename|node_name))["']?[ \t]*[=:][ \t]*["']?"#,
        r"([A-Za-z0-9][A-Za-z0-9_.\-]*)",
    ))
    .expect("constant regex")
});

static AWS_HOST_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"ip-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}").expect("constant regex")
});

fn pass_hosts(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for m in HOST_RE.find_iter(s) {
        let before_ok =
            !byte_before(s, m.start()).is_some_and(|b| is_word_byte(b) || b == b'-' || b == b'.');
        let after = byte_at(s, m.end());
        let after_ok = match after {
            Some(b) if is_word_byte(b) || b == b'-' => false,
            Some(b'.') => !byte_at(s, m.end() + 1).is_some_and(is_word_byte),
            _ => true,
        };
        // Kubernetes label keys and API groups (`node.kubernetes.io/unreachable`) are public names.
        let public = ["kubernetes.io", "k8s.io"]
            .iter()
            .any(|d| ends_with_ci(m.as_str(), d));
        if before_ok && after_ok && !public {
            spans.push((m.start(), m.end()));
        }
    }
    for caps in HOST_KEY_RE.captures_iter(s) {
        let (Some(whole), Some(v)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        let val = v.as_str().trim_end_matches('.');
        let has_digit = val.bytes().any(|b| b.is_ascii_digit());
        let has_alpha = val.bytes().any(|b| b.is_ascii_alphabetic());
        let before_ok = !byte_before(s, whole.start()).is_some_and(|b| b.is_ascii_alphanumeric());
        if before_ok && has_digit && has_alpha && !val.eq_ignore_ascii_case("localhost") {
            spans.push((v.start(), v.start() + val.len()));
        }
    }
    for m in AWS_HOST_RE.find_iter(s) {
        let before_ok = !byte_before(s, m.start()).is_some_and(|b| is_word_byte(b) || b == b'-');
        let after_ok = !byte_at(s, m.end()).is_some_and(|b| is_word_byte(b) || b == b'-');
        if before_ok && after_ok {
            spans.push((m.start(), m.end()));
        }
    }
    apply_spans(s, spans, HOST, RedactionClass::Host, c)
}

/// Applies possibly overlapping spans: sorted by start, an overlapped later span is dropped.
fn apply_spans(
    s: &str,
    mut spans: Vec<(usize, usize)>,
    placeholder: &str,
    class: RedactionClass,
    c: &mut RedactionCounts,
) -> Option<String> {
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut e = Edit::new(s);
    for (start, end) in spans {
        if !is_placeholder(&s[start..end]) && e.replace(start, end, placeholder) {
            c.add(class, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// IP addresses; ports stay.

static IPV4_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}").expect("constant regex")
});

static IPV6_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[?(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:\.[0-9]{1,3}){0,3}(?:%[A-Za-z0-9_.\-]+)?\]?")
        .expect("constant regex")
});

fn pass_ipv4(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in IPV4_RE.find_iter(s) {
        let before_ok = !byte_before(s, m.start()).is_some_and(|b| is_word_byte(b) || b == b'.');
        let after_ok = match byte_at(s, m.end()) {
            Some(b) if is_word_byte(b) => false,
            Some(b'.') => !byte_at(s, m.end() + 1).is_some_and(|b| b.is_ascii_digit()),
            _ => true,
        };
        let octets_ok = m
            .as_str()
            .split('.')
            .all(|o| o.parse::<u16>().is_ok_and(|n| n <= 255));
        if before_ok && after_ok && octets_ok && e.replace(m.start(), m.end(), IP) {
            c.add(RedactionClass::Ip, 1);
        }
    }
    e.finish()
}

fn pass_ipv6(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in IPV6_RE.find_iter(s) {
        let mut start = m.start();
        let mut text = m.as_str();
        // Brackets belong to the address only in pairs (`[::1]:443`).
        let open = text.starts_with('[');
        let close = text.ends_with(']');
        if open && !close {
            text = &text[1..];
            start += 1;
        } else if close && !open {
            text = &text[..text.len() - 1];
        }
        let inner = text.trim_start_matches('[').trim_end_matches(']');
        let addr = inner.split('%').next().unwrap_or(inner);
        let (valid, trimmed) = if addr.parse::<std::net::Ipv6Addr>().is_ok() {
            (true, 0)
        } else if !open && !inner.contains('%') && addr.ends_with(':') {
            let t = addr.trim_end_matches(':');
            (
                t.parse::<std::net::Ipv6Addr>().is_ok(),
                addr.len() - t.len(),
            )
        } else {
            (false, 0)
        };
        if !valid || !addr.bytes().any(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let end = start + text.len() - trimmed;
        let before_ok =
            !byte_before(s, start).is_some_and(|b| is_word_byte(b) || b == b':' || b == b'.');
        let after_ok = !byte_at(s, end).is_some_and(is_word_byte);
        if before_ok && after_ok && e.replace(start, end, IP) {
            c.add(RedactionClass::Ip, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// Kubernetes pods: Deployment pods end in `-<replicaset hash>-<5 chars>`, DaemonSet/Job pods in
// `-<5 chars>`, drawn from Kubernetes' vowel-free alphabet; StatefulSet pods only after a pod
// keyword.

static POD_SHAPE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?-[a-z0-9]{5}").expect("constant regex")
});

static POD_CONTEXT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?i:pods?)(?:[ \t]*[=:/][ \t]*|[ \t]+)["']?(?:[a-z0-9][a-z0-9-]*/)?"#,
        r"([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)",
    ))
    .expect("constant regex")
});

/// Kubernetes' `SafeEncodeString` alphabet: no vowels, no `0`, `1`, `3`.
fn in_k8s_alphabet(s: &str) -> bool {
    s.bytes()
        .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b))
}

fn looks_generated(seg: &str) -> bool {
    let digit = seg.bytes().any(|b| b.is_ascii_digit());
    let letter = seg.bytes().any(|b| b.is_ascii_lowercase());
    letter && (digit || in_k8s_alphabet(seg))
}

fn is_pod_shape(name: &str) -> bool {
    let segs: Vec<&str> = name.split('-').collect();
    let n = segs.len();
    if n < 2 || segs.iter().any(|s| s.is_empty()) {
        return false;
    }
    let suffix = segs[n - 1];
    if suffix.len() != 5 {
        return false;
    }
    if n >= 3 {
        let hash = segs[n - 2];
        if (6..=10).contains(&hash.len()) && looks_generated(hash) && looks_generated(suffix) {
            return true;
        }
    }
    // DaemonSet / Job: the suffix alone, strictly from the Kubernetes alphabet.
    segs[0]
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase())
        && in_k8s_alphabet(suffix)
        && suffix.bytes().any(|b| b.is_ascii_digit())
        && suffix.bytes().any(|b| b.is_ascii_lowercase())
}

fn is_statefulset_name(name: &str) -> bool {
    match name.rsplit_once('-') {
        Some((base, ordinal)) => {
            !base.is_empty()
                && base.bytes().any(|b| b.is_ascii_lowercase())
                && !ordinal.is_empty()
                && ordinal.len() <= 4
                && ordinal.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

fn pass_pod_context(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in POD_CONTEXT_RE.captures_iter(s) {
        let (Some(whole), Some(v)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        if byte_before(s, whole.start()).is_some_and(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let name = v.as_str();
        if (is_statefulset_name(name) || is_pod_shape(name)) && e.replace(v.start(), v.end(), POD) {
            c.add(RedactionClass::Pod, 1);
        }
    }
    e.finish()
}

fn pass_pod_shape(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in POD_SHAPE_RE.find_iter(s) {
        let before_ok =
            !byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-');
        let after_ok = !byte_at(s, m.end()).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-');
        if before_ok && after_ok && is_pod_shape(m.as_str()) && e.replace(m.start(), m.end(), POD) {
            c.add(RedactionClass::Pod, 1);
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// PIDs: after a pid key, in `name[1234]` syslog form, and nginx's `pid#tid`.

static PID_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i:(?:pp|p|child|main|parent|worker|master|proc|process)[_-]?)?(?i:pid)",
        r"[ \t]*[:=#]?[ \t]*[0-9]{1,10}",
        r"|(?i:process)[_ -]?(?i:id)[ \t]*[:=]?[ \t]*[0-9]{1,10}",
        r"|(?i:process)[ \t]+[0-9]{2,10}[ \t]+\(",
        r"|进程(?:号|ID|id|PID)?[ \t]*(?:[:=]|：)?[ \t]*[0-9]{1,10}",
        r"|[A-Za-z][A-Za-z0-9_.\-]*\[[0-9]{2,7}\]",
        r"|[0-9]{1,7}#[0-9]{1,7}:",
    ))
    .expect("constant regex")
});

fn pass_pid(s: &str, c: &mut RedactionCounts) -> Option<String> {
    let mut e = Edit::new(s);
    for m in PID_RE.find_iter(s) {
        let text = m.as_str();
        let (start, end) = if text.ends_with(']') {
            match text.rfind('[') {
                Some(open) => (m.start() + open + 1, m.end() - 1),
                None => continue,
            }
        } else if text.ends_with('(') {
            // `Killed process 31245 (java)`.
            let body = text[..text.len() - 1].trim_end();
            let digits = body.bytes().rev().take_while(u8::is_ascii_digit).count();
            if byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric()) {
                continue;
            }
            (m.start() + body.len() - digits, m.start() + body.len())
        } else if text.ends_with(':') {
            // nginx `12345#12345:` at the start of a field.
            if byte_before(s, m.start()).is_some_and(|b| !matches!(b, b' ' | b'\t')) {
                continue;
            }
            (m.start(), m.end() - 1)
        } else {
            let digits = text.bytes().rev().take_while(u8::is_ascii_digit).count();
            if byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric()) {
                continue;
            }
            if byte_at(s, m.end()).is_some_and(|b| is_word_byte(b) || b == b'.') {
                continue;
            }
            (m.end() - digits, m.end())
        };
        if e.replace(start, end, PID) {
            c.add(RedactionClass::Pid, 1);
        }
    }
    e.finish()
}
