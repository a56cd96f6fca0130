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
//! * **A catalogue of rules** ([`catalogue`]), one per format family, each declaring in one place
//!   its id, class, placeholder, description, prefilter keywords, pass, examples and negatives
//!   ([`Rule`]); `aciproj rules` prints it. One generic test runs every rule's examples and
//!   negatives through the whole redactor, checks idempotence, gated against ungated, and that
//!   every rule's output reaches a fixed point within the round limit.
//! * **Speed.** A million log lines must cost within a small factor of parsing their JSON, so
//!   every regex is compiled once, and one byte scan plus one Aho-Corasick pass over the
//!   catalogue's keywords decide which rules can possibly apply; a typical line runs two or three
//!   cheap regexes or none, and a line without a hit is returned borrowed, without allocation.
//! * **Rules run in a fixed order** (PEM, stack, key/value secrets, SQL, tokens, URL credentials,
//!   e-mail, hosts, IPs, pods, PIDs); each rule treats the placeholders of earlier ones as inert,
//!   and a rule goes after the rules whose replacements could change what it matches (a secret
//!   value can hold the quote SQL pairs; a token can end in the `/` that ends URL userinfo), which
//!   keeps most lines to one pass. Where a later rule's placeholder still changes what an earlier
//!   one sees (a pod cut out of a run leaves a shorter run; a URL password held the backtick SQL
//!   paired), the rules run again, in bounded rounds, until a round changes nothing: that, not
//!   the order, is what makes `redact(redact(x)) == redact(x)`.
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
//! * Correlation labels (`<IP#1>`) are never written by a rule, so no rule ever meets one: a
//!   marked redaction ([`Redactor::redact_marked`]) records which value each placeholder
//!   replaced, and a [`Correlator`] writes the labels afterwards, in input order.

pub(crate) mod correlate;
mod escaped;
mod keytable;
mod lines;
mod prefilter;
mod rule;
mod rules;
#[cfg(test)]
mod tests;
mod text;
mod user;

use std::borrow::Cow;
use std::sync::LazyLock;

pub use correlate::{Correlator, MAX_DISTINCT, Mark, labelled_class};
pub use lines::LineContext;
pub use prefilter::Features;
pub use rule::{Example, Rule};
pub use user::{
    Failure, MAX_USER_RULES, RulesFileError, UserRules, check_rules_file, describe_catalogue_with,
    describe_user_rules,
};

use prefilter::Prefilter;
use rules::{credentials, kubernetes, network, process, sql, stack, tables, tokens};

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

/// Rules the catalogue may hold: one counter slot each in [`RedactionCounts`].
const RULE_SLOTS_BUILTIN: usize = 128;

/// Counter slots: the catalogue's, then a rules file's ([`user`]).
const RULE_SLOTS: usize = RULE_SLOTS_BUILTIN + MAX_USER_RULES;

/// Replacement counts per [`RedactionClass`] and per catalogue rule; fixed arrays, so iteration
/// order is stable and a merge allocates nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedactionCounts {
    by_class: [u32; 9],
    by_rule: [u32; RULE_SLOTS],
    /// The ids of the user rules counted after the catalogue's slots, when a rules file's were.
    user_ids: Option<&'static [&'static str]>,
}

impl Default for RedactionCounts {
    fn default() -> Self {
        RedactionCounts {
            by_class: [0; 9],
            by_rule: [0; RULE_SLOTS],
            user_ids: None,
        }
    }
}

impl RedactionCounts {
    /// Adds `n` replacements of `class`, saturating at `u32::MAX`.
    pub fn add(&mut self, class: RedactionClass, n: u32) {
        let slot = &mut self.by_class[class.index()];
        *slot = slot.saturating_add(n);
    }

    /// Takes `other`'s counts off these (each counter saturating at zero).
    pub fn subtract(&mut self, other: &RedactionCounts) {
        for (slot, n) in self.by_class.iter_mut().zip(other.by_class) {
            *slot = slot.saturating_sub(n);
        }
        for (slot, n) in self.by_rule.iter_mut().zip(other.by_rule) {
            *slot = slot.saturating_sub(n);
        }
    }

    /// The number of replacements of `class`.
    pub fn get(&self, class: RedactionClass) -> u32 {
        self.by_class[class.index()]
    }

