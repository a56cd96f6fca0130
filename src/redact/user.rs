//! User rules and allowlists (SPEC §5): an organization's own token formats, internal domains
//! and known-safe values, loaded from a TOML rules file and checked like the built-in catalogue.
//!
//! A rules file adds `[[rules]]` (a namespaced id, a class that sets the placeholder, a `regex`
//! crate pattern whose one optional group is the part replaced, optional prefilter keywords, an
//! optional per-rule `allow`, and required examples and negatives), an `[allowlist]` of values no
//! rule may redact, and `disable`, built-in rule ids turned off.
//!
//! Trade-offs:
//!
//! * **The same rounds.** User rules run inside the built-in rounds (first in each round: an
//!   organization's format is more specific than any shape rule), so a round that changes
//!   something is followed by another, and `redact(redact(x)) == redact(x)` holds for them as for
//!   the built-ins. A file without rules, allowlist or disabled ids is never loaded into the
//!   redactor at all: the built-in path stays exactly what it was.
//! * **Their own keyword automaton.** The built-in keyword table is generated ahead of time; the
//!   user keywords get a second, small Aho-Corasick automaton, scanned once per text the rounds
//!   read. A keyword counts only outside a placeholder and may hold no `<` or `>`, so, as for the
//!   built-in gates, replacing a span never opens a gate that was shut.
//! * **The allowlist edits the edits.** A built-in pass is a function from text to text; what it
//!   replaced is heard through the same tracer correlation uses, and a replacement of an allowed
//!   value (or of a part of an allowed literal) is undone before the text moves on. So the value
//!   stays, every round, and is never counted or reported.
//! * **Nothing half-loaded.** Every example and negative of every rule runs through the whole
//!   redactor (built-in and user rules together) before the redactor is handed out; one failure
//!   refuses the file.

use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, Mutex};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde::Deserialize;

use super::prefilter::Features;
use super::text::{self, Edit, inside_placeholder, is_placeholder};
use super::{
    CATALOGUE, MAX_ROUNDS, Mark, Marking, RedactionClass, RedactionCounts, Redactor, open_rules,
    stack, stack_forms,
};

/// User rules one file may hold: one counter slot each in [`RedactionCounts`].
pub const MAX_USER_RULES: usize = 64;

