//! `replay --verify`: a replay held against the live ledger, call by call (SPEC §7).
//!
//! Every call the replay admits must have the same canonical record in the ledger (same run and
//! call id), every call it refuses must be absent, no record of the run may be left over, and
//! the hash chain must hold; the [`LedgerComparison`] says which, with counts, codes and hashes
//! only, never a value from the legacy side.
//!
//! Its own module because two readers need it: `replay` computes and prints the comparison, and
//! the HTML report shows it; living inside `replay` it made the report and `replay` import each
//! other. `replay` re-exports it, so its public paths are `aciproj::replay::…`.

use std::io::Write;

use crate::boundary::chain::{self, ChainReport};
use crate::contracts::LedgerRecord;
use crate::error::ErrorCode;

/// One replayed call, as `--verify` compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    /// The framework's call id.
    pub tool_call_id: String,
    /// The record the replay admitted it with; `None` when it was refused.
    pub record: Option<LedgerRecord>,
    /// The call's error code, if it failed.
    pub code: Option<ErrorCode>,
}

/// How one replayed call compares with the live ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted by both, with the same record.
    Match,
    /// Refused by the replay and not in the ledger either: as it was.
    NotRecorded(ErrorCode),
    /// Admitted by both; these fields differ.
    Differs(Vec<FieldDiff>),
    /// Admitted by the replay; the ledger has no record of this run and call id.
    MissingFromLedger,
    /// Refused by the replay (with this code), but the ledger records it on `line`.
    RecordedButRefused {
        /// The replay's refusal.
        code: ErrorCode,
        /// The ledger line of the record.
        line: u64,
    },
}

impl Verdict {
    /// Whether the call is as the ledger says.
    pub fn matches(&self) -> bool {
        matches!(self, Verdict::Match | Verdict::NotRecorded(_))
    }
}

/// One field of a record that differs: its value in the ledger and in the replay, as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDiff {
    /// The record field.
    pub field: &'static str,
    /// The ledger's value (compact JSON, bounded).
    pub ledger: String,
    /// The replay's value (compact JSON).
    pub replay: String,
}

/// One call's line of the comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallCheck {
    /// The call id (control characters shown as `?`).
    pub call_id: String,
    /// The verdict.
    pub verdict: Verdict,
}

impl std::fmt::Display for CallCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "verify {}: ", self.call_id)?;
        match &self.verdict {
            Verdict::Match => f.write_str("match"),
            Verdict::NotRecorded(code) => write!(f, "match (refused with {code}, not recorded)"),
            Verdict::Differs(diffs) => {
                f.write_str("MISMATCH:")?;
                for (i, d) in diffs.iter().enumerate() {
                    let sep = if i == 0 { " " } else { "; " };
                    write!(
                        f,
                        "{sep}{} ledger {} replay {}",
                        d.field, d.ledger, d.replay
                    )?;
                }
                Ok(())
            }
            Verdict::MissingFromLedger => f.write_str("MISMATCH: not in the ledger"),
            Verdict::RecordedButRefused { code, line } => write!(
                f,
                "MISMATCH: the replay refused it with {code}, but ledger line {line} records it"
            ),
        }
    }
}

/// A record of the run that no replayed call accounts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreplayed {
    /// Its ledger line.
    pub line: u64,
    /// Its call id (control characters shown as `?`, bounded).
    pub call_id: String,
}

/// The outcome of `replay --verify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerComparison {
    /// One check per replayed call, in order.
    pub calls: Vec<CallCheck>,
    /// Records of the run in the ledger that the incident does not hold.
    pub unreplayed: Vec<Unreplayed>,
    /// The ledger's hash chain.
    pub chain: ChainReport,
}

impl LedgerComparison {
    /// True when every call matches, nothing is left over and the chain holds.
    pub fn all_match(&self) -> bool {
        self.calls.iter().all(|c| c.verdict.matches())
            && self.unreplayed.is_empty()
            && self.chain.is_intact()
    }

    /// Writes one line per call, the left-over records, the chain and a verdict.
    pub fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for check in &self.calls {
            writeln!(out, "{check}")?;
        }
        for extra in &self.unreplayed {
            writeln!(
                out,
                "verify {}: MISMATCH: ledger line {} records it, the incident does not hold it",
                extra.call_id, extra.line
            )?;
        }
        match &self.chain.broken {
            None => writeln!(
                out,
                "verify ledger: chain intact, {} records",
                self.chain.records
            )?,
            Some(b) => writeln!(out, "verify ledger: CHAIN BROKEN: {b}")?,
        }
        if let Some(torn) = &self.chain.torn {
            writeln!(out, "verify ledger: note: {torn}")?;
        }
        let matching = self.calls.iter().filter(|c| c.verdict.matches()).count();
        writeln!(
            out,
            "verified {} calls: {} match, {} differ{}",
            self.calls.len(),
            matching,
            self.calls.len() - matching + self.unreplayed.len(),
            if self.all_match() {
                ""
            } else {
                ": the ledger does not prove this replay"
            }
        )
    }
}

/// Shown in place of a value: control characters as `?`, at most 80 characters.
fn printable(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(80)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    out
}

