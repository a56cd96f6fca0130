//! Legacy RAG response → canonical [`RagToolResult`].
//!
//! The projection is a straight pipeline: keep usable blocks, drop repeated identities (first
//! wins, in legacy order), cut each field and excerpt to its bound, keep at most `max_evidence`,
//! then keep the longest prefix of evidence whose compact JSON fits the total bound. Excerpts are
//! exact: a prefix of the legacy excerpt, cut on a character boundary, nothing added. Every cut
//! is tallied so `truncated` is true exactly when a bound removed something.

use std::collections::{BTreeMap, HashSet};

use crate::bounds::{Dropped, json_len, prefix_within};
use crate::context::{RagLimits, UntrustedPolicy};
use crate::contracts::{
    EvidenceStatus, RagEvidence, RagToolResult, RelevanceLevel, Truncation, UntrustedDropped,
    UntrustedReport,
};
use crate::legacy::rag::{RagBlock, RagResponse};
use crate::untrusted::{Tally, scan_all};

/// A projected RAG result with what the harness needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RagProjection {
    /// The canonical result.
    pub result: RagToolResult,
    /// The normalized upstream relevance, even when the result shows none.
    pub upstream_relevance: Option<RelevanceLevel>,
    /// What each bound removed: `evidence` (items), `excerpt`, `field` (bytes), `total` (items).
    pub truncation: BTreeMap<Truncation, Dropped>,
    /// What the flag rules found, when they found anything.
    pub untrusted: Option<UntrustedReport>,
}

/// Normalizes an upstream relevance label: HIGH/MEDIUM/LOW in any case, or 高/中/低.
pub fn normalize_relevance(label: &str) -> Option<RelevanceLevel> {
    match label.trim().to_lowercase().as_str() {
        "high" | "高" => Some(RelevanceLevel::High),
        "medium" | "中" => Some(RelevanceLevel::Medium),
        "low" | "低" => Some(RelevanceLevel::Low),
        _ => None,
    }
}

/// Projects a legacy response. `total_bound` is the smaller of `max_total_bytes` and what is
/// left of the run's observation budget; the caller has checked that an empty result fits.
///
/// Under [`UntrustedPolicy::Drop`] each item is scanned as its own bounds cut it, and a flagged
/// item makes room for the next usable block, as a repeated identity does: it is not
/// truncation, so it leaves `truncated` alone. Otherwise the final evidence is scanned.
pub fn project(
    tool_call_id: &str,
    query: &str,
    response: RagResponse,
    limits: &RagLimits,
    total_bound: usize,
    untrusted: UntrustedPolicy,
) -> RagProjection {
    let mut flags = Tally::default();
    let mut dropped_flagged = 0u64;
    let mut truncation: BTreeMap<Truncation, Dropped> = BTreeMap::new();
    let mut tally = |kind: Truncation, items: u64, bytes: u64| {
        let entry = truncation.entry(kind).or_default();
        entry.items += items;
        entry.bytes += bytes;
    };

    let mut seen: HashSet<String> = HashSet::new();
    let mut evidence = Vec::new();
    for block in response.blocks {
        let Some(identity) = usable_identity(&block) else {
            continue;
        };
        if !seen.insert(identity) {
            continue;
        }
        if evidence.len() == limits.max_evidence {
            tally(Truncation::Evidence, 1, 0);
            continue;
        }
        // Tallied once the item is kept: an item `drop` leaves out was not cut by a bound.
        let mut field_cut = 0u64;
        let mut field = |value: Option<String>| {
            let mut value = value.unwrap_or_default();
            field_cut += crate::bounds::truncate_to(&mut value, limits.max_field_bytes) as u64;
            value
        };
        let document_id = field(block.document_id);
        let source = field(block.source);
        let title = field(block.title);
        let breadcrumb = field(block.breadcrumb);
        let raw = block.excerpt.unwrap_or_default();
        let (excerpt, cut) = prefix_within(&raw, limits.max_excerpt_bytes);
        if excerpt.trim().is_empty() {
            // Nothing meaningful fits in the excerpt bound: the item cannot be evidence.
            if field_cut > 0 {
                tally(Truncation::Field, 0, field_cut);
            }
            tally(Truncation::Excerpt, 1, 0);
            continue;
        }
        if untrusted == UntrustedPolicy::Drop
            && flags.add(scan_all([title.as_str(), breadcrumb.as_str(), excerpt]))
        {
            dropped_flagged += 1;
            continue;
        }
        if field_cut > 0 {
            tally(Truncation::Field, 0, field_cut);
        }
        if cut > 0 {
            tally(Truncation::Excerpt, 0, cut as u64);
        }
        evidence.push(RagEvidence {
            document_id,
            source,
            title,
            breadcrumb,
            excerpt: excerpt.to_owned(),
        });
    }

    let upstream_relevance = response.relevance.as_deref().and_then(normalize_relevance);
    let mut result = RagToolResult {
        evidence_status: EvidenceStatus::NoEvidence,
        tool_call_id: tool_call_id.to_owned(),
        query: query.to_owned(),
        evidence,
        returned_count: 0,
        relevance_level: None,
        truncated: false,
    };
    let dropped = fit_total(&mut result, upstream_relevance, total_bound);
    if !dropped.is_empty() {
        tally(Truncation::Total, dropped.items, dropped.bytes);
    }
    result.truncated = truncation.values().any(|d| !d.is_empty());
    let mut flagged = Vec::new();
    if untrusted != UntrustedPolicy::Drop {
        for (i, e) in result.evidence.iter().enumerate() {
            if flags.add(scan_all([
                e.title.as_str(),
                e.breadcrumb.as_str(),
                &e.excerpt,
            ])) {
                flagged.push(i as u64);
            }
        }
    }
    let untrusted = flags.any.then(|| UntrustedReport {
        policy: untrusted,
        by_rule: flags
            .by_rule
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect(),
        evidence: flagged,
        dropped: (untrusted == UntrustedPolicy::Drop).then_some(UntrustedDropped {
            evidence: dropped_flagged,
            ..UntrustedDropped::default()
        }),
        ..UntrustedReport::default()
    });
    RagProjection {
        result,
        upstream_relevance,
        truncation,
        untrusted,
    }
}