/// The compiled size a user rule's regex may reach.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Bytes a rules file may hold.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// Why a rules file did not load: the file, and where it names one, the rule and the reason.
#[derive(Debug, thiserror::Error)]
pub enum RulesFileError {
    /// The file could not be read.
    #[error("cannot read the rules file {path}: {reason}")]
    Read {
        /// The file, as given.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The file is not TOML, or not the rules file's shape (an unknown top-level key).
    #[error("the rules file {path} is not valid: {reason}")]
    Parse {
        /// The file, as given.
        path: String,
        /// What the TOML parser said, with the line.
        reason: String,
    },
    /// A rule, the allowlist or `disable` is wrong: the first failure found.
    #[error("the rules file {path}: {failure}")]
    Invalid {
        /// The file, as given.
        path: String,
        /// The first failure.
        failure: Failure,
    },
}

/// One failure of a rules file: the rule it is about (none for the allowlist or `disable`) and
/// the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The rule id (or `rules[N]` for a rule without a usable id); `None` for the file's own keys.
    pub rule: Option<String>,
    /// What is wrong, naming the example when one failed.
    pub reason: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.rule {
            Some(rule) => write!(f, "rule {rule}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

fn failure(rule: Option<&str>, reason: impl Into<String>) -> Failure {
    Failure {
        rule: rule.map(str::to_owned),
        reason: reason.into(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    disable: Vec<String>,
    #[serde(default)]
    allowlist: RawAllowlist,
    #[serde(default)]
    rules: Vec<toml::Table>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAllowlist {
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    regexes: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    class: String,
    regex: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    examples: Vec<RawExample>,
    #[serde(default)]
    negatives: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExample {
    input: String,
    output: String,
}

/// Values no rule may redact: exact strings and whole-value regexes.
#[derive(Debug, Default)]
struct Allowlist {
    values: Vec<String>,
    regexes: Vec<regex::Regex>,
}

impl Allowlist {
    fn is_empty(&self) -> bool {
        self.values.is_empty() && self.regexes.is_empty()
    }

    /// Whether replacing `s[start..end]` would redact an allowed value: the span is one, or lies
    /// inside an occurrence of an allowed literal.
    fn blocks(&self, s: &str, start: usize, end: usize) -> bool {
        let span = &s[start..end];
        if self.values.iter().any(|v| v == span) || self.regexes.iter().any(|r| r.is_match(span)) {
            return true;
        }
        self.values.iter().any(|v| {
            !v.is_empty()
                && memchr::memmem::find_iter(s.as_bytes(), v.as_bytes())
                    .any(|at| at <= start && end <= at + v.len())
        })
    }
}

/// One user rule, compiled.
#[derive(Debug)]
pub(crate) struct UserRule {
    pub(crate) id: &'static str,
    pub(crate) class: RedactionClass,
    pub(crate) placeholder: &'static str,
    description: String,
    regex: regex::Regex,
    group: bool,
    keywords: Vec<String>,
    allow: Allowlist,
    examples: Vec<RawExample>,
    negatives: Vec<String>,
}

impl UserRule {
    /// The rule's pass: each match (its group, when it has one) that is raw text and not
    /// allowed, replaced by the placeholder.
    fn pass(&self, s: &str, global: &Allowlist, hits: &mut u32) -> Option<String> {
        let mut edit = Edit::new(s);
        let mut locs = self.regex.capture_locations();
        let mut at = 0;
        while at <= s.len() {
            let Some(whole) = self.regex.captures_read_at(&mut locs, s, at) else {
                break;
            };
            at = if whole.end() > whole.start() {
                whole.end()
            } else {
                text::next_char(s, whole.end())
            };
            let Some((a, b)) = locs.get(usize::from(self.group)) else {
                continue;
            };
            if a == b
                || is_placeholder(&s[a..b])
                || inside_placeholder(s, a, b)
                || global.blocks(s, a, b)
                || self.allow.blocks(s, a, b)
            {
                continue;
            }
            if edit.replace(a, b, self.placeholder) {
                *hits += 1;
            }
        }
        edit.finish()
    }
}

/// A rules file, compiled: what a [`Redactor`] built [from it](Redactor::from_rules_file) adds to the
/// built-in catalogue.
#[derive(Debug)]
pub struct UserRules {
    path: String,
    rules: Vec<UserRule>,
    /// Built-in rules turned off, bit `i` for catalogue rule `i`.
    pub(crate) disabled: u128,
    disabled_ids: Vec<&'static str>,
    allow: Allowlist,
    keywords: Option<(AhoCorasick, Vec<u64>)>,
    /// The rules without keywords: always open.
    unkeyed: u64,
    /// Every rule's id, in file order: what [`RedactionCounts::by_rule`] names them by.
    pub(crate) ids: &'static [&'static str],
}

/// Interns a file's rule ids: counts name rules by `&'static str`, and a process that loads the
/// same file again reuses the same ids.
fn intern(ids: Vec<String>) -> &'static [&'static str] {
    static SEEN: Mutex<Vec<&'static [&'static str]>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = seen
        .iter()
        .find(|k| k.len() == ids.len() && k.iter().zip(&ids).all(|(a, b)| *a == b))
    {
        return known;
    }
    let leaked: Vec<&'static str> = ids
        .into_iter()
        .map(|s| &*Box::leak(s.into_boxed_str()))
        .collect();
    let leaked: &'static [&'static str] = Box::leak(leaked.into_boxed_slice());
    seen.push(leaked);
    leaked
}

fn class_of(name: &str) -> Option<(RedactionClass, &'static str)> {
    let class = RedactionClass::ALL.into_iter().find(|c| c.name() == name)?;
    let placeholder = match class {
        RedactionClass::Secret => text::SECRET,
        RedactionClass::Token => text::TOKEN,
        RedactionClass::Host => text::HOST,
        RedactionClass::Pod => text::POD,
        RedactionClass::Pid => text::PID,
        RedactionClass::Ip => text::IP,
        RedactionClass::Email => text::EMAIL,
        RedactionClass::SqlLiteral => text::STR,
        RedactionClass::Stack => text::STACK,
    };
    Some((class, placeholder))
}

fn compile_regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(limit) => {
                format!("the regex compiles to more than {limit} bytes")
            }
            other => format!(
                "the regex does not compile: {}",
                other.to_string().lines().last().unwrap_or("invalid")
            ),
        })
}

