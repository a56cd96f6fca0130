//! Stack traces: everything from the first frame (or the line that starts a trace) onward
//! becomes one `<STACK>`; the headline before it stays, and so does a Python traceback's final
//! exception line, which is the headline a Python trace carries last.
//!
//! One search finds where the earliest trace of any language starts, as one alternation of the
//! languages' patterns would; each language is a rule of its own (its id is what the control
//! view counts), and the rule whose form starts earliest is the one that cuts. Frames are recognised by their location (`File.java:42`,
//! `/app/x.js:10:5`, `in /src/A.cs:line 7`, `x.rb:3:in`), so prose such as "at least (3)" or
//! "at 10:00 (UTC)" stays.

use std::cell::{Cell, RefCell};
use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::prefilter::Features;
use super::super::rule::{Rule, always, ex};
use super::super::text::STACK;
use crate::matcher::Matcher;

/// The languages' forms, in the order of their patterns in [`STARTS`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Form {
    Node,
    Rust,
    DotNet,
    Jvm,
    Python,
    Go,
    Php,
    Ruby,
    Frame,
}

const FORMS: [Form; 9] = [
    Form::Node,
    Form::Rust,
    Form::DotNet,
    Form::Jvm,
    Form::Python,
    Form::Go,
    Form::Php,
    Form::Ruby,
    Form::Frame,
];

/// Each language's start, one pattern each, in [`FORMS`] order. At one position the earlier
/// pattern wins, so the specific forms go before the JVM frame, which rejects what is not a
/// frame location after matching.
///
/// Each is a matcher of its own, and so comes built ahead of time (see `matcher`): one
/// alternation of all nine was too big to build ahead, so every process compiled it and
/// filled its lazy DFA on the calling thread (about 0.2 ms of a 100-entry call).
const STARTS: [&str; 9] = [
    // A frame may follow a JSON-escaped line break or tab (`\n\tat com.x…`).
    // Node: `at fn (/app/x.js:1:2)`, `at /app/x.js:1:2`, `at async fn (node:internal/x:1:2)`.
    concat!(
        r"(?:(?:\\[tnr])+|(?-u:\b))at[ \t]+(?:(?:async|new)[ \t]+)?(?:[^ \t\r\n()]+[ \t]+)?\(?",
        r"(?:file://)?[^ \t\r\n()]*(?:\.(?:js|mjs|cjs|ts|tsx|jsx)|node:[a-z_/]+):[0-9]+(?::[0-9]+)?\)?",
    ),
    // Rust: `stack backtrace:` and `at /src/main.rs:10:5`.
    concat!(
        r"stack backtrace:|(?:(?:\\[tnr])+|(?-u:\b))at[ \t]+[^ \t\r\n()]*\.rs:[0-9]+:[0-9]+",
        r"|(?:\A|\n)[ \t]+[0-9]{1,3}:[ \t]+[A-Za-z_<][A-Za-z0-9_<>]*::[^ \t\r\n]+",
    ),
    // .NET: `at Ns.Type.Method(args) in /src/File.cs:line 42`, and the async seam.
    concat!(
        r"(?:(?:\\[tnr])+|(?-u:\b))at[ \t]+[A-Za-z_][A-Za-z0-9_.`<>\[\],+]*\([^()\n]*\)[ \t]+in[ \t]+[^\n]*:line[ \t]+[0-9]+",
        r"|--- End of (?:inner exception )?stack trace(?: from previous location)?(?: ---)?",
    ),
    // JVM (Java, Kotlin, Scala), and Node's named frames: checked by `is_frame_location`.
    // Unbounded repeats on purpose: the rules match bytes (see `matcher`), and a bounded
    // repeat of a negated class could stop inside a character.
    concat!(
        r"(?:(?:\\[tnr])+|(?-u:\b))at[ \t]+(?:async[ \t]+)?[A-Za-z_$][A-Za-z0-9_$]*(?:[./$][A-Za-z0-9_$<>-]+)+",
        r"(?: \[as [A-Za-z0-9_$]+\])?[ ]?\([^()\n]*\)",
    ),
    r#"Traceback \(most recent call last\):|(?-u:\b)File "[^"\n]+", line [0-9]+"#,
    r"(?-u:\b)goroutine [0-9]+ \[[^\]\n]*\]:",
    // PHP: `Stack trace:`, `#0 /var/www/x.php(12): …`, and an uncaught exception's
    // `in /var/www/x.php:33`. A warning's own `in /var/www/x.php on line 33` is where it was
    // raised, as a compiler's diagnostic says: no stack.
    concat!(
        r"Stack trace:|#[0-9]+ [^ \t\r\n()]*\.php\([0-9]+\)",
        r"|(?-u:\b)in[ \t]+/[^ \t\r\n]*\.php:[0-9]+",
    ),
    // Ruby: `/app/x.rb:12:in 'm'` (also with a backtick), `from x.rb:3:in`.
    r"(?:from[ \t]+)?[^ \t\r\n:()'`\x22]*\.rb:[0-9]+:in[ \t]+[`']",
    // Any other language, by what frames share: checked by `is_generic_frame`.
    FRAME_START,
];

