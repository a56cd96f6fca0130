//! The contract's names for what a caller may ask of a finished call: which view, how it is
//! wrapped, and which schema.
//!
//! These are contract concepts, not command-line ones: the library renders views and lists
//! schemas by them, and the clap layer in `cli.rs` only re-uses them as flag values (the
//! `clap::ValueEnum` derive is what lets one definition feed `--help`, the man pages and the
//! completions). Keeping them here means no library module depends on the argument parser.

/// Which view of the call to print.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum View {
    #[default]
    /// The canonical result or safe error, with tool, run and call ids.
    Envelope,
    /// The Model Observation: only what the model needs to understand and cite.
    Model,
    /// The Harness Control View: counts, scope fingerprint, truncation, redactions, budget.
    Harness,
}

/// How to wrap the chosen view.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    /// The view as one JSON document.
    Json,
    /// An MCP CallToolResult: the model observation as structuredContent, the control view
    /// under _meta["aciproj/control"] (so `--view` is a usage error with it).
    Mcp,
}

/// The contracts `schema` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaName {
    /// The default view: status, tool, ids, and the result or the safe error.
    Envelope,
    /// The canonical RAG result (frozen).
    RagResult,
    /// The canonical log result (frozen).
    LogsResult,
    /// What `--view model` prints for a rag call (READY or ERROR).
    RagObservation,
    /// What `--view model` prints for a logs call (READY or ERROR).
    LogsObservation,
    /// The Harness Control View (`--view harness`).
    ControlView,
    /// The run context file (`--context`).
    Context,
    /// A fixture case file (*.case.json) for `check`.
    Case,
    /// One line of an incident's calls.jsonl for `replay`.
    IncidentCall,
    /// One line of a ledger file (also the shape of the context's `prior_calls` entries).
    LedgerRecord,
}
