//! SQL: literals inside a detected statement (from its verb to `;` or the end of the line), the
//! few driver and server messages that quote bound values, and the passwords of user DDL.
//!
//! Inside a statement every literal goes but the numbers that shape the query rather than
//! carry data (`LIMIT 10`, `OFFSET 20`, `TOP 5`, `FETCH FIRST 3 ROWS`, `INTERVAL 1 DAY`);
//! numbers outside SQL stay.

use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, always, ex};
use super::super::text::{
    Edit, NUM, PLACEHOLDERS, SECRET, STR, byte_before, is_placeholder, next_char,
    placeholder_before, placeholders_at, quoted_end,
};
use crate::matcher::Matcher;

static SQL_START_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        // Case-insensitive ASCII keywords only (`(?i-u:…)`): the keyword scan that gates this
        // rule is ASCII case-insensitive, so no other spelling could reach it.
        r"(?-u:\b)(?:",
        r"(?i-u:select)[ \t\r\n]+(?:(?i-u:distinct)[ \t]+)?",
        r"[^ \t\r\n,]+(?:[ \t]+(?i-u:as)[ \t]+[^ \t\r\n,]+)?",
        r"(?:[ \t]*,[ \t\r\n]*[^ \t\r\n,]+(?:[ \t]+(?i-u:as)[ \t]+[^ \t\r\n,]+)?)*",
        r"[ \t\r\n]+(?i-u:from)",
        r"|(?i-u:insert)[ \t]+(?:(?i-u:ignore)[ \t]+)?(?i-u:into)",
        r"|(?i-u:update)[ \t]+[A-Za-z0-9_.`\x22]+[ \t]+(?i-u:set)",
        r"|(?i-u:delete)[ \t]+(?i-u:from)",
        r"|(?i-u:replace|merge|upsert)[ \t]+(?i-u:into)",
        r")(?-u:\b)",
        // A statement a log quotes in part: its predicate (`WHERE email = 'x'`), a stored
        // procedure's call (`EXEC sp_post @amt=5`, `CALL refund(42)`), a VALUES list.
        r"|(?-u:\b)(?:WHERE|where)[ \t]+[A-Za-z_\x22`\[][A-Za-z0-9_.\x22`\]]*[ \t]*(?:=|<>|!=|>=|<=|<|>|(?i-u:like|in)(?-u:\b))",
        r"|(?-u:\b)(?:EXEC|EXECUTE|CALL|exec|call)[ \t]+[A-Za-z_][A-Za-z0-9_.]*[ \t]*[(@]",
        r"|(?-u:\b)VALUES[ \t]*\(",
    ))
    .expect("constant regex")
});

fn pass_sql_statements(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    let mut pos = 0;
    while pos < s.len() {
        let Some(m) = SQL_START_RE.find_at(s, pos) else {
            break;
        };
        // Right after a literal this scan replaced (`"…"delete from`) is right after `<STR>`
        // in a second run, which skips it there.
        if placeholder_before(s, m.start()) || e.replaced_up_to(m.start()) {
            pos = m.end();
            continue;
        }
        // A verb glued to a token-like run (`…2a0b4c-5d6e-SELECT *4 FROM`) is that run's tail:
        // the token rule may take it with the run, and a second run would then start the
        // statement at a later verb and find other literals. A statement starts apart.
        if byte_before(s, m.start()).is_some_and(|b| matches!(b, b'-' | b'+' | b'/')) {
            pos = next_char(s, m.start());
            continue;
        }
        let end = sql_literals(s, m.start(), &mut e, hits);
        pos = end.max(m.end());
    }
    e.finish()
}

fn is_sql_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
}

