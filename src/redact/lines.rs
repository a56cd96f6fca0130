//! Reading one line of a stream in the light of the lines before it.
//!
//! `aciproj redact` filters a stream line for line, but some values are named on one line and
//! written on the next: a pretty-printed `<apiToken>` element, a `password:` key whose value sits
//! on the next, deeper line, a `.netrc` entry with one field a line, a shell command continued
//! with a trailing backslash (`curl … \` and then `  -u dev:pw`). Read alone, the value's line has
//! no key, and its value stays. A [`LineContext`] remembers what the lines so far leave open;
//! [`Redactor::redact_line`] reads a line after a prefix that restores it (the opening tag, the
//! key, the netrc fields, the command's first line) and keeps only the line's own part of the
//! output, then reads that part alone as well, so the context can only add redactions.
//!
//! The context depends on the lines as given, never on a redaction of them, so a reader can
//! work it out for a batch of lines before another thread redacts them.
//!
//! The log projection reads a message whole, but a message can hold the same lines (a config
//! dump, a command): after the rules, a message that still holds a line break has its lines
//! read the same way ([`read_lines`]), so the agent sees no more of it than the filter shows.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use super::rules::credentials::is_secret_key;
use super::rules::tokens::PEM_BLOCK;
use super::rules::{stack, tables};
use super::text::{STACK, TOKEN};
use super::{CATALOGUE, Gate, Mark, RedactionCounts, Redactor, labelled_class, redact_with};

/// The searcher for a PEM block's first line, built once: every line is searched.
static PEM_BEGIN: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("-----BEGIN "));

/// What every table header with a column `tables` reads holds (`PID`, `TID`, `PPID`, `SPID`,
/// `PGID`, `Id` beside `Command`, `LWP`, `CONTAINER`, `POD`, `NAMES`, `NODE`, `HOST`), searched
/// once per line before the header is read.
static HEADER_WORDS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::new([
        "ID",
        "Id ",
        "LWP",
        "CONTAINER",
        "POD",
        "NAMES",
        "NODE",
        "HOST",
    ])
    .expect("constant patterns")
});

/// An SMTP server's `334` prompt for the password, base64 for `Password:`.
const SMTP_PASSWORD_PROMPT: &str = "334 UGFzc3dvcmQ6";

/// Longest line the context keeps as a prefix; a longer one leaves nothing open.
const MAX_PREFIX: usize = 4096;

/// Words a delimited header's column names a kind by (`ProcessId`, `s-computername`,
/// `container_name`), any case: a line without one opens no delimited table.
static FIELD_WORDS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([
            "pid",
            "tid",
            "lwp",
            "process",
            "thread",
            "host",
            "computer",
            "machine",
            "node",
            "server",
            "workstation",
            "pod",
            "container",
        ])
        .expect("constant patterns")
});

/// What the lines read so far leave open for the next one. Start with
/// [`LineContext::default`] and [`advance`](LineContext::advance) it past every line, raw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineContext {
    open: Open,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Open {
    #[default]
    Nothing,
    /// An element named as a secret ended the line (`<apiToken>`), or SMTP's password prompt.
    Element(String),
    /// A line that is only a secret key and its operator (`password:`, `"token":`,
    /// `secret =`): the key's line, and its indentation, which the value's line must exceed.
    Key(String, usize),
    /// A command continued with a trailing backslash: its first line, without the backslash.
    Command(String),
    /// A `.netrc` entry (`machine host`, `default`) whose fields may go on over the next lines.
    Netrc,
    /// A PEM block whose `-----BEGIN …-----` line went before: its base64 lines, up to `END`.
    Pem,
    /// A stack trace whose first lines went before: the lines that continue it go with it.
    Stack,
    /// A password prompt, or a command that prints a secret (`vault kv get -field=password`,
    /// `erlang:get_cookie().`): a next line that is one bare word is that secret.
    Prompt,
    /// A table whose header names a process id column: its rows are read under it.
    Table(String),
}

impl LineContext {
    /// Moves past `line` (raw, without its terminator).
    pub fn advance(&mut self, line: &str) {
        self.open = open_after(std::mem::take(&mut self.open), line);
    }

