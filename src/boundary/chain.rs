//! The ledger's hash chain (SPEC §6): proof, months later, that nobody edited the record store.
//!
//! Every record carries `prev_sha256`, the SHA-256 of the previous record's line: its exact bytes
//! without the newline, so the verifier never re-serializes anything and a byte changed anywhere
//! changes a hash. The first record of a file links to [`GENESIS`]. All runs sharing a file are
//! one chain, because the appender links to whatever line it finds last under the lock.
//!
//! A chain tells *that* something changed, and, from where the broken link points, roughly *what*:
//! a link to a line further back means the lines in between were inserted; a link to a later line
//! means records were reordered; a link to nothing means the line before was edited or records
//! were deleted there (the chain cannot tell these two apart: both leave a hash that no line in
//! the file has). Editing or cutting off the *last* records leaves a valid, shorter chain; only the
//! head the harness was handed (`ledger_head`) catches that, hence `--head`.
//!
//! Whitespace-only lines are skipped here exactly as the ledger's reader skips them, and the bytes
//! after the last newline are a torn line (a crash mid-write), not part of the chain: the
//! appender cuts them off before it writes, and the verifier reports them as a crash artefact.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::scope::sha256_hex;
use crate::contracts::LedgerRecord;

/// The `prev_sha256` of the first record of a file: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The hash a line contributes to the chain: SHA-256 of its bytes (no newline), lowercase hex.
pub fn line_hash(line: &[u8]) -> String {
    sha256_hex(line)
}

/// Whether `text` looks like a chain hash: 64 lowercase hex digits.
pub fn is_hash(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The whole lines of a ledger file and what follows the last newline.
pub(crate) struct Lines<'a> {
    /// 1-based line number and bytes (without the newline) of every non-blank whole line.
    pub whole: Vec<(u64, &'a [u8])>,
    /// Length of the part up to and including the last newline.
    pub complete_len: usize,
    /// The line number of the bytes after the last newline, when there are any non-blank ones.
    pub torn_line: Option<u64>,
}

/// Splits a ledger into its whole lines, the way both the appender and the verifier read it.
pub(crate) fn lines(bytes: &[u8]) -> Lines<'_> {
    let complete_len = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut whole = Vec::new();
    let mut count = 0u64;
    for (index, line) in bytes[..complete_len].split(|b| *b == b'\n').enumerate() {
        count = index as u64 + 1;
        if !is_blank(line) {
            whole.push((index as u64 + 1, line));
        }
    }
    // `split` yields one empty piece after the final newline; it is the torn line's number.
    let tail = &bytes[complete_len..];
    let torn_line = (!is_blank(tail)).then_some(count.max(1));
    Lines {
        whole,
        complete_len,
        torn_line,
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainReport {
    /// Whole records in the file (the torn line not counted).
    pub records: u64,
    /// The hash of the last whole record: what the last call handed the harness as `ledger_head`.
    pub head: Option<String>,
    /// The first place the chain breaks, if it does.
    pub broken: Option<ChainBreak>,
    /// Bytes after the last newline: a crash mid-write, ignored.
    pub torn: Option<TornLine>,
    /// The result of `--head`, when a head was given.
    pub head_check: Option<HeadCheck>,
}

impl ChainReport {
    /// True when the chain is unbroken and the expected head, if any, is in it.
    pub fn is_intact(&self) -> bool {
        self.broken.is_none() && !matches!(self.head_check, Some(HeadCheck::Missing))
    }

    /// The report as `ledger verify` prints it: the verdict first, then the notes.
    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let plural = if self.records == 1 { "" } else { "s" };
        match (&self.broken, &self.head) {
            (Some(b), _) => writeln!(out, "chain broken: {b}; {} records read", self.records)?,
            (None, Some(head)) => writeln!(
                out,
                "chain intact: {} record{plural}, head {head}",
                self.records
            )?,
            (None, None) => writeln!(out, "chain intact: 0 records")?,
        }
        if let Some(torn) = &self.torn {
            writeln!(out, "note: {torn}")?;
        }
        if let Some(check) = &self.head_check {
            writeln!(out, "--head: {check}")?;
        }
        Ok(())
    }
}

/// A torn last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TornLine {
    /// Its 1-based line number.
    pub line: u64,
    /// Its length in bytes.
    pub bytes: u64,
}