/// Where a frame of any language may start; [`is_generic_frame`] decides. Frames share a few
/// shapes whatever the runtime: a frame marker at the start of a line (gdb's and sanitizers'
/// `#0`, lldb's `frame #0:`, Julia's `[1]`, an Apple crash report's `0   libfoo.dylib   0x…`,
/// BEAM's `(app 1.2)`, `at`, `in`, `from`) followed by a source location or a code address; a
/// function called with its location (`main (file:///x.dart:3:5)`, `f@http://x/app.js:1:2`);
/// a location with an offset (`/app/x.go:12 +0x1d`, `handler+0x1a/0x90`); the phrases of
/// Haskell, Perl, Lua, OCaml, Erlang and Swift (`called at`, `at x.pl line 3`, `x.lua:5: in
/// function`, `File "x.ml", line 3`, `(x.erl, line 3)`, `file X.swift, line 9`); and the
/// lines that introduce a trace (`stack traceback:`, `Backtrace:`, `Call Trace:`).
const FRAME_START: &str = concat!(
    // Raku's `in method m at /x.rakumod (Mod) line 41`, before the bare `in ` marker below.
    r"(?-u:\b)in (?:method|sub|block|submethod|regex) [^\r\n]* at [^ \t\r\n]+ (?:\([^)\r\n]*\) )?line [0-9]+|",
    r"#[0-9]{1,4}[ \t]|frame #[0-9]+:|\[[0-9]{1,4}\][ \t]",
    r"|(?-u:\b)[0-9]{1,4}[ \t]+[^ \t\r\n]+[ \t]+0x[0-9A-Fa-f]{4}",
    // A numbered frame with its address first (Swift's `1 0x0000aaaab3c1f008 closure #1 in …`),
    // and a frame that opens on a bare code address before a function called (Solaris'
    // `pstack`: ` ffffffff7ef3c4a8 _lwp_park (0, 0, 1001ec2f0) + 8`).
    r"|(?m:^)[ \t]*[0-9]{1,4}[ \t]+0x[0-9A-Fa-f]{8,16}[ \t]+[^ \t\r\n]",
    r"|(?m:^)[ \t]*[0-9A-Fa-f]{12,16}[ \t]+[A-Za-z_.$][A-Za-z0-9_.$:<>~]*[ \t]*\([^()\r\n]*\)",
    r"|\([A-Za-z_][A-Za-z0-9_]*[ \t][0-9][A-Za-z0-9_.+\-]*\)[ \t]|(?-u:\b)(?i:in|from)[ \t]",
    r"|[A-Za-z_$<][A-Za-z0-9_$.:<>~\-]*[ \t]?\((?:[^()\r\n]*[ \t])?[^ \t\r\n()]*[/\\][^ \t\r\n()]*[A-Za-z0-9_]\.[A-Za-z][A-Za-z0-9]{0,9}:[0-9]+",
    r"|[A-Za-z_$<][A-Za-z0-9_$.:<>~\-]*[ \t]?\((?:[^()\r\n]*[ \t])?[^ \t\r\n()]*[A-Za-z0-9_]\.[A-Za-z][A-Za-z0-9]{0,9}:[0-9]+:[0-9]+",
    r"|[A-Za-z0-9_$.<>/\-]*@[^ \t\r\n()@]*[A-Za-z0-9_]\.[A-Za-z][A-Za-z0-9]{0,9}:[0-9]+:[0-9]+",
    r"|[A-Za-z0-9_$.<>/\-]*@[a-z][a-z0-9+.\-]*://[^ \t\r\n()@]*[A-Za-z0-9_]\.[A-Za-z][A-Za-z0-9]{0,9}:[0-9]+",
    r"|(?m:^)[ \t]*[a-z]+://[^ \t\r\n()]*[A-Za-z0-9_]\.[A-Za-z][A-Za-z0-9]{0,9}:[0-9]+:[0-9]+[ \t]*(?m:$)",
    r"|(?-u:\b)at[ \t]+[A-Za-z_<][A-Za-z0-9_.`<>$\[\],+]*\.[A-Za-z0-9_`<>$]+\(",
    r"|\[0x[0-9A-Fa-f]{8,16}\][ \t]|#[0-9]+ \{main\}|ORA-06512: at[ \t]",
    r"|(?m:^)[ \t]+[A-Za-z_][A-Za-z0-9_:]*(?:\([^()\r\n]*\))?[ \t]+called at[ \t]+[^ \t\r\n]+",
    r"|(?-u:\b)called at[ \t]+[^ \t\r\n]+|\{file,\x22|(?:\[C\]|[^ \t\r\n:]+\.lua(?::[0-9]+)?|\):[0-9]+): in[ \t]",
    r"|(?-u:\b)at[ \t]+[^ \t\r\n]+\.(?:pl|pm|t|cgi|psgi)[ \t]+line[ \t]+[0-9]+",
    r"|(?-u:\b)(?i:file)[ \t]+\x22?[^ \t\r\n\x22,]+\.[A-Za-z]{1,6}\x22?,[ \t]+line[ \t]+[0-9]+",
    r"|\([^ \t\r\n(),]+\.[A-Za-z]{1,6},[ \t]+line[ \t]+[0-9]+\)",
    r"|[^ \t\r\n]+\.[A-Za-z]{1,6}:[0-9]+[ \t]+\+0x[0-9A-Fa-f]+",
    // glibc's `backtrace_symbols`: `./prog(handler+0x1d) [0x400a1d]`, the function's
    // arguments inside (`(ceph::assert_fail(char const*)+0x1a9) [0x55d3…]`).
    r"|[^ \t\r\n\x22()]*\((?:[^()\r\n]|\([^()\r\n]*\))*\+0x[0-9A-Fa-f]+\)[ \t]*\[0x[0-9A-Fa-f]+\]",
    r"|[A-Za-z_][A-Za-z0-9_.$]*\+0x[0-9A-Fa-f]+(?:/0x[0-9A-Fa-f]+)?",
    // Nim's `/src/x.nim(41) proc`, a caller's `, at: lib/x.ex:61` (Ecto's query origin).
    r"|(?m:^)[ \t]*[^ \t\r\n()]*/[^ \t\r\n()]*\.[A-Za-z][A-Za-z0-9]{0,9}\([0-9]+\)[ \t]+[A-Za-z_]",
    r"|, at: [^ \t\r\n]+\.[a-z]{1,5}:[0-9]+",
    // A numbered frame with its address or location on the line: ClickHouse's `0. DB::f() @
    // 0x0c8a…`, Garry's Mod's `1. fn - lua/x.lua:58`; Lua's chunk name in brackets
    // (`[love "main.lua"]:228: in function`); Smalltalk's `Class(Super)>>selector`; Apex's
    // `Class.X.m: line 91, column 1`.
    r"|(?m:^)[ \t]*[0-9]{1,3}\.[ \t]+[^\r\n]*?(?: @ 0x[0-9a-fA-F]{6,}|[^ \t\r\n]\.[A-Za-z]{1,6}:[0-9]+)",
    r"|\]:[0-9]+: in[ \t]",
    r"|(?m:^)[ \t]*[A-Z][A-Za-z0-9_]*(?:\([A-Z][A-Za-z0-9_]*\))?(?: class)?>>[A-Za-z_][A-Za-z0-9_:]*",
    r"|(?-u:\b)[A-Za-z_][A-Za-z0-9_.]*: line [0-9]+, column [0-9]+",
    // A .NET frame in the runtime's own language: an indented marker word of any language
    // (`bei`, `en`, `à`, `в`, `場所`), a method of a namespace called, and its location with
    // the language's word for line (`in C:\src\X.cs:Zeile 31`, `:línea 77`, `:行 118`), or none.
    r"|(?m:^)[ \t]+[^ \t\r\n]+[ \t]+(?:[A-Za-z_][A-Za-z0-9_`<>$]*\.){2,}[A-Za-z_][A-Za-z0-9_`<>$]*\([^()\r\n]*\)",
    r"(?:[ \t]+[^ \t\r\n]+[ \t]+[^\r\n]*\.[A-Za-z]{1,6}:[^ \t\r\n0-9]+[ \t]*[0-9]+)?[ \t]*(?m:$)",
    r"|(?:stack traceback|[Bb]acktrace|Call Trace|Call stack|CallStack \(from HasCallStack\)|Stacktrace)[ \t]*:[ \t]*(?m:$)",
);

fn start_matcher(form: usize) -> Matcher {
    Matcher::new(STARTS[form]).expect("constant regex")
}

static START_RES: [LazyLock<Matcher>; 9] = [
    LazyLock::new(|| start_matcher(0)),
    LazyLock::new(|| start_matcher(1)),
    LazyLock::new(|| start_matcher(2)),
    LazyLock::new(|| start_matcher(3)),
    LazyLock::new(|| start_matcher(4)),
    LazyLock::new(|| start_matcher(5)),
    LazyLock::new(|| start_matcher(6)),
    LazyLock::new(|| start_matcher(7)),
    LazyLock::new(|| start_matcher(8)),
];

/// Every stack rule searches all the starts.
static MATCHERS: [&LazyLock<Matcher>; 9] = {
    let mut all = [&START_RES[0]; 9];
    let mut k = 1;
    while k < all.len() {
        all[k] = &START_RES[k];
        k += 1;
    }
    all
};

/// The stack rules, in [`FORMS`] order.
pub(crate) static RULES: [&Rule; 9] = [
    &NODE, &RUST, &DOTNET, &JVM, &PYTHON, &GO, &PHP, &RUBY, &FRAME,
];

/// Every form, as a set (bit `k` for `FORMS[k]`).
const ALL_FORMS: u16 = (1 << FORMS.len()) - 1;
/// The forms whose candidates are checked after matching: see [`search_stack_start`].
const CHECKED_FORMS: u16 = 1 << 3 | 1 << 8;
const _: () = assert!(matches!(FORMS[3], Form::Jvm) && matches!(FORMS[8], Form::Frame));

thread_local! {
    /// The forms whose rules' gates are open for the message being redacted on this thread.
    static OPEN_FORMS: Cell<u16> = const { Cell::new(ALL_FORMS) };
}

/// Runs `redact` with the stack search narrowed to `open` (bit `k` for the rule `RULES[k]`),
/// the stack rules whose gates the message leaves open; the set before it again afterwards.
///
/// The search finds the same start as a search of every form. The form that starts earliest is
/// the one whose rule cuts, so its gate is open: a closed gate never hides a hit (the
/// gated-equals-ungated tests and the `redact` fuzz target hold every gate to that), and gates
/// stay closed as a message is redacted. Among the open forms it is still the earliest. The
/// one form a search can skip past is the JVM frame, whose candidates are rejected after
/// matching and moved past; it is always searched, so the search moves past the same ones.
pub(crate) fn with_open_forms<R>(open: u16, redact: impl FnOnce() -> R) -> R {
    struct Restore(u16);
    impl Drop for Restore {
        fn drop(&mut self) {
            OPEN_FORMS.set(self.0);
        }
    }
    let _restore = Restore(OPEN_FORMS.replace(open));
    redact()
}