    /// The text to read `line` after and what joins the two, or `None` to read it alone.
    fn reading(&self, line: &str) -> Option<(&str, &'static str)> {
        if self.open == Open::Nothing || line.trim().is_empty() {
            return None;
        }
        match &self.open {
            Open::Nothing => None,
            Open::Element(tag) => Some((tag, "\n")),
            Open::Key(key, indent) => (indentation(line) > *indent).then_some((key, " ")),
            Open::Command(first) => Some((first, " ")),
            // The entry's first fields stand in for the ones on earlier lines.
            Open::Netrc => (first_word(line) == "password" && is_netrc_fields(line))
                .then_some(("machine m login l", " ")),
            // The body goes as the PEM rule takes it: see `Redactor::redact_line`.
            Open::Pem | Open::Stack => None,
            Open::Prompt => is_one_word(line).then_some(("password:", " ")),
            Open::Table(header) => Some((header, "\n")),
        }
    }
}

/// What `line` leaves open, given what was open before it.
fn open_after(before: Open, line: &str) -> Open {
    let t = line.trim_end();
    if (before == Open::Stack && stack::continues_trace(t)) || stack::opens_trace(t) {
        return Open::Stack;
    }
    // SMTP's base64 `Password:` prompt: the client's next line is the password.
    // The prompt may follow a transcript's side marker (`S: 334 UGFzc3dvcmQ6`).
    if t.trim_end().ends_with(SMTP_PASSWORD_PROMPT) {
        return Open::Element(SMTP_PASSWORD_PROMPT.to_owned());
    }
    // A header's columns stand apart: two blanks or a tab somewhere.
    if t.len() <= MAX_PREFIX
        && (memchr::memmem::find(t.as_bytes(), b"  ").is_some()
            || memchr::memchr(b'\t', t.as_bytes()).is_some())
        && HEADER_WORDS.find(t.as_bytes()).is_some()
        && !tables::header_columns(t).is_empty()
    {
        return Open::Table(t.to_owned());
    }
    // A delimited header (CSV, TSV, W3C `#Fields:`) names its columns between delimiters.
    if t.len() <= MAX_PREFIX
        && (t.starts_with("#Fields:") || memchr::memchr3(b',', b';', b'\t', t.as_bytes()).is_some())
        && FIELD_WORDS.find(t.as_bytes()).is_some()
        && tables::delimited_header(t).is_some()
    {
        return Open::Table(t.to_owned());
    }
    if let Open::Table(header) = &before
        && !t.trim().is_empty()
    {
        return Open::Table(header.clone());
    }
    if before == Open::Pem {
        return if pem_body(t).is_some() && !t.contains("-----END") {
            Open::Pem
        } else {
            Open::Nothing
        };
    }
    if let Some(at) = PEM_BEGIN.find(t.as_bytes()) {
        let header = &t[at + "-----BEGIN ".len()..];
        if header.contains("-----") && !header.contains("-----END") {
            return Open::Pem;
        }
    }
    if opens_prompt(t) && !is_bare_secret_key(t) {
        return Open::Prompt;
    }
    // Most lines end in none of the bytes an opener ends in and start no netrc entry.
    let last = t.as_bytes().last().copied().unwrap_or(b' ');
    if !matches!(last, b'\\' | b'>' | b':' | b'=') && before != Open::Netrc {
        let lead = t.trim_start().as_bytes().first().copied();
        if !matches!(lead, Some(b'm' | b'd')) {
            return Open::Nothing;
        }
    }
    if t.len() > MAX_PREFIX {
        return Open::Nothing;
    }
    if let Some(head) = continued(t) {
        return match before {
            Open::Command(first) => Open::Command(first),
            _ => Open::Command(head.trim_end().to_owned()),
        };
    }
    if let Some(tag) = opened_element(t) {
        return Open::Element(tag.to_owned());
    }
    if is_bare_secret_key(t) {
        return Open::Key(t.to_owned(), indentation(t));
    }
    let netrc = match first_word(t) {
        "machine" | "default" => true,
        "login" | "password" | "account" | "port" => before == Open::Netrc,
        _ => false,
    };
    if netrc && is_netrc_fields(t) {
        Open::Netrc
    } else {
        Open::Nothing
    }
}

