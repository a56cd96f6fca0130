//! The boundary's preflight checks (SPEC §3), in their fixed order; the first failure wins.
//!
//! Nothing here opens the legacy response: the size check only asks the file system for the
//! file's length. A call that fails preflight never reaches a reader or a projector.

use std::collections::HashSet;

use crate::bounds::json_len;
use crate::context::{DuplicateScope, MAX_ID_BYTES, RunContext, RunMode, RunStatus, has_control};
use crate::contracts::{LedgerRecord, LogsScope, LogsToolResult, NormalizedScope, RagToolResult};
use crate::error::{ErrorCode, ToolError};

use super::scope;
use super::{LegacySource, ToolCall, ToolRequest};

/// The default lookback of a log query, in minutes.
pub const DEFAULT_LOOKBACK_MINUTES: u32 = 60;
/// The longest lookback a log query may ask for (one week).
pub const MAX_LOOKBACK_MINUTES: i64 = 10080;

/// What preflight learned about an admitted call.
#[derive(Debug, Clone)]
pub struct Admission {
    /// The normalized scope.
    pub scope: NormalizedScope,
    /// Its fingerprint.
    pub fingerprint: String,
    /// The earlier call with the same fingerprint, if any.
    pub duplicate_of: Option<String>,
    /// The total bound of this call: `max_total_bytes` capped by the observation budget left.
    pub total_bound: usize,
    /// For a logs call, the scope its result echoes, with the window fixed at admission.
    pub logs_scope: Option<LogsScope>,
}

/// Everything the run has done so far: the harness's `prior_calls` and this run's ledger
/// records, fed one at a time (the ledger is streamed, never held).
///
/// Only what preflight asks is kept: the prior calls' ids (a hash set: a call reported by the
/// harness and the ledger counts once), the run's call count and observation bytes, whether
/// this call's id was seen, and the first call with this call's scope fingerprint. The ledger's
/// own records are not collected: the appender never admits an id twice, so each record of the
/// run is one call (a record copied by hand counts again: stricter, never looser).
#[derive(Debug, Clone)]
pub struct History {
    run_id: String,
    probe_id: Option<String>,
    probe_fingerprint: Option<String>,
    prior_ids: HashSet<String>,
    calls: u64,
    observation_bytes: u64,
    probe_id_seen: bool,
    first_with_probe: Option<String>,
}

impl History {
    /// An empty history of run `run_id`, watching for the call id `probe_id` and for calls with
    /// the scope fingerprint `probe_fingerprint`.
    pub fn new(run_id: &str, probe_id: Option<&str>, probe_fingerprint: Option<String>) -> Self {
        Self {
            run_id: run_id.to_owned(),
            probe_id: probe_id.map(str::to_owned),
            probe_fingerprint,
            prior_ids: HashSet::new(),
            calls: 0,
            observation_bytes: 0,
            probe_id_seen: false,
            first_with_probe: None,
        }
    }

    /// The run this history is of.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Adds one of the harness's prior calls (before any ledger record).
    pub fn add_prior(&mut self, r: &LedgerRecord) {
        if r.run_id.as_deref().is_some_and(|id| id != self.run_id)
            || self.prior_ids.contains(&r.tool_call_id)
        {
            return;
        }
        self.prior_ids.insert(r.tool_call_id.clone());
        self.count(
            &r.tool_call_id,
            r.scope_fingerprint.as_deref(),
            r.observation_bytes,
        );
    }

    /// Adds one ledger record; records of other runs are ignored (a record without a run id
    /// counts for every run), and so is a call the harness also reported.
    pub fn add(
        &mut self,
        run_id: Option<&str>,
        tool_call_id: &str,
        fingerprint: Option<&str>,
        observation_bytes: Option<u64>,
    ) {
        if run_id.is_some_and(|id| id != self.run_id)
            || (!self.prior_ids.is_empty() && self.prior_ids.contains(tool_call_id))
        {
            return;
        }
        self.count(tool_call_id, fingerprint, observation_bytes);
    }

