//! The run context: parsed and validated once into typed configuration.
//!
//! A context is the harness's description of the run a call belongs to: who owns it, what it may
//! call, its clock, its budget and its bounds. It is strict on purpose: an unknown field, an
//! unknown limit name or a bound that cannot hold even an empty result is an error (exit 5) that
//! names the field, because a typo that silently disabled a check would be worse than a failed
//! call. Values are never echoed back. After [`RunContext::load`] nothing downstream re-reads raw
//! JSON: every later stage works from these types.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone};
use serde::Deserialize;

use crate::contracts::{LedgerRecord, LogsToolResult, RagToolResult, Tool};
use crate::error::{ErrorCode, ToolError};

// The policy is reported in every control view that flags something, so it is a contract and
// lives there; this keeps the path `context::UntrustedPolicy` public as it was.
pub use crate::contracts::UntrustedPolicy;

/// The largest context file read (a context is small; a huge one is a mistake).
const MAX_CONTEXT_BYTES: u64 = 16 * 1024 * 1024;

/// Call and run ids are at most this many bytes.
pub const MAX_ID_BYTES: usize = 128;

/// The run's lifecycle state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RunStatus {
    /// The run accepts calls.
    Active,
    /// The run finished.
    Completed,
    /// The run failed.
    Failed,
    /// The run was cancelled.
    Cancelled,
}

/// Whether the run may call tools with side effects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RunMode {
    /// Only tools declared read-only may run.
    ReadOnly,
    /// Any authorized tool may run.
    ReadWrite,
}

/// What to do when a call repeats an earlier call's normalized scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DuplicateScope {
    /// Admit the call and report `duplicate_of` in the control view.
    #[default]
    Flag,
    /// Reject the call with `DUPLICATE_SCOPE`.
    Reject,
}

/// Per-tool policy declared by the harness.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolPolicy {
    /// Whether the tool only reads. Built-in tools are read-only unless declared otherwise.
    pub read_only: Option<bool>,
}

/// How the log projection redacts (SPEC §2, §5 "Correlation labels", "User rules").
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedactionPolicy {
    /// Label identity and credential placeholders in the `logs` timeline with an ordinal per
    /// distinct value within the call (`<IP#1>`, `<POD#2>`), numbered by first appearance in
    /// input order; patterns keep the plain placeholders. Default false: plain placeholders.
    #[serde(default)]
    pub correlate: bool,
    /// A TOML rules file (relative to the context file) adding user rules, an allowlist and
    /// built-in rules turned off (`aciproj rules check FILE`).
    #[serde(default)]
    pub rules_file: Option<String>,
    /// The redactor with that file's rules, once loaded.
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) redactor: Option<std::sync::Arc<crate::redact::Redactor>>,
}

impl RedactionPolicy {
    /// The redactor the run's calls use: the shared one, or one with the rules file's rules.
    pub fn redactor(&self) -> &crate::redact::Redactor {
        match self.redactor.as_deref() {
            Some(r) => r,
            None => crate::redact::Redactor::shared(),
        }
    }

    /// The built-in rule ids the rules file turns off.
    pub fn disabled_rules(&self) -> &[&'static str] {
        self.redactor
            .as_deref()
            .map_or(&[], crate::redact::Redactor::disabled_rules)
    }
}

/// The run's budget: calls and bytes of model observations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Admitted tool calls allowed in the run (default 20).
    #[serde(default = "default_max_tool_calls")]
    pub max_tool_calls: u64,
    /// Bytes of model observations the run may return in all (default 65536).
    #[serde(default = "default_max_observation_bytes")]
    pub max_observation_bytes: u64,
}

fn default_max_tool_calls() -> u64 {
    20
}

fn default_max_observation_bytes() -> u64 {
    65536
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            max_tool_calls: default_max_tool_calls(),
            max_observation_bytes: default_max_observation_bytes(),
        }
    }
}

