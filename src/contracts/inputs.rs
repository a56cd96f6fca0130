//! The files the operator commands read: a fixture case (`check`'s `*.case.json`) and one line
//! of an incident's `calls.jsonl` (`replay`).
//!
//! They are contracts like the results: `aciproj schema case` and `aciproj schema incident-call`
//! print their schemas, and a harness writes these files for aciproj to read. They live here, not
//! in the commands that read them, so that `schema` needs the contracts only and the commands
//! need the contracts and nothing that needs them back. Each type's schema rule (exactly one of
//! an inline value and its file) sits beside the type, where its derive names it.

use schemars::{JsonSchema, Schema};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::contracts::Tool;
use crate::views::{Format, View};

/// One fixture case: a call and what it must give.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = case_transform)]
pub struct Case {
    /// What the case shows, e.g. "rag: duplicate documents keep the first".
    pub name: String,
    /// The tool called.
    pub tool: Tool,
    /// The call: framework ids, view and format, and the tool's business arguments.
    pub request: CaseRequest,
    /// The run context file, relative to the case file (or give `context` inline).
    #[serde(default)]
    pub context_file: Option<String>,
    /// The run context, inline (or give `context_file`). Validated like a context file, so an
    /// invalid one makes the call fail with exit 5 as the CLI would.
    #[serde(default)]
    pub context: Option<Map<String, Value>>,
    /// The captured legacy response file, relative to the case file (or give `response`). It may
    /// not exist: a call that preflight rejects never opens it.
    #[serde(default)]
    pub response_file: Option<String>,
    /// The captured legacy response, inline as JSON (or give `response_file`).
    #[serde(default)]
    pub response: Option<Value>,
    /// What the call must give.
    pub expect: Expectation,
}

/// The call of a case. Fields other than the four below are the tool's business arguments
/// (`query` for rag; `topic`, `query`, `lookback_minutes` for logs); any other name makes the
/// call fail with `INVALID_REQUEST`, as it would for an agent.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CaseRequest {
    /// The framework's tool call id.
    pub call_id: String,
    /// The run the caller believes it is in (`--run-id`); absent means the context's run.
    #[serde(default)]
    pub run_id: Option<String>,
    /// The view to compare (default `envelope`).
    #[serde(default)]
    pub view: View,
    /// The output format (default `json`).
    #[serde(default)]
    pub format: Option<Format>,
    /// The tool's business arguments.
    #[serde(flatten)]
    pub arguments: Map<String, Value>,
}

/// What a case's call must give.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    /// The exit code the CLI would return.
    pub exit_code: u8,
    /// The printed document, compared as JSON; absent means not compared.
    #[serde(default)]
    pub output: Option<Value>,
    /// Strings the printed compact JSON must not contain (leak checks).
    #[serde(default)]
    pub must_not_contain: Vec<String>,
}

/// One line of an incident's `calls.jsonl`: a call as the framework made it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = incident_call_transform)]
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

/// A schema requirement that exactly one of two optional fields is given (and not as `null`):
/// `{"oneOf": [{"required": [a], …}, {"required": [b], …}]}`. Both present match both branches
/// and neither matches none, so either is invalid, as `check` and `replay` say.
fn exactly_one_of(a: &str, b: &str) -> serde_json::Value {
    let given = |name: &str| {
        serde_json::json!({
            "required": [name],
            "properties": { name: { "not": { "type": "null" } } }
        })
    };
    serde_json::json!({ "oneOf": [given(a), given(b)] })
}

/// `case`: exactly one of `response`/`response_file` and of `context`/`context_file`.
fn case_transform(schema: &mut Schema) {
    schema.insert(
        "allOf".to_owned(),
        serde_json::json!([
            exactly_one_of("response", "response_file"),
            exactly_one_of("context", "context_file"),
        ]),
    );
}

/// `incident-call`: exactly one of `response`/`response_file`.
fn incident_call_transform(schema: &mut Schema) {
    if let Value::Object(rule) = exactly_one_of("response", "response_file") {
        for (k, v) in rule {
            schema.insert(k, v);
        }
    }
}
