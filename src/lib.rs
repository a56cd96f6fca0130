//! # aciproj
//!
//! The boundary between an LLM agent and legacy ops tools. `aciproj` takes a captured legacy
//! response (a RAG knowledge search, a Mock log query) and a run context, runs the boundary's
//! preflight checks, and projects the response into a frozen ACI contract: a bounded, redacted,
//! citable result, or a safe error. Nothing raw from the legacy side reaches the agent. The
//! `aciproj` binary is a thin clap layer over this crate; a Rust agent harness calls it directly.
//!
//! ## A harness's walk through the crate
//!
//! 1. **Validate the run context once.** [`RunContext::from_slice`], [`RunContext::load`] (or
//!    [`RunContext::load_reader`], [`RunContext::from_file`]) parse and check it; a context
//!    that fails gives a [`ToolError`] with code `INVALID_CONTEXT`. There is no other way to
//!    build one, and its fields are read-only afterwards.
//! 2. **Make one [`ToolBoundary`] per run.** It owns the context and the ledger the context names
//!    (or [`ToolBoundary::with_ledger`] with a [`LedgerStore`]). By default it works on the
//!    caller's thread only; [`ToolBoundary::parallel`] lets a logs call use a second core.
//! 3. **Execute each [`ToolCall`]** (a [`ToolRequest`] for `rag` or `logs`, the framework's call
//!    id) with the legacy response as a [`LegacySource`]: captured (a file, standard input,
//!    bytes) or live. Preflight runs first, in one fixed order (run, ownership, authorization,
//!    read-only, duplicate, budget, size); only an admitted call reads the response. Duplicates
//!    and budgets count across the calls of one boundary, and every admitted call is appended to
//!    the hash-chained ledger.
//! 4. **Or let the boundary call the legacy tool itself:** [`LegacySource::Live`] takes a
//!    [`boundary::LegacyTool`], started only once preflight admitted the call, so a refused call
//!    never reaches the legacy side. [`boundary::LegacyCommand`] runs a program without a shell
//!    (what `aciproj logs … -- CMD` does: bounded output, a timeout that kills its process
//!    group, its stderr only counted); implement the trait for your own transport, an HTTP
//!    client say, and keep the same bounds, ledger record and views.
//! 5. **Pick a view of the [`CallOutcome`]:** [`CallOutcome::envelope`] (result or safe error,
//!    with ids), [`CallOutcome::model_observation`] (what the model may see and cite) and
//!    [`CallOutcome::control_view`] (counts, scope fingerprint, [`contracts::Truncation`],
//!    redactions, budget, ledger head). [`render::document`] gives the same bytes the CLI
//!    prints, plain or as an MCP `CallToolResult` ([`Format::Mcp`]).
//! 6. **Map errors by code, not by text:** [`ErrorCode`] is the stable ACI code,
//!    [`CallOutcome::exit_code`] the CLI's exit code, and a failure's message is safe to show.
//! 7. **Audit afterwards** with the operator calls: [`verify_ledger`] (is the hash chain
//!    intact?), [`replay_incident`] (re-run a captured incident through a fresh in-memory
//!    ledger) and [`run_check`] (fixture cases).
//!
//! The [`Redactor`] is usable on its own for any text ([`redact::redact`]).
//!
//! ## What a library call never does unless asked
//!
//! No call starts a thread, changes CPU affinity, installs a panic hook, reads the wall clock
//! or the environment. (A [`boundary::LegacyCommand`] starts the process it was given, in a
//! group of its own, and reads it on the caller's thread; the process inherits the caller's
//! environment and folder.) Those belong to whoever owns the process: the binary installs its
//! panic hook, turns [`ToolBoundary::parallel`] on and starts
//! [`redact::warm_up_in_background`]. Modules marked hidden (the clap definitions, the readers,
//! projectors and miners) are public only for the binary, the tests, the benchmarks and the fuzz
//! targets; they are not part of the API.
//!
//! `examples/harness.rs` runs a whole multi-call run this way (`cargo run --example harness`).
//!
//! ```
//! use aciproj::{LegacySource, RunContext, ToolBoundary, ToolCall, ToolRequest};
//!
//! let context = RunContext::from_slice(br#"{
//!     "run_id": "run-1", "status": "ACTIVE", "authorized_tools": ["*"],
//!     "now": "2026-11-29T10:00:00+08:00"
//! }"#, std::path::Path::new(".")).unwrap();
//! let mut boundary = ToolBoundary::new(context);
//! let call = ToolCall {
//!     tool_call_id: "call_1".into(),
//!     run_id: None,
//!     request: ToolRequest::Rag { query: "Redis 内存碎片".into() },
//! };
//! let legacy = r#"{"success":true,"contextPack":{"blocks":[
//!     {"documentId":"kb-1","title":"Redis","excerpt":"执行 MEMORY PURGE","score":0.9}]}}"#;
//! let outcome = boundary.execute(&call, LegacySource::Bytes(legacy.as_bytes()));
//! assert_eq!(outcome.exit_code(), 0);
//! let json = serde_json::to_string(&outcome.model_observation()).unwrap();
//! assert!(json.contains("MEMORY PURGE") && !json.contains("score"));
//! ```

// `deny`, not `forbid`: one function may read the DFAs this crate ships without checking them
// again (`matcher::prebuilt::read`; its SAFETY comment says why that is sound).
#![deny(unsafe_code)]

pub mod boundary;
#[doc(hidden)]
pub mod bounds;
mod cache;
pub mod check;
// The clap definitions, public only so that `examples/gen-docs` and the docs tests build the
// man pages, completions and help from the one definition the binary parses; the binary's
// `app` module (process glue: streams, panic hook, threads) is not in the library at all.
#[doc(hidden)]
pub mod cli;
pub mod context;
pub mod contracts;
mod cores;
pub mod error;
#[doc(hidden)]
pub mod filter;
#[doc(hidden)]
pub mod fold;
pub mod junit;
#[doc(hidden)]
pub mod legacy;
mod matcher;
#[doc(hidden)]
pub mod patterns;
mod pipeline;
#[doc(hidden)]
pub mod project;
pub mod redact;
pub mod render;
pub mod replay;
pub mod report;
pub mod schema;
pub mod untrusted;
mod verify;
pub mod views;

pub use boundary::chain::{ChainReport, LedgerReadError, verify_file as verify_ledger};
pub use boundary::ledger::LedgerStore;
pub use boundary::{CallOutcome, LegacySource, ToolBoundary, ToolCall, ToolRequest};
pub use bounds::Dropped;
pub use check::{CheckFailure, CheckOptions, CheckSummary, run as run_check};
pub use context::RunContext;
pub use error::{ErrorCode, Stage, ToolError};
pub use redact::Redactor;
pub use replay::{ReplayFailure, ReplayOptions, ReplayReport, replay as replay_incident};
pub use views::{Format, SchemaName, View};