/// How long a live legacy command may run by default: 30 s.
pub const DEFAULT_LEGACY_TIMEOUT_MS: u64 = 30_000;

/// The bounds of the RAG projection, in UTF-8 bytes or items (SPEC §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RagLimits {
    /// The request's query.
    pub max_query_bytes: usize,
    /// The legacy response.
    pub max_response_bytes: u64,
    /// How long a live legacy command may run before its process group is killed (ms).
    pub legacy_timeout_ms: u64,
    /// Evidence items.
    pub max_evidence: usize,
    /// One excerpt.
    pub max_excerpt_bytes: usize,
    /// Document id, source, title, breadcrumb.
    pub max_field_bytes: usize,
    /// The compact serialized canonical result.
    pub max_total_bytes: usize,
}

impl Default for RagLimits {
    fn default() -> Self {
        Self {
            max_query_bytes: 2048,
            max_response_bytes: 256 * 1024 * 1024,
            legacy_timeout_ms: DEFAULT_LEGACY_TIMEOUT_MS,
            max_evidence: 5,
            max_excerpt_bytes: 1000,
            max_field_bytes: 256,
            max_total_bytes: 8192,
        }
    }
}

/// The bounds of the log projection, in UTF-8 bytes or items (SPEC §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LogsLimits {
    /// The request's query.
    pub max_query_bytes: usize,
    /// The request's topic.
    pub max_topic_bytes: usize,
    /// The legacy response.
    pub max_response_bytes: u64,
    /// How long a live legacy command may run before its process group is killed (ms).
    pub legacy_timeout_ms: u64,
    /// A service name.
    pub max_field_bytes: usize,
    /// Patterns.
    pub max_patterns: usize,
    /// One pattern.
    pub max_pattern_bytes: usize,
    /// Services listed on one pattern.
    pub max_services: usize,
    /// Timeline events.
    pub max_events: usize,
    /// One timeline message.
    pub max_message_bytes: usize,
    /// The compact serialized canonical result.
    pub max_total_bytes: usize,
}

impl Default for LogsLimits {
    fn default() -> Self {
        Self {
            max_query_bytes: 2048,
            max_topic_bytes: 128,
            max_response_bytes: 256 * 1024 * 1024,
            legacy_timeout_ms: DEFAULT_LEGACY_TIMEOUT_MS,
            max_field_bytes: 64,
            max_patterns: 20,
            max_pattern_bytes: 240,
            max_services: 3,
            max_events: 20,
            max_message_bytes: 320,
            max_total_bytes: 12288,
        }
    }
}

/// Bounds per tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// RAG bounds.
    pub rag: RagLimits,
    /// Log bounds.
    pub logs: LogsLimits,
}

/// The run context file as written (SPEC §2). Also the `context` JSON Schema.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunContextFile {
    /// The run's id, echoed byte for byte.
    pub run_id: String,
    /// The run's state; only ACTIVE runs accept calls.
    pub status: RunStatus,
    /// Who owns the run (informational).
    #[serde(default)]
    pub owner: Option<String>,
    /// READ_ONLY (default) or READ_WRITE.
    #[serde(default = "default_mode")]
    pub mode: RunMode,
    /// Glob patterns of tool names the run may call; empty means none.
    #[serde(default)]
    pub authorized_tools: Vec<String>,
    /// The run's clock, RFC 3339 with offset. The projector never reads the wall clock.
    pub now: String,
    /// IANA name or fixed offset for legacy timestamps without an offset (default UTC).
    #[serde(default)]
    pub timezone: Option<String>,
    /// Tool-call and observation-byte budget.
    #[serde(default)]
    pub budget: Budget,
    /// Bounds per tool, by name.
    #[serde(default)]
    pub limits: Limits,
    /// `flag` (default) or `reject` calls that repeat an earlier normalized scope.
    #[serde(default)]
    pub duplicate_scope: DuplicateScope,
    /// The ledger file, relative to the context file.
    #[serde(default)]
    pub ledger: Option<String>,
    /// Calls the harness already made in this run, as ledger records.
    #[serde(default)]
    pub prior_calls: Vec<LedgerRecord>,
    /// Per-tool policy, e.g. `{"logs": {"read_only": true}}`.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolPolicy>,
    /// Redaction options, e.g. `{"correlate": true}`.
    #[serde(default)]
    pub redaction: RedactionPolicy,
    /// `flag` (default), `drop` or `reject` legacy text that addresses the model.
    #[serde(default)]
    pub untrusted_content: UntrustedPolicy,
}

