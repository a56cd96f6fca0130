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
//!
//! `--verify LEDGER` turns a replay into a proof: every call the replay admits must have the
//! same canonical record in the live ledger (same run and call id: status, stage, code, evidence
//! status, scope fingerprint, counts, truncation, observation bytes and `result_sha256`), every
//! call it refuses must be absent from the ledger, no record of the run may be left over, and
//! the ledger's hash chain must hold. Since the projection is deterministic, a match shows that
//! what the agent was given is what this projection gives from the captured inputs. Only counts,
//! codes and hashes are printed, never a value from the legacy side.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::boundary::arguments::execute_arguments;
use crate::boundary::chain::{self, LedgerReadError};
use crate::boundary::{CallOutcome, LedgerStore, LegacySource, ToolBoundary};
use crate::context::RunContext;
use crate::contracts::CallStatus;
use crate::render;
use crate::report::{IncidentReport, ReportCall};
use crate::views::View;

// A line of `calls.jsonl` is a contract (`schema incident-call` prints it), so its type lives in
// `contracts`; this keeps the path `replay::IncidentCall` public as it was.
pub use crate::contracts::IncidentCall;
// The ledger comparison lives in `verify` (the report reads it too); its paths stay here.
pub use crate::verify::{
    CallCheck, FieldDiff, LedgerComparison, Replayed, Unreplayed, Verdict, compare,
};

/// The largest `calls.jsonl` read (inline responses can be large; a run is still bounded).
const MAX_CALLS_BYTES: u64 = 256 * 1024 * 1024;

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

/// What `replay` should do.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// The incident folder: `context.json` and `calls.jsonl`.
    pub incident: PathBuf,
    /// The view written for each call.
    pub view: View,
    /// A live ledger (`-`: standard input) to compare every replayed call with.
    pub verify: Option<PathBuf>,
    /// Also write the HTML incident report here (`-`: standard output, which then carries the
    /// report instead of the JSON lines).
    pub report: Option<PathBuf>,
}

/// What a replay gave.
#[derive(Debug)]
pub struct ReplayReport {
    /// One row per call, as in the summary table.
    pub rows: Vec<SummaryRow>,
    /// The comparison with the live ledger, when [`ReplayOptions::verify`] named one.
    pub comparison: Option<LedgerComparison>,
}

/// `aciproj replay` as a library call: replays the incident, one compact JSON line per call on
/// `stdout`, the summary table (and, with a ledger to verify against, one line per call and a
/// verdict) on `stderr`. The incident and the ledger are both read before the first call runs,
/// and the context's own ledger file is never touched. With [`ReplayOptions::report`], the HTML
/// report is written last (after the comparison it shows); when it goes to `stdout` (`-`), the
/// JSON lines are not written, so the stream holds one HTML document.
pub fn replay(
    options: &ReplayOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<ReplayReport, ReplayFailure> {
    let incident = Incident::load(&options.incident)?;
    let ledger = options.verify.as_deref().map(chain::read).transpose()?;
    let report_to_stdout = options.report.as_deref().is_some_and(is_stream);
    let lines = (!report_to_stdout).then_some(options.view);
    let collect = options.report.is_some();
    let (rows, replayed, mut shown) = replay_and_print(&incident, lines, collect, stdout, stderr)?;
    let comparison = match ledger {
        None => None,
        Some(bytes) => {
            let comparison = compare(&incident.context.run_id, &replayed, &bytes);
            comparison.write(stderr).map_err(ReplayFailure::Output)?;
            Some(comparison)
        }
    };
    if let Some(target) = &options.report {
        if let Some(c) = &comparison {
            for (call, check) in shown.iter_mut().zip(&c.calls) {
                call.check = Some(check.clone());
            }
        }
        let name = options
            .incident
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "incident".to_owned());
        let html = IncidentReport {
            incident: &name,
            run_id: &incident.context.run_id,
            calls: &shown,
            comparison: comparison.as_ref(),
        }
        .render();
        if report_to_stdout {
            stdout
                .write_all(html.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(ReplayFailure::Output)?;
        } else {
            render::write_atomically(target, html.as_bytes()).map_err(|e| {
                ReplayFailure::Report {
                    path: target.clone(),
                    reason: crate::error::os_reason(&e),
                }
            })?;
        }
    }
    Ok(ReplayReport { rows, comparison })
}

/// Whether a path argument names a standard stream.
fn is_stream(path: &Path) -> bool {
    path.as_os_str() == "-"
}

type Collected = (Vec<SummaryRow>, Vec<Replayed>, Vec<ReportCall>);

/// Runs the calls; prints each in `lines`' view (none: no JSON lines) and the summary table;
/// keeps both views of every call when `collect` (for the report).
fn replay_and_print(
    incident: &Incident,
    lines: Option<View>,
    collect: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Collected, ReplayFailure> {
    let mut rows = Vec::new();
    let mut replayed = Vec::new();
    let mut shown = Vec::new();
    let mut io_error = None;
    incident.replay(|call, outcome| {
        if io_error.is_some() {
            return;
        }
        if let Some(view) = lines {
            let doc = render::view_value(outcome, view);
            if let Err(e) = stdout.write_all(render::to_text(&doc, false).as_bytes()) {
                io_error = Some(e);
            }
        }
        rows.push(SummaryRow::of(call, outcome));
        replayed.push(Replayed {
            tool_call_id: call.tool_call_id.clone(),
            record: outcome.ledger_record().cloned(),
            code: outcome.control_view().error.map(|e| e.code),
        });
        if collect {
            shown.push(ReportCall {
                observation: outcome.model_observation(),
                control: outcome.control_view().clone(),
                check: None,
            });
        }
    });
    if let Some(e) = io_error {
        return Err(ReplayFailure::Output(e));
    }
    stdout.flush().map_err(ReplayFailure::Output)?;
    write_summary(stderr, &rows).map_err(ReplayFailure::Output)?;
    Ok((rows, replayed, shown))
}

/// Why `replay` stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayFailure {
    /// The incident cannot be read.
    #[error(transparent)]
    Incident(#[from] IncidentError),
    /// The `--verify` ledger cannot be read.
    #[error(transparent)]
    Ledger(#[from] LedgerReadError),
    /// Standard output or error could not be written.
    #[error("cannot write the output: {0}")]
    Output(std::io::Error),
    /// The `--report` file could not be written.
    #[error("cannot write the report {path}: {reason}")]
    Report {
        /// The report file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
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
