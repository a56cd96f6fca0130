//! Turning a finished call into the bytes a caller asked for: one view, plain or MCP-wrapped.
//!
//! MCP clients sometimes hand only `structuredContent` to the model, so it is always the Model
//! Observation, whatever `--view` says; the harness's control view travels under `_meta`.

use serde::Serialize;
use serde_json::{Value, json};

use crate::boundary::CallOutcome;
use crate::views::{Format, View};

/// The chosen view as a JSON value.
pub fn view_value(outcome: &CallOutcome, view: View) -> Value {
    let value = match view {
        View::Envelope => serde_json::to_value(outcome.envelope()),
        View::Model => serde_json::to_value(outcome.model_observation()),
        View::Harness => serde_json::to_value(outcome.control_view()),
    };
    value.unwrap_or(Value::Null)
}

/// The document to print for `outcome`.
pub fn document(outcome: &CallOutcome, view: View, format: Format) -> Value {
    match format {
        Format::Json => view_value(outcome, view),
        Format::Mcp => {
            let observation = view_value(outcome, View::Model);
            let text = serde_json::to_string(&observation).unwrap_or_default();
            json!({
                "content": [{"type": "text", "text": text}],
                "structuredContent": observation,
                "isError": outcome.result().is_err(),
                "_meta": {"aciproj/control": view_value(outcome, View::Harness)},
            })
        }
    }
}

/// Serializes a document, compact or indented, newline-terminated.
pub fn to_text<T: Serialize>(doc: &T, pretty: bool) -> String {
    let mut text = if pretty {
        serde_json::to_string_pretty(doc)
    } else {
        serde_json::to_string(doc)
    }
    .unwrap_or_else(|_| "null".to_owned());
    text.push('\n');
    text
}
