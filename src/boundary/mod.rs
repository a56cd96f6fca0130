//! The ToolBoundary: the one path every call takes.
//!
//! `execute` runs the pipeline of SPEC §3–§6 in one direction: lock and read the run's records →
//! preflight → read the legacy response → project within the call's total bound → derive the
//! views → append the canonical record → return. The framework's `tool_call_id` and the run's id
//! are carried byte for byte; the boundary never mints an id and writes no store but the ledger
//! (and its index, a cache derived from it).

pub mod arguments;
pub mod chain;
pub mod ledger;
mod ledger_index;
pub(crate) mod lines;
pub mod live;
pub(crate) mod preflight;
pub(crate) mod scope;

use std::io::Read;
use std::path::Path;

use crate::bounds::json_len;
use crate::context::{MAX_ID_BYTES, RunContext, has_control};
use crate::contracts::{
    BudgetUse, CallStatus, ControlError, ControlView, Envelope, ErrorBody, ErrorObservation,
    LedgerRecord, ModelError, ModelObservation, Tool, ToolResult,
};
use crate::error::{ErrorCode, ToolError};
use crate::legacy;
use crate::legacy::logs::ReadFailure;
use crate::project::{self, Projection};

pub use ledger::LedgerStore;
pub use live::{LegacyCommand, LegacyResponse, LegacyTool, LiveCall, LiveEnd};
use preflight::{Admission, History};

/// A tool's business request: only the logical fields the seeds allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolRequest {
    /// A knowledge search.
    Rag {
        /// The query, passed through unchanged.
        query: String,
    },
    /// A Mock log query.
    Logs {
        /// The log topic.
        topic: String,
        /// The query.
        query: String,
        /// The lookback; 60 minutes when absent. Out of 1..=10080 is `INVALID_REQUEST`.
        lookback_minutes: Option<i64>,
    },
}

impl ToolRequest {
    /// The tool this request is for.
    pub fn tool(&self) -> Tool {
        match self {
            ToolRequest::Rag { .. } => Tool::Rag,
            ToolRequest::Logs { .. } => Tool::Logs,
        }
    }
}

/// One call from the framework.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The framework's call id, byte for byte.
    pub tool_call_id: String,
    /// The run the framework believes it is in; checked against the context.
    pub run_id: Option<String>,
    /// The business request.
    pub request: ToolRequest,
}

/// Where the legacy response comes from: captured (a file, standard input, bytes) or live.
///
/// `Live` is the extension point: the boundary starts the [`LegacyTool`] only once preflight
/// admitted the call, so a refused call never reaches the legacy side. [`LegacyCommand`] runs a
/// program (what `aciproj rag|logs … -- CMD` does); a harness implements [`LegacyTool`] for its
/// own transport (an HTTP client) and gets the same bounds, ledger record and views.
pub enum LegacySource<'a> {
    /// A file; only its length is looked at before preflight passes.
    File(&'a Path),
    /// Standard input.
    Stdin,
    /// Bytes already in memory.
    Bytes(&'a [u8]),
    /// A live legacy tool, started after preflight admitted the call.
    Live(&'a mut dyn LegacyTool),
}

impl std::fmt::Debug for LegacySource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => f.debug_tuple("File").field(path).finish(),
            Self::Stdin => f.write_str("Stdin"),
            Self::Bytes(bytes) => f.debug_tuple("Bytes").field(&bytes.len()).finish(),
            Self::Live(tool) => f.debug_tuple("Live").field(&tool.describe()).finish(),
        }
    }
}

impl LegacySource<'_> {
    /// How a diagnostic names where the response came from (the path is the operator's own).
    fn described(&self) -> String {
        match self {
            LegacySource::File(path) => format!(" {}", path.display()),
            LegacySource::Stdin => " on standard input".to_owned(),
            LegacySource::Bytes(_) => String::new(),
            LegacySource::Live(tool) => format!(" from {}", tool.describe()),
        }
    }
}

/// The finished call: its result or safe error, and the harness's control view.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    tool: Tool,
    result: Result<ToolResult, ToolError>,
    control: ControlView,
    recorded: Option<LedgerRecord>,
}

