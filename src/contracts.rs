//! The frozen ACI contracts and the three views of a call.
//!
//! The canonical results ([`RagToolResult`], [`LogsToolResult`]) have exactly the fields the seeds
//! name, in that order, and nothing else: adding a field here is a contract change. The views are
//! derived from a finished call, never the other way round:
//! - the [`Envelope`] (default) wraps the canonical result or the safe error;
//! - the [`ModelObservation`] is what the model reads: enough to understand and cite, and never
//!   counters, budgets, fingerprints or run identities;
//! - the [`ControlView`] is the harness's: counts, normalized scope and its fingerprint,
//!   truncation and redaction details, budget use. It never holds a raw legacy value either.
//!
//! The files the operator commands read ([`Case`] for `check`, [`IncidentCall`] for `replay`)
//! are contracts too, and live here for the same reason: `schema` prints them all.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::bounds::Dropped;
use crate::error::{ErrorCode, Stage};

mod inputs;
pub use inputs::{Case, CaseRequest, Expectation, IncidentCall};

/// A tool the boundary fronts.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    /// The RAG knowledge search.
    Rag,
    /// The Mock log query.
    Logs,
}

impl Tool {
    /// The tool's name as authorized and recorded.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Rag => "rag",
            Tool::Logs => "logs",
        }
    }
}

/// Whether a call ended with a result or a safe error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CallStatus {
    /// A canonical result, with or without evidence.
    Ready,
    /// A safe error.
    Error,
}

/// Whether a result carries evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EvidenceStatus {
    /// At least one evidence item, pattern or event.
    Evidence,
    /// Nothing usable; the scope is still reported.
    NoEvidence,
}

impl EvidenceStatus {
    /// `Evidence` when `has` is true.
    pub fn from_presence(has: bool) -> Self {
        if has {
            Self::Evidence
        } else {
            Self::NoEvidence
        }
    }
}

/// Coarse, normalized relevance of a RAG result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RelevanceLevel {
    /// Strongly relevant.
    High,
    /// Somewhat relevant.
    Medium,
    /// Weakly relevant.
    Low,
}

/// One piece of RAG evidence: exactly these five strings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RagEvidence {
    /// The document's id (may be empty when only the source identifies it).
    pub document_id: String,
    /// Where the document lives (file, URL path, knowledge base name).
    pub source: String,
    /// The document's title.
    pub title: String,
    /// Headings leading to the excerpt, joined with ` > `.
    pub breadcrumb: String,
    /// An exact prefix of the legacy excerpt, cut on a character boundary.
    pub excerpt: String,
}

/// The canonical RAG result (frozen).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RagToolResult {
    /// `EVIDENCE` when `evidence` is non-empty.
    pub evidence_status: EvidenceStatus,
    /// The framework's call id, byte for byte.
    pub tool_call_id: String,
    /// The original query, unchanged.
    pub query: String,
    /// Deduplicated, bounded evidence in legacy order.
    pub evidence: Vec<RagEvidence>,
    /// How many evidence items are returned.
    pub returned_count: u64,
    /// Normalized upstream relevance; absent when unknown or when there is no evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance_level: Option<RelevanceLevel>,
    /// True exactly when a bound removed something.
    pub truncated: bool,
}

impl RagToolResult {
    /// A result without evidence (with `truncated: false`, its longer form, so that a bound
    /// that holds it holds every empty result of the same request).
    pub fn empty(tool_call_id: String, query: String) -> Self {
        Self {
            evidence_status: EvidenceStatus::NoEvidence,
            tool_call_id,
            query,
            evidence: Vec::new(),
            returned_count: 0,
            relevance_level: None,
            truncated: false,
        }
    }
}

/// The provenance of log evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SourceKind {
    /// The Mock log source.
    Mock,
}

/// The logical scope of a log query, as requested.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogsScope {
    /// The requested topic.
    pub topic: String,
    /// The requested query.
    pub query: String,
    /// The lookback used (60 when not requested).
    pub lookback_minutes: u32,
    /// `now - lookback`, RFC 3339 with the run's offset.
    pub window_start: String,
    /// The run's `now`, RFC 3339 with the run's offset.
    pub window_end: String,
}