    /// Adds `n` replacements made by the catalogue rule at `index` (and so of its class).
    fn add_rule(&mut self, index: usize, class: RedactionClass, n: u32) {
        self.add(class, n);
        if let Some(slot) = self.by_rule.get_mut(index) {
            *slot = slot.saturating_add(n);
        }
    }

    /// Adds every counter of `other` to this one (saturating).
    pub fn merge(&mut self, other: &RedactionCounts) {
        for class in RedactionClass::ALL {
            self.add(class, other.get(class));
        }
        for (slot, n) in self.by_rule.iter_mut().zip(other.by_rule) {
            *slot = slot.saturating_add(n);
        }
        self.user_ids = self.user_ids.or(other.user_ids);
    }

    /// Every catalogue rule that replaced something, with its count, in catalogue order; then
    /// every user rule that did, in the order of its file.
    pub fn by_rule(&self) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        let user = self.user_ids.unwrap_or_default();
        (catalogue().iter().map(|rule| rule.id))
            .zip(self.by_rule)
            .chain(
                user.iter()
                    .copied()
                    .zip(self.by_rule[RULE_SLOTS_BUILTIN..].iter().copied()),
            )
            .filter(|(_, n)| *n > 0)
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

/// Every rule, in the order a round runs them. The order is part of each rule's contract: a
/// rule goes after the rules whose replacements could change what it matches.
static CATALOGUE: [&Rule; 87] = [
    // Multi-line blocks first, before any line-oriented rule sees their body.
    &tokens::PEM_BLOCK,
    &stack::NODE,
    &stack::RUST,
    &stack::DOTNET,
    &stack::JVM,
    &stack::PYTHON,
    &stack::GO,
    &stack::PHP,
    &stack::RUBY,
    &stack::FRAME,
    &stack::LOCATION,
    // Tables before any rule that changes a row's length and moves its cells off their columns.
    &tables::POD_TABLE,
    &tables::HOST_TABLE,
    // Secret values go before SQL: a value may hold a quote, a backtick, a backslash or a SQL
    // verb that the SQL scanner pairs or starts a statement at.
    &credentials::XML,
    &credentials::K8S_SECRET,
    &credentials::ASSIGNMENT,
    &credentials::SPACED,
    &credentials::CALL_ARGUMENTS,
    &credentials::CLI_FLAG,
    &credentials::CLI_SINGLE_DASH,
    &credentials::CLI_PASSWORD,
    &credentials::STDIN,
    &credentials::USER_PASSWORD_FLAGS,
    &credentials::ORACLE_CONNECT,
    &credentials::AUTH_HEADER,
    &credentials::PROTOCOL,
    &credentials::GO_DSN,
    &credentials::CONFIG_SPACED,
    &sql::USER_DDL,
    // Driver and server messages before statements: a bound value can hold the backtick or
    // quote a statement's scanner would pair.
    &sql::DRIVER_MESSAGE,
    &sql::BOUND_VALUES,
    &sql::STATEMENT,
    // Tokens whose shape spans the delimiters of later rules: hashes hold `@` and `.`, webhook
    // keys sit in a URL path the long-run rule would take with its host.
    &tokens::PASSWORD_HASH,
    &tokens::WEBHOOK_URL,
    &tokens::SIDEKIQ_CREDENTIAL,
    &tokens::AWS_ACCOUNT_IN_ARN,
    &tokens::AWS_ACCESS_KEY,
    &tokens::ALIBABA_ACCESS_KEY,
    &tokens::GITHUB_TOKEN,
    &tokens::GITLAB_TOKEN,
    &tokens::SLACK_TOKEN,
    &tokens::STRIPE_KEY,
    &tokens::GOOGLE_API_KEY,
    &tokens::ANTHROPIC_KEY,
    &tokens::OPENAI_KEY,
    &tokens::HUGGINGFACE_TOKEN,
    &tokens::PACKAGE_REGISTRY_TOKEN,
    &tokens::SAAS_TOKEN,
    &tokens::MORE_VENDOR_TOKEN,
    &tokens::TELEGRAM_BOT_TOKEN,
    &tokens::FACEBOOK_APP_TOKEN,
    &tokens::AZURE_CLIENT_SECRET,
    &tokens::JWT,
    &tokens::LONG_RUN,
    &tokens::RANDOM_RUN,
    &tokens::PASSWORD_SHAPE,
    // URL userinfo is anything up to `@` without a `/`, quote or space: it goes after every rule
    // that can remove one of those (a secret value, a SQL string, a token ending in `/`), and
    // before the e-mail rule, which would take `pw@host`.
    // Bucket names before the host rules take the storage host in front of them.
    &network::BUCKET,
    &credentials::URL_USERINFO,
    &credentials::DSN_CUT,
    &network::EMAIL_ADDRESS,
    &network::SYSLOG_HOST,
    &network::FQDN,
    &network::COUNTRY,
    &network::HOST_KEY,
    &network::CLOUD_NODE,
    // What the host rules above did not know by its suffix, known by where it stands.
    &network::HOST_PLACE,
    &network::IPV6,
    &network::IPV4,
    &kubernetes::CONTAINER_ID,
    &kubernetes::CONTAINER_ROW,
    &kubernetes::POD_AFTER_KEYWORD,
    &kubernetes::POD_NAME,
    &kubernetes::WORKLOAD,
    &kubernetes::POD_ROW,
    // A fleet's numbered names, after the pod rules took StatefulSet pods (`kafka-02`).
    &network::FLEET_HOST,
    &process::PID_FORMS,
    &process::PID_BRACKET,
    &process::PID_NGINX,
    &process::PID_LOGCAT,
    &process::PID_HEADER,
    &process::PID_RUNTIME,
    &process::PID_HOST,
    &process::PID_PAIRED,
    &process::PID_PROCESS_ROW,
    &process::PID_TOOL_ARGS,
    &process::PID_KEY,
    &tables::PID_TABLE,
];

/// The redaction catalogue, in the order the rules run.
pub fn catalogue() -> &'static [&'static Rule] {
    &CATALOGUE
}

