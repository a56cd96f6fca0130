//! Projectors: legacy response → canonical result, within the call's bounds.
//!
//! A projector is a pure function of the legacy response, the request, the run's clock and the
//! bounds: it never reads the wall clock, the environment or the file system, which is what
//! makes replaying an incident months later give byte-identical output.

use std::collections::BTreeMap;

use crate::bounds::Dropped;
use crate::contracts::{RelevanceLevel, ToolResult};

pub mod logs;
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
    /// Log entries without a usable timestamp or message.
    pub skipped_entries: Option<u64>,
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
        skipped_entries: None,
    }
}

/// Streams a Mock log response through a [`logs::LogsProjector`].
pub(crate) fn logs_projection<R: std::io::Read>(
    context: &crate::context::RunContext,
    tool_call_id: &str,
    scope: crate::contracts::LogsScope,
    reader: R,
    total_bound: usize,
) -> Result<Projection, crate::legacy::logs::ReadFailure> {
    let limits = &context.limits.logs;
    let mut projector = logs::LogsProjector::new(limits, &context.timezone);
    let summary = crate::legacy::logs::read(reader, &mut |entry| projector.push(entry))?;
    let p = projector.finish(&summary, scope, tool_call_id, total_bound);
    let redactions = p
        .redactions
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(class, n)| (class.name().to_owned(), u64::from(n)))
        .collect();
    Ok(Projection {
        result: ToolResult::Logs(p.result),
        truncation: p.truncation,
        redactions,
        relevance: None,
        skipped_entries: Some(p.skipped_entries),
    })
}
