//! `aciproj replay`: re-running a captured run call by call (SPEC §7).
//!
//! An incident folder holds the run's `context.json` and `calls.jsonl`, one call per line as the
//! framework made it (`tool_call_id`, `tool`, JSON `arguments`, the captured response inline or
//! as `response_file`). Every call goes, in order, through ONE boundary over ONE fresh in-memory
//! ledger, so duplicate call ids, duplicate scopes and budgets behave as they did in the original
//! run, and the context's own `ledger` file is never read or written: an operator replaying an
//! incident months later must not disturb, or be disturbed by, the live record. The projector
//! never reads the wall clock, so a replay gives the same bytes the run gave.
//!
//! The whole incident is read and validated before the first call runs: a damaged line is
//! reported with its number (exit 5) instead of replaying half a run, and so is an incident with
//! no call at all (as a `check` pattern that matches nothing fails). A `response_file` that does
//! not exist is not an incident error: the call reports `RESPONSE_FILE_UNAVAILABLE` (not
//! recorded) if it gets that far, and preflight may well reject it before (which is exactly what
//! an operator wants to see). Every error names the file it is about and, for a file that cannot
//! be read, the operating system's reason.

use std::io::Write;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::boundary::arguments::execute_arguments;
use crate::boundary::{CallOutcome, LedgerStore, LegacySource, ToolBoundary};
use crate::cli::View;
use crate::context::RunContext;
use crate::contracts::{CallStatus, Tool};
use crate::render;

/// The largest `calls.jsonl` read (inline responses can be large; a run is still bounded).
const MAX_CALLS_BYTES: u64 = 256 * 1024 * 1024;

/// One line of an incident's `calls.jsonl`: a call as the framework made it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = crate::schema::incident_call_transform)]
pub struct IncidentCall {
    /// The framework's tool call id.
    pub tool_call_id: String,
    /// The tool called.
    pub tool: Tool,
    /// The tool's business arguments as the agent sent them (`query`; `topic`, `query`,
    /// `lookback_minutes`). Anything else fails the call with `INVALID_REQUEST`.
    pub arguments: Map<String, Value>,
    /// The run the framework named (`--run-id`); absent means the context's run.
    #[serde(default)]
    pub run_id: Option<String>,
    /// The captured legacy response, inline as JSON (or give `response_file`).
    #[serde(default)]
    pub response: Option<Value>,
    /// The captured legacy response file, relative to the incident folder (or give `response`).
    #[serde(default)]
    pub response_file: Option<String>,
}