fn valid_id(id: &str) -> bool {
    let b = id.as_bytes();
    (3..=64).contains(&b.len())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"._-".contains(c))
        && b[0].is_ascii_lowercase()
        && id.contains('.')
        && !id.starts_with('.')
        && !id.ends_with('.')
}

/// Compiles one rule table; `at` is its place in the file.
fn compile_rule(
    table: toml::Table,
    at: usize,
    taken: &[String],
) -> Result<(UserRule, String), Failure> {
    let shown = table
        .get("id")
        .and_then(toml::Value::as_str)
        .map_or_else(|| format!("rules[{at}]"), str::to_owned);
    let fail = |reason: String| failure(Some(&shown), reason);
    let raw: RawRule = toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| fail(e.message().trim().to_owned()))?;
    if !valid_id(&raw.id) {
        return Err(fail(
            "the id must be namespaced (`org.rule`: lowercase letters, digits, `.`, `_`, `-`, \
             3 to 64 bytes, with a dot)"
                .into(),
        ));
    }
    if CATALOGUE.iter().any(|r| r.id == raw.id)
        || crate::untrusted::catalogue().iter().any(|r| r.id == raw.id)
    {
        return Err(fail("the id is a built-in rule's".into()));
    }
    if taken.contains(&raw.id) {
        return Err(fail("the id is used by an earlier rule of the file".into()));
    }
    let Some((class, placeholder)) = class_of(&raw.class) else {
        let names: Vec<_> = RedactionClass::ALL.iter().map(|c| c.name()).collect();
        return Err(fail(format!(
            "unknown class {:?} (one of {})",
            raw.class,
            names.join(", ")
        )));
    };
    let regex = compile_regex(&raw.regex).map_err(fail)?;
    let groups = regex.captures_len() - 1;
    if groups > 1 {
        return Err(fail(format!(
            "the regex has {groups} capture groups; at most one (the part replaced) is allowed, \
             use (?:…) for the others"
        )));
    }
    if regex.is_match("") {
        return Err(fail("the regex matches the empty string".into()));
    }
    for k in &raw.keywords {
        if k.is_empty() || k.contains(['<', '>']) {
            return Err(fail(format!(
                "keyword {k:?} must be non-empty and hold no `<` or `>`"
            )));
        }
    }
    if raw.examples.is_empty() {
        return Err(fail("a rule needs at least one example".into()));
    }
    if raw.negatives.is_empty() {
        return Err(fail("a rule needs at least one negative".into()));
    }
    let rule = UserRule {
        // The id is interned with the file's others once every rule compiled.
        id: "",
        class,
        placeholder,
        description: raw
            .description
            .unwrap_or_else(|| format!("user rule, {}", raw.class)),
        regex,
        group: groups == 1,
        keywords: raw.keywords,
        allow: Allowlist {
            values: raw.allow,
            regexes: Vec::new(),
        },
        examples: raw.examples,
        negatives: raw.negatives,
    };
    Ok((rule, raw.id))
}