/// Words that name a secret in a prompt or in a command that prints one.
const PROMPT_SECRET_WORDS: [&str; 8] = [
    "password",
    "passphrase",
    "passwd",
    "secret",
    "token",
    "cookie",
    "api_key",
    "apikey",
];

/// Whether `t` asks for a secret (`Enter password:`, `[sudo] password for bob:`) or is a
/// shell's or a REPL's command that names one (`$ vault kv get -field=password x`,
/// `(rabbit@mq)1> erlang:get_cookie().`): what the next line holds alone is that secret.
fn opens_prompt(t: &str) -> bool {
    let t = t.trim();
    if t.len() > 200 {
        return false;
    }
    let names_secret = |s: &str| {
        let lower = s.to_ascii_lowercase();
        PROMPT_SECRET_WORDS.iter().any(|w| lower.contains(w))
    };
    if let Some(head) = t.strip_suffix(':') {
        // The prompt's last words name the secret; a sentence that ends in a colon is longer.
        return head.split_whitespace().count() <= 6 && names_secret(head);
    }
    // A command after a prompt: `$ `, `# `, `> `, `PS C:\> `, `mongosh> `, `iex(1)> `.
    let command = ["$ ", "# ", "> "]
        .iter()
        .filter_map(|p| t.find(p).map(|at| (at, p.len())))
        .filter(|&(at, _)| at <= 40)
        .min()
        .map(|(at, n)| &t[at + n..]);
    command.is_some_and(|c| !c.contains('=') || c.contains("-field="))
        && command.is_some_and(names_secret)
}

/// Whether `line` is one word and nothing else, as a secret printed alone is.
fn is_one_word(line: &str) -> bool {
    let t = line.trim();
    // Not a key (`user:`), an assignment (`GIT_ASKPASS=/usr/lib/…`), a path or a URL.
    let assignment = t.trim_end_matches('=').contains('=');
    // Printable and unescaped: a control byte or a `\` escape would be read as a break by
    // the escaped reading and split the word in two.
    (4..=200).contains(&t.len())
        && !t.contains([' ', '\t', '\\'])
        && !t.chars().any(char::is_control)
        && !t.ends_with(':')
        && !assignment
        && !t.starts_with(['/', '~', '.'])
        && !t.contains("://")
}

/// Where a line of a PEM block's body holds its base64 (16 bytes or more), inside the quotes,
/// `+`, `,` and escaped line break that code around a key in source adds: `"MIIEow…\n" +`.
fn pem_body(t: &str) -> Option<Range<usize>> {
    let is_base64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let start = t.len() - t.trim_start_matches([' ', '\t', '"', '\'']).len();
    let mut end = t
        .trim_end_matches([' ', '\t', '"', '\'', '+', ',', ';'])
        .len();
    if t[..end].ends_with("\\n") {
        end -= 2;
    }
    let core = t.get(start..end)?;
    (core.len() >= 16 && core.bytes().all(is_base64)).then_some(start..end)
}

/// The line before its continuing backslash (an odd run of them ends it: `\\` is one, escaped).
fn continued(t: &str) -> Option<&str> {
    let run = t.bytes().rev().take_while(|&b| b == b'\\').count();
    (run % 2 == 1).then(|| &t[..t.len() - 1])
}

/// The opening tag that ends `t`, when it names a secret: `<password>`, `<ns:apiToken>`.
fn opened_element(t: &str) -> Option<&str> {
    if !t.ends_with('>') {
        return None;
    }
    let tag = &t[t.rfind('<')?..];
    let name = tag.strip_prefix('<')?.strip_suffix('>')?;
    let valid = !name.is_empty()
        && !name.starts_with(['-', '.', ':'])
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'));
    let local = name.rsplit(':').next().unwrap_or(name);
    (valid && is_secret_key(local)).then_some(tag)
}