#[cfg(test)]
impl LogsScope {
    /// A placeholder scope for unit tests of the projection.
    pub(crate) fn for_tests() -> Self {
        Self {
            topic: "t".into(),
            query: "q".into(),
            lookback_minutes: 60,
            window_start: "s".into(),
            window_end: "e".into(),
        }
    }
}

/// One folded log pattern.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogPattern {
    /// The redacted template.
    pub pattern: String,
    /// The level of every entry in the pattern.
    pub level: String,
    /// How many entries folded into it.
    pub count: u64,
    /// Services that logged it, first seen first, bounded.
    pub services: Vec<String>,
    /// The earliest timestamp, RFC 3339.
    pub first_seen: String,
    /// The latest timestamp, RFC 3339.
    pub last_seen: String,
}

/// One redacted timeline event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineEvent {
    /// RFC 3339 with offset.
    pub timestamp: String,
    /// The entry's level.
    pub level: String,
    /// The service that logged it.
    pub service: String,
    /// The redacted, bounded message.
    pub message: String,
}

/// The canonical log result (frozen).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogsToolResult {
    /// `EVIDENCE` when any pattern or event is returned.
    pub evidence_status: EvidenceStatus,
    /// The framework's call id, byte for byte.
    pub tool_call_id: String,
    /// Always `MOCK`.
    pub source_kind: SourceKind,
    /// The logical scope, as requested.
    pub scope: LogsScope,
    /// The larger of the legacy `total` and the entries seen.
    pub match_count: u64,
    /// The timeline's length.
    pub returned_count: u64,
    /// Patterns by count, then first occurrence.
    pub patterns: Vec<LogPattern>,
    /// Chosen events, chronologically.
    pub timeline: Vec<TimelineEvent>,
    /// True exactly when a bound removed something.
    pub truncated: bool,
}

impl LogsToolResult {
    /// The largest empty result a request can produce, for validating bounds.
    pub fn worst_case_empty(tool_call_id: String, topic: String, query: String) -> Self {
        let stamp = "0000-00-00T00:00:00.000000000+00:00".to_owned();
        Self {
            evidence_status: EvidenceStatus::NoEvidence,
            tool_call_id,
            source_kind: SourceKind::Mock,
            scope: LogsScope {
                topic,
                query,
                lookback_minutes: 10080,
                window_start: stamp.clone(),
                window_end: stamp,
            },
            match_count: u64::MAX,
            returned_count: 0,
            patterns: Vec::new(),
            timeline: Vec::new(),
            truncated: false,
        }
    }
}

/// A canonical result of either tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolResult {
    /// A RAG result.
    Rag(RagToolResult),
    /// A log result.
    Logs(LogsToolResult),
}

impl ToolResult {
    /// Whether evidence is present.
    pub fn evidence_status(&self) -> EvidenceStatus {
        match self {
            ToolResult::Rag(r) => r.evidence_status,
            ToolResult::Logs(r) => r.evidence_status,
        }
    }

    /// The returned count.
    pub fn returned_count(&self) -> u64 {
        match self {
            ToolResult::Rag(r) => r.returned_count,
            ToolResult::Logs(r) => r.returned_count,
        }
    }

    /// Whether a bound removed something.
    pub fn truncated(&self) -> bool {
        match self {
            ToolResult::Rag(r) => r.truncated,
            ToolResult::Logs(r) => r.truncated,
        }
    }
}

/// The safe error body of the envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// Where the call failed.
    pub stage: Stage,
    /// The stable code.
    pub code: ErrorCode,
    /// A message from a fixed template, at most 256 bytes.
    pub message: String,
}

/// The default view: the canonical result or the safe error, with the call's identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// READY or ERROR.
    pub status: CallStatus,
    /// The tool called.
    pub tool: Tool,
    /// The run's id (null only when no valid run id is known).
    pub run_id: Option<String>,
    /// The framework's call id (null only when the given id was invalid).
    pub tool_call_id: Option<String>,
    /// The canonical result, for READY.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
    /// The safe error, for ERROR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// The error as the model sees it: no stage, no run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelError {
    /// The stable code.
    pub code: ErrorCode,
    /// The safe message.
    pub message: String,
}