/// Where a trace starts, and in which form.
type Start = Option<(usize, Form)>;

/// Where the earliest trace starts, and in which form.
///
/// Every stack rule whose keyword a message holds asks this of the same text (a Java line's
/// `at ` opens the Node, .NET and JVM rules alike), so a thread remembers the last short text it
/// searched and its answer; the text itself is the key, so a hit is the answer a search gives.
fn stack_start(s: &str) -> Start {
    stack_start_of(s, OPEN_FORMS.get())
}

/// [`stack_start`] among `forms`; any set that holds the form a search of all of them finds
/// gives the same answer, which is why one remembered answer serves every set.
fn stack_start_of(s: &str, forms: u16) -> Start {
    /// Texts longer than this are searched every time rather than copied.
    const REMEMBERED: usize = 4096;
    thread_local! {
        static LAST: RefCell<Option<(String, Start)>> = const { RefCell::new(None) };
    }
    if s.len() > REMEMBERED {
        return search_stack_start(s, forms);
    }
    LAST.with_borrow_mut(|last| match last {
        Some((text, found)) if text == s => *found,
        _ => {
            let found = search_stack_start(s, forms);
            let (text, slot) = last.get_or_insert_with(|| (String::new(), None));
            text.clear();
            text.push_str(s);
            *slot = found;
            found
        }
    })
}

/// Where the earliest trace starts among the forms in `forms`: what one alternation of them
/// would find (the earliest start; at one start, the earlier form), with the JVM candidates
/// that are not frames moved past.
fn search_stack_start(s: &str, forms: u16) -> Start {
    let forms = possible_forms(s, forms | CHECKED_FORMS);
    // Per form, its first match at or after the last position searched from (`None` for none).
    // A match that starts at or after the next position is that position's first match too,
    // so only the forms whose match was passed are searched again.
    let mut first: [Option<Option<(usize, usize)>>; 9] = [None; 9];
    let mut pos = 0;
    while pos <= s.len() {
        let mut best: Option<(usize, usize, usize)> = None;
        for (k, re) in START_RES.iter().enumerate() {
            if forms & 1 << k == 0 {
                continue;
            }
            let found = match first[k] {
                Some(m) if m.is_none_or(|(start, _)| start >= pos) => m,
                _ => re.find_at(s, pos).map(|m| (m.start(), m.end())),
            };
            first[k] = Some(found);
            let Some((start, end)) = found else {
                continue;
            };
            // Forms are tried in order, so a later one wins only by starting earlier.
            if best.is_none_or(|(at, _, _)| start < at) {
                best = Some((start, end, k));
            }
        }
        let (start, _, _) = best?;
        // At one start the earlier form goes first; a checked form that fails its check
        // leaves the start to the next form that matched there.
        for (k, found) in first.iter().enumerate() {
            if let Some(Some((at, end))) = *found
                && at == start
                && is_start(s, start, end, FORMS[k])
            {
                return Some((start, FORMS[k]));
            }
        }
        pos = super::super::text::next_char(s, start);
    }
    None
}

/// `forms` without the checked forms that cannot start a trace in `s`, by a few byte scans
/// that are cheaper than their searches. The checked forms are searched whatever the gates
/// say, and the generic frame's start matches a bare `in ` of prose: on most log lines
/// neither can be a frame, and the scans say so before any search runs. Each test is a
/// necessary condition of its form (the split-search property test holds them to that).
fn possible_forms(s: &str, forms: u16) -> u16 {
    const JVM: u16 = 1 << 3;
    const FRAME: u16 = 1 << 8;
    let b = s.as_bytes();
    let mut forms = forms;
    if forms & (JVM | FRAME) == 0 {
        return forms;
    }
    let paren = memchr::memchr(b'(', b).is_some();
    let at_word = paren && has_at_word(b);
    // A JVM frame calls with a parenthesis after `at`.
    if !at_word {
        forms &= !JVM;
    }
    if forms & FRAME != 0 && !(at_word || frame_possible(b)) {
        forms &= !FRAME;
    }
    forms
}

/// `at` and a blank where the stack starts match it: after a byte that is not a word's, or
/// after an escaped line break or tab (`\n\tat `).
fn has_at_word(b: &[u8]) -> bool {
    memchr::memmem::find_iter(b, b"at").any(|i| {
        matches!(b.get(i + 2), Some(b' ' | b'\t'))
            && (i == 0
                || !super::super::text::is_word_byte(b[i - 1])
                || (matches!(b[i - 1], b't' | b'n' | b'r') && i >= 2 && b[i - 2] == b'\\'))
    })
}

/// Whether a generic frame (see [`FRAME_START`] and [`is_generic_frame`]) other than an
/// `at X.Y(` call may start in `b`. Each shape needs one of: a numbered marker (`#0`, `[1] `,
/// `[0x…]`), a code address or offset (`0x`), a phrase of a frame or a trace's introduction,
/// a line that opens on a marker (`in `, `from `, `(app 1.2)`, `1. `) or a URL, a parenthesis whose
/// inside names a line (`main (x.dart:3:5)`), or an `@` whose word does (`f@x.js:1:2`,
/// `f@http://x/a.js:7`), or a line number in parentheses (`x.nim(41)`).
fn frame_possible(b: &[u8]) -> bool {
    static PHRASES: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
        aho_corasick::AhoCorasick::new([
            "0x",
            " line",
            "\tline",
            ": in",
            "called at",
            "{file,",
            "ORA-06512",
            "traceback",
            "acktrace",
            "Call Trace",
            "Call stack",
            "CallStack",
            "Stacktrace",
            ", at: ",
            ">>",
        ])
        .expect("constant phrases")
    });
    let digit_after = |i: usize| b.get(i + 1).is_some_and(u8::is_ascii_digit);
    // `:` and a digit in `b[from..]` before any byte in `stops`.
    let colon_digit_before = |from: usize, stops: &[u8]| {
        let run = &b[from.min(b.len())..];
        let run = &run[..run
            .iter()
            .position(|c| stops.contains(c))
            .unwrap_or(run.len())];
        memchr::memchr_iter(b':', run).any(|j| run.get(j + 1).is_some_and(u8::is_ascii_digit))
    };
    if memchr::memchr2_iter(b'#', b'[', b).any(digit_after) || PHRASES.is_match(b) {
        return true;
    }
    if memchr::memchr_iter(b'(', b).any(|i| colon_digit_before(i + 1, b"()\r\n")) {
        return true;
    }
    if memchr::memchr_iter(b'@', b).any(|i| colon_digit_before(i + 1, b" \t\r\n()@")) {
        return true;
    }
    // Nim's `x.nim(41) proc`: a line number in parentheses after a file's extension.
    if memchr::memchr_iter(b'(', b).any(|i| {
        i > 0
            && b[i - 1].is_ascii_alphanumeric()
            && digit_after(i)
            && b[i + 1..]
                .iter()
                .find(|c| !c.is_ascii_digit())
                .is_some_and(|&c| c == b')')
    }) {
        return true;
    }
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', b).map(|i| i + 1))
        .any(|line| {
            let t = &b[line..];
            let t = &t[t.iter().take_while(|&&c| c == b' ' || c == b'\t').count()..];
            let word = |w: &[u8]| {
                t.len() > w.len()
                    && t[..w.len()].eq_ignore_ascii_case(w)
                    && matches!(t[w.len()], b' ' | b'\t')
            };
            // A localized .NET frame: an indented word, then `Ns.Type.Method(`.
            let indented = t.len() < b.len() - line;
            let word_end = t
                .iter()
                .position(|&c| c == b' ' || c == b'\t')
                .unwrap_or(t.len());
            let call = &t[word_end..];
            let call = &call[..memchr::memchr2(b'\n', b'(', call).unwrap_or(call.len())];
            let dotnet = indented
                && call.first().is_some_and(|&c| c == b' ' || c == b'\t')
                && memchr::memchr_iter(b'.', call).count() >= 2
                && !call.trim_ascii().contains(&b' ');
            // A frame that opens on its code address (Solaris' `pstack`).
            let address = t.iter().take_while(|c| c.is_ascii_hexdigit()).count();
            let address_first =
                (12..=16).contains(&address) && matches!(t.get(address), Some(b' ' | b'\t'));
            let scheme = t.iter().take_while(|c| c.is_ascii_lowercase()).count();
            let number = t.iter().take_while(|c| c.is_ascii_digit()).count();
            word(b"in")
                || word(b"from")
                || t.starts_with(b"(")
                // A numbered frame: `1. fn - lua/x.lua:58`.
                || (number > 0 && t[number..].starts_with(b". "))
                || (scheme > 0 && t[scheme..].starts_with(b"://"))
                || dotnet
                || address_first
        })
}