/// Each catalogue rule's keywords, in catalogue order: what the keyword tables are built from.
#[cfg(test)]
pub(crate) fn catalogue_keywords() -> Vec<&'static [&'static str]> {
    catalogue().iter().map(|rule| rule.keywords).collect()
}

/// The catalogue as `aciproj rules` prints it: one JSON object per rule and line (`id`, `action`, `class`,
/// `placeholder`, `description`, `keywords`, `examples` [{`input`, `output`}], `negatives`), or a
/// table of id, class, placeholder and description with each rule's first example under it.
pub fn describe_catalogue(json: bool) -> String {
    let mut out = String::new();
    for rule in catalogue() {
        let examples: Vec<_> = rule.examples.iter().map(|e| (e.input, e.output)).collect();
        describe_rule(
            &mut out,
            json,
            &RuleRow {
                id: rule.id,
                class: rule.class,
                placeholder: rule.placeholder,
                description: rule.description,
                keywords: rule.keywords,
                examples: &examples,
                negatives: rule.negatives,
                source: None,
            },
        );
    }
    out
}

/// One rule as `aciproj rules` lists it, built-in or a user's.
pub(crate) struct RuleRow<'a> {
    pub(crate) id: &'a str,
    pub(crate) class: RedactionClass,
    pub(crate) placeholder: &'a str,
    pub(crate) description: &'a str,
    pub(crate) keywords: &'a [&'a str],
    /// (input, output) pairs.
    pub(crate) examples: &'a [(&'a str, &'a str)],
    pub(crate) negatives: &'a [&'a str],
    /// The rules file a user rule comes from.
    pub(crate) source: Option<&'a str>,
}

/// Appends `row` to `out`: one JSON object and line, or a table row with its first example
/// under it.
pub(crate) fn describe_rule(out: &mut String, json: bool, row: &RuleRow<'_>) {
    if json {
        let examples: Vec<_> = (row.examples.iter())
            .map(|(input, output)| serde_json::json!({"input": input, "output": output}))
            .collect();
        let mut doc = serde_json::json!({
            "id": row.id,
            "action": "redact",
            "class": row.class.name(),
            "placeholder": row.placeholder,
            "description": row.description,
            "keywords": row.keywords,
            "examples": examples,
            "negatives": row.negatives,
        });
        if let Some(source) = row.source {
            doc["source"] = serde_json::json!(source);
        }
        out.push_str(&doc.to_string());
    } else {
        out.push_str(&format!(
            "{:<28} {:<12} {:<12} {}\n",
            row.id,
            row.class.name(),
            row.placeholder,
            row.description
        ));
        if let Some((input, output)) = row.examples.first() {
            out.push_str(&format!("{:<28} e.g. {:?} -> {:?}", "", input, output));
        }
    }
    out.push('\n');
}

