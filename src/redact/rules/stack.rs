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
    CausedBy,
    Python,
    Go,
    Php,
    Ruby,
}

const FORMS: [Form; 9] = [
    Form::Node,
    Form::Rust,
    Form::DotNet,
    Form::Jvm,
    Form::CausedBy,
    Form::Python,
    Form::Go,
    Form::Php,
    Form::Ruby,
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
    r"Caused by:",
    r#"Traceback \(most recent call last\):|(?-u:\b)File "[^"\n]+", line [0-9]+"#,
    r"(?-u:\b)goroutine [0-9]+ \[[^\]\n]*\]:",
    // PHP: `Stack trace:`, `#0 /var/www/x.php(12): …`, and a fatal error's
    // `in /var/www/x.php:33` or `in /var/www/x.php on line 33`.
    concat!(
        r"Stack trace:|#[0-9]+ [^ \t\r\n()]*\.php\([0-9]+\)",
        r"|(?-u:\b)in[ \t]+/[^ \t\r\n]*\.php(?::[0-9]+|[ \t]+on[ \t]+line[ \t]+[0-9]+)",
    ),
    // Ruby: `/app/x.rb:12:in 'm'` (also with a backtick), `from x.rb:3:in`.
    r"(?:from[ \t]+)?[^ \t\r\n:()'`\x22]*\.rb:[0-9]+:in[ \t]+[`']",
];

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
    &NODE, &RUST, &DOTNET, &JVM, &CAUSED_BY, &PYTHON, &GO, &PHP, &RUBY,
];

/// Every form, as a set (bit `k` for `FORMS[k]`).
const ALL_FORMS: u16 = (1 << FORMS.len()) - 1;
/// The JVM form's bit: see [`search_stack_start`].
const JVM_FORM: u16 = 1 << 3;
const _: () = assert!(matches!(FORMS[3], Form::Jvm));

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
    let forms = forms | JVM_FORM;
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
        let (start, end, k) = best?;
        let form = FORMS[k];
        if form != Form::Jvm || is_frame_location(&s[start..end]) {
            return Some((start, form));
        }
        pos = super::super::text::next_char(s, start);
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
    } else if form == Form::Python
        && let Some(tail) = python_exception_line(&s[start..])
    {
        let at = out.len();
        out.push(' ');
        out.push_str(tail);
        // The kept line must not close a frame the head opened (`File " <STACK> Error:", line
        // 2`): a second run would cut there. Then only the head stays.
        if stack_start_of(&out, ALL_FORMS).is_some() {
            out.truncate(at);
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
    (ok && stack_start_of(last, ALL_FORMS).is_none()).then_some(last)
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

pub(crate) static CAUSED_BY: Rule = Rule {
    id: "stack.caused-by",
    class: RedactionClass::Stack,
    placeholder: STACK,
    description: "A `Caused by:` chain, which starts a stack even without frames.",
    keywords: &["caused by:"],
    gate: always,
    pass: |s, hits| cut(s, Form::CausedBy, hits),
    matchers: &MATCHERS,
    examples: &[
        ex(
            "request failed Caused by: java.net.SocketTimeoutException: Read timed out",
            "request failed <STACK>",
        ),
        ex("Caused by: x", "<STACK>"),
    ],
    negatives: &["caused by a full disk", "Caused by nothing"],
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
    negatives: &["see index.php (line 7) for details", "Stack trace follows"],
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex_automata::Input;
    use regex_automata::meta::Regex;
    use regex_automata::util::syntax;

    /// The search as one alternation of every start, the way it was written before the starts
    /// were split: the oracle the split search is held to.
    fn one_alternation(s: &str) -> Start {
        static ALL: LazyLock<Regex> = LazyLock::new(|| {
            Regex::builder()
                .configure(Regex::config().auto_prefilter(false))
                .syntax(syntax::Config::new().unicode(false).utf8(false))
                .build_many(&STARTS)
                .expect("constant patterns")
        });
        let mut pos = 0;
        while pos <= s.len() {
            let m = ALL.find(Input::new(s).range(pos..))?;
            let form = FORMS[m.pattern().as_usize()];
            if form != Form::Jvm || is_frame_location(&s[m.range()]) {
                return Some((m.start(), form));
            }
            pos = super::super::super::text::next_char(s, m.start());
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
        "Caused by:",
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
