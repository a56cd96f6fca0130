//! Stack traces: everything from the first frame (or the line that starts a trace) onward
//! becomes one `<STACK>`; the headline before it stays, and so does a Python traceback's final
//! exception line, which is the headline a Python trace carries last.
//!
//! One combined pattern finds where the earliest trace of any language starts; each language is
//! a rule of its own (its id is what the control view counts), and the rule whose form starts
//! earliest is the one that cuts. Frames are recognised by their location (`File.java:42`,
//! `/app/x.js:10:5`, `in /src/A.cs:line 7`, `x.rb:3:in`), so prose such as "at least (3)" or
//! "at 10:00 (UTC)" stays.

use std::cell::RefCell;
use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::prefilter::Features;
use super::super::rule::{Rule, always, ex};
use super::super::text::STACK;
use crate::matcher::Matcher;

/// The languages' forms, in the order of the combined pattern's groups.
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
static STACK_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new_many(&[
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
    ])
    .expect("constant regex")
});

/// Where a trace starts, and in which form.
type Start = Option<(usize, Form)>;

/// Where the earliest trace starts, and in which form.
///
/// Every stack rule whose keyword a message holds asks this of the same text (a Java line's
/// `at ` opens the Node, .NET and JVM rules alike), so a thread remembers the last short text it
/// searched and its answer; the text itself is the key, so a hit is the answer a search gives.
fn stack_start(s: &str) -> Start {
    /// Texts longer than this are searched every time rather than copied.
    const REMEMBERED: usize = 4096;
    thread_local! {
        static LAST: RefCell<Option<(String, Start)>> = const { RefCell::new(None) };
    }
    if s.len() > REMEMBERED {
        return search_stack_start(s);
    }
    LAST.with_borrow_mut(|last| match last {
        Some((text, found)) if text == s => *found,
        _ => {
            let found = search_stack_start(s);
            let (text, slot) = last.get_or_insert_with(|| (String::new(), None));
            text.clear();
            text.push_str(s);
            *slot = found;
            found
        }
    })
}

fn search_stack_start(s: &str) -> Start {
    let mut pos = 0;
    while pos <= s.len() {
        let (which, m) = STACK_RE.find_which_at(s, pos)?;
        let form = *FORMS.get(which)?;
        if form != Form::Jvm || is_frame_location(m.as_str()) {
            return Some((m.start(), form));
        }
        pos = super::super::text::next_char(s, m.start());
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
    let head = s[..start].trim_end();
    let mut out = String::with_capacity(head.len() + 48);
    out.push_str(head);
    if !head.is_empty() {
        out.push(' ');
    }
    out.push_str(STACK);
    if form == Form::Python
        && let Some(tail) = python_exception_line(&s[start..])
    {
        let at = out.len();
        out.push(' ');
        out.push_str(tail);
        // The kept line must not close a frame the head opened (`File " <STACK> Error:", line
        // 2`): a second run would cut there. Then only the head stays.
        if stack_start(&out).is_some() {
            out.truncate(at);
        }
    }
    *hits += 1;
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
    (ok && stack_start(last).is_none()).then_some(last)
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
    matchers: &[&STACK_RE],
    examples: &[
        ex(
            "NullPointerException: x\n\tat com.shop.order.Svc.run(Svc.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)",
            "NullPointerException: x <STACK>",
        ),
        ex(
            r#"{"msg":"boom\n\tat com.shop.Pay.charge(Pay.java:88)\n\tat x.Y.z(Y.java:1)"}"#,
            r#"{"msg":"boom <STACK>"#,
        ),
    ],
    negatives: &[
        "arrived at least (3) minutes late",
        "retry at 10:00 (UTC) scheduled",
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
    matchers: &[&STACK_RE],
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
    matchers: &[&STACK_RE],
    examples: &[
        ex(
            "job failed Traceback (most recent call last):\n  File \"/app/jobs/run.py\", line 12, in main\n    go()\nValueError: bad input",
            "job failed <STACK> ValueError: bad input",
        ),
        ex("  File \"/srv/app.py\", line 7, in <module>", "<STACK>"),
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
    matchers: &[&STACK_RE],
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
    matchers: &[&STACK_RE],
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
    matchers: &[&STACK_RE],
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
    matchers: &[&STACK_RE],
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
    matchers: &[&STACK_RE],
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
    matchers: &[&STACK_RE],
    examples: &[
        ex(
            "NoMethodError: undefined method 'id' for nil /app/models/order.rb:42:in 'total' from /app/app.rb:7:in '<main>'",
            "NoMethodError: undefined method 'id' for nil <STACK>",
        ),
        ex("boom\n\tfrom lib/x.rb:3:in `call'", "boom <STACK>"),
    ],
    negatives: &["wrote config.rb: 12 lines", "see x.rb for details"],
};
