//! Projectors: legacy response → canonical result, within the call's bounds.
//!
//! A projector is a pure function of the legacy response, the request, the run's clock and the
//! bounds: it never reads the wall clock, the environment or the file system, which is what
//! makes replaying an incident months later give byte-identical output.

use std::collections::BTreeMap;

use crate::bounds::Dropped;
use crate::contracts::{RelevanceLevel, ToolResult};

pub mod rag;

/// A projected result with the details only the harness sees.
#[derive(Debug, Clone)]
pub struct Projection {
    /// The canonical result.
    pub result: ToolResult,
    /// What each bound removed.
    pub truncation: BTreeMap<String, Dropped>,
    /// Redactions per class (logs).
    pub redactions: BTreeMap<String, u64>,
    /// The normalized upstream relevance (RAG).
    pub relevance: Option<RelevanceLevel>,
}

pub(crate) fn rag_projection(
    tool_call_id: &str,
    query: &str,
    response: crate::legacy::rag::RagResponse,
    limits: &crate::context::RagLimits,
    total_bound: usize,
) -> Projection {
    let p = rag::project(tool_call_id, query, response, limits, total_bound);
    Projection {
        result: ToolResult::Rag(p.result),
        truncation: p.truncation,
        redactions: BTreeMap::new(),
        relevance: p.upstream_relevance,
    }
}