/// A file's rules compiled, and what was wrong with the ones that did not compile.
struct Compiled {
    rules: UserRules,
    failures: Vec<Failure>,
}

fn line_of(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim();
    match e.span() {
        Some(span) => {
            let line = text.as_bytes()[..span.start.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            format!("line {line}: {message}")
        }
        None => message.to_owned(),
    }
}

fn read_file(path: &Path) -> Result<String, RulesFileError> {
    let shown = path.display().to_string();
    let unreadable = |reason: String| RulesFileError::Read {
        path: shown.clone(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| unreadable(crate::error::os_reason(&e)))?;
    if meta.is_dir() {
        return Err(unreadable("Is a directory".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(unreadable("larger than 1 MiB".into()));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(crate::error::os_reason(&e)))?;
    String::from_utf8(bytes).map_err(|_| RulesFileError::Parse {
        path: shown.clone(),
        reason: "not UTF-8".into(),
    })
}

/// Parses and compiles a rules file's text; a rule that does not compile is a failure, not an
/// error, so `rules check` can name every one.
fn compile(path: &str, text: &str) -> Result<Compiled, RulesFileError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| RulesFileError::Parse {
        path: path.to_owned(),
        reason: line_of(text, &e),
    })?;
    let mut failures = Vec::new();
    if raw.rules.len() > MAX_USER_RULES {
        failures.push(failure(
            None,
            format!(
                "the file holds {} rules; at most {MAX_USER_RULES}",
                raw.rules.len()
            ),
        ));
    }
    let mut disabled = 0u128;
    let mut disabled_ids = Vec::new();
    for id in &raw.disable {
        match CATALOGUE.iter().position(|r| r.id == id) {
            Some(i) => {
                if disabled & 1 << i == 0 {
                    disabled_ids.push(CATALOGUE[i].id);
                }
                disabled |= 1 << i;
            }
            None => failures.push(failure(
                None,
                format!("disable: {id:?} is not a built-in rule id (`aciproj rules`)"),
            )),
        }
    }
    let mut allow = Allowlist {
        values: raw.allowlist.values,
        regexes: Vec::new(),
    };
    for (k, r) in raw.allowlist.regexes.iter().enumerate() {
        match compile_regex(&format!("^(?:{r})$")) {
            Ok(re) => allow.regexes.push(re),
            Err(why) => failures.push(failure(None, format!("allowlist.regexes[{k}]: {why}"))),
        }
    }
    let mut rules = Vec::new();
    let mut ids = Vec::new();
    for (at, table) in raw.rules.into_iter().take(MAX_USER_RULES).enumerate() {
        match compile_rule(table, at, &ids) {
            Ok((rule, id)) => {
                ids.push(id);
                rules.push(rule);
            }
            Err(f) => failures.push(f),
        }
    }
    let ids = intern(ids);
    for (rule, id) in rules.iter_mut().zip(ids) {
        rule.id = id;
    }
    let mut keyed: Vec<(String, u64)> = Vec::new();
    let mut unkeyed = 0u64;
    for (j, rule) in rules.iter().enumerate() {
        if rule.keywords.is_empty() {
            unkeyed |= 1 << j;
        }
        for k in &rule.keywords {
            match keyed
                .iter_mut()
                .find(|(known, _)| known.eq_ignore_ascii_case(k))
            {
                Some((_, mask)) => *mask |= 1 << j,
                None => keyed.push((k.clone(), 1 << j)),
            }
        }
    }
    let keywords = if keyed.is_empty() {
        None
    } else {
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(keyed.iter().map(|(k, _)| k))
            .map_err(|e| RulesFileError::Invalid {
                path: path.to_owned(),
                failure: failure(None, format!("the keywords do not build: {e}")),
            })?;
        Some((ac, keyed.into_iter().map(|(_, m)| m).collect()))
    };
    Ok(Compiled {
        rules: UserRules {
            path: path.to_owned(),
            rules,
            disabled,
            disabled_ids,
            allow,
            keywords,
            unkeyed,
            ids,
        },
        failures,
    })
}

impl UserRules {
    /// The user rules whose keywords `s` holds outside a placeholder, and those without any.
    fn triggers(&self, s: &str) -> u64 {
        let mut open = self.unkeyed;
        if let Some((ac, masks)) = &self.keywords {
            for m in ac.find_overlapping_iter(s) {
                if !inside_placeholder(s, m.start(), m.end()) {
                    open |= masks[m.pattern().as_usize()];
                }
            }
        }
        open
    }

    fn all(&self) -> u64 {
        if self.rules.len() >= 64 {
            u64::MAX
        } else {
            (1 << self.rules.len()) - 1
        }
    }

    /// The built-in rule ids the file turns off, in catalogue order of the file.
    pub fn disabled(&self) -> &[&'static str] {
        &self.disabled_ids
    }

    /// The file, as it was given.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether the file changes nothing: no rule, allowlist or disabled id.
    fn is_inert(&self) -> bool {
        self.rules.is_empty() && self.disabled == 0 && self.allow.is_empty()
    }
}

impl Redactor {
    /// A redactor over the built-in catalogue and the rules file at `path`, every example and
    /// negative of which was checked through it. The first failure refuses the file.
    pub fn from_rules_file(path: &Path) -> Result<Redactor, RulesFileError> {
        let (redactor, failures) = load(path)?;
        match failures.into_iter().next() {
            Some(failure) => Err(RulesFileError::Invalid {
                path: path.display().to_string(),
                failure,
            }),
            None => Ok(redactor),
        }
    }

    /// The user rules this redactor adds, if any.
    pub fn user_rules(&self) -> Option<&UserRules> {
        self.prefilter.user.as_deref()
    }

    /// The built-in rule ids this redactor's rules file turns off (none without one).
    pub fn disabled_rules(&self) -> &[&'static str] {
        self.user_rules().map_or(&[], UserRules::disabled)
    }

    /// [`Redactor::redact`] with every rule open, the oracle of the gates (see
    /// [`super::redact_ungated`]), user rules included.
    #[doc(hidden)]
    pub fn redact_ungated<'a>(
        &self,
        message: &'a str,
        counts: &mut RedactionCounts,
    ) -> Cow<'a, str> {
        super::redact_with(
            message,
            super::Gate::Ungated(&self.prefilter),
            true,
            counts,
            None,
        )
    }

    fn with_user(rules: UserRules) -> Redactor {
        let mut redactor = Redactor::new();
        if !rules.is_inert() {
            redactor.prefilter.user = Some(Arc::new(rules));
        }
        redactor
    }
}

