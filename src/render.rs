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

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename, so a reader
/// never sees half a file. A new file gets the mode the umask gives any new file; an existing
/// one keeps its own.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let existing = match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "Is a directory",
            ));
        }
        Ok(m) => Some(m.permissions()),
        Err(_) => None,
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".aciproj-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Passed to open(2), so the umask applies, as it would to any new file.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    if let Some(permissions) = existing {
        temp.as_file().set_permissions(permissions)?;
    }
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