/// What the model reads of a RAG call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RagObservation {
    /// Always READY.
    pub status: CallStatus,
    /// The call id, to cite.
    pub tool_call_id: String,
    /// Whether evidence was found.
    pub evidence_status: EvidenceStatus,
    /// The query actually asked.
    pub query: String,
    /// The evidence.
    pub evidence: Vec<RagEvidence>,
    /// Coarse relevance, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance_level: Option<RelevanceLevel>,
    /// Whether a bound removed something.
    pub truncated: bool,
}

/// What the model reads of a log call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogsObservation {
    /// Always READY.
    pub status: CallStatus,
    /// The call id, to cite.
    pub tool_call_id: String,
    /// Whether evidence was found.
    pub evidence_status: EvidenceStatus,
    /// The scope actually asked.
    pub scope: LogsScope,
    /// How many entries matched upstream.
    pub match_count: u64,
    /// Folded patterns.
    pub patterns: Vec<LogPattern>,
    /// Chosen events.
    pub timeline: Vec<TimelineEvent>,
    /// Whether a bound removed something.
    pub truncated: bool,
}

/// What the model reads of a failed call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorObservation {
    /// Always ERROR.
    pub status: CallStatus,
    /// The call id (null when the given id was invalid).
    pub tool_call_id: Option<String>,
    /// Code and message.
    pub error: ModelError,
}

/// The Model Observation of a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ModelObservation {
    /// A READY RAG call.
    Rag(RagObservation),
    /// A READY log call.
    Logs(LogsObservation),
    /// A failed call.
    Error(ErrorObservation),
}

impl ModelObservation {
    /// The observation of a canonical result.
    pub fn of_result(result: &ToolResult) -> Self {
        match result {
            ToolResult::Rag(r) => ModelObservation::Rag(RagObservation {
                status: CallStatus::Ready,
                tool_call_id: r.tool_call_id.clone(),
                evidence_status: r.evidence_status,
                query: r.query.clone(),
                evidence: r.evidence.clone(),
                relevance_level: r.relevance_level,
                truncated: r.truncated,
            }),
            ToolResult::Logs(r) => ModelObservation::Logs(LogsObservation {
                status: CallStatus::Ready,
                tool_call_id: r.tool_call_id.clone(),
                evidence_status: r.evidence_status,
                scope: r.scope.clone(),
                match_count: r.match_count,
                patterns: r.patterns.clone(),
                timeline: r.timeline.clone(),
                truncated: r.truncated,
            }),
        }
    }
}

/// The scope of a call after normalization (NFKC, lowercase, trimmed, spaces collapsed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NormalizedScope {
    /// The normalized topic (logs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The normalized query.
    pub query: String,
    /// The lookback used (logs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lookback_minutes: Option<u32>,
}

/// Budget use after this call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetUse {
    /// Admitted calls in the run, this one included when admitted.
    pub tool_calls_used: u64,
    /// Calls left.
    pub tool_calls_left: u64,
    /// Observation bytes returned in the run, this call's included when admitted.
    pub observation_bytes_used: u64,
    /// Observation bytes left.
    pub observation_bytes_left: u64,
}

/// The control view's error: stage and code, no message needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControlError {
    /// Where the call failed.
    pub stage: Stage,
    /// The stable code.
    pub code: ErrorCode,
}

/// What correlation labels did in a call (SPEC §5), only when the run context asks for them:
/// counts, never a value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrelationCounts {
    /// Distinct values that got a label, per class (`ip`: 2 means `<IP#1>` and `<IP#2>`).
    pub distinct: BTreeMap<String, u64>,
    /// Placeholders left plain because their class already had the most labels a call gives
    /// (4096 distinct values per class), so that one label always means one value.
    pub unlabelled: u64,
}

/// What a call does with legacy text that addresses the model (SPEC §5 "Untrusted content").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UntrustedPolicy {
    /// Report the flagged items in the control view; the result is unchanged.
    #[default]
    Flag,
    /// Leave flagged evidence items, patterns and timeline events out of the result.
    Drop,
    /// End the call with `UNTRUSTED_CONTENT` and no result.
    Reject,
}