impl CallOutcome {
    fn new(tool: Tool, run_id: Option<String>, tool_call_id: Option<String>) -> Self {
        let control = ControlView {
            tool,
            run_id,
            tool_call_id,
            status: CallStatus::Error,
            evidence_status: None,
            error: None,
            returned_count: None,
            match_count: None,
            scope: None,
            scope_fingerprint: None,
            duplicate_of: None,
            relevance_level: None,
            truncated: None,
            truncation: Default::default(),
            redactions: Default::default(),
            redactions_by_rule: Default::default(),
            redaction_rules_disabled: Vec::new(),
            correlation: None,
            skipped_entries: None,
            untrusted: None,
            result_bytes: None,
            observation_bytes: 0,
            budget: None,
            ledger_head: None,
            legacy_exit: None,
            legacy_stderr_bytes: None,
        };
        let pending = Err(ToolError::new(
            ErrorCode::InternalError,
            "the call did not finish",
        ));
        // The call's identity lives in the control view; the other views read it from there.
        Self {
            tool,
            result: pending,
            control,
            recorded: None,
        }
    }

    /// An outcome for a call that failed before the boundary could run it (e.g. an unreadable
    /// run context): no run is known beyond what the caller passes.
    pub fn failed(
        tool: Tool,
        run_id: Option<String>,
        tool_call_id: Option<String>,
        error: ToolError,
    ) -> Self {
        let mut outcome = Self::new(
            tool,
            run_id.filter(|id| valid_id(id)),
            tool_call_id.filter(|id| valid_id(id)),
        );
        outcome.finish(Err(error));
        outcome
    }

    fn finish(&mut self, result: Result<ToolResult, ToolError>) {
        self.result = result;
        let c = &mut self.control;
        match &self.result {
            Ok(r) => {
                c.status = CallStatus::Ready;
                c.evidence_status = Some(r.evidence_status());
                c.error = None;
                c.returned_count = Some(r.returned_count());
                c.truncated = Some(r.truncated());
                c.result_bytes = Some(json_len(r) as u64);
                if let ToolResult::Logs(l) = r {
                    c.match_count = Some(l.match_count);
                }
            }
            Err(e) => {
                c.status = CallStatus::Error;
                c.evidence_status = None;
                c.error = Some(ControlError {
                    stage: e.stage(),
                    code: e.code(),
                });
                c.returned_count = None;
                c.truncated = None;
                c.result_bytes = None;
            }
        }
        self.control.observation_bytes = json_len(&self.model_observation()) as u64;
    }

    /// The tool called.
    pub fn tool(&self) -> Tool {
        self.tool
    }

    /// The canonical result or the safe error.
    pub fn result(&self) -> Result<&ToolResult, &ToolError> {
        self.result.as_ref()
    }

    /// The process exit code for this outcome.
    pub fn exit_code(&self) -> u8 {
        match &self.result {
            Ok(_) => crate::error::exit::READY,
            Err(e) => e.exit_code(),
        }
    }

    /// The default view.
    pub fn envelope(&self) -> Envelope {
        let (result, error) = match &self.result {
            Ok(r) => (Some(r.clone()), None),
            Err(e) => (
                None,
                Some(ErrorBody {
                    stage: e.stage(),
                    code: e.code(),
                    message: e.message().to_owned(),
                }),
            ),
        };
        Envelope {
            status: self.control.status,
            tool: self.tool,
            run_id: self.control.run_id.clone(),
            tool_call_id: self.control.tool_call_id.clone(),
            result,
            error,
        }
    }

    /// What the model reads.
    pub fn model_observation(&self) -> ModelObservation {
        match &self.result {
            Ok(r) => ModelObservation::of_result(r),
            Err(e) => ModelObservation::Error(ErrorObservation {
                status: CallStatus::Error,
                tool_call_id: self.control.tool_call_id.clone(),
                error: ModelError {
                    code: e.code(),
                    message: e.message().to_owned(),
                },
            }),
        }
    }

    /// What the harness reads.
    pub fn control_view(&self) -> &ControlView {
        &self.control
    }

    /// The canonical record this call appended to the run's records, when it was admitted
    /// (`prev_sha256` is the ledger file's business and not set here). Replay compares it with
    /// the live ledger.
    pub fn ledger_record(&self) -> Option<&LedgerRecord> {
        self.recorded.as_ref()
    }