/// Reads, compiles and checks a rules file: the redactor over what compiled, and every failure.
fn load(path: &Path) -> Result<(Redactor, Vec<Failure>), RulesFileError> {
    let text = read_file(path)?;
    let shown = path.display().to_string();
    let Compiled {
        rules,
        mut failures,
    } = compile(&shown, &text)?;
    let redactor = Redactor::with_user(rules);
    failures.extend(check_examples(&redactor));
    Ok((redactor, failures))
}

/// `aciproj rules check FILE`: every failure of the file, one per line, naming the rule and the
/// example; an error when the file cannot be read or parsed.
pub fn check_rules_file(path: &Path) -> Result<Vec<Failure>, RulesFileError> {
    load(path).map(|(_, failures)| failures)
}

fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.len() <= MAX {
        return format!("{s:?}");
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}…", &s[..end])
}

/// Every example, negative and allowed value of the redactor's rules, through the whole redactor.
fn check_examples(redactor: &Redactor) -> Vec<Failure> {
    let Some(user) = redactor.user_rules() else {
        return Vec::new();
    };
    let mut failures = Vec::new();
    let run = |s: &str| {
        let mut counts = RedactionCounts::default();
        let out = redactor.redact(s, &mut counts).into_owned();
        let mut open = RedactionCounts::default();
        let agrees = redactor.redact_ungated(s, &mut open) == out.as_str() && open == counts;
        let again = redactor
            .redact(&out, &mut RedactionCounts::default())
            .into_owned();
        (out, counts, agrees, again)
    };
    for rule in &user.rules {
        let at = Some(rule.id);
        for (k, e) in rule.examples.iter().enumerate() {
            let what = format!("example {} {}", k + 1, shorten(&e.input));
            let (out, counts, agrees, again) = run(&e.input);
            if out != e.output {
                failures.push(failure(
                    at,
                    format!("{what} gives {}, not {}", shorten(&out), shorten(&e.output)),
                ));
            } else if out != e.input && !counts.by_rule().any(|(id, _)| id == rule.id) {
                failures.push(failure(
                    at,
                    format!("{what}: the rule itself replaces nothing (another rule does)"),
                ));
            } else if !agrees {
                failures.push(failure(
                    at,
                    format!("{what}: the keywords miss a match (gated and ungated differ)"),
                ));
            } else if again != out {
                failures.push(failure(
                    at,
                    format!("{what}: redacting the output again changes it"),
                ));
            }
        }
        for (k, n) in rule.negatives.iter().enumerate() {
            let (out, _, agrees, _) = run(n);
            if out != *n {
                failures.push(failure(
                    at,
                    format!("negative {} {} gives {}", k + 1, shorten(n), shorten(&out)),
                ));
            } else if !agrees {
                failures.push(failure(
                    at,
                    format!(
                        "negative {} {}: gated and ungated differ",
                        k + 1,
                        shorten(n)
                    ),
                ));
            }
        }
        for (k, v) in rule.allow.values.iter().enumerate() {
            let mut counts = RedactionCounts::default();
            if redactor.redact(v, &mut counts) != v.as_str() {
                let by: Vec<_> = counts.by_rule().map(|(id, _)| id).collect();
                failures.push(failure(
                    at,
                    format!("allow[{k}] is redacted by {}", by.join(", ")),
                ));
            }
        }
    }
    for (k, v) in user.allow.values.iter().enumerate() {
        let mut counts = RedactionCounts::default();
        if redactor.redact(v, &mut counts) != v.as_str() {
            let by: Vec<_> = counts.by_rule().map(|(id, _)| id).collect();
            failures.push(failure(
                by.first().copied(),
                format!("allowlist.values[{k}] is redacted (by {})", by.join(", ")),
            ));
        }
    }
    failures
}