/// Whether a candidate `s[start..end]` of `form` starts a trace: the checked forms' candidates
/// must pass their check, the others' always do.
fn is_start(s: &str, start: usize, end: usize, form: Form) -> bool {
    match form {
        Form::Jvm => is_frame_location(&s[start..end]),
        // OCaml's compiler names a place with its characters (`File "x.ml", line 3,
        // characters 8-44:`): a diagnostic, where Python's frame names a function.
        Form::Python => !s[end..].starts_with(", characters"),
        Form::Frame => is_generic_frame(s, start, end),
        _ => true,
    }
}

/// Whether a generic frame candidate (see [`FRAME_START`]) is a frame. A frame marker must be
/// followed on its line by a source location, a code address or an offset; every other shape
/// carries its location in the match.
fn is_generic_frame(s: &str, start: usize, end: usize) -> bool {
    let m = &s[start..end];
    // A localized .NET frame's marker is another word than English `at`, whose frames the
    // .NET and JVM forms read.
    if m.starts_with([' ', '\t']) && m.trim_start().starts_with("at ") {
        return false;
    }
    let word = m.trim_end();
    let line_start = s[..start].rfind('\n').map_or(0, |i| i + 1);
    // lldb marks the selected frame with `*`; a log line's header may come first
    // (`[11.03.2026 02:31:02] <58> Error    at Ns.Type.Method()`).
    let first_on_line = s[line_start..start]
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || b == b'*')
        || after_log_header(&s[line_start..start]);
    // A trace's introduction (`Call Trace:`) is a line of its own.
    if word.ends_with(':') && !m.starts_with("frame #") {
        return first_on_line;
    }
    // A frame with no location (`at Ns.Type.Method(Type arg)`, .NET without symbols) is a line
    // of its own, ending in its call's parenthesis.
    if m.starts_with("at") && m.ends_with('(') {
        let line_end =
            memchr::memchr2(b'\n', b'\r', &s.as_bytes()[end..]).map_or(s.len(), |i| end + i);
        return first_on_line && s[end..line_end].trim_end().ends_with(')');
    }
    let marker = m
        .strip_prefix('#')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        || m.starts_with("frame #")
        || m.starts_with('[')
        || (m.starts_with('(') && !m.contains(',') && !m.contains("+0x"))
        || m.starts_with(|c: char| c.is_ascii_digit())
        || ["in", "from"].iter().any(|w| word.eq_ignore_ascii_case(w));
    if !marker {
        // A message's own place is no frame: OCaml's compiler diagnostic (`File "x.ml", line
        // 3, characters 8-44:`), and Perl's `warn` and `die`, which end the message with
        // where they were called (`… at lib/Auth.pm line 88.`); Carp's frames say `called at`.
        if s[end..].starts_with(", characters") {
            return false;
        }
        if m.starts_with("at ") && m.contains(" line ") {
            let rest = &s[end..];
            let ends_message = rest.strip_prefix('.').is_some_and(|r| {
                r.is_empty() || r.starts_with(['\n', '\r']) || r.starts_with("\\n")
            });
            let indented = s[line_start..start].starts_with([' ', '\t']);
            if ends_message && !indented {
                return false;
            }
        }
        // Every other shape holds what makes it a frame in the match.
        return true;
    }
    // A frame marker starts its line and, but for an Apple crash report's numbered frame
    // (whose address is in the match), is followed on it by a location or an address.
    if !first_on_line {
        return false;
    }
    if m.starts_with(|c: char| c.is_ascii_digit()) {
        return true;
    }
    let line_end = memchr::memchr2(b'\n', b'\r', &s.as_bytes()[end..]).map_or(s.len(), |i| end + i);
    let rest = &s[end..line_end];
    has_code_address(rest) || has_source_location(rest)
}