/// Scans one statement from `start`, replacing literals; returns where the statement ends.
fn sql_literals(s: &str, start: usize, e: &mut Edit<'_>, hits: &mut u32) -> usize {
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
                if replace_literal(s, lit_start, end, e, hits) {
                    return end;
                }
                i = end;
            }
            b'"' => {
                let end = quoted_end(b, i, b'"');
                let closed = b.get(end.wrapping_sub(1)) == Some(&b'"') && end > i + 1;
                // `= "password": "x"` is JSON after a statement, not a string: a SQL literal is
                // never followed by `:`, and taking the key as one would hide it from the
                // key/value rule, letting its value through.
                // `::` after it is an IPv6 address (`""::a`), which becomes `<IP>` later.
                let after = s[end..].trim_start_matches([' ', '\t']);
                let json_key = after.starts_with(':') && !after.starts_with("::");
                // `"public"."users"."id"` and `"id" = $1`: quoted names, not strings.
                let identifier = after.starts_with(['.', '=', '<', '>', '!'])
                    || s[..i].ends_with('.')
                    || ["is ", "as ", "in ", "IS ", "AS ", "IN "]
                        .iter()
                        .any(|w| after.starts_with(w));
                if sql_value_position(s, i) && !json_key && !identifier {
                    if replace_literal(s, i, end, e, hits) {
                        return end;
                    }
                    i = end;
                } else {
                    // An unterminated name quote is just a character, not a skip to the end.
                    i = if closed { end } else { i + 1 };
                }
            }
            b'`' => {
                let end = quoted_end(b, i, b'`');
                let closed = b.get(end.wrapping_sub(1)) == Some(&b'`') && end > i + 1;
                i = if closed { end } else { i + 1 };
            }
            b'0'..=b'9' => {
                let prev = byte_before(s, i);
                let mut j = i;
                while j < b.len() && is_sql_ident_byte(b[j]) {
                    j += 1;
                }
                let run = &s[i..j];
                let numeric = is_sql_number(run);
                let bound_param = prev.is_some_and(|p| matches!(p, b':' | b'@' | b'?'));
                let next_ok = b.get(j).is_none_or(|&n| n != b':');
                if numeric && !bound_param && next_ok && !shapes_query(s, i) && e.replace(i, j, NUM)
                {
                    *hits += 1;
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

/// Replaces a quoted literal with `<STR>`, one per line it spans; whether it spans a line break.
///
/// The line breaks stay, so the rules that read line by line (a MyBatis parameter line, a
/// statement ending at its line) see the same lines in a second run (`Parameters:("\n"(String)`
/// must not become one line). For the same reason the statement ends with such a literal: a
/// second run would end it at the line break.
fn replace_literal(s: &str, start: usize, end: usize, e: &mut Edit<'_>, hits: &mut u32) -> bool {
    let mut from = start;
    for line in s[start..end].split_inclusive('\n') {
        let text = line.strip_suffix('\n').unwrap_or(line);
        if !text.is_empty() && e.replace(from, from + text.len(), STR) {
            *hits += 1;
        }
        from += line.len();
    }
    from > start && s[start..end].contains('\n')
}

/// Whether the number at `i` says how much a query returns or how far back it looks, after
/// `LIMIT`, `OFFSET`, `TOP`, `FETCH FIRST`/`NEXT` or `INTERVAL` (`LIMIT 10`, `LIMIT 5, 10`):
/// the query's shape, which says nothing about the data.
fn shapes_query(s: &str, i: usize) -> bool {
    let head = s[..i].trim_end_matches([' ', '\t', '(', '\'']);
    let head = match head.strip_suffix(',') {
        // `LIMIT 5, 10`: the count after the offset.
        Some(h) => h
            .trim_end()
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .trim_end(),
        None => head,
    };
    last_word_is(
        head,
        &["limit", "offset", "top", "first", "next", "interval"],
    )
}

/// Whether the last run of letters of `text` is one of `words`, in any case.
fn last_word_is(text: &str, words: &[&str]) -> bool {
    let word = text
        .rsplit(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("");
    words.iter().any(|w| word.eq_ignore_ascii_case(w))
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
    if PLACEHOLDERS.iter().any(|p| before.ends_with(p)) {
        return false;
    }
    match before.bytes().last() {
        Some(b'=' | b'<' | b'>' | b'(' | b',') => true,
        Some(_) => last_word_is(before, &["like", "in", "values", "then", "else", "regexp"]),
        None => false,
    }
}

static DUPLICATE_ENTRY_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"(?i-u:duplicate entry) ('(?:[^'\\]|\\.)*'?)").expect("constant regex")
});