/// The rounds of [`super::redact_rounds`] with a rules file's rules: the user rules first in
/// every round, then the built-in ones the file leaves on, whose replacements of allowed values
/// are undone. `ungated`: every user rule open (the oracle).
pub(super) fn redact_rounds<'a>(
    message: &'a str,
    f: &Features,
    ungated: bool,
    user: &UserRules,
    counts: &mut RedactionCounts,
    marks: Option<&mut Vec<Mark>>,
) -> Cow<'a, str> {
    let mut cur = Cow::Borrowed(message);
    let builtin = open_rules(f) & !user.disabled;
    let own = if ungated {
        user.all()
    } else {
        user.triggers(message)
    };
    if builtin == 0 && own == 0 {
        return cur;
    }
    if counts.user_ids.is_none() {
        counts.user_ids = Some(user.ids);
    }
    let n = user.rules.len() + CATALOGUE.len();
    let mut limit = n;
    let mut marking = marks.map(Marking::new);
    // The allowlist hears the built-in passes' edits; correlation's tracer serves when it runs.
    let tracer = (marking.is_none() && !user.allow.is_empty()).then(text::Tracer::start);
    stack::with_open_forms(stack_forms(builtin), || {
        for _ in 0..MAX_ROUNDS {
            let open = Open {
                user: own,
                builtin,
                limit,
            };
            let Some(last) = round(
                &mut cur,
                user,
                open,
                counts,
                marking.as_mut(),
                tracer.as_ref(),
            ) else {
                break;
            };
            limit = if limit == n { last + 1 } else { n };
        }
    });
    cur
}