/// Every compared field of a record, as compact JSON (keys and the chain link excluded).
fn compared_fields(r: &LedgerRecord) -> [(&'static str, String); 10] {
    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap_or_default()
    }
    [
        ("tool", json(&r.tool)),
        ("status", json(&r.status)),
        ("stage", json(&r.stage)),
        ("code", json(&r.code)),
        ("evidence_status", json(&r.evidence_status)),
        ("scope_fingerprint", json(&r.scope_fingerprint)),
        ("returned_count", json(&r.returned_count)),
        ("truncated", json(&r.truncated)),
        ("observation_bytes", json(&r.observation_bytes)),
        ("result_sha256", json(&r.result_sha256)),
    ]
}

/// Compares replayed calls with the records of run `run_id` in the ledger file's `bytes`.
pub fn compare(run_id: &str, replayed: &[Replayed], bytes: &[u8]) -> LedgerComparison {
    let chain = chain::verify(bytes, None);
    // Damaged lines are the chain's finding; here only records count.
    let records: Vec<(u64, LedgerRecord)> = chain::lines(bytes)
        .whole
        .into_iter()
        .filter_map(|(n, l)| Some((n, serde_json::from_slice::<LedgerRecord>(l).ok()?)))
        .filter(|(_, r)| r.run_id.as_deref() == Some(run_id))
        .collect();
    let mut claimed = vec![false; records.len()];
    let mut claim = |id: &str| {
        let i = (0..records.len()).find(|i| !claimed[*i] && records[*i].1.tool_call_id == id)?;
        claimed[i] = true;
        Some(i)
    };
    // Admitted calls claim their records first, so a refused repeat of an id never takes one.
    let mut verdicts: Vec<Option<Verdict>> = replayed
        .iter()
        .map(|call| {
            let mine = call.record.as_ref()?;
            Some(match claim(&call.tool_call_id) {
                None => Verdict::MissingFromLedger,
                Some(i) => {
                    let diffs: Vec<FieldDiff> = compared_fields(&records[i].1)
                        .into_iter()
                        .zip(compared_fields(mine))
                        .filter(|((_, a), (_, b))| a != b)
                        .map(|((field, ledger), (_, replay))| FieldDiff {
                            field,
                            ledger: printable(&ledger),
                            replay,
                        })
                        .collect();
                    if diffs.is_empty() {
                        Verdict::Match
                    } else {
                        Verdict::Differs(diffs)
                    }
                }
            })
        })
        .collect();
    for (call, verdict) in replayed.iter().zip(&mut verdicts) {
        if verdict.is_none() {
            let code = call.code.unwrap_or(ErrorCode::InternalError);
            *verdict = Some(match claim(&call.tool_call_id) {
                None => Verdict::NotRecorded(code),
                Some(i) => Verdict::RecordedButRefused {
                    code,
                    line: records[i].0,
                },
            });
        }
    }
    let calls = replayed
        .iter()
        .zip(verdicts)
        .map(|(call, verdict)| CallCheck {
            call_id: printable(&call.tool_call_id),
            verdict: verdict.unwrap_or(Verdict::MissingFromLedger),
        })
        .collect();
    let unreplayed = records
        .iter()
        .zip(&claimed)
        .filter(|(_, c)| !**c)
        .map(|((line, r), _)| Unreplayed {
            line: *line,
            call_id: printable(&r.tool_call_id),
        })
        .collect();
    LedgerComparison {
        calls,
        unreplayed,
        chain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::LedgerStore;

    fn admitted(id: &str, bytes: u64) -> Replayed {
        Replayed {
            tool_call_id: id.into(),
            record: Some(LedgerRecord {
                run_id: Some("r".into()),
                tool_call_id: id.into(),
                tool: "rag".into(),
                observation_bytes: Some(bytes),
                ..LedgerRecord::default()
            }),
            code: None,
        }
    }

    fn refused(id: &str) -> Replayed {
        Replayed {
            tool_call_id: id.into(),
            record: None,
            code: Some(ErrorCode::DuplicateToolCall),
        }
    }

    /// A chained ledger file of `records`.
    fn ledger(records: &[&Replayed]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let mut store = LedgerStore::File(dir.path().join("l.jsonl"));
        for r in records {
            store
                .open(&|| crate::boundary::preflight::History::new("r", None, None))
                .unwrap()
                .0
                .append(r.record.as_ref().unwrap())
                .unwrap();
        }
        std::fs::read(dir.path().join("l.jsonl")).unwrap()
    }

    #[test]
    fn admitted_calls_claim_their_records_before_refused_repeats() {
        let (a, b) = (admitted("a", 10), admitted("b", 20));
        let bytes = ledger(&[&a, &b]);
        let calls = [a.clone(), refused("a"), b.clone()];
        let c = compare("r", &calls, &bytes);
        assert!(c.all_match(), "{c:?}");
        assert_eq!(
            c.calls[1].verdict,
            Verdict::NotRecorded(ErrorCode::DuplicateToolCall)
        );
        // The replay refuses what the live run admitted; counts differ; another run is ignored.
        let calls = [refused("a"), admitted("b", 21)];
        let c = compare("r", &calls, &bytes);
        assert_eq!(
            c.calls[0].verdict,
            Verdict::RecordedButRefused {
                code: ErrorCode::DuplicateToolCall,
                line: 1
            }
        );
        assert_eq!(
            c.calls[1].to_string(),
            "verify b: MISMATCH: observation_bytes ledger 20 replay 21"
        );
        assert!(!c.all_match());
        let other = compare("other-run", &[admitted("a", 10)], &bytes);
        assert_eq!(other.calls[0].verdict, Verdict::MissingFromLedger);
        assert!(other.unreplayed.is_empty());
    }
}
