//! Safe errors and exit codes.
//!
//! Every failure the agent or a script can see is a [`ToolError`]: a stable [`ErrorCode`], the
//! [`Stage`] it belongs to, and a message written from a fixed template. Messages never quote
//! legacy content or input values (serde_json's own messages do, so they never pass through here);
//! the only variable text a message may carry is a field *name* that passed [`safe_name`].
//! Exit codes live in [`exit`], one place, so `--help`, the man page and the README agree.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Process exit codes: stable, documented, one meaning each.
pub mod exit {
    /// `READY`, with or without evidence.
    pub const READY: u8 = 0;
    /// An unexpected internal error (a bug); a safe error JSON is still printed.
    pub const INTERNAL: u8 = 1;
    /// `check`: at least one case failed (or could not be read).
    pub const CASES_FAILED: u8 = 1;
    /// `ledger verify`: the chain is broken or the head is not in it; `replay --verify`: a call
    /// differs from the ledger.
    pub const MISMATCH: u8 = 1;
    /// Usage error (reported by clap).
    pub const USAGE: u8 = 2;
    /// Preflight rejected the call; the legacy response was not read.
    pub const PREFLIGHT: u8 = 3;
    /// `ERROR` from the legacy response or the projector; a live command's timeout, oversized
    /// output or non-zero exit.
    pub const LEGACY: u8 = 4;
    /// The tool's own input is unusable: run context, a response path that cannot be opened, a
    /// legacy command that cannot be started, ledger or output.
    pub const INPUT: u8 = 5;
}

/// Where in the pipeline a call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The boundary's checks, before the legacy response is opened.
    Preflight,
    /// Reading or interpreting the legacy response.
    Legacy,
    /// Turning a legacy response into the canonical result (or an internal fault).
    Projection,
    /// The tool's own inputs: run context, response path, ledger, output file.
    Input,
}

macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal, $stage:ident, $exit:ident;)*) => {
        /// The stable ACI error codes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        pub enum ErrorCode {
            $($(#[$doc])* #[serde(rename = $text)] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The code as it appears in JSON.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $text,)* }
            }

            /// The pipeline stage this code belongs to.
            pub fn stage(self) -> Stage {
                match self { $(ErrorCode::$variant => Stage::$stage,)* }
            }

            /// The process exit code for this error.
            pub fn exit_code(self) -> u8 {
                match self { $(ErrorCode::$variant => exit::$exit,)* }
            }
        }
    };
}