    fn record(&self) -> LedgerRecord {
        let c = &self.control;
        LedgerRecord {
            run_id: self.control.run_id.clone(),
            tool_call_id: self.control.tool_call_id.clone().unwrap_or_default(),
            tool: self.tool.name().to_owned(),
            status: Some(c.status),
            stage: c.error.map(|e| e.stage),
            code: c.error.map(|e| e.code.as_str().to_owned()),
            evidence_status: c.evidence_status,
            scope_fingerprint: c.scope_fingerprint.clone(),
            returned_count: c.returned_count,
            truncated: c.truncated,
            observation_bytes: Some(c.observation_bytes),
            result_sha256: self
                .result
                .as_ref()
                .ok()
                .map(|r| scope::sha256_hex(&serde_json::to_vec(r).unwrap_or_default())),
            prev_sha256: None,
        }
    }
}

/// An id that may be echoed: within 128 bytes and free of control characters.
fn valid_id(id: &str) -> bool {
    id.len() <= MAX_ID_BYTES && !has_control(id)
}

/// Runs calls for one run context.
///
/// By default a boundary does all its work on the caller's thread and touches nothing
/// process-wide: no thread, no CPU affinity, no hook. [`ToolBoundary::parallel`] lets a logs call
/// use a second core; the bytes of every outcome are the same either way.
#[derive(Debug)]
pub struct ToolBoundary {
    context: RunContext,
    ledger: LedgerStore,
    parallel: bool,
}

impl ToolBoundary {
    /// A boundary over the context's ledger file (or none when the context names none).
    pub fn new(context: RunContext) -> Self {
        let ledger = match &context.ledger {
            Some(path) => LedgerStore::File(path.clone()),
            None => LedgerStore::None,
        };
        Self::with_ledger(context, ledger)
    }

    /// A boundary with an explicit store (replay uses a fresh in-memory one).
    pub fn with_ledger(context: RunContext, ledger: LedgerStore) -> Self {
        Self {
            context,
            ledger,
            parallel: false,
        }
    }

    /// Whether a logs call may use a second core (off unless asked).
    ///
    /// When on, the first logs call starts compiling the redaction rules on a thread of its own
    /// (once per process, [`crate::redact::warm_up_in_background`]), and a response larger than
    /// one batch is prepared on a worker thread that moves itself off the caller's core (it
    /// changes its own CPU affinity, then allows every core again). Both threads end with the
    /// call, except the warm-up thread, which ends when the rules are built. The command line
    /// turns this on; a harness embedding the crate in a server decides for itself.
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// The run context.
    pub fn context(&self) -> &RunContext {
        &self.context
    }