/// What the flag rules found in a call's agent-facing strings: counts and positions, never text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UntrustedReport {
    /// The run's policy: `flag`, `drop` or `reject`.
    pub policy: UntrustedPolicy,
    /// Flagged strings per flag rule id (`aciproj rules`); one string can count under several.
    pub by_rule: BTreeMap<String, u64>,
    /// Indexes of flagged items in the result's `evidence` (rag).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<u64>,
    /// Indexes of flagged items in the result's `patterns` (logs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patterns: Vec<u64>,
    /// Indexes of flagged items in the result's `timeline` (logs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<u64>,
    /// Under `drop`: flagged items left out of the result, per collection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<UntrustedDropped>,
}

/// Flagged items `drop` left out, per collection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UntrustedDropped {
    /// Evidence items (rag).
    #[serde(default)]
    pub evidence: u64,
    /// Patterns (logs).
    #[serde(default)]
    pub patterns: u64,
    /// Log entries whose message was flagged: none of them can be a timeline event (logs).
    #[serde(default)]
    pub timeline: u64,
}

/// What a bound removed from: the keys of [`ControlView::truncation`].
///
/// The variants are declared in the alphabetical order of their names, so a `BTreeMap` keyed by
/// them iterates (and serializes) in the same order a map keyed by the names did.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    /// Log entries the upstream matched but did not return (`total` above the entries).
    Entries,
    /// RAG evidence items beyond `max_evidence`.
    Evidence,
    /// RAG excerpts cut to `max_excerpt_bytes`, or dropped when nothing meaningful fits.
    Excerpt,
    /// Short fields (ids, titles, levels, services) cut to `max_field_bytes`.
    Field,
    /// Timeline messages cut to fit.
    Message,
    /// Pattern texts cut to `max_pattern_bytes`.
    Pattern,
    /// Patterns beyond `max_patterns`.
    Patterns,
    /// Patterns whose service list was cut to `max_services`.
    Services,
    /// Usable log events not shown in the timeline.
    Timeline,
    /// Items or bytes removed to fit the result into its total bound.
    Total,
}

impl Truncation {
    /// The key's name, as it appears in the control view.
    pub fn name(self) -> &'static str {
        match self {
            Self::Entries => "entries",
            Self::Evidence => "evidence",
            Self::Excerpt => "excerpt",
            Self::Field => "field",
            Self::Message => "message",
            Self::Pattern => "pattern",
            Self::Patterns => "patterns",
            Self::Services => "services",
            Self::Timeline => "timeline",
            Self::Total => "total",
        }
    }
}

/// The schema of [`ControlView::truncation`]: a map whose keys are the [`Truncation`] names
/// (`propertyNames`), which schemars does not say on its own for an enum-keyed map.
fn truncation_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut schema = <BTreeMap<Truncation, Dropped>>::json_schema(generator);
    let keys = generator.subschema_for::<Truncation>();
    schema.insert("propertyNames".to_owned(), keys.to_value());
    schema
}

/// The Harness Control View of a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ControlView {
    /// The tool called.
    pub tool: Tool,
    /// The run's id.
    pub run_id: Option<String>,
    /// The framework's call id.
    pub tool_call_id: Option<String>,
    /// READY or ERROR.
    pub status: CallStatus,
    /// For READY.
    pub evidence_status: Option<EvidenceStatus>,
    /// For ERROR.
    pub error: Option<ControlError>,
    /// Items returned (evidence or timeline events).
    pub returned_count: Option<u64>,
    /// Upstream matches (logs).
    pub match_count: Option<u64>,
    /// The normalized scope, once the request was valid.
    pub scope: Option<NormalizedScope>,
    /// SHA-256 (hex) of the tool and normalized scope.
    pub scope_fingerprint: Option<String>,
    /// The earlier call in this run with the same fingerprint.
    pub duplicate_of: Option<String>,
    /// The normalized relevance the upstream reported, even when the result shows none.
    pub relevance_level: Option<RelevanceLevel>,
    /// Whether the result was truncated.
    pub truncated: Option<bool>,
    /// What each bound removed, by collection or field kind.
    #[schemars(schema_with = "truncation_schema")]
    pub truncation: BTreeMap<Truncation, Dropped>,
    /// Redactions per class (logs).
    pub redactions: BTreeMap<String, u64>,
    /// Redactions per catalogue rule id (`aciproj rules`), logs.
    pub redactions_by_rule: BTreeMap<String, u64>,
    /// Built-in redaction rules the run's rules file turns off (SPEC §5); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redaction_rules_disabled: Vec<String>,
    /// Distinct values labelled per class, when the run context sets `redaction.correlate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation: Option<CorrelationCounts>,
    /// Log entries without a usable timestamp or message: counted in `match_count`, not shown.
    pub skipped_entries: Option<u64>,
    /// What the flag rules found (SPEC §5 "Untrusted content"); absent when nothing was flagged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untrusted: Option<UntrustedReport>,
    /// Bytes of the compact canonical result.
    pub result_bytes: Option<u64>,
    /// Bytes of the compact model observation.
    pub observation_bytes: u64,
    /// Budget use, once the run's records were read.
    pub budget: Option<BudgetUse>,
    /// SHA-256 (hex) of the ledger line this call appended: the chain's head after it (SPEC §6).
    /// Only when the context keeps a ledger file and the call was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger_head: Option<String>,
    /// A live legacy command's exit status, once it was started (absent for a response read from
    /// a file, standard input or memory): its exit code, or 128 + the signal that ended it, as a
    /// shell's `$?` (137 after the boundary killed it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_exit: Option<i32>,
    /// How many bytes the live legacy command wrote to its standard error (never their content,
    /// which reaches no view); absent when no command ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_stderr_bytes: Option<u64>,
}