fn default_mode() -> RunMode {
    RunMode::ReadOnly
}

/// A validated run context.
///
/// The only ways to get one are [`RunContext::load`], [`RunContext::load_reader`],
/// [`RunContext::from_slice`] and [`RunContext::from_file`], which all validate; the fields are
/// private and read through accessors, so a limit that passed validation cannot be zeroed or a
/// run's status changed afterwards.
///
/// ```
/// # use aciproj::RunContext;
/// let context = RunContext::from_slice(br#"{"run_id": "r", "status": "ACTIVE",
///     "now": "2026-11-29T10:00:00Z"}"#, std::path::Path::new(".")).unwrap();
/// assert_eq!(context.run_id(), "r");
/// assert!(context.limits().rag.max_evidence > 0);
/// ```
///
/// Neither a field write nor a struct literal compiles outside the crate:
///
/// ```compile_fail,E0616
/// # use aciproj::RunContext;
/// # let mut context = RunContext::from_slice(br#"{"run_id": "r", "status": "ACTIVE",
/// #     "now": "2026-11-29T10:00:00Z"}"#, std::path::Path::new(".")).unwrap();
/// context.limits.rag.max_evidence = 0; // error: field `limits` is private
/// ```
///
/// ```compile_fail,E0451
/// # use aciproj::RunContext;
/// # let context = RunContext::from_slice(br#"{"run_id": "r", "status": "ACTIVE",
/// #     "now": "2026-11-29T10:00:00Z"}"#, std::path::Path::new(".")).unwrap();
/// let forged = RunContext { run_id: "other".into(), ..context }; // error: private fields
/// ```
#[derive(Clone, Debug)]
pub struct RunContext {
    /// The run's id.
    pub(crate) run_id: String,
    /// The run's state.
    pub(crate) status: RunStatus,
    /// The run's mode.
    pub(crate) mode: RunMode,
    authorized: GlobSet,
    /// The run's clock.
    pub(crate) now: Timestamp,
    /// The zone for legacy timestamps without an offset, and for output timestamps.
    pub(crate) timezone: TimeZone,
    /// The budget.
    pub(crate) budget: Budget,
    /// The bounds.
    pub(crate) limits: Limits,
    /// Duplicate-scope policy.
    pub(crate) duplicate_scope: DuplicateScope,
    /// The ledger, resolved against the context file's folder.
    pub(crate) ledger: Option<PathBuf>,
    /// Calls made before this one, as the harness reports them.
    pub(crate) prior_calls: Vec<LedgerRecord>,
    /// Redaction options.
    pub(crate) redaction: RedactionPolicy,
    /// What to do with text that addresses the model.
    pub(crate) untrusted_content: UntrustedPolicy,
    tools: BTreeMap<String, ToolPolicy>,
}

impl RunContext {
    /// The run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The run's state; only ACTIVE runs accept calls.
    pub fn status(&self) -> RunStatus {
        self.status
    }

    /// The run's mode.
    pub fn mode(&self) -> RunMode {
        self.mode
    }

    /// The run's clock.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// The zone for legacy timestamps without an offset, and for output timestamps.
    pub fn timezone(&self) -> &TimeZone {
        &self.timezone
    }