impl fmt::Display for TornLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} is torn ({} bytes, no newline): a crash artefact, not part of the chain; \
             the next call cuts it off",
            self.line, self.bytes
        )
    }
}

/// Where the expected head sits in the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadCheck {
    /// The head is the record on `line`, and `following` records were appended after it.
    Found {
        /// Its 1-based line number.
        line: u64,
        /// Records after it.
        following: u64,
    },
    /// No whole record has that hash: it was edited, or cut off the end with everything after it.
    Missing,
}

impl fmt::Display for HeadCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeadCheck::Found { line, following } => write!(
                f,
                "head found at line {line}; {following} record{} follow{} it",
                if *following == 1 { "" } else { "s" },
                if *following == 1 { "s" } else { "" }
            ),
            HeadCheck::Missing => f.write_str(
                "head not in the chain: the record the harness was handed was edited, or cut off \
                 the end together with every record after it",
            ),
        }
    }
}

/// The first broken link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainBreak {
    /// The 1-based line the break is reported at (for an insertion, the first inserted line).
    pub line: u64,
    /// What the chain says happened.
    pub kind: BreakKind,
}

/// What a broken link points to, and so what most likely happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakKind {
    /// The line is not a ledger record at all (not JSON, or fields the ledger never writes).
    NotARecord,
    /// A record without `prev_sha256`: written before the chain existed, or edited.
    Unchained,
    /// Lines `line..=last` were not there when the record after them was written.
    Inserted {
        /// The last inserted line.
        last: u64,
    },
    /// The record on `line` was written right after the record now on the later line `after`.
    Reordered {
        /// The later line it links to.
        after: u64,
    },
    /// The record's link matches no line: the previous line (`None` for the first record) was
    /// edited, or records before this one were deleted.
    EditedOrDeleted {
        /// The line before, if any.
        previous: Option<u64>,
    },
}

impl fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.line;
        match self.kind {
            BreakKind::NotARecord => write!(
                f,
                "line {line} is not a ledger record: it was edited or inserted"
            ),
            BreakKind::Unchained => write!(
                f,
                "line {line} has no prev_sha256: it was edited, or written before the ledger \
                 was hash-chained"
            ),
            BreakKind::Inserted { last } if last == line => write!(
                f,
                "line {line} was inserted: the record after it links to the record before it"
            ),
            BreakKind::Inserted { last } => write!(
                f,
                "lines {line} to {last} were inserted: the record after them links to the \
                 record before them"
            ),
            BreakKind::Reordered { after } => write!(
                f,
                "line {line} is out of order: it was written right after line {after}"
            ),
            BreakKind::EditedOrDeleted { previous: None } => write!(
                f,
                "line {line} does not start the chain: records before it were deleted, or its \
                 prev_sha256 was edited"
            ),
            BreakKind::EditedOrDeleted {
                previous: Some(prev),
            } => write!(
                f,
                "line {line} does not follow line {prev}: its prev_sha256 matches no line in the \
                 file, so line {prev} was edited or records between them were deleted"
            ),
        }
    }
}