    /// Executes one call: preflight, read, project, record.
    pub fn execute(&mut self, call: &ToolCall, legacy: LegacySource<'_>) -> CallOutcome {
        let tool = call.request.tool();
        let echo = |id: &str| valid_id(id).then(|| id.to_owned());
        let mut outcome =
            CallOutcome::new(tool, echo(&self.context.run_id), echo(&call.tool_call_id));
        let context = &self.context;
        let probe = preflight::fingerprint_of(&call.request);
        let fresh = || prior_history(context, Some(&call.tool_call_id), Some(probe.clone()));
        let (mut session, history) = match self.ledger.open(&fresh) {
            Ok(s) => s,
            Err(e) => {
                outcome.finish(Err(ledger_diagnostic(e, context)));
                return outcome;
            }
        };
        let (calls_used, bytes_used) = (history.calls_used(), history.observation_bytes_used());
        let budget = |calls: u64, bytes: u64| BudgetUse {
            tool_calls_used: calls,
            tool_calls_left: context.budget.max_tool_calls.saturating_sub(calls),
            observation_bytes_used: bytes,
            observation_bytes_left: context.budget.max_observation_bytes.saturating_sub(bytes),
        };
        outcome.control.budget = Some(budget(calls_used, bytes_used));

        let admission = match preflight::check(context, call, &history, &legacy) {
            Ok(a) => a,
            Err(e) => {
                // A rejected call is not recorded: the ledger stays byte-identical.
                outcome.finish(Err(e));
                return outcome;
            }
        };
        drop(history);
        let source = legacy.described();
        let live = LiveCall {
            call,
            run_id: &context.run_id,
            lookback_minutes: admission.logs_scope.as_ref().map(|s| s.lookback_minutes),
            timeout: std::time::Duration::from_millis(match call.request.tool() {
                Tool::Rag => context.limits.rag.legacy_timeout_ms,
                Tool::Logs => context.limits.logs.legacy_timeout_ms,
            }),
            max_response_bytes: match call.request.tool() {
                Tool::Rag => context.limits.rag.max_response_bytes,
                Tool::Logs => context.limits.logs.max_response_bytes,
            },
        };
        // A response path that cannot be opened, or a command that cannot be started, is the
        // caller's mistake, not the legacy tool's answer: the call is not recorded, so the same
        // call id works once the path or command is right.
        let mut opened = match Opened::open(legacy, &live) {
            Ok(o) => o,
            Err(e) => {
                outcome.finish(Err(e));
                return outcome;
            }
        };
        outcome.control.scope = Some(admission.scope.clone());
        outcome.control.scope_fingerprint = Some(admission.fingerprint.clone());
        outcome.control.duplicate_of = admission.duplicate_of.clone();
        outcome.control.redaction_rules_disabled = (context.redaction.disabled_rules().iter())
            .map(|id| (*id).to_owned())
            .collect();

        let projected = run_projection(context, call, &admission, &mut opened, self.parallel);
        let projected = match opened {
            // How the tool ended outranks what its bytes gave: a failed command's output is
            // not its answer.
            Opened::Live(response) => {
                let end = response.finish();
                outcome.control.legacy_exit = end.exit;
                outcome.control.legacy_stderr_bytes = end.stderr_bytes;
                match end.error {
                    Some(e) => Err(e),
                    None => projected,
                }
            }
            _ => projected,
        }
        .map_err(|e| with_source(e, &source));
        let result = projected.and_then(|p| {
            outcome.control.truncation = p.truncation;
            outcome.control.redactions = p.redactions;
            outcome.control.redactions_by_rule = p.redactions_by_rule;
            outcome.control.correlation = p.correlation;
            outcome.control.relevance_level = p.relevance;
            outcome.control.skipped_entries = p.skipped_entries;
            let rejected = p
                .untrusted
                .as_ref()
                .is_some_and(|u| u.policy == crate::context::UntrustedPolicy::Reject);
            outcome.control.untrusted = p.untrusted;
            if rejected {
                return Err(ToolError::new(
                    ErrorCode::UntrustedContent,
                    "the legacy response holds text addressed to the model, and the run rejects untrusted content",
                ));
            }
            Ok(p.result)
        });
        outcome.finish(result);
        outcome.control.budget = Some(budget(
            calls_used + 1,
            bytes_used.saturating_add(outcome.control.observation_bytes),
        ));
        let record = outcome.record();
        match session.append(&record) {
            Ok(head) => {
                outcome.control.ledger_head = head;
                outcome.recorded = Some(record);
            }
            Err(e) => {
                // Without its record the call did not happen as far as the run knows: never READY.
                outcome.finish(Err(ledger_diagnostic(e, context)));
                outcome.control.budget = Some(budget(calls_used, bytes_used));
            }
        }
        outcome
    }
}

impl ToolBoundary {
    /// Refuses a call whose request could not even be built (an invalid JSON `arguments` object,
    /// see [`arguments`]) the way preflight refuses an invalid request: the run's counters as
    /// known so far in the control view, nothing recorded, the legacy response never opened.
    pub fn refuse(&mut self, tool: Tool, tool_call_id: &str, error: ToolError) -> CallOutcome {
        let echo = |id: &str| valid_id(id).then(|| id.to_owned());
        let mut outcome = CallOutcome::new(tool, echo(&self.context.run_id), echo(tool_call_id));
        let context = &self.context;
        let fresh = || prior_history(context, None, None);
        let (_session, history) = match self.ledger.open(&fresh) {
            Ok(s) => s,
            Err(e) => {
                outcome.finish(Err(ledger_diagnostic(e, context)));
                return outcome;
            }
        };
        let (calls, bytes) = (history.calls_used(), history.observation_bytes_used());
        outcome.control.budget = Some(BudgetUse {
            tool_calls_used: calls,
            tool_calls_left: context.budget.max_tool_calls.saturating_sub(calls),
            observation_bytes_used: bytes,
            observation_bytes_left: context.budget.max_observation_bytes.saturating_sub(bytes),
        });
        outcome.finish(Err(error));
        outcome
    }
}