    /// The tool-call and observation-byte budget.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The bounds per tool.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The duplicate-scope policy.
    pub fn duplicate_scope(&self) -> DuplicateScope {
        self.duplicate_scope
    }

    /// The ledger file, resolved against the context file's folder.
    pub fn ledger(&self) -> Option<&Path> {
        self.ledger.as_deref()
    }

    /// Calls made before this one, as the harness reports them.
    pub fn prior_calls(&self) -> &[LedgerRecord] {
        &self.prior_calls
    }

    /// The redaction options.
    pub fn redaction(&self) -> &RedactionPolicy {
        &self.redaction
    }

    /// The untrusted-content policy.
    pub fn untrusted_content(&self) -> UntrustedPolicy {
        self.untrusted_content
    }
}

impl RunContext {
    /// Reads and validates a context file. Every error carries a diagnostic naming the path and,
    /// for a file that cannot be read, the operating system's reason.
    pub fn load(path: &Path) -> Result<Self, ToolError> {
        let shown = path.display();
        let unreadable = |e: &std::io::Error| {
            ToolError::new(
                ErrorCode::InvalidContext,
                "the run context file cannot be read",
            )
            .with_diagnostic(format!(
                "cannot read the run context {shown}: {}",
                crate::error::os_reason(e)
            ))
        };
        let meta = std::fs::metadata(path).map_err(|e| unreadable(&e))?;
        if meta.is_dir() {
            return Err(ToolError::new(
                ErrorCode::InvalidContext,
                "the run context path is a directory, not a file",
            )
            .with_diagnostic(format!(
                "cannot read the run context {shown}: Is a directory"
            )));
        }
        if meta.len() > MAX_CONTEXT_BYTES {
            return Err(ToolError::new(
                ErrorCode::InvalidContext,
                "the run context file is larger than 16 MiB",
            )
            .with_diagnostic(format!("the run context {shown} is larger than 16 MiB")));
        }
        let bytes = std::fs::read(path).map_err(|e| unreadable(&e))?;
        let base = path.parent().unwrap_or(Path::new(""));
        Self::from_slice(&bytes, base).map_err(|e| {
            let why = format!("{shown}: {}", e.diagnostic().unwrap_or(e.message()));
            e.with_diagnostic(why)
        })
    }

    /// Reads and validates a context from `reader` (standard input for `--context -`); a
    /// relative `ledger` is resolved against `base_dir`.
    pub fn load_reader(mut reader: impl std::io::Read, base_dir: &Path) -> Result<Self, ToolError> {
        use std::io::Read;
        let mut bytes = Vec::new();
        let read = (&mut reader)
            .take(MAX_CONTEXT_BYTES + 1)
            .read_to_end(&mut bytes);
        if let Err(e) = read {
            return Err(ToolError::new(
                ErrorCode::InvalidContext,
                "the run context file cannot be read",
            )
            .with_diagnostic(format!(
                "cannot read the run context from standard input: {}",
                crate::error::os_reason(&e)
            )));
        }
        if bytes.len() as u64 > MAX_CONTEXT_BYTES {
            return Err(ToolError::new(
                ErrorCode::InvalidContext,
                "the run context file is larger than 16 MiB",
            ));
        }
        Self::from_slice(&bytes, base_dir).map_err(|e| {
            let why = format!("standard input: {}", e.diagnostic().unwrap_or(e.message()));
            e.with_diagnostic(why)
        })
    }

    /// Parses and validates a context; a relative `ledger` is resolved against `base_dir`.
    pub fn from_slice(bytes: &[u8], base_dir: &Path) -> Result<Self, ToolError> {
        let file = parse_strict::<RunContextFile>(bytes, Document::RunContext)?;
        Self::from_file(file, base_dir)
    }