// The closing phrase must end where no later rule can take it into a host, an e-mail, a pod or
// a token (`already exists.org`, `exists-x2k4m`): once that rule replaced it, a second run would
// find the phrase further on and take the placeholder as part of a longer value. Nor may a
// placeholder follow it (`exists.5` in a statement becomes `exists.<NUM>`). What follows is
// spelled so that matching bytes ends where matching characters does (see `matcher`): an ASCII
// byte outside the set, or a whole run of non-ASCII characters.
static PG_KEY_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"Key \((?:[^()\n]|\([^()\n]*\))*\)=\(([^\n]*?)\) (?:already exists|is not present|conflicts)",
        r"\.*(?:[\x00-\x7f&&[^A-Za-z0-9_.@%+/<\-]]|[^\x00-\x7f]+|\z)",
        // A check or not-null violation's row: every column's value, in one.
        r"|Failing row contains \(([^\n]*)\)",
        // ActiveRecord's lookup: `Couldn't find User with 'id'=88213`.
        r"|Couldn't find [A-Z][A-Za-z0-9_:]* with '[A-Za-z_][A-Za-z0-9_]*'=([^ \t\r\n):,\]]+)",
    ))
    .expect("constant regex")
});

static MYBATIS_PARAMS_RE: LazyLock<Matcher> =
    LazyLock::new(|| Matcher::new(r"Parameters:[ \t]*([^\n]*)").expect("constant regex"));

static MYBATIS_TYPE_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"\((String|Integer|Long|Short|Byte|Double|Float|BigDecimal|BigInteger|Boolean|",
        r"Timestamp|Date|LocalDateTime|LocalDate|LocalTime|Time|Character|UUID|Instant|Object)\)",
        r"(?:, |[ \t\r]*\z)"
    ))
    .expect("constant regex")
});

static HIBERNATE_BIND_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"binding parameter \[[0-9]+\] as \[([A-Z_]+)\] - \[([^\n]*)\]",
        // Hibernate 6: `binding parameter (1:VARCHAR) <- [x]`.
        r"|binding parameter \([0-9]+:([A-Z_]+)\) <- \[([^\n]*)\]",
    ))
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