/// A history holding the harness's `prior_calls`, before the ledger's records are fed to it.
fn prior_history(context: &RunContext, id: Option<&str>, fingerprint: Option<String>) -> History {
    let mut history = History::new(&context.run_id, id, fingerprint);
    for r in &context.prior_calls {
        history.add_prior(r);
    }
    history
}

/// Names the ledger file in a ledger error's diagnostic (the path is the operator's own).
fn ledger_diagnostic(e: ToolError, context: &RunContext) -> ToolError {
    let shown = context
        .ledger
        .as_deref()
        .map_or_else(String::new, |p| p.display().to_string());
    let diagnostic = match e.diagnostic() {
        Some(d) => d.replacen("{ledger}", &shown, 1),
        None => format!("the ledger {shown}: {}", e.message()),
    };
    e.with_diagnostic(diagnostic)
}

fn run_projection(
    context: &RunContext,
    call: &ToolCall,
    admission: &Admission,
    legacy: &mut Opened<'_>,
    parallel: bool,
) -> Result<Projection, ToolError> {
    match &call.request {
        ToolRequest::Rag { query } => {
            let bytes = read_capped(legacy, context.limits.rag.max_response_bytes)?;
            let response = legacy::rag::read(&bytes)
                .map_err(|e| prefix_diagnostic(e, "the legacy RAG response"))?;
            Ok(project::rag_projection(
                &call.tool_call_id,
                query,
                response,
                &context.limits.rag,
                admission.total_bound,
                context.untrusted_content,
            ))
        }
        ToolRequest::Logs { .. } => {
            let scope = admission
                .logs_scope
                .clone()
                .expect("a logs call is admitted with its logs scope");
            let reopen = legacy.path();
            let mut capped =
                CappedReader::new(legacy.reader(), context.limits.logs.max_response_bytes);
            let projected = project::logs_projection(
                &context.limits.logs,
                &context.timezone,
                &context.redaction,
                context.untrusted_content,
                &call.tool_call_id,
                scope,
                &mut capped,
                admission.total_bound,
                parallel,
            );
            projected.map_err(|failure| match failure {
                _ if capped.exceeded() => too_large(),
                _ if capped.invalid_utf8() => ToolError::new(
                    ErrorCode::LegacyMalformed,
                    "the legacy log response is not valid UTF-8",
                )
                .with_diagnostic(format!(
                    "the legacy log response{{source}} is not valid UTF-8 (within its first {} bytes)",
                    capped.consumed()
                )),
                ReadFailure::Failure => ToolError::new(
                    ErrorCode::LegacyFailure,
                    "the legacy log tool reported a failure",
                ),
                ReadFailure::Unreadable => unreadable()
                    .with_diagnostic("cannot read the legacy log response{source}".to_owned()),
                ReadFailure::Malformed => {
                    // A file can be read again to find where it broke; a stream cannot.
                    let at = reopen
                        .and_then(|p| std::fs::File::open(p).ok())
                        .and_then(legacy::logs::malformed_at);
                    let why = match at {
                        Some((line, column)) => {
                            format!("it breaks at line {line}, column {column}")
                        }
                        None if reopen.is_some() => {
                            "the JSON is well-formed, but it is not the Mock shape (no `logs` array)"
                                .to_owned()
                        }
                        None => format!("it broke within its first {} bytes", capped.consumed()),
                    };
                    ToolError::new(
                        ErrorCode::LegacyMalformed,
                        "the legacy log response is not JSON of a recognized shape",
                    )
                    .with_diagnostic(format!(
                        "the legacy log response{{source}} is not JSON of a recognized shape: {why}"
                    ))
                }
            })
        }
    }
}

/// A diagnostic of the legacy readers is a predicate ("is not valid UTF-8 at byte 7"); this
/// puts its subject, and the `{source}` marker [`with_source`] fills in, in front of it.
fn prefix_diagnostic(e: ToolError, subject: &str) -> ToolError {
    match e.diagnostic().map(str::to_owned) {
        Some(d) => e.with_diagnostic(format!("{subject}{{source}} {d}")),
        None => e,
    }
}

