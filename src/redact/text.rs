//! Text helpers every rule shares: the placeholders, a copy-on-first-edit string builder, and
//! the boundary checks that treat a placeholder as the word it replaced (which is what keeps a
//! second run from matching what the first refused).

pub(crate) const SECRET: &str = "<SECRET>";
pub(crate) const TOKEN: &str = "<TOKEN>";
pub(crate) const HOST: &str = "<HOST>";
pub(crate) const POD: &str = "<POD>";
pub(crate) const PID: &str = "<PID>";
pub(crate) const IP: &str = "<IP>";
pub(crate) const EMAIL: &str = "<EMAIL>";
pub(crate) const STR: &str = "<STR>";
pub(crate) const NUM: &str = "<NUM>";
pub(crate) const STACK: &str = "<STACK>";

pub(crate) const PLACEHOLDERS: [&str; 10] =
    [SECRET, TOKEN, HOST, POD, PID, IP, EMAIL, STR, NUM, STACK];

/// Whether `s` is nothing but redaction output: one placeholder or several back to back. A later
/// rule can put its placeholder right after an earlier one's (`password=x'y'` in a SQL statement
/// gives `<SECRET><STR>`); taking that pair for a raw value would redact it again on a second run.
pub(crate) fn is_placeholder(s: &str) -> bool {
    let mut rest = s;
    while !rest.is_empty() {
        match PLACEHOLDERS.iter().find(|p| rest.starts_with(**p)) {
            Some(p) => rest = &rest[p.len()..],
            None => return false,
        }
    }
    !s.is_empty()
}

/// A copy-on-first-edit string builder: a pass that finds nothing allocates nothing.
pub(crate) struct Edit<'s> {
    src: &'s str,
    out: Option<String>,
    last: usize,
}

impl<'s> Edit<'s> {
    pub(crate) fn new(src: &'s str) -> Self {
        Edit {
            src,
            out: None,
            last: 0,
        }
    }

    /// Replaces `src[start..end]`; spans must come in order and not overlap (others are ignored).
    ///
    /// A span never splits an escape sequence (`\n`, `\"`): one that starts on the escaped
    /// character or ends on its backslash is narrowed by that byte, so escaped text (a JSON log
    /// line, a string literal) stays well formed around the placeholder. The byte left out is
    /// the escape's own, never the value's.
    pub(crate) fn replace(&mut self, start: usize, end: usize, with: &str) -> bool {
        let b = self.src.as_bytes();
        let (start, end) = if start < end {
            let start = start + usize::from(escaped_at(b, start));
            let end = end - usize::from(start < end && escaped_at(b, end));
            if start >= end {
                return false;
            }
            (start, end)
        } else {
            (start, end)
        };
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
        trace(src, start, end, with);
        true
    }

    /// Whether the last replacement ends at `i`: a placeholder will stand right before it.
    pub(crate) fn replaced_up_to(&self, i: usize) -> bool {
        self.out.is_some() && self.last == i
    }

    pub(crate) fn finish(self) -> Option<String> {
        let mut out = self.out?;
        out.push_str(&self.src[self.last..]);
        Some(out)
    }
}

/// Whether the byte at `i` is the character of an escape sequence (`n` of `\n`, the quote of
/// `\"`): one of JSON's escape characters after an odd run of backslashes.
fn escaped_at(b: &[u8], i: usize) -> bool {
    matches!(
        b.get(i),
        Some(b'n' | b'r' | b't' | b'"' | b'\\' | b'/' | b'\'')
    ) && b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// One replacement an [`Edit`] made while a [`Tracer`] was listening: which text it edited
/// (by address and length, never its bytes), the span, and what went there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Traced {
    pub(crate) src: (usize, usize),
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) with_len: usize,
    /// The placeholder written, when `with` was exactly one.
    pub(crate) placeholder: Option<&'static str>,
}

