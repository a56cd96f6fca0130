//! `aciproj redact --flags`: the flag catalogue over any line stream.
//!
//! Each line is redacted as the log projection redacts a message, then scanned, and one JSON
//! array of the rule ids that fired is written per input line, in order (`[]` when none), so
//! the output lines up with the input by line number (`--raw` scans the line unredacted, as
//! `rag` evidence is scanned) and a script can score any corpus
//! against the very catalogue the projections use. The text itself is never echoed.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use crate::filter::FilterError;
use crate::redact::{RedactionCounts, Redactor};

/// What a `--flags` run saw, for `--stats`.
#[derive(Debug, Default, serde::Serialize)]
pub struct FlagStats {
    /// Lines read.
    pub lines: u64,
    /// Lines at least one rule flagged.
    pub flagged: u64,
    /// Flagged lines per rule id.
    pub by_rule: BTreeMap<&'static str, u64>,
}

/// Writes, for every line of `input`, the ids of the flag rules that fire on it once redacted
/// (as it is when `redactor` is `None`).
pub fn flag_lines(
    redactor: Option<&Redactor>,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<FlagStats, FilterError> {
    let mut stats = FlagStats::default();
    let mut line = Vec::new();
    let mut counts = RedactionCounts::default();
    loop {
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(FilterError::Read)?
            == 0
        {
            break;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let text = String::from_utf8_lossy(body);
        let found = match redactor {
            Some(r) => super::scan(&r.redact(&text, &mut counts)),
            None => super::scan(&text),
        };
        stats.lines += 1;
        let ids: Vec<&'static str> = found.ids().collect();
        if !ids.is_empty() {
            stats.flagged += 1;
            for id in &ids {
                *stats.by_rule.entry(id).or_default() += 1;
            }
        }
        serde_json::to_writer(&mut output, &ids)
            .map_err(|e| FilterError::Write(std::io::Error::other(e)))?;
        output.write_all(b"\n").map_err(FilterError::Write)?;
    }
    output.flush().map_err(FilterError::Write)?;
    Ok(stats)
}