/// Names where the response came from in a diagnostic, as [`LegacySource::described`] says.
fn with_source(e: ToolError, source: &str) -> ToolError {
    match e.diagnostic().map(|d| d.replacen("{source}", source, 1)) {
        Some(d) => e.with_diagnostic(d),
        None => e,
    }
}

/// The response after preflight admitted the call: a file is opened here, once; a live tool is
/// started here, once.
enum Opened<'a> {
    File(std::fs::File, &'a Path, u64),
    Stdin,
    Bytes(&'a [u8]),
    Live(Box<dyn LegacyResponse + 'a>),
}

impl<'a> Opened<'a> {
    fn open(legacy: LegacySource<'a>, live: &LiveCall<'_>) -> Result<Self, ToolError> {
        let unavailable = |path: &Path, reason: String| {
            ToolError::new(
                ErrorCode::ResponseFileUnavailable,
                "the legacy response file cannot be opened",
            )
            .with_diagnostic(format!(
                "cannot open the legacy response {}: {reason}",
                path.display()
            ))
        };
        Ok(match legacy {
            LegacySource::File(path) => {
                let os = |e: std::io::Error| unavailable(path, crate::error::os_reason(&e));
                let file = std::fs::File::open(path).map_err(os)?;
                let meta = file.metadata().map_err(os)?;
                if meta.is_dir() {
                    return Err(unavailable(path, "Is a directory".to_owned()));
                }
                Opened::File(file, path, meta.len())
            }
            LegacySource::Stdin => Opened::Stdin,
            LegacySource::Bytes(bytes) => Opened::Bytes(bytes),
            LegacySource::Live(tool) => Opened::Live(tool.start(live)?),
        })
    }

    fn path(&self) -> Option<&'a Path> {
        match self {
            Opened::File(_, path, _) => Some(path),
            _ => None,
        }
    }

    fn reader(&mut self) -> Box<dyn Read + '_> {
        match self {
            Opened::File(file, _, _) => Box::new(file),
            Opened::Stdin => Box::new(std::io::stdin().lock()),
            Opened::Bytes(bytes) => Box::new(*bytes),
            Opened::Live(response) => Box::new(response),
        }
    }
}

/// The scope as requested, with the window `[now - lookback, now]` on the run's clock.
fn unreadable() -> ToolError {
    ToolError::new(
        ErrorCode::ResponseUnreadable,
        "the legacy response cannot be read",
    )
}

/// Reads the whole response, refusing more than `cap` bytes.
fn read_capped(legacy: &mut Opened<'_>, cap: u64) -> Result<Vec<u8>, ToolError> {
    // Sized from the file up front: growing by doubling would briefly hold twice the response.
    let expected = match &*legacy {
        Opened::File(_, _, len) => (*len).min(cap),
        _ => 0,
    };
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).saturating_add(1));
    legacy
        .reader()
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| {
            unreadable().with_diagnostic(format!(
                "cannot read the legacy response{{source}}: {}",
                crate::error::os_reason(&e)
            ))
        })?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(bytes)
}

fn too_large() -> ToolError {
    ToolError::new(
        ErrorCode::ResponseTooLarge,
        "the legacy response is larger than max_response_bytes",
    )
}

/// A reader that fails once more than its allowance was read, so a streamed response larger
/// than `max_response_bytes` is refused rather than projected from a prefix; and once the bytes
/// stop being UTF-8 anywhere, also inside fields the parser skips without decoding them: JSON is
/// UTF-8, and a boundary should not accept a document other parsers would reject or read apart.
pub(crate) struct CappedReader<R> {
    inner: R,
    limit: u64,
    left: u64,
    exceeded: bool,
    utf8: Utf8Check,
}

impl<R> CappedReader<R> {
    /// A reader allowed `limit` bytes.
    pub fn new(inner: R, limit: u64) -> Self {
        Self {
            inner,
            limit,
            left: limit,
            exceeded: false,
            utf8: Utf8Check::default(),
        }
    }