/// A block is usable with a non-blank excerpt and an identity; its identity is its document id,
/// or its source when it has no document id.
fn usable_identity(block: &RagBlock) -> Option<String> {
    let non_blank = |s: &Option<String>| s.as_ref().filter(|s| !s.trim().is_empty()).cloned();
    non_blank(&block.excerpt)?;
    non_blank(&block.document_id).or_else(|| non_blank(&block.source))
}

/// Sets the derived fields and drops evidence from the tail (cutting the last kept excerpt when
/// that keeps more) until the compact result fits `bound`. Returns what was removed.
fn fit_total(
    result: &mut RagToolResult,
    relevance: Option<RelevanceLevel>,
    bound: usize,
) -> Dropped {
    let mut dropped = Dropped::default();
    loop {
        sync_derived(result, relevance, dropped.is_empty());
        let len = json_len(result);
        if len <= bound {
            return dropped;
        }
        let over = len - bound;
        let several = result.evidence.len() > 1;
        let Some(last) = result.evidence.last_mut() else {
            // Only reachable when the caller's empty-result check was skipped.
            return dropped;
        };
        // Each removed byte of excerpt removes at least one byte of JSON, so cutting `over` bytes
        // is the least that can work; a cut that leaves nothing meaningful drops the item.
        let keep = last.excerpt.len().saturating_sub(over);
        let (kept, cut) = prefix_within(&last.excerpt, keep);
        if kept.trim().is_empty() || several && cut * 2 > last.excerpt.len() {
            // Cutting more than half of an excerpt that is not the only one keeps too little of
            // it to be worth the space: drop it whole instead.
            result.evidence.pop();
            dropped.items += 1;
        } else {
            let kept = kept.len();
            last.excerpt.truncate(kept);
            dropped.bytes += cut as u64;
        }
    }
}