    /// Validates an already parsed context.
    pub fn from_file(file: RunContextFile, base_dir: &Path) -> Result<Self, ToolError> {
        let invalid =
            |template, name: &str| ToolError::naming(ErrorCode::InvalidContext, template, name);
        if file.run_id.is_empty() || file.run_id.len() > MAX_ID_BYTES || has_control(&file.run_id) {
            return Err(invalid(
                "run context: {} must be 1 to 128 bytes without control characters",
                "run_id",
            ));
        }
        let mut builder = GlobSetBuilder::new();
        for pattern in &file.authorized_tools {
            let glob = Glob::new(pattern).map_err(|_| {
                invalid(
                    "run context: {} holds an invalid glob pattern",
                    "authorized_tools",
                )
            })?;
            builder.add(glob);
        }
        let authorized = builder.build().map_err(|_| {
            invalid(
                "run context: {} holds an invalid glob pattern",
                "authorized_tools",
            )
        })?;
        let now: Timestamp = file.now.parse().map_err(|_| {
            invalid(
                "run context: {} must be an RFC 3339 time with offset",
                "now",
            )
        })?;
        let timezone = match &file.timezone {
            None => TimeZone::UTC,
            Some(name) => parse_timezone(name).ok_or_else(|| {
                invalid(
                    "run context: {} must be an IANA zone name or a fixed offset",
                    "timezone",
                )
            })?,
        };
        validate_limits(&file.limits)?;
        let ledger = match &file.ledger {
            None => None,
            Some(p) if p.trim().is_empty() => {
                return Err(invalid(
                    "run context: {} must be a non-empty path",
                    "ledger",
                ));
            }
            Some(p) => Some(base_dir.join(p)),
        };
        let mut redaction = file.redaction;
        if let Some(rules) = &redaction.rules_file {
            let path = base_dir.join(rules);
            let redactor = crate::redact::Redactor::from_rules_file(&path).map_err(|e| {
                ToolError::new(
                    ErrorCode::InvalidContext,
                    "run context: the redaction rules file does not load",
                )
                .with_diagnostic(e.to_string())
            })?;
            redaction.redactor = Some(std::sync::Arc::new(redactor));
        }
        Ok(Self {
            run_id: file.run_id,
            status: file.status,
            mode: file.mode,
            authorized,
            now,
            timezone,
            budget: file.budget,
            limits: file.limits,
            duplicate_scope: file.duplicate_scope,
            ledger,
            prior_calls: file.prior_calls,
            redaction,
            untrusted_content: file.untrusted_content,
            tools: file.tools,
        })
    }

    /// Whether some `authorized_tools` pattern matches the tool.
    pub fn authorizes(&self, tool: Tool) -> bool {
        self.authorized.is_match(tool.name())
    }

    /// Whether the context lists no `authorized_tools` pattern at all (so it authorizes nothing).
    pub fn lists_no_authorized_tools(&self) -> bool {
        self.authorized.is_empty()
    }

    /// Whether the tool is read-only: built-in tools are, unless the `tools` map says otherwise.
    pub fn is_read_only(&self, tool: Tool) -> bool {
        self.tools
            .get(tool.name())
            .and_then(|p| p.read_only)
            .unwrap_or(true)
    }
}

/// Parses a fixed offset (`+08:00`, `-0530`, `Z`, `UTC`) or an IANA zone name.
fn parse_timezone(name: &str) -> Option<TimeZone> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("utc") || name == "Z" {
        return Some(TimeZone::UTC);
    }
    if let Some(sign) = name.chars().next().filter(|c| *c == '+' || *c == '-') {
        let digits: String = name[1..].chars().filter(|c| *c != ':').collect();
        if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let hours: i32 = digits[..2].parse().ok()?;
        let minutes: i32 = digits[2..].parse().ok()?;
        if hours > 18 || minutes > 59 {
            return None;
        }
        let seconds = (hours * 3600 + minutes * 60) * if sign == '-' { -1 } else { 1 };
        return Offset::from_seconds(seconds).ok().map(TimeZone::fixed);
    }
    // The compiled-in database, never the system's: the same context must give the same bytes
    // on any machine, whatever tzdata version it has installed (and no directory walk at start).
    bundled_zones().get(name).ok()
}

