//! # aciproj
//!
//! The boundary between an LLM agent and legacy ops tools. `aciproj` takes a captured legacy
//! response (a RAG knowledge search, a Mock log query) and a run context, runs the boundary's
//! preflight checks, and projects the response into a frozen ACI contract: a bounded, redacted,
//! citable result, or a safe error. Nothing raw from the legacy side reaches the agent.
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

#![forbid(unsafe_code)]

pub mod boundary;
pub mod bounds;
mod cache;
pub mod check;
pub mod cli;
pub mod context;
pub mod contracts;
mod cores;
pub mod error;
pub mod filter;
pub mod fold;
pub mod legacy;
mod matcher;
pub mod patterns;
mod pipeline;
pub mod project;
pub mod redact;
pub mod render;
pub mod replay;
pub mod schema;
pub mod views;

pub use boundary::{CallOutcome, LegacySource, ToolBoundary, ToolCall, ToolRequest};
pub use context::RunContext;
pub use error::{ErrorCode, Stage, ToolError};