/// The four message forms can overlap (`Parameters: Duplicate entry '(String), …`): of two
/// overlapping spans the later is dropped, and the regex match it was may have hidden another
/// (a second `Duplicate entry '…'` inside the dropped quote). The next round of [`redact`], which
/// runs this rule again after it changed a line, finds it.
fn pass_sql_messages(s: &str, hits: &mut u32) -> Option<String> {
    // Spans from the four message forms, merged into one ordered edit.
    let mut spans: Vec<(usize, usize, &'static str)> = Vec::new();
    for caps in DUPLICATE_ENTRY_RE.captures_iter(s) {
        if let Some(v) = caps.get(1) {
            spans.push((v.start(), v.end(), STR));
        }
    }
    for caps in PG_KEY_RE.captures_iter(s) {
        if let Some(v) = (1..=3).find_map(|g| caps.get(g))
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
        let (Some(ty), Some(v)) = (
            caps.get(1).or_else(|| caps.get(3)),
            caps.get(2).or_else(|| caps.get(4)),
        ) else {
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
            *hits += 1;
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------

pub(crate) static STATEMENT: Rule = Rule {
    id: "sql.statement",
    class: RedactionClass::SqlLiteral,
    placeholder: "<STR>/<NUM>",
    description: "String and numeric literals inside a SELECT, INSERT, UPDATE, DELETE, REPLACE, MERGE or UPSERT statement.",
    keywords: &[
        "select", "insert", "update", "delete", "replace", "merge", "upsert", "where", "exec",
        "call", "values",
    ],
    gate: always,
    pass: pass_sql_statements,
    matchers: &[&SQL_START_RE],
    examples: &[
        ex(
            "cache miss for WHERE tenant_id = 8812 AND email = 'r.kim@corp.example'",
            "cache miss for WHERE tenant_id = <NUM> AND email = <STR>",
        ),
        ex(
            "EXEC dbo.sp_post_payment @account='DE-7781', @amount=412.50",
            "EXEC dbo.sp_post_payment @account=<STR>, @amount=<NUM>",
        ),
        ex(
            "slow query: SELECT * FROM orders WHERE user_id = 10086 AND status = 'PAID' LIMIT 10",
            "slow query: SELECT * FROM orders WHERE user_id = <NUM> AND status = <STR> LIMIT 10",
        ),
        ex(
            "INSERT INTO audit (who, what) VALUES ('bob', \"login\")",
            "INSERT INTO audit (who, what) VALUES (<STR>, <STR>)",
        ),
    ],
    negatives: &[
        "tell me where it hurts",
        "call back in 5 minutes",
        "please select a plan from the list (3 options)",
        "update available: v2.4.1 released 2026-11-30",
    ],
};

pub(crate) static DRIVER_MESSAGE: Rule = Rule {
    id: "sql.driver-message",
    class: RedactionClass::SqlLiteral,
    placeholder: "<STR>/<NUM>",
    description: "Bound values quoted by MySQL (`Duplicate entry '…'`), PostgreSQL (`Key (…)=(…)`, `Failing row contains (…)`), MyBatis (`Parameters:`) and Hibernate (`binding parameter`).",
    keywords: &[
        "duplicate entry",
        "parameters:",
        "binding parameter",
        "key (",
        "failing row contains",
        "couldn't find",
    ],
    gate: always,
    pass: pass_sql_messages,
    matchers: &[
        &DUPLICATE_ENTRY_RE,
        &PG_KEY_RE,
        &MYBATIS_PARAMS_RE,
        &MYBATIS_TYPE_RE,
        &HIBERNATE_BIND_RE,
    ],
    examples: &[
        ex(
            "DETAIL:  Key (lower(name::text), site_id)=(edge-sw4, 14) already exists.",
            "DETAIL:  Key (lower(name::text), site_id)=(<STR>) already exists.",
        ),
        ex(
            "org.hibernate.orm.jdbc.bind : binding parameter (2:BIGINT) <- [4418207]",
            "org.hibernate.orm.jdbc.bind : binding parameter (2:BIGINT) <- [<NUM>]",
        ),
        ex(
            "DETAIL:  Failing row contains (7, kim, null, 19.90).",
            "DETAIL:  Failing row contains (<STR>).",
        ),
        ex(
            "ActiveRecord::RecordNotFound (Couldn't find Order with 'id'=5521):",
            "ActiveRecord::RecordNotFound (Couldn't find Order with 'id'=<STR>):",
        ),
        ex(
            "Duplicate entry 'bob@corp' for key 'users.uk_email'",
            "Duplicate entry <STR> for key 'users.uk_email'",
        ),
        ex(
            "==> Parameters: alice(String), 42(Integer)",
            "==> Parameters: <STR>(String), <NUM>(Integer)",
        ),
    ],
    negatives: &["Parameters: none", "duplicate entries were skipped"],
};

/// `IDENTIFIED BY 'x'`, `PASSWORD 'x'` and `PASSWORD('x')`: the password of user DDL, quoted or
/// bare after `IDENTIFIED BY`.
static USER_DDL_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        // `CREATE USER name IDENTIFIED BY`, `GRANT … TO name IDENTIFIED BY`.
        r"(?-u:\b)(?i-u:user|to)[ \t]+(?:(?i-u:if[ \t]+not[ \t]+exists)[ \t]+)?[^ \t\r\n]+[ \t]+(?i-u:identified)(?:[ \t]+(?i-u:with)[ \t]+[A-Za-z0-9_]+)?",
        r"[ \t]+(?i-u:by)(?:[ \t]+(?i-u:password))?[ \t]+",
        r#"(?:'([^'\n]*)'?|"([^"\n]*)"?|([A-Za-z0-9_!@#$%^&*+.\-]+))"#,
        r"|(?-u:\b)(?i-u:password)(?:[ \t]+|[ \t]*=?[ \t]*(?i-u:password)?[ \t]*\([ \t]*)'([^'\n]*)'?",
    ))
    .expect("constant regex")
});