/// Checks the chain of a ledger file's bytes, and that `expected_head` (if given) is in it.
pub fn verify(bytes: &[u8], expected_head: Option<&str>) -> ChainReport {
    let lines = lines(bytes);
    let torn = lines.torn_line.map(|line| TornLine {
        line,
        bytes: (bytes.len() - lines.complete_len) as u64,
    });
    let hashes: Vec<String> = lines.whole.iter().map(|(_, l)| line_hash(l)).collect();
    // First position of each hash; a chain never repeats a line, a tampered file might.
    let mut position: HashMap<&str, usize> = HashMap::with_capacity(hashes.len());
    for (i, h) in hashes.iter().enumerate() {
        position.entry(h.as_str()).or_insert(i);
    }
    let links: Vec<Result<Option<String>, ()>> = lines
        .whole
        .iter()
        .map(|(_, line)| {
            serde_json::from_slice::<LedgerRecord>(line)
                .map(|r| r.prev_sha256)
                .map_err(drop)
        })
        .collect();
    let number = |i: usize| lines.whole[i].0;
    let expected = |i: usize| if i == 0 { GENESIS } else { &hashes[i - 1] };

    let mut broken = None;
    for i in 0..lines.whole.len() {
        let at = |kind| {
            Some(ChainBreak {
                line: number(i),
                kind,
            })
        };
        let prev = match &links[i] {
            Err(()) => {
                broken = at(BreakKind::NotARecord);
                break;
            }
            Ok(None) => {
                broken = at(BreakKind::Unchained);
                break;
            }
            Ok(Some(prev)) => prev.as_str(),
        };
        if prev == expected(i) {
            continue;
        }
        // Where does the link point? `Some(j)`: the line the record was written after, `None`:
        // the start of the file.
        let target = if prev == GENESIS {
            Some(None)
        } else {
            position.get(prev).map(|j| Some(*j))
        };
        broken = match target {
            // A link further back: the lines in between were not there when this one was written.
            Some(j) if j.is_none_or(|j| j + 1 < i) => {
                let first = j.map_or(0, |j| j + 1);
                Some(ChainBreak {
                    line: number(first),
                    kind: BreakKind::Inserted {
                        last: number(i - 1),
                    },
                })
            }
            // A link to a later line (the line right before would be intact, itself impossible).
            Some(Some(j)) => at(BreakKind::Reordered { after: number(j) }),
            // Taken by the first arm; kept for the match to be exhaustive.
            Some(None) => at(BreakKind::EditedOrDeleted { previous: None }),
            None => {
                // A line with a forged link, whose successor still links past it: inserted.
                let next_skips_it = links
                    .get(i + 1)
                    .and_then(|l| l.as_ref().ok().cloned().flatten())
                    .is_some_and(|next| next == expected(i));
                if next_skips_it {
                    at(BreakKind::Inserted { last: number(i) })
                } else {
                    at(BreakKind::EditedOrDeleted {
                        previous: i.checked_sub(1).map(number),
                    })
                }
            }
        };
        break;
    }

    let head_check = expected_head.map(|head| match position.get(head) {
        Some(i) => HeadCheck::Found {
            line: number(*i),
            following: (hashes.len() - i - 1) as u64,
        },
        None => HeadCheck::Missing,
    });
    ChainReport {
        records: hashes.len() as u64,
        head: hashes.last().cloned(),
        broken,
        torn,
        head_check,
    }
}

/// A ledger that cannot be read (exit 5).
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot read the ledger: {source}", path.display())]
pub struct LedgerReadError {
    /// The ledger's path as given (`-` for standard input).
    pub path: PathBuf,
    /// The operating system's reason.
    pub source: std::io::Error,
}

/// `aciproj ledger verify` as a library call: reads the ledger at `path` (`-`: standard input)
/// and checks its hash chain, and with `head` that the chain reaches that `ledger_head`.
pub fn verify_file(path: &Path, head: Option<&str>) -> Result<ChainReport, LedgerReadError> {
    Ok(verify(&read(path)?, head))
}

