//! Building a [`ToolRequest`] from a tool call's JSON `arguments` object.
//!
//! Agents (and the operator files `check` and `replay` read) hand the boundary a JSON object, not
//! typed Rust. This is the one place that object becomes a request, so every entry point agrees
//! on what a request may hold: `query` for `rag`; `topic`, `query` and an optional
//! `lookback_minutes` for `logs`. Anything else — an unknown field, a wrong type, a missing field —
//! is `INVALID_REQUEST` (SPEC §3), the same code preflight gives a blank query, so a caller cannot
//! tell (and need not care) which layer refused it. Messages come from fixed templates and may
//! name a field, never quote a value: the arguments are the agent's input and can hold anything.
//!
//! Decision: `"lookback_minutes": null` means "not given" (the 60-minute default), because many
//! tool-call encoders write absent optionals as null. Range checks (1..=10080, blank strings,
//! control characters) stay in preflight, so they apply to typed callers too.

use serde_json::{Map, Value};

use crate::contracts::Tool;
use crate::error::{ErrorCode, ToolError};

use super::{CallOutcome, LegacySource, ToolBoundary, ToolCall, ToolRequest};

fn invalid(message: &'static str) -> ToolError {
    ToolError::new(ErrorCode::InvalidRequest, message)
}

fn naming(template: &'static str, field: &str) -> ToolError {
    ToolError::naming(ErrorCode::InvalidRequest, template, field)
}

/// The fields a tool's request may hold.
pub fn allowed_fields(tool: Tool) -> &'static [&'static str] {
    match tool {
        Tool::Rag => &["query"],
        Tool::Logs => &["topic", "query", "lookback_minutes"],
    }
}

/// Builds the request for `tool` from its JSON `arguments`; any deviation from the request's
/// shape is `INVALID_REQUEST`.
pub fn request_from_arguments(tool: Tool, arguments: &Value) -> Result<ToolRequest, ToolError> {
    let Value::Object(map) = arguments else {
        return Err(invalid("the request arguments must be a JSON object"));
    };
    request_from_map(tool, map)
}

/// Like [`request_from_arguments`], for an already unwrapped object.
pub fn request_from_map(tool: Tool, map: &Map<String, Value>) -> Result<ToolRequest, ToolError> {
    let allowed = allowed_fields(tool);
    // Report the first unknown field in a stable order (the object's own order), so the message
    // is the same on every run.
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(naming("unknown request field {}", unknown));
    }
    match tool {
        Tool::Rag => Ok(ToolRequest::Rag {
            query: required_string(map, "query")?,
        }),
        Tool::Logs => Ok(ToolRequest::Logs {
            topic: required_string(map, "topic")?,
            query: required_string(map, "query")?,
            lookback_minutes: optional_integer(map, "lookback_minutes")?,
        }),
    }
}

/// Executes one call whose request is a JSON `arguments` object, the way `check` and `replay` run
/// calls: an argument the request cannot hold fails the call with `INVALID_REQUEST` (no record,
/// legacy response not read, the run's counters in the control view), exactly like a preflight
/// rejection.
pub fn execute_arguments(
    boundary: &mut ToolBoundary,
    tool: Tool,
    tool_call_id: &str,
    run_id: Option<&str>,
    arguments: &Value,
    legacy: LegacySource<'_>,
) -> CallOutcome {
    match request_from_arguments(tool, arguments) {
        Ok(request) => {
            let call = ToolCall {
                tool_call_id: tool_call_id.to_owned(),
                run_id: run_id.map(str::to_owned),
                request,
            };
            boundary.execute(&call, legacy)
        }
        Err(e) => boundary.refuse(tool, tool_call_id, e),
    }
}

fn required_string(map: &Map<String, Value>, field: &'static str) -> Result<String, ToolError> {
    match map.get(field) {
        None => Err(naming("missing request field {}", field)),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(naming("request field {} must be a string", field)),
    }
}

fn optional_integer(
    map: &Map<String, Value>,
    field: &'static str,
) -> Result<Option<i64>, ToolError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Ok(Some(i)),
            // An integer too large for i64 is certainly out of range; preflight reports the range.
            (None, Some(_)) => Ok(Some(i64::MAX)),
            (None, None) => Err(naming("request field {} must be an integer", field)),
        },
        Some(_) => Err(naming("request field {} must be an integer", field)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(tool: Tool, v: Value) -> ToolError {
        request_from_arguments(tool, &v).unwrap_err()
    }

    #[test]
    fn rag_takes_only_a_query() {
        let r = request_from_arguments(Tool::Rag, &json!({"query": "redis"})).unwrap();
        assert_eq!(
            r,
            ToolRequest::Rag {
                query: "redis".into()
            }
        );
        let e = err(Tool::Rag, json!({"query": "q", "top_k": 5}));
        assert_eq!(e.code(), ErrorCode::InvalidRequest);
        assert_eq!(e.message(), "unknown request field `top_k`");
        // A logs field is unknown to rag.
        let e = err(Tool::Rag, json!({"query": "q", "topic": "app"}));
        assert_eq!(e.message(), "unknown request field `topic`");
    }

    #[test]
    fn logs_takes_topic_query_and_optional_lookback() {
        let r = request_from_arguments(
            Tool::Logs,
            &json!({"topic": "app", "query": "error", "lookback_minutes": 30}),
        )
        .unwrap();
        assert_eq!(
            r,
            ToolRequest::Logs {
                topic: "app".into(),
                query: "error".into(),
                lookback_minutes: Some(30)
            }
        );
        for absent in [
            json!({"topic": "a", "query": "q"}),
            json!({"topic": "a", "query": "q", "lookback_minutes": null}),
        ] {
            let r = request_from_arguments(Tool::Logs, &absent).unwrap();
            assert!(matches!(
                r,
                ToolRequest::Logs {
                    lookback_minutes: None,
                    ..
                }
            ));
        }
        // Out of range still reaches preflight as a number; only the type is checked here.
        let r = request_from_arguments(
            Tool::Logs,
            &json!({"topic": "a", "query": "q", "lookback_minutes": 18446744073709551615u64}),
        )
        .unwrap();
        assert!(matches!(
            r,
            ToolRequest::Logs {
                lookback_minutes: Some(i64::MAX),
                ..
            }
        ));
    }

    #[test]
    fn wrong_shapes_are_invalid_requests_that_quote_nothing() {
        let secret = "hunter2-s3cr3t";
        let cases = [
            (
                Tool::Rag,
                json!(secret),
                "the request arguments must be a JSON object",
            ),
            (Tool::Rag, json!({}), "missing request field `query`"),
            (
                Tool::Rag,
                json!({"query": [secret]}),
                "request field `query` must be a string",
            ),
            (
                Tool::Logs,
                json!({"query": "q"}),
                "missing request field `topic`",
            ),
            (
                Tool::Logs,
                json!({"topic": "t", "query": "q", "lookback_minutes": 1.5}),
                "request field `lookback_minutes` must be an integer",
            ),
            (
                Tool::Logs,
                json!({"topic": "t", "query": "q", "lookback_minutes": secret}),
                "request field `lookback_minutes` must be an integer",
            ),
            // A field name that is itself a value-looking string is not echoed.
            (
                Tool::Rag,
                json!({"query": "q", "password=hunter2-s3cr3t": 1}),
                "unknown request field a field",
            ),
        ];
        for (tool, v, message) in cases {
            let e = err(tool, v);
            assert_eq!(e.code(), ErrorCode::InvalidRequest);
            assert_eq!(e.message(), message);
            assert!(!e.message().contains(secret));
        }
    }
}