fn bundled_zones() -> &'static jiff::tz::TimeZoneDatabase {
    static DB: std::sync::LazyLock<jiff::tz::TimeZoneDatabase> =
        std::sync::LazyLock::new(jiff::tz::TimeZoneDatabase::bundled);
    &DB
}

fn validate_limits(limits: &Limits) -> Result<(), ToolError> {
    let rag = &limits.rag;
    let logs = &limits.logs;
    let positive = [
        ("limits.rag.max_query_bytes", rag.max_query_bytes),
        ("limits.rag.max_evidence", rag.max_evidence),
        ("limits.rag.max_excerpt_bytes", rag.max_excerpt_bytes),
        ("limits.rag.max_field_bytes", rag.max_field_bytes),
        ("limits.rag.max_total_bytes", rag.max_total_bytes),
        ("limits.logs.max_query_bytes", logs.max_query_bytes),
        ("limits.logs.max_topic_bytes", logs.max_topic_bytes),
        ("limits.logs.max_field_bytes", logs.max_field_bytes),
        ("limits.logs.max_patterns", logs.max_patterns),
        ("limits.logs.max_pattern_bytes", logs.max_pattern_bytes),
        ("limits.logs.max_services", logs.max_services),
        ("limits.logs.max_events", logs.max_events),
        ("limits.logs.max_message_bytes", logs.max_message_bytes),
        ("limits.logs.max_total_bytes", logs.max_total_bytes),
    ];
    for (name, value) in positive {
        if value == 0 {
            return Err(ToolError::naming(
                ErrorCode::InvalidContext,
                "run context: {} must be at least 1",
                name,
            ));
        }
    }
    for (name, value) in [
        ("limits.rag.max_response_bytes", rag.max_response_bytes),
        ("limits.logs.max_response_bytes", logs.max_response_bytes),
        ("limits.rag.legacy_timeout_ms", rag.legacy_timeout_ms),
        ("limits.logs.legacy_timeout_ms", logs.legacy_timeout_ms),
    ] {
        if value == 0 {
            return Err(ToolError::naming(
                ErrorCode::InvalidContext,
                "run context: {} must be at least 1",
                name,
            ));
        }
    }
    // The total bound must hold an empty result for the largest request the other bounds admit.
    // Quotes and backslashes double under JSON escaping (control characters are rejected by
    // preflight), so the worst case is a request made only of quotes.
    let worst = |bytes: usize| "\"".repeat(bytes);
    let empty_rag = RagToolResult::empty(worst(MAX_ID_BYTES), worst(rag.max_query_bytes));
    if crate::bounds::json_len(&empty_rag) > rag.max_total_bytes {
        return Err(ToolError::naming(
            ErrorCode::InvalidContext,
            "run context: {} cannot hold an empty result for a query of max_query_bytes",
            "limits.rag.max_total_bytes",
        ));
    }
    let empty_logs = LogsToolResult::worst_case_empty(
        worst(MAX_ID_BYTES),
        worst(logs.max_topic_bytes),
        worst(logs.max_query_bytes),
    );
    if crate::bounds::json_len(&empty_logs) > logs.max_total_bytes {
        return Err(ToolError::naming(
            ErrorCode::InvalidContext,
            "run context: {} cannot hold an empty result for a topic and query of their maximum size",
            "limits.logs.max_total_bytes",
        ));
    }
    Ok(())
}

/// Whether `s` holds a control character (Unicode category Cc).
pub fn has_control(s: &str) -> bool {
    s.chars().any(char::is_control)
}

/// The kinds of document [`parse_strict`] reads, for its error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Document {
    /// The run context (`--context`): its messages say so.
    RunContext,
    /// A fixture case or an incident line: messages name the field only.
    Other,
}