/// Whether `t` is a secret key and its operator alone, indented or in a YAML list:
/// `password:`, `  "api_token":`, `- secret =`, `token :=`.
fn is_bare_secret_key(t: &str) -> bool {
    let Some(head) = t.strip_suffix([':', '=']) else {
        return false;
    };
    let head = head.strip_suffix(':').unwrap_or(head).trim_end();
    let head = head.trim_start();
    let head = head.strip_prefix("- ").unwrap_or(head).trim_start();
    let key = head.trim_matches(['"', '\'']);
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        && is_secret_key(key)
}

/// Whether `t` is `.netrc` fields: keywords each followed by one value (`default` by none).
fn is_netrc_fields(t: &str) -> bool {
    let mut words = t.split_ascii_whitespace();
    let mut any = false;
    while let Some(word) = words.next() {
        match word {
            "default" => {}
            "machine" | "login" | "password" | "account" | "port" => {
                if words.next().is_none() {
                    return false;
                }
            }
            _ => return false,
        }
        any = true;
    }
    any
}

fn first_word(t: &str) -> &str {
    t.split_ascii_whitespace().next().unwrap_or("")
}

fn indentation(t: &str) -> usize {
    t.len() - t.trim_start_matches([' ', '\t']).len()
}

impl Redactor {
    /// Redacts one line of a stream, read after what the lines before it leave open
    /// (`before`); without anything open, this is [`Redactor::redact`] (or
    /// [`Redactor::redact_marked`] with `marks`, which holds the line's marks afterwards).
    ///
    /// With something open the line is read twice: after the prefix that restores what is open,
    /// keeping only its own part of the output, and then that part alone. Counts are the line's
    /// own: what the prefix alone gives is taken off.
    pub fn redact_line<'a>(
        &self,
        before: &LineContext,
        line: &'a str,
        mut marks: Option<&mut Vec<Mark>>,
        counts: &mut RedactionCounts,
    ) -> Cow<'a, str> {
        let gate = Gate::Scan(&self.prefilter);
        if before.open == Open::Pem
            && let Some(body) = pem_body(line)
        {
            return Cow::Owned(pem_line(line, body, marks, counts));
        }
        if before.open == Open::Stack && stack::continues_trace(line) {
            let rule = CATALOGUE
                .iter()
                .position(|r| std::ptr::eq(*r, &stack::FRAME))
                .expect("the frame rule is in the catalogue");
            counts.add_rule(rule, stack::FRAME.class, 1);
            if let Some(marks) = marks {
                marks.clear();
            }
            return Cow::Owned(STACK.to_owned());
        }
        if let Some((prefix, joint)) = before.reading(line)
            && let Some(out) =
                read_in_context(gate, prefix, joint, line, marks.as_deref_mut(), counts)
        {
            return Cow::Owned(out);
        }
        match marks {
            Some(marks) => self.redact_marked(line, marks, counts),
            None => self.redact(line, counts),
        }
    }
}

/// `line`, a line of a PEM block's body, with its base64 at `body` replaced as the PEM rule
/// replaces a block, and counted as that rule's.
fn pem_line(
    line: &str,
    body: Range<usize>,
    marks: Option<&mut Vec<Mark>>,
    counts: &mut RedactionCounts,
) -> String {
    let rule = CATALOGUE
        .iter()
        .position(|r| std::ptr::eq(*r, &PEM_BLOCK))
        .expect("the PEM rule is in the catalogue");
    counts.add_rule(rule, PEM_BLOCK.class, 1);
    if let Some(marks) = marks {
        let class = labelled_class(PEM_BLOCK.placeholder);
        *marks = vec![Mark::new(body.start, TOKEN, class, &line[body.clone()])];
    }
    format!("{}{TOKEN}{}", &line[..body.start], &line[body.end..])
}