/// The rules a round may run: user rules (bit `j`), built-in ones (bit `i`), and the joint
/// index (user rules first) it stops before.
#[derive(Clone, Copy)]
struct Open {
    user: u64,
    builtin: u128,
    limit: usize,
}

/// One round: the open user rules, then the open built-in ones, before `limit` in that joint
/// order; the joint index of the last rule that changed the text.
fn round(
    cur: &mut Cow<'_, str>,
    user: &UserRules,
    open: Open,
    counts: &mut RedactionCounts,
    mut marking: Option<&mut Marking<'_>>,
    tracer: Option<&text::Tracer>,
) -> Option<usize> {
    let Open {
        user: own,
        builtin,
        limit,
    } = open;
    let u = user.rules.len();
    let mut last = None;
    let mut traced = Vec::new();
    for (j, rule) in user.rules.iter().enumerate().take(limit.min(u)) {
        if own & 1 << j == 0 {
            continue;
        }
        let mut hits = 0;
        if let Some(m) = marking.as_deref_mut() {
            m.tracer.clear();
        }
        if let Some(next) = rule.pass(cur, &user.allow, &mut hits) {
            if let Some(m) = marking.as_deref_mut() {
                m.tracer.take(&mut m.traced);
                super::correlate::follow(cur, &next, &m.traced, m.marks);
            }
            *cur = Cow::Owned(next);
            counts.add_rule(super::RULE_SLOTS_BUILTIN + j, rule.class, hits);
            last = Some(j);
        }
    }
    let mut todo = builtin;
    while todo != 0 {
        let i = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        if u + i >= limit {
            break;
        }
        let rule = CATALOGUE[i];
        let mut hits = 0;
        if let Some(m) = marking.as_deref_mut() {
            m.tracer.clear();
        } else if let Some(t) = tracer {
            t.clear();
        }
        let Some(mut next) = (rule.pass)(cur, &mut hits) else {
            continue;
        };
        let edits = match marking.as_deref_mut() {
            Some(m) => {
                m.tracer.take(&mut m.traced);
                &mut m.traced
            }
            None => {
                if let Some(t) = tracer {
                    t.take(&mut traced);
                }
                &mut traced
            }
        };
        if !user.allow.is_empty() {
            match unallowed(cur, &next, edits, &user.allow) {
                Undo::Nothing => {}
                Undo::All => continue,
                Undo::Some(kept, undone) => {
                    next = kept;
                    hits = hits.saturating_sub(undone).max(1);
                }
            }
        }
        if let Some(m) = marking.as_deref_mut() {
            super::correlate::follow(cur, &next, &m.traced, m.marks);
        }
        *cur = Cow::Owned(next);
        counts.add_rule(i, rule.class, hits);
        last = Some(u + i);
    }
    last
}

/// What undoing a pass's replacements of allowed values leaves.
enum Undo {
    /// No replacement took an allowed value (or the pass cannot be told apart into edits).
    Nothing,
    /// Every replacement did: the pass changes nothing.
    All,
    /// Some did: the text with those undone, and how many.
    Some(String, u32),
}