/// The compiled redactor: the prefilter over the catalogue's keywords and the rules' patterns.
///
/// The rules' patterns are compiled once per process, on first use (they are immutable and the
/// same for every redactor); the keyword automaton is the redactor's own. A redactor is `Sync`:
/// one can serve every thread of a call.
pub struct Redactor {
    prefilter: Prefilter,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

static SHARED: LazyLock<Redactor> = LazyLock::new(Redactor::new);

impl Redactor {
    /// A redactor over the whole catalogue.
    pub fn new() -> Redactor {
        Redactor {
            prefilter: Prefilter::new(
                &catalogue()
                    .iter()
                    .map(|r| (r.keywords, r.class))
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// The process's redactor, built on first use; what [`redact`] uses.
    pub fn shared() -> &'static Redactor {
        &SHARED
    }

    /// Redacts one message; counts each replacement by class and rule. Returns Borrowed when
    /// nothing matched.
    ///
    /// Never panics, whatever the input; the output contains no raw value any rule recognised,
    /// and `redact(redact(x)) == redact(x)`.
    ///
    /// The rules run in rounds until a round changes nothing. One rule's placeholder can change
    /// what an earlier rule sees (a pod name cut out of a value leaves a shorter value a secret
    /// key now owns; a SQL literal replaced hides the verb that started a statement), so a round
    /// that changed something is followed by one that runs the rules up to its last change
    /// again: the rules after it already saw the final text. If that round changes something
    /// too, the next one runs every rule. A line without a hit costs one round, a redacted line
    /// usually two, the second shorter. One scan of the message gates every round.
    pub fn redact<'a>(&self, message: &'a str, counts: &mut RedactionCounts) -> Cow<'a, str> {
        if message.is_empty() {
            return Cow::Borrowed(message);
        }
        redact_with(message, Gate::Scan(&self.prefilter), true, counts, None)
    }

    /// [`Redactor::redact`], also keeping `marks`: where each placeholder sits in the output and
    /// which value it replaced, for a [`Correlator`] to label those of a labelled class (see
    /// [`labelled_class`]). `marks` holds the marks already on `message` (sorted, usually none) and is
    /// updated to the output. The text and counts are exactly what `redact` gives.
    pub fn redact_marked<'a>(
        &self,
        message: &'a str,
        marks: &mut Vec<Mark>,
        counts: &mut RedactionCounts,
    ) -> Cow<'a, str> {
        if message.is_empty() {
            return Cow::Borrowed(message);
        }
        redact_with(
            message,
            Gate::Scan(&self.prefilter),
            true,
            counts,
            Some(marks),
        )
    }
}

/// Redacts one message with the [shared](Redactor::shared) redactor.
pub fn redact<'a>(message: &'a str, counts: &mut RedactionCounts) -> Cow<'a, str> {
    Redactor::shared().redact(message, counts)
}

/// [`redact`] with every rule run on every message, whatever its features: the gates exist only
/// to skip work, so this must give the same text and counts. The oracle the tests and the
/// `redact` fuzz target hold the gates to.
#[doc(hidden)]
pub fn redact_ungated<'a>(message: &'a str, counts: &mut RedactionCounts) -> Cow<'a, str> {
    redact_with(message, Gate::Open, true, counts, None)
}

/// Rounds a redaction runs at most. Every change puts a placeholder where raw text was, and no
/// rule takes a placeholder, so the rounds end on their own; the catalogue test proves every
/// rule's examples reach a fixed point well within this bound.
const MAX_ROUNDS: usize = 8;

/// How a redaction learns which rules a text opens: the prefilter's scan, or every rule.
#[derive(Clone, Copy)]
enum Gate<'p> {
    Scan(&'p Prefilter),
    Open,
    /// Every rule open, a rules file's too: [`Redactor::redact_ungated`].
    Ungated(&'p Prefilter),
}

impl<'p> Gate<'p> {
    fn features(self, s: &str) -> Features {
        match self {
            Gate::Scan(prefilter) => prefilter.scan(s),
            Gate::Open | Gate::Ungated(_) => Features::OPEN,
        }
    }

    /// The rules file's rules, when the redactor has one.
    fn user(self) -> Option<&'p UserRules> {
        match self {
            Gate::Scan(p) | Gate::Ungated(p) => p.user.as_deref(),
            Gate::Open => None,
        }
    }
}

/// Levels of escaping the escaped view reads through (a payload encoded twice).
const ESCAPE_LEVELS: usize = 2;