/// Whether `head`, a line up to a frame, is a log line's header: a clock (`02:31:02`), then a
/// severity word and blanks at its end (`… <58> Error    `).
fn after_log_header(head: &str) -> bool {
    let trimmed = head.trim_end_matches([' ', '\t']);
    if trimmed.len() == head.len() {
        return false;
    }
    let level = trimmed
        .rsplit(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("");
    let clock = head.as_bytes().windows(5).any(|w| {
        w[0].is_ascii_digit()
            && w[1] == b':'
            && w[2].is_ascii_digit()
            && w[3].is_ascii_digit()
            && w[4] == b':'
    });
    clock
        && [
            "error", "err", "warn", "warning", "info", "debug", "fatal", "trace", "crit",
            "critical", "severe", "fail",
        ]
        .iter()
        .any(|l| level.eq_ignore_ascii_case(l))
}

/// Extensions of source files that a frame may name without a directory (`main.c:42`); a
/// host and port (`db.internal:5432`) has none of them.
const SOURCE_EXTENSIONS: [&str; 40] = [
    "c", "h", "cc", "cpp", "cxx", "hpp", "m", "mm", "swift", "kt", "java", "scala", "go", "rs",
    "py", "rb", "php", "js", "mjs", "ts", "tsx", "jsx", "vue", "dart", "ex", "exs", "erl", "hs",
    "lua", "pl", "pm", "ps1", "cs", "fs", "ml", "jl", "nim", "zig", "clj", "groovy",
];

/// A code address (`0x7f3a2b1c4e97`, six hex digits or more) or a symbol's offset (`+0x1a`).
fn has_code_address(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(at) = memchr::memmem::find(&b[i..], b"0x") {
        let at = i + at;
        let hex = b[at + 2..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        if hex >= 6 || (hex >= 1 && at > 0 && b[at - 1] == b'+') {
            return true;
        }
        i = at + 2;
    }
    false
}

/// A source location: `name.ext:LINE`, `name.ext(LINE)`, `name.ext line LINE` or
/// `name.ext", line LINE`, with an extension of letters and digits that starts with a letter.
fn has_source_location(s: &str) -> bool {
    let b = s.as_bytes();
    for (dot, _) in s.match_indices('.') {
        if dot == 0 || !(b[dot - 1].is_ascii_alphanumeric() || b[dot - 1] == b'_') {
            continue;
        }
        let ext = b[dot + 1..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        if ext == 0 || ext > 10 || !b[dot + 1].is_ascii_alphabetic() {
            continue;
        }
        let after = &s[dot + 1 + ext..];
        let digit_after = |p: &str| {
            after
                .strip_prefix(p)
                .is_some_and(|r| r.as_bytes().first().is_some_and(u8::is_ascii_digit))
        };
        let pathlike = s[..dot].contains(['/', '\\'])
            || SOURCE_EXTENSIONS.contains(&&s[dot + 1..dot + 1 + ext]);
        if digit_after("(") || digit_after(" line ") || digit_after("\", line ") {
            return true;
        }
        if let Some(r) = after.strip_prefix(':') {
            let line = r.bytes().take_while(u8::is_ascii_digit).count();
            let column = r[line..]
                .strip_prefix(':')
                .is_some_and(|c| c.starts_with(|c: char| c.is_ascii_digit()));
            if line > 0 && (pathlike || column) {
                return true;
            }
        }
    }
    false
}

/// Whether the parenthesised part of an `at …(…)` candidate is a real frame location.
fn is_frame_location(frame: &str) -> bool {
    let Some(open) = frame.rfind('(') else {
        return false;
    };
    let inner = frame[open + 1..].trim_end_matches(')');
    // A Java 9 frame names its module first: `(java.base@17.0.9/Native Method)`.
    let inner = match inner.split_once('/') {
        Some((module, rest)) if module.contains('@') => rest,
        _ => inner,
    };
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

/// Cuts `s` at the earliest trace when that trace is of `form`: the rule for another form does
/// it otherwise (its gate is open, since its own keywords start its form).
fn cut(s: &str, form: Form, hits: &mut u32) -> Option<String> {
    let (start, found) = stack_start(s)?;
    if found != form {
        return None;
    }
    // A stack that starts on an escape's character (`\\tat` encoded twice) takes the escape's
    // backslashes too: the head never ends in half an escape.
    let start = s[..start].trim_end_matches('\\').len();
    let start = if form == Form::Frame {
        with_calls_before(s, start)
    } else {
        start
    };
    let head = s[..start].trim_end();
    let stop = escaped_stack_end(s, start);
    let mut out = String::with_capacity(head.len() + 48 + s.len() - stop);
    out.push_str(head);
    if !head.is_empty() {
        out.push(' ');
    }
    out.push_str(STACK);
    if stop < s.len() {
        // The rest of the line after an escaped stack (`"}` of a JSON log line) stays.
        out.push_str(&s[stop..]);
    } else {
        // The exception lines inside the trace (a chained `Caused by: …`, each exception of a
        // chained Python traceback, its last line) are what a reader needs of it: they stay,
        // in order, after the placeholder.
        for line in s[start..].lines().skip(1) {
            let Some(line) = exception_line(line) else {
                continue;
            };
            let at = out.len();
            out.push(' ');
            out.push_str(line);
            // A kept line must not close a frame the head opened (`File " <STACK> Error:",
            // line 2`): a second run would cut there. Then it goes with the frames.
            if stack_start_of(&out, ALL_FORMS).is_some() {
                out.truncate(at);
            }
        }
    }
    *hits += 1;
    Some(out)
}

/// Where a stack written escaped inside a string (`\n\tat …` in a JSON log line) ends: at the
/// quote that closes that string, when the stack breaks its lines with escapes. The first line
/// break or tab escape tells how deep the stack is escaped (`\n` once, `\\n` twice), and so
/// which quote closes its string (`"` for once, `\"` for twice). A stack with real line
/// breaks, or none at all, runs to the end of the text.
pub(crate) fn escaped_stack_end(s: &str, start: usize) -> usize {
    let b = s.as_bytes();
    let mut breaks = None;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let run = b[i..].iter().take_while(|&&c| c == b'\\').count();
                match b.get(i + run) {
                    Some(b'n' | b'r' | b't') if breaks.is_none() => breaks = Some(run),
                    Some(b'"') if breaks == Some(run + 1) => return i,
                    _ => {}
                }
                i += run + 1;
            }
            b'\n' | b'\r' => return s.len(),
            b'"' if breaks == Some(1) => return i,
            _ => i += 1,
        }
    }
    s.len()
}

/// Whether a line of a stream starts a trace or is a frame, so that the lines after it that
/// continue it (see [`continues_trace`]) go with it. Only a line that holds one of a trace's
/// own words, or starts as a frame does, is searched.
pub(crate) fn opens_trace(line: &str) -> bool {
    const WORDS: [&str; 12] = [
        "Traceback (most recent call last):",
        "goroutine ",
        "stack backtrace:",
        "Stack trace:",
        "stack traceback:",
        "Call Trace:",
        "Backtrace:",
        "backtrace:",
        "Stacktrace:",
        "Call stack:",
        "Call Stack:",
        "CallStack (from",
    ];
    let t = line.trim_start();
    let frame_like = t.starts_with("at ")
        || t.starts_with("File \"")
        || t.starts_with("from ")
        || t.starts_with('#')
        || t.starts_with("[0x");
    (frame_like || WORDS.iter().any(|w| line.contains(w)))
        && stack_start_of(line, ALL_FORMS).is_some()
}

/// Whether `line`, after a line that [opens a trace](opens_trace) or continues one, continues
/// it: an indented line that names no exception (a frame, a source line, a `- locked` note), a
/// call on a line of its own (a Go frame's `main.run(0xc000a2000)`), `... 12 more`, a numbered
/// frame.
pub(crate) fn continues_trace(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || exception_line(t).is_some() || t.starts_with("Caused by:") {
        return false;
    }
    let indented = line.starts_with([' ', '\t']);
    let call = t.ends_with(')')
        && t.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && t.find('(').is_some_and(|open| !t[..open].contains(' '));
    indented
        || call
        || t.starts_with("...")
        || t.starts_with("#") && t[1..].starts_with(|c: char| c.is_ascii_digit())
        || t.starts_with("[0x")
}

/// A line that names an exception and its message (`ValueError: bad input`, `Caused by:
/// java.io.IOException: reset`, `Suppressed: …`), trimmed, when it holds no frame.
fn exception_line(line: &str) -> Option<&str> {
    let line = line.trim();
    let named = ["Caused by: ", "Suppressed: "]
        .iter()
        .find_map(|p| line.strip_prefix(p))
        .unwrap_or(line);
    let name = named.split(':').next().unwrap_or(named);
    let is_name = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$');
    const SUFFIXES: [&str; 9] = [
        "Error",
        "Exception",
        "Warning",
        "Exit",
        "Interrupt",
        "Fault",
        "Panic",
        "Failure",
        "Throwable",
    ];
    let ok = is_name && SUFFIXES.iter().any(|suf| name.ends_with(suf));
    (ok && stack_start_of(line, ALL_FORMS).is_none()).then_some(line)
}

/// Where a generic trace starts once the call lines just before its first location are taken
/// in: a Go frame is a call (`main.handle(0xc000a2000)`) on the line before its location.
fn with_calls_before(s: &str, mut start: usize) -> usize {
    loop {
        let before = s[..start].trim_end_matches([' ', '\t']);
        let Some(before) = before.strip_suffix('\n') else {
            return start;
        };
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before[line_start..].trim();
        let call = line.ends_with(')')
            && line
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && line
                .find('(')
                .is_some_and(|open| !line[..open].contains(' '));
        if !call {
            return start;
        }
        start = line_start + (before[line_start..].len() - before[line_start..].trim_start().len());
    }
}

fn open_paren(f: &Features) -> bool {
    f.open_paren
}

pub(crate) static JVM: Rule = Rule {
    id: "stack.jvm",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A Java, Kotlin or Scala stack from its first `at pkg.Class.method(File.java:42)` frame, also JSON-escaped.",
    keywords: &["at ", "at\t"],
    gate: open_paren,
    pass: |s, hits| cut(s, Form::Jvm, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "NullPointerException: x\n\tat com.shop.order.Svc.run(Svc.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)",
            "NullPointerException: x <STACK>",
        ),
        ex(
            r#"{"msg":"boom\n\tat com.shop.Pay.charge(Pay.java:88)\n\tat x.Y.z(Y.java:1)"}"#,
            r#"{"msg":"boom <STACK>"}"#,
        ),
    ],
    negatives: &[
        "arrived at least (3) minutes late",
        "retry at 10:00 (UTC) scheduled",
        "queued at x.y (idle) since 10:00",
    ],
};

pub(crate) static PYTHON: Rule = Rule {
    id: "stack.python",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A Python traceback (`Traceback (most recent call last):`, `File \"x.py\", line 3`); its final exception line stays.",
    keywords: &["traceback", "file \""],
    gate: always,
    pass: |s, hits| cut(s, Form::Python, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "job failed Traceback (most recent call last):\n  File \"/app/jobs/run.py\", line 12, in main\n    go()\nValueError: bad input",
            "job failed <STACK> ValueError: bad input",
        ),
        ex("  File \"/srv/app.py\", line 7, in <module>", "<STACK>"),
        // `at x.y (idle)` looks like a JVM frame but names no location: the search moves past
        // it to the traceback.
        ex(
            "job at x.y (idle) Traceback (most recent call last): File \"w.py\", line 3",
            "job at x.y (idle) <STACK>",
        ),
    ],
    negatives: &[
        // OCaml's compiler names a place with its characters: a diagnostic.,
        "File \"src/store.ml\", line 312, characters 8-44:",
        "Traceback logging is disabled",
        "File \"report.csv\" written",
    ],
};