/// `line` read after `prefix` and `joint`, then its own part of that alone: the new line, or
/// `None` when the prefix read differently beside it or added nothing (then `counts` and
/// `marks`, the marks already on `line`, are as they were).
fn read_in_context(
    gate: Gate<'_>,
    prefix: &str,
    joint: &str,
    line: &str,
    marks: Option<&mut Vec<Mark>>,
    counts: &mut RedactionCounts,
) -> Option<String> {
    let mut prefix_counts = RedactionCounts::default();
    let prefix_out = redact_with(prefix, gate, false, &mut prefix_counts, None);
    let joined = format!("{prefix}{joint}{line}");
    let seed = (prefix.len() + joint.len()) as isize;
    let mut joined_marks: Option<Vec<Mark>> =
        (marks.as_deref()).map(|own| own.iter().map(|m| m.clone().moved(seed)).collect());
    let mut joined_counts = RedactionCounts::default();
    let out = redact_with(
        &joined,
        gate,
        false,
        &mut joined_counts,
        joined_marks.as_mut(),
    );
    let head = prefix_out.len() + joint.len();
    let own = (out.strip_prefix(&*prefix_out))
        .and_then(|rest| rest.strip_prefix(joint))
        .filter(|own| *own != line)?;
    joined_counts.subtract(&prefix_counts);
    counts.merge(&joined_counts);
    let mut own_marks: Option<Vec<Mark>> = joined_marks.map(|all| {
        (all.into_iter())
            .filter(|m| m.start() >= head)
            .map(|m| m.moved(-(head as isize)))
            .collect()
    });
    // The line's own part is then read as a line on its own is (`by_line`: the lines inside
    // its escaped stretches too), so the context only ever adds to what that reading hides.
    let again = redact_with(own, gate, true, counts, own_marks.as_mut()).into_owned();
    if let (Some(marks), Some(own_marks)) = (marks, own_marks) {
        *marks = own_marks;
    }
    Some(again)
}