fn pass_user_ddl(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in USER_DDL_RE.captures_iter(s) {
        let Some(v) = (1..=4).find_map(|g| caps.get(g)) else {
            continue;
        };
        if v.as_str().is_empty() || is_placeholder(v.as_str()) {
            continue;
        }
        if e.replace(v.start(), v.end(), SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static USER_DDL: Rule = Rule {
    id: "sql.user-ddl",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The password of CREATE/ALTER USER … IDENTIFIED BY, ALTER ROLE … PASSWORD and SET PASSWORD … PASSWORD('…').",
    keywords: &["identified", "password"],
    gate: always,
    pass: pass_user_ddl,
    matchers: &[&USER_DDL_RE],
    examples: &[
        ex(
            "executing CREATE USER 'app'@'%' IDENTIFIED BY 'S3cr3t!x';",
            "executing CREATE USER 'app'@'%' IDENTIFIED BY '<SECRET>';",
        ),
        ex(
            "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY 'r00t!';",
            "ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '<SECRET>';",
        ),
    ],
    negatives: &["user identified by badge", "password reset requested"],
};

/// Where a driver, an ORM or a server prints the values bound to a statement beside it rather
/// than in it: a key naming the parameters followed by a list or a map (`parameters: [...]`,
/// `params=["a",1]`, `args="[a b]"`, `binds: {...}`), SQLAlchemy's `[generated in 0.0004s]
/// {...}`, pairs of a parameter and its value (`$1 = 'x', $2 = 'y'`, `@p0='x'`), MySQL's
/// row-image lines (`###   @2='x'`), and values a server quotes back in an error
/// (`Incorrect integer value: 'N/A'`, `duplicate key value is (9180442)`).
static BOUND_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?-u:\b)(?i-u:parameters|params|args|arguments|binds|bindings|bind[ _]values|bind[ _]variables|bound[ _]values)["']?[ \t]*[:=]?[ \t]*["']?[ \t]*"#,
        r"|\[(?i-u:generated in|cached since|dialect)[^\]\n]*\][ \t]*",
        r"|(?m:^)###[ \t]+",
        r"|(?i-u:integer|numeric|decimal|date|datetime|timestamp|string|boolean|double|float|enum|uuid) (?i-u:value)[ \t]*:?[ \t]*",
        r"|(?i-u:duplicate key value is)[ \t]*",
        r"|(?-u:\b)(?i-u:with|using) (?i-u:params|parameters|binds)[ \t]*",
        // Spring's `parameter value [x]`, and the input a server quotes back when it cannot
        // read it (`invalid input syntax for type uuid: "x"`, `For input string: "x"`).
        r"|(?-u:\b)(?i-u:parameter value)[ \t]*",
        r"|(?i-u:invalid input syntax for)(?: (?i-u:type))?[ A-Za-z]*:[ \t]*",
        r"|(?i-u:invalid input value for enum) [^:\n]+:[ \t]*",
        r"|(?i-u:for input string):[ \t]*",
        // SQL Server's conversion error quotes the value (`converting the nvarchar value 'x' to
        // data type int`); an Oracle trace's bind dump (`Bind-2 type=2 length=13 value=x`);
        // SQL*Plus's bind variable set with `EXEC :kdnr := 'x'`.
        r"|(?i-u:converting the (?:n?varchar2?|n?char) value)[ \t]*",
        r"|(?-u:\b)Bind-[0-9]+ type=[0-9]+ length=[0-9]+ value=",
        r"|(?i-u:exec(?:ute)?) :[A-Za-z_][A-Za-z0-9_]* := ",
        // A MongoDB shell's or driver's call: its documents' values (`db.users.find({ email: "x" })`).
        r"|(?-u:\b)db\.[A-Za-z0-9_$]+\.[A-Za-z]+\(",
    ))
    .expect("constant regex")
});