    /// Whether the allowance was exceeded.
    pub fn exceeded(&self) -> bool {
        self.exceeded
    }

    /// How many bytes were read so far.
    pub fn consumed(&self) -> u64 {
        self.limit - self.left
    }

    /// Whether the bytes were not UTF-8.
    pub fn invalid_utf8(&self) -> bool {
        self.utf8.invalid
    }
}

impl<R: Read> Read for CappedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            self.exceeded = true;
            self.left = 0;
            return Err(std::io::Error::other("response larger than its bound"));
        }
        self.left -= n as u64;
        let valid = if n == 0 {
            self.utf8.finish()
        } else {
            self.utf8.feed(&buf[..n])
        };
        if !valid {
            return Err(std::io::Error::other("response is not UTF-8"));
        }
        Ok(n)
    }
}

/// Incremental UTF-8 validation: a character split between two reads is carried over.
#[derive(Debug, Default)]
struct Utf8Check {
    pending: [u8; 4],
    pending_len: usize,
    invalid: bool,
}

impl Utf8Check {
    fn feed(&mut self, mut chunk: &[u8]) -> bool {
        if self.pending_len > 0 {
            let want = match self.pending[0] {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            while self.pending_len < want && !chunk.is_empty() {
                self.pending[self.pending_len] = chunk[0];
                self.pending_len += 1;
                chunk = &chunk[1..];
            }
            if self.pending_len < want {
                return true;
            }
            if std::str::from_utf8(&self.pending[..want]).is_err() {
                self.invalid = true;
                return false;
            }
            self.pending_len = 0;
        }
        // The common case, a whole chunk of UTF-8, at SIMD speed (std's check was 3.5% of a
        // large call); an error, or a character cut at the end, is worked out by std's.
        if simdutf8::basic::from_utf8(chunk).is_ok() {
            return true;
        }
        match std::str::from_utf8(chunk) {
            Ok(_) => true,
            Err(e) if e.error_len().is_some() => {
                self.invalid = true;
                false
            }
            Err(e) => {
                // An incomplete character at the end (at most three bytes): finish it next time.
                let rest = &chunk[e.valid_up_to()..];
                self.pending[..rest.len()].copy_from_slice(rest);
                self.pending_len = rest.len();
                true
            }
        }
    }

    fn finish(&mut self) -> bool {
        if self.pending_len > 0 {
            self.invalid = true;
        }
        !self.invalid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8], chunk: usize) -> (bool, bool) {
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut r = CappedReader::new(Chunks(bytes, chunk), 1 << 20);
        let mut out = Vec::new();
        let ok = r.read_to_end(&mut out).is_ok();
        (ok, r.invalid_utf8())
    }

    #[test]
    fn utf8_is_checked_across_read_boundaries() {
        let text = "内存碎片 😀 ok é".as_bytes();
        for chunk in 1..8 {
            assert_eq!(read_all(text, chunk), (true, false), "chunk {chunk}");
        }
        for bad in [&b"ok \xff"[..], b"\xe5\x86", b"a\xed\xa0\x80b", b"\xc0\xaf"] {
            for chunk in 1..5 {
                assert_eq!(read_all(bad, chunk), (false, true), "{bad:?} chunk {chunk}");
            }
        }
    }

    #[test]
    fn the_allowance_is_enforced() {
        let mut r = CappedReader::new(&b"0123456789"[..], 4);
        let mut out = Vec::new();
        assert!(r.read_to_end(&mut out).is_err());
        assert!(r.exceeded() && !r.invalid_utf8());
    }

    /// Review find: broken JSON early in a long entry, on standard input over its allowance, was
    /// refused as too large: the reader read on to find the entry's end. It is malformed, and
    /// the reader stops where the JSON broke, well before the allowance.
    #[test]
    fn broken_json_in_a_long_entry_stops_the_read_before_the_allowance() {
        let doc = format!(
            r#"{{"success":true,"logs":[{{"message":"m"x{}"}}]}}"#,
            "y".repeat(300_000)
        );
        let mut capped = CappedReader::new(doc.as_bytes(), 200_000);
        let read = crate::legacy::logs::read(&mut capped, &mut |_| {});
        assert_eq!(read, Err(ReadFailure::Malformed));
        assert!(!capped.exceeded());
    }
}