fn sync_derived(result: &mut RagToolResult, relevance: Option<RelevanceLevel>, untouched: bool) {
    result.returned_count = result.evidence.len() as u64;
    result.evidence_status = EvidenceStatus::from_presence(!result.evidence.is_empty());
    // Relevance never creates evidence: without evidence it is not shown to the model.
    result.relevance_level = relevance.filter(|_| !result.evidence.is_empty());
    // `truncated` is final only after fitting; while fitting, count it as the longer `false`
    // unless something was already removed, so the final value can only shrink the JSON.
    result.truncated = !untouched;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: &str, source: &str, excerpt: &str) -> RagBlock {
        RagBlock {
            document_id: (!id.is_empty()).then(|| id.to_owned()),
            source: (!source.is_empty()).then(|| source.to_owned()),
            title: Some("title".into()),
            breadcrumb: None,
            excerpt: Some(excerpt.to_owned()),
        }
    }

    fn run(blocks: Vec<RagBlock>, limits: RagLimits) -> RagProjection {
        let bound = limits.max_total_bytes;
        project(
            "call_1",
            "q",
            RagResponse {
                blocks,
                relevance: Some("高".into()),
            },
            &limits,
            bound,
            UntrustedPolicy::Flag,
        )
    }

    #[test]
    fn relevance_labels_normalize() {
        assert_eq!(normalize_relevance(" High "), Some(RelevanceLevel::High));
        assert_eq!(normalize_relevance("MEDIUM"), Some(RelevanceLevel::Medium));
        assert_eq!(normalize_relevance("低"), Some(RelevanceLevel::Low));
        assert_eq!(normalize_relevance("0.93"), None);
        assert_eq!(normalize_relevance("very high"), None);
    }

    #[test]
    fn identity_is_document_id_then_source() {
        let p = run(
            vec![
                block("d1", "a.md", "first"),
                block("d1", "b.md", "same id"),
                block("", "a.md", "source only, new identity"),
                block("", "a.md", "same source"),
                block("", "", "no identity"),
                block("d2", "", "   "),
            ],
            RagLimits::default(),
        );
        let excerpts: Vec<_> = p
            .result
            .evidence
            .iter()
            .map(|e| e.excerpt.as_str())
            .collect();
        assert_eq!(excerpts, ["first", "source only, new identity"]);
        assert!(
            !p.result.truncated,
            "dedupe and unusable blocks are not truncation"
        );
        assert_eq!(p.result.relevance_level, Some(RelevanceLevel::High));
    }

    #[test]
    fn each_bound_sets_truncated_and_is_tallied() {
        let limits = RagLimits {
            max_evidence: 1,
            ..RagLimits::default()
        };
        let p = run(vec![block("a", "", "x"), block("b", "", "y")], limits);
        assert_eq!(p.result.returned_count, 1);
        assert!(p.result.truncated);
        assert_eq!(
            p.truncation[&Truncation::Evidence],
            Dropped { items: 1, bytes: 0 }
        );

        let limits = RagLimits {
            max_excerpt_bytes: 4,
            ..RagLimits::default()
        };
        let p = run(vec![block("a", "", "内存碎片")], limits);
        assert_eq!(p.result.evidence[0].excerpt, "内");
        assert_eq!(
            p.truncation[&Truncation::Excerpt],
            Dropped { items: 0, bytes: 9 }
        );

        let limits = RagLimits {
            max_field_bytes: 2,
            ..RagLimits::default()
        };
        let p = run(vec![block("abc", "", "x")], limits);
        assert_eq!(p.result.evidence[0].document_id, "ab");
        assert!(p.result.truncated);
    }

    #[test]
    fn total_bound_keeps_a_prefix_within_bytes() {
        let blocks: Vec<_> = (0..5)
            .map(|i| block(&format!("d{i}"), "", &"x".repeat(300)))
            .collect();
        for bound in [250, 400, 700, 1000, 1700] {
            let p = run(
                blocks.clone(),
                RagLimits {
                    max_total_bytes: bound,
                    ..RagLimits::default()
                },
            );
            assert!(json_len(&p.result) <= bound, "bound {bound}");
            assert!(p.result.truncated);
            assert_eq!(p.result.returned_count as usize, p.result.evidence.len());
            for e in &p.result.evidence {
                assert!("x".repeat(300).starts_with(&e.excerpt));
            }
        }
    }

    #[test]
    fn relevance_never_creates_evidence() {
        let p = run(vec![block("", "", "orphan")], RagLimits::default());
        assert_eq!(p.result.evidence_status, EvidenceStatus::NoEvidence);
        assert_eq!(p.result.relevance_level, None);
        assert_eq!(p.upstream_relevance, Some(RelevanceLevel::High));
    }
}