/// Words that stay where they stand in a bound list: they say what a value is, not what it holds.
fn is_inert_bound(word: &str) -> bool {
    ["true", "false", "null", "nil", "none", "undefined"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
        || is_placeholder(word)
}

fn pass_bound_values(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    // `args` and `arguments` are a process's too: only beside a statement are they binds.
    // Asked once, and only of a message whose opener is a weak one.
    let statement = std::cell::OnceCell::new();
    let beside_statement = || {
        *statement.get_or_init(|| {
            let lower = s.to_ascii_lowercase();
            SQL_START_RE.find_at(s, 0).is_some()
                || ["sql=", "sql:", "query=", "query:", "\"sql\""]
                    .iter()
                    .any(|k| lower.contains(k))
        })
    };
    for m in BOUND_RE.find_iter(s) {
        let opener = m.as_str().trim_start().to_ascii_lowercase();
        let weak = opener.starts_with("arg")
            || (opener.starts_with("bind") && !opener.starts_with("bind-"));
        // A count of parameters is prose: `37 parameters (flag=true, …)`.
        let word_before = s[..m.start()]
            .trim_end()
            .rsplit([' ', '\t'])
            .next()
            .unwrap_or("");
        if opener.starts_with("param")
            && !word_before.is_empty()
            && word_before.bytes().all(|c| c.is_ascii_digit())
        {
            continue;
        }
        let at = m.end();
        // Bind syntax says what it is with no statement beside it: `:1='x'`, `[1] 42`.
        let bind_syntax = indexed_at(s, at).is_some() || {
            let rest = &s.as_bytes()[at..];
            matches!(rest.first(), Some(b':' | b'$' | b'@'))
                && rest.get(1).is_some_and(u8::is_ascii_alphanumeric)
                && s[at + 1..]
                    .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    .starts_with('=')
        };
        if weak && !bind_syntax && !beside_statement() {
            continue;
        }
        let line_end = s[at..].find('\n').map_or(s.len(), |i| at + i);
        if indexed_at(s, at).is_some() {
            bound_indexed(s, at, line_end, &mut e, hits);
            continue;
        }
        // A MongoDB call: every document among its arguments, up to its closing parenthesis.
        if opener.starts_with("db.") {
            bound_collection(s, at - 1, line_end, &mut e, hits);
            continue;
        }
        // An Oracle bind dump's value runs to the end of its line.
        if opener.starts_with("bind-") {
            let value = s[at..line_end].trim_end_matches(['\r', ' ']);
            if !value.is_empty() && !is_placeholder(value) {
                let with = if is_sql_number(value) { NUM } else { STR };
                if e.replace(at, at + value.len(), with) {
                    *hits += 1;
                }
            }
            continue;
        }
        match s.as_bytes().get(at) {
            Some(b'[' | b'{' | b'(') => bound_collection(s, at, line_end, &mut e, hits),
            Some(b'$' | b'@' | b':') => bound_pairs(s, at, line_end, &mut e, hits),
            Some(b'\'' | b'"') if !opener.starts_with("param") && !weak => {
                let q = s.as_bytes()[at];
                let end = quoted_end(s.as_bytes(), at, q);
                if end > at + 1 && e.replace(at, end, STR) {
                    *hits += 1;
                }
            }
            _ => {}
        }
    }
    e.finish()
}

/// Where the value after an index `[N] ` at `at` starts (`binds: [1] 30412 [2] 'x'`).
fn indexed_at(s: &str, at: usize) -> Option<usize> {
    let rest = s[at..].strip_prefix('[')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = rest[digits..].strip_prefix("] ")?;
    (digits > 0).then(|| s.len() - after.len())
}

/// The values of `[1] v [2] 'w' …` from `at` up to `line_end`.
fn bound_indexed(s: &str, mut at: usize, line_end: usize, e: &mut Edit<'_>, hits: &mut u32) {
    let b = s.as_bytes();
    while let Some(vs) = indexed_at(s, at).filter(|&vs| vs < line_end) {
        let ve = match b[vs] {
            q @ (b'\'' | b'"') => quoted_end(b, vs, q).min(line_end),
            _ => s[vs..line_end]
                .find([' ', '\t', ','])
                .map_or(line_end, |k| vs + k),
        };
        let value = s[vs..ve].trim_matches(['\'', '"']);
        if ve > vs && !is_inert_bound(value) && !is_placeholder(value) {
            let with = if is_sql_number(&s[vs..ve]) { NUM } else { STR };
            if e.replace(vs, ve, with) {
                *hits += 1;
            }
        }
        at = ve
            + (s[ve..line_end].len() - s[ve..line_end].trim_start_matches([' ', '\t', ',']).len());
        if at >= line_end {
            return;
        }
    }
}

/// Every value of the list or map that opens at `open`, up to its close or `line_end`: quoted
/// strings (not a map's keys) become `<STR>`, numbers `<NUM>`, bare words `<STR>`.
fn bound_collection(s: &str, open: usize, line_end: usize, e: &mut Edit<'_>, hits: &mut u32) {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < line_end {
        match b[i] {
            b'<' if placeholders_at(s, i) > i => i = placeholders_at(s, i),
            b'[' | b'{' | b'(' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' | b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
                if depth == 0 {
                    return;
                }
            }
            q @ (b'\'' | b'"') => {
                let end = quoted_end(b, i, q).min(line_end);
                let after = s[end..line_end].trim_start_matches([' ', '\t']);
                let key = after.starts_with(':') || after.starts_with("=>");
                // An unclosed quote ends at the line's end, which may follow a character of
                // several bytes: its inside is read only where it is a string's (a fuzz find).
                let inside = s.get(i + 1..end.saturating_sub(1)).unwrap_or_default();
                if !key && end > i + 1 && !is_inert_bound(inside) && e.replace(i, end, STR) {
                    *hits += 1;
                }
                i = end.max(i + 1);
            }
            c if c.is_ascii_alphanumeric() || c == b'-' || c == b'.' || c == b'_' => {
                let mut j = i;
                while j < line_end
                    && !matches!(
                        b[j],
                        b' ' | b'\t' | b',' | b']' | b'}' | b')' | b':' | b'=' | b'"' | b'\''
                    )
                {
                    j += 1;
                }
                let word = &s[i..j];
                let after = s[j..line_end].trim_start_matches([' ', '\t']);
                let key = after.starts_with(':') || after.starts_with('=');
                if !key && !is_inert_bound(word) && !placeholder_before(s, i) {
                    let with = if is_sql_number(word) { NUM } else { STR };
                    if e.replace(i, j, with) {
                        *hits += 1;
                    }
                }
                i = j.max(i + 1);
            }
            _ => i = next_char(s, i),
        }
    }
}