/// A message's lines, each read after what the lines before it leave open: what a message
/// that holds several lines needs so that the log projection hides what `aciproj redact`
/// hides in the same lines. `marks` (on `text`) follow; whether anything changed.
pub(super) fn read_lines<'a>(
    text: Cow<'a, str>,
    gate: Gate<'_>,
    counts: &mut RedactionCounts,
    marks: Option<&mut Vec<Mark>>,
) -> (Cow<'a, str>, bool) {
    let mut context = LineContext::default();
    // Each changed line: its range in `text`, its new text and the marks on that.
    let mut edits: Vec<(Range<usize>, String, Vec<Mark>)> = Vec::new();
    let mut at = 0;
    for line in text.split('\n') {
        let range = at..at + line.len();
        at = range.end + 1;
        if let Some((prefix, joint)) = context.reading(line) {
            let mut line_marks: Option<Vec<Mark>> = marks.as_deref().map(|all| {
                (all.iter())
                    .filter(|m| range.contains(&m.start()))
                    .map(|m| m.clone().moved(-(range.start as isize)))
                    .collect()
            });
            if let Some(new) =
                read_in_context(gate, prefix, joint, line, line_marks.as_mut(), counts)
            {
                edits.push((range.clone(), new, line_marks.unwrap_or_default()));
            }
        }
        context.advance(line);
    }
    if edits.is_empty() {
        return (text, false);
    }
    let mut out = String::with_capacity(text.len());
    let mut moved: Vec<Mark> = Vec::new();
    let mut last = 0;
    for (range, new, line_marks) in &edits {
        let delta = out.len() as isize - last as isize;
        out.push_str(&text[last..range.start]);
        if let Some(all) = marks.as_deref() {
            moved.extend(
                (all.iter())
                    .filter(|m| (last..range.start).contains(&m.start()))
                    .map(|m| m.clone().moved(delta)),
            );
        }
        let start = out.len() as isize;
        moved.extend(line_marks.iter().map(|m| m.clone().moved(start)));
        out.push_str(new);
        last = range.end;
    }
    let delta = out.len() as isize - last as isize;
    out.push_str(&text[last..]);
    if let Some(all) = marks {
        moved.extend(
            (all.iter())
                .filter(|m| m.start() >= last)
                .map(|m| m.clone().moved(delta)),
        );
        *all = moved;
    }
    (Cow::Owned(out), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::RedactionClass;

    /// Each line of `text` redacted after the ones before it, joined again.
    fn filter(text: &str) -> String {
        let redactor = Redactor::shared();
        let mut context = LineContext::default();
        let mut out = Vec::new();
        for line in text.split('\n') {
            let mut counts = RedactionCounts::default();
            out.push(
                redactor
                    .redact_line(&context, line, None, &mut counts)
                    .into_owned(),
            );
            context.advance(line);
        }
        out.join("\n")
    }

    #[test]
    fn a_delimited_header_reads_the_rows_under_it() {
        assert_eq!(
            filter("Time,ProcessId,Message\n09:58:01,4412,flushed\n09:58:02,4413,done"),
            "Time,ProcessId,Message\n09:58:01,<PID>,flushed\n09:58:02,<PID>,done"
        );
        // A row of another width is no row of that table; a blank line ends it.
        assert_eq!(
            filter("Time,ProcessId,Message\n4412 files\n\n09:58:02,4413,done"),
            "Time,ProcessId,Message\n4412 files\n\n09:58:02,4413,done"
        );
    }

    #[test]
    fn a_secret_element_opened_on_one_line_takes_the_next() {
        assert_eq!(
            filter("<travisToken>\n    v89w94c6pjkh3zlh7w28j4\n</travisToken>"),
            "<travisToken>\n    <SECRET>\n</travisToken>"
        );
        assert_eq!(
            filter("<ns:password>\nhunter2</ns:password>"),
            "<ns:password>\n<SECRET></ns:password>"
        );
        assert_eq!(
            filter("<description>\n  rotate it\n</description>"),
            "<description>\n  rotate it\n</description>"
        );
    }

    #[test]
    fn a_secret_printed_alone_after_a_prompt_or_a_command_is_hidden() {
        assert_eq!(
            filter("$ vault kv get -field=password ops/db\nQw7rT2zL\n$ ls"),
            "$ vault kv get -field=password ops/db\n<SECRET>\n$ ls"
        );
        assert_eq!(
            filter("(rabbit@mq-2)1> erlang:get_cookie().\n'KQZBHTWQLMPNVRCYFXAD'"),
            "(rabbit@mq-2)1> erlang:get_cookie().\n'<SECRET>'"
        );
        assert_eq!(
            filter("Enter passphrase for key:\nmoss-Lantern-72"),
            "Enter passphrase for key:\n<SECRET>"
        );
        // A sentence after the command, a listing, a key's next key: no secret alone.
        assert_eq!(
            filter("$ kubectl get secrets\nNAME TYPE DATA AGE"),
            "$ kubectl get secrets\nNAME TYPE DATA AGE"
        );
        assert_eq!(filter("password:\nuser:"), "password:\nuser:");
    }

    #[test]
    fn a_bare_secret_key_takes_the_deeper_line_after_it() {
        assert_eq!(
            filter("db:\n  password:\n    S3cr3t!x\n  user: app"),
            "db:\n  password:\n    <SECRET>\n  user: app"
        );
        assert_eq!(
            filter("  \"api_token\":\n      \"abc123def\","),
            "  \"api_token\":\n      \"<SECRET>\","
        );
        // Not deeper: the next key, not a value.
        assert_eq!(filter("password:\nuser: bob"), "password:\nuser: bob");
        // Prose that ends in a key is not a key alone.
        assert_eq!(
            filter("could not read token:\n    connection refused"),
            "could not read token:\n    connection refused"
        );
    }

    #[test]
    fn a_continued_command_is_read_with_its_first_line() {
        assert_eq!(
            filter("curl -k https://svc:8443/rest \\\n  -d 'world' \\\n  -u dev:Hk7wQ2rTz9LmPx"),
            "curl -k https://<HOST>:8443/rest \\\n  -d 'world' \\\n  -u dev:<SECRET>"
        );
        // An escaped backslash ends the line; the next is read alone.
        assert_eq!(
            filter("echo 'a\\\\'\n  -u dev:pw"),
            "echo 'a\\\\'\n  -u dev:pw"
        );
    }

    #[test]
    fn a_pem_block_read_a_line_at_a_time_keeps_its_body_hidden() {
        assert_eq!(
            filter(
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx4Qz9Lk2mR8vT1nP5sW3yH6jD0fG7b\nK4cV9eX2uA1iO8pL3q/b+Y=\n-----END RSA PRIVATE KEY-----\nnext line"
            ),
            "<TOKEN>\n<TOKEN>\n<TOKEN>\n-----END RSA PRIVATE KEY-----\nnext line"
        );
        // In source code: quoted lines joined with `+`.
        assert_eq!(
            filter(
                "key = \"-----BEGIN PRIVATE KEY-----\\n\" +\n  \"MIIEvQIBADANBgkqhkiG9w0BAQEF\\n\" +\n  \"AASCBKcwggSjAgEAAoIBAQDAC4AW\\n\";"
            ),
            "key = \"<TOKEN>\" +\n  \"<TOKEN>\\n\" +\n  \"<TOKEN>\\n\";"
        );
        // A line that is no base64 ends a block whose END never came.
        assert_eq!(
            filter(
                "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUZ3Lk\n2026-12-02 INFO started ok"
            ),
            "<TOKEN>\n<TOKEN>\n2026-12-02 INFO started ok"
        );
    }

    #[test]
    fn a_netrc_entry_over_several_lines_keeps_its_password_hidden() {
        assert_eq!(
            filter("machine api.example.com\n  login deploy\n  password pass123\n"),
            "machine <HOST>\n  login deploy\n  password <SECRET>\n"
        );
        assert_eq!(
            filter("machine learning starts\npassword reset for bob"),
            "machine learning starts\npassword reset for bob"
        );
    }

    /// The log projection reads a message whole: its lines are read as the filter reads them,
    /// so the agent sees no more of a multi-line message than `aciproj redact` shows.
    #[test]
    fn a_message_of_several_lines_hides_what_the_filter_hides() {
        let message = "loaded config:\ndb:\n  password:\n    S3cr3t!x\nmachine git.example.com\n  login ci\n  password pw4Qz\n<apiToken>\n  k7Qw2mZp9xR4\n</apiToken>";
        let mut counts = RedactionCounts::default();
        let whole = Redactor::shared().redact(message, &mut counts).into_owned();
        assert_eq!(whole, filter(message));
        assert!(!whole.contains("S3cr3t") && !whole.contains("pw4Qz") && !whole.contains("k7Qw"));
        assert_eq!(counts.get(RedactionClass::Secret), 3);
        // With marks, the same text, and every placeholder marked where it stands.
        let mut marks = Vec::new();
        let mut counts = RedactionCounts::default();
        let marked = Redactor::shared().redact_marked(message, &mut marks, &mut counts);
        assert_eq!(marked, whole);
        assert!(
            marks
                .iter()
                .all(|m| whole[m.start()..].starts_with(m.placeholder()))
        );
        assert_eq!(marks.len(), 4, "three secrets and the host");
    }

    /// A fuzz find: after a continued line, the escaped prompt inside the next line
    /// (`secret\:\nvalue`) was read without its own lines, and kept the value that the line
    /// read alone hides.
    #[test]
    fn a_line_read_in_context_hides_what_it_hides_alone() {
        let line = r"x: i-0abc1234:secret\:\nWq7rT2zLm ";
        let mut alone = RedactionCounts::default();
        let alone = Redactor::shared().redact(line, &mut alone).into_owned();
        assert!(!alone.contains("Wq7rT2zLm"), "{alone}");
        assert_eq!(
            filter(&format!("run \\\n{line}")).split('\n').nth(1),
            Some(&*alone)
        );
    }

    #[test]
    fn counts_and_marks_are_the_lines_own() {
        let redactor = Redactor::shared();
        let mut context = LineContext::default();
        context.advance("curl https://10.1.2.3/x \\");
        let mut counts = RedactionCounts::default();
        let mut marks = Vec::new();
        let out = redactor.redact_line(&context, "  -u dev:pw1234", Some(&mut marks), &mut counts);
        assert_eq!(out, "  -u dev:<SECRET>");
        assert_eq!(counts.total(), 1, "the prefix's <IP> is not the line's");
        assert_eq!(marks.len(), 1);
        assert_eq!(&out[marks[0].start()..marks[0].end()], "<SECRET>");
    }
}