thread_local! {
    /// Whether a [`Tracer`] listens on this thread: one flag read per replacement when none does.
    static TRACING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static TRACE: std::cell::RefCell<Vec<Traced>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn trace(src: &str, start: usize, end: usize, with: &str) {
    if !TRACING.with(std::cell::Cell::get) {
        return;
    }
    let placeholder = PLACEHOLDERS.iter().find(|p| **p == with).copied();
    TRACE.with(|t| {
        t.borrow_mut().push(Traced {
            src: (src.as_ptr() as usize, src.len()),
            start,
            end,
            with_len: with.len(),
            placeholder,
        })
    });
}

/// Listens to every [`Edit`] replacement on this thread while it lives, so the redactor can tell
/// which raw value each placeholder replaced without the rules' passes saying so (their
/// signature stays `fn(&str, &mut u32) -> Option<String>`). Scoped to one redaction; the
/// recorded list is cleared when it ends, also on a panic.
pub(crate) struct Tracer(());

impl Tracer {
    pub(crate) fn start() -> Tracer {
        TRACE.with(|t| t.borrow_mut().clear());
        TRACING.with(|t| t.set(true));
        Tracer(())
    }

    /// Forgets what was recorded so far.
    pub(crate) fn clear(&self) {
        TRACE.with(|t| t.borrow_mut().clear());
    }

    /// Moves what was recorded since the last call into `into` (cleared first).
    pub(crate) fn take(&self, into: &mut Vec<Traced>) {
        into.clear();
        TRACE.with(|t| into.append(&mut *t.borrow_mut()));
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        TRACING.with(|t| t.set(false));
        TRACE.with(|t| t.borrow_mut().clear());
    }
}

pub(crate) fn byte_at(s: &str, i: usize) -> Option<u8> {
    s.as_bytes().get(i).copied()
}

pub(crate) fn byte_before(s: &str, i: usize) -> Option<u8> {
    i.checked_sub(1).and_then(|j| byte_at(s, j))
}

/// Whether the byte at `i` is the letter of a line-break or tab escape (`n` of `\n`, `t` of
/// `\t`): an escaped message read as it stands glues that letter to the word after it
/// (`\nCommit:`, `\tghcr.io`), and a rule that judges the word by its letters must skip it.
pub(crate) fn escaped_letter(s: &str, i: usize) -> bool {
    let b = s.as_bytes();
    matches!(b.get(i), Some(b'n' | b't' | b'r')) && escaped_at(b, i)
}

/// Where the line holding `i` starts, a line break escaped in the text (`\n`) ending a line
/// too: a JSON log line's message holds its lines that way.
pub(crate) fn line_start(s: &str, i: usize) -> usize {
    let raw = s[..i].rfind('\n').map_or(0, |j| j + 1);
    let escaped = s[..i].rfind("\\n").map_or(0, |j| j + 2);
    raw.max(escaped)
}

/// `s` without the blanks it starts with, raw or escaped (`\t`, `\r`).
pub(crate) fn trim_blanks_start(s: &str) -> &str {
    let mut s = s;
    loop {
        let t = s.trim_start();
        match t.strip_prefix("\\t").or_else(|| t.strip_prefix("\\r")) {
            Some(rest) => s = rest,
            None => return t,
        }
    }
}

pub(crate) fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether a placeholder ends just before `i`: it stands where a word was, so boundary checks
/// treat it as one (that keeps a second run from matching what the first one refused).
pub(crate) fn placeholder_before(s: &str, i: usize) -> bool {
    let head = s.as_bytes().get(..i).unwrap_or_default();
    PLACEHOLDERS.iter().any(|p| head.ends_with(p.as_bytes()))
}

/// Whether `s[start..end]` lies inside a placeholder.
pub(crate) fn inside_placeholder(s: &str, start: usize, end: usize) -> bool {
    let b = s.as_bytes();
    (start.saturating_sub(9)..=start.min(b.len().saturating_sub(1)))
        .filter(|&k| b[k] == b'<')
        .any(|k| {
            PLACEHOLDERS
                .iter()
                .any(|p| b[k..].starts_with(p.as_bytes()) && k + p.len() >= end)
        })
}

/// Whether a placeholder starts at `i` (see [`placeholder_before`]).
pub(crate) fn placeholder_after(s: &str, i: usize) -> bool {
    placeholder_at(s.as_bytes(), i)
}

/// Whether a placeholder starts at `i` of `bytes`: [`placeholder_after`] on bytes.
pub(crate) fn placeholder_at(bytes: &[u8], i: usize) -> bool {
    let tail = bytes.get(i..).unwrap_or_default();
    PLACEHOLDERS.iter().any(|p| tail.starts_with(p.as_bytes()))
}

/// Index just past the placeholders that follow each other from `i` (`i` itself when none does).
pub(crate) fn placeholders_at(s: &str, i: usize) -> usize {
    // Every placeholder opens with `<`, so anything else ends the look at once.
    const _: () = {
        let mut k = 0;
        while k < PLACEHOLDERS.len() {
            assert!(PLACEHOLDERS[k].as_bytes()[0] == b'<');
            k += 1;
        }
    };
    let mut at = i;
    while s.as_bytes().get(at) == Some(&b'<')
        && let Some(p) = PLACEHOLDERS.iter().find(|p| {
            s.as_bytes()
                .get(at..)
                .is_some_and(|t| t.starts_with(p.as_bytes()))
        })
    {
        at += p.len();
    }
    at
}

/// Index just past the character starting at `i` (for resuming a search after a reject).
pub(crate) fn next_char(s: &str, i: usize) -> usize {
    let mut j = i + 1;
    while j < s.len() && !s.is_char_boundary(j) {
        j += 1;
    }
    j
}

/// Index just past the closing `q` of a quoted run starting at `open` (backslash and doubled
/// quotes escape); the end of input when unterminated.
pub(crate) fn quoted_end(b: &[u8], open: usize, q: u8) -> usize {
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

/// Whether `needle` (not empty) occurs in `s`, ASCII case ignored.
pub(crate) fn contains_ci(s: &str, needle: &str) -> bool {
    s.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

pub(crate) fn ends_with_ci(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.as_bytes()[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// Applies possibly overlapping spans: sorted by start, an overlapped later span is dropped.
pub(crate) fn apply_spans(
    s: &str,
    mut spans: Vec<(usize, usize)>,
    placeholder: &str,
    hits: &mut u32,
) -> Option<String> {
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut e = Edit::new(s);
    for (start, end) in spans {
        if !is_placeholder(&s[start..end]) && e.replace(start, end, placeholder) {
            *hits += 1;
        }
    }
    e.finish()
}