/// `$1 = 'x', $2 = 7`, `@p0='x'`, `:name => 'x'`, `@2='x'`: each value after its parameter, to
/// `line_end`.
/// Where an unquoted bound value from `vs` ends: at `)`, or where the next pair starts
/// (`, :2=`, ` @p1=`), so that a value of several words goes whole (Oracle's `Bind variables:
/// :1=AT6119, :2=Hubert Kainz`); without a next pair, at a blank or a comma.
fn unquoted_bound_end(s: &str, vs: usize, line_end: usize) -> usize {
    let b = s.as_bytes();
    let next_pair = |k: usize| {
        let mut i = k;
        while i < line_end && matches!(b[i], b' ' | b',' | b'\t') {
            i += 1;
        }
        if i == k || i >= line_end || !matches!(b[i], b'$' | b'@' | b':') {
            return false;
        }
        let mut j = i + 1;
        while j < line_end && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        j > i + 1
            && s[j..line_end]
                .trim_start_matches([' ', '\t'])
                .starts_with('=')
    };
    let first_gap = s[vs..line_end]
        .find([',', ' ', '\t', ')'])
        .map_or(line_end, |k| vs + k);
    if first_gap == line_end || b[first_gap] == b')' || next_pair(first_gap) {
        return first_gap;
    }
    // Words go on to the next pair, a `)` or the end of the line.
    (first_gap..line_end)
        .find(|&k| b[k] == b')' || (matches!(b[k], b' ' | b',') && next_pair(k)))
        .unwrap_or(line_end)
}

fn bound_pairs(s: &str, at: usize, line_end: usize, e: &mut Edit<'_>, hits: &mut u32) {
    let b = s.as_bytes();
    let mut i = at;
    while i < line_end {
        if !matches!(b[i], b'$' | b'@' | b':') {
            return;
        }
        let mut j = i + 1;
        while j < line_end && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        let rest = &s[j..line_end];
        let trimmed = rest.trim_start_matches([' ', '\t']);
        let Some(v) = trimmed
            .strip_prefix("=>")
            .or_else(|| trimmed.strip_prefix('='))
        else {
            return;
        };
        let vs = line_end - v.trim_start_matches([' ', '\t']).len();
        let ve = match b.get(vs) {
            Some(&q @ (b'\'' | b'"')) => quoted_end(b, vs, q).min(line_end),
            _ => unquoted_bound_end(s, vs, line_end),
        };
        if ve > vs && !is_inert_bound(s[vs..ve].trim_matches(['\'', '"'])) {
            let with = if is_sql_number(&s[vs..ve]) { NUM } else { STR };
            if e.replace(vs, ve, with) {
                *hits += 1;
            }
        }
        let next = s[ve..line_end].trim_start_matches([',', ' ', '\t']);
        i = line_end - next.len();
        if i <= vs {
            return;
        }
    }
}