/// Why an incident cannot be replayed (exit 5).
#[derive(Debug, thiserror::Error)]
pub enum IncidentError {
    /// `context.json` is missing or invalid.
    #[error("{message}")]
    Context {
        /// The context file.
        path: PathBuf,
        /// What is wrong, naming the file.
        message: String,
    },
    /// The incident folder is missing or not a folder.
    #[error("cannot read the incident folder {path}: {reason}")]
    FolderUnreadable {
        /// The folder given.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// `calls.jsonl` cannot be read.
    #[error("cannot read the calls {path}: {reason}")]
    CallsUnreadable {
        /// The calls file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// `calls.jsonl` holds no call.
    #[error("{path}: the incident has no calls (every line is blank)")]
    NoCalls {
        /// The calls file.
        path: PathBuf,
    },
    /// `calls.jsonl` is larger than replay reads.
    #[error("{path}: the calls file is larger than 256 MiB")]
    CallsTooLarge {
        /// The calls file.
        path: PathBuf,
    },
    /// A line of `calls.jsonl` is not a valid call.
    #[error("{path}:{line}: {message}")]
    InvalidCall {
        /// The calls file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The safe reason.
        message: String,
    },
}

/// A validated incident, ready to replay.
#[derive(Debug)]
pub struct Incident {
    dir: PathBuf,
    context: RunContext,
    calls: Vec<IncidentCall>,
}

impl Incident {
    /// Reads and validates `context.json` and every line of `calls.jsonl`.
    pub fn load(dir: &Path) -> Result<Self, IncidentError> {
        let folder = |reason: String| IncidentError::FolderUnreadable {
            path: dir.to_owned(),
            reason,
        };
        match std::fs::metadata(dir) {
            Err(e) => return Err(folder(crate::error::os_reason(&e))),
            Ok(m) if !m.is_dir() => {
                return Err(folder(
                    "Not a directory (give the folder that holds context.json and calls.jsonl)"
                        .to_owned(),
                ));
            }
            Ok(_) => {}
        }
        let context_path = dir.join("context.json");
        let context = RunContext::load(&context_path).map_err(|e| IncidentError::Context {
            path: context_path.clone(),
            // The context's diagnostic names the path (and, when unreadable, the reason).
            message: e.diagnostic().map_or_else(
                || format!("{}: {}", context_path.display(), e.message()),
                str::to_owned,
            ),
        })?;
        let calls_path = dir.join("calls.jsonl");
        let unreadable = |reason: String| IncidentError::CallsUnreadable {
            path: calls_path.clone(),
            reason,
        };
        let meta =
            std::fs::metadata(&calls_path).map_err(|e| unreadable(crate::error::os_reason(&e)))?;
        if meta.is_dir() {
            return Err(unreadable("Is a directory".to_owned()));
        }
        if meta.len() > MAX_CALLS_BYTES {
            return Err(IncidentError::CallsTooLarge { path: calls_path });
        }
        let bytes =
            std::fs::read(&calls_path).map_err(|e| unreadable(crate::error::os_reason(&e)))?;
        let mut calls = Vec::new();
        for (index, line) in bytes.split(|b| *b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let invalid = |message: String| IncidentError::InvalidCall {
                path: calls_path.clone(),
                line: index + 1,
                message,
            };
            let call =
                crate::context::parse_strict::<IncidentCall>(line, crate::context::Document::Other)
                    .map_err(|e| invalid(e.message().to_owned()))?;
            if call.response.is_some() == call.response_file.is_some() {
                return Err(invalid(
                    "give exactly one of `response` and `response_file`".into(),
                ));
            }
            calls.push(call);
        }
        if calls.is_empty() {
            return Err(IncidentError::NoCalls { path: calls_path });
        }
        Ok(Self {
            dir: dir.to_owned(),
            context,
            calls,
        })
    }

    /// The calls, in order.
    pub fn calls(&self) -> &[IncidentCall] {
        &self.calls
    }

    /// Replays every call in order through one boundary over a fresh in-memory ledger, handing
    /// each outcome to `each` as it finishes.
    pub fn replay(&self, mut each: impl FnMut(&IncidentCall, &CallOutcome)) {
        let mut boundary =
            ToolBoundary::with_ledger(self.context.clone(), LedgerStore::Memory(Vec::new()));
        for call in &self.calls {
            let bytes;
            let path;
            let legacy = match (&call.response, &call.response_file) {
                (Some(inline), _) => {
                    // Serializing a parsed JSON value cannot fail.
                    bytes = serde_json::to_vec(inline).unwrap_or_default();
                    LegacySource::Bytes(&bytes)
                }
                (None, Some(file)) => {
                    path = self.dir.join(file);
                    LegacySource::File(&path)
                }
                // Excluded by `load`; an empty response would be malformed, never READY.
                (None, None) => LegacySource::Bytes(b""),
            };
            let outcome = execute_arguments(
                &mut boundary,
                call.tool,
                &call.tool_call_id,
                call.run_id.as_deref(),
                &Value::Object(call.arguments.clone()),
                legacy,
            );
            each(call, &outcome);
        }
    }
}

/// One row of the summary table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRow {
    /// The call id (control characters shown as `?`).
    pub call_id: String,
    /// The tool.
    pub tool: &'static str,
    /// READY or ERROR.
    pub status: &'static str,
    /// The error code, or `-`.
    pub code: String,
    /// Bytes of the model observation.
    pub bytes: u64,
    /// `true`/`false`, or `-` for an error.
    pub truncated: String,
}

impl SummaryRow {
    /// The row of one replayed call.
    pub fn of(call: &IncidentCall, outcome: &CallOutcome) -> Self {
        let control = outcome.control_view();
        Self {
            call_id: call
                .tool_call_id
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .collect(),
            tool: outcome.tool().name(),
            status: match control.status {
                CallStatus::Ready => "READY",
                CallStatus::Error => "ERROR",
            },
            code: control
                .error
                .map_or_else(|| "-".to_owned(), |e| e.code.as_str().to_owned()),
            bytes: control.observation_bytes,
            truncated: control
                .truncated
                .map_or_else(|| "-".to_owned(), |t| t.to_string()),
        }
    }
}

/// Writes the summary table, columns aligned.
pub fn write_summary(out: &mut dyn Write, rows: &[SummaryRow]) -> std::io::Result<()> {
    let header = [
        "#",
        "call id",
        "tool",
        "status",
        "code",
        "bytes",
        "truncated",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            [
                (i + 1).to_string(),
                r.call_id.clone(),
                r.tool.to_owned(),
                r.status.to_owned(),
                r.code.clone(),
                r.bytes.to_string(),
                r.truncated.clone(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            s.push_str(cell);
            if i + 1 < cells.len() {
                s.extend(std::iter::repeat_n(' ', w - cell.chars().count()));
            }
        }
        s
    };
    writeln!(out, "{}", line(&header.map(str::to_owned)))?;
    for row in &cells {
        writeln!(out, "{}", line(row))?;
    }
    let ready = rows.iter().filter(|r| r.status == "READY").count();
    writeln!(
        out,
        "replayed {} calls: {} READY, {} ERROR",
        rows.len(),
        ready,
        rows.len() - ready
    )
}

/// Replays the incident in `dir`: one compact JSON line per call in `view` on `stdout`, the
/// summary table on `stderr`.
pub fn run(
    dir: &Path,
    view: View,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Vec<SummaryRow>, ReplayFailure> {
    let incident = Incident::load(dir)?;
    let mut rows = Vec::new();
    let mut io_error = None;
    incident.replay(|call, outcome| {
        if io_error.is_some() {
            return;
        }
        let doc = render::view_value(outcome, view);
        if let Err(e) = stdout.write_all(render::to_text(&doc, false).as_bytes()) {
            io_error = Some(e);
        }
        rows.push(SummaryRow::of(call, outcome));
    });
    if let Some(e) = io_error {
        return Err(ReplayFailure::Output(e));
    }
    stdout.flush().map_err(ReplayFailure::Output)?;
    write_summary(stderr, &rows).map_err(ReplayFailure::Output)?;
    Ok(rows)
}

/// Why `replay` stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayFailure {
    /// The incident cannot be read.
    #[error(transparent)]
    Incident(#[from] IncidentError),
    /// Standard output or error could not be written.
    #[error("cannot write the output: {0}")]
    Output(std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, status: &'static str, code: &str) -> SummaryRow {
        SummaryRow {
            call_id: id.into(),
            tool: "rag",
            status,
            code: code.into(),
            bytes: 12,
            truncated: "-".into(),
        }
    }

    #[test]
    fn summary_columns_align_and_count() {
        let mut out = Vec::new();
        let rows = [
            row("call_1", "READY", "-"),
            row("c", "ERROR", "DUPLICATE_TOOL_CALL"),
        ];
        write_summary(&mut out, &rows).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        let code_at = lines[0].find("code").unwrap();
        assert_eq!(lines[2].find("DUPLICATE_TOOL_CALL"), Some(code_at));
        assert_eq!(lines[1].find('-'), Some(code_at));
        assert_eq!(lines[3], "replayed 2 calls: 1 READY, 1 ERROR");
    }
}
