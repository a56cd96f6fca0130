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
    pub truncation: BTreeMap<crate::contracts::Truncation, Dropped>,
    /// Redactions per class (logs).
    pub redactions: BTreeMap<String, u64>,
    /// Redactions per catalogue rule id (logs).
    pub redactions_by_rule: BTreeMap<String, u64>,
    /// What correlation labelled (logs, when the context asks for labels).
    pub correlation: Option<crate::contracts::CorrelationCounts>,
    /// The normalized upstream relevance (RAG).
    pub relevance: Option<RelevanceLevel>,
    /// Log entries without a usable timestamp or message.
    pub skipped_entries: Option<u64>,
    /// What the flag rules found, when they found anything.
    pub untrusted: Option<crate::contracts::UntrustedReport>,
}

pub(crate) fn rag_projection(
    tool_call_id: &str,
    query: &str,
    response: crate::legacy::rag::RagResponse,
    limits: &crate::context::RagLimits,
    total_bound: usize,
    untrusted: crate::context::UntrustedPolicy,
) -> Projection {
    let p = rag::project(
        tool_call_id,
        query,
        response,
        limits,
        total_bound,
        untrusted,
    );
    Projection {
        result: ToolResult::Rag(p.result),
        truncation: p.truncation,
        redactions: BTreeMap::new(),
        redactions_by_rule: BTreeMap::new(),
        correlation: None,
        relevance: p.upstream_relevance,
        skipped_entries: None,
        untrusted: p.untrusted,
    }
}

/// Streams a Mock log response through a [`logs::LogsProjector`]: a function of the response,
/// the bounds, the run's zone and its redaction options only (not the whole run context), and
/// on this thread unless `parallel`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn logs_projection<R: std::io::Read>(
    limits: &crate::context::LogsLimits,
    timezone: &jiff::tz::TimeZone,
    redaction: &crate::context::RedactionPolicy,
    untrusted: crate::context::UntrustedPolicy,
    tool_call_id: &str,
    scope: crate::contracts::LogsScope,
    reader: R,
    total_bound: usize,
    parallel: bool,
) -> Result<Projection, crate::legacy::logs::ReadFailure> {
    if parallel {
        // Compile the redaction rules on the second core while this one parses the input (once
        // per process: a harness calling the library many times pays it on its first call).
        crate::redact::warm_up_in_background();
    }
    let projector = logs::LogsProjector::new(limits, timezone)
        .correlated(redaction.correlate)
        .with_redactor(redaction.redactor())
        .untrusted(untrusted);
    let (summary, projector) = if parallel {
        stream(reader, projector)?
    } else {
        inline(reader, projector)?
    };
    let p = projector.finish(&summary, scope, tool_call_id, total_bound);
    let redactions = p
        .redactions
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(class, n)| (class.name().to_owned(), u64::from(n)))
        .collect();
    let redactions_by_rule = p
        .redactions
        .by_rule()
        .map(|(id, n)| (id.to_owned(), u64::from(n)))
        .collect();
    let correlation = p.correlation.map(|c| crate::contracts::CorrelationCounts {
        distinct: c
            .distinct()
            .map(|(class, n)| (class.name().to_owned(), u64::from(n)))
            .collect(),
        unlabelled: c.unlabelled(),
    });
    Ok(Projection {
        result: ToolResult::Logs(p.result),
        truncation: p.truncation,
        redactions,
        redactions_by_rule,
        correlation,
        relevance: None,
        skipped_entries: Some(p.skipped_entries),
        untrusted: p.untrusted,
    })
}

/// Entries handed from the parser to the projector at a time.
const BATCH: usize = 512;