    fn count(&mut self, id: &str, fingerprint: Option<&str>, observation_bytes: Option<u64>) {
        self.calls += 1;
        self.observation_bytes = self
            .observation_bytes
            .saturating_add(observation_bytes.unwrap_or(0));
        if self.probe_id.as_deref() == Some(id) {
            self.probe_id_seen = true;
        }
        if self.first_with_probe.is_none()
            && fingerprint.is_some()
            && fingerprint == self.probe_fingerprint.as_deref()
        {
            self.first_with_probe = Some(id.to_owned());
        }
    }

    /// [`History::add`] of a ledger record.
    pub fn add_record(&mut self, r: &LedgerRecord) {
        self.add(
            r.run_id.as_deref(),
            &r.tool_call_id,
            r.scope_fingerprint.as_deref(),
            r.observation_bytes,
        );
    }

    /// Calls admitted so far.
    pub fn calls_used(&self) -> u64 {
        self.calls
    }

    /// Observation bytes returned so far.
    pub fn observation_bytes_used(&self) -> u64 {
        self.observation_bytes
    }

    /// Whether `id` was used: only known for the id the history watched.
    fn contains_call(&self, id: &str) -> bool {
        debug_assert_eq!(self.probe_id.as_deref(), Some(id));
        self.probe_id.as_deref() == Some(id) && self.probe_id_seen
    }

    /// The first call with `fingerprint`: only known for the fingerprint the history watched.
    fn first_with_fingerprint(&self, fingerprint: &str) -> Option<&str> {
        debug_assert_eq!(self.probe_fingerprint.as_deref(), Some(fingerprint));
        (self.probe_fingerprint.as_deref() == Some(fingerprint))
            .then_some(self.first_with_probe.as_deref())
            .flatten()
    }
}

/// The scope fingerprint a request asks about (what [`History::new`] watches for).
pub fn fingerprint_of(request: &ToolRequest) -> String {
    scope::fingerprint(request.tool(), &normalized_scope(request))
}

fn reject(code: ErrorCode, message: &'static str) -> ToolError {
    ToolError::new(code, message)
}

/// Runs every check in order.
pub fn check(
    ctx: &RunContext,
    call: &ToolCall,
    history: &History,
    legacy: &LegacySource<'_>,
) -> Result<Admission, ToolError> {
    check_request(call)?;
    check_ownership(ctx, call)?;
    let tool = call.request.tool();
    if ctx.lists_no_authorized_tools() {
        // The commonest first mistake: a context written without the field. Say so.
        return Err(reject(
            ErrorCode::UnauthorizedTool,
            "the run context lists no `authorized_tools`, so it authorizes no tool",
        )
        .with_diagnostic(format!(
            "the run context lists no `authorized_tools`, so it authorizes no tool: add the \
             field, e.g. \"authorized_tools\": [\"{}\"]",
            tool.name()
        )));
    }
    if !ctx.authorizes(tool) {
        return Err(reject(
            ErrorCode::UnauthorizedTool,
            "the tool is not authorized for this run",
        ));
    }
    if ctx.mode == RunMode::ReadOnly && !ctx.is_read_only(tool) {
        return Err(reject(
            ErrorCode::ReadOnlyViolation,
            "the run is read-only and the tool is not declared read-only",
        ));
    }
    if history.contains_call(&call.tool_call_id) {
        return Err(reject(
            ErrorCode::DuplicateToolCall,
            "the tool call id was already used in this run",
        ));
    }
    let scope = normalized_scope(&call.request);
    let fingerprint = scope::fingerprint(tool, &scope);
    let duplicate_of = history
        .first_with_fingerprint(&fingerprint)
        .map(str::to_owned);
    if duplicate_of.is_some() && ctx.duplicate_scope == DuplicateScope::Reject {
        return Err(reject(
            ErrorCode::DuplicateScope,
            "the same normalized scope was already asked in this run",
        ));
    }
    let total_bound = check_budget(ctx, call, history)?;
    check_size(ctx, call, legacy)?;
    let logs_scope = match &call.request {
        ToolRequest::Rag { .. } => None,
        ToolRequest::Logs {
            topic,
            query,
            lookback_minutes,
        } => Some(logs_scope(
            ctx,
            topic,
            query,
            lookback_of(*lookback_minutes),
        )),
    };
    Ok(Admission {
        scope,
        fingerprint,
        duplicate_of,
        total_bound,
        logs_scope,
    })
}