/// Reads a whole ledger file; `-` reads standard input.
pub fn read(path: &Path) -> Result<Vec<u8>, LedgerReadError> {
    let fail = |source| LedgerReadError {
        path: path.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(fail)?;
    } else {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(fail)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `n` records written the way the appender writes them.
    fn chain(n: usize) -> Vec<String> {
        let mut prev = GENESIS.to_owned();
        (0..n)
            .map(|i| {
                let record = LedgerRecord {
                    run_id: Some("r".into()),
                    tool_call_id: format!("call_{i}"),
                    tool: "rag".into(),
                    prev_sha256: Some(prev.clone()),
                    ..LedgerRecord::default()
                };
                let line = serde_json::to_string(&record).unwrap();
                prev = line_hash(line.as_bytes());
                line
            })
            .collect()
    }

    fn file(lines: &[String]) -> Vec<u8> {
        lines
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    }

    fn broken(lines: &[String]) -> ChainBreak {
        verify(&file(lines), None).broken.expect("the chain breaks")
    }

    #[test]
    fn an_untouched_chain_verifies_and_names_its_head() {
        let lines = chain(5);
        let report = verify(&file(&lines), None);
        assert!(report.is_intact(), "{report:?}");
        assert_eq!(report.records, 5);
        assert_eq!(report.head, Some(line_hash(lines[4].as_bytes())));
        assert!(verify(b"", None).is_intact());
        assert!(is_hash(GENESIS) && is_hash(&line_hash(b"x")));
    }

    #[test]
    fn an_edited_record_breaks_the_link_after_it() {
        let mut lines = chain(4);
        lines[1] = lines[1].replace("\"tool\":\"rag\"", "\"tool\":\"logs\"");
        let b = broken(&lines);
        assert_eq!(
            b,
            ChainBreak {
                line: 3,
                kind: BreakKind::EditedOrDeleted { previous: Some(2) }
            }
        );
        assert!(b.to_string().contains("line 2 was edited"), "{b}");
    }

    #[test]
    fn a_deleted_record_leaves_a_link_to_nothing() {
        let mut lines = chain(4);
        lines.remove(1);
        assert_eq!(
            broken(&lines).kind,
            BreakKind::EditedOrDeleted { previous: Some(1) }
        );
        let mut lines = chain(3);
        lines.remove(0);
        assert_eq!(
            broken(&lines),
            ChainBreak {
                line: 1,
                kind: BreakKind::EditedOrDeleted { previous: None }
            }
        );
    }

    #[test]
    fn inserted_records_are_named_with_or_without_a_forged_link() {
        let lines = chain(3);
        // Forged well: the inserted record links to the one before it.
        let forged = lines[0].replace("call_0", "call_x");
        let forged = forged.replace(
            &format!("\"prev_sha256\":\"{GENESIS}\""),
            &format!("\"prev_sha256\":\"{}\"", line_hash(lines[0].as_bytes())),
        );
        let with = [
            lines[0].clone(),
            forged.clone(),
            lines[1].clone(),
            lines[2].clone(),
        ];
        assert_eq!(
            broken(&with),
            ChainBreak {
                line: 2,
                kind: BreakKind::Inserted { last: 2 }
            }
        );
        // Forged badly: a link to nothing, but the next record skips it.
        let bad = lines[1]
            .replace("call_1", "call_y")
            .replace(&line_hash(lines[0].as_bytes()), &"ab".repeat(32));
        let with = [lines[0].clone(), bad, lines[1].clone(), lines[2].clone()];
        assert_eq!(
            broken(&with),
            ChainBreak {
                line: 2,
                kind: BreakKind::Inserted { last: 2 }
            }
        );
        // A prepended record: the old first record still links to GENESIS.
        let first = lines[0].replace("call_0", "call_z");
        let with = [first, lines[0].clone(), lines[1].clone()];
        assert_eq!(
            broken(&with),
            ChainBreak {
                line: 1,
                kind: BreakKind::Inserted { last: 1 }
            }
        );
    }

    #[test]
    fn swapped_records_are_out_of_order() {
        let mut lines = chain(4);
        lines.swap(1, 2);
        assert_eq!(
            broken(&lines),
            ChainBreak {
                line: 2,
                kind: BreakKind::Reordered { after: 3 }
            }
        );
        let mut lines = chain(2);
        lines.swap(0, 1);
        assert_eq!(broken(&lines).kind, BreakKind::Reordered { after: 2 });
    }

    #[test]
    fn damaged_and_unchained_lines_are_breaks() {
        let mut lines = chain(3);
        lines[1] = "{not json".into();
        assert_eq!(broken(&lines).kind, BreakKind::NotARecord);
        let old = r#"{"tool_call_id":"c","tool":"rag"}"#.to_owned();
        assert_eq!(
            broken(&[old]),
            ChainBreak {
                line: 1,
                kind: BreakKind::Unchained
            }
        );
    }

    #[test]
    fn a_torn_last_line_is_a_note_not_a_break() {
        let lines = chain(2);
        let mut bytes = file(&lines);
        bytes.extend_from_slice(b"{\"run_id\":\"r\",\"tool_ca");
        let report = verify(&bytes, None);
        assert!(report.is_intact(), "{report:?}");
        assert_eq!(report.records, 2);
        assert_eq!(report.torn, Some(TornLine { line: 3, bytes: 22 }));
        // Blank lines are skipped, as the reader skips them.
        let spaced = format!("{}\n\n{}\n", lines[0], lines[1]);
        assert!(verify(spaced.as_bytes(), None).is_intact());
    }

    #[test]
    fn the_head_must_be_in_the_chain() {
        let lines = chain(4);
        let head = line_hash(lines[1].as_bytes());
        let report = verify(&file(&lines), Some(&head));
        assert_eq!(
            report.head_check,
            Some(HeadCheck::Found {
                line: 2,
                following: 2
            })
        );
        assert!(report.is_intact());
        // The records from the head on cut off the end: the rest still chains, the head is gone.
        let cut = verify(&file(&lines[..1]), Some(&head));
        assert!(cut.broken.is_none());
        assert_eq!(cut.head_check, Some(HeadCheck::Missing));
        assert!(!cut.is_intact());
    }
}