pub(crate) static GO: Rule = Rule {
    id: "stack.go",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A Go goroutine dump from its `goroutine N [state]:` line.",
    keywords: &["goroutine "],
    gate: always,
    pass: |s, hits| cut(s, Form::Go, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d",
            "panic: runtime error: index out of range <STACK>",
        ),
        ex("goroutine 42 [chan receive]: x", "<STACK>"),
    ],
    negatives: &[
        "goroutine leak suspected: 1200 running",
        "goroutine 7 started",
    ],
};

pub(crate) static NODE: Rule = Rule {
    id: "stack.node",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A Node.js stack from its first `at fn (/app/x.js:1:2)` or `at /app/x.js:1:2` frame.",
    keywords: &[".js:", ".mjs:", ".cjs:", ".ts:", ".tsx:", ".jsx:", "node:"],
    gate: always,
    pass: |s, hits| cut(s, Form::Node, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "TypeError: Cannot read properties of undefined\n    at handler (/srv/app/routes/pay.js:41:17)\n    at Layer.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)",
            "TypeError: Cannot read properties of undefined <STACK>",
        ),
        ex(
            "Error: ECONNRESET at /app/dist/client.mjs:10:5",
            "Error: ECONNRESET <STACK>",
        ),
    ],
    negatives: &["loaded config from app.js: 3 routes", "node: v20.11.1"],
};

pub(crate) static DOTNET: Rule = Rule {
    id: "stack.dotnet",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A .NET stack from its first `at Ns.Type.Method(…) in File.cs:line N` frame, or an async seam.",
    keywords: &[":line", "--- end of"],
    gate: always,
    pass: |s, hits| cut(s, Form::DotNet, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "System.InvalidOperationException: bad state\n   at Shop.Orders.OrderService.Place(Order o) in /src/Orders/OrderService.cs:line 57",
            "System.InvalidOperationException: bad state <STACK>",
        ),
        ex(
            "timeout --- End of stack trace from previous location ---",
            "timeout <STACK>",
        ),
    ],
    negatives: &[
        "meet at Main.Street(corner) in town",
        "at line 57 of the report",
    ],
};

pub(crate) static RUST: Rule = Rule {
    id: "stack.rust",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A Rust backtrace: `stack backtrace:` or an `at /src/main.rs:10:5` frame.",
    keywords: &["stack backtrace:", ".rs:", "::"],
    gate: always,
    pass: |s, hits| cut(s, Form::Rust, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "thread 'main' panicked: oops\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/abc/library/std/src/panicking.rs:597:5",
            "thread 'main' panicked: oops <STACK>",
        ),
        ex(
            "panicked\n   1: app::run\n      at ./src/main.rs:10:5",
            "panicked <STACK>",
        ),
    ],
    negatives: &["compiled main.rs: 0 warnings", "stack backtrace disabled"],
};

pub(crate) static PHP: Rule = Rule {
    id: "stack.php",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A PHP stack: `Stack trace:` or a `#0 /var/www/x.php(12): …` frame.",
    keywords: &["stack trace:", ".php(", ".php"],
    gate: always,
    pass: |s, hits| cut(s, Form::Php, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "PHP Fatal error: Uncaught Exception: db down Stack trace: #0 /var/www/html/db.php(12): connect() #1 {main}",
            "PHP Fatal error: Uncaught Exception: db down <STACK>",
        ),
        ex("#0 /srv/app/index.php(7): run()", "<STACK>"),
        ex(
            "PHP Fatal error:  Uncaught Exception: boom in /var/www/site/lib/Mailer.php:33",
            "PHP Fatal error:  Uncaught Exception: boom <STACK>",
        ),
    ],
    negatives: &[
        "see index.php (line 7) for details",
        "Stack trace follows",
        "PHP Warning:  Undefined variable $x in /var/www/app/cart.php on line 41",
    ],
};

pub(crate) static RUBY: Rule = Rule {
    id: "stack.ruby",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A Ruby backtrace from its first `/app/x.rb:12:in 'method'` frame.",
    keywords: &[".rb:"],
    gate: always,
    pass: |s, hits| cut(s, Form::Ruby, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "NoMethodError: undefined method 'id' for nil /app/models/order.rb:42:in 'total' from /app/app.rb:7:in '<main>'",
            "NoMethodError: undefined method 'id' for nil <STACK>",
        ),
        ex("boom\n\tfrom lib/x.rb:3:in `call'", "boom <STACK>"),
    ],
    negatives: &["wrote config.rb: 12 lines", "see x.rb for details"],
};

/// A source location standing on its own (`/app/src/routes/signup.ts:41:38`, a Go logger's
/// `/go/src/app/repo/order.go:88` prefix, a panic's `src/bin/migrate.rs:88:17`): the path of a
/// source file and its line. A trace's first line often names where it was thrown before any
/// frame; the frames the stack rules cut are gone by the time this runs.
static LOCATION_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?:/|~/|[A-Za-z]:\\)?[A-Za-z0-9_.@~+\-]+(?:[/\\][A-Za-z0-9_.@~+\-]+)+",
        r"\.(?:groovy|swift|scala|java|dart|cpp|cxx|hpp|php|mjs|tsx|jsx|vue|exs|erl|lua|ps1|nim|zig|clj|cc|mm|kt|go|rs|py|rb|js|ts|ex|hs|pl|pm|cs|fs|ml|jl|c|h|m):[0-9]+(?::[0-9]+)?",
        // A V8 frame in code with no file: `at f (eval code:1:18)`, `at f (<anonymous>:3:7)`.
        r"|(?-u:\b)at [^()\r\n]{1,120} \((?:[^()\r\n]{0,40} code|<anonymous>):[0-9]+:[0-9]+\)",
        // PowerShell's frame: `at Name, C:\path\x.ps1: line 41`.
        r"|(?-u:\b)at [^,\r\n]{1,80}, (?:[A-Za-z]:\\|/)[^\r\n:]*\.[A-Za-z0-9]{1,6}: line [0-9]+",
        // R's call chain after an error: `Calls: f -> g -> h`.
        r"|(?m:^)Calls: [^\r\n]*->[^\r\n]*",
    ))
    .expect("constant regex")
});

/// Replaces each location whose path is absolute (`/x/y.go:3`, `~/x.py:3`, `C:\x\y.cs:3`) or
/// that names a column (`src/main.rs:3:9`); a relative path with a line alone
/// (`k8s.io/client-go/tools/cache/reflector.go:539`, a logger's caller field) stays.
fn pass_location(s: &str, hits: &mut u32) -> Option<String> {
    use super::super::text::{Edit, byte_at, byte_before, is_word_byte, placeholder_before};
    let mut e = Edit::new(s);
    for m in LOCATION_RE.find_iter(s) {
        let text = m.as_str();
        let before_ok = !byte_before(s, m.start())
            .is_some_and(|b| is_word_byte(b) || matches!(b, b'/' | b'\\' | b'.' | b'-' | b':'))
            && !placeholder_before(s, m.start());
        let after_ok = !byte_at(s, m.end()).is_some_and(|b| is_word_byte(b) || b == b'.');
        let absolute =
            text.starts_with(['/', '~']) || text.as_bytes().get(1..3) == Some(&b":\\"[..]);
        let column = text
            .rsplit(':')
            .nth(1)
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        let frame = text.starts_with("at ") || text.starts_with("Calls: ");
        // A logger's call site closing its header (glog's and TensorFlow's `… x.cc:107]
        // message`) is where a line was written, not a frame.
        let call_site = !frame && byte_at(s, m.end()) == Some(b']');
        if before_ok
            && !call_site
            && after_ok
            && (frame || ((absolute || column) && !is_diagnostic(s, m.start(), m.end())))
            && e.replace(m.start(), m.end(), STACK)
        {
            *hits += 1;
        }
    }
    e.finish()
}