error_codes! {
    /// Blank query or topic, unknown request field, lookback out of range, control characters.
    InvalidRequest => "INVALID_REQUEST", Preflight, PREFLIGHT;
    /// `--run-id` is not the context's run.
    RunNotOwned => "RUN_NOT_OWNED", Preflight, PREFLIGHT;
    /// The run is not ACTIVE.
    RunNotActive => "RUN_NOT_ACTIVE", Preflight, PREFLIGHT;
    /// No `authorized_tools` pattern matches the tool.
    UnauthorizedTool => "UNAUTHORIZED_TOOL", Preflight, PREFLIGHT;
    /// A READ_ONLY run called a tool not declared read-only.
    ReadOnlyViolation => "READ_ONLY_VIOLATION", Preflight, PREFLIGHT;
    /// The call id was already used in this run.
    DuplicateToolCall => "DUPLICATE_TOOL_CALL", Preflight, PREFLIGHT;
    /// The same normalized scope was already asked and the run rejects repeats.
    DuplicateScope => "DUPLICATE_SCOPE", Preflight, PREFLIGHT;
    /// The run's tool calls or observation bytes are spent.
    BudgetExhausted => "BUDGET_EXHAUSTED", Preflight, PREFLIGHT;
    /// The request is larger than its byte bounds.
    RequestTooLarge => "REQUEST_TOO_LARGE", Preflight, PREFLIGHT;
    /// The legacy response is larger than `max_response_bytes` (a live command's output past it
    /// is the same code at the legacy stage, exit 4: see [`ToolError::at_stage`]).
    ResponseTooLarge => "RESPONSE_TOO_LARGE", Preflight, PREFLIGHT;
    /// The legacy tool reported failure.
    LegacyFailure => "LEGACY_FAILURE", Legacy, LEGACY;
    /// The legacy response is not JSON of a recognized shape.
    LegacyMalformed => "LEGACY_MALFORMED", Legacy, LEGACY;
    /// The legacy response could not be read.
    ResponseUnreadable => "RESPONSE_UNREADABLE", Legacy, LEGACY;
    /// A live legacy command did not finish within `legacy_timeout_ms`; its process group was
    /// killed.
    LegacyTimeout => "LEGACY_TIMEOUT", Legacy, LEGACY;
    /// A live legacy command exited with a non-zero status (or was ended by a signal).
    LegacyFailed => "LEGACY_FAILED", Legacy, LEGACY;
    /// The run rejects untrusted content and the result held text addressed to the model.
    UntrustedContent => "UNTRUSTED_CONTENT", Projection, LEGACY;
    /// The response could not be projected into the contract.
    ProjectionFailed => "PROJECTION_FAILED", Projection, LEGACY;
    /// The legacy response *file* cannot be opened (missing, a directory, no permission): the
    /// caller's own input, so the call is not recorded and its id stays unused.
    ResponseFileUnavailable => "RESPONSE_FILE_UNAVAILABLE", Input, INPUT;
    /// A live legacy command cannot be started (not found, not executable): the caller's own
    /// input, like a mistyped response path, so the call is not recorded.
    LegacyCommandUnavailable => "LEGACY_COMMAND_UNAVAILABLE", Input, INPUT;
    /// The run context is unreadable or invalid.
    InvalidContext => "INVALID_CONTEXT", Input, INPUT;
    /// The ledger cannot be created, locked, read or written.
    LedgerUnavailable => "LEDGER_UNAVAILABLE", Input, INPUT;
    /// The ledger holds a damaged record before its last line.
    LedgerCorrupt => "LEDGER_CORRUPT", Input, INPUT;
    /// The output file cannot be written.
    OutputUnwritable => "OUTPUT_UNWRITABLE", Input, INPUT;
    /// A bug in aciproj.
    InternalError => "INTERNAL_ERROR", Projection, INTERNAL;
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The longest error message ever emitted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 256;

/// A safe, bounded error: a code and a message from a fixed template.
///
/// It may also carry an operator diagnostic (a path and the operating system's reason, a
/// position in a malformed document) for standard error. The diagnostic never reaches the
/// agent-facing JSON, which reads only [`ToolError::message`]; it is not part of `Display`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    code: ErrorCode,
    message: String,
    diagnostic: Option<String>,
    /// The stage, when it is not the code's own (see [`ToolError::at_stage`]).
    stage: Option<Stage>,
}

impl ToolError {
    /// An error whose message is a fixed template.
    pub fn new(code: ErrorCode, message: &'static str) -> Self {
        Self::bounded(code, message.to_owned())
    }

    /// An error whose template names a field: `template` holds `{}` where the name goes. A name
    /// that does not look like a field name is replaced by "a field", so no value leaks through.
    pub fn naming(code: ErrorCode, template: &'static str, name: &str) -> Self {
        let name = safe_name(name).map_or_else(|| "a field".to_owned(), |n| format!("`{n}`"));
        Self::bounded(code, template.replacen("{}", &name, 1))
    }

    /// An error carrying numbers (line, column, counts), which are never secret.
    pub fn numbered(code: ErrorCode, template: &'static str, numbers: &[u64]) -> Self {
        let mut message = template.to_owned();
        for n in numbers {
            message = message.replacen("{}", &n.to_string(), 1);
        }
        Self::bounded(code, message)
    }

    /// The same error with the allowed values listed after its message ("expected one of A, B").
    /// Each must look like a name ([`safe_name`]); otherwise the message is left as it was.
    pub fn with_choices(self, choices: &[&str]) -> Self {
        if choices.is_empty() || choices.iter().any(|c| safe_name(c).is_none()) {
            return self;
        }
        let diagnostic = self.diagnostic;
        let mut e = Self::bounded(
            self.code,
            format!("{}: expected one of {}", self.message, choices.join(", ")),
        );
        e.diagnostic = diagnostic;
        e
    }

    /// The same error with a fixed prefix (a document's name) before its message.
    pub fn with_prefix(self, prefix: &'static str) -> Self {
        if prefix.is_empty() {
            return self;
        }
        let diagnostic = self.diagnostic;
        let mut e = Self::bounded(self.code, format!("{prefix}{}", self.message));
        e.diagnostic = diagnostic;
        e
    }

    fn bounded(code: ErrorCode, message: String) -> Self {
        let cut = crate::bounds::prefix_within(&message, MAX_MESSAGE_BYTES)
            .0
            .len();
        let mut message = message;
        message.truncate(cut);
        Self {
            code,
            message,
            diagnostic: None,
            stage: None,
        }
    }