impl Document {
    fn prefix(self) -> &'static str {
        match self {
            Document::RunContext => "run context: ",
            Document::Other => "",
        }
    }

    fn not_json(self) -> &'static str {
        match self {
            Document::RunContext => "run context is not valid JSON (line {}, column {})",
            Document::Other => "document is not valid JSON (line {}, column {})",
        }
    }
}

/// Deserializes a whole JSON document into `T`, turning serde's messages (which quote values)
/// into safe ones that name at most a field path.
pub(crate) fn parse_strict<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    doc: Document,
) -> Result<T, ToolError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de)
        .map_err(|e| describe_json_error(doc, e.path().to_string(), e.inner()))?;
    de.end()
        .map_err(|e| describe_json_error(doc, String::new(), &e))?;
    Ok(value)
}

fn describe_json_error(doc: Document, path: String, inner: &serde_json::Error) -> ToolError {
    use serde_json::error::Category;
    let code = ErrorCode::InvalidContext;
    let message = inner.to_string();
    let (template, name): (&'static str, String) = match inner.classify() {
        Category::Io | Category::Syntax | Category::Eof => {
            let at = [inner.line() as u64, inner.column() as u64];
            return ToolError::numbered(code, doc.not_json(), &at);
        }
        Category::Data if message.starts_with("unknown field") => ("unknown field {}", path),
        Category::Data if message.starts_with("missing field") => (
            "missing required field {}",
            join_path(&path, backticked(&message)),
        ),
        Category::Data if message.starts_with("duplicate field") => {
            ("duplicate field {}", join_path(&path, backticked(&message)))
        }
        Category::Data => {
            let choices = allowed_variants(&message);
            return ToolError::naming(code, "invalid value at {}", &path)
                .with_choices(&choices)
                .with_prefix(doc.prefix());
        }
    };
    ToolError::naming(code, template, &name).with_prefix(doc.prefix())
}

/// The variant names serde lists after an unknown variant ("unknown variant `x`, expected one
/// of `A`, `B`"). The rejected value comes first and may hold anything, including that very
/// phrase, so only the text after the *last* ", expected " is read: serde's own list of names.
fn allowed_variants(message: &str) -> Vec<&str> {
    if !message.starts_with("unknown variant") {
        return Vec::new();
    }
    let Some(at) = message.rfind(", expected ") else {
        return Vec::new();
    };
    message[at..].split('`').skip(1).step_by(2).collect()
}

fn backticked(message: &str) -> &str {
    message.split('`').nth(1).unwrap_or_default()
}