/// Whether the location at `start..end` heads a compiler's, linter's or runtime's diagnostic
/// rather than a frame: a severity word after it (`x.rs:41:9: warning:`, `x.ts:14:7 - error
/// TS2322`, `x.py:3504: RuntimeWarning:`), or rustc's `--> ` before it. It says where a
/// message points, not what called what.
fn is_diagnostic(s: &str, start: usize, end: usize) -> bool {
    let before = s[..start].trim_end_matches([' ', '\t']);
    if before.ends_with("-->") {
        return true;
    }
    // Julia's logger closes a message's box with where it was logged: `└ @ Mod path:12`.
    let line_head =
        super::super::text::trim_blanks_start(&s[super::super::text::line_start(s, start)..start]);
    if line_head.starts_with("└ @ ") {
        return true;
    }
    // A compiler's or linter's message after its place: `src/ws.erl:88:5: function f/2
    // undefined`, at the start of its line or after a tool's own `failed: `.
    if (line_head.is_empty() || before.ends_with(':'))
        && let Some(rest) = s[end..].strip_prefix(": ")
        && rest.starts_with(|c: char| c.is_ascii_alphabetic())
        && !rest.starts_with("in ")
    {
        return true;
    }
    let rest = s[end..].trim_start_matches([':', ' ', '\t', '-']);
    let word: &str = rest
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("");
    let lower = word.to_ascii_lowercase();
    [
        "error",
        "warning",
        "note",
        "info",
        "hint",
        "remark",
        "fatal",
        "notice",
        "deprecated",
    ]
    .contains(&lower.as_str())
        || (word.starts_with(|c: char| c.is_ascii_uppercase())
            && (word.ends_with("Warning") || word.ends_with("Error")))
}

pub(crate) static LOCATION: Rule = Rule {
    id: "stack.location",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A source file's location on its own (`/app/src/x.ts:41:38`, `src/main.rs:3:9`): an absolute path or a line and column.",
    keywords: &[
        ".c:",
        ".h:",
        ".cc:",
        ".cpp:",
        ".cxx:",
        ".hpp:",
        ".m:",
        ".mm:",
        ".swift:",
        ".kt:",
        ".java:",
        ".scala:",
        ".go:",
        ".rs:",
        ".py:",
        ".rb:",
        ".php:",
        ".js:",
        ".mjs:",
        ".ts:",
        ".tsx:",
        ".jsx:",
        ".vue:",
        ".dart:",
        ".ex:",
        ".exs:",
        ".erl:",
        ".hs:",
        ".lua:",
        ".pl:",
        ".pm:",
        ".ps1:",
        ".cs:",
        ".fs:",
        ".ml:",
        ".jl:",
        ".nim:",
        ".zig:",
        ".clj:",
        ".groovy:",
        ": line",
        "calls: ",
        " code:",
        "<anonymous>:",
    ],
    gate: always,
    pass: pass_location,
    matchers: &[&LOCATION_RE],
    examples: &[
        ex("    at compute (eval code:3:18)", "    <STACK>"),
        ex(
            "Invalid `db.user.create()` invocation in /srv/api/src/users.ts:17:9",
            "Invalid `db.user.create()` invocation in <STACK>",
        ),
        ex(
            "2026/01/02 10:00:00 /build/app/store/cart.go:31 SLOW SQL >= 200ms",
            "2026/01/02 10:00:00 <STACK> SLOW SQL >= 200ms",
        ),
        ex(
            "thread 'main' panicked at 'oops', crates/core/src/lib.rs:12:5",
            "thread 'main' panicked at 'oops', <STACK>",
        ),
        ex(
            "at Sync-Ledger, C:\\jobs\\sync\\Sync-Ledger.ps1: line 27",
            "<STACK>",
        ),
        ex("Calls: main -> load_panel -> read.csv -> file", "<STACK>"),
    ],
    negatives: &[
        "[2026-03-18 13:02:10.551781: W /src/net/conn_pool.cc:107] pool resized",
        // A compiler's place and message, and Julia's logger closing its box: diagnostics.,
        "===> Compilation failed: src/chat_ws.erl:88:5: function send_frame/2 undefined",
        "└ @ Genie.Server ~/.julia/packages/Genie/yQwwj/src/Server.jl:123",
        "caches synced (shared_informer.go:311)",
        "W0101 10:00:00.000000       <PID> k8s.io/client-go/tools/cache/reflector.go:539] list failed",
        "served static/app.js:8080 from cache",
        "build ok: 12 files in src/",
        // Diagnostics point at a line; they are no stack.
        "src/auth/store.rs:41:9: warning: unused variable",
        "/srv/app/lib/stats.py:88: RuntimeWarning: Mean of empty slice.",
        "web/src/cfg.ts:14:7 - error TS2322: Type 'number' is not assignable",
    ],
};