    /// The same error at another stage than its code's own, with that stage's exit code: the
    /// output of a live legacy command that grows past `max_response_bytes` is
    /// `RESPONSE_TOO_LARGE` found while reading (legacy, exit 4), not by preflight.
    pub fn at_stage(mut self, stage: Stage) -> Self {
        self.stage = (stage != self.code.stage()).then_some(stage);
        self
    }

    /// The same error with an operator diagnostic for standard error (never for the agent):
    /// paths are the operator's own, values from documents must not be put here.
    pub fn with_diagnostic(mut self, diagnostic: impl Into<String>) -> Self {
        self.diagnostic = Some(diagnostic.into());
        self
    }

    /// The operator diagnostic, when the failing layer knew more than the template says.
    pub fn diagnostic(&self) -> Option<&str> {
        self.diagnostic.as_deref()
    }

    /// The ACI error code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The stage the error belongs to.
    pub fn stage(&self) -> Stage {
        self.stage.unwrap_or(self.code.stage())
    }

    /// The safe, human-readable message (at most [`MAX_MESSAGE_BYTES`]).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self.stage {
            None => self.code.exit_code(),
            Some(Stage::Preflight) => exit::PREFLIGHT,
            Some(Stage::Legacy | Stage::Projection) => exit::LEGACY,
            Some(Stage::Input) => exit::INPUT,
        }
    }
}

/// The operating system's reason for an I/O error, without the `(os error N)` suffix (and
/// without what a wrapper added after it, such as tempfile's "at path …"): "No such file or
/// directory".
pub fn os_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// Returns `name` when it looks like a field path (`budget.max_tool_calls`, `prior_calls[2].tool`)
/// and is short, so it can be named in a message without echoing arbitrary input.
pub fn safe_name(name: &str) -> Option<&str> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'[' | b']'));
    ok.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_refuses_values_that_do_not_look_like_names() {
        let e = ToolError::naming(
            ErrorCode::InvalidContext,
            "unknown field {}",
            "pass=hunter2 x",
        );
        assert_eq!(e.message(), "unknown field a field");
        let e = ToolError::naming(ErrorCode::InvalidContext, "unknown field {}", "budgett");
        assert_eq!(e.message(), "unknown field `budgett`");
    }

    #[test]
    fn os_reasons_drop_the_error_number_and_wrappers() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(os_reason(&e), "No such file or directory");
        let wrapped = std::io::Error::new(e.kind(), format!("{e} at path \"/x/.tmp\""));
        assert_eq!(os_reason(&wrapped), "No such file or directory");
        let plain = std::io::Error::other("pipe closed");
        assert_eq!(os_reason(&plain), "pipe closed");
    }

    #[test]
    fn choices_are_listed_only_when_they_look_like_names() {
        let e = ToolError::naming(ErrorCode::InvalidContext, "invalid value at {}", "status");
        let listed = e.clone().with_choices(&["ACTIVE", "FAILED"]);
        assert_eq!(
            listed.message(),
            "invalid value at `status`: expected one of ACTIVE, FAILED"
        );
        let refused = e.clone().with_choices(&["ACTIVE", "pass word"]);
        assert_eq!(refused.message(), e.message());
    }

    #[test]
    fn diagnostics_stay_out_of_the_message_and_display() {
        let e = ToolError::new(
            ErrorCode::InvalidContext,
            "the run context file cannot be read",
        )
        .with_diagnostic("cannot read the run context /secret/path.json: denied");
        assert!(!e.message().contains("/secret"));
        assert!(!e.to_string().contains("/secret"));
        assert_eq!(
            e.with_prefix("x: ").diagnostic(),
            Some("cannot read the run context /secret/path.json: denied")
        );
    }

    #[test]
    fn messages_are_bounded() {
        let long: &'static str = Box::leak("é".repeat(400).into_boxed_str());
        let e = ToolError::new(ErrorCode::InternalError, long);
        assert!(e.message().len() <= MAX_MESSAGE_BYTES);
        assert!(e.message().chars().all(|c| c == 'é'));
    }

    #[test]
    fn every_code_has_a_stage_consistent_exit() {
        for code in ErrorCode::ALL {
            let expected = match (code.stage(), code) {
                (_, ErrorCode::InternalError) => exit::INTERNAL,
                (Stage::Preflight, _) => exit::PREFLIGHT,
                (Stage::Legacy | Stage::Projection, _) => exit::LEGACY,
                (Stage::Input, _) => exit::INPUT,
            };
            assert_eq!(code.exit_code(), expected, "{code}");
        }
    }
}