/// Times the escaped view can make a message change before it is returned as it stands: the
/// rules read the changed text again (escaped, then decoded) until a reading changes nothing,
/// which is what keeps `redact(redact(x)) == redact(x)` for escaped text.
const ESCAPED_READINGS: usize = 3;

/// Redacts `message` as it stands, then, when it holds escapes, [decoded](escaped) as well;
/// `by_line`, each of its lines after what the lines before it leave open ([`lines`]) too.
fn redact_with<'a>(
    message: &'a str,
    gate: Gate<'_>,
    by_line: bool,
    counts: &mut RedactionCounts,
    mut marks: Option<&mut Vec<Mark>>,
) -> Cow<'a, str> {
    let mut cur = Cow::Borrowed(message);
    // A reading whose decoded part and lines changed nothing left a text every reading leaves
    // alone.
    for _ in 0..ESCAPED_READINGS {
        let (next, changed) = redact_levels(
            &cur,
            gate,
            by_line,
            counts,
            marks.as_deref_mut(),
            ESCAPE_LEVELS,
        );
        if let Cow::Owned(next) = next {
            cur = Cow::Owned(next);
        }
        if !changed {
            break;
        }
    }
    cur
}

/// One reading: the rules over `message`, then (`by_line`) over each line after the lines
/// before it, then over its decoded text, `levels` deep; and whether the lines or the decoded
/// text changed anything.
fn redact_levels<'a>(
    message: &'a str,
    gate: Gate<'_>,
    by_line: bool,
    counts: &mut RedactionCounts,
    mut marks: Option<&mut Vec<Mark>>,
    levels: usize,
) -> (Cow<'a, str>, bool) {
    let cur = match gate.user() {
        Some(user) => user::redact_rounds(
            message,
            &gate.features(message),
            matches!(gate, Gate::Ungated(_)),
            user,
            counts,
            marks.as_deref_mut(),
        ),
        None => redact_rounds(
            message,
            &gate.features(message),
            counts,
            marks.as_deref_mut(),
        ),
    };
    let (cur, lines_changed) = if by_line && memchr::memchr(b'\n', cur.as_bytes()).is_some() {
        lines::read_lines(cur, gate, counts, marks.as_deref_mut())
    } else {
        (cur, false)
    };
    if levels == 0 {
        return (cur, lines_changed);
    }
    let mut replacements = Vec::new();
    // The decoded stretches' redactions: `replacements` borrows their text.
    let mut redacted = Vec::new();
    for stretch in escaped::stretches(&cur) {
        let Some(decoded) = escaped::decode(&cur[stretch.clone()]) else {
            continue;
        };
        let mut inner_marks = Vec::new();
        let (text, _) = redact_levels(
            &decoded.text,
            gate,
            by_line,
            counts,
            Some(&mut inner_marks),
            levels - 1,
        );
        if *text != decoded.text {
            let text = text.into_owned();
            redacted.push((stretch.start, decoded, text, inner_marks));
        }
    }
    for (offset, decoded, text, inner_marks) in &redacted {
        replacements.extend(
            escaped::replacements(&decoded.text, text, inner_marks)
                .into_iter()
                .map(|r| r.onto_source(decoded, *offset)),
        );
    }
    if replacements.is_empty() {
        return (cur, lines_changed);
    }
    let out = escaped::carry_back(&cur, &replacements, marks);
    (Cow::Owned(out), true)
}

/// The rules' rounds over `message` as it stands.
fn redact_rounds<'a>(
    message: &'a str,
    f: &Features,
    counts: &mut RedactionCounts,
    marks: Option<&mut Vec<Mark>>,
) -> Cow<'a, str> {
    let mut cur = Cow::Borrowed(message);
    let open = open_rules(f);
    if open == 0 {
        return cur;
    }
    let mut limit = CATALOGUE.len();
    let mut marking = marks.map(Marking::new);
    stack::with_open_forms(stack_forms(open), || {
        for _ in 0..MAX_ROUNDS {
            let Some(last) = round(&mut cur, open, limit, counts, marking.as_mut()) else {
                break;
            };
            // After a full round, the rules up to its last change; after a shorter one, all.
            limit = if limit == CATALOGUE.len() {
                last + 1
            } else {
                CATALOGUE.len()
            };
        }
    });
    cur
}