pub(crate) static FRAME: Rule = Rule {
    id: "stack.frame",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A stack of any other language, by what frames share: a frame marker with a source location or code address, a call with its location, an offset, or a trace's introduction.",
    keywords: &[],
    gate: always,
    pass: |s, hits| cut(s, Form::Frame, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "Code: 62. DB::Exception: Syntax error\n0. DB::Exception::Exception(String const&, int) @ 0x000000000c8a6b3b\n1. DB::executeQuery(char const*) @ 0x0000000011b7ec61",
            "Code: 62. DB::Exception: Syntax error <STACK>",
        ),
        ex(
            "[ERROR] lua/jobs/sv_jobs.lua:58: attempt to index nil\n  1. unknown - addons/rp/lua/jobs/sv_jobs.lua:58\n   2. v - lua/includes/modules/hook.lua:96",
            "[ERROR] lua/jobs/sv_jobs.lua:58: attempt to index nil <STACK>",
        ),
        ex(
            "MessageNotUnderstood: receiver of \"at:\" is nil\nUndefinedObject(Object)>>doesNotUnderstand: #at:\nSessionStore>>sessionAt:",
            "MessageNotUnderstood: receiver of \"at:\" is nil <STACK>",
        ),
        ex(
            "Died with X::AdHoc\n  in method notify at /opt/app/lib/App/Mailer.rakumod (App::Mailer) line 41",
            "Died with X::AdHoc <STACK>",
        ),
        ex(
            "Fatal error: index out of range\n0 0x0000aaaab3c2d1e4 Store.load(_:) + 812 in Run\n1 0x0000aaaab3c1f008 closure #1 in main + 64 in Run",
            "Fatal error: index out of range <STACK>",
        ),
        ex(
            "-----------------  lwp# 1 / thread# 1  --------------------\n ffffffff7ef3c4a8 _lwp_park (0, 0, 1001ec2f0, 0, 0, 0) + 8\n 0000000100012f40 main (1, ffffffff7ffff8e8, 0, 0) + 2a0",
            "-----------------  lwp# 1 / thread# 1  -------------------- <STACK>",
        ),
        ex(
            "Ausnahme: System.IO.IOException: Zugriff verweigert\n   bei Kontor.Lager.Abgleich.Lesen(String pfad) in D:\\src\\Lager\\Abgleich.cs:Zeile 57\n   bei Kontor.Lager.Program.Main()",
            "Ausnahme: System.IO.IOException: Zugriff verweigert <STACK>",
        ),
        ex(
            "System.NullPointerException: Attempt to de-reference a null object\nClass.LeadService.fetch: line 91, column 1",
            "System.NullPointerException: Attempt to de-reference a null object <STACK>",
        ),
        ex(
            "worker crashed\n#0  0x00007f3a2b1c4e97 in raise () from /lib/libc.so.6\n#1  0x000055d5c1a2 in handle_conn (fd=7) at src/net.c:142",
            "worker crashed <STACK>",
        ),
        ex(
            "Unhandled exception: FormatException: bad digit\n#0      int.parse (dart:core-patch/integers_patch.dart:52:25)\n#1      main (file:///srv/bin/tool.dart:9:7)",
            "Unhandled exception: FormatException: bad digit <STACK>",
        ),
        ex(
            "TypeError: e is undefined render@https://static.shop.test/app.min.js:1:20431",
            "TypeError: e is undefined <STACK>",
        ),
        // Old Firefox and Opera: a line and no column; a trace that opens on a bare location.
        ex(
            "boom\nrun([arguments not available])@http://cdn.shop.test/js/app.js:27",
            "boom\nrun([arguments not available]) <STACK>",
        ),
        ex(
            "oops\nhttp://cdn.shop.test/js/app.js:48:22\nfoo@http://cdn.shop.test/js/app.js:52:15",
            "oops <STACK>",
        ),
        ex(
            "** (RuntimeError) queue gone\n    (billing 0.3.1) lib/billing/worker.ex:42: Billing.Worker.run/1",
            "** (RuntimeError) queue gone <STACK>",
        ),
        ex(
            "Prelude.head: empty list\nCallStack (from HasCallStack):\n  error, called at libraries/base/GHC/List.hs:1646:3 in base:GHC.List",
            "Prelude.head: empty list <STACK>",
        ),
        ex(
            "panic: nil map\n\nmain.store(0xc0000a2000, 0x3)\n\t/srv/cache/store.go:27 +0x1d",
            "panic: nil map <STACK>",
        ),
        ex(
            "BUG: unable to handle page fault\nCall Trace:\n dump_stack+0x63/0x8e",
            "BUG: unable to handle page fault <STACK>",
        ),
        ex(
            "lua: init.lua:3: attempt to call a nil value\nstack traceback:\n\t[C]: in ?",
            "lua: init.lua:3: attempt to call a nil value <STACK>",
        ),
        ex(
            "Thread 0 Crashed:\n0   libsystem_kernel.dylib   0x00007ff81b2c0ffe __pthread_kill + 10",
            "Thread 0 Crashed: <STACK>",
        ),
        ex(
            "upload aborted at /opt/tools/sync.pl line 41.\n\tmain::upload() called at /opt/tools/sync.pl line 88",
            "upload aborted <STACK>",
        ),
        ex(
            "segfault\n./srv(dispatch+0x1d) [0x400a1d]\n/lib/libc.so.6(+0x29d90) [0x7f1c3a229d90]",
            "segfault <STACK>",
        ),
        ex(
            "* thread #1, stop reason = EXC_BAD_ACCESS\n  * frame #0: 0x0000000100003f2c app`Grid::draw(this=0x0) at grid.cpp:12:3",
            "* thread #1, stop reason = EXC_BAD_ACCESS\n  * <STACK>",
        ),
        ex(
            "10:02:03 ERROR    at Shop.Net.Pool.Rent(Int32 size)",
            "10:02:03 ERROR <STACK>",
        ),
        ex(
            "Traceback (most recent call last)\n/srv/app/src/main.nim(12) main\n/srv/app/src/db.nim(88) query",
            "Traceback (most recent call last) <STACK>",
        ),
        ex(
            "[debug] QUERY OK source=\"users\" db=1.2ms\n↳ Shop.Users.find/1, at: lib/shop/users.ex:20",
            "[debug] QUERY OK source=\"users\" db=1.2ms\n↳ Shop.Users.find/1 <STACK>",
        ),
        // The exception lines of a chained trace stay.
        ex(
            "job failed\n#0 0x4f2b3c in parse /src/p.c:88:12\nCaused by: IoError: disk full\n#1 0x4f2b40 in main /src/m.c:3:1",
            "job failed <STACK> Caused by: IoError: disk full",
        ),
    ],
    negatives: &[
        "1. open the settings page\n2. click Save",
        "Steps: 1. Check cable 2. Restart switch",
        // Where a message was raised, as Perl's `warn` and `die` and a compiler print it.
        "Use of uninitialized value $x in concatenation at lib/App/Db.pm line 39.",
        "File \"src/store.ml\", line 312, characters 8-44:",
        "error in config.yaml:12: unexpected key",
        "#3 merged by alice in 2 days",
        "in 5 minutes: restart api.service",
        "read(report.csv:12) skipped",
        "CSI    00000001@2016/9/27:20:30:31.455 WcpInitialize called",
        "at 10:00:05 the job ran",
        "Backtrace: disabled by config",
        "request failed Caused by: java.net.SocketTimeoutException: Read timed out",
    ],
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex_automata::Input;
    use regex_automata::meta::Regex;
    use regex_automata::util::syntax;

    /// The search done naively: at each position in turn, each form in order, anchored there,
    /// checked: the oracle the split, remembering search is held to.
    fn one_alternation(s: &str) -> Start {
        static EACH: LazyLock<Vec<Regex>> = LazyLock::new(|| {
            STARTS
                .iter()
                .map(|p| {
                    Regex::builder()
                        .configure(Regex::config().auto_prefilter(false))
                        .syntax(syntax::Config::new().unicode(false).utf8(false))
                        .build(p)
                        .expect("constant pattern")
                })
                .collect()
        });
        let mut pos = 0;
        while pos <= s.len() {
            for (k, re) in EACH.iter().enumerate() {
                let input = Input::new(s)
                    .range(pos..)
                    .anchored(regex_automata::Anchored::Yes);
                if let Some(m) = re.find(input)
                    && is_start(s, pos, m.end(), FORMS[k])
                {
                    return Some((pos, FORMS[k]));
                }
            }
            pos = super::super::super::text::next_char(s, pos);
        }
        None
    }

    const PIECES: &[&str] = &[
        "at ",
        "\tat ",
        "\\n\\tat ",
        "at async ",
        "com.x.Svc.run(",
        "Svc.java:42)",
        "(Native Method)",
        "(x)",
        "/app/x.js:1:2",
        "node:internal/x:3:4",
        " in /src/A.cs:line 7",
        "--- End of stack trace ---",
        "Caused by: x",
        "#0 ",
        " 0x7f3a2b1c4e97 in f ",
        "main (file:///x.dart:3:5)",
        "f@http://x/a.js:1:2",
        "called at a/B.hs:3:5",
        "/x/y.go:12 +0x1d",
        "f+0x1a/0x90",
        "stack traceback:",
        "(app 1.2) ",
        "Traceback (most recent call last):",
        "File \"x.py\", line 3",
        "goroutine 1 [running]:",
        "Stack trace:",
        "#0 /var/www/x.php(12)",
        " in /var/www/x.php:33",
        "/app/x.rb:12:in `m'",
        "from x.rb:3:in '",
        "stack backtrace:",
        "\n  12: core::panic",
        "at /src/main.rs:10:5",
        "\n",
        " ",
        "(",
        ")",
        ":",
        "::",
        "Error: boom",
        "日本",
        "in ",
        "\n  in ",
        "\nfrom ",
        "From\t",
        "[1] ",
        "[C]: in ?",
        "{file,\"x.erl\"},{line,3}",
        "ORA-06512: at ",
        "x.pl line 3",
        "File x.ml, line 3",
        "x.erl, line 3)",
        "Call Trace:",
        "Backtrace:",
        "@",
        "#",
        "[0x0000000000401234] ",
        "0x7fff",
        "http://x/a.js:1:2",
        "\\n",
        "that ",
        "at X.Y(",
        "#x ",
        "(client 1.2.3.4)",
        "u@h.test:5/x",
        "f@a.js:1:2",
        "f@http://x/a.js:7",
        "\nhttp://x/a.js:1:2",
        "(",
        "(x.dart:3:5)",
        "CallStack (from HasCallStack):",
        "\n(app 1.2) ",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        /// The split search finds what one alternation of every start finds, searching every
        /// form or any set that holds the form it finds.
        #[test]
        fn the_split_stack_search_finds_what_one_alternation_finds(
            parts in prop::collection::vec(prop::sample::select(PIECES), 0..10),
            extra in any::<u16>(),
        ) {
            let s: String = parts.concat();
            let want = one_alternation(&s);
            prop_assert_eq!(search_stack_start(&s, ALL_FORMS), want, "all forms, {:?}", s);
            let found = want.map_or(0, |(_, form)| {
                1 << FORMS.iter().position(|&f| f == form).expect("a form")
            });
            let some = (extra & ALL_FORMS) | found;
            prop_assert_eq!(search_stack_start(&s, some), want, "forms {:#b}, {:?}", some, s);
        }
    }
}