/// The scope a logs result echoes: the request, and the window `[now - lookback, now]` on the
/// run's clock in the run's zone.
fn logs_scope(context: &RunContext, topic: &str, query: &str, lookback: u32) -> LogsScope {
    use crate::project::logs::format_stamp;
    let end = context.now;
    let start = end
        .checked_sub(jiff::SignedDuration::from_mins(i64::from(lookback)))
        .unwrap_or(end);
    LogsScope {
        topic: topic.to_owned(),
        query: query.to_owned(),
        lookback_minutes: lookback,
        window_start: format_stamp(start, &context.timezone),
        window_end: format_stamp(end, &context.timezone),
    }
}

fn check_request(call: &ToolCall) -> Result<(), ToolError> {
    let invalid = |m| Err(reject(ErrorCode::InvalidRequest, m));
    if call.tool_call_id.trim().is_empty() || has_control(&call.tool_call_id) {
        return invalid("the tool call id must be non-blank and free of control characters");
    }
    if call
        .run_id
        .as_deref()
        .is_some_and(|id| id.trim().is_empty() || has_control(id))
    {
        return invalid("the run id must be non-blank and free of control characters");
    }
    let (topic, query, lookback) = match &call.request {
        ToolRequest::Rag { query } => (None, query, None),
        ToolRequest::Logs {
            topic,
            query,
            lookback_minutes,
        } => (Some(topic), query, *lookback_minutes),
    };
    if query.trim().is_empty() {
        return invalid("the query must not be blank");
    }
    if has_control(query) {
        return invalid("the query must not contain control characters");
    }
    if let Some(topic) = topic {
        if topic.trim().is_empty() {
            return invalid("the topic must not be blank");
        }
        if has_control(topic) {
            return invalid("the topic must not contain control characters");
        }
    }
    if lookback.is_some_and(|m| !(1..=MAX_LOOKBACK_MINUTES).contains(&m)) {
        return invalid("lookback_minutes must be between 1 and 10080");
    }
    Ok(())
}

fn check_ownership(ctx: &RunContext, call: &ToolCall) -> Result<(), ToolError> {
    if call.run_id.as_deref().is_some_and(|id| id != ctx.run_id) {
        return Err(reject(
            ErrorCode::RunNotOwned,
            "the call names a run other than the context's run",
        ));
    }
    if ctx.status != RunStatus::Active {
        return Err(reject(ErrorCode::RunNotActive, "the run is not active"));
    }
    Ok(())
}

/// The normalized scope of a request.
pub fn normalized_scope(request: &ToolRequest) -> NormalizedScope {
    match request {
        ToolRequest::Rag { query } => NormalizedScope {
            topic: None,
            query: scope::normalize(query),
            lookback_minutes: None,
        },
        ToolRequest::Logs {
            topic,
            query,
            lookback_minutes,
        } => NormalizedScope {
            topic: Some(scope::normalize(topic)),
            query: scope::normalize(query),
            lookback_minutes: Some(lookback_of(*lookback_minutes)),
        },
    }
}

/// The lookback a request uses (validated to 1..=10080 by the request check).
pub fn lookback_of(requested: Option<i64>) -> u32 {
    requested
        .and_then(|m| u32::try_from(m).ok())
        .unwrap_or(DEFAULT_LOOKBACK_MINUTES)
}