fn join_path(parent: &str, name: &str) -> String {
    if parent.is_empty() || parent == "." {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str =
        r#"{"run_id":"run-1","status":"ACTIVE","now":"2026-11-29T10:00:00+08:00"}"#;

    fn parse(json: &str) -> Result<RunContext, ToolError> {
        RunContext::from_slice(json.as_bytes(), Path::new("/ctx"))
    }

    fn with(field: &str) -> String {
        MINIMAL.replacen('{', &format!("{{{field},"), 1)
    }

    #[test]
    fn minimal_context_gets_documented_defaults() {
        let ctx = parse(MINIMAL).unwrap();
        assert_eq!(ctx.mode, RunMode::ReadOnly);
        assert_eq!(ctx.budget, Budget::default());
        assert_eq!(ctx.limits, Limits::default());
        assert!(!ctx.authorizes(Tool::Rag), "no patterns authorize nothing");
        assert!(ctx.is_read_only(Tool::Logs));
        assert_eq!(ctx.timezone, TimeZone::UTC);
        assert!(
            !ctx.redaction.correlate,
            "correlation labels are off unless asked"
        );
    }

    #[test]
    fn redaction_correlate_is_read_and_its_typos_are_named() {
        let ctx = parse(&with(r#""redaction":{"correlate":true}"#)).unwrap();
        assert!(ctx.redaction.correlate);
        let e = parse(&with(r#""redaction":{"corelate":true}"#)).unwrap_err();
        assert!(
            e.message().contains("redaction.corelate"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn unknown_fields_are_named() {
        let e = parse(&with(r#""budgett":{}"#)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidContext);
        assert_eq!(e.message(), "run context: unknown field `budgett`");
        let e = parse(&with(r#""limits":{"rag":{"max_evidenc":3}}"#)).unwrap_err();
        assert_eq!(
            e.message(),
            "run context: unknown field `limits.rag.max_evidenc`"
        );
        // A limit that exists for the other tool is still unknown for this one.
        let e = parse(&with(r#""limits":{"rag":{"max_events":3}}"#)).unwrap_err();
        assert!(
            e.message().contains("limits.rag.max_events"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn values_are_never_echoed() {
        let e = parse(&with(r#""budget":{"max_tool_calls":"hunter2"}"#)).unwrap_err();
        assert_eq!(
            e.message(),
            "run context: invalid value at `budget.max_tool_calls`"
        );
        let e = parse(&with(r#""now2":"s3cr3t-value""#)).unwrap_err();
        assert!(!e.message().contains("s3cr3t"));
        let e = parse(r#"{"run_id":"s3cr3t"#).unwrap_err();
        assert!(!e.message().contains("s3cr3t"), "{}", e.message());
    }

    #[test]
    fn duplicate_and_missing_fields_are_errors() {
        let e = parse(&with(r#""status":"COMPLETED""#)).unwrap_err();
        assert_eq!(e.message(), "run context: duplicate field `status`");
        let e = parse(r#"{"run_id":"r","status":"ACTIVE"}"#).unwrap_err();
        assert_eq!(e.message(), "run context: missing required field `now`");
    }

    #[test]
    fn bounds_that_cannot_hold_an_empty_result_are_rejected() {
        let e = parse(&with(r#""limits":{"rag":{"max_total_bytes":300}}"#)).unwrap_err();
        assert!(
            e.message().contains("limits.rag.max_total_bytes"),
            "{}",
            e.message()
        );
        let ok = parse(&with(
            r#""limits":{"rag":{"max_total_bytes":700,"max_query_bytes":100}}"#,
        ));
        assert!(ok.is_ok(), "{ok:?}");
        let e = parse(&with(r#""limits":{"logs":{"max_events":0}}"#)).unwrap_err();
        assert!(e.message().contains("limits.logs.max_events"));
    }

    #[test]
    fn timezones_accept_names_and_offsets() {
        assert!(parse_timezone("Asia/Shanghai").is_some());
        assert_eq!(
            parse_timezone("+08:00"),
            Some(TimeZone::fixed(Offset::from_seconds(8 * 3600).unwrap()))
        );
        assert_eq!(
            parse_timezone("-0530"),
            Some(TimeZone::fixed(
                Offset::from_seconds(-(5 * 3600 + 1800)).unwrap()
            ))
        );
        assert!(parse_timezone("Mars/Olympus").is_none());
        assert!(parse_timezone("+99:00").is_none());
    }

    #[test]
    fn globs_and_tool_policy() {
        let ctx = parse(&with(
            r#""authorized_tools":["r*"],"tools":{"logs":{"read_only":false}}"#,
        ))
        .unwrap();
        assert!(ctx.authorizes(Tool::Rag));
        assert!(!ctx.authorizes(Tool::Logs));
        assert!(!ctx.is_read_only(Tool::Logs));
        let e = parse(&with(r#""authorized_tools":["[unclosed"]"#)).unwrap_err();
        assert!(e.message().contains("authorized_tools"));
    }

    #[test]
    fn ledger_is_relative_to_the_context_file() {
        let ctx = parse(&with(r#""ledger":"run.ledger.jsonl""#)).unwrap();
        assert_eq!(
            ctx.ledger.as_deref(),
            Some(Path::new("/ctx/run.ledger.jsonl"))
        );
    }
}