/// Undoes the replacements in `edits` (of the pass that made `next` from `cur`) that took an
/// allowed value; `edits` is left holding the ones kept.
fn unallowed(cur: &str, next: &str, edits: &mut Vec<text::Traced>, allow: &Allowlist) -> Undo {
    let src = (cur.as_ptr() as usize, cur.len());
    edits.retain(|e| e.src == src);
    if !edits
        .iter()
        .any(|e| e.end <= cur.len() && allow.blocks(cur, e.start, e.end))
    {
        return Undo::Nothing;
    }
    // Walk the edits over both texts; a pass they do not explain is left as it is.
    let (c, nb) = (cur.as_bytes(), next.as_bytes());
    let mut out = Vec::with_capacity(nb.len());
    let (mut last, mut pos, mut undone) = (0, 0, 0u32);
    let mut kept = Vec::new();
    for e in edits.iter() {
        if e.start < last || e.end < e.start || e.end > c.len() {
            return Undo::Nothing;
        }
        let same = &c[last..e.start];
        if nb.get(pos..pos + same.len()) != Some(same) {
            return Undo::Nothing;
        }
        out.extend_from_slice(same);
        pos += same.len();
        let Some(with) = nb.get(pos..pos + e.with_len) else {
            return Undo::Nothing;
        };
        pos += e.with_len;
        if cur.is_char_boundary(e.start)
            && cur.is_char_boundary(e.end)
            && allow.blocks(cur, e.start, e.end)
        {
            out.extend_from_slice(&c[e.start..e.end]);
            undone += 1;
        } else {
            out.extend_from_slice(with);
            kept.push(*e);
        }
        last = e.end;
    }
    if nb.get(pos..) != Some(&c[last..]) {
        return Undo::Nothing;
    }
    out.extend_from_slice(&c[last..]);
    *edits = kept;
    if edits.is_empty() {
        return Undo::All;
    }
    match String::from_utf8(out) {
        Ok(s) => Undo::Some(s, undone),
        Err(_) => Undo::Nothing,
    }
}

/// Describes the user rules as `aciproj rules` prints the built-in ones (the JSON objects and
/// table rows of [`super::describe_catalogue`]), after the built-ins, marking those turned off.
pub fn describe_user_rules(redactor: &Redactor, json: bool) -> String {
    let Some(user) = redactor.user_rules() else {
        return String::new();
    };
    let mut out = String::new();
    for rule in &user.rules {
        let keywords: Vec<&str> = rule.keywords.iter().map(String::as_str).collect();
        let examples: Vec<_> = (rule.examples.iter())
            .map(|e| (e.input.as_str(), e.output.as_str()))
            .collect();
        let negatives: Vec<&str> = rule.negatives.iter().map(String::as_str).collect();
        super::describe_rule(
            &mut out,
            json,
            &super::RuleRow {
                id: rule.id,
                class: rule.class,
                placeholder: rule.placeholder,
                description: &rule.description,
                keywords: &keywords,
                examples: &examples,
                negatives: &negatives,
                source: Some(&user.path),
            },
        );
    }
    out
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("user_rules", &self.user_rules().map(UserRules::path))
            .finish()
    }
}

/// The redaction catalogue as [`super::describe_catalogue`] prints it, the built-in rules the
/// redactor's rules file turns off marked (`"disabled": true`, or `(disabled)` in the table),
/// then its user rules ([`describe_user_rules`]).
pub fn describe_catalogue_with(redactor: &Redactor, json: bool) -> String {
    let builtin = super::describe_catalogue(json);
    let disabled = redactor.disabled_rules();
    if disabled.is_empty() {
        return builtin + &describe_user_rules(redactor, json);
    }
    let mut out = String::with_capacity(builtin.len());
    for line in builtin.lines() {
        let off = |id: &str| {
            line.strip_prefix(id)
                .is_some_and(|rest| rest.starts_with(' '))
        };
        if json {
            match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line) {
                Ok(mut doc)
                    if doc
                        .get("id")
                        .and_then(serde_json::Value::as_str)
                        .is_some_and(|id| disabled.contains(&id)) =>
                {
                    doc.insert("disabled".into(), true.into());
                    out.push_str(&serde_json::Value::Object(doc).to_string());
                }
                _ => out.push_str(line),
            }
        } else if disabled.iter().any(|id| off(id)) {
            out.push_str(line);
            out.push_str("  (disabled)");
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out + &describe_user_rules(redactor, json)
}