fn check_budget(ctx: &RunContext, call: &ToolCall, history: &History) -> Result<usize, ToolError> {
    if history.calls_used() >= ctx.budget.max_tool_calls {
        return Err(reject(
            ErrorCode::BudgetExhausted,
            "the run has used all of its tool calls",
        ));
    }
    let left = ctx
        .budget
        .max_observation_bytes
        .saturating_sub(history.observation_bytes_used());
    let (max_total, empty) = match &call.request {
        ToolRequest::Rag { query } => (
            ctx.limits.rag.max_total_bytes,
            json_len(&RagToolResult::empty(
                call.tool_call_id.clone(),
                query.clone(),
            )),
        ),
        ToolRequest::Logs { topic, query, .. } => (
            ctx.limits.logs.max_total_bytes,
            json_len(&LogsToolResult::worst_case_empty(
                call.tool_call_id.clone(),
                topic.clone(),
                query.clone(),
            )),
        ),
    };
    if (empty as u64) > left {
        return Err(reject(
            ErrorCode::BudgetExhausted,
            "the run's observation budget cannot hold even an empty result",
        ));
    }
    Ok(max_total.min(usize::try_from(left).unwrap_or(usize::MAX)))
}

fn check_size(
    ctx: &RunContext,
    call: &ToolCall,
    legacy: &LegacySource<'_>,
) -> Result<(), ToolError> {
    let too_large = |m| Err(reject(ErrorCode::RequestTooLarge, m));
    if call.tool_call_id.len() > MAX_ID_BYTES
        || call
            .run_id
            .as_ref()
            .is_some_and(|id| id.len() > MAX_ID_BYTES)
    {
        return too_large("call and run ids are at most 128 bytes");
    }
    let (query_max, response_max) = match &call.request {
        ToolRequest::Rag { .. } => (
            ctx.limits.rag.max_query_bytes,
            ctx.limits.rag.max_response_bytes,
        ),
        ToolRequest::Logs { .. } => (
            ctx.limits.logs.max_query_bytes,
            ctx.limits.logs.max_response_bytes,
        ),
    };
    let (topic, query) = match &call.request {
        ToolRequest::Rag { query } => (None, query),
        ToolRequest::Logs { topic, query, .. } => (Some(topic), query),
    };
    if query.len() > query_max {
        return too_large("the query is larger than max_query_bytes");
    }
    if topic.is_some_and(|t| t.len() > ctx.limits.logs.max_topic_bytes) {
        return too_large("the topic is larger than max_topic_bytes");
    }
    let response_len = match legacy {
        // Only the file system is asked; the file is not opened.
        LegacySource::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
        LegacySource::Bytes(bytes) => Some(bytes.len() as u64),
        // Known only by reading: the stream is cut at the bound.
        LegacySource::Stdin | LegacySource::Live(_) => None,
    };
    if response_len.is_some_and(|len| len > response_max) {
        return Err(reject(
            ErrorCode::ResponseTooLarge,
            "the legacy response is larger than max_response_bytes",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(run: Option<&str>, id: &str, fp: Option<&str>, bytes: u64) -> LedgerRecord {
        LedgerRecord {
            run_id: run.map(str::to_owned),
            tool_call_id: id.into(),
            tool: "rag".into(),
            scope_fingerprint: fp.map(str::to_owned),
            observation_bytes: Some(bytes),
            ..LedgerRecord::default()
        }
    }

    #[test]
    fn a_call_reported_by_the_harness_and_the_ledger_counts_once() {
        let mut h = History::new("r", Some("b"), Some("f".into()));
        h.add_prior(&record(Some("r"), "a", None, 10));
        h.add_prior(&record(Some("r"), "a", None, 99));
        h.add_prior(&record(Some("other"), "x", Some("f"), 5));
        h.add_record(&record(Some("r"), "a", None, 10));
        h.add_record(&record(Some("other"), "b", Some("f"), 7));
        h.add_record(&record(None, "c", Some("f"), 1));
        h.add_record(&record(Some("r"), "b", Some("f"), 2));
        assert_eq!((h.calls_used(), h.observation_bytes_used()), (3, 13));
        assert!(h.contains_call("b"));
        assert_eq!(h.first_with_fingerprint("f"), Some("c"));
        let fresh = History::new("r", Some("z"), Some("g".into()));
        assert!(!fresh.contains_call("z"));
        assert_eq!(fresh.first_with_fingerprint("g"), None);
    }
}