/// Parses, prepares and folds on this thread, entry by entry: what [`stream`] gives, without a
/// second thread.
fn inline<'a, R: std::io::Read>(
    reader: R,
    mut projector: logs::LogsProjector<'a>,
) -> Result<
    (crate::legacy::logs::LogsSummary, logs::LogsProjector<'a>),
    crate::legacy::logs::ReadFailure,
> {
    let summary = crate::legacy::logs::read_entries(reader, &mut |e| projector.push_entry(e))?;
    Ok((summary, projector))
}

/// Parses on this thread; prepares (times, levels, redaction) and folds on a second one once the
/// response holds more than one batch, the reader preparing too when the worker is behind
/// ([`crate::pipeline`]). Entry indexes are assigned while reading and the tallies add up, so
/// the output does not depend on which thread prepared what.
fn stream<'a, R: std::io::Read>(
    reader: R,
    projector: logs::LogsProjector<'a>,
) -> Result<
    (crate::legacy::logs::LogsSummary, logs::LogsProjector<'a>),
    crate::legacy::logs::ReadFailure,
> {
    use crate::pipeline::share;
    let mut prep = projector.preparer();
    let ((read, seen), mut projector) = share::<logs::Entries, _, _, _>(
        true,
        BATCH,
        projector,
        |sink| {
            let mut seen = 0u64;
            let read = crate::legacy::logs::read_entries(reader, &mut |entry| {
                sink((seen, entry));
                seen += 1;
            });
            (read, seen)
        },
        |entries: logs::Entries| entries.prepare(&mut prep),
        |p: &mut logs::LogsProjector<'a>, batch| p.fold_batch(batch),
    );
    projector.absorb(prep, seen);
    read.map(|summary| (summary, projector))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::LogsLimits;
    use crate::contracts::LogsScope;
    use jiff::tz::TimeZone;

    fn response(entries: usize) -> String {
        let logs: Vec<_> = (0..entries)
            .map(|i| {
                let level = ["INFO", "WARN", "ERROR"][i % 3];
                serde_json::json!({
                    "timestamp": format!("2026-11-29 09:{:02}:{:02}", (i / 60) % 60, i % 60),
                    "level": level,
                    "service": format!("svc-{}", i % 7),
                    "message": format!("request {i} from 10.0.{}.{} took {}ms password=p{i}", i % 200, i % 250, i % 997),
                })
            })
            .collect();
        serde_json::json!({"success": true, "logs": logs, "total": entries}).to_string()
    }

    #[test]
    fn two_threads_give_the_bytes_one_thread_gives() {
        let limits = LogsLimits::default();
        let tz = TimeZone::UTC;
        // The split of the work between the threads depends on timing; the bytes must not. The
        // larger sizes run several times to meet different interleavings.
        for n in [
            0,
            1,
            BATCH - 1,
            BATCH,
            BATCH + 1,
            5 * BATCH + 17,
            5 * BATCH + 17,
            9 * BATCH,
            9 * BATCH,
        ] {
            let body = response(n);
            let (summary, streamed) =
                stream(body.as_bytes(), logs::LogsProjector::new(&limits, &tz)).unwrap();
            let mut inline = logs::LogsProjector::new(&limits, &tz);
            let summary_inline =
                crate::legacy::logs::read(body.as_bytes(), &mut |e| inline.push(e)).unwrap();
            assert_eq!(summary, summary_inline);
            let a = streamed.finish(&summary, LogsScope::for_tests(), "c", 12288);
            let b = inline.finish(&summary_inline, LogsScope::for_tests(), "c", 12288);
            assert_eq!(
                serde_json::to_string(&a.result).unwrap(),
                serde_json::to_string(&b.result).unwrap(),
                "{n}"
            );
            assert_eq!(a.redactions, b.redactions);
            assert_eq!(a.result.match_count, n as u64);
        }
    }

    #[test]
    fn correlation_labels_do_not_depend_on_which_thread_redacted() {
        let limits = LogsLimits::default();
        let tz = TimeZone::UTC;
        for n in [BATCH + 1, 9 * BATCH, 9 * BATCH] {
            let body = response(n);
            let projector = || logs::LogsProjector::new(&limits, &tz).correlated(true);
            let (summary, streamed) = stream(body.as_bytes(), projector()).unwrap();
            let mut inline = projector();
            crate::legacy::logs::read(body.as_bytes(), &mut |e| inline.push(e)).unwrap();
            let a = streamed.finish(&summary, LogsScope::for_tests(), "c", 12288);
            let b = inline.finish(&summary, LogsScope::for_tests(), "c", 12288);
            let a_json = serde_json::to_string(&a.result).unwrap();
            assert_eq!(a_json, serde_json::to_string(&b.result).unwrap(), "{n}");
            assert!(a_json.contains("<IP#"), "labels in the timeline");
            assert!(!a_json.contains("10.0."), "no raw address");
            let (ca, cb) = (a.correlation.unwrap(), b.correlation.unwrap());
            assert_eq!(
                ca.distinct().collect::<Vec<_>>(),
                cb.distinct().collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn a_read_failure_after_the_worker_started_is_reported() {
        let body = response(3 * BATCH);
        let cut = &body.as_bytes()[..body.len() - 10];
        let limits = LogsLimits::default();
        let tz = TimeZone::UTC;
        let failed = stream(cut, logs::LogsProjector::new(&limits, &tz));
        assert!(matches!(
            failed,
            Err(crate::legacy::logs::ReadFailure::Malformed)
        ));
    }
}