/// One line of the ledger: the canonical record of an admitted call (SPEC §6). Also the shape of
/// `prior_calls` entries, where only `tool_call_id` and `tool` are required.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerRecord {
    /// The run's id.
    #[serde(default)]
    pub run_id: Option<String>,
    /// The framework's call id.
    pub tool_call_id: String,
    /// The tool's name (any tool of the harness counts towards the budget).
    pub tool: String,
    /// READY or ERROR.
    #[serde(default)]
    pub status: Option<CallStatus>,
    /// The error's stage.
    #[serde(default)]
    pub stage: Option<Stage>,
    /// The error's code.
    #[serde(default)]
    pub code: Option<String>,
    /// Whether the result held evidence.
    #[serde(default)]
    pub evidence_status: Option<EvidenceStatus>,
    /// SHA-256 (hex) of the tool and normalized scope.
    #[serde(default)]
    pub scope_fingerprint: Option<String>,
    /// Items returned.
    #[serde(default)]
    pub returned_count: Option<u64>,
    /// Whether the result was truncated.
    #[serde(default)]
    pub truncated: Option<bool>,
    /// Bytes of the model observation returned.
    #[serde(default)]
    pub observation_bytes: Option<u64>,
    /// SHA-256 (hex) of the compact canonical result.
    #[serde(default)]
    pub result_sha256: Option<String>,
    /// SHA-256 (hex) of the previous record's line in the ledger file (its bytes without the
    /// newline); 64 zeros for the file's first record. Written by the ledger, ignored in
    /// `prior_calls`.
    #[serde(default)]
    pub prev_sha256: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY_TRUNCATION: [Truncation; 10] = [
        Truncation::Entries,
        Truncation::Evidence,
        Truncation::Excerpt,
        Truncation::Field,
        Truncation::Message,
        Truncation::Pattern,
        Truncation::Patterns,
        Truncation::Services,
        Truncation::Timeline,
        Truncation::Total,
    ];

    /// The keys serialize to the names the string-keyed map had, and a map keyed by them keeps
    /// the order a map keyed by those strings had, so control views stay byte-identical.
    #[test]
    fn truncation_keys_keep_their_names_and_their_order() {
        for t in EVERY_TRUNCATION {
            assert_eq!(serde_json::to_value(t).unwrap(), t.name());
        }
        let by_enum: BTreeMap<Truncation, u8> =
            EVERY_TRUNCATION.iter().rev().map(|&t| (t, 0)).collect();
        let by_name: BTreeMap<&str, u8> = EVERY_TRUNCATION.iter().map(|t| (t.name(), 0)).collect();
        assert_eq!(
            serde_json::to_string(&by_enum).unwrap(),
            serde_json::to_string(&by_name).unwrap()
        );
    }

    #[test]
    fn an_unknown_truncation_key_is_not_a_control_view() {
        assert!(serde_json::from_str::<Truncation>("\"evidnce\"").is_err());
    }
}