/// The stack rules among `open` rules, as the stack search's set of forms (bit `k` for
/// `stack::RULES[k]`).
fn stack_forms(open: u128) -> u16 {
    /// Each stack rule's bit in the catalogue, in `stack::RULES` order.
    static BITS: LazyLock<[u128; 9]> = LazyLock::new(|| {
        stack::RULES.map(|rule| {
            let at = CATALOGUE.iter().position(|r| std::ptr::eq(*r, rule));
            1 << at.expect("every stack rule is in the catalogue")
        })
    });
    (BITS.iter().enumerate())
        .filter(|&(_, bit)| open & bit != 0)
        .fold(0, |forms, (k, _)| forms | 1 << k)
}

/// The rules the features open (bit `i` for catalogue rule `i`): those holding a keyword of theirs
/// (or having none) whose gate is open. The features serve every round, so this is asked once.
fn open_rules(f: &Features) -> u128 {
    const _: () = assert!(CATALOGUE.len() <= 128, "one bit per rule in a u128");
    /// The rules without keywords: their gates alone decide.
    static UNKEYED: LazyLock<u128> = LazyLock::new(|| {
        CATALOGUE
            .iter()
            .enumerate()
            .filter(|(_, rule)| rule.keywords.is_empty())
            .fold(0, |set, (i, _)| set | 1 << i)
    });
    // Every rule has a bit of the triggers (asserted above); the open features' triggers have
    // every bit set, rules or not.
    const RULES: u128 = u128::MAX >> (128 - CATALOGUE.len());
    let mut candidates = (f.triggers | *UNKEYED) & RULES;
    let mut open = 0;
    while candidates != 0 {
        let i = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        if (CATALOGUE[i].gate)(f) {
            open |= 1 << i;
        }
    }
    open
}

/// Runs every open rule before `limit`, in catalogue order; the index of the last rule that
/// changed the text, or `None` when none did.
fn round(
    cur: &mut Cow<'_, str>,
    open: u128,
    limit: usize,
    counts: &mut RedactionCounts,
    mut marking: Option<&mut Marking<'_>>,
) -> Option<usize> {
    let mut last = None;
    let mut todo = if limit >= 128 {
        open
    } else {
        open & ((1 << limit) - 1)
    };
    while todo != 0 {
        let i = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        let rule = CATALOGUE[i];
        let mut hits = 0;
        if let Some(m) = marking.as_deref_mut() {
            m.tracer.clear();
        }
        if let Some(next) = (rule.pass)(cur, &mut hits) {
            if let Some(m) = marking.as_deref_mut() {
                m.tracer.take(&mut m.traced);
                correlate::follow(cur, &next, &m.traced, m.marks);
            }
            *cur = Cow::Owned(next);
            counts.add_rule(i, rule.class, hits);
            last = Some(i);
        }
    }
    last
}

/// The marks of a redaction in progress, and the tracer that hears its rules' edits.
struct Marking<'m> {
    marks: &'m mut Vec<Mark>,
    tracer: text::Tracer,
    traced: Vec<text::Traced>,
}

impl<'m> Marking<'m> {
    fn new(marks: &'m mut Vec<Mark>) -> Self {
        Marking {
            marks,
            tracer: text::Tracer::start(),
            traced: Vec::new(),
        }
    }
}

/// Compiles every rule now, in the order [`redact`] runs them.
///
/// Building the rules costs more than redacting a hundred lines. A caller that is about to
/// redact on one thread can run this on another (`std::thread::spawn(warm_up)`): a rule being
/// built by one is waited for, not built twice.
///
/// Most rules come built ahead of time (see `matcher`) and making them costs microseconds, so
/// the order is for the few that still compile: the calling thread meets them in catalogue
/// order, after it has spent its first milliseconds on the response and the keyword scan, and
/// the stack-trace starts that nearly every call searches come first. Those that have groups
/// still compile the regex that reads them, which is left for last.
pub fn warm_up() {
    for rule in CATALOGUE.iter() {
        for m in rule.matchers {
            LazyLock::force(m);
        }
    }
    LazyLock::force(&SHARED);
    for rule in CATALOGUE.iter() {
        for m in rule.matchers {
            m.warm_up();
        }
    }
}

/// Starts [`warm_up`] on a thread of its own, once per process; later calls do nothing.
///
/// A command that will redact calls this as early as it knows so (the CLI does, right after
/// parsing its arguments), so the rules compile on the second core while this one reads the
/// run context and the response.
pub fn warm_up_in_background() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        crate::cores::spawn_beside(warm_up);
    });
}