pub(crate) static BOUND_VALUES: Rule = Rule {
    id: "sql.bound-values",
    class: RedactionClass::SqlLiteral,
    placeholder: "<STR>/<NUM>",
    description: "Values bound to a statement and printed beside it (`parameters: $1 = 'x'`, `params [\"a\",1]`, `args=\"[a b]\"`, SQLAlchemy's `[generated in …] {…}`, `@p0='x'`, MySQL's `### @2='x'`), or quoted back in a server's error (`Incorrect integer value: 'x'`).",
    keywords: &[
        "param",
        "converting the",
        "exec",
        "args",
        "arguments",
        "bind",
        "bound",
        "generated in",
        "cached since",
        "dialect",
        "###",
        " value",
        "duplicate key value",
        "invalid input",
        "input string",
        "db.",
    ],
    gate: always,
    pass: pass_bound_values,
    matchers: &[&BOUND_RE],
    examples: &[
        ex(
            "Bind variables: :1=AT6119043002, :2=Ines Gruber, :3=1971-04-02",
            "Bind variables: :1=<STR>, :2=<STR>, :3=<STR>",
        ),
        ex(
            "Conversion failed when converting the nvarchar value 'HR-77-B' to data type int.",
            "Conversion failed when converting the nvarchar value <STR> to data type int.",
        ),
        ex(
            "Bind-3 type=2 length=17 value=12 Harbour Road",
            "Bind-3 type=2 length=17 value=<STR>",
        ),
        ex(
            "SQL> EXEC :custno := 'K-2026-4411';",
            "SQL> EXEC :custno := <STR>;",
        ),
        ex(
            "mongosh> db.players.updateOne({ name: \"Vela_9\" }, { $set: { coins: 4100 } })",
            "mongosh> db.players.updateOne({ name: <STR> }, { $set: { coins: <NUM> } })",
        ),
        ex(
            "Binds: :1='INV-2026-0117' :2=88.40 :3=NULL",
            "Binds: :1=<STR> :2=<NUM> :3=NULL",
        ),
        ex(
            "binds: [1] 7781 [2] 'Okapi Freight' [3] NULL",
            "binds: [1] <NUM> [2] <STR> [3] NULL",
        ),
        ex(
            "Setting SQL statement parameter value: column index 2, parameter value [DE44500105175407324931], value class [java.lang.String]",
            "Setting SQL statement parameter value: column index 2, parameter value [<STR>], value class [java.lang.String]",
        ),
        ex(
            "ERROR:  invalid input syntax for type uuid: \"abc-42\"",
            "ERROR:  invalid input syntax for type uuid: <STR>",
        ),
        ex(
            "DETAIL:  parameters: $1 = '5521', $2 = 'OPEN'",
            "DETAIL:  parameters: $1 = <STR>, $2 = <STR>",
        ),
        ex(
            "prisma:query params [\"lena\",\"GOLD\",1,0] duration_ms=3",
            "prisma:query params [<STR>,<STR>,<NUM>,<NUM>] duration_ms=3",
        ),
        ex(
            "[cached since 41.2s ago] {'sku_1': 'AB-77', 'qty_1': 3}",
            "[cached since 41.2s ago] {'sku_1': <STR>, 'qty_1': <NUM>}",
        ),
        ex(
            "msg=Query sql=\"UPDATE t SET a = $1\" args=\"[paid 7731]\"",
            "msg=Query sql=\"UPDATE t SET a = $1\" args=\"[<STR> <NUM>]\"",
        ),
        ex("###   @2='Mara Lind'", "###   @2=<STR>"),
        ex(
            "Incorrect integer value: 'n/a' for column 'qty' at row 3",
            "Incorrect integer value: <STR> for column 'qty' at row 3",
        ),
        ex(
            "Cannot insert duplicate key. The duplicate key value is (7730021).",
            "Cannot insert duplicate key. The duplicate key value is (<NUM>).",
        ),
    ],
    negatives: &[
        "config fetched: 37 parameters (checkout_v2=true, min_version=4.10.0)",
        "job args=[--dry-run] started",
        "parameters: none",
        "params {\"debug\": true}",
        "string value expected",
    ],
};
